/* "layers": "columns" holds the same figures as "layers": true, for every
 * model of the corpus and for the options that add or drop layer fields
 * (training, a precision, energy-less hardware, a measured profile): each
 * row rebuilt from the columns (sparse columns and the tensor table
 * included) equals the row the core writes, key for key, and the columns
 * hold nothing more. The page asks for columns (web/js/layer-columns.js
 * turns them back into rows; tests/web/layer-columns.test.mjs checks that
 * half on the WebAssembly build). */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_model.h"
#include "model_corpus.h"
#include "rooflens.h"

static const char *tests_dir;
static char *h100, *tpu;

/* Row `i` of a {count, columns} table as an object (a new tree). */
static cJSON *row_of(const cJSON *table, int i) {
    cJSON *row = cJSON_CreateObject();
    const cJSON *col;
    cJSON_ArrayForEach(col, cJSON_GetObjectItemCaseSensitive(table, "columns")) {
        const cJSON *v = NULL;
        if (cJSON_IsArray(col)) {
            v = cJSON_GetArrayItem(col, i);
        } else {
            const cJSON *rows = cJSON_GetObjectItemCaseSensitive(col, "rows");
            const cJSON *values = cJSON_GetObjectItemCaseSensitive(col, "values");
            int j = 0;
            const cJSON *r;
            cJSON_ArrayForEach(r, rows) {
                if ((int)r->valuedouble == i) v = cJSON_GetArrayItem(values, j);
                j++;
            }
        }
        if (v) cJSON_AddItemToObject(row, col->string, cJSON_Duplicate(v, 1));
    }
    return row;
}

/* Layer `i` rebuilt from the columns, its tensor indices replaced by the
 * tensor table's rows. */
static cJSON *layer_of(const cJSON *lc, int i) {
    cJSON *row = row_of(lc, i);
    const cJSON *tensors = cJSON_GetObjectItemCaseSensitive(lc, "tensors");
    for (int io = 0; io < 2; io++) {
        cJSON *idx = cJSON_GetObjectItemCaseSensitive(row, io ? "outputs" : "inputs");
        cJSON *list = cJSON_CreateArray();
        const cJSON *t;
        cJSON_ArrayForEach(t, idx) cJSON_AddItemToArray(list, row_of(tensors, (int)t->valuedouble));
        cJSON_ReplaceItemInObjectCaseSensitive(row, io ? "outputs" : "inputs", list);
    }
    return row;
}

static int count_fields(const cJSON *o) {
    int n = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, o) n++;
    return n;
}

static char *analyze(rl_model *m, const char *hw, const char *extra, const char *layers) {
    size_t n = strlen(hw) + strlen(extra) + 64;
    char *req = malloc(n);
    snprintf(req, n, "{\"hardware\":%s,\"layers\":%s%s}", hw, layers, extra);
    char *out = rl_model_analyze(m, req);
    free(req);
    return out;
}

static void compare(const char *name, rl_model *m, const char *hw, const char *extra) {
    char *a = analyze(m, hw, extra, "true"), *b = analyze(m, hw, extra, "\"columns\"");
    cJSON *rows_res = cJSON_Parse(a), *cols_res = cJSON_Parse(b);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(rows_res, "layers");
    const cJSON *lc = cJSON_GetObjectItemCaseSensitive(cols_res, "layer_columns");
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rows_res, "ok"))) {
        CHECK(!lc, "%s %s: an error answer has no layer_columns", name, extra);
        goto done;
    }
    CHECK(cJSON_IsArray(rows) && lc && !cJSON_GetObjectItemCaseSensitive(cols_res, "layers"),
          "%s %s: rows answer 'layers', columns answer 'layer_columns' only", name, extra);
    if (!lc || !rows) goto done;
    int n = cJSON_GetArraySize(rows);
    CHECK(cJSON_GetObjectItemCaseSensitive(lc, "count")->valuedouble == n, "%s %s: count %d", name, extra, n);
    int values = 0, fields = 0;
    for (int i = 0; i < n; i++) {
        const cJSON *want = cJSON_GetArrayItem(rows, i);
        cJSON *got = layer_of(lc, i);
        if (!cJSON_Compare(want, got, 1)) {
            char *w = cJSON_PrintUnformatted(want), *g = cJSON_PrintUnformatted(got);
            CHECK(0, "%s %s: layer %d differs:\n  rows    %.600s\n  columns %.600s", name, extra, i, w, g);
            free(w), free(g);
        }
        fields += count_fields(want);
        cJSON_Delete(got);
    }
    /* nothing more: every value in a column belongs to a row that has the key */
    const cJSON *col;
    cJSON_ArrayForEach(col, cJSON_GetObjectItemCaseSensitive(lc, "columns"))
        values += cJSON_IsArray(col) ? cJSON_GetArraySize(col)
                                     : cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(col, "values"));
    CHECK(values == fields, "%s %s: the columns hold %d values, the rows %d", name, extra, values, fields);
    /* the rest of the answer is the same */
    cJSON_DeleteItemFromObjectCaseSensitive(rows_res, "layers");
    cJSON_DeleteItemFromObjectCaseSensitive(cols_res, "layer_columns");
    CHECK(cJSON_Compare(rows_res, cols_res, 1), "%s %s: the rest of the answers differ", name, extra);
    CHECK(strlen(b) <= strlen(a) || n < 3, "%s %s: columns (%zu B) are not smaller than rows (%zu B)", name, extra,
          strlen(b), strlen(a));
done:
    cJSON_Delete(rows_res), cJSON_Delete(cols_res);
    free(a), free(b);
}

static int models;
static void each_model(const char *name, rl_model *m, void *ctx) {
    (void)ctx;
    models++;
    compare(name, m, h100, "");
    compare(name, m, h100, ",\"mode\":\"training\",\"precision\":\"int8\",\"batch\":4");
    compare(name, m, tpu, ",\"precision\":\"fp32\"");
}

static void measured_profile(void) {
    char path[2048];
    snprintf(path, sizeof path, "%s/fixtures/measured/small_cnn.onnx", tests_dir);
    rl_model *m = check_read_model(path);
    snprintf(path, sizeof path, "%s/fixtures/measured/ort_small_cnn_all.json", tests_dir);
    cJSON *profile = check_read_json(path);
    CHECK(m && profile, "the measured fixtures read");
    if (!m || !profile) return;
    char *text = cJSON_PrintUnformatted(profile);
    cJSON *s = cJSON_CreateString(text);
    char *quoted = cJSON_PrintUnformatted(s);
    size_t n = strlen(quoted) + 64;
    char *extra = malloc(n);
    snprintf(extra, n, ",\"measured\":{\"text\":%s,\"format\":\"auto\"}", quoted);
    compare("small_cnn + ORT profile", m, h100, extra);
    free(extra), free(quoted), free(text);
    cJSON_Delete(s), cJSON_Delete(profile);
    rl_model_free(m);
}

static void bad_layout(const char *root_dir) {
    (void)root_dir;
    char path[2048];
    snprintf(path, sizeof path, "%s/fixtures/models/mlp.onnx", tests_dir);
    rl_model *m = check_read_model(path);
    if (!m) return;
    char *out = analyze(m, h100, "", "\"table\"");
    CHECK(strstr(out, "\"ok\":false") && strstr(out, "\"where\":\"layers\""), "layers: \"table\" is refused: %.300s", out);
    rl_free(out);
    rl_model_free(m);
}

int main(int argc, char **argv) {
    tests_dir = argc > 1 ? argv[1] : ".";
    const char *root_dir = argc > 2 ? argv[2] : "..";
    char path[2048];
    snprintf(path, sizeof path, "%s/hw/h100-sxm.json", root_dir);
    h100 = check_read_file(path, NULL);
    snprintf(path, sizeof path, "%s/hw/tpu-v5e.json", root_dir);
    tpu = check_read_file(path, NULL);
    CHECK(h100 && tpu, "the hardware profiles read");
    if (h100 && tpu) corpus_each(tests_dir, NULL, each_model, NULL);
    CHECK(models > 40, "the corpus has models (%d)", models);
    measured_profile();
    bad_layout(root_dir);
    free(h100), free(tpu);
    return check_report("layer columns");
}
