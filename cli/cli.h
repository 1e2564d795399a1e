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
 * (the core's error JSON, or one of the same shape: cannot_open, or
 * not_a_file for a folder, or with regular_only anything but a regular file:
 * a FIFO, a device). */
rl_model *read_model(const char *path, bool regular_only, char **err);
/* {"schema", "ok": false, "error": {code, message, where: ""}}, malloc'd. */
char *error_json(const char *code, const char *message);

/* "1.23 M" + unit; "1.23 ms" for seconds (ASCII "us" for micro). */
const char *eng(double v, const char *unit, char *buf, size_t cap);
const char *tsec(double s, char *buf, size_t cap);

/* Accessors that tolerate missing members (0 and "" then). */
double num(const cJSON *o, const char *k);
const char *str(const cJSON *o, const char *k);
/* str() as the tables show it (txt). */
const char *tstr(const cJSON *o, const char *k);

/* A string as the tables show it: rl_text_escape's, so a model's, a
 * profile's or a file's name cannot move the cursor, clear the screen or
 * reorder the line (control characters and bidi overrides escaped). txt_cut
 * keeps at most `width` bytes (0: all), txt_tail the last `width`; both cut
 * between two characters. The text stays valid for the next 31 calls. */
const char *txt(const char *s);
const char *txt_cut(const char *s, size_t width);
const char *txt_tail(const char *s, size_t width);

/* A growable list of malloc'd names. name_list_add returns -1 when out of
 * memory. */
typedef struct name_list {
    char **names;
    int n, cap;
} name_list;
int name_list_add(name_list *l, const char *s);
void name_list_free(name_list *l);
/* Every entry of `dir` but . and .., sorted by strcmp, none left out.
 * Returns 0, or -1 with *why (strerror's text) when the folder could not be
 * read whole; the list is then empty. */
int list_folder(const char *dir, name_list *out, const char **why);

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
