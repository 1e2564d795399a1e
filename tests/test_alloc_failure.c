/* Out of memory at every allocation of an analysis (and of a diff), one at a time: the answer
 * must be the complete response or an out_of_memory error, never a response
 * that says "ok" with something missing or different (a silent wrong number).
 *
 * malloc is interposed for this executable (the core is linked in
 * statically): when armed, the k-th call fails. Sanitizer builds replace
 * malloc themselves, so there the test reports itself skipped. */
#define _GNU_SOURCE
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "check.h"
#include "rooflens.h"

#if defined(__SANITIZE_ADDRESS__)
#define ROOFLENS_NO_INTERPOSE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define ROOFLENS_NO_INTERPOSE 1
#endif
#endif

#ifndef ROOFLENS_NO_INTERPOSE
extern void *__libc_malloc(size_t n);
static long countdown = -1; /* -1: not armed; k: the k-th call from now fails */
static long calls;

void *malloc(size_t n) {
    calls++;
    if (countdown >= 0 && countdown-- == 0) return NULL;
    return __libc_malloc(n);
}

/* The entry under test: a single analysis, the diff of the model with
 * itself (two analyses, their comparison and the Markdown), or the
 * analysis written as it is made (rl_model_analyze_write: its pieces
 * gathered here without allocating; -1 when it was cut short, which must
 * then be said). */
static bool diff_mode, stream_mode;
static size_t answer_size; /* the last answer's bytes: past its text for packed or CSV layers */
static char streamed[1 << 22];
static size_t streamed_n;
static int stream_rc;
static bool stream_ok;

static int gather(void *ctx, const char *bytes, size_t n) {
    (void)ctx;
    if (streamed_n + n > sizeof streamed) return 1;
    memcpy(streamed + streamed_n, bytes, n);
    streamed_n += n;
    return 0;
}

static char *answer(rl_model *m, const char *req) {
    if (stream_mode) {
        streamed_n = 0;
        stream_rc = rl_model_analyze_write(m, req, gather, NULL, &stream_ok);
        char *out = __libc_malloc(streamed_n + 1); /* past the failing malloc */
        if (out) memcpy(out, streamed, streamed_n), out[streamed_n] = 0;
        answer_size = streamed_n;
        return out;
    }
    char *out = diff_mode ? rl_models_diff(m, m, req) : rl_model_analyze_sized(m, req, &answer_size);
    if (out && (diff_mode || answer_size < strlen(out))) answer_size = strlen(out);
    return out;
}

static char *analyze_failing_at(rl_model *m, const char *req, long k) {
    countdown = k;
    char *out = answer(m, req);
    countdown = -1;
    return out;
}

static void run(const char *tests_dir, const char *model_file, const char *hw_file, const char *extra) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/models/%s", tests_dir, model_file);
    size_t len = 0;
    char *bytes = check_read_file(path, &len);
    snprintf(path, sizeof path, "%s/%s", tests_dir, hw_file);
    char *hw = check_read_file(path, NULL);
    CHECK(bytes && hw, "cannot read %s or the profile", model_file);
    if (!bytes || !hw) return;
    char *err = NULL;
    rl_model *m = rl_model_read(bytes, len, NULL, &err);
    CHECK(m != NULL, "%s: %s", model_file, err ? err : "");
    rl_free(err);
    if (!m) return;
    size_t rl = strlen(hw) + strlen(extra) + 64;
    char *req = malloc(rl);
    snprintf(req, rl, "{\"hardware\": %s%s}", hw, extra);

    long before = calls;
    char *want = answer(m, req);
    size_t want_size = answer_size;
    long total = calls - before;
    CHECK(want && strstr(want, "\"ok\":true"), "%s: reference analysis failed", model_file);

    /* Every allocation for small runs; a spread of them for larger ones. */
    long step = total > 3000 ? total / 3000 : 1;
    int complete = 0, oom = 0, wrong = 0, null = 0, cut = 0;
    for (long k = 0; k < total; k += step) {
        char *got = analyze_failing_at(m, req, k);
        bool said = !stream_mode || stream_ok == (answer_size == want_size && got && !memcmp(got, want, want_size));
        if (!got) null++;
        else if (stream_mode && stream_rc) cut++; /* out of memory after the first piece: -1 says so */
        else if (!said) wrong++;
        else if (answer_size == want_size && memcmp(got, want, want_size) == 0) complete++;
        else if (strstr(got, "\"ok\":false") && strstr(got, "\"out_of_memory\"")) oom++;
        else {
            if (wrong++ < 3) {
                size_t at = 0;
                while (got[at] && got[at] == want[at]) at++;
                fprintf(stderr, "%s: allocation %ld failed, the answer differs at byte %zu: ...%.160s\n  want ...%.160s\n",
                        model_file, k, at, got + (at > 60 ? at - 60 : 0), want + (at > 60 ? at - 60 : 0));
            }
        }
        rl_free(got);
    }
    printf("%s: %ld allocations per analysis, %ld tried: %d complete, %d out_of_memory, %d cut short and said so, %d wrong, "
           "%d NULL\n",
           model_file, total, (total + step - 1) / step, complete, oom, cut, wrong, null);
    CHECK(wrong == 0, "%s: %d answers were ok-looking but different after a failed allocation", model_file, wrong);
    CHECK(null == 0, "%s: %d answers were NULL (the header promises JSON)", model_file, null);
    CHECK(oom > 0, "%s: no failed allocation was reported (is malloc interposed?)", model_file);
    rl_free(want);
    free(req);
    rl_model_free(m);
    free(bytes);
    free(hw);
}
#endif

int main(int argc, char **argv) {
#ifdef ROOFLENS_NO_INTERPOSE
    (void)argc, (void)argv;
    printf("alloc_failure: skipped under a sanitizer (it replaces malloc)\n");
    return 77;
#else
    const char *tests_dir = argc > 1 ? argv[1] : "tests";
    run(tests_dir, "mlp.onnx", "hw/unit.json", "");
    run(tests_dir, "transformer_block.onnx", "hw/unit.json", "");
    /* the page's layout: the layer columns appended to the printed answer */
    run(tests_dir, "transformer_block.onnx", "hw/unit.json", ", \"layers\": \"columns\"");
    /* the packed doubles and the CSV after the text: compared to the last byte */
    run(tests_dir, "transformer_block.onnx", "hw/unit.json", ", \"layers\": \"packed\", \"layer_io\": false");
    run(tests_dir, "transformer_block.onnx", "hw/unit.json", ", \"layers\": \"csv\"");
    run(tests_dir, "mlp.onnx", "hw/unit.json", ", \"layers\": \"csv\", \"csv\": {\"rows\": [3, 1], \"filter\": \"op\"}");
    /* a study re-infers the graph per batch: its own allocations */
    run(tests_dir, "mlp.onnx", "hw/unit.json", ", \"study\": {\"kind\": \"batch_sweep\", \"batches\": [1, 4, 64]}");
    /* measured profiles: the importers, the matching and the measured section */
    run(tests_dir, "mlp.onnx", "hw/unit.json",
        ", \"measured\": {\"text\": \"name,time_s\\nfc1,1e-3\\nrelu1,1e-4\\nfc2,2e-3\\nfc1,3e-3\\n"
        "relu1,2e-4\\nfc2,1e-3\\nother,1e-5\\nother,1e-5\\n\"}");
    run(tests_dir, "mlp.onnx", "hw/unit.json",
        ", \"measured\": {\"format\": \"ort\", \"text\": \"["
        "{\\\"cat\\\": \\\"Session\\\", \\\"ph\\\": \\\"X\\\", \\\"name\\\": \\\"model_run\\\", \\\"ts\\\": 0, \\\"dur\\\": 100},"
        "{\\\"cat\\\": \\\"Session\\\", \\\"ph\\\": \\\"X\\\", \\\"name\\\": \\\"model_run\\\", \\\"ts\\\": 200, \\\"dur\\\": 100},"
        "{\\\"cat\\\": \\\"Node\\\", \\\"ph\\\": \\\"X\\\", \\\"name\\\": \\\"fc1_kernel_time\\\", \\\"ts\\\": 10, \\\"dur\\\": 5,"
        " \\\"args\\\": {\\\"op_name\\\": \\\"Gemm\\\", \\\"output_type_shape\\\": [{\\\"float\\\": [1, 128]}]}},"
        "{\\\"cat\\\": \\\"Node\\\", \\\"ph\\\": \\\"X\\\", \\\"name\\\": \\\"fc1_kernel_time\\\", \\\"ts\\\": 210, \\\"dur\\\": 4,"
        " \\\"args\\\": {\\\"op_name\\\": \\\"Gemm\\\"}},"
        "{\\\"cat\\\": \\\"Node\\\", \\\"ph\\\": \\\"X\\\", \\\"name\\\": \\\"fused_kernel_time\\\", \\\"ts\\\": 220, \\\"dur\\\": 4,"
        " \\\"args\\\": {\\\"op_name\\\": \\\"Gemm\\\"}}]\"}");
    /* trtexec ranges ({ForeignNode[A...B]} over the whole block, 40 rows
     * that overlap, and a node inside them): a failed allocation while they
     * are matched is out_of_memory, never a kernel silently left unmatched
     * (40 rows: enough that matching them once needed new arena blocks) */
    {
        static char extra[16384];
        int n = snprintf(extra, sizeof extra, ", \"measured\": {\"format\": \"trtexec\", \"text\": \"[{\\\"count\\\": 5}");
        for (int i = 0; i < 40; i++)
            n += snprintf(extra + n, sizeof extra - (size_t)n,
                          ",{\\\"name\\\": \\\"{ForeignNode[%s.../output.LayerNorm/Add_1]}\\\", \\\"averageMs\\\": %d}",
                          i % 2 ? "/embeddings/Shape" : "/embeddings/word_embeddings/Gather", i + 1);
        snprintf(extra + n, sizeof extra - (size_t)n,
                 ",{\\\"name\\\": \\\"/embeddings/Gather\\\", \\\"averageMs\\\": 3}]\"}");
        run(tests_dir, "transformer_block.onnx", "hw/unit.json", extra);
    }
    /* the answer written as it is made: the rows streamed, the CSV streamed */
    stream_mode = true;
    run(tests_dir, "transformer_block.onnx", "hw/unit.json", "");
    run(tests_dir, "transformer_block.onnx", "hw/unit.json", ", \"layers\": \"csv\"");
    stream_mode = false;
    /* a diff: two analyses, the matching, the gate and the Markdown */
    diff_mode = true;
    run(tests_dir, "diff_new.onnx", "hw/unit.json",
        ", \"diff\": {\"markdown\": true, \"fail_if\": \"time>+5%,unsupported>0\"}");
    return check_report("alloc_failure");
#endif
}
