/* The op kit: everything an operator's shape and cost functions use.
 *
 * An operator is one row of its family's table (ops/<family>.c, see
 * docs/adding-an-operator.md) naming a shape function and, when the generic
 * cost (0 FLOPs, or per_elem FLOPs per output element, plus the bytes of the
 * node's tensors) is not right, a cost function. Both receive the analysis
 * context `c`, the graph and the node; this header is all they need.
 *
 * Common rules, so each entry below only states its exceptions:
 * - Memory: everything a helper allocates lives in the analysis arena
 *   (c->arena) and dies with the analysis; nothing here is freed by callers.
 *   Pointers into a value (dims, ival, fval) live as long as the value.
 * - Errors: a helper that can fail records one error in c->err (code, the
 *   node's name, a message that says what is wrong and where) and returns
 *   RL_FAIL, -1 or a documented default. The inference and cost drivers stop
 *   at any recorded error, so a shape function just returns RL_FAIL on.
 * - Status: shape functions return RL_OK (every output fully known),
 *   RL_UNKNOWN (what could not be told is left unknown, the node is still
 *   valid) or RL_FAIL (the model is invalid).
 * - Sizes: every known dim and element count is at most RL_MAX_ELEMS (2^53;
 *   rl_set_out enforces it), so formulas may add a few dims or multiply one
 *   by a small factor in int64; anything more goes through rl_mul_ok,
 *   rl_add_ok, rl_dim_mul or rl_dim_add. */
#ifndef ROOFLENS_OP_H
#define ROOFLENS_OP_H
#include <stdbool.h>
#include <stdint.h>

#include "../graph.h"
#include "../internal.h"

/* ------------------------------------------------------ inputs, outputs -- */
/* Input or output i of the node; NULL when omitted or out of range. */
rl_value *rl_in(const rl_node *n, int i);
rl_value *rl_out(const rl_node *n, int i);
/* Dtype of value v / of input i; 0 when absent or unknown. */
int rl_value_dtype(const rl_value *v);
int rl_in_dtype(const rl_node *n, int i);
/* Dim `axis` of input i; -1 when absent, unknown or out of range. */
int64_t rl_in_dim(const rl_node *n, int i, int axis);
/* Whether the node is of operator type `op` (a family sharing one function). */
bool rl_op_is(const rl_node *n, const char *op);

/* ------------------------------------------------------ known contents -- */
/* A value's contents are known (constant folding) when every element is:
 * v->ival and v->fval then hold rl_numel(v) entries. */
bool rl_contents_known(const rl_value *v);
/* Known integer (or number) contents of input i: sets *vals to the value's
 * own array and returns the count; -1 (vals untouched) when unknown. Partly
 * known contents count (n_known may be below the element count). */
int64_t rl_in_ints(const rl_node *n, int i, const int64_t **vals);
int64_t rl_in_floats(const rl_node *n, int i, const double **vals);
/* The first element of input i when its contents are fully known; false
 * otherwise, and then (if the input is given) marks the node as needing a
 * runtime value (rl_needs_runtime). */
bool rl_in_scalar(rl_node *n, int i, double *out);
/* An integer list an op takes from input `input` (when from_input: newer
 * opsets) or from attribute `attr` (older ones). Returns the count with *vals
 * set; -1 when the input is given but its contents are unknown (the node is
 * marked as needing a runtime value); -2 when absent. */
int64_t rl_ints_arg(rl_node *n, int input, const char *attr, bool from_input, const int64_t **vals);
/* How many entries a runtime-valued 1-D input holds (its known length); -1
 * when not known. A shape, axes or sizes input whose values wait for run
 * time still fixes the rank of the result through its length. */
int64_t rl_in_runtime_len(const rl_node *n, int input);
/* The shape function needed the contents of input i (or the data itself:
 * i = 0 for NonZero, Unique...) and the file does not hold them: lets the
 * driver adopt the model's declared shape when it agrees with what could be
 * inferred. Only the first such input is remembered. */
void rl_needs_runtime(rl_node *n, int i);

/* ----------------------------------------------------------- attributes -- */
/* The attribute called `name`, NULL when absent. Points into the model. */
const Onnx__AttributeProto *rl_attr(const rl_node *n, const char *name);
/* Integer attributes go through these: a FLOAT attribute must hold a whole
 * number inside int64 (NaN, inf, 1e30 are refused), and rl_attr_i_in also
 * bounds the value to [lo, hi]. Absent: def. A bad value records a
 * bad_attribute error in c->err (naming node and attribute) and returns
 * def, so callers need not check. c may be NULL for a read after inference
 * has checked the node (the LLM view): a bad value then only gives def. */
int64_t rl_attr_i(rl_ctx *c, const rl_node *n, const char *name, int64_t def);
int64_t rl_attr_i_in(rl_ctx *c, const rl_node *n, const char *name, int64_t def, int64_t lo, int64_t hi);
/* A number attribute (FLOAT, or INT converted); def when absent. */
double rl_attr_f(const rl_node *n, const char *name, double def);
/* A STRING attribute as a NUL-terminated copy made in the analysis arena:
 * valid until the analysis ends, however many other calls follow. Absent:
 * def itself (not copied). Out of memory: records out_of_memory in c->err
 * and returns def. */
const char *rl_attr_s(rl_ctx *c, const rl_node *n, const char *name, const char *def);
/* A list attribute: sets *vals to the model's own array and returns the
 * count; -1 (vals untouched) when absent. */
int rl_attr_ints(const rl_node *n, const char *name, const int64_t **vals);
int rl_attr_floats(const rl_node *n, const char *name, const float **vals);

/* ------------------------------------------------------------ dims, axes -- */
/* Dim arithmetic for shape formulas: an unknown operand (< 0) gives -1; a
 * result past int64 saturates to INT64_MAX, which rl_set_out then refuses as
 * dim_overflow naming the node. */
static inline int64_t rl_dim_mul(int64_t a, int64_t b) {
    int64_t r;
    if (a < 0 || b < 0) return -1;
    return rl_mul_ok(a, b, &r) ? r : INT64_MAX;
}
static inline int64_t rl_dim_add(int64_t a, int64_t b) {
    int64_t r;
    if (a < 0 || b < 0) return -1;
    return rl_add_ok(a, b, &r) ? r : INT64_MAX;
}
/* Product of dims[from..to); -1 if any is unknown or the product overflows. */
int64_t rl_dims_prod(const int64_t *dims, int from, int to);
/* Flat index <-> coordinates, row-major, over known dims (an unknown or 0
 * dim counts as 1 in rl_unravel). coord holds rank entries. */
void rl_unravel(int64_t flat, int rank, const int64_t *dims, int64_t *coord);
int64_t rl_ravel(int rank, const int64_t *dims, const int64_t *coord);
/* Normalises a possibly negative axis against rank; -1 after rl_bad when it
 * is outside [-rank, rank) (a rank-0 input accepts axis 0 and -0). */
int rl_axis(rl_ctx *c, const rl_node *n, int64_t axis, int rank);
/* The axes an op acts on, made non-negative in ax[] (RL_MAX_RANK_HARD
 * entries): `axes` (cnt entries, from rl_ints_arg) or, when the op names none
 * (cnt < 0), the first `count` axes in order. An axis out of range or named
 * twice is an error: ONNX forbids repeats or leaves them undefined, so no
 * shape would be right. Returns the number of axes, or -1 after rl_bad. */
int rl_resolve_axes(rl_ctx *c, const rl_node *n, const int64_t *axes, int64_t cnt, int64_t count, int rank,
                    int *ax);
/* Multidirectional (numpy) broadcast of dims a (rank ra) and b (rank rb)
 * into out (max(ra, rb) entries; -1 stays unknown). Returns the rank, or -1
 * after rl_bad when two known dims disagree. */
int rl_broadcast(rl_ctx *c, const rl_node *n, int ra, const int64_t *a, int rb, const int64_t *b,
                 int64_t *out);

/* -------------------------------------------------------------- outputs -- */
/* Sets output i: dtype (0 keeps the current one) and shape (rank -1:
 * unknown; dims may hold -1, copied into the arena). RL_OK, or RL_FAIL with
 * limit_rank, dim_overflow (past RL_MAX_ELEMS), bad_node (a negative dim) or
 * out_of_memory recorded. An omitted output (NULL) is RL_OK, nothing set. */
int rl_set_out(rl_ctx *c, rl_node *n, int i, int dtype, int rank, const int64_t *dims);
/* rl_set_out, returning a shape function's status: RL_UNKNOWN when the rank
 * or some dim is unknown, else RL_OK (or RL_FAIL). */
int rl_set_out_status(rl_ctx *c, rl_node *n, int i, int dtype, int rank, const int64_t *dims);
/* Output i with a known dtype and rank but every dim unknown (rank < 0, or
 * past RL_MAX_RANK_HARD: unknown rank). RL_UNKNOWN, or RL_FAIL. */
int rl_set_out_unknown(rl_ctx *c, rl_node *n, int i, int dtype, int rank);
/* Same dtype, shape and value type (tensor, sequence...) as v; v NULL gives
 * an unknown output. Same returns as rl_set_out. */
int rl_set_out_like(rl_ctx *c, rl_node *n, int i, const rl_value *v);
/* Output 0 like x where runtime values decide the size along the named axes
 * (axes, cnt as from rl_ints_arg): those unknown, the others kept; every dim
 * unknown when the axes themselves are not known (cnt < 0). `shrinks`: the op
 * cannot grow a dim (Slice), so x's dims bound the result. RL_UNKNOWN or
 * RL_FAIL. */
int rl_set_out_unknown_along_axes(rl_ctx *c, rl_node *n, const rl_value *x, const int64_t *axes, int64_t cnt,
                                  bool shrinks);
/* Upper bounds (-1 none) for output i's unknown dims (dim_max holds the
 * output's rank entries; copied); one_or_max: each unknown dim is either 1
 * or its bound. Out of memory only loses the bounds. */
void rl_set_out_bounds(rl_ctx *c, rl_node *n, int i, const int64_t *dim_max, bool one_or_max);
/* A shape function for ops whose output 0 is like input 0 (dtype, shape,
 * value type): RL_OK when input 0's shape is known, else RL_UNKNOWN (an
 * absent input gives an unknown output), or RL_FAIL. */
int rl_shape_like_input(rl_ctx *c, rl_graph *g, rl_node *n);
/* Fail helper for shape functions: records bad_node naming the node, with
 * the printf-style message, and returns RL_FAIL. */
int rl_bad(rl_ctx *c, const rl_node *n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ------------------------------------------------------ constant folding -- */
/* Gives output i known contents: `ival` and/or `fval` of count elements
 * (copied; the missing one is converted, floats saturating into int64).
 * Nothing happens past RL_FOLD_MAX_ELEMS or out of memory: folding is an
 * optimisation, an unfolded value is only unknown. */
void rl_set_out_contents(rl_ctx *c, rl_node *n, int i, int64_t count, const int64_t *ival,
                         const double *fval);
/* Arrays for a fold of count elements (both types), from the arena and not
 * zeroed: the caller fills all count before handing them on with
 * rl_adopt_out_contents. -1 past RL_FOLD_MAX_ELEMS or out of memory. */
int rl_fold_alloc(rl_ctx *c, int64_t count, int64_t **iv, double **fv);
/* Output i's contents become iv and fv themselves (from rl_fold_alloc, all
 * count elements written), without the copy rl_set_out_contents makes. */
void rl_adopt_out_contents(rl_node *n, int i, int64_t count, int64_t *iv, double *fv);
/* Output out_i's contents: src's elements at flat indices idx[0..count).
 * Nothing when src's contents are unknown, count is not small or an index
 * is out of range. */
void rl_fold_indexed(rl_ctx *c, rl_node *n, int out_i, const rl_value *src, int64_t count, const int64_t *idx);
/* Output out_i's contents: src's, same order (views), when the counts agree. */
void rl_fold_same(rl_ctx *c, rl_node *n, int out_i, const rl_value *src);
/* An arena array for one source index per element of output out_i (its
 * element count in *count), or NULL when src's contents are unknown or the
 * output is not small (nothing to fold). Not zeroed: the caller writes each
 * index before rl_fold_indexed reads them. */
int64_t *rl_fold_scratch(rl_ctx *c, const rl_node *n, int out_i, const rl_value *src, int64_t *count);
/* Where an output element of a pure data movement comes from: the geometry
 * its coordinate map reads (each op uses the fields it needs). */
typedef struct rl_fold_map {
    const rl_value *src;
    int out_rank;
    const int64_t *perm;          /* Transpose: output axis k is source axis perm[k] */
    const int64_t *first, *step;  /* Slice: per axis */
    int axis;                     /* Split: the axis, and this output's offset on it */
    int64_t offset;
} rl_fold_map;
typedef void (*rl_fold_coord_fn)(const rl_fold_map *m, const int64_t *out_coord, int64_t *src_coord);
/* Folds output out_i (shape out_dims) of a data movement: each element
 * copies the source element whose coordinates `to_src` gives. Nothing when
 * the source's contents are unknown or the output is not small. */
void rl_fold_moved(rl_ctx *c, rl_node *n, int out_i, const int64_t *out_dims, const rl_fold_map *m,
                   rl_fold_coord_fn to_src);

/* --------------------------------------------------- convolution windows -- */
/* Per-spatial-axis geometry of a convolution or pooling window. */
typedef struct rl_window {
    int nsp;                               /* spatial rank */
    int64_t k[RL_MAX_RANK_HARD];           /* kernel */
    int64_t s[RL_MAX_RANK_HARD];           /* strides */
    int64_t d[RL_MAX_RANK_HARD];           /* dilations */
    int64_t pb[RL_MAX_RANK_HARD];          /* pad at the beginning */
    int64_t pe[RL_MAX_RANK_HARD];          /* pad at the end */
    char auto_pad[32];
} rl_window;
/* Reads kernel_shape (or the weight w's trailing dims; w may be NULL),
 * strides, dilations, pads and auto_pad for nsp spatial axes. RL_OK, or
 * RL_FAIL after rl_bad on values no runtime would accept. */
int rl_window_read(rl_ctx *c, const rl_node *n, const rl_value *w, int nsp, rl_window *gm);
/* auto_pad is SAME_UPPER or SAME_LOWER. */
bool rl_window_same_pad(const rl_window *gm);
/* Output length of spatial axis i for an input of length `in`: -1 unknown,
 * -2 when the window is larger than the padded input. */
int64_t rl_window_out_len(const rl_window *gm, int i, int64_t in, bool ceil_mode);
/* Output idx = [N, channels, spatial...] from x's dims and the window;
 * RL_FAIL (after rl_bad) when a window does not fit, else the status. */
int rl_set_window_out(rl_ctx *c, rl_node *n, int idx, int dtype, const rl_value *x, const rl_window *gm,
                      int64_t channels, bool ceil_mode);

/* ----------------------------------------------------------------- costs -- */
/* Element size in bytes of a dtype / whole size of a value as analysed (the
 * request's precision override applies to float types). 0 for a non-tensor
 * or unknown value. */
double rl_elem_bytes(const rl_ctx *c, int dtype);
double rl_value_bytes(const rl_ctx *c, const rl_value *v);
/* A value's bytes as its storage holds them, whatever the request's
 * precision: a checkpoint weight's exact bytes with its scales, else its
 * storage's whole blocks (a GGUF Q4_K weight); -1 for a value stored as its
 * element type (RL_ST_DTYPE), whose bytes are its dtype's. The one rule
 * rl_value_bytes and the model's weight bytes (analyze.c) both read. */
double rl_value_storage_bytes(const rl_value *v);
/* Whether weight v is stored in quantized blocks (a GGUF file's Q4_K,
 * IQ2_XXS, MXFP4...: storage.h) that a kernel dequantizes as it reads them:
 * 2 vector FLOPs per weight, as MatMulNBits counts. */
bool rl_block_quantized(const rl_value *v);
/* A kernel that reads only `elements` of input `v` (the rows a gather picks,
 * the slice a Slice keeps, the cache rows of the current positions): charge
 * that many elements instead of the whole tensor the default count charged,
 * in v's bucket (weight_bytes for initializers and constants, else
 * input_bytes). Never charges more than the whole tensor. */
void rl_cost_read_part(const rl_ctx *c, rl_cost *k, const rl_value *v, double elements);
/* Mixture of experts: the expected number of distinct experts that `tokens`
 * tokens, each routed to k of E experts uniformly, touch: E·(1 − (1 − k/E)^T).
 * The MoE ops' weight reads and the LLM view's dense-expert exports use it. */
double rl_moe_experts_touched(double experts, double k, double tokens);
/* A context whose errors land in a scratch record: a cost function re-reads
 * what the shape function already validated and reported, and must not
 * overwrite the model's error. Use: rl_quiet q; f(rl_quiet_ctx(&q, c), ...).
 * The returned context lives as long as q. */
typedef struct rl_quiet {
    rl_ctx ctx;
    rl_error scratch;
} rl_quiet;
rl_ctx *rl_quiet_ctx(rl_quiet *q, const rl_ctx *c);

#endif
