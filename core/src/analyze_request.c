/* The request's options (docs/api.md, "Request"), one parser per field:
 * rl_analyze_parse_options (analyze.h) for rl_model_analyze and
 * rl_fit_forecast. */
#include <cjson/cJSON.h>
#include <math.h>
#include <pthread.h>
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

static int parse_mode(const cJSON *req, options *o, rl_error *err) {
    static const char *const modes[] = {"inference", "training", NULL};
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(req, "mode");
    if (!mode) return 0;
    const char *m = parse_choice(mode, "mode", modes, "mode must be \"inference\" or \"training\"", err);
    if (!m) return -1;
    o->training = strcmp(m, "training") == 0;
    return 0;
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
/* The page re-analyses one model under one profile again and again (a
 * precision or batch switch), and `rooflens batch` and `diff` send the same
 * profile with every model: parsing its few kilobytes of text and reading
 * them into an rl_hw was about a tenth of a ResNet-50 analysis. So the
 * last profile is kept, per thread, as its text, its tree and the rl_hw of
 * its last power mode. A request whose "hardware" member is the same text
 * byte for byte reuses them: the rest of the request is parsed with that
 * member as null, then pointed at the kept tree. Errors are never kept. */
typedef struct hw_memo {
    char *text;      /* the profile as the request wrote it: a complete JSON object */
    size_t len;
    cJSON *profile;  /* its tree: the kept rl_hw's strings point into it */
    bool has_hw;     /* hw holds the profile read under `mode` */
    char *mode;      /* NULL: the default mode */
    rl_hw hw;
} hw_memo;
static _Thread_local hw_memo memo;

static void memo_clear(hw_memo *m) {
    free(m->text);
    free(m->mode);
    cJSON_Delete(m->profile);
    *m = (hw_memo){0};
}

/* A thread that ends frees what it kept (the key's destructor runs at its
 * exit while its own memo is still there). */
static pthread_key_t memo_key;
static bool memo_key_made;
static void memo_at_exit(void *m) { memo_clear(m); }
static void make_memo_key(void) { memo_key_made = pthread_key_create(&memo_key, memo_at_exit) == 0; }
static bool memo_freed_at_exit(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, make_memo_key);
    return memo_key_made && pthread_setspecific(memo_key, &memo) == 0;
}

static const char *skip_ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

/* The end of the JSON string at p (on its opening quote), or NULL. */
static const char *skip_string(const char *p) {
    for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && !*++p) return NULL;
    return *p ? p + 1 : NULL;
}

/* The end of the JSON value at p, or NULL where the text ends first; the
 * value is not checked (cJSON parses it), only delimited. */
static const char *skip_value(const char *p) {
    int depth = 0;
    do {
        p = skip_ws(p);
        if (*p == '"') {
            if (!(p = skip_string(p))) return NULL;
        } else if (*p == '{' || *p == '[') {
            depth++, p++;
        } else if (*p == '}' || *p == ']') {
            depth--, p++;
        } else if (*p == ',' || *p == ':') {
            p++;
        } else {
            const char *q = p;
            while (*p && !strchr(" \t\r\n,:{}[]\"", *p)) p++;
            if (p == q) return NULL; /* the text ended, or a stray byte */
        }
    } while (depth > 0);
    return depth == 0 ? p : NULL;
}

/* Where the value of the request's top-level "hardware" member starts, when
 * it is an object named without escapes and no earlier key has one (cJSON
 * takes the first member of a name; an escaped key might spell it); else
 * NULL. */
static const char *find_hardware(const char *text) {
    const char *p = skip_ws(text);
    if (*p++ != '{') return NULL;
    for (;;) {
        p = skip_ws(p);
        if (*p != '"') return NULL;
        const char *key = p + 1, *end = skip_string(p);
        if (!end || memchr(key, '\\', (size_t)(end - key))) return NULL;
        p = skip_ws(end);
        if (*p++ != ':') return NULL;
        p = skip_ws(p);
        if (end - key == 9 && !memcmp(key, "hardware\"", 9)) return *p == '{' ? p : NULL;
        if (!(p = skip_value(p))) return NULL;
        p = skip_ws(p);
        if (*p++ != ',') return NULL;
    }
}

/* The first "hardware" member of req (the one cJSON and find_hardware
 * find) made, in place, a reference to the kept tree's members: the
 * request's cJSON_Delete leaves them alone. */
static void point_at_memo(cJSON *req) {
    cJSON *item = cJSON_GetObjectItemCaseSensitive(req, "hardware");
    item->type = cJSON_Object | cJSON_IsReference;
    item->child = memo.profile->child;
}

/* The request parsed with the kept profile's text (at `at`) left out: null
 * in its place. */
static cJSON *parse_without_profile(const char *text, const char *at) {
    size_t head = (size_t)(at - text), tail = strlen(at + memo.len);
    char *copy = malloc(head + 4 + tail + 1);
    if (!copy) return NULL;
    memcpy(copy, text, head);
    memcpy(copy + head, "null", 4);
    memcpy(copy + head + 4, at + memo.len, tail + 1);
    cJSON *req = cJSON_Parse(copy);
    free(copy);
    return req;
}

/* A new profile kept: its text from `at`, its members handed from req's
 * "hardware" item to the kept tree. */
static void keep_profile(cJSON *req, const char *at) {
    const char *end = skip_value(at);
    cJSON *item = cJSON_GetObjectItemCaseSensitive(req, "hardware");
    if (!end || !cJSON_IsObject(item) || !item->child) return;
    char *text = malloc((size_t)(end - at));
    cJSON *tree = text ? cJSON_CreateObject() : NULL;
    if (!tree) {
        free(text);
        return;
    }
    if (!memo_freed_at_exit()) { /* kept only where the thread's end frees it */
        free(text);
        cJSON_Delete(tree);
        return;
    }
    memcpy(text, at, (size_t)(end - at));
    memo_clear(&memo);
    tree->child = item->child;
    memo = (hw_memo){text, (size_t)(end - at), tree, false, NULL, {0}};
    point_at_memo(req);
}

cJSON *rl_analyze_parse_request_kept(const char *request_json, rl_error *err) {
    const char *text = request_json ? request_json : "{}";
    const char *at = find_hardware(text);
    if (at && memo.text && !strncmp(at, memo.text, memo.len)) {
        cJSON *req = parse_without_profile(text, at);
        if (req && cJSON_IsObject(req)) {
            point_at_memo(req);
            return req;
        }
        cJSON_Delete(req); /* reported (or retried) by the plain parse below */
    }
    cJSON *req = rl_analyze_parse_request(text, err);
    if (req && at) keep_profile(req, at);
    return req;
}

int rl_analyze_read_hardware(const cJSON *profile, const char *mode, rl_hw *hw, rl_error *err) {
    bool kept = memo.profile && profile && (profile->type & cJSON_IsReference) && profile->child == memo.profile->child;
    if (kept && memo.has_hw && (mode ? memo.mode && !strcmp(mode, memo.mode) : !memo.mode)) {
        *hw = memo.hw;
        return 0;
    }
    if (rl_hw_parse(profile, mode, hw, err)) return -1;
    char *mode_copy = mode ? malloc(strlen(mode) + 1) : NULL;
    if (kept && (!mode || mode_copy)) {
        if (mode) strcpy(mode_copy, mode);
        free(memo.mode);
        memo.mode = mode_copy;
        memo.hw = *hw;
        memo.has_hw = true;
    } else {
        free(mode_copy);
    }
    return 0;
}
