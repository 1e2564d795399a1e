/* Op family: conv (Conv, ConvTranspose, ConvInteger, QLinearConv and
 * com.microsoft FusedConv). The MACs run on the matrix unit; bias,
 * requantization and fused activations are vector work. */
#include <string.h>

#include "op.h"
#include "families.h"

/* Which inputs are X and W, and the output dtype, per variant. */
static void conv_operands(const rl_node *n, int *ix, int *iw, int *ib, int *dt) {
    *ix = 0;
    *iw = 1;
    *ib = 2;
    *dt = rl_in_dtype(n, 0);
    if (rl_op_is(n, "QLinearConv")) {
        *iw = 3;
        *ib = 8;
        *dt = rl_in_dtype(n, 7) ? rl_in_dtype(n, 7) : rl_in_dtype(n, 0);
    } else if (rl_op_is(n, "ConvInteger")) {
        *ib = -1;
        *dt = RL_DT_INT32;
    } else if (rl_op_is(n, "DeformConv")) {
        *ib = 3; /* X, W, offset, B, mask */
    }
}

/* What Conv and ConvTranspose ask alike of X and W: both given, one rank of 3
 * or more (X's, else W's) and a positive group. RL_UNKNOWN while neither rank
 * is known. */
static int conv_rank_group(rl_ctx *c, const rl_node *n, const rl_value *x, const rl_value *w, int *rank,
                           int64_t *group) {
    if (!x || !w) return rl_bad(c, n, "needs X and W");
    *rank = x->rank >= 0 ? x->rank : w->rank;
    if (*rank < 0) return RL_UNKNOWN;
    if (*rank < 3) return rl_bad(c, n, "X must have rank 3 or more (got %d)", *rank);
    if (w->rank >= 0 && w->rank != *rank) return rl_bad(c, n, "W has rank %d but X rank %d", w->rank, *rank);
    *group = rl_attr_i_in(c, n, "group", 1, 1, RL_MAX_ELEMS); /* a channel count */
    if (c->err->code[0]) return RL_FAIL;
    return RL_OK;
}

static int shape_conv(rl_ctx *c, rl_graph *g, rl_node *n) {
    int ix, iw, ib, dt;
    conv_operands(n, &ix, &iw, &ib, &dt);
    rl_value *x = rl_in(n, ix), *w = rl_in(n, iw);
    int rank = -1; /* set by conv_rank_group; initialised for the compiler, which cannot see it */
    int64_t group = 1;
    int checked = conv_rank_group(c, n, x, w, &rank, &group);
    if (checked == RL_FAIL) return RL_FAIL;
    if (checked == RL_UNKNOWN) return rl_set_out_unknown(c, n, 0, dt, -1);
    int64_t cout = w->rank >= 0 ? w->dims[0] : -1;
    if (x->rank < 0) return rl_set_out_unknown(c, n, 0, dt, rank);
    int64_t cin;
    if (w->rank >= 0 && x->dims[1] >= 0 && w->dims[1] >= 0 &&
        (!rl_mul_ok(w->dims[1], group, &cin) || x->dims[1] != cin))
        return rl_bad(c, n, "X has %lld channels but W expects %lld x group %lld", (long long)x->dims[1],
                      (long long)w->dims[1], (long long)group);
    rl_window gm;
    if (rl_window_read(c, n, w, rank - 2, &gm) != RL_OK) return RL_FAIL;
    return rl_set_window_out(c, n, 0, dt, x, &gm, cout, false);
}

/* Per-element cost of the activation FusedConv applies. */
static double fused_activation_cost(rl_ctx *c, const rl_node *n) {
    const char *act = rl_attr_s(c, n, "activation", "");
    if (strcmp(act, "Relu") == 0) return 1;
    if (strcmp(act, "LeakyRelu") == 0 || strcmp(act, "Clip") == 0) return 2;
    if (strcmp(act, "HardSigmoid") == 0) return 3;
    if (strcmp(act, "Sigmoid") == 0 || strcmp(act, "Tanh") == 0) return 4;
    return act[0] ? 4 : 0;
}

/* 2·N·Cout·out_spatial·(Cin/group)·prod(kernel) matrix FLOPs: every output
 * element is a dot product over W's per-group input channels and kernel
 * window (W.dims[1] is already Cin/group). Bias: one add per output. */
static void cost_conv(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    int ix, iw, ib, dt;
    conv_operands(n, &ix, &iw, &ib, &dt);
    const rl_value *w = rl_in(n, iw);
    double outs = rl_numel_d(rl_out(n, 0));
    double per_out = (double)rl_dims_prod(w->dims, 1, w->rank);
    k->macs = outs * per_out;
    k->matrix_flops = 2 * k->macs;
    double v = 0;
    if (ib >= 0 && rl_in(n, ib)) v += outs;
    v += outs * n->op->per_elem; /* QLinearConv's requantization */
    if (rl_op_is(n, "FusedConv")) {
        v += outs * fused_activation_cost(c, n);
        if (rl_in(n, 3)) v += outs; /* the Z (sum) input */
    }
    if (rl_op_is(n, "DeformConv")) {
        /* every (output position, input channel, kernel tap) samples X
         * bilinearly at its offset: 4 taps, 7 FLOPs; the mask scales it (1) */
        const rl_value *x = rl_in(n, 0), *o = rl_out(n, 0);
        if (!o || o->rank < 2 || x->rank < 2) {
            k->vector_flops = v;
            return;
        }
        double samples = (double)rl_dims_prod(o->dims, 2, o->rank) * (double)rl_dims_prod(x->dims, 0, 2) *
                         (double)rl_dims_prod(w->dims, 2, w->rank);
        v += samples * (rl_in(n, 4) ? 8 : 7);
    }
    k->vector_flops = v;
}

/* ----------------------------------------------------- CausalConvWithState -- */
/* input [B, C, T], weight [C, 1, K] (depthwise), bias [C], past_state
 * [B, C, K-1] -> output [B, C, T], present_state [B, C, K-1]. */
static int shape_causal_conv(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0), *w = rl_in(n, 1);
    if (!x || !w) return rl_bad(c, n, "needs input and weight");
    if (x->rank >= 0 && x->rank != 3) return rl_bad(c, n, "input must be [batch, channels, time], got rank %d", x->rank);
    if (w->rank >= 0 && w->rank != 3) return rl_bad(c, n, "weight must be [channels, 1, kernel], got rank %d", w->rank);
    int64_t kk = w->rank == 3 ? w->dims[2] : -1;
    if (kk == 0) return rl_bad(c, n, "kernel size 0");
    if (x->rank >= 0 && w->rank == 3 && x->dims[1] >= 0 && w->dims[0] >= 0 && x->dims[1] != w->dims[0])
        return rl_bad(c, n, "%lld input channels, %lld weight channels", (long long)x->dims[1], (long long)w->dims[0]);
    if (rl_set_out_like(c, n, 0, x) != RL_OK) return RL_FAIL;
    int64_t st[3] = {x->rank == 3 ? x->dims[0] : -1, x->rank == 3 ? x->dims[1] : -1, kk >= 1 ? kk - 1 : -1};
    if (rl_set_out(c, n, 1, x->dtype, 3, st) != RL_OK) return RL_FAIL;
    return rl_shape_known(rl_out(n, 0)) && rl_shape_known(rl_out(n, 1)) ? RL_OK : RL_UNKNOWN;
}

/* K multiply-adds per output element (a depthwise convolution over the
 * state and the new steps); bias 1, SiLU activation 4 per output. */
static void cost_causal_conv(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    double outs = rl_numel_d(rl_out(n, 0));
    const rl_value *w = rl_in(n, 1);
    if (!w || w->rank != 3) return;
    k->macs = outs * (double)w->dims[2];
    k->matrix_flops = 2 * k->macs;
    const char *act = rl_attr_s(c, n, "activation", "none");
    k->vector_flops = (rl_in(n, 2) ? outs : 0) + (strcmp(act, "none") && act[0] ? 4 * outs : 0);
}

/* ------------------------------------------------------------------ Col2Im -- */
/* input [N, C·prod(block), L], image_shape, block_shape -> [N, C, image...]. */
static int shape_col2im(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0), *img = rl_in(n, 1), *blk = rl_in(n, 2);
    if (!x || !img || !blk) return rl_bad(c, n, "needs input, image_shape and block_shape");
    if (x->rank >= 0 && x->rank != 3) return rl_bad(c, n, "input must be [N, C·prod(block), L], got rank %d", x->rank);
    int nsp = img->rank == 1 && img->dims[0] >= 1 && img->dims[0] <= RL_MAX_RANK_HARD - 2 ? (int)img->dims[0] : -1;
    int dt = x->dtype;
    if (nsp < 0) return rl_set_out_unknown(c, n, 0, dt, -1);
    int64_t out[RL_MAX_RANK_HARD];
    for (int k = 0; k < nsp + 2; k++) out[k] = -1;
    out[0] = x->rank == 3 ? x->dims[0] : -1;
    if (img->n_known == nsp)
        for (int k = 0; k < nsp; k++) {
            if (img->ival[k] < 1) return rl_bad(c, n, "image_shape entry %lld", (long long)img->ival[k]);
            out[k + 2] = img->ival[k];
        }
    else rl_needs_runtime(n, 1);
    if (blk->n_known == nsp) {
        int64_t p = 1;
        for (int k = 0; k < nsp; k++) {
            if (blk->ival[k] < 1 || !rl_mul_ok(p, blk->ival[k], &p)) return rl_bad(c, n, "block_shape entry %lld", (long long)blk->ival[k]);
        }
        if (x->rank == 3 && x->dims[1] >= 0) {
            if (x->dims[1] % p) return rl_bad(c, n, "%lld columns do not divide by the block size %lld", (long long)x->dims[1], (long long)p);
            out[1] = x->dims[1] / p;
        }
    } else {
        rl_needs_runtime(n, 2);
    }
    if (rl_set_out(c, n, 0, dt, nsp + 2, out) != RL_OK) return RL_FAIL;
    return rl_shape_known(rl_out(n, 0)) ? RL_OK : RL_UNKNOWN;
}

/* A scatter-add: one add per input element. */
static void cost_col2im(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    k->vector_flops = rl_numel_d(rl_in(n, 0));
}

/* ---------------------------------------------------------- ConvTranspose -- */
static int shape_conv_transpose(rl_ctx *c, rl_graph *g, rl_node *n) {
    rl_value *x = rl_in(n, 0), *w = rl_in(n, 1);
    int rank = -1;
    int64_t group = 1;
    int checked = conv_rank_group(c, n, x, w, &rank, &group);
    if (checked == RL_FAIL) return RL_FAIL;
    int dt = x->dtype;
    if (checked == RL_UNKNOWN) return rl_set_out_unknown(c, n, 0, dt, -1);
    int64_t cout = -1;
    if (w->rank >= 0 && w->dims[1] >= 0 && !rl_mul_ok(w->dims[1], group, &cout))
        return rl_bad(c, n, "%lld output channels per group x group %lld overflows", (long long)w->dims[1],
                      (long long)group);
    if (x->rank < 0) return rl_set_out_unknown(c, n, 0, dt, rank);
    if (w->rank >= 0 && x->dims[1] >= 0 && w->dims[0] >= 0 && x->dims[1] != w->dims[0])
        return rl_bad(c, n, "X has %lld channels but W %lld", (long long)x->dims[1], (long long)w->dims[0]);
    rl_window gm;
    int nsp = rank - 2;
    if (rl_window_read(c, n, w, nsp, &gm) != RL_OK) return RL_FAIL;
    const int64_t *os = NULL, *op = NULL;
    int n_os = rl_attr_ints(n, "output_shape", &os);
    int n_op = rl_attr_ints(n, "output_padding", &op);
    if (n_op >= 0 && n_op != nsp) return rl_bad(c, n, "output_padding has %d entries for %d spatial axes", n_op, nsp);
    if (n_os >= 0 && n_os != nsp && n_os != rank) return rl_bad(c, n, "output_shape has %d entries", n_os);
    int64_t out[RL_MAX_RANK_HARD];
    out[0] = x->dims[0];
    out[1] = cout;
    for (int i = 0; i < nsp; i++) {
        int64_t in = x->dims[i + 2];
        if (n_os >= 0) {
            out[i + 2] = os[n_os - nsp + i];
            if (out[i + 2] < 0) return rl_bad(c, n, "negative output_shape");
            continue;
        }
        if (in < 0 || gm.k[i] < 0) { out[i + 2] = -1; continue; }
        int64_t opad = n_op >= 0 ? op[i] : 0;
        if (opad < 0 || opad > RL_MAX_ELEMS)
            return rl_bad(c, n, "output_padding %lld is not a tensor size", (long long)opad);
        int64_t grown, window, o;
        if (rl_window_same_pad(&gm)) {
            if (!rl_mul_ok(in, gm.s[i], &o))
                return rl_bad(c, n, "the output length on spatial axis %d overflows", i);
            out[i + 2] = o;
            continue;
        }
        /* s·(in-1) + opad + (k-1)·d + 1 - pads: every term is at most 2^53 but the products */
        if (!rl_mul_ok(gm.s[i], in - 1, &grown) || !rl_mul_ok(gm.k[i] - 1, gm.d[i], &window) ||
            !rl_add_ok(grown, window, &o) || !rl_add_ok(o, opad + 1, &o))
            return rl_bad(c, n, "the output length on spatial axis %d overflows (stride %lld, kernel %lld, "
                          "dilation %lld)", i, (long long)gm.s[i], (long long)gm.k[i], (long long)gm.d[i]);
        o -= strcmp(gm.auto_pad, "VALID") == 0 ? 0 : gm.pb[i] + gm.pe[i];
        if (o < 1) return rl_bad(c, n, "output length %lld on spatial axis %d is not positive", (long long)o, i);
        out[i + 2] = o;
    }
    if (rl_set_out(c, n, 0, dt, rank, out) != RL_OK) return RL_FAIL;
    return rl_shape_known(rl_out(n, 0)) ? RL_OK : RL_UNKNOWN;
}

/* Counted by INPUT volume: every input element is scattered through the
 * kernel into Cout/group channels, 2·N·Cin·in_spatial·(Cout/group)·prod(k).
 * Counting by output volume would overstate it by stride^d. Bias: one add
 * per output element. */
static void cost_conv_transpose(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    const rl_value *w = rl_in(n, 1);
    double ins = rl_numel_d(rl_in(n, 0));
    double per_in = (double)rl_dims_prod(w->dims, 1, w->rank); /* (Cout/group)·prod(k) */
    k->macs = ins * per_in;
    k->matrix_flops = 2 * k->macs;
    k->vector_flops = rl_in(n, 2) ? rl_numel_d(rl_out(n, 0)) : 0;
}

static const rl_op_def ops[] = {
    {.name = "Conv", .domain = "", .since = 1, .shape = shape_conv, .cost = cost_conv,
     .cost_doc = "2·N·Cout·out_spatial·(Cin/group)·prod(kernel) matrix FLOPs; + N·Cout·out_spatial vector "
                "FLOPs for the bias"},
    {.name = "ConvInteger", .domain = "", .since = 10, .shape = shape_conv, .cost = cost_conv,
     .cost_doc = "2·N·Cout·out_spatial·(Cin/group)·prod(kernel) integer matrix ops; int32 output"},
    {.name = "QLinearConv", .domain = "", .since = 10, .shape = shape_conv, .cost = cost_conv, .per_elem = 3,
     .cost_doc = "2·N·Cout·out_spatial·(Cin/group)·prod(kernel) integer matrix ops; + 1 per output for the "
                "bias and 3 per output to requantize"},
    {.name = "FusedConv", .domain = "com.microsoft", .since = 1, .shape = shape_conv, .cost = cost_conv,
     .cost_doc = "as Conv; + the activation's per-element cost (Relu 1, LeakyRelu/Clip 2, HardSigmoid 3, "
                "Sigmoid/Tanh 4) and 1 per output for the Z sum input"},
    {.name = "DeformConv", .domain = "", .since = 19, .shape = shape_conv, .cost = cost_conv,
     .cost_doc = "as Conv (2·N·Cout·out_spatial·(Cin/group)·prod(kernel) matrix FLOPs); + 7 vector FLOPs per "
                "bilinear sample (N·Cin·out_spatial·prod(kernel) samples; 8 with a mask) + 1 per output for the bias"},
    {.name = "CausalConvWithState", .domain = "", .since = 27,
     .shape = shape_causal_conv, .cost = cost_causal_conv,
     .cost_doc = "depthwise: 2·K matrix FLOPs per output element; + 1 per output for the bias, + 4 for a SiLU activation"},
    {.name = "Col2Im", .domain = "", .since = 18, .shape = shape_col2im, .cost = cost_col2im,
     .cost_doc = "1 vector FLOP per input element (scatter-add)"},
    {.name = "ConvTranspose", .domain = "", .since = 1,
     .shape = shape_conv_transpose, .cost = cost_conv_transpose,
     .cost_doc = "2·N·Cin·in_spatial·(Cout/group)·prod(kernel) matrix FLOPs (by input volume); + "
                "N·Cout·out_spatial vector FLOPs for the bias"},
};
RL_FAMILY(conv, ops);
