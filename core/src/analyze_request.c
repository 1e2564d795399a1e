/* The request's options (docs/api.md, "Request"), one parser per field:
 * rl_analyze_parse_options (analyze.h) for rl_model_analyze and
 * rl_fit_forecast. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
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

/* ------------------------------------------------------- the request -- */
cJSON *rl_analyze_parse_request(const char *request_json, rl_error *err) {
    cJSON *req = cJSON_Parse(request_json ? request_json : "{}");
    if (req && cJSON_IsObject(req)) return req;
    cJSON_Delete(req);
    if (rl_json_alloc_failed())
        rl_error_set(err, "out_of_memory", "request", "out of memory while reading the request");
    else
        rl_error_set(err, "bad_request", "request",
                     "the request is not a JSON object (see docs/api.md for its fields)");
    return NULL;
}

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


/* The value of `list` a request field names; -1, with a bad_request error
 * at `key` listing the list's ids, when it names none. */
static int parse_value(const cJSON *item, const char *key, rl_list list, rl_error *err) {
    int v = rl_value_of(list, cJSON_IsString(item) ? item->valuestring : NULL);
    if (v >= 0) return v;
    char ids[256];
    rl_value_list_text(list, ids, sizeof ids);
    rl_error_set(err, "bad_request", key, "%s must be one of %s", key, ids);
    return -1;
}

static int parse_mode(const cJSON *req, options *o, rl_error *err) {
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(req, "mode");
    if (!mode) return 0;
    int m = parse_value(mode, "mode", RL_LIST_MODE, err);
    if (m < 0) return -1;
    o->training = m == RL_MODE_TRAINING;
    return 0;
}

static int parse_sol(const cJSON *req, options *o, rl_error *err) {
    const cJSON *sol = cJSON_GetObjectItemCaseSensitive(req, "sol");
    if (!sol) return 0;
    int s = parse_value(sol, "sol", RL_LIST_SOL, err);
    if (s < 0) return -1;
    o->sol = (rl_sol_model)s;
    return 0;
}

static int parse_granularity(const cJSON *req, options *o, rl_error *err) {
    const cJSON *gran = cJSON_GetObjectItemCaseSensitive(req, "granularity");
    if (!gran) return 0;
    int g = parse_value(gran, "granularity", RL_LIST_GRANULARITY, err);
    if (g < 0) return -1;
    o->granularity = (rl_granularity)g;
    return 0;
}

static int parse_layers(const cJSON *req, options *o, rl_error *err) {
    static const char *const forms[] = {"rows", "columns", "packed", "csv", NULL};
    const cJSON *layers = cJSON_GetObjectItemCaseSensitive(req, "layers");
    if (!layers || cJSON_IsNull(layers)) return 0;
    if (cJSON_IsBool(layers)) {
        o->include_layers = cJSON_IsTrue(layers);
        return 0;
    }
    const char *form = parse_choice(layers, "layers", forms,
                                    "layers must be true, false, \"rows\", \"columns\" (the same figures as "
                                    "arrays per field), \"packed\" (columns of numbers as doubles after the text) "
                                    "or \"csv\" (the layer table as CSV after the text)",
                                    err);
    if (!form) return -1;
    o->layers_layout = !strcmp(form, "columns") ? RL_LAYERS_COLUMNS
                       : !strcmp(form, "packed") ? RL_LAYERS_PACKED
                       : !strcmp(form, "csv")    ? RL_LAYERS_CSV
                                                 : RL_LAYERS_ROWS;
    return 0;
}

/* "csv": {"rows": [layer index, ...], "filter": "words"}: which layers the
 * CSV holds and in what order (the page's sorted, filtered table), and
 * what chose them. The indices are checked against the graph when the
 * CSV is written (analyze.c). */
static int parse_csv(const cJSON *req, options *o, rl_error *err) {
    const cJSON *csv = cJSON_GetObjectItemCaseSensitive(req, "csv");
    if (!csv || cJSON_IsNull(csv)) return 0;
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(csv, "rows");
    const cJSON *filter = cJSON_GetObjectItemCaseSensitive(csv, "filter");
    const char *why = !cJSON_IsObject(csv) ? "csv must be an object: {\"rows\": [layer index, ...], \"filter\": text}"
                      : o->layers_layout != RL_LAYERS_CSV ? "csv goes with \"layers\": \"csv\""
                      : rows && !cJSON_IsNull(rows) && !cJSON_IsArray(rows) ? "csv.rows must be a list of layer indices"
                      : filter && !cJSON_IsNull(filter) && !cJSON_IsString(filter) ? "csv.filter must be a text"
                                                                                    : NULL;
    const cJSON *r, *list = cJSON_IsArray(rows) ? rows : NULL;
    cJSON_ArrayForEach(r, list) {
        if (!why && !(cJSON_IsNumber(r) && r->valuedouble >= 0 && r->valuedouble <= INT32_MAX &&
                      r->valuedouble == (double)(int)r->valuedouble))
            why = "csv.rows must hold layer indices: whole numbers from 0";
    }
    if (why) {
        rl_error_set(err, "bad_request", "csv", "%s", why);
        return -1;
    }
    o->csv = csv;
    return 0;
}

/* "layer_io": false leaves each layer's inputs and outputs lists out (and
 * so the tensor table): a caller that prints only the figures (the CLI's
 * table and CSV) need not receive, hold and skip every tensor's name and
 * shape, most of a big model's answer. */
static int parse_layer_io(const cJSON *req, options *o, rl_error *err) {
    const cJSON *io = cJSON_GetObjectItemCaseSensitive(req, "layer_io");
    if (!io || cJSON_IsNull(io)) return 0;
    if (!cJSON_IsBool(io)) {
        rl_error_set(err, "bad_request", "layer_io",
                     "layer_io must be true (each layer's inputs and outputs listed, the default) or false "
                     "(left out)");
        return -1;
    }
    o->layer_io = cJSON_IsTrue(io);
    return 0;
}

/* "top_layers": K keeps only the K layers of the longest floor time in the
 * layer table, longest first: a caller that shows the top of the table
 * (the CLI's) need not receive and hold the rest. Not with the CSV, whose
 * rows are chosen by "csv". */
static int parse_top_layers(const cJSON *req, options *o, rl_error *err) {
    double top = 0;
    int got = rl_json_whole(req, "top_layers", 1, 1e9, &top);
    if (got < 0)
        rl_error_set(err, "bad_request", "top_layers", "top_layers must be a whole number from 1 to 10^9 (the layers kept)");
    if (got <= 0) return got;
    if (o->layers_layout == RL_LAYERS_CSV) {
        rl_error_set(err, "bad_request", "top_layers",
                     "top_layers goes with the rows or columns of the layers; the CSV's rows are chosen by \"csv\"");
        return -1;
    }
    o->top_layers = (int)top;
    return 0;
}

static int parse_batch(const cJSON *req, rl_ctx *c, rl_error *err) {
    double batch = 0;
    int got = rl_json_whole(req, "batch", 1, 1e9, &batch);
    if (got < 0) rl_error_set(err, "bad_request", "batch", "batch must be a whole number from 1 to 10^9");
    if (got <= 0) return got;
    c->batch = (int64_t)batch;
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
    o->sol = RL_SOL_FUSED;
    o->granularity = RL_GRAN_INTENDED;
    o->include_layers = true;
    o->layer_io = true;
    if (parse_precision(req, o, err) || parse_mode(req, o, err) || parse_sol(req, o, err) ||
        parse_granularity(req, o, err) || parse_layers(req, o, err) || parse_layer_io(req, o, err) || parse_csv(req, o, err) ||
        parse_top_layers(req, o, err) ||
        parse_batch(req, c, err) ||
        parse_dims(req, c, dims, err))
        return -1;
    c->precision_dtype = o->precision_dtype;
    return 0;
}

/* ------------------------------------------------ the hardware profile -- */
/* The hardware the request is analysed on, with its power mode
 * ("power_mode": a mode id, or absent for the default): the caller's
 * handle (rl_hw_read) when it gives one, and then the request names no
 * "hardware" of its own; else the request's "hardware" profile, read
 * here. The figures' strings point into the handle's or the request's
 * tree. 0, or -1 with err set. */
int rl_analyze_read_hardware(const cJSON *req, const rl_hw *given, rl_hw *hw, rl_error *err) {
    const cJSON *hwj = cJSON_GetObjectItemCaseSensitive(req, "hardware");
    const cJSON *pm = cJSON_GetObjectItemCaseSensitive(req, "power_mode");
    const char *mode = cJSON_IsString(pm) && pm->valuestring[0] ? pm->valuestring : NULL;
    if (given) {
        if (hwj) {
            rl_error_set(err, "bad_request", "hardware",
                         "the hardware is given as a handle (rl_hw_read): the request names none of its own "
                         "(leave \"hardware\" out)");
            return -1;
        }
        /* the handle holds its profile read in the default mode */
        if (!mode || (given->mode_id && !strcmp(mode, given->mode_id))) {
            *hw = *given;
            hw->owned = NULL; /* a copy: the handle keeps its tree */
            return 0;
        }
        return rl_hw_parse(given->profile, mode, hw, err);
    }
    if (!hwj) {
        rl_error_set(err, "bad_request", "hardware",
                     "the request needs a hardware profile (\"hardware\": {...}; see hw/README.md)");
        return -1;
    }
    return rl_hw_parse(hwj, mode, hw, err);
}
