/* Writing the response's per-layer figures: one row per layer (the
 * "layers" array, docs/api.md) or the same values as columns (the
 * "layer_columns" object the page asks for). The fields of a layer are
 * written once, by analyze.c's layer writer and measured.c's, through this
 * interface; the layout is the writer's choice, so both layouts hold the
 * same keys, values and order by construction.
 *
 * Columns: {"count": N, "columns": {key: column, ...}, "tensors": {...}}.
 * A column is an array of N values, or, when some layers lack the key (a
 * note, a measured figure), an object from row index to value ("sparse").
 * Tensors (a layer's inputs and outputs) are written once each into the
 * "tensors" table, itself in columns, and a layer's "inputs"/"outputs"
 * column holds arrays of indices into it.
 *
 * Packed: the columns, except that in both tables a column with a number
 * (or null) in every row is written as {"f64": k}, one of a few distinct
 * strings, booleans or nulls (op, bound, dtype; at most 64) as
 * {"enum": [values], "f64": k}, its doubles indices into the list, and a
 * column of lists of numbers (inputs, outputs, shape) as
 * {"ends": k, "flat": [items]}, double i of slot k being where row i's
 * items end in flat (NaN: null, not a list). A table's "packed_bytes" says
 * how many bytes its slots take, slot k at doubles k*count onward. They
 * follow the text: its NUL, zeros to a multiple of 8 bytes, the layer
 * table's doubles, then the tensor table's, in the machine's byte order
 * (little-endian on WebAssembly). A column that turns sparse, or gets a
 * value of another kind, goes back to text. A reader of JSON alone cannot
 * see the doubles: the page asks for this layout (docs/api.md).
 *
 * Lifetime: the writer owns its buffers until rl_layer_writer_finish, which
 * returns the section's JSON text (malloc'd; the caller frees it) and frees
 * the writer. Keys must outlive the writer (string literals). Errors: an
 * allocation failure is remembered and finish returns NULL. */
#ifndef ROOFLENS_LAYER_WRITER_H
#define ROOFLENS_LAYER_WRITER_H
#include <stdbool.h>

#include "internal.h"

/* RL_LAYERS_CSV: the rows as CSV (layer_csv.h) after the text's NUL. */
typedef enum { RL_LAYERS_ROWS, RL_LAYERS_COLUMNS, RL_LAYERS_PACKED, RL_LAYERS_CSV } rl_layer_layout;

typedef struct rl_layer_writer rl_layer_writer;

/* `c` gives the dtype names a tensor is written with (the requested
 * precision replaces float dtypes); it must outlive the writer. NULL when
 * out of memory. */
rl_layer_writer *rl_layer_writer_new(rl_layer_layout layout, const rl_ctx *c);
/* The number of layer rows to come, when known: each column's doubles are
 * then sized once to it rather than grown by doubling (up to twice the
 * room, and a copy at each step). A hint: more rows still fit. */
void rl_layer_writer_expect_rows(rl_layer_writer *w, int n);
/* CSV layout: the rows written and their order, and the filter's words
 * (rl_layer_csv_select); false when out of memory. */
bool rl_layer_writer_csv_select(rl_layer_writer *w, const int *rows, int n, const char *filter);
void rl_layer_row_begin(rl_layer_writer *w);
void rl_layer_row_end(rl_layer_writer *w);
void rl_layer_num(rl_layer_writer *w, const char *key, double v); /* NaN, inf: null */
void rl_layer_str(rl_layer_writer *w, const char *key, const char *s);
void rl_layer_bool(rl_layer_writer *w, const char *key, bool v);
void rl_layer_null(rl_layer_writer *w, const char *key);
/* An array of the tensors vals[0..n) (NULL entries skipped). */
void rl_layer_tensors(rl_layer_writer *w, const char *key, rl_value *const *vals, int n);
/* The section's text (an array for rows, an object for columns), or NULL
 * when out of memory; frees the writer either way. Not for the packed
 * layout: its doubles follow a NUL, which a C string cannot carry (use
 * rl_layer_writer_finish_into). */
char *rl_layer_writer_finish(rl_layer_writer *w);
/* The same text appended to `out` (in one allocation for columns), then
 * the text `after` (what closes the answer), then, packed, the doubles
 * (out->n counts them; rl_json_text_finish's NUL follows them). false,
 * with out->oom set, when out of memory. Frees the writer either way (w may
 * be NULL: a writer that could not be made). */
bool rl_layer_writer_finish_into(rl_layer_writer *w, rl_json_text *out, const char *after);
/* A value's "dtype" as the answer writes it (the requested precision
 * replaces float dtypes; sequences, maps... by kind), and its
 * "shape_source" (NULL when rooflens inferred the shape). Static strings. */
const char *rl_value_dtype_text(const rl_ctx *c, const rl_value *v);
const char *rl_value_shape_source_text(const rl_value *v);
/* Rows and CSV layouts (the CSV without a selection of rows): the text
 * handed to `write` (rooflens.h) in pieces of about RL_STREAM_PIECE bytes as
 * rows end, instead of kept, so the writer holds one piece at a time. Call
 * before the first row. */
void rl_layer_writer_stream(rl_layer_writer *w, rl_write_fn write, void *ctx);
/* A streaming writer's last piece (the array's "]") written; false when
 * `write` stopped or memory ran out. Frees the writer either way. */
bool rl_layer_writer_finish_stream(rl_layer_writer *w);
/* The bytes rl_layer_writer_finish_into will append, at most (0: rows, CSV),
 * once every row is written (it settles the columns, as finishing does). */
size_t rl_layer_writer_room(rl_layer_writer *w);
/* Frees a writer that is not finished (NULL: nothing). */
void rl_layer_writer_free(rl_layer_writer *w);
#endif
