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
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_model.h"
#include "layer_writer.h"
#include "model_corpus.h"
#include "rooflens.h"
#include "rooflens_text.h"

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

/* Double `i` of a packed region. */
static double packed_double(const char *region, size_t i) {
    double v;
    memcpy(&v, region + 8 * i, sizeof v);
    return v;
}

/* Column `col` of a {count, packed_bytes, columns} table, whose doubles
 * start at `region`, as the columns layout writes it (a new tree), or NULL
 * when it is not packed. *slot counts the table's packed columns, *coded
 * the coded ones, *lists the columns of lists. */
static cJSON *unpacked_column(const char *name, const cJSON *col, const char *region, int count, int *slot, int *coded,
                              int *lists) {
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(col, "f64");
    const cJSON *ends = cJSON_GetObjectItemCaseSensitive(col, "ends");
    if (!k && !ends) return NULL;
    const cJSON *at = k ? k : ends;
    CHECK((int)at->valuedouble == *slot, "%s: packed columns are numbered in order (%s)", name, col->string);
    const char *doubles = region + 8 * (size_t)*slot * (size_t)count;
    ++*slot;
    cJSON *arr = cJSON_CreateArray();
    if (ends) {
        /* a list per row: the items of `flat` up to the row's end; NaN: null */
        ++*lists;
        const cJSON *item = cJSON_GetObjectItemCaseSensitive(col, "flat")->child;
        int done = 0, n_flat = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(col, "flat"));
        for (int i = 0; i < count; i++) {
            double end = packed_double(doubles, (size_t)i);
            if (end != end) {
                cJSON_AddItemToArray(arr, cJSON_CreateNull());
                continue;
            }
            CHECK(end >= done && end <= n_flat, "%s: %s: row %d ends at %g, after %d of %d items", name, col->string, i, end,
                  done, n_flat);
            cJSON *list = cJSON_CreateArray();
            for (; done < (int)end && item; done++, item = item->next) cJSON_AddItemToArray(list, cJSON_Duplicate(item, 1));
            cJSON_AddItemToArray(arr, list);
        }
        CHECK(done == n_flat, "%s: %s: the rows take %d of %d items", name, col->string, done, n_flat);
        return arr;
    }
    const cJSON *choices = cJSON_GetObjectItemCaseSensitive(col, "enum");
    int n_choices = cJSON_GetArraySize(choices);
    *coded += choices != NULL;
    for (int i = 0; i < count; i++) {
        double v = packed_double(doubles, (size_t)i);
        if (!choices) {
            cJSON_AddItemToArray(arr, v == v ? cJSON_CreateNumber(v) : cJSON_CreateNull());
            continue;
        }
        /* a code: the value is that choice */
        CHECK(v >= 0 && v < n_choices && v == (int)v, "%s: %s: code %g of %d choices", name, col->string, v, n_choices);
        cJSON *c = v >= 0 && v < n_choices ? cJSON_GetArrayItem(choices, (int)v) : NULL;
        cJSON_AddItemToArray(arr, c ? cJSON_Duplicate(c, 1) : cJSON_CreateNull());
    }
    return arr;
}

/* What a packed answer packed, per table. */
typedef struct {
    int packed, coded, lists;
} packed_counts;

/* Table `t`'s packed columns put back, in place; its doubles start at
 * `region`. Returns its packed_bytes. */
static double unpack_table(const char *name, cJSON *t, const char *region, packed_counts *n) {
    int count = (int)cJSON_GetObjectItemCaseSensitive(t, "count")->valuedouble, slot = 0;
    double bytes = cJSON_GetObjectItemCaseSensitive(t, "packed_bytes")->valuedouble;
    cJSON *cols = cJSON_GetObjectItemCaseSensitive(t, "columns");
    for (cJSON *col = cols->child, *next; col; col = next) {
        next = col->next;
        cJSON *arr = unpacked_column(name, col, region, count, &slot, &n->coded, &n->lists);
        if (arr) cJSON_ReplaceItemInObjectCaseSensitive(cols, col->string, arr);
    }
    CHECK(bytes == 8.0 * slot * count, "%s: packed_bytes %g counts %d columns of %d rows", name, bytes, slot, count);
    n->packed = count ? slot : 0;
    cJSON_DeleteItemFromObjectCaseSensitive(t, "packed_bytes");
    return bytes;
}

/* A packed answer of `size` bytes turned into the columns answer it
 * stands for: each packed column ({"f64": k}, coded, or a column of lists)
 * replaced by its values; n[0] and n[1] say what the layer and the tensor
 * table packed. NULL (after a failed CHECK) when the layout is broken. */
static cJSON *unpacked(const char *name, const char *out, size_t size, packed_counts n[2]) {
    n[0] = n[1] = (packed_counts){0};
    cJSON *res = cJSON_Parse(out);
    cJSON *lc = cJSON_GetObjectItemCaseSensitive(res, "layer_columns");
    if (!lc) return res; /* an error answer: nothing packed */
    cJSON *tensors = cJSON_GetObjectItemCaseSensitive(lc, "tensors");
    const cJSON *pl = cJSON_GetObjectItemCaseSensitive(lc, "packed_bytes");
    const cJSON *pt = cJSON_GetObjectItemCaseSensitive(tensors, "packed_bytes");
    size_t text = strlen(out), start = (text + 1 + 7) & ~(size_t)7;
    double doubles = cJSON_IsNumber(pl) && cJSON_IsNumber(pt) ? pl->valuedouble + pt->valuedouble : -1;
    bool sized = doubles >= 0 && size == (doubles > 0 ? start + (size_t)doubles : text);
    CHECK(sized, "%s: %zu bytes = text %zu, aligned, + packed_bytes %g", name, size, text, doubles);
    if (!sized) {
        cJSON_Delete(res);
        return NULL;
    }
    /* the layer table's doubles, then the tensor table's */
    double layer_bytes = unpack_table(name, lc, out + start, &n[0]);
    unpack_table(name, tensors, out + start + (size_t)layer_bytes, &n[1]);
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
    packed_counts counts[2];
    cJSON *want = cJSON_Parse(cols), *got = unpacked(name, packed, size, counts);
    if (got && counts[0].packed) {
        CHECK(counts[0].packed > 5, "%s: most layer columns are packed (%d)", name, counts[0].packed);
        CHECK(counts[0].coded >= 3, "%s: columns of a few strings or booleans (op, bound...) are coded (%d)", name, counts[0].coded);
        CHECK(counts[0].lists == 2, "%s: inputs and outputs are lists of tensor rows (%d)", name, counts[0].lists);
        CHECK(counts[1].coded >= 1 && counts[1].lists == 1, "%s: tensors' dtype is coded (%d) and shape a list (%d)", name, counts[1].coded,
              counts[1].lists);
    }
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

/* "layer_io": false leaves out each layer's inputs and outputs, and the
 * tensor table with them, and nothing else: every row is the full row
 * less those two keys, packed too; a value that is not a boolean is
 * refused. */
static void without_io(const char *name, rl_model *m) {
    char *full = analyze(m, h100, "", "true"), *bare = analyze(m, h100, ",\"layer_io\":false", "true");
    char *packed = analyze(m, h100, ",\"layer_io\":false", "\"packed\"");
    cJSON *a = cJSON_Parse(full), *b = cJSON_Parse(bare);
    cJSON *rows = cJSON_GetObjectItemCaseSensitive(a, "layers");
    const cJSON *row;
    cJSON_ArrayForEach(row, rows) {
        cJSON_DeleteItemFromObjectCaseSensitive((cJSON *)row, "inputs");
        cJSON_DeleteItemFromObjectCaseSensitive((cJSON *)row, "outputs");
    }
    CHECK(cJSON_GetArraySize(rows) > 0 && cJSON_Compare(a, b, 1), "%s: layer_io false is the answer less the io lists: %.300s",
          name, bare);
    const char *lc = strstr(packed, "\"layer_columns\":");
    CHECK(lc && strstr(lc, "\"tensors\":{\"count\":0") && !strstr(lc, "\"inputs\""),
          "%s: packed without io has an empty tensor table: %.300s", name, lc ? lc : packed);
    char *bad = analyze(m, h100, ",\"layer_io\":\"no\"", "true");
    CHECK(strstr(bad, "\"ok\":false") && strstr(bad, "\"where\":\"layer_io\""), "layer_io \"no\" is refused: %.300s", bad);
    cJSON_Delete(a), cJSON_Delete(b);
    rl_free(full), rl_free(bare), rl_free(packed), rl_free(bad);
}

/* "top_layers": K holds the K layers of the longest floor time, longest
 * first (ties in graph order), each the full answer's row, and
 * "layers_total" says how many there are; in the packed columns too; a K
 * that is not a whole number from 1 and the CSV layout are refused. */
static int top_t_cmp(const void *a, const void *b) {
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    double tx = cJSON_GetObjectItem(x, "t")->valuedouble, ty = cJSON_GetObjectItem(y, "t")->valuedouble;
    return tx < ty ? 1 : tx > ty ? -1 : (int)(cJSON_GetObjectItem(x, "index")->valuedouble - cJSON_GetObjectItem(y, "index")->valuedouble);
}

static void top_layers(const char *name, rl_model *m) {
    char *full = analyze(m, h100, "", "true"), *top = analyze(m, h100, ",\"top_layers\":3", "true");
    char *packed = analyze(m, h100, ",\"top_layers\":3", "\"packed\"");
    cJSON *a = cJSON_Parse(full), *b = cJSON_Parse(top);
    if (!rl_answer_ok(full)) { /* a model the core refuses: refused alike */
        CHECK(!strcmp(full, top), "%s: the same error with top_layers: %.200s", name, top);
        cJSON_Delete(a), cJSON_Delete(b);
        rl_free(full), rl_free(top), rl_free(packed);
        return;
    }
    const cJSON *rows = cJSON_GetObjectItem(a, "layers"), *kept = cJSON_GetObjectItem(b, "layers");
    int n = cJSON_GetArraySize(rows), want = n < 3 ? n : 3;
    const cJSON **sorted = malloc(((size_t)n + 1) * sizeof *sorted);
    int k = 0;
    for (const cJSON *r = rows ? rows->child : NULL; r; r = r->next) sorted[k++] = r;
    qsort(sorted, (size_t)n, sizeof *sorted, top_t_cmp);
    CHECK(cJSON_GetArraySize(kept) == want && cJSON_GetObjectItem(b, "layers_total") &&
              cJSON_GetObjectItem(b, "layers_total")->valuedouble == n && !cJSON_GetObjectItem(a, "layers_total"),
          "%s: top_layers 3 keeps %d of %d layers: %.200s", name, cJSON_GetArraySize(kept), n, top);
    k = 0;
    for (const cJSON *r = kept ? kept->child : NULL; r && k < want; r = r->next, k++)
        CHECK(cJSON_Compare(r, sorted[k], 1), "%s: top layer %d is the full answer's layer %g", name, k,
              cJSON_GetObjectItem(sorted[k], "index")->valuedouble);
    char count[40];
    snprintf(count, sizeof count, "\"layer_columns\":{\"count\":%d,", want);
    CHECK(strstr(packed, count) != NULL, "%s: the packed top layers count %d: %.200s", name, want, packed);
    char *zero = analyze(m, h100, ",\"top_layers\":0", "true"), *csv = analyze(m, h100, ",\"top_layers\":3", "\"csv\"");
    CHECK(strstr(zero, "\"where\":\"top_layers\"") && strstr(csv, "\"where\":\"top_layers\""),
          "top_layers 0 and with the CSV are refused: %.200s %.200s", zero, csv);
    free(sorted);
    cJSON_Delete(a), cJSON_Delete(b);
    rl_free(full), rl_free(top), rl_free(packed), rl_free(zero), rl_free(csv);
}

static int models;
static void each_model(const char *name, rl_model *m, void *ctx) {
    (void)ctx;
    models++;
    compare(name, m, h100, "");
    compare(name, m, h100, ",\"mode\":\"training\",\"precision\":\"int8\",\"batch\":4");
    compare(name, m, tpu, ",\"precision\":\"fp32\"");
    compare_packed(name, m, h100, "");
    /* what an ok answer leaves out: on a sample of the fixtures that answer
     * (which ones the sample takes moves as fixtures are added, and some
     * fixtures are refused on purpose, e.g. ops/func_missing_attr.onnx) */
    char *full = analyze(m, h100, "", "true");
    bool ok = strstr(full, "\"ok\":true") != NULL;
    rl_free(full);
    if (ok && models % 8 == 1) without_io(name, m);
    if (ok && models % 4 == 2) top_layers(name, m);
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

/* One table written by the layer writer in `layout`, as the answer's
 * "layer_columns" member; *size is its length. Rows: a tensor list in
 * every row but the second (its column turns sparse), and "mixed", a list
 * then a number (its column turns to text). */
static char *written(rl_layer_layout layout, size_t *size) {
    static int64_t dims[2] = {2, -1};
    rl_value a = {.name = "a", .type = RL_TYPE_TENSOR, .dtype = 1, .rank = 2, .dims = dims};
    rl_value b = {.name = "b", .type = RL_TYPE_TENSOR, .dtype = 1, .rank = -1};
    rl_value *ab[2] = {&a, &b}, *ba[2] = {&b, &a};
    rl_ctx c = {0};
    rl_layer_writer *w = rl_layer_writer_new(layout, &c);
    for (int row = 0; row < 4; row++) {
        rl_layer_row_begin(w);
        rl_layer_num(w, "time", row);
        if (row != 1) rl_layer_tensors(w, "inputs", row == 2 ? ba : ab, row == 3 ? 1 : 2);
        if (row < 2) rl_layer_tensors(w, "mixed", ab, row + 1);
        else rl_layer_num(w, "mixed", row);
        rl_layer_row_end(w);
    }
    rl_json_text out = {0};
    const char *head = "{\"layer_columns\":";
    rl_json_text_put(&out, head, strlen(head));
    bool ok = rl_layer_writer_finish_into(w, &out, "}");
    *size = out.n;
    char *s = rl_json_text_finish(&out);
    CHECK(ok && s, "the layer writer finished (layout %d)", (int)layout);
    return s;
}

/* A column of lists that turns sparse, or gets a value of another kind,
 * goes back to text: the packed table still equals the columns one. */
static void lists_fall_back_to_text(void) {
    size_t size = 0, ignored;
    char *packed = written(RL_LAYERS_PACKED, &size), *cols = written(RL_LAYERS_COLUMNS, &ignored);
    packed_counts n[2];
    cJSON *want = cJSON_Parse(cols), *got = packed ? unpacked("writer", packed, size, n) : NULL;
    CHECK(got && cJSON_Compare(want, got, 1), "lists that turned to text: packed %.400s columns %.400s", packed, cols);
    CHECK(got && n[0].lists == 0 && n[1].lists == 1, "no layer column stayed a list (%d); shape did (%d)", got ? n[0].lists : -1,
          got ? n[1].lists : -1);
    CHECK(strstr(cols, "\"inputs\":{\"rows\":[0,2,3],\"values\":[[0,1],[1,0],[0]]}") &&
              strstr(cols, "\"mixed\":[[0],[0,1],2,3]"),
          "the columns are as written: %s", cols);
    cJSON_Delete(want), cJSON_Delete(got);
    free(packed), free(cols);
}

/* The CSV after the answer's NUL ("layers": "csv"), as a new string. */
static char *csv_of(rl_model *m, const char *extra) {
    size_t n = strlen(h100) + strlen(extra) + 64, size = 0;
    char *req = malloc(n);
    snprintf(req, n, "{\"hardware\":%s,\"layers\":\"csv\"%s}", h100, extra);
    char *out = rl_model_analyze_sized(m, req, &size);
    free(req);
    size_t at = out ? strlen(out) + 1 : 0;
    char *csv = out && strstr(out, "\"ok\":true") && at < size ? strndup(out + at, size - at) : strdup(out ? out : "");
    rl_free(out);
    return csv;
}

/* "layers": "csv": the header, one line a layer in graph order; with
 * csv.rows, those lines in that order after a line naming the filter;
 * layer indices the graph lacks and a csv member without the layout are
 * refused. */
static void csv_layout(void) {
    char path[2048];
    snprintf(path, sizeof path, "%s/fixtures/models/conv_net.onnx", tests_dir);
    rl_model *m = check_read_model(path);
    if (!m) return;
    char *all = csv_of(m, ""), *some = csv_of(m, ",\"csv\":{\"rows\":[2,0],\"filter\":\"name \\\"a\\nb\\\"\"}");
    CHECK(!strncmp(all, "index,name,op,domain,matrix_flops,", 34), "the CSV starts with its header: %.200s", all);
    char *line[8] = {0}, *p = all;
    int n = 0;
    for (char *nl; n < 8 && (nl = strchr(p, '\n')); p = nl + 1) line[n++] = strndup(p, (size_t)(nl - p));
    CHECK(n >= 4 && !strncmp(line[1], "0,", 2) && !strncmp(line[3], "2,", 2), "rows in graph order: %.300s", all);
    size_t want_n = 1024;
    char *want = malloc(want_n);
    int total = 0;
    for (p = all; (p = strchr(p, '\n')) && p[1]; p++) total++;
    snprintf(want, want_n, "# 2 of %d layers: only those the table's filter shows (name \"a b\")\n%s\n%s\n%s\n", total,
             line[0], line[3], line[1]);
    CHECK(n >= 4 && !strcmp(some, want), "the chosen rows, in order, under the filter's line:\n%s\nwant\n%s", some, want);
    /* a layer listed twice: a 3 MB request of repeats made a 288 MB CSV (issue 43) */
    static const char *const bad[][2] = {{",\"csv\":{\"rows\":[99]}", "csv.rows"},
                                         {",\"csv\":{\"rows\":[1,0,1]}", "csv.rows"},
                                         {",\"csv\":{\"rows\":[-1]}", "csv"},
                                         {",\"csv\":{\"rows\":[0.5]}", "csv"},
                                         {",\"csv\":{\"filter\":3}", "csv"},
                                         {",\"csv\":[1]", "csv"}};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char *e = csv_of(m, bad[k][0]), where[64];
        snprintf(where, sizeof where, "\"where\":\"%s\"", bad[k][1]);
        CHECK(strstr(e, "\"ok\":false") && strstr(e, where), "%s is refused at %s: %.300s", bad[k][0], bad[k][1], e);
        free(e);
    }
    char *no_layout = analyze(m, h100, ",\"csv\":{}", "true");
    CHECK(strstr(no_layout, "\"ok\":false") && strstr(no_layout, "goes with"), "csv without the layout: %.300s", no_layout);
    rl_free(no_layout);
    for (int i = 0; i < n; i++) free(line[i]);
    free(all), free(some), free(want);
    rl_model_free(m);
}

/* rl_format_number writes what JavaScript's String() writes. */
static void js_numbers(void) {
    static const struct { double v; const char *js; } cases[] = {
        {0, "0"}, {-0.0, "0"}, {0.1, "0.1"}, {1049600, "1049600"}, {3.1331343283582088e-07, "3.133134328358209e-7"},
        {5.2971203844286033e-05, "0.00005297120384428603"}, {1e21, "1e+21"}, {1e20, "100000000000000000000"},
        {1e-7, "1e-7"}, {1e-6, "0.000001"}, {-2.5, "-2.5"}, {5e-324, "5e-324"}, {0.30000000000000004, "0.30000000000000004"},
        {1.7976931348623157e308, "1.7976931348623157e+308"}, {123.456, "123.456"}, {1.5e300, "1.5e+300"}};
    char buf[32];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        rl_format_number(buf, sizeof buf, cases[i].v);
        CHECK(!strcmp(buf, cases[i].js), "%.17g is %s, as String() writes it, not %s", cases[i].v, cases[i].js, buf);
    }
    CHECK(rl_format_number(buf, sizeof buf, NAN) == 0 && !buf[0], "NaN is an empty cell");
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
    lists_fall_back_to_text();
    csv_layout();
    js_numbers();
    free(h100), free(tpu);
    return check_report("layer columns");
}
