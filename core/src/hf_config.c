/* A Hugging Face config.json as the tensors its checkpoint would hold
 * (hf_config.h): the one table below maps each model_type to the llama.cpp
 * architecture whose decoder it is and says what the config does not (qkv
 * biases, per-head Q/K norms, gemma's extra norms, tied embeddings by
 * default); the hyperparameters give the shapes. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_decoder.h"
#include "hf_config.h"
#include "storage.h"

/* moe: how the checkpoint names the experts (Mixtral's block_sparse_moe
 * with w1, w3, w2, or Qwen's mlp.experts with gate_proj, up_proj, down_proj). */
enum { MOE_NONE, MOE_MIXTRAL, MOE_QWEN };

typedef struct hf_arch {
    const char *model_type; /* config.json's */
    const char *arch;       /* llama.cpp's general.architecture */
    bool qkv_bias, qk_norm, post_norms, fused, tied_default;
    bool any_window; /* sliding_window, when not null, on every layer (Mistral 7B v0.1) */
    int moe;
} hf_arch;

static const hf_arch hf_arches[] = {
    {"llama", "llama", false, false, false, false, false, false, MOE_NONE},
    {"mistral", "llama", false, false, false, false, false, true, MOE_NONE},
    {"mixtral", "llama", false, false, false, false, false, false, MOE_MIXTRAL},
    {"qwen2", "qwen2", true, false, false, false, false, false, MOE_NONE},
    {"qwen2_moe", "qwen2moe", true, false, false, false, false, false, MOE_QWEN},
    {"qwen3", "qwen3", false, true, false, false, false, false, MOE_NONE},
    {"qwen3_moe", "qwen3moe", false, true, false, false, false, false, MOE_QWEN},
    {"phi3", "phi3", false, false, false, true, false, false, MOE_NONE},
    {"gemma2", "gemma2", false, false, true, false, true, false, MOE_NONE},
    {"gemma3_text", "gemma3", false, true, true, false, true, false, MOE_NONE},
    {"gemma3", "gemma3", false, true, true, false, true, false, MOE_NONE},
};

static const struct {
    const char *torch, *name;
    int storage;
} dtypes[] = {{"bfloat16", "bfloat16", RL_ST_BF16}, {"float16", "float16", RL_ST_F16}, {"float32", "float32", RL_ST_F32}};

typedef struct hf {
    const cJSON *c; /* the config (gemma3's text_config when nested) */
    const hf_arch *a;
    int storage;
    int64_t L, d, H, Hkv, hd, ff, V, ctx, E, k, ff_moe, ff_shared, window;
    bool tied;
    gguf_file f;
    char **source; /* per tensor: its name in the checkpoint (hf_model) */
    size_t kv_cap, t_cap;
    rl_error *err;
} hf;

static char *copy(const char *s) {
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c) memcpy(c, s, n);
    return c;
}

bool hf_config_magic(const uint8_t *p, size_t n) { return n >= 1 && p[0] == '{'; }

/* A whole number of the config, within [lo, hi]; `fallback` when absent
 * (-1: required). */
static int64_t whole(hf *h, const char *key, int64_t lo, int64_t hi, int64_t fallback) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(h->c, key);
    if (!v || cJSON_IsNull(v)) {
        if (fallback < 0 && !h->err->code[0])
            rl_error_set(h->err, "bad_config", key, "config.json gives no %s, which the decoder's shape needs", key);
        return fallback;
    }
    double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!(x >= (double)lo && x <= (double)hi) || x != floor(x)) {
        if (!h->err->code[0])
            rl_error_set(h->err, "bad_config", key, "config.json's %s must be a whole number from %lld to %lld", key,
                         (long long)lo, (long long)hi);
        return -1;
    }
    return (int64_t)x;
}

static void add_num(hf *h, const char *suffix, double v) {
    if (h->f.n_kv >= h->kv_cap) {
        size_t cap = h->kv_cap ? h->kv_cap * 2 : 32;
        gguf_kv *kv = realloc(h->f.kv, cap * sizeof *kv);
        if (!kv) {
            rl_error_set(h->err, "out_of_memory", "config.json", "out of memory reading config.json");
            return;
        }
        memset(kv + h->kv_cap, 0, (cap - h->kv_cap) * sizeof *kv);
        h->f.kv = kv;
        h->kv_cap = cap;
    }
    gguf_kv *kv = &h->f.kv[h->f.n_kv];
    char key[128];
    snprintf(key, sizeof key, "%s%s%s", suffix[0] == '!' ? "" : h->a->arch, suffix[0] == '!' ? "" : ".",
             suffix + (suffix[0] == '!'));
    kv->key = copy(key);
    kv->type = GGUF_F64;
    kv->num = v;
    if (!kv->key) rl_error_set(h->err, "out_of_memory", "config.json", "out of memory reading config.json");
    h->f.n_kv++;
}

static bool grow_tensors(hf *h) {
    size_t cap = h->t_cap ? h->t_cap * 2 : 256;
    gguf_tensor *t = realloc(h->f.tensors, cap * sizeof *t);
    if (t) {
        memset(t + h->t_cap, 0, (cap - h->t_cap) * sizeof *t);
        h->f.tensors = t;
    }
    char **src = t ? realloc(h->source, cap * sizeof *src) : NULL;
    if (!src) {
        rl_error_set(h->err, "out_of_memory", "config.json", "out of memory reading config.json");
        return false;
    }
    memset(src + h->t_cap, 0, (cap - h->t_cap) * sizeof *src);
    h->source = src;
    h->t_cap = cap;
    return true;
}

/* A tensor of the checkpoint: llama.cpp's name (blk.<layer>.<what>) and
 * dims, and `from`, its Hugging Face name before ".weight" or ".bias"
 * (inside layers.<layer>. when layer >= 0; hf_config.h). */
static void add_tensor(hf *h, int layer, const char *what, const char *from, int64_t ne0, int64_t ne1, int64_t ne2) {
    if (h->err->code[0]) return;
    if (h->f.n_tensors >= h->t_cap && !grow_tensors(h)) return;
    gguf_tensor *t = &h->f.tensors[h->f.n_tensors];
    char name[96], source[160];
    if (layer < 0) snprintf(name, sizeof name, "%s", what);
    else snprintf(name, sizeof name, "blk.%d.%s", layer, what);
    if (layer < 0) snprintf(source, sizeof source, "%s", from);
    else snprintf(source, sizeof source, "layers.%d.%s", layer, from);
    h->source[h->f.n_tensors] = copy(source);
    t->name = copy(name);
    t->n_dims = ne2 > 0 ? 3 : ne1 > 0 ? 2 : 1;
    t->ne[0] = ne0, t->ne[1] = ne1 > 0 ? ne1 : 1, t->ne[2] = ne2 > 0 ? ne2 : 1, t->ne[3] = 1;
    t->elements = ne0 * t->ne[1] * t->ne[2]; /* dims bounded by whole(): at most 2^20 · 2^24 · 2^16 */
    t->storage = h->storage;
    t->bytes = (uint64_t)rl_storage_bytes(h->storage, (double)t->elements);
    if (!t->name || !h->source[h->f.n_tensors])
        rl_error_set(h->err, "out_of_memory", "config.json", "out of memory reading config.json");
    h->f.n_tensors++;
}

static int read_hparams(hf *h) {
    const int64_t big = INT64_C(1) << 24;
    h->L = whole(h, "num_hidden_layers", 1, 4096, -1);
    h->d = whole(h, "hidden_size", 1, INT64_C(1) << 20, -1);
    h->H = whole(h, "num_attention_heads", 1, 65536, -1);
    h->V = whole(h, "vocab_size", 1, big, -1);
    h->ctx = whole(h, "max_position_embeddings", 1, big, -1);
    h->ff = whole(h, "intermediate_size", 1, INT64_C(1) << 22, -1);
    if (h->err->code[0]) return -1;
    h->Hkv = whole(h, "num_key_value_heads", 1, h->H, h->H);
    h->hd = whole(h, "head_dim", 1, 65536, h->d / h->H);
    if (h->hd == 0 && !h->err->code[0]) /* no head_dim, and fewer hidden dims than heads */
        rl_error_set(h->err, "bad_config", "head_dim",
                     "config.json gives no head_dim, and its hidden_size (%lld) is smaller than its "
                     "num_attention_heads (%lld), so their quotient is no head dim: add the model's head_dim to "
                     "config.json", (long long)h->d, (long long)h->H);
    h->E = whole(h, "num_local_experts", 0, 65536, 0);
    if (h->E == 0) h->E = whole(h, "num_experts", 0, 65536, 0);
    h->k = h->E ? whole(h, "num_experts_per_tok", 1, h->E, -1) : 0;
    h->ff_moe = whole(h, "moe_intermediate_size", 1, INT64_C(1) << 22, h->ff);
    h->ff_shared = whole(h, "shared_expert_intermediate_size", 0, INT64_C(1) << 22, 0);
    h->window = h->a->post_norms ? whole(h, "sliding_window", 1, big, -1)
                : h->a->any_window ? whole(h, "sliding_window", 1, big, 0) : 0;
    const cJSON *tied = cJSON_GetObjectItemCaseSensitive(h->c, "tie_word_embeddings");
    h->tied = cJSON_IsBool(tied) ? cJSON_IsTrue(tied) : h->a->tied_default;
    if (h->err->code[0]) return -1;
    if (h->H % h->Hkv) {
        rl_error_set(h->err, "bad_config", "num_key_value_heads", "%lld KV heads do not divide %lld query heads",
                     (long long)h->Hkv, (long long)h->H);
        return -1;
    }
    double eps = 1e-6;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(h->c, "rms_norm_eps");
    if (cJSON_IsNumber(e) && e->valuedouble > 0 && e->valuedouble < 1) eps = e->valuedouble;
    add_num(h, "block_count", (double)h->L);
    add_num(h, "embedding_length", (double)h->d);
    add_num(h, "attention.head_count", (double)h->H);
    add_num(h, "attention.head_count_kv", (double)h->Hkv);
    add_num(h, "attention.key_length", (double)h->hd);
    add_num(h, "context_length", (double)h->ctx);
    add_num(h, "attention.layer_norm_rms_epsilon", eps);
    if (h->window) add_num(h, "attention.sliding_window", (double)h->window);
    if (h->E) add_num(h, "expert_count", (double)h->E), add_num(h, "expert_used_count", (double)h->k);
    return h->err->code[0] ? -1 : 0;
}

/* Block i's experts: the router, the experts (one tensor of E in llama.cpp,
 * E tensors in the checkpoint: '*' is the expert's number), and Qwen's
 * shared expert with its gate. */
static void expert_tensors(hf *h, int i) {
    int64_t d = h->d, ff = h->ff_moe, E = h->E;
    bool mx = h->a->moe == MOE_MIXTRAL;
    add_tensor(h, i, "ffn_gate_inp.weight", mx ? "block_sparse_moe.gate" : "mlp.gate", d, E, 0);
    add_tensor(h, i, "ffn_gate_exps.weight", mx ? "block_sparse_moe.experts.*.w1" : "mlp.experts.*.gate_proj", d, ff, E);
    add_tensor(h, i, "ffn_up_exps.weight", mx ? "block_sparse_moe.experts.*.w3" : "mlp.experts.*.up_proj", d, ff, E);
    add_tensor(h, i, "ffn_down_exps.weight", mx ? "block_sparse_moe.experts.*.w2" : "mlp.experts.*.down_proj", ff, d, E);
    if (!h->ff_shared) return;
    add_tensor(h, i, "ffn_gate_inp_shexp.weight", "mlp.shared_expert_gate", d, 0, 0);
    add_tensor(h, i, "ffn_gate_shexp.weight", "mlp.shared_expert.gate_proj", d, h->ff_shared, 0);
    add_tensor(h, i, "ffn_up_shexp.weight", "mlp.shared_expert.up_proj", d, h->ff_shared, 0);
    add_tensor(h, i, "ffn_down_shexp.weight", "mlp.shared_expert.down_proj", h->ff_shared, d, 0);
}

/* Block i's tensors, in ggml's order of dims (ne[0] the input side), with
 * their names in a Hugging Face checkpoint (gemma's four norms: input,
 * post-attention, pre- and post-feedforward; llama's post-attention norm
 * is its FFN norm). */
static void block_tensors(hf *h, int i) {
    const hf_arch *a = h->a;
    int64_t d = h->d, q = h->H * h->hd, kv = h->Hkv * h->hd;
    add_tensor(h, i, "attn_norm.weight", "input_layernorm", d, 0, 0);
    if (a->fused) add_tensor(h, i, "attn_qkv.weight", "self_attn.qkv_proj", d, q + 2 * kv, 0);
    else {
        add_tensor(h, i, "attn_q.weight", "self_attn.q_proj", d, q, 0);
        add_tensor(h, i, "attn_k.weight", "self_attn.k_proj", d, kv, 0);
        add_tensor(h, i, "attn_v.weight", "self_attn.v_proj", d, kv, 0);
    }
    if (a->qkv_bias) {
        add_tensor(h, i, "attn_q.bias", "self_attn.q_proj", q, 0, 0);
        add_tensor(h, i, "attn_k.bias", "self_attn.k_proj", kv, 0, 0);
        add_tensor(h, i, "attn_v.bias", "self_attn.v_proj", kv, 0, 0);
    }
    if (a->qk_norm) {
        add_tensor(h, i, "attn_q_norm.weight", "self_attn.q_norm", h->hd, 0, 0);
        add_tensor(h, i, "attn_k_norm.weight", "self_attn.k_norm", h->hd, 0, 0);
    }
    add_tensor(h, i, "attn_output.weight", "self_attn.o_proj", q, d, 0);
    if (a->post_norms) add_tensor(h, i, "post_attention_norm.weight", "post_attention_layernorm", d, 0, 0);
    add_tensor(h, i, "ffn_norm.weight", a->post_norms ? "pre_feedforward_layernorm" : "post_attention_layernorm", d, 0, 0);
    if (h->E) expert_tensors(h, i);
    else if (a->fused) {
        add_tensor(h, i, "ffn_up.weight", "mlp.gate_up_proj", d, 2 * h->ff, 0);
        add_tensor(h, i, "ffn_down.weight", "mlp.down_proj", h->ff, d, 0);
    } else {
        add_tensor(h, i, "ffn_gate.weight", "mlp.gate_proj", d, h->ff, 0);
        add_tensor(h, i, "ffn_up.weight", "mlp.up_proj", d, h->ff, 0);
        add_tensor(h, i, "ffn_down.weight", "mlp.down_proj", h->ff, d, 0);
    }
    if (a->post_norms) add_tensor(h, i, "post_ffw_norm.weight", "post_feedforward_layernorm", d, 0, 0);
}

/* The model_type, the dtype and the config object the sizes are read from;
 * a quantized checkpoint's config (quantization_config) only when its
 * .safetensors headers come with it (quantized_ok). */
static int identify(hf *h, const cJSON *root, bool quantized_ok) {
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(root, "text_config");
    h->c = cJSON_IsObject(text) ? text : root;
    for (size_t i = 0; cJSON_IsString(mt) && i < sizeof hf_arches / sizeof hf_arches[0]; i++)
        if (strcmp(hf_arches[i].model_type, mt->valuestring) == 0) h->a = &hf_arches[i];
    if (!h->a) {
        rl_error_set(h->err, "unsupported_architecture", "model_type",
                     "config.json's model_type '%.80s' is not read yet; rooflens reads llama, mistral, mixtral, qwen2, "
                     "qwen2_moe, qwen3, qwen3_moe, phi3, gemma2 and gemma3",
                     cJSON_IsString(mt) ? mt->valuestring : "(none)");
        return -1;
    }
    if (!quantized_ok && cJSON_GetObjectItemCaseSensitive(root, "quantization_config")) {
        rl_error_set(h->err, "unsupported_config", "quantization_config",
                     "config.json describes a quantized checkpoint: its weights' storage is in the .safetensors "
                     "headers, which the config alone does not give; open the config.json together with its "
                     ".safetensors files");
        return -1;
    }
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(h->c, "torch_dtype");
    if (!cJSON_IsString(dt)) dt = cJSON_GetObjectItemCaseSensitive(root, "torch_dtype");
    if (!cJSON_IsString(dt)) dt = cJSON_GetObjectItemCaseSensitive(root, "dtype");
    for (size_t i = 0; cJSON_IsString(dt) && i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (strcmp(dtypes[i].torch, dt->valuestring) == 0) h->storage = dtypes[i].storage, h->f.from_config = dtypes[i].name;
    if (!h->storage) {
        rl_error_set(h->err, "bad_config", "torch_dtype",
                     "config.json gives no torch_dtype of bfloat16, float16 or float32: the weights' size is unknown");
        return -1;
    }
    return 0;
}

/* Every tensor of the checkpoint, general.architecture, and the index by
 * name. 0, or -1 with h->err set. */
static int build_tensors(hf *h) {
    add_tensor(h, -1, "token_embd.weight", "embed_tokens", h->d, h->V, 0);
    for (int i = 0; i < h->L && !h->err->code[0]; i++) block_tensors(h, i);
    add_tensor(h, -1, "output_norm.weight", "norm", h->d, 0, 0);
    if (!h->tied) add_tensor(h, -1, "output.weight", "^lm_head", h->d, h->V, 0);
    if (h->err->code[0]) return -1;
    /* general.architecture, the one string the decoder reads */
    add_num(h, "!general.architecture", 0);
    if (h->err->code[0]) return -1;
    gguf_kv *arch = &h->f.kv[h->f.n_kv - 1];
    arch->type = GGUF_STRING;
    arch->str = copy(h->a->arch);
    if (!arch->str || gguf_file_index(&h->f)) {
        rl_error_set(h->err, "out_of_memory", "config.json", "out of memory reading config.json");
        return -1;
    }
    return 0;
}

static void free_sources(char **source, size_t n) {
    for (size_t i = 0; source && i < n; i++) free(source[i]);
    free(source);
}

int hf_config_read(const char *text, size_t len, bool quantized_ok, hf_model *m, rl_error *err) {
    memset(m, 0, sizeof *m);
    hf h = {.err = err};
    m->root = cJSON_ParseWithLength(text, len);
    if (!cJSON_IsObject(m->root)) {
        rl_error_set(err, "bad_config", "config.json",
                     "the file starts like JSON but is not a JSON object rooflens can read (a config.json?)");
        hf_model_free(m);
        return -1;
    }
    if (identify(&h, m->root, quantized_ok) || read_hparams(&h) || build_tensors(&h)) {
        free_sources(h.source, h.t_cap);
        gguf_file_free(&h.f);
        hf_model_free(m);
        return -1;
    }
    m->f = h.f;
    m->source = h.source;
    m->n_source = (size_t)h.f.n_tensors;
    m->experts = h.E;
    m->quantization = cJSON_GetObjectItemCaseSensitive(m->root, "quantization_config");
    return 0;
}

void hf_model_free(hf_model *m) {
    free_sources(m->source, m->n_source);
    gguf_file_free(&m->f);
    cJSON_Delete(m->root);
    memset(m, 0, sizeof *m);
}

uint8_t *hf_config_skeleton(const char *text, size_t len, size_t *out_len, uint64_t *nodes, rl_error *err) {
    hf_model m;
    if (hf_config_read(text, len, false, &m, err)) return NULL;
    uint8_t *skeleton = gguf_decoder_skeleton(&m.f, out_len, nodes, err);
    hf_model_free(&m);
    return skeleton;
}
