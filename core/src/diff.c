/* Model diff (rl_models_diff; the one-row summary of an analysis and the
 * headline figures both read are summary.c's). Both models are analysed with the same request, and
 * the diff is built from the two responses, so every figure it shows is one
 * the single analyses show. The JSON contract is docs/api.md ("Diff"); the
 * layer-matching rule and the --fail-if grammar are in docs/ci.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "diff.h"
#include "diff_match.h"
#include "graph.h"
#include "json.h"

#define DIFF_MAX_LABEL 512
#define DIFF_MAX_TOP 1000
#define DIFF_DEFAULT_TOP 10

/* An error response of an inner analysis, prefixed with which model it was. */
static void inner_error(const cJSON *res, const char *which, const char *label, rl_error *err) {
    const cJSON *e = rl_json_get(res, "error");
    char where[256];
    snprintf(where, sizeof where, "%s%s%s", which, rl_json_get_str(e, "where")[0] ? ": " : "", rl_json_get_str(e, "where"));
    rl_error_set(err, rl_json_get_str(e, "code")[0] ? rl_json_get_str(e, "code") : "internal", where, "the %s model (%s): %s", which,
                 label, rl_json_get_str(e, "message"));
}

/* --------------------------------------------------------------- JSON -- */
/* {old, new, delta, ratio}: ratio = delta / old (0 when both are 0, null
 * when old is 0 and new is not); null figures where either is unknown. */
static void delta_obj(cJSON *parent, const char *k, double a, double b) {
    cJSON *o = cJSON_AddObjectToObject(parent, k);
    rl_json_add_num(o, "old", a);
    rl_json_add_num(o, "new", b);
    bool known = isfinite(a) && isfinite(b);
    rl_json_add_num(o, "delta", known ? b - a : NAN);
    rl_json_add_num(o, "ratio", !known ? NAN : a != 0 ? (b - a) / a : b == a ? 0 : NAN);
}

static void pair_str(cJSON *parent, const char *k, const char *a, const char *b) {
    cJSON *o = cJSON_AddObjectToObject(parent, k);
    cJSON_AddStringToObject(o, "old", a);
    cJSON_AddStringToObject(o, "new", b);
}

static void pair_bool(cJSON *parent, const char *k, bool a, bool b) {
    cJSON *o = cJSON_AddObjectToObject(parent, k);
    cJSON_AddBoolToObject(o, "old", a);
    cJSON_AddBoolToObject(o, "new", b);
}

static bool layer_changed(const dlayer *a, const dlayer *b) {
    return a->flops != b->flops || a->bytes != b->bytes || strcmp(a->op, b->op) || strcmp(a->domain, b->domain) ||
           strcmp(a->bound, b->bound) || a->supported != b->supported || a->known != b->known;
}

static cJSON *matched_json(const dlayer *a, const dlayer *b) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "old_index", a->index);
    cJSON_AddNumberToObject(o, "new_index", b->index);
    cJSON_AddStringToObject(o, "name", b->name);
    cJSON_AddStringToObject(o, "old_name", a->name);
    cJSON_AddStringToObject(o, "op", b->op);
    cJSON_AddStringToObject(o, "domain", b->domain);
    cJSON_AddStringToObject(o, "old_op", a->op);
    cJSON_AddStringToObject(o, "old_domain", a->domain);
    cJSON_AddStringToObject(o, "matched_by", b->matched_by == 'n' ? "name" : "op_position");
    cJSON_AddBoolToObject(o, "changed", layer_changed(a, b));
    delta_obj(o, "flops", a->flops, b->flops);
    delta_obj(o, "bytes", a->bytes, b->bytes);
    delta_obj(o, "intensity", a->intensity, b->intensity);
    delta_obj(o, "t", a->t, b->t);
    delta_obj(o, "forecast_s", a->forecast, b->forecast);
    delta_obj(o, "energy_j", a->energy, b->energy);
    delta_obj(o, "kernel_intensity", a->kernel_intensity, b->kernel_intensity);
    delta_obj(o, "kernel_flops_per_s", a->kernel_flops_per_s, b->kernel_flops_per_s);
    pair_str(o, "bound", a->bound, b->bound);
    pair_bool(o, "supported", a->supported, b->supported);
    pair_bool(o, "known", a->known, b->known);
    return o;
}

static cJSON *brief_json(const dlayer *l) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "index", l->index);
    cJSON_AddStringToObject(o, "name", l->name);
    cJSON_AddStringToObject(o, "op", l->op);
    cJSON_AddStringToObject(o, "domain", l->domain);
    return o;
}

static cJSON *single_json(const dlayer *l) {
    cJSON *o = brief_json(l);
    rl_json_add_num(o, "flops", l->flops);
    rl_json_add_num(o, "bytes", l->bytes);
    rl_json_add_num(o, "intensity", l->intensity);
    rl_json_add_num(o, "t", l->t);
    rl_json_add_num(o, "forecast_s", l->forecast);
    rl_json_add_num(o, "energy_j", l->energy);
    rl_json_add_num(o, "kernel_intensity", l->kernel_intensity);
    rl_json_add_num(o, "kernel_flops_per_s", l->kernel_flops_per_s);
    cJSON_AddStringToObject(o, "bound", l->bound);
    cJSON_AddBoolToObject(o, "supported", l->supported);
    cJSON_AddBoolToObject(o, "known", l->known);
    return o;
}

static void add_layers(cJSON *d, const dlayer *o, int n, const dlayer *nw, int m) {
    cJSON *matched = cJSON_AddArrayToObject(d, "matched");
    cJSON *added = cJSON_AddArrayToObject(d, "added");
    cJSON *removed = cJSON_AddArrayToObject(d, "removed");
    cJSON *unsup = cJSON_AddArrayToObject(d, "became_unsupported");
    cJSON *unknown = cJSON_AddArrayToObject(d, "became_unknown");
    int n_changed = 0, by_name = 0, by_pos = 0;
    for (int j = 0; j < m; j++) {
        const dlayer *b = &nw[j];
        const dlayer *a = b->partner >= 0 ? &o[b->partner] : NULL;
        if (a) {
            cJSON_AddItemToArray(matched, matched_json(a, b));
            n_changed += layer_changed(a, b);
            if (b->matched_by == 'n') by_name++;
            else by_pos++;
        } else {
            cJSON_AddItemToArray(added, single_json(b));
        }
        if (!b->supported && (!a || a->supported)) cJSON_AddItemToArray(unsup, brief_json(b));
        if (!b->known && (!a || a->known)) cJSON_AddItemToArray(unknown, brief_json(b));
    }
    for (int i = 0; i < n; i++)
        if (o[i].partner < 0) cJSON_AddItemToArray(removed, single_json(&o[i]));
    cJSON *c = cJSON_AddObjectToObject(d, "layers");
    cJSON_AddNumberToObject(c, "old", n);
    cJSON_AddNumberToObject(c, "new", m);
    cJSON_AddNumberToObject(c, "matched", by_name + by_pos);
    cJSON_AddNumberToObject(c, "matched_by_name", by_name);
    cJSON_AddNumberToObject(c, "matched_by_op_position", by_pos);
    cJSON_AddNumberToObject(c, "changed", n_changed);
    cJSON_AddNumberToObject(c, "added", cJSON_GetArraySize(added));
    cJSON_AddNumberToObject(c, "removed", cJSON_GetArraySize(removed));
    cJSON_AddNumberToObject(c, "became_unsupported", cJSON_GetArraySize(unsup));
    cJSON_AddNumberToObject(c, "became_unknown", cJSON_GetArraySize(unknown));
}

/* The changed layers, most changed first: matched layers whose work
 * changed, added and removed ones, by |Δ time|, then |Δ FLOPs|, then
 * |Δ bytes|, then their order in the diff. One ranking for the Markdown,
 * the CLI and the page: diff.changes = [{"kind", "at"}], "at" indexing
 * diff.matched, diff.added or diff.removed. */
typedef struct change {
    double key[3];
    int order, at;
    char kind;
} change;

static int by_change(const void *x, const void *y) {
    const change *a = x, *b = y;
    for (int i = 0; i < 3; i++)
        if (a->key[i] != b->key[i]) return a->key[i] < b->key[i] ? 1 : -1;
    return a->order < b->order ? -1 : a->order > b->order; /* qsort is not stable */
}

static double mag(double v) { return isfinite(v) ? fabs(v) : 0; }

static bool add_changes(cJSON *d, const dlayer *o, int n, const dlayer *nw, int m) {
    change *rows = malloc((size_t)(n + m + 1) * sizeof *rows);
    if (!rows) return false;
    int k = 0, at_m = 0, at_a = 0, at_r = 0;
    for (int j = 0; j < m; j++) {
        const dlayer *b = &nw[j], *a = b->partner >= 0 ? &o[b->partner] : NULL;
        if (a && !layer_changed(a, b)) {
            at_m++;
            continue;
        }
        double dt = a ? b->t - a->t : b->t, df = a ? b->flops - a->flops : b->flops, db = a ? b->bytes - a->bytes : b->bytes;
        rows[k] = (change){{mag(dt), mag(df), mag(db)}, k, a ? at_m++ : at_a++, a ? 'm' : 'a'};
        k++;
    }
    for (int i = 0; i < n; i++) {
        if (o[i].partner >= 0) continue;
        rows[k] = (change){{mag(o[i].t), mag(o[i].flops), mag(o[i].bytes)}, k, at_r++, 'r'};
        k++;
    }
    qsort(rows, (size_t)k, sizeof *rows, by_change);
    cJSON *arr = cJSON_AddArrayToObject(d, "changes");
    for (int i = 0; i < k; i++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "kind", rows[i].kind == 'm' ? "matched" : rows[i].kind == 'a' ? "added" : "removed");
        cJSON_AddNumberToObject(c, "at", rows[i].at);
        cJSON_AddItemToArray(arr, c);
    }
    free(rows);
    return true;
}

static void add_totals(cJSON *d, const rl_summary *a, const rl_summary *b) {
    cJSON *t = cJSON_AddObjectToObject(d, "totals");
    delta_obj(t, "time_s", a->time_s, b->time_s);
    delta_obj(t, "lower_bound_s", a->lower_bound_s, b->lower_bound_s);
    delta_obj(t, "upper_bound_s", a->upper_bound_s, b->upper_bound_s);
    delta_obj(t, "forecast_s", a->forecast_s, b->forecast_s);
    delta_obj(t, "forecast_low_s", a->forecast_low_s, b->forecast_low_s);
    delta_obj(t, "forecast_high_s", a->forecast_high_s, b->forecast_high_s);
    delta_obj(t, "energy_j", a->energy_j, b->energy_j);
    delta_obj(t, "flops", a->flops, b->flops);
    delta_obj(t, "bytes", a->bytes, b->bytes);
    delta_obj(t, "sol_bytes", a->sol_bytes, b->sol_bytes);
    delta_obj(t, "intensity", a->intensity, b->intensity);
    delta_obj(t, "params", a->params, b->params);
    delta_obj(t, "weight_bytes", a->weight_bytes, b->weight_bytes);
    delta_obj(t, "kernels", a->kernels, b->kernels);
    delta_obj(t, "launch_floor_s", a->launch_floor_s, b->launch_floor_s);
    delta_obj(t, "layers", a->layers, b->layers);
    delta_obj(t, "unknown_layers", a->unknown_layers, b->unknown_layers);
    cJSON *bound = cJSON_AddObjectToObject(t, "bound");
    cJSON_AddStringToObject(bound, "old", a->bound);
    cJSON_AddStringToObject(bound, "new", b->bound);
    cJSON_AddBoolToObject(bound, "changed", a->bound[0] && strcmp(a->bound, b->bound) != 0); /* no base: no change */

    /* The LLM phases only when both responses carry them: a figure of one
     * model alone is no change. */
    if (!a->llm || !b->llm) {
        cJSON_AddNullToObject(d, "llm");
        return;
    }
    cJSON *l = cJSON_AddObjectToObject(d, "llm");
    delta_obj(l, "ttft_s", a->ttft_s, b->ttft_s);
    delta_obj(l, "tpot_s", a->tpot_s, b->tpot_s);
    delta_obj(l, "tokens_per_s", a->tokens_per_s, b->tokens_per_s);
    delta_obj(l, "memory_required_bytes", a->llm_memory_bytes, b->llm_memory_bytes);
    delta_obj(l, "kv_cache_bytes", a->kv_cache_bytes, b->kv_cache_bytes);
    cJSON *fits = cJSON_AddObjectToObject(l, "fits");
    if (a->fits < 0) cJSON_AddNullToObject(fits, "old");
    else cJSON_AddBoolToObject(fits, "old", a->fits == 1);
    if (b->fits < 0) cJSON_AddNullToObject(fits, "new");
    else cJSON_AddBoolToObject(fits, "new", b->fits == 1);
}

/* Op types unsupported in one model and not in the other. */
static void add_unsupported(cJSON *d, const rl_summary *a, const rl_summary *b) {
    cJSON *u = cJSON_AddObjectToObject(d, "unsupported_ops");
    cJSON *added = cJSON_AddArrayToObject(u, "added"), *removed = cJSON_AddArrayToObject(u, "removed");
    for (int s = 0; s < 2; s++) {
        const cJSON *from = s ? a->unsupported_ops : b->unsupported_ops;
        const cJSON *other = s ? b->unsupported_ops : a->unsupported_ops;
        const cJSON *x, *y;
        cJSON_ArrayForEach(x, from) {
            if (!cJSON_IsString(x)) continue;
            bool in_other = false;
            cJSON_ArrayForEach(y, other) if (cJSON_IsString(y) && strcmp(x->valuestring, y->valuestring) == 0) in_other = true;
            if (!in_other) cJSON_AddItemToArray(s ? removed : added, cJSON_CreateString(x->valuestring));
        }
    }
}

/* A warning's identity across the two models: its code and node, or, for a
 * model-wide warning, its code and message with the figures taken out (an
 * overhead_dominated warning whose numbers moved is the same warning). */
static char *warning_key(const cJSON *w, rl_arena *a) {
    const char *node = rl_json_get_str(w, "node"), *msg = rl_json_get_str(w, "message"), *code = rl_json_get_str(w, "code");
    size_t n = strlen(code) + strlen(node) + strlen(msg) + 4;
    char *k = rl_arena_alloc(a, n);
    if (!k) return NULL;
    size_t p = (size_t)snprintf(k, n, "%s\x1f%s\x1f", code, node);
    if (node[0]) return k;
    for (const char *s = msg; *s; s++) {
        bool digit = *s >= '0' && *s <= '9';
        if (digit && p > 0 && k[p - 1] == '#') continue;
        k[p++] = digit ? '#' : *s;
    }
    k[p] = 0;
    return k;
}

static bool add_warnings(cJSON *d, const rl_summary *a, const rl_summary *b, rl_arena *ar) {
    cJSON *w = cJSON_AddObjectToObject(d, "warnings");
    cJSON *fresh = cJSON_AddArrayToObject(w, "new"), *gone = cJSON_AddArrayToObject(w, "resolved");
    for (int s = 0; s < 2; s++) {
        const cJSON *from = s ? a->warnings : b->warnings, *other = s ? b->warnings : a->warnings;
        rl_name_map *keys = rl_map_new(ar, (size_t)cJSON_GetArraySize(other));
        if (!keys) return false;
        const cJSON *x;
        cJSON_ArrayForEach(x, other) {
            char *k = warning_key(x, ar);
            if (!k) return false;
            rl_map_put(keys, k, 1);
        }
        cJSON_ArrayForEach(x, from) {
            char *k = warning_key(x, ar);
            if (!k) return false;
            if (rl_map_get(keys, k) < 0) cJSON_AddItemToArray(s ? gone : fresh, cJSON_Duplicate(x, true));
        }
    }
    return true;
}

static void model_side(cJSON *d, const char *k, const char *label, const rl_summary *s) {
    cJSON *o = cJSON_AddObjectToObject(d, k);
    cJSON_AddStringToObject(o, "label", label);
    cJSON_AddStringToObject(o, "name", s->name);
    rl_json_add_num(o, "nodes", s->nodes);
    cJSON_AddStringToObject(o, "precision", s->precision);
    rl_json_add_num(o, "unknown_layers", s->unknown_layers);
    rl_summary_add_strings(o, "unsupported_ops", s->unsupported_ops);
}

/* ------------------------------------------------------------ options -- */
typedef struct diff_options {
    const char *fail_if;
    /* the labels as given, or cut at a character boundary: a long path
     * (over 500 bytes in a deep repository) still names its model */
    char old_label[DIFF_MAX_LABEL + 4], new_label[DIFF_MAX_LABEL + 4];
    int top;
    bool markdown;
    bool top_layers_only; /* diff.layers "top": only the first `top` changes and their layers */
    bool graph;           /* the request's "graph": true adds diff.graph */
    /* the page and the two models' addresses: diff.page_link opens the page on the change */
    const char *page_url, *old_url, *new_url;
} diff_options;

static void set_label(char *to, const char *from) {
    if (strlen(from) <= DIFF_MAX_LABEL) {
        strcpy(to, from);
        return;
    }
    rl_snprintf_utf8(to, DIFF_MAX_LABEL - 2, "%s", from);
    strcat(to, "\xe2\x80\xa6"); /* … */
}

/* diff.top: a clear error of its own, so a face can call it a usage error. */
static bool parse_top(const cJSON *x, diff_options *o, rl_error *err) {
    if (cJSON_IsNumber(x) && x->valuedouble >= 1 && x->valuedouble <= DIFF_MAX_TOP && x->valuedouble == floor(x->valuedouble)) {
        o->top = (int)x->valuedouble;
        return true;
    }
    char seen[64] = "not a number";
    if (cJSON_IsNumber(x)) snprintf(seen, sizeof seen, "not %.17g", x->valuedouble);
    rl_error_set(err, "bad_request", "diff.top",
                 "diff.top (the changed layers the Markdown lists) must be a whole number from 1 to %d, %s",
                 DIFF_MAX_TOP, seen);
    return false;
}

/* diff.page_url, old_url, new_url (diff_link.c checks them). */
static bool parse_url(const cJSON *x, const char *k, diff_options *o, rl_error *err) {
    const char *u = cJSON_GetStringValue(x);
    if (!rl_diff_url_ok(u)) {
        char where[32];
        snprintf(where, sizeof where, "diff.%s", k);
        rl_error_set(err, "bad_request", where,
                     "diff.%s must be an https:// address of at most %d characters, without spaces, quotes, "
                     "brackets or '#'", k, RL_DIFF_MAX_URL);
        return false;
    }
    if (k[0] == 'p') o->page_url = u;
    else if (k[0] == 'o') o->old_url = u;
    else o->new_url = u;
    return true;
}

static int parse_diff_options(const cJSON *req, diff_options *o, rl_error *err) {
    memset(o, 0, sizeof *o);
    strcpy(o->old_label, "old");
    strcpy(o->new_label, "new");
    o->top = DIFF_DEFAULT_TOP;
    /* the inner analyses check "graph" themselves (a bad value is their bad_request) */
    o->graph = cJSON_IsTrue(rl_json_get(req, "graph"));
    if (rl_json_get(req, "study")) {
        rl_error_set(err, "bad_request", "study",
                     "a diff compares two models under one set of options and takes no \"study\"");
        return -1;
    }
    const cJSON *d = rl_json_get(req, "diff");
    if (!d || cJSON_IsNull(d)) return 0;
    if (!cJSON_IsObject(d)) {
        rl_error_set(err, "bad_request", "diff",
                     "\"diff\" must be an object {\"fail_if\", \"top\", \"markdown\", \"old_label\", \"new_label\"}");
        return -1;
    }
    const cJSON *x;
    cJSON_ArrayForEach(x, d) {
        const char *k = x->string;
        if (!strcmp(k, "fail_if") && (cJSON_IsString(x) || cJSON_IsNull(x))) o->fail_if = cJSON_IsString(x) ? x->valuestring : NULL;
        else if ((!strcmp(k, "old_label") || !strcmp(k, "new_label")) && cJSON_IsString(x))
            set_label(k[0] == 'o' ? o->old_label : o->new_label, x->valuestring);
        else if (!strcmp(k, "markdown") && cJSON_IsBool(x)) o->markdown = cJSON_IsTrue(x);
        else if (!strcmp(k, "page_url") || !strcmp(k, "old_url") || !strcmp(k, "new_url")) {
            if (!parse_url(x, k, o, err)) return -1;
        }
        else if (!strcmp(k, "layers") && cJSON_IsString(x) && (!strcmp(x->valuestring, "all") || !strcmp(x->valuestring, "top")))
            o->top_layers_only = !strcmp(x->valuestring, "top");
        else if (!strcmp(k, "top")) {
            if (!parse_top(x, o, err)) return -1;
        } else {
            char where[64];
            snprintf(where, sizeof where, "diff.%.48s", k);
            rl_error_set(err, "bad_request", where,
                         "diff.%s: expected fail_if (a string), top (1 to %d), markdown (true or false), "
                         "layers (\"all\" or \"top\"), old_label or new_label (strings; cut to %d bytes), "
                         "page_url, old_url or new_url (https:// addresses)",
                         k, DIFF_MAX_TOP, DIFF_MAX_LABEL);
            return -1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- diff -- */
/* Both models analysed with the request's inner analysis; *res_old and
 * *res_new (the caller deletes them) are set as soon as they exist. */
static bool analyze_both(rl_model *old_model, rl_model *new_model, const rl_hw *hw, const char *text,
                         const diff_options *opt,
                         side *so, side *sn, cJSON **res_old, cJSON **res_new, rl_arena *arena, rl_error *err) {
    memset(so, 0, sizeof *so);
    if (!old_model) *res_old = NULL; /* a new model: no base, no old layers */
    else if (!rl_diff_analyze_side(old_model, hw, text, opt->graph, so, arena, err)) return false;
    else *res_old = so->res;
    if (old_model && !cJSON_IsTrue(rl_json_get(*res_old, "ok"))) {
        inner_error(*res_old, "old", opt->old_label, err);
        return false;
    }
    if (!rl_diff_analyze_side(new_model, hw, text, opt->graph, sn, arena, err)) return false;
    *res_new = sn->res;
    if (!cJSON_IsTrue(rl_json_get(*res_new, "ok"))) {
        inner_error(*res_new, "new", opt->new_label, err);
        return false;
    }
    return true;
}

/* diff.layers "top": the answer keeps the first `top` changes and only the
 * layers they name (re-indexed: each change's "at" points into the kept
 * lists), for a face that shows the top changes and need not read every
 * layer back; "changes_total" says how many there were. Counts, totals,
 * the gate and the Markdown were made from every layer before. */
static int by_at(const void *x, const void *y) {
    double a = (*(cJSON *const *)x)->valuedouble, b = (*(cJSON *const *)y)->valuedouble;
    return a < b ? -1 : a > b;
}

static bool keep_top_changes(cJSON *d, int top) {
    static const char *const kinds[] = {"matched", "added", "removed"};
    cJSON *changes = cJSON_GetObjectItemCaseSensitive(d, "changes");
    const int total = cJSON_GetArraySize(changes);
    if (!cJSON_AddNumberToObject(d, "changes_total", total)) return false;
    while (cJSON_GetArraySize(changes) > top) cJSON_DeleteItemFromArray(changes, top);
    cJSON **ats = malloc(((size_t)(top < total ? top : total) + 1) * sizeof *ats), *c;
    if (!ats) return false;
    bool ok = true;
    for (int k = 0; k < 3 && ok; k++) {
        /* the kept changes of this kind, by the index they point at */
        int n = 0;
        cJSON_ArrayForEach(c, changes) {
            cJSON *at = cJSON_GetObjectItemCaseSensitive(c, "at");
            if (!strcmp(rl_json_get_str(c, "kind"), kinds[k]) && cJSON_IsNumber(at)) ats[n++] = at;
        }
        qsort(ats, (size_t)n, sizeof *ats, by_at);
        /* one walk of the list: each named layer moves to the kept list, and
         * its change points at its place there */
        cJSON *list = cJSON_GetObjectItemCaseSensitive(d, kinds[k]), *kept = cJSON_CreateArray();
        ok = kept != NULL;
        cJSON *item = list ? list->child : NULL;
        for (int i = 0, j = 0, slot = 0; ok && item && j < n; i++) {
            cJSON *next = item->next;
            if (ats[j]->valuedouble == i) {
                cJSON_AddItemToArray(kept, cJSON_DetachItemViaPointer(list, item));
                for (; j < n && ats[j]->valuedouble == i; j++) cJSON_SetNumberValue(ats[j], slot);
                slot++;
            }
            item = next;
        }
        if (ok) cJSON_ReplaceItemInObjectCaseSensitive(d, kinds[k], kept);
    }
    free(ats);
    return ok;
}

/* The sections of the diff object d after the two models' own: what the
 * diff is of, the changes, the gate's verdict and the Markdown. */
static bool add_diff_sections(cJSON *d, const side *so, const side *sn, const rl_summary *a, const rl_summary *b,
                              const cJSON *res_new, const diff_options *opt, const rl_gate *gate, rl_arena *arena,
                              rl_error *err) {
    cJSON *hw = cJSON_AddObjectToObject(d, "hardware");
    cJSON_AddStringToObject(hw, "id", b->hw_id);
    cJSON_AddStringToObject(hw, "name", b->hw_name);
    if (b->power_mode[0]) cJSON_AddStringToObject(hw, "power_mode", b->power_mode);
    else cJSON_AddNullToObject(hw, "power_mode");
    cJSON_AddItemToObject(d, "options", cJSON_Duplicate(rl_json_get(res_new, "options"), true));
    cJSON *sol = cJSON_AddObjectToObject(d, "sol");
    cJSON_AddStringToObject(sol, "model", b->sol_model);
    cJSON_AddStringToObject(sol, "granularity", b->granularity);
    add_totals(d, a, b);
    add_layers(d, so->layers, so->n, sn->layers, sn->n);
    if (!add_changes(d, so->layers, so->n, sn->layers, sn->n)) {
        rl_error_set(err, "out_of_memory", "", "out of memory while ranking the changes");
        return false;
    }
    add_unsupported(d, a, b);
    if (!add_warnings(d, a, b, arena)) {
        rl_error_set(err, "out_of_memory", "", "out of memory while comparing the warnings");
        return false;
    }
    cJSON_AddItemToObject(d, "roofline", cJSON_Duplicate(b->roofline, true));
    /* before "layers": "top" trims the lists its indices point into */
    if (opt->graph && !opt->top_layers_only && !rl_diff_graph_add(d, so, sn, arena)) {
        rl_error_set(err, "out_of_memory", "graph", "out of memory while comparing the graphs; leave out \"graph\"");
        return false;
    }
    if (gate) {
        cJSON *g = rl_gate_eval(gate, d);
        if (!g) {
            rl_error_set(err, "out_of_memory", "", "out of memory while applying the thresholds");
            return false;
        }
        cJSON_AddItemToObject(d, "gate", g);
    } else {
        cJSON_AddNullToObject(d, "gate");
    }
    if (opt->markdown) {
        char *md = rl_diff_markdown(d, opt->top);
        cJSON *s = md ? cJSON_CreateString(md) : NULL;
        free(md);
        if (!s) {
            rl_error_set(err, "out_of_memory", "", "out of memory while writing the Markdown");
            return false;
        }
        cJSON_AddItemToObject(d, "markdown", s);
    }
    if (opt->top_layers_only && !keep_top_changes(d, opt->top)) {
        rl_error_set(err, "out_of_memory", "", "out of memory while keeping the top changes");
        return false;
    }
    return true;
}

char *rl_models_diff(rl_model *old_model, rl_model *new_model, const char *request_json) {
    return rl_models_diff_hw(old_model, new_model, NULL, request_json);
}

char *rl_models_diff_hw(rl_model *old_model, rl_model *new_model, const rl_hw *hw, const char *request_json) {
    rl_error err = {0};
    rl_json_begin();
    if (!new_model) {
        rl_error_set(&err, "bad_request", "",
                     "a diff needs the new model (the old one may be absent: a model new in a pull request)");
        return rl_error_json(&err);
    }
    cJSON *req = NULL, *res_old = NULL, *res_new = NULL, *root = NULL;
    rl_gate *gate = NULL;
    rl_arena arena = {0};
    char *text = NULL, *result = NULL;
    diff_options opt;
    side so, sn;
    if (!(req = rl_analyze_parse_request(request_json, &err))) goto fail;
    if (parse_diff_options(req, &opt, &err)) goto fail;
    /* the gate's grammar is checked before any model is analysed */
    if (opt.fail_if && !(gate = rl_gate_parse(opt.fail_if, &err))) goto fail;
    if (!(text = rl_diff_inner_request(req, "packed"))) { /* the rows read from the doubles (diff_match.c) */
        rl_error_set(&err, "out_of_memory", "request", "out of memory");
        goto fail;
    }
    if (!analyze_both(old_model, new_model, hw, text, &opt, &so, &sn, &res_old, &res_new, &arena, &err)) goto fail;
    /* the inner analyses marked their own allocations; from here on, ours
     * (and the reading's: a failure there was reported above) */
    rl_json_begin();
    rl_summary a, b;
    rl_summary_read(res_old, &a);
    rl_summary_read(res_new, &b);
    if (!rl_diff_match_layers(so.layers, so.n, sn.layers, sn.n, &arena)) {
        rl_error_set(&err, "out_of_memory", "", "out of memory while matching the layers");
        goto fail;
    }
    root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema", ROOFLENS_SCHEMA);
    cJSON_AddTrueToObject(root, "ok");
    cJSON_AddStringToObject(root, "version", ROOFLENS_VERSION);
    cJSON *d = cJSON_AddObjectToObject(root, "diff");
    if (old_model) model_side(d, "old", opt.old_label, &a);
    else cJSON_AddNullToObject(d, "old"); /* the gate and the Markdown read this as "no base" */
    model_side(d, "new", opt.new_label, &b);
    if (opt.page_url && opt.old_url && opt.new_url) {
        char *link = rl_diff_page_link(req, opt.page_url, opt.old_url, opt.new_url, b.hw_id);
        cJSON *item = link ? cJSON_CreateString(link) : NULL;
        free(link);
        if (!item) {
            rl_error_set(&err, "out_of_memory", "", "out of memory while writing the page's link");
            goto fail;
        }
        cJSON_AddItemToObject(d, "page_link", item);
    }
    if (!add_diff_sections(d, &so, &sn, &a, &b, res_new, &opt, gate, &arena, &err)) goto fail;
    result = rl_json_finish(root);
    root = NULL;
fail:
    cJSON_Delete(root);
    cJSON_Delete(res_old);
    cJSON_Delete(res_new);
    cJSON_Delete(req);
    free(text);
    rl_gate_free(gate);
    rl_arena_free(&arena);
    if (!result) {
        if (!err.code[0]) rl_error_set(&err, "internal", "", "the diff failed");
        result = rl_error_json(&err);
    }
    return result;
}
