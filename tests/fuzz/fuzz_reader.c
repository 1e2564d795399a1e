/* Fuzz target: the streaming ONNX reader, fed in chunks whose sizes come
 * from the input itself, then the analysis of whatever it accepted.
 *
 * Input layout: byte 0 = flags (bit 0: skip payloads the reader offers to
 * skip; bit 1: also run rl_model_info), bytes 1..4 = four chunk sizes used
 * in turn (0 means "the rest"), then the model bytes. The chunked result is
 * compared with a one-shot read of the same bytes: the reader must not depend
 * on where chunk borders fall. */
#include "fuzz_common.h"

static const char *const request = "{\"hardware\":" FUZZ_HW ",\"batch\":2,\"mode\":\"training\"}";

static char *read_chunked(const uint8_t *model, size_t len, const uint8_t sizes[4], int use_skip,
                          int info) {
    rl_reader *r = rl_reader_new(NULL);
    if (!r) abort();
    size_t off = 0;
    int k = 0;
    while (off < len) {
        size_t n = sizes[k++ & 3];
        if (n == 0 || n > len - off) n = len - off;
        int64_t skip = rl_reader_feed(r, model + off, n);
        off += n;
        if (skip < 0) break;
        if (use_skip && skip > 0) {
            uint64_t s = (uint64_t)skip;
            if (s > len - off) s = len - off;
            /* -1 here is the model's fault (the skipped bytes close a bad
             * message); the error must match the one-shot read's */
            if (rl_reader_skip(r, s) != 0) break;
            off += (size_t)s;
        }
    }
    char *err = NULL;
    rl_model *m = rl_reader_finish(r, &err);
    rl_reader_free(r);
    if (!m) return err;
    if (info) {
        char *i = rl_model_info(m);
        fuzz_check_response(i);
        rl_free(i);
    }
    char *out = rl_model_analyze(m, request);
    /* a model is reusable: a second analysis gives the same answer */
    char *again = rl_model_analyze(m, request);
    if (strcmp(out, again) != 0) fuzz_fail("second analysis of the same model differs", again);
    rl_free(again);
    rl_model_free(m);
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 5) return 0;
    uint8_t flags = data[0];
    const uint8_t *sizes = data + 1;
    const uint8_t *model = data + 5;
    size_t len = size - 5;
    char *chunked = read_chunked(model, len, sizes, flags & 1, flags & 2);
    fuzz_check_response(chunked);
    static const uint8_t whole[4] = {0, 0, 0, 0};
    char *oneshot = read_chunked(model, len, whole, 0, 0);
    if (strcmp(chunked, oneshot) != 0) {
        fprintf(stderr, "one-shot: %.2000s\n", oneshot);
        fuzz_fail("chunked read differs from one-shot read", chunked);
    }
    rl_free(oneshot);
    rl_free(chunked);
    return 0;
}
