/* Hardware profiles: the figures an analysis needs, read from profile JSON
 * and validated in one place (the rules are in hw/README.md; the energy and
 * power model in docs/power.md). */
#ifndef ROOFLENS_HW_H
#define ROOFLENS_HW_H
#include <cjson/cJSON.h>
#include "internal.h"
#include "precision.h"
#include "words.h"

/* The unit a piece of work runs on. */
enum rl_unit { RL_UNIT_MATRIX = 0, RL_UNIT_VECTOR = 1, RL_UNIT_COUNT };
const char *rl_unit_name(int u); /* "matrix" | "vector" */

#define RL_HW_MAX_MEM 8

/* The op classes of the forecast: enum rl_op_class and its table of words,
 * words.h. */

#define RL_FC_MAX_APART 16
/* The most operator types a class's "fitted_ops" may list (a fit of many
 * models lists some tens). */
#define RL_FC_MAX_FITTED_OPS 256
/* Which of the nodes the plan counts as no kernel (views, shape arithmetic
 * the analysis folds) a stack runs as kernels ("shape_ops"): none
 * ("folded"); those that depend on the model's inputs, each distinct
 * computation once ("distinct": it folds constants and merges identical
 * computations, same op, attributes and inputs, as ONNX Runtime's
 * common-subexpression elimination does); all those that depend on the
 * inputs ("dynamic": it folds constants but not what depends on sizes it
 * does not know before the run); or all but Constants ("run").
 * rl_shape_ops_names: the profile's words, in the enum's order. */
enum rl_shape_ops { RL_SHAPE_FOLDED, RL_SHAPE_DISTINCT, RL_SHAPE_DYNAMIC, RL_SHAPE_RUN, RL_SHAPE_COUNT };
extern const char *const rl_shape_ops_names[RL_SHAPE_COUNT];
/* The forecast's track record (the profile's "forecast.band", hw/README.md;
 * docs/model.md §12.8): measured / forecast over held-out runs of the stack.
 * known is false when the profile gives none: then no figure has a band. */
typedef struct rl_forecast_band_params {
    bool known;
    double low, high;          /* measured / forecast at the 10th and 90th percentiles: 0 < low <= 1 <= high */
    double runs;               /* held-out runs the ratios come from (a whole number >= 3) */
    double median_error;       /* median |measured / forecast - 1| over them */
    double worst_error;        /* the largest */
    int basis;                 /* rl_band_basis (words.h): published results or the fit's cross-validation */
    const char *source;        /* where the runs are listed, one row each (docs/validation.md#...) */
    double models;             /* the models the runs are of, 0 when not given (then runs): a fit of a few
                                  models forecasts each by the fit of every pair of the others */
} rl_forecast_band_params;

/* The forecast's parameters (the profile's "forecast" block, hw/README.md):
 * what a well-tuned software stack reaches on the device. A profile without
 * the block gets the core's generic defaults (no tile quantization). */
/* A collective's achievable share of the line rate when the profile gives
 * none: NCCL's protocol overhead is about 20 % (NVIDIA/nccl-tests issue
 * 212: 370 of NVLink 4's 450 GB/s per direction), docs/model.md §12. */
#define RL_FC_DEFAULT_LINK_FRACTION 0.8
typedef struct rl_forecast_params {
    double compute[RL_CLASS_COUNT]; /* achievable fraction of the compute peak, (0, 1] */
    double memory[RL_CLASS_COUNT];  /* achievable fraction of a memory level's bandwidth, (0, 1] */
    double kernel_s;                /* fixed cost per kernel: launch or dispatch, ramp and tail */
    double class_kernel_s[RL_CLASS_COUNT]; /* a class's own fixed cost per kernel ("classes.C.
                                       kernel_overhead_s"), or < 0: the class pays kernel_s (read it
                                       through rl_fc_class_kernel_s) */
    double between_s;               /* the runtime's own time between two kernels (its executor dispatching
                                       the next), part of kernel_s ("between_kernels_s", measured by a
                                       fit from the runs' wall times; 0: none known). A further GEMM call
                                       inside one kernel (grouped_conv "per_group") pays kernel_s less
                                       this: no executor runs between the calls of one kernel */
    double between_growth;          /* the time between kernels grows by this share of the kernel before it
                                       ("between_kernels_growth", measured by a fit from the runs' gaps;
                                       0: none known): each kernel's own time counts 1 + this */
    double group_s;                 /* fixed cost per group of a grouped (depthwise) convolution: each
                                       group is a small product of its own (0: none) */
    double units;                   /* matrix units that work in parallel (SMs, MXUs, cores) */
    double tile_m, tile_n, tile_k;  /* the output tile one unit computes at a time, and its K step */
    double channel_block;           /* the channels of one block of a blocked layout ("channel_block"; a
                                       stack that runs convolutions directly, grouped ones as one kernel
                                       a group): ONNX Runtime's NCHWc block, the FP32 lanes of the
                                       widest vector register its MLAS kernels use (8 with AVX2, 16 with
                                       AVX-512F), while its GEMM still packs N in strips of 16 on both
                                       (tile_n). 0 when the profile gives none: tile_n serves */
    double tile_k0;                 /* the fixed work of an output tile, in steps of K ("tile_overhead_k"):
                                       clearing, writing and packing a tile, filling its pipeline, which
                                       a product of K steps a tile pays as K + tile_k0 (0: none) */
    double link_fraction;           /* achievable share of the interconnect's link bandwidth for a
                                       collective ("link_fraction"; default RL_FC_DEFAULT_LINK_FRACTION):
                                       what the forecast over several devices moves its bytes at */
    int cache_level;                /* memory level that keeps a kernel's output for the next (0: none) */
    bool unfused;                   /* the stack runs every node as a kernel of its own ("fusion": "none"),
                                       not the epilogue fusion of docs/model.md §4 ("epilogue") */
    int shape_ops;                  /* enum rl_shape_ops: which views and folded shape arithmetic run */
    bool group_calls;               /* the stack runs a grouped (not depthwise) convolution as one GEMM
                                       call per group, each paying kernel_s ("grouped_conv": "per_group"),
                                       not as one kernel ("one_kernel", the default) */
    bool im2col;                    /* the stack copies a convolution's input patches into columns and
                                       multiplies them by the filters, a GEMM over the output pixels
                                       ("conv_lowering": "im2col", as ONNX Runtime's NCHW convolution
                                       without graph optimisations), not one implicit GEMM over the
                                       pixels ("implicit_gemm", the default) */
    bool broadcast_copied;          /* the stack copies a broadcast (Expand) into a tensor of its own that
                                       its readers read ("broadcast": "copied", as ONNX Runtime's Expand),
                                       not read in place by them through stride-0 axes ("folded", the
                                       default: a tuned engine's grouped-query attention reads each KV head
                                       once) */
    bool pool_fused;                /* a pooling node joins the kernel that makes its input ("pooling":
                                       "fused"), as the fused model of docs/model.md §4 lets it; not a
                                       kernel of its own ("apart", the default: TensorRT runs a ResNet
                                       stem's max pooling as a layer of its own after Conv + ReLU, and
                                       ONNX Runtime as a kernel of its own) */
    const char *apart[RL_FC_MAX_APART]; /* operator types whose epilogue the stack runs as a kernel of its
                                           own ("epilogue_apart"; point into the profile) */
    int n_apart;
    bool branches_apart;            /* the stack runs every epilogue that branches (rl_fc_group_branches: a
                                       SiLU, an erf GELU) as a kernel of its own after its producer
                                       ("epilogue_branches": "apart", as ONNX Runtime does), not inside it
                                       ("fused", the default) */
    const char *stack;              /* the software stack the parameters describe */
    bool calibrated;                /* "calibrated" (fitted on measured kernels) or "analytic" */
    bool class_estimated[RL_CLASS_COUNT]; /* both the class's fractions are of kind "estimated": in a
                                       calibrated stack, a class no measured kernel set (the base
                                       profile's figures, kept by the fit) */
    const cJSON *fitted_ops[RL_CLASS_COUNT]; /* "fitted_ops": the operator types of the measured kernels
                                       that set the class's fractions, an array of strings (points into the
                                       profile; NULL: the profile does not say) */
    rl_forecast_band_params band;   /* its track record ("band"; known false: none) */
} rl_forecast_params;
/* The fixed cost per kernel of a kernel of class cls. */
static inline double rl_fc_class_kernel_s(const rl_forecast_params *p, int cls) {
    return p->class_kernel_s[cls] >= 0 ? p->class_kernel_s[cls] : p->kernel_s;
}
/* How a device's chip-to-chip links are wired (hw/README.md, "interconnect");
 * RL_TOPO_NONE: one device, no link to another. */
enum rl_topology { RL_TOPO_NONE, RL_TOPO_SWITCH, RL_TOPO_ALL_TO_ALL, RL_TOPO_RING, RL_TOPO_TORUS2D,
                   RL_TOPO_TORUS3D, RL_TOPO_COUNT };
const char *rl_topology_name(int t); /* "none" | "switch" | "all-to-all" | "ring" | "torus2d" | "torus3d" */

/* One profile's figures in one power mode. It is also the public handle
 * of rooflens.h (rl_hw_read): a handle is an rl_hw read in the default
 * mode that owns the profile's tree (`owned`, freed by rl_hw_free); an
 * analysis copies it, or reads another mode from `profile`. */
struct rl_hw {
    const cJSON *profile;                 /* the profile JSON the strings point into (its power modes
                                             are read from it) */
    cJSON *owned;                         /* a handle's own tree (== profile); NULL in every copy made
                                             by rl_hw_parse */
    const char *id, *name, *category;     /* point into the profile JSON */
    const char *mode_id, *mode_name;      /* power mode applied, or NULL */
    double clock_hz;
    double launch_s;                      /* kernel launch overhead t0 */
    double matrix[RL_P_COUNT], vector[RL_P_COUNT]; /* FLOP/s; 0 = not supported */
    const char *matrix_accumulate[RL_P_COUNT]; /* the precision a matrix peak accumulates in, as the
                                                  profile states it ("fp32"); NULL = not stated */
    int n_mem;
    const char *mem_name[RL_HW_MAX_MEM];
    double mem_bw[RL_HW_MAX_MEM], mem_cap[RL_HW_MAX_MEM];
    bool has_energy;                      /* e_flop_unit and e_byte are known */
    double e_flop;                        /* J/FLOP of the reference unit (e_ref_prec, e_ref_unit) */
    double e_byte, static_w;              /* J/byte of main-memory traffic; static power W */
    double e_flop_unit[RL_P_COUNT][RL_UNIT_COUNT]; /* J per FLOP for work of precision p on unit u;
                                                      0 where the device has no such peak */
    double power_budget_w;                /* the mode's budget, else board power / TDP; 0 = unknown */
    double power_max_w;                   /* the device's or module's maximum power (datasheet); 0 = not given */
    char energy_model[64];                /* short provenance: "measured", "tdp-split",
                                             "dvfs-scaled from maxn (measured)", … ("" = none) */
    int e_ref_prec, e_ref_unit;           /* the unit e_flop was given for */
    bool energy_tdp_split;                /* e_* derived from power_budget_w (energy.model) */
    /* What e_flop_unit is derived from (rl_hw_fill_energy_defaults): the
     * energy.flop_j given, the peaks of the operating point it was given for
     * (the base profile or the mode that gave it; 0 = this mode's own), and
     * the DVFS factor (V/V_given)² of this mode (0 = 1). */
    double e_flop_given;
    double e_given_peak[RL_P_COUNT][RL_UNIT_COUNT];
    double e_voltage_sq;
    int n_modes;
    rl_forecast_params fc;                /* the forecast's parameters */
    /* The interconnect (parallel.c): topology, name, links per device, the
     * bandwidth of one link in one direction (B/s), latency per hop (s).
     * RL_TOPO_NONE (figures 0) when the profile has none or says "none". */
    int ic_topology;
    const char *ic_name;
    double ic_links, ic_link_bw, ic_latency_s;
};

/* Read and validate a profile; apply power mode `mode` (NULL or "" = the
 * default mode). Every figure must be a finite, normal number inside its
 * physical range (hw/README.md), every key known; the effective figures must
 * be consistent (matrix ≥ vector, on-chip levels faster than main memory,
 * each compute unit at its peak within the power budget). The first fault
 * is returned as a bad_hardware error whose `where` names the field.
 * Strings point into `profile`, which must outlive `out`. Returns 0 or -1
 * with err set (unknown_power_mode for a mode the profile lacks). */
int rl_hw_parse(const cJSON *profile, const char *mode, rl_hw *out, rl_error *err);

/* What rl_check_hardware checks: the profile parses in its default mode
 * and in every power mode. 0, or -1 with err set. */
int rl_hw_check_modes(const cJSON *profile, rl_error *err);

/* Derive e_flop_unit (and, for a tdp-split profile, e_byte and static_w)
 * from what the profile gave (docs/power.md):
 *  - tdp-split: each compute unit at its peak draws half the budget B,
 *    e_flop_unit[p][u] = 0.5·B/peak(p,u); e_byte = 0.3·B/BW; static_w = 0.2·B;
 *  - otherwise, at the operating point flop_j was given for, every compute
 *    unit at its peak draws the dynamic power the reference unit draws at
 *    its own, and another clock scales each unit's energy per FLOP by V²:
 *    e_flop_unit[p][u] = flop_j·peak_given(ref)/peak_given(p,u)·(V/V_given)².
 * Sets has_energy. Idempotent; rl_hw_parse calls it. */
void rl_hw_fill_energy_defaults(rl_hw *hw);

/* The precision whose vector rate runs the vector work (Softmax, GELU,
 * LayerNorm...) of precision p: p itself, except that the vector work of
 * an integer or FP8 model runs at the best of its own, FP16 and BF16 vector
 * rates, as an engine computes it in FP16 between its quantized products
 * (docs/model.md §2). */
int rl_hw_vector_precision(const rl_hw *hw, int p);

/* Dynamic energy (J) of `matrix_flops` and `vector_flops` of precision p:
 * each on its own unit (0 when the profile has no energy figures). */
double rl_hw_flop_energy(const rl_hw *hw, int p, double matrix_flops, double vector_flops);

/* The value of a figure: a number or {"value": number, ...}; NAN if absent. */
double rl_hw_figure(const cJSON *f);

/* The range a profile allows the figure `key` (hw/README.md): its least
 * value above 0 in *lo and its greatest in *hi; false for no such figure. */
bool rl_hw_figure_range(const char *key, double *lo, double *hi);
#endif
