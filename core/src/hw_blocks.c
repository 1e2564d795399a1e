/* The optional blocks of a hardware profile (hw_blocks.h): "interconnect",
 * the chip-to-chip links (topology, links, bandwidth per direction, latency
 * per hop), and "forecast", what a software stack achieves of each ceiling
 * (per op class) with its tile shapes; with the op classes and the
 * forecast's defaults. hw.c reads the rest of the profile and calls these
 * from rl_hw_parse. The format is hw/README.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hw.h"
#include "hw_blocks.h"
#include "hw_fields.h"

/* The one list of topologies: the parser, its message and rl_topology_name
 * read it. */
static const char *const topologies[] = {"none", "switch", "all-to-all", "ring", "torus2d", "torus3d", NULL};

const char *rl_topology_name(int t) { return t >= 0 && t < RL_TOPO_COUNT ? topologies[t] : "none"; }

static const char *const interconnect_keys[] = {"name", "topology", "notes", "links", "link_bandwidth_Bps",
                                                "latency_s", NULL};
static const char *const forecast_keys[] = {"stack", "basis", "kernel_overhead_s", "between_kernels_s", "between_kernels_growth", "group_overhead_s", "matrix_units", "tile_m",
                                            "tile_n", "tile_k", "tile_overhead_k", "channel_block", "link_fraction", "cache_level", "fusion", "epilogue_apart", "epilogue_branches", "grouped_conv", "conv_lowering", "shape_ops", "broadcast", "pooling", "classes", "fit", "band", NULL};
static const char *const class_keys[] = {"compute_fraction", "memory_fraction", "kernel_overhead_s", "fitted_ops", NULL};

/* The forecast of a profile without a "forecast" block (or of a class it
 * leaves out): generic fractions of a tuned stack, no tile quantization, and
 * the profile's launch overhead as the fixed cost per kernel (docs/model.md
 * §12 gives their reasons). */
static const double default_compute_fraction[RL_CLASS_COUNT] = {0.7, 0.1, 0.3, 0.5, 0.5, 0.3, 0.7};
static const double default_memory_fraction[RL_CLASS_COUNT] = {0.8, 0.6, 0.7, 0.8, 0.7, 0.5, 0.8};

/* ------------------------------------------------------- interconnect -- */
/* The chip-to-chip links. "none" carries no figures (one device); any other
 * topology needs all three. */
int hw_apply_interconnect(const parse_ctx *x, const cJSON *ic, rl_hw *hw) {
    if (!cJSON_IsObject(ic)) return hw_bad(x, "interconnect", "must be an object");
    if (hw_check_keys(x, ic, interconnect_keys, "interconnect")) return -1;
    const cJSON *topo = cJSON_GetObjectItemCaseSensitive(ic, "topology");
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(ic, "name");
    const cJSON *notes = cJSON_GetObjectItemCaseSensitive(ic, "notes");
    char known[120];
    if (!cJSON_IsString(topo) || !hw_in_list(topo->valuestring, topologies))
        return hw_bad(x, "interconnect.topology", "must be one of %s", hw_list_text(topologies, known, sizeof known));
    if (nm && !cJSON_IsString(nm)) return hw_bad(x, "interconnect.name", "must be text");
    if (notes && !cJSON_IsString(notes)) return hw_bad(x, "interconnect.notes", "must be text");
    int t = 0;
    while (strcmp(topologies[t], topo->valuestring)) t++;
    hw->ic_topology = t;
    hw->ic_name = cJSON_IsString(nm) ? nm->valuestring : topologies[t];
    static const char *const figs[] = {"links", "link_bandwidth_Bps", "latency_s"};
    double *dst[] = {&hw->ic_links, &hw->ic_link_bw, &hw->ic_latency_s};
    for (int i = 0; i < 3; i++) {
        bool given = cJSON_GetObjectItemCaseSensitive(ic, figs[i]) != NULL;
        char f[64];
        snprintf(f, sizeof f, "interconnect.%s", figs[i]);
        if (t == RL_TOPO_NONE && given)
            return hw_bad(x, f, "is given but the topology is \"none\" (one device): drop it or name the topology");
        if (t != RL_TOPO_NONE && !given)
            return hw_bad(x, f, "is needed for a %s interconnect (links, link_bandwidth_Bps per direction, "
                             "latency_s per hop)", topologies[t]);
        if (hw_read_figure(x, ic, figs[i], "interconnect", dst[i], NULL)) return -1;
    }
    return 0; /* links a whole number: its rule (hw.c) */
}

/* ------------------------------------------------------------ forecast -- */
void hw_forecast_defaults(rl_hw *hw) {
    rl_forecast_params *f = &hw->fc;
    memset(f, 0, sizeof *f);
    for (int k = 0; k < RL_CLASS_COUNT; k++)
        f->compute[k] = default_compute_fraction[k], f->memory[k] = default_memory_fraction[k];
    f->kernel_s = -1; /* the launch overhead, once the mode's is known */
    for (int k = 0; k < RL_CLASS_COUNT; k++) f->class_kernel_s[k] = -1; /* kernel_s */
    f->units = f->tile_m = f->tile_n = f->tile_k = 1;
    f->link_fraction = RL_FC_DEFAULT_LINK_FRACTION;
    f->stack = "generic defaults (the profile gives no forecast)";
}

/* A class's "fitted_ops" (written by a fit): the operator types its
 * measured kernels had, each a name of 1 to 64 bytes, at most
 * RL_FC_MAX_FITTED_OPS of them. *out: the array, or NULL when absent. */
static int fitted_ops(const parse_ctx *x, const cJSON *cls, const char *path, const cJSON **out) {
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(cls, "fitted_ops");
    *out = NULL;
    if (!ops) return 0;
    char where[112];
    snprintf(where, sizeof where, "%s.fitted_ops", path);
    if (!cJSON_IsArray(ops) || cJSON_GetArraySize(ops) > RL_FC_MAX_FITTED_OPS)
        return hw_bad(x, where, "must be an array of at most %d operator types (the ones the fit measured)",
                      RL_FC_MAX_FITTED_OPS);
    const cJSON *op;
    cJSON_ArrayForEach(op, ops) {
        size_t n = cJSON_IsString(op) ? strlen(op->valuestring) : 0;
        if (n == 0 || n > 64) return hw_bad(x, where, "must hold operator types, strings of 1 to 64 bytes");
    }
    *out = ops;
    return 0;
}

static int forecast_classes(const parse_ctx *x, const cJSON *classes, rl_forecast_params *f) {
    if (!cJSON_IsObject(classes)) return hw_bad(x, "forecast.classes", "must be an object of op classes");
    const cJSON *it;
    cJSON_ArrayForEach(it, classes) {
        char path[96];
        snprintf(path, sizeof path, "forecast.classes.%s", it->string);
        int k = rl_value_of(RL_LIST_OP_CLASS, it->string);
        if (k < 0)
            return hw_bad(x, path, "is not an op class (matrix, convolution, depthwise, normalization, "
                                "elementwise, data_movement, gather_scatter)");
        if (!cJSON_IsObject(it))
            return hw_bad(x, path, "must be {\"compute_fraction\": F, \"memory_fraction\": F, \"kernel_overhead_s\": S}");
        if (hw_check_keys(x, it, class_keys, path)) return -1;
        const char *compute_kind = NULL, *memory_kind = NULL;
        if (hw_read_figure(x, it, "compute_fraction", path, &f->compute[k], &compute_kind)) return -1;
        if (hw_read_figure(x, it, "memory_fraction", path, &f->memory[k], &memory_kind)) return -1;
        f->class_estimated[k] = compute_kind && !strcmp(compute_kind, "estimated") && memory_kind &&
                                !strcmp(memory_kind, "estimated");
        if (hw_read_figure(x, it, "kernel_overhead_s", path, &f->class_kernel_s[k], NULL)) return -1;
        if (fitted_ops(x, it, path, &f->fitted_ops[k])) return -1;
    }
    /* A profile that does not tell convolutions from GEMMs gives them the
     * same figures: the matrix class's (docs/model.md §12.1) */
    if (!cJSON_GetObjectItemCaseSensitive(classes, rl_value_id(RL_LIST_OP_CLASS, RL_CLASS_CONV)))
        f->compute[RL_CLASS_CONV] = f->compute[RL_CLASS_MATRIX], f->memory[RL_CLASS_CONV] = f->memory[RL_CLASS_MATRIX],
        f->class_kernel_s[RL_CLASS_CONV] = f->class_kernel_s[RL_CLASS_MATRIX];
    return 0;
}

/* A setting of the stack that takes one of two words: *on is whether it
 * says `yes` (absent: `no`). */
static int forecast_choice(const parse_ctx *x, const cJSON *fc, const char *key, const char *no, const char *yes,
                           const char *meaning, bool *on) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(fc, key);
    char where[64];
    snprintf(where, sizeof where, "forecast.%s", key);
    if (v && !(cJSON_IsString(v) && (!strcmp(v->valuestring, no) || !strcmp(v->valuestring, yes))))
        return hw_bad(x, where, "must be \"%s\" or \"%s\" (%s)", no, yes, meaning);
    *on = cJSON_IsString(v) && !strcmp(v->valuestring, yes);
    return 0;
}

/* "grouped_conv": how the stack runs a convolution of several input
 * channels a group: "one_kernel" (all groups in one kernel) or "per_group"
 * (one GEMM call per group, as a CPU runtime without a grouped kernel does).
 * "conv_lowering": "implicit_gemm" (the output pixels are the GEMM's M, the
 * channels its N, no copy) or "im2col" (the input patches copied into a
 * column buffer first, then filters × columns: N is the pixels).
 * "epilogue_branches": "fused" (an epilogue that branches, rl_fc_group_branches,
 * runs inside its producer's kernel, as the others) or "apart" (as a kernel
 * of its own after it, as ONNX Runtime runs a convolution's SiLU).
 * "pooling": "apart" (a pooling node, windowed or global, runs as a kernel
 * of its own, as TensorRT's and ONNX Runtime's do) or "fused" (it joins the
 * kernel that makes its input, as §4's fused model lets it).
 * "shape_ops": which views and pieces of the shape arithmetic the analysis
 * folds run as kernels (enum rl_shape_ops): none ("folded"), or all ("run":
 * a runtime that does not fold them, as ONNX Runtime without graph
 * optimisations), or those that depend on the inputs ("dynamic"), each
 * distinct one once ("distinct"). */
const char *const rl_shape_ops_names[RL_SHAPE_COUNT] = {"folded", "distinct", "dynamic", "run"};

static int forecast_stack_choices(const parse_ctx *x, const cJSON *fc, rl_forecast_params *f) {
    if (forecast_choice(x, fc, "grouped_conv", "one_kernel", "per_group",
                        "every group of a grouped convolution in one kernel, or one GEMM call a group", &f->group_calls))
        return -1;
    if (forecast_choice(x, fc, "conv_lowering", "implicit_gemm", "im2col",
                        "a convolution as one GEMM over its output pixels, or its input patches copied into "
                        "columns first",
                        &f->im2col))
        return -1;
    if (forecast_choice(x, fc, "broadcast", "folded", "copied",
                        "a broadcast (Expand) read in place by its readers through stride-0 axes, or copied into a "
                        "tensor of its own first",
                        &f->broadcast_copied))
        return -1;
    if (forecast_choice(x, fc, "epilogue_branches", "fused", "apart",
                        "an epilogue that reads a value twice (a SiLU, an erf GELU) runs inside its producer's "
                        "kernel, or as a kernel of its own after it",
                        &f->branches_apart))
        return -1;
    if (forecast_choice(x, fc, "pooling", "apart", "fused",
                        "a pooling window runs as a kernel of its own, or inside the kernel that makes its input",
                        &f->pool_fused))
        return -1;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(fc, "shape_ops");
    f->shape_ops = v ? -1 : RL_SHAPE_FOLDED;
    for (int i = 0; i < RL_SHAPE_COUNT && cJSON_IsString(v); i++)
        if (!strcmp(v->valuestring, rl_shape_ops_names[i])) f->shape_ops = i;
    if (f->shape_ops < 0)
        return hw_bad(x, "forecast.shape_ops", "must be \"folded\" (views and shape arithmetic cost nothing), "
                                              "\"distinct\" (those that depend on the model's inputs run as kernels, "
                                              "identical ones merged into one), \"dynamic\" (all of those run) "
                                              "or \"run\" (all of them run as kernels)");
    return 0;
}

/* "epilogue_apart": the operator types (e.g. "MatMul") whose epilogue the
 * stack runs as a kernel of its own after them. */
static int forecast_apart(const parse_ctx *x, const cJSON *list, rl_forecast_params *f) {
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) > RL_FC_MAX_APART)
        return hw_bad(x, "forecast.epilogue_apart", "must be a list of at most %d operator types (e.g. \"MatMul\")",
                      RL_FC_MAX_APART);
    const cJSON *it;
    f->n_apart = 0;
    cJSON_ArrayForEach(it, list) {
        if (!cJSON_IsString(it) || !it->valuestring[0] || strlen(it->valuestring) > 64)
            return hw_bad(x, "forecast.epilogue_apart", "must hold operator types (text, e.g. \"MatMul\")");
        f->apart[f->n_apart++] = it->valuestring;
    }
    return 0;
}

/* ---------------------------------------------------- the track record -- */
static const char *const band_keys[] = {"low", "high", "runs", "models", "median_error", "worst_error", "basis", "source", NULL};
/* Ratios are rounded when written (two decimals): a low or high that its
 * worst error misses by less than this is still consistent with it. */
#define BAND_ROUNDING 0.01

/* One number of the band: finite and in [lo, hi]. */
static int band_number(const parse_ctx *x, const cJSON *band, const char *key, double lo, double hi,
                       const char *meaning, double *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(band, key);
    char where[48];
    snprintf(where, sizeof where, "forecast.band.%s", key);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < lo || v->valuedouble > hi)
        return hw_bad(x, where, "must be a number from %g to %g (%s)%s", lo, hi, meaning,
                      v ? "" : "; it is missing");
    *out = v->valuedouble;
    return 0;
}

/* "band": the stack's track record, measured / forecast over held-out runs
 * (docs/model.md §12.8). Every member is needed: a band that does not say
 * what it rests on is not one. */
static int forecast_band(const parse_ctx *x, const cJSON *band, rl_forecast_band_params *b) {
    if (!cJSON_IsObject(band))
        return hw_bad(x, "forecast.band", "must be an object {low, high, runs, median_error, worst_error, basis, "
                                         "source}, or be left out when the stack has no track record");
    if (hw_check_keys(x, band, band_keys, "forecast.band")) return -1;
    if (band_number(x, band, "low", 1e-3, 1, "measured / forecast at the band's low end, at most 1", &b->low) ||
        band_number(x, band, "high", 1, 1e3, "measured / forecast at the band's high end, at least 1", &b->high) ||
        band_number(x, band, "runs", 3, 1e6, "held-out runs; with fewer than 3, give no band", &b->runs) ||
        band_number(x, band, "median_error", 0, 1e3, "median |measured / forecast - 1|", &b->median_error) ||
        band_number(x, band, "worst_error", 0, 1e3, "largest |measured / forecast - 1|", &b->worst_error))
        return -1;
    if (b->runs != floor(b->runs)) return hw_bad(x, "forecast.band.runs", "must be a whole number (got %g)", b->runs);
    /* a fit's band: the models its held-out runs come from (its pairs'
     * fits forecast each several times); optional, runs when left out */
    b->models = 0;
    if (cJSON_GetObjectItemCaseSensitive(band, "models") &&
        band_number(x, band, "models", 1, b->runs, "the models the held-out runs come from, a whole number, at "
                    "most runs", &b->models))
        return -1;
    if (b->models != floor(b->models))
        return hw_bad(x, "forecast.band.models", "must be a whole number from 1 to runs (%g); got %g", b->runs,
                      b->models);
    if (b->median_error > b->worst_error)
        return hw_bad(x, "forecast.band.median_error", "is %g, above worst_error %g: the median cannot exceed the "
                                                      "largest", b->median_error, b->worst_error);
    /* the band reaches no farther either way than the worst run's error
     * either way: a fit's band is as wide below 1 as above (its log) */
    double widest = fmax(log1p(b->worst_error), b->worst_error < 1 ? -log1p(-b->worst_error) : INFINITY);
    if (-log(b->low) > widest + BAND_ROUNDING || log(b->high) > widest + BAND_ROUNDING)
        return hw_bad(x, "forecast.band", "low %g and high %g must lie within worst_error %g of 1, either way (all "
                                         "are ratios of the same runs)", b->low, b->high, b->worst_error);
    const cJSON *basis = cJSON_GetObjectItemCaseSensitive(band, "basis");
    const cJSON *source = cJSON_GetObjectItemCaseSensitive(band, "source");
    int basis_value = hw_list_value(x, basis, RL_LIST_BAND_BASIS, "forecast.band.basis");
    if (basis_value < 0) return -1;
    if (!cJSON_IsString(source) || strlen(source->valuestring) < 4)
        return hw_bad(x, "forecast.band.source", "must say where the runs are listed, one row each "
                                                "(e.g. \"docs/validation.md#tensorrt\")");
    b->basis = basis_value, b->source = source->valuestring, b->known = true;
    return 0;
}

/* The profile's "forecast" block over the defaults (hw/README.md). */
int hw_apply_forecast(const parse_ctx *x, const cJSON *fc, rl_hw *hw) {
    rl_forecast_params *f = &hw->fc;
    if (!fc) return 0;
    if (!cJSON_IsObject(fc)) return hw_bad(x, "forecast", "must be an object");
    if (hw_check_keys(x, fc, forecast_keys, "forecast")) return -1;
    const cJSON *stack = cJSON_GetObjectItemCaseSensitive(fc, "stack");
    const cJSON *basis = cJSON_GetObjectItemCaseSensitive(fc, "basis");
    const cJSON *cache = cJSON_GetObjectItemCaseSensitive(fc, "cache_level");
    const cJSON *fit = cJSON_GetObjectItemCaseSensitive(fc, "fit");
    const cJSON *fusion = cJSON_GetObjectItemCaseSensitive(fc, "fusion");
    if (stack && !(cJSON_IsString(stack) && stack->valuestring[0]))
        return hw_bad(x, "forecast.stack", "must name the software stack (e.g. \"TensorRT\")");
    if (cJSON_IsString(stack)) f->stack = stack->valuestring;
    /* no basis: the profile's own estimates (analytic) */
    int basis_value = basis ? hw_list_value(x, basis, RL_LIST_BASIS, "forecast.basis") : RL_BASIS_ANALYTIC;
    if (basis_value < 0) return -1;
    f->calibrated = basis_value == RL_BASIS_CALIBRATED;
    if (fit && !cJSON_IsObject(fit)) return hw_bad(x, "forecast.fit", "must be an object (the fit's provenance)");
    if (fusion && !(cJSON_IsString(fusion) && (!strcmp(fusion->valuestring, "epilogue") ||
                                               !strcmp(fusion->valuestring, "none"))))
        return hw_bad(x, "forecast.fusion", "must be \"epilogue\" (the stack fuses epilogues into their producer's "
                                           "kernel) or \"none\" (every node runs as a kernel of its own)");
    f->unfused = cJSON_IsString(fusion) && !strcmp(fusion->valuestring, "none");
    if (cache) {
        f->cache_level = -1;
        for (int i = 1; cJSON_IsString(cache) && i < hw->n_mem; i++)
            if (hw->mem_name[i] && !strcmp(hw->mem_name[i], cache->valuestring) && hw->mem_cap[i] > 0 &&
                hw->mem_bw[i] > 0)
                f->cache_level = i;
        if (f->cache_level < 0)
            return hw_bad(x, "forecast.cache_level", "must name a memory level after memory[0] that gives its "
                                                  "bandwidth_Bps and capacity_bytes");
    }
    static const char *const keys[] = {"kernel_overhead_s", "between_kernels_s", "between_kernels_growth",
                                       "group_overhead_s",  "matrix_units",      "tile_m",
                                       "tile_n",            "tile_k",            "tile_overhead_k",
                                       "channel_block",     "link_fraction"};
    double *dst[] = {&f->kernel_s, &f->between_s, &f->between_growth, &f->group_s,       &f->units,        &f->tile_m,
                     &f->tile_n,   &f->tile_k,    &f->tile_k0,        &f->channel_block, &f->link_fraction};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (hw_read_figure(x, fc, keys[i], "forecast", dst[i], NULL)) return -1;
    if (f->kernel_s >= 0 && f->between_s > f->kernel_s)
        return hw_bad(x, "forecast.between_kernels_s", "is a part of kernel_overhead_s (%g s) and cannot exceed it",
                      f->kernel_s);
    const cJSON *apart = cJSON_GetObjectItemCaseSensitive(fc, "epilogue_apart");
    if (apart && forecast_apart(x, apart, f)) return -1;
    if (forecast_stack_choices(x, fc, f)) return -1;
    const cJSON *band = cJSON_GetObjectItemCaseSensitive(fc, "band");
    if (band && forecast_band(x, band, &f->band)) return -1;
    const cJSON *classes = cJSON_GetObjectItemCaseSensitive(fc, "classes");
    return classes ? forecast_classes(x, classes, f) : 0;
}
