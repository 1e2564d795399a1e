/* Op family: generators (ConstantOfShape, Range, OneHot, EyeLike). They
 * write an output made from a shape or a few scalars: 0 FLOPs, the output's
 * bytes. Small results are folded for the shape arithmetic downstream. */
#include <math.h>
#include <string.h>

#include "../tensor.h"
#include "op.h"
#include "families.h"

/* ------------------------------------------------------------ EyeLike -- */

static int shape_eye_like(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    int dt = (int)rl_attr_i(c, n, "dtype", rl_value_dtype(x));
    if (!x) return rl_set_out_unknown(c, n, 0, dt, 2);
    if (x->rank >= 0 && x->rank != 2) return rl_bad(c, n, "EyeLike needs a rank-2 input");
    return rl_set_out_status(c, n, 0, dt, x->rank, x->dims);
}

/* ------------------------------------- ConstantOfShape, Range, OneHot -- */

static int shape_constant_of_shape(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *s = rl_in(n, 0);
    const Onnx__AttributeProto *a = rl_attr(n, "value");
    int dt = a && a->t && a->t->has_data_type ? a->t->data_type : RL_DT_FLOAT;
    double fill = 0;
    if (a && a->t) {
        rl_value tmp;
        memset(&tmp, 0, sizeof tmp);
        tmp.name = n->name;
        if (rl_value_from_tensor(c, &tmp, a->t, n->name)) return RL_FAIL;
        if (tmp.n_known >= 1) fill = tmp.fval[0];
    }
    if (!rl_contents_known(s)) {
        rl_needs_runtime(n, 0);
        int64_t len = rl_in_runtime_len(n, 0);
        return rl_set_out_unknown(c, n, 0, dt, len <= RL_MAX_RANK_HARD ? (int)len : -1);
    }
    if (s->n_known > RL_MAX_RANK_HARD) return rl_bad(c, n, "shape has %lld entries", (long long)s->n_known);
    for (int64_t i = 0; i < s->n_known; i++)
        if (s->ival[i] < 0) return rl_bad(c, n, "negative dimension %lld", (long long)s->ival[i]);
    int res = rl_set_out_status(c, n, 0, dt, (int)s->n_known, s->ival);
    int64_t count = rl_numel(rl_out(n, 0));
    if (res == RL_OK && count >= 0 && count <= RL_FOLD_MAX_ELEMS) {
        double *fv = rl_arena_alloc(c->arena, (size_t)(count + 1) * sizeof *fv);
        if (fv) {
            for (int64_t e = 0; e < count; e++) fv[e] = fill;
            rl_set_out_contents(c, n, 0, count, NULL, fv);
        }
    }
    return res;
}

static int shape_range(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    int dt = rl_value_dtype(rl_in(n, 0));
    double start, limit, delta;
    if (!rl_in_scalar(n, 0, &start) || !rl_in_scalar(n, 1, &limit) || !rl_in_scalar(n, 2, &delta))
        return rl_set_out_unknown(c, n, 0, dt, 1);
    if (delta == 0) return rl_bad(c, n, "Range with delta 0");
    double cnt = ceil((limit - start) / delta);
    if (!(cnt >= 0)) cnt = 0;
    if (cnt > (double)RL_MAX_ELEMS) return rl_bad(c, n, "Range would produce %g elements", cnt);
    int64_t len = (int64_t)cnt;
    if (rl_set_out(c, n, 0, dt, 1, &len) != RL_OK) return RL_FAIL;
    if (len <= RL_FOLD_MAX_ELEMS) {
        double *fv = rl_arena_alloc(c->arena, (size_t)(len + 1) * sizeof *fv);
        if (fv) {
            for (int64_t e = 0; e < len; e++) fv[e] = start + (double)e * delta;
            rl_set_out_contents(c, n, 0, len, NULL, fv);
        }
    }
    return RL_OK;
}

static int shape_one_hot(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *ind = rl_in(n, 0), *vals = rl_in(n, 2);
    int dt = rl_value_dtype(vals);
    if (!ind || ind->rank < 0) return rl_set_out_unknown(c, n, 0, dt, -1);
    int r = ind->rank + 1;
    if (r > RL_MAX_RANK_HARD) return rl_bad(c, n, "result rank too large");
    int axis = rl_axis(c, n, rl_attr_i(c, n, "axis", -1), r);
    if (axis < 0) return RL_FAIL;
    double depth;
    int64_t d = -1;
    if (rl_in_scalar(n, 1, &depth)) {
        if (!(depth >= 1 && depth <= (double)RL_MAX_ELEMS)) return rl_bad(c, n, "depth %g", depth);
        d = (int64_t)depth;
    }
    int64_t dims[RL_MAX_RANK_HARD];
    for (int k = 0, s = 0; k < r; k++) dims[k] = k == axis ? d : ind->dims[s++];
    return rl_set_out_status(c, n, 0, dt, r, dims);
}

/* ---------------------------------------------------------- the table -- */

static const rl_op_def ops[] = {
    {.name = "ConstantOfShape", .domain = "", .since = 9, .shape = shape_constant_of_shape,
     .cost_doc = "0 FLOPs; writes its output"},
    {.name = "Range", .domain = "", .since = 11, .shape = shape_range, .cost_doc = "0 FLOPs; writes its output"},
    {.name = "OneHot", .domain = "", .since = 9, .shape = shape_one_hot,
     .cost_doc = "0 FLOPs; writes its output"},
    {.name = "EyeLike", .domain = "", .since = 9, .shape = shape_eye_like,
     .cost_doc = "0 FLOPs; writes its output"},
};
RL_FAMILY(generators, ops);
