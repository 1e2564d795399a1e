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

/* Every response is JSON with "ok"; an error carries code, message, where. */
static inline void fuzz_check_response(const char *json) {
    if (!json) fuzz_fail("NULL response", json);
    cJSON *o = cJSON_Parse(json);
    if (!o) fuzz_fail("response is not JSON", json);
    const cJSON *ok = cJSON_GetObjectItemCaseSensitive(o, "ok");
    if (!cJSON_IsBool(ok)) fuzz_fail("response has no boolean ok", json);
    if (cJSON_IsFalse(ok)) {
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "error");
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(e, "code");
        const cJSON *msg = cJSON_GetObjectItemCaseSensitive(e, "message");
        if (!cJSON_IsString(code) || !code->valuestring[0] || !cJSON_IsString(msg) ||
            !msg->valuestring[0])
            fuzz_fail("error without code or message", json);
        if (strcmp(code->valuestring, "internal") == 0) fuzz_fail("internal error", json);
    }
    cJSON_Delete(o);
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
