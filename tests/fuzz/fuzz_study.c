/* Fuzz target: the what-if studies. The input is a study object (the value
 * of the request's "study"); it runs on four fixture models (a symbolic one
 * whose unset dims repeat warnings, the MLP, control flow, the transformer
 * block) with the Jetson AGX Orin profile (power modes, energy), with and
 * without dims set, so the batch sweep, compare and power-mode code meet odd
 * batches, profiles, modes and slowdowns. */
#include "fuzz_common.h"

static const char *const models[] = {"tests/fixtures/models/symbolic.onnx", "tests/fixtures/models/mlp.onnx",
                                     "tests/fixtures/models/control_flow.onnx",
                                     "tests/fixtures/models/transformer_block.onnx"};
#define N_MODELS (sizeof models / sizeof *models)
static rl_model *loaded[N_MODELS];
static char *orin;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    for (size_t i = 0; i < N_MODELS; i++) loaded[i] = fuzz_fixture_model(models[i]);
    size_t len;
    orin = (char *)fuzz_read_source("hw/jetson-agx-orin.json", &len);
    orin[len] = 0;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!orin) LLVMFuzzerInitialize(NULL, NULL);
    char *study = fuzz_cstr(data, size);
    size_t cap = strlen(study) + strlen(orin) + 256;
    char *req = malloc(cap);
    if (!req) abort();
    for (size_t i = 0; i < N_MODELS; i++)
        for (int dims = 0; dims < 2; dims++) {
            snprintf(req, cap, "{\"hardware\": %s, \"layers\": false, %s\"study\": %s}", orin,
                     dims ? "\"dims\": {\"batch\": 2, \"seq\": 16, \"sequence_length\": 8}, " : "", study);
            char *out = rl_model_analyze(loaded[i], req);
            fuzz_check_response(out);
            rl_free(out);
        }
    free(req);
    free(study);
    return 0;
}
