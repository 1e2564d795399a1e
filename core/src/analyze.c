/* The JSON entry points: request parsing and the response, one writer per
 * section. Every figure comes from the timing model (timing.h), so the
 * response, the CLI, the page and the studies give one answer. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "graph_view.h"
#include "hw.h"
#include "layer_writer.h"
#include "json.h"
#include "ops/op.h"
#include "llm.h"
#include "forecast.h"
#include "forecast_fit.h"
#include "forecast_band.h"
#include "llm_roles.h"
#include "measured.h"
#include "parallel.h"
#include "request.h"
#include "roofline.h"
#include "storage.h"
#include "study.h"
#include "timing.h"
#include "analyze.h"

/* ------------------------------------------------------------- options -- */
typedef rl_options options;

/* ------------------------------------------------------------ JSON bits -- */
/* A graph input or output as the model section gives it: the same fields
 * as a layer's tensors (layer_writer.c). */
static cJSON *tensor_json(const rl_ctx *c, const rl_value *v) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", v->name);
    cJSON_AddStringToObject(o, "dtype", rl_value_dtype_text(c, v));
    if (v->rank < 0) {
        cJSON_AddNullToObject(o, "shape");
    } else {
        cJSON *s = cJSON_AddArrayToObject(o, "shape");
        for (int i = 0; i < v->rank; i++)
            cJSON_AddItemToArray(s, v->dims[i] < 0 ? cJSON_CreateNull() : cJSON_CreateNumber((double)v->dims[i]));
    }
    const char *source = rl_value_shape_source_text(v);
    if (source) {
        cJSON_AddTrueToObject(o, "declared");
        cJSON_AddStringToObject(o, "shape_source", source);
    }
    return o;
}

/* The parameters a weight holds: its elements, except for block-quantized
 * weights stored packed (MatMulNBits' B, GatherBlockQuantized's data: `bits`
 * a weight, 4 by default, in uint8 bytes), which hold 8/bits weights a byte,
 * and their scales and zero points, which describe the weights and are no
 * parameters of their own. An int4 Llama-3.1-8B counts its 8.0 G weights,
 * not 4.5 G packed bytes. Per value of g (arena memory); NULL: out of it. */
static double *weight_params(rl_ctx *c, const rl_graph *g) {
    double *per = rl_arena_alloc(c->arena, (size_t)(g->n_values + 1) * sizeof *per);
    if (!per) return NULL;
    /* what the runtime makes itself (a GGUF decoder's rotary tables) holds no parameters */
    for (int i = 0; i < g->n_values; i++)
        per[i] = g->values[i].storage == RL_ST_RUNTIME ? 0 : rl_numel_d(&g->values[i]);
    for (int i = 0; i < g->n_nodes; i++) {
        const rl_node *n = &g->nodes[i];
        bool nbits = !strcmp(n->op_type, "MatMulNBits"), gbq = !strcmp(n->op_type, "GatherBlockQuantized");
        if (!nbits && !gbq) continue;
        int packed = nbits ? 1 : 0;
        int64_t bits = rl_attr_i(NULL, n, "bits", 4);
        const rl_value *w = n->n_in > packed ? n->inv[packed] : NULL;
        if (w && w->kind == RL_VALUE_WEIGHT && w->dtype == RL_DT_UINT8 && bits > 0 && bits < 8)
            per[w - g->values] = rl_numel_d(w) * (8.0 / (double)bits);
        for (int j = 2; j <= 3 && j < n->n_in; j++) /* scales, zero points */
            if (n->inv[j] && n->inv[j]->kind == RL_VALUE_WEIGHT) per[n->inv[j] - g->values] = 0;
    }
    return per;
}

static void add_model_section(cJSON *root, const rl_model *m, rl_ctx *c, rl_graph *g,
                              const rl_dim_used *used, int n_used) {
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
    const double *per = g ? weight_params(c, g) : NULL;
    if (g) {
        for (int i = 0; i < g->n_values; i++) {
            const rl_value *v = &g->values[i];
            if (v->kind != RL_VALUE_WEIGHT) continue;
            params += per ? per[i] : rl_numel_d(v);
            /* as the file stores it: its storage's bytes, else its own dtype's (not the request's precision) */
            double stored = rl_value_storage_bytes(v);
            wbytes += stored >= 0 ? stored : rl_numel_d(v) * rl_dtype_bits(v->dtype) / 8.0;
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

/* The answer's text and its layer columns, printed into one buffer. */
static char *finish_with_columns(cJSON *root, rl_layers_out *layers, size_t *size, const rl_options *o) {
    size_t cap = 0, room = rl_layer_writer_room(layers->columns);
    /* a statement of its own: as an argument beside cap, C leaves it open
     * whether cap is read before the call sets it, and GCC read the 0 (the
     * columns then grew the buffer again: a copy of the whole answer) */
    char *text = rl_json_finish_room(root, room, &cap);
    return rl_analyze_join_layers(text, cap, layers, size, o);
}

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

bool rl_analyze_setup_ctx(rl_ctx *c, rl_model *m, rl_arena *arena, rl_error *err) {
    memset(c, 0, sizeof *c);
    c->model = m;
    c->arena = arena;
    c->err = err;
    c->warnings = rl_arena_alloc(arena, RL_MAX_WARNINGS * sizeof *c->warnings);
    return c->warnings != NULL;
}


/* ------------------------------------------------------ response sections -- */
static void add_hardware_section(cJSON *root, const rl_hw *hw) {
    cJSON *ho = cJSON_AddObjectToObject(root, "hardware");
    cJSON_AddStringToObject(ho, "id", hw->id);
    cJSON_AddStringToObject(ho, "name", hw->name);
    cJSON_AddStringToObject(ho, "category", hw->category);
    if (hw->mode_id) {
        cJSON_AddStringToObject(ho, "power_mode", hw->mode_id);
        cJSON_AddStringToObject(ho, "power_mode_name", hw->mode_name);
    } else {
        cJSON_AddNullToObject(ho, "power_mode");
    }
    rl_json_add_num(ho, "bandwidth_Bps", hw->mem_bw[0]);
    rl_json_add_num(ho, "launch_overhead_s", hw->launch_s);
    rl_json_add_num(ho, "clock_hz", hw->clock_hz);
    if (hw->power_budget_w > 0) rl_json_add_num(ho, "power_budget_w", hw->power_budget_w);
    else cJSON_AddNullToObject(ho, "power_budget_w");
    if (hw->has_energy) cJSON_AddStringToObject(ho, "energy_model", hw->energy_model);
    else cJSON_AddNullToObject(ho, "energy_model");
}

static void add_options_section(cJSON *root, const options *o, const rl_prepared *pg) {
    cJSON *op = cJSON_AddObjectToObject(root, "options");
    cJSON_AddStringToObject(op, "precision", o->precision_name);
    cJSON_AddStringToObject(op, "mode", rl_value_id(RL_LIST_MODE, o->training ? RL_MODE_TRAINING : RL_MODE_INFERENCE));
    cJSON_AddStringToObject(op, "sol", rl_value_id(RL_LIST_SOL, o->sol));
    cJSON_AddStringToObject(op, "granularity", rl_value_id(RL_LIST_GRANULARITY, o->granularity));
    /* the batch actually applied, never one that was only asked for */
    if (pg->batch_applied) {
        cJSON_AddNumberToObject(op, "batch", (double)pg->batch);
        cJSON_AddStringToObject(op, "batch_applied", pg->batch_applied);
    } else {
        cJSON_AddNullToObject(op, "batch");
        cJSON_AddNullToObject(op, "batch_applied");
    }
    if (pg->batch_base > 0) cJSON_AddNumberToObject(op, "batch_base", (double)pg->batch_base);
    else cJSON_AddNullToObject(op, "batch_base");
}

/* The distinct unsupported op types, through a set: 100,000 distinct custom
 * ops must stay linear. */
static void add_unsupported(cJSON *to, const rl_graph *g, rl_arena *arena) {
    cJSON *unsup = cJSON_AddArrayToObject(to, "unsupported_ops");
    rl_name_map *seen = rl_map_new(arena, (size_t)g->n_nodes);
    for (int i = 0; i < g->n_nodes && seen; i++) {
        const rl_node *n = &g->nodes[i];
        if (n->op) continue;
        char nm[300];
        rl_snprintf_utf8(nm, sizeof nm, "%s%s%s", n->domain, n->domain[0] ? "." : "", n->op_type);
        if (rl_map_get(seen, nm) >= 0) continue;
        const char *key = rl_arena_strdup(arena, nm);
        if (key) rl_map_put(seen, key, i);
        cJSON_AddItemToArray(unsup, cJSON_CreateString(nm));
    }
}

/* Training (Pagoda §8): backward = 2× forward FLOPs, bytes and kernels per
 * layer, so every figure of the step is 3× the chosen model's. */
static void add_training(cJSON *to, const rl_timing *t) {
    const rl_sol_result *ch = rl_timing_chosen(t);
    cJSON *tr = cJSON_AddObjectToObject(to, "training");
    rl_json_add_num(tr, "forward_flops", t->flops);
    rl_json_add_num(tr, "backward_flops", 2 * t->flops);
    rl_json_add_num(tr, "total_flops", 3 * t->flops);
    rl_json_add_num(tr, "forward_bytes", ch->bytes);
    rl_json_add_num(tr, "backward_bytes", 2 * ch->bytes);
    rl_json_add_num(tr, "total_bytes", 3 * ch->bytes);
    rl_json_add_num(tr, "lower_bound_s", 3 * ch->lower_bound_s);
    rl_json_add_num(tr, "upper_bound_s", 3 * ch->upper_bound_s);
    rl_json_add_num(tr, "time_s", 3 * ch->time_s);
    if (t->has_energy) rl_json_add_num(tr, "energy_j", 3 * ch->energy_j);
    else cJSON_AddNullToObject(tr, "energy_j");
    cJSON_AddStringToObject(tr, "method",
                            "backward = 2x forward FLOPs, bytes and kernels per layer (Pagoda §8): 3x the "
                            "chosen speed-of-light model");
}

static void add_totals_section(cJSON *root, const rl_graph *g, const rl_prepared *pg, const rl_timing *t,
                               const options *o, rl_arena *arena) {
    const rl_cost *sum = &pg->sum;
    const rl_sol_result *ch = rl_timing_chosen(t);
    cJSON *to = cJSON_AddObjectToObject(root, "totals");
    rl_json_add_num(to, "flops", t->flops);
    rl_json_add_num(to, "matrix_flops", sum->matrix_flops);
    rl_json_add_num(to, "vector_flops", sum->vector_flops);
    rl_json_add_num(to, "macs", sum->macs);
    rl_json_add_num(to, "input_bytes", sum->input_bytes);
    rl_json_add_num(to, "weight_bytes", sum->weight_bytes);
    rl_json_add_num(to, "output_bytes", sum->output_bytes);
    rl_json_add_num(to, "bytes", t->bytes);
    rl_json_add_num(to, "fused_bytes", t->fused_bytes);
    rl_json_add_num(to, "intensity", t->bytes > 0 ? t->flops / t->bytes : 0);
    rl_json_add_num(to, "t_compute", ch->t_compute);
    rl_json_add_num(to, "t_memory", t->sol[RL_SOL_UNFUSED].t_memory);
    /* one time, one energy, one kernel count: the chosen model's */
    rl_json_add_num(to, "t", ch->time_s);
    if (t->has_energy) rl_json_add_num(to, "energy_j", ch->energy_j);
    cJSON_AddNumberToObject(to, "layers", g->n_nodes);
    rl_json_add_num(to, "kernels", ch->kernels);
    rl_json_add_num(to, "launch_floor_s", ch->launch_floor_s);
    cJSON_AddNumberToObject(to, "unknown_layers", t->unknown_layers);
    add_unsupported(to, g, arena);
    if (o->training) add_training(to, t);
}

static cJSON *sol_result_json(const rl_sol_result *r, bool has_energy) {
    cJSON *o = cJSON_CreateObject();
    rl_json_add_num(o, "time_s", r->time_s);
    rl_json_add_num(o, "lower_bound_s", r->lower_bound_s);
    rl_json_add_num(o, "upper_bound_s", r->upper_bound_s);
    rl_json_add_num(o, "roof_time_s", r->roof_time_s);
    cJSON_AddStringToObject(o, "granularity", rl_value_id(RL_LIST_GRANULARITY, r->granularity));
    rl_json_add_num(o, "roof_per_op_s", r->roof_per_op_s);
    rl_json_add_num(o, "roof_whole_graph_s", r->roof_whole_graph_s);
    if (has_energy) {
        rl_json_add_num(o, "energy_j", r->energy_j);
        rl_json_add_num(o, "avg_power_w", r->avg_power_w);
    } else {
        cJSON_AddNullToObject(o, "energy_j");
        cJSON_AddNullToObject(o, "avg_power_w");
    }
    cJSON_AddStringToObject(o, "bound", rl_bound_id(r->bound));
    rl_json_add_num(o, "kernels", r->kernels);
    rl_json_add_num(o, "launch_floor_s", r->launch_floor_s);
    rl_json_add_num(o, "power_floor_s", r->power_floor_s);
    rl_json_add_num(o, "bytes", r->bytes);
    rl_json_add_num(o, "flops", r->flops);
    rl_json_add_num(o, "t_compute", r->t_compute);
    rl_json_add_num(o, "t_memory", r->t_memory);
    cJSON_AddBoolToObject(o, "power_capped", r->power_capped);
    return o;
}

static void add_sol_section(cJSON *root, const rl_timing *t) {
    cJSON *so = cJSON_AddObjectToObject(root, "sol");
    for (int m = 0; m < RL_SOL_COUNT; m++)
        cJSON_AddItemToObject(so, rl_value_id(RL_LIST_SOL, m), sol_result_json(&t->sol[m], t->has_energy));
    cJSON *ch = sol_result_json(rl_timing_chosen(t), t->has_energy);
    cJSON_AddStringToObject(ch, "model", rl_value_id(RL_LIST_SOL, t->chosen));
    cJSON_AddItemToObject(so, "chosen", ch);
}

/* ---- the forecast beside the floor (forecast.h; docs/api.md, "Forecast") */
static cJSON *forecast_class_json(int cls, const rl_forecast_class *b, const rl_hw *hw, int prec) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "class", rl_value_id(RL_LIST_OP_CLASS, cls));
    rl_json_add_num(o, "time_s", b->time_s);
    rl_json_add_num(o, "floor_s", b->floor_s);
    rl_json_add_num(o, "kernels", b->kernels);
    /* the class's achievable ceilings at the roofline's precision, for the
     * charts (its fractions are the profile's: forecast.classes) */
    bool matrix = rl_fc_class_is_product(cls) || cls == RL_CLASS_DEPTHWISE;
    rl_json_add_num(o, "peak_flops_per_s", (matrix ? hw->matrix[prec] : hw->vector[rl_hw_vector_precision(hw, prec)]) * hw->fc.compute[cls]);
    rl_json_add_num(o, "bandwidth_Bps", hw->mem_bw[0] * hw->fc.memory[cls]);
    rl_json_add_num(o, "kernel_overhead_s", rl_fc_class_kernel_s(&hw->fc, cls));
    return o;
}

static void add_forecast_section(cJSON *root, const rl_timing *t, const rl_hw *hw) {
    const rl_forecast *f = &t->forecast;
    cJSON *fo = cJSON_AddObjectToObject(root, "forecast");
    rl_json_add_num(fo, "time_s", f->time_s);
    if (t->has_energy) rl_json_add_num(fo, "energy_j", f->energy_j);
    else cJSON_AddNullToObject(fo, "energy_j");
    rl_json_add_num(fo, "floor_s", f->floor_s);
    rl_json_add_num(fo, "headroom", f->floor_s > 0 ? f->time_s / f->floor_s : 1);
    /* how far off it may be: the stack's track record (null: it has none) */
    rl_forecast_band_put(fo, "low_s", "high_s", rl_forecast_band(hw, f->time_s, f->floor_s));
    rl_forecast_band_record_json(fo, hw);
    cJSON_AddStringToObject(fo, "basis", rl_value_id(RL_LIST_BASIS, hw->fc.calibrated ? RL_BASIS_CALIBRATED : RL_BASIS_ANALYTIC));
    cJSON_AddStringToObject(fo, "stack", hw->fc.stack);
    rl_json_add_num(fo, "kernels_s", f->kernels_s);
    cJSON_AddBoolToObject(fo, "clamped", f->clamped);
    rl_json_add_num(fo, "dram_bytes", f->dram_bytes);
    rl_json_add_num(fo, "cache_bytes", f->cache_bytes);
    rl_json_add_num(fo, "kernel_overhead_s", hw->fc.kernel_s);
    rl_json_add_num(fo, "between_kernels_s", hw->fc.between_s);
    rl_json_add_num(fo, "between_kernels_growth", hw->fc.between_growth);
    rl_json_add_num(fo, "group_overhead_s", hw->fc.group_s);
    rl_json_add_num(fo, "tile_overhead_k", hw->fc.tile_k0);
    /* a blocked CPU stack's conversions between its layout and the plain one */
    cJSON *ro = cJSON_AddObjectToObject(fo, "layout_reorders");
    rl_json_add_num(ro, "kernels", f->reorders);
    rl_json_add_num(ro, "time_s", f->reorders_s);
    cJSON *bc = cJSON_AddArrayToObject(fo, "by_class");
    for (int cls = 0; cls < RL_CLASS_COUNT; cls++)
        cJSON_AddItemToArray(bc, forecast_class_json(cls, &f->by_class[cls], hw, t->main_prec));
}

/* A calibrated stack's forecast rests on the classes its fit measured; a
 * class it had no kernel of keeps the base profile's estimate, which the
 * band (the fit's own held-out models) does not cover. On this project's
 * CPU validation such classes (depthwise convolutions forecast by a fit
 * without any) missed by 25-44 % (docs/validation.md, run 5). Said when
 * they carry at least a tenth of the forecast. */
static void warn_unfitted_classes(rl_ctx *c, const rl_timing *t, const rl_hw *hw) {
    const rl_forecast *f = &t->forecast;
    if (!hw->fc.calibrated || !(f->time_s > 0)) return;
    double share = 0;
    char names[160] = "";
    for (int cls = 0; cls < RL_CLASS_COUNT; cls++) {
        if (!hw->fc.class_estimated[cls] || !(f->by_class[cls].time_s > 0)) continue;
        share += f->by_class[cls].time_s / f->time_s;
        size_t k = strlen(names);
        snprintf(names + k, sizeof names - k, "%s%s", k ? ", " : "", rl_value_id(RL_LIST_OP_CLASS, cls));
    }
    if (share >= 0.1)
        rl_warn(c, "forecast_unfitted_classes", NULL,
                "%.0f %% of this forecast is work of classes the stack's fit had no measured kernel of (%s): "
                "their efficiency is the base profile's estimate, and the band does not cover it (fit on a "
                "model that has them: rooflens calibrate --from)", 100 * share, names);
}

/* Whether a class's fit measured kernels of operator type op (ops: its
 * "fitted_ops"). */
static bool fitted_op(const cJSON *ops, const char *op) {
    const cJSON *it;
    cJSON_ArrayForEach(it, ops) if (!strcmp(it->valuestring, op)) return true;
    return false;
}

/* A fitted class's efficiency comes from the operator types its fit
 * measured (the profile's classes.*.fitted_ops). A stack that rewrites its
 * graph (folds and merges shape arithmetic, fuses epilogues) runs kernels
 * of its own for the patterns it knows (ONNX Runtime's BiasGelu,
 * QuickGelu, its blocked direct convolutions), whose costs per counted
 * FLOP differ by up to 3x on this project's CPU: a class fitted on one
 * forecasts another badly, and a class borrowed from its sibling measured
 * none of its own. On the CPU validation's fresh run 13
 * (docs/validation.md), with optimisations on, the held-out forecasts this
 * warns of erred by a median 15.2 % (90th percentile 29.8 %; 36 of 126),
 * the others by 4.8 % (14.9 %). With optimisations off (a stack that runs
 * the graph as written) the same test, tried on run 12's forecasts before
 * this rule, picked 32 that erred by a median 2.3 %: nothing is said for
 * such a stack, nor for classes forecast_unfitted_classes speaks of. */
static void warn_unseen_ops(rl_ctx *c, const rl_graph *g, const rl_layer_time *lt, const rl_timing *t,
                            const rl_hw *hw) {
    const rl_forecast *f = &t->forecast;
    const rl_forecast_params *p = &hw->fc;
    bool rewrites = !p->unfused || p->shape_ops == RL_SHAPE_FOLDED || p->shape_ops == RL_SHAPE_DISTINCT;
    bool told = false; /* the fit listed its operator types (fits before this did not) */
    for (int k = 0; k < RL_CLASS_COUNT; k++) told |= p->fitted_ops[k] != NULL;
    if (!p->calibrated || !rewrites || !told || !(f->time_s > 0) || !lt) return;
    /* time per unseen (type, class), the first 64 kinds apart (a graph has
     * some tens of types), and in all */
    struct { const char *op; int cls; double s; } kind[64];
    int n_kinds = 0;
    double unseen = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const rl_node *n = &g->nodes[i];
        int cls = rl_node_op_class(n);
        if (cls < 0 || cls >= RL_CLASS_COUNT || p->class_estimated[cls] || !n->op_type || !(lt[i].forecast_s > 0))
            continue;
        const cJSON *ops = p->fitted_ops[cls]; /* NULL: a class its fit measured no kernel of (borrowed) */
        if (ops && fitted_op(ops, n->op_type)) continue;
        unseen += lt[i].forecast_s;
        int k = 0;
        while (k < n_kinds && !(kind[k].cls == cls && !strcmp(kind[k].op, n->op_type))) k++;
        if (k == n_kinds) {
            if (n_kinds == 64) continue;
            kind[n_kinds].op = n->op_type, kind[n_kinds].cls = cls, kind[n_kinds].s = 0;
            n_kinds++;
        }
        kind[k].s += lt[i].forecast_s;
    }
    if (unseen < 0.1 * f->time_s) return;
    char names[256] = "";
    for (int shown = 0; shown < 3; shown++) { /* the three with the most time */
        int best = -1;
        for (int k = 0; k < n_kinds; k++)
            if (kind[k].s > 0 && (best < 0 || kind[k].s > kind[best].s)) best = k;
        if (best < 0) break;
        size_t w = strlen(names);
        snprintf(names + w, sizeof names - w, "%s%s (%s, %.0f %%)", w ? ", " : "", kind[best].op,
                 rl_value_id(RL_LIST_OP_CLASS, kind[best].cls), 100 * kind[best].s / f->time_s);
        kind[best].s = 0;
    }
    rl_warn(c, "forecast_unseen_ops", NULL,
            "%.0f %% of this forecast is operator types the stack's fit never measured: %s. A runtime that "
            "rewrites its graph runs them as kernels of their own, whose cost their class's fitted (or borrowed) "
            "efficiency may not tell (fit on a model that has them: rooflens calibrate --from)",
            100 * unseen / f->time_s, names);
}

/* A band from a fit's cross-validation over fewer models than this shows
 * their spread, not the tail of a model unlike them: on this project's CPU
 * a four-model fit's band held 11 of the 19 models it never saw, a
 * ten-model fit's 11 of 13 (docs/validation.md, run 11). */
#define RL_BAND_FEW_RUNS 8

/* Said on every forecast whose band rests on so few held-out models. */
static void warn_band_few_runs(rl_ctx *c, const rl_hw *hw) {
    const rl_forecast_band_params *b = &hw->fc.band;
    double models = b->models > 0 ? b->models : b->runs;
    if (!b->known || b->basis != RL_BAND_FIT_CROSS_VALIDATION || !(models < RL_BAND_FEW_RUNS)) return;
    rl_warn(c, "forecast_band_few_runs", NULL,
            "the forecast's likely range rests on %.0f held-out models of its fit, too few to show how far off a "
            "model unlike them may be (fit on %d or more models of the kinds you will forecast: rooflens "
            "calibrate --from)", models, RL_BAND_FEW_RUNS);
}

/* What a reader of the headline must know about how its time was set; its
 * figures in the core's one number format ("1.27 µs", as every surface
 * writes them), never as 1.27e-06 s. */
static void warn_about_headline(rl_ctx *c, const rl_timing *t, const rl_hw *hw) {
    const rl_sol_result *ch = rl_timing_chosen(t);
    char launch[32], floor_s[32], roof[32], budget[32], stretched[32];
    if (ch->bound == RL_BOUND_OVERHEAD)
        rl_warn(c, "overhead_dominated", NULL,
                "kernel launches set the time: %.0f kernels x %s = %s is more than the %s "
                "roofline time %s (graph capture or more fusion would lower it)",
                ch->kernels, rl_format_eng(launch, sizeof launch, hw->launch_s, "s", 0),
                rl_format_eng(floor_s, sizeof floor_s, ch->launch_floor_s, "s", 0), rl_value_id(RL_LIST_SOL, t->chosen),
                rl_format_eng(roof, sizeof roof, ch->roof_time_s, "s", 0));
    warn_unfitted_classes(c, t, hw);
    warn_band_few_runs(c, hw);
    if (ch->power_capped)
        rl_warn(c, "power_capped", NULL,
                "at its roofline time this model would draw more than %s's power budget of %s; the time "
                "is stretched to %s, where it averages the budget", hw->name,
                rl_format_eng(budget, sizeof budget, hw->power_budget_w, "W", 0),
                rl_format_eng(stretched, sizeof stretched, ch->time_s, "s", 0));
}

/* One sample's share of a batch's figures, when the batch applied is more
 * than one and the model runs inference: the times and energies above are
 * the whole batch's, and a surface that says "per inference" of them would
 * say eight times too much at batch 8. Absent otherwise. */
static void add_per_sample_section(cJSON *root, const rl_prepared *pg, const options *o, const rl_timing *t) {
    if (!pg->batch_applied || pg->batch <= 1 || o->training) return;
    const double n = (double)pg->batch;
    const rl_sol_result *ch = rl_timing_chosen(t);
    cJSON *ps = cJSON_AddObjectToObject(root, "per_sample");
    cJSON_AddNumberToObject(ps, "samples", n);
    rl_json_add_num(ps, "floor_s", ch->time_s / n);
    rl_json_add_num(ps, "forecast_s", t->forecast.time_s / n);
    rl_json_add_num(ps, "energy_j", t->has_energy ? ch->energy_j / n : NAN);
    rl_json_add_num(ps, "forecast_energy_j", t->has_energy ? t->forecast.energy_j / n : NAN);
}

/* Parse the request into c, o and hw (the caller's handle `given`, or the
 * request's profile). Returns 0 or -1 with err set. */
static int read_request(const cJSON *req, rl_ctx *c, options *o, const rl_hw *given, rl_hw *hw, rl_error *err) {
    rl_dim_setting *dims = NULL;
    if (rl_analyze_parse_options(req, o, c, &dims, err)) return -1;
    /* limits act while reading (rl_analyze); here they are only checked so a
     * bad "limits" object is reported the same way on both paths */
    rl_limits unused;
    if (rl_limits_from_json(cJSON_GetObjectItemCaseSensitive(req, "limits"), &unused, err)) return -1;
    return rl_analyze_read_hardware(req, given, hw, err);
}

/* Under "llm", the main analysis runs at the prefill of the prompt: each
 * role dim the request leaves open takes the LLM view's value (batch: its
 * batch; sequence: the prompt; past: 0; total: past + sequence), so none is left at 1
 * with an unset_dim warning. A model without roles keeps its dims (the LLM
 * view reports why). Returns 0, or -1 with err set. */
static int llm_prefill_dims(rl_ctx *c, const cJSON *req, rl_error *err) {
    const cJSON *llm = cJSON_GetObjectItemCaseSensitive(req, "llm");
    if (!llm || cJSON_IsNull(llm)) return 0;
    llm_opts O;
    if (rl_llm_parse_opts(llm, c, &O, err)) return -1;
    rl_graph *g = rl_graph_build(c, c->model->proto->graph, NULL, 0, "main graph");
    if (!g) return -1;
    llm_roles R;
    rl_error no_roles = {0};
    if (rl_llm_find_roles(c, g, &O, &R, &no_roles)) return 0;
    rl_dim_setting *dims = rl_arena_alloc(c->arena, (size_t)(c->n_dims + ROLE_COUNT) * sizeof *dims);
    if (!dims) {
        rl_error_set(err, "out_of_memory", "llm", "out of memory");
        return -1;
    }
    int n = c->n_dims;
    if (n) memcpy(dims, c->dims, (size_t)n * sizeof *dims);
    int64_t value[ROLE_COUNT] = {[ROLE_BATCH] = O.batch, [ROLE_SEQ] = O.prompt, [ROLE_PAST] = 0};
    bool set[ROLE_COUNT];
    for (int k = 0; k < ROLE_COUNT; k++) {
        set[k] = !R.dim[k] || (k == ROLE_BATCH && c->batch > 0);
        for (int i = 0; i < c->n_dims && R.dim[k]; i++)
            if (strcmp(c->dims[i].name, R.dim[k]) == 0) {
                set[k] = true;
                value[k] = c->dims[i].value;
            }
    }
    value[ROLE_TOTAL] = value[ROLE_PAST] + value[ROLE_SEQ]; /* the total the graph's shapes need */
    for (int k = 0; k < ROLE_COUNT; k++)
        if (!set[k]) dims[n++] = (rl_dim_setting){R.dim[k], value[k]};
    c->dims = dims;
    c->n_dims = n;
    return 0;
}

/* ---- measured times (measured.h): the request's "measured" profile matched
 * to the nodes, each node's own roofline handed over as its speed of light.
 * *out stays NULL when the request carries no profile. */
int rl_analyze_attach_measured(rl_ctx *c, const cJSON *req, const rl_graph *g, const rl_layer_time *lt,
                           const rl_hw *hw, rl_measured **out, rl_error *err) {
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
    *out = rl_measured_attach(c, spec, g, cost, hw, err);
    return *out ? 0 : -1;
}

/* The views the request asks for over the same parsed model, after the
 * analysis's own sections: the graph's edges and modules (graph_view.c), a
 * what-if study (docs/api.md, "Studies"), the LLM inference view (llm.c;
 * "LLM inference"; over the plan's devices when `parallel` is the
 * request's plan). 0, or -1 with err set. */
static int add_views(const cJSON *req, cJSON *root, rl_ctx *c, const options *o, const rl_hw *hw, rl_prepared *pg,
                     rl_layer_time *lt, const rl_timing *t, const cJSON *parallel, rl_error *err) {
    if (rl_graph_view_add(req, root, c, pg->graph, lt, t->has_energy, err)) return -1;
    const cJSON *study = cJSON_GetObjectItemCaseSensitive(req, "study");
    if (study && !cJSON_IsNull(study) && rl_study_run(c, study, req, o, hw, pg, root, err)) return -1;
    const cJSON *llm = cJSON_GetObjectItemCaseSensitive(req, "llm");
    if (llm && !cJSON_IsNull(llm) && rl_llm_run(c, llm, o, hw, parallel, root, err)) return -1;
    return 0;
}

/* Where rl_model_analyze_write sends the answer, and how it went. */
typedef struct answer_sink {
    rl_write_fn write;
    void *ctx;
    int rc;        /* rl_analyze_write_answer's */
    bool streamed; /* the answer went out with its rows streamed */
    bool ok;       /* and it was an "ok": true answer */
} answer_sink;

/* rl_model_analyze; *size: the answer's bytes when the layers are packed
 * after the text (else left alone). With a sink, an answer whose rows or
 * CSV stream is written to it instead (NULL returned, sink->streamed set). */
static char *analyze_model(rl_model *m, const rl_hw *given, const char *request_json, size_t *size,
                           answer_sink *sink) {
    rl_error err = {0};
    rl_json_begin();
    if (!m) {
        rl_error_set(&err, "bad_request", "", "no model");
        return rl_error_json(&err);
    }
    cJSON *req = rl_analyze_parse_request(request_json, &err);
    if (!req) return rl_error_json(&err);
    rl_arena arena = {0};
    rl_ctx c;
    options o;
    rl_hw hw;
    rl_prepared pg;
    rl_layer_time *lt = NULL;
    rl_timing t;
    cJSON *root = NULL;
    rl_layers_out layers = {.stream = sink != NULL}; /* joined to the text after printing */
    if (!rl_analyze_setup_ctx(&c, m, &arena, &err)) {
        rl_error_set(&err, "out_of_memory", "", "out of memory");
        goto fail;
    }
    if (read_request(req, &c, &o, given, &hw, &err) || llm_prefill_dims(&c, req, &err)) goto fail;
    if (rl_prepare_and_time(&c, &o, &hw, &pg, &lt, &t) || rl_timing_check(&t, pg.graph, &err)) goto fail;
    warn_about_headline(&c, &t, &hw);
    warn_unseen_ops(&c, pg.graph, lt, &t, &hw);
    rl_measured *measured;
    if (rl_analyze_attach_measured(&c, req, pg.graph, lt, &hw, &measured, &err)) goto fail;
    /* many devices (parallel.c; docs/parallel.md) */
    const cJSON *pspec = cJSON_GetObjectItemCaseSensitive(req, "parallel");
    rl_parallel *par = NULL;
    if (pspec && !cJSON_IsNull(pspec) && rl_parallel_plan(&c, pspec, &o, &hw, &pg, lt, &t, &par, &err)) goto fail;

    root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema", ROOFLENS_SCHEMA);
    cJSON_AddTrueToObject(root, "ok");
    cJSON_AddStringToObject(root, "version", ROOFLENS_VERSION);
    add_model_section(root, m, &c, pg.graph, pg.dims, pg.n_dims);
    add_hardware_section(root, &hw);
    add_options_section(root, &o, &pg);
    if (o.include_layers && rl_analyze_layers(root, &c, pg.graph, lt, &o, t.has_energy, measured, par, &layers, &err))
        goto fail;
    add_totals_section(root, pg.graph, &pg, &t, &o, &arena);
    add_sol_section(root, &t);
    add_forecast_section(root, &t, &hw);
    add_per_sample_section(root, &pg, &o, &t);
    rl_measured_json(measured, root, rl_timing_chosen(&t)->time_s, t.forecast.time_s);
    rl_analyze_roofline_section(root, &hw, &t);
    rl_parallel_json(par, root);
    if (add_views(req, root, &c, &o, &hw, &pg, lt, &t, par ? pspec : NULL, &err)) goto fail;
    add_warnings(root, &c);
    if (layers.waiting) {
        /* the rows written after the text before them, from the analysis,
         * which (and the request a measured profile may point into) lives
         * until they are out */
        sink->rc = rl_analyze_write_answer(finish_json(root), &layers, sink->write, sink->ctx, &sink->ok);
        sink->streamed = true;
        cJSON_Delete(req);
        rl_arena_free(&arena);
        return NULL;
    }
    cJSON_Delete(req);
    rl_arena_free(&arena);
    return finish_with_columns(root, &layers, size, &o);
fail:
    rl_analyze_layers_free(&layers);
    cJSON_Delete(root);
    cJSON_Delete(req);
    rl_arena_free(&arena);
    if (!err.code[0]) rl_error_set(&err, "internal", "", "analysis failed");
    return rl_error_json(&err);
}

char *rl_model_analyze(rl_model *m, const char *request_json) {
    size_t size = 0;
    return analyze_model(m, NULL, request_json, &size, NULL);
}

char *rl_model_analyze_hw(rl_model *m, const rl_hw *hw, const char *request_json, size_t *size) {
    size_t n = 0;
    char *s = analyze_model(m, hw, request_json, &n, NULL);
    if (size) *size = !s ? 0 : n ? n : strlen(s);
    return s;
}

char *rl_model_analyze_sized(rl_model *m, const char *request_json, size_t *size) {
    return rl_model_analyze_hw(m, NULL, request_json, size);
}

int rl_model_analyze_hw_write(rl_model *m, const rl_hw *hw, const char *request_json, rl_write_fn write, void *ctx,
                              bool *answered_ok) {
    answer_sink sink = {write, ctx, 0, false, false};
    size_t n = 0;
    char *s = write ? analyze_model(m, hw, request_json, &n, &sink) : NULL;
    if (answered_ok) *answered_ok = sink.streamed ? sink.ok : s && rl_answer_ok(s);
    if (sink.streamed) return sink.rc;
    /* an error, or a layout that is not streamed: the whole answer at once */
    int rc = s && !write(ctx, s, n ? n : strlen(s)) ? 0 : -1;
    free(s);
    return rc;
}

int rl_model_analyze_write(rl_model *m, const char *request_json, rl_write_fn write, void *ctx, bool *answered_ok) {
    return rl_model_analyze_hw_write(m, NULL, request_json, write, ctx, answered_ok);
}

/* Read-only description: what the page needs before choosing options. */
char *rl_model_info(rl_model *m) {
    rl_json_begin();
    rl_error err = {0};
    rl_arena arena = {0};
    rl_ctx c;
    if (!m || !rl_analyze_setup_ctx(&c, m, &arena, &err)) {
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
    /* the LLM roles of the inputs: the page offers the LLM view when there are some (llm.c) */
    cJSON_AddItemToObject(root, "llm", rl_llm_roles_json(&c, g));
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
