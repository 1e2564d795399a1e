/* The precision table of the core is the only list of precisions:
 * rl_precisions() publishes it whole and consistent (every fallback names a
 * known precision, no precision falls back to itself, colours are distinct),
 * request and profile parsing accept exactly its names, and every list of
 * precisions written by hand in the docs, the CLI, the page or the tools
 * (any line naming four or more precisions) names all of them, in order. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>

#include "check.h"
#include "internal.h"
#include "precision.h"
#include "rooflens.h"

/* A word that looks like a precision name: fp8, fp16, bf16, tf32, int4, fp13… */
static bool precision_like(const char *w, size_t n) {
    static const char *const stems[] = {"fp", "bf", "tf", "int"};
    for (size_t s = 0; s < 4; s++) {
        size_t k = strlen(stems[s]);
        if (n <= k || strncmp(w, stems[s], k) != 0) continue;
        bool digits = true;
        for (size_t i = k; i < n; i++) digits = digits && isdigit((unsigned char)w[i]);
        if (digits) return true;
    }
    return false;
}

/* Check every line of a file that lists four or more distinct precisions. */
static void check_lists_in(const char *path, const char *shown) {
    char *text = check_read_file(path, NULL);
    CHECK(text != NULL, "cannot read %s", path);
    if (!text) return;
    int line_no = 0;
    for (char *line = text; line && *line; line_no++) {
        char *end = strchr(line, '\n');
        if (end) *end = 0;
        int seen[RL_P_COUNT], n_seen = 0, distinct = 0;
        bool unknown = false, dup = false;
        char unknown_word[32] = "";
        for (char *p = line; *p;) {
            if (!isalnum((unsigned char)*p)) { p++; continue; }
            char *w = p;
            while (isalnum((unsigned char)*p)) p++;
            size_t n = (size_t)(p - w);
            if (!precision_like(w, n)) continue;
            char word[32];
            snprintf(word, sizeof word, "%.*s", (int)(n < 31 ? n : 31), w);
            int pi = rl_precision_parse(word);
            if (pi == RL_P_NONE) {
                unknown = true;
                snprintf(unknown_word, sizeof unknown_word, "%s", word);
                continue;
            }
            bool again = false;
            for (int i = 0; i < n_seen; i++) again = again || seen[i] == pi;
            if (again) { dup = true; continue; }
            if (n_seen < RL_P_COUNT) seen[n_seen++] = pi;
            distinct++;
        }
        if (distinct >= 4 && !dup) {
            bool in_order = distinct == RL_P_COUNT;
            for (int i = 0; i < n_seen && in_order; i++) in_order = seen[i] == i;
            CHECK(in_order && !unknown,
                  "%s:%d lists %d precisions%s%s; a list must name all %d of the core's table in its "
                  "order (%s)", shown, line_no + 1, distinct, unknown ? " and the unknown " : "", unknown_word,
                  RL_P_COUNT, line);
        }
        line = end ? end + 1 : NULL;
    }
    free(text);
}

static void check_dir(const char *root, const char *sub, const char *suffix) {
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/%s", root, sub);
    DIR *d = opendir(dir);
    CHECK(d != NULL, "cannot open %s", dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name), k = strlen(suffix);
        if (n <= k || strcmp(e->d_name + n - k, suffix) != 0) continue;
        if (strcmp(e->d_name, "precision.c") == 0) continue; /* the table itself */
        char path[4096], shown[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(shown, sizeof shown, "%s/%s", sub, e->d_name);
        check_lists_in(path, shown);
    }
    closedir(d);
}

static void check_published_table(void) {
    char *json = rl_precisions();
    cJSON *arr = cJSON_Parse(json);
    rl_free(json);
    CHECK(cJSON_IsArray(arr) && cJSON_GetArraySize(arr) == RL_P_COUNT, "rl_precisions() must list %d precisions",
          RL_P_COUNT);
    int i = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, arr) {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "name"));
        CHECK(name && rl_precision_parse(name) == i, "rl_precisions()[%d] is '%s', not the table's '%s'", i,
              name ? name : "?", rl_precision_name(i));
        const char *dtype = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "dtype"));
        CHECK(dtype && strcmp(dtype, "unknown") != 0 && strcmp(dtype, "undefined") != 0, "%s: no dtype",
              rl_precision_name(i));
        const char *colour = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "colour"));
        CHECK(colour && strlen(colour) == 7 && colour[0] == '#', "%s: colour must be #rrggbb", rl_precision_name(i));
        for (int j = 0; j < i; j++)
            CHECK(!colour || strcmp(colour, rl_precision_table[j].colour) != 0, "%s and %s share a colour",
                  rl_precision_name(i), rl_precision_name(j));
        const cJSON *fb;
        cJSON_ArrayForEach(fb, cJSON_GetObjectItemCaseSensitive(p, "fallback")) {
            int q = rl_precision_parse(cJSON_GetStringValue(fb));
            CHECK(q != RL_P_NONE && q != i, "%s falls back to '%s'", rl_precision_name(i), cJSON_GetStringValue(fb));
        }
        i++;
    }
    cJSON_Delete(arr);
    /* every floating element type computes at some precision other than by default */
    CHECK(rl_precision_of_dtype(RL_DT_FLOAT16) == RL_P_FP16, "float16 computes at fp16");
    CHECK(rl_precision_of_dtype(RL_DT_UINT8) == RL_P_INT8, "uint8 computes at int8");
    CHECK(rl_precision_of_dtype(RL_DT_INT64) == RL_P_FP32, "int64 work is timed at fp32");
    char list[128];
    rl_precision_list(list, sizeof list);
    CHECK(strcmp(list, "fp64, fp32, tf32, fp16, bf16, fp8, int8, int4") == 0, "rl_precision_list: %s", list);
}

/* A request accepts exactly the table's names (and "model"). */
static void check_request_accepts_table(const char *tests) {
    char path[2048];
    snprintf(path, sizeof path, "%s/fixtures/models/mlp.onnx", tests);
    size_t len = 0;
    char *bytes = check_read_file(path, &len);
    CHECK(bytes != NULL, "cannot read %s", path);
    if (!bytes) return;
    char *err = NULL;
    rl_model *m = rl_model_read(bytes, len, NULL, &err);
    free(bytes);
    CHECK(m != NULL, "mlp.onnx: %s", err ? err : "?");
    rl_free(err);
    if (!m) return;
    static const char profile[] = "{\"id\": \"t\", \"compute\": {\"fp32\": {\"matrix\": 1e12}}, "
                                  "\"memory\": [{\"bandwidth_Bps\": 1e11}]}";
    for (int p = 0; p < RL_P_COUNT; p++) {
        char req[512];
        snprintf(req, sizeof req, "{\"precision\": \"%s\", \"hardware\": %s}", rl_precision_name(p), profile);
        char *out = rl_model_analyze(m, req);
        CHECK(out && strstr(out, "\"ok\":true"), "request precision %s refused: %s", rl_precision_name(p),
              out ? out : "NULL");
        rl_free(out);
    }
    char *out = rl_model_analyze(m, "{\"precision\": \"fp13\"}");
    rl_model_free(m);
    CHECK(out && strstr(out, "precision must be one of model, fp64, fp32, tf32, fp16, bf16, fp8, int8, int4"),
          "an unknown precision names the table: %s", out ? out : "NULL");
    rl_free(out);
}

int main(int argc, char **argv) {
    const char *root = argc > 2 ? argv[2] : "..";
    check_published_table();
    check_request_accepts_table(argc > 1 ? argv[1] : "../tests");
    static const char *const files[] = {"README.md", "hw/README.md", "web/index.html", "cli/options.c",
                                        "hw/check_profiles.py", "wasm/api.c"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", root, files[i]);
        check_lists_in(path, files[i]);
    }
    check_dir(root, "docs", ".md");
    check_dir(root, "web/js", ".js");
    check_dir(root, "core/src", ".c");
    check_dir(root, "core/src", ".h");
    check_dir(root, "tests/web", ".mjs");
    return check_report("precisions");
}
