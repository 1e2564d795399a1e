/* The Markdown of a diff, sized for a pull-request comment, and the number
 * formats it shares with the gate's messages. Everything it prints is read
 * from the built diff object, so the comment and the JSON cannot disagree. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

#define MD_MAX_NAME 60       /* characters of a layer name or label shown */
#define MD_MAX_MESSAGE 240   /* of a warning */
#define MD_MAX_LISTED 10     /* added/removed layers, warnings, unsupported layers */

/* -------------------------------------------------------------- numbers -- */
const char *rl_fmt_eng(char *buf, size_t cap, double v, const char *unit, bool sign) {
    static const char *const up[] = {"", "k", "M", "G", "T", "P", "E"};
    static const char *const down[] = {"", "m", "\xc2\xb5", "n", "p", "f"};
    if (!isfinite(v)) {
        snprintf(buf, cap, "n/a");
        return buf;
    }
    if (v == 0) {
        snprintf(buf, cap, "0%s%s", unit[0] ? " " : "", unit);
        return buf;
    }
    double x = v;
    int i = 0;
    while (fabs(x) >= 999.5 && i < 6) x /= 1000, i++;
    const char *prefix = up[i];
    /* sub-unit prefixes only for physical units (ms, µJ); 0.5 FLOP stays so */
    if (i == 0 && (!strcmp(unit, "s") || !strcmp(unit, "J") || !strcmp(unit, "W"))) {
        int d = 0;
        while (fabs(x) < 0.9995 && d < 5) x *= 1000, d++;
        prefix = down[d];
    }
    snprintf(buf, cap, sign ? "%+.3g%s%s%s" : "%.3g%s%s%s", x, unit[0] || prefix[0] ? " " : "", prefix, unit);
    return buf;
}

const char *rl_fmt_ratio(char *buf, size_t cap, double r) {
    if (isnan(r)) snprintf(buf, cap, "n/a");
    else if (isinf(r)) snprintf(buf, cap, "from 0");
    else if (r == 0) snprintf(buf, cap, "0%%");
    else {
        double p = 100 * r, a = fabs(p);
        if (a >= 100) snprintf(buf, cap, "%+.0f%%", p);
        else if (a >= 1) snprintf(buf, cap, "%+.1f%%", p);
        else if (a >= 0.01) snprintf(buf, cap, "%+.2g%%", p);
        else snprintf(buf, cap, "%s<0.01%%", p > 0 ? "+" : "-");
    }
    return buf;
}

/* -------------------------------------------------------------- writing -- */
typedef rl_json_text md;

static void put(md *b, const char *s) { rl_json_text_put(b, s, strlen(s)); }

static void putf(md *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void putf(md *b, const char *fmt, ...) {
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) rl_json_text_put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* A model string in running text or a table cell: line breaks become
 * spaces (a name must not start a heading or a row of its own), Markdown's
 * active characters are escaped, and the text is cut at `max` characters
 * (never inside a UTF-8 sequence). */
static void put_text(md *b, const char *s, int max) {
    int chars = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p & 0xc0) != 0x80 && chars++ == max) {
            put(b, "\xe2\x80\xa6"); /* … */
            return;
        }
        if (*p == '\r' || *p == '\n' || *p == '\t') {
            put(b, " ");
            continue;
        }
        /* U+2028 and U+2029 separate lines too */
        if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
            put(b, " ");
            p += 2;
            continue;
        }
        if (strchr("|\\`*_[]<#!~&", *p)) put(b, "\\");
        rl_json_text_put(b, (const char *)p, 1);
    }
}

static const cJSON *item(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static double num(const cJSON *o, const char *k) {
    const cJSON *v = item(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}
static const char *str(const cJSON *o, const char *k) {
    const cJSON *v = item(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* One row of the headline table: | label | old | new | change |. */
static void delta_row(md *b, const char *label, const cJSON *d, const char *unit, bool bold) {
    double a = num(d, "old"), n = num(d, "new"), delta = num(d, "delta"), ratio = num(d, "ratio");
    if (!isfinite(a) && !isfinite(n)) return; /* neither model has the figure */
    char sa[48], sn[48], sd[48], sr[32];
    rl_fmt_eng(sa, sizeof sa, a, unit, false);
    rl_fmt_eng(sn, sizeof sn, n, unit, false);
    const char *em = bold ? "**" : "";
    if (!isfinite(delta)) putf(b, "| %s | %s | %s | n/a |\n", label, sa, sn);
    else if (delta == 0) putf(b, "| %s | %s | %s | no change |\n", label, sa, sn);
    else {
        rl_fmt_eng(sd, sizeof sd, delta, unit, true);
        if (isfinite(ratio)) putf(b, "| %s | %s | %s | %s%s (%s)%s |\n", label, sa, sn, em, sd, rl_fmt_ratio(sr, sizeof sr, ratio), em);
        else putf(b, "| %s | %s | %s | %s%s (from 0)%s |\n", label, sa, sn, em, sd, em);
    }
}

static void headline(md *b, const cJSON *d) {
    const cJSON *t = item(d, "totals"), *hw = item(d, "hardware"), *opt = item(d, "options"), *sol = item(d, "sol");
    put(b, "### rooflens: ");
    put_text(b, str(item(d, "old"), "label"), MD_MAX_NAME);
    put(b, " \xe2\x86\x92 "); /* → */
    put_text(b, str(item(d, "new"), "label"), MD_MAX_NAME);
    put(b, "\n\non ");
    put_text(b, str(hw, "name"), MD_MAX_NAME);
    if (cJSON_IsString(item(hw, "power_mode"))) {
        put(b, " (");
        put_text(b, str(hw, "power_mode"), MD_MAX_NAME);
        put(b, ")");
    }
    putf(b, ", precision %s, %s, speed-of-light model %s (%s)", str(item(d, "new"), "precision"),
         str(opt, "mode"), str(sol, "model"), str(sol, "granularity"));
    if (cJSON_IsNumber(item(opt, "batch"))) putf(b, ", batch %g", num(opt, "batch"));
    put(b, "\n\n| | old | new | change |\n| --- | ---: | ---: | ---: |\n");
    delta_row(b, "**predicted time**", item(t, "time_s"), "s", true);
    const cJSON *lo = item(t, "lower_bound_s"), *up = item(t, "upper_bound_s");
    char a1[48], a2[48], b1[48], b2[48];
    putf(b, "| time bounds | %s \xe2\x80\xa6 %s | %s \xe2\x80\xa6 %s | |\n", rl_fmt_eng(a1, sizeof a1, num(lo, "old"), "s", false),
         rl_fmt_eng(a2, sizeof a2, num(up, "old"), "s", false), rl_fmt_eng(b1, sizeof b1, num(lo, "new"), "s", false),
         rl_fmt_eng(b2, sizeof b2, num(up, "new"), "s", false));
    delta_row(b, "energy", item(t, "energy_j"), "J", false);
    delta_row(b, "FLOPs", item(t, "flops"), "FLOP", false);
    delta_row(b, "bytes moved", item(t, "bytes"), "B", false);
    delta_row(b, "parameters", item(t, "params"), "", false);
    delta_row(b, "weight bytes", item(t, "weight_bytes"), "B", false);
    delta_row(b, "kernels", item(t, "kernels"), "", false);
    const cJSON *bound = item(t, "bound");
    putf(b, "| bound | %s | %s | %s |\n", str(bound, "old"), str(bound, "new"),
         cJSON_IsTrue(item(bound, "changed")) ? "**changed**" : "");
    const cJSON *llm = item(d, "llm");
    if (cJSON_IsObject(llm)) {
        delta_row(b, "LLM time to first token", item(llm, "ttft_s"), "s", true);
        delta_row(b, "LLM time per output token", item(llm, "tpot_s"), "s", true);
        delta_row(b, "LLM tokens/s", item(llm, "tokens_per_s"), "", false);
        delta_row(b, "LLM memory required", item(llm, "memory_required_bytes"), "B", false);
        const cJSON *fits = item(llm, "fits");
        const cJSON *fo = item(fits, "old"), *fn = item(fits, "new");
        const char *so = cJSON_IsBool(fo) ? (cJSON_IsTrue(fo) ? "yes" : "no") : "n/a";
        const char *sn = cJSON_IsBool(fn) ? (cJSON_IsTrue(fn) ? "yes" : "no") : "n/a";
        putf(b, "| fits in device memory | %s | %s | %s |\n", so, sn,
             cJSON_IsTrue(fo) && cJSON_IsFalse(fn) ? "**no longer fits**"
             : cJSON_IsFalse(fo) && cJSON_IsTrue(fn) ? "now fits" : "");
    }
}

static void layer_counts(md *b, const cJSON *d) {
    const cJSON *c = item(d, "layers");
    putf(b, "\n**Layers:** %g matched (%g by name, %g by op and position; %g changed), %g added, %g removed.\n",
         num(c, "matched"), num(c, "matched_by_name"), num(c, "matched_by_op_position"), num(c, "changed"),
         num(c, "added"), num(c, "removed"));
    static const struct { const char *key, *title, *why; } lists[] = {
        {"became_unsupported", "Newly unsupported", "rooflens counts zero FLOPs for an operator it does not know"},
        {"became_unknown", "Cost now unknown", "a shape could not be inferred, so the figures of these layers are incomplete"},
    };
    for (size_t k = 0; k < 2; k++) {
        const cJSON *arr = item(d, lists[k].key);
        int n = cJSON_GetArraySize(arr), i = 0;
        if (!n) continue;
        putf(b, "\n**%s** (%s): ", lists[k].title, lists[k].why);
        const cJSON *l;
        cJSON_ArrayForEach(l, arr) {
            if (i == MD_MAX_LISTED) {
                putf(b, ", \xe2\x80\xa6 and %d more", n - i);
                break;
            }
            if (i++) put(b, ", ");
            put_text(b, str(l, "name")[0] ? str(l, "name") : "(unnamed)", MD_MAX_NAME);
            put(b, " (");
            if (str(l, "domain")[0]) {
                put_text(b, str(l, "domain"), MD_MAX_NAME);
                put(b, ".");
            }
            put_text(b, str(l, "op"), MD_MAX_NAME);
            put(b, ")");
        }
        put(b, "\n");
    }
}

static void signed_cell(md *b, double v, const char *unit, double ratio) {
    char s[48], r[32];
    if (!isfinite(v)) put(b, "n/a");
    else if (v == 0) put(b, "0");
    else if (isfinite(ratio)) putf(b, "%s (%s)", rl_fmt_eng(s, sizeof s, v, unit, true), rl_fmt_ratio(r, sizeof r, ratio));
    else put(b, rl_fmt_eng(s, sizeof s, v, unit, true));
}

static void changed_layers(md *b, const cJSON *d, int top) {
    const cJSON *changes = item(d, "changes");
    size_t n = (size_t)cJSON_GetArraySize(changes);
    if (n == 0) {
        put(b, "\nNo layer changed its work (FLOPs, bytes, op or bound).\n");
        return;
    }
    size_t shown = n < (size_t)top ? n : (size_t)top;
    putf(b, "\n#### %s changed layers\n\n", shown < n ? "Most" : "All");
    put(b, "| layer | op | time | \xce\x94 time | \xce\x94 FLOPs | \xce\x94 bytes | bound |\n"
           "| --- | --- | ---: | ---: | ---: | ---: | --- |\n");
    const cJSON *ch = changes->child;
    for (size_t i = 0; i < shown && ch; i++, ch = ch->next) {
        const char *kind = str(ch, "kind");
        const cJSON *L = cJSON_GetArrayItem(item(d, kind), (int)num(ch, "at"));
        const char k = kind[0];
        char s1[48], s2[48];
        put(b, "| ");
        put_text(b, str(L, "name")[0] ? str(L, "name") : "(unnamed)", MD_MAX_NAME);
        if (k == 'a') put(b, " *(added)*");
        if (k == 'r') put(b, " *(removed)*");
        if (k == 'm' && strcmp(str(L, "name"), str(L, "old_name"))) {
            put(b, " (was ");
            put_text(b, str(L, "old_name")[0] ? str(L, "old_name") : "unnamed", MD_MAX_NAME);
            put(b, ")");
        }
        put(b, " | ");
        if (k == 'm' && (strcmp(str(L, "op"), str(L, "old_op")) || strcmp(str(L, "domain"), str(L, "old_domain")))) {
            put_text(b, str(L, "old_op"), MD_MAX_NAME);
            put(b, " \xe2\x86\x92 ");
        }
        put_text(b, str(L, "op"), MD_MAX_NAME);
        put(b, " | ");
        if (k == 'm') {
            const cJSON *t = item(L, "t");
            putf(b, "%s \xe2\x86\x92 %s | ", rl_fmt_eng(s1, sizeof s1, num(t, "old"), "s", false),
                 rl_fmt_eng(s2, sizeof s2, num(t, "new"), "s", false));
            signed_cell(b, num(t, "delta"), "s", num(t, "ratio"));
            put(b, " | ");
            signed_cell(b, num(item(L, "flops"), "delta"), "FLOP", num(item(L, "flops"), "ratio"));
            put(b, " | ");
            signed_cell(b, num(item(L, "bytes"), "delta"), "B", num(item(L, "bytes"), "ratio"));
            const cJSON *bd = item(L, "bound");
            if (strcmp(str(bd, "old"), str(bd, "new"))) putf(b, " | %s \xe2\x86\x92 %s |\n", str(bd, "old"), str(bd, "new"));
            else putf(b, " | %s |\n", str(bd, "new"));
        } else {
            putf(b, "%s | ", rl_fmt_eng(s1, sizeof s1, num(L, "t"), "s", false));
            double sgn = k == 'r' ? -1 : 1;
            signed_cell(b, sgn * num(L, "t"), "s", NAN);
            put(b, " | ");
            signed_cell(b, sgn * num(L, "flops"), "FLOP", NAN);
            put(b, " | ");
            signed_cell(b, sgn * num(L, "bytes"), "B", NAN);
            putf(b, " | %s |\n", str(L, "bound"));
        }
    }
    if (shown < n) putf(b, "\n\xe2\x80\xa6 and %zu more changed, added or removed layers (`rooflens diff` lists them all).\n", n - shown);
}

static void warnings(md *b, const cJSON *d) {
    const cJSON *fresh = item(item(d, "warnings"), "new"), *unsup = item(item(d, "unsupported_ops"), "added");
    int n = cJSON_GetArraySize(fresh);
    if (cJSON_GetArraySize(unsup) > 0) {
        put(b, "\n**Operators rooflens does not support, new in this model:** ");
        int i = 0;
        const cJSON *u;
        cJSON_ArrayForEach(u, unsup) {
            if (i++) put(b, ", ");
            put_text(b, cJSON_IsString(u) ? u->valuestring : "", MD_MAX_NAME);
        }
        put(b, "\n");
    }
    if (!n) return;
    putf(b, "\n#### New warnings (%d)\n\n", n);
    int i = 0;
    const cJSON *w;
    cJSON_ArrayForEach(w, fresh) {
        if (i++ == MD_MAX_LISTED) {
            putf(b, "- \xe2\x80\xa6 and %d more\n", n - MD_MAX_LISTED);
            break;
        }
        put(b, "- ");
        put_text(b, str(w, "code"), MD_MAX_NAME);
        put(b, ": ");
        put_text(b, str(w, "message"), MD_MAX_MESSAGE);
        put(b, "\n");
    }
}

static void gate(md *b, const cJSON *d) {
    const cJSON *g = item(d, "gate");
    if (!cJSON_IsObject(g)) return;
    bool passed = cJSON_IsTrue(item(g, "passed"));
    /* the expression parsed, so it holds no backtick: a code span shows it as typed */
    putf(b, "\n**Gate** `%.200s`: %s\n", str(g, "expression"), passed ? "\xe2\x9c\x85 passed" : "\xe2\x9d\x8c failed");
    const cJSON *c;
    cJSON_ArrayForEach(c, item(g, "clauses")) {
        if (!strcmp(str(c, "status"), "pass")) continue;
        const char *clause = str(c, "clause"), *msg = str(c, "message");
        size_t n = strlen(clause);
        if (!strncmp(msg, clause, n) && msg[n] == ':') msg += n + 1;
        putf(b, "- `%s`:", clause);
        put_text(b, msg, MD_MAX_MESSAGE);
        put(b, "\n");
    }
}

char *rl_diff_markdown(const cJSON *d, int top) {
    md b = {0};
    headline(&b, d);
    layer_counts(&b, d);
    changed_layers(&b, d, top);
    warnings(&b, d);
    gate(&b, d);
    return rl_json_text_finish(&b);
}
