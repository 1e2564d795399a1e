/* The .safetensors header reader (safetensors.h). The JSON is parsed whole
 * (it is at most ST_MAX_HEADER_BYTES and holds no payload); each entry is
 * checked and kept as an st_tensor, then the tensors are sorted twice: by
 * name for duplicates, by offset for overlaps. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safetensors.h"
#include "storage.h"

#define EXACT_MAX 9007199254740992.0 /* 2^53: a JSON number is a double, exact up to here */

uint64_t st_header_need(const uint8_t *p, size_t n) {
    if (n < 8) return 8;
    uint64_t len = 0;
    for (int i = 0; i < 8; i++) len |= (uint64_t)p[i] << (8 * i);
    return len > ST_MAX_HEADER_BYTES ? 8 : 8 + len;
}

/* A JSON number that is a whole number from 0 to 2^53, into *out. */
static bool whole(const cJSON *v, uint64_t *out) {
    if (!cJSON_IsNumber(v)) return false;
    double d = v->valuedouble;
    if (!(d >= 0 && d <= EXACT_MAX) || d != floor(d)) return false;
    *out = (uint64_t)d;
    return true;
}

typedef struct ctx {
    const char *file;
    rl_error *err;
} ctx;

/* The dtype and shape of entry t. 0, or -1 with the error set. */
static int read_type(const ctx *c, const cJSON *e, st_tensor *t) {
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(e, "dtype");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(e, "shape");
    t->storage = cJSON_IsString(dt) ? rl_storage_from_safetensors(dt->valuestring) : -1;
    if (t->storage < 0) {
        if (!cJSON_IsString(dt))
            rl_error_set(c->err, "bad_safetensors", t->name, "%.100s: tensor '%.100s' has no dtype string", c->file,
                         t->name);
        else
            rl_error_set(c->err, "unsupported_type", t->name,
                         "%.100s: tensor '%.100s' has dtype '%.40s', which the safetensors format does not define "
                         "(or this version of rooflens does not know)", c->file, t->name, dt->valuestring);
        return -1;
    }
    int rank = cJSON_GetArraySize(shape);
    if (!cJSON_IsArray(shape) || rank > ST_MAX_RANK) {
        rl_error_set(c->err, "bad_safetensors", t->name, "%.100s: tensor '%.100s' has %s", c->file, t->name,
                     cJSON_IsArray(shape) ? "more than 16 dimensions" : "no shape array");
        return -1;
    }
    t->rank = rank;
    t->elements = 1;
    const cJSON *d;
    int i = 0;
    cJSON_ArrayForEach(d, shape) {
        uint64_t v;
        if (!whole(d, &v) || !rl_mul_ok(t->elements, (int64_t)v, &t->elements) || t->elements > (INT64_C(1) << 53)) {
            rl_error_set(c->err, "bad_safetensors", t->name,
                         "%.100s: tensor '%.100s' has dimension %d %s: each must be a whole number from 0, their "
                         "product at most 2^53", c->file, t->name, i, cJSON_IsNumber(d) ? "out of range" : "not a number");
            return -1;
        }
        t->shape[i++] = (int64_t)v;
    }
    return 0;
}

/* The offsets of entry t: inside the data, and exactly its dtype's bytes. */
static int read_offsets(const ctx *c, const cJSON *e, st_tensor *t, uint64_t data_bytes) {
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(e, "data_offsets");
    if (!cJSON_IsArray(off) || cJSON_GetArraySize(off) != 2 || !whole(cJSON_GetArrayItem(off, 0), &t->begin) ||
        !whole(cJSON_GetArrayItem(off, 1), &t->end) || t->begin > t->end) {
        rl_error_set(c->err, "bad_safetensors", t->name,
                     "%.100s: tensor '%.100s' has no data_offsets [begin, end] of whole numbers with begin <= end",
                     c->file, t->name);
        return -1;
    }
    if (t->end > data_bytes) {
        rl_error_set(c->err, "truncated", t->name,
                     "%.100s: tensor '%.100s' ends at byte %llu of the data, which holds %llu bytes: the file is "
                     "truncated (an interrupted download?); get the complete file", c->file, t->name,
                     (unsigned long long)t->end, (unsigned long long)data_bytes);
        return -1;
    }
    const rl_storage_def *s = &rl_storage_table[t->storage];
    double want = rl_storage_bytes(t->storage, (double)t->elements);
    if (t->elements % s->block || want != (double)(t->end - t->begin)) {
        rl_error_set(c->err, "bad_safetensors", t->name,
                     "%.100s: tensor '%.100s' is %lld elements of %s (%.0f bytes), but its data_offsets span %llu "
                     "bytes: the header is corrupted", c->file, t->name, (long long)t->elements, s->name, want,
                     (unsigned long long)(t->end - t->begin));
        return -1;
    }
    return 0;
}

static int by_name(const void *a, const void *b) {
    return strcmp(((const st_tensor *)a)->name, ((const st_tensor *)b)->name);
}

static int by_begin(const void *a, const void *b) {
    uint64_t x = (*(st_tensor *const *)a)->begin, y = (*(st_tensor *const *)b)->begin;
    return x < y ? -1 : x > y;
}

/* Two tensors of one name, or two whose bytes overlap (empty ones overlap
 * nothing). Sorts h's tensors by name. */
static int check_layout(const ctx *c, st_header *h) {
    qsort(h->tensors, h->n, sizeof *h->tensors, by_name);
    for (size_t i = 1; i < h->n; i++)
        if (strcmp(h->tensors[i - 1].name, h->tensors[i].name) == 0) {
            rl_error_set(c->err, "bad_safetensors", h->tensors[i].name, "%.100s: two tensors are named '%.100s'",
                         c->file, h->tensors[i].name);
            return -1;
        }
    st_tensor **by_offset = malloc((h->n ? h->n : 1) * sizeof *by_offset);
    if (!by_offset) {
        rl_error_set(c->err, "out_of_memory", c->file, "out of memory reading the header of %.100s", c->file);
        return -1;
    }
    size_t m = 0;
    for (size_t i = 0; i < h->n; i++)
        if (h->tensors[i].end > h->tensors[i].begin) by_offset[m++] = &h->tensors[i];
    qsort(by_offset, m, sizeof *by_offset, by_begin);
    int r = 0;
    for (size_t i = 1; i < m && !r; i++)
        if (by_offset[i]->begin < by_offset[i - 1]->end) {
            rl_error_set(c->err, "bad_safetensors", by_offset[i]->name,
                         "%.100s: the bytes of tensors '%.100s' and '%.100s' overlap: the header is corrupted", c->file,
                         by_offset[i - 1]->name, by_offset[i]->name);
            r = -1;
        }
    free(by_offset);
    return r;
}

static int read_entries(const ctx *c, const cJSON *root, st_header *h) {
    size_t count = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, root) count++;
    if (count > ST_MAX_TENSORS) {
        rl_error_set(c->err, "bad_safetensors", c->file, "%.100s: the header lists %zu tensors, more than %u", c->file,
                     count, ST_MAX_TENSORS);
        return -1;
    }
    h->tensors = calloc(count ? count : 1, sizeof *h->tensors);
    if (!h->tensors) {
        rl_error_set(c->err, "out_of_memory", c->file, "out of memory reading the header of %.100s", c->file);
        return -1;
    }
    cJSON_ArrayForEach(e, root) {
        if (strcmp(e->string, "__metadata__") == 0) continue; /* free-form strings: nothing rooflens needs */
        st_tensor *t = &h->tensors[h->n];
        size_t len = strlen(e->string);
        t->name = malloc(len + 1);
        if (!t->name) {
            rl_error_set(c->err, "out_of_memory", c->file, "out of memory reading the header of %.100s", c->file);
            return -1;
        }
        memcpy(t->name, e->string, len + 1);
        rl_utf8_repair(t->name);
        h->n++;
        if (!cJSON_IsObject(e)) {
            rl_error_set(c->err, "bad_safetensors", t->name, "%.100s: entry '%.100s' of the header is not an object",
                         c->file, t->name);
            return -1;
        }
        if (read_type(c, e, t) || read_offsets(c, e, t, h->data_bytes)) return -1;
    }
    return check_layout(c, h);
}

int st_header_read(const uint8_t *p, size_t n, uint64_t file_size, const char *file_name, int file, st_header *out,
                   rl_error *err) {
    ctx c = {file_name, err};
    st_header h = {0};
    if (n < 8 || file_size < 8) {
        rl_error_set(err, "truncated", file_name,
                     "%.100s is %llu bytes long: shorter than the 8-byte length a .safetensors file starts with",
                     file_name, (unsigned long long)(file_size < n ? file_size : n));
        return -1;
    }
    for (int i = 0; i < 8; i++) h.header_bytes |= (uint64_t)p[i] << (8 * i);
    /* a repository cloned without git-lfs holds, in place of each shard, a
     * text pointer to it: "version https://git-lfs.github.com/spec/v1 ..." */
    if (memcmp(p, "version ", 8) == 0) {
        rl_error_set(err, "bad_safetensors", file_name,
                     "%.100s is a Git LFS pointer (%llu bytes of text), not the file itself: fetch the files (git "
                     "lfs pull in the clone) or download them again", file_name, (unsigned long long)file_size);
        return -1;
    }
    if (h.header_bytes > ST_MAX_HEADER_BYTES || h.header_bytes < 2) {
        rl_error_set(err, "bad_safetensors", file_name,
                     "%.100s announces a header of %llu bytes (2 to %u expected): it is not a .safetensors file, or "
                     "it is corrupted", file_name, (unsigned long long)h.header_bytes, ST_MAX_HEADER_BYTES);
        return -1;
    }
    if (8 + h.header_bytes > file_size || 8 + h.header_bytes > n) {
        rl_error_set(err, "truncated", file_name,
                     "%.100s announces a header of %llu bytes but %s only %llu after its length: it is truncated (an "
                     "interrupted download?); get the complete file", file_name, (unsigned long long)h.header_bytes,
                     8 + h.header_bytes > file_size ? "holds" : "was given",
                     (unsigned long long)((8 + h.header_bytes > file_size ? file_size : n) - 8));
        return -1;
    }
    h.data_bytes = file_size - 8 - h.header_bytes;
    cJSON *root = p[8] == '{' ? cJSON_ParseWithLength((const char *)p + 8, (size_t)h.header_bytes) : NULL;
    int r = 0;
    if (!cJSON_IsObject(root)) {
        rl_error_set(err, "bad_safetensors", file_name,
                     "%.100s: the header is not a JSON object (the format's header starts with '{'): it is not a "
                     ".safetensors file, or it is corrupted", file_name);
        r = -1;
    } else {
        r = read_entries(&c, root, &h);
    }
    cJSON_Delete(root);
    for (size_t i = 0; i < h.n; i++) h.tensors[i].file = file;
    if (r) st_header_free(&h);
    else *out = h;
    return r;
}

void st_header_free(st_header *h) {
    for (size_t i = 0; h->tensors && i < h->n; i++) free(h->tensors[i].name);
    free(h->tensors);
    memset(h, 0, sizeof *h);
}
