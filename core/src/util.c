/* Arena, text helpers, errors, the JSON printer and its numbers, warnings
 * (internal.h, json.h). */
#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "json.h"

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

void *rl_arena_alloc(rl_arena *a, size_t size) {
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

/* ----------------------------------------------------------------- text -- */
int rl_utf8_decode(const unsigned char *s, uint32_t *out) {
    unsigned c = s[0];
    int n = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : -1;
    if (n < 0 || c == 0xc0 || c == 0xc1 || c > 0xf4) return 0;
    uint32_t cp = n ? c & (0x3fu >> n) : c;
    for (int k = 1; k <= n; k++) {
        if ((s[k] & 0xc0) != 0x80) return 0; /* the NUL terminator stops here too */
        cp = (cp << 6) | (s[k] & 0x3fu);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    *out = cp;
    return n + 1;
}

static int utf8_seq_len(const unsigned char *s) {
    uint32_t cp;
    return rl_utf8_decode(s, &cp);
}

bool rl_char_is_control(uint32_t cp) {
    return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x200e || cp == 0x200f ||
           (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

size_t rl_text_escape(char *buf, size_t cap, const char *str, int controls) {
    if (!cap) return 0;
    const unsigned char *s = (const unsigned char *)(str ? str : "");
    size_t w = 0;
    for (size_t i = 0; s[i];) {
        uint32_t cp = s[i];
        int n = rl_utf8_decode(s + i, &cp);
        char piece[8];
        int len;
        if (!n) len = snprintf(piece, sizeof piece, "\\x%02x", s[i]), n = 1; /* not UTF-8: the byte */
        else if (controls && rl_char_is_control(cp)) len = snprintf(piece, sizeof piece, cp < 0x100 ? "\\x%02x" : "\\u%04x", (unsigned)cp);
        else memcpy(piece, s + i, (size_t)n), len = n;
        if (w + (size_t)len >= cap) break; /* a cut between two characters, never inside one */
        memcpy(buf + w, piece, (size_t)len);
        w += (size_t)len;
        i += (size_t)n;
    }
    buf[w] = 0;
    return w;
}

long rl_utf8_bad_at(const char *str) {
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; s[i];) {
        int n = utf8_seq_len(s + i);
        if (!n) return (long)i;
        i += (size_t)n;
    }
    return -1;
}

size_t rl_utf8_repair(char *str) {
    unsigned char *s = (unsigned char *)str;
    size_t r = 0, w = 0;
    while (s[r]) {
        int n = utf8_seq_len(s + r);
        if (!n) {
            r++; /* dropped */
            continue;
        }
        if (w != r) memmove(s + w, s + r, (size_t)n);
        w += (size_t)n;
        r += (size_t)n;
    }
    s[w] = 0;
    return w;
}

const char *rl_format_eng(char *buf, size_t cap, double v, const char *unit, int sign) {
    static const char *const up[] = {"", "k", "M", "G", "T", "P", "E"};
    static const char *const down[] = {"", "m", "\xc2\xb5", "n", "p", "f"};
    if (!cap) return buf;
    if (!unit) unit = "";
    if (!isfinite(v)) {
        snprintf(buf, cap, "%s", RL_NO_FIGURE);
        return buf;
    }
    if (v == 0) {
        snprintf(buf, cap, "0%s%s", unit[0] ? " " : "", unit);
        return buf;
    }
    double x = v;
    int i = 0;
    /* 999.5 rounds to "1e+03" at three digits: such a value takes the next prefix */
    while (fabs(x) >= 999.5 && i < 6) x /= 1000, i++;
    const char *prefix = up[i];
    /* sub-unit prefixes only for physical units (ms, uJ, mW); 0.5 FLOP stays so */
    if (i == 0 && (!strcmp(unit, "s") || !strcmp(unit, "J") || !strcmp(unit, "W"))) {
        int d = 0;
        while (fabs(x) < 0.9995 && d < 5) x *= 1000, d++;
        prefix = down[d];
    }
    snprintf(buf, cap, sign ? "%+.3g%s%s%s" : "%.3g%s%s%s", x, unit[0] || prefix[0] ? " " : "", prefix, unit);
    return buf;
}

void rl_snprintf_utf8(char *buf, size_t cap, const char *fmt, ...) {
    if (!cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    rl_utf8_repair(buf);
}

/* -------------------------------------------------------------- numbers -- */
static int cmp_double_asc(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double rl_median(double *v, int n) {
    if (n <= 0) return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double_asc);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
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

static char *print_room(const cJSON *item, size_t extra, size_t *cap);

char *rl_json_finish(cJSON *root) {
    size_t cap;
    return rl_json_finish_room(root, 0, &cap);
}

char *rl_json_finish_room(cJSON *root, size_t extra, size_t *cap) {
    bool failed = !root || alloc_failures != alloc_mark;
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

void rl_free(void *p) { free(p); }

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

/* Whether d's 15 significant digits surely do not read back as d within
 * an ulp (fifteen_digits' test below fails), decided without printing: the
 * rounding to 15 digits moves d by more than 4e-16 of it, while passing
 * needs at most 3.34e-16 (an ulp, 2.22e-16, plus the half ulp of reading
 * the digits back). Exact arithmetic: d × 10^k (10^k exact for k ≤ 22) as
 * the unevaluated sum hi + lo (an fma gives the product's or the
 * quotient's remainder exactly); the margin between the two shares dwarfs
 * lo's own rounding. false: not decided here (the printed test decides).
 * Most figures need 17 digits, and for those this spares a snprintf and a
 * strtod (test_json_numbers checks it against the printed test). */
static bool surely_not_fifteen_digits(double d) {
    static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    double a = fabs(d);
    if (!(a >= 1e-8 && a < 1e36)) return false;
    int k = 14 - (int)floor(log10(a)); /* hi in [1e14, 1e15) unless log10 rounds across a power */
    double hi, lo;
    if (k >= 0 && k <= 22) {
        hi = a * p10[k];
        lo = fma(a, p10[k], -hi);
    } else if (k < 0 && k >= -22) {
        hi = a / p10[-k];
        lo = -fma(hi, p10[-k], -a) / p10[-k];
    } else {
        return false;
    }
    if (!(hi >= 1e14 && hi < 1e15)) return false;
    return fabs((hi - rint(hi)) + lo) > 4e-16 * hi;
}

/* A double's "%1.15g" text into tmp when it reads back as the same double
 * (cJSON's test: within an ulp), with *back what it reads back as; else 0. */
static int fifteen_digits(char tmp[32], double d, double *back) {
    if (surely_not_fifteen_digits(d)) return 0;
    int n = snprintf(tmp, 32, "%1.15g", d);
    *back = strtod(tmp, NULL);
    double mag = fabs(*back) > fabs(d) ? fabs(*back) : fabs(d);
    return fabs(*back - d) <= mag * DBL_EPSILON ? n : 0;
}

/* The text of a double that is not a whole number below 10^15: "%1.15g"
 * when that reads back as the same double, else "%1.17g" (cJSON's forms).
 * Returns its length. */
static int format_double(char tmp[32], double d) {
    double back;
    int n = fifteen_digits(tmp, d, &back);
    return n ? n : snprintf(tmp, 32, "%1.17g", d);
}

/* The double that text reads back as, without the 17 digits' text: the 15
 * digits' value, or d itself (17 digits always read back exactly). */
static double double_read_back(double d) {
    char tmp[32];
    double back;
    return fifteen_digits(tmp, d, &back) ? back : d;
}

/* Layers of a real model repeat (the same block N times, the same shapes):
 * their times and energies are the same doubles again and again, and
 * formatting one (snprintf, then strtod to check the round trip) costs more
 * than the rest of its layer. A small memo of the last texts by bit pattern
 * keeps them; a miss costs two compares. It is two-way: pairs of slots, the
 * one used last first. A direct-mapped memo lost both texts of two figures
 * of one layer that shared a slot (a time and a rate, say) at every layer
 * of every block, as each evicted the other: 760 misses an analysis of
 * BERT-Large, of some 200 distinct values. Per thread, as the JSON state
 * above. */
#define NUMBER_MEMO_BITS 9 /* sets of two slots */
#define NUMBER_MEMO_SIZE (2 << NUMBER_MEMO_BITS)
static _Thread_local struct number_memo {
    uint64_t bits;
    unsigned char n; /* 0: empty */
    char text[27];
} number_memo[NUMBER_MEMO_SIZE];

/* The first slot of the set of a double's bit pattern. Fibonacci hashing:
 * every bit moves the top ones, so doubles a power of two apart (the same
 * mantissa: times of one layer at bandwidths or sizes that differ by 2x)
 * do not share a set. */
static size_t memo_set(uint64_t bits) { return (size_t)((bits * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - NUMBER_MEMO_BITS)) * 2; }

/* The slot of d in its set, made the set's first: its text when kept (n >
 * 0), else a fresh slot for it (the set's other text moved second, the
 * older one dropped). */
static struct number_memo *memo_slot(struct number_memo *memo, double d) {
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    struct number_memo *m = &memo[memo_set(bits)];
    if (m[0].n && m[0].bits == bits) return m;
    struct number_memo first = m[0];
    if (m[1].n && m[1].bits == bits) m[0] = m[1];
    else m[0] = (struct number_memo){.bits = bits};
    m[1] = first;
    return m;
}

/* Keeps text (n bytes) in slot m, when it fits. */
static void memo_keep(struct number_memo *m, const char *text, size_t n) {
    if (n == 0 || n >= sizeof m->text) return;
    m->n = (unsigned char)n;
    memcpy(m->text, text, n);
}

static void jb_number(jbuf *b, double d) {
    char tmp[32];
    if (d != d || d - d != 0) {
        jb_put(b, "null", 4); /* NaN and infinities, as cJSON */
        return;
    }
    if (d == 0 && signbit(d)) {
        jb_put(b, "-0", 2); /* as %1.15g prints it */
        return;
    }
    if (d > -1e15 && d < 1e15 && d == (double)(int64_t)d) {
        /* whole numbers below 10^15 print as their digits under %d and %1.15g alike */
        int64_t v = (int64_t)d;
        char *e = tmp + sizeof tmp, *q = e;
        uint64_t u = v < 0 ? (uint64_t)(-v) : (uint64_t)v;
        do {
            *--q = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (v < 0) *--q = '-';
        jb_put(b, q, (size_t)(e - q));
        return;
    }
    struct number_memo *m = memo_slot(number_memo, d);
    if (m->n) {
        jb_put(b, m->text, m->n);
        return;
    }
    int n = format_double(tmp, d);
    if (n > 0) memo_keep(m, tmp, (size_t)n);
    jb_put(b, tmp, (size_t)n);
}

/* ------------------------------------------------- a number as JS does -- */
/* The fewest significant digits that read back as v (15, 16 or 17 tried:
 * a shorter text that reads back as a normal v is, padded, v rounded to 15
 * digits; a subnormal v has fewer digits of its own, so from 1):
 * digits into d (no dot, no trailing zeros), the decimal exponent of the
 * first one in *exp10. */
static int shortest_digits(double v, char d[20], int *exp10) {
    char tmp[40];
    for (int prec = v < DBL_MIN ? 1 : 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, v);
        if (prec < 17 && strtod(tmp, NULL) != v) continue;
        int n = 0;
        for (const char *p = tmp; *p && *p != 'e'; p++)
            if (*p >= '0' && *p <= '9') d[n++] = *p;
        while (n > 1 && d[n - 1] == '0') n--;
        d[n] = 0;
        *exp10 = atoi(strchr(tmp, 'e') + 1);
        return n;
    }
    return 0; /* not reached: 17 digits always read back */
}

/* ECMAScript's Number::toString layout of k digits whose first stands at
 * 10^(n-1): plain from 10^-7 up to 10^21, else d.ddde+x. */
static size_t js_layout(char *out, const char *d, int k, int n, bool neg) {
    char *o = out;
    if (neg) *o++ = '-';
    if (k <= n && n <= 21) {
        memcpy(o, d, (size_t)k), o += k;
        for (int i = k; i < n; i++) *o++ = '0';
    } else if (0 < n && n <= 21) {
        memcpy(o, d, (size_t)n), o += n;
        *o++ = '.';
        memcpy(o, d + n, (size_t)(k - n)), o += k - n;
    } else if (-6 < n && n <= 0) {
        *o++ = '0', *o++ = '.';
        for (int i = 0; i < -n; i++) *o++ = '0';
        memcpy(o, d, (size_t)k), o += k;
    } else {
        *o++ = d[0];
        if (k > 1) *o++ = '.', memcpy(o, d + 1, (size_t)(k - 1)), o += k - 1;
        o += sprintf(o, "e%c%d", n - 1 < 0 ? '-' : '+', abs(n - 1));
    }
    *o = 0;
    return (size_t)(o - out);
}

/* A layer table repeats its figures (the same block N times): a memo of
 * the last texts by bit pattern, as jb_number's, spares most of the
 * snprintf and strtod calls. */
static _Thread_local struct number_memo js_memo[NUMBER_MEMO_SIZE];

/* The text of a finite v into text (48 bytes); its length. */
static size_t js_number(char *text, double v) {
    if (v == 0) return (size_t)sprintf(text, "0"); /* -0 too, as String(-0) */
    if (fabs(v) < 9007199254740992.0 && v == (double)(int64_t)v) {
        /* a whole number below 2^53: its digits (JS writes them up to 1e21) */
        char rev[24];
        int k = 0;
        for (uint64_t u = (uint64_t)fabs(v); u; u /= 10) rev[k++] = (char)('0' + u % 10);
        size_t n = 0;
        if (v < 0) text[n++] = '-';
        while (k) text[n++] = rev[--k];
        text[n] = 0;
        return n;
    }
    struct number_memo *m = memo_slot(js_memo, v);
    if (m->n) {
        memcpy(text, m->text, m->n);
        text[m->n] = 0;
        return m->n;
    }
    char d[20];
    int e = 0, k = shortest_digits(fabs(v), d, &e);
    size_t n = js_layout(text, d, k, e + 1, v < 0);
    memo_keep(m, text, n);
    return n;
}

size_t rl_format_number(char *buf, size_t cap, double v) {
    char text[48] = "";
    size_t n = isfinite(v) ? js_number(text, v) : 0;
    if (cap) {
        size_t k = n < cap ? n : cap - 1;
        memcpy(buf, text, k);
        buf[k] = 0;
    }
    return n;
}

/* The double a reader gets back from the text jb_number writes for d
 * (NaN for null): the packed layer columns hold these, so that they equal
 * the JSON answer to the last bit. A memo as jb_number's. */
static _Thread_local struct value_memo {
    uint64_t bits;
    double value;
    bool full;
} value_memo[NUMBER_MEMO_SIZE];

double rl_json_number_value(double d) {
    if (d != d || d - d != 0) return NAN;
    if (d > -1e15 && d < 1e15 && d == (double)(int64_t)d) return d; /* its digits, exactly */
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    struct value_memo *m = &value_memo[memo_set(bits)], first = m[0];
    if (m[0].full && m[0].bits == bits) return m[0].value;
    if (m[1].full && m[1].bits == bits) {
        m[0] = m[1], m[1] = first; /* the set's first: the one used last */
        return m[0].value;
    }
    double value = double_read_back(d);
    m[1] = first;
    m[0] = (struct value_memo){bits, value, true};
    return value;
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
                int n = utf8_seq_len((const unsigned char *)s);
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
