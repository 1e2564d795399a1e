/* rooflens: the command-line face of the core. Two tables drive it: the
 * subcommands (name, synopsis, summary, run function) and the options
 * (name, value, the subcommands it applies to, help, how it is stored).
 * The usage text, the option parsing and the "goes with" checks are all
 * read from them, so an option is written down once. Each subcommand lives
 * in its own file (analyze.c, diff_cmd.c, batch.c, hw_cmd.c, calibrate.c)
 * and never calls back into this one. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "cli.h"
#include "options.h"

/* ------------------------------------------------------------- commands -- */
typedef struct cli_command {
    const char *word;     /* after "rooflens"; NULL: a model path (analyze) */
    unsigned bit;         /* CMD_*; 0: parses its own arguments (raw) */
    const char *synopsis; /* the usage line after "rooflens " */
    int (*run)(cJSON *req, cli_args *A);
    int (*raw)(int argc, char **argv);
} cli_command;

static const cli_command commands[] = {
    {NULL, CMD_ANALYZE, "MODEL.onnx|MODEL.gguf|CHECKPOINT... [options]", run_analyze, NULL},
    {"diff", CMD_DIFF, "diff OLD.onnx NEW.onnx [options]", run_diff, NULL},
    {"batch", CMD_BATCH, "batch DIR|FILES... [options]", run_batch, NULL},
    {"calibrate", 0, "calibrate [--out FILE] [--runs N] [--id ID]   (see rooflens calibrate --help)", NULL,
     rl_calibrate_main},
};
#define N_COMMANDS (sizeof commands / sizeof *commands)

static const cli_command *command_of(unsigned bit) {
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (commands[i].bit == bit) return &commands[i];
    return &commands[0];
}

/* -------------------------------------------------------------- options -- */
static const cli_option *find_option(const char *name, unsigned cmd, bool *elsewhere) {
    *elsewhere = false;
    for (size_t i = 0; i < cli_n_options; i++) {
        if (strcmp(cli_options[i].name, name)) continue;
        if (cli_options[i].commands & cmd) return &cli_options[i];
        *elsewhere = true;
    }
    return NULL;
}

/* ---------------------------------------------------------------- usage -- */
/* The tables a help text names by a token, listed where the token stands:
 * {precisions} (the core's), {measured_formats}, {sols}, {kv_types} and
 * {modes} (the core's words) and {formats} (formats.c: one line each, with the subcommands
 * that print it). */
static void print_precisions(FILE *out) {
    char *json = rl_precisions();
    cJSON *list = cJSON_Parse(json ? json : "[]");
    rl_free(json);
    const cJSON *p;
    int i = 0;
    cJSON_ArrayForEach(p, list) if (cJSON_IsString(get(p, "name"))) fprintf(out, "%s%s", i++ ? ", " : "", str(p, "name"));
    cJSON_Delete(list);
}

/* The ids of one of the core's lists of values (rl_words), comma-separated. */
static void print_value_ids(FILE *out, const char *kind) {
    char *json = rl_words();
    cJSON *list = cJSON_Parse(json ? json : "[]");
    rl_free(json);
    const cJSON *w;
    int i = 0;
    cJSON_ArrayForEach(w, list) if (!strcmp(str(w, "kind"), kind)) fprintf(out, "%s%s", i++ ? ", " : "", str(w, "id"));
    cJSON_Delete(list);
}
static void print_measured_formats(FILE *out) { print_value_ids(out, "measured_format"); }
static void print_sols(FILE *out) { print_value_ids(out, "sol"); }
static void print_kv_types(FILE *out) { print_value_ids(out, "kv_type"); }
static void print_modes(FILE *out) { print_value_ids(out, "mode"); }

static void print_formats(FILE *out) {
    const unsigned all = CMD_ANALYZE | CMD_DIFF | CMD_BATCH;
    for (int f = 0; f < CLI_FORMAT_COUNT; f++) {
        unsigned c = cli_formats[f].commands;
        fprintf(out, "%s%-9s %s", f ? "\n                        " : "", cli_formats[f].id, cli_formats[f].help);
        if ((c & all) == all) continue;
        /* the subcommands that print it: "[MODEL.onnx, diff]" */
        for (size_t k = 0, n = 0; k < N_COMMANDS; k++)
            if (commands[k].bit & c)
                fprintf(out, "%s%s", n++ ? ", " : " [", commands[k].word ? commands[k].word : "MODEL.onnx");
        fputc(']', out);
    }
}

static void print_help_line(FILE *out, const char *line, size_t len) {
    static const struct {
        const char *token;
        void (*print)(FILE *);
    } tokens[] = {{"{precisions}", print_precisions}, {"{measured_formats}", print_measured_formats},
                  {"{sols}", print_sols}, {"{kv_types}", print_kv_types},
                  {"{modes}", print_modes}, {"{formats}", print_formats}};
    for (size_t t = 0; t < sizeof tokens / sizeof *tokens; t++) {
        const char *tok = tokens[t].token, *at = strstr(line, tok);
        if (!at || at >= line + len) continue;
        fprintf(out, "%.*s", (int)(at - line), line);
        tokens[t].print(out);
        size_t rest = len - (size_t)(at - line) - strlen(tok);
        fprintf(out, "%.*s\n", (int)rest, at + strlen(tok));
        return;
    }
    fprintf(out, "%.*s\n", (int)len, line);
}

static void print_option(FILE *out, const cli_option *o) {
    char head[64];
    snprintf(head, sizeof head, "%s%s%s", o->name, o->value ? " " : "", o->value ? o->value : "");
    if (strlen(head) <= 21) fprintf(out, "  %-21s ", head);
    else fprintf(out, "  %s\n%24s", head, "");
    for (const char *line = o->help;;) {
        const char *nl = strchr(line, '\n');
        print_help_line(out, line, nl ? (size_t)(nl - line) : strlen(line));
        if (!nl) break;
        line = nl + 1;
        fprintf(out, "%24s", "");
    }
}

static void print_usage(FILE *out) {
    for (size_t i = 0; i < N_COMMANDS; i++) fprintf(out, "%s rooflens %s\n", i ? "      " : "usage:", commands[i].synopsis);
    for (size_t i = 0; i < cli_n_options; i++)
        if (cli_options[i].action)
            fprintf(out, "       rooflens %s%s%s\n", cli_options[i].name, cli_options[i].value ? " " : "",
                    cli_options[i].value ? cli_options[i].value : "");
    fputs("\nReports where the time and energy of an ONNX model go on a hardware profile:\n"
          "per-layer FLOPs, bytes, arithmetic intensity, roofline times and energy.\n"
          "CHECKPOINT: a Hugging Face checkpoint's config.json, .safetensors files and\n"
          "index, or their folder; only the headers are read (docs/checkpoints.md).\n", out);
    for (size_t s = 0; s < cli_n_sections; s++) {
        fprintf(out, "\n%s:\n", cli_sections[s]);
        for (size_t i = 0; i < cli_n_options; i++)
            if (cli_options[i].section == (int)s && cli_options[i].help) print_option(out, &cli_options[i]);
    }
    fputs("\nexit codes: 0 ok, 2 usage (a bad --fail-if too), 3 bad model or request (batch: any\n"
          "row), 4 incomplete analysis with --strict, 5 a --fail-if threshold crossed\n", out);
}

/* ---------------------------------------------------------------- parse -- */
/* "rooflens MODEL.onnx, rooflens diff": the subcommands an option goes with. */
static void commands_of(const char *name, char *buf, size_t cap) {
    buf[0] = 0;
    for (size_t c = 0; c < N_COMMANDS; c++) {
        bool applies = false;
        for (size_t i = 0; i < cli_n_options; i++)
            if (!strcmp(cli_options[i].name, name) && (cli_options[i].commands & commands[c].bit)) applies = true;
        if (!applies) continue;
        size_t len = strlen(buf);
        snprintf(buf + len, cap - len, "%srooflens %s", len ? " or " : "", commands[c].word ? commands[c].word : "MODEL.onnx");
    }
}

/* One option (and its value) at argv[*i]. */
static int parse_option(cli_args *A, int *i, int argc, char **argv) {
    const char *a = argv[*i];
    bool elsewhere;
    const cli_option *o = find_option(a, A->cmd, &elsewhere);
    if (!o && elsewhere) {
        char where[160], msg[256];
        commands_of(a, where, sizeof where);
        snprintf(msg, sizeof msg, "%%s goes with %s, not with rooflens %s", where,
                 command_of(A->cmd)->word ? command_of(A->cmd)->word : "MODEL.onnx");
        return args_usage_error(A, msg, a);
    }
    if (!o) return args_usage_error(A, "unknown option '%s'", a);
    if (o->action) {
        int rc = o->action(A, argc - *i - 1, argv + *i + 1);
        args_free(A);
        return rc;
    }
    const char *val = NULL;
    if (o->value) {
        if (*i + 1 >= argc) return args_usage_error(A, "%s needs a value", a);
        val = argv[++*i];
    }
    if (o->apply) return o->apply(A, val);
    *(const char **)((char *)A + o->slot) = val;
    return ARG_DONE;
}

/* Every argument after the command word. Returns ARG_DONE to go on, or the
 * exit code of an option that ends the run (--help, --check-hw, an error). */
static int parse_args(cli_args *A, int first, int argc, char **argv) {
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            while (++i < argc) A->paths[A->n_paths++] = argv[i]; /* the rest are models, even "-x.onnx" */
        } else if (a[0] == '-' && a[1]) {
            int rc = parse_option(A, &i, argc, argv);
            if (rc != ARG_DONE) return rc;
        } else {
            A->paths[A->n_paths++] = a;
        }
    }
    return ARG_DONE;
}

/* The hardware every subcommand runs on, read once into a handle that each
 * analysis is given (the request then carries no profile). A profile the
 * core refuses goes into the request as it is, so that its error is
 * reported where and as an analysis reports it (for each row of a batch,
 * as the old or new side of a diff). Returns 0, or EXIT_USAGE said on
 * stderr: no such profile, or it is not JSON. */
static int read_hardware(cli_args *A, cJSON *req) {
    const char *path = NULL;
    char *text = profile_text(A->hw, hw_dir(A->dir), &path);
    if (!text) return EXIT_USAGE;
    A->hw_handle = rl_hw_read(text, NULL);
    cJSON *profile = A->hw_handle ? NULL : cJSON_Parse(text);
    free(text);
    if (A->hw_handle) return 0;
    if (!profile) {
        fprintf(stderr, "rooflens: the hardware profile %s is not valid JSON\n", txt(path));
        return EXIT_USAGE;
    }
    cJSON_AddItemToObject(req, "hardware", profile);
    return 0;
}

/* The request every subcommand starts from: the hardware and the options. */
static int run_command(const cli_command *c, cli_args *A) {
    cJSON *req = A->req;
    A->req = NULL;
    if (read_hardware(A, req)) {
        cJSON_Delete(req);
        args_free(A);
        return EXIT_USAGE;
    }
    cJSON_AddItemToObject(req, "dims", A->dims);
    A->dims = NULL;
    int rc = c->run(req, A);
    cJSON_Delete(req);
    args_free(A);
    return rc;
}

int main(int argc, char **argv) {
    const cli_command *c = &commands[0];
    for (size_t i = 1; argc > 1 && i < N_COMMANDS; i++)
        if (!strcmp(argv[1], commands[i].word)) c = &commands[i];
    if (c->raw) return c->raw(argc - 1, argv + 1);
    cli_args A = {.cmd = c->bit, .hw = "h100-sxm", .format = CLI_FORMAT_TABLE, .top = -1,
                  .max_slowdown = NAN};
    A.paths = calloc((size_t)argc + 1, sizeof *A.paths);
    A.llm_req = cJSON_CreateObject();
    A.req = cJSON_CreateObject();
    A.dims = cJSON_CreateObject();
    if (!A.paths || !A.llm_req || !A.req || !A.dims) {
        args_free(&A);
        fputs("rooflens: out of memory\n", stderr);
        return EXIT_USAGE;
    }
    int rc = parse_args(&A, c->word ? 2 : 1, argc, argv);
    if (rc != ARG_DONE) return rc;
    if (A.help || A.version) {
        if (A.help) print_usage(stdout);
        else printf("rooflens %s\n", ROOFLENS_VERSION);
        args_free(&A);
        return EXIT_OK;
    }
    if (A.n_paths == 0) {
        print_usage(stderr);
        args_free(&A);
        return EXIT_USAGE;
    }
    if ((rc = check_combinations(&A)) != ARG_DONE) return rc;
    return run_command(c, &A);
}
