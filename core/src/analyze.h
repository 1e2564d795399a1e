/* What analyze.c (rl_model_analyze) shares with analyze_fit.c
 * (rl_fit_forecast): reading a request and setting up an analysis of a model.
 * Internal to the response layer. Every pointer returned lives in the
 * caller's arena (setup) or is the caller's to cJSON_Delete (the request). */
#ifndef ROOFLENS_ANALYZE_H
#define ROOFLENS_ANALYZE_H
#include <cjson/cJSON.h>
#include <stdbool.h>

#include "internal.h"
#include "hw.h"
#include "measured.h"
#include "timing.h"

/* The request text as a JSON object; NULL with err set (bad_request, or
 * out_of_memory) when it is not one. */
cJSON *rl_analyze_parse_request(const char *request_json, rl_error *err);
/* The hardware of the request (analyze_request.c): the caller's handle
 * when `given` is not NULL (the request then names no "hardware"), else
 * the request's own profile; in the request's "power_mode". 0, or -1 with
 * err set. */
int rl_analyze_read_hardware(const cJSON *req, const rl_hw *given, rl_hw *hw, rl_error *err);
/* A context for analysing m, allocating in arena; false with err set. */
bool rl_analyze_setup_ctx(rl_ctx *c, rl_model *m, rl_arena *arena, rl_error *err);
/* The request's options (precision, mode, SOL model, layers, batch, dims)
 * into o and c; 0, or -1 with err set. */
int rl_analyze_parse_options(const cJSON *req, rl_options *o, rl_ctx *c, rl_dim_setting **dims, rl_error *err);
/* The request's "measured" profile matched to the nodes of g (*out stays
 * NULL without one); 0, or -1 with err set. */
int rl_analyze_attach_measured(rl_ctx *c, const cJSON *req, const rl_graph *g, const rl_layer_time *lt,
                               const rl_hw *hw, rl_measured **out, rl_error *err);
/* The answer's "roofline" section (analyze_roofline.c). */
void rl_analyze_roofline_section(cJSON *root, const rl_hw *hw, const rl_timing *t);
/* ---- the per-layer part of an answer (analyze_layers.c) */
struct rl_layer_writer;
struct rl_parallel;
/* The layers, written apart from the cJSON tree: the rows' text (rows
 * layout; "layers" in the tree is a mark it replaces), or the writer of
 * the columns, packed columns or CSV, appended after printing. Streamed
 * (`stream` set by the caller, rows layout): no text at all until the
 * answer is written; `later` keeps what writing the rows then needs, all of
 * it the analysis's, alive until rl_analyze_write_answer returns. */
typedef struct rl_layers_later {
    const rl_ctx *c;
    const rl_graph *g;
    const rl_layer_time *lt;
    const rl_options *o;
    bool has_energy;
    const rl_measured *measured;
    const struct rl_parallel *par;
    const int *order; /* the rows written, in order ("top_layers"); NULL: every layer in graph order */
    int n_rows;
} rl_layers_later;
typedef struct rl_layers_out {
    struct rl_layer_writer *columns;
    char *rows;
    bool stream;  /* in: the rows may wait to be streamed */
    bool waiting; /* out: they wait, in `later` */
    rl_layers_later later;
} rl_layers_out;
/* Every layer of g written in the request's layout; -1 and err when out of
 * memory or the request's csv.rows name a layer g lacks. */
int rl_analyze_layers(cJSON *root, const rl_ctx *c, const rl_graph *g, const rl_layer_time *lt,
                      const rl_options *o, bool has_energy, const rl_measured *measured,
                      const struct rl_parallel *par, rl_layers_out *out, rl_error *err);
/* The printed answer `text` (in a buffer of cap bytes) with the layers joined (out emptied; *size:
 * the answer's bytes when something follows its NUL); an out-of-memory
 * answer when joining fails. */
char *rl_analyze_join_layers(char *text, size_t cap, rl_layers_out *out, size_t *size, const rl_options *o);
/* The printed answer `text` written to `write` with its waiting rows
 * streamed where their mark stands, or its CSV after it
 * (rl_model_analyze_write); frees text. 0, or -1 when `write` stopped or
 * memory ran out once the first piece was out (before it, the
 * out_of_memory answer is written instead); *answered_ok: whether what was
 * written is an "ok": true answer. */
int rl_analyze_write_answer(char *text, rl_layers_out *out, rl_write_fn write, void *ctx, bool *answered_ok);
void rl_analyze_layers_free(rl_layers_out *out);
#endif
