/* Shared by the fuzz targets: the fixed request and model they use, and the
 * oracle every response must pass (valid JSON with a boolean "ok", and an
 * error object with a code when ok is false). A failed oracle aborts, which
 * libFuzzer and the regression replay both report as a crash. */
#ifndef ROOFLENS_FUZZ_COMMON_H
#define ROOFLENS_FUZZ_COMMON_H
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../response_oracle.h"
#include "rooflens.h"

#ifndef ROOFLENS_SOURCE_DIR
#define ROOFLENS_SOURCE_DIR "."
#endif

/* A profile with every precision the analysis may fall back to, launch
 * overhead and energy, so every branch of the timing code runs. */
#define FUZZ_HW                                                                                   \
    "{\"schema\":1,\"id\":\"fuzz\",\"name\":\"fuzz device\",\"category\":\"datacenter-gpu\","     \
    "\"launch_overhead_s\":{\"value\":1e-6},"                                                       \
    "\"compute\":{\"fp32\":{\"matrix\":{\"value\":1e12},\"vector\":{\"value\":1e11}},"             \
    "\"fp16\":{\"matrix\":{\"value\":4e12},\"vector\":{\"value\":2e11}}},"                         \
    "\"memory\":[{\"name\":\"DRAM\",\"bandwidth_Bps\":{\"value\":1e11}}],"                         \
    "\"energy\":{\"flop_j\":{\"value\":1e-12},\"byte_j\":{\"value\":1e-10},\"static_w\":{\"value\":10}}}"

static inline void fuzz_fail(const char *what, const char *json) {
    fprintf(stderr, "fuzz oracle failed: %s\n%.2000s\n", what, json ? json : "(null)");
    abort();
}

/* Every response passes tests/response_oracle.h: valid UTF-8, JSON with
 * "ok", an error with a code and a message (never "internal"), and an ok
 * answer's totals, SOL, layer and study figures finite and non-negative. */
static inline void fuzz_check_response(const char *json) {
    const char *bad = oracle_check(json);
    if (bad) fuzz_fail(bad, json);
}

/* A file of the source tree: under $ROOFLENS_SOURCE_DIR when set (a fuzz
 * bundle moved to another machine, tools/fuzz/fuzz.sh bundle), else under the
 * checkout the target was built from. */
static inline unsigned char *fuzz_read_file(const char *path, size_t *len);
static inline unsigned char *fuzz_read_source(const char *rel, size_t *len) {
    const char *root = getenv("ROOFLENS_SOURCE_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root && root[0] ? root : ROOFLENS_SOURCE_DIR, rel);
    unsigned char *b = fuzz_read_file(path, len);
    if (!b) fuzz_fail("cannot read a file of the source tree (set ROOFLENS_SOURCE_DIR)", path);
    return b;
}

/* A fixture model, read once (aborts when it does not read). */
static inline rl_model *fuzz_fixture_model(const char *rel) {
    size_t len;
    unsigned char *b = fuzz_read_source(rel, &len);
    char *err = NULL;
    rl_model *m = rl_model_read(b, len, NULL, &err);
    if (!m) fuzz_fail("fixture model does not read", err);
    free(b);
    return m;
}

static inline unsigned char *fuzz_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (len) *len = (size_t)n;
    return buf;
}

/* A NUL-terminated copy of the fuzz input (the API takes C strings). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    if (!s) abort();
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}
#endif
