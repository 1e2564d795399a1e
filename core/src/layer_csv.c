/* The layer table as CSV (contract in layer_csv.h). */
#include "layer_csv.h"

#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const rl_layer_csv_columns[] = {
    "index", "name", "op", "domain", "matrix_flops", "vector_flops", "flops", "macs", "input_bytes",
    "weight_bytes", "output_bytes", "bytes", "intensity", "t_compute", "t_memory", "t", "bound", "energy_j",
    "forecast_s", "op_class", "precision", "known", "fused_bytes", "headroom", "energy_bound", "bwd_flops",
    "bwd_bytes", "supported", "note", "inputs", "outputs",
    /* with a measured profile */
    "measured_s", "efficiency", "recoverable_s", NULL};
enum { N_COLUMNS = sizeof rl_layer_csv_columns / sizeof *rl_layer_csv_columns - 1 };

struct rl_layer_csv {
    rl_json_text row;                /* the current row's cells, one after another */
    size_t at[N_COLUMNS], len[N_COLUMNS];
    bool has[N_COLUMNS];
    /* the rows write their keys in one order (string literals): the k-th
     * key of a row is found by its pointer where the row before had it */
    const char *seen_key[N_COLUMNS * 2];
    int seen_col[N_COLUMNS * 2], n_seen, cursor;
    rl_json_text lines;              /* every row's line, with its line break */
    size_t *line_at;                 /* row i's line: lines.p[line_at[i] .. line_at[i + 1]) */
    int rows, cap;
    int *order, n_order;             /* the rows written, in order; NULL: all */
    char *filter;
    bool oom;
    rl_text_stream stream; /* streamed (rl_layer_csv_stream): where the lines go; the lines' offsets
                              are then not read again (a streamed table has no selection) */
};

static void put(rl_json_text *t, const char *s) { rl_json_text_put(t, s, strlen(s)); }

rl_layer_csv *rl_layer_csv_new(int expect) {
    rl_layer_csv *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->cap = expect > 0 ? expect : 256;
    w->line_at = malloc(((size_t)w->cap + 1) * sizeof *w->line_at);
    if (!w->line_at) {
        free(w);
        return NULL;
    }
    w->line_at[0] = 0;
    return w;
}

bool rl_layer_csv_select(rl_layer_csv *w, const int *rows, int n, const char *filter) {
    free(w->order), free(w->filter);
    w->order = rows ? malloc(((size_t)n + 1) * sizeof *w->order) : NULL;
    w->filter = filter ? malloc(strlen(filter) + 1) : NULL;
    if ((rows && !w->order) || (filter && !w->filter)) return !(w->oom = true);
    if (rows) memcpy(w->order, rows, (size_t)n * sizeof *rows);
    w->n_order = rows ? n : 0;
    if (filter) strcpy(w->filter, filter);
    return true;
}

void rl_layer_csv_row_begin(rl_layer_csv *w) {
    w->row.n = 0;
    memset(w->has, 0, sizeof w->has);
    w->cursor = 0;
}

/* The column of key, or -1. */
static int column_of(rl_layer_csv *w, const char *key) {
    int k = w->cursor++;
    if (k < w->n_seen && w->seen_key[k] == key) return w->seen_col[k];
    int c = 0;
    while (rl_layer_csv_columns[c] && strcmp(rl_layer_csv_columns[c], key)) c++;
    if (!rl_layer_csv_columns[c]) c = -1;
    if (k < N_COLUMNS * 2) {
        w->seen_key[k] = key, w->seen_col[k] = c;
        if (k >= w->n_seen) w->n_seen = k + 1;
    }
    return c;
}

/* The cell of key opened in the row's text; -1 when key is no column. */
static int cell_begin(rl_layer_csv *w, const char *key) {
    int c = column_of(w, key);
    if (c >= 0) w->at[c] = w->row.n, w->has[c] = true;
    return c;
}

static void cell_end(rl_layer_csv *w, int c) { w->len[c] = w->row.n - w->at[c]; }

void rl_layer_csv_num(rl_layer_csv *w, const char *key, double v) {
    char text[32];
    /* the figure as the answer's JSON reads back (the page's, the packed
     * table's): rl_json_text_number writes 15 digits when they are within
     * an epsilon */
    size_t n = rl_format_number(text, sizeof text, rl_json_number_value(v));
    int c = cell_begin(w, key);
    if (c < 0) return;
    rl_json_text_put(&w->row, text, n);
    cell_end(w, c);
}

void rl_layer_csv_literal(rl_layer_csv *w, const char *key, const char *s) {
    int c = cell_begin(w, key);
    if (c < 0) return;
    put(&w->row, s);
    cell_end(w, c);
}

/* rooflens_text.h: a leading =, +, -, @, tab or CR would make a
 * spreadsheet read a model's name as a formula (=HYPERLINK(...)), so such a
 * cell gets a leading '; then quoted, its quotes doubled, when it holds a
 * comma, a quote or a line break. */
size_t rl_csv_text(char *buf, size_t cap, const char *s) {
    if (!s) s = "";
    bool formula = s[0] && strchr("=+-@\t\r", s[0]) != NULL;
    bool quote = strpbrk(s, ",\"\n\r") != NULL;
    size_t n = 0;
#define CELL_PUT(ch)                       \
    do {                                   \
        if (n + 1 < cap) buf[n] = (ch);    \
        n++;                               \
    } while (0)
    if (quote) CELL_PUT('"');
    if (formula) CELL_PUT('\'');
    for (; *s; s++) {
        if (*s == '"') CELL_PUT('"'); /* doubled */
        CELL_PUT(*s);
    }
    if (quote) CELL_PUT('"');
#undef CELL_PUT
    if (cap) buf[n < cap ? n : cap - 1] = 0;
    return n;
}

void rl_layer_csv_text(rl_layer_csv *w, const char *key, const char *s) {
    int c = cell_begin(w, key);
    if (c < 0) return;
    char cell[256];
    size_t n = rl_csv_text(cell, sizeof cell, s);
    if (n < sizeof cell) {
        rl_json_text_put(&w->row, cell, n);
    } else {
        char *big = malloc(n + 1);
        if (big) rl_json_text_put(&w->row, big, rl_csv_text(big, n + 1, s));
        else w->row.oom = true;
        free(big);
    }
    cell_end(w, c);
}

/* The header line: the columns' names. */
static void header(rl_json_text *out) {
    for (int c = 0; c < N_COLUMNS; c++) {
        put(out, rl_layer_csv_columns[c]);
        put(out, c + 1 < N_COLUMNS ? "," : "\n");
    }
}

void rl_layer_csv_stream(rl_layer_csv *w, rl_write_fn write, void *ctx) {
    w->stream = (rl_text_stream){write, ctx, false};
    header(&w->lines);
}

bool rl_layer_csv_finish_stream(rl_layer_csv *w) {
    if (!w || !w->stream.write) {
        rl_layer_csv_free(w);
        return false;
    }
    rl_text_stream_piece(&w->stream, &w->lines);
    bool ok = !w->stream.stopped && !w->oom && !w->row.oom;
    rl_layer_csv_free(w);
    return ok;
}

void rl_layer_csv_row_end(rl_layer_csv *w) {
    if (w->rows == w->cap) {
        size_t *at = realloc(w->line_at, ((size_t)w->cap * 2 + 1) * sizeof *at);
        if (!at) {
            w->oom = true;
            return;
        }
        w->line_at = at;
        w->cap *= 2;
    }
    for (int c = 0; c < N_COLUMNS; c++) {
        if (c) put(&w->lines, ",");
        if (w->has[c]) rl_json_text_put(&w->lines, w->row.p + w->at[c], w->len[c]);
    }
    put(&w->lines, "\n");
    w->line_at[++w->rows] = w->lines.n;
    if (w->stream.write && w->lines.n >= RL_STREAM_PIECE) rl_text_stream_piece(&w->stream, &w->lines);
}

/* "# 12 of 40 layers: only those the table's filter shows (op Conv)", the
 * filter's line breaks as spaces, so that it stays one comment line. */
static void filter_line(rl_layer_csv *w, rl_json_text *out) {
    char head[96];
    snprintf(head, sizeof head, "# %d of %d layers: only those the table's filter shows (", w->n_order, w->rows);
    put(out, head);
    for (char *p = w->filter; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    put(out, w->filter);
    put(out, ")\n");
}

/* Every row in its order: the text so far (out, the header now in it)
 * moved in front of the lines, in the lines' own buffer, which becomes
 * out's: the CSV, most of a big answer, is not copied. */
static void lines_taken(rl_layer_csv *w, rl_json_text *out) {
    rl_json_text_reserve(&w->lines, out->n);
    if (out->oom || w->lines.oom) {
        out->oom = true;
        return;
    }
    memmove(w->lines.p + out->n, w->lines.p, w->lines.n);
    memcpy(w->lines.p, out->p, out->n);
    w->lines.n += out->n;
    free(out->p);
    *out = w->lines;
    w->lines = (rl_json_text){0};
}

bool rl_layer_csv_finish_into(rl_layer_csv *w, rl_json_text *out) {
    if (!w) return !(out->oom = true);
    int n = w->order ? w->n_order : w->rows;
    bool ok = !w->oom && !w->row.oom && !w->lines.oom;
    if (w->order) rl_json_text_reserve(out, w->lines.n + 1024);
    if (w->filter) filter_line(w, out);
    header(out);
    if (ok && !w->order) lines_taken(w, out);
    for (int k = 0; ok && w->order && k < n; k++) {
        int i = w->order ? w->order[k] : k;
        if (i < 0 || i >= w->rows) {
            ok = false;
            break;
        }
        rl_json_text_put(out, w->lines.p + w->line_at[i], w->line_at[i + 1] - w->line_at[i]);
    }
    rl_layer_csv_free(w);
    if (!ok || out->oom) out->oom = true;
    return !out->oom;
}

void rl_layer_csv_free(rl_layer_csv *w) {
    if (!w) return;
    free(w->row.p), free(w->lines.p), free(w->line_at);
    free(w->order), free(w->filter);
    free(w);
}
