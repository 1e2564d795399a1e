/* The hardware-profile parser's toolkit (hw_fields.h): the physical range
 * of every figure a profile may hold, one figure read and checked against
 * it, the check of a block's keys and the error that names the field. hw.c
 * (the profile's core blocks, power modes, the shipped-profile rules) and
 * hw_blocks.c (the optional "interconnect" and "forecast" blocks) read
 * their fields with it; it calls neither. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hw_fields.h"

/* ------------------------------------------------------------ the rules -- */
/* The physical range of every figure a profile may hold. The bounds are
 * wide (a microcontroller to an exascale node) but exclude what no device
 * has: a denormal or zero peak, a bandwidth of 1e-300 B/s, a kJ per FLOP. */
typedef struct field_rule {
    const char *key, *unit;
    double lo, hi;
    bool zero_ok; /* 0 is meaningful: no launch overhead, no static power */
    bool whole;   /* a count: links, matrix units, a tile's elements */
} field_rule;

static const field_rule rules[] = {
    {"clock_hz", "Hz", 1e6, 1e11, false, false},
    {"launch_overhead_s", "s", 1e-9, 0.1, true, false},
    {"matrix", "FLOP/s", 1e6, 1e19, false, false},
    {"vector", "FLOP/s", 1e6, 1e19, false, false},
    {"bandwidth_Bps", "B/s", 1e5, 1e16, false, false},
    {"capacity_bytes", "bytes", 1e3, 1e16, false, false},
    {"exposed_bytes", "bytes", 1e3, 1e16, false, false},
    {"power_budget_w", "W", 1e-3, 1e6, false, false},
    {"power_max_w", "W", 1e-3, 1e6, false, false},
    {"flop_j", "J/FLOP", 1e-16, 1e-6, false, false},
    {"byte_j", "J/byte", 1e-14, 1e-6, false, false},
    {"static_w", "W", 1e-3, 1e6, true, false},
    {"voltage_floor_ratio", "(fraction)", 0.05, 1, false, false},
    {"voltage_floor_clock_hz", "Hz", 1e6, 1e11, false, false},
    {"kernel_overhead_s", "s", 1e-9, 0.1, true, false},
    {"between_kernels_s", "s", 1e-9, 0.01, true, false},
    {"between_kernels_growth", "(seconds per second of the kernel before)", 1e-6, 1, true, false},
    {"group_overhead_s", "s", 1e-12, 0.01, true, false},
    {"matrix_units", "(count)", 1, 1e7, false, true},
    {"tile_m", "(elements)", 1, 65536, false, true},
    {"tile_n", "(elements)", 1, 65536, false, true},
    {"tile_k", "(elements)", 1, 65536, false, true},
    {"tile_overhead_k", "(steps of K)", 1e-3, 65536, true, false},
    {"channel_block", "(channels)", 1, 65536, false, true},
    {"link_fraction", "(fraction of the link bandwidth)", 1e-3, 1, false, false},
    {"compute_fraction", "(fraction of the peak)", 1e-4, 1, false, false},
    {"memory_fraction", "(fraction of the bandwidth)", 1e-4, 1, false, false},
    {"links", "links", 1, 1e4, false, true},
    {"link_bandwidth_Bps", "B/s", 1e6, 1e14, false, false},
    {"latency_s", "s", 1e-9, 0.01, true, false},
};

static const char *const figure_keys[] = {"value", "source", "kind", NULL};
const char *const hw_figure_kinds[] = {"datasheet", "measured", "derived", "estimated", NULL};

/* ------------------------------------------------------- error reporting -- */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int hw_bad(const parse_ctx *x, const char *field, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char where[256];
    snprintf(where, sizeof where, "hardware '%s' %s%s", x->id, x->prefix, field);
    rl_error_set(x->err, "bad_hardware", where, "hardware '%s': %s%s %s", x->id, x->prefix, field, msg);
    return -1;
}

int hw_list_value(const parse_ctx *x, const cJSON *item, rl_list list, const char *field) {
    int v = rl_value_of(list, cJSON_IsString(item) ? item->valuestring : NULL);
    if (v >= 0) return v;
    char ids[160]; /* the table's ids, as every list of values is named */
    rl_value_list_text(list, ids, sizeof ids);
    hw_bad(x, field, "must be one of %s", ids);
    return -1;
}

bool hw_in_list(const char *s, const char *const *list) {
    for (int i = 0; list[i]; i++)
        if (strcmp(s, list[i]) == 0) return true;
    return false;
}

/* A NULL-ended list as "a, b, c", for a message that names what is allowed. */
const char *hw_list_text(const char *const *list, char *buf, size_t size) {
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; list[i] && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "", list[i]);
    return buf;
}

int hw_check_keys(const parse_ctx *x, const cJSON *obj, const char *const *allowed, const char *path) {
    const cJSON *it;
    cJSON_ArrayForEach(it, obj) {
        if (hw_in_list(it->string, allowed)) continue;
        char known[300];
        hw_list_text(allowed, known, sizeof known);
        char field[200];
        snprintf(field, sizeof field, "%s%s%s", path, path[0] ? "." : "", it->string);
        return hw_bad(x, field, "is not a field of a hardware profile here (known: %s)", known);
    }
    return 0;
}

/* ----------------------------------------------------------- one figure -- */
static const field_rule *rule_of(const char *key) {
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
        if (strcmp(rules[i].key, key) == 0) return &rules[i];
    return NULL;
}

bool rl_hw_figure_range(const char *key, double *lo, double *hi) {
    const field_rule *r = rule_of(key);
    if (r) *lo = r->lo, *hi = r->hi;
    return r != NULL;
}

/* Read obj[key] (a number or {value, source, kind}) into *out when present.
 * `path` is the block's path in the profile ("compute.fp16"), for errors.
 * *kind (if not NULL) receives the figure's kind, or NULL. */
int hw_read_figure(const parse_ctx *x, const cJSON *obj, const char *key, const char *path, double *out,
                  const char **kind) {
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!f) return 0;
    char field[200];
    snprintf(field, sizeof field, "%s%s%s", path, path[0] ? "." : "", key);
    const field_rule *r = rule_of(key);
    double v = NAN;
    if (cJSON_IsNumber(f)) {
        v = f->valuedouble;
    } else if (cJSON_IsObject(f)) {
        if (hw_check_keys(x, f, figure_keys, field)) return -1;
        const cJSON *val = cJSON_GetObjectItemCaseSensitive(f, "value");
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(f, "kind");
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(f, "source");
        if (!cJSON_IsNumber(val)) return hw_bad(x, field, "needs a number \"value\"");
        if (k && !(cJSON_IsString(k) && hw_in_list(k->valuestring, hw_figure_kinds)))
            return hw_bad(x, field, "has a \"kind\" that is not datasheet, measured, derived or estimated");
        if (src && !cJSON_IsString(src)) return hw_bad(x, field, "has a \"source\" that is not text");
        v = val->valuedouble;
        if (kind) *kind = cJSON_IsString(k) ? k->valuestring : NULL;
    } else {
        return hw_bad(x, field, "must be a number or {\"value\": number, \"source\": text, \"kind\": text}");
    }
    if (v == 0 && r->zero_ok) {
        *out = 0;
        return 0;
    }
    if (!isfinite(v) || fpclassify(v) != FP_NORMAL || v < r->lo || v > r->hi)
        return hw_bad(x, field, "must be a normal positive number from %g to %g %s (got %g)", r->lo, r->hi, r->unit,
                   v);
    if (r->whole && v != floor(v))
        return hw_bad(x, field, "must be a whole number from %g to %g %s (got %.17g)", r->lo, r->hi, r->unit, v);
    *out = v;
    return 0;
}
