/* JSON output helpers shared by the response writers (analyze.c, study.c,
 * diff.c, measured.c); defined in json_print.c beside the rest of the JSON support
 * (rl_json_begin, rl_json_finish, rl_json_text_* in internal.h). */
#ifndef ROOFLENS_JSON_H
#define ROOFLENS_JSON_H

#include "rooflens_text.h" /* rl_json_get, rl_json_get_num, rl_json_get_str */

struct cJSON;

/* Adds o[key] = v, or o[key] = null when v is not finite: the contract of
 * docs/api.md is that a figure the tool cannot know is null, never NaN or
 * Infinity (which are not JSON). A failed allocation is counted by
 * rl_json_begin's counter like any other cJSON call. */
void rl_json_add_num(struct cJSON *o, const char *key, double v);

/* Reads obj[key] as a whole number from lo to hi into *out: 0 when the
 * member is absent or null (*out untouched), 1 when read, -1 when it is
 * something else (the caller says what it must be, in its own words). The
 * request parsers' one rule for counts, sizes and bits. */
int rl_json_whole(const struct cJSON *obj, const char *key, double lo, double hi, double *out);

/* The one family of accessors for reading an answer back (rl_json_get,
 * rl_json_get_num, rl_json_get_str: NULL, NaN or "" for a missing member)
 * is declared in rooflens.h, so that the CLI's printers use it too; it is
 * defined in json_print.c. */

#endif
