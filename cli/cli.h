/* Pieces the command-line tool's files share: reading models and profiles,
 * number formats, JSON accessors and the CSV cell rule. */
#ifndef ROOFLENS_CLI_H
#define ROOFLENS_CLI_H
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rooflens.h"

/* Exit codes (the help text lists them). */
enum { EXIT_OK = 0, EXIT_USAGE = 2, EXIT_BAD_MODEL = 3, EXIT_INCOMPLETE = 4, EXIT_GATE = 5 };

/* A whole text file, malloc'd; NULL when it cannot be read. */
char *read_text(const char *path);
/* A model read from a file, jumping over weight payloads; NULL with *err
 * (the core's error JSON, or NULL when the file cannot be opened, which is
 * then reported on stderr). */
rl_model *read_model(const char *path, char **err);

/* "1.23 M" + unit; "1.23 ms" for seconds (ASCII "us" for micro). */
const char *eng(double v, const char *unit, char *buf, size_t cap);
const char *tsec(double s, char *buf, size_t cap);

/* Accessors that tolerate missing members (0 and "" then). */
double num(const cJSON *o, const char *k);
const char *str(const cJSON *o, const char *k);

/* One CSV cell of text: a cell that a spreadsheet would take for a formula
 * (it starts with = + - @ tab or CR) gets a leading ', and a cell with a
 * comma, quote or line break is quoted. */
void csv_field(FILE *f, const char *s);
/* A number cell: %.17g, empty when not a finite number. */
void csv_number(FILE *f, const cJSON *v);

/* rooflens diff / rooflens batch, on a request that already holds the
 * hardware and options. They own nothing of the caller's. */
typedef struct diff_args {
    const char *old_path, *new_path, *format, *fail_if, *old_label, *new_label;
    int top;
    bool strict;
} diff_args;
int run_diff(cJSON *req, const diff_args *a);
int run_batch(cJSON *req, const char *const *paths, int n_paths, const char *format);
#endif
