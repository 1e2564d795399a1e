/*
 * rooflens WebAssembly entry points: a thin, handle-based wrapper of the
 * public C API (core/include/rooflens.h). No analysis logic lives here: every
 * call forwards to the same functions the CLI uses.
 *
 * Handles are plain pointers (32-bit in wasm32). 64-bit counts cross the
 * boundary as doubles (exact up to 2^53), so the JS side needs no BigInt.
 * Every `char *` returned is a NUL-terminated string (JSON, but for
 * rlw_markdown_text's text) freed with rl_free.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <emscripten/emscripten.h>
#include <emscripten/heap.h>

#include "rooflens.h"
#include "rooflens_text.h"

/* The exported surface is every function defined below with
 * EMSCRIPTEN_KEEPALIVE: tools/checks/wasm_exports.py lists them for the link
 * (wasm/CMakeLists.txt), so they need no second list of prototypes here. */
typedef struct rlw_reader rlw_reader;

/* A reader plus the error JSON rl_reader_finish produced, if any. */
struct rlw_reader {
    rl_reader *r;
    char *error; /* owned; freed by rlw_reader_free */
};

EMSCRIPTEN_KEEPALIVE const char *rlw_version(void) { return ROOFLENS_VERSION; }

/* A new reader with the default limits; 0 when out of memory. */
EMSCRIPTEN_KEEPALIVE rlw_reader *rlw_reader_new(void) {
    rlw_reader *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->r = rl_reader_new(NULL);
    if (!w->r) { free(w); return NULL; }
    return w;
}

/* rl_reader_feed: returns the count of following bytes the reader ignores
 * (0 when none), or -1 on error. */
EMSCRIPTEN_KEEPALIVE double rlw_reader_feed(rlw_reader *w, const void *bytes, size_t len) {
    if (!w || !w->r) return -1;
    return (double)rl_reader_feed(w->r, bytes, len);
}

/* A size or count from JavaScript, which crosses as a double: whole, not
 * negative and exact (at most 2^53). Converting a NaN, a negative or a too
 * large double to an integer is undefined behaviour, so every such value is
 * checked here first. */
static bool whole_size(double x) {
    if (!(x >= 0 && x <= 9007199254740992.0)) return false; /* a NaN fails here too */
    return x == (double)(uint64_t)x;
}

/* rl_reader_skip: 0, or -1 when n exceeds what may be skipped (or is no size). */
EMSCRIPTEN_KEEPALIVE int rlw_reader_skip(rlw_reader *w, double n) {
    if (!w || !w->r || !whole_size(n)) return -1;
    return rl_reader_skip(w->r, (uint64_t)n);
}

EMSCRIPTEN_KEEPALIVE double rlw_reader_offset(const rlw_reader *w) {
    return (w && w->r) ? (double)rl_reader_offset(w->r) : 0;
}

/* rl_reader_finish: a model handle, or 0 with the error JSON kept for
 * rlw_reader_error. */
EMSCRIPTEN_KEEPALIVE rl_model *rlw_reader_finish(rlw_reader *w) {
    if (!w || !w->r) return NULL;
    rl_free(w->error);
    w->error = NULL;
    return rl_reader_finish(w->r, &w->error);
}

/* The error JSON of the last failed rlw_reader_finish (owned by the reader;
 * do not free), or 0. */
EMSCRIPTEN_KEEPALIVE const char *rlw_reader_error(const rlw_reader *w) {
    return w ? w->error : NULL;
}

EMSCRIPTEN_KEEPALIVE void rlw_reader_free(rlw_reader *w) {
    if (!w) return;
    rl_reader_free(w->r);
    rl_free(w->error);
    free(w);
}

/* A Hugging Face checkpoint (rl_checkpoint_*): the page gives each dropped
 * file's first 8 bytes to rlw_checkpoint_need, then that many bytes (a
 * shard's header, a JSON file whole) to rlw_checkpoint_add; the weights
 * never cross. The error JSON of a failed finish is kept as a reader's is. */
typedef struct rlw_checkpoint {
    rl_checkpoint *c;
    char *error; /* owned; freed by rlw_checkpoint_free */
} rlw_checkpoint;

EMSCRIPTEN_KEEPALIVE rlw_checkpoint *rlw_checkpoint_new(void) {
    rlw_checkpoint *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->c = rl_checkpoint_new(NULL);
    if (!w->c) { free(w); return NULL; }
    return w;
}

/* Sizes cross as doubles (exact up to 2^53); a size that is none (NaN,
 * negative, fractional, too large) needs nothing and is refused by add. */
EMSCRIPTEN_KEEPALIVE double rlw_checkpoint_need(const char *name, double size, const void *first, size_t n) {
    return whole_size(size) ? (double)rl_checkpoint_need(name, (uint64_t)size, first, n) : 0;
}

EMSCRIPTEN_KEEPALIVE int rlw_checkpoint_add(rlw_checkpoint *w, const char *name, double size, const void *bytes,
                                            size_t len) {
    if (!w || !whole_size(size)) return -1;
    return rl_checkpoint_add(w->c, name, (uint64_t)size, bytes, len);
}

/* A model handle, or 0 with the error JSON kept for rlw_checkpoint_error. */
EMSCRIPTEN_KEEPALIVE rl_model *rlw_checkpoint_finish(rlw_checkpoint *w) {
    if (!w) return NULL;
    rl_free(w->error);
    w->error = NULL;
    return rl_checkpoint_finish(w->c, &w->error);
}

EMSCRIPTEN_KEEPALIVE const char *rlw_checkpoint_error(const rlw_checkpoint *w) { return w ? w->error : NULL; }

EMSCRIPTEN_KEEPALIVE void rlw_checkpoint_free(rlw_checkpoint *w) {
    if (!w) return;
    rl_checkpoint_free(w->c);
    rl_free(w->error);
    free(w);
}

/* The core promises a JSON answer, but printing a very large response can
 * fail for want of memory, and a browser gives this module at most 2 GB (a
 * model of some 300,000 layers gets there). Never hand the page a NULL. */
static char *or_out_of_memory(char *json) {
    if (json) return json;
    static const char oom[] =
        "{\"schema\":1,\"ok\":false,\"error\":{\"code\":\"out_of_memory\","
        "\"message\":\"the analysis needs more memory than the browser gives this page "
        "(a model with very many layers): use the rooflens command-line tool for this model\","
        "\"where\":\"\"}}";
    char *s = malloc(sizeof oom);
    if (s) memcpy(s, oom, sizeof oom);
    return s;
}

/* The bytes of the last rlw_analyze answer (rl_model_analyze_hw): with
 * "layers": "packed", doubles follow the text and its NUL. */
static size_t last_answer_size;

/* The analysis on the hardware handle hw (rlw_hw_hold; the request then
 * names no hardware), or on the request's own profile when hw is NULL. */
EMSCRIPTEN_KEEPALIVE char *rlw_analyze_hw(rl_model *m, const rl_hw *hw, const char *request_json) {
    char *s = rl_model_analyze_hw(m, hw, request_json, &last_answer_size);
    if (!s) {
        s = or_out_of_memory(NULL);
        last_answer_size = s ? strlen(s) : 0;
    }
    return s;
}

EMSCRIPTEN_KEEPALIVE char *rlw_analyze(rl_model *m, const char *request_json) {
    return rlw_analyze_hw(m, NULL, request_json);
}

EMSCRIPTEN_KEEPALIVE double rlw_answer_size(void) { return (double)last_answer_size; }

/* The hardware profile the page analyses on, read once (rl_hw_read) and
 * held while the page sends the same text: a page re-analyses on every
 * control it changes, and each time reading the 11 KB profile anew cost
 * 18% of ResNet-50's instructions (docs/benchmarks.md). One profile is held
 * at a time, with its text to tell it by. */
static rl_hw *held_hw;
static char *held_text;

/* The handle of this profile text: the one held when the text is the same,
 * else the text read anew (and held in place of the last). NULL when the
 * core refuses the profile or memory runs out: the caller then writes the
 * profile into its request, so that the error is reported where and as an
 * analysis reports it. */
EMSCRIPTEN_KEEPALIVE const rl_hw *rlw_hw_hold(const char *profile_json) {
    if (!profile_json) return NULL;
    if (held_text && !strcmp(held_text, profile_json)) return held_hw;
    rl_hw_free(held_hw);
    free(held_text);
    held_hw = NULL;
    held_text = NULL;
    size_t n = strlen(profile_json) + 1;
    char *text = malloc(n);
    rl_hw *hw = text ? rl_hw_read(profile_json, NULL) : NULL;
    if (!hw) {
        free(text);
        return NULL;
    }
    memcpy(text, profile_json, n);
    held_hw = hw;
    held_text = text;
    return hw;
}

/* rl_models_diff on the hardware handle hw (rlw_hw_hold), or on the
 * request's own profile when hw is NULL: both models stay open and may be
 * analysed again. */
EMSCRIPTEN_KEEPALIVE char *rlw_models_diff_hw(rl_model *old_model, rl_model *new_model, const rl_hw *hw,
                                             const char *request_json) {
    return or_out_of_memory(rl_models_diff_hw(old_model, new_model, hw, request_json));
}

EMSCRIPTEN_KEEPALIVE char *rlw_model_summary(rl_model *m, const char *request_json) {
    return or_out_of_memory(rl_model_summary(m, request_json));
}

EMSCRIPTEN_KEEPALIVE char *rlw_info(rl_model *m) { return or_out_of_memory(rl_model_info(m)); }

EMSCRIPTEN_KEEPALIVE void rlw_free_model(rl_model *m) { rl_model_free(m); }

EMSCRIPTEN_KEEPALIVE char *rlw_check_hardware(const char *profile_json) {
    return rl_check_hardware(profile_json);
}

EMSCRIPTEN_KEEPALIVE char *rlw_operator_table(void) { return rl_operator_table(); }

EMSCRIPTEN_KEEPALIVE char *rlw_precisions(void) { return rl_precisions(); }
EMSCRIPTEN_KEEPALIVE char *rlw_words(void) { return rl_words(); }
/* rl_netron_attachment: the Netron attachment of an analysis response. */
EMSCRIPTEN_KEEPALIVE char *rlw_netron(const char *analysis_json) {
    return or_out_of_memory(rl_netron_attachment(analysis_json));
}

/* rl_markdown_text: a string made safe for a Markdown comment (the page's
 * summary escapes every name with it, as the diff's Markdown does). Plain
 * text, not JSON; NULL when out of memory. */
EMSCRIPTEN_KEEPALIVE char *rlw_markdown_text(const char *text) { return rl_markdown_text(text, 0); }

EMSCRIPTEN_KEEPALIVE void rlw_free(void *p) { rl_free(p); }

/* Memory figures, so the page and the benchmarks can check that a model of
 * any size is read in bounded memory. The linear memory only ever grows, so
 * its size is the high-water mark the browser had to provide. */
EMSCRIPTEN_KEEPALIVE double rlw_heap_size(void) { return (double)emscripten_get_heap_size(); }

/* Bytes malloc currently hands out (models, readers, buffers). */
EMSCRIPTEN_KEEPALIVE double rlw_heap_in_use(void) { return (double)mallinfo().uordblks; }

/* The most bytes malloc ever took from the linear memory: dlmalloc's
 * max_footprint (what its mallinfo reports as usmblks), read directly, as
 * mallinfo walks the whole heap. Emscripten's dlmalloc defines it without
 * declaring it in a header. */
size_t malloc_max_footprint(void);
EMSCRIPTEN_KEEPALIVE double rlw_heap_peak(void) { return (double)malloc_max_footprint(); }
