/* The checks of a tensor-parallel split against the graph (parallel.c's
 * plan calls them once the split of every value is known). */
#ifndef ROOFLENS_PARALLEL_HEADS_H
#define ROOFLENS_PARALLEL_HEADS_H
#include "parallel.h"

/* tp divides every attention head count of g (sh: per value, >= 0 when the
 * value is split over tp): 0, or -1 with err set at parallel.tp naming the
 * layer and the heads. Attention split without a head count found is the
 * warning heads_unknown on c. */
int rl_parallel_check_heads(rl_ctx *c, const rl_graph *g, int tp, const int *sh, rl_error *err);

/* No layer of `layer` (one per node of g) split over more than the size of
 * the dimension it cuts: 0, or -1 with err set at parallel.tp. */
int rl_parallel_check_split_sizes(rl_ctx *c, const rl_graph *g, const rl_layer_comm *layer, int tp, rl_error *err);
#endif
