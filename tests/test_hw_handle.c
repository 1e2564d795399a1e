/* A hardware profile read once into a handle (rl_hw_read, rooflens.h) gives
 * every answer the same request with the profile written into it gets,
 * byte for byte: analyses (returned and written in pieces), power modes
 * and the power-mode study, diffs and summaries, one handle over several
 * models and from two threads at once. And the handle's own rules: a
 * request given a handle names no "hardware"; a profile that is not JSON
 * or that the validator refuses gives no handle but the error the
 * analysis gives.
 *
 *   test_hw_handle TESTS_DIR SOURCE_DIR */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdbool.h>

#include "check.h"
#include "rooflens.h"

static char *joined(const char *head, const char *profile, const char *tail) {
    size_t cap = strlen(head) + strlen(profile) + strlen(tail) + 1;
    char *s = malloc(cap);
    snprintf(s, cap, "%s%s%s", head, profile, tail);
    return s;
}

/* The request `opts` (a JSON object's members, or "") with the profile in
 * it, and without it. */
static void requests(const char *profile, const char *opts, char **with_profile, char **without) {
    char head[64];
    snprintf(head, sizeof head, "{\"hardware\": ");
    char *tail = joined(opts[0] ? ", " : "", opts, "}");
    *with_profile = joined(head, profile, tail);
    *without = joined("{", opts, "}");
    free(tail);
}

typedef struct sink {
    char *p;
    size_t n;
} sink;

static int collect(void *ctx, const char *bytes, size_t n) {
    sink *s = ctx;
    char *p = realloc(s->p, s->n + n + 1);
    if (!p) return -1;
    memcpy(p + s->n, bytes, n);
    s->p = p;
    s->n += n;
    return 0;
}

/* The answers of rl_model_analyze_sized with the profile in the request and
 * of rl_model_analyze_hw with the handle are the same bytes, and so are
 * those written in pieces. */
static void same_analysis(const char *what, rl_model *m, const rl_hw *hw, const char *profile, const char *opts,
                          bool want_ok) {
    char *with, *without;
    requests(profile, opts, &with, &without);
    size_t n1 = 0, n2 = 0;
    char *a = rl_model_analyze_sized(m, with, &n1);
    char *b = rl_model_analyze_hw(m, hw, without, &n2);
    CHECK(a && b && n1 == n2 && !memcmp(a, b, n1), "%s: the handle's answer differs from the profile's (%zu, %zu bytes)",
          what, n1, n2);
    CHECK(a && rl_answer_ok(a) == want_ok, "%s: expected %s", what, want_ok ? "an ok answer" : "an error");
    sink s1 = {0}, s2 = {0};
    bool ok1 = false, ok2 = false;
    int r1 = rl_model_analyze_write(m, with, collect, &s1, &ok1);
    int r2 = rl_model_analyze_hw_write(m, hw, without, collect, &s2, &ok2);
    CHECK(r1 == 0 && r2 == 0 && ok1 == ok2 && s1.n == s2.n && (!s1.n || !memcmp(s1.p, s2.p, s1.n)),
          "%s: the handle's written answer differs", what);
    free(s1.p), free(s2.p);
    rl_free(a), rl_free(b);
    free(with), free(without);
}

typedef struct job {
    rl_model *m;
    const rl_hw *hw;
    const char *request;
    char *answer;
} job;

static void *analyse(void *arg) {
    job *j = arg;
    j->answer = rl_model_analyze_hw(j->m, j->hw, j->request, NULL);
    return NULL;
}

static rl_model *read_fixture(const char *tests, const char *name, char **bytes) {
    char path[2048];
    snprintf(path, sizeof path, "%s/fixtures/models/%s", tests, name);
    size_t len = 0;
    char *err = NULL;
    *bytes = check_read_file(path, &len);
    rl_model *m = *bytes ? rl_model_read(*bytes, len, NULL, &err) : NULL;
    CHECK(m != NULL, "cannot read %s", path);
    rl_free(err);
    return m;
}

int main(int argc, char **argv) {
    const char *tests = argc > 1 ? argv[1] : "tests";
    const char *source = argc > 2 ? argv[2] : ".";
    char path[2048], *conv_bytes, *mlp_bytes, *old_bytes, *new_bytes;
    rl_model *conv = read_fixture(tests, "conv_net.onnx", &conv_bytes);
    rl_model *mlp = read_fixture(tests, "mlp.onnx", &mlp_bytes);
    rl_model *old_m = read_fixture(tests, "diff_old.onnx", &old_bytes);
    rl_model *new_m = read_fixture(tests, "diff_new.onnx", &new_bytes);
    snprintf(path, sizeof path, "%s/hw/jetson-agx-orin.json", source);
    char *orin = check_read_file(path, NULL);
    snprintf(path, sizeof path, "%s/hw/h100-sxm.json", source);
    char *h100 = check_read_file(path, NULL);
    CHECK(orin && h100, "cannot read the profiles");
    if (!conv || !mlp || !old_m || !new_m || !orin || !h100) return check_report("hw_handle");

    char *err = NULL;
    rl_hw *orin_hw = rl_hw_read(orin, &err);
    rl_hw *h100_hw = rl_hw_read(h100, &err);
    CHECK(orin_hw && h100_hw && !err, "the shipped profiles give handles");
    if (!orin_hw || !h100_hw) return check_report("hw_handle");

    /* the analyses: one handle, several models, modes and options */
    same_analysis("Orin, conv_net", conv, orin_hw, orin, "", true);
    same_analysis("Orin, mlp", mlp, orin_hw, orin, "", true);
    same_analysis("Orin at 15 W", conv, orin_hw, orin, "\"power_mode\": \"15w\"", true);
    same_analysis("Orin, its default mode named", conv, orin_hw, orin, "\"power_mode\": \"maxn\"", true);
    same_analysis("Orin, an unknown mode", conv, orin_hw, orin, "\"power_mode\": \"nope\"", false);
    same_analysis("Orin, the power-mode study", conv, orin_hw, orin,
                  "\"layers\": false, \"study\": {\"kind\": \"power_modes\"}", true);
    same_analysis("H100, packed layers, fp16", conv, h100_hw, h100, "\"layers\": \"packed\", \"precision\": \"fp16\"", true);
    same_analysis("H100, the CSV", mlp, h100_hw, h100, "\"layers\": \"csv\"", true);
    same_analysis("H100, a bad option", mlp, h100_hw, h100, "\"batch\": -1", false);
    same_analysis("H100, a compare study", conv, h100_hw, h100, "\"layers\": false, \"study\": {\"kind\": \"compare\", "
                  "\"hardware\": [{\"id\": \"x\"}]}", true);

    /* diff and summary */
    const char *diff_req = "{\"diff\": {\"markdown\": true}}";
    char *with = joined("{\"hardware\": ", h100, ", \"diff\": {\"markdown\": true}}");
    char *a = rl_models_diff(old_m, new_m, with), *b = rl_models_diff_hw(old_m, new_m, h100_hw, diff_req);
    CHECK(a && b && !strcmp(a, b) && rl_answer_ok(b), "the diff with a handle differs from the diff with the profile");
    rl_free(a), rl_free(b), free(with);
    with = joined("{\"hardware\": ", orin, ", \"batch\": 4}");
    a = rl_model_summary(conv, with), b = rl_model_summary_hw(conv, orin_hw, "{\"batch\": 4}");
    CHECK(a && b && !strcmp(a, b) && rl_answer_ok(b), "the summary with a handle differs from the summary with the profile");
    rl_free(a), rl_free(b), free(with);

    /* two threads on one handle at once */
    job jobs[2] = {{conv, orin_hw, "{\"power_mode\": \"15w\"}", NULL}, {mlp, orin_hw, "{}", NULL}};
    pthread_t t[2];
    bool started[2];
    for (int i = 0; i < 2; i++) started[i] = pthread_create(&t[i], NULL, analyse, &jobs[i]) == 0;
    for (int i = 0; i < 2; i++) {
        if (started[i]) pthread_join(t[i], NULL);
        char *alone = rl_model_analyze_hw(jobs[i].m, orin_hw, jobs[i].request, NULL);
        CHECK(started[i] && jobs[i].answer && alone && !strcmp(jobs[i].answer, alone),
              "thread %d: the answer differs from one made alone", i);
        rl_free(alone);
        rl_free(jobs[i].answer);
    }

    /* a handle is the hardware: the request names none */
    with = joined("{\"hardware\": ", h100, "}");
    a = rl_model_analyze_hw(conv, h100_hw, with, NULL);
    CHECK(a && !rl_answer_ok(a) && strstr(a, "\"code\":\"bad_request\"") && strstr(a, "\"where\":\"hardware\""),
          "a request with a handle and a profile of its own is a bad_request at hardware: %s", a ? a : "(null)");
    rl_free(a), free(with);

    /* profiles that give no handle, with the analysis's own error */
    err = NULL;
    CHECK(!rl_hw_read("{\"id\": \"x\", ", &err) && err && strstr(err, "\"code\":\"bad_hardware\"") &&
              strstr(err, "not valid JSON"),
          "text that is not JSON gives no handle: %s", err ? err : "(null)");
    rl_free(err);
    const char *bad = "{\"id\": \"bad\", \"compute\": {\"fp16\": {\"matrix\": -1}}, \"memory\": [{\"bandwidth_Bps\": 1e12}]}";
    err = NULL;
    CHECK(!rl_hw_read(bad, &err) && err, "a refused profile gives no handle");
    with = joined("{\"hardware\": ", bad, "}");
    a = rl_model_analyze(conv, with);
    CHECK(err && a && !strcmp(err, a), "a refused profile's error is the analysis's: %s / %s", err ? err : "(null)",
          a ? a : "(null)");
    rl_free(a), rl_free(err), free(with);
    CHECK(!rl_hw_read(NULL, NULL), "no text gives no handle");
    rl_hw_free(NULL);

    rl_hw_free(orin_hw);
    rl_hw_free(h100_hw);
    rl_model_free(conv), rl_model_free(mlp), rl_model_free(old_m), rl_model_free(new_m);
    free(conv_bytes), free(mlp_bytes), free(old_bytes), free(new_bytes);
    free(orin), free(h100);
    return check_report("hw_handle");
}
