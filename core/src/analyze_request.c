/* The request's options (docs/api.md, "Request"), one parser per field:
 * rl_analyze_parse_options (analyze.h) for rl_model_analyze and
 * rl_fit_forecast. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "graph.h"
#include "json.h"
#include "precision.h"
#include "request.h"
#include "timing.h"

typedef rl_options options;

/* ------------------------------------------------------ request fields -- */
/* One parser per request field. Each leaves its default in place when the
 * field is absent and sets a bad_request error naming the field otherwise. */
static int parse_precision(const cJSON *req, options *o, rl_error *err) {
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(req, "precision");
    if (!p || cJSON_IsNull(p)) return 0;
    if (cJSON_IsString(p) && strcmp(p->valuestring, "model") == 0) return 0;
    int pi = cJSON_IsString(p) ? rl_precision_parse(p->valuestring) : RL_P_NONE;
    if (pi == RL_P_NONE) {
        char names[128];
        rl_precision_list(names, sizeof names);
        rl_error_set(err, "bad_request", "precision", "precision must be one of model, %s", names);
        return -1;
    }
    o->precision = pi;
    o->precision_dtype = rl_precision_table[pi].dtype;
    o->precision_name = rl_precision_table[pi].name;
    return 0;
}

/* The string of a request field when it is one of `allowed` (NULL-terminated);
 * NULL otherwise, with a bad_request error at `key` carrying `message`. */
static const char *parse_choice(const cJSON *item, const char *key, const char *const *allowed, const char *message,
                                rl_error *err) {
    for (int i = 0; cJSON_IsString(item) && allowed[i]; i++)
        if (strcmp(item->valuestring, allowed[i]) == 0) return item->valuestring;
    rl_error_set(err, "bad_request", key, "%s", message);
    return NULL;
}

static int parse_mode(const cJSON *req, options *o, rl_error *err) {
    static const char *const modes[] = {"inference", "training", NULL};
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(req, "mode");
    if (!mode) return 0;
    const char *m = parse_choice(mode, "mode", modes, "mode must be \"inference\" or \"training\"", err);
    if (!m) return -1;
    o->training = strcmp(m, "training") == 0;
    return 0;
}

static int parse_sol(const cJSON *req, options *o, rl_error *err) {
    static const char *const sols[] = {"unfused", "fused", "fused_prefetched", NULL};
    const cJSON *sol = cJSON_GetObjectItemCaseSensitive(req, "sol");
    if (!sol) return 0;
    const char *s = parse_choice(sol, "sol", sols, "sol must be \"unfused\", \"fused\" or \"fused_prefetched\"", err);
    if (!s) return -1;
    o->sol = s;
    return 0;
}

static int parse_granularity(const cJSON *req, options *o, rl_error *err) {
    static const char *const grans[] = {"per_op", "whole_graph", "intended", NULL};
    const cJSON *gran = cJSON_GetObjectItemCaseSensitive(req, "granularity");
    if (!gran) return 0;
    const char *g = parse_choice(gran, "granularity", grans,
                                 "granularity must be \"per_op\", \"whole_graph\" or \"intended\"", err);
    if (!g) return -1;
    o->granularity = g;
    return 0;
}

static int parse_layers(const cJSON *req, options *o, rl_error *err) {
    static const char *const forms[] = {"rows", "columns", "packed", NULL};
    const cJSON *layers = cJSON_GetObjectItemCaseSensitive(req, "layers");
    if (!layers || cJSON_IsNull(layers)) return 0;
    if (cJSON_IsBool(layers)) {
        o->include_layers = cJSON_IsTrue(layers);
        return 0;
    }
    const char *form = parse_choice(layers, "layers", forms,
                                    "layers must be true, false, \"rows\", \"columns\" (the same figures as "
                                    "arrays per field) or \"packed\" (columns of numbers as doubles after the text)",
                                    err);
    if (!form) return -1;
    o->layers_layout = !strcmp(form, "columns") ? RL_LAYERS_COLUMNS : !strcmp(form, "packed") ? RL_LAYERS_PACKED : RL_LAYERS_ROWS;
    return 0;
}

static int parse_batch(const cJSON *req, rl_ctx *c, rl_error *err) {
    const cJSON *batch = cJSON_GetObjectItemCaseSensitive(req, "batch");
    if (!batch || cJSON_IsNull(batch)) return 0;
    if (!cJSON_IsNumber(batch) || batch->valuedouble < 1 || batch->valuedouble > 1e9 ||
        batch->valuedouble != floor(batch->valuedouble)) {
        rl_error_set(err, "bad_request", "batch", "batch must be a whole number from 1 to 10^9");
        return -1;
    }
    c->batch = (int64_t)batch->valuedouble;
    return 0;
}

/* The request's {"name": size} settings, copied into the context's arena;
 * *dims receives the array (kept by the caller for the graph build). */
static int parse_dims(const cJSON *req, rl_ctx *c, rl_dim_setting **dims, rl_error *err) {
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(req, "dims");
    if (!d || cJSON_IsNull(d)) return 0;
    if (!cJSON_IsObject(d)) {
        rl_error_set(err, "bad_request", "dims", "dims must be an object {\"name\": size}");
        return -1;
    }
    int n = cJSON_GetArraySize(d);
    *dims = rl_arena_alloc(c->arena, (size_t)(n + 1) * sizeof **dims);
    const cJSON *it;
    cJSON_ArrayForEach(it, d) {
        if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble > 1e12 ||
            it->valuedouble != floor(it->valuedouble)) {
            rl_error_set(err, "bad_request", "dims", "dim '%s' must be a whole number from 0 to 10^12", it->string);
            return -1;
        }
        (*dims)[c->n_dims++] = (rl_dim_setting){rl_arena_strdup(c->arena, it->string), (int64_t)it->valuedouble};
    }
    c->dims = *dims;
    return 0;
}

/* The request's analysis options, each field checked in this order (the
 * first bad one is the error). */
int rl_analyze_parse_options(const cJSON *req, options *o, rl_ctx *c, rl_dim_setting **dims, rl_error *err) {
    memset(o, 0, sizeof *o);
    o->precision = -1;
    o->precision_name = "model";
    o->sol = "fused";
    o->granularity = "intended";
    o->include_layers = true;
    if (parse_precision(req, o, err) || parse_mode(req, o, err) || parse_sol(req, o, err) ||
        parse_granularity(req, o, err) || parse_layers(req, o, err) || parse_batch(req, c, err) ||
        parse_dims(req, c, dims, err))
        return -1;
    c->precision_dtype = o->precision_dtype;
    return 0;
}
