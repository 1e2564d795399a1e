/* Arena, errors, warnings and element types. */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---------------------------------------------------------------- arena -- */
struct rl_arena_block {
    rl_arena_block *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

void *rl_arena_alloc(rl_arena *a, size_t size) {
    size = (size + 15) & ~(size_t)15;
    if (size == 0) size = 16;
    rl_arena_block *b = a->head;
    if (!b || b->cap - b->used < size) {
        size_t cap = size > 65536 ? size : 65536;
        b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        b->next = a->head;
        b->used = 0;
        b->cap = cap;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += size;
    a->used_total += size;
    memset(p, 0, size);
    return p;
}

char *rl_arena_strdup(rl_arena *a, const char *s) {
    if (!s) s = "";
    size_t n = strlen(s);
    char *p = rl_arena_alloc(a, n + 1);
    if (p) memcpy(p, s, n + 1);
    return p;
}

void rl_arena_free(rl_arena *a) {
    rl_arena_block *b = a->head;
    while (b) {
        rl_arena_block *n = b->next;
        free(b);
        b = n;
    }
    a->head = NULL;
    a->used_total = 0;
}

/* --------------------------------------------------------------- errors -- */
void rl_error_set(rl_error *e, const char *code, const char *where, const char *fmt, ...) {
    if (e->code[0]) return; /* keep the first, root-cause error */
    snprintf(e->code, sizeof e->code, "%s", code);
    snprintf(e->where, sizeof e->where, "%s", where ? where : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
}

char *rl_error_json(const rl_error *e) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema", ROOFLENS_SCHEMA);
    cJSON_AddFalseToObject(root, "ok");
    cJSON *err = cJSON_AddObjectToObject(root, "error");
    cJSON_AddStringToObject(err, "code", e->code[0] ? e->code : "internal");
    cJSON_AddStringToObject(err, "message", e->message[0] ? e->message : "unknown error");
    cJSON_AddStringToObject(err, "where", e->where);
    char *s = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return s;
}

void rl_free(void *p) { free(p); }

/* ------------------------------------------------------------- warnings -- */
void rl_warn(rl_ctx *c, const char *code, const char *node, const char *fmt, ...) {
    if (c->n_warnings >= RL_MAX_WARNINGS) {
        c->dropped_warnings++;
        return;
    }
    char buf[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    /* One warning per (code, message): a 10,000-node model with the same
     * unset dim must not print it 10,000 times. */
    for (int i = 0; i < c->n_warnings; i++)
        if (strcmp(c->warnings[i].code, code) == 0 && strcmp(c->warnings[i].message, buf) == 0)
            return;
    rl_warning *w = &c->warnings[c->n_warnings++];
    w->code = code;
    w->message = rl_arena_strdup(c->arena, buf);
    w->node = node ? rl_arena_strdup(c->arena, node) : NULL;
}

/* ---------------------------------------------------------- element types -- */
static const struct {
    const char *name;
    int bits;
    char cls; /* f float, i integer, b bool, s string, c complex */
} dtypes[RL_DT_COUNT] = {
    [RL_DT_UNDEFINED] = {"undefined", 0, '?'},  [RL_DT_FLOAT] = {"float32", 32, 'f'},
    [RL_DT_UINT8] = {"uint8", 8, 'i'},          [RL_DT_INT8] = {"int8", 8, 'i'},
    [RL_DT_UINT16] = {"uint16", 16, 'i'},       [RL_DT_INT16] = {"int16", 16, 'i'},
    [RL_DT_INT32] = {"int32", 32, 'i'},         [RL_DT_INT64] = {"int64", 64, 'i'},
    [RL_DT_STRING] = {"string", 0, 's'},        [RL_DT_BOOL] = {"bool", 8, 'b'},
    [RL_DT_FLOAT16] = {"float16", 16, 'f'},     [RL_DT_DOUBLE] = {"float64", 64, 'f'},
    [RL_DT_UINT32] = {"uint32", 32, 'i'},       [RL_DT_UINT64] = {"uint64", 64, 'i'},
    [RL_DT_COMPLEX64] = {"complex64", 64, 'c'}, [RL_DT_COMPLEX128] = {"complex128", 128, 'c'},
    [RL_DT_BFLOAT16] = {"bfloat16", 16, 'f'},   [RL_DT_FLOAT8E4M3FN] = {"float8e4m3fn", 8, 'f'},
    [RL_DT_FLOAT8E4M3FNUZ] = {"float8e4m3fnuz", 8, 'f'},
    [RL_DT_FLOAT8E5M2] = {"float8e5m2", 8, 'f'},
    [RL_DT_FLOAT8E5M2FNUZ] = {"float8e5m2fnuz", 8, 'f'},
    [RL_DT_UINT4] = {"uint4", 4, 'i'},          [RL_DT_INT4] = {"int4", 4, 'i'},
    [RL_DT_FLOAT4E2M1] = {"float4e2m1", 4, 'f'}, [RL_DT_FLOAT8E8M0] = {"float8e8m0", 8, 'f'},
    [RL_DT_UINT2] = {"uint2", 2, 'i'},          [RL_DT_INT2] = {"int2", 2, 'i'},
};

int rl_dtype_bits(int dt) {
    if (dt <= 0 || dt >= RL_DT_COUNT) return 0;
    /* Strings have no fixed size; count a pointer-sized reference. */
    if (dt == RL_DT_STRING) return 64;
    return dtypes[dt].bits;
}
const char *rl_dtype_name(int dt) {
    if (dt < 0 || dt >= RL_DT_COUNT) return "unknown";
    return dtypes[dt].name;
}
bool rl_dtype_is_float(int dt) { return dt > 0 && dt < RL_DT_COUNT && dtypes[dt].cls == 'f'; }
bool rl_dtype_is_int(int dt) {
    return dt > 0 && dt < RL_DT_COUNT && (dtypes[dt].cls == 'i' || dtypes[dt].cls == 'b');
}
