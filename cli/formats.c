/* The one table of --format's values (formats.h). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "formats.h"

const cli_format_row cli_formats[CLI_FORMAT_COUNT] = {
    [CLI_FORMAT_TABLE] = {"table", "tables on the terminal (default)", CMD_ANALYZE | CMD_DIFF | CMD_BATCH},
    [CLI_FORMAT_JSON] = {"json", "the core's answer as JSON", CMD_ANALYZE | CMD_DIFF | CMD_BATCH},
    [CLI_FORMAT_CSV] = {"csv", "one row a layer; diff: a changed layer, batch: a model",
                        CMD_ANALYZE | CMD_DIFF | CMD_BATCH},
    [CLI_FORMAT_NETRON] = {"netron", "an attachment to drop onto the model in Netron", CMD_ANALYZE},
    [CLI_FORMAT_DOT] = {"dot", "the graph in Graphviz, coloured by bound (diff: by change)", CMD_ANALYZE | CMD_DIFF},
    [CLI_FORMAT_MARKDOWN] = {"markdown", "a review in Markdown", CMD_DIFF | CMD_BATCH},
};
_Static_assert(sizeof cli_formats / sizeof cli_formats[0] == CLI_FORMAT_COUNT, "one row of cli_formats per cli_format");

int cli_format_of(const char *id) {
    for (int f = 0; id && f < CLI_FORMAT_COUNT; f++)
        if (!strcmp(cli_formats[f].id, id)) return f;
    return -1;
}

const char *cli_format_id(cli_format f) { return f >= 0 && f < CLI_FORMAT_COUNT ? cli_formats[f].id : "?"; }

void cli_format_list(unsigned cmd, char *buf, size_t size) {
    int n = 0, total = 0;
    for (int f = 0; f < CLI_FORMAT_COUNT; f++) total += (cli_formats[f].commands & cmd) != 0;
    size_t len = 0;
    if (size) buf[0] = 0;
    for (int f = 0; f < CLI_FORMAT_COUNT && len < size; f++) {
        if (!(cli_formats[f].commands & cmd)) continue;
        const char *sep = n == 0 ? "" : n == total - 1 ? " or " : ", ";
        len += (size_t)snprintf(buf + len, size - len, "%s%s", sep, cli_formats[f].id);
        n++;
    }
}
