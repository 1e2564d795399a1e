/* Queries on a value's shape, and the size invariant every known shape
 * keeps (value.c). The graph builder checks declarations and initializers
 * with them; shape inference and the operators use them too. */
#ifndef ROOFLENS_VALUE_H
#define ROOFLENS_VALUE_H
#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

/* Rank and every dim known. False for NULL. */
bool rl_shape_known(const rl_value *v);
/* Element count; -1 when the shape is unknown (or the count overflows). */
int64_t rl_numel(const rl_value *v);
/* Element count as a double; 0 when unknown. */
double rl_numel_d(const rl_value *v);
/* The invariant of every known shape (RL_MAX_ELEMS, graph.h): each known
 * dim (>= 0; -1 is unknown) and the product of the known ones at most 2^53. */
bool rl_dims_countable(int rank, const int64_t *dims);
/* Records the dim_overflow error for value v (named, with its dims, rank
 * entries) in c->err, `where` naming the place and `what` the value. */
void rl_dims_overflow(rl_ctx *c, const rl_value *v, int rank, const int64_t *dims, const char *where,
                      const char *what);
#endif
