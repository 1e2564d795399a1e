/* The layers of a diff (diff.c): each side's analysis read into layer rows,
 * and the rows of the two models matched (docs/ci.md, "How layers are
 * matched"). Internal to diff.c and diff_match.c. */
#ifndef ROOFLENS_DIFF_MATCH_H
#define ROOFLENS_DIFF_MATCH_H
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>

#include "diff.h"
#include "internal.h"
#include "json.h"

/* One layer row of an analysis, its strings copied into the diff's arena. */
typedef struct dlayer {
    int index;
    const char *name, *op, *domain, *bound;
    double flops, bytes, intensity, t, energy;
    double forecast; /* forecast_s: its share of the forecast */
    double kernel_intensity, kernel_flops_per_s; /* its kernel's point (NAN: fused into another's) */
    bool supported, known;
    int partner;     /* index of the matched layer of the other model, -1 none */
    int op_id;       /* (domain, op) interned, for the alignment */
    char matched_by; /* 'n' name, 'p' op and position */
    const char **out_shapes; /* its listed outputs' shapes as text ("[1, 64, ?]"), when asked for */
    int n_out;
} dlayer;

/* One model's side: its analysis (the response without its layer rows,
 * the caller's to cJSON_Delete) and its rows. */
typedef struct side {
    cJSON *res;
    dlayer *layers;
    int n;
} side;

/* Analyses m with the request on hw (NULL: the request's own "hardware")
 * and reads the response into sd; with `shapes`, each layer's output
 * shapes too (the diff's graph). False with err set (out of memory, or the
 * analysis's own error). */
bool rl_diff_analyze_side(rl_model *m, const rl_hw *hw, const char *request_text, bool shapes, side *sd, rl_arena *a,
                          rl_error *err);
/* Matches the rows of the two models (partner, matched_by); false when out
 * of memory. */
bool rl_diff_match_layers(dlayer *o, int n, dlayer *nw, int m, rl_arena *a);

/* The "graph" member of a diff (diff_graph.c; docs/api.md, "Diff"): each
 * layer's change in each figure, the edges of both graphs with their shapes,
 * the modules' changes. so->res and sn->res carry their "graph" sections.
 * False when out of memory. */
bool rl_diff_graph_add(cJSON *d, const side *so, const side *sn, rl_arena *a);

/* The page's link to the graph of the change (diff_link.c): both models'
 * addresses, the device and the request's options in the page's link
 * (web/js/state.js), malloc'd, NULL when out of memory. rl_diff_url_ok: an
 * https:// address of at most RL_DIFF_MAX_URL printable characters without
 * spaces, quotes, brackets or '#', safe in a Markdown link as it is. */
#define RL_DIFF_MAX_URL 2048
bool rl_diff_url_ok(const char *url);
char *rl_diff_page_link(const cJSON *req, const char *page_url, const char *old_url, const char *new_url,
                        const char *hw_id);
#endif
