/* The --fail-if gate: a list of thresholds on a diff's changes, parsed and
 * judged in the core so the CLI, the Action and the page agree. Grammar
 * (docs/ci.md):
 *
 *   EXPR      := CLAUSE ("," CLAUSE)*
 *   CLAUSE    := METRIC COMPARE THRESHOLD
 *   COMPARE   := ">" | ">=" | "<" | "<="
 *   THRESHOLD := ["+" | "-"] NUMBER (UNIT | "%")?
 *
 * A "%" threshold is a relative change ((new - old) / old, in percent); any
 * other is the absolute change new - old in the metric's unit. A count
 * metric (unsupported, unknown, added, removed) is a number of layers of the
 * new model and takes whole numbers only. A clause is crossed when its value
 * satisfies the comparison. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "json.h"

#define GATE_MAX_CLAUSES 32
#define GATE_MAX_CHARS 4096

enum metric_kind { MK_TOTAL, MK_LLM, MK_COUNT };
enum compare { CMP_GT, CMP_GE, CMP_LT, CMP_LE };
static const char *const compare_text[] = {">", ">=", "<", "<="};

/* The one table of metrics: name, unit, where the figure sits in the diff
 * object (totals.KEY, llm.KEY, or layers.KEY for counts), what it is. */
static const struct metric {
    const char *name, *unit;
    enum metric_kind kind;
    const char *key, *what;
} metrics[] = {
    {"time", "s", MK_TOTAL, "time_s", "speed-of-light time, the floor (sol.chosen.time_s)"},
    {"lower_bound", "s", MK_TOTAL, "lower_bound_s", "lower bound of the speed-of-light time"},
    {"upper_bound", "s", MK_TOTAL, "upper_bound_s", "upper bound of the speed-of-light time"},
    {"forecast", "s", MK_TOTAL, "forecast_s", "the forecast on the profile's stack (forecast.time_s)"},
    {"energy", "J", MK_TOTAL, "energy_j", "energy per inference (sol.chosen.energy_j)"},
    {"flops", "FLOP", MK_TOTAL, "flops", "FLOPs of all layers"},
    {"bytes", "B", MK_TOTAL, "bytes", "bytes moved by all layers (unfused)"},
    {"params", "", MK_TOTAL, "params", "parameters (weight elements)"},
    {"weights", "B", MK_TOTAL, "weight_bytes", "bytes of the weights"},
    {"kernels", "", MK_TOTAL, "kernels", "device kernels launched"},
    {"launch_floor", "s", MK_TOTAL, "launch_floor_s", "kernels x launch overhead"},
    {"layers", "", MK_TOTAL, "layers", "layers of the main graph"},
    {"ttft", "s", MK_LLM, "ttft_s", "LLM time to first token, the forecast (llm.ttft_s)"},
    {"tpot", "s", MK_LLM, "tpot_s", "LLM time per output token, the forecast (llm.tpot_s)"},
    {"llm_memory", "B", MK_LLM, "memory_required_bytes", "LLM weights + KV cache + activations"},
    {"unsupported", "", MK_COUNT, "became_unsupported",
     "layers of the new model whose operator is not supported and whose old layer was (or is new)"},
    {"unknown", "", MK_COUNT, "became_unknown",
     "layers of the new model whose cost is unknown and whose old layer's was known (or is new)"},
    {"added", "", MK_COUNT, "added", "layers only the new model has"},
    {"removed", "", MK_COUNT, "removed", "layers only the old model has"},
};
#define N_METRICS (sizeof metrics / sizeof *metrics)

/* A new model has no base: only the counts of its own unsupported and
 * unknown layers mean something; every change is judged against nothing. */
static bool needs_base(const struct metric *mt) {
    return mt->kind != MK_COUNT || !strcmp(mt->name, "added") || !strcmp(mt->name, "removed");
}

typedef struct clause {
    int metric;
    enum compare cmp;
    double threshold; /* percent when relative, else in the metric's base unit */
    bool relative;
    int start, len;   /* the clause's text in the expression */
} clause;

struct rl_gate {
    char *expr;
    int n;
    clause c[GATE_MAX_CLAUSES];
};

cJSON *rl_gate_metrics_json(void) {
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < N_METRICS; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", metrics[i].name);
        cJSON_AddStringToObject(o, "unit", metrics[i].unit);
        cJSON_AddStringToObject(o, "kind", metrics[i].kind == MK_COUNT ? "count" : "change");
        cJSON_AddStringToObject(o, "what", metrics[i].what);
        cJSON_AddBoolToObject(o, "needs_base", needs_base(&metrics[i]));
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

/* ------------------------------------------------------------- parsing -- */
static void metric_list(char *buf, size_t cap) {
    size_t p = 0;
    buf[0] = 0;
    for (size_t i = 0; i < N_METRICS && p < cap; i++)
        p += (size_t)snprintf(buf + p, cap - p, "%s%s", i ? ", " : "", metrics[i].name);
}

/* The units a threshold of `unit` may carry, and what each multiplies by. */
static bool unit_factor(const char *unit, const char *s, size_t n, double *f) {
    static const struct { const char *p; double f; bool sub, binary; } prefixes[] = {
        {"", 1, false, false},      {"n", 1e-9, true, false},   {"u", 1e-6, true, false},
        {"\xc2\xb5", 1e-6, true, false}, {"m", 1e-3, true, false}, {"k", 1e3, false, false},
        {"M", 1e6, false, false},   {"G", 1e9, false, false},   {"T", 1e12, false, false},
        {"P", 1e15, false, false},  {"Ki", 1024.0, false, true}, {"Mi", 1048576.0, false, true},
        {"Gi", 1073741824.0, false, true}, {"Ti", 1099511627776.0, false, true},
    };
    const bool physical = !strcmp(unit, "s") || !strcmp(unit, "J"), bytes = !strcmp(unit, "B");
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
        if (prefixes[i].sub && !physical) continue;
        if (prefixes[i].binary && !bytes) continue;
        size_t pl = strlen(prefixes[i].p), ul = strlen(unit);
        /* prefix + unit ("ms", "MB", "GFLOP"), or a bare prefix for counts and FLOPs ("10k", "2G") */
        bool with_unit = n == pl + ul && ul > 0 && !strncmp(s, prefixes[i].p, pl) && !strncmp(s + pl, unit, ul);
        bool bare = n == pl && pl > 0 && !strncmp(s, prefixes[i].p, pl) && (!ul || !strcmp(unit, "FLOP"));
        if (with_unit || bare) {
            *f = prefixes[i].f;
            return true;
        }
    }
    return false;
}

static const char *unit_examples(const char *unit) {
    if (!strcmp(unit, "s")) return "s, ms, us or ns";
    if (!strcmp(unit, "J")) return "J, mJ, uJ or kJ";
    if (!strcmp(unit, "B")) return "B, kB, MB, GB, KiB, MiB or GiB";
    if (!strcmp(unit, "FLOP")) return "k, M, G, T (or kFLOP, MFLOP, ...)";
    return "k, M or G";
}

/* Sets a bad_fail_if error at 0-based byte `at` of `expr`; returns false. */
static bool fail_at(rl_error *err, const char *expr, size_t at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static bool fail_at(rl_error *err, const char *expr, size_t at, const char *fmt, ...) {
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    char where[48];
    snprintf(where, sizeof where, "diff.fail_if:%zu", at + 1);
    rl_error_set(err, "bad_fail_if", where, "%s, at character %zu of \"%.200s\" (see docs/ci.md for the grammar)",
                 what, at + 1, expr);
    return false;
}

static size_t skip_ws(const char *s, size_t p) {
    while (s[p] == ' ' || s[p] == '\t') p++;
    return p;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* METRIC COMPARE: sets c->metric and c->cmp, advances *p. */
static bool parse_metric(const char *expr, size_t *p, clause *c, rl_error *err) {
    size_t start = *p, q = *p;
    while ((expr[q] >= 'a' && expr[q] <= 'z') || expr[q] == '_') q++;
    char metric[64], names[400];
    snprintf(metric, sizeof metric, "%.*s", (int)(q - start), expr + start);
    metric_list(names, sizeof names);
    if (q == start) return fail_at(err, expr, start, "expected a metric (one of %s)", names);
    c->metric = -1;
    for (size_t i = 0; i < N_METRICS; i++)
        if (!strcmp(metric, metrics[i].name)) c->metric = (int)i;
    if (c->metric < 0) return fail_at(err, expr, start, "unknown metric '%s' (the metrics are %s)", metric, names);
    q = skip_ws(expr, q);
    if (expr[q] != '>' && expr[q] != '<')
        return fail_at(err, expr, q, "expected a comparison (>, >=, < or <=) after '%s'", metric);
    bool eq = expr[q + 1] == '=';
    c->cmp = expr[q] == '>' ? (eq ? CMP_GE : CMP_GT) : (eq ? CMP_LE : CMP_LT);
    *p = q + (eq ? 2 : 1);
    return true;
}

/* THRESHOLD: a signed number, then a unit or %; sets c->threshold and
 * c->relative, advances *p. */
static bool parse_threshold(const char *expr, size_t *p, clause *c, rl_error *err) {
    const struct metric *mt = &metrics[c->metric];
    size_t num = skip_ws(expr, *p), q = num;
    if (expr[q] == '+' || expr[q] == '-') q++;
    size_t digits = q;
    while (is_digit(expr[q])) q++;
    if (expr[q] == '.') {
        q++;
        while (is_digit(expr[q])) q++;
    }
    if (q == digits || (q == digits + 1 && expr[digits] == '.'))
        return fail_at(err, expr, num, "expected a number after '%s%s' (for example +5%% or +2ms)", mt->name,
                       compare_text[c->cmp]);
    if ((expr[q] == 'e' || expr[q] == 'E') &&
        (is_digit(expr[q + 1]) || ((expr[q + 1] == '+' || expr[q + 1] == '-') && is_digit(expr[q + 2])))) {
        q += 2;
        while (is_digit(expr[q])) q++;
    }
    char text[64];
    snprintf(text, sizeof text, "%.*s", (int)(q - num), expr + num);
    double value = strtod(text, NULL);
    if (!isfinite(value) || q - num >= sizeof text)
        return fail_at(err, expr, num, "the number '%s' is out of range", text);
    size_t unit = q;
    while ((expr[q] >= 'a' && expr[q] <= 'z') || (expr[q] >= 'A' && expr[q] <= 'Z') || (unsigned char)expr[q] >= 0x80)
        q++;
    double factor = 1;
    if (q > unit && !unit_factor(mt->unit, expr + unit, q - unit, &factor)) {
        char u[64], use[160];
        snprintf(u, sizeof u, "%.*s", (int)(q - unit), expr + unit);
        if (mt->kind == MK_COUNT) snprintf(use, sizeof use, "nothing: it is a count");
        else snprintf(use, sizeof use, "%s, or %% for a relative change", unit_examples(mt->unit));
        return fail_at(err, expr, unit, "unknown unit '%s' for this metric (use %s)", u, use);
    }
    if (expr[q] == '%') {
        if (q > unit) return fail_at(err, expr, q, "a threshold is either relative (%%) or in a unit, not both");
        if (mt->kind == MK_COUNT)
            return fail_at(err, expr, q, "'%s' is a count of layers and takes a whole number (for example %s>0), not a percentage",
                           mt->name, mt->name);
        c->relative = true;
        q++;
    }
    if (mt->kind == MK_COUNT && value != floor(value))
        return fail_at(err, expr, num, "'%s' is a count of layers and takes a whole number, not %s", mt->name, text);
    /* 1e300 is a finite number, 1e300TiB is not: judging against an
     * infinite threshold would pass or fail whatever the models do */
    if (!isfinite(value * factor))
        return fail_at(err, expr, num, "the threshold '%.*s' is out of range once its unit is applied", (int)(q - num),
                       expr + num);
    c->threshold = value * factor;
    *p = q;
    return true;
}

rl_gate *rl_gate_parse(const char *expr, rl_error *err) {
    size_t len = strlen(expr);
    if (len > GATE_MAX_CHARS) {
        fail_at(err, expr, GATE_MAX_CHARS, "the expression is longer than %d characters", GATE_MAX_CHARS);
        return NULL;
    }
    rl_gate *g = calloc(1, sizeof *g);
    char *copy = malloc(len + 1);
    if (!g || !copy) {
        free(g);
        free(copy);
        rl_error_set(err, "out_of_memory", "diff.fail_if", "out of memory");
        return NULL;
    }
    memcpy(copy, expr, len + 1);
    g->expr = copy;
    size_t p = skip_ws(expr, 0);
    bool ok = expr[p] ? true
                      : fail_at(err, expr, p, "the expression is empty (give thresholds such as %s)",
                                "time>+5%,flops>+10%,unsupported>0");
    while (ok) {
        if (g->n == GATE_MAX_CLAUSES) {
            ok = fail_at(err, expr, p, "more than %d thresholds", GATE_MAX_CLAUSES);
            break;
        }
        clause *c = &g->c[g->n];
        c->start = (int)p;
        if (!(ok = parse_metric(expr, &p, c, err) && parse_threshold(expr, &p, c, err))) break;
        size_t end = p;
        while (end > (size_t)c->start && (expr[end - 1] == ' ' || expr[end - 1] == '\t')) end--;
        c->len = (int)(end - (size_t)c->start);
        g->n++;
        p = skip_ws(expr, p);
        if (!expr[p]) break;
        if (expr[p] != ',') {
            char seen[80];
            snprintf(seen, sizeof seen, "%.*s", c->len, expr + c->start);
            ok = fail_at(err, expr, p, "expected ',' or the end after '%s'", seen);
            break;
        }
        p = skip_ws(expr, p + 1);
        if (!expr[p]) ok = fail_at(err, expr, p, "a ',' must be followed by another threshold");
    }
    if (ok) return g;
    rl_gate_free(g);
    return NULL;
}

void rl_gate_free(rl_gate *g) {
    if (!g) return;
    free(g->expr);
    free(g);
}

/* ----------------------------------------------------------- judging -- */

static bool crossed(double v, enum compare c, double t) {
    switch (c) {
    case CMP_GT: return v > t;
    case CMP_GE: return v >= t;
    case CMP_LT: return v < t;
    default: return v <= t;
    }
}

static const char *threshold_text(const clause *c, const struct metric *mt, char *buf, size_t cap) {
    if (c->relative) snprintf(buf, cap, "%+g%%", c->threshold);
    else if (mt->kind == MK_COUNT) snprintf(buf, cap, "%g", c->threshold);
    else rl_fmt_eng(buf, cap, c->threshold, mt->unit, true);
    return buf;
}

/* The value of clause c on diff d (NAN: no value) and how it reads. */
static double clause_value(const clause *c, const cJSON *diff, char *shown, size_t cap) {
    const struct metric *mt = &metrics[c->metric];
    double value = NAN;
    snprintf(shown, cap, "no value");
    if (mt->kind == MK_COUNT) {
        value = rl_json_get_num(cJSON_GetObjectItemCaseSensitive(diff, "layers"), mt->key);
        if (isfinite(value)) snprintf(shown, cap, "%g", value);
        return value;
    }
    const cJSON *sec = cJSON_GetObjectItemCaseSensitive(diff, mt->kind == MK_LLM ? "llm" : "totals");
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(sec, mt->key);
    double old = rl_json_get_num(d, "old"), now = rl_json_get_num(d, "new");
    if (!isfinite(old) || !isfinite(now)) return NAN;
    double delta = now - old;
    value = !c->relative ? delta : old != 0 ? 100 * delta / old : delta == 0 ? 0 : copysign(INFINITY, delta);
    char a[48], b[48], v[48];
    rl_fmt_eng(a, sizeof a, old, mt->unit, false);
    rl_fmt_eng(b, sizeof b, now, mt->unit, false);
    if (c->relative) rl_fmt_ratio(v, sizeof v, old != 0 ? delta / old : value);
    else rl_fmt_eng(v, sizeof v, delta, mt->unit, true);
    snprintf(shown, cap, "%s (%s -> %s)", v, a, b);
    return value;
}

/* One clause's verdict as {"clause", ..., "status", "message"}; `status`
 * gets pass, fail, unknown or skipped (a change metric of a new model). */
static cJSON *judge_clause(const rl_gate *g, const clause *c, const cJSON *diff, bool base, const char **status) {
    const struct metric *mt = &metrics[c->metric];
    cJSON *o = cJSON_CreateObject();
    char text[128];
    rl_snprintf_utf8(text, sizeof text, "%.*s", c->len < 120 ? c->len : 120, g->expr + c->start);
    cJSON_AddStringToObject(o, "clause", text);
    cJSON_AddStringToObject(o, "metric", mt->name);
    cJSON_AddStringToObject(o, "compare", compare_text[c->cmp]);
    cJSON_AddNumberToObject(o, "threshold", c->threshold);
    cJSON_AddBoolToObject(o, "relative", c->relative);
    char shown[160];
    bool skip = !base && needs_base(mt);
    double value = skip ? NAN : clause_value(c, diff, shown, sizeof shown);
    *status = skip ? "skipped" : isnan(value) ? "unknown" : crossed(value, c->cmp, c->threshold) ? "fail" : "pass";
    if (isfinite(value)) cJSON_AddNumberToObject(o, "value", value);
    else cJSON_AddNullToObject(o, "value");
    cJSON_AddStringToObject(o, "status", *status);
    char thr[48], msg[400];
    threshold_text(c, mt, thr, sizeof thr);
    if (skip)
        rl_snprintf_utf8(msg, sizeof msg, "%s: not judged (%s is a change, and a new model has no base)", text, mt->name);
    else if (!strcmp(*status, "unknown"))
        rl_snprintf_utf8(msg, sizeof msg, "%s: no value to judge (%s is not known for both models%s)", text, mt->what,
                         mt->kind == MK_LLM ? "; the LLM figures need an LLM analysis of both" : "");
    else
        rl_snprintf_utf8(msg, sizeof msg, "%s: %s %s %s %s", text, mt->name, shown,
                         strcmp(*status, "fail") ? "keeps within"
                         : c->cmp == CMP_GT || c->cmp == CMP_GE ? "exceeds" : "falls below",
                         thr);
    cJSON_AddStringToObject(o, "message", msg);
    return o;
}

/* A diff whose "old" is null compares a new model with nothing. */
cJSON *rl_gate_eval(const rl_gate *g, const cJSON *diff) {
    cJSON *out = cJSON_CreateObject();
    if (!out) return NULL;
    cJSON_AddStringToObject(out, "expression", g->expr);
    cJSON *arr = cJSON_CreateArray();
    bool base = !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(diff, "old"));
    int failed = 0, unknown = 0, skipped = 0;
    char summary[1024] = "";
    size_t sp = 0;
    for (int i = 0; i < g->n; i++) {
        const char *status;
        cJSON *o = judge_clause(g, &g->c[i], diff, base, &status);
        cJSON_AddItemToArray(arr, o);
        skipped += !strcmp(status, "skipped");
        if (strcmp(status, "pass") && strcmp(status, "skipped")) {
            failed += !strcmp(status, "fail");
            unknown += !strcmp(status, "unknown");
            const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "message");
            if (sp < sizeof summary && cJSON_IsString(m))
                sp += (size_t)snprintf(summary + sp, sizeof summary - sp, "%s%s", sp ? "; " : "", m->valuestring);
        }
    }
    rl_utf8_repair(summary); /* the last message may have been cut */
    cJSON_AddItemToObject(out, "clauses", arr);
    cJSON_AddBoolToObject(out, "passed", failed == 0 && unknown == 0);
    cJSON_AddNumberToObject(out, "judged", g->n - skipped - unknown);
    char msg[1200];
    if (failed == 0 && unknown == 0 && skipped == g->n)
        snprintf(msg, sizeof msg, "no threshold judged: a new model has no base for %s", g->n == 1 ? "it" : "any of them");
    else if (failed == 0 && unknown == 0 && skipped)
        snprintf(msg, sizeof msg, "every threshold judged holds (%d checked; %d need a base, which a new model lacks)",
                 g->n - skipped, skipped);
    else if (failed == 0 && unknown == 0)
        snprintf(msg, sizeof msg, "every threshold holds (%d checked)", g->n);
    else if (!unknown)
        snprintf(msg, sizeof msg, "%d of %d thresholds crossed: %s", failed, g->n, summary);
    else if (!failed)
        snprintf(msg, sizeof msg, "%d of %d thresholds could not be judged: %s", unknown, g->n, summary);
    else
        snprintf(msg, sizeof msg, "%d of %d thresholds crossed and %d could not be judged: %s", failed, g->n,
                 unknown, summary);
    rl_utf8_repair(msg);
    cJSON_AddStringToObject(out, "message", msg);
    return out;
}
