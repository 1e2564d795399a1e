/* GGUF files (llama.cpp's format) read into the same model, analysis and
 * LLM view as an ONNX file. The files are written at test time by
 * tests/make_gguf.py --suite (argv[3]) from the published format, with the
 * figures it works out independently (expected.json); its --hostile set is
 * argv[4]. Checks:
 *  - the weight bytes are the sum of the file's tensor sizes, to the byte,
 *    and the parameters the sum of their elements (every ggml type: the
 *    "types" file holds one tensor of each);
 *  - KV cache bytes per token = 2 · blocks · KV heads · head dim · 2 (fp16),
 *    and the model's positions are its context_length;
 *  - MoE: the experts and the top k found, parameters counting every expert;
 *  - the same file fed in small chunks, or with the data skipped as a seeking
 *    caller does, gives the same answer;
 *  - the same decoder as ONNX Runtime GenAI's int4 export (the llm_models
 *    fixture's tiny_genai.onnx) and as GGUF Q4_0: the same FLOPs per token,
 *    and weight bytes that differ by the norms' and rotary tables' layout only;
 *  - a Hugging Face config.json alone (a model not downloaded): the same
 *    decoder, every tensor in its torch_dtype, parameters and bytes as
 *    worked out by hand, and its errors;
 *  - llama.cpp's KV cache types f16, q8_0 and q4_0 (llm.kv_type), each
 *    with its scales;
 *  - every hostile file gives its error, never a model. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "check.h"
#include "check_model.h"
#include "rooflens.h"

static const char *tests_dir, *root_dir, *models_dir, *hostile_dir, *llm_dir;

/* The file fed in chunks of `chunk` bytes; with `seek`, the bytes the
 * reader offers to skip are jumped over with fseeko, as the CLI does. */
static rl_model *read_streamed(const char *path, size_t chunk, bool seek, char **err) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseeko(f, 0, SEEK_END);
    off_t size = ftello(f);
    fseeko(f, 0, SEEK_SET);
    rl_reader *r = rl_reader_new(NULL);
    uint8_t buf[65536];
    size_t n;
    if (chunk > sizeof buf) chunk = sizeof buf;
    while ((n = fread(buf, 1, chunk, f)) > 0) {
        int64_t skip = rl_reader_feed(r, buf, n);
        if (skip < 0) break;
        /* as the CLI and the page do: never past the file's end */
        off_t pos = ftello(f);
        if (seek && skip > size - pos) skip = size - pos;
        if (seek && skip > 0 && fseeko(f, skip, SEEK_CUR) == 0) rl_reader_skip(r, (uint64_t)skip);
    }
    fclose(f);
    rl_model *m = rl_reader_finish(r, err);
    rl_reader_free(r);
    return m;
}

static cJSON *llm_request(const char *llm_json) {
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "hardware", check_read_hw(tests_dir, root_dir, "h100-sxm"));
    cJSON_AddFalseToObject(r, "layers");
    cJSON_AddStringToObject(r, "precision", "fp16");
    cJSON_AddItemToObject(r, "llm", cJSON_Parse(llm_json));
    return r;
}

static cJSON *run(rl_model *m, const char *llm_json, const char *what) {
    cJSON *res = check_analyze(m, llm_request(llm_json));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "ok")), "%s: analysis failed: %s", what,
          check_str(res, "error.message"));
    return res;
}

static const char figures_request[] = "{\"prompt\": 64, \"generate\": 8, \"batches\": [1], \"contexts\": [128]}";

/* The file at `path` read in chunks of `chunk` bytes (seeking over what the
 * reader skips, or not) and analysed: its weight bytes, parameters and KV
 * bytes per token are exp's, worked out by tests/make_gguf.py by hand.
 * Returns the answer (NULL when not read) and the model in *model. */
static cJSON *read_and_check(const char *path, const char *what, const cJSON *exp, size_t chunk, bool seek,
                             rl_model **model) {
    char *err = NULL;
    rl_model *m = read_streamed(path, chunk, seek, &err);
    CHECK(m != NULL, "%s (%zu-byte chunks): not read: %s", what, chunk, err ? err : "");
    rl_free(err);
    *model = m;
    if (!m) return NULL;
    cJSON *res = run(m, figures_request, what);
    static const char *const figures[][2] = {{"model.weight_bytes", "weight_bytes"},
                                             {"model.params", "parameters"},
                                             {"llm.kv_cache_bytes_per_token", "kv_bytes_per_token"},
                                             {"llm.weight_bytes", "weight_bytes"}};
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++)
        CHECK(check_num(res, figures[i][0]) == check_num(exp, figures[i][1]), "%s (%zu-byte chunks): %s %.0f, by hand %.0f",
              what, chunk, figures[i][0], check_num(res, figures[i][0]), check_num(exp, figures[i][1]));
    return res;
}

static void check_model(const char *name, const cJSON *exp) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.gguf", models_dir, name);
    rl_model *m, *m2;
    cJSON *res = read_and_check(path, name, exp, 65536, true, &m);
    if (!res) return;
    double experts = check_num(exp, "experts");
    if (experts > 0) {
        CHECK(check_num(res, "llm.moe.experts") == experts, "%s: experts %.0f", name, check_num(res, "llm.moe.experts"));
        CHECK(check_num(res, "llm.moe.top_k") == check_num(exp, "top_k"), "%s: top k", name);
    }
    double flops = check_num(res, "llm.prefill.flops");
    CHECK(flops > 0 && isfinite(flops), "%s: prefill FLOPs %g", name, flops);
    /* chunks of 7 bytes cross every field's border; no seeking reads the data too */
    cJSON *res2 = read_and_check(path, name, exp, 7, false, &m2);
    CHECK(!res2 || check_num(res2, "llm.prefill.flops") == flops, "%s: chunked read differs", name);
    cJSON_Delete(res2);
    rl_model_free(m2);
    cJSON_Delete(res);
    rl_model_free(m);
}

/* Each architecture's config.json alone: the tensors its checkpoint would
 * hold, in bfloat16, with the figures tests/make_gguf.py works out. */
static void test_configs(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/expected_config.json", models_dir);
    cJSON *exp = check_read_json(path);
    const cJSON *e;
    int n = 0;
    cJSON_ArrayForEach(e, exp) {
        snprintf(path, sizeof path, "%s/%s.config.json", models_dir, e->string);
        rl_model *m;
        cJSON *res = read_and_check(path, e->string, e, 100, false, &m);
        if (!res) continue;
        CHECK(strstr(check_str(res, "model.producer"), "no weights read") != NULL, "%s.config.json: producer '%s'",
              e->string, check_str(res, "model.producer"));
        CHECK(strstr(check_str(res, "model.name"), "no weights read: sized at bfloat16") != NULL, "%s.config.json: name '%s'",
              e->string, check_str(res, "model.name"));
        cJSON_Delete(res);
        rl_model_free(m);
        n++;
    }
    CHECK(n >= 9, "%d configs read", n);
    cJSON_Delete(exp);
    static const char *const bad[][2] = {
        {"{\"model_type\": \"rwkv6\"}", "unsupported_architecture"},
        {"{\"model_type\": \"llama\", \"torch_dtype\": \"bfloat16\"}", "bad_config"},
        {"{\"model_type\": \"llama\", \"quantization_config\": {}}", "unsupported_config"},
        {"{\"model_type\": \"llama\"", "bad_config"},
        {"{\"model_type\": \"llama\", \"torch_dtype\": \"bfloat16\", \"num_hidden_layers\": 2, \"hidden_size\": 64, "
         "\"num_attention_heads\": 4, \"num_key_value_heads\": 3, \"vocab_size\": 8, \"max_position_embeddings\": 8, "
         "\"intermediate_size\": 8}", "bad_config"},
        /* no head_dim, and hidden_size / num_attention_heads is 0 */
        {"{\"model_type\": \"llama\", \"torch_dtype\": \"bfloat16\", \"num_hidden_layers\": 2, \"hidden_size\": 2, "
         "\"num_attention_heads\": 4, \"vocab_size\": 8, \"max_position_embeddings\": 8, \"intermediate_size\": 8}",
         "bad_config"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *err = NULL;
        rl_model *m = rl_model_read(bad[i][0], strlen(bad[i][0]), NULL, &err);
        cJSON *j = err ? cJSON_Parse(err) : NULL;
        CHECK(!m && strcmp(check_str(j, "error.code"), bad[i][1]) == 0, "config %zu: %s (%s), want %s", i,
              check_str(j, "error.code"), check_str(j, "error.message"), bad[i][1]);
        cJSON_Delete(j);
        rl_free(err);
        rl_model_free(m);
    }
}

static void test_suite(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/expected.json", models_dir);
    cJSON *exp = check_read_json(path);
    const cJSON *e;
    int n = 0;
    cJSON_ArrayForEach(e, exp) {
        check_model(e->string, e);
        n++;
    }
    CHECK(n >= 10, "only %d files in the suite", n);
    cJSON_Delete(exp);
}

/* The tiny decoder as ONNX Runtime GenAI's int4 export and as GGUF Q4_0. */
static void test_same_as_onnx(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/tiny_genai.onnx", llm_dir);
    rl_model *onnx = check_read_model(path);
    snprintf(path, sizeof path, "%s/tiny_q4_0.gguf", models_dir);
    char *err = NULL;
    rl_model *gguf = read_streamed(path, 65536, true, &err);
    CHECK(gguf != NULL, "tiny_q4_0.gguf: %s", err ? err : "");
    rl_free(err);
    if (!onnx || !gguf) return;
    const char *req = "{\"prompt\": 32, \"generate\": 4, \"batches\": [1], \"contexts\": [64]}";
    cJSON *a = run(onnx, req, "tiny_genai.onnx"), *b = run(gguf, req, "tiny_q4_0.gguf");
    CHECK(check_num(a, "llm.prefill.flops") == check_num(b, "llm.prefill.flops"), "prefill FLOPs: ONNX %.0f, GGUF %.0f",
          check_num(a, "llm.prefill.flops"), check_num(b, "llm.prefill.flops"));
    CHECK(check_num(a, "llm.prefill.matrix_flops") == check_num(b, "llm.prefill.matrix_flops"),
          "prefill matrix FLOPs: ONNX %.0f, GGUF %.0f", check_num(a, "llm.prefill.matrix_flops"),
          check_num(b, "llm.prefill.matrix_flops"));
    /* The weights differ only by layout: GenAI stores the 5 norms in fp16,
     * the rotary tables (2 · 128 positions · 8 · fp16) and the mask's and
     * router's int64 constants (4 of them, 32 bytes); llama.cpp keeps the
     * norms in f32 and computes the rotation and the shapes. The projections
     * are byte for byte the same: Q4_0's 18 bytes a block of 32 are
     * MatMulNBits' 16 bytes of codes and its fp16 scale. */
    double norms = 5 * 64, tables = 2 * 128 * 8 * 2, consts = 32;
    CHECK(check_num(a, "model.weight_bytes") - check_num(b, "model.weight_bytes") == tables + consts - norms * 2,
          "weight bytes: ONNX %.0f, GGUF %.0f", check_num(a, "model.weight_bytes"), check_num(b, "model.weight_bytes"));
    printf("same decoder: prefill %.0f FLOPs both; weights ONNX int4 %.0f B, GGUF Q4_0 %.0f B\n",
           check_num(a, "llm.prefill.flops"), check_num(a, "model.weight_bytes"), check_num(b, "model.weight_bytes"));
    cJSON_Delete(a);
    cJSON_Delete(b);
    rl_model_free(onnx);
    rl_model_free(gguf);
}

/* llama.cpp's KV cache types: q8_0 and q4_0 carry an fp16 scale per 32
 * elements (34 and 18 bytes a block against f16's 64). */
static void test_kv_types(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/llama.gguf", models_dir);
    char *err = NULL;
    rl_model *m = read_streamed(path, 65536, true, &err);
    rl_free(err);
    if (!m) return;
    const double f16 = 2 * 2 * 2 * 64 * 2; /* 2 blocks, 2 KV heads of 64 */
    static const struct {
        const char *type;
        double bytes_per_32;
    } types[] = {{"f16", 64}, {"q8_0", 34}, {"q4_0", 18}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        char llm[160];
        snprintf(llm, sizeof llm, "{\"prompt\": 64, \"generate\": 8, \"batches\": [1], \"contexts\": [128], \"kv_type\": \"%s\"}",
                 types[i].type);
        cJSON *res = run(m, llm, types[i].type);
        CHECK(check_num(res, "llm.kv_cache_bytes_per_token") == f16 * types[i].bytes_per_32 / 64,
              "kv_type %s: %.2f bytes per token, want %.2f", types[i].type, check_num(res, "llm.kv_cache_bytes_per_token"),
              f16 * types[i].bytes_per_32 / 64);
        CHECK(strcmp(check_str(res, "llm.quantization.kv_type"), types[i].type) == 0, "kv_type %s reported", types[i].type);
        cJSON_Delete(res);
    }
    static const char *const bad[] = {"{\"kv_type\": \"q5_1\"}", "{\"kv_type\": 8}", "{\"kv_type\": \"q8_0\", \"kv_bits\": 8}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *res = check_analyze(m, llm_request(bad[i]));
        CHECK(strcmp(check_str(res, "error.code"), "bad_request") == 0, "%s: %s", bad[i], check_str(res, "error.code"));
        cJSON_Delete(res);
    }
    rl_model_free(m);
}

static rl_model *read_suite_model(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.gguf", models_dir, name);
    char *err = NULL;
    rl_model *m = read_streamed(path, 65536, true, &err);
    CHECK(m != NULL, "%s: not read: %s", name, err ? err : "");
    rl_free(err);
    return m;
}

static bool near(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)); }

/* gemma3's local layers keep only their window (1,024 tokens) in the KV
 * cache and attend to it alone; the same model with a window of 8,192 (no
 * context here reaches it) attends to every token. By hand: 6 blocks, 5 of
 * them local, 1 KV head of 64, so 2 · 64 · 2 = 256 bytes per token a block. */
static void test_sliding_window(void) {
    rl_model *narrow = read_suite_model("gemma3"), *wide = read_suite_model("gemma3_wide");
    if (!narrow || !wide) return;
    const double P = 2000, G = 8, W = 1024, H = 4, hd = 64, per_block = 2 * 1 * hd * 2, local = 5;
    const char *req = "{\"prompt\": 2000, \"generate\": 8, \"batches\": [1], \"contexts\": [4096]}";
    cJSON *a = run(narrow, req, "gemma3"), *b = run(wide, req, "gemma3_wide");
    CHECK(check_num(a, "llm.kv_cache_bytes_per_token") == 6 * per_block, "KV per token within the window %.0f",
          check_num(a, "llm.kv_cache_bytes_per_token"));
    CHECK(check_num(a, "llm.kv_cache_bytes") == per_block * (P + G + local * W), "windowed KV cache %.0f, by hand %.0f",
          check_num(a, "llm.kv_cache_bytes"), per_block * (P + G + local * W));
    CHECK(check_num(b, "llm.kv_cache_bytes") == 6 * per_block * (P + G), "unwindowed KV cache %.0f",
          check_num(b, "llm.kv_cache_bytes"));
    CHECK(check_num(a, "llm.kv_cache_windows.0.tokens") == W && check_num(a, "llm.kv_cache_windows.0.caches") == 2 * local &&
              check_num(a, "llm.kv_cache_windows.0.bytes_per_token") == local * per_block,
          "the window: %.0f tokens, %.0f caches", check_num(a, "llm.kv_cache_windows.0.tokens"),
          check_num(a, "llm.kv_cache_windows.0.caches"));
    /* the attention of a local layer: each query against at most W keys
     * (2 · 2 · hd matrix and 6 vector FLOPs a score, per head) */
    const double per_score = 4 * hd + 6;
    double prefill = local * H * P * (P - W) * per_score;
    CHECK(near(check_num(b, "llm.prefill.flops") - check_num(a, "llm.prefill.flops"), prefill),
          "prefill FLOPs saved by the window %.0f, by hand %.0f",
          check_num(b, "llm.prefill.flops") - check_num(a, "llm.prefill.flops"), prefill);
    /* decode steps at past p = P .. P + G - 1 see p + 1 keys, the local layers W */
    double decode = local * H * (P + (G + 1) / 2 - W) * per_score;
    CHECK(near(check_num(b, "llm.decode.flops_per_token") - check_num(a, "llm.decode.flops_per_token"), decode),
          "decode FLOPs per token saved %.0f, by hand %.0f",
          check_num(b, "llm.decode.flops_per_token") - check_num(a, "llm.decode.flops_per_token"), decode);
    /* the longest context: the one full-attention block's cache grows, the local ones stay at W */
    double room = check_num(a, "llm.device_memory_bytes") - check_num(a, "llm.weight_bytes") -
                  check_num(a, "llm.activation_bytes") - local * per_block * W;
    double want = floor(room / per_block);
    CHECK(fabs(check_num(a, "llm.max_context_memory") - want) <= 1, "longest context by memory %.0f, by hand %.0f",
          check_num(a, "llm.max_context_memory"), want);
    cJSON_Delete(a);
    cJSON_Delete(b);
    rl_model_free(narrow);
    rl_model_free(wide);
    /* gpt-oss: blocks 0 and 2 of 4 attend through 128 tokens; 2 KV heads of 64 */
    rl_model *oss = read_suite_model("gpt_oss");
    if (oss) {
        cJSON *o = run(oss, req, "gpt_oss");
        const double block = 2 * 2 * 64 * 2;
        CHECK(check_num(o, "llm.kv_cache_bytes") == block * (2 * (P + G) + 2 * 128), "gpt-oss KV cache %.0f, by hand %.0f",
              check_num(o, "llm.kv_cache_bytes"), block * (2 * (P + G) + 2 * 128));
        cJSON_Delete(o);
        rl_model_free(oss);
    }
    /* Mistral 7B v0.1's config: a window on every layer, so the cache stops growing */
    static const char mistral[] =
        "{\"model_type\": \"mistral\", \"num_hidden_layers\": 2, \"hidden_size\": 64, \"num_attention_heads\": 4, "
        "\"num_key_value_heads\": 2, \"vocab_size\": 32, \"max_position_embeddings\": 512, \"intermediate_size\": 128, "
        "\"torch_dtype\": \"bfloat16\", \"sliding_window\": 64}";
    char *err = NULL;
    rl_model *m = rl_model_read(mistral, strlen(mistral), NULL, &err);
    CHECK(m != NULL, "mistral config: %s", err ? err : "");
    rl_free(err);
    if (!m) return;
    cJSON *c = run(m, "{\"prompt\": 100, \"generate\": 4, \"batches\": [1], \"contexts\": [128]}", "mistral");
    /* 2 layers · K and V · 2 KV heads · 16 · 2 bytes, at most 64 tokens */
    CHECK(check_num(c, "llm.kv_cache_bytes") == 2 * 2 * 2 * 16 * 2 * 64.0, "mistral KV cache %.0f",
          check_num(c, "llm.kv_cache_bytes"));
    CHECK(check_num(c, "llm.max_context") == 512 && strcmp(check_str(c, "llm.max_context_limit"), "positions") == 0,
          "mistral longest context %.0f (%s)", check_num(c, "llm.max_context"), check_str(c, "llm.max_context_limit"));
    cJSON_Delete(c);
    rl_model_free(m);
}

static void hostile(const char *name, const char *code) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.gguf", hostile_dir, name);
    for (int seek = 0; seek < 2; seek++) {
        char *err = NULL;
        rl_model *m = read_streamed(path, seek ? 65536 : 5, seek, &err);
        CHECK(m == NULL, "%s: read as a model", name);
        cJSON *j = err ? cJSON_Parse(err) : NULL;
        CHECK(strcmp(check_str(j, "error.code"), code) == 0, "%s: error %s (%s), want %s", name,
              check_str(j, "error.code"), check_str(j, "error.message"), code);
        cJSON_Delete(j);
        rl_free(err);
        rl_model_free(m);
    }
}

static void test_hostile(void) {
    hostile("truncated_header", "truncated");
    hostile("truncated_data", "truncated");
    hostile("version1", "bad_gguf");
    hostile("version_big_endian", "bad_gguf");
    hostile("huge_tensor_count", "bad_gguf");
    hostile("huge_kv_count", "bad_gguf");
    hostile("huge_key_length", "bad_gguf");
    hostile("huge_array", "bad_gguf");
    hostile("nested_array", "bad_gguf");
    hostile("bad_value_type", "bad_gguf");
    hostile("misplaced_offset", "bad_gguf");
    hostile("unknown_type", "unsupported_type");
    hostile("removed_type", "bad_gguf");
    hostile("row_not_blocks", "bad_gguf");
    hostile("zero_dim", "bad_gguf");
    hostile("dims_overflow", "bad_gguf");
    hostile("five_dims", "bad_gguf");
    hostile("bad_alignment", "bad_gguf");
    hostile("duplicate_key", "bad_gguf");
    hostile("no_architecture", "bad_gguf");
    hostile("no_block_count", "bad_gguf");
    hostile("unknown_architecture", "unsupported_architecture");
    hostile("missing_tensor", "bad_gguf");
    hostile("no_head_dim", "bad_gguf");
    hostile("deepseek2_legacy", "unsupported_architecture");
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: test_gguf TESTS_DIR ROOT_DIR GGUF_DIR HOSTILE_DIR LLM_MODELS_DIR\n");
        return 2;
    }
    tests_dir = argv[1], root_dir = argv[2], models_dir = argv[3], hostile_dir = argv[4], llm_dir = argv[5];
    test_suite();
    test_same_as_onnx();
    test_configs();
    test_kv_types();
    test_sliding_window();
    test_hostile();
    return check_report("test_gguf");
}
