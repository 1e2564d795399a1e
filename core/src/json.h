/* JSON output helpers shared by the response writers (analyze.c, study.c,
 * diff.c, measured.c); defined in util.c beside the rest of the JSON support
 * (rl_json_begin, rl_json_finish, rl_json_text_* in internal.h). */
#ifndef ROOFLENS_JSON_H
#define ROOFLENS_JSON_H

struct cJSON;

/* Adds o[key] = v, or o[key] = null when v is not finite: the contract of
 * docs/api.md is that a figure the tool cannot know is null, never NaN or
 * Infinity (which are not JSON). A failed allocation is counted by
 * rl_json_begin's counter like any other cJSON call. */
void rl_json_add_num(struct cJSON *o, const char *key, double v);

/* The one family of accessors for reading an answer back (the response
 * readers: the diff, its Markdown and gate, the batch summary). One default
 * for a missing member or one of another type: NULL, NaN for a number, ""
 * for a string; never a made-up 0, so a missing figure stays missing (and
 * is written as null). NULL objects are fine. */
const struct cJSON *rl_json_get(const struct cJSON *o, const char *key);
double rl_json_get_num(const struct cJSON *o, const char *key);
const char *rl_json_get_str(const struct cJSON *o, const char *key);

#endif
