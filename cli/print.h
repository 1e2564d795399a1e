/* The printers of analyze's answers (print_analysis.c, print_views.c) and
 * the packed layer table they read the per-layer figures from
 * (layer_table.c). Each printer takes the core's answer and writes a table
 * (or CSV) to stdout. */
#ifndef ROOFLENS_CLI_PRINT_H
#define ROOFLENS_CLI_PRINT_H
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* The answer's packed layer table: its columns (from the parsed text) and
 * the doubles after the text. */
typedef struct layer_table {
    int count;
    const cJSON *columns;
    const unsigned char *doubles;
    size_t n_doubles;
} layer_table;
/* 0, or -1 when the answer holds no well-formed packed layer table. `answer`
 * and `size` are rl_model_analyze_sized's; `res` its text parsed. */
int layer_table_open(layer_table *t, const cJSON *res, const char *answer, size_t size);

/* One column, opened once and read row by row: a missing column or row
 * reads as NaN (layer_num), "" (layer_str) or NULL (layer_value), as a
 * missing member does in the rows layout. */
typedef struct layer_col {
    int count;
    const unsigned char *f64; /* the column's doubles, or NULL (a text column) */
    const cJSON *values;      /* a coded column's values ("enum"), or NULL */
    const cJSON **items;      /* a text column's value of each row */
} layer_col;
void layer_col_open(const layer_table *t, const char *name, layer_col *c);
void layer_col_close(layer_col *c);
double layer_num(const layer_col *c, int row);
const char *layer_str(const layer_col *c, int row);
const cJSON *layer_value(const layer_col *c, int row);

/* The layer table (top K by time; 0 = all) and the headline figures;
 * `explain`: what the forecast rests on, its track record with its link. */
void print_table(const cJSON *res, const layer_table *L, int top, bool explain);
/* The measured profile against the prediction (nothing without one). */
void print_measured(const cJSON *res, const layer_table *L, int top);
/* A what-if study's table, and the LLM view's. */
void print_study(const cJSON *res);
void print_llm(const cJSON *res);
/* The figures over several devices (print_parallel.c; nothing without them). */
void print_parallel(const cJSON *res);
/* The dataflow graph in Graphviz's DOT (print_dot.c): needs the layer rows
 * and the "graph" section. */
void print_dot(const cJSON *res);
/* The graph of a diff in DOT (print_diff_dot.c): each layer coloured by its
 * change in figure `fig` (an id of diff.graph.figures); needs diff.graph. */
void print_diff_dot(const cJSON *diff, const char *fig);
/* A forecast's band, o[low] and o[high]: "likely 38.2 ms to 55.1 ms" (in a
 * column headed "likely", without the word: `word` false), or NULL when the
 * answer has none (the profile gives no track record). */
const char *band_text(const cJSON *o, const char *low, const char *high, bool word, char *buf, size_t cap);
/* eng() of member k, or "-" when it is missing. */
const char *opt_eng(const cJSON *o, const char *k, const char *unit, char *buf, size_t cap);
#endif
