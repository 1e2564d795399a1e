/* A GGUF model's decoder as the skeleton of an ONNX graph (the contract is
 * in gguf_decoder.h). The architecture table says what the tensor names
 * cannot: the activation, which layers attend through a sliding window,
 * the norm before the MLP and whether the attention is latent (deepseek2's
 * MLA); everything else is read from the tensors present in each block
 * (biases, per-head Q/K norms, fused QKV, gemma's post-norms, attention
 * sinks, experts and their biases, shared experts), so one builder serves
 * every architecture of the table.
 * Long because it is that one builder: its parts are short functions over
 * one protobuf writer, which a split would have to export to each other. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_decoder.h"
#include "onnx_build.h"
#include "pb_write.h"
#include "reader.h"
#include "storage.h"

#define MAX_BLOCKS 4096
#define MAX_POSITIONS (INT64_C(1) << 24)
#define MS "com.microsoft"


enum activation { ACT_SILU, ACT_GELU };

/* The architectures read, as general.architecture names them. swa_every:
 * in each run of that many blocks all but the last attend through the
 * sliding window (llama.cpp's swa pattern); SWA_ALL: every block, when the
 * file gives a window (a Mistral 7B v0.1 config; llama.cpp's own llama
 * files carry none); 0: none. */
#define SWA_ALL (-1)
typedef struct arch_def {
    const char *name;
    int activation;
    int swa_every;
    const char *ffn_norm; /* the norm before the MLP (NULL: ffn_norm.weight) */
    bool mla;             /* multi-head latent attention (deepseek2) */
} arch_def;

static const arch_def arches[] = {
    {"llama", ACT_SILU, SWA_ALL, NULL, false}, {"qwen2", ACT_SILU, 0, NULL, false},
    {"qwen3", ACT_SILU, 0, NULL, false},       {"qwen2moe", ACT_SILU, 0, NULL, false},
    {"qwen3moe", ACT_SILU, 0, NULL, false},    {"phi3", ACT_SILU, 0, NULL, false},
    {"gemma2", ACT_GELU, 2, NULL, false},      {"gemma3", ACT_GELU, 6, NULL, false},
    /* gpt-oss: its post_attention_norm is the norm before the experts */
    {"gpt-oss", ACT_SILU, 2, "post_attention_norm.weight", false},
    {"deepseek2", ACT_SILU, 0, NULL, true},
};

typedef struct hparams {
    int64_t L, d, H, hd, ctx, E, k, window, V;
    int64_t rank, rope, nope, vdim; /* MLA: kv_lora_rank, the rotary and the other key dims, the value dim */
    const gguf_kv *hkv; /* head_count_kv: a number, or one per block */
    double eps;
} hparams;

typedef struct dec {
    const gguf_file *f;
    const arch_def *a;
    hparams h;
    onnx_graph G;
    bool *placed; /* per tensor: read by a node */
    rl_error *err;
} dec;

/* ------------------------------------------------------------ writing -- */

static void node(dec *D, const char *op, const char *domain, const char *name, const char *const *in, int n_in,
                 const char *const *out, int n_out, const attr *at, int n_at) {
    onnx_node(&D->G, op, domain, name, in, n_in, out, n_out, at, n_at);
}

/* An initializer: dims as ONNX lists them (outermost first), its storage,
 * its exact bytes when the storage alone does not give them (0: it does),
 * and either its payload (a small constant the shapes need) or the
 * reader's mark that the payload is absent. */
static void initializer(dec *D, const char *name, const int64_t *dims, int rank, int dtype, int storage,
                        uint64_t exact_bytes, const void *raw, size_t raw_len) {
    pb_buf *t = onnx_initializer_begin(&D->G, name, dims, rank, dtype);
    if (raw) pb_bytes_field(t, 9, raw, raw_len);
    else pb_varint_field(t, RL_DROP_MARKER_FIELD, 1);
    pb_varint_field(t, RL_STORAGE_FIELD, (uint64_t)storage);
    if (exact_bytes) pb_varint_field(t, RL_BYTES_FIELD, exact_bytes);
    onnx_initializer_end(&D->G);
}

static void int64_const(dec *D, const char *name, const int64_t *v, int n, bool scalar) {
    uint8_t raw[8 * 8];
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 8; k++) raw[8 * i + k] = (uint8_t)((uint64_t)v[i] >> (8 * k));
    int64_t dims[1] = {n};
    initializer(D, name, dims, scalar ? 0 : 1, ONNX_INT64, RL_ST_RUNTIME, 0, raw, (size_t)n * 8);
}

/* A graph input or output: a float16 or int64 tensor, each dim a number or
 * (dims[i] < 0) the symbolic name params[i]. */
static void io(dec *D, int field, const char *name, int dtype, int rank, const int64_t *dims,
               const char *const *params) {
    onnx_io(&D->G, field, name, dtype, rank, dims, params);
}

/* ------------------------------------------------------------ tensors -- */

/* "blk.<layer>.<what>" (layer < 0: "<what>"), or NULL when the file has none. */
static const gguf_tensor *tensor(const dec *D, int layer, const char *what) {
    char name[160];
    if (layer < 0) snprintf(name, sizeof name, "%s", what);
    else snprintf(name, sizeof name, "blk.%d.%s", layer, what);
    return gguf_tensor_find(D->f, name);
}

static const char *place(dec *D, const gguf_tensor *t) {
    D->placed[t - D->f->tensors] = true;
    return t->name;
}

static const gguf_tensor *need(dec *D, int layer, const char *what) {
    const gguf_tensor *t = tensor(D, layer, what);
    if (!t && !D->err->code[0]) {
        char name[160];
        if (layer < 0) snprintf(name, sizeof name, "%s", what);
        else snprintf(name, sizeof name, "blk.%d.%s", layer, what);
        rl_error_set(D->err, "bad_gguf", name,
                     "the %s model has no tensor %s: the file is incomplete or not of this architecture", D->a->name,
                     name);
    }
    return t;
}

/* y = x · Wᵀ (+ bias): W as ggml stores it, [out, in]. */
static void linear(dec *D, const char *x, const gguf_tensor *w, const char *y) {
    static const attr tb[] = {ATTR_I("transB", 1)};
    char bias_name[160], mm[192];
    snprintf(bias_name, sizeof bias_name, "%s", w->name);
    char *dot = strstr(bias_name, ".weight");
    const gguf_tensor *b = NULL;
    if (dot && strcmp(dot, ".weight") == 0) {
        strcpy(dot, ".bias");
        b = gguf_tensor_find(D->f, bias_name);
    }
    snprintf(mm, sizeof mm, "%s/matmul", y);
    const char *in[] = {x, place(D, w)}, *out[] = {b ? mm : y};
    node(D, "FusedMatMul", MS, w->name, in, 2, out, 1, tb, 1);
    if (!b) return;
    const char *add_in[] = {mm, place(D, b)}, *add_out[] = {y};
    node(D, "Add", "", b->name, add_in, 2, add_out, 1, NULL, 0);
}

static void rms_norm(dec *D, const char *x, const gguf_tensor *w, const char *y) {
    const attr at[] = {ATTR_I("axis", -1), ATTR_F("epsilon", (float)D->h.eps)};
    const char *in[] = {x, place(D, w)}, *out[] = {y};
    node(D, "SimplifiedLayerNormalization", "", w->name, in, 2, out, 1, at, 2);
}

/* x + residual, normalized: y, and the sum (the next residual). */
static void skip_norm(dec *D, const char *x, const char *residual, const gguf_tensor *w, const char *y,
                      const char *sum) {
    const attr at[] = {ATTR_F("epsilon", (float)D->h.eps)};
    const char *in[] = {x, residual, place(D, w)}, *out[] = {y, "", "", sum};
    node(D, "SkipSimplifiedLayerNormalization", MS, w->name, in, 3, out, sum ? 4 : 1, at, 1);
}

/* ------------------------------------------------------ hyperparameters -- */

static bool whole(const dec *D, const char *suffix, int64_t lo, int64_t hi, int64_t *out, bool required) {
    double v;
    if (!gguf_arch_num(D->f, D->a->name, suffix, &v)) {
        if (required && !D->err->code[0])
            rl_error_set(D->err, "bad_gguf", suffix, "the file lacks the metadata %s.%s the decoder needs",
                         D->a->name, suffix);
        return false;
    }
    if (!(v >= (double)lo && v <= (double)hi) || v != floor(v)) {
        if (!D->err->code[0])
            rl_error_set(D->err, "bad_gguf", suffix, "metadata %s.%s is %g: a whole number from %lld to %lld was expected",
                         D->a->name, suffix, v, (long long)lo, (long long)hi);
        return false;
    }
    *out = (int64_t)v;
    return true;
}

/* KV heads of block i: one number for all, or an array of one per block. */
static int64_t kv_heads(const dec *D, int i) {
    const gguf_kv *kv = D->h.hkv;
    if (!kv) return D->h.H;
    if (kv->type != GGUF_ARRAY) return (int64_t)kv->num;
    return kv->arr && (int64_t)kv->count == D->h.L ? (int64_t)kv->arr[i] : -1;
}

/* MLA's dims: the latent's rank and the rotary part from the metadata, the
 * other key part and the value's from block 0's attn_k_b and attn_v_b
 * (every block is checked against them as it is built). */
static int read_mla(dec *D) {
    hparams *h = &D->h;
    if (!whole(D, "attention.kv_lora_rank", 1, 65536, &h->rank, true) ||
        !whole(D, "rope.dimension_count", 2, 65536, &h->rope, true))
        return -1;
    const gguf_tensor *kb = tensor(D, 0, "attn_k_b.weight"), *vb = tensor(D, 0, "attn_v_b.weight");
    if (kb && vb) {
        h->nope = kb->ne[0];
        h->vdim = vb->ne[1];
        return 0;
    }
    if (tensor(D, 0, "attn_kv_b.weight"))
        rl_error_set(D->err, "unsupported_architecture", "blk.0.attn_kv_b.weight",
                     "this deepseek2 file is an older conversion (one attn_kv_b a block, a cache of whole keys and "
                     "values), which rooflens does not read: convert the model again with a current llama.cpp, which "
                     "splits it into attn_k_b and attn_v_b");
    else
        need(D, 0, kb ? "attn_v_b.weight" : "attn_k_b.weight");
    return -1;
}

static int read_hparams(dec *D) {
    hparams *h = &D->h;
    const int64_t big = INT64_C(1) << 24;
    if (!whole(D, "block_count", 1, MAX_BLOCKS, &h->L, true) || !whole(D, "embedding_length", 1, big, &h->d, true) ||
        !whole(D, "attention.head_count", 1, 65536, &h->H, true))
        return -1;
    char key[128];
    snprintf(key, sizeof key, "%s.attention.head_count_kv", D->a->name);
    h->hkv = gguf_find(D->f, key);
    h->hd = h->d / h->H;
    if (!whole(D, "attention.key_length", 1, 65536, &h->hd, false) && D->err->code[0]) return -1;
    if (h->hd < 1) { /* no key_length, and fewer embedding dims than heads */
        rl_error_set(D->err, "bad_gguf", "attention.key_length",
                     "the file gives no %s.attention.key_length, and its embedding_length (%lld) is smaller than "
                     "its head_count (%lld), so their quotient is no head dim: the file is corrupted; convert the "
                     "model again with a current llama.cpp",
                     D->a->name, (long long)h->d, (long long)h->H);
        return -1;
    }
    if (!whole(D, "context_length", 1, MAX_POSITIONS, &h->ctx, true)) return -1;
    h->window = 0;
    if (D->a->swa_every &&
        !whole(D, "attention.sliding_window", 1, MAX_POSITIONS, &h->window, D->a->swa_every > 0) && D->err->code[0])
        return -1;
    h->E = h->k = 0;
    if ((!whole(D, "expert_count", 0, 65536, &h->E, false) || !whole(D, "expert_used_count", 0, 65536, &h->k, false)) &&
        D->err->code[0])
        return -1;
    double eps = 1e-6;
    gguf_arch_num(D->f, D->a->name, "attention.layer_norm_rms_epsilon", &eps);
    h->eps = eps > 0 && eps < 1 ? eps : 1e-6;
    for (int i = 0; i < h->L; i++) {
        int64_t n = kv_heads(D, i);
        if (n < 1 || n > h->H || h->H % n) {
            rl_error_set(D->err, "bad_gguf", "attention.head_count_kv",
                         "block %d has %lld KV heads for %lld query heads: they must divide them", i, (long long)n,
                         (long long)h->H);
            return -1;
        }
    }
    if (D->a->mla && read_mla(D)) return -1;
    const gguf_tensor *emb = need(D, -1, "token_embd.weight");
    if (!emb) return -1;
    h->V = emb->n_dims == 2 ? emb->ne[1] : -1;
    if (emb->ne[0] != h->d || h->V < 1) {
        rl_error_set(D->err, "bad_gguf", "token_embd.weight",
                     "token_embd.weight is not [vocabulary, %lld]: its shape contradicts the embedding length",
                     (long long)h->d);
        return -1;
    }
    if (h->E > 0 && (h->k < 1 || h->k > h->E)) {
        rl_error_set(D->err, "bad_gguf", "expert_used_count", "%lld of %lld experts used per token: 1 to %lld expected",
                     (long long)h->k, (long long)h->E, (long long)h->E);
        return -1;
    }
    return 0;
}

/* --------------------------------------------------------------- blocks -- */

/* Per-head RMS norm of a projection (qwen3's attn_q_norm, attn_k_norm):
 * over [.., heads, head_dim], then back to [.., heads·head_dim]. */
static void head_norm(dec *D, int i, const char *x, const gguf_tensor *w, int64_t heads, const char *y) {
    char shape4[64], shape3[64], x4[192], n4[192];
    snprintf(shape4, sizeof shape4, "/blk.%d/%s/heads", i, w->name);
    snprintf(shape3, sizeof shape3, "/blk.%d/%s/flat", i, w->name);
    int64_t s4[] = {0, 0, heads, D->h.hd}, s3[] = {0, 0, heads * D->h.hd};
    int64_const(D, shape4, s4, 4, false);
    int64_const(D, shape3, s3, 3, false);
    snprintf(x4, sizeof x4, "%s/heads", y);
    snprintf(n4, sizeof n4, "%s/normed", y);
    const char *in1[] = {x, shape4}, *out1[] = {x4};
    node(D, "Reshape", "", x4, in1, 2, out1, 1, NULL, 0);
    rms_norm(D, x4, w, n4);
    const char *in2[] = {n4, shape3}, *out2[] = {y};
    node(D, "Reshape", "", y, in2, 2, out2, 1, NULL, 0);
}

/* The projections of block i: q, k and v (k and v "" when one fused QKV
 * tensor packs them into q). */
static void projections(dec *D, int i, const char *h, char *q, char *k, char *v, size_t cap) {
    snprintf(q, cap, "/blk.%d/q", i);
    const gguf_tensor *qkv = tensor(D, i, "attn_qkv.weight");
    if (qkv) {
        linear(D, h, qkv, q);
        k[0] = v[0] = 0;
        return;
    }
    const gguf_tensor *wq = need(D, i, "attn_q.weight"), *wk = need(D, i, "attn_k.weight"),
                      *wv = need(D, i, "attn_v.weight");
    if (!wq || !wk || !wv) return;
    snprintf(k, cap, "/blk.%d/k", i);
    snprintf(v, cap, "/blk.%d/v", i);
    char raw_q[64], raw_k[64];
    const gguf_tensor *qn = tensor(D, i, "attn_q_norm.weight"), *kn = tensor(D, i, "attn_k_norm.weight");
    snprintf(raw_q, sizeof raw_q, "/blk.%d/q_raw", i);
    snprintf(raw_k, sizeof raw_k, "/blk.%d/k_raw", i);
    linear(D, h, wq, qn ? raw_q : q);
    linear(D, h, wk, kn ? raw_k : k);
    linear(D, h, wv, v);
    if (qn) head_norm(D, i, raw_q, qn, D->h.H, q);
    if (kn) head_norm(D, i, raw_k, kn, kv_heads(D, i), k);
}

/* Attention of block i over its KV cache, with rotary positions; the
 * output projection (and gemma's post-attention norm) into y. */
static void attention(dec *D, int i, const char *h, const char *y) {
    char q[64], k[64], v[64], pk[64], pv[64], nk[64], nv[64], a[64], o[64];
    projections(D, i, h, q, k, v, sizeof q);
    const gguf_tensor *wo = need(D, i, "attn_output.weight");
    if (!wo) return;
    snprintf(pk, sizeof pk, "past_key_values.%d.key", i);
    snprintf(pv, sizeof pv, "past_key_values.%d.value", i);
    snprintf(nk, sizeof nk, "present.%d.key", i);
    snprintf(nv, sizeof nv, "present.%d.value", i);
    snprintf(a, sizeof a, "/blk.%d/attn", i);
    /* a window of W tokens: the query and the W - 1 keys before it, as llama.cpp masks it */
    int every = D->a->swa_every;
    bool swa = D->h.window > 0 && (every == SWA_ALL || (every > 0 && i % every < every - 1));
    const attr at[] = {ATTR_I("num_heads", D->h.H),
                       ATTR_I("kv_num_heads", kv_heads(D, i)),
                       ATTR_I("do_rotary", 1),
                       ATTR_F("scale", (float)(1.0 / sqrt((double)D->h.hd))),
                       ATTR_I("local_window_size", swa ? D->h.window - 1 : -1)};
    /* gpt-oss's attention sinks: a learned logit per head in each softmax (GQA's head_sink) */
    const gguf_tensor *sinks = tensor(D, i, "attn_sinks.weight");
    const char *in[] = {q, k[0] ? k : "", v[0] ? v : "", pk, pv, "seqlens_k", "total_sequence_length_i32",
                        "cos_cache", "sin_cache", "", "", sinks ? place(D, sinks) : ""};
    const char *out[] = {a, nk, nv};
    char name[64];
    snprintf(name, sizeof name, "/blk.%d/attention", i);
    node(D, "GroupQueryAttention", MS, name, in, sinks ? 12 : 9, out, 3, at, 5);
    const gguf_tensor *post = D->a->ffn_norm ? NULL : tensor(D, i, "post_attention_norm.weight");
    snprintf(o, sizeof o, "/blk.%d/attn_output", i);
    linear(D, a, wo, post ? o : y);
    if (post) rms_norm(D, o, post, y);
}

/* ------------------------------------------------ latent attention (MLA) -- */

static void reshape(dec *D, const char *x, const int64_t *shape, int rank, const char *y) {
    char name[112];
    snprintf(name, sizeof name, "%s/shape", y);
    int64_const(D, name, shape, rank, false);
    const char *in[] = {x, name}, *out[] = {y};
    node(D, "Reshape", "", y, in, 2, out, 1, NULL, 0);
}

/* [a, b, c, d] -> [a, c, b, d]: a Transpose. */
static void swap_middle(dec *D, const char *x, const char *y) {
    static const int64_t order[] = {0, 2, 1, 3};
    const attr perm[] = {ATTR_IS("perm", order, 4)};
    const char *in[] = {x}, *out[] = {y};
    node(D, "Transpose", "", y, in, 1, out, 1, perm, 1);
}

/* x split on its last axis into a (first `na` elements) and b (the rest). */
static void split_last(dec *D, const char *x, int64_t na, int64_t nb, const char *a, const char *b) {
    static const attr axis[] = {ATTR_I("axis", -1)};
    char sizes[112];
    snprintf(sizes, sizeof sizes, "%s/sizes", a);
    const int64_t v[] = {na, nb};
    int64_const(D, sizes, v, 2, false);
    const char *in[] = {x, sizes}, *out[] = {a, b};
    node(D, "Split", "", a, in, 2, out, 2, axis, 1);
}

static void concat_last(dec *D, const char *a, const char *b, const char *y) {
    static const attr axis[] = {ATTR_I("axis", -1)};
    const char *in[] = {a, b}, *out[] = {y};
    node(D, "Concat", "", y, in, 2, out, 1, axis, 1);
}

/* Rotary positions on x ([B, heads, S, rope], or [B, S, rope] for one head). */
static void rotary(dec *D, const char *x, const char *y) {
    static const attr one_head[] = {ATTR_I("num_heads", 1)};
    const char *in[] = {x, "position_ids", "cos_cache", "sin_cache"}, *out[] = {y};
    node(D, "RotaryEmbedding", MS, y, in, 4, out, 1, one_head, 1);
}

/* t's shape is [ne0, ne1, ne2] (ggml's order), or the error says so. */
static bool shaped(dec *D, const gguf_tensor *t, int64_t ne0, int64_t ne1, int64_t ne2) {
    if (!t) return false;
    if (t->ne[0] == ne0 && t->ne[1] == ne1 && t->ne[2] == ne2 && t->ne[3] == 1) return true;
    if (!D->err->code[0])
        rl_error_set(D->err, "bad_gguf", t->name,
                     "%s is [%lld, %lld, %lld]; the metadata (kv_lora_rank %lld, rope %lld, %lld heads) and block 0 "
                     "make it [%lld, %lld, %lld]",
                     t->name, (long long)t->ne[0], (long long)t->ne[1], (long long)t->ne[2], (long long)D->h.rank,
                     (long long)D->h.rope, (long long)D->h.H, (long long)ne0, (long long)ne1, (long long)ne2);
    return false;
}

/* The query of block i, [B, H, S, rank + rope]: its other part absorbed
 * into the latent by attn_k_b, its rotary part rotated. */
static void mla_query(dec *D, int i, const char *h, const char *qf) {
    const hparams *P = &D->h;
    char q[64], qa[64], qan[64], qh[64], qt[64], qn[64], qp[64], qpr[64], ql[64];
    snprintf(q, sizeof q, "/blk.%d/q", i);
    const gguf_tensor *wqa = tensor(D, i, "attn_q_a.weight");
    if (wqa) { /* the query through its own low-rank pair (q_lora_rank) */
        snprintf(qa, sizeof qa, "/blk.%d/q_a", i);
        snprintf(qan, sizeof qan, "/blk.%d/q_a_norm", i);
        const gguf_tensor *n = need(D, i, "attn_q_a_norm.weight"), *wqb = need(D, i, "attn_q_b.weight");
        if (!n || !wqb) return;
        linear(D, h, wqa, qa);
        rms_norm(D, qa, n, qan);
        linear(D, qan, wqb, q);
    } else {
        const gguf_tensor *wq = need(D, i, "attn_q.weight");
        if (!wq) return;
        linear(D, h, wq, q);
    }
    const gguf_tensor *kb = need(D, i, "attn_k_b.weight");
    if (!shaped(D, kb, P->nope, P->rank, P->H)) return;
    snprintf(qh, sizeof qh, "/blk.%d/q_heads", i);
    snprintf(qt, sizeof qt, "/blk.%d/q_by_head", i);
    snprintf(qn, sizeof qn, "/blk.%d/q_nope", i);
    snprintf(qp, sizeof qp, "/blk.%d/q_pe", i);
    snprintf(qpr, sizeof qpr, "/blk.%d/q_pe_rotated", i);
    snprintf(ql, sizeof ql, "/blk.%d/q_latent", i);
    const int64_t heads[] = {0, 0, P->H, P->nope + P->rope};
    reshape(D, q, heads, 4, qh);
    swap_middle(D, qh, qt);
    split_last(D, qt, P->nope, P->rope, qn, qp);
    rotary(D, qp, qpr);
    linear(D, qn, kb, ql); /* per head: [B, H, S, nope] · [H, rank, nope]ᵀ */
    concat_last(D, ql, qpr, qf);
}

/* Block i's multi-head latent attention (deepseek2) as llama.cpp runs it:
 * the cache keeps, per token and block, one latent of kv_lora_rank and the
 * rotary key (attn_kv_a_mqa's output, normed and rotated) that every head
 * shares; the attention is an MQA over it, keys rank + rope and values the
 * latent's rank; attn_v_b maps each head's output to the value dim. */
static void mla_attention(dec *D, int i, const char *h, const char *y) {
    const hparams *P = &D->h;
    char qf[64], kva[64], c[64], kpe[64], cn[64], kper[64], knew[64], k4[64], v4[64], att[64], vo[64], vt[64],
        flat[64], past[64], present[64], name[64];
    snprintf(qf, sizeof qf, "/blk.%d/q_full", i);
    mla_query(D, i, h, qf);
    const gguf_tensor *kva_w = need(D, i, "attn_kv_a_mqa.weight"), *kvn = need(D, i, "attn_kv_a_norm.weight"),
                      *vb = need(D, i, "attn_v_b.weight"), *wo = need(D, i, "attn_output.weight");
    if (D->err->code[0] || !shaped(D, kva_w, D->h.d, P->rank + P->rope, 1) || !shaped(D, vb, P->rank, P->vdim, P->H))
        return;
    snprintf(kva, sizeof kva, "/blk.%d/kv_a", i);
    snprintf(c, sizeof c, "/blk.%d/latent_raw", i);
    snprintf(kpe, sizeof kpe, "/blk.%d/k_pe", i);
    snprintf(cn, sizeof cn, "/blk.%d/latent", i);
    snprintf(kper, sizeof kper, "/blk.%d/k_pe_rotated", i);
    snprintf(knew, sizeof knew, "/blk.%d/k_latent", i);
    snprintf(k4, sizeof k4, "/blk.%d/k_latent_heads", i);
    snprintf(v4, sizeof v4, "/blk.%d/v_latent_heads", i);
    linear(D, h, kva_w, kva);
    split_last(D, kva, P->rank, P->rope, c, kpe);
    rms_norm(D, c, kvn, cn);
    rotary(D, kpe, kper);
    concat_last(D, cn, kper, knew);
    const int64_t k_shape[] = {0, 1, -1, P->rank + P->rope}, v_shape[] = {0, 1, -1, P->rank};
    reshape(D, knew, k_shape, 4, k4);
    reshape(D, cn, v_shape, 4, v4);
    snprintf(past, sizeof past, "past_key_values.%d.latent", i);
    snprintf(present, sizeof present, "present.%d.latent", i);
    snprintf(att, sizeof att, "/blk.%d/attn", i);
    snprintf(name, sizeof name, "/blk.%d/attention", i);
    const attr at[] = {ATTR_F("scale", (float)(1.0 / sqrt((double)(P->nope + P->rope))))};
    const char *in[] = {qf, k4, v4, "", past, ""}, *out[] = {att, present};
    node(D, "Attention", "", name, in, 6, out, 2, at, 1);
    snprintf(vo, sizeof vo, "/blk.%d/v_heads", i);
    snprintf(vt, sizeof vt, "/blk.%d/v_by_token", i);
    snprintf(flat, sizeof flat, "/blk.%d/v", i);
    linear(D, att, vb, vo); /* per head: [B, H, S, rank] · [H, v, rank]ᵀ */
    swap_middle(D, vo, vt);
    const int64_t flat_shape[] = {0, 0, P->H * P->vdim};
    reshape(D, vt, flat_shape, 3, flat);
    linear(D, flat, wo, y);
}

/* act(gate) · up, then down: the gated MLP of block i (experts' shared
 * MLP when suffix is "_shexp"); phi3 packs gate and up in one ffn_up. */
static void mlp(dec *D, int i, const char *x, const char *suffix, const char *y) {
    char wname[64], g[96], u[96], gu[96], act[112], sig[112], prod[112];
    snprintf(wname, sizeof wname, "ffn_up%s.weight", suffix);
    const gguf_tensor *up = need(D, i, wname), *gate, *down;
    snprintf(wname, sizeof wname, "ffn_gate%s.weight", suffix);
    gate = tensor(D, i, wname);
    snprintf(wname, sizeof wname, "ffn_down%s.weight", suffix);
    down = need(D, i, wname);
    if (!up || !down) return;
    snprintf(g, sizeof g, "/blk.%d/ffn_gate%s", i, suffix);
    snprintf(u, sizeof u, "/blk.%d/ffn_up%s", i, suffix);
    if (gate) {
        linear(D, x, gate, g);
        linear(D, x, up, u);
    } else {
        static const attr split[] = {ATTR_I("axis", -1), ATTR_I("num_outputs", 2)};
        snprintf(gu, sizeof gu, "/blk.%d/ffn_gate_up%s", i, suffix);
        linear(D, x, up, gu);
        const char *in[] = {gu}, *out[] = {g, u};
        node(D, "Split", "", gu, in, 1, out, 2, split, 2);
    }
    snprintf(act, sizeof act, "%s/act", g);
    if (D->a->activation == ACT_GELU) {
        static const attr tanh_approx[] = {ATTR_S("approximate", "tanh")};
        const char *in[] = {g}, *out[] = {act};
        node(D, "Gelu", "", act, in, 1, out, 1, tanh_approx, 1);
    } else {
        snprintf(sig, sizeof sig, "%s/sigmoid", g);
        const char *in[] = {g}, *out[] = {sig}, *in2[] = {g, sig}, *out2[] = {act};
        node(D, "Sigmoid", "", sig, in, 1, out, 1, NULL, 0);
        node(D, "Mul", "", act, in2, 2, out2, 1, NULL, 0);
    }
    snprintf(prod, sizeof prod, "%s/gated", g);
    const char *in3[] = {act, u}, *out3[] = {prod};
    node(D, "Mul", "", prod, in3, 2, out3, 1, NULL, 0);
    linear(D, prod, down, y);
}

/* The router and the experts of block i (com.microsoft MoE: the top k of E
 * experts per token, gate, up and down matrices), plus the shared experts'
 * MLP when the block has one. */
static void experts(dec *D, int i, const char *x, const gguf_tensor *router, const char *y) {
    const gguf_tensor *gate = need(D, i, "ffn_gate_exps.weight"), *up = need(D, i, "ffn_up_exps.weight"),
                      *down = need(D, i, "ffn_down_exps.weight");
    if (!gate || !up || !down) return;
    char logits[64], probs[64], shape[64], moe[64], shared[64];
    snprintf(logits, sizeof logits, "/blk.%d/router", i);
    snprintf(probs, sizeof probs, "/blk.%d/router_rows", i);
    snprintf(shape, sizeof shape, "/blk.%d/router_shape", i);
    snprintf(moe, sizeof moe, "/blk.%d/experts", i);
    snprintf(shared, sizeof shared, "/blk.%d/shared_experts", i);
    linear(D, x, router, logits);
    int64_t rows[] = {-1, D->h.E};
    int64_const(D, shape, rows, 2, false);
    const char *rin[] = {logits, shape}, *rout[] = {probs};
    node(D, "Reshape", "", probs, rin, 2, rout, 1, NULL, 0);
    const attr at[] = {ATTR_I("k", D->h.k),
                       ATTR_S("activation_type", "silu"),
                       ATTR_I("normalize_routing_weights", 1)};
    bool has_shared = tensor(D, i, "ffn_up_shexp.weight") != NULL;
    /* gpt-oss's experts have biases ([ff, E] and [d, E]) */
    const gguf_tensor *bg = tensor(D, i, "ffn_gate_exps.bias"), *bd = tensor(D, i, "ffn_down_exps.bias"),
                      *bu = tensor(D, i, "ffn_up_exps.bias");
    const char *in[] = {x, probs, place(D, gate), bg ? place(D, bg) : "", place(D, down), bd ? place(D, bd) : "",
                        place(D, up), bu ? place(D, bu) : ""};
    const char *out[] = {has_shared ? moe : y};
    node(D, "MoE", MS, moe, in, bu ? 8 : 7, out, 1, at, 3);
    if (!has_shared) return;
    mlp(D, i, x, "_shexp", shared);
    const char *ain[] = {moe, shared}, *aout[] = {y};
    node(D, "Add", "", y, ain, 2, aout, 1, NULL, 0);
}

/* Block i: x in, y out; *residual names the running sum (NULL before the
 * first block, which normalizes x alone). */
static void block(dec *D, int i, const char *x, char *residual, size_t cap, const char *y) {
    char h[64], a[64], h2[64], sum1[64], sum2[64], f[64];
    snprintf(h, sizeof h, "/blk.%d/attn_norm", i);
    snprintf(sum1, sizeof sum1, "/blk.%d/residual_attn", i);
    snprintf(sum2, sizeof sum2, "/blk.%d/residual_ffn", i);
    snprintf(a, sizeof a, "/blk.%d/attn_out", i);
    snprintf(h2, sizeof h2, "/blk.%d/ffn_norm", i);
    snprintf(f, sizeof f, "/blk.%d/ffn_out", i);
    const gguf_tensor *n1 = need(D, i, "attn_norm.weight");
    if (!n1) return;
    if (!residual[0]) {
        rms_norm(D, x, n1, h);
        snprintf(residual, cap, "%s", x);
    } else {
        skip_norm(D, x, residual, n1, h, sum1);
        snprintf(residual, cap, "%s", sum1);
    }
    if (D->a->mla) mla_attention(D, i, h, a);
    else attention(D, i, h, a);
    if (D->err->code[0]) return;
    const gguf_tensor *n2 = need(D, i, D->a->ffn_norm ? D->a->ffn_norm : "ffn_norm.weight");
    if (!n2) return;
    skip_norm(D, a, residual, n2, h2, sum2);
    snprintf(residual, cap, "%s", sum2);
    const gguf_tensor *router = tensor(D, i, "ffn_gate_inp.weight");
    const gguf_tensor *post = tensor(D, i, "post_ffw_norm.weight");
    if (router && D->h.E < 1) {
        rl_error_set(D->err, "bad_gguf", router->name, "block %d has a router but the metadata gives no expert_count", i);
        return;
    }
    if (router) experts(D, i, h2, router, post ? f : y);
    else mlp(D, i, h2, "", post ? f : y);
    if (post) rms_norm(D, f, post, y);
}

/* ------------------------------------------------------------- the graph -- */

/* The embedding, and what GroupQueryAttention reads of the mask: the
 * sequence lengths and the total length, as ONNX Runtime GenAI computes them. */
static void prologue(dec *D, const char *x) {
    static const attr keep0[] = {ATTR_I("keepdims", 0)};
    static const attr axis0[] = {ATTR_I("axis", 0)};
    static const attr to_i32[] = {ATTR_I("to", 6)};
    int64_t one = 1;
    int64_const(D, "/const/axes_1", &one, 1, false);
    int64_const(D, "/const/one", &one, 1, true);
    const gguf_tensor *emb = tensor(D, -1, "token_embd.weight");
    const char *gin[] = {place(D, emb), "input_ids"}, *gout[] = {x};
    node(D, "Gather", "", "token_embd", gin, 2, gout, 1, NULL, 0);
    const char *in1[] = {"attention_mask", "/const/axes_1"}, *out1[] = {"/mask/sum"};
    node(D, "ReduceSum", "", "/mask/sum", in1, 2, out1, 1, keep0, 1);
    const char *in2[] = {"/mask/sum", "/const/one"}, *out2[] = {"/mask/last"};
    node(D, "Sub", "", "/mask/last", in2, 2, out2, 1, NULL, 0);
    const char *in3[] = {"/mask/last"}, *out3[] = {"seqlens_k"};
    node(D, "Cast", "", "seqlens_k", in3, 1, out3, 1, to_i32, 1);
    const char *in4[] = {"attention_mask"}, *out4[] = {"/mask/shape"};
    node(D, "Shape", "", "/mask/shape", in4, 1, out4, 1, NULL, 0);
    const char *in5[] = {"/mask/shape", "/const/one"}, *out5[] = {"/mask/total"};
    node(D, "Gather", "", "/mask/total", in5, 2, out5, 1, axis0, 1);
    const char *in6[] = {"/mask/total"}, *out6[] = {"total_sequence_length_i32"};
    node(D, "Cast", "", "total_sequence_length_i32", in6, 1, out6, 1, to_i32, 1);
    /* llama.cpp computes the rotation in its kernel: the tables are not in the file */
    int64_t rot = D->h.hd;
    double r;
    if (gguf_arch_num(D->f, D->a->name, "rope.dimension_count", &r) && r >= 2 && r <= (double)D->h.hd) rot = (int64_t)r;
    int64_t dims[] = {D->h.ctx, rot / 2};
    initializer(D, "cos_cache", dims, 2, ONNX_FLOAT16, RL_ST_RUNTIME, 0, NULL, 0);
    initializer(D, "sin_cache", dims, 2, ONNX_FLOAT16, RL_ST_RUNTIME, 0, NULL, 0);
}

static void epilogue(dec *D, const char *x, const char *residual) {
    const gguf_tensor *n = need(D, -1, "output_norm.weight");
    if (!n) return;
    skip_norm(D, x, residual, n, "final_norm", NULL);
    const gguf_tensor *head = tensor(D, -1, "output.weight");
    linear(D, "final_norm", head ? head : tensor(D, -1, "token_embd.weight"), "logits");
}

static void inputs_outputs(dec *D) {
    static const char *const tok[] = {"batch_size", "sequence_length"};
    static const char *const mask[] = {"batch_size", "total_sequence_length"};
    static const char *const logit_p[] = {"batch_size", "sequence_length", NULL};
    static const char *const past_p[] = {"batch_size", NULL, "past_sequence_length", NULL};
    static const char *const present_p[] = {"batch_size", NULL, "total_sequence_length", NULL};
    const int64_t open2[] = {-1, -1}, logit_d[] = {-1, -1, D->h.V};
    io(D, 11, "input_ids", ONNX_INT64, 2, open2, tok);
    io(D, 11, "attention_mask", ONNX_INT64, 2, open2, mask);
    io(D, 12, "logits", ONNX_FLOAT16, 3, logit_d, logit_p);
    char name[64];
    if (D->a->mla) { /* one latent cache a block, and the positions the rotations need */
        io(D, 11, "position_ids", ONNX_INT64, 2, open2, tok);
        for (int i = 0; i < D->h.L; i++) {
            const int64_t cache[] = {-1, 1, -1, D->h.rank + D->h.rope};
            snprintf(name, sizeof name, "past_key_values.%d.latent", i);
            io(D, 11, name, ONNX_FLOAT16, 4, cache, past_p);
            snprintf(name, sizeof name, "present.%d.latent", i);
            io(D, 12, name, ONNX_FLOAT16, 4, cache, present_p);
        }
        return;
    }
    for (int i = 0; i < D->h.L; i++) {
        const int64_t cache[] = {-1, kv_heads(D, i), -1, D->h.hd};
        for (int kv = 0; kv < 2; kv++) {
            snprintf(name, sizeof name, "past_key_values.%d.%s", i, kv ? "value" : "key");
            io(D, 11, name, ONNX_FLOAT16, 4, cache, past_p);
            snprintf(name, sizeof name, "present.%d.%s", i, kv ? "value" : "key");
            io(D, 12, name, ONNX_FLOAT16, 4, cache, present_p);
        }
    }
}

/* Every tensor of the file, once, as an initializer of its storage; the
 * doc string names those no node reads. */
static void weights(dec *D) {
    char doc[1024];
    size_t used = D->f->checkpoint
                      ? (size_t)snprintf(doc, sizeof doc,
                                         "Decoder of a Hugging Face checkpoint (architecture %s): %s.", D->a->name,
                                         D->f->checkpoint)
                  : D->f->from_config
                      ? (size_t)snprintf(doc, sizeof doc,
                                         "Decoder of a Hugging Face config.json (architecture %s): no weights file "
                                         "read, every weight sized from the config at its dtype %s.",
                                         D->a->name, D->f->from_config)
                      : (size_t)snprintf(doc, sizeof doc, "Decoder of a GGUF file (architecture %s).", D->a->name);
    int unplaced = 0;
    for (uint64_t i = 0; i < D->f->n_tensors; i++) {
        const gguf_tensor *t = &D->f->tensors[i];
        int64_t dims[GGUF_MAX_DIMS];
        for (int k = 0; k < t->n_dims; k++) dims[k] = t->ne[t->n_dims - 1 - k];
        /* a checkpoint's weight with scales of its own: its bytes are the file's, not the table's */
        double table = rl_storage_bytes(t->storage, (double)t->elements);
        initializer(D, t->name, dims, t->n_dims, ONNX_FLOAT16, t->storage,
                    t->bytes && (double)t->bytes != table ? t->bytes : 0, NULL, 0);
        if (D->placed[i]) continue;
        if (used < sizeof doc - 1)
            used += (size_t)snprintf(doc + used, sizeof doc - used, "%s%s", unplaced ? ", " : " Tensors no layer reads: ",
                                     t->name);
        unplaced++;
    }
    pb_str_field(&D->G.graph, 10, doc);
}

static void build(dec *D) {
    char residual[64] = "", x[64] = "/embed", y[64];
    prologue(D, x);
    for (int i = 0; i < D->h.L && !D->err->code[0]; i++) {
        snprintf(y, sizeof y, "/blk.%d/out", i);
        block(D, i, x, residual, sizeof residual, y);
        snprintf(x, sizeof x, "%s", y);
    }
    if (!D->err->code[0]) epilogue(D, x, residual);
    if (D->err->code[0]) return;
    weights(D);
    inputs_outputs(D);
    const char *name = gguf_str(D->f, "general.name");
    char label[320];
    /* a model sized from its config says so wherever its name is shown */
    if (D->f->from_config)
        snprintf(label, sizeof label, "%s from config.json (no weights read: sized at %s)", D->a->name, D->f->from_config);
    else if (D->f->checkpoint) /* what was read, wherever the name is shown */
        snprintf(label, sizeof label, "%s safetensors checkpoint (%s)", D->a->name, D->f->checkpoint);
    bool labelled = D->f->from_config || D->f->checkpoint;
    pb_str_field(&D->G.graph, 2, labelled ? label : name && name[0] ? name : D->a->name);
}

static const arch_def *find_arch(const gguf_file *f, rl_error *err) {
    const char *arch = gguf_str(f, "general.architecture");
    for (size_t i = 0; arch && i < sizeof arches / sizeof arches[0]; i++)
        if (strcmp(arches[i].name, arch) == 0) return &arches[i];
    char list[256] = "";
    for (size_t i = 0; i < sizeof arches / sizeof arches[0]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", arches[i].name);
    if (!arch)
        rl_error_set(err, "bad_gguf", "general.architecture",
                     "the GGUF file names no general.architecture: rooflens cannot tell how its tensors connect");
    else
        rl_error_set(err, "unsupported_architecture", "general.architecture",
                     "the GGUF architecture '%.100s' is not read yet; rooflens reads %s", arch, list);
    return NULL;
}

uint8_t *gguf_decoder_skeleton(const gguf_file *f, size_t *len, uint64_t *nodes, rl_error *err) {
    dec D = {.f = f, .err = err};
    if (!(D.a = find_arch(f, err))) return NULL;
    D.placed = calloc((size_t)f->n_tensors + 1, 1);
    if (!D.placed || read_hparams(&D) == 0) build(&D);
    if (!D.placed) rl_error_set(err, "out_of_memory", "GGUF file", "out of memory building the decoder");
    pb_buf model = {0};
    if (!err->code[0]) {
        pb_varint_field(&model, 1, 8);
        pb_str_field(&model, 2, f->checkpoint ? "safetensors checkpoint" : f->from_config ? "config.json (no weights read)" : "GGUF");
        char v[256];
        if (f->checkpoint) snprintf(v, sizeof v, "%s", f->checkpoint);
        else if (f->from_config) snprintf(v, sizeof v, "weights sized at %s", f->from_config);
        else snprintf(v, sizeof v, "version %u", f->version);
        pb_str_field(&model, 3, v);
        pb_msg_field(&model, 7, &D.G.graph);
        pb_buf op = {0};
        pb_str_field(&op, 1, "");
        pb_varint_field(&op, 2, D.a->mla ? 23 : 21); /* MLA: ONNX Attention (23), keys and values of two widths */
        pb_msg_field(&model, 8, &op);
        pb_str_field(&op, 1, MS);
        pb_varint_field(&op, 2, 1);
        pb_msg_field(&model, 8, &op);
        pb_free(&op);
    }
    bool oom = model.oom || onnx_graph_oom(&D.G);
    onnx_graph_free(&D.G);
    free(D.placed);
    if (oom && !err->code[0]) rl_error_set(err, "out_of_memory", "GGUF file", "out of memory building the decoder");
    if (err->code[0]) {
        pb_free(&model);
        return NULL;
    }
    *len = model.n;
    *nodes = D.G.nodes;
    return model.p;
}
