/* The per-layer part of the response, written straight into text: a
 * 100,000-layer answer must not hold a cJSON tree per layer (most of the
 * time went to malloc). Contract in layer_writer.h. */
#include "layer_writer.h"

#include <stdlib.h>
#include <string.h>

typedef struct column {
    const char *key;
    rl_json_text values; /* comma-separated, without brackets */
    int count;           /* values written */
    bool sparse;         /* some row lacks the key: `rows` says which rows have it */
    int *rows, rows_cap;
} column;

typedef struct table {
    column *cols;
    int n_cols, cap_cols;
    int cursor; /* the column expected next: rows write their keys in the same order */
    int row;    /* rows finished */
} table;

/* Where a field goes: a row object in the rows text, or a table's columns. */
typedef struct sink {
    table *t;   /* NULL: rows layout */
    bool first; /* rows layout: no field yet in this object */
} sink;

struct rl_layer_writer {
    rl_layer_layout layout;
    const rl_ctx *c;
    bool oom;
    rl_json_text rows; /* rows layout: the array so far */
    sink layer;        /* the row being written */
    table layers, tensors;
    /* columns layout: tensor -> its row in `tensors` (open addressing) */
    const rl_value **seen;
    int *seen_row;
    size_t seen_cap, n_seen;
};

static void put(rl_json_text *t, const char *s) { rl_json_text_put(t, s, strlen(s)); }

rl_layer_writer *rl_layer_writer_new(rl_layer_layout layout, const rl_ctx *c) {
    rl_layer_writer *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->layout = layout;
    w->c = c;
    if (layout == RL_LAYERS_ROWS) put(&w->rows, "[");
    return w;
}

/* ------------------------------------------------------------- columns -- */
static column *column_for(table *t, const char *key) {
    if (t->cursor < t->n_cols && (t->cols[t->cursor].key == key || !strcmp(t->cols[t->cursor].key, key)))
        return &t->cols[t->cursor++];
    for (int i = 0; i < t->n_cols; i++) {
        if (t->cols[i].key == key || !strcmp(t->cols[i].key, key)) {
            t->cursor = i + 1;
            return &t->cols[i];
        }
    }
    if (t->n_cols == t->cap_cols) {
        int cap = t->cap_cols ? 2 * t->cap_cols : 32;
        column *p = realloc(t->cols, (size_t)cap * sizeof *p);
        if (!p) return NULL;
        t->cols = p;
        t->cap_cols = cap;
    }
    column *col = &t->cols[t->n_cols++];
    memset(col, 0, sizeof *col);
    col->key = key;
    t->cursor = t->n_cols;
    return col;
}

static bool reserve_rows(column *col, int n) {
    if (n <= col->rows_cap) return true;
    int cap = col->rows_cap ? col->rows_cap : 16;
    while (cap < n) cap *= 2;
    int *p = realloc(col->rows, (size_t)cap * sizeof *p);
    if (!p) return false;
    col->rows = p;
    col->rows_cap = cap;
    return true;
}

/* The values so far were rows 0..count-1; from now on rows are listed. */
static bool make_sparse(column *col) {
    if (!reserve_rows(col, col->count + 1)) return false;
    for (int i = 0; i < col->count; i++) col->rows[i] = i;
    col->sparse = true;
    return true;
}

/* The next value of col belongs to `row`. */
static bool note_row(column *col, int row) {
    if (!col->sparse) {
        if (col->count == row) return true;
        if (!make_sparse(col)) return false;
    }
    if (!reserve_rows(col, col->count + 1)) return false;
    col->rows[col->count] = row;
    return true;
}

/* The text the value of `key` is written into, after what goes before it;
 * NULL when out of memory. */
static rl_json_text *field(rl_layer_writer *w, sink *s, const char *key) {
    if (w->oom) return NULL;
    if (!s->t) {
        if (!s->first) put(&w->rows, ",");
        s->first = false;
        rl_json_text_string(&w->rows, key);
        put(&w->rows, ":");
        return &w->rows;
    }
    column *col = column_for(s->t, key);
    if (!col || !note_row(col, s->t->row)) {
        w->oom = true;
        return NULL;
    }
    if (col->count++) put(&col->values, ",");
    return &col->values;
}

static void put_num(rl_layer_writer *w, sink *s, const char *key, double v) {
    rl_json_text *t = field(w, s, key);
    if (t) rl_json_text_number(t, v);
}

static void put_str(rl_layer_writer *w, sink *s, const char *key, const char *v) {
    rl_json_text *t = field(w, s, key);
    if (t) rl_json_text_string(t, v);
}

static void put_raw(rl_layer_writer *w, sink *s, const char *key, const char *raw) {
    rl_json_text *t = field(w, s, key);
    if (t) put(t, raw);
}

/* ------------------------------------------------------------- tensors -- */
const char *rl_value_dtype_text(const rl_ctx *c, const rl_value *v) {
    if (v->type != RL_TYPE_TENSOR)
        return v->type == RL_TYPE_SEQUENCE ? "sequence"
               : v->type == RL_TYPE_OPTIONAL ? "optional"
               : v->type == RL_TYPE_MAP ? "map" : "other";
    if (!v->dtype) return "unknown";
    return rl_dtype_name(c->precision_dtype && rl_dtype_is_float(v->dtype) ? c->precision_dtype : v->dtype);
}

const char *rl_value_shape_source_text(const rl_value *v) {
    /* rooflens could not infer it: the shape is the model's own declaration,
     * either because it depends on a value only known at run time (and
     * agrees with what could be inferred) or for another reason. Users need
     * to know which numbers rest on the exporter's word. */
    if (!v->from_declared) return NULL;
    return v->shape_source == RL_SRC_DECLARED_RUNTIME ? "declared_runtime" : "declared";
}

static void tensor_fields(rl_layer_writer *w, sink *s, const rl_value *v) {
    put_str(w, s, "name", v->name);
    put_str(w, s, "dtype", rl_value_dtype_text(w->c, v));
    rl_json_text *t = field(w, s, "shape");
    if (t && v->rank < 0) {
        put(t, "null");
    } else if (t) {
        put(t, "[");
        for (int i = 0; i < v->rank; i++) {
            if (i) put(t, ",");
            if (v->dims[i] < 0) put(t, "null");
            else rl_json_text_number(t, (double)v->dims[i]);
        }
        put(t, "]");
    }
    const char *source = rl_value_shape_source_text(v);
    if (source) {
        put_raw(w, s, "declared", "true");
        put_str(w, s, "shape_source", source);
    }
}

/* The row of v in the tensor table, written there on first sight; -1 when
 * out of memory. */
static int tensor_row(rl_layer_writer *w, const rl_value *v) {
    if (2 * (w->n_seen + 1) > w->seen_cap) {
        size_t cap = w->seen_cap ? 2 * w->seen_cap : 1024;
        const rl_value **keys = calloc(cap, sizeof *keys);
        int *rows = malloc(cap * sizeof *rows);
        if (!keys || !rows) {
            free(keys), free(rows);
            return -1;
        }
        for (size_t i = 0; i < w->seen_cap; i++) {
            if (!w->seen[i]) continue;
            size_t h = ((uintptr_t)w->seen[i] >> 4) & (cap - 1);
            while (keys[h]) h = (h + 1) & (cap - 1);
            keys[h] = w->seen[i];
            rows[h] = w->seen_row[i];
        }
        free(w->seen), free(w->seen_row);
        w->seen = keys;
        w->seen_row = rows;
        w->seen_cap = cap;
    }
    size_t h = ((uintptr_t)v >> 4) & (w->seen_cap - 1);
    while (w->seen[h] && w->seen[h] != v) h = (h + 1) & (w->seen_cap - 1);
    if (w->seen[h]) return w->seen_row[h];
    sink s = {&w->tensors, false};
    w->tensors.cursor = 0;
    tensor_fields(w, &s, v);
    w->seen[h] = v;
    w->seen_row[h] = w->tensors.row++;
    w->n_seen++;
    return w->seen_row[h];
}

/* --------------------------------------------------------------- public -- */
void rl_layer_row_begin(rl_layer_writer *w) {
    w->layer = (sink){w->layout == RL_LAYERS_COLUMNS ? &w->layers : NULL, true};
    if (w->layout == RL_LAYERS_ROWS) put(&w->rows, w->layers.row ? ",{" : "{");
    w->layers.cursor = 0;
}

void rl_layer_row_end(rl_layer_writer *w) {
    if (w->layout == RL_LAYERS_ROWS) put(&w->rows, "}");
    w->layers.row++;
}

void rl_layer_num(rl_layer_writer *w, const char *key, double v) { put_num(w, &w->layer, key, v); }
void rl_layer_str(rl_layer_writer *w, const char *key, const char *s) { put_str(w, &w->layer, key, s); }
void rl_layer_bool(rl_layer_writer *w, const char *key, bool v) { put_raw(w, &w->layer, key, v ? "true" : "false"); }
void rl_layer_null(rl_layer_writer *w, const char *key) { put_raw(w, &w->layer, key, "null"); }

void rl_layer_tensors(rl_layer_writer *w, const char *key, rl_value *const *vals, int n) {
    rl_json_text *t = field(w, &w->layer, key);
    if (!t) return;
    put(t, "[");
    bool first = true;
    for (int i = 0; i < n; i++) {
        if (!vals[i]) continue;
        if (!first) put(t, ",");
        first = false;
        if (w->layout == RL_LAYERS_ROWS) {
            put(t, "{");
            sink s = {NULL, true};
            tensor_fields(w, &s, vals[i]);
            put(t, "}");
            continue;
        }
        int row = tensor_row(w, vals[i]);
        if (row < 0) {
            w->oom = true;
            return;
        }
        rl_json_text_number(t, row); /* tensor_row wrote into the other table: t stands */
    }
    put(t, "]");
}

/* "count":N,"columns":{...} of a table, freeing its columns. */
static void table_members(rl_layer_writer *w, rl_json_text *out, table *t) {
    put(out, "\"count\":");
    rl_json_text_number(out, t->row);
    put(out, ",\"columns\":{");
    for (int i = 0; i < t->n_cols; i++) {
        column *col = &t->cols[i];
        if (!col->sparse && col->count < t->row && !make_sparse(col)) w->oom = true;
        if (i) put(out, ",");
        rl_json_text_string(out, col->key);
        if (col->sparse) {
            put(out, ":{\"rows\":[");
            for (int r = 0; r < col->count && col->rows; r++) {
                if (r) put(out, ",");
                rl_json_text_number(out, col->rows[r]);
            }
            put(out, "],\"values\":[");
        } else {
            put(out, ":[");
        }
        if (col->values.n) rl_json_text_put(out, col->values.p, col->values.n);
        put(out, col->sparse ? "]}" : "]");
        if (col->values.oom) w->oom = true;
        free(col->values.p);
        free(col->rows);
    }
    put(out, "}");
    free(t->cols);
    t->cols = NULL;
    t->n_cols = 0;
}

static void free_table(table *t) {
    for (int i = 0; i < t->n_cols; i++) {
        free(t->cols[i].values.p);
        free(t->cols[i].rows);
    }
    free(t->cols);
    t->cols = NULL;
    t->n_cols = 0;
}

void rl_layer_writer_free(rl_layer_writer *w) {
    if (!w) return;
    free_table(&w->layers);
    free_table(&w->tensors);
    free(w->rows.p);
    free(w->seen), free(w->seen_row);
    free(w);
}

/* Bytes the columns of t will take in the text (an upper bound). */
static size_t table_size(const table *t) {
    size_t n = 64;
    for (int i = 0; i < t->n_cols; i++) {
        const column *col = &t->cols[i];
        n += col->values.n + strlen(col->key) * 2 + 32;
        if (col->sparse || col->count < t->row) n += (size_t)t->row * 11 + 32; /* row indices */
    }
    return n;
}

bool rl_layer_writer_finish_into(rl_layer_writer *w, rl_json_text *out) {
    if (!w) {
        out->oom = true;
        return false;
    }
    if (w->layout == RL_LAYERS_ROWS) {
        put(&w->rows, "]");
        if (w->rows.n) rl_json_text_put(out, w->rows.p, w->rows.n);
        free(w->rows.p);
    } else {
        /* one allocation for the whole section: grown by doubling, a
         * 25 MB answer touched twice its size in fresh memory */
        rl_json_text_reserve(out, table_size(&w->layers) + table_size(&w->tensors));
        put(out, "{");
        table_members(w, out, &w->layers);
        put(out, ",\"tensors\":{");
        table_members(w, out, &w->tensors);
        put(out, "}}");
        free(w->rows.p);
    }
    bool ok = !w->oom && !out->oom;
    free(w->seen), free(w->seen_row);
    free(w);
    if (!ok) out->oom = true;
    return ok;
}

char *rl_layer_writer_finish(rl_layer_writer *w) {
    rl_json_text out = {0};
    bool ok = rl_layer_writer_finish_into(w, &out);
    char *s = rl_json_text_finish(&out);
    if (!ok) {
        free(s);
        return NULL;
    }
    return s;
}
