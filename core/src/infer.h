/* Shape inference and per-node cost over a graph (infer.c). */
#ifndef ROOFLENS_INFER_H
#define ROOFLENS_INFER_H
#include "internal.h"

/* Shape inference of a whole graph in topological order (and, through
 * control-flow ops and function calls, of their bodies). -1 with c->err set
 * when the model is invalid; what cannot be told stays unknown. */
int rl_infer_graph(rl_ctx *c, rl_graph *g);
/* Cost of every node of a graph, summed into *sum. Every node's figures are
 * checked finite, non-negative and countable; returns -1 with c->err set
 * (naming the node) otherwise. */
int rl_cost_graph(rl_ctx *c, rl_graph *g, rl_cost *sum);
/* Build a body graph of a control-flow node (or an expanded function) with
 * its first n_preset inputs taking the shapes of preset[] (NULL entries stay
 * unknown), and infer it. In c->arena; NULL with c->err set on failure. */
rl_graph *rl_body_infer(rl_ctx *c, rl_graph *outer, rl_node *n, const Onnx__GraphProto *body,
                        int n_preset, rl_value *const *preset);
#endif
