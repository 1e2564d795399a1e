/* The analysis request's own fields that are not analysis options (see
 * request.h): today its "limits". */
#include <cjson/cJSON.h>
#include <string.h>

#include "request.h"

/* Each limit is a whole number from 1 to a ceiling that keeps the reader's
 * own bookkeeping safe (node indices are ints, nesting is followed by
 * recursion in the graph builder, a skeleton message must fit the 5-byte
 * length the reader patches in). */
static const struct {
    const char *name;
    double max;
} limit_specs[] = {
    {"max_skeleton_bytes", 4294967296.0}, {"max_nodes", 100000000.0}, {"max_depth", 256},
    {"max_rank", RL_MAX_RANK_HARD},       {"max_string_bytes", 1073741824.0},
    {"keep_payload_bytes", 16777216.0},
};

int rl_limits_from_json(const cJSON *obj, rl_limits *l, rl_error *err) {
    memset(l, 0, sizeof *l);
    if (!obj || cJSON_IsNull(obj)) return 0;
    if (!cJSON_IsObject(obj)) {
        rl_error_set(err, "bad_request", "limits",
                     "limits must be an object such as {\"max_nodes\": 100000} (see docs/api.md)");
        return -1;
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, obj) {
        size_t k = 0, n = sizeof limit_specs / sizeof *limit_specs;
        while (k < n && strcmp(limit_specs[k].name, it->string) != 0) k++;
        if (k == n) {
            rl_error_set(err, "bad_request", "limits",
                         "unknown limit '%.100s'; the limits are max_skeleton_bytes, max_nodes, "
                         "max_depth, max_rank, max_string_bytes and keep_payload_bytes",
                         it->string);
            return -1;
        }
        double v = cJSON_IsNumber(it) ? it->valuedouble : -1;
        if (!(v >= 1 && v <= limit_specs[k].max && v == (double)(uint64_t)v)) {
            rl_error_set(err, "bad_request", "limits",
                         "limits.%s must be a whole number from 1 to %.0f", limit_specs[k].name,
                         limit_specs[k].max);
            return -1;
        }
        uint64_t u = (uint64_t)v;
        switch (k) {
        case 0: l->max_skeleton_bytes = u; break;
        case 1: l->max_nodes = u; break;
        case 2: l->max_depth = (uint32_t)u; break;
        case 3: l->max_rank = (uint32_t)u; break;
        case 4: l->max_string_bytes = u; break;
        default: l->keep_payload_bytes = u; break;
        }
    }
    return 0;
}
