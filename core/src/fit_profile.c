/* Writing a fit into the profile (fit_profile.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit_profile.h"
#include "json.h"

/* {"value", "source", "kind"} */
static cJSON *figure_json(double v, const char *source, const char *kind) {
    cJSON *f = cJSON_CreateObject();
    rl_json_add_num(f, "value", v);
    cJSON_AddStringToObject(f, "source", source);
    cJSON_AddStringToObject(f, "kind", kind);
    return f;
}

static void replace_item(cJSON *obj, const char *key, cJSON *item) {
    if (cJSON_GetObjectItemCaseSensitive(obj, key)) cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item);
    else cJSON_AddItemToObject(obj, key, item);
}

cJSON *rl_fit_child_object(cJSON *obj, const char *key) {
    cJSON *c = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (cJSON_IsObject(c)) return c;
    c = cJSON_CreateObject();
    replace_item(obj, key, c);
    return c;
}

/* A class fraction's source (out, size bytes): the fit's, and how many of
 * its kernels set the fraction (those of the class whose time that side of
 * the roofline can bound, forecast_fit.c). */
static const char *with_count(char *out, size_t size, const char *source, int kernels) {
    snprintf(out, size, "%s; %d of those kernels set this figure", source, kernels);
    return out;
}

/* The profile's "forecast" block with the fitted parameters (kind
 * "measured", the fit as their source), basis "calibrated", the stack and
 * the provenance; parameters the kernels did not inform keep their figures. */
void rl_fit_put_profile(cJSON *profile, const rl_forecast_params *p, const rl_fit_informed *inf,
                        const rl_fit_informed *filled, cJSON *fit, const char *stack, const char *source,
                        const char *probe_source) {
    rl_fit_informed both = *inf;
    rl_fit_informed_join(&both, filled);
    cJSON *f = rl_fit_child_object(profile, "forecast");
    replace_item(f, "stack", cJSON_CreateString(stack));
    replace_item(f, "basis", cJSON_CreateString(rl_value_id(RL_LIST_BASIS, RL_BASIS_CALIBRATED)));
    replace_item(f, "fusion", cJSON_CreateString(p->unfused ? "none" : "epilogue"));
    replace_item(f, "epilogue_apart", cJSON_CreateStringArray(p->apart, p->n_apart));
    replace_item(f, "epilogue_branches", cJSON_CreateString(p->branches_apart ? "apart" : "fused"));
    replace_item(f, "shape_ops", cJSON_CreateString(rl_shape_ops_names[p->shape_ops]));
    if (inf->conv_lowering) replace_item(f, "conv_lowering", cJSON_CreateString(p->im2col ? "im2col" : "implicit_gemm"));
    if (inf->kernel_s) replace_item(f, "kernel_overhead_s", figure_json(p->kernel_s, source, "measured"));
    /* the time between kernels is a part of the fixed cost: fitted with it,
     * or, when no run gave a wall time, gone with the cost it was a part of */
    if (inf->kernel_s && p->between_s > 0)
        replace_item(f, "between_kernels_s",
                     figure_json(p->between_s, "measured by rooflens: the runs' wall time minus their kernels' times, "
                                 "per kernel", "measured"));
    else if (inf->kernel_s)
        cJSON_DeleteItemFromObjectCaseSensitive(f, "between_kernels_s");
    /* and how it grows with the kernel before: the runs' own, or none */
    if (p->between_growth > 0)
        replace_item(f, "between_kernels_growth",
                     figure_json(p->between_growth, "measured by rooflens: the slope of the time after each kernel "
                                 "on the kernel's own time, in the runs' profiles", "measured"));
    else cJSON_DeleteItemFromObjectCaseSensitive(f, "between_kernels_growth");
    if (inf->group_s) replace_item(f, "group_overhead_s", figure_json(p->group_s, source, "measured"));
    if (inf->tile_k0) replace_item(f, "tile_overhead_k", figure_json(p->tile_k0, source, "measured"));
    cJSON *classes = rl_fit_child_object(f, "classes");
    for (int c = 0; c < RL_CLASS_COUNT; c++) {
        cJSON *own = cJSON_GetObjectItemCaseSensitive(classes, rl_value_id(RL_LIST_OP_CLASS, c));
        if (cJSON_IsObject(own)) cJSON_DeleteItemFromObjectCaseSensitive(own, "kernel_overhead_s"); /* as fitted */
        cJSON *co = rl_fit_child_object(classes, rl_value_id(RL_LIST_OP_CLASS, c));
        /* a class no kernel informed keeps the base profile's figure, written
         * out: left implicit, the convolution class would read the fitted
         * GEMMs' figures as its own (hw_blocks.c) */
        static const char kept[] = "the base profile's figure: no measured kernel of this class set it";
        int sib = rl_fit_sibling(c);
        char borrowed[160];
        snprintf(borrowed, sizeof borrowed,
                 "the %s class's fitted figure: no measured kernel of this class set it, and both run on the "
                 "same multiply-add units",
                 sib >= 0 ? rl_value_id(RL_LIST_OP_CLASS, sib) : "");
        /* each side of the roofline: the runs' figure, the probes', the
         * sibling's, or the base profile's */
        static const char *const key[2] = {"compute_fraction", "memory_fraction"};
        const double value[2] = {p->compute[c], p->memory[c]};
        const bool runs[2] = {inf->compute[c], inf->memory[c]}, probe[2] = {filled->compute[c], filled->memory[c]};
        const bool sibling[2] = {sib >= 0 && both.compute[sib], sib >= 0 && both.memory[sib]};
        const int n_runs[2] = {inf->n_compute[c], inf->n_memory[c]};
        const int n_probe[2] = {filled->n_compute[c], filled->n_memory[c]};
        char counted[RL_FIT_SOURCE_SIZE];
        for (int side = 0; side < 2; side++) {
            if (runs[side])
                replace_item(co, key[side], figure_json(value[side], with_count(counted, sizeof counted, source,
                                                                                n_runs[side]), "measured"));
            else if (probe[side])
                replace_item(co, key[side], figure_json(value[side], with_count(counted, sizeof counted,
                                                                                probe_source, n_probe[side]),
                                                        "measured"));
            else if (sibling[side]) replace_item(co, key[side], figure_json(value[side], borrowed, "derived"));
            else if (!cJSON_GetObjectItemCaseSensitive(co, key[side]))
                replace_item(co, key[side], figure_json(value[side], kept, "estimated"));
        }
    }
    replace_item(f, "fit", fit);
}

static int by_class_then_name(const void *a, const void *b) {
    const rl_fit_op *x = a, *y = b;
    return x->cls != y->cls ? (x->cls > y->cls) - (x->cls < y->cls) : strcmp(x->op_type, y->op_type);
}

void rl_fit_put_fitted_ops(cJSON *profile, const rl_fit_informed *inf, rl_fit_op *ops, int n,
                           const rl_fit_informed *filled, rl_fit_op *probe_ops, int n_probe) {
    cJSON *classes = rl_fit_child_object(rl_fit_child_object(profile, "forecast"), "classes");
    if (n > 1) qsort(ops, (size_t)n, sizeof *ops, by_class_then_name);
    if (n_probe > 1) qsort(probe_ops, (size_t)n_probe, sizeof *probe_ops, by_class_then_name);
    for (int c = 0; c < RL_CLASS_COUNT; c++) {
        cJSON *co = rl_fit_child_object(classes, rl_value_id(RL_LIST_OP_CLASS, c));
        cJSON_DeleteItemFromObjectCaseSensitive(co, "fitted_ops");
        bool models = inf->compute[c] || inf->memory[c], probes = filled->compute[c] || filled->memory[c];
        if (!models && !probes) continue;
        const rl_fit_op *from = models ? ops : probe_ops;
        int k = models ? n : n_probe;
        cJSON *list = cJSON_AddArrayToObject(co, "fitted_ops");
        for (int i = 0; i < k; i++)
            if (from[i].cls == c) cJSON_AddItemToArray(list, cJSON_CreateString(from[i].op_type));
    }
}

/* forecast.fit.fitted: the parameters the kernels informed (and
 * fitted_on_probes, the probes'), and kernels_setting: for each class
 * fraction among them, how many measured kernels set it. */
void rl_fit_add_fitted_names(cJSON *fit, const rl_fit_informed *inf, const rl_fit_informed *filled) {
    cJSON *names = cJSON_AddArrayToObject(fit, "fitted"), *probed = cJSON_AddArrayToObject(fit, "fitted_on_probes");
    cJSON *counts = cJSON_AddObjectToObject(fit, "kernels_setting");
    char name[64];
    for (int c = 0; c < RL_CLASS_COUNT; c++) {
        for (int side = 0; side < 2; side++) {
            bool own = side ? inf->memory[c] : inf->compute[c], probe = side ? filled->memory[c] : filled->compute[c];
            int n = own ? (side ? inf->n_memory[c] : inf->n_compute[c])
                        : (side ? filled->n_memory[c] : filled->n_compute[c]);
            snprintf(name, sizeof name, "%s.%s", rl_value_id(RL_LIST_OP_CLASS, c),
                     side ? "memory_fraction" : "compute_fraction");
            if (own) cJSON_AddItemToArray(names, cJSON_CreateString(name));
            if (probe) cJSON_AddItemToArray(probed, cJSON_CreateString(name));
            if (own || probe) cJSON_AddNumberToObject(counts, name, n);
        }
    }
    rl_fit_informed both = *inf;
    rl_fit_informed_join(&both, filled);
    if (inf->kernel_s) cJSON_AddItemToArray(names, cJSON_CreateString("kernel_overhead_s"));
    if (inf->group_s) cJSON_AddItemToArray(names, cJSON_CreateString("group_overhead_s"));
    if (inf->tile_k0) cJSON_AddItemToArray(names, cJSON_CreateString("tile_overhead_k"));
    inf = &both;
    /* the classes no measured kernel had: they keep the base profile's figures */
    cJSON *left = cJSON_AddArrayToObject(fit, "classes_at_defaults");
    cJSON *borrowed = cJSON_AddArrayToObject(fit, "classes_borrowed");
    for (int c = 0; c < RL_CLASS_COUNT; c++) {
        if (inf->compute[c] || inf->memory[c]) continue;
        int sib = rl_fit_sibling(c);
        /* an unfitted product class takes its fitted sibling's figures (rl_fit_borrow_siblings) */
        if (sib >= 0 && (inf->compute[sib] || inf->memory[sib])) {
            cJSON *b = cJSON_CreateObject();
            cJSON_AddStringToObject(b, "class", rl_value_id(RL_LIST_OP_CLASS, c));
            cJSON_AddStringToObject(b, "from", rl_value_id(RL_LIST_OP_CLASS, sib));
            cJSON_AddItemToArray(borrowed, b);
        } else {
            cJSON_AddItemToArray(left, cJSON_CreateString(rl_value_id(RL_LIST_OP_CLASS, c)));
        }
    }
}
