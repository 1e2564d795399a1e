/* The printers of analyze's answers (print_analysis.c, print_views.c): each
 * takes the core's parsed response and writes a table (or CSV) to stdout. */
#ifndef ROOFLENS_CLI_PRINT_H
#define ROOFLENS_CLI_PRINT_H
#include <cjson/cJSON.h>

/* The layer table (top K by time; 0 = all) and the headline figures. */
void print_table(const cJSON *res, int top);
/* The measured profile against the prediction (nothing without one). */
void print_measured(const cJSON *res, int top);
/* One row per layer. */
void print_csv(const cJSON *res);
/* A what-if study's table, and the LLM view's. */
void print_study(const cJSON *res);
void print_llm(const cJSON *res);
/* The dataflow graph in Graphviz's DOT (print_dot.c): needs the layer rows
 * and the "graph" section. */
void print_dot(const cJSON *res);
/* eng() of member k, or "-" when it is missing. */
const char *opt_eng(const cJSON *o, const char *k, const char *unit, char *buf, size_t cap);
#endif
