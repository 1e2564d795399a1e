/* The Netron attachment: rooflens's figures for every node, in the
 * "netron:attachment" JSON that Netron reads when it is dropped onto the same
 * model (its metadata.Attachment: items {kind, target, name, value, type},
 * kind "model" | "graph" | "node", target the node's name, "" for the model).
 * It is written from an analysis response, so it carries exactly the figures
 * every other surface shows. docs/api.md ("Netron attachment") lists them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "internal.h"
#include <cjson/cJSON.h>

/* Six significant digits: Netron prints the number as it comes. */
static double round6(double v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%.6g", v);
    return strtod(buf, NULL);
}

static void item(cJSON *arr, const char *kind, const char *target, const char *name, const cJSON *v) {
    if (!v || cJSON_IsNull(v)) return; /* a figure rooflens does not know is left out, not invented */
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", kind);
    cJSON_AddStringToObject(o, "target", target);
    cJSON_AddStringToObject(o, "name", name);
    if (cJSON_IsNumber(v)) {
        double x = v->valuedouble;
        bool whole = x == floor(x) && fabs(x) < 9007199254740992.0;
        cJSON_AddNumberToObject(o, "value", whole ? x : round6(x));
        cJSON_AddStringToObject(o, "type", whole ? "int64" : "float64");
    } else if (cJSON_IsString(v)) {
        cJSON_AddStringToObject(o, "value", v->valuestring);
        cJSON_AddStringToObject(o, "type", "string");
    } else if (cJSON_IsBool(v)) {
        cJSON_AddBoolToObject(o, "value", cJSON_IsTrue(v));
        cJSON_AddStringToObject(o, "type", "boolean");
    } else {
        cJSON_Delete(o);
        return;
    }
    cJSON_AddItemToArray(arr, o);
}


/* A figure under the attachment's own name: (attachment name, response key). */
typedef struct figure {
    const char *name, *key;
} figure;

static const figure node_figures[] = {
    {"flops", "flops"}, {"bytes", "bytes"}, {"intensity", "intensity"},
    {"predicted_s", "t"}, {"forecast_s", "forecast_s"}, {"headroom", "headroom"},
    {"t_compute", "t_compute"}, {"t_memory", "t_memory"}, {"bound", "bound"},
    {"energy_j", "energy_j"}, {"precision", "precision"},
    {"measured_s", "measured_s"}, {"efficiency", "efficiency"}, {"recoverable_s", "recoverable_s"},
    {"achieved_flops_per_s", "achieved_flops_per_s"}, {"measured_how", "measured_how"},
};

/* rooflens names a node without a name "#<index> (<op>)"; Netron shows it
 * without one, so no target can reach it. */
static bool synthetic_name(const cJSON *layer) {
    const char *name = cJSON_GetStringValue(rl_json_get(layer, "name")), *op = cJSON_GetStringValue(rl_json_get(layer, "op"));
    const cJSON *idx = rl_json_get(layer, "index");
    if (!name || !op || !cJSON_IsNumber(idx)) return true;
    char buf[320];
    snprintf(buf, sizeof buf, "#%d (%s)", (int)idx->valuedouble, op);
    return !strcmp(buf, name) || !name[0];
}

/* Per layer, whether its name is another layer's too: Netron files a node's
 * figures under its name, so two nodes of one name would write two sets
 * under one target, and Netron would show one set, or a mix, on both. Such
 * nodes get no figures and are counted instead. NULL when out of memory. */
static bool *shared_names(rl_arena *a, const cJSON *layers, int n) {
    rl_name_map *first = rl_map_new(a, (size_t)n);
    bool *shared = rl_arena_alloc(a, (size_t)(n + 1) * sizeof *shared);
    if (!first || !shared) return NULL;
    int i = 0;
    const cJSON *l;
    cJSON_ArrayForEach(l, layers) {
        const char *name = cJSON_GetStringValue(rl_json_get(l, "name"));
        if (name && !synthetic_name(l)) {
            int j = rl_map_get(first, name);
            if (j >= 0) shared[j] = shared[i] = true;
            else if (!rl_map_put(first, name, i)) return NULL;
        }
        i++;
    }
    return shared;
}

static void count_item(cJSON *meta, const char *name, int count) {
    if (!count) return;
    cJSON *v = cJSON_CreateNumber(count);
    item(meta, "model", "", name, v);
    cJSON_Delete(v);
}

static void model_items(cJSON *meta, cJSON *met, const cJSON *res, int unnamed, int shared) {
    const cJSON *tot = rl_json_get(res, "totals"), *sol = rl_json_get(res, "sol"), *hw = rl_json_get(res, "hardware");
    const cJSON *ch = rl_json_get(sol, "chosen"), *opt = rl_json_get(res, "options"), *ro = rl_json_get(res, "roofline");
    const cJSON *mo = rl_json_get(res, "model");
    const char *graph = cJSON_GetStringValue(rl_json_get(mo, "name"));
    cJSON *v = cJSON_CreateString("rooflens " ROOFLENS_VERSION);
    item(meta, "model", "", "rooflens", v);
    cJSON_Delete(v);
    item(meta, "model", "", "hardware", rl_json_get(hw, "name"));
    item(meta, "model", "", "power_mode", rl_json_get(hw, "power_mode"));
    item(meta, "model", "", "precision", rl_json_get(ro, "precision"));
    item(meta, "model", "", "sol_model", rl_json_get(ch, "model"));
    item(meta, "model", "", "granularity", rl_json_get(ch, "granularity"));
    item(meta, "model", "", "batch", rl_json_get(opt, "batch"));
    count_item(meta, "nodes_without_name", unnamed); /* Netron cannot show figures on these */
    count_item(meta, "nodes_with_shared_name", shared); /* nor tell these apart */
    static const figure model_figures[] = {
        {"flops", "flops"}, {"bytes", "bytes"}, {"intensity", "intensity"}, {"energy_j", "energy_j"},
        {"kernels", "kernels"}, {"launch_floor_s", "launch_floor_s"},
    };
    /* the model's totals, on the model and on its main graph */
    for (int pass = 0; pass < 2; pass++) {
        const char *kind = pass ? "graph" : "model", *target = pass ? (graph ? graph : "") : "";
        for (size_t i = 0; i < sizeof model_figures / sizeof *model_figures; i++)
            item(met, kind, target, model_figures[i].name, rl_json_get(tot, model_figures[i].key));
        item(met, kind, target, "predicted_s", rl_json_get(ch, "time_s"));
        item(met, kind, target, "bound", rl_json_get(ch, "bound"));
        /* the forecast beside the floor (predicted_s), and its energy */
        const cJSON *fc = rl_json_get(res, "forecast");
        item(met, kind, target, "forecast_s", rl_json_get(fc, "time_s"));
        /* its band (left out, as every unknown figure, when the stack has no track record) */
        item(met, kind, target, "forecast_low_s", rl_json_get(fc, "low_s"));
        item(met, kind, target, "forecast_high_s", rl_json_get(fc, "high_s"));
        if (!pass) item(meta, "model", "", "forecast_track_record", rl_json_get(fc, "track_record"));
        item(met, kind, target, "forecast_energy_j", rl_json_get(fc, "energy_j"));
        const cJSON *ms = rl_json_get(res, "measured");
        if (ms) {
            item(met, kind, target, "measured_s", rl_json_get(ms, "total_s"));
            item(met, kind, target, "efficiency", rl_json_get(ms, "efficiency"));
            item(met, kind, target, "recoverable_s", rl_json_get(ms, "recoverable_s"));
        }
    }
}

char *rl_netron_attachment(const char *analysis_json) {
    rl_json_begin();
    rl_error err = {0};
    cJSON *res = cJSON_Parse(analysis_json ? analysis_json : "");
    const cJSON *layers = rl_json_get(res, "layers");
    if (!res || !cJSON_IsTrue(rl_json_get(res, "ok")) || !cJSON_IsArray(layers)) {
        cJSON_Delete(res);
        rl_error_set(&err, "bad_request", "analysis",
                     "the Netron attachment is made from an ok analysis response with its layers "
                     "(rl_model_analyze with \"layers\": true)");
        return rl_error_json(&err);
    }
    rl_arena arena = {0};
    bool *shared = shared_names(&arena, layers, cJSON_GetArraySize(layers));
    if (!shared) {
        rl_arena_free(&arena);
        cJSON_Delete(res);
        rl_error_set(&err, "out_of_memory", "analysis", "out of memory");
        return rl_error_json(&err);
    }
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "signature", "netron:attachment");
    cJSON *meta = cJSON_AddArrayToObject(root, "metadata");
    cJSON *met = cJSON_AddArrayToObject(root, "metrics");
    int unnamed = 0, n_shared = 0, k = 0;
    const cJSON *l;
    cJSON_ArrayForEach(l, layers) {
        bool one_of_many = shared[k++];
        unnamed += synthetic_name(l);
        n_shared += one_of_many;
        if (synthetic_name(l) || one_of_many) continue;
        const char *name = rl_json_get(l, "name")->valuestring;
        for (size_t i = 0; i < sizeof node_figures / sizeof *node_figures; i++)
            item(met, "node", name, node_figures[i].name, rl_json_get(l, node_figures[i].key));
    }
    model_items(meta, met, res, unnamed, n_shared);
    rl_arena_free(&arena);
    cJSON_Delete(res);
    return rl_json_finish(root);
}
