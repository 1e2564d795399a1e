/* Measured against predicted: a profile of real per-kernel times (ONNX
 * Runtime profiling JSON, trtexec --exportProfile JSON, or a name,time_s CSV)
 * read, matched to the model's nodes and set beside each node's speed of
 * light. The CLI and the page reach it through the request's "measured"
 * member; docs/api.md ("Measured times") describes the JSON it adds.
 *
 * Two steps:
 *
 *   1. Import (rl_profile_parse): the text becomes a list of kernels, each
 *      with a name, an operator type when the profile gives one, and its
 *      time in a typical run: the median over three or more runs (trtexec:
 *      its medianMs), else the mean; a kernel missing from some runs keeps
 *      its mean per run. The first run (the warm-up) is excluded when there
 *      are several.
 *   2. Match (rl_measured_attach): each kernel is mapped to the ONNX nodes it
 *      ran. Fused kernels (ORT "…_nchwc", "…/MatMulScaleFusion/", trtexec
 *      "A + B + C", "PWN(A, B)", "{ForeignNode[A...B]}") cover several nodes;
 *      for runtimes that fuse, nodes without a kernel of their own are placed
 *      in the kernel that consumed their producer's output (docs/measured.md
 *      gives the rules). Kernels that name no node are listed, never dropped.
 *
 * A kernel group (one kernel, or kernels sharing nodes) is the unit that is
 * compared: its speed of light is the sum of its nodes' own roofline times
 * max(t_compute, t_memory) (each node as its own kernel, no launch cost),
 * its efficiency SOL / measured, its recoverable time measured - SOL. Beside
 * it, sol_fused_s: the group as one kernel, whose intermediates never reach
 * main memory (max(Σ t_compute, bytes in and out / bandwidth)).
 *
 * Ownership: everything lives in the arena passed in (the analysis arena);
 * nothing is freed separately. */
#ifndef ROOFLENS_MEASURED_H
#define ROOFLENS_MEASURED_H
#include <cjson/cJSON.h>

#include "graph.h"
#include "hw.h"
#include "layer_writer.h"

/* ------------------------------------------------------------- import -- */

typedef struct rl_kernel {
    const char *name;     /* as the profile names it (ORT: without "_kernel_time") */
    const char *op;       /* operator type the runtime ran (ORT args.op_name), or NULL */
    const char *provider; /* ORT args.provider, or NULL */
    double time_s;        /* time in a typical kept run: median, or mean (see step 1 above) */
    int order;            /* position in the first kept run (execution order) */
    int out_rank;         /* ORT args.output_type_shape[0]: rank (-1 unknown) and dims */
    int64_t out_dims[8];
} rl_kernel;

typedef struct rl_profile {
    rl_profile_format format;
    rl_kernel *kernels;
    int n_kernels;
    int runs;              /* kept runs the times are taken over */
    bool median;           /* each kernel's time is its median over them (else its mean) */
    bool warmup_excluded;  /* a first run was dropped (ORT, CSV); trtexec excludes its own */
    double run_wall_s;     /* median wall time of a kept run (ORT model_run), 0 = not given */
    double between_kernels_s; /* median over kept runs of the run's wall time minus its kernels' (ORT), -1 = not given */
    double between_growth; /* how the time after a kernel grows with the kernel's own time: median over kept runs
                              of the least-squares slope of one on the other (ORT), NAN = not given */
    int ignored_events;    /* trace events that are not node kernels (sessions, fences...) */
    int warmup_only;       /* kernels that ran only in the excluded warm-up run */
} rl_profile;

/* Reads `text` (len bytes, need not be NUL-terminated) in `format` ("auto",
 * "ort", "trtexec" or "csv"; NULL = "auto"). Returns 0, or -1 with err set
 * (code bad_measured, where "measured"). */
int rl_profile_parse(rl_arena *a, const char *text, size_t len, const char *format, rl_profile *out,
                     rl_error *err);

/* -------------------------------------------------------------- match -- */
/* A node's predicted figures, filled by the analysis (one per main-graph node). */
typedef struct rl_measured_cost {
    double flops, bytes;          /* W and unfused Q */
    double t_compute, t_memory;   /* the node's own roofline: SOL = max of the two */
    bool known;                   /* all shapes known: the SOL can be trusted */
} rl_measured_cost;

typedef struct rl_measured rl_measured;

/* Reads the request's "measured" object ({"text": "...", "format": "auto"}),
 * imports it and matches it to `g`'s nodes. `cost` has g->n_nodes rows and
 * must outlive the result; `hw` (which must too) is the device the nodes'
 * t_memory used: its memory levels give each kernel group's own floor
 * (rl_traffic_floor_s). Adds warnings to c (kernels that name no node, shapes that differ
 * from the analysis). Returns NULL with err set on a bad profile or when
 * memory runs out. */
rl_measured *rl_measured_attach(rl_ctx *c, const cJSON *spec, const rl_graph *g,
                                const rl_measured_cost *cost, const rl_hw *hw, rl_error *err);

/* ------------------------------------------ writing (measured_json.c) -- */
/* Adds measured_s, efficiency, recoverable_s, achieved_flops_per_s,
 * achieved_Bps, measured_group and measured_how to layer `i` through the
 * writer (nothing when the node was not measured; m may be NULL). */
void rl_measured_layer_put(const rl_measured *m, int i, rl_layer_writer *w);

/* Adds the "measured" section to the response: totals, the kernel groups
 * ranked by recoverable time, the per-op medians and every unmatched kernel.
 * `predicted_s` is the analysis's headline time (sol.chosen.time_s), the
 * floor; `forecast_s` its forecast (forecast.time_s; 0 or NaN: none). The
 * measured total is set against both. */
void rl_measured_json(const rl_measured *m, cJSON *root, double predicted_s, double forecast_s);
#endif
