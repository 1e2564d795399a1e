/* The graph of a diff (diff.graph, core/src/diff_graph.c), what the page's
 * graph and module views of two models and `rooflens diff --format dot`
 * draw:
 *  - every layer's change in each figure agrees with the old and new
 *    figures of diff.matched / added / removed (the table's and the
 *    Markdown's), and its "at" points at its own entry;
 *  - a model against itself: no change anywhere (layers, edges, modules);
 *  - the fixture pair diff_old/diff_new: the widened fc1 and its consumers
 *    slower in bytes, fc_extra added, the tensors that grew marked "shape"
 *    with both shapes, the edge fc2 -> act that the new model lacks
 *    "removed";
 *  - widen_old/widen_new (one layer widened): exactly that layer, its
 *    consumers and their modules change, in the forecast and in bytes (on
 *    the Orin: on an H100 the forecast of layers this small is their fixed
 *    costs, the same whatever their width, so fewer change there). */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_model.h"
#include "rooflens.h"

static const char *tests_dir;
static char *unit_hw;
static const char *const FIGS[] = {"forecast_s", "t", "energy_j", "bytes"};

static rl_model *load_model(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/models/%s", tests_dir, name);
    return check_read_model(path);
}

static cJSON *graph_diff(rl_model *a, rl_model *b, const char *hw) {
    size_t n = strlen(hw) + 64;
    char *req = malloc(n);
    snprintf(req, n, "{\"hardware\": %s, \"graph\": true}", hw);
    char *out = rl_models_diff(a, b, req);
    free(req);
    cJSON *res = out ? cJSON_Parse(out) : NULL;
    CHECK(res && cJSON_IsTrue(check_at(res, "ok")), "diff with graph failed: %.300s", out ? out : "(null)");
    rl_free(out);
    return res;
}

/* The word a change of old -> new is, as the core defines it. */
static const char *expected(double old, double nw) {
    if (isnan(old) && isnan(nw)) return "same";
    if (isnan(old) || isnan(nw)) return "unknown";
    if (fabs(nw - old) <= 1e-9 * fmax(fabs(old), fabs(nw))) return "same";
    return nw > old ? "slower" : "faster";
}

/* Each layer of one side: its entry in the diff's lists is its own, and
 * its change in each figure is what its old and new figures say. */
static void check_layers(const cJSON *d, bool is_new) {
    const cJSON *side = check_at(d, is_new ? "graph.new" : "graph.old");
    int n = (int)check_num(side, "layers");
    CHECK(n == cJSON_GetArraySize(check_at(side, "at")), "one 'at' per layer");
    for (int i = 0; i < n; i++) {
        char path[64];
        snprintf(path, sizeof path, "at.%d", i);
        int at = (int)check_num(side, path);
        snprintf(path, sizeof path, "change.bytes.%d", i);
        const char *kind = check_str(side, path);
        bool alone = !strcmp(kind, is_new ? "added" : "removed");
        const cJSON *L = cJSON_GetArrayItem(check_at(d, alone ? (is_new ? "added" : "removed") : "matched"), at);
        double index = check_num(L, alone ? "index" : is_new ? "new_index" : "old_index");
        CHECK(L && index == i, "%s layer %d: 'at' %d points at layer %g", is_new ? "new" : "old", i, at, index);
        for (int f = 0; L && f < 4; f++) {
            snprintf(path, sizeof path, "change.%s.%d", FIGS[f], i);
            const char *got = check_str(side, path);
            const cJSON *fig = check_at(L, FIGS[f]);
            const char *want = alone ? kind : expected(check_num(fig, "old"), check_num(fig, "new"));
            CHECK(!strcmp(got, want), "%s: %s is '%s', its figures say '%s'", check_str(L, "name"), FIGS[f], got, want);
        }
    }
}

/* The names of the new side's layers whose change in `fig` is not "same". */
static void changed_names(const cJSON *d, const char *fig, char *buf, size_t cap) {
    const cJSON *side = check_at(d, "graph.new");
    buf[0] = 0;
    for (int i = 0; i < (int)check_num(side, "layers"); i++) {
        char path[64];
        snprintf(path, sizeof path, "change.%s.%d", fig, i);
        const char *kind = check_str(side, path);
        if (!strcmp(kind, "same")) continue;
        snprintf(path, sizeof path, "at.%d", i);
        const cJSON *L = cJSON_GetArrayItem(check_at(d, strcmp(kind, "added") ? "matched" : "added"), (int)check_num(side, path));
        size_t at = strlen(buf);
        snprintf(buf + at, cap - at, "%s%s:%s", at ? " " : "", check_str(L, "name"), kind);
    }
}

static void changed_modules(const cJSON *d, const char *fig, char *buf, size_t cap) {
    const cJSON *mo = check_at(d, "graph.modules");
    buf[0] = 0;
    for (int m = 0; m < (int)check_num(mo, "count"); m++) {
        char path[64];
        snprintf(path, sizeof path, "%s.change.%d", fig, m);
        if (!strcmp(check_str(mo, path), "same")) continue;
        snprintf(path, sizeof path, "path.%d", m);
        size_t at = strlen(buf);
        snprintf(buf + at, cap - at, "%s%s", at ? " " : "", check_str(mo, path));
    }
}

static void changed_edges(const cJSON *d, char *buf, size_t cap) {
    const cJSON *e = check_at(d, "graph.edges");
    buf[0] = 0;
    for (int k = 0; k < (int)check_num(e, "count"); k++) {
        char path[64];
        snprintf(path, sizeof path, "change.%d", k);
        const char *ch = check_str(e, path);
        if (!strcmp(ch, "same")) continue;
        char o[64], nw[64], f[32], t[32];
        snprintf(f, sizeof f, "from.%d", k), snprintf(t, sizeof t, "to.%d", k);
        snprintf(o, sizeof o, "old_shape.%d", k), snprintf(nw, sizeof nw, "new_shape.%d", k);
        size_t at = strlen(buf);
        snprintf(buf + at, cap - at, "%s%g>%g:%s:%s:%s", at ? " " : "", check_num(e, f), check_num(e, t), ch,
                 check_str(e, o), check_str(e, nw));
    }
}

static void test_identity(const char *name, const char *hw) {
    rl_model *m = load_model(name);
    if (!m) return;
    cJSON *res = graph_diff(m, m, hw);
    const cJSON *d = check_at(res, "diff");
    check_layers(d, true);
    check_layers(d, false);
    char buf[4096];
    for (int f = 0; f < 4; f++) {
        changed_names(d, FIGS[f], buf, sizeof buf);
        CHECK(!buf[0], "%s against itself: %s changed in %s", name, buf, FIGS[f]);
        changed_modules(d, FIGS[f], buf, sizeof buf);
        CHECK(!buf[0], "%s against itself: modules %s changed in %s", name, buf, FIGS[f]);
    }
    changed_edges(d, buf, sizeof buf);
    CHECK(!buf[0], "%s against itself: edges changed: %s", name, buf);
    CHECK(check_num(d, "graph.edges.count") == check_num(d, "graph.edges.new_edges"), "no edge only the old model has");
    cJSON_Delete(res);
    rl_model_free(m);
}

static void test_fixture_pair(void) {
    rl_model *a = load_model("diff_old.onnx"), *b = load_model("diff_new.onnx");
    if (!a || !b) return;
    cJSON *res = graph_diff(a, b, unit_hw);
    const cJSON *d = check_at(res, "diff");
    check_layers(d, true);
    check_layers(d, false);
    char buf[4096];
    changed_names(d, "bytes", buf, sizeof buf);
    CHECK(!strcmp(buf, "fc1:slower relu1:slower fc2:slower fc_extra:added"), "bytes changed: %s", buf);
    /* new layers: fc1 0, relu1 1, fc2 2, fc_extra 3, act 4, head 5, probs_softmax 6 */
    changed_edges(d, buf, sizeof buf);
    CHECK(!strcmp(buf, "0>1:shape:[4, 128]:[4, 256] 1>2:shape:[4, 128]:[4, 256] 2>3:added::[4, 32] "
                       "3>4:added::[4, 32] 2>4:removed:[4, 32]:"),
          "edges: %s", buf);
    CHECK(check_num(d, "graph.modules.count") == 0, "names without '/' make no module");
    cJSON_Delete(res);
    rl_model_free(a);
    rl_model_free(b);
}

static void test_widened(const char *hw_name, const char *hw) {
    rl_model *a = load_model("widen_old.onnx"), *b = load_model("widen_new.onnx");
    if (!a || !b) return;
    cJSON *res = graph_diff(a, b, hw);
    const cJSON *d = check_at(res, "diff");
    check_layers(d, true);
    check_layers(d, false);
    char buf[4096];
    static const char *const figs[] = {"forecast_s", "bytes"};
    for (int f = 0; f < 2; f++) {
        changed_names(d, figs[f], buf, sizeof buf);
        CHECK(!strcmp(buf, "/block1/fc1/MatMul:slower /block1/act/Relu:slower /block1/fc2/MatMul:slower"), "%s, %s changed: %s",
              hw_name, figs[f], buf);
        changed_modules(d, figs[f], buf, sizeof buf);
        CHECK(!strcmp(buf, "/block1 /block1/fc1 /block1/act /block1/fc2"), "%s, modules changed in %s: %s", hw_name, figs[f], buf);
    }
    changed_edges(d, buf, sizeof buf);
    CHECK(!strcmp(buf, "2>3:shape:[4, 32]:[4, 64] 3>4:shape:[4, 32]:[4, 64]"), "edges: %s", buf);
    CHECK(cJSON_GetArraySize(check_at(d, "graph.removed_modules")) == 0, "no module removed");
    cJSON_Delete(res);
    rl_model_free(a);
    rl_model_free(b);
}

/* diff.page_link: the page's link to the graph of the change, made only
 * with the page's and both models' addresses, each checked; the Markdown
 * links to it. */
static void test_page_link(void) {
    rl_model *a = load_model("widen_old.onnx"), *b = load_model("widen_new.onnx");
    if (!a || !b) return;
    size_t n = strlen(unit_hw) + 512;
    char *req = malloc(n);
    snprintf(req, n, "{\"hardware\": %s, \"precision\": \"fp16\", \"batch\": 2, \"diff\": {\"markdown\": true, "
             "\"page_url\": \"https://example.github.io/rooflens/\", \"old_url\": \"https://h.example/a b.onnx\", "
             "\"new_url\": \"https://h.example/new.onnx?x=1&y=2\"}}", unit_hw);
    char *out = rl_models_diff(a, b, req);
    cJSON *res = cJSON_Parse(out);
    CHECK(!strcmp(check_str(res, "error.where"), "diff.old_url"), "a space in an address is refused at diff.old_url: %.200s", out);
    cJSON_Delete(res);
    rl_free(out);
    snprintf(req, n, "{\"hardware\": %s, \"precision\": \"fp16\", \"batch\": 2, \"diff\": {\"markdown\": true, "
             "\"page_url\": \"https://example.github.io/rooflens/\", \"old_url\": \"https://h.example/a%%20b.onnx\", "
             "\"new_url\": \"https://h.example/new.onnx?x=1&y=2\"}}", unit_hw);
    out = rl_models_diff(a, b, req);
    res = cJSON_Parse(out);
    const char *want = "https://example.github.io/rooflens/#model=https%3A%2F%2Fh.example%2Fa%2520b.onnx&hw=unit&prec=fp16"
                       "&batch=2&vs=https%3A%2F%2Fh.example%2Fnew.onnx%3Fx%3D1%26y%3D2&dview=change";
    CHECK(!strcmp(check_str(res, "diff.page_link"), want), "page_link: %s", check_str(res, "diff.page_link"));
    char line[1024];
    snprintf(line, sizeof line, "[See what changed in the graph](%s)", want);
    CHECK(strstr(check_str(res, "diff.markdown"), line) != NULL, "the Markdown links to the page");
    cJSON_Delete(res);
    rl_free(out);
    /* without a model's address: no link */
    snprintf(req, n, "{\"hardware\": %s, \"diff\": {\"markdown\": true, \"page_url\": \"https://example.github.io/r/\", "
             "\"old_url\": \"https://h.example/a.onnx\"}}", unit_hw);
    out = rl_models_diff(a, b, req);
    res = cJSON_Parse(out);
    CHECK(cJSON_IsTrue(check_at(res, "ok")) && !check_at(res, "diff.page_link") && !strstr(check_str(res, "diff.markdown"), "See what"),
          "no link without both models' addresses");
    cJSON_Delete(res);
    rl_free(out);
    free(req);
    rl_model_free(a);
    rl_model_free(b);
}

/* Each edge's shape in the diff (read from the packed tensor table) is the
 * shape the analysis's rows give its tensor, as the page writes it. */
static void shape_of(const cJSON *shape, char *buf, size_t cap) {
    if (!cJSON_IsArray(shape)) {
        snprintf(buf, cap, "?");
        return;
    }
    size_t at = (size_t)snprintf(buf, cap, "[");
    const cJSON *d;
    int k = 0;
    cJSON_ArrayForEach(d, shape) {
        if (cJSON_IsNumber(d)) at += (size_t)snprintf(buf + at, cap - at, "%s%.0f", k ? ", " : "", d->valuedouble);
        else at += (size_t)snprintf(buf + at, cap - at, "%s?", k ? ", " : "");
        k++;
    }
    snprintf(buf + at, cap - at, "]");
}

static void test_shapes(const char *name) {
    rl_model *m = load_model(name);
    if (!m) return;
    cJSON *res = graph_diff(m, m, unit_hw);
    size_t n = strlen(unit_hw) + 64;
    char *req = malloc(n);
    snprintf(req, n, "{\"hardware\": %s, \"graph\": true}", unit_hw);
    char *out = rl_model_analyze(m, req);
    cJSON *an = cJSON_Parse(out);
    rl_free(out);
    free(req);
    const cJSON *e = check_at(res, "diff.graph.edges");
    int count = (int)check_num(an, "graph.edges.count"), checked = 0;
    CHECK(check_num(e, "new_edges") == count, "%s: one edge of the diff per edge of the graph", name);
    for (int k = 0; k < count; k++) {
        char path[64], want[256];
        snprintf(path, sizeof path, "graph.edges.from.%d", k);
        int from = (int)check_num(an, path);
        snprintf(path, sizeof path, "graph.edges.output.%d", k);
        int slot = (int)check_num(an, path);
        snprintf(path, sizeof path, "layers.%d.outputs.%d.shape", from, slot);
        shape_of(check_at(an, path), want, sizeof want);
        snprintf(path, sizeof path, "new_shape.%d", k);
        CHECK(!strcmp(check_str(e, path), want), "%s: edge %d's shape %s, the rows say %s", name, k, check_str(e, path), want);
        checked++;
    }
    CHECK(checked > 0 || count == 0, "%s: edges compared", name);
    cJSON_Delete(an);
    cJSON_Delete(res);
    rl_model_free(m);
}

int main(int argc, char **argv) {
    tests_dir = argc > 1 ? argv[1] : "tests";
    const char *root_dir = argc > 2 ? argv[2] : ".";
    char path[1024];
    snprintf(path, sizeof path, "%s/hw/unit.json", tests_dir);
    unit_hw = check_read_file(path, NULL);
    /* a shipped profile whose forecast of these small layers is not all fixed costs */
    snprintf(path, sizeof path, "%s/hw/jetson-agx-orin.json", root_dir);
    char *orin = check_read_file(path, NULL);
    snprintf(path, sizeof path, "%s/hw/h100-sxm.json", root_dir);
    char *h100 = check_read_file(path, NULL);
    CHECK(unit_hw && orin && h100, "cannot read the profiles");
    if (!unit_hw || !orin || !h100) return check_report("diff_graph");
    test_identity("diff_new.onnx", unit_hw);
    test_identity("transformer_block.onnx", h100);
    test_identity("widen_old.onnx", orin);
    test_fixture_pair();
    test_widened("unit", unit_hw);
    test_widened("jetson-agx-orin", orin);
    test_page_link();
    /* shapes unknown (an unsupported op, a dim left open) and many tensors */
    static const char *const shapes[] = {"unsupported_op.onnx", "unresolved_dim.onnx", "symbolic.onnx", "transformer_block.onnx",
                                         "control_flow.onnx", "yolo_head.onnx", "diff_new.onnx"};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) test_shapes(shapes[i]);
    free(unit_hw);
    free(orin);
    free(h100);
    return check_report("diff_graph");
}
