/* The forecast (docs/model.md §12): what the model will take on the
 * profile's software stack, beside the floor (the speed of light). Each
 * kernel of the chosen model runs at an achievable fraction of each ceiling
 * for its op class, with tile and wave quantization on the matrix units,
 * its intermediates in a cache level when they fit, and a fixed cost per
 * kernel; the model's forecast is never below its floor.
 *
 * The forecast reads the floor's figures (timing.h), never the other way:
 * rl_time_and_forecast times a graph and forecasts it, and rl_prepare_and_time
 * prepares it first; every analysis goes through one of them, so every
 * rl_timing it reads carries its forecast. The fit (forecast_fit.h) varies the parameters against the
 * figures of rl_fc_kernel_figures.
 *
 * Ownership: nothing is allocated; figures are written to the caller's
 * structs. */
#ifndef ROOFLENS_FORECAST_H
#define ROOFLENS_FORECAST_H
#include "timing.h"

/* A kernel's activations stay in the cache level when they take at most
 * this share of it: the rest holds the weights streaming through and what
 * other kernels left there. */
#define RL_FC_CACHE_SHARE 0.5

/* Whether the stack is a blocked CPU one: it runs convolutions directly
 * (no im2col), on channels in blocks of rl_fc_channel_block (the FP32 lanes
 * of a vector register), and a grouped convolution whose groups do not fill
 * whole blocks one group at a time (grouped_conv "per_group"), as ONNX
 * Runtime's CPU provider with its graph optimisations on (the NCHWc layout). */
bool rl_fc_blocked_layout(const rl_forecast_params *p);

/* The channels of one block of that layout: the profile's channel_block,
 * or tile_n where it gives none. */
double rl_fc_channel_block(const rl_forecast_params *p);

/* A blocked CPU stack's layout conversions (forecast_layout.c): the values
 * a convolution or pooling reads blocked that were made plain (reordered
 * in, once each), and the blocked values some reader takes plain (reordered
 * out, once each), as ONNX Runtime's NCHWc transformer places them. Each is
 * a kernel of the data-movement class added to f (its time, bytes and
 * kernel; f->reorders and f->reorders_s count them) and to the layer that
 * reads it in or made it (lt, may be NULL); e_dyn gains their main-memory
 * energy. Nothing in any other stack. Arena memory for the walk; out of
 * it, none is counted. */
void rl_fc_layout_reorders(rl_ctx *c, const rl_prepared *pg, const rl_hw *hw, rl_layer_time *lt, rl_forecast *f,
                           double *e_dyn);

/* A kernel's figures at full efficiency: what the forecast divides by the
 * profile's fractions. */
typedef struct rl_fc_kernel {
    double tc[RL_CLASS_COUNT]; /* compute time of its nodes' work per class, at the peaks (matrix work
                                  after tile and wave quantization) */
    double tk;                 /* Σ over its matrix nodes of their compute time / their K (MACs per output
                                  element): the time of one step of K over all their tiles, which the
                                  tile_overhead_k steps of each tile add to */
    double t_dram, t_cache;    /* its traffic over main memory's and the cache level's bandwidth */
    double dram_bytes, cache_bytes;
    double e_flop;             /* dynamic energy of its work */
    double kernels;            /* kernels it launches: each pays the fixed cost */
    double groups;             /* groups of its grouped convolutions (× the batch): each pays the group cost */
    double calls;              /* GEMM calls beyond the kernel's own of the grouped convolutions a stack runs
                                  one group at a time (grouped_conv per_group): each pays the kernel cost */
    double columns_bytes;      /* a stack that lowers convolutions by im2col: its largest column matrix */
    double columns_moved;      /* the bytes those matrices are written, read and packed in */
    double t_columns;          /* that traffic at the bandwidth of the level that holds them, before the
                                  product (not overlapped with it) */
    int cls;                   /* the kernel's class: its matrix node's, else its slowest node's */
} rl_fc_kernel;

/* The forecast class of a node, from its operator family (and its group
 * attribute for convolutions, its work for families of mixed ops). */
int rl_node_op_class(const rl_node *n);

/* Whether class cls is products on the matrix units, tiled and quantized:
 * GEMMs (matrix) and dense convolutions (convolution). */
bool rl_fc_class_is_product(int cls);

/* The share of a matrix unit's peak that tile and wave quantization leave
 * to an M×N×K product repeated `batch` times (1: none): the engine halves
 * the profile's tile (up to 3 times) while the tiles do not fill the units,
 * and splits K among the units when they still do not. In (0, 1]. */
double rl_matrix_quantization(const rl_forecast_params *p, double m, double n, double k, double batch);

/* The figures of one kernel made of nodes first, next[first], ... (next
 * NULL: the node `first` alone). `set_of` (NULL: none) gives each node's
 * kernel id; a tensor made and read inside the same kernel stays on chip.
 * `lt` (may be NULL) holds the timing pass's figures of each node (its
 * precision, fused bytes and the energy of its work: read, not worked out
 * again) and receives each node's class and, in forecast_s, its own weight
 * in the kernel's time. `fold` (NULL: none; rl_fc_folded_layouts) says
 * which nodes the stack reads through in place (< 0: they move nothing) and
 * how many bytes fewer their reader reads (> 0). */
void rl_fc_kernel_figures(rl_ctx *c, const rl_prepared *pg, const rl_options *o, const rl_hw *hw, int first,
                          const int *next, const int *set_of, const double *fold, double kernels, rl_layer_time *lt,
                          rl_fc_kernel *k);

/* Per node of pg's graph (arena memory), for a stack that fuses and reads a
 * matrix product's operand in place through the broadcasts (Expand) and
 * transposes before it (hw's forecast "broadcast": "folded"): -1 for such a
 * broadcast or transpose (it moves nothing), the bytes a product does not
 * read for it, else 0. NULL when the stack copies them ("copied", or
 * "fusion": "none"), when `unfused` (every node a kernel of its own, as the
 * unfused model), when the graph has no broadcast, or out of memory. */
double *rl_fc_folded_layouts(rl_ctx *c, const rl_prepared *pg, const rl_hw *hw, bool unfused);

/* Per node of pg's graph (arena memory; NULL when out of it): whether it
 * depends on the model's inputs — some input of it traced back to a graph
 * input — rather than on weights and constants alone. */
bool *rl_fc_input_dependent(rl_ctx *c, const rl_prepared *pg);

/* Per node of pg's graph (arena memory; NULL when out of it): the first
 * node, in topological order, that computes the same as it — same op,
 * domain and attributes, and the same inputs once earlier merges are made —
 * as a stack's common-subexpression elimination merges them; the node's own
 * index when none before it does. Nodes with bodies are never merged. */
int *rl_fc_first_alike(rl_ctx *c, const rl_prepared *pg);

/* Whether the fused group of §4 that node `root` heads (pg->group_root,
 * group_next) branches: some value made inside it is read by two or more
 * of its other nodes, as a SiLU (x times sigmoid(x)) or an erf GELU reads
 * its input twice. An epilogue that does not branch is a chain of
 * operations on one value (a bias, a residual Add, a ReLU), which a
 * runtime's kernel applies to the tile it has just computed; one that
 * branches also keeps that tile while it computes the other branch, which
 * some stacks' kernels do not (ONNX Runtime's convolutions fuse one
 * activation function). */
bool rl_fc_group_branches(const rl_prepared *pg, int root);

/* Whether node n is one the plan counts as no kernel (a view, shape
 * arithmetic the analysis folds) that could run as a kernel of its own: any
 * such node but a Constant (its value is the model's), a node with bodies,
 * or a Cast to the type its input has (no stack runs it). */
bool rl_fc_runs_unfolded(const rl_prepared *pg, const rl_node *n);

/* A kernel's forecast time under parameters p:
 * max(Σ_class tc / compute_fraction (+ tile_k0 × tk for the matrix class), (t_dram + t_cache) / memory_fraction)
 *   + (kernels + calls) × kernel_s + groups × group_s. */
double rl_fc_kernel_time(const rl_fc_kernel *k, const rl_forecast_params *p);

/* The forecast of the chosen model (out->forecast; per layer forecast_s and
 * op_class when lt is not NULL). Needs out's SOL models (rl_time_graph). */
void rl_forecast_graph(rl_ctx *c, const rl_prepared *pg, const rl_options *o, const rl_hw *hw, rl_layer_time *lt,
                       rl_timing *out);

/* rl_time_graph and then rl_forecast_graph: the floor and the forecast of a
 * prepared graph (lt as rl_time_graph takes it). Allocates nothing. */
void rl_time_and_forecast(rl_ctx *c, const rl_prepared *pg, const rl_options *o, const rl_hw *hw, rl_layer_time *lt,
                          rl_timing *out);

/* Prepare c->model's graph (rl_prepare_graph), time it and forecast it.
 * *lt (when lt is not NULL) receives per-layer rows allocated in c->arena.
 * Returns 0 or -1 with c->err set. This is the entry the analysis, the fit
 * and the studies use. */
int rl_prepare_and_time(rl_ctx *c, const rl_options *o, const rl_hw *hw, rl_prepared *pg,
                        rl_layer_time **lt, rl_timing *out);
#endif
