/* rl_model_analyze_write (the CLI's --format json) writes the bytes of
 * rl_model_analyze_sized, in the same order, for every model of the corpus
 * and the options that change the rows (training, a precision, a measured
 * profile, the CSV layout with and without a selection of rows, a layout
 * that is not streamed, an error answer). The rows go out
 * (and a CSV of every layer) in pieces of about RL_STREAM_PIECE bytes, so a big answer is never held
 * whole; a writer that stops cuts the answer short with -1, and the model
 * can be analysed again after it. */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_model.h"
#include "layer_writer.h"
#include "model_corpus.h"
#include "rooflens.h"

static char *h100;

/* What a writer was given: the bytes, how many pieces, the largest. */
typedef struct {
    char *p;
    size_t n, cap;
    int pieces;
    size_t largest;
    int stop_at; /* > 0: the writer refuses that piece */
} captured;

static int capture(void *ctx, const char *bytes, size_t n) {
    captured *c = ctx;
    c->pieces++;
    if (c->stop_at && c->pieces == c->stop_at) return 1;
    if (n > c->largest) c->largest = n;
    if (c->n + n > c->cap) {
        c->cap = (c->n + n) * 2;
        c->p = realloc(c->p, c->cap);
    }
    memcpy(c->p + c->n, bytes, n);
    c->n += n;
    return 0;
}

static char *request(const char *extra) {
    size_t n = strlen(h100) + strlen(extra) + 32;
    char *req = malloc(n);
    snprintf(req, n, "{\"hardware\":%s%s}", h100, extra);
    return req;
}

/* The streamed answer is the returned one, byte for byte. Returns how many
 * pieces it took. */
static int same_bytes(const char *name, rl_model *m, const char *extra) {
    char *req = request(extra);
    size_t size = 0;
    char *want = rl_model_analyze_sized(m, req, &size);
    captured got = {0};
    bool ok = false;
    int rc = rl_model_analyze_write(m, req, capture, &got, &ok);
    CHECK(rc == 0, "%s %s: the whole answer was written (%d)", name, extra, rc);
    CHECK(ok == rl_answer_ok(want), "%s %s: answered_ok (%d) says what the answer says", name, extra, ok);
    CHECK(want && got.n == size && !memcmp(got.p, want, size),
          "%s %s: streamed %zu bytes in %d pieces, the answer is %zu:\n%.200s\n%.200s", name, extra, got.n, got.pieces, size,
          got.p ? got.p : "", want ? want : "");
    /* a row is a few KB at most: no piece much over the piece size */
    CHECK(got.largest <= RL_STREAM_PIECE + 64 * 1024 || got.pieces == 1, "%s %s: the largest piece is %zu bytes", name, extra,
          got.largest);
    int pieces = got.pieces;
    free(got.p), free(req), rl_free(want);
    return pieces;
}

static int models, several_pieces, several_csv;
static void each_model(const char *name, rl_model *m, void *ctx) {
    (void)ctx;
    models++;
    several_pieces += same_bytes(name, m, "") > 3;
    same_bytes(name, m, ",\"mode\":\"training\",\"precision\":\"int8\",\"batch\":4");
    same_bytes(name, m, ",\"layers\":\"packed\"");
    several_csv += same_bytes(name, m, ",\"layers\":\"csv\"") > 3;
    same_bytes(name, m, ",\"layers\":\"csv\",\"csv\":{\"rows\":[0],\"filter\":\"the first\"}"); /* not streamed */
    if (models % 4 == 0) {
        same_bytes(name, m, ",\"layers\":false");
        same_bytes(name, m, ",\"precision\":\"fp7\""); /* an error answer */
    }
}

/* A measured profile's figures in the rows, streamed after the request
 * they were read from. */
static void measured_rows(const char *tests_dir) {
    char path[2048];
    snprintf(path, sizeof path, "%s/fixtures/measured/small_cnn.onnx", tests_dir);
    rl_model *m = check_read_model(path);
    snprintf(path, sizeof path, "%s/fixtures/measured/ort_small_cnn_all.json", tests_dir);
    char *profile = check_read_file(path, NULL);
    CHECK(m && profile, "the measured fixtures read");
    if (m && profile) {
        cJSON *s = cJSON_CreateString(profile);
        char *quoted = cJSON_PrintUnformatted(s);
        size_t n = strlen(quoted) + 64;
        char *extra = malloc(n);
        snprintf(extra, n, ",\"measured\":{\"text\":%s,\"format\":\"auto\"}", quoted);
        same_bytes("small_cnn + ORT profile", m, extra);
        free(extra), free(quoted);
        cJSON_Delete(s);
    }
    free(profile);
    rl_model_free(m);
}

/* A writer that stops at its first, second or a later piece: -1, nothing
 * leaks (valgrind and ASan runs of this test), and the next analysis of
 * the same model is whole. */
static void writer_stops(void) {
    size_t len = 0;
    uint8_t *bytes = gen_chain(300, &len);
    rl_model *m = bytes ? rl_model_read(bytes, len, NULL, NULL) : NULL;
    CHECK(m, "the 300-layer chain reads");
    if (!m) return;
    char *req = request("");
    for (int stop = 1; stop <= 4; stop++) {
        captured got = {.stop_at = stop};
        bool ok = false;
        int rc = rl_model_analyze_write(m, req, capture, &got, &ok);
        CHECK(rc == -1 && got.pieces == stop, "stopped at piece %d: rc %d after %d pieces", stop, rc, got.pieces);
        free(got.p);
    }
    CHECK(same_bytes("the chain after stopped writers", m, "") > 3, "the chain's rows take several pieces");
    CHECK(rl_model_analyze_write(m, req, NULL, NULL, NULL) == -1, "no writer: -1");
    free(req), free(bytes);
    rl_model_free(m);
}

int main(int argc, char **argv) {
    const char *tests_dir = argc > 1 ? argv[1] : ".";
    const char *root_dir = argc > 2 ? argv[2] : "..";
    char path[2048];
    snprintf(path, sizeof path, "%s/hw/h100-sxm.json", root_dir);
    h100 = check_read_file(path, NULL);
    CHECK(h100 != NULL, "the hardware profile reads");
    if (h100) corpus_each(tests_dir, NULL, each_model, NULL);
    CHECK(models > 40, "the corpus has models (%d)", models);
    CHECK(several_pieces >= 1 && several_csv >= 1, "some answers' rows (%d models) and CSV (%d) went out in several pieces",
          several_pieces, several_csv);
    if (h100) measured_rows(tests_dir), writer_stops();
    free(h100);
    return check_report("streamed answers");
}
