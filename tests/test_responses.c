/* Every response passes the oracle (tests/response_oracle.h: valid UTF-8,
 * JSON, a clean error or finite non-negative figures), over:
 *
 *   test_responses TESTS_DIR SOURCE_DIR [DIR_OR_FILE...]
 *
 *  - every .onnx under the given directories (default: all of
 *    tests/fixtures, i.e. the fixtures, the malformed corpus and the hostile
 *    models; ctest also runs it over the structural mutants that
 *    tests/fuzz/mutate_onnx.py writes);
 *  - hostile names made here: multi-byte names (2-, 3- and 4-byte
 *    characters) of every length around the sizes of the messages they land
 *    in, as op types (a warning), dangling inputs and node names (errors).
 *
 * Each model is read whole and in 7-byte chunks, described, and analysed
 * with five requests: plain; batch, dims, training and fp16; a batch sweep;
 * a compare; a power-mode study. A model taking more than HANG_SECONDS for
 * all that counts as a hang. Prints the counts (models, answers, ok and
 * error answers by code) and fails on any violation. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strdup */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <time.h>

#include "check.h"
#include "gen_models.h"
#include "response_oracle.h"
#include "rooflens.h"

#define HANG_SECONDS 20.0

static char *requests[5];
static int n_models, n_answers, n_ok, n_hangs, n_violations;
static double slowest;
static char slowest_name[512];

/* error codes seen, with counts (a small linear table: a few dozen codes) */
static struct {
    char code[48];
    int count;
} codes[128];
static int n_codes;

static void count_code(const char *json) {
    cJSON *o = cJSON_Parse(json);
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "error"), "code");
    if (cJSON_IsString(code)) {
        int i = 0;
        while (i < n_codes && strcmp(codes[i].code, code->valuestring) != 0) i++;
        if (i == n_codes && n_codes < 128) snprintf(codes[n_codes++].code, sizeof codes[0].code, "%s", code->valuestring);
        if (i < 128) codes[i].count++;
    } else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "ok"))) {
        n_ok++;
    }
    cJSON_Delete(o);
}

static void judge(const char *name, const char *what, char *json) {
    const char *bad = oracle_check(json);
    /* U+FFFD is the JSON writer's last resort for bytes that are not UTF-8:
     * the core repairs cut names where it builds text, so none reaches it */
    if (!bad && json && strstr(json, "\xef\xbf\xbd")) bad = "U+FFFD: text that was not repaired where it was built";
    n_answers++;
    if (bad) {
        n_violations++;
        CHECK(0, "%s (%.60s): %s: %.600s", name, what, bad, json ? json : "(null)");
    }
    if (json) count_code(json);
    rl_free(json);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void run_model(const char *name, const unsigned char *data, size_t len) {
    double t0 = now();
    n_models++;
    /* in 7-byte chunks: the reader's errors must not depend on chunk borders */
    rl_reader *r = rl_reader_new(NULL);
    size_t off = 0;
    while (off < len) {
        size_t n = len - off < 7 ? len - off : 7;
        if (rl_reader_feed(r, data + off, n) < 0) break;
        off += n;
    }
    char *err = NULL;
    rl_model *m = rl_reader_finish(r, &err);
    rl_reader_free(r);
    if (!m) {
        judge(name, "read in chunks", err);
    } else {
        judge(name, "info", rl_model_info(m));
        for (size_t i = 0; i < sizeof requests / sizeof *requests; i++) judge(name, requests[i], rl_model_analyze(m, requests[i]));
        rl_model_free(m);
    }
    /* and whole, through the one-call entry point */
    judge(name, "rl_analyze", rl_analyze(requests[0], data, len));
    double t = now() - t0;
    if (t > slowest) {
        slowest = t;
        snprintf(slowest_name, sizeof slowest_name, "%s", name);
    }
    if (t > HANG_SECONDS) {
        n_hangs++;
        CHECK(0, "%s: %.1f s for its answers (a hang)", name, t);
    }
}

static bool has_suffix(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void run_path(const char *path, int depth) {
    struct stat st;
    if (stat(path, &st) != 0 || depth > 8) return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        /* sorted order is not needed: every file is judged alike */
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.') continue;
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", path, e->d_name);
            run_path(p, depth + 1);
        }
        if (d) closedir(d);
        return;
    }
    if (!has_suffix(path, ".onnx")) return;
    size_t len;
    unsigned char *data = (unsigned char *)check_read_file(path, &len);
    CHECK(data != NULL, "cannot read %s", path);
    if (!data) return;
    run_model(path, data, len);
    free(data);
}

/* ------------------------------------------------------ hostile names -- */
/* `count` copies of a character of `width` bytes (2: é, 3: €, 4: 😀), cut
 * to `bytes` bytes at a character boundary. */
static char *multibyte(int width, size_t bytes) {
    static const char *const ch[] = {"", "x", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"};
    char *s = malloc(bytes + 8);
    size_t n = 0;
    while (n + (size_t)width <= bytes) {
        memcpy(s + n, ch[width], (size_t)width);
        n += (size_t)width;
    }
    s[n] = 0;
    return s;
}

/* A graph x -> op(name) -> y, with op type, node name and input name given. */
static uint8_t *named_model(const char *op, const char *node_name, const char *input, size_t *len) {
    gen_buf g = {0}, s = {0};
    gen_node(&g, &s, op, input, "y", node_name, strlen(node_name));
    gen_str(&g, 2, "hostile_names");
    gen_value_info(&g, 11, "x", 16);
    gen_value_info(&g, 12, "y", 16);
    free(s.p);
    return gen_model(&g, len);
}

static void hostile_names(void) {
    /* the buffers the text passes through: "%.200s" in messages, the error's
     * where (256), rl_bad (400), the error message (512), a warning (600) */
    static const size_t sizes[] = {190, 200, 256, 300, 400, 512, 600, 700};
    int made = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (int width = 2; width <= 4; width++)
            for (int shift = -4; shift <= 4; shift++) {
                size_t bytes = sizes[k] + (size_t)(shift + 4);
                char *name = multibyte(width, bytes - 4);
                char label[64];
                size_t len;
                /* an unknown op: its type is quoted in a warning */
                uint8_t *d = named_model(name, "n", "x", &len);
                snprintf(label, sizeof label, "op type of %zu bytes (%d-byte chars)", bytes - 4, width);
                if (d) run_model(label, d, len), made++;
                free(d);
                /* a dangling input: quoted in an error, the node named alike */
                d = named_model("Relu", name, name, &len);
                snprintf(label, sizeof label, "dangling input of %zu bytes (%d-byte chars)", bytes - 4, width);
                if (d) run_model(label, d, len), made++;
                free(d);
                /* a node error (Conv without W) with a long node name */
                d = named_model("Conv", name, "x", &len);
                snprintf(label, sizeof label, "bad node named with %zu bytes (%d-byte chars)", bytes - 4, width);
                if (d) run_model(label, d, len), made++;
                free(d);
                free(name);
            }
    printf("hostile names: %d models\n", made);
}

static char *read_profile(const char *source, const char *name) {
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", source, name);
    char *p = check_read_file(path, NULL);
    CHECK(p != NULL, "cannot read %s", path);
    return p ? p : strdup("{}");
}

int main(int argc, char **argv) {
    const char *tests = argc > 1 ? argv[1] : "tests";
    const char *source = argc > 2 ? argv[2] : ".";
    char *unit = read_profile(source, "tests/hw/unit.json");
    char *orin = read_profile(source, "hw/jetson-agx-orin.json");
    size_t cap = strlen(unit) + 2 * strlen(orin) + 1024;
    for (int i = 0; i < 5; i++) requests[i] = malloc(cap);
    snprintf(requests[0], cap, "{\"hardware\": %s}", orin);
    snprintf(requests[1], cap,
             "{\"hardware\": %s, \"batch\": 3, \"mode\": \"training\", \"precision\": \"fp16\", \"sol\": "
             "\"unfused\", \"dims\": {\"batch\": 2, \"seq\": 5, \"sequence_length\": 7, \"N\": 3, \"s\": 3}}",
             unit);
    snprintf(requests[2], cap, "{\"hardware\": %s, \"layers\": false, \"study\": {\"kind\": \"batch_sweep\", "
             "\"batches\": [1, 7, 1000000000]}}", unit);
    snprintf(requests[3], cap, "{\"hardware\": %s, \"layers\": false, \"study\": {\"kind\": \"compare\", "
             "\"hardware\": [%s, %s], \"power_modes\": [null, \"15w\"]}}", unit, unit, orin);
    snprintf(requests[4], cap, "{\"hardware\": %s, \"layers\": false, \"sol\": \"fused_prefetched\", "
             "\"study\": {\"kind\": \"power_modes\", \"max_slowdown\": 0.5}}", orin);
    free(unit);
    free(orin);
    double t0 = now();
    if (argc > 3) {
        for (int i = 3; i < argc; i++) run_path(argv[i], 0);
    } else {
        char p[2048];
        snprintf(p, sizeof p, "%s/fixtures", tests);
        run_path(p, 0);
        hostile_names();
    }
    printf("%d models, %d answers in %.1f s: %d ok, %d errors; %d hangs (slowest %.2f s: %s); %d "
           "violations (not UTF-8, not JSON, internal, or non-finite/negative figures)\n",
           n_models, n_answers, now() - t0, n_ok, n_answers - n_ok, n_hangs, slowest, slowest_name, n_violations);
    printf("error codes:");
    for (int i = 0; i < n_codes; i++) printf(" %s %d%s", codes[i].code, codes[i].count, i + 1 < n_codes ? "," : "\n");
    if (!n_codes) printf(" none\n");
    CHECK(n_models > 0, "no models found");
    for (int i = 0; i < 5; i++) free(requests[i]);
    return check_report("responses");
}
