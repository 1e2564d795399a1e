/* The headline figures of an analysis (rl_summary_read, diff.h) and the
 * one-row summary built from them (rl_model_summary, the row of `rooflens
 * batch`; rl_summary_fields, its columns); with the inner request both the
 * summary and the diff (diff.c) analyse a model with. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "diff.h"
#include "json.h"

/* `k` from `first`, else from `second`. */
static double num_either(const cJSON *first, const cJSON *second, const char *k) {
    double v = rl_json_get_num(first, k);
    return isnan(v) ? rl_json_get_num(second, k) : v;
}

/* ------------------------------------------------------------ summary -- */
void rl_summary_read(const cJSON *res, rl_summary *s) {
    const cJSON *model = rl_json_get(res, "model"), *hw = rl_json_get(res, "hardware"), *tot = rl_json_get(res, "totals");
    const cJSON *sol = rl_json_get(res, "sol"), *ch = rl_json_get(sol, "chosen"), *roof = rl_json_get(res, "roofline");
    memset(s, 0, sizeof *s);
    s->name = rl_json_get_str(model, "name");
    s->hw_id = rl_json_get_str(hw, "id");
    s->hw_name = rl_json_get_str(hw, "name");
    s->power_mode = rl_json_get_str(hw, "power_mode");
    s->precision = rl_json_get_str(roof, "precision");
    s->sol_model = rl_json_get_str(ch, "model");
    s->granularity = rl_json_get_str(ch, "granularity");
    s->bound = rl_json_get_str(ch, "bound");
    s->nodes = rl_json_get_num(model, "nodes");
    s->params = rl_json_get_num(model, "params");
    s->weight_bytes = rl_json_get_num(model, "weight_bytes");
    s->flops = rl_json_get_num(tot, "flops");
    s->bytes = rl_json_get_num(tot, "bytes");
    /* the bytes of the model whose time is compared (responses before it
     * was written: the unfused bytes) */
    s->sol_bytes = num_either(ch, tot, "bytes");
    s->intensity = rl_json_get_num(tot, "intensity");
    s->time_s = rl_json_get_num(ch, "time_s");
    s->energy_j = rl_json_get_num(ch, "energy_j");
    const cJSON *fc = rl_json_get(res, "forecast");
    s->forecast_s = rl_json_get_num(fc, "time_s");
    s->forecast_low_s = rl_json_get_num(fc, "low_s");
    s->forecast_high_s = rl_json_get_num(fc, "high_s");
    s->forecast_track_record = cJSON_GetStringValue(rl_json_get(fc, "track_record"));
    /* Since the timing model of issue 11 the bounds, the kernel count and
     * the launch floor belong to sol.chosen; earlier responses carry them
     * at sol and totals. */
    s->lower_bound_s = num_either(ch, sol, "lower_bound_s");
    s->upper_bound_s = num_either(ch, sol, "upper_bound_s");
    s->kernels = num_either(ch, tot, "kernels");
    s->launch_floor_s = num_either(ch, tot, "launch_floor_s");
    s->layers = rl_json_get_num(tot, "layers");
    s->unknown_layers = rl_json_get_num(tot, "unknown_layers");
    s->unsupported_ops = rl_json_get(tot, "unsupported_ops");
    s->warnings = rl_json_get(res, "warnings");
    s->roofline = roof;
    const cJSON *llm = rl_json_get(res, "llm");
    s->llm = cJSON_IsObject(llm) ? llm : NULL;
    s->ttft_s = rl_json_get_num(s->llm, "ttft_s");
    s->tpot_s = rl_json_get_num(s->llm, "tpot_s");
    s->tokens_per_s = rl_json_get_num(s->llm, "tokens_per_s");
    s->llm_memory_bytes = rl_json_get_num(s->llm, "memory_required_bytes");
    s->kv_cache_bytes = rl_json_get_num(s->llm, "kv_cache_bytes");
    const cJSON *fits = rl_json_get(s->llm, "fits");
    s->fits = cJSON_IsBool(fits) ? cJSON_IsTrue(fits) : -1;
}

void rl_summary_add_strings(cJSON *o, const char *key, const cJSON *from) {
    cJSON *to = cJSON_AddArrayToObject(o, key);
    const cJSON *x;
    cJSON_ArrayForEach(x, from) if (cJSON_IsString(x)) cJSON_AddItemToArray(to, cJSON_CreateString(x->valuestring));
}

/* The summary as one flat object: the row of `rooflens batch`. Every key
 * is always present (null when the response has no such figure), so the
 * keys of a zero summary are the columns (rl_summary_fields). */
static cJSON *summary_json(const rl_summary *s) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", s->name ? s->name : "");
    cJSON_AddStringToObject(o, "hardware", s->hw_id ? s->hw_id : "");
    if (s->power_mode && s->power_mode[0]) cJSON_AddStringToObject(o, "power_mode", s->power_mode);
    else cJSON_AddNullToObject(o, "power_mode");
    cJSON_AddStringToObject(o, "precision", s->precision ? s->precision : "");
    cJSON_AddStringToObject(o, "sol", s->sol_model ? s->sol_model : "");
    rl_json_add_num(o, "nodes", s->nodes);
    rl_json_add_num(o, "layers", s->layers);
    rl_json_add_num(o, "params", s->params);
    rl_json_add_num(o, "weight_bytes", s->weight_bytes);
    rl_json_add_num(o, "flops", s->flops);
    rl_json_add_num(o, "bytes", s->bytes);
    rl_json_add_num(o, "intensity", s->intensity);
    rl_json_add_num(o, "time_s", s->time_s);
    rl_json_add_num(o, "lower_bound_s", s->lower_bound_s);
    rl_json_add_num(o, "upper_bound_s", s->upper_bound_s);
    rl_json_add_num(o, "forecast_s", s->forecast_s);
    rl_json_add_num(o, "forecast_low_s", s->forecast_low_s);
    rl_json_add_num(o, "forecast_high_s", s->forecast_high_s);
    if (s->forecast_track_record) cJSON_AddStringToObject(o, "forecast_track_record", s->forecast_track_record);
    else cJSON_AddNullToObject(o, "forecast_track_record");
    rl_json_add_num(o, "energy_j", s->energy_j);
    cJSON_AddStringToObject(o, "bound", s->bound ? s->bound : "");
    rl_json_add_num(o, "kernels", s->kernels);
    rl_json_add_num(o, "launch_floor_s", s->launch_floor_s);
    rl_json_add_num(o, "unknown_layers", s->unknown_layers);
    rl_summary_add_strings(o, "unsupported_ops", s->unsupported_ops);
    cJSON_AddNumberToObject(o, "warnings", cJSON_GetArraySize(s->warnings));
    /* the distinct warning codes, in order of first appearance */
    cJSON *codes = cJSON_AddArrayToObject(o, "warning_codes");
    const cJSON *w;
    cJSON_ArrayForEach(w, s->warnings) {
        const char *code = rl_json_get_str(w, "code");
        bool seen = false;
        const cJSON *c;
        cJSON_ArrayForEach(c, codes) if (strcmp(c->valuestring, code) == 0) seen = true;
        if (!seen && code[0]) cJSON_AddItemToArray(codes, cJSON_CreateString(code));
    }
    rl_json_add_num(o, "ttft_s", s->llm ? s->ttft_s : NAN);
    rl_json_add_num(o, "tpot_s", s->llm ? s->tpot_s : NAN);
    rl_json_add_num(o, "tokens_per_s", s->llm ? s->tokens_per_s : NAN);
    rl_json_add_num(o, "llm_memory_bytes", s->llm ? s->llm_memory_bytes : NAN);
    if (s->fits < 0) cJSON_AddNullToObject(o, "fits");
    else cJSON_AddBoolToObject(o, "fits", s->fits == 1);
    return o;
}

/* The request with `layers` set to the given layout (NULL: false, no
 * layers) and the diff's own member removed; NULL when out of memory. */
char *rl_diff_inner_request(const cJSON *req, const char *layers) {
    cJSON *r = cJSON_Duplicate(req, true);
    if (!r) return NULL;
    cJSON_DeleteItemFromObjectCaseSensitive(r, "diff");
    cJSON_DeleteItemFromObjectCaseSensitive(r, "layers");
    /* a member that failed to be added would leave the default layout (rows) */
    bool set = layers ? cJSON_AddStringToObject(r, "layers", layers) != NULL : cJSON_AddFalseToObject(r, "layers") != NULL;
    char *text = set ? rl_json_print(r) : NULL;
    cJSON_Delete(r);
    return text;
}

char *rl_model_summary(rl_model *m, const char *request_json) { return rl_model_summary_hw(m, NULL, request_json); }

char *rl_model_summary_hw(rl_model *m, const rl_hw *hw, const char *request_json) {
    rl_error err = {0};
    rl_json_begin();
    cJSON *req = NULL;
    if (!m) {
        rl_error_set(&err, "bad_request", "", "no model");
        return rl_error_json(&err);
    }
    if (!(req = rl_analyze_parse_request(request_json, &err))) return rl_error_json(&err);
    char *text = rl_diff_inner_request(req, NULL);
    cJSON_Delete(req);
    if (!text) {
        rl_error_set(&err, "out_of_memory", "request", "out of memory");
        return rl_error_json(&err);
    }
    char *out = rl_model_analyze_hw(m, hw, text, NULL);
    free(text);
    rl_json_begin();
    cJSON *res = out ? cJSON_Parse(out) : NULL;
    if (res && !cJSON_IsTrue(rl_json_get(res, "ok"))) {
        cJSON_Delete(res);
        return out; /* the analysis's own error */
    }
    rl_free(out);
    if (!res) {
        rl_error_set(&err, "out_of_memory", "", "out of memory while reading the analysis");
        return rl_error_json(&err);
    }
    rl_summary s;
    rl_summary_read(res, &s);
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema", ROOFLENS_SCHEMA);
    cJSON_AddTrueToObject(root, "ok");
    cJSON_AddItemToObject(root, "summary", summary_json(&s));
    char *result = rl_json_finish(root);
    cJSON_Delete(res);
    return result;
}

char *rl_summary_fields(void) {
    rl_json_begin();
    rl_summary zero;
    rl_summary_read(NULL, &zero);
    cJSON *o = summary_json(&zero);
    cJSON *arr = cJSON_CreateArray();
    const cJSON *k;
    cJSON_ArrayForEach(k, o) cJSON_AddItemToArray(arr, cJSON_CreateString(k->string));
    cJSON_Delete(o);
    return rl_json_finish(arr);
}
