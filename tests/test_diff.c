/* rl_models_diff, the --fail-if gate, the PR-comment Markdown and
 * rl_model_summary:
 *  - the fixture pair diff_old/diff_new (tests/fixtures/make_fixtures.py):
 *    fc1 widened 128 -> 256, fc_extra added, act swapped for an unsupported
 *    op, softmax renamed; every delta worked out by hand on the unit device;
 *  - a model against itself: nothing changes, every gate holds;
 *  - the matching rule on generated chains: renamed layers aligned by their
 *    op sequence, anchors between name-matched layers, duplicate names,
 *    the in-order fallback for huge stretches;
 *  - the gate's grammar: thresholds judged right, bad expressions refused
 *    with the character they fail at;
 *  - Markdown snapshots (tests/snapshots/; ROOFLENS_UPDATE_SNAPSHOTS=1
 *    rewrites them) and hostile names that must not break the comment;
 *  - the batch summary agrees with the single analysis. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdbool.h>

#include "check.h"
#include "check_model.h"
#include "diff.h"
#include "gen_models.h"
#include "rooflens.h"
#include "rooflens_text.h"

static const char *tests_dir, *root_dir;

#define ZWSP_TEXT "\xe2\x80\x8b"

static rl_model *load_model(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/models/%s", tests_dir, name);
    return check_read_model(path);
}

static rl_model *from_bytes(uint8_t *bytes, size_t len) {
    char *err = NULL;
    rl_model *m = bytes ? rl_model_read(bytes, len, NULL, &err) : NULL;
    CHECK(m != NULL, "generated model: %s", err ? err : "out of memory");
    rl_free(err);
    free(bytes);
    return m;
}

static char *unit_hw;

/* The request: the unit device plus `extra` (",\"diff\": {...}" etc.). */
static char *request(const char *extra) {
    size_t n = strlen(unit_hw) + strlen(extra) + 32;
    char *r = malloc(n);
    snprintf(r, n, "{\"hardware\": %s%s}", unit_hw, extra);
    return r;
}

static cJSON *diff(rl_model *a, rl_model *b, const char *extra) {
    char *req = request(extra);
    char *out = rl_models_diff(a, b, req);
    free(req);
    cJSON *res = out ? cJSON_Parse(out) : NULL;
    CHECK(res != NULL, "diff answer is not JSON: %.200s", out ? out : "(null)");
    rl_free(out);
    return res;
}

static cJSON *analyze(rl_model *m) {
    char *req = request("");
    char *out = rl_model_analyze(m, req);
    free(req);
    cJSON *res = cJSON_Parse(out);
    rl_free(out);
    return res;
}

static bool is_ok(const cJSON *res) { return cJSON_IsTrue(check_at(res, "ok")); }

/* The matched entry whose new name is `name`. */
static const cJSON *matched(const cJSON *d, const char *name) {
    const cJSON *l;
    cJSON_ArrayForEach(l, check_at(d, "matched")) if (!strcmp(check_str(l, "name"), name)) return l;
    CHECK(0, "no matched layer named %s", name);
    return NULL;
}

/* ------------------------------------------------------ the fixture pair -- */
static void test_fixture_pair(rl_model *old_m, rl_model *new_m) {
    cJSON *res = diff(old_m, new_m, "");
    CHECK(is_ok(res), "fixture diff failed: %s", check_str(res, "error.message"));
    const cJSON *d = check_at(res, "diff");

    /* Hand computation (Gemm: 2·M·N·K matrix FLOPs + M·N bias adds; bytes =
     * input + weights + bias + output, fp32; M = 4 rows):
     *   fc1  K 64, N 128 -> 256:  FLOPs 65,536 + 512 = 66,048 -> 131,072 + 1,024 = 132,096
     *        bytes 1,024 + (8,192 + 128)·4 + 2,048 = 36,352 -> 1,024 + (16,384 + 256)·4 + 4,096 = 71,680
     *   relu1 [4,128] -> [4,256]:  FLOPs 512 -> 1,024; bytes 4,096 -> 8,192
     *   fc2  K 128 -> 256, N 32:   FLOPs 32,768 + 128 = 32,896 -> 65,536 + 128 = 65,664
     *        bytes 2,048 + (4,096 + 32)·4 + 512 = 19,072 -> 4,096 + (8,192 + 32)·4 + 512 = 37,504
     *   act  Relu -> com.example.MyOp on [4,32]: FLOPs 128 -> 0 (unsupported), bytes 1,024 both
     *   fc_extra (added) K 32, N 32: FLOPs 8,192 + 128 = 8,320; bytes 512 + (1,024 + 32)·4 + 512 = 5,248
     *   parameters: +128·64 + 128 (fc1) + 128·32 (fc2) + 32·32 + 32 (fc_extra) = +13,472 (+53,888 B)
     *   FLOPs of the model: 66,048 + 512 + 32,768 - 128 + 8,320 = +107,520 */
    const cJSON *l = matched(d, "fc1");
    CHECK(check_num(l, "flops.old") == 66048 && check_num(l, "flops.new") == 132096, "fc1 FLOPs %g -> %g", check_num(l, "flops.old"), check_num(l, "flops.new"));
    CHECK(check_num(l, "flops.delta") == 66048 && check_num(l, "flops.ratio") == 1, "fc1 FLOP delta");
    CHECK(check_num(l, "bytes.old") == 36352 && check_num(l, "bytes.new") == 71680, "fc1 bytes %g -> %g", check_num(l, "bytes.old"), check_num(l, "bytes.new"));
    CHECK(!strcmp(check_str(l, "matched_by"), "name") && cJSON_IsTrue(check_at(l, "changed")), "fc1 matched by name, changed");
    l = matched(d, "relu1");
    CHECK(check_num(l, "flops.delta") == 512 && check_num(l, "bytes.delta") == 4096, "relu1 deltas %g %g", check_num(l, "flops.delta"), check_num(l, "bytes.delta"));
    l = matched(d, "fc2");
    CHECK(check_num(l, "flops.old") == 32896 && check_num(l, "flops.new") == 65664, "fc2 FLOPs");
    CHECK(check_num(l, "bytes.old") == 19072 && check_num(l, "bytes.new") == 37504, "fc2 bytes");
    l = matched(d, "act");
    CHECK(!strcmp(check_str(l, "old_op"), "Relu") && !strcmp(check_str(l, "op"), "MyOp") && !strcmp(check_str(l, "domain"), "com.example"),
          "act: Relu -> com.example.MyOp");
    CHECK(cJSON_IsTrue(check_at(l, "supported.old")) && cJSON_IsFalse(check_at(l, "supported.new")), "act became unsupported");
    CHECK(check_num(l, "flops.old") == 128 && check_num(l, "flops.new") == 0 && check_num(l, "bytes.delta") == 0, "act FLOPs 128 -> 0, same bytes");
    l = matched(d, "probs_softmax");
    CHECK(!strcmp(check_str(l, "old_name"), "softmax") && !strcmp(check_str(l, "matched_by"), "op_position"),
          "renamed softmax matched by op and position");
    CHECK(cJSON_IsFalse(check_at(l, "changed")) && check_num(l, "flops.delta") == 0, "softmax unchanged");
    l = matched(d, "head");
    CHECK(cJSON_IsFalse(check_at(l, "changed")), "head unchanged (act's output shape is declared)");

    CHECK(cJSON_GetArraySize(check_at(d, "added")) == 1 && !strcmp(check_str(d, "added.0.name"), "fc_extra"), "fc_extra added");
    CHECK(check_num(d, "added.0.flops") == 8320 && check_num(d, "added.0.bytes") == 5248, "fc_extra figures %g %g",
          check_num(d, "added.0.flops"), check_num(d, "added.0.bytes"));
    CHECK(cJSON_GetArraySize(check_at(d, "removed")) == 0, "nothing removed");
    CHECK(check_num(d, "layers.matched") == 6 && check_num(d, "layers.matched_by_name") == 5 && check_num(d, "layers.matched_by_op_position") == 1,
          "6 matched: 5 by name, 1 by op and position");
    CHECK(check_num(d, "layers.changed") == 4, "4 changed (fc1, relu1, fc2, act), got %g", check_num(d, "layers.changed"));
    CHECK(check_num(d, "layers.became_unsupported") == 1 && !strcmp(check_str(d, "became_unsupported.0.name"), "act"), "act newly unsupported");
    CHECK(cJSON_GetArraySize(check_at(d, "unsupported_ops.added")) == 1 && !strcmp(check_str(d, "unsupported_ops.added.0"), "com.example.MyOp"),
          "MyOp is a newly unsupported op type");
    bool warned = false;
    const cJSON *w;
    cJSON_ArrayForEach(w, check_at(d, "warnings.new")) warned |= !strcmp(check_str(w, "code"), "unsupported_op");
    CHECK(warned && cJSON_GetArraySize(check_at(d, "warnings.resolved")) == 0, "new unsupported_op warning, none resolved");

    CHECK(check_num(d, "totals.flops.delta") == 107520, "model FLOPs delta %g", check_num(d, "totals.flops.delta"));
    CHECK(check_num(d, "totals.params.delta") == 13472 && check_num(d, "totals.weight_bytes.delta") == 53888, "params +13,472, +53,888 B");
    /* fused kernels (the chosen model): each Relu and Softmax joins its Gemm's
     * kernel; the new Gemm and the unsupported MyOp stay kernels of their own */
    CHECK(check_num(d, "totals.kernels.old") == 3 && check_num(d, "totals.kernels.new") == 5, "kernels 3 -> 5, got %g -> %g",
          check_num(d, "totals.kernels.old"), check_num(d, "totals.kernels.new"));
    CHECK(check_num(d, "totals.layers.delta") == 1, "one layer more");

    /* One answer: the diff's figures are the single analyses' figures. */
    cJSON *ao = analyze(old_m), *an = analyze(new_m);
    CHECK(check_num(d, "totals.time_s.old") == check_num(ao, "sol.chosen.time_s") && check_num(d, "totals.time_s.new") == check_num(an, "sol.chosen.time_s"),
          "totals.time_s = the analyses' sol.chosen.time_s");
    CHECK(check_num(d, "totals.energy_j.new") == check_num(an, "sol.chosen.energy_j"), "energy = sol.chosen.energy_j");
    /* the bytes beside the time are the same speed-of-light model's (issue 27) */
    CHECK(check_num(d, "totals.sol_bytes.old") == check_num(ao, "sol.chosen.bytes") &&
              check_num(d, "totals.sol_bytes.new") == check_num(an, "sol.chosen.bytes"),
          "totals.sol_bytes = the analyses' sol.chosen.bytes");
    CHECK(check_num(d, "totals.bytes.new") == check_num(an, "totals.bytes"), "totals.bytes stays the unfused traffic");
    CHECK(check_num(d, "totals.lower_bound_s.new") == check_num(an, "sol.lower_bound_s") || check_num(d, "totals.lower_bound_s.new") == check_num(an, "sol.chosen.lower_bound_s"),
          "lower bound from the analysis");
    const cJSON *x;
    double sum_dt = 0, sum_df = 0;
    cJSON_ArrayForEach(x, check_at(d, "matched")) {
        sum_dt += check_num(x, "t.delta");
        sum_df += check_num(x, "flops.delta");
        char path[64];
        snprintf(path, sizeof path, "layers.%d.t", (int)check_num(x, "new_index"));
        CHECK(check_num(x, "t.new") == check_num(an, path), "layer %s: t.new equals the analysis", check_str(x, "name"));
    }
    cJSON_ArrayForEach(x, check_at(d, "added")) sum_dt += check_num(x, "t"), sum_df += check_num(x, "flops");
    CHECK(sum_df == check_num(d, "totals.flops.delta"), "layer FLOP deltas add up to the model's");
    double t_old = 0, t_new = 0;
    cJSON_ArrayForEach(x, check_at(ao, "layers")) t_old += check_num(x, "t");
    cJSON_ArrayForEach(x, check_at(an, "layers")) t_new += check_num(x, "t");
    CHECK_NEAR(sum_dt, t_new - t_old, 1e-9, "layer time deltas add up to the change of the summed layer times");
    cJSON_Delete(ao);
    cJSON_Delete(an);

    /* The ranking the Markdown, the CLI and the page use: |Δ time| first. */
    const cJSON *changes = check_at(d, "changes");
    CHECK(cJSON_GetArraySize(changes) == 5, "5 changes (4 changed + 1 added), got %d", cJSON_GetArraySize(changes));
    double prev = INFINITY;
    cJSON_ArrayForEach(x, changes) {
        const cJSON *L = cJSON_GetArrayItem(check_at(d, check_str(x, "kind")), (int)check_num(x, "at"));
        double dt = fabs(!strcmp(check_str(x, "kind"), "matched") ? check_num(L, "t.delta") : check_num(L, "t"));
        CHECK(dt <= prev, "changes ranked by |delta t|");
        prev = dt;
    }
    CHECK(!strcmp(check_str(cJSON_GetArrayItem(check_at(d, "matched"), (int)check_num(changes, "0.at")), "name"), "fc1"), "fc1 changed most");
    cJSON_Delete(res);
}

static void test_identity(rl_model *m) {
    cJSON *res = diff(m, m, ",\"diff\": {\"fail_if\": \"time>0%,flops>0,unsupported>0,added>0,removed>0,unknown>0\"}");
    CHECK(is_ok(res), "identity diff failed");
    const cJSON *d = check_at(res, "diff");
    CHECK(check_num(d, "layers.matched") == check_num(d, "layers.old") && check_num(d, "layers.matched_by_name") == check_num(d, "layers.old"),
          "a model against itself: every layer matched by name");
    CHECK(check_num(d, "layers.changed") == 0 && check_num(d, "layers.added") == 0 && check_num(d, "layers.removed") == 0, "nothing changed");
    CHECK(check_num(d, "totals.time_s.delta") == 0 && check_num(d, "totals.time_s.ratio") == 0 && check_num(d, "totals.flops.delta") == 0, "zero deltas");
    CHECK(cJSON_IsTrue(check_at(d, "gate.passed")), "every gate holds: %s", check_str(d, "gate.message"));
    CHECK(cJSON_GetArraySize(check_at(d, "warnings.new")) == 0, "no new warnings");
    cJSON_Delete(res);
}

/* ---------------------------------------------------------- the matching -- */
/* A chain of one-input ops on [1,16]: ops[i] named names[i]. */
static rl_model *chain(int n, const char *const *ops, const char *const *names) {
    gen_buf g = {0}, s = {0};
    char in[32], out[32];
    for (int i = 0; i < n; i++) {
        snprintf(in, sizeof in, i ? "t%d" : "x", i);
        snprintf(out, sizeof out, i == n - 1 ? "y" : "t%d", i + 1);
        gen_node(&g, &s, ops[i], in, out, names[i], strlen(names[i]));
    }
    gen_str(&g, 2, "chain");
    gen_value_info(&g, 11, "x", 16);
    gen_value_info(&g, 12, "y", 16);
    free(s.p);
    size_t len = 0;
    uint8_t *bytes = gen_model(&g, &len);
    return from_bytes(bytes, len);
}

/* "new name <- old name" for every matched layer, in new order, joined by ",". */
static void pairs(const cJSON *d, char *buf, size_t cap) {
    size_t p = 0;
    buf[0] = 0;
    const cJSON *l;
    cJSON_ArrayForEach(l, check_at(d, "matched"))
        p += (size_t)snprintf(buf + p, cap - p, "%s%s<%s", p ? "," : "", check_str(l, "name"), check_str(l, "old_name"));
}

static void test_matching(void) {
    char got[512];
    /* every name changed: the op sequence aligns them, and the inserted
     * Relu does not shift the pairing (in-order pairing per op would pair
     * the old second Relu with the new second one) */
    {
        const char *oo[] = {"Relu", "Tanh", "Relu"}, *on[] = {"a0", "a1", "a2"};
        const char *no[] = {"Relu", "Relu", "Tanh", "Relu"}, *nn[] = {"b0", "b1", "b2", "b3"};
        rl_model *a = chain(3, oo, on), *b = chain(4, no, nn);
        cJSON *res = diff(a, b, "");
        const cJSON *d = check_at(res, "diff");
        pairs(d, got, sizeof got);
        CHECK(!strcmp(got, "b0<a0,b2<a1,b3<a2"), "op-sequence alignment: %s", got);
        CHECK(check_num(d, "layers.added") == 1 && !strcmp(check_str(d, "added.0.name"), "b1"), "the inserted Relu is the added one");
        CHECK(check_num(d, "layers.matched_by_op_position") == 3, "all by op and position");
        cJSON_Delete(res);
        rl_model_free(a);
        rl_model_free(b);
    }
    /* anchors: renamed layers pair within the stretch between name matches */
    {
        const char *oo[] = {"Relu", "Tanh", "Sigmoid", "Relu", "Tanh"}, *on[] = {"keep1", "t_old", "s_old", "keep2", "t2_old"};
        const char *no[] = {"Relu", "Sigmoid", "Tanh", "Relu", "Abs", "Tanh"}, *nn[] = {"keep1", "s_new", "t_new", "keep2", "abs", "t2_new"};
        rl_model *a = chain(5, oo, on), *b = chain(6, no, nn);
        cJSON *res = diff(a, b, "");
        const cJSON *d = check_at(res, "diff");
        pairs(d, got, sizeof got);
        /* between keep1 and keep2: old Tanh, Sigmoid; new Sigmoid, Tanh: the
         * alignment keeps one (the first LCS it finds), the other is added and removed */
        CHECK(strstr(got, "keep1<keep1") && strstr(got, "keep2<keep2") && strstr(got, "t2_new<t2_old"), "anchored pairs: %s", got);
        CHECK(!strstr(got, "t2_new<t_old") && !strstr(got, "t_new<t2_old"), "no pairing across an anchor: %s", got);
        CHECK(check_num(d, "layers.added") == 2 && check_num(d, "layers.removed") == 1, "added abs and one swapped, removed one: +%g -%g",
              check_num(d, "layers.added"), check_num(d, "layers.removed"));
        cJSON_Delete(res);
        rl_model_free(a);
        rl_model_free(b);
    }
    /* duplicate names pair in order of appearance */
    {
        const char *oo[] = {"Relu", "Tanh"}, *on[] = {"dup", "dup"};
        const char *no[] = {"Relu", "Tanh"}, *nn[] = {"dup", "dup"};
        rl_model *a = chain(2, oo, on), *b = chain(2, no, nn);
        cJSON *res = diff(a, b, "");
        const cJSON *d = check_at(res, "diff");
        CHECK(check_num(d, "layers.changed") == 0 && check_num(d, "matched.0.old_index") == 0 && check_num(d, "matched.1.old_index") == 1,
              "duplicate names: k-th with k-th");
        cJSON_Delete(res);
        rl_model_free(a);
        rl_model_free(b);
    }
    /* a renamed stretch too large for the alignment table (1,500 x 1,500
     * layers) pairs each op's layers in order: still all matched */
    {
        enum { N = 1500 };
        const char **ops = malloc(N * sizeof *ops), **na = malloc(N * sizeof *na), **nb = malloc(N * sizeof *nb);
        char (*sa)[16] = malloc(N * sizeof *sa), (*sb)[16] = malloc(N * sizeof *sb);
        for (int i = 0; i < N; i++) {
            ops[i] = i % 3 ? "Relu" : "Tanh";
            snprintf(sa[i], 16, "a%d", i);
            snprintf(sb[i], 16, "b%d", i);
            na[i] = sa[i];
            nb[i] = sb[i];
        }
        rl_model *a = chain(N, ops, na), *b = chain(N, ops, nb);
        cJSON *res = diff(a, b, "");
        const cJSON *d = check_at(res, "diff");
        CHECK(check_num(d, "layers.matched_by_op_position") == N && check_num(d, "layers.changed") == 0, "large renamed stretch: %g matched",
              check_num(d, "layers.matched_by_op_position"));
        CHECK(check_num(d, "matched.1499.old_index") == 1499, "in order");
        cJSON_Delete(res);
        rl_model_free(a);
        rl_model_free(b);
        free(ops), free(na), free(nb), free(sa), free(sb);
    }
}

/* ---------------------------------------------------------------- gate -- */
static void test_gate(rl_model *old_m, rl_model *new_m) {
    /* the fixture pair's changes: time about +102%, FLOPs +107,520 (+105%),
     * params +13,472, weights +53,888 B (52.6 KiB), kernels +1 (+16.7%),
     * 1 layer newly unsupported, 1 added, 0 removed, no LLM figures */
    static const struct { const char *expr, *status; } cases[] = {
        {"time>+5%", "fail"},          {"time>+200%", "pass"},       {"time < -50%", "pass"},
        {"flops>+100k", "fail"},       {"flops>+110k", "pass"},      {"flops>100kFLOP", "fail"},
        {"params>=13472", "fail"},     {"params>13472", "pass"},     {"weights>+52KiB", "fail"},
        {"weights>+53KiB", "pass"},    {"weights>+0.05MB", "fail"},  {"unsupported>0", "fail"},
        {"unsupported>1", "pass"},     {"added>=1", "fail"},         {"removed>0", "pass"},
        {"kernels>+10%", "fail"},      {"kernels>+2", "pass"},       {"energy<0J", "pass"},
        {"time>+1us", "pass"},         {"time>+500ns", "fail"},      {"upper_bound>+1e-6s", "pass"},
        {"ttft>+1%", "unknown"},       {"unknown>0", "pass"},        {"layers>=+1", "fail"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char extra[256];
        snprintf(extra, sizeof extra, ",\"diff\": {\"fail_if\": \"%s\"}", cases[i].expr);
        cJSON *res = diff(old_m, new_m, extra);
        const cJSON *g = check_at(res, "diff.gate");
        CHECK(!strcmp(check_str(g, "clauses.0.status"), cases[i].status), "'%s': %s, want %s (%s)", cases[i].expr,
              check_str(g, "clauses.0.status"), cases[i].status, check_str(g, "clauses.0.message"));
        CHECK(cJSON_IsTrue(check_at(g, "passed")) == !strcmp(cases[i].status, "pass"), "'%s': passed", cases[i].expr);
        cJSON_Delete(res);
    }
    /* several clauses: the gate fails when any does, and names each */
    cJSON *res = diff(old_m, new_m, ",\"diff\": {\"fail_if\": \" time > +5% , flops>+10%,unsupported>0,params>+20k \"}");
    const cJSON *g = check_at(res, "diff.gate");
    CHECK(cJSON_IsFalse(check_at(g, "passed")) && cJSON_GetArraySize(check_at(g, "clauses")) == 4, "4 clauses, gate failed");
    CHECK(strstr(check_str(g, "message"), "3 of 4 thresholds crossed") != NULL, "gate message: %s", check_str(g, "message"));
    CHECK(!strcmp(check_str(g, "clauses.0.clause"), "time > +5%"), "clause text kept: '%s'", check_str(g, "clauses.0.clause"));
    cJSON_Delete(res);

    /* bad expressions: the error names the character, the model stays usable */
    static const struct { const char *expr; int at; const char *says; } bad[] = {
        {"", 1, "empty"},
        {"   ", 4, "empty"},
        {"tim>5%", 1, "unknown metric 'tim'"},
        {"Time>5%", 1, "expected a metric"},
        {"time=5%", 5, "expected a comparison"},
        {"time>>5%", 6, "expected a number"},
        {"time>%", 6, "expected a number"},
        {"time>.", 6, "expected a number"},
        {"time>5xs", 7, "unknown unit 'xs'"},
        {"bytes>5ms", 8, "unknown unit 'ms'"},
        {"params>5MB", 9, "unknown unit 'MB'"},
        {"time>5ms%", 9, "either relative"},
        {"unsupported>5%", 14, "count of layers"},
        {"unsupported>0.5", 13, "whole number"},
        {"flops>1e999", 7, "out of range"},
        {"weights>+1e300TiB", 9, "out of range once its unit"},
        {"flops>1e306P", 7, "out of range once its unit"},
        {"time>+5%,", 10, "followed by another"},
        {"time>+5% flops>1", 10, "expected ','"},
        {"time>+5%;flops>1", 9, "expected ','"},
        {"time>+5%,,flops>1", 10, "expected a metric"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char extra[256], where[64];
        snprintf(extra, sizeof extra, ",\"diff\": {\"fail_if\": \"%s\"}", bad[i].expr);
        cJSON *r = diff(old_m, new_m, extra);
        snprintf(where, sizeof where, "diff.fail_if:%d", bad[i].at);
        CHECK(!is_ok(r) && !strcmp(check_str(r, "error.code"), "bad_fail_if"), "'%s' refused", bad[i].expr);
        CHECK(!strcmp(check_str(r, "error.where"), where), "'%s': where %s, want %s", bad[i].expr, check_str(r, "error.where"), where);
        CHECK(strstr(check_str(r, "error.message"), bad[i].says) != NULL, "'%s': message '%s' should say '%s'", bad[i].expr,
              check_str(r, "error.message"), bad[i].says);
        cJSON_Delete(r);
    }
    /* 33 clauses: too many */
    char many[1024] = "";
    for (int i = 0; i < 33; i++) strcat(many, i ? ",time>1%" : "time>1%");
    char extra[1200];
    snprintf(extra, sizeof extra, ",\"diff\": {\"fail_if\": \"%s\"}", many);
    res = diff(old_m, new_m, extra);
    CHECK(!strcmp(check_str(res, "error.code"), "bad_fail_if") && strstr(check_str(res, "error.message"), "more than 32"), "33 clauses refused");
    cJSON_Delete(res);

    /* bad diff requests */
    static const char *const bad_requests[] = {
        ",\"diff\": 5", ",\"diff\": {\"top\": 0}", ",\"diff\": {\"top\": 2.5}", ",\"diff\": {\"bogus\": 1}",
        ",\"diff\": {\"markdown\": \"yes\"}", ",\"study\": {\"kind\": \"batch_sweep\"}",
    };
    for (size_t i = 0; i < sizeof bad_requests / sizeof *bad_requests; i++) {
        cJSON *r = diff(old_m, new_m, bad_requests[i]);
        CHECK(!is_ok(r) && !strcmp(check_str(r, "error.code"), "bad_request"), "bad request %s refused: %s", bad_requests[i],
              check_str(r, "error.code"));
        cJSON_Delete(r);
    }
    /* an analysis error says which model */
    cJSON *r = diff(old_m, new_m, ",\"precision\": \"fp99\"");
    CHECK(!strcmp(check_str(r, "error.code"), "bad_request") && !strncmp(check_str(r, "error.where"), "old", 3) &&
          strstr(check_str(r, "error.message"), "old model"), "analysis error names the old model: %s / %s", check_str(r, "error.where"),
          check_str(r, "error.message"));
    cJSON_Delete(r);
    r = diff(old_m, new_m, "");
    CHECK(is_ok(r), "the models still diff after the errors");
    cJSON_Delete(r);
    /* diff.top out of range: its own error, naming the field */
    static const char *const tops[] = {"0", "1001", "2.5", "-1", "\"10\"", "1e300"};
    for (size_t i = 0; i < sizeof tops / sizeof *tops; i++) {
        char extra[128];
        snprintf(extra, sizeof extra, ",\"diff\": {\"top\": %s}", tops[i]);
        r = diff(old_m, new_m, extra);
        CHECK(!is_ok(r) && !strcmp(check_str(r, "error.where"), "diff.top") &&
              strstr(check_str(r, "error.message"), "from 1 to 1000"), "top %s: %s", tops[i], check_str(r, "error.message"));
        cJSON_Delete(r);
    }
}

/* ------------------------------------------------------------ markdown -- */
static void snapshot(const char *name, const char *got) {
    char path[1024];
    snprintf(path, sizeof path, "%s/snapshots/%s", tests_dir, name);
    const char *update = getenv("ROOFLENS_UPDATE_SNAPSHOTS");
    if (update && update[0] == '1') {
        FILE *f = fopen(path, "wb");
        CHECK(f != NULL, "cannot write %s", path);
        if (f) fputs(got, f), fclose(f);
        printf("wrote %s\n", path);
        return;
    }
    char *want = check_read_file(path, NULL);
    CHECK(want != NULL, "missing snapshot %s (ROOFLENS_UPDATE_SNAPSHOTS=1 writes it)", path);
    if (!want) return;
    if (strcmp(want, got)) {
        size_t i = 0;
        while (want[i] && want[i] == got[i]) i++;
        CHECK(0, "%s differs at byte %zu:\n--- want\n%.300s\n--- got\n%.300s\n(ROOFLENS_UPDATE_SNAPSHOTS=1 rewrites it)",
              name, i, want + (i > 80 ? i - 80 : 0), got + (i > 80 ? i - 80 : 0));
    }
    free(want);
}

/* `needle` occurs in `s` with its first character not escaped by a backslash. */
static bool unescaped(const char *s, const char *needle) {
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        if (p == s || p[-1] != '\\') return true;
    return false;
}

static void test_markdown(rl_model *old_m, rl_model *new_m) {
    cJSON *res = diff(old_m, new_m,
                      ",\"diff\": {\"markdown\": true, \"old_label\": \"models/classifier.onnx@main\", "
                      "\"new_label\": \"models/classifier.onnx@pr\", \"fail_if\": \"time>+5%,flops>+10%,unsupported>0,params>+20k\"}");
    const char *md = check_str(res, "diff.markdown");
    CHECK(strlen(md) > 200, "fixture Markdown written");
    /* the forecast's band beside the forecast: this profile has no track record, and says so */
    CHECK(strstr(md, "| forecast, likely | no track record for this stack | no track record for this stack | |\n") != NULL,
          "the band row says there is no track record: %.2000s", md);
    snapshot("diff_fixture.md", md);
    cJSON_Delete(res);
    res = diff(old_m, old_m, ",\"diff\": {\"markdown\": true, \"old_label\": \"a.onnx\", \"new_label\": \"b.onnx\", \"fail_if\": \"time>+5%\"}");
    snapshot("diff_unchanged.md", check_str(res, "diff.markdown"));
    cJSON_Delete(res);

    /* top limits the table and says how many more there are */
    res = diff(old_m, new_m, ",\"diff\": {\"markdown\": true, \"top\": 2}");
    md = check_str(res, "diff.markdown");
    CHECK(strstr(md, "#### Most changed layers") && strstr(md, "and 3 more changed, added or removed layers"), "top 2 of 5");
    cJSON_Delete(res);

    /* Hostile names: a line break, a table pipe, a heading, a link, HTML,
     * a formula. None may escape its cell or start a block of its own. */
    const char *ops[] = {"Relu", "Tanh"}, *ops_b[] = {"Relu", "Sigmoid"};
    const char *names_a[] = {"a", "b"};
    const char *names_b[] = {"a", "x|y\n# Heading [link](http://e.x) <img src=x> =1+1 `code`"};
    rl_model *a = chain(2, ops, names_a), *b = chain(2, ops_b, names_b);
    res = diff(a, b, ",\"diff\": {\"markdown\": true, \"old_label\": \"a\\n## evil\", \"new_label\": \"b|c\"}");
    md = check_str(res, "diff.markdown");
    CHECK(strstr(md, "\n# Heading") == NULL && strstr(md, "\n## evil") == NULL, "no name starts a heading");
    CHECK(strstr(md, "x\\|y") != NULL && strstr(md, "b\\|c") != NULL, "pipes escaped");
    CHECK(!unescaped(md, "[link]") && !unescaped(md, "<img") && !unescaped(md, "`code"), "links, HTML and code spans escaped");
    CHECK(strstr(md, "\\<img") != NULL, "the name is still shown, escaped");
    /* every table line has the same number of unescaped pipes as its header */
    int want_cells = -1;
    for (const char *line = md; *line;) {
        const char *end = strchr(line, '\n');
        if (!end) end = line + strlen(line);
        if (line[0] == '|') {
            int pipes = 0;
            for (const char *p = line; p < end; p++) pipes += *p == '|' && (p == line || p[-1] != '\\');
            if (strncmp(line, "| layer", 7) == 0) want_cells = pipes;
            if (strncmp(line, "| | old", 7) == 0) want_cells = pipes;
            CHECK(pipes == want_cells, "table row with %d cells (want %d): %.*s", pipes, want_cells, (int)(end - line), line);
        }
        line = *end ? end + 1 : end;
    }
    cJSON_Delete(res);
    rl_model_free(a);
    rl_model_free(b);
}

/* A chain of n layers whose op types are all distinct and unknown, with
 * long hostile names: every list of the Markdown at its longest. */
static rl_model *hostile_chain(int n, const char *op_prefix) {
    const char **ops = calloc((size_t)n, sizeof *ops), **names = calloc((size_t)n, sizeof *names);
    char *buf = calloc((size_t)n, 256);
    for (int i = 0; i < n; i++) {
        char *o = buf + (size_t)i * 256, *nm = o + 128;
        snprintf(o, 128, "%s%d", op_prefix, i);
        snprintf(nm, 128, "@team$x$ https://e.x/%d www.e.x \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 <b>|%d|</b> #12 @@@@@@@@@@@@@@", i, i);
        ops[i] = o;
        names[i] = nm;
    }
    rl_model *m = chain(n, ops, names);
    free(ops);
    free(names);
    free(buf);
    return m;
}

/* Caps: 3,000 unknown ops with long hostile names, every list full, and
 * --top at its largest: the section stays well under GitHub's 65,536. */
static void test_markdown_caps(void) {
    rl_model *a = hostile_chain(3, "Relu"), *b = hostile_chain(3000, "CustomOperatorWithALongName@x$www.e.x");
    CHECK(a && b, "hostile chains built");
    if (!a || !b) return;
    cJSON *res = diff(a, b, ",\"diff\": {\"markdown\": true, \"top\": 1000, \"fail_if\": \"unsupported>0,time>+1%,flops>+1%\"}");
    const char *md = check_str(res, "diff.markdown");
    size_t len = strlen(md);
    printf("markdown of 3,000 unsupported ops, top 1000: %zu bytes\n", len);
    CHECK(len > 2000 && len < 34000, "one model's section under 34 kB: %zu bytes", len);
    CHECK(strstr(md, "**Operators rooflens does not support, new in this model:**") && strstr(md, "and 2990 more\n"),
          "the unsupported-operator list is capped and says how many are left out");
    CHECK(strstr(md, "more changed, added or removed layers") != NULL, "the changed layers stop within the budget");
    CHECK(strstr(md, "size limit") != NULL, "and say why");
    CHECK(strstr(md, "`unsupported>0`:") != NULL, "the gate's clauses are still there");
    CHECK(strstr(md, "<!-- rooflens-gate: failed -->") != NULL, "the verdict line ends it");
    CHECK(rl_utf8_bad_at(md) < 0, "valid UTF-8 at %ld", rl_utf8_bad_at(md));
    cJSON_Delete(res);
    /* the same model as new (no base): the same caps */
    char *req = request(",\"diff\": {\"markdown\": true, \"top\": 1000, \"fail_if\": \"unsupported>0\"}");
    char *out = rl_models_diff(NULL, b, req);
    free(req);
    res = cJSON_Parse(out);
    rl_free(out);
    md = check_str(res, "diff.markdown");
    CHECK(strlen(md) < 34000 && strstr(md, "and 2990 more\n"), "new model: capped too (%zu bytes)", strlen(md));
    cJSON_Delete(res);
    rl_model_free(a);
    rl_model_free(b);
}

/* Names cannot mention, link or start math: `@` and "://" and "www." get a
 * zero-width space, `$` a backslash. */
static void test_markdown_neutral(void) {
    rl_model *a = hostile_chain(2, "Relu"), *b = hostile_chain(2, "Tanh");
    cJSON *res = diff(a, b, ",\"diff\": {\"markdown\": true, \"old_label\": \"@octocat/x.onnx\", "
                            "\"new_label\": \"http://evil.example/$x$ www.evil.example user@host.example\"}");
    const char *md = check_str(res, "diff.markdown");
    CHECK(strstr(md, "@octocat") == NULL && strstr(md, "@team") == NULL && strstr(md, "@host") == NULL,
          "no @ followed by a name");
    CHECK(strstr(md, "://") == NULL, "no bare URL");
    CHECK(strstr(md, "www.") == NULL && strstr(md, "www\xe2\x80\x8b.evil") != NULL, "no www. link, the text still shown");
    CHECK(!unescaped(md, "$"), "every $ escaped");
    CHECK(strstr(md, "\\#\xe2\x80\x8b" "12") != NULL, "no #12 issue reference");
    cJSON_Delete(res);
    rl_model_free(a);
    rl_model_free(b);
}

/* rl_markdown_text (the one escaper of the diff's comment and the page's
 * summary): control characters a terminal or a renderer would act on are
 * dropped, and the patterns are broken in the text as shown, so a dropped
 * character cannot hide a link, a mention or a formula from the escaping. */
static bool md_text_is(const char *in, int max, const char *want) {
    char *got = rl_markdown_text(in, max);
    bool same = got && !strcmp(got, want);
    char shown_in[256], shown_got[256]; /* the controls as escapes in the message */
    rl_text_escape(shown_in, sizeof shown_in, in, 1);
    rl_text_escape(shown_got, sizeof shown_got, got, 1);
    CHECK(same, "rl_markdown_text(\"%s\") = \"%s\", want \"%s\"", shown_in, got ? shown_got : "(null)", want);
    rl_free(got);
    return same;
}

static void test_markdown_text_controls(void) {
    /* ESC, BEL, DEL, a C1 CSI, an RTL override, an isolate: dropped */
    md_text_is("a\x1b\x07" "b\x7f\xc2\x9b" "c\xe2\x80\xae" "d\xe2\x81\xa6" "e", 0, "abcde");
    md_text_is("\x1b[31mred\x1b[0m", 0, "\\[31mred\\[0m");
    /* line breaks and tabs (NEL and U+2028 too) are spaces; a byte that is not UTF-8 goes */
    md_text_is("a\tb\r\nc\xc2\x85" "d\xe2\x80\xa8" "e\xff" "f", 0, "a b  c d ef");
    /* the patterns as shown, whatever control hid them */
    md_text_is("w\x1bww.evil.example", 0, "www" ZWSP_TEXT ".evil.example");
    md_text_is("https:\x07//evil.example", 0, "https:" ZWSP_TEXT "//evil.example");
    md_text_is("@\x1b" "octocat", 0, "@" ZWSP_TEXT "octocat");
    md_text_is("$\x07$x^2$$", 0, "\\$\\$x^2\\$\\$");
    /* a cut counts the characters shown */
    md_text_is("\x1b\x1b" "abcdef", 3, "abc\xe2\x80\xa6");
    /* every byte but NUL: no control character survives, and the text is UTF-8 */
    char all[256];
    for (int i = 1; i < 256; i++) all[i - 1] = (char)i;
    all[255] = 0;
    char *t = rl_markdown_text(all, 0);
    CHECK(t != NULL, "every byte: escaped");
    bool control = false;
    for (const unsigned char *p = (const unsigned char *)(t ? t : ""); *p; p++) control |= *p < 0x20 || *p == 0x7f;
    CHECK(!control && t && rl_utf8_bad_at(t) < 0, "every byte: no control character, valid UTF-8: %s", t ? t : "");
    rl_free(t);
}

/* Every cut on a character boundary: a label over the limit is cut, not
 * refused; the gate's expression shown cut mid-'µ' in the old code. */
static void test_markdown_cuts(rl_model *old_m, rl_model *new_m) {
    char label[2000] = "", extra[4000];
    for (int i = 0; i < 300; i++) strcat(label, "\xc3\xa9"); /* 600 bytes */
    char expr[600] = "     "; /* 5 spaces: the first 'µ' of clause 18 straddles byte 200 */
    for (int i = 0; i < 20; i++) strcat(expr, i ? ",time>+1\xc2\xb5s" : "time>+1\xc2\xb5s");
    snprintf(extra, sizeof extra, ",\"diff\": {\"markdown\": true, \"old_label\": \"%s\", \"new_label\": \"x/%s\", \"fail_if\": \"%s\"}",
             label, label, expr);
    cJSON *res = diff(old_m, new_m, extra);
    CHECK(is_ok(res), "a 600-byte label is cut, not refused: %s", check_str(res, "error.message"));
    const char *l = check_str(res, "diff.old.label");
    CHECK(strlen(l) <= 512 && rl_utf8_bad_at(l) < 0 && strstr(l, "\xe2\x80\xa6"), "label cut at a character (%zu bytes)", strlen(l));
    const char *md = check_str(res, "diff.markdown");
    CHECK(rl_utf8_bad_at(md) < 0, "the Markdown is valid UTF-8 (bad byte at %ld)", rl_utf8_bad_at(md));
    cJSON_Delete(res);
    snprintf(extra, sizeof extra, ",\"diff\": {\"markdown\": true, \"fail_if\": \"%s\"}", expr);
    res = diff(old_m, new_m, extra);
    md = check_str(res, "diff.markdown");
    CHECK(strstr(md, "**Gate** `     time>+1\xc2\xb5s") != NULL, "the expression is shown");
    CHECK(rl_utf8_bad_at(md) < 0, "the expression is cut at a character (bad byte at %ld)", rl_utf8_bad_at(md));
    cJSON_Delete(res);
}

/* A new model (no base): judged on what needs no base, reported as new. */
static void test_new_model(rl_model *new_m) {
    char *req = request(",\"diff\": {\"markdown\": true, \"new_label\": \"models/new.onnx\", "
                        "\"fail_if\": \"time>+5%,unsupported>0,added>0\"}");
    char *out = rl_models_diff(NULL, new_m, req);
    free(req);
    cJSON *res = cJSON_Parse(out);
    rl_free(out);
    CHECK(is_ok(res), "a diff without a base answers: %s", check_str(res, "error.message"));
    CHECK(cJSON_IsNull(check_at(res, "diff.old")), "diff.old is null");
    CHECK(!strcmp(check_str(res, "diff.gate.clauses.0.status"), "skipped") &&
          !strcmp(check_str(res, "diff.gate.clauses.1.status"), "fail") &&
          !strcmp(check_str(res, "diff.gate.clauses.2.status"), "skipped"), "time and added need a base; unsupported judged");
    CHECK(cJSON_IsFalse(check_at(res, "diff.gate.passed")) && check_num(res, "diff.gate.judged") == 1, "the gate fails, 1 judged");
    CHECK(check_num(res, "diff.layers.became_unsupported") == 1, "the new model's unsupported layer counts");
    const char *md = check_str(res, "diff.markdown");
    snapshot("diff_new_model.md", md);
    CHECK(strstr(md, "### rooflens: models/new.onnx (new model)") && strstr(md, "| | new |"), "reported as a new model");
    cJSON_Delete(res);
    /* only thresholds that need a base: not judged, never "passed" */
    req = request(",\"diff\": {\"markdown\": true, \"fail_if\": \"time>+5%\"}");
    out = rl_models_diff(NULL, new_m, req);
    free(req);
    res = cJSON_Parse(out);
    rl_free(out);
    md = check_str(res, "diff.markdown");
    CHECK(check_num(res, "diff.gate.judged") == 0 && strstr(check_str(res, "diff.gate.message"), "no threshold judged"),
          "nothing judged: %s", check_str(res, "diff.gate.message"));
    CHECK(strstr(md, "not judged") && strstr(md, "<!-- rooflens-gate: not-judged -->") && !strstr(md, "passed"),
          "the Markdown says not judged");
    cJSON_Delete(res);
    out = rl_models_diff(new_m, NULL, "{}");
    CHECK(strstr(out, "\"bad_request\"") != NULL, "a missing new model is a bad_request");
    rl_free(out);
}

/* ------------------------------------------------------------- summary -- */
static void test_summary(rl_model *m) {
    char *req = request(",\"layers\": true");
    char *out = rl_model_summary(m, req);
    free(req);
    cJSON *res = cJSON_Parse(out);
    rl_free(out);
    cJSON *single = analyze(m);
    CHECK(is_ok(res), "summary failed");
    CHECK(check_num(res, "summary.time_s") == check_num(single, "sol.chosen.time_s"), "summary time = sol.chosen.time_s");
    CHECK(check_num(res, "summary.flops") == check_num(single, "totals.flops") && check_num(res, "summary.params") == check_num(single, "model.params"),
          "summary FLOPs and params");
    CHECK(!strcmp(check_str(res, "summary.bound"), check_str(single, "sol.chosen.bound")), "summary bound");
    CHECK(cJSON_IsNull(check_at(res, "summary.ttft_s")) && cJSON_IsNull(check_at(res, "summary.fits")), "no LLM figures: null");
    /* the fields are the summary's keys, in order */
    char *fields = rl_summary_fields();
    cJSON *f = cJSON_Parse(fields);
    rl_free(fields);
    const cJSON *k = f ? f->child : NULL, *s = check_at(res, "summary")->child;
    int n = 0;
    for (; k && s; k = k->next, s = s->next, n++) CHECK(!strcmp(k->valuestring, s->string), "field %d: %s vs %s", n, k->valuestring, s->string);
    CHECK(!k && !s && n > 20, "rl_summary_fields lists every summary key (%d)", n);
    cJSON_Delete(f);
    cJSON_Delete(res);
    cJSON_Delete(single);
    out = rl_model_summary(m, "{\"hardware\": 3}");
    CHECK(strstr(out, "\"ok\":false") && strstr(out, "bad_hardware"), "a bad request is the analysis's error: %s", out);
    rl_free(out);
}

/* The response fields the diff reads, as they will be once the timing
 * model of issue 11 moves the bounds and kernels into sol.chosen, and with
 * the LLM object of issue 12: read from there, and judged by the gate. */
static void test_future_fields(void) {
    cJSON *res = cJSON_Parse(
        "{\"ok\": true, \"totals\": {\"kernels\": 9, \"launch_floor_s\": 9e-6, \"flops\": 10},"
        " \"sol\": {\"lower_bound_s\": 1, \"upper_bound_s\": 5,"
        "  \"chosen\": {\"time_s\": 3, \"lower_bound_s\": 2, \"upper_bound_s\": 4, \"kernels\": 7,"
        "   \"launch_floor_s\": 7e-6, \"energy_j\": null, \"bound\": \"memory\"}},"
        " \"llm\": {\"ttft_s\": 0.02, \"tpot_s\": 0.005, \"tokens_per_s\": 200, \"memory_required_bytes\": 8e9,"
        "  \"kv_cache_bytes\": 1e9, \"fits\": true}}");
    rl_summary s;
    rl_summary_read(res, &s);
    CHECK(s.time_s == 3 && s.lower_bound_s == 2 && s.upper_bound_s == 4, "bounds from sol.chosen first");
    CHECK(s.kernels == 7 && s.launch_floor_s == 7e-6, "kernels and launch floor from sol.chosen first");
    CHECK(isnan(s.energy_j), "a null energy stays unknown");
    CHECK(s.llm && s.ttft_s == 0.02 && s.tpot_s == 0.005 && s.llm_memory_bytes == 8e9 && s.fits == 1, "llm figures read");
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "sol"), "chosen");
    rl_summary_read(res, &s);
    CHECK(s.lower_bound_s == 1 && s.kernels == 9, "today's places when sol.chosen lacks them");
    cJSON_Delete(res);

    cJSON *d = cJSON_Parse("{\"llm\": {\"ttft_s\": {\"old\": 0.02, \"new\": 0.023}, \"tpot_s\": {\"old\": 0.005, \"new\": 0.005},"
                           " \"memory_required_bytes\": {\"old\": 8e9, \"new\": 9e9}}, \"totals\": {}, \"layers\": {}}");
    rl_error err = {0};
    rl_gate *g = rl_gate_parse("ttft>+10%,tpot>+1%,llm_memory>+512MiB", &err);
    CHECK(g != NULL, "gate parsed: %s", err.message);
    cJSON *v = g ? rl_gate_eval(g, d) : NULL;
    CHECK(v && !strcmp(check_str(v, "clauses.0.status"), "fail") && !strcmp(check_str(v, "clauses.1.status"), "pass") &&
          !strcmp(check_str(v, "clauses.2.status"), "fail"), "LLM thresholds judged: ttft +15%% fails, tpot 0%% passes, +1 GB fails");
    cJSON_Delete(v);
    rl_gate_free(g);
    cJSON_Delete(d);
}

/* docs/ci.md lists every metric of the grammar's one table, with its unit. */
static void test_metrics_documented(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/docs/ci.md", root_dir);
    char *doc = check_read_file(path, NULL);
    CHECK(doc != NULL, "cannot read %s", path);
    cJSON *metrics = rl_gate_metrics_json();
    const cJSON *m;
    int n = 0;
    cJSON_ArrayForEach(m, metrics) {
        char row[160];
        const char *unit = check_str(m, "unit");
        snprintf(row, sizeof row, "| `%s` |%s%s%s|", check_str(m, "name"), unit[0] ? " " : "", unit, " ");
        CHECK(doc && strstr(doc, row), "docs/ci.md lacks the metric row starting '%s'", row);
        n++;
    }
    CHECK(n >= 18, "%d metrics", n);
    cJSON_Delete(metrics);
    free(doc);
}

/* One source of every figure: each layer figure a diff carries, old and new,
 * is the single analysis's row figure to the last bit (null where the row's
 * is null), for every matched, added and removed layer, over fixture pairs
 * with fused kernels, an unsupported op, energy and layers of a model fused
 * into another's kernel. The diff reads them from the packed layer table
 * (diff_match.c), the analyses here from their JSON rows. */
static bool same_figure(const cJSON *diff_value, const cJSON *row, const char *key) {
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(row, key);
    if (cJSON_IsNumber(diff_value)) return cJSON_IsNumber(r) && r->valuedouble == diff_value->valuedouble;
    return (!diff_value || cJSON_IsNull(diff_value)) && (!r || cJSON_IsNull(r));
}

static void check_side(const cJSON *x, const cJSON *res, const char *index_key, const char *which, int *checked) {
    static const char *const keys[] = {"flops", "bytes", "intensity", "t", "forecast_s", "energy_j",
                                       "kernel_intensity", "kernel_flops_per_s"};
    const cJSON *row = cJSON_GetArrayItem(check_at(res, "layers"), (int)check_num(x, index_key));
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        const cJSON *f = check_at(x, keys[k]);
        const cJSON *v = which ? cJSON_GetObjectItemCaseSensitive(f, which) : f;
        CHECK(row && same_figure(v, row, keys[k]), "%s: %s%s%s is not the analysis's row figure", check_str(x, "name"),
              keys[k], which ? "." : "", which ? which : "");
        (*checked)++;
    }
}

static void test_figures_one_source(const char *old_name, const char *new_name) {
    rl_model *a = load_model(old_name), *b = load_model(new_name);
    if (!a || !b) return;
    cJSON *res = diff(a, b, ""), *ao = analyze(a), *an = analyze(b);
    const cJSON *d = check_at(res, "diff"), *x;
    int checked = 0;
    cJSON_ArrayForEach(x, check_at(d, "matched")) {
        check_side(x, ao, "old_index", "old", &checked);
        check_side(x, an, "new_index", "new", &checked);
    }
    cJSON_ArrayForEach(x, check_at(d, "added")) check_side(x, an, "index", NULL, &checked);
    cJSON_ArrayForEach(x, check_at(d, "removed")) check_side(x, ao, "index", NULL, &checked);
    CHECK(checked > 0, "%s -> %s: no layer figure compared", old_name, new_name);
    cJSON_Delete(res);
    cJSON_Delete(ao);
    cJSON_Delete(an);
    rl_model_free(a);
    rl_model_free(b);
}

/* diff.layers "top": the first `top` changes, each pointing at the same
 * layer as in the whole answer, the layers no kept change names left out,
 * the counts and totals untouched; "changes_total" the whole count. */
static void test_top_layers_only(const char *old_name, const char *new_name, int top) {
    rl_model *a = load_model(old_name), *b = load_model(new_name);
    if (!a || !b) return;
    char extra[96];
    snprintf(extra, sizeof extra, ",\"diff\": {\"top\": %d, \"layers\": \"top\"}", top);
    cJSON *all = diff(a, b, ""), *cut = diff(a, b, extra);
    const cJSON *da = check_at(all, "diff"), *dc = check_at(cut, "diff");
    const int total = cJSON_GetArraySize(check_at(da, "changes")), kept = cJSON_GetArraySize(check_at(dc, "changes"));
    CHECK(total > 0 && kept == (total < top ? total : top) && check_num(dc, "changes_total") == total,
          "%s: %d of %d changes kept (top %d), changes_total %g", new_name, kept, total, top, check_num(dc, "changes_total"));
    int listed = 0;
    for (int i = 0; i < kept; i++) {
        const cJSON *ca = cJSON_GetArrayItem(check_at(da, "changes"), i), *cc = cJSON_GetArrayItem(check_at(dc, "changes"), i);
        const char *kind = check_str(cc, "kind");
        const cJSON *la = cJSON_GetArrayItem(check_at(da, kind), (int)check_num(ca, "at"));
        const cJSON *lc = cJSON_GetArrayItem(check_at(dc, kind), (int)check_num(cc, "at"));
        char *ta = cJSON_PrintUnformatted(la), *tc = cJSON_PrintUnformatted(lc);
        CHECK(!strcmp(kind, check_str(ca, "kind")) && ta && tc && !strcmp(ta, tc), "%s: change %d is the same layer", new_name, i);
        free(ta);
        free(tc);
    }
    static const char *const kinds[] = {"matched", "added", "removed"};
    for (int k = 0; k < 3; k++) listed += cJSON_GetArraySize(check_at(dc, kinds[k]));
    CHECK(listed <= kept, "%s: %d layers listed for %d kept changes", new_name, listed, kept);
    char *la = cJSON_PrintUnformatted(check_at(da, "layers")), *lc = cJSON_PrintUnformatted(check_at(dc, "layers"));
    char *ta = cJSON_PrintUnformatted(check_at(da, "totals")), *tc = cJSON_PrintUnformatted(check_at(dc, "totals"));
    CHECK(la && lc && ta && tc && !strcmp(la, lc) && !strcmp(ta, tc), "%s: counts and totals are the whole diff's", new_name);
    free(la), free(lc), free(ta), free(tc);
    cJSON *bad = diff(a, b, ",\"diff\": {\"layers\": \"some\"}");
    CHECK(!is_ok(bad) && !strcmp(check_str(bad, "error.where"), "diff.layers"), "diff.layers \"some\" is refused");
    cJSON_Delete(bad);
    cJSON_Delete(all);
    cJSON_Delete(cut);
    rl_model_free(a);
    rl_model_free(b);
}

int main(int argc, char **argv) {
    tests_dir = argc > 1 ? argv[1] : "tests";
    root_dir = argc > 2 ? argv[2] : ".";
    char path[1024];
    snprintf(path, sizeof path, "%s/hw/unit.json", tests_dir);
    unit_hw = check_read_file(path, NULL);
    CHECK(unit_hw != NULL, "cannot read %s", path);
    if (!unit_hw) return check_report("diff");
    rl_model *old_m = load_model("diff_old.onnx"), *new_m = load_model("diff_new.onnx");
    if (old_m && new_m) {
        test_fixture_pair(old_m, new_m);
        test_identity(old_m);
        test_matching();
        test_gate(old_m, new_m);
        test_markdown(old_m, new_m);
        test_markdown_cuts(old_m, new_m);
        test_new_model(new_m);
        test_summary(old_m);
    }
    test_figures_one_source("diff_old.onnx", "diff_new.onnx");
    test_figures_one_source("transformer_block.onnx", "transformer_block.onnx");
    test_figures_one_source("conv_net.onnx", "yolo_head.onnx");
    test_top_layers_only("diff_old.onnx", "diff_new.onnx", 2);
    test_top_layers_only("conv_net.onnx", "yolo_head.onnx", 3);
    test_top_layers_only("conv_net.onnx", "yolo_head.onnx", 1000);
    test_metrics_documented();
    test_markdown_caps();
    test_markdown_neutral();
    test_markdown_text_controls();
    test_future_fields();
    rl_model_free(old_m);
    rl_model_free(new_m);
    free(unit_hw);
    return check_report("diff");
}
