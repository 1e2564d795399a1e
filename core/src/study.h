/* What-if studies (compare hardware, sweep the batch, compare power modes)
 * and the pieces of the analysis they share with rl_model_analyze.
 * The request/response contract is in docs/api.md ("Studies"). */
#ifndef ROOFLENS_STUDY_H
#define ROOFLENS_STUDY_H
#include <cjson/cJSON.h>

#include "graph.h"
#include "hw.h"

/* The request's analysis options (everything but hardware and dims). */
typedef struct rl_options {
    const char *precision_name; /* "model" or a name of rl_precision_table */
    int precision;              /* RL_P_*, -1 = the model's own */
    int precision_dtype;
    bool training;
    const char *sol;            /* unfused | fused | fused_prefetched */
    const char *granularity;    /* per_op | whole_graph | intended */
    bool include_layers;
} rl_options;

/* One layer placed on the roofline of one device. */
typedef struct rl_layer_time {
    double tc, tm, t, energy, fused_bytes, flops, bytes;
    int prec;
    const char *bound, *energy_bound;
    bool launches;
} rl_layer_time;

/* The whole graph on one device: the figures every view and study needs. */
typedef struct rl_timing {
    double flops, bytes, fused_bytes;       /* W; Q unfused; Q fused (MODEL.md §3) */
    double tc_sum, tm_sum, t_sum, e_sum;    /* sums of the per-layer figures */
    double flop_energy;                     /* Σ dynamic compute energy, each layer's FLOPs at the
                                               energy per FLOP of its precision and unit (J) */
    double sol_unfused, sol_fused;          /* per-op sums of max(compute, memory) */
    double chosen_time, chosen_bytes, chosen_energy; /* the request's SOL model */
    const char *chosen_granularity;         /* per_op | whole_graph */
    int kernels, unknown_layers, main_prec;
    double launch_floor;                    /* kernels × launch overhead */
    double roof_t;                          /* Σ per-layer max(compute, memory) under the
                                               chosen SOL model's bytes (no launches) */
    double compute_bound_t;                 /* the part of roof_t in compute-bound layers */
    bool has_energy;
} rl_timing;

/* Place every node of `g` (shapes and costs already inferred) on `hw`.
 * `lt` may be NULL (studies need only the totals) or hold g->n_nodes rows.
 * May add precision_fallback warnings to c. */
void rl_time_graph(rl_ctx *c, const rl_graph *g, const rl_options *o, const rl_hw *hw,
                   rl_layer_time *lt, rl_timing *out);

/* Whole-model bound of a timing: "overhead" when the launch floor is more
 * than half of the predicted time (the overhead_dominated rule), else
 * "compute" or "memory", whichever of compute time and the chosen SOL
 * model's memory time is larger. The summary and every study use this one
 * rule, so the page never shows two verdicts for the same model. */
const char *rl_model_bound(const rl_timing *t, double bw);

/* Build the main graph of c->model, resolve its input dims (c->batch,
 * c->dims), infer shapes and costs. Returns NULL with c->err set. If
 * `batch_dims` is not NULL it receives how many input dims took c->batch. */
rl_graph *rl_prepare_graph(rl_ctx *c, int *batch_dims);

/* Run the request's "study" (an object) and add the "study" member to
 * `root`. `g` is the request's own graph (shapes for the request's batch),
 * `hw` its own device. Returns 0, or -1 with err set (bad_request,
 * no_power_modes, out_of_memory): the caller then answers with the error. */
int rl_study_run(rl_ctx *c, const cJSON *study, const cJSON *req, const rl_options *o,
                 const rl_hw *hw, const rl_graph *g, cJSON *root, rl_error *err);
#endif
