/* rooflens diff: the command-line face of rl_models_diff. Every figure
 * printed here is read from the core's answer; this file only lays it out. */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "print.h"

/* What diff takes from the command line. */
typedef struct diff_args {
    const char *old_path, *new_path;
    cli_format format;
    const char *fail_if, *old_label, *new_label;
    int top;
    bool strict;
} diff_args;

/* The model's error, on stderr (or as JSON on stdout with --format json). */
static void report_error(const char *json, const char *path, cli_format format) {
    if (format == CLI_FORMAT_JSON) {
        puts(json);
        return;
    }
    cJSON *e = cJSON_Parse(json);
    const cJSON *eo = get(e, "error");
    fprintf(stderr, "rooflens: %s%s%s [%s]%s%s\n", path ? txt(path) : "", path ? ": " : "", tstr(eo, "message"),
            tstr(eo, "code"), tstr(eo, "where")[0] ? " at " : "", tstr(eo, "where"));
    cJSON_Delete(e);
}

/* A --fail-if the core refused: the message, then the expression with a
 * caret under the character the core named ("diff.fail_if:N"). */
static void report_fail_if(const cJSON *eo, const char *expr) {
    fprintf(stderr, "rooflens: --fail-if: %s\n", tstr(eo, "message"));
    const char *where = tstr(eo, "where");
    long at = strncmp(where, "diff.fail_if:", 13) == 0 ? strtol(where + 13, NULL, 10) : 0;
    if (at >= 1 && (size_t)at <= strlen(expr) + 1 && strlen(expr) < 200) {
        /* the caret stands under the character, counted in the escaped text */
        size_t before = strlen(txt(expr)) - strlen(txt(expr + at - 1));
        fprintf(stderr, "  %s\n  %*s^\n", txt(expr), (int)before, "");
    }
    fprintf(stderr, "run 'rooflens --help' for usage; the grammar is in docs/ci.md\n");
}

/* ------------------------------------------------------------ printing -- */
static const char *fmt(double v, const char *unit, char *buf, size_t cap) { return rl_format_eng(buf, cap, v, unit, 0); }
/* "+1.2 ms", "-3 k". */
static const char *signed_fmt(double v, const char *unit, char *buf, size_t cap) { return rl_format_eng(buf, cap, v, unit, 1); }

/* "+1.2 ms (+9.8%)", "no change", "n/a". */
static const char *change_text(const cJSON *d, const char *unit, char *buf, size_t cap) {
    double delta = num(d, "delta");
    const cJSON *dj = get(d, "delta"), *rj = get(d, "ratio");
    char v[40];
    if (!cJSON_IsNumber(dj)) snprintf(buf, cap, "%s", RL_NO_FIGURE);
    else if (delta == 0) snprintf(buf, cap, "no change");
    else {
        signed_fmt(delta, unit, v, sizeof v);
        if (cJSON_IsNumber(rj)) snprintf(buf, cap, "%s (%+.1f%%)", v, 100 * rj->valuedouble);
        else snprintf(buf, cap, "%s (from 0)", v);
    }
    return buf;
}

static void total_row(const cJSON *t, const char *key, const char *label, const char *unit) {
    const cJSON *d = get(t, key);
    if (!cJSON_IsNumber(get(d, "old")) && !cJSON_IsNumber(get(d, "new"))) return;
    char a[40], b[40], c[64];
    /* a side that has no figure (the old side of a new model) is a dash, never a zero */
    const char *old_text = cJSON_IsNumber(get(d, "old")) ? fmt(num(d, "old"), unit, a, sizeof a) : "-";
    const char *new_text = cJSON_IsNumber(get(d, "new")) ? fmt(num(d, "new"), unit, b, sizeof b) : "-";
    tprintf("  %-16s %14s %14s   %s\n", label, old_text, new_text,
           cJSON_IsNumber(get(d, "delta")) ? change_text(d, unit, c, sizeof c) : "");
}

static void layer_list(const char *title, const cJSON *arr) {
    if (cJSON_GetArraySize(arr) == 0) return;
    tprintf("\n%s\n", title);
    const cJSON *l;
    cJSON_ArrayForEach(l, arr) tprintf("  %s (%s%s%s)\n", tstr(l, "name")[0] ? tstr(l, "name") : "(unnamed)",
                                       tstr(l, "domain"), tstr(l, "domain")[0] ? "." : "", tstr(l, "op"));
}

/* The headline: the two models, the device and the totals' changes. */
static void print_diff_totals(const cJSON *d) {
    const cJSON *o = get(d, "old"), *n = get(d, "new"), *hw = get(d, "hardware"), *opt = get(d, "options");
    const cJSON *t = get(d, "totals");
    if (cJSON_IsObject(o))
        tprintf("old       %s  (%s, %s nodes)\n", tstr(o, "label"), tstr(o, "name")[0] ? tstr(o, "name") : "unnamed", numf("%g", num(o, "nodes")));
    else
        tprintf("old       none: a new model, judged without a base\n");
    tprintf("new       %s  (%s, %s nodes)\n", tstr(n, "label"), tstr(n, "name")[0] ? tstr(n, "name") : "unnamed", numf("%g", num(n, "nodes")));
    tprintf("hardware  %s%s%s  precision %s, %s, speed-of-light model %s (%s)\n\n", tstr(hw, "name"),
           cJSON_IsString(get(hw, "power_mode")) ? ", mode " : "", tstr(hw, "power_mode"), tstr(n, "precision"),
           tstr(opt, "mode"), word("sol", str(get(d, "sol"), "model")), word("granularity", str(get(d, "sol"), "granularity")));
    tprintf("  %-16s %14s %14s   %s\n", "", "old", "new", "change");
    total_row(t, "time_s", "speed of light", "s");
    total_row(t, "lower_bound_s", "lower bound", "s");
    total_row(t, "upper_bound_s", "upper bound", "s");
    total_row(t, "forecast_s", "forecast", "s");
    total_row(t, "energy_j", "energy", "J");
    total_row(t, "flops", "FLOPs", "");
    total_row(t, "bytes", "bytes moved", "B");
    total_row(t, "params", "parameters", "");
    total_row(t, "weight_bytes", "weight bytes", "B");
    total_row(t, "kernels", "kernels", "");
    total_row(t, "launch_floor_s", "launch floor", "s");
    const cJSON *bound = get(t, "bound");
    tprintf("  %-16s %14s %14s   %s\n", "limited by", word("bound", str(bound, "old")), word("bound", str(bound, "new")),
           cJSON_IsTrue(get(bound, "changed")) ? "changed" : "");
    const cJSON *llm = get(d, "llm");
    if (cJSON_IsObject(llm)) {
        total_row(llm, "ttft_s", "LLM TTFT", "s");
        total_row(llm, "tpot_s", "LLM TPOT", "s");
        total_row(llm, "tokens_per_s", "LLM tokens/s", "");
        total_row(llm, "memory_required_bytes", "LLM memory", "B");
        const cJSON *fits = get(llm, "fits");
        tprintf("  %-16s %14s %14s\n", "fits in memory", cJSON_IsTrue(get(fits, "old")) ? "yes" : cJSON_IsFalse(get(fits, "old")) ? "no" : RL_NO_FIGURE,
               cJSON_IsTrue(get(fits, "new")) ? "yes" : cJSON_IsFalse(get(fits, "new")) ? "no" : RL_NO_FIGURE);
    }
}

/* The layer counts and the ranked changes (the core's order). */
static void print_diff_layers(const cJSON *d, int top) {
    const cJSON *c = get(d, "layers");
    tprintf("\nlayers    %s matched (%s by name, %s by op and position; %s changed), %s added, %s removed\n",
           numf("%g", num(c, "matched")), numf("%g", num(c, "matched_by_name")), numf("%g", num(c, "matched_by_op_position")), numf("%g", num(c, "changed")),
           numf("%g", num(c, "added")), numf("%g", num(c, "removed")));

    const cJSON *changes = get(d, "changes");
    const cJSON *all = get(d, "changes_total"); /* the core kept only the top ones */
    int total = cJSON_IsNumber(all) ? (int)fmin(fmax(all->valuedouble, 0), INT_MAX) : cJSON_GetArraySize(changes);
    int shown = top > 0 && top < total ? top : total;
    if (shown > cJSON_GetArraySize(changes)) shown = cJSON_GetArraySize(changes);
    if (total) {
        tprintf("\n%-32s %-22s %14s %12s %12s  %s\n", "layer (most changed first)", "op", "speed of light", "FLOPs", "bytes",
               "bound");
        const cJSON *ch = changes ? changes->child : NULL;
        for (int i = 0; i < shown && ch; i++, ch = ch->next) {
            const char *kind = str(ch, "kind");
            double at = num(ch, "at"); /* never a cast of NaN: a missing index finds no layer */
            const cJSON *L = at >= 0 && at < INT_MAX ? cJSON_GetArrayItem(get(d, kind), (int)at) : NULL;
            char name[80], op[80], a[40], b[40], e[40];
            /* the mark of an added or removed layer stays in the 32 columns */
            snprintf(name, sizeof name, "%s%s", txt_cut(str(L, "name")[0] ? str(L, "name") : "(unnamed)", kind[0] == 'm' ? 32 : 30),
                     kind[0] == 'a' ? " +" : kind[0] == 'r' ? " -" : "");
            if (kind[0] == 'm' && strcmp(str(L, "op"), str(L, "old_op")))
                snprintf(op, sizeof op, "%s>%s", txt_cut(str(L, "old_op"), 10), txt_cut(str(L, "op"), 11));
            else snprintf(op, sizeof op, "%s", txt_cut(str(L, "op"), 22));
            if (kind[0] == 'm') {
                const cJSON *bd = get(L, "bound");
                char bounds[40];
                if (strcmp(str(bd, "old"), str(bd, "new")))
                    snprintf(bounds, sizeof bounds, "%s > %s", word("bound", str(bd, "old")), word("bound", str(bd, "new")));
                else snprintf(bounds, sizeof bounds, "%s", word("bound", str(bd, "new")));
                tprintf("%-32s %-22s %14s %12s %12s  %s\n", name, op, signed_fmt(num(get(L, "t"), "delta"), "s", a, sizeof a),
                       signed_fmt(num(get(L, "flops"), "delta"), "", b, sizeof b),
                       signed_fmt(num(get(L, "bytes"), "delta"), "B", e, sizeof e), bounds);
            } else {
                double sg = kind[0] == 'a' ? 1 : -1;
                tprintf("%-32s %-22s %14s %12s %12s  %s\n", name, op, signed_fmt(sg * num(L, "t"), "s", a, sizeof a),
                       signed_fmt(sg * num(L, "flops"), "", b, sizeof b), signed_fmt(sg * num(L, "bytes"), "B", e, sizeof e),
                       word("bound", str(L, "bound")));
            }
        }
        if (shown < total) tprintf("(%d more; --top 0 shows all)\n", total - shown);
        tprintf("(+ added layer, - removed layer)\n");
    } else {
        tprintf("\nno layer changed its work (FLOPs, bytes, op or bound)\n");
    }
}

static void print_diff_table(const cJSON *d, int top) {
    print_diff_totals(d);
    print_diff_layers(d, top);
    layer_list("newly unsupported (zero FLOPs counted)", get(d, "became_unsupported"));
    layer_list("cost now unknown (a shape could not be inferred)", get(d, "became_unknown"));
    const cJSON *w = get(d, "warnings"), *x;
    if (cJSON_GetArraySize(get(w, "new"))) {
        tprintf("\nnew warnings\n");
        cJSON_ArrayForEach(x, get(w, "new")) tprintf("  [%s] %s\n", tstr(x, "code"), tstr(x, "message"));
    }
    if (cJSON_GetArraySize(get(w, "resolved"))) {
        tprintf("\nresolved warnings\n");
        cJSON_ArrayForEach(x, get(w, "resolved")) tprintf("  [%s] %s\n", tstr(x, "code"), tstr(x, "message"));
    }
    const cJSON *g = get(d, "gate");
    if (cJSON_IsObject(g)) {
        /* a gate that judged nothing (a new model and only thresholds of change) did not pass anything */
        bool judged = !cJSON_IsNumber(get(g, "judged")) || num(g, "judged") > 0;
        tprintf("\ngate      %s: %s\n", tstr(g, "expression"),
               !judged ? "not judged" : cJSON_IsTrue(get(g, "passed")) ? "passed" : "FAILED");
        cJSON_ArrayForEach(x, get(g, "clauses")) tprintf("  [%s] %s\n", tstr(x, "status"), tstr(x, "message"));
    }
}

/* One CSV row per layer (matched, added, removed) after one row for the
 * whole model: old, new and delta of each figure. */
static const char *const diff_csv_cols[] = {
    "kind", "matched_by", "old_index", "new_index", "name", "old_name", "op", "old_op",
    "flops_old", "flops_new", "flops_delta", "bytes_old", "bytes_new", "bytes_delta",
    "t_old", "t_new", "t_delta", "energy_j_old", "energy_j_new", "energy_j_delta",
    "bound_old", "bound_new", "supported_old", "supported_new", "known_old", "known_new", "changed"};

static void csv_triple(const cJSON *d) {
    csv_number(stdout, get(d, "old"));
    putchar(',');
    csv_number(stdout, get(d, "new"));
    putchar(',');
    csv_number(stdout, get(d, "delta"));
}

static void csv_single(const cJSON *l, bool added) {
    /* one side of a layer only the old (or the new) model has; delta = new - old */
    static const char *const keys[] = {"flops", "bytes", "t", "energy_j"};
    for (int k = 0; k < 4; k++) {
        const cJSON *v = get(l, keys[k]);
        if (added) { putchar(','); csv_number(stdout, v); }
        else { csv_number(stdout, v); putchar(','); }
        putchar(',');
        if (cJSON_IsNumber(v)) tprintf("%.17g", added ? v->valuedouble : -v->valuedouble);
        putchar(',');
    }
}

static void print_diff_csv(const cJSON *d) {
    size_t nc = sizeof diff_csv_cols / sizeof *diff_csv_cols;
    for (size_t i = 0; i < nc; i++) tprintf("%s%s", diff_csv_cols[i], i + 1 < nc ? "," : "\n");
    const cJSON *t = get(d, "totals"), *bound = get(t, "bound");
    tprintf("model,,,,");
    csv_field(stdout, str(get(d, "new"), "name"));
    putchar(',');
    csv_field(stdout, str(get(d, "old"), "name"));
    tprintf(",,,");
    csv_triple(get(t, "flops")); putchar(',');
    csv_triple(get(t, "bytes")); putchar(',');
    csv_triple(get(t, "time_s")); putchar(',');
    csv_triple(get(t, "energy_j")); putchar(',');
    csv_field(stdout, str(bound, "old")); putchar(',');
    csv_field(stdout, str(bound, "new"));
    tprintf(",,,,,\n");
    const cJSON *l;
    cJSON_ArrayForEach(l, get(d, "matched")) {
        tprintf("matched,%s,", str(l, "matched_by"));
        csv_double(stdout, num(l, "old_index")); putchar(',');
        csv_double(stdout, num(l, "new_index")); putchar(',');
        csv_field(stdout, str(l, "name")); putchar(',');
        csv_field(stdout, str(l, "old_name")); putchar(',');
        csv_field(stdout, str(l, "op")); putchar(',');
        csv_field(stdout, str(l, "old_op")); putchar(',');
        csv_triple(get(l, "flops")); putchar(',');
        csv_triple(get(l, "bytes")); putchar(',');
        csv_triple(get(l, "t")); putchar(',');
        csv_triple(get(l, "energy_j")); putchar(',');
        csv_field(stdout, str(get(l, "bound"), "old")); putchar(',');
        csv_field(stdout, str(get(l, "bound"), "new"));
        tprintf(",%s,%s,%s,%s,%s\n", cJSON_IsTrue(get(get(l, "supported"), "old")) ? "true" : "false",
               cJSON_IsTrue(get(get(l, "supported"), "new")) ? "true" : "false",
               cJSON_IsTrue(get(get(l, "known"), "old")) ? "true" : "false",
               cJSON_IsTrue(get(get(l, "known"), "new")) ? "true" : "false",
               cJSON_IsTrue(get(l, "changed")) ? "true" : "false");
    }
    for (int s = 0; s < 2; s++) {
        bool added = s == 0;
        cJSON_ArrayForEach(l, get(d, added ? "added" : "removed")) {
            tprintf("%s,,", added ? "added" : "removed");
            if (added) putchar(',');
            csv_double(stdout, num(l, "index"));
            tprintf(added ? "," : ",,");
            csv_field(stdout, added ? str(l, "name") : ""); putchar(',');
            csv_field(stdout, added ? "" : str(l, "name")); putchar(',');
            csv_field(stdout, added ? str(l, "op") : ""); putchar(',');
            csv_field(stdout, added ? "" : str(l, "op")); putchar(',');
            csv_single(l, added);
            const char *b = str(l, "bound"), *sup = cJSON_IsTrue(get(l, "supported")) ? "true" : "false";
            const char *kn = cJSON_IsTrue(get(l, "known")) ? "true" : "false";
            if (added) tprintf(",%s,,%s,,%s,true\n", b, sup, kn);
            else tprintf("%s,,%s,,%s,,true\n", b, sup, kn);
        }
    }
}

/* The request's "diff" member from the options (and "graph" for dot). */
static void add_diff_member(cJSON *req, const diff_args *a, const cli_args *A) {
    cJSON *d = cJSON_AddObjectToObject(req, "diff");
    if (a->fail_if) cJSON_AddStringToObject(d, "fail_if", a->fail_if);
    cJSON_AddBoolToObject(d, "markdown", a->format == CLI_FORMAT_MARKDOWN);
    cJSON_AddNumberToObject(d, "top", a->top > 0 ? a->top : 1000);
    /* the table shows the top changes only: the core leaves the other layers
     * out of its answer, so there is less to read back */
    if (a->format == CLI_FORMAT_TABLE && a->top > 0) cJSON_AddStringToObject(d, "layers", "top");
    cJSON_AddStringToObject(d, "old_label", a->old_label);
    cJSON_AddStringToObject(d, "new_label", a->new_label);
    if (A->page_url) cJSON_AddStringToObject(d, "page_url", A->page_url);
    if (A->old_url) cJSON_AddStringToObject(d, "old_url", A->old_url);
    if (A->new_url) cJSON_AddStringToObject(d, "new_url", A->new_url);
    /* the graph of the two models: each layer's, edge's and module's change */
    if (a->format == CLI_FORMAT_DOT) cJSON_AddTrueToObject(req, "graph");
}

int run_diff(cJSON *req, cli_args *A) {
    const diff_args da = {A->paths[0], A->paths[1], A->format, A->fail_if, A->label_old ? A->label_old : A->paths[0],
                          A->label_new ? A->label_new : A->paths[1], A->top >= 0 ? A->top : 10, A->strict};
    const diff_args *a = &da;
    char *err = NULL;
    /* OLD /dev/null (git's name for a side that does not exist): NEW is a new model, judged without a base */
    bool no_base = !strcmp(a->old_path, "/dev/null");
    rl_model *old_m = no_base ? NULL : read_model(a->old_path, true, &err);
    if (!old_m && !no_base) {
        if (err) report_error(err, a->old_path, a->format);
        rl_free(err);
        return EXIT_BAD_MODEL;
    }
    rl_model *new_m = read_model(a->new_path, true, &err);
    if (!new_m) {
        if (err) report_error(err, a->new_path, a->format);
        rl_free(err);
        rl_model_free(old_m);
        return EXIT_BAD_MODEL;
    }
    add_diff_member(req, a, A);
    char *text = cJSON_PrintUnformatted(req);
    char *out = rl_models_diff_hw(old_m, new_m, A->hw_handle, text);
    free(text);
    rl_model_free(old_m);
    rl_model_free(new_m);
    if (!out) {
        fputs("rooflens: out of memory\n", stderr);
        return EXIT_BAD_MODEL;
    }
    if (a->format == CLI_FORMAT_JSON && !a->fail_if && !a->strict && rl_answer_ok(out)) {
        puts(out); /* the core's text as it is: nothing to read back from it */
        rl_free(out);
        return EXIT_OK;
    }
    cJSON *res = cJSON_Parse(out);
    int rc = EXIT_OK;
    if (!cJSON_IsTrue(get(res, "ok"))) {
        const cJSON *eo = get(res, "error");
        bool grammar = !strcmp(str(eo, "code"), "bad_fail_if");
        /* --top out of the core's range: the core says the range, the user mends the option */
        bool top = !strcmp(str(eo, "where"), "diff.top");
        if (grammar && a->format != CLI_FORMAT_JSON) report_fail_if(eo, a->fail_if);
        else if (top && a->format != CLI_FORMAT_JSON)
            fprintf(stderr, "rooflens: --top %d: %s\nrun 'rooflens --help' for usage\n", a->top, tstr(eo, "message"));
        else report_error(out, NULL, a->format);
        /* an address the core refuses (--page-url, --old-url, --new-url) is the user's to mend too */
        bool url = !strcmp(str(eo, "where"), "diff.page_url") || !strcmp(str(eo, "where"), "diff.old_url") ||
                   !strcmp(str(eo, "where"), "diff.new_url");
        rc = grammar || top || url ? EXIT_USAGE : EXIT_BAD_MODEL;
    } else {
        const cJSON *diff = get(res, "diff");
        if (a->format == CLI_FORMAT_JSON) puts(out);
        else if (a->format == CLI_FORMAT_CSV) print_diff_csv(diff);
        else if (a->format == CLI_FORMAT_MARKDOWN) fputs(str(diff, "markdown"), stdout);
        else if (a->format == CLI_FORMAT_DOT) print_diff_dot(diff, "forecast_s");
        else print_diff_table(diff, a->top);
        const cJSON *g = get(diff, "gate");
        const cJSON *nw = get(diff, "new");
        if (cJSON_IsObject(g) && !cJSON_IsTrue(get(g, "passed"))) {
            const char *msg = str(g, "message"), *colon = strchr(msg, ':');
            fprintf(stderr, "rooflens: --fail-if: %s\n", txt_cut(msg, colon ? (size_t)(colon - msg) : 0));
            const cJSON *c;
            cJSON_ArrayForEach(c, get(g, "clauses")) if (strcmp(str(c, "status"), "pass"))
                fprintf(stderr, "  %s\n", tstr(c, "message"));
            rc = EXIT_GATE;
        } else if (a->strict && (!(num(nw, "unknown_layers") <= 0) || cJSON_GetArraySize(get(nw, "unsupported_ops")) > 0)) {
            fprintf(stderr, "rooflens: --strict: the new model has %s layers of unknown cost and %d unsupported "
                            "operators\n", numf("%g", num(nw, "unknown_layers")), cJSON_GetArraySize(get(nw, "unsupported_ops")));
            rc = EXIT_INCOMPLETE;
        }
    }
    cJSON_Delete(res);
    rl_free(out);
    return rc;
}

