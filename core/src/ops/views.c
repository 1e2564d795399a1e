/* Op family: views (Constant, Shape, Size, Reshape, Flatten, Squeeze,
 * Unsqueeze, Identity, BitCast) and the casts (Cast, CastLike). A view is a
 * metadata change: 0 FLOPs, 0 bytes; Constant, Shape and Size produce a few
 * bytes at graph build time and count as views too. A cast reads its input
 * and writes it in the new type. Shape arithmetic is folded (known contents
 * flow to the outputs) because torch exports compute Reshape targets through
 * Shape→Gather→Concat chains. */
#include <math.h>
#include <string.h>

#include "../tensor.h"
#include "op.h"
#include "families.h"

/* Output 0 of a reshaping view of x (Reshape, Flatten, Squeeze, Unsqueeze):
 * the given shape, and x's folded contents in the same order. */
static int set_view_out(rl_ctx *c, rl_node *n, const rl_value *x, int dtype, int rank, const int64_t *dims) {
    int r = rl_set_out_status(c, n, 0, dtype, rank, dims);
    if (r == RL_OK) rl_fold_same(c, n, 0, x);
    return r;
}

/* ----------------------------------------------------------- Constant -- */

static int shape_constant(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *o = rl_out(n, 0);
    if (!o) return RL_OK;
    const Onnx__AttributeProto *a;
    int rc = RL_OK;
    if ((a = rl_attr(n, "value")) && a->t) {
        if (rl_value_from_tensor(c, o, a->t, n->name)) return RL_FAIL;
    } else if ((a = rl_attr(n, "sparse_value")) && a->sparse_tensor) {
        const Onnx__SparseTensorProto *sp = a->sparse_tensor;
        int64_t dims[RL_MAX_RANK_HARD];
        if (sp->n_dims > RL_MAX_RANK_HARD) return rl_bad(c, n, "sparse constant has too many dimensions");
        for (size_t k = 0; k < sp->n_dims; k++) dims[k] = sp->dims[k];
        int dt = sp->values && sp->values->has_data_type ? sp->values->data_type : 0;
        rc = rl_set_out_status(c, n, 0, dt, (int)sp->n_dims, dims);
    } else if ((a = rl_attr(n, "value_float"))) {
        if (rl_set_out(c, n, 0, RL_DT_FLOAT, 0, NULL) != RL_OK) return RL_FAIL;
        double f = a->f;
        rl_set_out_contents(c, n, 0, 1, NULL, &f);
    } else if ((a = rl_attr(n, "value_floats"))) {
        int64_t cnt = (int64_t)a->n_floats;
        if (rl_set_out(c, n, 0, RL_DT_FLOAT, 1, &cnt) != RL_OK) return RL_FAIL;
        double *fv = rl_arena_alloc(c->arena, (size_t)(cnt + 1) * sizeof *fv);
        if (fv && cnt <= RL_FOLD_MAX_ELEMS) {
            for (int64_t k = 0; k < cnt; k++) fv[k] = a->floats[k];
            rl_set_out_contents(c, n, 0, cnt, NULL, fv);
        }
    } else if ((a = rl_attr(n, "value_int"))) {
        if (rl_set_out(c, n, 0, RL_DT_INT64, 0, NULL) != RL_OK) return RL_FAIL;
        int64_t i = a->i;
        rl_set_out_contents(c, n, 0, 1, &i, NULL);
    } else if ((a = rl_attr(n, "value_ints"))) {
        int64_t cnt = (int64_t)a->n_ints;
        if (rl_set_out(c, n, 0, RL_DT_INT64, 1, &cnt) != RL_OK) return RL_FAIL;
        rl_set_out_contents(c, n, 0, cnt, a->ints, NULL);
    } else if ((a = rl_attr(n, "value_string"))) {
        if (rl_set_out(c, n, 0, RL_DT_STRING, 0, NULL) != RL_OK) return RL_FAIL;
    } else if ((a = rl_attr(n, "value_strings"))) {
        int64_t cnt = (int64_t)a->n_strings;
        if (rl_set_out(c, n, 0, RL_DT_STRING, 1, &cnt) != RL_OK) return RL_FAIL;
    } else {
        return rl_bad(c, n, "a Constant needs one of the value attributes");
    }
    o->kind = RL_VALUE_CONSTANT;
    return rc;
}

/* -------------------------------------------------------- Shape, Size -- */

static int shape_shape(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x || x->rank < 0) return rl_set_out_unknown(c, n, 0, RL_DT_INT64, 1);
    int r = x->rank;
    int64_t start = rl_attr_i(c, n, "start", 0), end = rl_attr_i(c, n, "end", r);
    if (start < 0) start += r;
    if (end < 0) end += r;
    if (start < 0) start = 0;
    if (start > r) start = r;
    if (end < 0) end = 0;
    if (end > r) end = r;
    int64_t len = end > start ? end - start : 0;
    if (rl_set_out(c, n, 0, RL_DT_INT64, 1, &len) != RL_OK) return RL_FAIL;
    bool all = true;
    for (int64_t k = start; k < end; k++)
        if (x->dims[k] < 0) all = false;
    if (all) rl_set_out_contents(c, n, 0, len, x->dims + start, NULL);
    return RL_OK;
}

static int shape_size(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    if (rl_set_out(c, n, 0, RL_DT_INT64, 0, NULL) != RL_OK) return RL_FAIL;
    int64_t numel = rl_numel(rl_in(n, 0));
    if (numel >= 0) rl_set_out_contents(c, n, 0, 1, &numel, NULL);
    return RL_OK;
}

/* ------------------------------------------------------------ Reshape -- */

static int shape_reshape(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    const int64_t *target = NULL;
    int64_t cnt = rl_ints_arg(n, 1, "shape", n->opset >= 5, &target);
    if (cnt == -2) return rl_bad(c, n, "Reshape needs a target shape");
    int dt = rl_value_dtype(x);
    if (cnt < 0) {
        /* the target's length still gives the rank */
        int64_t len = rl_in_runtime_len(n, 1);
        int rank = len <= RL_MAX_RANK_HARD ? (int)len : -1;
        /* a 1-D target holds every element, whatever its value */
        int64_t numel = rl_numel(x);
        if (rank == 1 && numel >= 0) return rl_set_out_status(c, n, 0, dt, 1, &numel);
        return rl_set_out_unknown(c, n, 0, dt, rank);
    }
    if (cnt > RL_MAX_RANK_HARD) return rl_bad(c, n, "target shape has %lld dims", (long long)cnt);
    bool allowzero = rl_attr_i(c, n, "allowzero", 0) != 0;
    int64_t dims[RL_MAX_RANK_HARD];
    int infer_at = -1;
    for (int k = 0; k < cnt; k++) {
        int64_t d = target[k];
        if (d == 0 && !allowzero) {
            if (!x || x->rank < 0) d = -1;
            else if (k >= x->rank) return rl_bad(c, n, "shape entry %d is 0 but the input has rank %d", k, x->rank);
            else d = x->dims[k];
            dims[k] = d;
            continue;
        }
        if (d == -1) {
            if (infer_at >= 0) return rl_bad(c, n, "target shape has more than one -1");
            infer_at = k;
        } else if (d < -1) {
            return rl_bad(c, n, "target shape has the negative entry %lld", (long long)d);
        }
        dims[k] = d;
    }
    if (infer_at >= 0) {
        int64_t total = rl_numel(x), rest = 1;
        bool rest_known = true;
        for (int k = 0; k < cnt; k++) {
            if (k == infer_at) continue;
            if (dims[k] < 0) rest_known = false;
            else if (!rl_mul_ok(rest, dims[k], &rest)) return rl_bad(c, n, "target shape overflows");
        }
        if (total >= 0 && rest_known) {
            if (rest == 0 || total % rest) return rl_bad(c, n, "cannot reshape %lld elements into the target shape", (long long)total);
            dims[infer_at] = total / rest;
        } else {
            dims[infer_at] = -1;
        }
    }
    int64_t total = rl_numel(x), out_total = rl_dims_prod(dims, 0, (int)cnt);
    if (total >= 0 && out_total >= 0 && total != out_total)
        return rl_bad(c, n, "cannot reshape %lld elements into %lld", (long long)total, (long long)out_total);
    return set_view_out(c, n, x, dt, (int)cnt, dims);
}

/* ------------------------------------------------------------ Flatten -- */

static int shape_flatten(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x || x->rank < 0) return rl_set_out_unknown(c, n, 0, rl_value_dtype(x), 2);
    int64_t axis = rl_attr_i(c, n, "axis", 1);
    if (axis < 0) axis += x->rank;
    if (axis < 0 || axis > x->rank) return rl_bad(c, n, "axis %lld is out of range for rank %d", (long long)axis, x->rank);
    int64_t dims[2] = {rl_dims_prod(x->dims, 0, (int)axis), rl_dims_prod(x->dims, (int)axis, x->rank)};
    return set_view_out(c, n, x, x->dtype, 2, dims);
}

/* -------------------------------------------------- Squeeze/Unsqueeze -- */

static int shape_squeeze(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    const int64_t *axes = NULL;
    int64_t cnt = rl_ints_arg(n, 1, "axes", n->opset >= 13, &axes);
    if (!x || x->rank < 0) return rl_set_out_unknown(c, n, 0, rl_value_dtype(x), -1);
    if (cnt == -1) {
        int64_t len = rl_in_runtime_len(n, 1);
        int rank = len >= 0 && len <= x->rank ? x->rank - (int)len : -1;
        /* k runtime axes and exactly k dims of size 1: those are the ones */
        int ones = 0;
        bool all_known = rl_shape_known(x);
        for (int k = 0; all_known && k < x->rank; k++) ones += x->dims[k] == 1;
        if (rank >= 0 && all_known && ones == x->rank - rank && ones > 0) {
            int64_t dims[RL_MAX_RANK_HARD];
            int r = 0;
            for (int k = 0; k < x->rank; k++)
                if (x->dims[k] != 1) dims[r++] = x->dims[k];
            return rl_set_out_status(c, n, 0, x->dtype, r, dims);
        }
        return rl_set_out_unknown(c, n, 0, x->dtype, rank);
    }
    bool drop[RL_MAX_RANK_HARD] = {false};
    if (cnt == -2) {
        for (int k = 0; k < x->rank; k++) {
            if (x->dims[k] < 0) return rl_set_out_unknown(c, n, 0, x->dtype, -1);
            drop[k] = x->dims[k] == 1;
        }
    } else {
        int ax[RL_MAX_RANK_HARD], na = rl_resolve_axes(c, n, axes, cnt, 0, x->rank, ax);
        if (na < 0) return RL_FAIL;
        for (int i = 0; i < na; i++) {
            if (x->dims[ax[i]] > 1)
                return rl_bad(c, n, "cannot squeeze axis %d of size %lld", ax[i], (long long)x->dims[ax[i]]);
            drop[ax[i]] = true;
        }
    }
    int64_t dims[RL_MAX_RANK_HARD];
    int r = 0;
    for (int k = 0; k < x->rank; k++)
        if (!drop[k]) dims[r++] = x->dims[k];
    return set_view_out(c, n, x, x->dtype, r, dims);
}

static int shape_unsqueeze(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    const int64_t *axes = NULL;
    int64_t cnt = rl_ints_arg(n, 1, "axes", n->opset >= 13, &axes);
    if (cnt == -2) return rl_bad(c, n, "Unsqueeze needs axes");
    if (!x || x->rank < 0) return rl_set_out_unknown(c, n, 0, rl_value_dtype(x), -1);
    if (cnt == -1) {
        int64_t len = rl_in_runtime_len(n, 1);
        if (rl_in(n, 1) && rl_in(n, 1)->rank == 0) len = 1; /* a scalar axis */
        int rank = len >= 0 && len <= RL_MAX_RANK_HARD ? x->rank + (int)len : -1;
        if (rank > RL_MAX_RANK_HARD) rank = -1;
        /* inserting 1s among dims that are all 1 gives all 1s, wherever they go */
        bool all_one = rank >= 0;
        for (int k = 0; all_one && k < x->rank; k++) all_one = x->dims[k] == 1;
        if (all_one) {
            int64_t dims[RL_MAX_RANK_HARD];
            for (int k = 0; k < rank; k++) dims[k] = 1;
            return rl_set_out_status(c, n, 0, x->dtype, rank, dims);
        }
        return rl_set_out_unknown(c, n, 0, x->dtype, rank);
    }
    int64_t out_rank = x->rank + cnt;
    if (out_rank > RL_MAX_RANK_HARD) return rl_bad(c, n, "result rank %lld is too large", (long long)out_rank);
    bool ins[RL_MAX_RANK_HARD] = {false};
    int ax[RL_MAX_RANK_HARD], na = rl_resolve_axes(c, n, axes, cnt, 0, (int)out_rank, ax);
    if (na < 0) return RL_FAIL;
    for (int i = 0; i < na; i++) ins[ax[i]] = true;
    int64_t dims[RL_MAX_RANK_HARD];
    for (int k = 0, s = 0; k < out_rank; k++) dims[k] = ins[k] ? 1 : x->dims[s++];
    return set_view_out(c, n, x, x->dtype, (int)out_rank, dims);
}

/* ----------------------------------------------------- Cast, CastLike -- */

static double cast_value(int to, double v) {
    if (to == RL_DT_BOOL) return v != 0;
    if (rl_dtype_is_int(to)) return trunc(v);
    if (to == RL_DT_FLOAT) return (float)v;
    return v;
}

static int shape_cast(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    int to = strcmp(n->op_type, "CastLike") == 0 ? rl_value_dtype(rl_in(n, 1)) : (int)rl_attr_i(c, n, "to", 0);
    if (to < 0 || to >= RL_DT_COUNT) return rl_bad(c, n, "unknown target type %d", to);
    if (!x) return rl_set_out_unknown(c, n, 0, to, -1);
    int res = rl_set_out_status(c, n, 0, to, x->rank, x->dims);
    if (res == RL_OK && rl_contents_known(x)) {
        int64_t cnt = x->n_known;
        double *fv = rl_arena_alloc(c->arena, (size_t)(cnt + 1) * sizeof *fv);
        int64_t *iv = rl_arena_alloc(c->arena, (size_t)(cnt + 1) * sizeof *iv);
        if (fv && iv) {
            bool from_int = rl_dtype_is_int(x->dtype) || x->dtype == RL_DT_BOOL;
            for (int64_t e = 0; e < cnt; e++) {
                fv[e] = cast_value(to, from_int ? (double)x->ival[e] : x->fval[e]);
                /* integer to integer keeps all 64 bits */
                iv[e] = from_int && rl_dtype_is_int(to) ? x->ival[e]
                        : fv[e] != fv[e] ? 0 /* NaN, +-inf and huge values saturate: a */
                        : fv[e] >= 9.2233720368547748e18 ? INT64_MAX /* direct cast is UB */
                        : fv[e] <= -9.2233720368547758e18 ? INT64_MIN : (int64_t)fv[e];
            }
            rl_set_out_contents(c, n, 0, cnt, iv, fv);
        }
    }
    return res;
}

/* ----------------------------------------------------------- Identity -- */

static int shape_identity(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0), *o = rl_out(n, 0);
    if (rl_set_out_like(c, n, 0, x) != RL_OK) return RL_FAIL;
    if (x && o && x->type != RL_TYPE_TENSOR) {
        o->seq_len = x->seq_len;
        return RL_OK;
    }
    rl_fold_same(c, n, 0, x);
    return rl_shape_known(x) ? RL_OK : RL_UNKNOWN;
}

/* ------------------------------------------------------------ BitCast -- */

/* The same bytes read as another type: equal widths keep the shape; a
 * narrower type adds a last dim of the width ratio, a wider one consumes it. */
static int shape_bitcast(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    int64_t to = rl_attr_i(c, n, "to", 0);
    if (to <= 0 || to >= RL_DT_COUNT || rl_dtype_bits((int)to) <= 0) return rl_bad(c, n, "unknown target type %lld", (long long)to);
    if (!x || x->rank < 0) return rl_set_out_unknown(c, n, 0, (int)to, -1);
    int from_bits = rl_dtype_bits(x->dtype), to_bits = rl_dtype_bits((int)to);
    if (from_bits <= 0) return rl_set_out_unknown(c, n, 0, (int)to, -1);
    int64_t dims[RL_MAX_RANK_HARD];
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    int r = x->rank;
    if (from_bits > to_bits) {
        if (from_bits % to_bits || r + 1 > RL_MAX_RANK_HARD) return rl_bad(c, n, "cannot split %d-bit elements into %d-bit ones", from_bits, to_bits);
        dims[r++] = from_bits / to_bits;
    } else if (from_bits < to_bits) {
        int64_t ratio = to_bits / from_bits;
        if (to_bits % from_bits || r == 0 || (dims[r - 1] >= 0 && dims[r - 1] != ratio))
            return rl_bad(c, n, "the last dim must hold %lld %d-bit elements to make one %d-bit element",
                          (long long)ratio, from_bits, to_bits);
        r--;
    }
    return rl_set_out_status(c, n, 0, (int)to, r, dims);
}

/* ---------------------------------------------------------- the table -- */

static const rl_op_def ops[] = {
    {.name = "Constant", .domain = "", .since = 1, .shape = shape_constant, .flags = RL_OP_VIEW,
     .cost_doc = "view: its value counts as weight bytes where it is read"},
    {.name = "Shape", .domain = "", .since = 1, .shape = shape_shape, .flags = RL_OP_VIEW,
     .cost_doc = "view: metadata only, 0 FLOPs, 0 bytes"},
    {.name = "Size", .domain = "", .since = 1, .shape = shape_size, .flags = RL_OP_VIEW,
     .cost_doc = "view: metadata only, 0 FLOPs, 0 bytes"},
    {.name = "Reshape", .domain = "", .since = 1, .shape = shape_reshape, .flags = RL_OP_VIEW,
     .cost_doc = "view: no data moves, 0 FLOPs, 0 bytes"},
    {.name = "Flatten", .domain = "", .since = 1, .shape = shape_flatten, .flags = RL_OP_VIEW,
     .cost_doc = "view: no data moves, 0 FLOPs, 0 bytes"},
    {.name = "Squeeze", .domain = "", .since = 1, .shape = shape_squeeze, .flags = RL_OP_VIEW,
     .cost_doc = "view: no data moves, 0 FLOPs, 0 bytes"},
    {.name = "Unsqueeze", .domain = "", .since = 1, .shape = shape_unsqueeze, .flags = RL_OP_VIEW,
     .cost_doc = "view: no data moves, 0 FLOPs, 0 bytes"},
    {.name = "Identity", .domain = "", .since = 1, .shape = shape_identity, .flags = RL_OP_VIEW,
     .cost_doc = "view: no data moves, 0 FLOPs, 0 bytes"},
    {.name = "Cast", .domain = "", .since = 1, .shape = shape_cast,
     .cost_doc = "0 FLOPs; reads the input, writes it in the new type"},
    {.name = "CastLike", .domain = "", .since = 15, .shape = shape_cast,
     .cost_doc = "0 FLOPs; reads the input, writes it in the new type"},
    {.name = "BitCast", .domain = "", .since = 26, .shape = shape_bitcast, .flags = RL_OP_VIEW,
     .cost_doc = "view: the same bytes read as another type, 0 FLOPs, 0 bytes"},
};
RL_FAMILY(views, ops);
