/* --format: the one table of the CLI's output formats (formats.c). Each
 * row is the id a user types, what it prints and the subcommands that
 * print it (a mask of CMD_* bits); the option's parsing, its help text and
 * its errors all read the table, and the code carries the enum. Adding a
 * format: a value here (before CLI_FORMAT_COUNT), a row in formats.c (the
 * static_assert counts them), and its printer in the subcommands that
 * take it. */
#ifndef ROOFLENS_CLI_FORMATS_H
#define ROOFLENS_CLI_FORMATS_H
#include <stddef.h>

typedef enum {
    CLI_FORMAT_TABLE,    /* the terminal's tables (the default) */
    CLI_FORMAT_JSON,     /* the core's answer as it makes it */
    CLI_FORMAT_CSV,      /* one row a layer (analyze) or a model (batch), or the changed layers (diff) */
    CLI_FORMAT_NETRON,   /* a netron:attachment for Netron */
    CLI_FORMAT_DOT,      /* the dataflow graph in Graphviz */
    CLI_FORMAT_MARKDOWN, /* a review's Markdown (diff, batch) */
    CLI_FORMAT_COUNT
} cli_format;

typedef struct cli_format_row {
    const char *id;    /* as typed after --format */
    const char *help;  /* what it prints, for --help */
    unsigned commands; /* the CMD_* bits of the subcommands that print it */
} cli_format_row;

extern const cli_format_row cli_formats[CLI_FORMAT_COUNT];

/* The format typed `id`; -1 for NULL or an id of no format. */
int cli_format_of(const char *id);
/* The id of format f ("json"). */
const char *cli_format_id(cli_format f);
/* "table, json, csv, netron or dot": the formats of subcommand `cmd`. */
void cli_format_list(unsigned cmd, char *buf, size_t size);

#endif
