/* The per-layer part of the response, written straight into text: a
 * 100,000-layer answer must not hold a cJSON tree per layer (most of the
 * time went to malloc). Contract in layer_writer.h.
 *
 * Near the 800-line cap because it is one writer: each field of a layer is
 * written once, for the rows, the columns and the packed layout alike, and
 * its tensor table shares the same sinks and column state; split by layout
 * or by table, that private state would have to stand in a header between
 * the parts. */
#include "layer_writer.h"

#include "layer_csv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A packed column with more distinct non-number values than this is text
 * (a column of names). */
#define RL_MAX_CHOICES 64

typedef struct column {
    const char *key;
    rl_json_text values; /* comma-separated, without brackets */
    int count;           /* values written */
    bool sparse;         /* some row lacks the key: `rows` says which rows have it */
    int *rows, rows_cap;
    /* packed layout: a dense column of numbers (null as NaN) is kept as
     * doubles, nums[0..count), and a dense column of a few distinct strings,
     * booleans or nulls as their codes in `choices`, until a value of
     * another kind arrives, there are too many choices or a row lacks the
     * key; then they move into `values` as text */
    double *nums;
    int nums_cap;
    int first_cap;     /* the doubles' first room: the rows expected, else 1024 */
    bool is_enum;      /* nums are codes into choices */
    bool is_list;      /* a column of lists of numbers (or nulls): `values` holds
                        * every row's items as one list, `flat_n` of them, and
                        * nums each row's end in it (NaN: null, not a list) */
    int flat_n;
    struct choice {
        const char *s; /* the string (copied), or the literal true/false/null */
        bool string;
    } choices[RL_MAX_CHOICES];
    int n_choices;
    bool text; /* the values are text */
} column;

typedef struct table {
    column *cols;
    int n_cols, cap_cols;
    int cursor; /* the column expected next: rows write their keys in the same order */
    int row;    /* rows finished */
    int expect; /* rows to come (rl_layer_writer_expect_rows), 0: unknown */
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
    rl_layer_csv *csv; /* the CSV layout's table */
    rl_text_stream stream; /* rows layout, streamed (rl_layer_writer_stream): where the pieces go */
};

static void put(rl_json_text *t, const char *s) { rl_json_text_put(t, s, strlen(s)); }
static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

/* Room for `need` items of `size` bytes in array p of *cap items, grown by
 * doubling from `first`: the array (moved), or NULL when out of memory (p
 * and *cap unchanged). */
static void *grow(void *p, int *cap, int need, size_t size, int first) {
    if (need <= *cap) return p;
    int c = *cap ? *cap : first;
    while (c < need) c *= 2;
    void *q = realloc(p, (size_t)c * size);
    if (q) *cap = c;
    return q;
}

rl_layer_writer *rl_layer_writer_new(rl_layer_layout layout, const rl_ctx *c) {
    rl_layer_writer *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->layout = layout;
    w->c = c;
    if (layout == RL_LAYERS_ROWS) put(&w->rows, "[");
    if (layout == RL_LAYERS_CSV && !(w->csv = rl_layer_csv_new(0))) {
        free(w);
        return NULL;
    }
    return w;
}

void rl_layer_writer_expect_rows(rl_layer_writer *w, int n) { w->layers.expect = n > 0 ? n : 0; }

bool rl_layer_writer_csv_select(rl_layer_writer *w, const int *rows, int n, const char *filter) {
    return w->csv && rl_layer_csv_select(w->csv, rows, n, filter);
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
    /* room for every column of a layer at once (about 40, 50 measured): a
     * grown array moves, and each column holds its values' buffers */
    column *cols = grow(t->cols, &t->cap_cols, t->n_cols + 1, sizeof *cols, 64);
    if (!cols) return NULL;
    t->cols = cols;
    column *col = &t->cols[t->n_cols++];
    memset(col, 0, sizeof *col);
    col->key = key;
    col->first_cap = t->expect > 0 ? t->expect : 1024;
    t->cursor = t->n_cols;
    return col;
}

static bool reserve_rows(column *col, int n) {
    int *rows = grow(col->rows, &col->rows_cap, n, sizeof *rows, 16);
    if (rows) col->rows = rows;
    return rows != NULL;
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

/* The column of `key` in s's table, told that its next value belongs to
 * the current row; NULL when out of memory. */
static column *column_at(rl_layer_writer *w, sink *s, const char *key) {
    column *col = column_for(s->t, key);
    if (!col || !note_row(col, s->t->row)) {
        w->oom = true;
        return NULL;
    }
    return col;
}

static void put_choice(rl_json_text *t, const struct choice *c) {
    if (c->string) rl_json_text_string(t, c->s);
    else put(t, c->s);
}

static void free_choices(column *col) {
    for (int i = 0; i < col->n_choices; i++)
        if (col->choices[i].string) free((char *)col->choices[i].s);
    col->n_choices = 0;
}

/* A column of lists into text: row by row, its items (a span of the flat
 * list: numbers and nulls hold no comma) between brackets, or null. */
static void unpack_lists(column *col) {
    rl_json_text flat = col->values;
    col->values = (rl_json_text){0};
    size_t at = 0; /* where the next item starts in flat */
    int done = 0;  /* items copied */
    for (int i = 0; i < col->count; i++) {
        if (i) put(&col->values, ",");
        double end = col->nums[i];
        if (end != end) {
            put(&col->values, "null");
            continue;
        }
        size_t from = at, to = at; /* the row's span: before the comma after it */
        for (; done < (int)end; done++) {
            const char *comma = memchr(flat.p + at, ',', flat.n - at);
            to = comma ? (size_t)(comma - flat.p) : flat.n;
            at = comma ? to + 1 : flat.n;
        }
        put(&col->values, "[");
        if (to > from) rl_json_text_put(&col->values, flat.p + from, to - from);
        put(&col->values, "]");
    }
    if (flat.oom) col->values.oom = true;
    free(flat.p);
}

/* The doubles or codes a column kept move into its text (a value of
 * another kind came, or the column turned sparse). */
static void unpack(column *col) {
    if (col->is_list && col->nums) unpack_lists(col);
    for (int i = 0; i < col->count && col->nums && !col->is_list; i++) {
        if (i) put(&col->values, ",");
        if (col->is_enum) put_choice(&col->values, &col->choices[(int)col->nums[i]]);
        else rl_json_text_number(&col->values, col->nums[i]);
    }
    free_choices(col);
    col->is_enum = false;
    col->is_list = false;
    free(col->nums);
    col->nums = NULL;
    col->nums_cap = 0;
    col->text = true;
}

/* The column's text, ready for its next value. */
static rl_json_text *column_text(column *col) {
    if (!col->text) unpack(col);
    if (col->count++) put(&col->values, ",");
    return &col->values;
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
    column *col = column_at(w, s, key);
    return col ? column_text(col) : NULL;
}

/* Keeps v as a double in col; false when out of memory. */
static bool push_double(column *col, double v) {
    double *nums = grow(col->nums, &col->nums_cap, col->count + 1, sizeof *nums, col->first_cap);
    if (!nums) return false;
    col->nums = nums;
    col->nums[col->count++] = v;
    return true;
}

static char *copy_string(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

/* Whether the packed layout keeps col's values apart from text. */
static bool packable(const rl_layer_writer *w, const sink *s, const column *col) {
    return w->layout == RL_LAYERS_PACKED && s->t && !col->text && !col->sparse;
}

/* A string (string) or a literal (true, false, null) kept as its code
 * among col's choices; false: write it as text. */
static bool put_coded(rl_layer_writer *w, column *col, const char *v, bool string) {
    if (col->count && !col->is_enum) return false; /* a column of numbers */
    int code = 0;
    while (code < col->n_choices &&
           (col->choices[code].string != string || strcmp(col->choices[code].s, v) != 0)) code++;
    if (code == col->n_choices) {
        if (code == RL_MAX_CHOICES) return false;
        const char *copy = string ? copy_string(v) : v;
        if (!copy) {
            w->oom = true;
            return true;
        }
        col->choices[col->n_choices++] = (struct choice){copy, string};
    }
    col->is_enum = true;
    if (!push_double(col, code)) w->oom = true;
    return true;
}

/* A number: kept as a double in the packed layout while its column holds
 * a number (or null) in every row so far; text otherwise. */
static void put_num(rl_layer_writer *w, sink *s, const char *key, double v) {
    if (!s->t || w->oom) {
        rl_json_text *t = field(w, s, key);
        if (t) rl_json_text_number(t, v);
        return;
    }
    column *col = column_at(w, s, key);
    if (!col) return;
    if (packable(w, s, col) && !col->is_enum && !col->is_list) {
        /* the double the JSON text of v reads back as: a packed answer
         * equals the others to the last bit */
        if (!push_double(col, rl_json_number_value(v))) w->oom = true;
        return;
    }
    if (packable(w, s, col) && !isfinite(v) && put_coded(w, col, "null", false)) return;
    rl_json_text_number(column_text(col), v);
}

/* A string, or a literal (string false): coded in the packed layout when
 * its column allows, else text. */
static void put_value(rl_layer_writer *w, sink *s, const char *key, const char *v, bool string) {
    if (!s->t || w->oom) {
        rl_json_text *t = field(w, s, key);
        if (t && string) rl_json_text_string(t, v);
        else if (t) put(t, v);
        return;
    }
    column *col = column_at(w, s, key);
    if (!col) return;
    if (packable(w, s, col) && put_coded(w, col, v ? v : "", string)) return;
    if (string) rl_json_text_string(column_text(col), v);
    else put(column_text(col), v);
}

static void put_str(rl_layer_writer *w, sink *s, const char *key, const char *v) { put_value(w, s, key, v, true); }

static void put_raw(rl_layer_writer *w, sink *s, const char *key, const char *raw) { put_value(w, s, key, raw, false); }

/* ---------------------------------------------------- lists of numbers -- */
/* A list being written: into text (`t`, between brackets), or, packed,
 * onto its column's flat list (`col`). */
typedef struct {
    rl_json_text *t;
    column *col;
    int n; /* items so far */
} list_out;

/* The packed column of lists `key` in s's table, or NULL: the list goes
 * into text. */
static column *list_column(rl_layer_writer *w, sink *s, const char *key, list_out *l) {
    column *col = column_at(w, s, key);
    if (!col) return NULL;
    if (packable(w, s, col) && (col->is_list || !col->count)) {
        col->is_list = true;
        return col;
    }
    l->t = column_text(col);
    return NULL;
}

/* Starts the list value of `key`; false when out of memory. */
static bool list_begin(rl_layer_writer *w, sink *s, const char *key, list_out *l) {
    *l = (list_out){0};
    if (w->oom) return false;
    if (s->t) l->col = list_column(w, s, key, l);
    else l->t = field(w, s, key);
    if (l->col) l->t = &l->col->values;
    else if (l->t) put(l->t, "[");
    return l->t != NULL;
}

static void list_item(list_out *l, double v) {
    if (l->col ? l->col->flat_n++ : l->n) put(l->t, ",");
    l->n++;
    rl_json_text_number(l->t, v);
}

static void list_end(rl_layer_writer *w, list_out *l) {
    if (!l->col) put(l->t, "]");
    else if (!push_double(l->col, l->col->flat_n)) w->oom = true;
}

/* null where a list would be (a tensor of unknown rank) */
static void list_null(rl_layer_writer *w, sink *s, const char *key) {
    list_out l = {0};
    column *col = s->t && !w->oom ? list_column(w, s, key, &l) : NULL;
    if (col && !push_double(col, NAN)) w->oom = true;
    if (col) return;
    if (!s->t) l.t = field(w, s, key);
    if (l.t) put(l.t, "null");
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
    list_out shape;
    if (v->rank < 0) {
        list_null(w, s, "shape");
    } else if (list_begin(w, s, "shape", &shape)) {
        for (int i = 0; i < v->rank; i++) list_item(&shape, v->dims[i] < 0 ? NAN : (double)v->dims[i]);
        list_end(w, &shape);
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
    if (w->csv) rl_layer_csv_row_begin(w->csv);
    w->layer = (sink){w->layout != RL_LAYERS_ROWS ? &w->layers : NULL, true};
    if (w->layout == RL_LAYERS_ROWS) put(&w->rows, w->layers.row ? ",{" : "{");
    w->layers.cursor = 0;
}

void rl_layer_writer_stream(rl_layer_writer *w, rl_write_fn write, void *ctx) {
    if (w->csv) rl_layer_csv_stream(w->csv, write, ctx);
    else w->stream = (rl_text_stream){write, ctx, false};
}

bool rl_layer_writer_finish_stream(rl_layer_writer *w) {
    if (w && w->csv) {
        bool ok = rl_layer_csv_finish_stream(w->csv) && !w->oom;
        w->csv = NULL;
        rl_layer_writer_free(w);
        return ok;
    }
    if (!w || !w->stream.write) {
        rl_layer_writer_free(w);
        return false;
    }
    put(&w->rows, "]");
    rl_text_stream_piece(&w->stream, &w->rows);
    bool ok = !w->stream.stopped && !w->oom;
    rl_layer_writer_free(w);
    return ok;
}

void rl_layer_row_end(rl_layer_writer *w) {
    if (w->layout == RL_LAYERS_ROWS) put(&w->rows, "}");
    if (w->stream.write && w->rows.n >= RL_STREAM_PIECE) rl_text_stream_piece(&w->stream, &w->rows);
    if (w->csv) rl_layer_csv_row_end(w->csv);
    w->layers.row++;
}

/* The CSV layout writes each field as its cell, no JSON at all. */
void rl_layer_num(rl_layer_writer *w, const char *key, double v) {
    if (w->csv) rl_layer_csv_num(w->csv, key, v);
    else put_num(w, &w->layer, key, v);
}
void rl_layer_str(rl_layer_writer *w, const char *key, const char *s) {
    if (w->csv) rl_layer_csv_text(w->csv, key, s);
    else put_str(w, &w->layer, key, s);
}
void rl_layer_bool(rl_layer_writer *w, const char *key, bool v) {
    if (w->csv) rl_layer_csv_literal(w->csv, key, v ? "true" : "false");
    else put_raw(w, &w->layer, key, v ? "true" : "false");
}
/* null is what a non-finite number is written as: packed, a column of
 * numbers and nulls stays a column of numbers */
void rl_layer_null(rl_layer_writer *w, const char *key) { rl_layer_num(w, key, NAN); }

/* A CSV cell of tensors: "float32[1,64,?], int64[?]", a dim not known as
 * ?, a rank not known as [?] (the page's table shows them so). */
static void csv_tensors(rl_layer_writer *w, const char *key, rl_value *const *vals, int n) {
    rl_json_text t = {0};
    for (int i = 0, first = 1; i < n; i++) {
        if (!vals[i]) continue;
        if (!first) put(&t, ", ");
        first = 0;
        put(&t, rl_value_dtype_text(w->c, vals[i]));
        put(&t, vals[i]->rank < 0 ? "[?" : "[");
        for (int d = 0; d < vals[i]->rank; d++) {
            if (d) put(&t, ",");
            if (vals[i]->dims[d] < 0) put(&t, "?");
            else rl_json_text_number(&t, (double)vals[i]->dims[d]);
        }
        put(&t, "]");
    }
    char *s = rl_json_text_finish(&t);
    if (!s) w->oom = true;
    else rl_layer_csv_text(w->csv, key, s);
    free(s);
}

void rl_layer_tensors(rl_layer_writer *w, const char *key, rl_value *const *vals, int n) {
    if (w->csv) {
        csv_tensors(w, key, vals, n);
        return;
    }
    if (w->layout == RL_LAYERS_ROWS) {
        rl_json_text *t = field(w, &w->layer, key);
        if (!t) return;
        put(t, "[");
        bool first = true;
        for (int i = 0; i < n; i++) {
            if (!vals[i]) continue;
            put(t, first ? "{" : ",{");
            first = false;
            sink s = {NULL, true};
            tensor_fields(w, &s, vals[i]);
            put(t, "}");
        }
        put(t, "]");
        return;
    }
    /* a list of rows in the tensor table (tensor_row writes into that
     * table: the list, in the layer table, stands) */
    list_out l;
    if (!list_begin(w, &w->layer, key, &l)) return;
    for (int i = 0; i < n; i++) {
        if (!vals[i]) continue;
        int row = tensor_row(w, vals[i]);
        if (row < 0) {
            w->oom = true;
            return;
        }
        list_item(&l, row);
    }
    list_end(w, &l);
}

/* A column kept as doubles to the end: a number in every row. */
static bool packed(const table *t, const column *col) {
    return !col->text && !col->sparse && col->nums && col->count == t->row;
}

/* Columns that some rows lack become sparse; a column of doubles among
 * them moves into text. Returns how many columns stay doubles. */
static int settle(rl_layer_writer *w, table *t) {
    int n = 0;
    for (int i = 0; i < t->n_cols; i++) {
        column *col = &t->cols[i];
        if (!col->sparse && col->count < t->row && !make_sparse(col)) w->oom = true;
        if (!col->text && col->nums && col->sparse) unpack(col);
        n += packed(t, col);
    }
    return n;
}

/* "count":N[,"packed_bytes":B],"columns":{...} of a table; a column of
 * doubles is written as {"f64":k}, k counting such columns from 0. */
static void table_members(rl_layer_writer *w, rl_json_text *out, table *t, int n_packed) {
    put(out, "\"count\":");
    rl_json_text_number(out, t->row);
    if (w->layout == RL_LAYERS_PACKED) {
        put(out, ",\"packed_bytes\":");
        rl_json_text_number(out, 8.0 * n_packed * t->row);
    }
    put(out, ",\"columns\":{");
    int k = 0;
    for (int i = 0; i < t->n_cols; i++) {
        column *col = &t->cols[i];
        if (i) put(out, ",");
        rl_json_text_string(out, col->key);
        if (packed(t, col) && col->is_list) {
            put(out, ":{\"ends\":");
            rl_json_text_number(out, k++);
            put(out, ",\"flat\":[");
            if (col->values.n) rl_json_text_put(out, col->values.p, col->values.n);
            put(out, "]}");
            if (col->values.oom) w->oom = true;
            continue;
        }
        if (packed(t, col)) {
            put(out, ":{");
            for (int c = 0; c < col->n_choices; c++) {
                put(out, c ? "," : "\"enum\":[");
                put_choice(out, &col->choices[c]);
            }
            put(out, col->n_choices ? "],\"f64\":" : "\"f64\":");
            rl_json_text_number(out, k++);
            put(out, "}");
            continue;
        }
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
    }
    put(out, "}");
}

/* The doubles of t's packed columns, column k at k * count. */
static void packed_values(rl_json_text *out, const table *t) {
    for (int i = 0; i < t->n_cols; i++)
        if (packed(t, &t->cols[i])) rl_json_text_put(out, (const char *)t->cols[i].nums, (size_t)t->row * sizeof(double));
}

static void free_table(table *t) {
    for (int i = 0; i < t->n_cols; i++) {
        free(t->cols[i].values.p);
        free(t->cols[i].rows);
        free(t->cols[i].nums);
        free_choices(&t->cols[i]);
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
    rl_layer_csv_free(w->csv);
    free(w);
}

/* Bytes the columns of t will take in the text (an upper bound), and the
 * doubles of its packed columns. */
static size_t table_size(const table *t) {
    size_t n = 64;
    for (int i = 0; i < t->n_cols; i++) {
        const column *col = &t->cols[i];
        n += col->values.n + strlen(col->key) * 2 + 32;
        if (col->sparse || col->count < t->row) n += (size_t)t->row * 11 + 32; /* row indices */
        if (packed(t, col)) n += (size_t)t->row * sizeof(double) + 16;
        for (int c = 0; c < col->n_choices; c++) n += 2 * strlen(col->choices[c].s) + 8; /* escaped, quoted */
    }
    return n;
}

size_t rl_layer_writer_room(rl_layer_writer *w) {
    if (!w || w->layout == RL_LAYERS_ROWS || w->csv) return 0;
    settle(w, &w->layers), settle(w, &w->tensors);
    return table_size(&w->layers) + table_size(&w->tensors) + 64;
}

bool rl_layer_writer_finish_into(rl_layer_writer *w, rl_json_text *out, const char *after) {
    if (!w) {
        out->oom = true;
        return false;
    }
    if (w->layout == RL_LAYERS_ROWS) {
        put(&w->rows, "]");
        if (w->rows.n) rl_json_text_put(out, w->rows.p, w->rows.n);
        put(out, after);
    } else if (w->csv) {
        /* the CSV after the text and its NUL */
        put(out, "{\"format\":\"csv\"}");
        put(out, after);
        rl_json_text_put(out, "", 1);
        rl_layer_csv_finish_into(w->csv, out);
        w->csv = NULL;
    } else {
        int n_packed = settle(w, &w->layers), n_packed_tensors = settle(w, &w->tensors);
        /* one allocation for the whole section: grown by doubling, a
         * 25 MB answer touched twice its size in fresh memory */
        rl_json_text_reserve(out, table_size(&w->layers) + table_size(&w->tensors) + strlen(after) + 16);
        put(out, "{");
        table_members(w, out, &w->layers, n_packed);
        put(out, ",\"tensors\":{");
        table_members(w, out, &w->tensors, n_packed_tensors);
        put(out, "}}");
        put(out, after);
        if (w->layout == RL_LAYERS_PACKED) {
            /* after the text's NUL and zeros to a multiple of 8 bytes, the
             * layer table's doubles, then the tensor table's */
            static const char zeros[8] = {0};
            rl_json_text_put(out, zeros, 1);
            rl_json_text_put(out, zeros, align8(out->n) - out->n);
            packed_values(out, &w->layers);
            packed_values(out, &w->tensors);
        }
    }
    bool ok = !w->oom && !out->oom;
    rl_layer_writer_free(w);
    if (!ok) out->oom = true;
    return ok;
}

/* The rows layout's array handed over as it is, cut to its size: a copy
 * would hold the rows twice (a 1 MB array in a 2 MB buffer, and a second
 * buffer grown by doubling). */
static char *rows_taken(rl_layer_writer *w) {
    put(&w->rows, "]");
    bool ok = !w->oom && !w->rows.oom;
    char *s = ok ? rl_json_text_finish(&w->rows) : NULL;
    if (s) {
        char *cut = realloc(s, w->rows.n + 1);
        if (cut) s = cut;
        w->rows.p = NULL;
    }
    rl_layer_writer_free(w);
    return s;
}

char *rl_layer_writer_finish(rl_layer_writer *w) {
    if (w && w->layout == RL_LAYERS_ROWS) return rows_taken(w);
    rl_json_text out = {0};
    bool ok = rl_layer_writer_finish_into(w, &out, "");
    char *s = rl_json_text_finish(&out);
    if (!ok) {
        free(s);
        return NULL;
    }
    return s;
}
