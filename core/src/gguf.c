/* The GGUF reader (gguf.h), a state machine over the byte stream: each
 * state waits for a few fixed bytes (a count, a type, a dim), a string (kept
 * or passed over) or a run of bytes to skip, so a chunk may end anywhere and
 * the tokenizer's megabytes of strings are never held. The layout follows
 * ggml's docs/gguf.md: magic "GGUF", version, tensor count, metadata count;
 * the metadata (key, type, value; arrays of one element type); the tensor
 * infos (name, dims, type, offset); padding to the alignment; the data. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf.h"
#include "storage.h"

#define GGUF_MAX_KV 65536u
#define GGUF_MAX_TENSORS 1000000u
#define GGUF_DEFAULT_ALIGNMENT 32

enum state {
    ST_HEADER, ST_KEY_LEN, ST_KEY, ST_VTYPE, ST_SCALAR, ST_STR_LEN, ST_STR, ST_ARR_HDR, ST_ARR_NUM,
    ST_ARR_STR_LEN, ST_ARR_STR, ST_T_NAME_LEN, ST_T_NAME, ST_T_NDIMS, ST_T_DIMS, ST_T_TYPE, ST_DATA, ST_DONE
};

struct gguf_reader {
    rl_limits limits;
    int state;
    uint8_t tmp[8 * GGUF_MAX_DIMS];
    size_t tmp_len, need;
    char *str;              /* a string being kept */
    uint64_t str_len, str_got;
    uint64_t skip;          /* bytes to pass over before the state goes on */
    uint64_t offset;
    uint64_t arr_i;         /* element of the current array */
    uint64_t kv_done, t_done; /* entries and tensor infos read whole */
    size_t kv_cap, t_cap;
    gguf_file f;
    bool failed;
    rl_error err;
};

static const int value_size[GGUF_TYPE_COUNT] = {
    [GGUF_U8] = 1, [GGUF_I8] = 1, [GGUF_U16] = 2, [GGUF_I16] = 2, [GGUF_U32] = 4, [GGUF_I32] = 4,
    [GGUF_F32] = 4, [GGUF_BOOL] = 1, [GGUF_U64] = 8, [GGUF_I64] = 8, [GGUF_F64] = 8,
};

static int fail(gguf_reader *g, const char *code, const char *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int fail(gguf_reader *g, const char *code, const char *where, const char *fmt, ...) {
    if (g->failed) return -1;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rl_error_set(&g->err, code, where, "%s (byte %llu of the GGUF file)", msg, (unsigned long long)g->offset);
    g->failed = true;
    return -1;
}

static uint64_t le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* A scalar of type t at p as a double (integers past 2^53 round). */
static double scalar_value(const uint8_t *p, uint32_t t) {
    uint64_t u = le(p, value_size[t]);
    switch (t) {
    case GGUF_I8: return (double)(int8_t)u;
    case GGUF_I16: return (double)(int16_t)u;
    case GGUF_I32: return (double)(int32_t)u;
    case GGUF_I64: return (double)(int64_t)u;
    case GGUF_F32: {
        uint32_t b = (uint32_t)u;
        float f;
        memcpy(&f, &b, 4);
        return f;
    }
    case GGUF_F64: {
        double d;
        memcpy(&d, &u, 8);
        return d;
    }
    default: return (double)u;
    }
}

gguf_reader *gguf_reader_new(const rl_limits *limits) {
    gguf_reader *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->limits = *limits;
    g->state = ST_HEADER;
    g->need = 24;
    return g;
}

/* What the entries own and the arrays: n_kv and n_tensors entries of them
 * (a reader's arrays are zeroed past those read, so it gives its capacity). */
static void free_entries(gguf_file *f, uint64_t n_kv, uint64_t n_tensors) {
    for (uint64_t i = 0; f->kv && i < n_kv; i++) {
        free(f->kv[i].key);
        free(f->kv[i].str);
        free(f->kv[i].arr);
    }
    for (uint64_t i = 0; f->tensors && i < n_tensors; i++) free(f->tensors[i].name);
    free(f->kv);
    free(f->tensors);
    free(f->by_name);
    memset(f, 0, sizeof *f);
}

void gguf_reader_free(gguf_reader *g) {
    if (!g) return;
    free_entries(&g->f, g->kv_cap, g->t_cap);
    free(g->str);
    free(g);
}

bool gguf_magic(const uint8_t *p, size_t n) { return n >= 4 && memcmp(p, "GGUF", 4) == 0; }
uint64_t gguf_offset(const gguf_reader *g) { return g ? g->offset : 0; }
const rl_error *gguf_error(const gguf_reader *g) { return &g->err; }

static void want(gguf_reader *g, int state, size_t need) {
    g->state = state;
    g->need = need;
    g->tmp_len = 0;
}

/* A string of len bytes comes next: kept (NUL-terminated in g->str) when
 * keep, else passed over. */
static int want_string(gguf_reader *g, int state, uint64_t len, bool keep) {
    g->state = state;
    g->need = g->tmp_len = 0;
    g->str_len = len;
    g->str_got = 0;
    free(g->str);
    g->str = NULL;
    if (keep) {
        g->str = malloc((size_t)len + 1);
        if (!g->str) return fail(g, "out_of_memory", "GGUF header", "out of memory for a %llu-byte string",
                                 (unsigned long long)len);
        g->str[len] = 0; /* an empty string is complete before any byte arrives */
    } else {
        g->skip = len;
    }
    return 0;
}

/* The array `arr` of `size`-byte entries (the metadata or the tensor infos)
 * grown to hold entry i, new entries zeroed: the arrays grow as entries
 * arrive, so a hostile count in the header reserves nothing. Returns the
 * array (moved, maybe), or NULL when out of memory (arr is then kept). The
 * callers store it in their typed pointer: writing it through a void **
 * would alias a gguf_kv * as a void *. */
static void *grown_for(void *arr, size_t *cap, uint64_t i, size_t size) {
    if (i < *cap) return arr;
    size_t grown = *cap ? *cap * 2 : 64;
    char *a = realloc(arr, grown * size);
    if (!a) return NULL;
    memset(a + *cap * size, 0, (grown - *cap) * size);
    *cap = grown;
    return a;
}

static gguf_kv *kv_slot(gguf_reader *g) {
    gguf_kv *a = grown_for(g->f.kv, &g->kv_cap, g->kv_done, sizeof *a);
    if (!a) return NULL;
    g->f.kv = a;
    return &a[g->kv_done];
}

static gguf_tensor *tensor_slot(gguf_reader *g) {
    gguf_tensor *a = grown_for(g->f.tensors, &g->t_cap, g->t_done, sizeof *a);
    if (!a) return NULL;
    g->f.tensors = a;
    return &a[g->t_done];
}

static int after_header(gguf_reader *g);

/* The next metadata entry, the next tensor info, or the end of the header. */
static int next_item(gguf_reader *g) {
    if (g->kv_done < g->f.n_kv) {
        want(g, ST_KEY_LEN, 8);
        return 0;
    }
    if (g->t_done < g->f.n_tensors) {
        want(g, ST_T_NAME_LEN, 8);
        return 0;
    }
    return after_header(g);
}

static int entry_done(gguf_reader *g) {
    g->kv_done++;
    return next_item(g);
}

static int on_header(gguf_reader *g) {
    if (!gguf_magic(g->tmp, 4)) return fail(g, "bad_gguf", "GGUF header", "the file does not start with GGUF");
    uint32_t v = (uint32_t)le(g->tmp + 4, 4);
    if (v == 1)
        return fail(g, "bad_gguf", "GGUF header",
                    "GGUF version 1 (2023) is not read: convert the model again with a current llama.cpp");
    if (v == 0x02000000u || v == 0x03000000u)
        return fail(g, "bad_gguf", "GGUF header", "a big-endian GGUF file is not read: use the little-endian file");
    if (v != 2 && v != 3)
        return fail(g, "bad_gguf", "GGUF header", "GGUF version %u is unknown (versions 2 and 3 are read)", v);
    g->f.version = v;
    g->f.n_tensors = le(g->tmp + 8, 8);
    g->f.n_kv = le(g->tmp + 16, 8);
    if (g->f.n_tensors > GGUF_MAX_TENSORS)
        return fail(g, "bad_gguf", "GGUF header", "the file announces %llu tensors, more than %u",
                    (unsigned long long)g->f.n_tensors, GGUF_MAX_TENSORS);
    if (g->f.n_kv > GGUF_MAX_KV)
        return fail(g, "bad_gguf", "GGUF header", "the file announces %llu metadata entries, more than %u",
                    (unsigned long long)g->f.n_kv, GGUF_MAX_KV);
    return next_item(g);
}

/* The length of a metadata key or a tensor name (`what` number `index`):
 * 1 to max_string_bytes; the string is then kept, in the slot reserved
 * for its entry (NULL: out of memory). */
static int name_length(gguf_reader *g, const char *where, const char *what, uint64_t index, const void *entry,
                       int next_state) {
    uint64_t len = le(g->tmp, 8);
    if (len == 0 || len > g->limits.max_string_bytes)
        return fail(g, "bad_gguf", where, "%s %llu has a length of %llu bytes (1 to %llu allowed)", what,
                    (unsigned long long)index, (unsigned long long)len, (unsigned long long)g->limits.max_string_bytes);
    if (!entry) return fail(g, "out_of_memory", where, "out of memory for the %s", where);
    return want_string(g, next_state, len, true);
}

/* The string just read, now the caller's, valid UTF-8. */
static char *take_name(gguf_reader *g) {
    char *name = g->str;
    g->str = NULL;
    rl_utf8_repair(name);
    return name;
}

static int on_key_len(gguf_reader *g) {
    return name_length(g, "GGUF metadata", "metadata key", g->kv_done, kv_slot(g), ST_KEY);
}

static int on_key(gguf_reader *g) {
    g->f.kv[g->kv_done].key = take_name(g);
    want(g, ST_VTYPE, 4);
    return 0;
}

static int on_vtype(gguf_reader *g) {
    gguf_kv *kv = &g->f.kv[g->kv_done];
    kv->type = (uint32_t)le(g->tmp, 4);
    if (kv->type >= GGUF_TYPE_COUNT)
        return fail(g, "bad_gguf", kv->key, "metadata '%.200s' has an unknown value type %u", kv->key, kv->type);
    if (kv->type == GGUF_STRING) want(g, ST_STR_LEN, 8);
    else if (kv->type == GGUF_ARRAY) want(g, ST_ARR_HDR, 12);
    else want(g, ST_SCALAR, (size_t)value_size[kv->type]);
    return 0;
}

static int on_scalar(gguf_reader *g) {
    gguf_kv *kv = &g->f.kv[g->kv_done];
    kv->num = scalar_value(g->tmp, kv->type);
    return entry_done(g);
}

static int on_str_len(gguf_reader *g) {
    uint64_t len = le(g->tmp, 8);
    return want_string(g, ST_STR, len, len <= GGUF_KEEP_STRING);
}

static int on_str(gguf_reader *g) {
    gguf_kv *kv = &g->f.kv[g->kv_done];
    if (g->str) {
        kv->str = g->str;
        g->str = NULL;
        rl_utf8_repair(kv->str);
    }
    return entry_done(g);
}

static int on_arr_hdr(gguf_reader *g) {
    gguf_kv *kv = &g->f.kv[g->kv_done];
    kv->elem_type = (uint32_t)le(g->tmp, 4);
    kv->count = le(g->tmp + 4, 8);
    g->arr_i = 0;
    if (kv->elem_type >= GGUF_TYPE_COUNT || kv->elem_type == GGUF_ARRAY)
        return fail(g, "bad_gguf", kv->key, "metadata '%.200s' is an array of %s", kv->key,
                    kv->elem_type == GGUF_ARRAY ? "arrays (not read)" : "an unknown type");
    if (kv->count == 0) return entry_done(g);
    if (kv->elem_type == GGUF_STRING) {
        want(g, ST_ARR_STR_LEN, 8);
        return 0;
    }
    uint64_t size = (uint64_t)value_size[kv->elem_type];
    if (kv->count <= GGUF_KEEP_ARRAY) {
        kv->arr = malloc((size_t)kv->count * sizeof *kv->arr);
        if (!kv->arr) return fail(g, "out_of_memory", kv->key, "out of memory for an array");
        want(g, ST_ARR_NUM, (size_t)size);
        return 0;
    }
    if (kv->count > UINT64_MAX / size)
        return fail(g, "bad_gguf", kv->key, "metadata '%.200s' announces %llu elements: more than any file holds",
                    kv->key, (unsigned long long)kv->count);
    want(g, ST_ARR_NUM, 0);
    g->skip = kv->count * size;
    g->arr_i = kv->count;
    return 0;
}

static int on_arr_num(gguf_reader *g) {
    gguf_kv *kv = &g->f.kv[g->kv_done];
    if (kv->arr && g->arr_i < kv->count) kv->arr[g->arr_i++] = scalar_value(g->tmp, kv->elem_type);
    if (g->arr_i >= kv->count) return entry_done(g);
    want(g, ST_ARR_NUM, (size_t)value_size[kv->elem_type]);
    return 0;
}

/* Strings of an array (the vocabulary): every one passed over. */
static int on_arr_str_len(gguf_reader *g) {
    uint64_t len = le(g->tmp, 8);
    return want_string(g, ST_ARR_STR, len, false);
}

static int on_arr_str(gguf_reader *g) {
    gguf_kv *kv = &g->f.kv[g->kv_done];
    if (++g->arr_i >= kv->count) return entry_done(g);
    want(g, ST_ARR_STR_LEN, 8);
    return 0;
}

static int on_t_name_len(gguf_reader *g) {
    return name_length(g, "GGUF tensor infos", "tensor name", g->t_done, tensor_slot(g), ST_T_NAME);
}

static int on_t_name(gguf_reader *g) {
    g->f.tensors[g->t_done].name = take_name(g);
    want(g, ST_T_NDIMS, 4);
    return 0;
}

static int on_t_ndims(gguf_reader *g) {
    gguf_tensor *t = &g->f.tensors[g->t_done];
    uint32_t nd = (uint32_t)le(g->tmp, 4);
    if (nd < 1 || nd > GGUF_MAX_DIMS)
        return fail(g, "bad_gguf", t->name, "tensor '%.200s' has %u dimensions (1 to %d allowed)", t->name, nd,
                    GGUF_MAX_DIMS);
    t->n_dims = (int)nd;
    want(g, ST_T_DIMS, 8 * nd);
    return 0;
}

static int on_t_dims(gguf_reader *g) {
    gguf_tensor *t = &g->f.tensors[g->t_done];
    int64_t elements = 1;
    for (int i = 0; i < GGUF_MAX_DIMS; i++) {
        uint64_t d = i < t->n_dims ? le(g->tmp + 8 * i, 8) : 1;
        if (d == 0 || d > (UINT64_C(1) << 53) || !rl_mul_ok(elements, (int64_t)d, &elements) ||
            elements > (INT64_C(1) << 53))
            return fail(g, "bad_gguf", t->name, "tensor '%.200s' has a dimension of %llu: %s", t->name,
                        (unsigned long long)d, d == 0 ? "empty" : "more elements than any model holds");
        t->ne[i] = (int64_t)d;
    }
    t->elements = elements;
    want(g, ST_T_TYPE, 12);
    return 0;
}

static int on_t_type(gguf_reader *g) {
    gguf_tensor *t = &g->f.tensors[g->t_done];
    t->ggml_type = (uint32_t)le(g->tmp, 4);
    t->offset = le(g->tmp + 4, 8);
    const char *removed = NULL;
    t->storage = rl_storage_from_ggml(t->ggml_type, &removed);
    if (t->storage < 0 && removed)
        return fail(g, "bad_gguf", t->name,
                    "tensor '%.200s' is of type %s, which ggml no longer reads: convert the model again", t->name,
                    removed);
    if (t->storage < 0)
        return fail(g, "unsupported_type", t->name,
                    "tensor '%.200s' is of ggml type %u, which this version of rooflens does not know", t->name,
                    t->ggml_type);
    const rl_storage_def *s = &rl_storage_table[t->storage];
    if (t->ne[0] % s->block)
        return fail(g, "bad_gguf", t->name, "tensor '%.200s' has rows of %lld elements, not whole %s blocks of %d",
                    t->name, (long long)t->ne[0], s->name, s->block);
    /* whole blocks: elements <= 2^53 and block_bytes <= 292, so no overflow */
    t->bytes = (uint64_t)(t->elements / s->block) * (uint64_t)s->block_bytes;
    g->t_done++;
    return next_item(g);
}

static int by_name(const void *a, const void *b) {
    return strcmp((*(gguf_tensor *const *)a)->name, (*(gguf_tensor *const *)b)->name);
}

static int by_key(const void *a, const void *b) {
    return strcmp((*(gguf_kv *const *)a)->key, (*(gguf_kv *const *)b)->key);
}

/* Two tensors of one name, or two entries of one key: found sorted, so a
 * huge count stays fast; the sorted tensors serve gguf_tensor_find. */
static int check_names(gguf_reader *g) {
    uint64_t n = g->f.n_tensors, m = g->f.n_kv;
    g->f.by_name = malloc((size_t)(n ? n : 1) * sizeof *g->f.by_name);
    gguf_kv **k = malloc((size_t)(m ? m : 1) * sizeof *k);
    if (!g->f.by_name || !k) {
        free(k);
        return fail(g, "out_of_memory", "GGUF tensor infos", "out of memory checking the tensor names");
    }
    for (uint64_t i = 0; i < n; i++) g->f.by_name[i] = &g->f.tensors[i];
    for (uint64_t i = 0; i < m; i++) k[i] = &g->f.kv[i];
    qsort(g->f.by_name, (size_t)n, sizeof *g->f.by_name, by_name);
    qsort(k, (size_t)m, sizeof *k, by_key);
    int r = 0;
    for (uint64_t i = 1; i < n && !r; i++)
        if (strcmp(g->f.by_name[i - 1]->name, g->f.by_name[i]->name) == 0)
            r = fail(g, "bad_gguf", g->f.by_name[i]->name, "two tensors are named '%.200s'", g->f.by_name[i]->name);
    for (uint64_t i = 1; i < m && !r; i++)
        if (strcmp(k[i - 1]->key, k[i]->key) == 0)
            r = fail(g, "bad_gguf", k[i]->key, "the metadata key '%.200s' appears twice", k[i]->key);
    free(k);
    return r;
}

static int read_alignment(gguf_reader *g) {
    g->f.alignment = GGUF_DEFAULT_ALIGNMENT;
    const gguf_kv *a = gguf_find(&g->f, "general.alignment");
    if (!a) return 0;
    uint64_t v = a->type == GGUF_U32 ? (uint64_t)a->num : 0;
    if (v == 0 || (v & (v - 1)) || v > (1u << 30))
        return fail(g, "bad_gguf", "general.alignment",
                    "general.alignment must be a uint32 power of two (it is %s %.0f)",
                    a->type == GGUF_U32 ? "" : "not a uint32:", a->num);
    g->f.alignment = v;
    return 0;
}

/* Every tensor where llama.cpp expects it: in order, each at the end of the
 * one before padded to the alignment; the data section then holds exactly
 * their bytes. */
static int place_tensors(gguf_reader *g) {
    uint64_t al = g->f.alignment, running = 0;
    for (uint64_t i = 0; i < g->f.n_tensors; i++) {
        gguf_tensor *t = &g->f.tensors[i];
        if (t->offset != running)
            return fail(g, "bad_gguf", t->name,
                        "tensor '%.200s' starts at data offset %llu, where %llu was expected (tensors follow each "
                        "other, each aligned to %llu bytes)",
                        t->name, (unsigned long long)t->offset, (unsigned long long)running, (unsigned long long)al);
        g->f.data_bytes = running + t->bytes; /* < 2^62: a tensor is at most 2^53 · 292/256 bytes */
        running = (g->f.data_bytes + al - 1) / al * al;
    }
    return 0;
}

static int after_header(gguf_reader *g) {
    if (read_alignment(g) || check_names(g) || place_tensors(g)) return -1;
    uint64_t al = g->f.alignment;
    g->f.data_start = (g->offset + al - 1) / al * al;
    want(g, ST_DATA, 0);
    g->skip = g->f.data_start - g->offset + g->f.data_bytes;
    return 0;
}

static int dispatch(gguf_reader *g) {
    switch (g->state) {
    case ST_HEADER: return on_header(g);
    case ST_KEY_LEN: return on_key_len(g);
    case ST_KEY: return on_key(g);
    case ST_VTYPE: return on_vtype(g);
    case ST_SCALAR: return on_scalar(g);
    case ST_STR_LEN: return on_str_len(g);
    case ST_STR: return on_str(g);
    case ST_ARR_HDR: return on_arr_hdr(g);
    case ST_ARR_NUM: return on_arr_num(g);
    case ST_ARR_STR_LEN: return on_arr_str_len(g);
    case ST_ARR_STR: return on_arr_str(g);
    case ST_T_NAME_LEN: return on_t_name_len(g);
    case ST_T_NAME: return on_t_name(g);
    case ST_T_NDIMS: return on_t_ndims(g);
    case ST_T_DIMS: return on_t_dims(g);
    case ST_T_TYPE: return on_t_type(g);
    case ST_DATA: g->state = ST_DONE; return 0;
    default: return 0;
    }
}

/* The state has all it waits for. */
static bool ready(const gguf_reader *g) {
    if (g->state == ST_DONE || g->skip) return false;
    return g->str ? g->str_got == g->str_len : g->tmp_len >= g->need;
}

/* Hands n bytes at p to whatever the state waits for; returns how many it took. */
static size_t take(gguf_reader *g, const uint8_t *p, size_t n) {
    size_t k;
    if (g->state == ST_DONE) k = n; /* bytes after the data: not the model's */
    else if (g->skip) {
        k = n < g->skip ? n : (size_t)g->skip;
        g->skip -= k;
    } else if (g->str) {
        uint64_t left = g->str_len - g->str_got;
        k = n < left ? n : (size_t)left;
        memcpy(g->str + g->str_got, p, k);
        g->str_got += k;
        if (g->str_got == g->str_len) g->str[g->str_len] = 0;
    } else {
        size_t left = g->need - g->tmp_len;
        k = n < left ? n : left;
        memcpy(g->tmp + g->tmp_len, p, k);
        g->tmp_len += k;
    }
    g->offset += k;
    return k;
}

int64_t gguf_feed(gguf_reader *g, const uint8_t *p, size_t n) {
    if (!g || g->failed) return -1;
    size_t i = 0;
    for (;;) {
        while (ready(g))
            if (dispatch(g)) return -1;
        if (i >= n) break;
        i += take(g, p + i, n - i);
    }
    return g->skip > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)g->skip;
}

int gguf_skip(gguf_reader *g, uint64_t n) {
    if (!g || g->failed) return -1;
    if (n > g->skip) return fail(g, "internal", "GGUF file", "the caller skipped %llu bytes the reader needed",
                                 (unsigned long long)n);
    g->skip -= n;
    g->offset += n;
    while (ready(g))
        if (dispatch(g)) return -1;
    return 0;
}

const gguf_file *gguf_finish(gguf_reader *g) {
    if (g->failed) return NULL;
    if (g->state == ST_DONE) {
        g->f.file_bytes = g->offset;
        return &g->f;
    }
    if (g->state == ST_DATA)
        fail(g, "truncated", "GGUF data",
             "the file ends after %llu bytes, but its tensors need %llu: it is truncated (an interrupted "
             "download?); get the complete file",
             (unsigned long long)g->offset, (unsigned long long)(g->f.data_start + g->f.data_bytes));
    else
        fail(g, "truncated", "GGUF header",
             "the file ends inside its header (after %llu of %llu metadata entries and %llu of %llu tensor infos): "
             "it is truncated; get the complete file",
             (unsigned long long)g->kv_done, (unsigned long long)g->f.n_kv, (unsigned long long)g->t_done,
             (unsigned long long)g->f.n_tensors);
    return NULL;
}

int gguf_file_index(gguf_file *f) {
    free(f->by_name);
    f->by_name = malloc((size_t)(f->n_tensors ? f->n_tensors : 1) * sizeof *f->by_name);
    if (!f->by_name) return -1;
    for (uint64_t i = 0; i < f->n_tensors; i++) f->by_name[i] = &f->tensors[i];
    qsort(f->by_name, (size_t)f->n_tensors, sizeof *f->by_name, by_name);
    return 0;
}

void gguf_file_free(gguf_file *f) { free_entries(f, f->n_kv, f->n_tensors); }

const gguf_kv *gguf_find(const gguf_file *f, const char *key) {
    for (uint64_t i = 0; f && f->kv && i < f->n_kv; i++)
        if (f->kv[i].key && strcmp(f->kv[i].key, key) == 0) return &f->kv[i];
    return NULL;
}

bool gguf_num(const gguf_file *f, const char *key, double *out) {
    const gguf_kv *kv = gguf_find(f, key);
    if (!kv || kv->type == GGUF_STRING || kv->type == GGUF_ARRAY) return false;
    *out = kv->num;
    return true;
}

bool gguf_arch_num(const gguf_file *f, const char *arch, const char *suffix, double *out) {
    char key[256];
    snprintf(key, sizeof key, "%s.%s", arch, suffix);
    return gguf_num(f, key, out);
}

const char *gguf_str(const gguf_file *f, const char *key) {
    const gguf_kv *kv = gguf_find(f, key);
    return kv && kv->type == GGUF_STRING ? kv->str : NULL;
}

const gguf_tensor *gguf_tensor_find(const gguf_file *f, const char *name) {
    if (!f || !f->by_name) return NULL;
    uint64_t lo = 0, hi = f->n_tensors;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        int c = strcmp(f->by_name[mid]->name, name);
        if (c == 0) return f->by_name[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}
