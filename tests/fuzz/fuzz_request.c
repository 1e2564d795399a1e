/* Fuzz target: the JSON request parser. The input is the request text; it
 * is applied to a fixed small model (rl_model_analyze) and, through
 * rl_analyze, to the bytes of a second one, so the "limits" object is parsed
 * too. */
#include "fuzz_common.h"

static rl_model *model;
static unsigned char *model2;
static size_t model2_len;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    size_t len;
    unsigned char *b = fuzz_read_source("tests/fixtures/models/symbolic.onnx", &len);
    if (!b) fuzz_fail("cannot read tests/fixtures/models/symbolic.onnx", NULL);
    char *err = NULL;
    model = rl_model_read(b, len, NULL, &err);
    if (!model) fuzz_fail("fixture model does not read", err);
    free(b);
    model2 = fuzz_read_source("tests/fixtures/models/control_flow.onnx", &model2_len);
    if (!model2) fuzz_fail("cannot read tests/fixtures/models/control_flow.onnx", NULL);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!model) LLVMFuzzerInitialize(NULL, NULL);
    char *req = fuzz_cstr(data, size);
    char *out = rl_model_analyze(model, req);
    fuzz_check_response(out);
    rl_free(out);
    out = rl_analyze(req, model2, model2_len);
    fuzz_check_response(out);
    rl_free(out);
    free(req);
    return 0;
}
