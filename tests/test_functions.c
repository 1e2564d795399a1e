/* Model-local functions (tests/fixtures/ops/func_*.onnx, made by
 * gen_ml_ops.py): a call is expanded with its inputs and attributes, costs
 * what its body costs, shows as one layer; nested calls expand; recursion
 * warns instead of hanging; invalid bodies and expansions that would explode
 * give clear errors. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <cjson/cJSON.h>
#include <time.h>

#include "check.h"
#include "gen_models.h"
#include "rooflens.h"

static const char *tests_dir;
static char *hw_json;

static cJSON *analyze(const char *fixture) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/ops/%s", tests_dir, fixture);
    size_t len = 0;
    char *bytes = check_read_file(path, &len);
    CHECK(bytes != NULL, "cannot read %s (run tests/fixtures/gen_ml_ops.py)", path);
    if (!bytes) return NULL;
    char *req = malloc(strlen(hw_json) + 64);
    sprintf(req, "{\"hardware\": %s}", hw_json);
    char *out = rl_analyze(req, bytes, len);
    free(req);
    free(bytes);
    cJSON *res = cJSON_Parse(out);
    rl_free(out);
    CHECK(res != NULL, "%s: the response is not JSON", fixture);
    return res;
}

static const cJSON *layer(const cJSON *res, const char *name) {
    const cJSON *l;
    cJSON_ArrayForEach(l, cJSON_GetObjectItem(res, "layers")) {
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(l, "name")) ?: "", name) == 0) return l;
    }
    CHECK(0, "no layer '%s'", name);
    return NULL;
}

static double num(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static int has_warning(const cJSON *res, const char *code) {
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(res, "warnings"))
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(w, "code")) ?: "", code) == 0) return 1;
    return 0;
}

static void check_shape(const cJSON *l, int out, const int *want, int rank, const char *what) {
    const cJSON *o = cJSON_GetArrayItem(cJSON_GetObjectItem(l, "outputs"), out);
    const cJSON *s = cJSON_GetObjectItem(o, "shape");
    int ok = cJSON_GetArraySize(s) == rank;
    for (int i = 0; ok && i < rank; i++) {
        const cJSON *d = cJSON_GetArrayItem(s, i);
        ok = cJSON_IsNumber(d) && d->valuedouble == want[i];
    }
    char *got = cJSON_PrintUnformatted(s);
    CHECK(ok, "%s: output shape %s", what, got ? got : "null");
    free(got);
}

/* custom.Proj(x[2,4,8], W[4,16]; perm=[0,2,1]) = Relu(MatMul(Transpose(x), W)):
 * Transpose [2,8,4] moves 256+256 bytes; MatMul 2*2*8*4*16 = 2048 matrix
 * FLOPs, reads 256 + W 256 (a weight), writes 1024; Relu 256 FLOPs, 1024 in,
 * 1024 out. One layer: matrix 2048, vector 256, input 256+256+1024 = 1536,
 * weight 256, output 256+1024+1024 = 2304. */
static void basic(void) {
    cJSON *res = analyze("func_basic.onnx");
    if (!res) return;
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "ok")), "func_basic failed");
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(res, "layers")) == 2, "one layer per main-graph node (2)");
    const cJSON *p = layer(res, "proj");
    if (p) {
        const int want[3] = {2, 8, 16};
        check_shape(p, 0, want, 3, "proj (perm bound from the call)");
        CHECK_NEAR(num(p, "matrix_flops"), 2048, 1e-12, "proj matrix_flops");
        CHECK_NEAR(num(p, "vector_flops"), 256, 1e-12, "proj vector_flops");
        CHECK_NEAR(num(p, "input_bytes"), 1536, 1e-12, "proj input_bytes");
        CHECK_NEAR(num(p, "weight_bytes"), 256, 1e-12, "proj weight_bytes");
        CHECK_NEAR(num(p, "output_bytes"), 2304, 1e-12, "proj output_bytes");
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(p, "known")), "proj known");
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(p, "supported")), "proj supported");
    }
    const cJSON *a = layer(res, "after");
    if (a) {
        const int want[3] = {2, 8, 16};
        check_shape(a, 0, want, 3, "the node after the call");
    }
    /* the same body written inline costs exactly the same in total */
    cJSON *inl = analyze("func_basic_inline.onnx");
    if (inl) {
        const cJSON *t1 = cJSON_GetObjectItem(res, "totals"), *t2 = cJSON_GetObjectItem(inl, "totals");
        CHECK_NEAR(num(t1, "flops"), num(t2, "flops"), 1e-12, "total flops, function vs inline");
        CHECK_NEAR(num(t1, "bytes"), num(t2, "bytes"), 1e-12, "total bytes, function vs inline");
        CHECK(num(t1, "flops") > 0, "total flops counted");
        cJSON_Delete(inl);
    }
    cJSON_Delete(res);
}

/* Outer(x[3,5]) = Inner(Inner(x)), Inner = Relu(Mul(X, X)): per Inner 15 + 15
 * FLOPs, Mul reads 60+60 bytes and writes 60, Relu 60/60: 60 FLOPs, 360 in,
 * 240 out for the one layer. */
static void nested(void) {
    cJSON *res = analyze("func_nested.onnx");
    if (!res) return;
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "ok")), "func_nested failed");
    const cJSON *o = layer(res, "outer");
    if (o) {
        const int want[2] = {3, 5};
        check_shape(o, 0, want, 2, "outer");
        CHECK_NEAR(num(o, "vector_flops"), 60, 1e-12, "outer vector_flops");
        CHECK_NEAR(num(o, "input_bytes"), 360, 1e-12, "outer input_bytes");
        CHECK_NEAR(num(o, "output_bytes"), 240, 1e-12, "outer output_bytes");
    }
    cJSON_Delete(res);
}

/* A calls B calls A: a warning naming the cycle, the call's cost unknown, the
 * rest of the graph analysed. */
static void recursive(void) {
    cJSON *res = analyze("func_recursive.onnx");
    if (!res) return;
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "ok")), "func_recursive should analyse with a warning");
    CHECK(has_warning(res, "function_recursion"), "no function_recursion warning");
    const cJSON *a = layer(res, "call_a");
    if (a) CHECK(cJSON_IsFalse(cJSON_GetObjectItem(a, "known")), "the recursive call must be marked unknown");
    const cJSON *f = layer(res, "fine");
    if (f) {
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(f, "known")), "the node beside it is unaffected");
        CHECK_NEAR(num(f, "vector_flops"), 6, 1e-12, "fine vector_flops");
    }
    cJSON_Delete(res);
}

static void errors(void) {
    const struct { const char *file, *code, *mention; } bad[] = {
        {"func_unbound.onnx", "bad_node", "outside"},    /* the body reads its caller's value */
        {"func_missing_attr.onnx", "bad_node", "proj_no_perm"}, /* default perm cannot multiply */
        {"func_explosion.onnx", "limit_nodes", "F0"},     /* 2^40 nodes: refused before expanding */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cJSON *res = analyze(bad[i].file);
        if (!res) continue;
        const cJSON *e = cJSON_GetObjectItem(res, "error");
        const char *code = cJSON_GetStringValue(cJSON_GetObjectItem(e, "code"));
        const char *msg = cJSON_GetStringValue(cJSON_GetObjectItem(e, "message"));
        CHECK(cJSON_IsFalse(cJSON_GetObjectItem(res, "ok")), "%s should fail", bad[i].file);
        CHECK(code && strcmp(code, bad[i].code) == 0, "%s: code %s", bad[i].file, code ? code : "none");
        CHECK(msg && strstr(msg, bad[i].mention), "%s: message '%s' should mention '%s'", bad[i].file,
              msg ? msg : "", bad[i].mention);
        cJSON_Delete(res);
    }
}

/* Nodes inside a function's If body count against limits.max_nodes, once
 * per call, and a model over the budget is refused when it is read, before
 * any body is built: 1,000 calls of a function whose If body holds 10,000
 * nodes (10^7 nodes expanded, about 240 KB on disk). The same model with 20
 * calls of a 100-node body is analysed, and its one call layer counts its
 * branch's 100 Relu. */
static void amplification(void) {
    size_t len;
    uint8_t *d = gen_function_amplifier(1000, 10000, &len);
    CHECK(d != NULL, "out of memory making the amplifier");
    if (!d) return;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char *err = NULL;
    rl_model *m = rl_model_read(d, len, NULL, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = 1e3 * (double)(t1.tv_sec - t0.tv_sec) + 1e-6 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("amplifier: %zu bytes, 1000 calls x 10000 body nodes: refused in %.1f ms\n", len, ms);
    CHECK(m == NULL, "the amplifier was read: its expansion must be refused before analysis");
    CHECK(err && strstr(err, "\"limit_nodes\"") && strstr(err, "Big") && strstr(err, "limits.max_nodes"),
          "the amplifier: want limit_nodes naming function Big, got %s", err ? err : "(none)");
    rl_model_free(m);
    rl_free(err);
    free(d);

    d = gen_function_amplifier(20, 100, &len);
    if (!d) return;
    char req[4096];
    snprintf(req, sizeof req, "{\"hardware\": %s}", hw_json);
    char *out = rl_analyze(req, d, len);
    cJSON *res = cJSON_Parse(out);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "ok")), "20 calls x 100 nodes should analyse: %.300s", out);
    const cJSON *layers = cJSON_GetObjectItem(res, "layers");
    const cJSON *first = cJSON_GetArrayItem(layers, 0);
    CHECK(cJSON_GetArraySize(layers) == 20, "20 call layers, got %d", cJSON_GetArraySize(layers));
    if (first) CHECK_NEAR(num(first, "vector_flops"), 100 * 16, 1e-12, "one call: 100 Relu over [1,16]");
    /* and over a budget set just below its expansion, refused the same way */
    snprintf(req, sizeof req, "{\"hardware\": %s, \"limits\": {\"max_nodes\": 3000}}", hw_json);
    char *out2 = rl_analyze(req, d, len);
    CHECK(strstr(out2, "\"limit_nodes\"") != NULL, "20 x (128 + 102) nodes over max_nodes 3000: %.300s", out2);
    cJSON_Delete(res);
    rl_free(out);
    rl_free(out2);
    free(d);
}

int main(int argc, char **argv) {
    tests_dir = argc > 1 ? argv[1] : "tests";
    char path[1024];
    snprintf(path, sizeof path, "%s/hw/unit.json", tests_dir);
    hw_json = check_read_file(path, NULL);
    CHECK(hw_json != NULL, "cannot read %s", path);
    if (!hw_json) return check_report("functions");
    basic();
    nested();
    recursive();
    errors();
    amplification();
    free(hw_json);
    return check_report("functions");
}
