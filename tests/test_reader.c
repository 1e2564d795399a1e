/* The streaming reader: the same model fed in chunks of every size, with and
 * without skipping payloads, gives the same analysis as one call; every
 * strict prefix of a model is an error, never a crash. */
#include <cjson/cJSON.h>

#include "check.h"
#include "internal.h"
#include "rooflens.h"

static const char *request =
    "{\"hardware\": {\"id\": \"t\", \"compute\": {\"fp32\": {\"matrix\": 1e12, \"vector\": 1e11}},"
    " \"memory\": [{\"bandwidth_Bps\": 1e11}]}, \"batch\": 4}";

static char *analyze_chunked(const unsigned char *data, size_t len, size_t chunk, int use_skip, unsigned seed) {
    rl_reader *r = rl_reader_new(NULL);
    size_t off = 0;
    uint64_t skipped = 0;
    while (off < len) {
        size_t n = chunk;
        if (chunk == 0) { /* random sizes 1..4096 */
            seed = seed * 1103515245u + 12345u;
            n = 1 + (seed >> 8) % 4096;
        }
        if (n > len - off) n = len - off;
        int64_t skip = rl_reader_feed(r, data + off, n);
        off += n;
        if (skip < 0) break;
        if (use_skip && skip > 0) {
            uint64_t s = (uint64_t)skip;
            if (s > len - off) s = len - off;
            rl_reader_skip(r, s);
            off += s;
            skipped += s;
        }
    }
    char *err = NULL;
    rl_model *m = rl_reader_finish(r, &err);
    rl_reader_free(r);
    if (!m) return err;
    char *out = rl_model_analyze(m, request);
    rl_model_free(m);
    return out;
}

static void same_result(const char *dir, const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/models/%s", dir, name);
    size_t len;
    unsigned char *data = (unsigned char *)check_read_file(path, &len);
    CHECK(data != NULL, "cannot read %s", path);
    if (!data) return;
    char *whole = rl_analyze(request, data, len);
    CHECK(strstr(whole, "\"ok\":true") != NULL, "%s: one-shot analysis failed: %.300s", name, whole);
    /* rooflens prints responses itself (rl_json_print); the text must be
     * exactly what cJSON would print for the same tree */
    cJSON *tree = cJSON_Parse(whole);
    char *again = tree ? cJSON_PrintUnformatted(tree) : NULL;
    CHECK(again && strcmp(again, whole) == 0, "%s: the response differs from cJSON's printing of it", name);
    free(again);
    cJSON_Delete(tree);
    static const size_t chunks[] = {1, 2, 3, 7, 64, 4096, 0};
    for (size_t i = 0; i < sizeof chunks / sizeof *chunks; i++)
        for (int skip = 0; skip < 2; skip++) {
            char *part = analyze_chunked(data, len, chunks[i], skip, (unsigned)(i * 7 + 1));
            CHECK(strcmp(part, whole) == 0, "%s: chunk %zu skip %d differs from one-shot", name, chunks[i], skip);
            rl_free(part);
        }
    rl_free(whole);
    /* every strict prefix must fail cleanly */
    size_t step = len > 3000 ? len / 1500 : 1;
    int prefix_ok = 0;
    for (size_t cut = 0; cut < len; cut += step) {
        char *out = rl_analyze(request, data, cut);
        if (strstr(out, "\"ok\":true")) prefix_ok++;
        rl_free(out);
    }
    CHECK(prefix_ok == 0, "%s: %d truncated prefixes were accepted as valid models", name, prefix_ok);
    free(data);
}

static void skip_reports_payloads(const char *dir) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/models/mlp.onnx", dir);
    size_t len;
    unsigned char *data = (unsigned char *)check_read_file(path, &len);
    if (!data) return;
    rl_reader *r = rl_reader_new(NULL);
    uint64_t total_skip = 0;
    size_t off = 0;
    while (off < len) {
        size_t n = len - off < 256 ? len - off : 256;
        int64_t s = rl_reader_feed(r, data + off, n);
        off += n;
        if (s > 0) {
            if ((uint64_t)s > len - off) s = (int64_t)(len - off);
            rl_reader_skip(r, (uint64_t)s);
            off += (size_t)s;
            total_skip += (uint64_t)s;
        }
    }
    /* mlp.onnx's weights: 64x128 + 128x10 floats ~ 37 KB; the reader never needs them */
    CHECK(total_skip > 30000, "only %llu payload bytes were skippable", (unsigned long long)total_skip);
    CHECK(rl_reader_offset(r) == len, "offset %llu != file size %zu", (unsigned long long)rl_reader_offset(r), len);
    char *err = NULL;
    rl_model *m = rl_reader_finish(r, &err);
    CHECK(m != NULL, "model after skipping: %s", err ? err : "");
    rl_free(err);
    rl_model_free(m);
    rl_reader_free(r);
    /* skipping more than allowed is an error, not a crash */
    r = rl_reader_new(NULL);
    CHECK(rl_reader_skip(r, 5) == -1, "skip without a payload must fail");
    rl_reader_free(r);
    free(data);
}

/* Numbers and strings where printers differ: signed zero, the 10^15 switch
 * to exponents, values needing 17 digits, control characters, quotes. */
static void printer_matches_cjson(void) {
    static const double nums[] = {0.0, -0.0, 1, -1, 2147483647.0, 2147483648.0, -2147483649.0,
                                  999999999999999.0, 1e15, -1e15, 1e16, 123456789012345678.0,
                                  0.1, 1.0 / 3, 2.0 / 3, 1e-300, 5e-324, 1.7976931348623157e308,
                                  4.2e-06, 1e21, 9007199254740993.0, -0.5, 3.0e-12};
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(nums[i]));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(0.0 / 0.0));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(1.0 / 0.0));
    cJSON_AddItemToArray(a, cJSON_CreateString("tab\there \"quoted\" back\\slash \x01\x1f\b\f\n\r caf\xc3\xa9 /"));
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "k\"ey", a);
    cJSON_AddNullToObject(o, "n");
    cJSON_AddTrueToObject(o, "t");
    cJSON_AddFalseToObject(o, "f");
    cJSON_AddItemToObject(o, "empty", cJSON_CreateObject());
    cJSON_AddItemToObject(o, "none", cJSON_CreateArray());
    char *mine = rl_json_print(o), *theirs = cJSON_PrintUnformatted(o);
    CHECK(mine && theirs && strcmp(mine, theirs) == 0, "rl_json_print: %s\ncJSON:         %s", mine, theirs);
    free(mine);
    free(theirs);
    cJSON_Delete(o);
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    same_result(dir, "mlp.onnx");
    same_result(dir, "transformer_block.onnx");
    same_result(dir, "control_flow.onnx");
    same_result(dir, "external_data.onnx");
    same_result(dir, "conv_net.onnx");
    same_result(dir, "symbolic.onnx");
    skip_reports_payloads(dir);
    printer_matches_cjson();
    return check_report("reader");
}
