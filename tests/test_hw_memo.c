/* rl_model_analyze keeps the last hardware profile a thread was sent (its
 * text, tree and parsed figures: analyze_request.c) and reuses them when the
 * next request repeats the profile byte for byte. Every answer must be the
 * one a thread that never saw a profile gives: each request here is answered
 * twice, in a fresh thread (nothing kept) and in the main thread after the
 * requests before it, and the two texts must be equal. The requests switch
 * power modes under one kept profile, change one byte of it, name the
 * member twice, spell it with an escape, nest it in a study, break it, and
 * come back to it.
 *
 *   test_hw_memo TESTS_DIR SOURCE_DIR */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdbool.h>

#include "check.h"
#include "rooflens.h"

static rl_model *model;

typedef struct job {
    const char *request;
    char *answer;
} job;

static void *answer_fresh(void *arg) {
    job *j = arg;
    j->answer = rl_model_analyze(model, j->request);
    return NULL;
}

/* The answer of a thread that kept nothing. */
static char *fresh_answer(const char *request) {
    job j = {request, NULL};
    pthread_t t;
    if (pthread_create(&t, NULL, answer_fresh, &j) != 0) return NULL;
    pthread_join(t, NULL);
    return j.answer;
}

static char *printed(const char *fmt, const char *a, const char *b) {
    size_t cap = strlen(fmt) + strlen(a) + strlen(b) + 1;
    char *s = malloc(cap);
    snprintf(s, cap, fmt, a, b);
    return s;
}

/* The request answered here, after what came before, equals a fresh answer;
 * returns whether the answer was ok. */
static bool same_as_fresh(const char *what, const char *request) {
    char *kept = rl_model_analyze(model, request);
    char *fresh = fresh_answer(request);
    CHECK(kept && fresh && !strcmp(kept, fresh), "%s: the answer after earlier requests differs from a fresh one",
          what);
    bool ok = kept && strstr(kept, "\"ok\":true") != NULL;
    rl_free(kept);
    rl_free(fresh);
    return ok;
}

int main(int argc, char **argv) {
    const char *tests = argc > 1 ? argv[1] : "tests";
    const char *source = argc > 2 ? argv[2] : ".";
    char path[2048];
    snprintf(path, sizeof path, "%s/fixtures/models/conv_net.onnx", tests);
    size_t len = 0;
    char *bytes = check_read_file(path, &len), *err = NULL;
    model = bytes ? rl_model_read(bytes, len, NULL, &err) : NULL;
    CHECK(model != NULL, "cannot read %s", path);
    snprintf(path, sizeof path, "%s/hw/jetson-agx-orin.json", source);
    char *orin = check_read_file(path, NULL);
    snprintf(path, sizeof path, "%s/hw/h100-sxm.json", source);
    char *h100 = check_read_file(path, NULL);
    CHECK(orin && h100, "cannot read the profiles");
    if (!model || !orin || !h100) return check_report("hw_memo");

    /* one byte changed: a slower launch (the profiles write 1e-06 or 5e-06 style figures) */
    char *orin_slow = strdup(orin);
    char *launch = strstr(orin_slow, "\"launch_overhead_s\"");
    char *digit = launch ? strpbrk(launch + 19, "123456789") : NULL;
    CHECK(digit != NULL, "the Orin profile gives no launch_overhead_s digit to change");
    if (digit) *digit = *digit == '9' ? '8' : (char)(*digit + 1);

    struct {
        const char *what;
        char *request;
        bool ok;
    } cases[] = {
        {"Orin", printed("{\"hardware\": %s%s}", orin, ""), true},
        {"Orin again", printed("{\"hardware\": %s%s}", orin, ""), true},
        {"Orin at 15 W", printed("{\"hardware\": %s, \"power_mode\": \"15w\"%s}", orin, ""), true},
        {"Orin at 30 W", printed("{\"power_mode\": \"30w\", \"hardware\": %s%s}", orin, ""), true},
        {"Orin, default mode again", printed("{\"precision\": \"fp16\", \"hardware\":%s%s}", orin, ""), true},
        {"Orin, an unknown mode", printed("{\"hardware\": %s, \"power_mode\": \"nope\"%s}", orin, ""), false},
        {"Orin, one figure changed", printed("{\"hardware\": %s%s}", orin_slow, ""), true},
        {"Orin once more", printed("{\"hardware\": %s%s}", orin, ""), true},
        {"the power-mode study", printed("{\"hardware\": %s, \"layers\": false, \"study\": {\"kind\": "
                                         "\"power_modes\"}%s}", orin, ""), true},
        {"H100, then Orin named twice", printed("{\"hardware\": %s, \"hardware\": %s}", h100, orin), true},
        {"Orin named twice: the first wins", printed("{\"hardware\": %s, \"hardware\": %s}", orin, h100), true},
        {"an escaped name first", printed("{\"hardw\\u0061re\": %s, \"hardware\": %s}", h100, orin), true},
        {"a nested name first", printed("{\"study\": {\"kind\": \"compare\", \"hardware\": [%s]}, "
                                        "\"layers\": false, \"hardware\": %s}", h100, orin), true},
        {"Orin's text, then cut short", printed("{\"hardware\": %.200s%s", orin, ""), false},
        {"Orin, then a bad member after it", printed("{\"hardware\": %s, \"batch\": -1%s}", orin, ""), false},
        {"Orin, then broken text after it", printed("{\"hardware\": %s, \"batch\": %s", orin, ""), false},
        {"Orin after the errors", printed("{\"hardware\": %s%s}", orin, ""), true},
        {"a profile that is not an object", printed("{\"hardware\": [%s]%s}", orin, ""), false},
        {"H100, packed layers", printed("{\"hardware\": %s, \"layers\": \"packed\"%s}", h100, ""), true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        bool ok = same_as_fresh(cases[i].what, cases[i].request);
        CHECK(ok == cases[i].ok, "%s: expected %s", cases[i].what, cases[i].ok ? "an ok answer" : "an error");
        free(cases[i].request);
    }
    free(orin_slow);
    free(orin);
    free(h100);
    free(bytes);
    rl_model_free(model);
    return check_report("hw_memo");
}
