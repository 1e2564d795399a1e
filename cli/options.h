/* The option table (options.c): every option of every subcommand, written
 * down once. main.c derives the usage text, the parsing and the "goes with"
 * errors from it. */
#ifndef ROOFLENS_CLI_OPTIONS_H
#define ROOFLENS_CLI_OPTIONS_H
#include <stddef.h>

#include "cli.h"

/* A parse step's result: go on, or (any other value) the exit code. */
enum { ARG_DONE = -1 };

typedef struct cli_option {
    int section;       /* the usage paragraph it is listed in (cli_sections) */
    const char *name;  /* "--hw" */
    const char *value; /* "ID|FILE"; NULL for a flag */
    unsigned commands; /* the CMD_* bits it applies to */
    const char *help;  /* its usage lines; "{precisions}" stands for the core's list */
    size_t slot;       /* offsetof the const char * of cli_args it is stored in, when apply is NULL */
    int (*apply)(cli_args *A, const char *value);        /* ARG_DONE or an exit code (A freed) */
    int (*action)(cli_args *A, int n_rest, char **rest); /* ends the run; returns its exit code */
} cli_option;

extern const cli_option cli_options[];
extern const size_t cli_n_options;
/* The usage paragraphs' titles, in order. */
extern const char *const cli_sections[];
extern const size_t cli_n_sections;

/* What was parsed, freed (the request pieces not yet handed on). */
void args_free(cli_args *A);
/* usage_error after args_free. */
int args_usage_error(cli_args *A, const char *fmt, const char *arg);
/* The combinations of options that make no sense, refused before any work:
 * ARG_DONE, or EXIT_USAGE with A freed. */
int check_combinations(cli_args *A);
#endif
