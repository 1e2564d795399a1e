/* The "graph" section (docs/api.md, "Graph"), for every model of the
 * corpus: each edge joins two valid layer rows through a tensor that the
 * first row writes and the second reads (same name, same shape), every such
 * pair of rows is an edge, each module path is a prefix of the names of its
 * layers and of its children's paths, and a module's figures are the sums
 * of its layers'. Then the hand-made cases: module paths of known names,
 * the depth cap, and a "graph" that is not a boolean. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "graph_view.h"
#include "model_corpus.h"
#include "rooflens.h"

static char *h100;
static int models, models_with_modules, edges_seen;

static cJSON *analyze(rl_model *m, const char *extra) {
    size_t n = strlen(h100) + strlen(extra) + 64;
    char *req = malloc(n);
    snprintf(req, n, "{\"hardware\":%s%s}", h100, extra);
    char *out = rl_model_analyze(m, req);
    cJSON *res = cJSON_Parse(out);
    free(req), free(out);
    return res;
}

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static double num(const cJSON *o, const char *k) { return cJSON_GetNumberValue(get(o, k)); }

/* The tensor called `name` in a layer's inputs or outputs, or NULL. */
static const cJSON *tensor_named(const cJSON *layer, const char *side, const char *name) {
    const cJSON *t;
    cJSON_ArrayForEach(t, get(layer, side)) if (strcmp(cJSON_GetStringValue(get(t, "name")), name) == 0) return t;
    return NULL;
}

/* Every edge as the rows say it, and every row pair the rows imply is an edge. */
static void check_edges(const char *model, const cJSON *layers, const cJSON *edges, int n) {
    int count = (int)num(edges, "count");
    CHECK(cJSON_GetArraySize(get(edges, "from")) == count && cJSON_GetArraySize(get(edges, "to")) == count &&
              cJSON_GetArraySize(get(edges, "output")) == count,
          "%s: the edge columns have count rows", model);
    for (int e = 0; e < count; e++) {
        int from = (int)cJSON_GetArrayItem(get(edges, "from"), e)->valuedouble;
        int to = (int)cJSON_GetArrayItem(get(edges, "to"), e)->valuedouble;
        int slot = (int)cJSON_GetArrayItem(get(edges, "output"), e)->valuedouble;
        CHECK(from >= 0 && from < n && to >= 0 && to < n && from != to, "%s: edge %d joins rows", model, e);
        if (!(from >= 0 && from < n && to >= 0 && to < n)) continue;
        const cJSON *out = cJSON_GetArrayItem(get(cJSON_GetArrayItem(layers, from), "outputs"), slot);
        const char *name = cJSON_GetStringValue(get(out, "name"));
        const cJSON *in = name ? tensor_named(cJSON_GetArrayItem(layers, to), "inputs", name) : NULL;
        CHECK(out && in, "%s: edge %d's tensor %s is output %d of row %d and an input of row %d", model, e,
              name ? name : "?", slot, from, to);
        if (in) CHECK(cJSON_Compare(get(out, "shape"), get(in, "shape"), 1), "%s: edge %d's shape", model, e);
    }
    /* the other way: an input another row writes is an edge */
    int implied = 0;
    for (int i = 0; i < n; i++) {
        const cJSON *t;
        cJSON_ArrayForEach(t, get(cJSON_GetArrayItem(layers, i), "inputs")) {
            for (int p = 0; p < n; p++)
                if (p != i && tensor_named(cJSON_GetArrayItem(layers, p), "outputs",
                                           cJSON_GetStringValue(get(t, "name")))) {
                    implied++;
                    break;
                }
        }
    }
    CHECK(implied >= count, "%s: %d edges for %d inputs written by other rows", model, count, implied);
    edges_seen += count;
}

/* How many modules a name opens, as docs/api.md words it: one per '/' that
 * ends a non-empty part, past the first character. */
static int name_levels_of(const char *name) {
    int n = 0;
    for (size_t k = 1; name[0] && name[k]; k++) n += name[k] == '/' && name[k - 1] != '/';
    return n;
}

/* true when `prefix` is a prefix of s followed by '/'. */
static bool opens(const char *prefix, const char *s) {
    size_t n = strlen(prefix);
    return strncmp(prefix, s, n) == 0 && s[n] == '/';
}

static void check_module_sums(const char *model, const cJSON *layers, const cJSON *mo, const cJSON *lm, int n,
                              const cJSON *colors) {
    int count = (int)num(mo, "count");
    double *t = calloc((size_t)count + 1, sizeof *t);
    int *k = calloc((size_t)count + 1, sizeof *k);
    for (int i = 0; i < n; i++)
        for (int m = (int)cJSON_GetArrayItem(lm, i)->valuedouble; m >= 0 && m < count;
             m = (int)cJSON_GetArrayItem(get(mo, "parent"), m)->valuedouble) {
            t[m] += num(cJSON_GetArrayItem(layers, i), "t");
            k[m]++;
        }
    for (int m = 0; m < count; m++) {
        CHECK_NEAR(cJSON_GetArrayItem(get(mo, "t"), m)->valuedouble, t[m], 1e-9, "module time = its layers'");
        CHECK(cJSON_GetArrayItem(get(mo, "layers"), m)->valuedouble == k[m] && k[m] > 0,
              "%s: module %d counts its %d layers", model, m, k[m]);
        const char *b = cJSON_GetStringValue(cJSON_GetArrayItem(get(mo, "bound"), m));
        CHECK(b && cJSON_IsString(get(colors, b)), "%s: module %d has a bound with a colour", model, m);
    }
    free(t), free(k);
}

static void check_modules(const char *model, const cJSON *layers, const cJSON *g, int n) {
    const cJSON *mo = get(g, "modules"), *lm = get(g, "layer_module");
    int count = (int)num(mo, "count");
    CHECK(cJSON_GetArraySize(lm) == n, "%s: a module for every layer", model);
    for (int m = 0; m < count; m++) {
        const char *path = cJSON_GetStringValue(cJSON_GetArrayItem(get(mo, "path"), m));
        int parent = (int)cJSON_GetArrayItem(get(mo, "parent"), m)->valuedouble;
        int depth = (int)cJSON_GetArrayItem(get(mo, "depth"), m)->valuedouble;
        CHECK(parent >= -1 && parent < m, "%s: module %d's parent comes first", model, m);
        if (parent >= 0) {
            const char *pp = cJSON_GetStringValue(cJSON_GetArrayItem(get(mo, "path"), parent));
            CHECK(path && pp && opens(pp, path), "%s: %s lies in %s", model, path, pp);
            CHECK(depth == cJSON_GetArrayItem(get(mo, "depth"), parent)->valuedouble + 1, "%s: depth", model);
        } else {
            CHECK(depth == 0, "%s: a top module has depth 0", model);
        }
    }
    for (int i = 0; i < n; i++) {
        int m = (int)cJSON_GetArrayItem(lm, i)->valuedouble;
        const char *name = cJSON_GetStringValue(get(cJSON_GetArrayItem(layers, i), "name"));
        CHECK(m >= -1 && m < count, "%s: layer %d's module is a module", model, i);
        if (m >= 0 && m < count)
            CHECK(opens(cJSON_GetStringValue(cJSON_GetArrayItem(get(mo, "path"), m)), name),
                  "%s: the module of %s is a prefix of it", model, name);
        else if (m == -1)
            CHECK(name_levels_of(name) == 0, "%s: %s opens no module", model, name);
    }
    check_module_sums(model, layers, mo, lm, n, get(g, "colors"));
    if (count > 0) models_with_modules++;
}

/* fold_into: a layer's own box (-1), the constants box (-2), or the box of a
 * layer that is drawn (-1 itself) and that this layer, of no work, feeds,
 * through layers of no work; attributes: one list of pairs per layer. */
static int folded_seen;
static void check_fold(const char *model, const cJSON *layers, const cJSON *g, int n) {
    const cJSON *fold = get(g, "fold_into"), *attrs = get(g, "attributes");
    CHECK(cJSON_GetArraySize(fold) == n && cJSON_GetArraySize(attrs) == n, "%s: fold_into and attributes per layer", model);
    for (int i = 0; i < n && cJSON_GetArraySize(fold) == n; i++) {
        int at = (int)cJSON_GetArrayItem(fold, i)->valuedouble;
        const char *bound = cJSON_GetStringValue(get(cJSON_GetArrayItem(layers, i), "bound"));
        CHECK(at >= -2 && at < n && at != i, "%s: layer %d folds to %d", model, i, at);
        if (at == -1) continue;
        folded_seen++;
        CHECK(bound && !strcmp(bound, "none"), "%s: layer %d folds but does work (%s)", model, i, bound ? bound : "?");
        if (at >= 0 && at < n) CHECK(cJSON_GetArrayItem(fold, at)->valuedouble == -1, "%s: layer %d folds into a drawn box", model, i);
    }
    for (int i = 0; i < cJSON_GetArraySize(attrs); i++) {
        const cJSON *pair;
        cJSON_ArrayForEach(pair, cJSON_GetArrayItem(attrs, i))
            CHECK(cJSON_GetArraySize(pair) == 2 && cJSON_IsString(cJSON_GetArrayItem(pair, 0)) &&
                      cJSON_IsString(cJSON_GetArrayItem(pair, 1)), "%s: layer %d's attributes are pairs", model, i);
    }
}

static void each_model(const char *name, rl_model *m, void *ctx) {
    (void)ctx;
    cJSON *res = analyze(m, "");
    bool analysed = cJSON_IsTrue(get(res, "ok"));
    CHECK(res && !get(res, "graph"), "%s: no graph unless asked for", name);
    cJSON_Delete(res);
    if (!analysed) return; /* a model the core refuses (tests/test_malformed.c) */
    res = analyze(m, ",\"graph\":true");
    const cJSON *layers = get(res, "layers"), *g = get(res, "graph");
    CHECK(cJSON_IsTrue(get(res, "ok")) && g, "%s: an answer with a graph", name);
    if (!g) {
        cJSON_Delete(res);
        return;
    }
    int n = cJSON_GetArraySize(layers);
    CHECK(num(g, "layers") == n, "%s: the graph has the layers' rows", name);
    for (int i = 0; i < n; i++) CHECK(num(cJSON_GetArrayItem(layers, i), "index") == i, "%s: row %d is node %d", name, i, i);
    check_edges(name, layers, get(g, "edges"), n);
    check_modules(name, layers, g, n);
    check_fold(name, layers, g, n);
    cJSON_Delete(res);
    models++;
}

static rl_model *one_node_model(const char *node_name) {
    gen_buf g = {0}, s = {0};
    gen_node(&g, &s, "Relu", "x", "y", node_name, strlen(node_name));
    gen_str(&g, 2, "one");
    gen_value_info(&g, 11, "x", 16);
    gen_value_info(&g, 12, "y", 16);
    free(s.p);
    size_t len = 0;
    uint8_t *bytes = gen_model(&g, &len);
    rl_model *m = bytes ? rl_model_read(bytes, len, NULL, NULL) : NULL;
    free(bytes);
    return m;
}

/* The module paths of known names: PyTorch's, a doubled '/', none, and a
 * name deeper than RL_MODULE_MAX_DEPTH. */
static void known_names(void) {
    static const struct { const char *name; int count; const char *deepest; } cases[] = {
        {"/layer1/layer1.0/conv1/Conv", 3, "/layer1/layer1.0/conv1"},
        {"a//b/Relu", 2, "a//b"},
        {"relu", 0, NULL},
        {"/relu", 0, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        rl_model *m = one_node_model(cases[i].name);
        cJSON *res = analyze(m, ",\"graph\":true");
        const cJSON *mo = get(get(res, "graph"), "modules");
        CHECK(num(mo, "count") == cases[i].count, "%s opens %d modules", cases[i].name, cases[i].count);
        int deepest = (int)cJSON_GetArrayItem(get(get(res, "graph"), "layer_module"), 0)->valuedouble;
        const char *path = deepest >= 0 ? cJSON_GetStringValue(cJSON_GetArrayItem(get(mo, "path"), deepest)) : NULL;
        CHECK(cases[i].deepest ? path && !strcmp(path, cases[i].deepest) : deepest == -1, "%s lies in %s", cases[i].name,
              cases[i].deepest ? cases[i].deepest : "no module");
        cJSON_Delete(res);
        rl_model_free(m);
    }
    char deep[256] = "";
    for (int i = 0; i < 40; i++) strcat(deep, "/m");
    strcat(deep, "/Relu");
    rl_model *m = one_node_model(deep);
    cJSON *res = analyze(m, ",\"graph\":true");
    CHECK(num(get(get(res, "graph"), "modules"), "count") == RL_MODULE_MAX_DEPTH, "a deep name keeps %d levels",
          RL_MODULE_MAX_DEPTH);
    cJSON_Delete(res);
    res = analyze(m, ",\"graph\":\"yes\"");
    const cJSON *err = get(res, "error");
    CHECK(!cJSON_IsTrue(get(res, "ok")) && !strcmp(cJSON_GetStringValue(get(err, "code")), "bad_request") &&
              !strcmp(cJSON_GetStringValue(get(err, "where")), "graph"),
          "\"graph\": \"yes\" is a bad_request at graph");
    cJSON_Delete(res);
    rl_model_free(m);
}

int main(int argc, char **argv) {
    const char *tests_dir = argc > 1 ? argv[1] : ".";
    const char *root_dir = argc > 2 ? argv[2] : "..";
    const char *samples = argc > 3 ? argv[3] : NULL;
    char path[2048];
    snprintf(path, sizeof path, "%s/hw/h100-sxm.json", root_dir);
    h100 = check_read_file(path, NULL);
    CHECK(h100 != NULL, "the hardware profile reads");
    if (h100) corpus_each(tests_dir, samples, each_model, NULL);
    CHECK(models > 40, "the corpus has models (%d)", models);
    printf("%d models, %d with modules, %d edges, %d layers folded\n", models, models_with_modules, edges_seen, folded_seen);
    CHECK(folded_seen > 0, "some corpus model folds a layer of no work");
    CHECK(models_with_modules >= 2 && edges_seen > 100, "%d models have modules, %d edges in all", models_with_modules,
          edges_seen);
    if (h100) known_names();
    free(h100);
    return check_report("graph view");
}
