/* Op family: attention (ONNX Attention and RotaryEmbedding, com.microsoft
 * Attention, MultiHeadAttention, GroupQueryAttention, QAttention,
 * RotaryEmbedding). Shapes follow the ONNX spec and onnxruntime's
 * ContribOperators.md. Cost of the attention core, with Skv the total key
 * length (past + new):
 *   matrix_flops = 2·B·Hq·Sq·Skv·(Dqk + Dv)        (QK^T and the V product)
 *   vector_flops = B·Hq·Sq·Skv·(5 softmax + 1 scale [+ 1 mask/bias add])
 * Ops that also project the input (com.microsoft Attention, QAttention) add
 * 2·B·S·input_hidden·(q + k + v hidden) matrix FLOPs, one bias add per
 * projected element when there is a bias and, for QAttention, one dequantize
 * multiply per projected element. */
#include <string.h>

#include "op.h"
#include "families.h"

static void attention_core(rl_cost *k, double B, double Hq, double Sq, double Skv, double Dqk, double Dv,
                           bool masked) {
    double scores = B * Hq * Sq * Skv;
    k->macs += scores * (Dqk + Dv);
    k->matrix_flops += 2 * scores * (Dqk + Dv);
    k->vector_flops += scores * (6 + (masked ? 1 : 0));
}

static int64_t div_or_unknown(int64_t a, int64_t b) {
    return a >= 0 && b > 0 && a % b == 0 ? a / b : -1;
}


/* Dims of an attention core: batch, query and key/value heads, query, new key
 * and past lengths, head sizes of Q·K and V. */
typedef struct attn_dims {
    int64_t B, Hq, Hkv, Sq, Skv, Sp, Dqk, Dv;
    bool four_d;       /* ONNX Attention: Q, K, V given as [B, H, S, D] */
    bool kv_projected; /* MultiHeadAttention: key/value given as [B, H, S, D], no past concat */
} attn_dims;

/* Outputs 1 and 2, present key and value [B, Hkv, past + Skv, Dqk or Dv], and
 * 3, the QK scores [B, Hq, Sq, past + Skv]: ONNX Attention and
 * MultiHeadAttention agree on these. */
static int set_present_outputs(rl_ctx *c, rl_node *n, const attn_dims *d, int dt_key, int dt_value, int dt_qk) {
    int64_t total = rl_dim_add(d->Sp, d->Skv);
    int64_t pk[4] = {d->B, d->Hkv, total, d->Dqk}, pv[4] = {d->B, d->Hkv, total, d->Dv};
    int64_t qk[4] = {d->B, d->Hq, d->Sq, total};
    if (rl_set_out(c, n, 1, dt_key, 4, pk) != RL_OK) return RL_FAIL;
    if (rl_set_out(c, n, 2, dt_value, 4, pv) != RL_OK) return RL_FAIL;
    if (rl_set_out(c, n, 3, dt_qk, 4, qk) != RL_OK) return RL_FAIL;
    return rl_shape_known(rl_out(n, 0)) ? RL_OK : RL_UNKNOWN;
}

/* The attention core over past + new keys; false (nothing counted) while a
 * dim is unknown. */
static bool core_from_dims(rl_cost *k, const attn_dims *d, bool masked) {
    int64_t total = rl_dim_add(d->Sp, d->Skv);
    if (d->B < 0 || d->Hq < 0 || d->Sq < 0 || total < 0 || d->Dqk < 0 || d->Dv < 0) return false;
    attention_core(k, (double)d->B, (double)d->Hq, (double)d->Sq, (double)total, (double)d->Dqk, (double)d->Dv,
                   masked);
    return true;
}

/* --------------------------------------------------- ONNX Attention (23) -- */

static int onnx_attention_dims(rl_ctx *c, const rl_node *n, attn_dims *d) {
    rl_value *q = rl_in(n, 0), *k = rl_in(n, 1), *v = rl_in(n, 2);
    if (!q || !k || !v) return rl_bad(c, n, "needs Q, K and V");
    if (q->rank < 0 || k->rank < 0 || v->rank < 0) return RL_UNKNOWN;
    if (q->rank != 3 && q->rank != 4) return rl_bad(c, n, "Q must be 3-D or 4-D (got rank %d)", q->rank);
    if (k->rank != q->rank || v->rank != q->rank) return rl_bad(c, n, "Q, K and V must have the same rank");
    d->four_d = q->rank == 4;
    d->kv_projected = false;
    d->B = q->dims[0];
    if (d->four_d) {
        d->Hq = q->dims[1]; d->Sq = q->dims[2]; d->Dqk = q->dims[3];
        d->Hkv = k->dims[1]; d->Skv = k->dims[2]; d->Dv = v->dims[3];
    } else {
        d->Hq = rl_attr_i_in(c, n, "q_num_heads", -1, 1, RL_MAX_ELEMS);
        d->Hkv = rl_attr_i_in(c, n, "kv_num_heads", -1, 1, RL_MAX_ELEMS);
        if (d->Hq < 1 || d->Hkv < 1) return rl_bad(c, n, "3-D inputs need q_num_heads and kv_num_heads");
        d->Sq = q->dims[1];
        d->Skv = k->dims[1];
        d->Dqk = div_or_unknown(q->dims[2], d->Hq);
        d->Dv = div_or_unknown(v->dims[2], d->Hkv);
    }
    d->Sp = rl_in(n, 4) ? rl_in_dim(n, 4, 2) : 0;
    return RL_OK;
}

static int shape_onnx_attention(rl_ctx *c, rl_graph *g, rl_node *n) {
    int dt = rl_in_dtype(n, 0);
    attn_dims d;
    int r = onnx_attention_dims(c, n, &d);
    if (r == RL_FAIL) return RL_FAIL;
    if (r == RL_UNKNOWN) return rl_set_out_unknown(c, n, 0, dt, -1);
    int64_t y[4];
    if (d.four_d) {
        y[0] = d.B; y[1] = d.Hq; y[2] = d.Sq; y[3] = d.Dv;
    } else {
        y[0] = d.B; y[1] = d.Sq; y[2] = rl_dim_mul(d.Hq, d.Dv);
    }
    if (rl_set_out(c, n, 0, dt, d.four_d ? 4 : 3, y) != RL_OK) return RL_FAIL;
    return set_present_outputs(c, n, &d, rl_in_dtype(n, 1), rl_in_dtype(n, 2), dt);
}

static void cost_onnx_attention(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    attn_dims d;
    rl_quiet quiet;
    if (onnx_attention_dims(rl_quiet_ctx(&quiet, c), n, &d) != RL_OK) return;
    core_from_dims(k, &d, rl_in(n, 3) != NULL);
}

/* ------------------------------------------------------- RotaryEmbedding -- */
static int shape_like_x(rl_ctx *c, rl_graph *g, rl_node *n) {
    rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs an input");
    if (rl_set_out_like(c, n, 0, x) != RL_OK) return RL_FAIL;
    return rl_shape_known(x) ? RL_OK : RL_UNKNOWN;
}

/* Tokens of an activation [B, S, hidden] or [B, heads, S, head]. */
static double token_count(const rl_value *x) {
    if (!x || (x->rank != 3 && x->rank != 4)) return -1;
    return (double)x->dims[0] * (double)x->dims[x->rank == 3 ? 1 : 2];
}

/* cos/sin caches indexed by position ([max_positions, rotary_dim/2]): a
 * kernel reads one row per token, as a Gather does, never the whole cache
 * (2 × 131072 × 64 fp16 per layer in a long-context LLM). */
static void cost_cache_rows(rl_ctx *c, const rl_node *n, int cache, double tokens, rl_cost *k) {
    const rl_value *t = rl_in(n, cache);
    if (!t || t->rank < 1 || t->dims[0] <= 0 || tokens < 0) return;
    double rows = tokens < (double)t->dims[0] ? tokens : (double)t->dims[0];
    rl_cost_read_part(c, k, t, rows * rl_numel_d(t) / (double)t->dims[0]);
}

/* Rotating a pair costs 2 multiplies and 1 add per element (x·cos ± y·sin);
 * elements past rotary_embedding_dim pass through, counted alike (bound).
 * The caches are read by position: com.microsoft always (inputs 2, 3, with
 * position_ids at 1); ONNX when position_ids (input 3) is given — without it
 * the caches are already per token ([B, S, rotary_dim/2]) and read whole. */
static void cost_rotary(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)g;
    k->vector_flops = rl_numel_d(rl_out(n, 0)) * 3;
    bool ms = strcmp(n->domain, "com.microsoft") == 0;
    if (!ms && !rl_in(n, 3)) return;
    double tokens = token_count(rl_in(n, 0));
    cost_cache_rows(c, n, ms ? 2 : 1, tokens, k);
    cost_cache_rows(c, n, ms ? 3 : 2, tokens, k);
}

/* ------------------------------------------- com.microsoft Attention ------ */
/* Hidden sizes of Q, K, V: qkv_hidden_sizes or weights' columns / 3. */
static bool packed_hidden(const rl_node *n, int iw, int64_t *hq, int64_t *hk, int64_t *hv) {
    const int64_t *qkv = NULL;
    if (rl_attr_ints(n, "qkv_hidden_sizes", &qkv) == 3) {
        for (int i = 0; i < 3; i++)
            if (qkv[i] < 0 || qkv[i] > RL_MAX_ELEMS) return false; /* shape_ms_attention refuses it */
        *hq = qkv[0]; *hk = qkv[1]; *hv = qkv[2];
        return true;
    }
    int64_t cols = rl_in_dim(n, iw, 1);
    if (cols < 0 || cols % 3) return false;
    *hq = *hk = *hv = cols / 3;
    return true;
}

/* input [B, S, In] -> output [B, S, hv]; present [2, B, H, Sp + S, Dh].
 * QAttention has the same layout with past at input 8. */
static int shape_ms_attention(rl_ctx *c, rl_graph *g, rl_node *n) {
    bool quant = rl_op_is(n, "QAttention");
    int dt = quant ? (rl_in_dtype(n, 2) ? rl_in_dtype(n, 2) : RL_DT_FLOAT) : rl_in_dtype(n, 0);
    rl_value *x = rl_in(n, 0);
    if (!x || !rl_in(n, 1)) return rl_bad(c, n, "needs input and weights");
    int64_t heads = rl_attr_i_in(c, n, "num_heads", -1, 1, RL_MAX_ELEMS);
    if (heads < 1) return rl_bad(c, n, "needs num_heads");
    if (x->rank >= 0 && x->rank != 3) return rl_bad(c, n, "input must be 3-D (got rank %d)", x->rank);
    int64_t hq, hk, hv;
    const int64_t *qkv = NULL;
    if (rl_attr_ints(n, "qkv_hidden_sizes", &qkv) == 3)
        for (int i = 0; i < 3; i++)
            if (qkv[i] < 0 || qkv[i] > RL_MAX_ELEMS)
                return rl_bad(c, n, "qkv_hidden_sizes entry %lld is not a tensor size", (long long)qkv[i]);
    if (!packed_hidden(n, 1, &hq, &hk, &hv)) hq = hk = hv = -1;
    int64_t B = rl_in_dim(n, 0, 0), S = rl_in_dim(n, 0, 1);
    int64_t y[3] = {B, S, hv};
    if (rl_set_out(c, n, 0, dt, 3, y) != RL_OK) return RL_FAIL;
    int ipast = quant ? 8 : 4;
    int64_t sp = rl_in(n, ipast) ? rl_in_dim(n, ipast, 3) : 0;
    int64_t present[5] = {2, B, heads, rl_dim_add(sp, S), div_or_unknown(hk, heads)};
    if (rl_set_out(c, n, 1, dt, 5, present) != RL_OK) return RL_FAIL;
    return rl_shape_known(rl_out(n, 0)) ? RL_OK : RL_UNKNOWN;
}

static void cost_ms_attention(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    bool quant = rl_op_is(n, "QAttention");
    int64_t hq, hk, hv;
    if (!packed_hidden(n, 1, &hq, &hk, &hv)) return;
    int64_t heads = rl_attr_i_in(c, n, "num_heads", 1, 1, RL_MAX_ELEMS);
    double B = (double)rl_in_dim(n, 0, 0), S = (double)rl_in_dim(n, 0, 1), In = (double)rl_in_dim(n, 0, 2);
    if (B < 0 || S < 0 || In < 0) return;
    double projected = B * S * (double)(hq + hk + hv);
    k->macs = projected * In;
    k->matrix_flops = 2 * k->macs;
    /* bias is optional for Attention (input 2 may be omitted) */
    if (rl_in(n, 2)) k->vector_flops += projected;
    /* QAttention's integer GEMM leaves int32 accumulators that are scaled by
     * input_scale·weight_scale before the bias add, as onnxruntime's scale-bias
     * output processor does: 1 multiply per projected element. The zero-point
     * corrections live inside the integer GEMM and are not counted apart. */
    if (quant) k->vector_flops += projected;
    int ipast = quant ? 8 : 4;
    int64_t sp = rl_in(n, ipast) ? rl_in_dim(n, ipast, 3) : 0;
    if (sp < 0) sp = 0;
    bool masked = rl_in(n, quant ? 5 : 3) != NULL || (!quant && rl_in(n, 5) != NULL);
    attention_core(k, B, (double)heads, S, S + (double)sp, (double)(hq / heads), (double)(hv / heads), masked);
}

/* ------------------------------------------------ MultiHeadAttention ------ */
/* One head count for queries and keys (Hq = Hkv). */
static int mha_read(rl_ctx *c, const rl_node *n, attn_dims *d) {
    rl_value *q = rl_in(n, 0), *k = rl_in(n, 1), *v = rl_in(n, 2);
    if (!q) return rl_bad(c, n, "needs query");
    d->Hq = d->Hkv = rl_attr_i_in(c, n, "num_heads", -1, 1, RL_MAX_ELEMS);
    d->four_d = false;
    if (d->Hq < 1) return rl_bad(c, n, "needs num_heads");
    if (q->rank < 0 || (k && k->rank < 0) || (v && v->rank < 0)) return RL_UNKNOWN;
    d->B = q->dims[0];
    d->Sq = q->rank >= 2 ? q->dims[1] : -1;
    d->kv_projected = false;
    if (q->rank == 5) { /* packed QKV [B, S, H, 3, D] */
        d->Skv = d->Sq;
        d->Dqk = d->Dv = q->dims[4];
    } else if (q->rank != 3) {
        return rl_bad(c, n, "query must be 3-D or 5-D (got rank %d)", q->rank);
    } else if (!k) {
        return rl_bad(c, n, "3-D query needs key");
    } else if (k->rank == 5) { /* packed KV [B, S, H, 2, D] */
        d->Skv = k->dims[1];
        d->Dqk = d->Dv = k->dims[4];
    } else if (k->rank == 4) { /* [B, H, Skv, D] */
        d->kv_projected = true;
        d->Skv = k->dims[2];
        d->Dqk = k->dims[3];
        d->Dv = v && v->rank == 4 ? v->dims[3] : d->Dqk;
    } else if (k->rank == 3) {
        d->Skv = k->dims[1];
        d->Dqk = div_or_unknown(q->dims[2], d->Hq);
        d->Dv = v && v->rank == 3 ? div_or_unknown(v->dims[2], d->Hq) : d->Dqk;
    } else {
        return rl_bad(c, n, "key must be 3-D, 4-D or 5-D (got rank %d)", k->rank);
    }
    d->Sp = !d->kv_projected && rl_in(n, 6) ? rl_in_dim(n, 6, 2) : 0;
    return RL_OK;
}

static int shape_mha(rl_ctx *c, rl_graph *g, rl_node *n) {
    int dt = rl_in_dtype(n, 0);
    attn_dims d;
    int r = mha_read(c, n, &d);
    if (r == RL_FAIL) return RL_FAIL;
    if (r == RL_UNKNOWN) return rl_set_out_unknown(c, n, 0, dt, 3);
    int64_t y[3] = {d.B, d.Sq, rl_dim_mul(d.Hq, d.Dv)};
    if (rl_set_out(c, n, 0, dt, 3, y) != RL_OK) return RL_FAIL;
    return set_present_outputs(c, n, &d, dt, dt, dt);
}

static void cost_mha(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    attn_dims d;
    rl_quiet quiet;
    if (mha_read(rl_quiet_ctx(&quiet, c), n, &d) != RL_OK) return;
    if (!core_from_dims(k, &d, rl_in(n, 4) != NULL || rl_in(n, 5) != NULL)) return;
    if (rl_in(n, 3)) k->vector_flops += rl_numel_d(rl_in(n, 0)) + rl_numel_d(rl_in(n, 1)) + rl_numel_d(rl_in(n, 2));
}

/* ---------------------------------------------- GroupQueryAttention ------- */
typedef struct gqa_dims {
    int64_t B, S, H, Hkv, Dh, present;
} gqa_dims;

static int gqa_read(rl_ctx *c, const rl_node *n, gqa_dims *d) {
    rl_value *q = rl_in(n, 0);
    if (!q) return rl_bad(c, n, "needs query");
    d->H = rl_attr_i_in(c, n, "num_heads", -1, 1, RL_MAX_ELEMS);
    d->Hkv = rl_attr_i_in(c, n, "kv_num_heads", -1, 1, RL_MAX_ELEMS);
    if (d->H < 1 || d->Hkv < 1) return rl_bad(c, n, "needs num_heads and kv_num_heads");
    if (q->rank < 0) return RL_UNKNOWN;
    if (q->rank != 3) return rl_bad(c, n, "query must be 3-D (got rank %d)", q->rank);
    d->B = q->dims[0];
    d->S = q->dims[1];
    /* without key, query packs Q, K and V: (H + 2·Hkv)·Dh columns */
    d->Dh = div_or_unknown(q->dims[2], rl_in(n, 1) ? d->H : d->H + 2 * d->Hkv);
    int64_t past = rl_in(n, 3) ? rl_in_dim(n, 3, 2) : 0;
    const int64_t *tsl = NULL;
    if (rl_in_ints(n, 6, &tsl) >= 1) d->present = past > tsl[0] ? past : tsl[0];
    else d->present = rl_dim_add(past, d->S);
    return RL_OK;
}

static int shape_gqa(rl_ctx *c, rl_graph *g, rl_node *n) {
    int dt = rl_in_dtype(n, 0);
    gqa_dims d;
    int r = gqa_read(c, n, &d);
    if (r == RL_FAIL) return RL_FAIL;
    if (r == RL_UNKNOWN) return rl_set_out_unknown(c, n, 0, dt, 3);
    int64_t y[3] = {d.B, d.S, rl_dim_mul(d.H, d.Dh)};
    if (rl_set_out(c, n, 0, dt, 3, y) != RL_OK) return RL_FAIL;
    int64_t p[4] = {d.B, d.Hkv, d.present, d.Dh};
    if (rl_set_out(c, n, 1, dt, 4, p) != RL_OK) return RL_FAIL;
    if (rl_set_out(c, n, 2, dt, 4, p) != RL_OK) return RL_FAIL;
    return rl_shape_known(rl_out(n, 0)) ? RL_OK : RL_UNKNOWN;
}

/* The key length attended to is the present buffer (past + new); with a
 * local_window_size w >= 0 (a sliding window: each query sees itself and
 * the w keys before it) a windowed kernel reads at most w + 1 keys a query.
 * With do_rotary, rotating Q and K costs 3 per element. */
static void cost_gqa(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    gqa_dims d;
    rl_quiet quiet;
    if (gqa_read(rl_quiet_ctx(&quiet, c), n, &d) != RL_OK || d.B < 0 || d.S < 0 || d.Dh < 0 || d.present < 0) return;
    double keys = (double)d.present;
    int64_t window = rl_attr_i(c, n, "local_window_size", -1);
    if (window >= 0 && (double)window + 1 < keys) keys = (double)window + 1;
    attention_core(k, (double)d.B, (double)d.H, (double)d.S, keys, (double)d.Dh, (double)d.Dh, rl_in(n, 10) != NULL);
    /* head_sink (gpt-oss's attention sinks): one more logit in each softmax, its exp and its add */
    if (rl_in(n, 11)) k->vector_flops += 2 * (double)d.B * (double)d.H * (double)d.S;
    /* with do_rotary the cos/sin caches (inputs 7, 8) are read one row per
     * token; without it the kernel does not read them */
    bool rotary = rl_attr_i(c, n, "do_rotary", 0) != 0;
    if (rotary) k->vector_flops += 3 * (double)d.B * (double)d.S * (double)(d.H + d.Hkv) * (double)d.Dh;
    double tokens = rotary ? (double)d.B * (double)d.S : 0;
    cost_cache_rows(c, n, 7, tokens, k);
    cost_cache_rows(c, n, 8, tokens, k);
}

/* ------------------------------------------------- FlexAttention (preview) -- */
/* Q [B, Hq, L, E], K [B, Hkv, S, E], V [B, Hkv, S, Ev] -> Y [B, Hq, L, Ev]. */
static int shape_flex_attention(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *q = rl_in(n, 0), *k = rl_in(n, 1), *v = rl_in(n, 2);
    if (!q || !k || !v) return rl_bad(c, n, "needs Q, K and V");
    for (int i = 0; i < 3; i++)
        if (rl_in(n, i)->rank >= 0 && rl_in(n, i)->rank != 4)
            return rl_bad(c, n, "input %d must be [batch, heads, length, head size], got rank %d", i, rl_in(n, i)->rank);
    if (q->rank == 4 && k->rank == 4 && q->dims[3] >= 0 && k->dims[3] >= 0 && q->dims[3] != k->dims[3])
        return rl_bad(c, n, "Q head size %lld, K head size %lld", (long long)q->dims[3], (long long)k->dims[3]);
    if (q->rank == 4 && k->rank == 4 && q->dims[1] > 0 && k->dims[1] > 0 && q->dims[1] % k->dims[1])
        return rl_bad(c, n, "%lld query heads do not group over %lld key heads", (long long)q->dims[1], (long long)k->dims[1]);
    int64_t y[4] = {-1, -1, -1, -1};
    if (q->rank == 4) memcpy(y, q->dims, 3 * sizeof *y);
    if (v->rank == 4) y[3] = v->dims[3];
    if (rl_set_out(c, n, 0, q->dtype, 4, y) != RL_OK) return RL_FAIL;
    return rl_shape_known(rl_out(n, 0)) && rl_shape_known(k) ? RL_OK : RL_UNKNOWN;
}

/* The attention core, + 1 vector FLOP per score for each of score_mod and
 * prob_mod (their bodies are small per-score expressions). */
static void cost_flex_attention(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    const rl_value *q = rl_in(n, 0), *kk = rl_in(n, 1), *v = rl_in(n, 2);
    if (q->rank != 4 || kk->rank != 4 || v->rank != 4) return;
    double B = (double)q->dims[0], H = (double)q->dims[1], L = (double)q->dims[2], S = (double)kk->dims[2];
    attention_core(k, B, H, L, S, (double)q->dims[3], (double)v->dims[3], false);
    double mods = (rl_attr(n, "score_mod") ? 1 : 0) + (rl_attr(n, "prob_mod") ? 1 : 0);
    k->vector_flops += B * H * L * S * mods;
}

/* ------------------------------------------------------- LinearAttention -- */
/* query [B, T, Hq·dk], key [B, T, Hkv·dk], value [B, T, Hkv·dv], past_state
 * [B, Hkv, dk, dv] -> output [B, T, Hq·dv], present_state [B, Hkv, dk, dv]. */
static int linear_attention_dims(rl_ctx *c, const rl_node *n, int64_t *hq, int64_t *hkv, int64_t *dk, int64_t *dv) {
    const rl_value *q = rl_in(n, 0), *k = rl_in(n, 1), *v = rl_in(n, 2);
    *hq = rl_attr_i_in(c, n, "q_num_heads", 0, 1, RL_MAX_ELEMS);
    *hkv = rl_attr_i_in(c, n, "kv_num_heads", 0, 1, RL_MAX_ELEMS);
    if (*hq < 1 || *hkv < 1) return rl_bad(c, n, "q_num_heads and kv_num_heads must be positive");
    if (*hq % *hkv) return rl_bad(c, n, "%lld query heads do not group over %lld key/value heads", (long long)*hq, (long long)*hkv);
    for (int i = 0; i < 3; i++)
        if (rl_in(n, i)->rank >= 0 && rl_in(n, i)->rank != 3)
            return rl_bad(c, n, "input %d must be [batch, time, heads·size], got rank %d", i, rl_in(n, i)->rank);
    *dk = q->rank == 3 ? div_or_unknown(q->dims[2], *hq) : -1;
    if (*dk < 0 && k->rank == 3) *dk = div_or_unknown(k->dims[2], *hkv);
    *dv = v->rank == 3 ? div_or_unknown(v->dims[2], *hkv) : -1;
    if (q->rank == 3 && q->dims[2] >= 0 && *dk < 0) return rl_bad(c, n, "query width %lld does not split into %lld heads", (long long)q->dims[2], (long long)*hq);
    return RL_OK;
}

static int shape_linear_attention(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *q = rl_in(n, 0), *k = rl_in(n, 1), *v = rl_in(n, 2);
    if (!q || !k || !v) return rl_bad(c, n, "needs query, key and value");
    int64_t hq, hkv, dk, dv;
    if (linear_attention_dims(c, n, &hq, &hkv, &dk, &dv) != RL_OK) return RL_FAIL;
    int64_t out[3] = {q->rank == 3 ? q->dims[0] : -1, q->rank == 3 ? q->dims[1] : -1, rl_dim_mul(hq, dv)};
    int64_t st[4] = {out[0], hkv, dk, dv};
    if (rl_set_out(c, n, 0, q->dtype, 3, out) != RL_OK) return RL_FAIL;
    const rl_value *past = rl_in(n, 3);
    if (rl_set_out(c, n, 1, past && past->dtype ? past->dtype : q->dtype, 4, st) != RL_OK) return RL_FAIL;
    return rl_shape_known(rl_out(n, 0)) && rl_shape_known(rl_out(n, 1)) ? RL_OK : RL_UNKNOWN;
}

/* A recurrence over time: per step, each key/value head updates its dk×dv
 * state (linear: outer product and add, 2 FLOPs per state element; gated: +1
 * for the decay; delta: +2 for reading the state back; gated_delta: all, 5)
 * and each query head reads it (2 per state element). Vector work. */
static void cost_linear_attention(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)g;
    int64_t hq, hkv, dk, dv;
    rl_quiet quiet;
    if (linear_attention_dims(rl_quiet_ctx(&quiet, c), n, &hq, &hkv, &dk, &dv) != RL_OK) return;
    const char *rule = rl_attr_s(c, n, "update_rule", "gated_delta");
    double u = strcmp(rule, "linear") == 0 ? 2 : strcmp(rule, "gated") == 0 ? 3 : strcmp(rule, "delta") == 0 ? 4 : 5;
    const rl_value *q = rl_in(n, 0);
    if (q->rank != 3 || dk < 0 || dv < 0) return;
    double steps = (double)q->dims[0] * (double)q->dims[1];
    k->vector_flops = steps * ((double)hkv * u + (double)hq * 2) * (double)dk * (double)dv;
}

#define MS "com.microsoft"

static const rl_op_def ops[] = {
    {.name = "FlexAttention", .domain = "ai.onnx.preview", .since = 1,
     .shape = shape_flex_attention, .cost = cost_flex_attention,
     .cost_doc = "2·B·Hq·L·S·(E + Ev) matrix FLOPs; B·Hq·L·S·6 vector FLOPs (scale + softmax), + 1 per score "
                "for each of score_mod and prob_mod"},
    {.name = "LinearAttention", .domain = "", .since = 27,
     .shape = shape_linear_attention, .cost = cost_linear_attention,
     .cost_doc = "B·T·(Hkv·u + 2·Hq)·dk·dv vector FLOPs, u = 2 linear, 3 gated, 4 delta, 5 gated_delta (state "
                "update per key/value head, read-out per query head)"},
    {.name = "Attention", .domain = "", .since = 23, .shape = shape_onnx_attention, .cost = cost_onnx_attention,
     .cost_doc = "2·B·Hq·Sq·Skv·(Dqk + Dv) matrix FLOPs; B·Hq·Sq·Skv·(6, +1 with a mask) vector FLOPs "
                "(scale + softmax)"},
    {.name = "RotaryEmbedding", .domain = "", .since = 23,
     .shape = shape_like_x, .cost = cost_rotary, .per_elem = 3,
     .cost_doc = "3 vector FLOPs per element; with position_ids reads one cos/sin cache row per token"},
    {.name = "RotaryEmbedding", .domain = MS, .since = 1,
     .shape = shape_like_x, .cost = cost_rotary, .per_elem = 3,
     .cost_doc = "3 vector FLOPs per element; reads one cos/sin cache row per token"},
    {.name = "Attention", .domain = MS, .since = 1, .shape = shape_ms_attention, .cost = cost_ms_attention,
     .cost_doc = "QKV projection 2·B·S·In·(q+k+v hidden) + attention core 2·B·H·S·Skv·(Dqk + Dv) matrix "
                "FLOPs; B·S·(q+k+v hidden) bias adds when bias is given + (6, +1 with mask) per score vector "
                "FLOPs"},
    {.name = "QAttention", .domain = MS, .since = 1, .shape = shape_ms_attention, .cost = cost_ms_attention,
     .cost_doc = "as com.microsoft Attention, with int8 projection; + B·S·(q+k+v hidden) vector FLOPs to "
                "dequantize the int32 accumulators (× input_scale·weight_scale)"},
    {.name = "MultiHeadAttention", .domain = MS, .since = 1, .shape = shape_mha, .cost = cost_mha,
     .cost_doc = "2·B·H·Sq·Skv·(Dqk + Dv) matrix FLOPs; B·H·Sq·Skv·(6, +1 with mask/bias) vector FLOPs, + 1 per "
                "Q/K/V element for the bias"},
    {.name = "GroupQueryAttention", .domain = MS, .since = 1, .shape = shape_gqa, .cost = cost_gqa,
     .cost_doc = "2·B·H·S·keys·2·Dh matrix FLOPs; B·H·S·keys·6 vector FLOPs, keys = present_len, at most "
                "local_window_size + 1 with a sliding window (+3 per Q/K element with do_rotary, which reads one "
                "cos/sin cache row per token; without it the caches are not read; +2 per query and head with "
                "head_sink)"},
};
RL_FAMILY(attention, ops);
