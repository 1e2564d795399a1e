/* Op family: indexing (Gather*, Scatter*, TensorScatter, NonZero, Compress,
 * Unique, TopK). Data picked or placed by indices: the kernels read only
 * what they pick, and the ops whose output size depends on the data say so
 * (rl_needs_runtime) unless the data is a constant. */
#include <math.h>
#include <string.h>

#include "op.h"
#include "families.h"

/* ------------------------------------------------------------- Gather -- */

static int shape_gather(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0), *ind = rl_in(n, 1);
    if (!x || !ind || x->rank < 0 || ind->rank < 0) return rl_set_out_unknown(c, n, 0, rl_value_dtype(x), -1);
    if (x->rank == 0) return rl_bad(c, n, "cannot gather from a scalar");
    int axis = rl_axis(c, n, rl_attr_i(c, n, "axis", 0), x->rank);
    if (axis < 0) return RL_FAIL;
    int rank = x->rank - 1 + ind->rank;
    if (rank > RL_MAX_RANK_HARD) return rl_bad(c, n, "result rank %d is too large", rank);
    int64_t dims[RL_MAX_RANK_HARD];
    int k = 0;
    for (int i = 0; i < axis; i++) dims[k++] = x->dims[i];
    for (int i = 0; i < ind->rank; i++) dims[k++] = ind->dims[i];
    for (int i = axis + 1; i < x->rank; i++) dims[k++] = x->dims[i];
    int res = rl_set_out_status(c, n, 0, x->dtype, rank, dims);
    int64_t count;
    int64_t *idx = res == RL_OK && rl_contents_known(ind) ? rl_fold_scratch(c, n, 0, x, &count) : NULL;
    if (idx) {
        int64_t oc[RL_MAX_RANK_HARD], ic[RL_MAX_RANK_HARD], jc[RL_MAX_RANK_HARD];
        int64_t d = x->dims[axis];
        for (int64_t e = 0; e < count; e++) {
            rl_unravel(e, rank, dims, oc);
            for (int i = 0; i < ind->rank; i++) jc[i] = oc[axis + i];
            int64_t j = ind->ival[rl_ravel(ind->rank, ind->dims, jc)];
            if (j < 0) j += d;
            if (j < 0 || j >= d) return res; /* out of range: no folding */
            for (int i = 0; i < axis; i++) ic[i] = oc[i];
            ic[axis] = j;
            for (int i = axis + 1; i < x->rank; i++) ic[i] = oc[i - 1 + ind->rank];
            idx[e] = rl_ravel(x->rank, x->dims, ic);
        }
        rl_fold_indexed(c, n, 0, x, count, idx);
    }
    return res;
}

/* Gathers read only the rows they pick, not the whole (often huge) table:
 * replace the data input's bytes by the output's size in its element type. */
static void cost_gather(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)g;
    const rl_value *o = rl_out(n, 0);
    if (o) rl_cost_read_part(c, k, rl_in(n, 0), rl_numel_d(o));
}

static int shape_gather_elements(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0), *ind = rl_in(n, 1);
    if (!ind || ind->rank < 0) return rl_set_out_unknown(c, n, 0, rl_value_dtype(x), x ? x->rank : -1);
    if (x && x->rank >= 0 && x->rank != ind->rank) return rl_bad(c, n, "data rank %d and indices rank %d differ", x->rank, ind->rank);
    return rl_set_out_status(c, n, 0, rl_value_dtype(x), ind->rank, ind->dims);
}

static int shape_gather_nd(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0), *ind = rl_in(n, 1);
    if (!x || !ind || x->rank < 0 || ind->rank < 1) return rl_set_out_unknown(c, n, 0, rl_value_dtype(x), -1);
    int64_t b = rl_attr_i(c, n, "batch_dims", 0);
    int64_t last = ind->dims[ind->rank - 1];
    if (b < 0 || b >= ind->rank || b > x->rank) return rl_bad(c, n, "batch_dims %lld out of range", (long long)b);
    if (last < 0) return rl_set_out_unknown(c, n, 0, x->dtype, -1);
    if (b + last > x->rank) return rl_bad(c, n, "indices address %lld dims of a rank-%d input", (long long)(b + last), x->rank);
    int64_t dims[RL_MAX_RANK_HARD];
    int r = 0;
    for (int i = 0; i < ind->rank - 1; i++) dims[r++] = ind->dims[i];
    for (int64_t i = b + last; i < x->rank; i++) {
        if (r >= RL_MAX_RANK_HARD) return rl_bad(c, n, "result rank too large");
        dims[r++] = x->dims[i];
    }
    return rl_set_out_status(c, n, 0, x->dtype, r, dims);
}

/* ------------------------------------------------------------ Scatter -- */

/* A reduction (add, mul, max, min) does one FLOP per update element. */
static void cost_scatter(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    const char *red = rl_attr_s(c, n, "reduction", "none");
    if (strcmp(red, "none") != 0) k->vector_flops = rl_numel_d(rl_in(n, 2));
}

/* ------------------------------------------ NonZero, Compress, Unique -- */

static int shape_non_zero(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x || x->rank < 0) return rl_set_out_unknown(c, n, 0, RL_DT_INT64, 2);
    int64_t dims[2] = {x->rank, -1};
    if (rl_contents_known(x)) {
        int64_t nz = 0;
        for (int64_t e = 0; e < x->n_known; e++) nz += x->fval[e] != 0;
        dims[1] = nz;
    }
    int r = rl_set_out_status(c, n, 0, RL_DT_INT64, 2, dims);
    if (r == RL_UNKNOWN) {
        /* as many columns as non-zero elements: at most all of them */
        int64_t bound[2] = {-1, rl_numel(x)};
        rl_needs_runtime(n, 0);
        rl_set_out_bounds(c, n, 0, bound, false);
    }
    return r;
}

static int shape_compress(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0), *cond = rl_in(n, 1);
    const Onnx__AttributeProto *ax = rl_attr(n, "axis");
    int dt = rl_value_dtype(x);
    int64_t kept = -1;
    if (rl_contents_known(cond)) {
        kept = 0;
        for (int64_t e = 0; e < cond->n_known; e++) kept += cond->ival[e] != 0;
    } else if (cond) {
        rl_needs_runtime(n, 1);
    }
    if (!ax) {
        int r = rl_set_out_status(c, n, 0, dt, 1, &kept);
        int64_t bound = rl_numel(x);
        if (r == RL_UNKNOWN) rl_set_out_bounds(c, n, 0, &bound, false);
        return r;
    }
    if (!x || x->rank < 0) return rl_set_out_unknown(c, n, 0, dt, -1);
    int a = rl_axis(c, n, ax->i, x->rank);
    if (a < 0) return RL_FAIL;
    int64_t dims[RL_MAX_RANK_HARD];
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    if (kept >= 0 && dims[a] >= 0 && kept > dims[a]) kept = dims[a];
    dims[a] = kept;
    int r = rl_set_out_status(c, n, 0, dt, x->rank, dims);
    if (r == RL_UNKNOWN) rl_set_out_bounds(c, n, 0, x->dims, false);
    return r;
}

static int shape_unique(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    const Onnx__AttributeProto *ax = rl_attr(n, "axis");
    int res = RL_UNKNOWN;
    if (ax && x && x->rank >= 0) {
        int a = rl_axis(c, n, ax->i, x->rank);
        if (a < 0) return RL_FAIL;
        int64_t dims[RL_MAX_RANK_HARD];
        memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
        dims[a] = -1;
        if (rl_set_out(c, n, 0, x->dtype, x->rank, dims) != RL_OK) return RL_FAIL;
        if (rl_set_out(c, n, 2, RL_DT_INT64, 1, &x->dims[a]) != RL_OK) return RL_FAIL;
    } else {
        int64_t unk = -1, numel = rl_numel(x);
        /* constant input, flattened: the distinct values can be counted */
        if (!ax && rl_contents_known(x)) {
            int64_t distinct = 0;
            for (int64_t e = 0; e < x->n_known; e++) {
                bool seen = false;
                for (int64_t f = 0; f < e && !seen; f++) seen = x->fval[f] == x->fval[e];
                distinct += !seen;
            }
            if (rl_set_out(c, n, 0, x->dtype, 1, &distinct) != RL_OK || rl_set_out(c, n, 2, RL_DT_INT64, 1, &numel) != RL_OK ||
                rl_set_out(c, n, 1, RL_DT_INT64, 1, &distinct) != RL_OK || rl_set_out(c, n, 3, RL_DT_INT64, 1, &distinct) != RL_OK)
                return RL_FAIL;
            return RL_OK;
        }
        if (ax) {
            if (rl_set_out(c, n, 0, rl_value_dtype(x), -1, NULL) != RL_OK) return RL_FAIL;
        } else if (rl_set_out(c, n, 0, rl_value_dtype(x), 1, &unk) != RL_OK) {
            return RL_FAIL;
        }
        if (rl_set_out(c, n, 2, RL_DT_INT64, 1, ax ? &unk : &numel) != RL_OK) return RL_FAIL;
    }
    int64_t unk = -1;
    if (rl_set_out(c, n, 1, RL_DT_INT64, 1, &unk) != RL_OK || rl_set_out(c, n, 3, RL_DT_INT64, 1, &unk) != RL_OK)
        return RL_FAIL;
    /* the distinct count depends on the data: at most every element (or slice) */
    rl_needs_runtime(n, 0);
    int64_t numel = rl_numel(x), bound[RL_MAX_RANK_HARD];
    if (ax && x && x->rank >= 0) {
        memcpy(bound, x->dims, (size_t)x->rank * sizeof *bound);
        rl_set_out_bounds(c, n, 0, bound, false);
        numel = x->dims[rl_axis(c, n, ax->i, x->rank)];
    } else {
        bound[0] = numel;
        rl_set_out_bounds(c, n, 0, bound, false);
    }
    rl_set_out_bounds(c, n, 1, &numel, false);
    rl_set_out_bounds(c, n, 3, &numel, false);
    return res;
}

/* --------------------------------------------------------------- TopK -- */

static int shape_topk(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x || x->rank < 0) {
        if (rl_set_out_unknown(c, n, 1, RL_DT_INT64, -1) == RL_FAIL) return RL_FAIL;
        return rl_set_out_unknown(c, n, 0, rl_value_dtype(x), -1);
    }
    if (x->rank == 0) return rl_bad(c, n, "TopK of a scalar");
    int axis = rl_axis(c, n, rl_attr_i(c, n, "axis", -1), x->rank);
    if (axis < 0) return RL_FAIL;
    int64_t k = -1;
    double kv;
    if (n->opset < 10) k = rl_attr_i(c, n, "k", -1);
    else if (rl_in_scalar(n, 1, &kv)) k = kv >= 0 && kv <= (double)RL_MAX_ELEMS ? (int64_t)kv : -2;
    if (k < -1 || (k >= 0 && x->dims[axis] >= 0 && k > x->dims[axis]))
        return rl_bad(c, n, "k = %lld for an axis of %lld", (long long)k, (long long)x->dims[axis]);
    int64_t dims[RL_MAX_RANK_HARD];
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    dims[axis] = k;
    int r = rl_set_out_status(c, n, 0, x->dtype, x->rank, dims);
    if (r == RL_FAIL || rl_set_out_status(c, n, 1, RL_DT_INT64, x->rank, dims) == RL_FAIL) return RL_FAIL;
    if (k < 0) {
        rl_set_out_bounds(c, n, 0, x->dims, false);
        rl_set_out_bounds(c, n, 1, x->dims, false);
    }
    return r;
}

/* A heap selection: every input element is compared against a k-heap. */
static void cost_topk(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    const rl_value *x = rl_in(n, 0), *o = rl_out(n, 0);
    if (!x || !o || x->rank < 1 || o->rank != x->rank) return;
    int64_t axis = rl_attr_i(c, n, "axis", -1);
    if (axis < 0) axis += x->rank;
    if (axis < 0 || axis >= x->rank) return;
    int64_t kk = o->dims[axis];
    k->vector_flops = rl_numel_d(x) * (kk > 2 ? log2((double)kk) : 1.0);
}

/* ------------------------------------------------------ TensorScatter -- */

/* Writes update into past_cache along axis at write_indices; the present
 * cache has the past's shape. */
static int shape_tensor_scatter(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *past = rl_in(n, 0), *upd = rl_in(n, 1);
    if (!past || !upd) return rl_bad(c, n, "needs past_cache and update");
    if (past->rank >= 0 && upd->rank >= 0 && past->rank != upd->rank)
        return rl_bad(c, n, "past_cache has rank %d, update rank %d", past->rank, upd->rank);
    if (past->rank >= 0 && upd->rank >= 0) {
        int axis = rl_axis(c, n, rl_attr_i(c, n, "axis", -2), past->rank);
        if (axis < 0) return RL_FAIL;
        for (int k = 0; k < past->rank; k++) {
            int64_t a = past->dims[k], b = upd->dims[k];
            if (a >= 0 && b >= 0 && (k == axis ? b > a : b != a))
                return rl_bad(c, n, "update dim %d is %lld, the cache's %lld", k, (long long)b, (long long)a);
        }
    }
    return rl_shape_like_input(c, g, n);
}

/* Runtimes update the cache in place (that is what the op is for): the
 * traffic is the update and the indices read and the update-sized region
 * written, not a copy of the whole cache. */
static void cost_tensor_scatter(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)g;
    const rl_value *past = rl_in(n, 0), *upd = rl_in(n, 1);
    if (!past || !upd) return;
    double cache = rl_value_bytes(c, past);
    if (past->kind == RL_VALUE_WEIGHT || past->kind == RL_VALUE_CONSTANT) k->weight_bytes -= cache;
    else k->input_bytes -= cache;
    k->output_bytes = rl_value_bytes(c, upd);
}

/* ---------------------------------------------------------- the table -- */

static const rl_op_def ops[] = {
    {.name = "Gather", .domain = "", .since = 1, .shape = shape_gather, .cost = cost_gather,
     .cost_doc = "0 FLOPs; reads only the gathered rows of the table (output elements × element size) plus the indices"},
    {.name = "GatherElements", .domain = "", .since = 11, .shape = shape_gather_elements, .cost = cost_gather,
     .cost_doc = "0 FLOPs; reads the picked elements (output size) plus the indices"},
    {.name = "GatherND", .domain = "", .since = 11, .shape = shape_gather_nd, .cost = cost_gather,
     .cost_doc = "0 FLOPs; reads the picked slices (output size) plus the indices"},
    {.name = "ScatterND", .domain = "", .since = 11, .shape = rl_shape_like_input, .cost = cost_scatter,
     .cost_doc = "0 FLOPs (1 per update element with a reduction); copies data, reads indices and updates"},
    {.name = "ScatterElements", .domain = "", .since = 11, .shape = rl_shape_like_input, .cost = cost_scatter,
     .cost_doc = "0 FLOPs (1 per update element with a reduction); copies data, reads indices and updates"},
    {.name = "Scatter", .domain = "", .since = 9, .shape = rl_shape_like_input, .cost = cost_scatter,
     .cost_doc = "0 FLOPs; copies data, reads indices and updates"},
    {.name = "NonZero", .domain = "", .since = 9, .shape = shape_non_zero,
     .cost_doc = "0 FLOPs; data-dependent output size (unknown unless the input is constant)"},
    {.name = "Compress", .domain = "", .since = 9, .shape = shape_compress,
     .cost_doc = "0 FLOPs; data-dependent output size (unknown unless the condition is constant)"},
    {.name = "Unique", .domain = "", .since = 11, .shape = shape_unique,
     .cost_doc = "0 FLOPs counted; data-dependent output size"},
    {.name = "TopK", .domain = "", .since = 1, .shape = shape_topk, .cost = cost_topk,
     .cost_doc = "heap selection: input elements × log2(k) compares (log2 taken as 1 for k ≤ 2)"},
    {.name = "TensorScatter", .domain = "", .since = 24,
     .shape = shape_tensor_scatter, .cost = cost_tensor_scatter,
     .cost_doc = "0 FLOPs; in place: reads the update and indices, writes the update-sized region"},
};
RL_FAMILY(indexing, ops);
