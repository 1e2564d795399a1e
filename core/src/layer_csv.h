/* The layer table as CSV: the one CSV writer of the per-layer figures, fed
 * by the layer writer ("layers": "csv", layer_writer.h), so the command
 * line's --format csv and the page's Download CSV are the same text. One
 * fixed list of columns (rl_layer_csv_columns), a cell empty where a layer
 * has no such field; numbers as rl_format_number writes them (the shortest
 * text that reads back as the figure); text cells guarded against being
 * read as a spreadsheet formula and quoted when needed.
 *
 * Rows come in graph order; the table is written in the order the caller
 * set (the page's sorted, filtered rows), with a first "# N of M layers"
 * line naming the filter when one was given. */
#ifndef ROOFLENS_LAYER_CSV_H
#define ROOFLENS_LAYER_CSV_H
#include <stdbool.h>

#include "internal.h"

typedef struct rl_layer_csv rl_layer_csv;

/* The columns, in order; NULL-terminated. */
extern const char *const rl_layer_csv_columns[];

/* A writer for about `expect` rows (0: unknown). NULL when out of memory. */
rl_layer_csv *rl_layer_csv_new(int expect);
/* The rows to write and their order (indices of the rows as they come,
 * copied), and the words of the filter that chose them (NULL: none).
 * Without it, every row in the order it came. false when out of memory. */
bool rl_layer_csv_select(rl_layer_csv *w, const int *rows, int n, const char *filter);
void rl_layer_csv_row_begin(rl_layer_csv *w);
void rl_layer_csv_row_end(rl_layer_csv *w);
/* One field of the current row; a key not among the columns is ignored. */
void rl_layer_csv_num(rl_layer_csv *w, const char *key, double v);
void rl_layer_csv_text(rl_layer_csv *w, const char *key, const char *s);
void rl_layer_csv_literal(rl_layer_csv *w, const char *key, const char *s); /* true, false: as they are */
/* The CSV appended to out; frees the writer. false (and out->oom) when
 * memory ran out, or a selected row never came (the caller checks the
 * indices first). */
bool rl_layer_csv_finish_into(rl_layer_csv *w, rl_json_text *out);
void rl_layer_csv_free(rl_layer_csv *w);
/* Streamed (a writer without a selection; call before the first row): the
 * header, then the rows handed to `write` in pieces of about
 * RL_STREAM_PIECE bytes as they end, instead of kept. */
void rl_layer_csv_stream(rl_layer_csv *w, rl_write_fn write, void *ctx);
/* A streaming writer's last piece written; false when `write` stopped or
 * memory ran out. Frees the writer either way. */
bool rl_layer_csv_finish_stream(rl_layer_csv *w);

#endif
