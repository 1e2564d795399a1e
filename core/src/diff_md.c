/* The Markdown of a diff, sized for a pull-request comment, and the number
 * formats it shares with the gate's messages. Everything it prints is read
 * from the built diff object, so the comment and the JSON cannot disagree. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "json.h"
#include "words.h"

#define MD_MAX_NAME 60       /* characters of a layer name shown */
#define MD_MAX_LABEL 160     /* of a model's label (a path, often long) */
#define MD_MAX_MESSAGE 240   /* of a warning */
#define MD_MAX_LISTED 10     /* items of every list: layers, operators, warnings */
#define MD_MAX_EXPRESSION 200 /* characters of the gate's expression shown */
/* One model's section is one part of a pull-request comment, which GitHub
 * caps at 65,536 characters: a list stops growing once the text passes
 * MD_LIST_BYTES (the gate's clauses, last and most wanted, once it passes
 * MD_GATE_BYTES) and says how many it left out. A row is at most about
 * 1.3 kB (four names of 60 characters, each at most 5 bytes escaped), so a
 * section stays under about 33 kB whatever the model holds. */
#define MD_LIST_BYTES 24000
#define MD_GATE_BYTES 30000
#define MD_TABLE_SHARE 10000  /* bytes of the changed-layers table */
#define MD_LIST_SHARE 3000    /* of each other list */

/* -------------------------------------------------------------- numbers -- */
/* The Markdown's numbers are the core's one format (rl_format_eng). */
const char *rl_fmt_eng(char *buf, size_t cap, double v, const char *unit, bool sign) {
    return rl_format_eng(buf, cap, v, unit, sign);
}

const char *rl_fmt_ratio(char *buf, size_t cap, double r) {
    if (isnan(r)) snprintf(buf, cap, "%s", RL_NO_FIGURE);
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
    if (n <= 0) return;
    if ((size_t)n >= sizeof tmp) n = (int)rl_utf8_repair(tmp); /* cut: never inside a character */
    rl_json_text_put(b, tmp, (size_t)n);
}

/* Text GitHub would turn into a link, a mention or a formula: after `@`
 * (a mention, an e-mail address), inside "://" (a bare URL) and "www." a
 * zero-width space goes in, which breaks the pattern and shows nothing. */
#define ZWSP "\xe2\x80\x8b"

static bool starts_www(const unsigned char *p, const unsigned char *start) {
    if (p > start && ((p[-1] | 0x20) >= 'a' && (p[-1] | 0x20) <= 'z')) return false;
    return (p[0] | 0x20) == 'w' && (p[1] | 0x20) == 'w' && (p[2] | 0x20) == 'w' && p[3] == '.';
}

/* The text of s a reader is meant to see: bytes that are not UTF-8 and
 * control characters (ESC, BEL, C1, the direction overrides) dropped, line
 * breaks and tabs as spaces (a name must not start a heading or a row of
 * its own). Cleaned before it is escaped, so that a dropped character
 * cannot hide a pattern from the escaping ("w<ESC>ww." would show as
 * "www."). A new string, never longer than s; NULL when out of memory. */
static char *shown_text(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    char *out = malloc(strlen(s) + 1);
    if (!out) return NULL;
    size_t w = 0;
    for (size_t i = 0; p[i];) {
        uint32_t cp;
        int n = rl_utf8_decode(p + i, &cp);
        if (!n) {
            i++;
            continue;
        }
        if (cp == '\t' || cp == '\n' || cp == '\r' || cp == 0x85 || cp == 0x2028 || cp == 0x2029) out[w++] = ' ';
        else if (!rl_char_is_control(cp)) {
            memcpy(out + w, p + i, (size_t)n);
            w += (size_t)n;
        }
        i += (size_t)n;
    }
    out[w] = 0;
    return out;
}

/* A model string in running text or a table cell, as shown_text leaves it:
 * Markdown's active characters are escaped, mentions, bare links and math
 * are broken (ZWSP, `\$`), and the text is cut at `max` characters (-1:
 * none), never inside a UTF-8 sequence. */
static void put_text(md *b, const char *s, int max) {
    char *shown = shown_text(s);
    if (!shown) {
        b->oom = true;
        return;
    }
    int chars = 0;
    const unsigned char *start = (const unsigned char *)shown;
    for (const unsigned char *p = start; *p; p++) {
        if ((*p & 0xc0) != 0x80 && chars++ == max) {
            put(b, "\xe2\x80\xa6"); /* … */
            break;
        }
        if (starts_www(p, start)) {
            rl_json_text_put(b, (const char *)p, 3);
            put(b, ZWSP);
            p += 2;
            chars += 2;
            continue;
        }
        if (strchr("|\\`*_[]<#!~&$", *p)) put(b, "\\");
        rl_json_text_put(b, (const char *)p, 1);
        if (*p == '@' || *p == '#' || (*p == ':' && p[1] == '/' && p[2] == '/')) put(b, ZWSP);
    }
    free(shown);
}

/* One row of the headline table: | label | old | new | change |, or
 * | label | new | for a new model (no base). */
static void delta_row(md *b, const char *label, const cJSON *d, const char *unit, bool bold, bool base) {
    double a = rl_json_get_num(d, "old"), n = rl_json_get_num(d, "new"), delta = rl_json_get_num(d, "delta"), ratio = rl_json_get_num(d, "ratio");
    if (!isfinite(a) && !isfinite(n)) return; /* neither model has the figure */
    char sa[48], sn[48], sd[48], sr[32];
    rl_fmt_eng(sa, sizeof sa, a, unit, false);
    rl_fmt_eng(sn, sizeof sn, n, unit, false);
    const char *em = bold ? "**" : "";
    if (!base) putf(b, "| %s | %s%s%s |\n", label, em, sn, em);
    else if (!isfinite(delta)) putf(b, "| %s | %s | %s | n/a |\n", label, sa, sn);
    else if (delta == 0) putf(b, "| %s | %s | %s | no change |\n", label, sa, sn);
    else {
        rl_fmt_eng(sd, sizeof sd, delta, unit, true);
        if (isfinite(ratio)) putf(b, "| %s | %s | %s | %s%s (%s)%s |\n", label, sa, sn, em, sd, rl_fmt_ratio(sr, sizeof sr, ratio), em);
        else putf(b, "| %s | %s | %s | %s%s (from 0)%s |\n", label, sa, sn, em, sd, em);
    }
}

/* The heading and the line of what the figures are for. */
static void title(md *b, const cJSON *d, bool base) {
    const cJSON *hw = rl_json_get(d, "hardware"), *opt = rl_json_get(d, "options"), *sol = rl_json_get(d, "sol");
    put(b, "### rooflens: ");
    if (base) {
        put_text(b, rl_json_get_str(rl_json_get(d, "old"), "label"), MD_MAX_LABEL);
        put(b, " \xe2\x86\x92 "); /* → */
    }
    put_text(b, rl_json_get_str(rl_json_get(d, "new"), "label"), MD_MAX_LABEL);
    if (!base) put(b, " (new model)");
    put(b, "\n\non ");
    put_text(b, rl_json_get_str(hw, "name"), MD_MAX_NAME);
    if (cJSON_IsString(rl_json_get(hw, "power_mode"))) {
        put(b, " (");
        put_text(b, rl_json_get_str(hw, "power_mode"), MD_MAX_NAME);
        put(b, ")");
    }
    put(b, ", precision ");
    put_text(b, rl_json_get_str(rl_json_get(d, "new"), "precision"), MD_MAX_NAME);
    putf(b, ", %s, speed-of-light model %s (%s)", rl_json_get_str(opt, "mode"), rl_word_name(RL_WORD_SOL, rl_json_get_str(sol, "model")),
         rl_word_name(RL_WORD_GRANULARITY, rl_json_get_str(sol, "granularity")));
    if (cJSON_IsNumber(rl_json_get(opt, "batch"))) putf(b, ", batch %g", rl_json_get_num(opt, "batch"));
    put(b, base ? "\n\n| | old | new | change |\n| --- | ---: | ---: | ---: |\n" : "\n\n| | new |\n| --- | ---: |\n");
}

static void llm_rows(md *b, const cJSON *llm) {
    delta_row(b, "LLM time to first token", rl_json_get(llm, "ttft_s"), "s", true, true);
    delta_row(b, "LLM time per output token", rl_json_get(llm, "tpot_s"), "s", true, true);
    delta_row(b, "LLM tokens/s", rl_json_get(llm, "tokens_per_s"), "", false, true);
    delta_row(b, "LLM memory required", rl_json_get(llm, "memory_required_bytes"), "B", false, true);
    const cJSON *fits = rl_json_get(llm, "fits");
    const cJSON *fo = rl_json_get(fits, "old"), *fn = rl_json_get(fits, "new");
    const char *so = cJSON_IsBool(fo) ? (cJSON_IsTrue(fo) ? "yes" : "no") : RL_NO_FIGURE;
    const char *sn = cJSON_IsBool(fn) ? (cJSON_IsTrue(fn) ? "yes" : "no") : RL_NO_FIGURE;
    putf(b, "| fits in device memory | %s | %s | %s |\n", so, sn,
         cJSON_IsTrue(fo) && cJSON_IsFalse(fn) ? "**no longer fits**"
         : cJSON_IsFalse(fo) && cJSON_IsTrue(fn) ? "now fits" : "");
}

/* The forecast's likely range (its band, from the stack's track record),
 * as the speed of light's range is given; "no track record" where a side has none. */
static void forecast_band_row(md *b, const cJSON *t, bool base) {
    const cJSON *lo = rl_json_get(t, "forecast_low_s"), *hi = rl_json_get(t, "forecast_high_s");
    if (!cJSON_IsNumber(rl_json_get(rl_json_get(t, "forecast_s"), "new"))) return;
    char cell[2][112];
    static const char *const side[] = {"old", "new"};
    for (int i = 0; i < 2; i++) {
        double l = rl_json_get_num(lo, side[i]), h = rl_json_get_num(hi, side[i]);
        char x[48], y[48];
        if (isfinite(l) && isfinite(h))
            snprintf(cell[i], sizeof cell[i], "%s \xe2\x80\xa6 %s", rl_fmt_eng(x, sizeof x, l, "s", false),
                     rl_fmt_eng(y, sizeof y, h, "s", false));
        else snprintf(cell[i], sizeof cell[i], "%s", rl_word_name(RL_WORD_TERM, "no_track_record"));
    }
    if (base) putf(b, "| forecast, likely | %s | %s | |\n", cell[0], cell[1]);
    else putf(b, "| forecast, likely | %s |\n", cell[1]);
}

static void headline(md *b, const cJSON *d, bool base) {
    const cJSON *t = rl_json_get(d, "totals");
    title(b, d, base);
    delta_row(b, "**speed of light**", rl_json_get(t, "time_s"), "s", true, base);
    const cJSON *lo = rl_json_get(t, "lower_bound_s"), *up = rl_json_get(t, "upper_bound_s");
    char a1[48], a2[48], b1[48], b2[48];
    rl_fmt_eng(b1, sizeof b1, rl_json_get_num(lo, "new"), "s", false);
    rl_fmt_eng(b2, sizeof b2, rl_json_get_num(up, "new"), "s", false);
    const char *range = rl_word_name(RL_WORD_TERM, "floor_range"); /* the words table's, as every surface names it */
    if (base)
        putf(b, "| %s | %s \xe2\x80\xa6 %s | %s \xe2\x80\xa6 %s | |\n", range, rl_fmt_eng(a1, sizeof a1, rl_json_get_num(lo, "old"), "s", false),
             rl_fmt_eng(a2, sizeof a2, rl_json_get_num(up, "old"), "s", false), b1, b2);
    else putf(b, "| %s | %s \xe2\x80\xa6 %s |\n", range, b1, b2);
    if (cJSON_IsNumber(rl_json_get(rl_json_get(t, "forecast_s"), "new"))) delta_row(b, "forecast", rl_json_get(t, "forecast_s"), "s", false, base);
    forecast_band_row(b, t, base);
    delta_row(b, "energy", rl_json_get(t, "energy_j"), "J", false, base);
    delta_row(b, "FLOPs", rl_json_get(t, "flops"), "FLOP", false, base);
    delta_row(b, "bytes moved", rl_json_get(t, "sol_bytes"), "B", false, base); /* of the model the time is */
    delta_row(b, "parameters", rl_json_get(t, "params"), "", false, base);
    delta_row(b, "weight bytes", rl_json_get(t, "weight_bytes"), "B", false, base);
    delta_row(b, "kernels", rl_json_get(t, "kernels"), "", false, base);
    const cJSON *bound = rl_json_get(t, "bound");
    if (base)
        putf(b, "| bound | %s | %s | %s |\n", rl_word_name(RL_WORD_BOUND, rl_json_get_str(bound, "old")),
             rl_word_name(RL_WORD_BOUND, rl_json_get_str(bound, "new")),
             cJSON_IsTrue(rl_json_get(bound, "changed")) ? "**changed**" : "");
    else putf(b, "| bound | %s |\n", rl_word_name(RL_WORD_BOUND, rl_json_get_str(bound, "new")));
    const cJSON *llm = rl_json_get(d, "llm");
    if (cJSON_IsObject(llm)) llm_rows(b, llm); /* only when both models have LLM figures */
}

/* Whether a list that started at byte `since` may take another item: within
 * MD_MAX_LISTED items, its own share of bytes (so one long list cannot
 * starve the next) and the section's budget. */
static bool room(const md *b, int listed, size_t since, size_t share) {
    return listed < MD_MAX_LISTED && b->n - since < share && b->n < MD_LIST_BYTES;
}

/* One layer of the unsupported/unknown lists: name (domain.op). */
static void layer_item(md *b, const cJSON *l) {
    put_text(b, rl_json_get_str(l, "name")[0] ? rl_json_get_str(l, "name") : "(unnamed)", MD_MAX_NAME);
    put(b, " (");
    if (rl_json_get_str(l, "domain")[0]) {
        put_text(b, rl_json_get_str(l, "domain"), MD_MAX_NAME);
        put(b, ".");
    }
    put_text(b, rl_json_get_str(l, "op"), MD_MAX_NAME);
    put(b, ")");
}

static void layer_counts(md *b, const cJSON *d, bool base) {
    const cJSON *c = rl_json_get(d, "layers");
    if (base)
        putf(b, "\n**Layers:** %g matched (%g by name, %g by op and position; %g changed), %g added, %g removed.\n",
             rl_json_get_num(c, "matched"), rl_json_get_num(c, "matched_by_name"), rl_json_get_num(c, "matched_by_op_position"), rl_json_get_num(c, "changed"),
             rl_json_get_num(c, "added"), rl_json_get_num(c, "removed"));
    else putf(b, "\n**Layers:** %g, all new.\n", rl_json_get_num(c, "new"));
    static const struct { const char *key, *title, *new_title, *why; } lists[] = {
        {"became_unsupported", "Newly unsupported", "Unsupported", "rooflens counts zero FLOPs for an operator it does not know"},
        {"became_unknown", "Cost now unknown", "Cost unknown", "a shape could not be inferred, so the figures of these layers are incomplete"},
    };
    for (size_t k = 0; k < 2; k++) {
        const cJSON *arr = rl_json_get(d, lists[k].key);
        int n = cJSON_GetArraySize(arr), i = 0;
        if (!n) continue;
        putf(b, "\n**%s** (%s): ", base ? lists[k].title : lists[k].new_title, lists[k].why);
        const size_t since = b->n;
        const cJSON *l;
        cJSON_ArrayForEach(l, arr) {
            if (!room(b, i, since, MD_LIST_SHARE)) {
                putf(b, "%s\xe2\x80\xa6 and %d more", i ? ", " : "", n - i);
                break;
            }
            if (i++) put(b, ", ");
            layer_item(b, l);
        }
        put(b, "\n");
    }
}

static void signed_cell(md *b, double v, const char *unit, double ratio) {
    char s[48], r[32];
    if (!isfinite(v)) put(b, RL_NO_FIGURE);
    else if (v == 0) put(b, "0");
    else if (isfinite(ratio)) putf(b, "%s (%s)", rl_fmt_eng(s, sizeof s, v, unit, true), rl_fmt_ratio(r, sizeof r, ratio));
    else put(b, rl_fmt_eng(s, sizeof s, v, unit, true));
}

/* The cells after the op of a matched layer: time old → new and the deltas. */
static void matched_cells(md *b, const cJSON *L) {
    char s1[48], s2[48];
    const cJSON *t = rl_json_get(L, "t");
    putf(b, "%s \xe2\x86\x92 %s | ", rl_fmt_eng(s1, sizeof s1, rl_json_get_num(t, "old"), "s", false),
         rl_fmt_eng(s2, sizeof s2, rl_json_get_num(t, "new"), "s", false));
    signed_cell(b, rl_json_get_num(t, "delta"), "s", rl_json_get_num(t, "ratio"));
    put(b, " | ");
    signed_cell(b, rl_json_get_num(rl_json_get(L, "flops"), "delta"), "FLOP", rl_json_get_num(rl_json_get(L, "flops"), "ratio"));
    put(b, " | ");
    signed_cell(b, rl_json_get_num(rl_json_get(L, "bytes"), "delta"), "B", rl_json_get_num(rl_json_get(L, "bytes"), "ratio"));
    const cJSON *bd = rl_json_get(L, "bound");
    if (strcmp(rl_json_get_str(bd, "old"), rl_json_get_str(bd, "new"))) putf(b, " | %s \xe2\x86\x92 %s |\n", rl_word_name(RL_WORD_BOUND, rl_json_get_str(bd, "old")),
                                                     rl_word_name(RL_WORD_BOUND, rl_json_get_str(bd, "new")));
    else putf(b, " | %s |\n", rl_word_name(RL_WORD_BOUND, rl_json_get_str(bd, "new")));
}

/* The cells after the op of an added (sign +1) or removed (-1) layer; a
 * new model's layers (sign 0) have no deltas, only their figures. */
static void single_cells(md *b, const cJSON *L, double sgn) {
    char s1[48];
    putf(b, "%s | ", rl_fmt_eng(s1, sizeof s1, rl_json_get_num(L, "t"), "s", false));
    if (sgn == 0) {
        put(b, rl_fmt_eng(s1, sizeof s1, rl_json_get_num(L, "flops"), "FLOP", false));
        put(b, " | ");
        put(b, rl_fmt_eng(s1, sizeof s1, rl_json_get_num(L, "bytes"), "B", false));
    } else {
        signed_cell(b, sgn * rl_json_get_num(L, "t"), "s", NAN);
        put(b, " | ");
        signed_cell(b, sgn * rl_json_get_num(L, "flops"), "FLOP", NAN);
        put(b, " | ");
        signed_cell(b, sgn * rl_json_get_num(L, "bytes"), "B", NAN);
    }
    put(b, " | ");
    put_text(b, rl_word_name(RL_WORD_BOUND, rl_json_get_str(L, "bound")), MD_MAX_NAME);
    put(b, " |\n");
}

static void change_row(md *b, const cJSON *d, const cJSON *ch, bool base) {
    const char *kind = rl_json_get_str(ch, "kind");
    const cJSON *L = cJSON_GetArrayItem(rl_json_get(d, kind), (int)rl_json_get_num(ch, "at"));
    const char k = kind[0];
    put(b, "| ");
    put_text(b, rl_json_get_str(L, "name")[0] ? rl_json_get_str(L, "name") : "(unnamed)", MD_MAX_NAME);
    if (k == 'a' && base) put(b, " *(added)*");
    if (k == 'r') put(b, " *(removed)*");
    if (k == 'm' && strcmp(rl_json_get_str(L, "name"), rl_json_get_str(L, "old_name"))) {
        put(b, " (was ");
        put_text(b, rl_json_get_str(L, "old_name")[0] ? rl_json_get_str(L, "old_name") : "unnamed", MD_MAX_NAME);
        put(b, ")");
    }
    put(b, " | ");
    if (k == 'm' && (strcmp(rl_json_get_str(L, "op"), rl_json_get_str(L, "old_op")) || strcmp(rl_json_get_str(L, "domain"), rl_json_get_str(L, "old_domain")))) {
        put_text(b, rl_json_get_str(L, "old_op"), MD_MAX_NAME);
        put(b, " \xe2\x86\x92 ");
    }
    put_text(b, rl_json_get_str(L, "op"), MD_MAX_NAME);
    put(b, " | ");
    if (k == 'm') matched_cells(b, L);
    else single_cells(b, L, !base ? 0 : k == 'r' ? -1 : 1);
}

static void changed_layers(md *b, const cJSON *d, int top, bool base) {
    const cJSON *changes = rl_json_get(d, "changes");
    size_t n = (size_t)cJSON_GetArraySize(changes);
    if (n == 0) {
        put(b, base ? "\nNo layer changed its work (FLOPs, bytes, op or bound).\n" : "\nThe model has no layers.\n");
        return;
    }
    size_t shown = n < (size_t)top ? n : (size_t)top;
    if (base) putf(b, "\n#### %s changed layers\n\n", shown < n ? "Most" : "All");
    else putf(b, "\n#### %s layers\n\n", shown < n ? "Slowest" : "All");
    put(b, base ? "| layer | op | speed of light | \xce\x94 speed of light | \xce\x94 FLOPs | \xce\x94 bytes | bound |\n"
                  "| --- | --- | ---: | ---: | ---: | ---: | --- |\n"
                : "| layer | op | speed of light | FLOPs | bytes moved | bound |\n| --- | --- | ---: | ---: | ---: | --- |\n");
    const cJSON *ch = changes->child;
    const size_t since = b->n;
    size_t i = 0;
    for (; i < shown && ch && b->n - since < MD_TABLE_SHARE && b->n < MD_LIST_BYTES; i++, ch = ch->next)
        change_row(b, d, ch, base);
    if (i < n)
        putf(b, "\n\xe2\x80\xa6 and %zu more %s (`rooflens diff` lists them all%s).\n", n - i,
             base ? "changed, added or removed layers" : "layers", i < shown ? "; this comment keeps within GitHub's size limit" : "");
}

/* The unsupported operator types new in this model, capped like every list. */
static void unsupported_ops(md *b, const cJSON *d, bool base) {
    const cJSON *unsup = rl_json_get(rl_json_get(d, "unsupported_ops"), "added");
    int n = cJSON_GetArraySize(unsup), i = 0;
    if (n <= 0) return;
    put(b, base ? "\n**Operators rooflens does not support, new in this model:** "
                : "\n**Operators rooflens does not support:** ");
    const size_t since = b->n;
    const cJSON *u;
    cJSON_ArrayForEach(u, unsup) {
        if (!room(b, i, since, MD_LIST_SHARE)) {
            putf(b, "%s\xe2\x80\xa6 and %d more", i ? ", " : "", n - i);
            break;
        }
        if (i++) put(b, ", ");
        put_text(b, cJSON_IsString(u) ? u->valuestring : "", MD_MAX_NAME);
    }
    put(b, "\n");
}

static void warnings(md *b, const cJSON *d, bool base) {
    const cJSON *fresh = rl_json_get(rl_json_get(d, "warnings"), "new");
    int n = cJSON_GetArraySize(fresh);
    if (!n) return;
    putf(b, "\n#### %s (%d)\n\n", base ? "New warnings" : "Warnings", n);
    int i = 0;
    const size_t since = b->n;
    const cJSON *w;
    cJSON_ArrayForEach(w, fresh) {
        if (!room(b, i, since, MD_LIST_SHARE)) {
            putf(b, "- \xe2\x80\xa6 and %d more\n", n - i);
            break;
        }
        i++;
        put(b, "- ");
        put_text(b, rl_json_get_str(w, "code"), MD_MAX_NAME);
        put(b, ": ");
        put_text(b, rl_json_get_str(w, "message"), MD_MAX_MESSAGE);
        put(b, "\n");
    }
}

/* The gate's verdict as a word: passed, failed, not-judged (a new model and
 * no threshold that applies to one) or none (no thresholds). */
static const char *verdict(const cJSON *g) {
    if (!cJSON_IsObject(g)) return "none";
    if (!cJSON_IsTrue(rl_json_get(g, "passed"))) return "failed";
    return rl_json_get_num(g, "judged") > 0 ? "passed" : "not-judged";
}

static void gate(md *b, const cJSON *d) {
    const cJSON *g = rl_json_get(d, "gate");
    if (!cJSON_IsObject(g)) return;
    const char *v = verdict(g);
    static const struct { const char *verdict, *shown; } words[] = {
        {"passed", "\xe2\x9c\x85 passed"}, {"failed", "\xe2\x9d\x8c failed"},
        {"not-judged", "\xe2\x9a\xaa not judged (no threshold applies to a new model; `unsupported` and `unknown` do)"},
    };
    const char *shown = "";
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (!strcmp(words[i].verdict, v)) shown = words[i].shown;
    /* the expression parsed, so it holds no backtick: a code span shows it as typed */
    char expr[MD_MAX_EXPRESSION * 2];
    const char *e = rl_json_get_str(g, "expression");
    rl_snprintf_utf8(expr, sizeof expr, "%.*s", MD_MAX_EXPRESSION, e);
    putf(b, "\n**Gate** `%s%s`: %s\n", expr, strlen(e) > MD_MAX_EXPRESSION ? "\xe2\x80\xa6" : "", shown);
    const cJSON *c;
    int left = 0;
    cJSON_ArrayForEach(c, rl_json_get(g, "clauses")) {
        if (!strcmp(rl_json_get_str(c, "status"), "pass")) continue;
        if (b->n >= MD_GATE_BYTES) {
            left++;
            continue;
        }
        const char *clause = rl_json_get_str(c, "clause"), *msg = rl_json_get_str(c, "message");
        size_t n = strlen(clause);
        if (!strncmp(msg, clause, n) && msg[n] == ':') msg += n + 1;
        putf(b, "- `%s`:", clause);
        put_text(b, msg, MD_MAX_MESSAGE);
        put(b, "\n");
    }
    if (left) putf(b, "- \xe2\x80\xa6 and %d more (`rooflens diff` lists them all)\n", left);
}

char *rl_markdown_text(const char *s, int max_chars) {
    md b = {0};
    put_text(&b, s ? s : "", max_chars > 0 ? max_chars : -1);
    put(&b, "");
    return rl_json_text_finish(&b);
}

/* One model's section: every part reads the built diff object. */
char *rl_diff_markdown(const cJSON *d, int top) {
    md b = {0};
    bool base = !cJSON_IsNull(rl_json_get(d, "old"));
    headline(&b, d, base);
    layer_counts(&b, d, base);
    /* the page's graph of the change, when both models have addresses
     * (diff.page_link: checked and percent-encoded by the diff) */
    const char *link = cJSON_GetStringValue(rl_json_get(d, "page_link"));
    if (link) {
        put(&b, "\n[See what changed in the graph](");
        put(&b, link);
        put(&b, ") (both models, each layer coloured by its change)\n");
    }
    changed_layers(&b, d, top, base);
    unsupported_ops(&b, d, base);
    warnings(&b, d, base);
    gate(&b, d);
    /* The verdict, last and hidden: a name cannot forge it (its `<` is
     * escaped), so a script that finds it knows the section is whole and
     * what the gate said (tools/ci/diff-pr.sh reads it). */
    putf(&b, "\n<!-- rooflens-gate: %s -->\n", verdict(rl_json_get(d, "gate")));
    return rl_json_text_finish(&b);
}
