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
    double kernel_intensity, kernel_flops_per_s; /* its kernel's point (NAN: fused into another's) */
    bool supported, known;
    int partner;     /* index of the matched layer of the other model, -1 none */
    int op_id;       /* (domain, op) interned, for the alignment */
    char matched_by; /* 'n' name, 'p' op and position */
} dlayer;

/* One model's side: its analysis (the response without its layer rows,
 * the caller's to cJSON_Delete) and its rows. */
typedef struct side {
    cJSON *res;
    dlayer *layers;
    int n;
} side;

/* Analyses m with the request and reads the response into sd; false with
 * err set (out of memory, or the analysis's own error). */
bool rl_diff_analyze_side(rl_model *m, const char *request_text, side *sd, rl_arena *a, rl_error *err);
/* Matches the rows of the two models (partner, matched_by); false when out
 * of memory. */
bool rl_diff_match_layers(dlayer *o, int n, dlayer *nw, int m, rl_arena *a);
#endif
