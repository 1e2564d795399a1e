/* The "graph" section of an analysis (docs/api.md, "Graph"): what the
 * page's graph and module views draw, written once by the core so that no
 * face rebuilds the graph: the edges between layers with their tensors, and
 * the modules read from the node names with their summed figures. */
#ifndef ROOFLENS_GRAPH_VIEW_H
#define ROOFLENS_GRAPH_VIEW_H
#include "timing.h"

struct cJSON;

/* Deepest module level kept: a name with more '/' parts folds the rest
 * into its deepest module, so hostile names cannot blow up the answer. */
#define RL_MODULE_MAX_DEPTH 16

/* When the request has "graph": true, adds root.graph for graph g and its
 * layer times lt (has_energy: lt[].energy is meaningful). 0 when added or
 * not asked for; -1 with *err set: bad_request at "graph" when the field is
 * not a boolean, out_of_memory when memory runs out. */
int rl_graph_view_add(const struct cJSON *req, struct cJSON *root, rl_ctx *c, const rl_graph *g,
                      const rl_layer_time *lt, bool has_energy, rl_error *err);

#endif
