/* Fuzz target: a request and a model together, as the page and the CLI send
 * them. Input layout: bytes 0-1 = the request's length L (little endian),
 * then L bytes of request JSON, then the model bytes. The pair goes through
 * rl_analyze (limits applied while reading) and, when the model reads with
 * the default limits, through rl_model_info and rl_model_analyze twice (the
 * same model must answer the same request the same way). Seeds
 * (make_seeds.py): the fixtures and the structural mutants of
 * tests/fuzz/mutate_onnx.py, each with requests of every option, dims and
 * study kind. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    size_t rlen = (size_t)data[0] | (size_t)data[1] << 8;
    if (rlen > size - 2) rlen = size - 2;
    char *req = fuzz_cstr(data + 2, rlen);
    const uint8_t *model = data + 2 + rlen;
    size_t mlen = size - 2 - rlen;
    char *out = rl_analyze(req, model, mlen);
    fuzz_check_response(out);
    rl_free(out);
    char *err = NULL;
    rl_model *m = rl_model_read(model, mlen, NULL, &err);
    if (!m) {
        fuzz_check_response(err);
        rl_free(err);
    } else {
        char *info = rl_model_info(m);
        fuzz_check_response(info);
        rl_free(info);
        char *a = rl_model_analyze(m, req), *b = rl_model_analyze(m, req);
        fuzz_check_response(a);
        if (strcmp(a, b) != 0) fuzz_fail("a second analysis of the same model and request differs", b);
        rl_free(a);
        rl_free(b);
        rl_model_free(m);
    }
    free(req);
    return 0;
}
