/* What every rooflens response must be, whatever the input: the oracle of
 * the fuzz targets (tests/fuzz/fuzz_common.h) and of test_responses (every
 * fixture, the malformed corpus, hostile names and the structural mutants).
 *
 *  - valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF);
 *  - JSON with a boolean "ok";
 *  - ok:false: an error with a non-empty code (never "internal") and message;
 *  - ok:true: every figure of "totals", "sol" and each layer's cost fields is a
 *    finite, non-negative number (a null there is a non-finite value the
 *    writer hid), and so is every number of a study row.
 *
 * oracle_check returns NULL when the response passes, else a static
 * description of the first violation. Header-only. */
#ifndef ROOFLENS_RESPONSE_ORACLE_H
#define ROOFLENS_RESPONSE_ORACLE_H
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Index of the first byte that does not start a valid UTF-8 sequence, -1 if none. */
static inline long oracle_utf8_bad_at(const char *str) {
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (s[i]) {
        unsigned c = s[i];
        int n = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : -1;
        if (n < 0 || c == 0xc0 || c == 0xc1 || c > 0xf4) return (long)i;
        uint32_t cp = c & (0x3fu >> n);
        for (int k = 1; k <= n; k++) {
            if ((s[i + k] & 0xc0) != 0x80) return (long)i;
            cp = (cp << 6) | (s[i + k] & 0x3fu);
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return (long)i;
        i += (size_t)n + 1;
    }
    return -1;
}

/* Energy figures are null, by contract, when the hardware profile gives no
 * energy coefficients (the tool cannot know them): that null is an answer. */
static inline bool oracle_energy_key(const cJSON *item) {
    return item->string && (!strcmp(item->string, "energy_j") || !strcmp(item->string, "avg_power_w"));
}

/* Every number under `item` finite and >= 0; nulls refused unless allow_null
 * (or, with no_energy, for the energy figures). */
static inline const char *oracle_figures_e(const cJSON *item, bool allow_null, bool no_energy, int depth) {
    if (!item || depth > 64) return NULL;
    if (cJSON_IsNumber(item))
        return isfinite(item->valuedouble) && item->valuedouble >= 0 ? NULL : "a negative or non-finite figure";
    if (cJSON_IsNull(item))
        return allow_null || (no_energy && oracle_energy_key(item)) ? NULL
                                                                   : "a null figure (a non-finite value hidden by the writer)";
    if (cJSON_IsArray(item) || cJSON_IsObject(item)) {
        const cJSON *c;
        cJSON_ArrayForEach(c, item) {
            const char *bad = oracle_figures_e(c, allow_null, no_energy, depth + 1);
            if (bad) return bad;
        }
    }
    return NULL;
}

/* Every number under `item` finite and >= 0; nulls refused unless allow_null. */
static inline const char *oracle_figures(const cJSON *item, bool allow_null, int depth) {
    if (!item || depth > 64) return NULL;
    if (cJSON_IsNumber(item))
        return isfinite(item->valuedouble) && item->valuedouble >= 0 ? NULL : "a negative or non-finite figure";
    if (cJSON_IsNull(item)) return allow_null ? NULL : "a null figure (a non-finite value hidden by the writer)";
    if (cJSON_IsArray(item) || cJSON_IsObject(item)) {
        const cJSON *c;
        cJSON_ArrayForEach(c, item) {
            const char *bad = oracle_figures(c, allow_null, depth + 1);
            if (bad) return bad;
        }
    }
    return NULL;
}

static inline const char *oracle_layers(const cJSON *layers) {
    static const char *const fields[] = {"matrix_flops", "vector_flops", "flops", "macs", "input_bytes",
                                         "weight_bytes", "output_bytes", "bytes", "fused_bytes",
                                         "intensity", "t_compute", "t_memory", "t", "energy_j"};
    const cJSON *l;
    cJSON_ArrayForEach(l, layers) {
        /* the kernel's point: null by contract for a layer fused into another's kernel */
        static const char *const kernel[] = {"kernel_intensity", "kernel_flops_per_s", "kernel_flop_per_j"};
        for (size_t k = 0; k < sizeof kernel / sizeof *kernel; k++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(l, kernel[k]);
            if (v && !cJSON_IsNull(v) && (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0))
                return "a layer's kernel point that is not null or a number >= 0";
        }
        for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(l, fields[i]);
            if (!v) continue;
            if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0)
                return "a layer figure that is negative, non-finite or null";
        }
    }
    return NULL;
}

static inline const char *oracle_check(const char *json) {
    if (!json) return "NULL response";
    if (oracle_utf8_bad_at(json) >= 0) return "the response is not valid UTF-8";
    cJSON *o = cJSON_Parse(json);
    if (!o) return "the response is not JSON";
    const char *bad = NULL;
    const cJSON *ok = cJSON_GetObjectItemCaseSensitive(o, "ok");
    if (!cJSON_IsBool(ok)) {
        /* rl_operator_table answers an array */
        if (!cJSON_IsArray(o)) bad = "the response has no boolean ok";
    } else if (cJSON_IsFalse(ok)) {
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "error");
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(e, "code");
        const cJSON *msg = cJSON_GetObjectItemCaseSensitive(e, "message");
        if (!cJSON_IsString(code) || !code->valuestring[0] || !cJSON_IsString(msg) || !msg->valuestring[0])
            bad = "an error without code or message";
        else if (strcmp(code->valuestring, "internal") == 0)
            bad = "an internal error";
    } else {
        const cJSON *hw = cJSON_GetObjectItemCaseSensitive(o, "hardware");
        bool no_energy = cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(hw, "energy_model"));
        bad = oracle_figures_e(cJSON_GetObjectItemCaseSensitive(o, "totals"), false, no_energy, 0);
        if (!bad) bad = oracle_figures_e(cJSON_GetObjectItemCaseSensitive(o, "sol"), false, no_energy, 0);
        if (!bad) bad = oracle_layers(cJSON_GetObjectItemCaseSensitive(o, "layers"));
        /* study rows with an error carry nulls */
        const cJSON *study = cJSON_GetObjectItemCaseSensitive(o, "study");
        if (!bad) bad = oracle_figures(cJSON_GetObjectItemCaseSensitive(study, "rows"), true, 0);
    }
    cJSON_Delete(o);
    return bad;
}
#endif
