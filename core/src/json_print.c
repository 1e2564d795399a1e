/* The JSON printer (json.h, internal.h): an answer's text from its cJSON
 * tree or piece by piece (rl_json_text_*), the answer of last resort when
 * memory runs out, and the accessors that read an answer back. Numbers are
 * written as number_text.c gives them. */
#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "json.h"

/* ------------------------------------------------------- JSON printing -- */
/* cJSON_PrintUnformatted formats every number with sprintf("%1.15g") and
 * parses it back with sscanf to check the round trip; on a 100,000-layer
 * response that was most of the analysis time. This printer writes the same
 * text (the same number forms, the same escapes) with an integer fast path
 * and strtod for the check. */
typedef rl_json_text jbuf; /* internal.h: {p, n, cap, oom} */

static void jb_grow(jbuf *b, size_t extra) {
    if (b->oom || b->n + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + extra + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = true;
        return;
    }
    b->p = p;
    b->cap = cap;
}

static void jb_put(jbuf *b, const char *s, size_t n) {
    jb_grow(b, n);
    if (b->oom) return;
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

static void jb_number(jbuf *b, double d) {
    char tmp[32];
    const char *text;
    size_t n = rl_json_number_text(d, tmp, &text);
    jb_put(b, text, n);
}

static void jb_string(jbuf *b, const char *s) {
    static const char hex[] = "0123456789abcdef";
    jb_put(b, "\"", 1);
    if (s) {
        const char *run = s;
        for (; *s; s++) {
            unsigned char c = (unsigned char)*s;
            if (c >= 0x80) {
                /* every text is UTF-8 by the time it is printed (the reader
                 * checks a model's names, rl_error_set and rl_warn repair what
                 * they store); a byte that still is not, from a request's own
                 * strings say, prints as U+FFFD so the answer stays UTF-8 */
                uint32_t cp;
                int n = rl_utf8_decode((const unsigned char *)s, &cp);
                if (n) {
                    s += n - 1;
                    continue;
                }
                jb_put(b, run, (size_t)(s - run));
                run = s + 1;
                jb_put(b, "\xef\xbf\xbd", 3);
                continue;
            }
            if (c >= 32 && c != '"' && c != '\\') continue;
            jb_put(b, run, (size_t)(s - run));
            run = s + 1;
            char esc[6] = {'\\', 0};
            size_t n = 2;
            switch (c) {
            case '"': esc[1] = '"'; break;
            case '\\': esc[1] = '\\'; break;
            case '\b': esc[1] = 'b'; break;
            case '\f': esc[1] = 'f'; break;
            case '\n': esc[1] = 'n'; break;
            case '\r': esc[1] = 'r'; break;
            case '\t': esc[1] = 't'; break;
            default:
                esc[1] = 'u', esc[2] = '0', esc[3] = '0', esc[4] = hex[c >> 4], esc[5] = hex[c & 15];
                n = 6;
            }
            jb_put(b, esc, n);
        }
        jb_put(b, run, (size_t)(s - run));
    }
    jb_put(b, "\"", 1);
}

/* Recursive over containers (responses are a few levels deep; the depth
 * guard is for foreign trees). Returns false when an item type is not handled. */
static bool jb_value(jbuf *b, const cJSON *item, int depth) {
    if (depth > 1000) return false;
    switch (item->type & 0xff) {
    case cJSON_NULL: jb_put(b, "null", 4); return true;
    case cJSON_False: jb_put(b, "false", 5); return true;
    case cJSON_True: jb_put(b, "true", 4); return true;
    case cJSON_Number: jb_number(b, item->valuedouble); return true;
    case cJSON_String: jb_string(b, item->valuestring); return true;
    case cJSON_Raw:
        if (!item->valuestring) return false;
        jb_put(b, item->valuestring, strlen(item->valuestring));
        return true;
    case cJSON_Array:
    case cJSON_Object: {
        bool obj = (item->type & 0xff) == cJSON_Object;
        jb_put(b, obj ? "{" : "[", 1);
        for (const cJSON *c = item->child; c; c = c->next) {
            if (obj) {
                jb_string(b, c->string);
                jb_put(b, ":", 1);
            }
            if (!jb_value(b, c, depth + 1)) return false;
            if (c->next) jb_put(b, ",", 1);
        }
        jb_put(b, obj ? "}" : "]", 1);
        return true;
    }
    default: return false;
    }
}

void rl_json_text_put(rl_json_text *t, const char *s, size_t n) { jb_put((jbuf *)t, s, n); }
void rl_json_text_number(rl_json_text *t, double v) { jb_number((jbuf *)t, v); }
void rl_json_text_reserve(rl_json_text *t, size_t extra) {
    if (t->oom || t->n + extra + 1 <= t->cap) return;
    char *p = realloc(t->p, t->n + extra + 1); /* exactly: the caller knows the size */
    if (!p) {
        t->oom = true;
        return;
    }
    t->p = p;
    t->cap = t->n + extra + 1;
}
void rl_json_text_string(rl_json_text *t, const char *s) { jb_string((jbuf *)t, s ? s : ""); }

void rl_text_stream_piece(rl_text_stream *s, rl_json_text *t) {
    if (!s->stopped && (t->oom || s->write(s->ctx, t->p, t->n))) s->stopped = true;
    t->n = 0;
}

char *rl_json_text_finish(rl_json_text *t) {
    jb_grow((jbuf *)t, 0);
    if (t->oom) {
        free(t->p);
        t->p = NULL;
        return NULL;
    }
    t->p[t->n] = 0;
    return t->p;
}

bool rl_answer_ok(const char *answer) {
    /* the core writes {"schema":N,"ok":... first */
    const char *ok = answer ? strstr(answer, "\"ok\":") : NULL;
    return ok && ok - answer < 32 && !strncmp(ok + 5, "true", 4);
}

const cJSON *rl_json_get(const cJSON *o, const char *key) { return cJSON_GetObjectItemCaseSensitive(o, key); }

double rl_json_get_num(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

const char *rl_json_get_str(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

int rl_json_whole(const cJSON *obj, const char *key, double lo, double hi, double *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v || cJSON_IsNull(v)) return 0;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi) ||
        v->valuedouble != floor(v->valuedouble))
        return -1;
    *out = v->valuedouble;
    return 1;
}

void rl_json_add_num(cJSON *o, const char *key, double v) {
    if (isfinite(v)) cJSON_AddNumberToObject(o, key, v);
    else cJSON_AddNullToObject(o, key);
}

static char *print_room(const cJSON *item, size_t extra, size_t *cap) {
    jbuf b = {0};
    /* the text before the extra is a few kB (16 on ResNet-50): room for
     * both at once, so that the extra does not move what was printed */
    if (extra) jb_grow(&b, extra + 32768);
    if (!item || !jb_value(&b, item, 0) || b.oom) {
        free(b.p);
        char *s = item ? cJSON_PrintUnformatted(item) : NULL;
        *cap = s ? strlen(s) + 1 : 0;
        return s;
    }
    if (extra && b.n + extra + 1 > b.cap) { /* exactly: the caller knows the size */
        char *p = realloc(b.p, b.n + extra + 1);
        if (p) b.p = p, b.cap = b.n + extra + 1;
    }
    jb_grow(&b, 0);
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    b.p[b.n] = 0;
    *cap = b.cap;
    return b.p;
}

char *rl_json_print(const struct cJSON *item) {
    size_t cap;
    return print_room(item, 0, &cap);
}

/* The answer of last resort: no cJSON, one small allocation. */
static char *oom_json(const char *where_in) {
    /* written without a JSON encoder: keep only characters that need no escape */
    char where[64];
    size_t n_where = 0;
    for (const char *p = where_in; *p && n_where + 1 < sizeof where; p++)
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr(" ._#-", *p))
            where[n_where++] = *p;
    where[n_where] = 0;
    static const char fmt[] = "{\"schema\":%d,\"ok\":false,\"error\":{\"code\":\"out_of_memory\","
                              "\"message\":\"out of memory while writing the answer; analyse with the "
                              "command-line tool, or raise the memory available\",\"where\":\"%s\"}}";
    size_t n = sizeof fmt + strlen(where) + 16;
    char *s = malloc(n);
    if (s) snprintf(s, n, fmt, ROOFLENS_SCHEMA, where);
    return s;
}

char *rl_json_finish(cJSON *root) {
    size_t cap;
    return rl_json_finish_room(root, 0, &cap);
}

char *rl_json_finish_room(cJSON *root, size_t extra, size_t *cap) {
    bool failed = !root || rl_json_alloc_failed();
    char *s = failed ? NULL : print_room(root, extra, cap);
    cJSON_Delete(root);
    if (s) return s;
    s = oom_json(failed ? "response" : "printing");
    *cap = s ? strlen(s) + 1 : 0;
    return s;
}

char *rl_error_json(const rl_error *e) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema", ROOFLENS_SCHEMA);
    cJSON_AddFalseToObject(root, "ok");
    cJSON *err = cJSON_AddObjectToObject(root, "error");
    cJSON_AddStringToObject(err, "code", e->code[0] ? e->code : "internal");
    cJSON_AddStringToObject(err, "message", e->message[0] ? e->message : "unknown error");
    cJSON_AddStringToObject(err, "where", e->where);
    char *s = rl_json_print(root);
    cJSON_Delete(root);
    return s ? s : oom_json(e->where);
}
