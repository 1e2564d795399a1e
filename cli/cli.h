/* What the command-line tool's files share: the parsed command line, the
 * subcommands' run functions, and the helpers of cli.c (reading models and
 * profiles, text for a terminal, folder listings, JSON accessors, CSV cells,
 * numbers). main.c owns the command and option tables; a subcommand's file
 * never calls back into it. */
#ifndef ROOFLENS_CLI_H
#define ROOFLENS_CLI_H
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "formats.h"
#include "rooflens.h"
#include "rooflens_text.h"

/* Exit codes (the help text lists them). */
enum { EXIT_OK = 0, EXIT_WRITE = 1, EXIT_USAGE = 2, EXIT_BAD_MODEL = 3, EXIT_INCOMPLETE = 4, EXIT_GATE = 5 };

/* The subcommands, as bits: an option names those it applies to. */
enum { CMD_ANALYZE = 1, CMD_DIFF = 2, CMD_BATCH = 4 };

/* The command line, as parsed: the request under construction (req, dims,
 * llm_req; freed by args_free until handed on) and the choices that decide
 * what is run and printed. */
typedef struct cli_args {
    unsigned cmd;
    const char **paths;
    int n_paths;
    const char *hw, *dir;
    cli_format format;
    int top; /* -1: the command's default */
    const char *fail_if, *label_old, *label_new;
    const char *page_url, *old_url, *new_url; /* diff: the page's link to the graph of the change */
    bool strict, power_modes, llm, help, version, explain;
    const char *compare, *sweep;
    double max_slowdown; /* --max-slowdown, read once; NAN: not given */
    const char *measured, *measured_format;
    int studies;
    cJSON *req, *dims, *llm_req; /* llm_req: --llm options, joined to req with --llm */
    rl_hw *hw_handle; /* --hw read once (rl_hw_read); NULL: the request carries the profile */
} cli_args;

/* The subcommands' run functions (analyze.c, diff_cmd.c, batch.c). Each
 * takes the request with the hardware and options already in it (deleted
 * by the caller) and returns the exit code. */
int run_analyze(cJSON *req, cli_args *A);
int run_diff(cJSON *req, cli_args *A);
int run_batch(cJSON *req, cli_args *A);
/* --list-hw and --check-hw [--shipped] ID|FILE... (hw_cmd.c). */
int run_list_hw(const char *dir);
int run_check_hw(int n, char **items, const char *dir);

/* -------------------------------------------------------------- cli.c -- */
/* "rooflens: " + the message (fmt with one %s: arg, shown escaped) + a hint
 * to --help, on stderr; returns EXIT_USAGE. */
int usage_error(const char *fmt, const char *arg);

/* The most a text file the CLI reads whole may hold (a hardware profile, a
 * measured profile): real ones are kilobytes to a few tens of MB, and
 * /dev/zero or an endless writer must not be read until memory runs out. */
#define TEXT_FILE_MAX ((uint64_t)256 << 20)
/* A whole text file, malloc'd; NULL with why[] (at most cap bytes, to follow
 * "PATH: ") when it cannot be opened, is not a regular file (links are
 * followed: a FIFO, a device, a socket or a folder is not read), is over
 * TEXT_FILE_MAX bytes, or cannot be read. */
char *read_text(const char *path, char *why, size_t cap);
/* {"schema", "ok": false, "error": {code, message, where: ""}}, malloc'd. */
char *error_json(const char *code, const char *message);
/* A model read from a file, jumping over weight payloads; NULL with *err
 * (the core's error JSON, or one of the same shape: cannot_open, or
 * not_a_file for anything but a regular file (links followed) or, with
 * pipe_ok, a FIFO: a folder, a device, a socket). A model has no size cap:
 * its payloads are skipped, not held, and the core's limits bound the rest. */
rl_model *read_model(const char *path, bool pipe_ok, char **err);
/* A Hugging Face checkpoint (docs/checkpoints.md): config.json, its
 * .safetensors shards and index, or a folder holding them. is_checkpoint:
 * do these paths name one (several such files, a folder, a .safetensors
 * file)? read_checkpoint reads each shard's header only (rl_checkpoint_*),
 * or returns NULL with *err (error JSON, rl_free). */
bool is_checkpoint(const char *const *paths, int n);
rl_model *read_checkpoint(const char *const *paths, int n, char **err);
/* The folder profile ids are looked up in: --hw-dir, $ROOFLENS_HW_DIR, or
 * the hw/ folder rooflens was built with. */
const char *hw_dir(const char *override);
/* A profile by id (DIR/ID.json) or file: its text (malloc'd), or NULL,
 * said on stderr, when there is none or it cannot be read. *shown_path
 * (may be NULL) receives the path it was read from, for messages; it is
 * valid until the next call. */
char *profile_text(const char *id_or_file, const char *dir, const char **shown_path);
/* The same, parsed; NULL, said on stderr (also when it is not JSON). */
cJSON *load_profile(const char *id_or_file, const char *dir);
/* "rooflens: PATH: message [code] at where" on stderr, from an error object
 * (path may be NULL), or from an error answer's text. */
void print_error_line(const char *path, const cJSON *error);
void report_error_json(const char *answer, const char *path);

/* printf for the tables: a string's width is counted in terminal columns,
 * not bytes, so "9.57 µs" lines up under "354 ns" (printf's %10s counts the
 * two bytes of µ as two columns); a width may be given as an argument (*).
 * Numbers and the rest as printf; stdout. */
int tprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The terminal columns text takes: its UTF-8 characters (tprintf pads by them). */
size_t text_columns(const char *s);

/* Numbers, all through the core's one formatter (rl_format_eng): "1.23 M"
 * + unit, seconds as "2.88 ns", "n/a" when not finite. */
const char *eng(double v, const char *unit, char *buf, size_t cap);
const char *tsec(double s, char *buf, size_t cap);
/* A number that is not a quantity with a unit (a count, a ratio, a
 * percentage) written with `fmt`, a printf format of one double ("%g",
 * "%.1f%%"), or "n/a" when it is not finite: a member the answer does not
 * give. The text stays valid for the next 31 calls of this or txt(). */
const char *numf(const char *fmt, double v);

/* The JSON accessors: short names for the core's one family (rooflens.h:
 * rl_json_get, rl_json_get_num, rl_json_get_str), with its one default:
 * a member that is missing or of another type reads as NULL (get), NaN
 * (num), "" (str) or false (is_true). A missing figure thus stays unknown:
 * eng() and tsec() show it as "n/a", and numf() any other number. */
const cJSON *get(const cJSON *o, const char *k);
double num(const cJSON *o, const char *k);
const char *str(const cJSON *o, const char *k);
bool is_true(const cJSON *o, const char *k);
/* The name a user reads for the value of one of the answer's enumerations
 * ("bound", "sol", "granularity"): the core's one list (rl_word_name), as
 * the page and the Markdown say it; shown escaped like tstr(). */
const char *word(const char *kind, const char *id);
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

/* One CSV cell of text, as the core's layer table writes it
 * (rl_csv_text, rooflens_text.h): guarded against being read as a formula,
 * quoted when needed. */
void csv_field(FILE *f, const char *s);
/* A number cell: the core's number text (rl_format_number), empty when not a finite number. */
void csv_number(FILE *f, const cJSON *v);
void csv_double(FILE *f, double v);
#endif
