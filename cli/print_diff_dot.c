/* rooflens diff --format dot: the graph of two models in Graphviz's DOT,
 * the page's graph view of a diff on paper. One box per layer of the new
 * model and per layer only the old one has, filled in the colour of its
 * change (the core's diff.graph.kinds) at a strength that grows with the
 * change (the core's diff.graph.scale), its old and new figures in its
 * label; an edge whose tensor changed shape is drawn heavy with both
 * shapes, a removed edge dashed. Every figure and word is the core's
 * answer; this file only lays it out. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "print.h"

/* s inside a DOT double-quoted string. */
static void dot_str(const char *s) {
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') putchar('\\'), putchar(c);
        else putchar(c < 0x20 || c == 0x7f ? ' ' : c);
    }
}

/* An array's items, for reading by index (NULL when it has none). */
static const cJSON **items_of(const cJSON *arr, int *n) {
    *n = cJSON_GetArraySize(arr);
    const cJSON **v = calloc((size_t)*n + 1, sizeof *v), *x;
    int i = 0;
    if (v) cJSON_ArrayForEach(x, arr) v[i++] = x;
    return v;
}

static int int_at(const cJSON **v, int n, int i) {
    double d = v && i >= 0 && i < n && cJSON_IsNumber(v[i]) ? v[i]->valuedouble : -1;
    return d >= 0 && d < 2147483647.0 ? (int)d : -1;
}

static const char *str_at(const cJSON **v, int n, int i) {
    return v && i >= 0 && i < n && cJSON_IsString(v[i]) ? v[i]->valuestring : "";
}

/* The colour of change `kind` from the answer's table of kinds. */
static const char *kind_color(const cJSON *kinds, const char *kind) {
    const cJSON *k;
    cJSON_ArrayForEach(k, kinds) if (!strcmp(str(k, "id"), kind)) {
        const char *c = str(k, "color");
        if (c[0] == '#' && strlen(c) == 7) return c;
    }
    return "#ffffff";
}

/* How strongly a change of `ratio` is drawn: one step of the core's scale
 * a strength (a change from zero, with no ratio, the strongest). */
static double strength(const cJSON *steps, double ratio) {
    int n = cJSON_GetArraySize(steps), above = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, steps) if (!isfinite(ratio) || fabs(ratio) >= s->valuedouble) above++;
    return 0.35 + 0.65 * above / (n > 0 ? n : 1);
}

/* One layer's box: kind's colour, its figures old and new. */
static void diff_box(const char *id, const cJSON *L, const char *kind, const char *fig, const char *unit,
                     const cJSON *g) {
    const cJSON *f = get(L, fig);
    bool pair = cJSON_IsObject(f); /* a matched layer: {old, new, delta, ratio} */
    double old = pair ? num(f, "old") : !strcmp(kind, "removed") ? num(L, fig) : NAN;
    double now = pair ? num(f, "new") : !strcmp(kind, "added") ? num(L, fig) : NAN;
    double ratio = pair ? num(f, "ratio") : NAN;
    bool changed = !strcmp(kind, "slower") || !strcmp(kind, "faster");
    double a = changed ? strength(get(get(g, "scale"), "steps"), ratio) : !strcmp(kind, "same") ? 1 : 0.3;
    char o[40], n[40];
    printf("  %s [label=\"", id);
    dot_str(str(L, "op"));
    printf("\\n");
    dot_str(str(L, "name")[0] ? str(L, "name") : "(unnamed)");
    printf("\\n%s: %s -> %s", kind, isnan(old) ? "-" : rl_format_eng(o, sizeof o, old, unit, 0),
           isnan(now) ? "-" : rl_format_eng(n, sizeof n, now, unit, 0));
    if (changed && isfinite(ratio)) printf(" (%+.1f %%)", 100 * ratio);
    const char *c = kind_color(get(g, "kinds"), kind);
    printf("\", fillcolor=\"%s%02x\", color=\"%s\", fontcolor=\"%s\"%s, tooltip=\"%s\"];\n", c, (int)lround(255 * a),
           !strcmp(kind, "same") ? "#8a8a8a" : c, changed && a > 0.6 ? "#ffffff" : "#111111",
           !strcmp(kind, "removed") ? ", style=\"rounded,filled,dashed\"" : !strcmp(kind, "added") ? ", penwidth=2" : "",
           kind);
}

/* The union graph's node name: a new layer n<i>, a removed one r<k>. */
static void node_name(char *buf, size_t cap, int id, int n_new) {
    if (id < n_new) snprintf(buf, cap, "n%d", id);
    else snprintf(buf, cap, "r%d", id - n_new);
}

static void diff_edges(const cJSON *g, int n_new) {
    const cJSON *e = get(g, "edges");
    int n, nt, no, nn, nc;
    const cJSON **from = items_of(get(e, "from"), &n), **to = items_of(get(e, "to"), &nt);
    const cJSON **olds = items_of(get(e, "old_shape"), &no), **news = items_of(get(e, "new_shape"), &nn);
    const cJSON **change = items_of(get(e, "change"), &nc);
    char a[32], b[32];
    for (int k = 0; from && to && k < n; k++) {
        int p = int_at(from, n, k), q = int_at(to, nt, k);
        if (p < 0 || q < 0) continue;
        const char *ch = str_at(change, nc, k);
        node_name(a, sizeof a, p, n_new), node_name(b, sizeof b, q, n_new);
        printf("  %s -> %s [", a, b);
        if (!strcmp(ch, "shape")) {
            printf("color=\"%s\", penwidth=2.5, label=\"", kind_color(get(g, "kinds"), "slower"));
            dot_str(str_at(olds, no, k));
            printf(" -> ");
            dot_str(str_at(news, nn, k));
            printf("\", ");
        } else if (!strcmp(ch, "removed")) {
            printf("style=dashed, ");
        } else if (!strcmp(ch, "added")) {
            printf("color=\"%s\", ", kind_color(get(g, "kinds"), "added"));
        }
        printf("tooltip=\"%s ", ch);
        dot_str(!strcmp(ch, "removed") ? str_at(olds, no, k) : str_at(news, nn, k));
        printf("\"];\n");
    }
    free(from), free(to), free(olds), free(news), free(change);
}

void print_diff_dot(const cJSON *d, const char *fig) {
    const cJSON *g = get(d, "graph"), *f;
    const char *unit = "", *fig_name = fig;
    cJSON_ArrayForEach(f, get(g, "figures")) if (!strcmp(str(f, "id"), fig)) unit = str(f, "unit"), fig_name = str(f, "name");
    printf("strict digraph \"diff\" {\n  graph [rankdir=TB, fontname=\"Helvetica\", label=\"");
    dot_str(str(get(d, "old"), "label"));
    printf(" -> ");
    dot_str(str(get(d, "new"), "label"));
    printf(" on ");
    dot_str(str(get(d, "hardware"), "name"));
    printf(": the change in %s\"];\n  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n"
           "  edge [color=\"#7a7a7a\", fontname=\"Helvetica\", fontsize=8];\n", fig_name);
    int n_new, n_at, n_old, n_oat;
    const cJSON **kinds = items_of(get(get(get(g, "new"), "change"), fig), &n_new);
    const cJSON **at = items_of(get(get(g, "new"), "at"), &n_at);
    const cJSON **old_kinds = items_of(get(get(get(g, "old"), "change"), fig), &n_old);
    const cJSON **old_at = items_of(get(get(g, "old"), "at"), &n_oat);
    int n_matched, n_added, n_removed;
    const cJSON **matched = items_of(get(d, "matched"), &n_matched), **added = items_of(get(d, "added"), &n_added);
    const cJSON **removed = items_of(get(d, "removed"), &n_removed);
    char id[32];
    for (int j = 0; j < n_new; j++) {
        const char *kind = str_at(kinds, n_new, j);
        int k = int_at(at, n_at, j);
        const cJSON *L = !strcmp(kind, "added") ? (added && k >= 0 && k < n_added ? added[k] : NULL)
                                                : (matched && k >= 0 && k < n_matched ? matched[k] : NULL);
        snprintf(id, sizeof id, "n%d", j);
        diff_box(id, L, kind, fig, unit, g);
    }
    for (int i = 0; i < n_old; i++) {
        int k = int_at(old_at, n_oat, i);
        if (strcmp(str_at(old_kinds, n_old, i), "removed") || !removed || k < 0 || k >= n_removed) continue;
        snprintf(id, sizeof id, "r%d", k);
        diff_box(id, removed[k], "removed", fig, unit, g);
    }
    diff_edges(g, n_new);
    printf("}\n");
    free(kinds), free(at), free(old_kinds), free(old_at), free(matched), free(added), free(removed);
}
