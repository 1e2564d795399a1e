/* Numbers as text (internal.h, rooflens.h): the one number format of every
 * text rooflens writes (rl_format_eng), a JSON number's text as the answer
 * writes it and the double it reads back as, and a number as JavaScript's
 * String() writes it (rl_format_number, the CSV's); with the median. Each
 * figure's text is formatted once: a memo keeps the last texts by bit
 * pattern, as a model's layers repeat their figures. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ------------------------------------------------------- the one format -- */
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

/* --------------------------------------------------- a JSON number -- */
/* Whether d's 15 significant digits read back as d within an ulp
 * (fifteen_digits' test below), decided without strtod where the margin
 * is clear. Exact arithmetic: d × 10^k (10^k exact for k ≤ 22) as the
 * unevaluated sum hi + lo (an fma gives the product's or the quotient's
 * remainder exactly), hi in [10^14, 10^15): the 15 digits are rint(hi).
 * - FIFTEEN_NO: rounding to 15 digits moves d by more than 4e-16 of it,
 *   while passing needs at most 3.34e-16 (an ulp, 2.22e-16, plus the half
 *   ulp of reading the digits back). Most figures need 17 digits.
 * - FIFTEEN_YES: it moves d by at most 1e-16 of it, and reading back adds
 *   at most a half ulp (1.11e-16): within the ulp. The digits then read
 *   back as rint(hi) / 10^k, one correctly rounded operation on exact
 *   operands (an integer below 2^53, a power of ten up to 10^22), which is
 *   what strtod gives; *back is that.
 * - FIFTEEN_PRINTED: in between, or out of range: printing decides.
 * The margins dwarf lo's own rounding. test_json_numbers checks every
 * outcome against printing and reading back. */
enum fifteen { FIFTEEN_NO, FIFTEEN_YES, FIFTEEN_PRINTED };
static enum fifteen fifteen_without_printing(double d, double *back) {
    static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    double a = fabs(d);
    if (!(a >= 1e-8 && a < 1e36)) return FIFTEEN_PRINTED;
    int k = 14 - (int)floor(log10(a)); /* hi in [1e14, 1e15) unless log10 rounds across a power */
    double hi, lo;
    if (k >= 0 && k <= 22) {
        hi = a * p10[k];
        lo = fma(a, p10[k], -hi);
    } else if (k < 0 && k >= -22) {
        hi = a / p10[-k];
        lo = -fma(hi, p10[-k], -a) / p10[-k];
    } else {
        return FIFTEEN_PRINTED;
    }
    if (!(hi >= 1e14 && hi < 1e15)) return FIFTEEN_PRINTED;
    double digits = rint(hi), moved = fabs((hi - digits) + lo);
    if (moved > 4e-16 * hi) return FIFTEEN_NO;
    if (moved > 1e-16 * hi) return FIFTEEN_PRINTED;
    *back = copysign(k >= 0 ? digits / p10[k] : digits * p10[-k], d);
    return FIFTEEN_YES;
}

/* A double's "%1.15g" text into tmp when it reads back as the same double
 * (cJSON's test: within an ulp), with *back what it reads back as; else 0. */
static int fifteen_digits(char tmp[32], double d, double *back) {
    enum fifteen f = fifteen_without_printing(d, back);
    if (f == FIFTEEN_NO) return 0;
    int n = snprintf(tmp, 32, "%1.15g", d);
    if (f == FIFTEEN_YES) return n;
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
 * BERT-Large, of some 200 distinct values. Per thread, as every state
 * of the JSON writer. */
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

/* The text jb_number (json_print.c) writes for d, as cJSON writes it:
 * "null" for NaN and the infinities, a whole number below 10^15 as its
 * digits, else "%1.15g" when that reads back as d and "%1.17g" when not.
 * The text is in tmp or in the memo (until the next call); returns its
 * length and sets *text. */
size_t rl_json_number_text(double d, char tmp[32], const char **text) {
    if (d != d || d - d != 0) {
        *text = "null"; /* NaN and infinities, as cJSON */
        return 4;
    }
    if (d == 0 && signbit(d)) {
        *text = "-0"; /* as %1.15g prints it */
        return 2;
    }
    if (d > -1e15 && d < 1e15 && d == (double)(int64_t)d) {
        /* whole numbers below 10^15 print as their digits under %d and %1.15g alike */
        int64_t v = (int64_t)d;
        char *e = tmp + 32, *q = e;
        uint64_t u = v < 0 ? (uint64_t)(-v) : (uint64_t)v;
        do {
            *--q = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (v < 0) *--q = '-';
        *text = q;
        return (size_t)(e - q);
    }
    struct number_memo *m = memo_slot(number_memo, d);
    if (m->n) {
        *text = m->text;
        return m->n;
    }
    int n = format_double(tmp, d);
    if (n > 0) memo_keep(m, tmp, (size_t)n);
    *text = tmp;
    return (size_t)n;
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
