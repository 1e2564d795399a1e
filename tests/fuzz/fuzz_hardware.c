/* Fuzz target: the hardware-profile parser. The input is a profile; it is
 * checked with rl_check_hardware and, when accepted, used for a real
 * analysis (so odd figures — zero bandwidth, huge peaks, missing precisions
 * — meet the timing and energy code). */
#include "fuzz_common.h"

static rl_model *model;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    size_t len;
    unsigned char *b = fuzz_read_source("tests/fixtures/models/mlp.onnx", &len);
    if (!b) fuzz_fail("cannot read tests/fixtures/models/mlp.onnx", NULL);
    char *err = NULL;
    model = rl_model_read(b, len, NULL, &err);
    if (!model) fuzz_fail("fixture model does not read", err);
    free(b);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!model) LLVMFuzzerInitialize(NULL, NULL);
    char *profile = fuzz_cstr(data, size);
    char *out = rl_check_hardware(profile);
    fuzz_check_response(out);
    bool accepted = strstr(out, "\"ok\":true") != NULL;
    rl_free(out);
    if (accepted) {
        const char *pre = "{\"precision\":\"fp16\",\"hardware\":";
        size_t n = strlen(pre) + size + 2;
        char *req = malloc(n);
        if (!req) abort();
        snprintf(req, n, "%s%s}", pre, profile);
        out = rl_model_analyze(model, req);
        fuzz_check_response(out);
        rl_free(out);
        free(req);
    }
    free(profile);
    return 0;
}
