/* Graph building and the helpers operator shape and cost functions use. */
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

rl_name_map *rl_map_new(rl_arena *a, size_t expected);
int rl_map_get(const rl_name_map *m, const char *key);
bool rl_map_put(rl_name_map *m, const char *key, int val);

int64_t rl_model_opset(const rl_model *m, const char *domain);
rl_graph *rl_graph_build(rl_ctx *c, const Onnx__GraphProto *gp, rl_graph *parent, int depth,
                         const char *where);
rl_value *rl_graph_lookup(rl_graph *g, const char *name, rl_graph **owner);
int rl_value_from_tensor(rl_ctx *c, rl_value *v, const Onnx__TensorProto *t, const char *where);
int rl_value_from_type(rl_ctx *c, rl_value *v, const Onnx__TypeProto *tp, const char *where,
                       bool declared_only);

/* Shape inference of a whole graph (and, through control-flow ops, of bodies). */
int rl_infer_graph(rl_ctx *c, rl_graph *g);
/* Cost of every node of a graph, summed into *sum. Every node's figures are
 * checked finite, non-negative and countable; returns -1 with c->err set
 * (naming the node) otherwise. */
int rl_cost_graph(rl_ctx *c, rl_graph *g, rl_cost *sum);
/* Build a body graph of a control-flow node with its inputs preset, infer it. */
rl_graph *rl_body_infer(rl_ctx *c, rl_graph *outer, rl_node *n, const Onnx__GraphProto *body,
                        int n_preset, rl_value *const *preset);

/* Queries on a value's shape and the size invariant (value.c). */
#include "value.h"
/* The op kit moved to ops/op.h (ops/op.c). Transitional: infer.c,
 * functions.c, llm.c, timing.c, measured.c and
 * tests/test_responses.c use some of its helpers through this header; once
 * they include ops/op.h themselves, this line goes and graph.h stops
 * reaching up into the ops layer. */
#include "ops/op.h"

#endif
