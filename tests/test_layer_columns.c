/* "layers": "columns" holds the same figures as "layers": true, for every
 * model of the corpus and for the options that add or drop layer fields
 * (training, a precision, energy-less hardware, a measured profile): each
 * row rebuilt from the columns (sparse columns and the tensor table
 * included) equals the row the core writes, key for key, and the columns
 * hold nothing more. "layers": "packed" is the columns answer with its
 * columns of numbers moved as doubles after the text: put back, they give
 * the columns answer exactly. The page asks for packed columns
 * (web/js/layer-columns.js turns them back into rows;
 * tests/web/layer-columns.test.mjs checks that half on the WebAssembly
 * build). */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdbool.h>
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

/* A packed answer of `size` bytes turned into the columns answer it
 * stands for: each {"f64": k} column replaced by its doubles (NaN: null).
 * NULL (after a failed CHECK) when the layout is broken. */
static cJSON *unpacked(const char *name, const char *out, size_t size) {
    cJSON *res = cJSON_Parse(out);
    cJSON *lc = cJSON_GetObjectItemCaseSensitive(res, "layer_columns");
    if (!lc) return res; /* an error answer: nothing packed */
    size_t text = strlen(out), start = (text + 1 + 7) & ~(size_t)7;
    const cJSON *pb = cJSON_GetObjectItemCaseSensitive(lc, "packed_bytes");
    int count = (int)cJSON_GetObjectItemCaseSensitive(lc, "count")->valuedouble;
    bool sized = cJSON_IsNumber(pb) && size == (pb->valuedouble > 0 ? start + (size_t)pb->valuedouble : text);
    CHECK(sized, "%s: %zu bytes = text %zu, aligned, + packed_bytes %g", name, size, text, pb ? pb->valuedouble : -1);
    if (!sized) {
        cJSON_Delete(res);
        return NULL;
    }
    int seen = 0, coded = 0;
    cJSON *col = cJSON_GetObjectItemCaseSensitive(lc, "columns")->child;
    while (col) {
        cJSON *next = col->next;
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(col, "f64");
        if (k) {
            CHECK((int)k->valuedouble == seen, "%s: packed columns are numbered in order (%s)", name, col->string);
            const cJSON *choices = cJSON_GetObjectItemCaseSensitive(col, "enum");
            int n_choices = cJSON_GetArraySize(choices);
            coded += choices != NULL;
            cJSON *arr = cJSON_CreateArray();
            for (int i = 0; i < count; i++) {
                double v;
                memcpy(&v, out + start + 8 * ((size_t)k->valuedouble * (size_t)count + (size_t)i), sizeof v);
                if (!choices) {
                    cJSON_AddItemToArray(arr, v == v ? cJSON_CreateNumber(v) : cJSON_CreateNull());
                    continue;
                }
                /* a code: the value is that choice */
                CHECK(v >= 0 && v < n_choices && v == (int)v, "%s: %s: code %g of %d choices", name, col->string, v, n_choices);
                cJSON *c = v >= 0 && v < n_choices ? cJSON_GetArrayItem(choices, (int)v) : NULL;
                cJSON_AddItemToArray(arr, c ? cJSON_Duplicate(c, 1) : cJSON_CreateNull());
            }
            cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(lc, "columns"), col->string, arr);
            seen++;
        }
        col = next;
    }
    CHECK(pb->valuedouble == 8.0 * seen * count, "%s: packed_bytes counts %d columns", name, seen);
    CHECK(seen > 5 || count == 0, "%s: most number columns are packed (%d)", name, seen);
    CHECK(coded >= 3 || count == 0, "%s: columns of a few strings or booleans (op, bound...) are coded (%d)", name, coded);
    cJSON_DeleteItemFromObjectCaseSensitive(lc, "packed_bytes");
    return res;
}

/* Every number of the dense columns in `want` equals got's to the last bit
 * (cJSON_Compare allows an epsilon). */
static void same_bits(const char *name, const cJSON *want, const cJSON *got) {
    const cJSON *wc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(want, "layer_columns"), "columns");
    const cJSON *gc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(got, "layer_columns"), "columns");
    const cJSON *col;
    int differ = 0;
    cJSON_ArrayForEach(col, wc) {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(gc, col->string)->child, *v;
        const cJSON *values = cJSON_IsArray(col) ? col : NULL;
        cJSON_ArrayForEach(v, values) {
            if (g && cJSON_IsNumber(v) && (!cJSON_IsNumber(g) || memcmp(&v->valuedouble, &g->valuedouble, sizeof(double))))
                differ++;
            g = g ? g->next : NULL;
        }
    }
    CHECK(!differ, "%s: %d packed numbers differ from the text's in some bit", name, differ);
}

/* The packed answer put back equals the columns answer. */
static void compare_packed(const char *name, rl_model *m, const char *hw, const char *extra) {
    size_t n = strlen(hw) + strlen(extra) + 64, size = 0;
    char *req = malloc(n);
    snprintf(req, n, "{\"hardware\":%s,\"layers\":\"packed\"%s}", hw, extra);
    char *packed = rl_model_analyze_sized(m, req, &size);
    char *cols = analyze(m, hw, extra, "\"columns\"");
    cJSON *want = cJSON_Parse(cols), *got = unpacked(name, packed, size);
    bool same = got && cJSON_Compare(want, got, 1);
    if (same) same_bits(name, want, got);
    CHECK(same, "%s %s: the packed answer, put back, is the columns answer: %.300s", name, extra, packed);
    const cJSON *wc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(want, "layer_columns"), "columns");
    const cJSON *gc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(got, "layer_columns"), "columns");
    const cJSON *col, *first = same ? NULL : wc;
    cJSON_ArrayForEach(col, first) {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(gc, col->string);
        if (g && cJSON_Compare(col, g, 1)) continue;
        char *a = cJSON_PrintUnformatted(col), *b = g ? cJSON_PrintUnformatted(g) : NULL;
        CHECK(0, "  column %s: columns %.200s packed %.200s", col->string, a, b ? b : "(none)");
        free(a), free(b);
        break;
    }
    const cJSON *count = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(want, "layer_columns"), "count");
    CHECK(!count || count->valuedouble < 20 || strlen(packed) < strlen(cols),
          "%s %s: the packed text (%zu B) is smaller than the columns (%zu B)", name, extra, strlen(packed), strlen(cols));
    cJSON_Delete(want), cJSON_Delete(got);
    free(req), free(packed), free(cols);
}

static int models;
static void each_model(const char *name, rl_model *m, void *ctx) {
    (void)ctx;
    models++;
    compare(name, m, h100, "");
    compare(name, m, h100, ",\"mode\":\"training\",\"precision\":\"int8\",\"batch\":4");
    compare(name, m, tpu, ",\"precision\":\"fp32\"");
    compare_packed(name, m, h100, "");
    compare_packed(name, m, tpu, ",\"precision\":\"fp32\",\"mode\":\"training\"");
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
    compare_packed("small_cnn + ORT profile", m, h100, extra);
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
