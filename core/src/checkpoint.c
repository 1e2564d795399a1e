/* A Hugging Face checkpoint read from its config.json and the headers of
 * its .safetensors shards (checkpoint.h, rooflens.h's rl_checkpoint_*).
 * The config says which tensors the decoder has and how they connect
 * (hf_config_read, with each tensor's name in the checkpoint); the headers
 * say how each is stored. Each tensor of the decoder is found in the
 * headers (plain, FP8 with its scales, or GPTQ/AWQ packed codes with their
 * scales and zeros), takes their dtype and their exact bytes, and the
 * decoder is written by gguf_decoder.c as for a GGUF file. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "rooflens_text.h"
#include "gguf_decoder.h"
#include "hf_config.h"
#include "safetensors.h"
#include "storage.h"

#define MAX_INDEX_BYTES (64u << 20) /* an index lists every tensor's shard: a few MB at most */
#define MAX_SHARDS 100000

enum file_kind { KIND_OTHER, KIND_SHARD, KIND_INDEX, KIND_CONFIG };

typedef struct shard {
    char *name;
    uint64_t size;
    st_header h;
} shard;

struct rl_checkpoint {
    rl_limits limits;
    char *config, *index;          /* the JSON files' text, NUL-terminated */
    size_t config_len, index_len;
    shard *shards;
    size_t n_shards, cap;
    uint64_t file_bytes;           /* every file given, whole */
    bool failed;
    rl_error err;
};

/* The name without its folders. */
static const char *base_name(const char *name) {
    const char *b = name;
    for (const char *p = name; *p; p++)
        if (*p == '/' || *p == '\\') b = p + 1;
    return b;
}

static bool ends_with(const char *s, const char *end) {
    size_t n = strlen(s), m = strlen(end);
    return n >= m && strcmp(s + n - m, end) == 0;
}

static int kind_of(const char *name) {
    const char *b = base_name(name ? name : "");
    if (ends_with(b, ".safetensors")) return KIND_SHARD;
    if (ends_with(b, ".safetensors.index.json")) return KIND_INDEX;
    if (strcmp(b, "config.json") == 0) return KIND_CONFIG;
    return KIND_OTHER;
}

rl_checkpoint *rl_checkpoint_new(const rl_limits *limits) {
    rl_checkpoint *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    if (limits) c->limits = *limits;
    rl_limits_fill_defaults(&c->limits);
    return c;
}

void rl_checkpoint_free(rl_checkpoint *c) {
    if (!c) return;
    for (size_t i = 0; i < c->n_shards; i++) {
        free(c->shards[i].name);
        st_header_free(&c->shards[i].h);
    }
    free(c->shards);
    free(c->config);
    free(c->index);
    free(c);
}

/* A JSON file's need: the whole file, at least 1 (0 would pass it over:
 * an empty config.json is the checkpoint's, refused by keep_json as empty). */
static uint64_t json_need(uint64_t size, uint64_t cap) { return size < 1 ? 1 : size <= cap ? size : cap + 1u; }

uint64_t rl_checkpoint_need(const char *name, uint64_t size, const void *first, size_t n) {
    switch (kind_of(name)) {
    case KIND_SHARD: return st_header_need(first, first ? n : 0);
    case KIND_CONFIG: return json_need(size, HF_CONFIG_MAX_BYTES);
    case KIND_INDEX: return json_need(size, MAX_INDEX_BYTES);
    default: return 0;
    }
}

static int fail(rl_checkpoint *c) {
    c->failed = true;
    return -1;
}

/* A JSON file's text, kept whole (it is small: the need above caps it). */
static int keep_json(rl_checkpoint *c, const char *name, uint64_t size, const void *bytes, size_t len, char **text,
                     size_t *text_len, size_t cap) {
    if (*text) {
        rl_error_set(&c->err, "bad_checkpoint", name, "two files named %.100s were given: give one checkpoint at a time",
                     base_name(name));
        return fail(c);
    }
    if (size > cap || len != size || size == 0) {
        rl_error_set(&c->err, size > cap ? "bad_checkpoint" : "truncated", name,
                     "%.100s is %llu bytes (%zu given): %s", base_name(name), (unsigned long long)size, len,
                     size > cap    ? "too large for this file of a checkpoint"
                     : size == 0 ? "it is empty (an interrupted download?); give the whole file"
                                 : "give the whole file");
        return fail(c);
    }
    *text = malloc(len + 1);
    if (!*text) {
        rl_error_set(&c->err, "out_of_memory", name, "out of memory reading %.100s", base_name(name));
        return fail(c);
    }
    if (len) memcpy(*text, bytes, len);
    (*text)[len] = 0;
    *text_len = len;
    return 0;
}

static int add_shard(rl_checkpoint *c, const char *name, uint64_t size, const void *bytes, size_t len) {
    const char *b = base_name(name);
    for (size_t i = 0; i < c->n_shards; i++)
        if (strcmp(c->shards[i].name, b) == 0) {
            rl_error_set(&c->err, "bad_checkpoint", b, "%.100s was given twice: give each shard once", b);
            return fail(c);
        }
    if (c->n_shards >= MAX_SHARDS) {
        rl_error_set(&c->err, "bad_checkpoint", b, "more than %d shards were given", MAX_SHARDS);
        return fail(c);
    }
    if (c->n_shards == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 8;
        shard *s = realloc(c->shards, cap * sizeof *s);
        if (!s) {
            rl_error_set(&c->err, "out_of_memory", b, "out of memory reading %.100s", b);
            return fail(c);
        }
        c->shards = s;
        c->cap = cap;
    }
    shard *s = &c->shards[c->n_shards];
    memset(s, 0, sizeof *s);
    if (st_header_read(bytes, len, size, b, (int)c->n_shards, &s->h, &c->err)) return fail(c);
    s->name = malloc(strlen(b) + 1);
    if (!s->name) {
        st_header_free(&s->h);
        rl_error_set(&c->err, "out_of_memory", b, "out of memory reading %.100s", b);
        return fail(c);
    }
    strcpy(s->name, b);
    s->size = size;
    c->n_shards++;
    return 0;
}

int rl_checkpoint_add(rl_checkpoint *c, const char *name, uint64_t size, const void *bytes, size_t len) {
    if (!c || c->failed) return -1;
    if (!name || (len && !bytes)) {
        rl_error_set(&c->err, "internal", "", "rl_checkpoint_add was given no name or no bytes");
        return fail(c);
    }
    int r = 0;
    switch (kind_of(name)) {
    case KIND_SHARD: r = add_shard(c, name, size, bytes, len); break;
    case KIND_CONFIG: r = keep_json(c, name, size, bytes, len, &c->config, &c->config_len, HF_CONFIG_MAX_BYTES); break;
    case KIND_INDEX: r = keep_json(c, name, size, bytes, len, &c->index, &c->index_len, MAX_INDEX_BYTES); break;
    default: return 0; /* tokenizer.json, README.md ...: not the model's weights */
    }
    if (!r) c->file_bytes += size;
    return r;
}

/* ------------------------------------------------------------ finishing -- */

typedef struct ck {
    rl_checkpoint *c;
    hf_model m;
    st_tensor **all;   /* every header's tensors, sorted by name */
    size_t n_all;
    const char *prefix; /* "model." (or a multimodal model's language part) */
    int bits;           /* quantization_config's bits per packed code (0: none given) */
    const char *method; /* its quant_method ("gptq", "awq", "fp8"), or NULL */
    rl_error *err;
} ck;

static int by_tensor_name(const void *a, const void *b) {
    return strcmp((*(st_tensor *const *)a)->name, (*(st_tensor *const *)b)->name);
}

static st_tensor **find_slot(const ck *k, const char *name) {
    st_tensor key = {.name = (char *)name}, *kp = &key;
    return k->all ? bsearch(&kp, k->all, k->n_all, sizeof *k->all, by_tensor_name) : NULL;
}

static st_tensor *find(const ck *k, const char *name) {
    st_tensor **p = find_slot(k, name);
    return p ? *p : NULL;
}

static const char *file_of(const ck *k, const st_tensor *t) { return k->c->shards[t->file].name; }

/* Every header's tensors in one sorted list; a name in two shards is refused. */
static int collect(ck *k) {
    for (size_t i = 0; i < k->c->n_shards; i++) k->n_all += k->c->shards[i].h.n;
    k->all = malloc((k->n_all ? k->n_all : 1) * sizeof *k->all);
    if (!k->all) {
        rl_error_set(k->err, "out_of_memory", "checkpoint", "out of memory reading the checkpoint");
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < k->c->n_shards; i++)
        for (size_t j = 0; j < k->c->shards[i].h.n; j++) k->all[n++] = &k->c->shards[i].h.tensors[j];
    qsort(k->all, k->n_all, sizeof *k->all, by_tensor_name);
    for (size_t i = 1; i < k->n_all; i++)
        if (strcmp(k->all[i - 1]->name, k->all[i]->name) == 0) {
            rl_error_set(k->err, "bad_checkpoint", k->all[i]->name,
                         "tensor '%.100s' is in both %.100s and %.100s: give the shards of one checkpoint",
                         k->all[i]->name, file_of(k, k->all[i - 1]), file_of(k, k->all[i]));
            return -1;
        }
    return 0;
}

/* One weight_map entry: its shard was given and holds the tensor. */
static int index_entry(ck *k, const cJSON *e, bool *seen) {
    const char *shard_name = cJSON_IsString(e) ? e->valuestring : NULL;
    size_t s = 0;
    while (shard_name && s < k->c->n_shards && strcmp(k->c->shards[s].name, shard_name) != 0) s++;
    if (!shard_name || s == k->c->n_shards) {
        rl_error_set(k->err, "incomplete_checkpoint", shard_name ? shard_name : e->string,
                     "the index puts tensor '%.100s' in %.100s, which was not given: give every shard the index names "
                     "(model-0000X-of-0000N.safetensors) with config.json",
                     e->string, shard_name ? shard_name : "(not a file name)");
        return -1;
    }
    st_tensor **t = find_slot(k, e->string);
    if (!t || (*t)->file != (int)s || seen[t - k->all]) {
        rl_error_set(k->err, "bad_checkpoint", e->string,
                     "the index puts tensor '%.100s' in %.100s, but %s: the index is not these shards'", e->string,
                     shard_name, !t ? "no shard's header holds it" : seen[t - k->all] ? "it names it twice"
                                                                                     : "another shard holds it");
        return -1;
    }
    seen[t - k->all] = true;
    return 0;
}

/* The index (when given): every tensor where its weight_map says, and every
 * tensor of the shards in it. */
static int check_index(ck *k) {
    if (!k->c->index) return 0;
    cJSON *root = cJSON_ParseWithLength(k->c->index, k->c->index_len);
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(root, "weight_map");
    bool *seen = calloc(k->n_all + 1, 1);
    int r = 0;
    if (!cJSON_IsObject(map) || !seen) {
        r = -1;
        if (!seen) rl_error_set(k->err, "out_of_memory", "index", "out of memory reading the index");
        else
            rl_error_set(k->err, "bad_checkpoint", "model.safetensors.index.json",
                         "the index is not a JSON object with a weight_map: give the checkpoint's own "
                         "model.safetensors.index.json");
    }
    const cJSON *e;
    if (!r) cJSON_ArrayForEach(e, map) if ((r = index_entry(k, e, seen)) != 0) break;
    for (size_t i = 0; !r && i < k->n_all; i++)
        if (!seen[i]) {
            rl_error_set(k->err, "bad_checkpoint", k->all[i]->name,
                         "tensor '%.100s' of %.100s is not in the index's weight_map: the index is not these shards'",
                         k->all[i]->name, file_of(k, k->all[i]));
            r = -1;
        }
    free(seen);
    cJSON_Delete(root);
    return r;
}

/* quantization_config's bits and method: GPTQ and AWQ say "bits" (AWQ's
 * own tools "w_bit"), compressed-tensors its groups' weights' num_bits. */
static void read_quantization(ck *k) {
    const cJSON *q = k->m.quantization, *v = cJSON_GetObjectItemCaseSensitive(q, "quant_method");
    k->method = cJSON_IsString(v) ? v->valuestring : NULL;
    v = cJSON_GetObjectItemCaseSensitive(q, "bits");
    if (!cJSON_IsNumber(v)) v = cJSON_GetObjectItemCaseSensitive(q, "w_bit");
    const cJSON *groups = cJSON_GetObjectItemCaseSensitive(q, "config_groups"), *g;
    cJSON_ArrayForEach(g, groups) if (!cJSON_IsNumber(v))
        v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(g, "weights"), "num_bits");
    k->bits = cJSON_IsNumber(v) && v->valuedouble >= 1 && v->valuedouble <= 8 ? (int)v->valuedouble : 0;
}

/* The prefix the decoder's tensors are named under: "model." for a text
 * model, the language model's for a multimodal one. */
static int find_prefix(ck *k) {
    static const char *const prefixes[] = {"model.", "model.language_model.", "language_model.model.", ""};
    char name[200];
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        snprintf(name, sizeof name, "%sembed_tokens.weight", prefixes[i]);
        if (find(k, name)) {
            k->prefix = prefixes[i];
            return 0;
        }
    }
    rl_error_set(k->err, "incomplete_checkpoint", "model.embed_tokens.weight",
                 "no shard holds the token embedding (model.embed_tokens.weight): give every .safetensors file of the "
                 "checkpoint, or check that config.json is this checkpoint's");
    return -1;
}

/* What one tensor of the decoder is stored as, and its bytes in the files. */
typedef struct stored {
    int storage;
    uint64_t bytes;
} stored;

/* The header's tensor <base>.<suffix>, claimed and its bytes added; NULL when no shard holds it. */
static st_tensor *take(ck *k, const char *base, const char *suffix, stored *s) {
    char name[320];
    snprintf(name, sizeof name, "%s.%s", base, suffix);
    st_tensor *t = find(k, name);
    if (t && !t->used) {
        t->used = true;
        s->bytes += t->end - t->begin;
    }
    return t;
}

static void dims_text(char *buf, size_t cap, const int64_t *d, int n, bool reversed) {
    size_t used = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < n && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%lld", i ? ", " : "", (long long)d[reversed ? n - 1 - i : i]);
    if (used < cap) snprintf(buf + used, cap - used, "]");
}

/* t's shape is the config's for decoder tensor g (per_expert: for one
 * expert of it, without the experts' dim, however many experts there are):
 * ggml's dims reversed. */
static int check_shape(ck *k, const gguf_tensor *g, bool per_expert, const st_tensor *t) {
    int nd = g->n_dims - per_expert;
    bool ok = t->rank == nd;
    for (int j = 0; ok && j < nd; j++) ok = t->shape[j] == g->ne[nd - 1 - j];
    if (ok) return 0;
    char have[120], want[120];
    dims_text(have, sizeof have, t->shape, t->rank, false);
    dims_text(want, sizeof want, g->ne, nd, true);
    rl_error_set(k->err, "bad_checkpoint", t->name,
                 "%.100s: tensor '%.100s' is %s, but config.json's hyperparameters make it %s: give the config.json "
                 "of this checkpoint", file_of(k, t), t->name, have, want);
    return -1;
}

/* GPTQ / AWQ / compressed-tensors codes packed in int32 words (q), with
 * their scales, zero points and group indexes. */
static int packed(ck *k, const gguf_tensor *g, int64_t parts, const char *base, const st_tensor *q, stored *s) {
    int64_t want = g->elements / parts;
    int b = k->bits, st = b == 2 ? RL_ST_INT2 : b == 3 ? RL_ST_INT3 : b == 4 ? RL_ST_INT4 : b == 8 ? RL_ST_INT8 : -1;
    if (st < 0) {
        rl_error_set(k->err, "unsupported_type", q->name,
                     "%.100s: '%.100s' holds packed integer codes, but config.json's quantization_config gives %d "
                     "bits a code: rooflens reads 2, 3, 4 and 8", file_of(k, q), q->name, b);
        return -1;
    }
    /* want codes of b bits fill want·b/32 words */
    if (q->storage != RL_ST_I32 || (double)q->elements * 32 != (double)want * b) {
        rl_error_set(k->err, "bad_checkpoint", q->name,
                     "%.100s: '%.100s' is %lld %s, not the %lld codes of %d bits in int32 words that config.json's "
                     "hyperparameters make %s", file_of(k, q), q->name, (long long)q->elements,
                     rl_storage_name(q->storage), (long long)want, b, g->name);
        return -1;
    }
    if (s->storage < 0) s->storage = st;
    if (!take(k, base, "scales", s) && !take(k, base, "weight_scale", s)) {
        rl_error_set(k->err, "incomplete_checkpoint", q->name,
                     "%.100s: '%.100s' has no scales (%.100s.scales): the checkpoint is incomplete", file_of(k, q),
                     q->name, base);
        return -1;
    }
    static const char *const parts_of_codes[] = {"qzeros", "g_idx", "weight_zero_point", "weight_g_idx", "weight_shape"};
    for (size_t i = 0; i < sizeof parts_of_codes / sizeof parts_of_codes[0]; i++) take(k, base, parts_of_codes[i], s);
    return 0;
}

/* One part (one expert of `parts`, or the whole) of decoder tensor g, named base. */
static int resolve_part(ck *k, const gguf_tensor *g, int64_t parts, bool per_expert, const char *base, stored *s) {
    bool bias = ends_with(g->name, ".bias");
    st_tensor *t = take(k, base, bias ? "bias" : "weight", s);
    if (t) {
        if (check_shape(k, g, per_expert, t)) return -1;
        if (s->storage < 0) s->storage = t->storage;
        /* FP8: a scale per tensor, channel or block, and the activations' */
        static const char *const scales[] = {"weight_scale", "weight_scale_inv", "input_scale"};
        for (size_t i = 0; !bias && i < sizeof scales / sizeof scales[0]; i++) take(k, base, scales[i], s);
        return 0;
    }
    const st_tensor *q = bias ? NULL : take(k, base, "qweight", s);
    if (!q && !bias) q = take(k, base, "weight_packed", s);
    if (q) return packed(k, g, parts, base, q, s);
    rl_error_set(k->err, "incomplete_checkpoint", base,
                 "no shard holds '%.160s.%s' (the decoder's %.60s, which config.json describes): give every "
                 ".safetensors file of the checkpoint, or the config.json of these files", base, bias ? "bias" : "weight",
                 g->name);
    return -1;
}

/* Decoder tensor i: every part found, its storage and exact bytes set. */
static int resolve(ck *k, size_t i) {
    gguf_tensor *g = &k->m.f.tensors[i];
    const char *src = k->m.source[i];
    bool outside = src[0] == '^';
    const char *star = strchr(src, '*');
    int64_t parts = star ? k->m.experts : 1;
    stored s = {-1, 0};
    for (int64_t p = 0; p < parts; p++) {
        char base[300];
        if (star)
            snprintf(base, sizeof base, "%s%.*s%lld%s", k->prefix, (int)(star - src), src, (long long)p, star + 1);
        else if (outside) {
            /* the LM head sits beside the model: "lm_head", or a multimodal model's language part's */
            snprintf(base, sizeof base, "language_model.%s", src + 1);
            char probe[320];
            snprintf(probe, sizeof probe, "%s.weight", base);
            if (!find(k, probe)) snprintf(base, sizeof base, "%s", src + 1);
        } else
            snprintf(base, sizeof base, "%s%s", k->prefix, src);
        if (resolve_part(k, g, parts, star != NULL, base, &s)) return -1;
    }
    g->storage = s.storage;
    g->bytes = s.bytes;
    return 0;
}

/* The headers' tensors no decoder tensor claimed (rotary inv_freq, a
 * vision tower, an unused head): weights all the same, in ggml's order of
 * dims (a scalar as [1]; past 4 dims the outer ones folded into the 4th). */
static int add_unclaimed(ck *k) {
    gguf_file *f = &k->m.f;
    size_t extra = 0;
    for (size_t i = 0; i < k->n_all; i++) extra += !k->all[i]->used && k->all[i]->elements > 0;
    gguf_tensor *t = realloc(f->tensors, ((size_t)f->n_tensors + extra + 1) * sizeof *t);
    if (!t) {
        rl_error_set(k->err, "out_of_memory", "checkpoint", "out of memory reading the checkpoint");
        return -1;
    }
    f->tensors = t;
    for (size_t i = 0; i < k->n_all; i++) {
        const st_tensor *s = k->all[i];
        if (s->used || s->elements == 0) continue; /* an empty tensor weighs nothing */
        gguf_tensor *g = &f->tensors[f->n_tensors];
        memset(g, 0, sizeof *g);
        g->name = malloc(strlen(s->name) + 1);
        if (!g->name) {
            rl_error_set(k->err, "out_of_memory", "checkpoint", "out of memory reading the checkpoint");
            return -1;
        }
        strcpy(g->name, s->name);
        g->n_dims = s->rank < 1 ? 1 : s->rank > GGUF_MAX_DIMS ? GGUF_MAX_DIMS : s->rank;
        for (int d = 0; d < GGUF_MAX_DIMS; d++) g->ne[d] = 1;
        for (int d = 0; d < s->rank; d++) {
            int to = s->rank - 1 - d; /* ggml's position of the header's dim d */
            if (to >= GGUF_MAX_DIMS) to = GGUF_MAX_DIMS - 1;
            g->ne[to] *= s->shape[d];
        }
        g->storage = s->storage;
        g->elements = s->elements;
        g->bytes = s->end - s->begin;
        f->n_tensors++;
    }
    return gguf_file_index(f) ? -1 : 0;
}

/* "2 shards, 7.2 GB of BF16 weights, headers only": the storages holding
 * at least 1% of the bytes, the largest first. */
static void describe(const ck *k, char *buf, size_t cap) {
    double by[RL_ST_COUNT] = {0}, total = 0;
    for (uint64_t i = 0; i < k->m.f.n_tensors; i++) {
        const gguf_tensor *t = &k->m.f.tensors[i];
        if (t->storage > 0 && t->storage < RL_ST_COUNT) by[t->storage] += (double)t->bytes;
        total += (double)t->bytes;
    }
    char names[160] = "", size[32];
    for (int n = 0; n < 3; n++) {
        int best = -1;
        for (int s = 0; s < RL_ST_COUNT; s++)
            if (by[s] > 0 && by[s] >= 0.01 * total && (best < 0 || by[s] > by[best])) best = s;
        if (best < 0) break;
        bool packed_codes = best >= RL_ST_INT2 && best <= RL_ST_INT8 && k->method;
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s%s%.20s%s", n ? " and " : "", rl_storage_name(best),
                 packed_codes ? " (" : "", packed_codes ? k->method : "", packed_codes ? ")" : "");
        by[best] = 0;
    }
    rl_format_eng(size, sizeof size, total, "B", 0);
    snprintf(buf, cap, "%zu shard%s, %s of %s weights, headers only", k->c->n_shards, k->c->n_shards == 1 ? "" : "s",
             size, names[0] ? names : "no");
}

/* The config alone (no shard given): sized at its dtype, as before. */
static int config_only(rl_checkpoint *c, rl_reader_result *res) {
    if (c->index) {
        rl_error_set(&res->error, "incomplete_checkpoint", "model.safetensors.index.json",
                     "an index was given but none of the .safetensors shards it names: give them with it");
        return -1;
    }
    size_t len = 0;
    uint64_t nodes = 0;
    res->skeleton = hf_config_skeleton(c->config, c->config_len, &len, &nodes, &res->error);
    if (!res->skeleton) return -1;
    res->skeleton_len = len;
    res->file_bytes = c->file_bytes;
    res->nodes = nodes;
    return 0;
}

static int build(ck *k, rl_reader_result *res) {
    if (hf_config_read(k->c->config, k->c->config_len, true, &k->m, k->err) || collect(k) || check_index(k) ||
        find_prefix(k))
        return -1;
    read_quantization(k);
    for (size_t i = 0; i < k->m.n_source; i++)
        if (resolve(k, i)) return -1;
    if (add_unclaimed(k)) return -1;
    char what[256];
    describe(k, what, sizeof what);
    k->m.f.from_config = NULL;
    k->m.f.checkpoint = what;
    size_t len = 0;
    uint64_t nodes = 0;
    res->skeleton = gguf_decoder_skeleton(&k->m.f, &len, &nodes, k->err);
    if (!res->skeleton) return -1;
    res->skeleton_len = len;
    res->nodes = nodes;
    res->file_bytes = k->c->file_bytes;
    for (size_t i = 0; i < k->c->n_shards; i++)
        res->skipped_bytes += k->c->shards[i].h.data_bytes; /* every weight: none was read */
    return 0;
}

int rl_checkpoint_take(rl_checkpoint *c, rl_reader_result *res) {
    memset(res, 0, sizeof *res);
    res->limits = c ? c->limits : (rl_limits){0};
    if (!c || c->failed) {
        if (c && c->err.code[0]) res->error = c->err;
        else
            rl_error_set(&res->error, "bad_checkpoint", "checkpoint",
                         c ? "this checkpoint was finished already: start a new one (rl_checkpoint_new)"
                           : "no checkpoint was given (rl_checkpoint_new returned NULL: out of memory?)");
        return -1;
    }
    c->failed = true; /* spent */
    if (!c->config) {
        rl_error_set(&res->error, "incomplete_checkpoint", "config.json",
                     "no config.json among the files: give the model's config.json with its .safetensors files");
        return -1;
    }
    if (c->n_shards == 0) return config_only(c, res);
    ck k = {.c = c, .err = &res->error};
    int r = build(&k, res);
    free(k.all);
    hf_model_free(&k.m);
    return r;
}
