/* Graph building and lookup (graph.c), the value invariants every layer
 * above relies on, and the helpers operator shape and cost functions use. */
#ifndef ROOFLENS_GRAPH_H
#define ROOFLENS_GRAPH_H
#include "internal.h"

/* The invariant of every known shape (rl_dims_countable): each dim and the
 * element count are at most RL_MAX_ELEMS (2^53, past any real tensor and
 * exact in a double). Shape and cost formulas may then add a few dims, or
 * multiply one by a small factor, in int64 without overflow; anything more
 * goes through rl_mul_ok/rl_add_ok. */
#define RL_MAX_ELEMS (INT64_C(1) << 53)
#define RL_FOLD_MAX_ELEMS 65536           /* constant folding stays small */

/* Name -> index map in arena memory, sized once for `expected` names (it
 * never grows; NULL when out of memory). Keys are not copied: they must
 * live as long as the arena. rl_map_get: -1 when absent (or m NULL).
 * rl_map_put: false when the key exists already (the value stays). */
rl_name_map *rl_map_new(rl_arena *a, size_t expected);
int rl_map_get(const rl_name_map *m, const char *key);
bool rl_map_put(rl_name_map *m, const char *key, int val);

/* An rl_graph of GraphProto gp (the main graph, a control-flow body or an
 * expanded function) in c->arena, with values, nodes, every name resolved
 * (through `parent` for a body's outer names) and a topological order. No
 * shapes are inferred yet (infer.h). NULL with c->err set (named by `where`
 * or the node) when the graph is invalid, over a limit or memory runs out.
 * gp must outlive the graph: names point into it. */
rl_graph *rl_graph_build(rl_ctx *c, const Onnx__GraphProto *gp, rl_graph *parent, int depth,
                         const char *where);
/* Resolve a name in g or an enclosing graph; *owner (if not NULL) gets the
 * graph that defines it. NULL when no scope does. */
rl_value *rl_graph_lookup(rl_graph *g, const char *name, rl_graph **owner);

/* ------------------------------------------------- helpers for op files -- */
/* Inputs and outputs; NULL when omitted or out of range. */
rl_value *rl_in(const rl_node *n, int i);
rl_value *rl_out(const rl_node *n, int i);
bool rl_shape_known(const rl_value *v); /* rank and every dim known */
int64_t rl_numel(const rl_value *v);     /* -1 when unknown */
/* Every known dim (>= 0; -1 is unknown) and the product of the known ones
 * at most RL_MAX_ELEMS. */
bool rl_dims_countable(int rank, const int64_t *dims);
/* dim_overflow error for value v (named, with its dims) at `where`. */
void rl_dims_overflow(rl_ctx *c, const rl_value *v, int rank, const int64_t *dims, const char *where,
                      const char *what);
double rl_numel_d(const rl_value *v);    /* 0 when unknown */

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

/* Attributes; the default is returned when absent. */
const Onnx__AttributeProto *rl_attr(const rl_node *n, const char *name);
/* Integer attributes go through these: a FLOAT attribute must hold a whole
 * number inside int64 (NaN, inf, 1e30 are refused), and rl_attr_i_in also
 * bounds the value to [lo, hi]. A bad value records a bad_attribute error in
 * c->err (naming node and attribute) and returns def; the inference and cost
 * drivers stop at any recorded error, so callers need not check. c may be
 * NULL for a read after inference has checked the node (the LLM view): a bad
 * value then only gives def. */
int64_t rl_attr_i(rl_ctx *c, const rl_node *n, const char *name, int64_t def);
int64_t rl_attr_i_in(rl_ctx *c, const rl_node *n, const char *name, int64_t def, int64_t lo, int64_t hi);
double rl_attr_f(const rl_node *n, const char *name, double def);
const char *rl_attr_s(const rl_node *n, const char *name, const char *def); /* NUL-terminated copy */
int rl_attr_ints(const rl_node *n, const char *name, const int64_t **vals); /* count, -1 absent */
int rl_attr_floats(const rl_node *n, const char *name, const float **vals);

/* Set output i: dtype and shape (dims may contain -1). Checks rank and size limits. */
int rl_set_out(rl_ctx *c, rl_node *n, int i, int dtype, int rank, const int64_t *dims);
/* Same dtype and shape as value v. */
int rl_set_out_like(rl_ctx *c, rl_node *n, int i, const rl_value *v);
/* Give output i known contents (constant folding); `ival` and/or `fval` of count elements. */
void rl_set_out_contents(rl_ctx *c, rl_node *n, int i, int64_t count, const int64_t *ival,
                         const double *fval);
/* Multidirectional (numpy) broadcast of a and b into out (rank returned, -1 error). */
int rl_broadcast(rl_ctx *c, const rl_node *n, int ra, const int64_t *a, int rb, const int64_t *b,
                 int64_t *out);
/* Normalise a possibly negative axis; -1 with an error if out of range. */
int rl_axis(rl_ctx *c, const rl_node *n, int64_t axis, int rank);
/* Known integer contents of input i as a pointer and count (-1 if unknown). */
int64_t rl_in_ints(const rl_node *n, int i, const int64_t **vals);
int64_t rl_in_floats(const rl_node *n, int i, const double **vals);
/* Fail helper for shape functions: sets the error and returns RL_FAIL. */
int rl_bad(rl_ctx *c, const rl_node *n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Mixture of experts: the expected number of distinct experts that `tokens`
 * tokens, each routed to k of E experts uniformly, touch: E·(1 − (1 − k/E)^T).
 * The MoE ops' weight reads and the LLM view's dense-expert exports use it. */
double rl_moe_experts_touched(double experts, double k, double tokens);

/* Element size in bytes of a value as analysed (the precision override applies to floats). */
double rl_value_bytes(const rl_ctx *c, const rl_value *v);
double rl_elem_bytes(const rl_ctx *c, int dtype);

/* A kernel that reads only `elements` of input `v` (the rows a gather picks,
 * the slice a Slice keeps, the cache rows of the current positions): charge
 * that many elements instead of the whole tensor the default count charged,
 * in v's bucket (weight_bytes for initializers and constants, else
 * input_bytes). Never charges more than the whole tensor. */
void rl_cost_read_part(const rl_ctx *c, rl_cost *k, const rl_value *v, double elements);

#endif
