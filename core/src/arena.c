/* The arena, the allocation-failure count, errors and warnings
 * (internal.h): what every layer allocates and reports with. */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Allocation failures of this thread: cJSON's (through rl_json_begin's
 * hooks) and the arenas'. Code that tolerates a failed allocation locally
 * (a warning not recorded, an optional field left out) still makes the
 * answer an out_of_memory error at rl_json_finish, never a silently
 * incomplete "ok". */
static _Thread_local unsigned long alloc_failures, alloc_mark;

/* ---------------------------------------------------------------- arena -- */
struct rl_arena_block {
    rl_arena_block *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

void *rl_arena_alloc_uninit(rl_arena *a, size_t size) {
    size = (size + 15) & ~(size_t)15;
    if (size == 0) size = 16;
    rl_arena_block *b = a->head;
    if (!b || b->cap - b->used < size) {
        /* a block kept by rl_arena_reset, else a new one */
        rl_arena_block **sp = &a->spare;
        while (*sp && (*sp)->cap < size) sp = &(*sp)->next;
        b = *sp;
        if (b) {
            *sp = b->next;
        } else {
            size_t cap = size > 65536 ? size : 65536;
            b = malloc(sizeof *b + cap);
            if (!b) {
                alloc_failures++;
                return NULL;
            }
            b->cap = cap;
        }
        b->next = a->head;
        b->used = 0;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += size;
    a->used_total += size;
    return p;
}

void *rl_arena_alloc(rl_arena *a, size_t size) {
    void *p = rl_arena_alloc_uninit(a, size);
    if (p) memset(p, 0, (size + 15) & ~(size_t)15);
    return p;
}

char *rl_arena_strdup(rl_arena *a, const char *s) {
    if (!s) s = "";
    size_t n = strlen(s);
    char *p = rl_arena_alloc(a, n + 1);
    if (p) memcpy(p, s, n + 1);
    return p;
}

void rl_arena_reset(rl_arena *a) {
    while (a->head) {
        rl_arena_block *b = a->head;
        a->head = b->next;
        b->next = a->spare;
        a->spare = b;
    }
    a->used_total = 0;
}

void rl_arena_free(rl_arena *a) {
    rl_arena_reset(a);
    rl_arena_block *b = a->spare;
    while (b) {
        rl_arena_block *n = b->next;
        free(b);
        b = n;
    }
    a->spare = NULL;
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
    /* the buffers (and the "%.200s" inside messages) cut at a byte count */
    rl_utf8_repair(e->code);
    rl_utf8_repair(e->where);
    rl_utf8_repair(e->message);
}

/* ------------------------------------------- allocation failures -- */

static void *counting_malloc(size_t n) {
    void *p = malloc(n);
    if (!p) alloc_failures++;
    return p;
}

void rl_json_begin(void) {
    /* Installed once; the hooks are plain malloc/free, so cJSON objects made
     * before (or by the application) are freed the same way. */
    static bool installed;
    if (!installed) {
        cJSON_Hooks h = {counting_malloc, free};
        cJSON_InitHooks(&h);
        installed = true;
    }
    alloc_mark = alloc_failures;
}

bool rl_json_alloc_failed(void) { return alloc_failures != alloc_mark; }

void rl_free(void *p) { free(p); }

/* ------------------------------------------------------------- warnings -- */
/* Open addressing over (code, message); twice the warning cap keeps probes short. */
#define RL_WARN_SLOTS 4096
_Static_assert(RL_WARN_SLOTS >= 2 * RL_MAX_WARNINGS, "warning table too small");

static uint32_t warn_hash(const char *code, const char *msg) {
    uint32_t h = 2166136261u;
    for (const char *p = code; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
    h = (h ^ 0xff) * 16777619u;
    for (const char *p = msg; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
    return h;
}

void rl_warn(rl_ctx *c, const char *code, const char *node, const char *fmt, ...) {
    char buf[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    rl_utf8_repair(buf); /* a name cut by the buffer or a "%.200s" */
    /* One warning per (code, message): a 100,000-node model with the same
     * unset dim must not print it 100,000 times, nor compare each new
     * warning with every earlier one. */
    if (!c->warn_slots) c->warn_slots = rl_arena_alloc(c->arena, RL_WARN_SLOTS * sizeof *c->warn_slots);
    if (!c->warn_slots) return;
    uint32_t i = warn_hash(code, buf) & (RL_WARN_SLOTS - 1);
    while (c->warn_slots[i]) {
        /* a slot past the listed warnings is stale (a context copied with
         * another's table): free for reuse, never read */
        if (c->warn_slots[i] > c->n_warnings) break;
        const rl_warning *w = &c->warnings[c->warn_slots[i] - 1];
        if (strcmp(w->code, code) == 0 && strcmp(w->message, buf) == 0) return;
        i = (i + 1) & (RL_WARN_SLOTS - 1);
    }
    if (c->n_warnings >= RL_MAX_WARNINGS) {
        c->dropped_warnings++; /* past the cap: counted (repeats included), not listed */
        return;
    }
    rl_warning *w = &c->warnings[c->n_warnings];
    w->code = code;
    w->message = rl_arena_strdup(c->arena, buf);
    w->node = node ? rl_arena_strdup(c->arena, node) : NULL;
    if (!w->message) return;
    if (w->node) rl_utf8_repair((char *)w->node);
    c->warn_slots[i] = ++c->n_warnings;
}
