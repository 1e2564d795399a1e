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

/* Queries on a value's shape and the size invariant (value.c). */
#include "value.h"

#endif
