/* Op family: pool (windowed, global and region pooling, MaxUnpool). Vector
 * work: output elements x kernel size x a per-op factor (MaxPool and
 * AveragePool 1 per window element, LpPool 2: power and add). */
#include <string.h>

#include "op.h"
#include "families.h"

static int shape_pool(rl_ctx *c, rl_graph *g, rl_node *n) {
    rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs X");
    int dt = x->dtype;
    if (x->rank < 0) {
        if (n->n_out > 1 && rl_set_out_unknown(c, n, 1, RL_DT_INT64, -1) == RL_FAIL) return RL_FAIL;
        return rl_set_out_unknown(c, n, 0, dt, -1);
    }
    if (x->rank < 3) return rl_bad(c, n, "X must have rank 3 or more (got %d)", x->rank);
    const int64_t *ks = NULL;
    if (rl_attr_ints(n, "kernel_shape", &ks) < 0) return rl_bad(c, n, "needs kernel_shape");
    rl_window gm;
    if (rl_window_read(c, n, NULL, x->rank - 2, &gm) != RL_OK) return RL_FAIL;
    bool ceil_mode = rl_attr_i(c, n, "ceil_mode", 0) != 0;
    int r = rl_set_window_out(c, n, 0, dt, x, &gm, x->dims[1], ceil_mode);
    if (r == RL_FAIL) return RL_FAIL;
    /* MaxPool's optional Indices: int64, same shape */
    rl_value *y = rl_out(n, 0);
    if (n->n_out > 1 && y && rl_set_out(c, n, 1, RL_DT_INT64, y->rank, y->dims) != RL_OK) return RL_FAIL;
    return r;
}

static void cost_pool(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    const int64_t *ks = NULL;
    int cnt = rl_attr_ints(n, "kernel_shape", &ks);
    double window = 1;
    for (int i = 0; i < cnt; i++) window *= (double)ks[i];
    k->vector_flops = rl_numel_d(rl_out(n, 0)) * window * n->op->per_elem;
}

/* Global pooling: [N, C, 1, 1, ...]. */
static int shape_global_pool(rl_ctx *c, rl_graph *g, rl_node *n) {
    rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs X");
    if (x->rank < 0) return rl_set_out_unknown(c, n, 0, x->dtype, -1);
    if (x->rank < 2) return rl_bad(c, n, "X must have rank 2 or more (got %d)", x->rank);
    int64_t out[RL_MAX_RANK_HARD];
    for (int i = 0; i < x->rank; i++) out[i] = i < 2 ? x->dims[i] : 1;
    if (rl_set_out(c, n, 0, x->dtype, x->rank, out) != RL_OK) return RL_FAIL;
    return rl_shape_known(x) ? RL_OK : RL_UNKNOWN;
}

/* Every input element is read once into the running max/sum/power sum. */
static void cost_global_pool(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    k->vector_flops = rl_numel_d(rl_in(n, 0)) * n->op->per_elem;
}

/* MaxRoiPool: [num_rois, C, pooled_h, pooled_w]. */
static int shape_max_roi_pool(rl_ctx *c, rl_graph *g, rl_node *n) {
    rl_value *x = rl_in(n, 0), *rois = rl_in(n, 1);
    if (!x || !rois) return rl_bad(c, n, "needs X and rois");
    const int64_t *ps = NULL;
    if (rl_attr_ints(n, "pooled_shape", &ps) != 2) return rl_bad(c, n, "needs a 2-entry pooled_shape");
    if (ps[0] < 1 || ps[1] < 1) return rl_bad(c, n, "pooled_shape must be positive");
    int64_t out[4] = {rl_in_dim(n, 1, 0), rl_in_dim(n, 0, 1), ps[0], ps[1]};
    if (rl_set_out(c, n, 0, x->dtype, 4, out) != RL_OK) return RL_FAIL;
    return rl_shape_known(rl_out(n, 0)) ? RL_OK : RL_UNKNOWN;
}

/* A region is at most the whole map: each output bin scans H/ph x W/pw. */
static void cost_max_roi_pool(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    const int64_t *ps = NULL;
    rl_attr_ints(n, "pooled_shape", &ps);
    double h = (double)rl_in_dim(n, 0, 2), w = (double)rl_in_dim(n, 0, 3);
    double bin = (h / (double)ps[0]) * (w / (double)ps[1]);
    k->vector_flops = rl_numel_d(rl_out(n, 0)) * (bin < 1 ? 1 : bin);
}

/* RoiAlign: [num_rois, C, output_height, output_width]. */
static int shape_roi_align(rl_ctx *c, rl_graph *g, rl_node *n) {
    rl_value *x = rl_in(n, 0), *rois = rl_in(n, 1);
    if (!x || !rois) return rl_bad(c, n, "needs X and rois");
    int64_t oh = rl_attr_i(c, n, "output_height", 1), ow = rl_attr_i(c, n, "output_width", 1);
    if (oh < 1 || ow < 1) return rl_bad(c, n, "output size must be positive");
    int64_t out[4] = {rl_in_dim(n, 1, 0), rl_in_dim(n, 0, 1), oh, ow};
    if (rl_set_out(c, n, 0, x->dtype, 4, out) != RL_OK) return RL_FAIL;
    return rl_shape_known(rl_out(n, 0)) ? RL_OK : RL_UNKNOWN;
}

/* sampling_ratio² bilinear samples per output (2 when adaptive, the usual
 * outcome), 8 FLOPs each (4 weighted reads and their sum). */
static void cost_roi_align(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    double sr = (double)rl_attr_i(c, n, "sampling_ratio", 0);
    if (sr <= 0) sr = 2;
    k->vector_flops = rl_numel_d(rl_out(n, 0)) * sr * sr * 8;
}

/* MaxUnpool: output_shape input when known, else the inverse of MaxPool. */
static int shape_max_unpool(rl_ctx *c, rl_graph *g, rl_node *n) {
    rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs X");
    const int64_t *os = NULL;
    int64_t cnt = rl_in_ints(n, 2, &os);
    if (cnt >= 0) {
        if (cnt > RL_MAX_RANK_HARD) return rl_bad(c, n, "output_shape too long");
        int r = rl_set_out(c, n, 0, x->dtype, (int)cnt, os);
        if (r != RL_OK) return RL_FAIL;
        return rl_shape_known(rl_out(n, 0)) ? RL_OK : RL_UNKNOWN;
    }
    if (rl_in(n, 2)) {
        /* output_shape is a runtime value: batch and channels stay */
        rl_needs_runtime(n, 2);
        if (x->rank < 3) return rl_set_out_unknown(c, n, 0, x->dtype, x->rank);
        int64_t out[RL_MAX_RANK_HARD];
        for (int k = 0; k < x->rank; k++) out[k] = k < 2 ? x->dims[k] : -1;
        return rl_set_out(c, n, 0, x->dtype, x->rank, out) == RL_OK ? RL_UNKNOWN : RL_FAIL;
    }
    if (x->rank < 0) return rl_set_out_unknown(c, n, 0, x->dtype, -1);
    if (x->rank < 3) return rl_bad(c, n, "X must have rank 3 or more (got %d)", x->rank);
    rl_window gm;
    if (rl_window_read(c, n, NULL, x->rank - 2, &gm) != RL_OK) return RL_FAIL;
    int64_t out[RL_MAX_RANK_HARD];
    out[0] = x->dims[0];
    out[1] = x->dims[1];
    for (int i = 0; i < gm.nsp; i++) {
        int64_t in = x->dims[i + 2];
        if (in < 0 || gm.k[i] < 0) { out[i + 2] = -1; continue; }
        int64_t o;
        if (!rl_mul_ok(in - 1, gm.s[i], &o))
            return rl_bad(c, n, "the output length on spatial axis %d overflows (stride %lld)", i, (long long)gm.s[i]);
        o += gm.k[i] - gm.pb[i] - gm.pe[i]; /* each at most 2^53 */
        if (o < 1) return rl_bad(c, n, "output length on spatial axis %d is not positive", i);
        out[i + 2] = o;
    }
    if (rl_set_out(c, n, 0, x->dtype, x->rank, out) != RL_OK) return RL_FAIL;
    return rl_shape_known(rl_out(n, 0)) ? RL_OK : RL_UNKNOWN;
}

static void cost_none(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    k->vector_flops = 0;
}

static const rl_op_def ops[] = {
    {.name = "MaxPool", .domain = "", .since = 1, .shape = shape_pool, .cost = cost_pool, .per_elem = 1,
     .cost_doc = "output elements x kernel size vector FLOPs (one compare per window element)"},
    {.name = "AveragePool", .domain = "", .since = 1, .shape = shape_pool, .cost = cost_pool, .per_elem = 1,
     .cost_doc = "output elements x kernel size vector FLOPs (one add per window element)"},
    {.name = "LpPool", .domain = "", .since = 1, .shape = shape_pool, .cost = cost_pool, .per_elem = 2,
     .cost_doc = "2 x output elements x kernel size vector FLOPs (power and add per window element)"},
    {.name = "GlobalMaxPool", .domain = "", .since = 1,
     .shape = shape_global_pool, .cost = cost_global_pool, .per_elem = 1,
     .cost_doc = "1 vector FLOP per input element"},
    {.name = "GlobalAveragePool", .domain = "", .since = 1,
     .shape = shape_global_pool, .cost = cost_global_pool, .per_elem = 1,
     .cost_doc = "1 vector FLOP per input element"},
    {.name = "GlobalLpPool", .domain = "", .since = 1,
     .shape = shape_global_pool, .cost = cost_global_pool, .per_elem = 2,
     .cost_doc = "2 vector FLOPs per input element (power and add)"},
    {.name = "MaxRoiPool", .domain = "", .since = 1,
     .shape = shape_max_roi_pool, .cost = cost_max_roi_pool, .per_elem = 1,
     .cost_doc = "output elements x (H/pooled_h)·(W/pooled_w) vector FLOPs (a region is at most the map)"},
    {.name = "RoiAlign", .domain = "", .since = 10,
     .shape = shape_roi_align, .cost = cost_roi_align, .per_elem = 8,
     .cost_doc = "output elements x sampling_ratio² (2² when adaptive) x 8 vector FLOPs (bilinear sample)"},
    {.name = "MaxUnpool", .domain = "", .since = 9, .shape = shape_max_unpool, .cost = cost_none,
     .cost_doc = "0 FLOPs: a scatter of the input into a zeroed output"},
};
RL_FAMILY(pool, ops);
