/* The JSON entry points: request parsing, the roofline and speed-of-light
 * models (MODEL.md §2-§4), and the response. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "hw.h"
#include "measured.h"
#include "reader.h"
#include "roofline.h"
#include "study.h"

/* ------------------------------------------------------------- options -- */
typedef rl_options options;

static const struct {
    const char *name;
    int prec, dtype;
} precision_map[] = {
    {"fp64", RL_P_FP64, RL_DT_DOUBLE},   {"fp32", RL_P_FP32, RL_DT_FLOAT},
    {"tf32", RL_P_TF32, RL_DT_FLOAT},    {"fp16", RL_P_FP16, RL_DT_FLOAT16},
    {"bf16", RL_P_BF16, RL_DT_BFLOAT16}, {"fp8", RL_P_FP8, RL_DT_FLOAT8E4M3FN},
    {"int8", RL_P_INT8, RL_DT_INT8},     {"int4", RL_P_INT4, RL_DT_INT4},
};

/* The precision a node computes in, from its element type. */
static int precision_of_dtype(int dt) {
    switch (dt) {
    case RL_DT_DOUBLE: return RL_P_FP64;
    case RL_DT_FLOAT16: return RL_P_FP16;
    case RL_DT_BFLOAT16: return RL_P_BF16;
    case RL_DT_FLOAT8E4M3FN: case RL_DT_FLOAT8E4M3FNUZ: case RL_DT_FLOAT8E5M2:
    case RL_DT_FLOAT8E5M2FNUZ: case RL_DT_FLOAT8E8M0: case RL_DT_FLOAT4E2M1: return RL_P_FP8;
    case RL_DT_INT8: case RL_DT_UINT8: return RL_P_INT8;
    case RL_DT_INT4: case RL_DT_UINT4: case RL_DT_INT2: case RL_DT_UINT2: return RL_P_INT4;
    default: return RL_P_FP32;
    }
}

static int node_precision(const rl_ctx *c, const options *o, const rl_node *n) {
    int dt = 0;
    for (int i = 0; i < n->n_in && !dt; i++)
        if (n->inv[i] && n->inv[i]->type == RL_TYPE_TENSOR && n->inv[i]->dtype) dt = n->inv[i]->dtype;
    for (int i = 0; i < n->n_out && !dt; i++)
        if (n->outv[i] && n->outv[i]->dtype) dt = n->outv[i]->dtype;
    if (o->precision >= 0 && (rl_dtype_is_float(dt) || dt == 0)) return o->precision;
    return precision_of_dtype(dt);
}

/* Peak FLOP/s for a precision, falling back to a precision the device has. */
static int usable_precision(rl_ctx *c, const rl_hw *hw, int p) {
    static const int fallback[RL_P_COUNT][4] = {
        [RL_P_FP64] = {RL_P_FP32, -1}, [RL_P_FP32] = {RL_P_FP16, RL_P_BF16, -1},
        [RL_P_TF32] = {RL_P_FP32, -1}, [RL_P_FP16] = {RL_P_BF16, RL_P_FP32, -1},
        [RL_P_BF16] = {RL_P_FP16, RL_P_FP32, -1}, [RL_P_FP8] = {RL_P_FP16, RL_P_BF16, RL_P_FP32, -1},
        [RL_P_INT8] = {RL_P_FP16, RL_P_BF16, RL_P_FP32, -1}, [RL_P_INT4] = {RL_P_INT8, RL_P_FP16, RL_P_FP32, -1},
    };
    if (hw->matrix[p] > 0) return p;
    for (int k = 0; k < 4 && fallback[p][k] >= 0; k++) {
        int q = fallback[p][k];
        if (hw->matrix[q] > 0) {
            rl_warn(c, "precision_fallback", NULL,
                    "%s has no %s peak in its profile; %s work is timed at its %s peak", hw->name,
                    rl_precision_names[p], rl_precision_names[p], rl_precision_names[q]);
            return q;
        }
    }
    for (int q = 0; q < RL_P_COUNT; q++)
        if (hw->matrix[q] > 0) return q;
    return RL_P_FP32;
}

/* ------------------------------------------------------------ JSON bits -- */
static cJSON *tensor_json(const rl_ctx *c, const rl_value *v) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", v->name);
    if (v->type == RL_TYPE_TENSOR) {
        int dt = v->dtype;
        if (c->precision_dtype && rl_dtype_is_float(dt)) dt = c->precision_dtype;
        cJSON_AddStringToObject(o, "dtype", v->dtype ? rl_dtype_name(dt) : "unknown");
    } else {
        cJSON_AddStringToObject(o, "dtype", v->type == RL_TYPE_SEQUENCE ? "sequence"
                                            : v->type == RL_TYPE_OPTIONAL ? "optional"
                                            : v->type == RL_TYPE_MAP ? "map" : "other");
    }
    if (v->rank < 0) {
        cJSON_AddNullToObject(o, "shape");
    } else {
        cJSON *s = cJSON_AddArrayToObject(o, "shape");
        for (int i = 0; i < v->rank; i++)
            cJSON_AddItemToArray(s, v->dims[i] < 0 ? cJSON_CreateNull() : cJSON_CreateNumber((double)v->dims[i]));
    }
    /* rooflens could not infer it: the shape is the model's own declaration,
     * either because it depends on a value only known at run time (and agrees
     * with what could be inferred) or for another reason. Users need to know
     * which numbers rest on the exporter's word. */
    if (v->from_declared) {
        cJSON_AddTrueToObject(o, "declared");
        cJSON_AddStringToObject(o, "shape_source", v->shape_source == RL_SRC_DECLARED_RUNTIME
                                                       ? "declared_runtime" : "declared");
    }
    return o;
}

static void add_num(cJSON *o, const char *k, double v) {
    if (isfinite(v)) cJSON_AddNumberToObject(o, k, v);
    else cJSON_AddNullToObject(o, k);
}

/* ----------------------------------------------------------- the analysis -- */
typedef rl_layer_time layer_time;

typedef struct dim_used {
    const char *name;
    int64_t value;
    const char *source;
} dim_used;

static int64_t find_dim(const rl_ctx *c, const char *name) {
    for (int i = 0; i < c->n_dims; i++)
        if (strcmp(c->dims[i].name, name) == 0) return c->dims[i].value;
    return -1;
}

/* Give every symbolic or unknown dim of the main graph's inputs a value. */
/* Returns how many dims took c->batch (0: the batch setting changed nothing). */
static int resolve_input_dims(rl_ctx *c, rl_graph *g, dim_used *used, int *n_used, int cap) {
    int from_batch = 0;
    for (int i = 0; i < g->n_inputs; i++) {
        rl_value *v = &g->values[g->inputs[i]];
        if (v->rank < 0) {
            if (v->type == RL_TYPE_TENSOR)
                rl_warn(c, "shape_unknown", NULL,
                        "graph input '%s' declares no shape: the nodes that read it are marked "
                        "unknown", v->name);
            continue;
        }
        for (int k = 0; k < v->rank; k++) {
            if (v->dims[k] >= 0) continue;
            const char *param = v->dim_params ? v->dim_params[k] : NULL;
            int64_t val = -1;
            const char *source = "default";
            if (param && param[0]) val = find_dim(c, param), source = "user";
            if (val < 0 && k == 0 && c->batch > 0) val = c->batch, source = "batch", from_batch++;
            if (val < 0) {
                val = 1;
                if (param && param[0])
                    rl_warn(c, "unset_dim", NULL,
                            "symbolic dimension '%s' is not set; using 1 (set it with --dim %s=N)",
                            param, param);
                else
                    rl_warn(c, "unset_dim", NULL,
                            "dimension %d of input '%s' has neither a size nor a name; using 1", k,
                            v->name);
            }
            v->dims[k] = val;
            if (param && param[0]) {
                bool seen = false;
                for (int u = 0; u < *n_used; u++)
                    if (strcmp(used[u].name, param) == 0) seen = true;
                if (!seen && *n_used < cap) used[(*n_used)++] = (dim_used){param, val, source};
            }
        }
    }
    for (int i = 0; i < c->n_dims; i++) {
        bool seen = false;
        for (int u = 0; u < *n_used; u++)
            if (strcmp(used[u].name, c->dims[i].name) == 0) seen = true;
        if (!seen)
            rl_warn(c, "unused_dim", NULL, "the model has no symbolic dimension '%s'", c->dims[i].name);
    }
    return from_batch;
}

static int parse_options(const cJSON *req, options *o, rl_ctx *c, rl_dim_setting **dims, rl_error *err) {
    memset(o, 0, sizeof *o);
    o->precision = -1;
    o->precision_name = "model";
    o->sol = "fused";
    o->granularity = "intended";
    o->include_layers = true;
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(req, "precision");
    if (p && !cJSON_IsNull(p)) {
        if (!cJSON_IsString(p)) goto bad_precision;
        if (strcmp(p->valuestring, "model") != 0) {
            bool found = false;
            for (size_t i = 0; i < sizeof precision_map / sizeof *precision_map; i++)
                if (strcmp(p->valuestring, precision_map[i].name) == 0) {
                    o->precision = precision_map[i].prec;
                    o->precision_dtype = precision_map[i].dtype;
                    o->precision_name = precision_map[i].name;
                    found = true;
                }
            if (!found) goto bad_precision;
        }
    }
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(req, "mode");
    if (mode) {
        if (!cJSON_IsString(mode) || (strcmp(mode->valuestring, "inference") && strcmp(mode->valuestring, "training"))) {
            rl_error_set(err, "bad_request", "mode", "mode must be \"inference\" or \"training\"");
            return -1;
        }
        o->training = strcmp(mode->valuestring, "training") == 0;
    }
    const cJSON *sol = cJSON_GetObjectItemCaseSensitive(req, "sol");
    if (sol) {
        if (!cJSON_IsString(sol) || (strcmp(sol->valuestring, "unfused") && strcmp(sol->valuestring, "fused") &&
                                     strcmp(sol->valuestring, "fused_prefetched"))) {
            rl_error_set(err, "bad_request", "sol", "sol must be \"unfused\", \"fused\" or \"fused_prefetched\"");
            return -1;
        }
        o->sol = sol->valuestring;
    }
    const cJSON *gran = cJSON_GetObjectItemCaseSensitive(req, "granularity");
    if (gran) {
        if (!cJSON_IsString(gran) || (strcmp(gran->valuestring, "per_op") && strcmp(gran->valuestring, "whole_graph") &&
                                      strcmp(gran->valuestring, "intended"))) {
            rl_error_set(err, "bad_request", "granularity", "granularity must be \"per_op\", \"whole_graph\" or \"intended\"");
            return -1;
        }
        o->granularity = gran->valuestring;
    }
    const cJSON *layers = cJSON_GetObjectItemCaseSensitive(req, "layers");
    if (layers && cJSON_IsBool(layers)) o->include_layers = cJSON_IsTrue(layers);
    const cJSON *batch = cJSON_GetObjectItemCaseSensitive(req, "batch");
    if (batch && !cJSON_IsNull(batch)) {
        if (!cJSON_IsNumber(batch) || batch->valuedouble < 1 || batch->valuedouble > 1e9 ||
            batch->valuedouble != floor(batch->valuedouble)) {
            rl_error_set(err, "bad_request", "batch", "batch must be a whole number from 1 to 10^9");
            return -1;
        }
        c->batch = (int64_t)batch->valuedouble;
    }
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(req, "dims");
    if (d && !cJSON_IsNull(d)) {
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
    }
    c->precision_dtype = o->precision_dtype;
    return 0;
bad_precision:
    rl_error_set(err, "bad_request", "precision",
                 "precision must be one of model, fp64, fp32, tf32, fp16, bf16, fp8, int8, int4");
    return -1;
}

/* Fused traffic (MODEL.md §3): weights and model-boundary tensors only. */
static double fused_bytes(const rl_ctx *c, const rl_node *n) {
    if (n->op && (n->op->flags & RL_OP_VIEW)) return 0;
    if (n->op && (n->op->flags & RL_OP_CONTROL)) return n->cost.weight_bytes;
    double b = n->cost.weight_bytes;
    for (int i = 0; i < n->n_in; i++) {
        const rl_value *v = n->inv[i];
        if (v && v->kind == RL_VALUE_INPUT) b += rl_value_bytes(c, v);
    }
    for (int i = 0; i < n->n_out; i++) {
        const rl_value *v = n->outv[i];
        if (v && (v->is_graph_output || v->consumers == 0)) b += rl_value_bytes(c, v);
    }
    /* never more than the unfused traffic (a cost function may have trimmed it) */
    double unfused = n->cost.input_bytes + n->cost.weight_bytes + n->cost.output_bytes;
    return b < unfused ? b : unfused;
}

static cJSON *sol_json(double tc_sum, double bytes, double per_op, double bw, const char *intended) {
    cJSON *o = cJSON_CreateObject();
    cJSON *po = cJSON_AddObjectToObject(o, "per_op");
    add_num(po, "time_s", per_op);
    add_num(po, "bytes", bytes);
    cJSON_AddStringToObject(po, "bound", "sum of per-layer bounds");
    cJSON *wg = cJSON_AddObjectToObject(o, "whole_graph");
    double tm = bytes / bw;
    add_num(wg, "time_s", rl_roof_time(tc_sum, tm));
    add_num(wg, "bytes", bytes);
    add_num(wg, "t_compute", tc_sum);
    add_num(wg, "t_memory", tm);
    cJSON_AddStringToObject(wg, "bound", tc_sum >= tm ? "compute" : "memory");
    cJSON_AddStringToObject(o, "intended", intended);
    return o;
}

static void add_model_section(cJSON *root, const rl_model *m, rl_ctx *c, rl_graph *g,
                              const dim_used *used, int n_used) {
    cJSON *mo = cJSON_AddObjectToObject(root, "model");
    const Onnx__ModelProto *p = m->proto;
    cJSON_AddStringToObject(mo, "name", (p->graph->name && p->graph->name[0]) ? p->graph->name : "");
    cJSON_AddNumberToObject(mo, "ir_version", (double)p->ir_version);
    cJSON_AddStringToObject(mo, "producer", p->producer_name ? p->producer_name : "");
    cJSON_AddStringToObject(mo, "producer_version", p->producer_version ? p->producer_version : "");
    cJSON *os = cJSON_AddObjectToObject(mo, "opsets");
    for (int i = 0; i < m->n_opsets; i++)
        cJSON_AddNumberToObject(os, m->opsets[i].domain[0] ? m->opsets[i].domain : "ai.onnx",
                                (double)m->opsets[i].version);
    cJSON_AddNumberToObject(mo, "nodes", g ? g->n_nodes : (double)p->graph->n_node);
    cJSON_AddNumberToObject(mo, "nodes_total", (double)m->total_nodes);
    double params = 0, wbytes = 0;
    if (g) {
        for (int i = 0; i < g->n_values; i++) {
            const rl_value *v = &g->values[i];
            if (v->kind != RL_VALUE_WEIGHT) continue;
            params += rl_numel_d(v);
            wbytes += rl_numel_d(v) * rl_dtype_bits(v->dtype) / 8.0;
        }
    }
    cJSON_AddNumberToObject(mo, "params", params);
    cJSON_AddNumberToObject(mo, "weight_bytes", wbytes);
    cJSON_AddNumberToObject(mo, "file_bytes", (double)m->file_bytes);
    cJSON_AddNumberToObject(mo, "payload_bytes_skipped", (double)m->skipped_bytes);
    if (g) {
        cJSON *in = cJSON_AddArrayToObject(mo, "inputs");
        for (int i = 0; i < g->n_inputs; i++) {
            const rl_value *v = &g->values[g->inputs[i]];
            cJSON *t = tensor_json(c, v);
            if (v->dim_params) {
                cJSON *dp = cJSON_AddArrayToObject(t, "dim_params");
                for (int k = 0; k < v->rank; k++)
                    cJSON_AddItemToArray(dp, v->dim_params[k] && v->dim_params[k][0]
                                                 ? cJSON_CreateString(v->dim_params[k])
                                                 : cJSON_CreateNull());
            }
            cJSON_AddItemToArray(in, t);
        }
        cJSON *out = cJSON_AddArrayToObject(mo, "outputs");
        for (int i = 0; i < g->n_outputs; i++) cJSON_AddItemToArray(out, tensor_json(c, g->outputs[i]));
    }
    cJSON *dims = cJSON_AddObjectToObject(mo, "dims");
    for (int i = 0; i < n_used; i++) {
        cJSON *d = cJSON_AddObjectToObject(dims, used[i].name);
        cJSON_AddNumberToObject(d, "value", (double)used[i].value);
        cJSON_AddStringToObject(d, "source", used[i].source);
    }
}

static char *finish_json(cJSON *root) { return rl_json_finish(root); }

static void add_warnings(cJSON *root, const rl_ctx *c) {
    cJSON *w = cJSON_AddArrayToObject(root, "warnings");
    for (int i = 0; i < c->n_warnings; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "code", c->warnings[i].code);
        cJSON_AddStringToObject(o, "message", c->warnings[i].message);
        if (c->warnings[i].node) cJSON_AddStringToObject(o, "node", c->warnings[i].node);
        else cJSON_AddNullToObject(o, "node");
        cJSON_AddItemToArray(w, o);
    }
    if (c->dropped_warnings) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "code", "warnings_truncated");
        char msg[96];
        snprintf(msg, sizeof msg, "%d further warnings were not listed", c->dropped_warnings);
        cJSON_AddStringToObject(o, "message", msg);
        cJSON_AddNullToObject(o, "node");
        cJSON_AddItemToArray(w, o);
    }
}

static bool setup_ctx(rl_ctx *c, rl_model *m, rl_arena *arena, rl_error *err) {
    memset(c, 0, sizeof *c);
    c->model = m;
    c->arena = arena;
    c->err = err;
    c->warnings = rl_arena_alloc(arena, RL_MAX_WARNINGS * sizeof *c->warnings);
    return c->warnings != NULL;
}

/* The per-layer roofline (MODEL.md §2) and the SOL totals (§3, §4). */
void rl_time_graph(rl_ctx *c, const rl_graph *g, const options *o, const rl_hw *hw,
                   layer_time *lt, rl_timing *out) {
    memset(out, 0, sizeof *out);
    const double bw = hw->mem_bw[0];
    double prec_flops[RL_P_COUNT] = {0};
    for (int i = 0; i < g->n_nodes; i++) {
        const rl_node *n = &g->nodes[i];
        layer_time row, *L = lt ? &lt[i] : &row;
        memset(L, 0, sizeof *L);
        const rl_cost *k = &n->cost;
        int p = usable_precision(c, hw, node_precision(c, o, n));
        L->prec = p;
        L->flops = k->matrix_flops + k->vector_flops;
        L->bytes = k->input_bytes + k->weight_bytes + k->output_bytes;
        L->tc = rl_compute_time(k->matrix_flops, k->vector_flops, hw->matrix[p], hw->vector[p]);
        L->tm = L->bytes / bw;
        L->launches = L->flops > 0 || L->bytes > 0;
        double t0 = L->launches ? hw->launch_s : 0;
        L->t = rl_roof_time(L->tc, L->tm);
        L->bound = L->tc >= L->tm ? "compute" : "memory";
        if (L->flops == 0 && L->bytes == 0) L->bound = "none";
        if (t0 > L->t) {
            L->t = t0;
            L->bound = "overhead";
        }
        if (!k->known) {
            L->bound = "unknown";
            out->unknown_layers++;
        }
        if (L->launches) out->kernels++;
        L->fused_bytes = fused_bytes(c, n);
        double tfm = L->fused_bytes / bw;
        out->sol_unfused += rl_roof_time(L->tc, L->tm);
        out->sol_fused += rl_roof_time(L->tc, tfm);
        out->tc_sum += L->tc;
        out->tm_sum += L->tm;
        out->t_sum += L->t;
        out->fused_bytes += L->fused_bytes;
        out->flops += L->flops;
        out->bytes += L->bytes;
        prec_flops[p] += L->flops;
        if (hw->has_energy) {
            L->energy = rl_energy(hw->e_flop, hw->e_byte, hw->static_w, L->flops, L->bytes, L->t);
            out->e_sum += L->energy;
            double dyn_c = hw->e_flop * L->flops, dyn_m = hw->e_byte * L->bytes;
            L->energy_bound = dyn_c >= dyn_m ? "compute" : "memory";
        }
    }
    int main_prec = o->precision;
    if (main_prec < 0) { /* the precision carrying most of the work */
        main_prec = RL_P_FP32;
        for (int p = 0; p < RL_P_COUNT; p++)
            if (prec_flops[p] > prec_flops[main_prec]) main_prec = p;
        main_prec = usable_precision(c, hw, main_prec);
    }
    out->main_prec = main_prec;
    /* Where the roofline time goes under the chosen SOL model's traffic:
     * the layer-level view of how much a lower compute clock can cost. */
    bool unfused_bytes = strcmp(o->sol, "unfused") == 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const rl_node *n = &g->nodes[i];
        const rl_cost *k = &n->cost;
        if (!k->known) continue;
        int p = lt ? lt[i].prec : usable_precision(c, hw, node_precision(c, o, n));
        double tc = rl_compute_time(k->matrix_flops, k->vector_flops, hw->matrix[p], hw->vector[p]);
        double q = unfused_bytes ? k->input_bytes + k->weight_bytes + k->output_bytes : fused_bytes(c, n);
        double tm = q / bw, t = rl_roof_time(tc, tm);
        out->roof_t += t;
        if (tc >= tm && t > 0) out->compute_bound_t += t;
    }
    out->launch_floor = out->kernels * hw->launch_s;
    out->has_energy = hw->has_energy;
    /* The headline: the request's SOL model at its granularity ("intended":
     * per-op sums for unfused and fused, one whole-graph roofline for
     * fused + prefetched, as MODEL.md §3 lays out). */
    bool unfused = strcmp(o->sol, "unfused") == 0;
    const char *gname = o->granularity;
    if (strcmp(gname, "intended") == 0) gname = strcmp(o->sol, "fused_prefetched") == 0 ? "whole_graph" : "per_op";
    out->chosen_granularity = gname;
    out->chosen_bytes = unfused ? out->bytes : out->fused_bytes;
    if (strcmp(gname, "per_op") == 0) out->chosen_time = unfused ? out->sol_unfused : out->sol_fused;
    else out->chosen_time = rl_roof_time(out->tc_sum, out->chosen_bytes / bw);
    if (hw->has_energy)
        out->chosen_energy = rl_energy(hw->e_flop, hw->e_byte, hw->static_w, out->flops, out->chosen_bytes,
                                       out->chosen_time);
}

static rl_graph *prepare_graph(rl_ctx *c, dim_used *used, int *n_used, int cap, int *batch_dims,
                               rl_cost *sum) {
    rl_graph *g = rl_graph_build(c, c->model->proto->graph, NULL, 0, "main graph");
    if (!g) return NULL;
    int nb = resolve_input_dims(c, g, used, n_used, cap);
    if (batch_dims) *batch_dims = nb;
    if (rl_infer_graph(c, g)) return NULL;
    rl_cost_graph(c, g, sum);
    return g;
}

rl_graph *rl_prepare_graph(rl_ctx *c, int *batch_dims) {
    dim_used used[64];
    int n_used = 0;
    rl_cost sum;
    return prepare_graph(c, used, &n_used, 64, batch_dims, &sum);
}

/* ---- measured times (measured.h): the request's "measured" profile matched
 * to the nodes, each node's own roofline handed over as its speed of light.
 * *out stays NULL when the request carries no profile. */
static int attach_measured(rl_ctx *c, const cJSON *req, const rl_graph *g, const layer_time *lt,
                           double bandwidth, rl_measured **out, rl_error *err) {
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(req, "measured");
    *out = NULL;
    if (!spec || cJSON_IsNull(spec)) return 0;
    rl_measured_cost *cost = rl_arena_alloc(c->arena, (size_t)(g->n_nodes + 1) * sizeof *cost);
    if (!cost) {
        rl_error_set(err, "out_of_memory", "measured", "out of memory");
        return -1;
    }
    for (int i = 0; i < g->n_nodes; i++)
        cost[i] = (rl_measured_cost){lt[i].flops, lt[i].bytes, lt[i].tc, lt[i].tm, g->nodes[i].cost.known};
    *out = rl_measured_attach(c, spec, g, cost, bandwidth, err);
    return *out ? 0 : -1;
}

char *rl_model_analyze(rl_model *m, const char *request_json) {
    rl_error err = {0};
    rl_json_begin();
    if (!m) {
        rl_error_set(&err, "bad_request", "", "no model");
        return rl_error_json(&err);
    }
    cJSON *req = cJSON_Parse(request_json ? request_json : "{}");
    if (!req || !cJSON_IsObject(req)) {
        cJSON_Delete(req);
        if (rl_json_alloc_failed())
            rl_error_set(&err, "out_of_memory", "request", "out of memory while reading the request");
        else
            rl_error_set(&err, "bad_request", "request",
                         "the request is not a JSON object (see docs/api.md for its fields)");
        return rl_error_json(&err);
    }
    rl_arena arena = {0};
    rl_ctx c;
    options o;
    rl_dim_setting *dims = NULL;
    cJSON *root = NULL;
    char *result = NULL;
    if (!setup_ctx(&c, m, &arena, &err)) {
        rl_error_set(&err, "out_of_memory", "", "out of memory");
        goto fail;
    }
    if (parse_options(req, &o, &c, &dims, &err)) goto fail;
    {
        /* limits act while reading (rl_analyze); here they are only checked so
         * a bad "limits" object is reported the same way on both paths */
        rl_limits unused;
        if (rl_limits_from_json(cJSON_GetObjectItemCaseSensitive(req, "limits"), &unused, &err)) goto fail;
    }
    rl_hw hw;
    const cJSON *hwj = cJSON_GetObjectItemCaseSensitive(req, "hardware");
    const cJSON *pm = cJSON_GetObjectItemCaseSensitive(req, "power_mode");
    if (!hwj) {
        rl_error_set(&err, "bad_request", "hardware",
                     "the request needs a hardware profile (\"hardware\": {...}; see hw/README.md)");
        goto fail;
    }
    if (rl_hw_parse(hwj, cJSON_IsString(pm) ? pm->valuestring : NULL, &hw, &err)) goto fail;

    dim_used used[64];
    int n_used = 0;
    rl_cost sum;
    rl_graph *g = prepare_graph(&c, used, &n_used, 64, NULL, &sum);
    if (!g) goto fail;

    /* ---- per-layer roofline */
    layer_time *lt = rl_arena_alloc(&arena, (size_t)(g->n_nodes + 1) * sizeof *lt);
    if (!lt) {
        rl_error_set(&err, "out_of_memory", "", "out of memory");
        goto fail;
    }
    const double bw = hw.mem_bw[0];
    rl_timing tim;
    rl_time_graph(&c, g, &o, &hw, lt, &tim);
    const double tc_sum = tim.tc_sum, tm_sum = tim.tm_sum, t_sum = tim.t_sum, e_sum = tim.e_sum;
    const double fused_sum = tim.fused_bytes, sol_unfused = tim.sol_unfused, sol_fused = tim.sol_fused;
    const int kernels = tim.kernels, unknown_layers = tim.unknown_layers, main_prec = tim.main_prec;
    rl_measured *measured;
    if (attach_measured(&c, req, g, lt, bw, &measured, &err)) goto fail;

    root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema", ROOFLENS_SCHEMA);
    cJSON_AddTrueToObject(root, "ok");
    cJSON_AddStringToObject(root, "version", ROOFLENS_VERSION);
    add_model_section(root, m, &c, g, used, n_used);

    cJSON *ho = cJSON_AddObjectToObject(root, "hardware");
    cJSON_AddStringToObject(ho, "id", hw.id);
    cJSON_AddStringToObject(ho, "name", hw.name);
    cJSON_AddStringToObject(ho, "category", hw.category);
    if (hw.mode_id) {
        cJSON_AddStringToObject(ho, "power_mode", hw.mode_id);
        cJSON_AddStringToObject(ho, "power_mode_name", hw.mode_name);
    } else {
        cJSON_AddNullToObject(ho, "power_mode");
    }
    add_num(ho, "bandwidth_Bps", bw);
    add_num(ho, "launch_overhead_s", hw.launch_s);
    add_num(ho, "clock_hz", hw.clock_hz);

    cJSON *op = cJSON_AddObjectToObject(root, "options");
    cJSON_AddStringToObject(op, "precision", o.precision_name);
    cJSON_AddStringToObject(op, "mode", o.training ? "training" : "inference");
    cJSON_AddStringToObject(op, "sol", o.sol);
    cJSON_AddStringToObject(op, "granularity", o.granularity);
    if (c.batch) cJSON_AddNumberToObject(op, "batch", (double)c.batch);
    else cJSON_AddNullToObject(op, "batch");

    /* ---- layers */
    if (o.include_layers) {
        /* Each layer is printed as soon as it is built and freed: the tree of
         * a 100,000-layer response would cost ~5 KB a layer and most of the
         * time in malloc. The text joins the response as a raw item. */
        rl_json_text layers_text = {0};
        rl_json_text_put(&layers_text, "[", 1);
        for (int i = 0; i < g->n_nodes; i++) {
            const rl_node *n = &g->nodes[i];
            const layer_time *L = &lt[i];
            const rl_cost *k = &n->cost;
            cJSON *l = cJSON_CreateObject();
            cJSON_AddNumberToObject(l, "index", i);
            cJSON_AddStringToObject(l, "name", n->name);
            cJSON_AddStringToObject(l, "op", n->op_type);
            cJSON_AddStringToObject(l, "domain", n->domain);
            cJSON *ins = cJSON_AddArrayToObject(l, "inputs");
            for (int j = 0; j < n->n_in; j++)
                if (n->inv[j]) cJSON_AddItemToArray(ins, tensor_json(&c, n->inv[j]));
            cJSON *outs = cJSON_AddArrayToObject(l, "outputs");
            for (int j = 0; j < n->n_out; j++)
                if (n->outv[j]) cJSON_AddItemToArray(outs, tensor_json(&c, n->outv[j]));
            add_num(l, "matrix_flops", k->matrix_flops);
            add_num(l, "vector_flops", k->vector_flops);
            add_num(l, "flops", L->flops);
            add_num(l, "macs", k->macs);
            add_num(l, "input_bytes", k->input_bytes);
            add_num(l, "weight_bytes", k->weight_bytes);
            add_num(l, "output_bytes", k->output_bytes);
            add_num(l, "bytes", L->bytes);
            add_num(l, "fused_bytes", L->fused_bytes);
            add_num(l, "intensity", L->bytes > 0 ? L->flops / L->bytes : 0);
            add_num(l, "t_compute", L->tc);
            add_num(l, "t_memory", L->tm);
            add_num(l, "t", L->t);
            cJSON_AddStringToObject(l, "bound", L->bound);
            cJSON_AddStringToObject(l, "precision", rl_precision_names[L->prec]);
            if (hw.has_energy) {
                add_num(l, "energy_j", L->energy);
                cJSON_AddStringToObject(l, "energy_bound", L->energy_bound);
            }
            if (o.training) {
                add_num(l, "bwd_flops", 2 * L->flops);
                add_num(l, "bwd_bytes", 2 * L->bytes);
            }
            cJSON_AddBoolToObject(l, "known", k->known);
            cJSON_AddBoolToObject(l, "supported", n->op != NULL);
            if (k->note) cJSON_AddStringToObject(l, "note", k->note);
            rl_measured_layer_json(measured, i, l);
            if (i) rl_json_text_put(&layers_text, ",", 1);
            rl_json_text_value(&layers_text, l);
            cJSON_Delete(l);
        }
        rl_json_text_put(&layers_text, "]", 1);
        char *text = rl_json_text_finish(&layers_text);
        cJSON *raw = text ? cJSON_CreateRaw(text) : NULL;
        free(text);
        if (!raw) {
            rl_error_set(&err, "out_of_memory", "layers", "out of memory while writing the layers");
            goto fail;
        }
        cJSON_AddItemToObject(root, "layers", raw);
    }

    /* ---- totals */
    cJSON *to = cJSON_AddObjectToObject(root, "totals");
    double flops = sum.matrix_flops + sum.vector_flops;
    double bytes = sum.input_bytes + sum.weight_bytes + sum.output_bytes;
    add_num(to, "flops", flops);
    add_num(to, "matrix_flops", sum.matrix_flops);
    add_num(to, "vector_flops", sum.vector_flops);
    add_num(to, "macs", sum.macs);
    add_num(to, "input_bytes", sum.input_bytes);
    add_num(to, "weight_bytes", sum.weight_bytes);
    add_num(to, "output_bytes", sum.output_bytes);
    add_num(to, "bytes", bytes);
    add_num(to, "fused_bytes", fused_sum);
    add_num(to, "intensity", bytes > 0 ? flops / bytes : 0);
    add_num(to, "t_compute", tc_sum);
    add_num(to, "t_memory", tm_sum);
    add_num(to, "t", t_sum);
    if (hw.has_energy) add_num(to, "energy_j", e_sum);
    cJSON_AddNumberToObject(to, "layers", g->n_nodes);
    cJSON_AddNumberToObject(to, "kernels", kernels);
    add_num(to, "launch_floor_s", kernels * hw.launch_s);
    cJSON_AddNumberToObject(to, "unknown_layers", unknown_layers);
    cJSON *unsup = cJSON_AddArrayToObject(to, "unsupported_ops");
    /* a set, not a scan of earlier nodes: 100,000 distinct custom ops must stay linear */
    rl_name_map *unsup_seen = rl_map_new(&arena, (size_t)g->n_nodes);
    for (int i = 0; i < g->n_nodes && unsup_seen; i++) {
        const rl_node *n = &g->nodes[i];
        if (n->op) continue;
        char nm[300];
        snprintf(nm, sizeof nm, "%s%s%s", n->domain, n->domain[0] ? "." : "", n->op_type);
        if (rl_map_get(unsup_seen, nm) >= 0) continue;
        const char *key = rl_arena_strdup(&arena, nm);
        if (key) rl_map_put(unsup_seen, key, i);
        cJSON_AddItemToArray(unsup, cJSON_CreateString(nm));
    }
    if (o.training) {
        cJSON *tr = cJSON_AddObjectToObject(to, "training");
        add_num(tr, "forward_flops", flops);
        add_num(tr, "backward_flops", 2 * flops);
        add_num(tr, "total_flops", 3 * flops);
        add_num(tr, "forward_bytes", bytes);
        add_num(tr, "backward_bytes", 2 * bytes);
        add_num(tr, "total_bytes", 3 * bytes);
        double ttc = 3 * tc_sum, ttm = 3 * tm_sum;
        add_num(tr, "lower_bound_s", ttc > ttm ? ttc : ttm);
        add_num(tr, "upper_bound_s", ttc + ttm);
        add_num(tr, "time_s", 3 * sol_unfused);
        if (hw.has_energy) add_num(tr, "energy_j", 3 * (hw.e_flop * flops + hw.e_byte * bytes) + hw.static_w * 3 * sol_unfused);
        cJSON_AddStringToObject(tr, "method", "backward = 2x forward FLOPs and bytes per layer (Pagoda §8)");
    }

    /* ---- speed of light */
    cJSON *so = cJSON_AddObjectToObject(root, "sol");
    cJSON_AddItemToObject(so, "unfused", sol_json(tc_sum, bytes, sol_unfused, bw, "per_op"));
    cJSON_AddItemToObject(so, "fused", sol_json(tc_sum, fused_sum, sol_fused, bw, "per_op"));
    cJSON_AddItemToObject(so, "fused_prefetched", sol_json(tc_sum, fused_sum, sol_fused, bw, "whole_graph"));
    add_num(so, "lower_bound_s", tc_sum > tm_sum ? tc_sum : tm_sum);
    add_num(so, "upper_bound_s", tc_sum + tm_sum);
    {
        cJSON *ch = cJSON_AddObjectToObject(so, "chosen");
        cJSON_AddStringToObject(ch, "model", o.sol);
        cJSON_AddStringToObject(ch, "granularity", tim.chosen_granularity);
        double tch = tim.chosen_time;
        add_num(ch, "time_s", tch);
        cJSON_AddStringToObject(ch, "bound", rl_model_bound(&tim, bw));
        if (hw.has_energy) add_num(ch, "energy_j", tim.chosen_energy);
        if (kernels * hw.launch_s > 0.5 * tch && hw.launch_s > 0)
            rl_warn(&c, "overhead_dominated", NULL,
                    "kernel launch overhead (%d kernels x %.3g s = %.3g s) is more than half of the "
                    "predicted time %.3g s: this model is bound by launches, not by the roofline",
                    kernels, hw.launch_s, kernels * hw.launch_s, tch);
    }

    rl_measured_json(measured, root, tim.chosen_time);

    /* ---- roofline */
    cJSON *ro = cJSON_AddObjectToObject(root, "roofline");
    double peak = hw.matrix[main_prec], peak_v = hw.vector[main_prec];
    cJSON_AddStringToObject(ro, "precision", rl_precision_names[main_prec]);
    add_num(ro, "peak_matrix_flops", peak);
    add_num(ro, "peak_vector_flops", peak_v);
    add_num(ro, "bandwidth_Bps", bw);
    add_num(ro, "time_balance", rl_time_balance(peak, bw));
    add_num(ro, "ridge_vector", peak_v / bw);
    add_num(ro, "launch_overhead_s", hw.launch_s);
    if (hw.has_energy) {
        add_num(ro, "energy_balance", rl_energy_balance(hw.e_flop, hw.e_byte, hw.static_w, peak, bw));
        add_num(ro, "energy_balance_no_static", rl_energy_balance_no_static(hw.e_flop, hw.e_byte));
        add_num(ro, "peak_flop_per_j", rl_peak_flop_per_j(hw.e_flop, hw.static_w, peak));
        add_num(ro, "peak_flop_per_j_no_static", rl_peak_flop_per_j_no_static(hw.e_flop));
        add_num(ro, "flop_j", hw.e_flop);
        add_num(ro, "byte_j", hw.e_byte);
        add_num(ro, "static_w", hw.static_w);
    } else {
        cJSON_AddNullToObject(ro, "energy_balance");
        cJSON_AddNullToObject(ro, "energy_balance_no_static");
        cJSON_AddNullToObject(ro, "peak_flop_per_j");
        cJSON_AddNullToObject(ro, "peak_flop_per_j_no_static");
    }
    cJSON *ceil = cJSON_AddObjectToObject(ro, "ceilings");
    cJSON *cc = cJSON_AddArrayToObject(ceil, "compute");
    for (int p = 0; p < RL_P_COUNT; p++) {
        if (hw.matrix[p] <= 0) continue;
        cJSON *e1 = cJSON_CreateObject();
        cJSON_AddStringToObject(e1, "precision", rl_precision_names[p]);
        cJSON_AddStringToObject(e1, "unit", "matrix");
        add_num(e1, "flops", hw.matrix[p]);
        cJSON_AddItemToArray(cc, e1);
        cJSON *e2 = cJSON_CreateObject();
        cJSON_AddStringToObject(e2, "precision", rl_precision_names[p]);
        cJSON_AddStringToObject(e2, "unit", "vector");
        add_num(e2, "flops", hw.vector[p]);
        cJSON_AddItemToArray(cc, e2);
    }
    cJSON *mc = cJSON_AddArrayToObject(ceil, "memory");
    for (int i = 0; i < hw.n_mem; i++) {
        if (hw.mem_bw[i] <= 0) continue;
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", hw.mem_name[i] ? hw.mem_name[i] : (i ? "cache" : "DRAM"));
        add_num(e, "bandwidth_Bps", hw.mem_bw[i]);
        if (hw.mem_cap[i] > 0) add_num(e, "capacity_bytes", hw.mem_cap[i]);
        cJSON_AddItemToArray(mc, e);
    }
    cJSON *mp = cJSON_AddObjectToObject(ro, "model_point");
    add_num(mp, "intensity", bytes > 0 ? flops / bytes : 0);
    add_num(mp, "flops_per_s", sol_unfused > 0 ? flops / sol_unfused : 0);
    if (hw.has_energy && e_sum > 0) add_num(mp, "flop_per_j", flops / e_sum);

    /* ---- a what-if study over the same parsed model (docs/api.md, "Studies") */
    const cJSON *study = cJSON_GetObjectItemCaseSensitive(req, "study");
    if (study && !cJSON_IsNull(study) && rl_study_run(&c, study, req, &o, &hw, g, root, &err)) goto fail;

    add_warnings(root, &c);
    result = finish_json(root);
    root = NULL;
    cJSON_Delete(req);
    rl_arena_free(&arena);
    return result;
fail:
    cJSON_Delete(root);
    cJSON_Delete(req);
    rl_arena_free(&arena);
    if (!err.code[0]) rl_error_set(&err, "internal", "", "analysis failed");
    return rl_error_json(&err);
}

/* Read-only description: what the page needs before choosing options. */
char *rl_model_info(rl_model *m) {
    rl_json_begin();
    rl_error err = {0};
    rl_arena arena = {0};
    rl_ctx c;
    if (!m || !setup_ctx(&c, m, &arena, &err)) {
        rl_error_set(&err, "bad_request", "", "no model");
        return rl_error_json(&err);
    }
    rl_graph *g = rl_graph_build(&c, m->proto->graph, NULL, 0, "main graph");
    if (!g) {
        rl_arena_free(&arena);
        return rl_error_json(&err);
    }
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema", ROOFLENS_SCHEMA);
    cJSON_AddTrueToObject(root, "ok");
    add_model_section(root, m, &c, g, NULL, 0);
    /* symbolic dims as the page should pre-fill them */
    cJSON *sym = cJSON_AddArrayToObject(root, "symbolic_dims");
    for (int i = 0; i < g->n_inputs; i++) {
        const rl_value *v = &g->values[g->inputs[i]];
        if (!v->dim_params) continue;
        for (int k = 0; k < v->rank; k++) {
            const char *p = v->dim_params[k];
            if (!p || !p[0]) continue;
            bool seen = false;
            cJSON *it;
            cJSON_ArrayForEach(it, sym) if (strcmp(cJSON_GetObjectItem(it, "name")->valuestring, p) == 0) seen = true;
            if (seen) continue;
            cJSON *d = cJSON_CreateObject();
            cJSON_AddStringToObject(d, "name", p);
            cJSON_AddStringToObject(d, "input", v->name);
            cJSON_AddNumberToObject(d, "axis", k);
            cJSON_AddItemToArray(sym, d);
        }
    }
    char *s = finish_json(root);
    rl_arena_free(&arena);
    return s;
}

char *rl_analyze(const char *request_json, const void *bytes, size_t len) {
    rl_limits lim;
    rl_error lerr = {0};
    cJSON *req = cJSON_Parse(request_json ? request_json : "{}");
    /* a request that is not an object is reported by rl_model_analyze */
    int bad = cJSON_IsObject(req)
                  ? rl_limits_from_json(cJSON_GetObjectItemCaseSensitive(req, "limits"), &lim, &lerr)
                  : rl_limits_from_json(NULL, &lim, &lerr);
    cJSON_Delete(req);
    if (bad) return rl_error_json(&lerr);
    char *err = NULL;
    rl_model *m = rl_model_read(bytes, len, &lim, &err);
    if (!m) return err;
    char *out = rl_model_analyze(m, request_json);
    rl_model_free(m);
    return out;
}

char *rl_check_hardware(const char *profile_json) {
    rl_json_begin();
    rl_error err = {0};
    cJSON *p = cJSON_Parse(profile_json ? profile_json : "");
    rl_hw hw;
    if (!p) {
        rl_error_set(&err, "bad_hardware", "", "the hardware profile is not valid JSON");
        return rl_error_json(&err);
    }
    if (rl_hw_parse(p, NULL, &hw, &err)) {
        cJSON_Delete(p);
        return rl_error_json(&err);
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddTrueToObject(o, "ok");
    cJSON_AddStringToObject(o, "id", hw.id);
    cJSON_AddStringToObject(o, "name", hw.name);
    cJSON_Delete(p);
    return finish_json(o);
}

char *rl_operator_table(void) {
    rl_json_begin();
    cJSON *arr = cJSON_CreateArray();
    for (size_t f = 0; f < rl_op_family_count; f++) {
        for (size_t i = 0; i < rl_op_families[f]->count; i++) {
            const rl_op_def *d = &rl_op_families[f]->ops[i];
            if (!d->name[0]) continue;
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "op", d->name);
            cJSON_AddStringToObject(o, "domain", d->domain[0] ? d->domain : "ai.onnx");
            cJSON_AddNumberToObject(o, "since", d->since);
            if (d->until) cJSON_AddNumberToObject(o, "until", d->until);
            else cJSON_AddNullToObject(o, "until");
            cJSON_AddStringToObject(o, "cost", d->cost_doc ? d->cost_doc : "");
            cJSON_AddBoolToObject(o, "view", (d->flags & RL_OP_VIEW) != 0);
            cJSON_AddBoolToObject(o, "shape", d->shape != NULL); /* infers its outputs' shapes */
            cJSON_AddItemToArray(arr, o);
        }
    }
    return finish_json(arr);
}
