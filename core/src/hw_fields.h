/* The hardware-profile parser's toolkit (hw_fields.c), for the two files
 * that read a profile: hw.c (the profile's core blocks, power modes, the
 * energy model, rl_hw_parse and the shipped-profile rules) and hw_blocks.c
 * (the optional "interconnect" and "forecast" blocks). Nothing else
 * includes it: everyone else goes through hw.h.
 *
 * Contracts: every reader returns 0, or -1 with x->err set to a bad_hardware
 * error that names the profile, the field's full path (x->prefix, then the
 * block's path) and what is wrong. Strings read from the profile are its
 * cJSON's: they live as long as the parsed JSON. */
#ifndef ROOFLENS_HW_FIELDS_H
#define ROOFLENS_HW_FIELDS_H
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "hw.h"

/* Where in the profile the parser is: "hardware 'id'" and the prefix of the
 * block being read ("" or "power_modes[15w].overrides."). */
typedef struct parse_ctx {
    const char *id;
    char prefix[160];
    rl_error *err;
} parse_ctx;

/* Sets x->err for `field` (after x->prefix) with the printf-style reason;
 * returns -1. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int hw_bad(const parse_ctx *x, const char *field, const char *fmt, ...);

/* The value of `list` (words.h) that item spells, or -1 after setting
 * x->err for `field` with the list's ids: an absent or non-string item is
 * refused as well. */
int hw_list_value(const parse_ctx *x, const cJSON *item, rl_list list, const char *field);

/* Whether s is one of the NULL-ended list. */
bool hw_in_list(const char *s, const char *const *list);

/* A NULL-ended list as "a, b, c" in buf (cut at size), for a message that
 * names what is allowed; returns buf. */
const char *hw_list_text(const char *const *list, char *buf, size_t size);

/* Refuses any member of obj not in `allowed`, naming the ones known. */
int hw_check_keys(const parse_ctx *x, const cJSON *obj, const char *const *allowed, const char *path);

/* Reads obj[key] (a number or {value, source, kind}) into *out when present,
 * checked against the key's physical range; leaves *out alone when absent.
 * `path` is the block's path in the profile ("compute.fp16"), for errors.
 * *kind (if not NULL) receives the figure's kind, or NULL. */
int hw_read_figure(const parse_ctx *x, const cJSON *obj, const char *key, const char *path, double *out,
                   const char **kind);

/* The kinds a figure's {"value", "source", "kind"} may name, NULL-ended. */
extern const char *const hw_figure_kinds[];
#endif
