/* Measured against predicted (core/src/measured.c) and the Netron attachment
 * (core/src/netron.c), on small models with committed profiles
 * (tests/fixtures/measured/, see its README):
 *  - ONNX Runtime profiles recorded with graph optimisations off (every node
 *    its own kernel) and on (NCHWc kernels named after their output, fused
 *    MatMul+Add / MatMul+Scale kernels, a renamed Gelu kernel, layout
 *    reorders the runtime adds): the warm-up run is left out, the mean of the
 *    other two runs taken, fused kernels cover the nodes they ran;
 *  - a typical run: over three or more kept runs each kernel's time and the
 *    run's wall time are medians (a paused run moves nothing), a kernel
 *    run twice in a run counts both parts, one missing from some runs keeps
 *    its mean;
 *  - trtexec --exportProfile rows with "A + B", PWN(...) and
 *    {ForeignNode[A...B]} names and a reformatting layer;
 *  - a CSV with a time_ms header, repeated runs and a quoted name;
 *  - per-layer figures: measured time, efficiency = SOL / measured,
 *    recoverable time, and totals that add up;
 *  - bad profiles answer bad_measured and leave the model usable;
 *  - the Netron attachment read the way Netron's metadata.Attachment reads
 *    it (entries keyed "kind::target"): every named node has its metrics. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdbool.h>

#include "check.h"
#include "gen_models.h"
#include "rooflens.h"

static const char *tests_dir;
static cJSON *unit_hw;

static char *fixture_text(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/measured/%s", tests_dir, name);
    char *t = check_read_file(path, NULL);
    CHECK(t != NULL, "cannot read %s", path);
    return t;
}

static rl_model *load_model(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/measured/%s", tests_dir, name);
    size_t len = 0;
    char *bytes = check_read_file(path, &len);
    CHECK(bytes != NULL, "cannot read %s", path);
    char *err = NULL;
    rl_model *m = bytes ? rl_model_read(bytes, len, NULL, &err) : NULL;
    CHECK(m != NULL, "cannot load %s: %s", path, err ? err : "");
    rl_free(err);
    free(bytes);
    return m;
}

/* Analyses m with the profile `profile` (a fixture file name, or raw text
 * when raw is true) in `format`. Returns the parsed response. */
static cJSON *analyze(rl_model *m, const char *profile, bool raw, const char *format) {
    cJSON *req = cJSON_CreateObject();
    cJSON_AddItemToObject(req, "hardware", cJSON_Duplicate(unit_hw, 1));
    cJSON_AddTrueToObject(req, "layers");
    char *text = raw ? NULL : fixture_text(profile);
    cJSON *ms = cJSON_AddObjectToObject(req, "measured");
    cJSON_AddStringToObject(ms, "text", raw ? profile : (text ? text : ""));
    if (format) cJSON_AddStringToObject(ms, "format", format);
    free(text);
    char *rq = cJSON_PrintUnformatted(req);
    cJSON_Delete(req);
    char *out = rl_model_analyze(m, rq);
    free(rq);
    cJSON *res = cJSON_Parse(out);
    rl_free(out);
    return res;
}

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static double num(const cJSON *o, const char *k) {
    const cJSON *v = get(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const cJSON *layer(const cJSON *res, const char *name) {
    const cJSON *l;
    cJSON_ArrayForEach(l, get(res, "layers")) if (!strcmp(cJSON_GetStringValue(get(l, "name")), name)) return l;
    CHECK(0, "no layer %s", name);
    return NULL;
}

/* The group (measured.groups[]) layer `name` was placed in. */
static const cJSON *group_of(const cJSON *res, const char *name) {
    const cJSON *l = layer(res, name), *g;
    if (!l || !cJSON_IsNumber(get(l, "measured_group"))) return NULL;
    cJSON_ArrayForEach(g, get(get(res, "measured"), "groups"))
        if (num(g, "id") == num(l, "measured_group")) return g;
    return NULL;
}

static bool same_group(const cJSON *res, const char *a, const char *b) {
    const cJSON *la = layer(res, a), *lb = layer(res, b);
    return la && lb && cJSON_IsNumber(get(la, "measured_group")) &&
           num(la, "measured_group") == num(lb, "measured_group");
}

static const char *how(const cJSON *res, const char *name) {
    const cJSON *l = layer(res, name);
    return l ? cJSON_GetStringValue(get(l, "measured_how")) : NULL;
}

static bool unmatched_has(const cJSON *res, const char *name, const char *why_prefix) {
    const cJSON *u;
    cJSON_ArrayForEach(u, get(get(res, "measured"), "unmatched"))
        if (!strcmp(cJSON_GetStringValue(get(u, "name")), name))
            return !why_prefix || !strncmp(cJSON_GetStringValue(get(u, "why")), why_prefix, strlen(why_prefix));
    return false;
}

/* Mean "dur" of ORT events named `kernel`_kernel_time over the runs after the
 * first: computed here straight from the trace, as a reader would. */
static double ort_mean(const char *file, const char *kernel, int runs) {
    char *text = fixture_text(file);
    cJSON *ev = cJSON_Parse(text);
    free(text);
    char want[512];
    snprintf(want, sizeof want, "%s_kernel_time", kernel);
    double sum = 0;
    int seen = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, ev) {
        if (strcmp(cJSON_GetStringValue(get(e, "name")), want)) continue;
        if (seen++ > 0) sum += num(e, "dur") * 1e-6; /* events are in run order */
    }
    cJSON_Delete(ev);
    CHECK(seen == runs, "%s: %d events of %s, want %d", file, seen, kernel, runs);
    return sum / (runs - 1);
}

/* Totals add up: layers' shares sum to the matched time, matched + unmatched
 * = total, SOL of a one-node group = the node's own roofline time. */
static void check_totals(const cJSON *res, const char *what) {
    const cJSON *ms = get(res, "measured"), *l;
    CHECK(ms != NULL, "%s: no measured section", what);
    double sum = 0;
    cJSON_ArrayForEach(l, get(res, "layers")) if (cJSON_IsNumber(get(l, "measured_s"))) sum += num(l, "measured_s");
    CHECK_NEAR(sum, num(ms, "matched_s"), 1e-9, "Σ layers.measured_s = measured.matched_s");
    CHECK_NEAR(num(ms, "matched_s") + num(ms, "unmatched_s"), num(ms, "total_s"), 1e-9, "matched + unmatched = total");
    double share = num(ms, "sol_bound_share");
    CHECK(share >= 0 && share <= 1, "%s: sol_bound_share %g outside [0, 1]", what, share);
    const cJSON *g;
    double prev = INFINITY;
    cJSON_ArrayForEach(g, get(ms, "groups")) {
        double rec = num(g, "recoverable_s"), meas = num(g, "measured_s"), sol = num(g, "sol_s");
        CHECK(rec <= prev, "%s: groups not ranked by recoverable time", what);
        prev = rec;
        CHECK_NEAR(rec, meas > sol ? meas - sol : 0, 1e-9, "recoverable = measured - SOL");
        if (meas > 0) CHECK_NEAR(num(g, "efficiency"), sol / meas, 1e-9, "efficiency = SOL / measured");
        if (cJSON_GetArraySize(get(g, "nodes")) == 1) {
            const cJSON *node = cJSON_GetArrayItem(get(res, "layers"), (int)cJSON_GetArrayItem(get(g, "nodes"), 0)->valuedouble);
            double tc = num(node, "t_compute"), tm = num(node, "t_memory");
            CHECK_NEAR(sol, tc > tm ? tc : tm, 1e-12, "one node's SOL = max(t_compute, t_memory)");
        }
    }
}

static void test_ort_off(void) {
    rl_model *m = load_model("small_cnn.onnx");
    cJSON *res = analyze(m, "ort_small_cnn_disabled.json", false, NULL);
    const cJSON *ms = get(res, "measured");
    CHECK(cJSON_IsTrue(get(res, "ok")), "ORT off: analysis failed");
    CHECK(!strcmp(cJSON_GetStringValue(get(ms, "format")), "ort"), "ORT off: format detected");
    CHECK(num(ms, "runs") == 2 && cJSON_IsTrue(get(ms, "warmup_excluded")), "ORT off: 3 runs, warm-up left out");
    CHECK(num(ms, "matched") == num(ms, "kernels") && num(ms, "kernels") == 9, "ORT off: all 9 kernels matched");
    CHECK(cJSON_GetArraySize(get(ms, "unmatched")) == 0, "ORT off: nothing unmatched");
    CHECK(num(ms, "nodes_inferred") == 0, "ORT off: nothing inferred");
    const char *nodes[] = {"/conv1/Conv", "/relu/Relu", "/conv2/Conv", "/Add", "/fc/Gemm"};
    for (size_t i = 0; i < sizeof nodes / sizeof *nodes; i++) {
        const cJSON *l = layer(res, nodes[i]);
        CHECK_NEAR(num(l, "measured_s"), ort_mean("ort_small_cnn_disabled.json", nodes[i], 3), 1e-9, nodes[i]);
        CHECK(!strcmp(how(res, nodes[i]), "name"), "%s matched by name", nodes[i]);
        double tc = num(l, "t_compute"), tm = num(l, "t_memory"), sol = tc > tm ? tc : tm;
        CHECK_NEAR(num(l, "efficiency"), sol / num(l, "measured_s"), 1e-9, "layer efficiency");
        CHECK_NEAR(num(l, "achieved_flops_per_s"), num(l, "flops") / num(l, "measured_s"), 1e-9, "achieved FLOP/s");
    }
    CHECK(!same_group(res, "/conv1/Conv", "/relu/Relu"), "ORT off: Conv and Relu are separate kernels");
    check_totals(res, "ORT off");
    cJSON_Delete(res);
    rl_model_free(m);
}

static void test_ort_on_cnn(void) {
    rl_model *m = load_model("small_cnn.onnx");
    cJSON *res = analyze(m, "ort_small_cnn_all.json", false, "ort");
    const cJSON *ms = get(res, "measured");
    CHECK(cJSON_IsTrue(get(res, "ok")), "ORT on: analysis failed");
    /* "/relu/Relu_output_0_nchwc" (op Conv): the Relu's output names it, the Conv heads it */
    CHECK(same_group(res, "/conv1/Conv", "/relu/Relu"), "ORT on: Conv+Relu in one NCHWc kernel");
    CHECK(!strcmp(how(res, "/conv1/Conv"), "fused"), "ORT on: Conv placed by the fused name");
    /* "/conv2/Conv_output_0_nchwc" ran the residual Add and Relu as its epilogue */
    CHECK(same_group(res, "/conv2/Conv", "/Add") && same_group(res, "/conv2/Conv", "/relu_1/Relu"),
          "ORT on: Add and Relu inferred into conv2's kernel");
    CHECK(!strcmp(how(res, "/Add"), "inferred"), "ORT on: Add placed by inference");
    CHECK(!same_group(res, "/down/Conv", "/conv2/Conv"), "ORT on: the downsample Conv is its own kernel");
    CHECK(unmatched_has(res, "ReorderInput", "added by the runtime") &&
              unmatched_has(res, "ReorderOutput", "added by the runtime"),
          "ORT on: layout reorders listed as added by the runtime");
    CHECK(cJSON_GetArraySize(get(ms, "unmeasured")) == 0, "ORT on: every node with work placed");
    const cJSON *g = group_of(res, "/conv1/Conv");
    CHECK(g && cJSON_GetArraySize(get(g, "nodes")) == 2, "ORT on: conv1 group has 2 nodes");
    if (g) CHECK_NEAR(num(g, "measured_s"), ort_mean("ort_small_cnn_all.json", "/relu/Relu_output_0_nchwc", 3), 1e-9,
                      "ORT on: conv1 group time = its kernel's mean");
    CHECK_NEAR(num(layer(res, "/conv1/Conv"), "efficiency"), num(layer(res, "/relu/Relu"), "efficiency"), 0,
               "ORT on: one efficiency for a fused kernel");
    check_totals(res, "ORT on, cnn");
    cJSON_Delete(res);
    rl_model_free(m);
}

/* A graph that opens with an erf GELU: ONNX Runtime runs it as a kernel
 * named "Gelu" that names no node and runs first, after no kernel that
 * does. It still covers the five nodes, which read only the graph's input
 * and constants; before, they stayed unmeasured, and a model of such
 * kernels alone was refused as the profile of another model. */
static void test_ort_gelu_first(void) {
    rl_model *m = load_model("small_gelu_first.onnx");
    cJSON *res = analyze(m, "ort_small_gelu_first_all.json", false, "ort");
    CHECK(cJSON_IsTrue(get(res, "ok")), "gelu first: analysis failed");
    const char *gelu[] = {"/Div", "/Erf", "/Add", "/Mul", "/Mul_1"};
    for (size_t i = 0; i < 5; i++) CHECK(same_group(res, "/Div", gelu[i]), "the first Gelu kernel covers %s", gelu[i]);
    const cJSON *g = group_of(res, "/Div");
    CHECK(g && !strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(get(g, "kernels"), 0)), "Gelu") &&
              !strcmp(how(res, "/Erf"), "inferred"),
          "the GELU nodes sit in the Gelu kernel, placed by inference");
    CHECK(!same_group(res, "/Div", "/f/MatMul"), "the MatMul is a kernel of its own");
    CHECK(cJSON_GetArraySize(get(get(res, "measured"), "unmeasured")) == 0, "gelu first: every node placed");
    check_totals(res, "gelu first");
    cJSON_Delete(res);
    rl_model_free(m);
}

static void test_ort_on_mlp(void) {
    rl_model *m = load_model("small_mlp.onnx");
    cJSON *res = analyze(m, "ort_small_mlp_all.json", false, NULL);
    CHECK(cJSON_IsTrue(get(res, "ok")), "ORT on (mlp): analysis failed");
    /* "/f1/MatMul/MatMulAddFusion" (op Gemm) ran the bias Add too */
    CHECK(same_group(res, "/f1/MatMul", "/f1/Add"), "MatMulAddFusion covers the bias Add");
    /* "Gelu" names no node: it ran the erf GELU between the two MatMuls */
    const char *gelu[] = {"/Div", "/Erf", "/Add_1", "/Mul", "/Mul_1"};
    for (size_t i = 0; i < 5; i++) CHECK(same_group(res, "/Div", gelu[i]), "Gelu kernel covers %s", gelu[i]);
    const cJSON *g = group_of(res, "/Erf");
    CHECK(g && !strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(get(g, "kernels"), 0)), "Gelu"),
          "the GELU nodes sit in the Gelu kernel");
    CHECK(!same_group(res, "/Div", "/f1/MatMul"), "GELU not in the MatMul kernel");
    /* as one kernel the GELU reads /f1/Add's output [1,32,256] and three scalar
     * constants and writes /Mul_1's output: 32768 + 12 + 32768 bytes */
    if (g) {
        double tc = 0;
        for (size_t i = 0; i < 5; i++) tc += num(layer(res, gelu[i]), "t_compute");
        double tm = 65548 / 1e11; /* the unit device's bandwidth */
        CHECK_NEAR(num(g, "sol_fused_s"), tc > tm ? tc : tm, 1e-9, "GELU as one kernel: its traffic in and out");
        CHECK(num(g, "sol_fused_s") < num(g, "sol_s"), "fused speed of light below the sum of the nodes'");
    }
    const cJSON *one = group_of(res, "/Softmax");
    CHECK(one && num(one, "sol_fused_s") == num(one, "sol_s"), "one node: the same speed of light either way");
    /* "/MatMul/MatmulTransposeFusion//MatMulScaleFusion/" (FusedMatMul): transpose and scale folded in */
    CHECK(same_group(res, "/MatMul", "/Transpose") && same_group(res, "/MatMul", "/Div_1"),
          "FusedMatMul covers the Transpose before it and the Div after it");
    CHECK(unmatched_has(res, "gemm_input_reshape", "names no node"), "runtime reshapes listed");
    CHECK(cJSON_GetArraySize(get(get(res, "measured"), "unmeasured")) == 0, "ORT on (mlp): every node placed");
    check_totals(res, "ORT on, mlp");
    cJSON_Delete(res);
    /* with optimisations off the same model matches node for node */
    res = analyze(m, "ort_small_mlp_disabled.json", false, NULL);
    CHECK(num(get(res, "measured"), "matched") == num(get(res, "measured"), "kernels"), "ORT off (mlp): all matched");
    check_totals(res, "ORT off, mlp");
    cJSON_Delete(res);
    rl_model_free(m);
}

static void test_trtexec(void) {
    rl_model *m = load_model("small_cnn.onnx");
    cJSON *res = analyze(m, "trtexec_small_cnn.json", false, NULL);
    const cJSON *ms = get(res, "measured");
    CHECK(!strcmp(cJSON_GetStringValue(get(ms, "format")), "trtexec"), "trtexec: format detected");
    CHECK(num(ms, "runs") == 1000 && !cJSON_IsTrue(get(ms, "warmup_excluded")), "trtexec: runs from count");
    CHECK(!strcmp(cJSON_GetStringValue(get(ms, "statistic")), "median"), "trtexec: every layer's medianMs: medians");
    CHECK(same_group(res, "/conv2/Conv", "/Add") && same_group(res, "/Add", "/relu_1/Relu"), "trtexec: A + B + C");
    const cJSON *g = group_of(res, "/conv2/Conv");
    CHECK(g && cJSON_GetArraySize(get(g, "nodes")) == 3, "trtexec: 3 nodes in the fused layer");
    if (g) CHECK_NEAR(num(g, "measured_s"), 0.036e-3, 1e-9, "trtexec: medianMs taken (equal to averageMs here)");
    CHECK(!strcmp(how(res, "/Add"), "fused"), "trtexec: fused by name");
    CHECK(unmatched_has(res, "Reformatting CopyNode for Input Tensor 0 to /conv1/Conv + /relu/Relu", "added by the runtime"),
          "trtexec: reformatting layer listed");
    check_totals(res, "trtexec cnn");
    cJSON_Delete(res);
    rl_model_free(m);

    m = load_model("small_mlp.onnx");
    res = analyze(m, "trtexec_small_mlp.json", false, "trtexec");
    /* {ForeignNode[/ln/LayerNormalization.../f1/Add]}: the nodes from first to last in topological order */
    CHECK(same_group(res, "/ln/LayerNormalization", "/f1/MatMul") && same_group(res, "/ln/LayerNormalization", "/f1/Add"),
          "trtexec: ForeignNode range");
    CHECK(!same_group(res, "/ln/LayerNormalization", "/Div"), "trtexec: ForeignNode stops at its last node");
    const char *pwn[] = {"/Erf", "/Add_1", "/Mul", "/Mul_1"};
    for (size_t i = 0; i < 4; i++) CHECK(same_group(res, "/Div", pwn[i]), "trtexec: nested PWN covers %s", pwn[i]);
    CHECK(unmatched_has(res, "(Unnamed Layer* 42) [Shuffle]", "names no node"), "trtexec: unnamed layer listed");
    CHECK(num(get(res, "measured"), "runs") == 500, "trtexec: count 500");
    check_totals(res, "trtexec mlp");
    cJSON_Delete(res);
    /* medianMs, when given, before averageMs (a few slow runs lift the mean) */
    res = analyze(m, "[{\"count\": 10}, {\"name\": \"/f2/MatMul\", \"timeMs\": 1.0, \"averageMs\": 0.1, "
                     "\"medianMs\": 0.04}, {\"name\": \"/q/MatMul\", \"averageMs\": 0.02}]", true, "trtexec");
    CHECK_NEAR(num(layer(res, "/f2/MatMul"), "measured_s"), 0.04e-3, 1e-12, "trtexec: medianMs taken");
    CHECK_NEAR(num(layer(res, "/q/MatMul"), "measured_s"), 0.02e-3, 1e-12, "trtexec: averageMs without medianMs");
    CHECK(!strcmp(cJSON_GetStringValue(get(get(res, "measured"), "statistic")), "mean"),
          "trtexec: a layer without medianMs: the times are not all medians");
    cJSON_Delete(res);
    rl_model_free(m);
}

static void test_csv(void) {
    rl_model *m = load_model("small_cnn.onnx");
    cJSON *res = analyze(m, "csv_small_cnn.csv", false, NULL);
    const cJSON *ms = get(res, "measured");
    CHECK(!strcmp(cJSON_GetStringValue(get(ms, "format")), "csv"), "csv: format detected");
    CHECK(num(ms, "runs") == 2 && cJSON_IsTrue(get(ms, "warmup_excluded")), "csv: 3 runs, first left out");
    CHECK(!strcmp(cJSON_GetStringValue(get(ms, "statistic")), "mean"), "csv: two kept runs: their mean");
    CHECK_NEAR(num(layer(res, "/conv1/Conv"), "measured_s"), 0.050e-3, 1e-9, "csv: mean of runs 2-3 in ms");
    CHECK_NEAR(num(layer(res, "/fc/Gemm"), "measured_s"), 0.003e-3, 1e-9, "csv: mean of runs 2-3 in ms");
    CHECK(unmatched_has(res, "a kernel, with a comma", "names no node"), "csv: quoted name unmatched");
    const cJSON *u = cJSON_GetArrayItem(get(ms, "unmatched"), 0);
    CHECK_NEAR(num(u, "time_s"), 0.002e-3, 1e-9, "csv: unmatched kernel time");
    CHECK(num(ms, "nodes_inferred") == 0, "csv: no inference (a CSV names what ran)");
    /* /Flatten has no row and no work: it is not listed as unmeasured */
    CHECK(cJSON_GetArraySize(get(ms, "unmeasured")) == 0, "csv: every node with work has a row");
    check_totals(res, "csv");
    cJSON_Delete(res);
    /* a name listed once in a three-run file ran only in the warm-up run: said, not dropped silently */
    res = analyze(m, "name,time_s\n/fc/Gemm,1\n/fc/Gemm,2\n/fc/Gemm,3\n/Add,5\n", true, "csv");
    CHECK(num(get(res, "measured"), "warmup_only_kernels") == 1, "csv: a warm-up-only kernel is counted");
    const cJSON *w;
    bool warned = false;
    cJSON_ArrayForEach(w, get(res, "warnings")) warned |= !strcmp(cJSON_GetStringValue(get(w, "code")), "measured_warmup_only");
    CHECK(warned, "csv: warm-up-only kernels are warned about");
    CHECK_NEAR(num(layer(res, "/fc/Gemm"), "measured_s"), 2.5, 1e-12, "csv: seconds without a unit header");
    cJSON_Delete(res);
    rl_model_free(m);
}

/* One ORT trace event: a node kernel, or a run when kernel is NULL. */
static void ort_event_add(cJSON *ev, const char *kernel, double ts, double dur) {
    cJSON *e = cJSON_CreateObject();
    char name[64];
    snprintf(name, sizeof name, "%s_kernel_time", kernel ? kernel : "");
    cJSON_AddStringToObject(e, "cat", kernel ? "Node" : "Session");
    cJSON_AddStringToObject(e, "ph", "X");
    cJSON_AddStringToObject(e, "name", kernel ? name : "model_run");
    cJSON_AddNumberToObject(e, "ts", ts);
    cJSON_AddNumberToObject(e, "dur", dur);
    cJSON_AddItemToObject(e, "args", cJSON_CreateObject());
    cJSON_AddItemToArray(ev, e);
}

/* Over three or more kept runs a kernel's time is its median: one run the
 * machine paused (here 100x slower) moves nothing, where a mean would
 * charge a fifth or a third of the pause to every kernel it fell on. */
static void test_typical_run(void) {
    rl_model *m = load_model("small_cnn.onnx");
    /* CSV: a warm-up and five kept runs of /fc/Gemm, one of them paused;
     * /Add ran in the warm-up and two kept runs only */
    cJSON *res = analyze(m, "name,time_s\n/fc/Gemm,9\n/Add,5\n/fc/Gemm,1\n/Add,1\n/fc/Gemm,2\n/Add,3\n"
                            "/fc/Gemm,3\n/fc/Gemm,100\n/fc/Gemm,2\n", true, "csv");
    CHECK(num(get(res, "measured"), "runs") == 5, "typical run: five kept runs");
    CHECK(!strcmp(cJSON_GetStringValue(get(get(res, "measured"), "statistic")), "median"), "typical run: said to be medians");
    CHECK(cJSON_IsNull(get(get(res, "measured"), "between_kernels_s")), "typical run: a CSV gives no run's wall time");
    CHECK_NEAR(num(layer(res, "/fc/Gemm"), "measured_s"), 2, 1e-12, "typical run: the median of 1,2,3,100,2");
    CHECK_NEAR(num(layer(res, "/Add"), "measured_s"), 0.8, 1e-12, "typical run: missing from 3 of 5 runs: its mean");
    cJSON_Delete(res);
    /* ORT: a warm-up and three kept runs; /conv1/Conv ran as two parts in
     * the first kept run (4 + 4 µs); the second kept run was paused */
    cJSON *ev = cJSON_CreateArray();
    const double start[4] = {0, 1000, 2000, 5000}, wall[4] = {100, 20, 2000, 30};
    const double gemm[4] = {50, 10, 1000, 12};
    for (int r = 0; r < 4; r++) {
        ort_event_add(ev, NULL, start[r], wall[r]);
        ort_event_add(ev, "/fc/Gemm", start[r] + 1, gemm[r] < wall[r] - 2 ? gemm[r] : wall[r] - 2);
    }
    ort_event_add(ev, "/conv1/Conv", start[0] + 60, 30);
    ort_event_add(ev, "/conv1/Conv", start[1] + 14, 4), ort_event_add(ev, "/conv1/Conv", start[1] + 18, 4);
    ort_event_add(ev, "/conv1/Conv", start[2] + 1500, 10), ort_event_add(ev, "/conv1/Conv", start[3] + 14, 11);
    char *text = cJSON_PrintUnformatted(ev);
    cJSON_Delete(ev);
    res = analyze(m, text, true, "ort");
    free(text);
    const cJSON *ms = get(res, "measured");
    CHECK(num(ms, "runs") == 3 && cJSON_IsTrue(get(ms, "warmup_excluded")), "typical run: ORT, three kept runs");
    CHECK(!strcmp(cJSON_GetStringValue(get(ms, "statistic")), "median"), "typical run: ORT, said to be medians");
    CHECK_NEAR(num(layer(res, "/fc/Gemm"), "measured_s"), 12e-6, 1e-15, "typical run: ORT median of 10, 1000, 12 µs");
    CHECK_NEAR(num(layer(res, "/conv1/Conv"), "measured_s"), 10e-6, 1e-15,
               "typical run: ORT median of 4+4, 10, 11 µs (two parts of one run are one time)");
    CHECK_NEAR(num(ms, "run_wall_s"), 30e-6, 1e-15, "typical run: ORT median run of 20, 2000, 30 µs");
    /* each run's own gap, 20 - 18, 2000 - 1010, 30 - 23 µs; not the median
     * run's wall minus the kernels' medians (30 - 22) */
    CHECK_NEAR(num(ms, "between_kernels_s"), 7e-6, 1e-15, "typical run: ORT median gap of 2, 990, 7 µs");
    cJSON_Delete(res);
    rl_model_free(m);
}

/* A trace whose kept runs each hold ten kernels of 10 µs to 2 ms, the time
 * before the next 4 µs plus 0.3 % of the kernel before; `paused`: two of
 * the three kept runs paused 4 ms after a kernel (a time slice of other
 * work); `overlap`: twenty kernels, every fourth starting 5 µs before the
 * last one ends (an executor running two at once). */
static char *gap_trace(int kept, bool paused, bool overlap) {
    static const double dur[10] = {10, 500, 2000, 40, 1000, 20, 300, 1500, 60, 800};
    cJSON *ev = cJSON_CreateArray();
    double at = 0;
    for (int r = 0; r <= kept; r++) {
        double t0 = at;
        at += 4;
        for (int k = 0; k < (overlap ? 20 : 10); k++) {
            char name[16]; /* two of them name the model's nodes: a profile of no node is refused */
            snprintf(name, sizeof name, "%s", k == 0 ? "/conv1/Conv" : k == 1 ? "/fc/Gemm" : "");
            if (k > 1) snprintf(name, sizeof name, "k%d", k);
            double d = dur[k % 10];
            ort_event_add(ev, name, at, d);
            at += overlap && k % 4 == 3 ? d - 5 : d + 4 + 0.003 * d + (paused && r >= 2 && k == 3 ? 4000 : 0);
        }
        ort_event_add(ev, NULL, t0, at - t0);
        at += 100;
    }
    char *text = cJSON_PrintUnformatted(ev);
    cJSON_Delete(ev);
    return text;
}

/* How the time between kernels grows with the kernel before: each kept
 * run's least-squares slope, their median; a time slice of other work is
 * left out, and runs whose kernels overlap, or one run with a kernel
 * alone, tell none. */
static void test_gap_growth(void) {
    rl_model *m = load_model("small_cnn.onnx");
    char *text = gap_trace(3, true, false);
    cJSON *res = analyze(m, text, true, "ort");
    CHECK_NEAR(num(get(res, "measured"), "between_kernels_growth"), 0.003, 1e-9,
               "gap growth: the slope of the gap on the kernel before, paused runs too");
    cJSON_Delete(res), free(text);
    text = gap_trace(3, false, true);
    res = analyze(m, text, true, "ort");
    CHECK(cJSON_IsNull(get(get(res, "measured"), "between_kernels_growth")),
          "gap growth: kernels that overlap tell none");
    cJSON_Delete(res), free(text);
    res = analyze(m, "name,time_s\n/fc/Gemm,1\n", true, "csv");
    CHECK(cJSON_IsNull(get(get(res, "measured"), "between_kernels_growth")), "gap growth: a CSV tells none");
    cJSON_Delete(res);
    rl_model_free(m);
}

static void expect_error(rl_model *m, const char *text, const char *format, const char *code, const char *needle) {
    cJSON *res = analyze(m, text, true, format);
    const cJSON *e = get(res, "error");
    CHECK(!cJSON_IsTrue(get(res, "ok")) && !strcmp(cJSON_GetStringValue(get(e, "code")), code),
          "bad profile [%.40s]: want code %s", text, code);
    const char *msg = cJSON_GetStringValue(get(e, "message"));
    CHECK(msg && strstr(msg, needle), "bad profile [%.40s]: message '%s' lacks '%s'", text, msg ? msg : "", needle);
    cJSON_Delete(res);
}

static void test_errors(void) {
    rl_model *m = load_model("small_cnn.onnx");
    expect_error(m, "[{\"cat\": \"Node\"", NULL, "bad_measured", "does not parse");
    expect_error(m, "name,time_s\n/conv1/Conv,fast\n", NULL, "bad_measured", "line 2");
    expect_error(m, "name,time_s\n/conv1/Conv,-1\n", NULL, "bad_measured", "line 2");
    expect_error(m, "/conv1/Conv,1\n", "pdf", "bad_measured", "measured.format must be");
    expect_error(m, "{\"a\": 1}", NULL, "bad_measured", "neither ONNX Runtime");
    expect_error(m, "[{\"cat\": \"Session\", \"ph\": \"X\", \"name\": \"model_run\", \"ts\": 0, \"dur\": 5}]", NULL,
                 "bad_measured", "no node kernel events");
    expect_error(m, "", "csv", "bad_measured", "no kernel times");
    /* a request whose measured member is not an object */
    char *out = rl_model_analyze(m, "{\"hardware\": {\"id\": \"x\", \"compute\": {\"fp32\": {\"matrix\": 1e12}}, "
                                    "\"memory\": [{\"bandwidth_Bps\": 1e11}]}, \"measured\": \"profile.json\"}");
    CHECK(strstr(out, "\"code\":\"bad_request\"") && strstr(out, "\"where\":\"measured\""), "measured must be an object");
    rl_free(out);
    /* the model still works, and a profile of another model (it matches nothing) is refused: no ratio to a
     * floor it never ran against, and the error says what to do */
    cJSON *res = analyze(m, "ort_small_mlp_all.json", false, NULL);
    const cJSON *e = get(res, "error");
    CHECK(!cJSON_IsTrue(get(res, "ok")) && !strcmp(cJSON_GetStringValue(get(e, "code")), "bad_measured") &&
              !strcmp(cJSON_GetStringValue(get(e, "where")), "measured") &&
              strstr(cJSON_GetStringValue(get(e, "message")), "another model") && !get(res, "measured"),
          "foreign profile: refused as a bad measured profile");
    cJSON_Delete(res);
    rl_model_free(m);
}

/* Hostile profiles (issue 22): sums that overflow, numbers out of an
 * integer's range, fields over their limit, names that are not UTF-8. Each
 * is refused with the row it is on; nothing answers ok with a non-finite or
 * null total. */
static void expect_finite_totals(rl_model *m, const char *text, const char *what) {
    cJSON *res = analyze(m, text, true, NULL);
    const cJSON *ms = get(res, "measured");
    CHECK(cJSON_IsTrue(get(res, "ok")), "%s: analysis failed", what);
    static const char *const totals[] = {"total_s", "matched_s", "unmatched_s", "sol_s", "recoverable_s",
                                         "measured_over_predicted", "forecast_s", "measured_over_forecast"};
    for (size_t i = 0; i < sizeof totals / sizeof *totals; i++) {
        double v = num(ms, totals[i]);
        CHECK(isfinite(v) && v >= 0, "%s: measured.%s = %g is not a finite, non-negative number", what, totals[i], v);
    }
    /* the run against the forecast as well as the floor: the response's own forecast */
    CHECK(num(ms, "forecast_s") == num(get(res, "forecast"), "time_s"), "%s: measured.forecast_s is forecast.time_s", what);
    CHECK(fabs(num(ms, "measured_over_forecast") - num(ms, "total_s") / num(ms, "forecast_s")) <=
              1e-12 * num(ms, "measured_over_forecast"),
          "%s: measured over the forecast", what);
    cJSON_Delete(res);
}

static void test_hostile_profiles(void) {
    rl_model *m = load_model("small_cnn.onnx");
    /* finite times whose sum overflows: refused at the row where it happens */
    expect_error(m, "name,time_s\n/conv1/Conv,1e308\n/relu/Relu,1e308\n", NULL, "bad_measured", "at line 2");
    expect_error(m, "name,time_s\n/conv1/Conv,6e8\n/relu/Relu,6e8\n", NULL, "bad_measured", "at line 3");
    expect_error(m, "[{\"count\": 10}, {\"name\": \"/conv1/Conv\", \"averageMs\": 1e308},"
                    " {\"name\": \"/relu/Relu\", \"averageMs\": 1e308}]", NULL, "bad_measured", "row 1");
    /* a profile just inside the bound answers with finite totals */
    expect_finite_totals(m, "name,time_s\n/conv1/Conv,4e8\n/relu/Relu,5e8\n", "large times");
    /* numbers range-checked before they become integers */
    expect_error(m, "[{\"count\": 1e30}, {\"name\": \"/conv1/Conv\", \"averageMs\": 1}]", NULL, "bad_measured",
                 "\"count\" 1e+30");
    expect_error(m, "[{\"count\": -1e30}, {\"name\": \"/conv1/Conv\", \"averageMs\": 1}]", NULL, "bad_measured",
                 "row 0");
    expect_error(m, "[{\"count\": 1e999}, {\"name\": \"/conv1/Conv\", \"averageMs\": 1}]", NULL, "bad_measured",
                 "whole number");
    expect_error(m, "[{\"count\": 2.5}, {\"name\": \"/conv1/Conv\", \"averageMs\": 1}]", NULL, "bad_measured",
                 "whole number");
    static const char *const dims[] = {"1e30", "-1e30", "-1", "2.5", "1e999"};
    for (size_t i = 0; i < sizeof dims / sizeof *dims; i++) {
        char ort[512];
        snprintf(ort, sizeof ort, "[{\"cat\": \"Node\", \"ph\": \"X\", \"name\": \"/conv1/Conv_kernel_time\", "
                 "\"ts\": 1, \"dur\": 5, \"args\": {\"op_name\": \"Conv\", \"output_type_shape\": "
                 "[{\"float\": [1, %s, 8, 8]}]}}]", dims[i]);
        expect_error(m, ort, NULL, "bad_measured", "output_type_shape dim");
    }
    /* CSV: a name or field over its limit is an error, not a silent cut
     * (two names alike in their first 1023 bytes would merge) */
    char *text = malloc(4096);
    char long_name[1100];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = 0;
    snprintf(text, 4096, "name,time_s\n%s1,1\n%s2,1\n", long_name, long_name);
    expect_error(m, text, "csv", "bad_measured", "line 2 of the CSV profile: field 1 is longer than 1023 bytes");
    char long_time[300];
    memset(long_time, '0', sizeof long_time - 1);
    long_time[1] = '.';
    long_time[sizeof long_time - 1] = 0;
    long_time[sizeof long_time - 2] = '1'; /* 0.000…1: cut, it read as 0 or another number */
    snprintf(text, 4096, "name,time_s\n/conv1/Conv,%s\n", long_time);
    expect_error(m, text, "csv", "bad_measured", "line 2 of the CSV profile: field 2 is longer than 255 bytes");
    snprintf(text, 4096, "name,time_s,op\n/conv1/Conv,1,%s\n", long_time);
    expect_error(m, text, "csv", "bad_measured", "field 3");
    /* names are UTF-8 */
    expect_error(m, "name,time_s\n/conv1/Conv,1\nbad\xff\xfename,1\n", "csv", "bad_measured", "line 3");
    expect_error(m, "name,time_s\n/conv1/Conv,1\nbad\xc3(,1\n", "csv", "bad_measured", "not valid UTF-8");
    expect_error(m, "name,time_s,op\n/conv1/Conv,1,C\xffnv\n", "csv", "bad_measured", "the op is not valid UTF-8");
    expect_error(m, "[{\"name\": \"bad\xff\", \"averageMs\": 1}]", NULL, "bad_measured", "row 0");
    free(text);
    /* a name of multi-byte characters just inside the limit is read whole */
    cJSON *res = analyze(m, "name,time_s\n\xc3\xa9t\xc3\xa9,1\n/conv1/Conv,1\n", true, "csv");
    CHECK(cJSON_IsTrue(get(res, "ok")) && unmatched_has(res, "\xc3\xa9t\xc3\xa9", NULL), "UTF-8 name kept");
    cJSON_Delete(res);
    rl_model_free(m);
}

/* {ForeignNode[A...B]} rows kept as ranges of the topological order:
 * overlapping ranges are one group, adjacent ones are not, a single node
 * named inside a range joins it, and a range may be a part of "A + B". */
static double layer_group(const cJSON *res, int i) {
    return num(cJSON_GetArrayItem(get(res, "layers"), i), "measured_group");
}

static void test_foreign_ranges(void) {
    size_t len = 0;
    uint8_t *bytes = gen_chain_named(50, "Relu", 1, "n", &len);
    char *err = NULL;
    rl_model *m = bytes ? rl_model_read(bytes, len, NULL, &err) : NULL;
    free(bytes);
    CHECK(m != NULL, "chain: %s", err ? err : "");
    rl_free(err);
    if (!m) return;
    cJSON *res = analyze(m, "[{\"count\": 10},"
                            "{\"name\": \"{ForeignNode[n2...n5]}\", \"averageMs\": 1},"
                            "{\"name\": \"{ForeignNode[n4...n8]}\", \"averageMs\": 2},"
                            "{\"name\": \"{ForeignNode[n12...n10]}\", \"averageMs\": 4},"
                            "{\"name\": \"n11\", \"averageMs\": 8},"
                            "{\"name\": \"{ForeignNode[n20...n29]}\", \"averageMs\": 16},"
                            "{\"name\": \"{ForeignNode[n30...n31]}\", \"averageMs\": 32},"
                            "{\"name\": \"n40 + {ForeignNode[n42...n43]}\", \"averageMs\": 64},"
                            "{\"name\": \"{ForeignNode[n45...nothing]}\", \"averageMs\": 128}]", true, "trtexec");
    CHECK(cJSON_IsTrue(get(res, "ok")), "ranges: analysis failed");
    double g2 = layer_group(res, 2);
    for (int i = 3; i <= 8; i++) CHECK(layer_group(res, i) == g2, "ranges: overlapping rows, node %d in one group", i);
    CHECK(!cJSON_IsNumber(get(cJSON_GetArrayItem(get(res, "layers"), 9), "measured_group")), "ranges: n9 unmeasured");
    for (int i = 10; i <= 12; i++) CHECK(layer_group(res, i) == layer_group(res, 10), "ranges: reversed range n%d", i);
    CHECK(layer_group(res, 10) != g2, "ranges: disjoint ranges apart");
    CHECK(layer_group(res, 29) != layer_group(res, 30), "ranges: adjacent ranges apart");
    CHECK(layer_group(res, 40) == layer_group(res, 42) && layer_group(res, 40) == layer_group(res, 43) &&
              !cJSON_IsNumber(get(cJSON_GetArrayItem(get(res, "layers"), 41), "measured_group")),
          "ranges: a range as a part of A + B");
    const cJSON *ms = get(res, "measured"), *g;
    CHECK(cJSON_GetArraySize(get(ms, "groups")) == 5, "ranges: 5 groups");
    cJSON_ArrayForEach(g, get(ms, "groups")) {
        int id = (int)num(g, "id"), nodes = cJSON_GetArraySize(get(g, "nodes"));
        if (id == (int)g2) CHECK(nodes == 7 && num(g, "measured_s") == 3e-3, "ranges: n2..n8, 1 + 2 ms");
        if (id == (int)layer_group(res, 10))
            CHECK(nodes == 3 && fabs(num(g, "measured_s") - 12e-3) < 1e-15, "ranges: n10..n12 with n11's own row");
        if (id == (int)layer_group(res, 20)) CHECK(nodes == 10, "ranges: n20..n29");
    }
    CHECK(unmatched_has(res, "{ForeignNode[n45...nothing]}", "names no node"), "ranges: an unknown end stays unmatched");
    check_totals(res, "ranges");
    cJSON_Delete(res);
    rl_model_free(m);
}

/* sol_bound_share holds each kernel to its group's own floor: a fused
 * GELU that ran faster than its five nodes one by one (sol_s) but slower
 * than the group as one kernel (sol_fused_s) respects the bound; the
 * node-by-node share (sol_bound_share_unfused) does not count it. */
static void test_bound_share_fused(void) {
    rl_model *m = load_model("small_mlp.onnx");
    const char *gelu = "\"/Div + /Erf + /Add_1 + /Mul + /Mul_1\"";
    char text[512];
    snprintf(text, sizeof text, "name,time_s\n%s,1\n", gelu);
    cJSON *res = analyze(m, text, true, "csv");
    const cJSON *g = group_of(res, "/Erf");
    double sol = g ? num(g, "sol_s") : NAN, fused = g ? num(g, "sol_fused_s") : NAN;
    CHECK(g && cJSON_GetArraySize(get(g, "nodes")) == 5 && fused < sol, "bound share: the GELU's fused floor %g < %g",
          fused, sol);
    cJSON_Delete(res);
    double between = 0.5 * (sol + fused);
    snprintf(text, sizeof text, "name,time_s\n%s,%.17g\n", gelu, between);
    res = analyze(m, text, true, "csv");
    const cJSON *ms = get(res, "measured");
    CHECK(cJSON_IsTrue(get(res, "ok")) && num(ms, "kernels") == 1, "bound share: one fused kernel");
    CHECK(num(ms, "sol_bound_share") == 1, "bound share: between its floors, the kernel respects its own (%g)",
          num(ms, "sol_bound_share"));
    CHECK(num(ms, "sol_bound_share_unfused") == 0, "bound share: node by node it does not (%g)",
          num(ms, "sol_bound_share_unfused"));
    cJSON_Delete(res);
    /* below its own floor it does not count either way */
    snprintf(text, sizeof text, "name,time_s\n%s,%.17g\n", gelu, 0.5 * fused);
    res = analyze(m, text, true, "csv");
    CHECK(num(get(res, "measured"), "sol_bound_share") == 0, "bound share: below the fused floor");
    cJSON_Delete(res);
    rl_model_free(m);
}

/* A kernel's floor reads what another kernel just wrote from the fastest
 * memory level that can hold it (rl_traffic_floor_s, docs/model.md §12.7):
 * the GELU group exchanges 65536 bytes with the MatMuls around it and reads
 * 12 bytes of constants. With a 1 MB level at 4x the unit device's
 * bandwidth (and vector work fast enough that the GELU is memory-bound),
 * its floor charges the 65536 bytes there and the 12 from main
 * memory; a level too small for them changes nothing; a GELU measured
 * between the two floors respects its floor only with the level. */
static cJSON *with_cache_level(double capacity) {
    cJSON *hw = cJSON_Duplicate(unit_hw, 1), *lv = cJSON_CreateObject();
    /* fp32 work 100x faster than the unit device's vector rate: the GELU is memory-bound */
    cJSON *fp32 = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(hw, "compute"), "fp32");
    cJSON_ReplaceItemInObjectCaseSensitive(fp32, "vector", cJSON_CreateNumber(1e13));
    cJSON_ReplaceItemInObjectCaseSensitive(fp32, "matrix", cJSON_CreateNumber(1e13));
    if (!(capacity > 0)) return cJSON_Delete(lv), hw;
    cJSON_AddStringToObject(lv, "name", "L2");
    cJSON_AddNumberToObject(lv, "bandwidth_Bps", 4e11);
    cJSON_AddNumberToObject(lv, "capacity_bytes", capacity);
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(hw, "memory"), lv);
    return hw;
}

static void test_bound_share_cache(void) {
    rl_model *m = load_model("small_mlp.onnx");
    char text[512];
    snprintf(text, sizeof text, "name,time_s\n\"/Div + /Erf + /Add_1 + /Mul + /Mul_1\",%.17g\n", 4e-7);
    cJSON *keep = unit_hw, *res[3];
    const double capacity[3] = {0, 1e6, 1e3}; /* none, holds the tensors, too small */
    for (int i = 0; i < 3; i++) {
        unit_hw = with_cache_level(capacity[i]);
        res[i] = analyze(m, text, true, "csv");
        cJSON_Delete(unit_hw);
        unit_hw = keep;
    }
    const cJSON *g[3];
    for (int i = 0; i < 3; i++) g[i] = group_of(res[i], "/Erf");
    double tc = 0;
    const char *gelu[] = {"/Div", "/Erf", "/Add_1", "/Mul", "/Mul_1"};
    for (size_t i = 0; i < 5; i++) tc += num(layer(res[1], gelu[i]), "t_compute");
    double dram = 65548 / 1e11, cached = 12 / 1e11 + 65536 / 4e11;
    CHECK(g[0] && g[1] && g[2], "cache floor: the GELU group in every answer");
    if (g[0] && g[1] && g[2]) {
        CHECK(tc < cached, "cache floor: the GELU is memory-bound here (%g < %g)", tc, cached);
        CHECK_NEAR(num(g[0], "sol_fused_s"), dram, 1e-9, "cache floor: no cache level, all from main memory");
        CHECK_NEAR(num(g[1], "sol_fused_s"), cached, 1e-9, "cache floor: the exchanged tensors from the cache level");
        CHECK_NEAR(num(g[2], "sol_fused_s"), dram, 1e-9, "cache floor: a level too small for them is no help");
    }
    /* measured at 4e-7 s: between the cached floor (1.6e-7) and the main-memory floor (6.6e-7) */
    CHECK(num(get(res[0], "measured"), "sol_bound_share") == 0, "cache floor: below the main-memory floor");
    CHECK(num(get(res[1], "measured"), "sol_bound_share") == 1, "cache floor: above the floor with the cache level");
    for (int i = 0; i < 3; i++) cJSON_Delete(res[i]);
    rl_model_free(m);
}

/* ----------------------------------------------------------- Netron -- */
/* Netron's reader (source/view.js, metadata.Attachment.Container.open):
 * items with a kind and a target are filed under "kind::target", each name
 * mapping to {value, type}. This finds one entry that way. */
static const cJSON *netron_entry(const cJSON *list, const char *kind, const char *target, const char *name) {
    const cJSON *it, *found = NULL;
    cJSON_ArrayForEach(it, list) {
        const char *k = cJSON_GetStringValue(get(it, "kind")), *t = cJSON_GetStringValue(get(it, "target"));
        const char *n = cJSON_GetStringValue(get(it, "name"));
        if (!k || !t || !n) continue;
        if (!strcmp(k, kind) && !strcmp(t, target) && !strcmp(n, name)) found = it; /* a later one wins, as in a Map */
    }
    return found;
}

static void check_items(const cJSON *list, const char *what) {
    const cJSON *it;
    cJSON_ArrayForEach(it, list) {
        const char *k = cJSON_GetStringValue(get(it, "kind"));
        CHECK(k && (!strcmp(k, "model") || !strcmp(k, "graph") || !strcmp(k, "node")), "%s: kind", what);
        CHECK(cJSON_IsString(get(it, "target")) && cJSON_IsString(get(it, "name")), "%s: target and name", what);
        const cJSON *v = get(it, "value");
        CHECK(cJSON_IsNumber(v) || cJSON_IsString(v) || cJSON_IsBool(v), "%s: value is a primitive", what);
        if (cJSON_IsNumber(v)) CHECK(isfinite(v->valuedouble), "%s: finite value", what);
        CHECK(cJSON_IsString(get(it, "type")), "%s: type", what);
    }
}

static void test_netron(void) {
    rl_model *m = load_model("small_cnn.onnx");
    cJSON *res = analyze(m, "ort_small_cnn_all.json", false, NULL);
    char *text = cJSON_PrintUnformatted(res);
    char *att_text = rl_netron_attachment(text);
    free(text);
    cJSON *att = cJSON_Parse(att_text);
    rl_free(att_text);
    CHECK(!strcmp(cJSON_GetStringValue(get(att, "signature")), "netron:attachment"), "netron: signature");
    const cJSON *meta = get(att, "metadata"), *met = get(att, "metrics");
    CHECK(cJSON_IsArray(meta) && cJSON_IsArray(met), "netron: metadata and metrics arrays");
    check_items(meta, "netron metadata");
    check_items(met, "netron metrics");
    const cJSON *l;
    int layers = 0;
    cJSON_ArrayForEach(l, get(res, "layers")) {
        const char *name = cJSON_GetStringValue(get(l, "name"));
        layers++;
        static const char *const always[] = {"flops", "bytes", "intensity", "predicted_s", "forecast_s", "bound", "energy_j"};
        for (size_t i = 0; i < sizeof always / sizeof *always; i++)
            CHECK(netron_entry(met, "node", name, always[i]), "netron: node %s has %s", name, always[i]);
        const cJSON *e = netron_entry(met, "node", name, "predicted_s");
        if (e) CHECK_NEAR(get(e, "value")->valuedouble, num(l, "t"), 1e-5, "netron: predicted_s = layer t");
        e = netron_entry(met, "node", name, "forecast_s");
        if (e) CHECK_NEAR(get(e, "value")->valuedouble, num(l, "forecast_s"), 1e-5, "netron: forecast_s = the layer's");
        if (cJSON_IsNumber(get(l, "measured_s"))) {
            e = netron_entry(met, "node", name, "measured_s");
            CHECK(e && check_close(get(e, "value")->valuedouble, num(l, "measured_s"), 1e-5), "netron: %s measured_s", name);
            CHECK(netron_entry(met, "node", name, "efficiency") != NULL, "netron: %s efficiency", name);
        }
    }
    CHECK(layers == 9, "netron: 9 layers");
    /* model totals on target "", and on the main graph */
    const cJSON *e = netron_entry(met, "model", "", "flops");
    CHECK(e && check_close(get(e, "value")->valuedouble, num(get(res, "totals"), "flops"), 1e-5), "netron: model flops");
    CHECK(netron_entry(met, "model", "", "measured_s") != NULL, "netron: model measured_s");
    CHECK(netron_entry(met, "graph", "small_cnn", "predicted_s") != NULL, "netron: graph totals");
    e = netron_entry(met, "model", "", "forecast_s");
    CHECK(e && check_close(get(e, "value")->valuedouble, num(get(res, "forecast"), "time_s"), 1e-5), "netron: model forecast_s");
    CHECK(netron_entry(meta, "model", "", "hardware") != NULL, "netron: hardware in the metadata");
    cJSON_Delete(att);
    cJSON_Delete(res);
    rl_model_free(m);

    /* nodes without a name: Netron has no target for them, so they are
     * counted in the metadata instead of given a name Netron cannot match */
    gen_buf g = {0}, s = {0};
    gen_node(&g, &s, "Relu", "x", "t1", "first", 5);
    s.n = 0;
    gen_node(&g, &s, "Relu", "t1", "t2", NULL, 0);
    s.n = 0;
    gen_node(&g, &s, "Relu", "t2", "y", "last", 4);
    gen_str(&g, 2, "chain");
    gen_value_info(&g, 11, "x", 16);
    gen_value_info(&g, 12, "y", 16);
    free(s.p);
    size_t len = 0;
    uint8_t *bytes = gen_model(&g, &len);
    char *err = NULL;
    m = rl_model_read(bytes, len, NULL, &err);
    free(bytes);
    CHECK(m != NULL, "unnamed chain: %s", err ? err : "");
    rl_free(err);
    char *req = cJSON_PrintUnformatted(unit_hw), rq[8192];
    snprintf(rq, sizeof rq, "{\"hardware\": %s, \"layers\": true}", req);
    free(req);
    char *out = rl_model_analyze(m, rq);
    att_text = rl_netron_attachment(out);
    rl_free(out);
    att = cJSON_Parse(att_text);
    rl_free(att_text);
    met = get(att, "metrics");
    CHECK(netron_entry(met, "node", "first", "flops") && netron_entry(met, "node", "last", "flops"), "unnamed chain: named nodes");
    const cJSON *it;
    int node_targets = 0;
    cJSON_ArrayForEach(it, met) if (!strcmp(cJSON_GetStringValue(get(it, "kind")), "node") &&
                                    !strcmp(cJSON_GetStringValue(get(it, "name")), "flops")) node_targets++;
    CHECK(node_targets == 2, "unnamed chain: the unnamed node gets no invented target (%d)", node_targets);
    e = netron_entry(get(att, "metadata"), "model", "", "nodes_without_name");
    CHECK(e && get(e, "value")->valuedouble == 1, "unnamed chain: counted in the metadata");
    cJSON_Delete(att);
    rl_model_free(m);

    /* two nodes named "dup": Netron files figures by name, so one target
     * would get two conflicting sets; they get none and are counted (issue 43) */
    g = (gen_buf){0}, s = (gen_buf){0};
    gen_node(&g, &s, "Relu", "x", "t1", "dup", 3);
    s.n = 0;
    gen_node(&g, &s, "Sigmoid", "t1", "t2", "dup", 3);
    s.n = 0;
    gen_node(&g, &s, "Relu", "t2", "y", "solo", 4);
    gen_str(&g, 2, "dups");
    gen_value_info(&g, 11, "x", 16);
    gen_value_info(&g, 12, "y", 16);
    free(s.p);
    bytes = gen_model(&g, &len);
    m = rl_model_read(bytes, len, NULL, &err);
    free(bytes);
    CHECK(m != NULL, "duplicate names: %s", err ? err : "");
    rl_free(err);
    err = NULL;
    out = rl_model_analyze(m, rq);
    att_text = rl_netron_attachment(out);
    rl_free(out);
    att = cJSON_Parse(att_text);
    rl_free(att_text);
    met = get(att, "metrics");
    int dup_items = 0;
    cJSON_ArrayForEach(it, met) dup_items += !strcmp(cJSON_GetStringValue(get(it, "target")), "dup");
    CHECK(dup_items == 0, "duplicate names: no figures under the shared name (%d items)", dup_items);
    CHECK(netron_entry(met, "node", "solo", "flops") != NULL, "duplicate names: the other node keeps its figures");
    e = netron_entry(get(att, "metadata"), "model", "", "nodes_with_shared_name");
    CHECK(e && get(e, "value")->valuedouble == 2, "duplicate names: the two nodes counted in the metadata");
    CHECK(!netron_entry(get(att, "metadata"), "model", "", "nodes_without_name"), "duplicate names: none unnamed");
    cJSON_Delete(att);
    rl_model_free(m);

    /* not an analysis: an error, not an empty attachment */
    out = rl_netron_attachment("{\"ok\": false}");
    CHECK(strstr(out, "\"code\":\"bad_request\"") != NULL, "netron: refuses a failed analysis");
    rl_free(out);
}

int main(int argc, char **argv) {
    tests_dir = argc > 1 ? argv[1] : "tests";
    char path[1024];
    snprintf(path, sizeof path, "%s/hw/unit.json", tests_dir);
    char *hw = check_read_file(path, NULL);
    unit_hw = hw ? cJSON_Parse(hw) : NULL;
    free(hw);
    if (!unit_hw) { fprintf(stderr, "cannot load %s\n", path); return 1; }
    test_ort_off();
    test_ort_on_cnn();
    test_ort_on_mlp();
    test_ort_gelu_first();
    test_trtexec();
    test_csv();
    test_typical_run();
    test_gap_growth();
    test_errors();
    test_hostile_profiles();
    test_foreign_ranges();
    test_bound_share_fused();
    test_bound_share_cache();
    test_netron();
    cJSON_Delete(unit_hw);
    return check_report("test_measured");
}
