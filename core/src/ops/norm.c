/* Op family: norm (batch/instance/layer/group/RMS normalisation, LRN,
 * softmax family, and the com.microsoft fused normalisations and GELUs).
 * All vector work, per output element with the factor in each entry:
 *   inference BatchNorm 2 (scale and shift folded), LayerNorm-style 8
 *   (mean: 1, centre: 1, square: 1, variance sum: 1, rsqrt amortised,
 *   normalise: 1, scale: 1, shift: 1, plus 1 for the reductions' passes),
 *   RMSNorm-style 4 (square, sum, normalise, scale), softmax 5 (max, subtract,
 *   exp ~ 1 amortised per pass, sum, divide). */
#include <string.h>

#include "op.h"
#include "families.h"

/* Y like X; other outputs are set by the caller. */
static int shape_like_x(rl_ctx *c, rl_graph *g, rl_node *n) {
    rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs an input");
    if (rl_set_out_like(c, n, 0, x) != RL_OK) return RL_FAIL;
    return rl_shape_known(x) ? RL_OK : RL_UNKNOWN;
}

static void cost_per_out(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    k->vector_flops = rl_numel_d(rl_out(n, 0)) * n->op->per_elem;
}

/* -------------------------------------------------------- BatchNorm ----- */
/* Training-mode outputs are per-channel statistics: [C]. Opset 14+: running
 * mean and var; before: mean, var, saved mean, saved var. */
static int shape_batchnorm(rl_ctx *c, rl_graph *g, rl_node *n) {
    int r = shape_like_x(c, g, n);
    if (r == RL_FAIL) return r;
    int64_t ch = rl_in_dim(n, 0, 1);
    if (ch < 0) ch = rl_in_dim(n, 1, 0);
    int dt = rl_in_dtype(n, 3) ? rl_in_dtype(n, 3) : rl_in_dtype(n, 0);
    for (int i = 1; i < n->n_out; i++)
        if (rl_set_out(c, n, i, dt, 1, &ch) != RL_OK) return RL_FAIL;
    return r;
}

static void cost_batchnorm(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    bool training = rl_attr_i(c, n, "training_mode", 0) != 0 || (n->opset < 14 && n->n_out > 1 && rl_out(n, 1));
    k->vector_flops = rl_numel_d(rl_out(n, 0)) * (training ? 8 : 2);
}

/* --------------------------------------------------- LayerNorm family --- */
/* Statistics outputs (Mean, InvStdDev) keep X's dims before `axis` and are 1
 * from it on; their type is stash_type (float unless told otherwise). */
static int set_stats_outputs(rl_ctx *c, rl_node *n, int first, int64_t axis_attr, int dt) {
    rl_value *x = rl_in(n, 0);
    if (!x || x->rank < 0) {
        for (int i = first; i < n->n_out; i++)
            if (rl_set_out_unknown(c, n, i, dt, -1) == RL_FAIL) return RL_FAIL;
        return RL_OK;
    }
    int axis = rl_axis(c, n, axis_attr, x->rank);
    if (axis < 0) return RL_FAIL;
    int64_t d[RL_MAX_RANK_HARD];
    for (int k = 0; k < x->rank; k++) d[k] = k < axis ? x->dims[k] : 1;
    for (int i = first; i < n->n_out; i++)
        if (rl_set_out(c, n, i, dt, x->rank, d) != RL_OK) return RL_FAIL;
    return RL_OK;
}

static int stash_dtype(rl_ctx *c, const rl_node *n) {
    int64_t st = rl_attr_i(c, n, "stash_type", 1);
    return st > 0 && st < RL_DT_COUNT ? (int)st : RL_DT_FLOAT;
}

static int shape_layernorm(rl_ctx *c, rl_graph *g, rl_node *n) {
    int r = shape_like_x(c, g, n);
    if (r == RL_FAIL) return r;
    if (set_stats_outputs(c, n, 1, rl_attr_i(c, n, "axis", -1), stash_dtype(c, n)) != RL_OK) return RL_FAIL;
    return r;
}

/* SimplifiedLayerNormalization: Y, inv_std_var. */
static int shape_simplified_ln(rl_ctx *c, rl_graph *g, rl_node *n) {
    return shape_layernorm(c, g, n);
}

/* Skip(Simplified)LayerNormalization: output, mean, inv_std_var (statistics
 * over the last axis) and input_skip_bias_sum like the input. */
static int shape_skip_ln(rl_ctx *c, rl_graph *g, rl_node *n) {
    int r = shape_like_x(c, g, n);
    if (r == RL_FAIL) return r;
    for (int i = 1; i < n->n_out && i < 3; i++) {
        rl_value *o = rl_out(n, i);
        if (!o) continue;
        rl_value *x = rl_in(n, 0);
        if (!x || x->rank < 1) { if (rl_set_out_unknown(c, n, i, RL_DT_FLOAT, -1) == RL_FAIL) return RL_FAIL; continue; }
        int64_t d[RL_MAX_RANK_HARD];
        memcpy(d, x->dims, (size_t)x->rank * sizeof *d);
        d[x->rank - 1] = 1;
        if (rl_set_out(c, n, i, RL_DT_FLOAT, x->rank, d) != RL_OK) return RL_FAIL;
    }
    if (n->n_out > 3 && rl_set_out_like(c, n, 3, rl_in(n, 0)) != RL_OK) return RL_FAIL;
    return r;
}

/* Skip add (1) and the optional bias add (1) on top of the normalisation. */
static void cost_skip_ln(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    double per = n->op->per_elem + 1 + (rl_in(n, 4) ? 1 : 0);
    k->vector_flops = rl_numel_d(rl_out(n, 0)) * per;
}

/* ------------------------------------------------ EmbedLayerNormalization -- */
/* input_ids [B, S] -> output [B, S, H], mask_index [B], embedding_sum [B, S, H]. */
static int shape_embed_ln(rl_ctx *c, rl_graph *g, rl_node *n) {
    rl_value *ids = rl_in(n, 0), *word = rl_in(n, 2);
    if (!ids || !word) return rl_bad(c, n, "needs input_ids and word_embedding");
    int dt = word->dtype;
    int64_t b = rl_in_dim(n, 0, 0), s = rl_in_dim(n, 0, 1), h = rl_in_dim(n, 2, 1);
    if (ids->rank >= 0 && ids->rank != 2) return rl_bad(c, n, "input_ids must be 2-D");
    int64_t d[3] = {b, s, h};
    if (rl_set_out(c, n, 0, dt, 3, d) != RL_OK) return RL_FAIL;
    if (rl_set_out(c, n, 1, RL_DT_INT32, 1, &b) != RL_OK) return RL_FAIL;
    if (rl_set_out(c, n, 2, dt, 3, d) != RL_OK) return RL_FAIL;
    return rl_shape_known(rl_out(n, 0)) ? RL_OK : RL_UNKNOWN;
}

/* Gathers read only the rows they pick: word, position and (optional)
 * segment rows, one per token, instead of the whole tables. */
static void cost_embed_ln(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    double tokens_h = rl_numel_d(rl_out(n, 0));
    k->vector_flops = tokens_h * n->op->per_elem;
    for (int i = 2; i <= 4; i++) rl_cost_read_part(c, k, rl_in(n, i), tokens_h);
}

/* ------------------------------------------------------------- misc ----- */
/* BiasSoftmax / BiasAdd: broadcast of the first two inputs. */
static int shape_broadcast2(rl_ctx *c, rl_graph *g, rl_node *n) {
    rl_value *a = rl_in(n, 0), *b = rl_in(n, 1);
    if (!a) return rl_bad(c, n, "needs an input");
    if (!b || a->rank < 0 || b->rank < 0) return shape_like_x(c, g, n);
    int64_t out[RL_MAX_RANK_HARD];
    int r = rl_broadcast(c, n, a->rank, a->dims, b->rank, b->dims, out);
    if (r < 0) return RL_FAIL;
    if (rl_set_out(c, n, 0, a->dtype, r, out) != RL_OK) return RL_FAIL;
    return rl_shape_known(rl_out(n, 0)) ? RL_OK : RL_UNKNOWN;
}

/* FastGelu: 8, plus 1 for the optional bias. */
static void cost_fast_gelu(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    k->vector_flops = rl_numel_d(rl_out(n, 0)) * (n->op->per_elem + (rl_in(n, 1) ? 1 : 0));
}

/* Softmax family: the axis must fit the rank (shape is X's). */
static int shape_softmax(rl_ctx *c, rl_graph *g, rl_node *n) {
    rl_value *x = rl_in(n, 0);
    if (x && x->rank >= 0) {
        int64_t axis = rl_attr_i(c, n, "axis", n->opset >= 13 ? -1 : 1);
        if (rl_axis(c, n, axis, x->rank) < 0) return RL_FAIL;
    }
    return shape_like_x(c, g, n);
}

/* LRN: a window of `size` channels: one square and one add each, then
 * scale, bias, power and divide (~6). */
static int64_t lrn_size(rl_ctx *c, const rl_node *n) {
    return rl_attr_i_in(c, n, "size", 1, 1, RL_MAX_ELEMS); /* a channel count */
}

static int shape_lrn(rl_ctx *c, rl_graph *g, rl_node *n) {
    lrn_size(c, n);
    if (c->err->code[0]) return RL_FAIL;
    return shape_like_x(c, g, n);
}

static void cost_lrn(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    double size = (double)lrn_size(c, n);
    k->vector_flops = rl_numel_d(rl_out(n, 0)) * (2 * size + 6);
}

/* ------------------------------------------------------------ losses ----- */
/* NegativeLogLikelihoodLoss(input [N,C,d...], target [N,d...], weight [C])
 * and SoftmaxCrossEntropyLoss(scores, labels, weights): the loss is [N,d...]
 * with reduction "none", else a scalar; SCE's optional second output is the
 * log-probabilities, shaped like the scores. */
static int shape_loss(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0), *t = rl_in(n, 1);
    if (!x || !t) return rl_bad(c, n, "needs scores and targets");
    if (x->rank >= 0 && x->rank < 2) return rl_bad(c, n, "scores need rank 2 or more, got %d", x->rank);
    if (x->rank >= 0 && t->rank >= 0 && t->rank != x->rank - 1)
        return rl_bad(c, n, "targets of rank %d for scores of rank %d (want %d)", t->rank, x->rank, x->rank - 1);
    const rl_value *w = rl_in(n, 2);
    if (w && w->rank >= 0 && (w->rank != 1 || (w->dims[0] >= 0 && x->rank >= 0 && x->dims[1] >= 0 && w->dims[0] != x->dims[1])))
        return rl_bad(c, n, "weights must be [C]");
    const char *red = rl_attr_s(c, n, "reduction", "mean");
    int res;
    if (strcmp(red, "none") == 0) {
        /* the per-element loss: [N, d...], from the targets or from the scores */
        int64_t dims[RL_MAX_RANK_HARD];
        int r = t->rank >= 0 ? t->rank : x->rank >= 0 ? x->rank - 1 : -1;
        for (int k = 0; k < r; k++) {
            dims[k] = t->rank >= 0 ? t->dims[k] : -1;
            int64_t xd = x->rank >= 0 ? x->dims[k == 0 ? 0 : k + 1] : -1;
            if (dims[k] < 0) dims[k] = xd;
        }
        if (rl_set_out(c, n, 0, x->dtype, r, dims) != RL_OK) return RL_FAIL;
        res = rl_shape_known(rl_out(n, 0)) ? RL_OK : RL_UNKNOWN;
    } else if (strcmp(red, "mean") == 0 || strcmp(red, "sum") == 0) {
        if (rl_set_out(c, n, 0, x->dtype, 0, NULL) != RL_OK) return RL_FAIL;
        res = RL_OK;
    } else {
        return rl_bad(c, n, "unknown reduction '%s' (none, mean or sum)", red);
    }
    if (n->n_out > 1 && rl_set_out_like(c, n, 1, x) != RL_OK) return RL_FAIL;
    if (!rl_shape_known(x) || !rl_shape_known(t)) res = RL_UNKNOWN;
    return res;
}

/* NLL picks one score per target: 3 vector FLOPs per target (pick, weight,
 * accumulate) and it reads only the picked scores. SCE first runs a log-
 * softmax over the scores (5 per score), which reads them all. */
static void cost_loss(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)g;
    const rl_value *x = rl_in(n, 0), *t = rl_in(n, 1);
    double targets = rl_numel_d(t);
    k->vector_flops = 3 * targets;
    if (rl_op_is(n, "SoftmaxCrossEntropyLoss")) {
        k->vector_flops += 5 * rl_numel_d(x);
        return;
    }
    rl_cost_read_part(c, k, x, targets);
}

#define MS "com.microsoft"

static const rl_op_def ops[] = {
    {.name = "BatchNormalization", .domain = "", .since = 1,
     .shape = shape_batchnorm, .cost = cost_batchnorm, .per_elem = 2,
     .cost_doc = "inference: 2 vector FLOPs per element (scale and shift folded); training mode 8"},
    {.name = "InstanceNormalization", .domain = "", .since = 1,
     .shape = shape_like_x, .cost = cost_per_out, .per_elem = 8,
     .cost_doc = "8 vector FLOPs per element (mean, variance, normalise, affine)"},
    {.name = "LayerNormalization", .domain = "", .since = 17,
     .shape = shape_layernorm, .cost = cost_per_out, .per_elem = 8,
     .cost_doc = "8 vector FLOPs per element (mean, variance, normalise, scale, shift)"},
    {.name = "LayerNormalization", .domain = MS, .since = 1,
     .shape = shape_layernorm, .cost = cost_per_out, .per_elem = 8,
     .cost_doc = "8 vector FLOPs per element (mean, variance, normalise, scale, shift)"},
    {.name = "GroupNormalization", .domain = "", .since = 18,
     .shape = shape_like_x, .cost = cost_per_out, .per_elem = 8,
     .cost_doc = "8 vector FLOPs per element (mean, variance, normalise, affine)"},
    {.name = "RMSNormalization", .domain = "", .since = 23,
     .shape = shape_like_x, .cost = cost_per_out, .per_elem = 4,
     .cost_doc = "4 vector FLOPs per element (square, sum, normalise, scale)"},
    {.name = "SimplifiedLayerNormalization", .domain = "", .since = 1,
     .shape = shape_simplified_ln, .cost = cost_per_out, .per_elem = 4,
     .cost_doc = "4 vector FLOPs per element (square, sum, normalise, scale)"},
    {.name = "SimplifiedLayerNormalization", .domain = MS, .since = 1,
     .shape = shape_simplified_ln, .cost = cost_per_out, .per_elem = 4,
     .cost_doc = "4 vector FLOPs per element (square, sum, normalise, scale)"},
    {.name = "LRN", .domain = "", .since = 1, .shape = shape_lrn, .cost = cost_lrn,
     .cost_doc = "2·size + 6 vector FLOPs per element (window sum of squares, scale, power, divide)"},
    {.name = "MeanVarianceNormalization", .domain = "", .since = 9,
     .shape = shape_like_x, .cost = cost_per_out, .per_elem = 8,
     .cost_doc = "8 vector FLOPs per element (mean, variance, normalise)"},
    {.name = "LpNormalization", .domain = "", .since = 1,
     .shape = shape_like_x, .cost = cost_per_out, .per_elem = 3,
     .cost_doc = "3 vector FLOPs per element (power, sum, divide)"},
    {.name = "Softmax", .domain = "", .since = 1, .shape = shape_softmax, .cost = cost_per_out, .per_elem = 5,
     .cost_doc = "5 vector FLOPs per element (max, subtract, exp, sum, divide)"},
    {.name = "LogSoftmax", .domain = "", .since = 1,
     .shape = shape_softmax, .cost = cost_per_out, .per_elem = 5,
     .cost_doc = "5 vector FLOPs per element (max, subtract, exp, sum, log)"},
    {.name = "Hardmax", .domain = "", .since = 1, .shape = shape_softmax, .cost = cost_per_out, .per_elem = 2,
     .cost_doc = "2 vector ops per element (compare, write one-hot)"},
    {.name = "SkipLayerNormalization", .domain = MS, .since = 1,
     .shape = shape_skip_ln, .cost = cost_skip_ln, .per_elem = 8,
     .cost_doc = "8 vector FLOPs per element for the normalisation + 1 for the skip add + 1 for the bias"},
    {.name = "SkipSimplifiedLayerNormalization", .domain = MS, .since = 1,
     .shape = shape_skip_ln, .cost = cost_skip_ln, .per_elem = 4,
     .cost_doc = "4 vector FLOPs per element for the RMS normalisation + 1 for the skip add + 1 for the bias"},
    {.name = "EmbedLayerNormalization", .domain = MS, .since = 1,
     .shape = shape_embed_ln, .cost = cost_embed_ln, .per_elem = 10,
     .cost_doc = "10 vector FLOPs per output element (embedding adds + layer norm); reads only the gathered "
                "embedding rows"},
    {.name = "BiasGelu", .domain = MS, .since = 1, .shape = shape_like_x, .cost = cost_per_out, .per_elem = 9,
     .flags = RL_OP_ACTIVATION, .cost_doc = "9 vector FLOPs per element (bias add + erf GELU)"},
    {.name = "FastGelu", .domain = MS, .since = 1, .shape = shape_like_x, .cost = cost_fast_gelu, .per_elem = 8,
     .flags = RL_OP_ACTIVATION, .cost_doc = "8 vector FLOPs per element (tanh GELU) + 1 with bias"},
    {.name = "QuickGelu", .domain = MS, .since = 1, .shape = shape_like_x, .cost = cost_per_out, .per_elem = 5,
     .flags = RL_OP_ACTIVATION, .cost_doc = "5 vector FLOPs per element (x·sigmoid(alpha·x))"},
    {.name = "Gelu", .domain = MS, .since = 1, .shape = shape_like_x, .cost = cost_per_out, .per_elem = 8,
     .flags = RL_OP_ACTIVATION, .cost_doc = "8 vector FLOPs per element (erf GELU)"},
    {.name = "BiasAdd", .domain = MS, .since = 1, .shape = shape_like_x, .cost = cost_per_out, .per_elem = 2,
     .flags = RL_OP_ACTIVATION, .cost_doc = "2 vector FLOPs per element (bias add and skip add)"},
    {.name = "BiasSoftmax", .domain = MS, .since = 1,
     .shape = shape_broadcast2, .cost = cost_per_out, .per_elem = 6,
     .cost_doc = "6 vector FLOPs per element (bias add + softmax)"},
    {.name = "NegativeLogLikelihoodLoss", .domain = "", .since = 12, .shape = shape_loss, .cost = cost_loss,
     .cost_doc = "3 vector FLOPs per target (pick, weight, accumulate); reads only the picked scores"},
    {.name = "SoftmaxCrossEntropyLoss", .domain = "", .since = 12, .shape = shape_loss, .cost = cost_loss,
     .cost_doc = "5 vector FLOPs per score (log-softmax) + 3 per target (pick, weight, accumulate)"},
};
RL_FAMILY(norm, ops);
