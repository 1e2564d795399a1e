/* The hardware-profile parser's shared parts, for its two files: hw.c (the
 * toolkit below, the profile's core blocks, power modes, the energy model,
 * rl_hw_parse and the shipped-profile rules) and hw_blocks.c (the optional
 * "interconnect" and "forecast" blocks). Nothing outside these two files
 * includes it: everyone else goes through hw.h.
 *
 * Contracts: every reader returns 0, or -1 with x->err set to a bad_hardware
 * error that names the profile, the field's full path (x->prefix, then the
 * block's path) and what is wrong. Strings read from the profile are its
 * cJSON's: they live as long as the parsed JSON. */
#ifndef ROOFLENS_HW_PARSE_H
#define ROOFLENS_HW_PARSE_H
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "hw.h"

/* ------------------------------------------------- the toolkit (hw.c) -- */
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

/* -------------------------------------- optional blocks (hw_blocks.c) -- */
/* "interconnect": the chip-to-chip links. "none" carries no figures (one
 * device); any other topology needs links, link_bandwidth_Bps and
 * latency_s. Read from the base profile only (a mode cannot change it). */
int hw_apply_interconnect(const parse_ctx *x, const cJSON *ic, rl_hw *hw);

/* The forecast of a profile without a "forecast" block: generic fractions
 * per op class, no tile quantization, the launch overhead as the fixed cost
 * per kernel (kernel_s = -1 until the mode's overhead is known). */
void hw_forecast_defaults(rl_hw *hw);

/* The profile's "forecast" block (NULL: none) over the defaults; its
 * cache_level must name one of hw's memory levels, so the memory is read
 * first. */
int hw_apply_forecast(const parse_ctx *x, const cJSON *fc, rl_hw *hw);
#endif
