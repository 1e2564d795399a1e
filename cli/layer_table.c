/* The per-layer figures of an analysis read where the core put them: the
 * packed layer table ("layers": "packed", docs/api.md), whose numbers and
 * coded strings are doubles after the answer's text. The printers take each
 * figure from here, so no layer row is written as text and parsed back. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "print.h"

int layer_table_open(layer_table *t, const cJSON *res, const char *answer, size_t size) {
    *t = (layer_table){0};
    const cJSON *lc = get(res, "layer_columns");
    t->columns = get(lc, "columns");
    double count = num(lc, "count"), bytes = num(lc, "packed_bytes");
    if (!cJSON_IsObject(t->columns) || !(count >= 0) || count > INT32_MAX || !(bytes >= 0)) return -1;
    /* the doubles start after the text's NUL, at the next multiple of 8 */
    size_t at = (strlen(answer) + 1 + 7) & ~(size_t)7;
    if (at > size || bytes > (double)(size - at) || (size_t)bytes % sizeof(double)) return -1;
    t->count = (int)count;
    t->doubles = (const unsigned char *)answer + at;
    t->n_doubles = (size_t)bytes / sizeof(double);
    return 0;
}

/* One column's doubles, or NULL when slot k is not in the table. */
static const unsigned char *slot_of(const layer_table *t, const cJSON *col) {
    const cJSON *k = get(col, "f64");
    if (!cJSON_IsNumber(k) || k->valuedouble < 0 || t->count == 0) return NULL;
    double first = k->valuedouble * t->count;
    if (first + t->count > (double)t->n_doubles) return NULL;
    return t->doubles + (size_t)first * sizeof(double);
}

void layer_col_open(const layer_table *t, const char *name, layer_col *c) {
    *c = (layer_col){.count = t->count};
    const cJSON *col = get(t->columns, name);
    if (!col) return;
    c->f64 = slot_of(t, col);
    c->values = get(col, "enum");
    if (c->f64) return;
    /* a column left as text: dense (an array, one value a row) or sparse
     * ({"rows", "values"}); each row's value found once, here */
    c->items = calloc((size_t)t->count + 1, sizeof *c->items);
    if (!c->items) return;
    const cJSON *v;
    int i = 0;
    if (cJSON_IsArray(col)) {
        cJSON_ArrayForEach(v, col) if (i < t->count) c->items[i++] = v;
        return;
    }
    const cJSON *rows = get(col, "rows"), *r = rows ? rows->child : NULL;
    for (v = get(col, "values") ? get(col, "values")->child : NULL; v && r; v = v->next, r = r->next)
        if (cJSON_IsNumber(r) && r->valuedouble >= 0 && r->valuedouble < t->count) c->items[(int)r->valuedouble] = v;
}

void layer_col_close(layer_col *c) {
    free(c->items);
    c->items = NULL;
}

/* The double of row i (NaN: null); memcpy, as the bytes need not be aligned
 * in the caller's buffer. */
static double row_double(const layer_col *c, int i) {
    double d;
    memcpy(&d, c->f64 + (size_t)i * sizeof d, sizeof d);
    return d;
}

const cJSON *layer_value(const layer_col *c, int i) {
    if (i < 0 || i >= c->count) return NULL;
    if (c->f64 && c->values) {
        double d = row_double(c, i);
        return isnan(d) ? NULL : cJSON_GetArrayItem(c->values, (int)d);
    }
    return c->items ? c->items[i] : NULL;
}

double layer_num(const layer_col *c, int i) {
    if (i < 0 || i >= c->count) return NAN;
    if (c->f64 && !c->values) return row_double(c, i);
    const cJSON *v = layer_value(c, i);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

const char *layer_str(const layer_col *c, int i) {
    const cJSON *v = layer_value(c, i);
    return cJSON_IsString(v) ? v->valuestring : "";
}
