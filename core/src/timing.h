/* The timing model: one place in the core where a prepared graph is placed
 * on a device and every time, bound, kernel count, energy and power figure
 * of the product is computed. The JSON writer, the CLI, the page, the
 * studies and the LLM phases read an rl_timing; none of them recomputes.
 * The physics, in words, is docs/model.md.
 *
 * Use:
 *     rl_prepared pg;
 *     if (rl_prepare_graph(c, &pg)) ...            // c->err says why
 *     rl_layer_time *lt = rl_arena_alloc(c->arena, pg.graph->n_nodes * sizeof *lt); // or NULL
 *     rl_timing t;
 *     rl_time_graph(c, &pg, &options, &hw, lt, &t);
 *     const rl_sol_result *r = rl_timing_chosen(&t);   // the headline
 * rl_time_graph gives the floor (the speed-of-light models); the forecast
 * (t.forecast, forecast.h) is added by its caller: rl_time_and_forecast
 * and rl_prepare_and_time (forecast.h) do both, and so every analysis.
 *
 * Ownership: everything an rl_prepared points to lives in c->arena (freed
 * with it); rl_timing holds no pointers but static strings. */
#ifndef ROOFLENS_TIMING_H
#define ROOFLENS_TIMING_H
#include "graph.h"
#include "hw.h"
#include "words.h"

/* The request's analysis options (everything but hardware and dims). */
typedef struct rl_options {
    const char *precision_name; /* "model" or a name of rl_precision_table */
    int precision;              /* RL_P_*, -1 = the model's own */
    int precision_dtype;
    bool training;
    rl_sol_model sol;           /* the headline's speed-of-light model */
    rl_granularity granularity; /* RL_GRAN_INTENDED: each model's own */
    bool include_layers;
    int layers_layout;          /* rl_layer_layout of "layers" (layer_writer.h): rows, "columns", "packed" */
    bool layer_io;              /* "layer_io": each layer's inputs and outputs lists (default true) */
    const struct cJSON *csv;    /* "csv": the CSV layout's rows and filter, checked; NULL: none */
    int top_layers;             /* "top_layers": only the K layers of the longest floor time (0: all) */
} rl_options;

/* ------------------------------------------------------ speed of light -- */
/* The three speed-of-light models of the whole graph (docs/model.md §3):
 * rl_sol_model and its table of words, words.h. */

/* One speed-of-light model on one device. Every field is finite and >= 0,
 * except energy_j and avg_power_w which are NAN when the profile has no
 * energy figures. Always: lower_bound_s <= time_s <= upper_bound_s. */
typedef struct rl_sol_result {
    double flops, bytes;            /* W and Q of this model */
    double t_compute, t_memory;     /* Σ per-layer compute time, Q/BW */
    double roof_time_s;             /* the roofline time at this model's granularity, no launches */
    double kernels;                 /* device kernels of this model (the kernel rule, docs/model.md §4);
                                       a double: a loop body's kernels count once per trip */
    double launch_floor_s;          /* kernels × launch overhead */
    double power_floor_s;           /* shortest time the power budget allows for this model's
                                       dynamic energy: E_dyn / (budget − static); 0 = no budget */
    double time_s;                  /* THE expected time: max(roof_time_s, launch_floor_s, power_floor_s) */
    double lower_bound_s;           /* max(t_compute, t_memory, launch_floor_s, power_floor_s) */
    double upper_bound_s;           /* max(t_compute + t_memory + launch_floor_s, power_floor_s) */
    double energy_j, avg_power_w;   /* energy over time_s; avg power <= power budget */
    rl_bound bound;                 /* compute | memory | overhead | power */
    bool power_capped;              /* the power floor set time_s */
    rl_granularity granularity;     /* per_op | whole_graph: how roof_time_s was summed */
    double roof_per_op_s, roof_whole_graph_s; /* both granularities, for comparison */
} rl_sol_result;

/* One layer (main-graph node) placed on the device. */
typedef struct rl_layer_time {
    double flops;          /* W: matrix + vector FLOPs (batch scaling applied) */
    double bytes;          /* Q unfused: inputs + weights + outputs */
    double fused_bytes;    /* Q in the fused models: weights + model-boundary tensors */
    double model_bytes;    /* Q of the chosen model (bytes or fused_bytes): what its t and energy count */
    /* The kernel this layer starts in the chosen model, as one point for the
     * charts: a fused group's FLOPs, bytes, time and energy summed on its
     * first layer (its other layers: NAN); every layer on its own in the
     * unfused model. A kernel, unlike a member of a fused kernel, always
     * lies under the roofs (its time covers its compute and its traffic). */
    double kernel_flops, kernel_bytes, kernel_t, kernel_energy;
    /* The same kernel's compute time (its layers' tc summed) and memory
     * time (kernel_bytes over the bandwidth), as the time-based roofline
     * places it: its roofline time is the larger of the two. */
    double kernel_tc, kernel_tm;
    double tc, tm;         /* compute time; unfused memory time bytes / BW */
    double t;              /* the layer's share of the chosen model's time_s */
    double energy;         /* the layer's share of the chosen model's energy_j (NAN: no figures) */
    double flop_energy;    /* dynamic energy of its FLOPs (per unit and precision) */
    int prec;              /* precision its work is timed at (after any fallback) */
    rl_bound bound;        /* compute | memory: the layer's own roofline under the chosen
                              model's bytes; overhead | power: the launch or power floor set
                              the model's time (and so stretched the layer's share past its
                              roofline); none (no work) | unknown (missing shapes) */
    rl_bound energy_bound; /* compute | memory: the larger dynamic energy (unknown: no energy figures) */
    bool kernel;           /* runs on the device as a kernel of its own (unfused model) */
    double kernels;        /* kernels it launches in the unfused model (a control-flow node:
                              its bodies' kernels × trips) */
    int fused_into;        /* fused models: index of the layer whose kernel it joins
                              (epilogue fusion), or -1 when it stays a kernel of its own */
    int op_class;          /* its forecast class (enum rl_op_class, hw.h) */
    double forecast_s;     /* its share of forecast.time_s (forecast.c): the layers add up to it */
    double forecast_fixed_s; /* of forecast_s, its share of its kernel's fixed costs (per kernel, per
                                group): what a device pays in full when the work is split over several
                                (parallel.c) */
} rl_layer_time;

/* The forecast of one op class: the kernels whose class it is. */
typedef struct rl_forecast_class {
    double time_s;        /* Σ their forecast (after the model's clamp to the floor) */
    double floor_s;       /* Σ their layers' share of the floor (sol.chosen's layer times) */
    double kernels;
} rl_forecast_class;

/* The forecast beside the floor (docs/model.md §12): what a tuned software
 * stack (the profile's) takes, never below the floor. */
typedef struct rl_forecast {
    double time_s;        /* max(Σ kernels' forecast, its power floor, floor_s) */
    double floor_s;       /* sol.chosen.time_s */
    double kernels_s;     /* Σ kernels' forecast before the clamp */
    double energy_j;      /* dynamic energy of the work (main-memory bytes) + static power × time_s; NAN: none */
    double dram_bytes, cache_bytes;
    bool clamped;         /* the floor set time_s */
    double reorders, reorders_s; /* a blocked CPU stack's layout conversions (rl_fc_layout_reorders):
                                    kernels and their time (in kernels_s and the data-movement class) */
    rl_forecast_class by_class[RL_CLASS_COUNT];
} rl_forecast;

/* The whole graph on one device. */
typedef struct rl_timing {
    rl_sol_result sol[RL_SOL_COUNT];  /* each model at its intended granularity */
    rl_sol_result chosen_sol;         /* the request's model at the request's granularity
                                         (== sol[chosen] unless a granularity was forced) */
    rl_sol_model chosen;
    int main_prec;          /* precision of the roofline block: the one actually used */
    int requested_prec;     /* precision asked for (or the model's main one) before fallback */
    double flops, matrix_flops, vector_flops; /* W of the graph */
    double bytes, fused_bytes;                /* Q unfused and fused */
    int unknown_layers;
    int bad_layer;          /* first layer with a negative or non-finite figure, -1 none */
    double compute_bound_share; /* of the chosen model's roofline time, spent in compute-bound layers */
    bool has_energy;
    double power_budget_w;      /* the device's budget, 0 = unknown */
    rl_forecast forecast;       /* the chosen model's kernels on the profile's stack */
} rl_timing;

static inline const rl_sol_result *rl_timing_chosen(const rl_timing *t) { return &t->chosen_sol; }

/* ---------------------------------------------------- prepared graphs -- */
#define RL_MAX_DIMS_USED 64
/* Integer tensors up to this many elements are shape arithmetic, not kernels. */
#define RL_SHAPE_ARITH_MAX_ELEMS 64

/* A symbolic dim of the graph's inputs and where its value came from. */
typedef struct rl_dim_used {
    const char *name;
    int64_t value;
    const char *source; /* "user" (the request set it), "batch" (the batch applied), "default" */
} rl_dim_used;

/* A graph ready to time: built from c->model, every input dim resolved
 * (c->dims, c->batch), shapes and costs inferred, the batch applied. */
typedef struct rl_prepared {
    rl_graph *graph;
    int64_t batch;             /* the batch actually applied; 0 = none */
    const char *batch_applied; /* "dim" (a symbolic/unnamed leading dim took it), "scaled"
                                  (a fixed-batch graph scaled by batch / batch_base), or NULL */
    int64_t batch_base;        /* "scaled": the graph's fixed leading dim B0 */
    double batch_scale;        /* "scaled": batch / B0 (FLOPs and activation bytes); else 1 */
    const bool *per_sample;    /* "scaled": per node, whether its work scaled with the batch */
    int n_dims;
    rl_dim_used dims[RL_MAX_DIMS_USED];
    /* The kernel plan (docs/model.md §4), per main-graph node: */
    double *kernels;           /* kernels it launches in the unfused model (bodies × trips) */
    double *fused_kernels;     /* ... in the fused models (0 when fused into its producer) */
    int *group_root;           /* the node whose fused kernel it belongs to (itself if none) */
    int *group_next;           /* next member of its fusion group in topological order, -1 */
    rl_cost sum;               /* the graph's summed cost, batch applied */
} rl_prepared;

/* Build, resolve dims, infer, cost and apply the batch (docs/model.md §6).
 * Returns 0, or -1 with c->err set. May add warnings to c. */
int rl_prepare_graph(rl_ctx *c, rl_prepared *out);

/* Place every node of a prepared graph on `hw` and compute the three SOL
 * models. `lt` may be NULL (studies need only the totals) or hold
 * pg->graph->n_nodes rows; every figure of `out` is the same either way.
 * out->forecast is left zero: the forecast reads these figures, so it is
 * computed after them, by the caller (rl_time_and_forecast, forecast.h).
 * Allocates nothing. May add precision_fallback warnings to c. */
void rl_time_graph(rl_ctx *c, const rl_prepared *pg, const rl_options *o, const rl_hw *hw,
                   rl_layer_time *lt, rl_timing *out);

/* The precision a node's work is timed at on `hw` (after any fallback,
 * which it warns about once). */
int rl_node_timing_precision(rl_ctx *c, const rl_options *o, const rl_hw *hw, const rl_node *n);
/* The floor of one kernel's traffic (docs/model.md §12.7): the bytes that
 * must cross main memory (weights, the model's inputs and outputs) at its
 * bandwidth, and the tensors it exchanges with other kernels at the
 * bandwidth of the fastest memory level that can hold them all (a tensor the
 * kernel before just wrote may still be there; main memory when no level
 * can). A lower bound on the kernel's memory time, never above
 * (main + exchanged) / main memory's bandwidth. */
double rl_traffic_floor_s(const rl_hw *hw, double main_bytes, double exchanged_bytes);
/* A node's traffic in the fused models: weights and model-boundary tensors. */
double rl_node_fused_bytes(const rl_ctx *c, const rl_prepared *pg, const rl_node *n);

/* Checks an ok answer must pass: every figure finite and non-negative.
 * Returns 0, or -1 with err set: bad_model (a layer's figure is negative,
 * e.g. from a nonsensical attribute) or limit_size (a figure beyond the
 * range of a double, e.g. nested trip counts). */
int rl_timing_check(const rl_timing *t, const rl_graph *g, rl_error *err);
#endif
