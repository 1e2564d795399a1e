/* Hugging Face checkpoints (config.json + .safetensors shards + index) read
 * into the same decoder, analysis and LLM view as a GGUF file. The
 * checkpoints are written at test time by tests/make_safetensors.py
 * --suite (argv[3]) from the published format, with the figures it works
 * out from the headers it wrote (expected.json); its --hostile set is
 * argv[4]. Every folder is read as the CLI and the page read one: for each
 * file its first 8 bytes, then the count rl_checkpoint_need asks for.
 * Checks:
 *  - the weight bytes are the sum of every header's tensor sizes, to the
 *    byte, and the parameters the real elements (a GPTQ weight's 8 codes
 *    per int32 word; its scales, zeros and indexes none; FP8 scales none);
 *  - KV cache bytes per token by the hand formula; the experts and top k;
 *  - only the headers were read (fewer bytes than the files hold), and the
 *    model says so: "2 shards, ... of BF16 weights, headers only";
 *  - the F16 checkpoint and its config.json alone give the same FLOPs, and
 *    weights that differ by the one tensor no layer reads; the GPTQ one the
 *    same matrix FLOPs;
 *  - every hostile checkpoint gives its error (code, the file or tensor
 *    named), never a model. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "check.h"
#include "check_model.h"
#include "rooflens.h"

static const char *tests_dir, *root_dir, *suite_dir, *hostile_dir;

static int by_string(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The first `want` bytes of a file (fewer when it is shorter); *got says how many. */
static uint8_t *read_head(const char *path, uint64_t want, size_t *got) {
    FILE *f = fopen(path, "rb");
    uint8_t *b = f ? malloc(want ? (size_t)want : 1) : NULL;
    *got = b ? fread(b, 1, (size_t)want, f) : 0;
    if (f) fclose(f);
    return b;
}

/* Every file of the folder, in name order, given to one checkpoint. */
static rl_model *read_folder(const char *dir, char **err, uint64_t *bytes_read, uint64_t *bytes_total) {
    DIR *d = opendir(dir);
    char *names[64];
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) && n < 64)
        if (e->d_name[0] != '.') names[n++] = strdup(e->d_name);
    if (d) closedir(d);
    qsort(names, (size_t)n, sizeof *names, by_string);
    rl_checkpoint *c = rl_checkpoint_new(NULL);
    *bytes_read = *bytes_total = 0;
    for (int i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        size_t got;
        uint8_t *first = read_head(path, 8, &got);
        uint64_t need = rl_checkpoint_need(names[i], (uint64_t)st.st_size, first, got);
        free(first);
        *bytes_total += (uint64_t)st.st_size;
        if (need == 0) continue;
        uint8_t *head = read_head(path, need, &got);
        *bytes_read += got;
        rl_checkpoint_add(c, names[i], (uint64_t)st.st_size, head, got);
        free(head);
    }
    for (int i = 0; i < n; i++) free(names[i]);
    rl_model *m = rl_checkpoint_finish(c, err);
    rl_checkpoint_free(c);
    return m;
}

static cJSON *llm_run(rl_model *m, const char *what) {
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "hardware", check_read_hw(tests_dir, root_dir, "h100-sxm"));
    cJSON_AddFalseToObject(r, "layers");
    cJSON_AddStringToObject(r, "precision", "fp16");
    cJSON_AddItemToObject(r, "llm", cJSON_Parse("{\"prompt\": 64, \"generate\": 8, \"batches\": [1], \"contexts\": [128]}"));
    cJSON *res = check_analyze(m, r);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "ok")), "%s: analysis failed: %s", what, check_str(res, "error.message"));
    return res;
}

/* One checkpoint of the suite against the figures make_safetensors.py worked out. */
static cJSON *check_checkpoint(const char *name, const cJSON *exp) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", suite_dir, name);
    char *err = NULL;
    uint64_t read = 0, total = 0;
    rl_model *m = read_folder(dir, &err, &read, &total);
    CHECK(m != NULL, "%s: not read: %s", name, err ? err : "");
    rl_free(err);
    if (!m) return NULL;
    cJSON *res = llm_run(m, name);
    rl_model_free(m);
    CHECK(check_num(res, "model.weight_bytes") == check_num(exp, "weight_bytes"), "%s: weight bytes %.0f, the headers' %.0f",
          name, check_num(res, "model.weight_bytes"), check_num(exp, "weight_bytes"));
    CHECK(check_num(res, "llm.weight_bytes") == check_num(exp, "weight_bytes"), "%s: LLM weight bytes %.0f", name,
          check_num(res, "llm.weight_bytes"));
    CHECK(check_num(res, "model.params") == check_num(exp, "parameters"), "%s: parameters %.0f, want %.0f", name,
          check_num(res, "model.params"), check_num(exp, "parameters"));
    CHECK(check_num(res, "llm.kv_cache_bytes_per_token") == check_num(exp, "kv_bytes_per_token"), "%s: KV per token %.0f",
          name, check_num(res, "llm.kv_cache_bytes_per_token"));
    CHECK(read < total / 2, "%s: %llu of %llu bytes read: more than the headers", name, (unsigned long long)read,
          (unsigned long long)total);
    CHECK(check_num(res, "model.file_bytes") == (double)total, "%s: file bytes %.0f, the files' %llu", name,
          check_num(res, "model.file_bytes"), (unsigned long long)total);
    CHECK(check_num(res, "model.payload_bytes_skipped") > 0, "%s: nothing skipped", name);
    CHECK(strcmp(check_str(res, "model.producer"), "safetensors checkpoint") == 0, "%s: producer '%s'", name,
          check_str(res, "model.producer"));
    const char *what = check_str(res, "model.producer_version");
    char shards[64];
    int n = (int)check_num(exp, "shards");
    snprintf(shards, sizeof shards, "%d shard%s, ", n, n == 1 ? "" : "s");
    CHECK(strstr(what, shards) == what && strstr(what, check_str(exp, "storage")) && strstr(what, "headers only"),
          "%s: described as '%s'", name, what);
    double experts = check_num(exp, "experts");
    if (experts > 0) {
        CHECK(check_num(res, "llm.moe.experts") == experts, "%s: experts %.0f", name, check_num(res, "llm.moe.experts"));
        CHECK(check_num(res, "llm.moe.top_k") == check_num(exp, "top_k"), "%s: top k", name);
    }
    printf("%s: %s; %.0f bytes of weights, %.0f parameters, %llu of %llu bytes read\n", name, what,
           check_num(res, "model.weight_bytes"), check_num(res, "model.params"), (unsigned long long)read,
           (unsigned long long)total);
    return res;
}

static void test_suite(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/expected.json", suite_dir);
    cJSON *exp = check_read_json(path);
    cJSON *f16 = NULL, *gptq = NULL;
    const cJSON *e;
    int n = 0;
    cJSON_ArrayForEach(e, exp) {
        cJSON *res = check_checkpoint(e->string, e);
        if (!strcmp(e->string, "f16")) f16 = res;
        else if (!strcmp(e->string, "gptq")) gptq = res;
        else cJSON_Delete(res);
        n++;
    }
    CHECK(n >= 5, "only %d checkpoints in the suite", n);
    /* the config alone: the same decoder at the config's dtype, less the tensor no layer reads (8 fp32) */
    snprintf(path, sizeof path, "%s/f16/config.json", suite_dir);
    size_t len;
    char *text = check_read_file(path, &len), *err = NULL;
    rl_model *m = text ? rl_model_read(text, len, NULL, &err) : NULL;
    CHECK(m != NULL, "f16/config.json alone: %s", err ? err : "");
    if (m && f16) {
        cJSON *res = llm_run(m, "config.json alone");
        CHECK(check_num(res, "llm.prefill.flops") == check_num(f16, "llm.prefill.flops"), "config alone: prefill FLOPs %.0f, checkpoint %.0f",
              check_num(res, "llm.prefill.flops"), check_num(f16, "llm.prefill.flops"));
        CHECK(check_num(f16, "model.weight_bytes") - check_num(res, "model.weight_bytes") == 8 * 4,
              "checkpoint %.0f bytes, config alone %.0f", check_num(f16, "model.weight_bytes"), check_num(res, "model.weight_bytes"));
        cJSON_Delete(res);
    }
    if (f16 && gptq)
        CHECK(check_num(gptq, "llm.prefill.matrix_flops") == check_num(f16, "llm.prefill.matrix_flops"),
              "GPTQ matrix FLOPs %.0f, F16 %.0f", check_num(gptq, "llm.prefill.matrix_flops"),
              check_num(f16, "llm.prefill.matrix_flops"));
    rl_model_free(m);
    rl_free(err);
    free(text);
    cJSON_Delete(f16);
    cJSON_Delete(gptq);
    cJSON_Delete(exp);
}

static void test_hostile(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/expected.json", hostile_dir);
    cJSON *exp = check_read_json(path);
    const cJSON *e;
    int n = 0;
    cJSON_ArrayForEach(e, exp) {
        snprintf(path, sizeof path, "%s/%s", hostile_dir, e->string);
        char *err = NULL;
        uint64_t read, total;
        rl_model *m = read_folder(path, &err, &read, &total);
        CHECK(m == NULL, "%s: read as a model", e->string);
        cJSON *j = err ? cJSON_Parse(err) : NULL;
        CHECK(strcmp(check_str(j, "error.code"), e->valuestring) == 0, "%s: error %s (%s), want %s", e->string,
              check_str(j, "error.code"), check_str(j, "error.message"), e->valuestring);
        CHECK(check_str(j, "error.where")[0] != 0, "%s: the error names no place: %s", e->string,
              check_str(j, "error.message"));
        /* a Git LFS pointer in place of a shard: the error says what it is and how to get the file */
        if (!strcmp(e->string, "lfs_pointer"))
            CHECK(strstr(check_str(j, "error.message"), "Git LFS pointer") &&
                      strstr(check_str(j, "error.message"), "git lfs pull"),
                  "lfs_pointer: %s", check_str(j, "error.message"));
        printf("%s: %s\n", e->string, check_str(j, "error.message"));
        cJSON_Delete(j);
        rl_free(err);
        rl_model_free(m);
        n++;
    }
    CHECK(n >= 15, "only %d hostile checkpoints", n);
    cJSON_Delete(exp);
}

/* The API's edges: a finished checkpoint is spent, an unknown file is
 * passed over, a NULL checkpoint is an error, not a crash. */
static void test_api(void) {
    CHECK(rl_checkpoint_need("tokenizer.json", 100, "{}", 2) == 0, "tokenizer.json is needed");
    CHECK(rl_checkpoint_need("dir/config.json", 100, "{}", 2) == 100, "config.json: need %llu",
          (unsigned long long)rl_checkpoint_need("dir/config.json", 100, "{}", 2));
    const uint8_t len[8] = {0x10, 0, 0, 0, 0, 0, 0, 0};
    CHECK(rl_checkpoint_need("a.safetensors", 1000, len, 8) == 24, "a shard's need");
    CHECK(rl_checkpoint_need("a.safetensors", 1000, len, 3) == 8, "a shard's need before its length");
    /* an empty config.json or index is the checkpoint's all the same: needed, then refused as empty */
    CHECK(rl_checkpoint_need("config.json", 0, NULL, 0) > 0 && rl_checkpoint_need("m.safetensors.index.json", 0, NULL, 0) > 0,
          "an empty config.json or index is passed over");
    rl_checkpoint *c = rl_checkpoint_new(NULL);
    CHECK(rl_checkpoint_add(c, "README.md", 5, "hello", 5) == 0, "README.md refused");
    char *err = NULL;
    rl_model *m = rl_checkpoint_finish(c, &err);
    CHECK(!m && err && strstr(err, "config.json"), "no config: %s", err ? err : "(none)");
    rl_free(err);
    err = NULL;
    m = rl_checkpoint_finish(c, &err);
    CHECK(!m && err && strstr(err, "\"code\""), "finished twice: %s", err ? err : "(none)");
    rl_free(err);
    rl_checkpoint_free(c);
    err = NULL;
    CHECK(rl_checkpoint_finish(NULL, &err) == NULL && err, "NULL checkpoint");
    rl_free(err);
    CHECK(rl_checkpoint_add(NULL, "a", 0, NULL, 0) == -1, "NULL checkpoint add");
    rl_checkpoint_free(NULL);
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: test_checkpoint TESTS_DIR ROOT_DIR SUITE_DIR HOSTILE_DIR\n");
        return 2;
    }
    tests_dir = argv[1], root_dir = argv[2], suite_dir = argv[3], hostile_dir = argv[4];
    test_suite();
    test_hostile();
    test_api();
    return check_report("test_checkpoint");
}
