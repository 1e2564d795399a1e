/* Op family: reduce (Reduce*, ArgMax/ArgMin, CumSum, Det). Vector work per
 * INPUT element (every element is read into the accumulator once) times a
 * per-op factor. Small known integer tensors are folded (ReduceProd of a
 * Shape slice is how exporters compute flattened sizes). */
#include <math.h>
#include <string.h>

#include "op.h"
#include "families.h"

/* Which axes to reduce. Returns RL_OK with mask set, RL_UNKNOWN when the axes
 * input is not known (then *n_axes is its length when that is known, else
 * -1), RL_FAIL on a bad axis. `identity` is set when the op is a no-op. */
static int reduce_axes(rl_ctx *c, rl_node *n, int rank, bool *mask, int *n_axes, bool *identity) {
    *identity = false;
    *n_axes = -1;
    const int64_t *axes = NULL;
    int64_t cnt = -1;
    /* axes moved from an attribute to input 1: ReduceSum at 13, the rest at 18 */
    int input_since = rl_op_is(n, "ReduceSum") ? 13 : 18;
    bool from_input = n->opset >= input_since && strncmp(n->op_type, "Reduce", 6) == 0;
    if (from_input) {
        rl_value *av = rl_in(n, 1);
        if (av) {
            cnt = rl_in_ints(n, 1, &axes);
            if (cnt < 0) {
                rl_needs_runtime(n, 1);
                int64_t len = av->rank == 1 ? av->dims[0] : (av->rank == 0 ? 1 : -1);
                *n_axes = (int)(len >= 0 && len <= rank ? len : -1);
                return RL_UNKNOWN;
            }
        }
    } else {
        cnt = rl_attr_ints(n, "axes", &axes);
    }
    /* a scalar still has slot 0: rl_axis accepts axis 0 for rank 0 */
    for (int k = 0; k < (rank > 0 ? rank : 1); k++) mask[k] = false;
    if (cnt <= 0) {
        if (rl_attr_i(c, n, "noop_with_empty_axes", 0) != 0) {
            *identity = true;
            *n_axes = 0;
            return RL_OK;
        }
        for (int k = 0; k < rank; k++) mask[k] = true;
        *n_axes = rank;
        return RL_OK;
    }
    int count = 0;
    for (int64_t i = 0; i < cnt; i++) {
        int a = rl_axis(c, n, axes[i], rank);
        if (a < 0) return RL_FAIL;
        if (!mask[a]) count++;
        mask[a] = true;
    }
    *n_axes = count;
    return RL_OK;
}

/* Fold small known tensors: each input element goes into its output slot. */
static void reduce_fold(rl_ctx *c, rl_node *n, const rl_value *x, const bool *mask, int64_t out_count) {
    int64_t count = rl_numel(x);
    if (x->n_known != count || count < 0 || count > RL_FOLD_MAX_ELEMS || out_count > RL_FOLD_MAX_ELEMS) return;
    int kind;
    if (rl_op_is(n, "ReduceSum")) kind = 0;
    else if (rl_op_is(n, "ReduceProd")) kind = 1;
    else if (rl_op_is(n, "ReduceMax")) kind = 2;
    else if (rl_op_is(n, "ReduceMin")) kind = 3;
    else return;
    double *res = rl_arena_alloc(c->arena, (size_t)(out_count + 1) * sizeof *res);
    bool *seen = rl_arena_alloc(c->arena, (size_t)(out_count + 1) * sizeof *seen);
    if (!res || !seen) return;
    for (int64_t o = 0; o < out_count; o++) res[o] = kind == 1 ? 1 : 0;
    for (int64_t e = 0; e < count; e++) {
        int64_t rem = e, o = 0, stride = 1;
        for (int k = x->rank - 1; k >= 0; k--) {
            int64_t d = x->dims[k] ? x->dims[k] : 1;
            int64_t coord = rem % d;
            rem /= d;
            if (!mask[k]) {
                o += coord * stride;
                stride *= x->dims[k];
            }
        }
        double v = x->fval[e];
        if (kind == 0) res[o] += v;
        else if (kind == 1) res[o] *= v;
        else if (!seen[o] || (kind == 2 ? v > res[o] : v < res[o])) res[o] = v;
        seen[o] = true;
    }
    rl_set_out_contents(c, n, 0, out_count, NULL, res);
}

static int shape_reduce(rl_ctx *c, rl_graph *g, rl_node *n) {
    rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs data");
    int dt = x->dtype;
    bool keep = rl_attr_i(c, n, "keepdims", 1) != 0;
    if (x->rank < 0) return rl_set_out_unknown(c, n, 0, dt, -1);
    bool mask[RL_MAX_RANK_HARD];
    int n_axes;
    bool identity;
    int r = reduce_axes(c, n, x->rank, mask, &n_axes, &identity);
    if (r == RL_FAIL) return RL_FAIL;
    if (r == RL_UNKNOWN) {
        /* Runtime axes. keepdims: each dim is 1 or the input's. Otherwise,
         * with the axis count known, output dim k is one of input dims
         * k..k+n_axes (the kept ones, in order): at most their maximum. */
        int orank = keep ? x->rank : (n_axes >= 0 ? x->rank - n_axes : -1);
        if (rl_set_out_unknown(c, n, 0, dt, orank) == RL_FAIL) return RL_FAIL;
        int64_t bound[RL_MAX_RANK_HARD];
        for (int k = 0; k < orank; k++) {
            bound[k] = -1;
            for (int j = k; j <= k + (keep ? 0 : n_axes) && j < x->rank; j++) {
                if (x->dims[j] < 0) { bound[k] = -1; break; }
                if (x->dims[j] > bound[k]) bound[k] = x->dims[j];
            }
        }
        if (orank > 0) rl_set_out_bounds(c, n, 0, bound, keep);
        return RL_UNKNOWN;
    }
    if (identity) {
        if (rl_set_out_like(c, n, 0, x) != RL_OK) return RL_FAIL;
        rl_value *o = rl_out(n, 0);
        if (o && x->n_known >= 0) rl_set_out_contents(c, n, 0, x->n_known, x->ival, x->fval);
        return rl_shape_known(x) ? RL_OK : RL_UNKNOWN;
    }
    int64_t out[RL_MAX_RANK_HARD];
    int orank = 0;
    for (int k = 0; k < x->rank; k++) {
        if (!mask[k]) out[orank++] = x->dims[k];
        else if (keep) out[orank++] = 1;
    }
    if (rl_set_out(c, n, 0, dt, orank, out) != RL_OK) return RL_FAIL;
    if (!rl_shape_known(x)) return RL_UNKNOWN;
    reduce_fold(c, n, x, mask, rl_dims_prod(out, 0, orank));
    return RL_OK;
}

static void cost_per_input(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    k->vector_flops = rl_numel_d(rl_in(n, 0)) * n->op->per_elem;
}

/* ArgMax/ArgMin: int64 indices, one axis, keepdims. */
static int shape_arg(rl_ctx *c, rl_graph *g, rl_node *n) {
    rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs data");
    bool keep = rl_attr_i(c, n, "keepdims", 1) != 0;
    if (x->rank < 0) return rl_set_out_unknown(c, n, 0, RL_DT_INT64, -1);
    int axis = rl_axis(c, n, rl_attr_i(c, n, "axis", 0), x->rank);
    if (axis < 0) return RL_FAIL;
    int64_t out[RL_MAX_RANK_HARD];
    int orank = 0;
    for (int k = 0; k < x->rank; k++) {
        if (k != axis) out[orank++] = x->dims[k];
        else if (keep) out[orank++] = 1;
    }
    if (rl_set_out(c, n, 0, RL_DT_INT64, orank, out) != RL_OK) return RL_FAIL;
    return rl_shape_known(x) ? RL_OK : RL_UNKNOWN;
}

static int shape_like_x(rl_ctx *c, rl_graph *g, rl_node *n) {
    rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs data");
    if (rl_set_out_like(c, n, 0, x) != RL_OK) return RL_FAIL;
    return rl_shape_known(x) ? RL_OK : RL_UNKNOWN;
}

/* Det: [*, M, M] -> [*]. */
static int shape_det(rl_ctx *c, rl_graph *g, rl_node *n) {
    rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs X");
    if (x->rank < 0) return rl_set_out_unknown(c, n, 0, x->dtype, -1);
    if (x->rank < 2) return rl_bad(c, n, "X must have rank 2 or more");
    int64_t a = x->dims[x->rank - 2], b = x->dims[x->rank - 1];
    if (a >= 0 && b >= 0 && a != b) return rl_bad(c, n, "matrices must be square");
    if (rl_set_out(c, n, 0, x->dtype, x->rank - 2, x->dims) != RL_OK) return RL_FAIL;
    return rl_shape_known(x) ? RL_OK : RL_UNKNOWN;
}

/* LU factorisation: ~2/3·M³ FLOPs per matrix. */
static void cost_det(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    const rl_value *x = rl_in(n, 0);
    double m = (double)x->dims[x->rank - 1];
    k->vector_flops = rl_numel_d(rl_out(n, 0)) * (2.0 / 3.0) * m * m * m;
}

static const rl_op_def ops[] = {
    {.name = "ReduceSum", .domain = "", .since = 1,
     .shape = shape_reduce, .cost = cost_per_input, .per_elem = 1,
     .cost_doc = "1 vector FLOP per input element"},
    {.name = "ReduceMean", .domain = "", .since = 1,
     .shape = shape_reduce, .cost = cost_per_input, .per_elem = 1,
     .cost_doc = "1 vector FLOP per input element (the final divide is per output, ignored)"},
    {.name = "ReduceMax", .domain = "", .since = 1,
     .shape = shape_reduce, .cost = cost_per_input, .per_elem = 1,
     .cost_doc = "1 vector FLOP per input element"},
    {.name = "ReduceMin", .domain = "", .since = 1,
     .shape = shape_reduce, .cost = cost_per_input, .per_elem = 1,
     .cost_doc = "1 vector FLOP per input element"},
    {.name = "ReduceProd", .domain = "", .since = 1,
     .shape = shape_reduce, .cost = cost_per_input, .per_elem = 1,
     .cost_doc = "1 vector FLOP per input element"},
    {.name = "ReduceL1", .domain = "", .since = 1, .shape = shape_reduce, .cost = cost_per_input, .per_elem = 2,
     .cost_doc = "2 vector FLOPs per input element (abs, add)"},
    {.name = "ReduceL2", .domain = "", .since = 1, .shape = shape_reduce, .cost = cost_per_input, .per_elem = 2,
     .cost_doc = "2 vector FLOPs per input element (square, add; sqrt per output ignored)"},
    {.name = "ReduceSumSquare", .domain = "", .since = 1,
     .shape = shape_reduce, .cost = cost_per_input, .per_elem = 2,
     .cost_doc = "2 vector FLOPs per input element (square, add)"},
    {.name = "ReduceLogSum", .domain = "", .since = 1,
     .shape = shape_reduce, .cost = cost_per_input, .per_elem = 1,
     .cost_doc = "1 vector FLOP per input element (add; log per output ignored)"},
    {.name = "ReduceLogSumExp", .domain = "", .since = 1,
     .shape = shape_reduce, .cost = cost_per_input, .per_elem = 5,
     .cost_doc = "5 vector FLOPs per input element (max, subtract, exp, add)"},
    {.name = "ArgMax", .domain = "", .since = 1, .shape = shape_arg, .cost = cost_per_input, .per_elem = 1,
     .cost_doc = "1 compare per input element"},
    {.name = "ArgMin", .domain = "", .since = 1, .shape = shape_arg, .cost = cost_per_input, .per_elem = 1,
     .cost_doc = "1 compare per input element"},
    {.name = "CumSum", .domain = "", .since = 11, .shape = shape_like_x, .cost = cost_per_input, .per_elem = 1,
     .cost_doc = "1 add per element"},
    {.name = "CumProd", .domain = "", .since = 26, .shape = shape_like_x, .cost = cost_per_input, .per_elem = 1,
     .cost_doc = "1 multiply per element"},
    {.name = "Det", .domain = "", .since = 11, .shape = shape_det, .cost = cost_det,
     .cost_doc = "2/3·M³ vector FLOPs per matrix (LU)"},
};
RL_FAMILY(reduce, ops);
