/* Queries on a value's shape and the size invariant (value.h). */
#include <stdio.h>

#include "graph.h"
#include "value.h"

bool rl_shape_known(const rl_value *v) {
    if (!v || v->rank < 0) return false;
    for (int i = 0; i < v->rank; i++)
        if (v->dims[i] < 0) return false;
    return true;
}

int64_t rl_numel(const rl_value *v) {
    if (!rl_shape_known(v)) return -1;
    int64_t n = 1;
    for (int i = 0; i < v->rank; i++)
        if (!rl_mul_ok(n, v->dims[i], &n)) return -1;
    return n;
}

bool rl_dims_countable(int rank, const int64_t *dims) {
    int64_t total = 1;
    for (int k = 0; k < rank; k++) {
        if (dims[k] < 0) continue;
        if (dims[k] > RL_MAX_ELEMS || !rl_mul_ok(total, dims[k], &total) || total > RL_MAX_ELEMS) return false;
    }
    return true;
}

void rl_dims_overflow(rl_ctx *c, const rl_value *v, int rank, const int64_t *dims, const char *where,
                      const char *what) {
    char shape[200];
    size_t len = (size_t)snprintf(shape, sizeof shape, "[");
    for (int k = 0; k < rank && len < sizeof shape; k++)
        len += (size_t)snprintf(shape + len, sizeof shape - len, k ? ",%lld" : "%lld", (long long)dims[k]);
    if (len < sizeof shape) snprintf(shape + len, sizeof shape - len, "]");
    rl_error_set(c->err, "dim_overflow", where,
                 "%s '%.200s' would have the shape %s: more than 2^53 elements (or a dimension past "
                 "2^53), which no real tensor has; check the model's dimensions and the sizes given "
                 "to symbolic dims", what, v && v->name ? v->name : "?", shape);
}

double rl_numel_d(const rl_value *v) {
    int64_t n = rl_numel(v);
    return n < 0 ? 0.0 : (double)n;
}
