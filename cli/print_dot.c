/* --format dot: the analysis's dataflow graph in Graphviz's language, the
 * graph view of the page on paper: a box per layer coloured by its bound
 * (the core's graph.colors, the page's colours) and shaded by its share of
 * the time, modules as nested clusters, each edge named by its tensor and
 * shape, the layers of a fused kernel drawn with a heavy outline. A layer
 * of no work is drawn where the core folds it (graph.fold_into): inside its
 * consumer's box, or in the one "constants" box. Every figure is the
 * core's; this file only lays the answer out as DOT. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "print.h"

/* s as the inside of a DOT double-quoted string: quotes and backslashes
 * escaped, control characters as spaces. */
static void dot_text(FILE *f, const char *s) {
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fputc('\\', f), fputc(c, f);
        else fputc(c < 0x20 || c == 0x7f ? ' ' : c, f);
    }
}

/* The core's colour of `bound` (graph.colors has one for every bound of
 * the core's table); a named grey only when the answer has none for it. */
static const char *bound_color(const cJSON *colors, const char *bound) {
    const char *c = str(colors, bound);
    return c[0] == '#' && strlen(c) == 7 ? c : "gray";
}

/* Where layer i is drawn: its own node (i), its host's (j), or -2 for the
 * constants box (graph.fold_into; a missing or bad entry: its own). */
static int drawn_at(const cJSON *fold, int i, int n) {
    const cJSON *f = cJSON_GetArrayItem(fold, i);
    int at = cJSON_IsNumber(f) && f->valuedouble >= -2 && f->valuedouble < n ? (int)f->valuedouble : -1;
    return at == -1 ? i : at;
}

/* A shape as text: [1, 64, 56, 56], "?" for unknown dims or shapes. */
static void dot_shape(FILE *f, const cJSON *shape) {
    if (!cJSON_IsArray(shape)) {
        fputs("?", f);
        return;
    }
    fputc('[', f);
    const cJSON *d;
    int i = 0;
    cJSON_ArrayForEach(d, shape) {
        if (i++) fputs(", ", f);
        if (cJSON_IsNumber(d)) fprintf(f, "%.0f", d->valuedouble);
        else fputc('?', f);
    }
    fputc(']', f);
}

/* The "count" of the graph section's modules or edges; 0 when the answer
 * gives none (nothing drawn), never a cast of NaN. */
static int count_of(const cJSON *o) {
    double n = num(o, "count");
    return n >= 0 && n <= INT_MAX ? (int)n : 0;
}

/* Layer i's node: its op, name, time and share, filled with its bound's
 * colour at an opacity that grows with its share of the slowest layer's. */
static void dot_layer(FILE *f, const cJSON *layer, int i, double total_t, double most, const cJSON *colors, bool fused,
                      int folded) {
    char t[32];
    double share = total_t > 0 ? num(layer, "t") / total_t : NAN; /* unknown without a total */
    double a = 0.12 + 0.88 * sqrt(most > 0 && share > 0 ? share / most : 0);
    const char *color = bound_color(colors, str(layer, "bound"));
    fprintf(f, "    n%d [label=\"", i);
    dot_text(f, str(layer, "op"));
    fputs("\\n", f);
    dot_text(f, str(layer, "name"));
    if (folded) fprintf(f, "\\n+ %d folded layer%s of no work", folded, folded == 1 ? "" : "s");
    fprintf(f, "\\n%s (%s)\", fillcolor=\"%s%02x\", color=\"%s\", fontcolor=\"%s\"%s, tooltip=\"bound: %s\"];\n",
            tsec(num(layer, "t"), t, sizeof t), numf("%.1f %%", 100 * share), color, (int)lround(255 * fmin(1, a)), color,
            a > 0.55 ? "#ffffff" : "#111111", fused ? ", penwidth=3" : "", str(layer, "bound"));
}

/* Module m's cluster with its submodules and its own layers inside. */
static void dot_module(FILE *f, const cJSON *mo, int m, int **kids, const int *n_kids, int **own, const int *n_own,
                       const cJSON *colors, int depth) {
    fprintf(f, "%*ssubgraph \"cluster_m%d\" {\n%*s  label=\"", 2 * depth + 2, "", m, 2 * depth + 2, "");
    dot_text(f, cJSON_GetStringValue(cJSON_GetArrayItem(get(mo, "path"), m)));
    fprintf(f, "\"; color=\"%s\"; style=\"rounded,dashed\";\n",
            bound_color(colors, cJSON_GetStringValue(cJSON_GetArrayItem(get(mo, "bound"), m))));
    for (int k = 0; k < n_kids[m + 1]; k++) dot_module(f, mo, kids[m + 1][k], kids, n_kids, own, n_own, colors, depth + 1);
    for (int k = 0; k < n_own[m + 1]; k++) fprintf(f, "%*s  n%d;\n", 2 * depth + 2, "", own[m + 1][k]);
    fprintf(f, "%*s}\n", 2 * depth + 2, "");
}

/* Each module's submodules (kids) and own layers (own), index m + 1 (0: the top). */
static void dot_clusters(FILE *f, const cJSON *graph, int n_layers, const cJSON *colors) {
    const cJSON *mo = get(graph, "modules"), *fold = get(graph, "fold_into");
    int count = count_of(mo);
    int **kids = calloc((size_t)count + 1, sizeof *kids), **own = calloc((size_t)count + 1, sizeof *own);
    int *n_kids = calloc((size_t)count + 1, sizeof(int)), *n_own = calloc((size_t)count + 1, sizeof(int));
    int *pool = malloc(((size_t)count + (size_t)n_layers + 1) * sizeof(int));
    int *parent = malloc(((size_t)count + 1) * sizeof(int)), *lm = malloc(((size_t)n_layers + 1) * sizeof(int));
    if (kids && own && n_kids && n_own && pool && parent && lm) {
        for (int m = 0; m < count; m++) n_kids[(parent[m] = (int)cJSON_GetArrayItem(get(mo, "parent"), m)->valuedouble) + 1]++;
        for (int i = 0; i < n_layers; i++) {
            lm[i] = (int)cJSON_GetArrayItem(get(graph, "layer_module"), i)->valuedouble;
            if (drawn_at(fold, i, n_layers) == i) n_own[lm[i] + 1]++;
        }
        int *p = pool;
        for (int m = 0; m <= count; m++) kids[m] = p, p += n_kids[m], n_kids[m] = 0;
        for (int m = 0; m <= count; m++) own[m] = p, p += n_own[m], n_own[m] = 0;
        for (int m = 0; m < count; m++) kids[parent[m] + 1][n_kids[parent[m] + 1]++] = m;
        for (int i = 0; i < n_layers; i++)
            if (drawn_at(fold, i, n_layers) == i) own[lm[i] + 1][n_own[lm[i] + 1]++] = i;
        for (int k = 0; k < n_kids[0]; k++) dot_module(f, mo, kids[0][k], kids, n_kids, own, n_own, colors, 0);
    }
    free(kids), free(own), free(n_kids), free(n_own), free(pool), free(parent), free(lm);
}

void print_dot(const cJSON *res) {
    const cJSON *layers = get(res, "layers"), *graph = get(res, "graph"), *colors = get(graph, "colors");
    const cJSON *edges = get(graph, "edges");
    double total_t = num(get(res, "totals"), "t"), most = 0;
    int n = cJSON_GetArraySize(layers);
    const cJSON *l;
    cJSON_ArrayForEach(l, layers) if (total_t > 0 && num(l, "t") > 0) most = fmax(most, num(l, "t") / total_t);
    char t[32];
    printf("strict digraph \""); /* strict: the tensors between two boxes are one edge */
    dot_text(stdout, str(get(res, "model"), "name"));
    printf("\" {\n  graph [rankdir=TB, fontname=\"Helvetica\", label=\"");
    dot_text(stdout, str(get(res, "model"), "name"));
    printf(" on ");
    dot_text(stdout, str(get(res, "hardware"), "name"));
    printf(": %s\"];\n  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n"
           "  edge [color=\"#7a7a7a\", fontname=\"Helvetica\", fontsize=8];\n",
           tsec(num(get(res, "totals"), "t"), t, sizeof t));
    /* a layer in a fused kernel: fused into another, or another fused into it */
    bool *fused = calloc((size_t)n + 1, sizeof *fused);
    int *folded = calloc((size_t)n + 1, sizeof *folded), constants = 0;
    const char *constants_bound = NULL; /* the bound of the layers in the constants box: the core's */
    const cJSON *fold = get(graph, "fold_into");
    int i = 0;
    cJSON_ArrayForEach(l, layers) {
        const cJSON *into = get(l, "fused_into");
        if (fused && cJSON_IsNumber(into) && into->valuedouble >= 0 && into->valuedouble < n)
            fused[i] = fused[(int)into->valuedouble] = true;
        int at = drawn_at(fold, i, n);
        if (at == -2) {
            if (!constants++) constants_bound = str(l, "bound");
        }
        else if (at != i && folded) folded[at]++;
        i++;
    }
    i = 0;
    cJSON_ArrayForEach(l, layers) {
        if (drawn_at(fold, i, n) == i) dot_layer(stdout, l, i, total_t, most, colors, fused && fused[i], folded ? folded[i] : 0);
        i++;
    }
    free(fused), free(folded);
    /* the constants box: read as the weights are, so with no edge; under the
     * work, as the page draws it */
    if (constants)
        printf("  constants [label=\"constants\\n%d layers of no work\", fillcolor=\"%s22\", color=\"%s\"];\n"
               "  { rank=sink; constants; }\n",
               constants, bound_color(colors, constants_bound), bound_color(colors, constants_bound));
    dot_clusters(stdout, graph, n, colors);
    for (int e = 0, n_edges = count_of(edges); e < n_edges; e++) {
        int from = (int)cJSON_GetArrayItem(get(edges, "from"), e)->valuedouble;
        int to = (int)cJSON_GetArrayItem(get(edges, "to"), e)->valuedouble;
        int output = (int)cJSON_GetArrayItem(get(edges, "output"), e)->valuedouble;
        int a = drawn_at(fold, from, n), b = drawn_at(fold, to, n);
        if (a == -2 || a == b) continue; /* out of the constants box, or inside one box */
        /* the tensor is the producer's output in the layer rows */
        const cJSON *tensor = cJSON_GetArrayItem(get(cJSON_GetArrayItem(layers, from), "outputs"), output);
        if (b == -2) printf("  n%d -> constants [tooltip=\"", a);
        else printf("  n%d -> n%d [tooltip=\"", a, b);
        dot_text(stdout, str(tensor, "name"));
        fputc(' ', stdout);
        dot_shape(stdout, get(tensor, "shape"));
        printf("\"];\n");
    }
    printf("}\n");
}
