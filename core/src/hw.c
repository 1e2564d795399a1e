/* Hardware profiles: parsing, the one validator (every surface — analysis,
 * rl_check_hardware, the CLI's --check-hw, the page's profile editor, the
 * tests — goes through rl_hw_parse), power-mode overrides, and the energy
 * model (docs/power.md). The format is hw/README.md. The optional
 * "interconnect" and "forecast" blocks are read by hw_blocks.c; both files
 * read their fields with the toolkit of hw_fields.c. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw.h"
#include "hw_blocks.h"
#include "hw_fields.h"

const char *rl_unit_name(int u) { return u == RL_UNIT_VECTOR ? "vector" : "matrix"; }

double rl_hw_figure(const cJSON *f) {
    if (cJSON_IsNumber(f)) return f->valuedouble;
    if (cJSON_IsObject(f)) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, "value");
        if (cJSON_IsNumber(v)) return v->valuedouble;
    }
    return NAN;
}

static const char *const top_keys[] = {"schema", "id", "name", "vendor", "category", "notes",
                                       "clock_hz", "launch_overhead_s", "power_budget_w", "power_max_w",
                                       "compute", "memory", "interconnect", "energy", "power_modes", "forecast", NULL};
static const char *const override_keys[] = {"clock_hz", "launch_overhead_s", "power_budget_w", "compute",
                                            "memory", "energy", NULL};
static const char *const unit_keys[] = {"matrix", "vector", "accumulate", NULL};
static const char *const level_keys[] = {"name", "bandwidth_Bps", "capacity_bytes", "exposed_bytes", NULL};
static const char *const energy_keys[] = {"model", "flop_j", "flop_j_precision", "flop_j_unit", "byte_j",
                                          "static_w", "voltage_floor_ratio", "voltage_floor_clock_hz", NULL};
static const char *const mode_keys[] = {"id", "name", "default", "overrides", NULL};

/* Each compute unit at its peak draws this share of the budget under the
 * tdp-split estimate; main-memory traffic at full bandwidth the next; the
 * rest is static (hw/README.md, docs/power.md). */
#define TDP_SPLIT_COMPUTE 0.5
#define TDP_SPLIT_MEMORY 0.3
#define TDP_SPLIT_STATIC 0.2

/* ------------------------------------------------------------- blocks -- */
/* "accumulate": the precision the matrix peak accumulates in, where the
 * device has two rates (GeForce Tensor Cores run FP16 with FP32 accumulate at
 * half the FP16-accumulate rate): the surfaces say which one the peak is. */
static int read_accumulate(const parse_ctx *x, const cJSON *prec, const char *path, int pi, rl_hw *hw) {
    const cJSON *acc = cJSON_GetObjectItemCaseSensitive(prec, "accumulate");
    if (!acc) return 0;
    char field[112];
    snprintf(field, sizeof field, "%s.accumulate", path);
    if (!cJSON_IsString(acc) || rl_precision_parse(acc->valuestring) == RL_P_NONE)
        return hw_bad(x, field, "must name the precision the matrix peak accumulates in (\"fp32\" or \"fp16\")");
    hw->matrix_accumulate[pi] = acc->valuestring;
    return 0;
}

static int apply_compute(const parse_ctx *x, const cJSON *compute, rl_hw *hw, bool is_override) {
    if (!cJSON_IsObject(compute)) return hw_bad(x, "compute", "must be an object of precisions");
    const cJSON *prec;
    cJSON_ArrayForEach(prec, compute) {
        char path[96];
        snprintf(path, sizeof path, "compute.%s", prec->string);
        int pi = rl_precision_parse(prec->string);
        if (pi == RL_P_NONE) {
            char names[128];
            rl_precision_list(names, sizeof names);
            return hw_bad(x, path, "is not a precision rooflens knows (%s)", names);
        }
        if (!cJSON_IsObject(prec)) return hw_bad(x, path, "must be an object {\"matrix\": F, \"vector\": F}");
        if (hw_check_keys(x, prec, unit_keys, path)) return -1;
        if (is_override && !(hw->matrix[pi] > 0) && !(hw->vector[pi] > 0))
            return hw_bad(x, path, "is not in the base profile: a power mode may not add a precision");
        if (hw_read_figure(x, prec, "matrix", path, &hw->matrix[pi], NULL)) return -1;
        if (hw_read_figure(x, prec, "vector", path, &hw->vector[pi], NULL)) return -1;
        if (read_accumulate(x, prec, path, pi, hw)) return -1;
    }
    return 0;
}

static int apply_memory(const parse_ctx *x, const cJSON *mem, rl_hw *hw, bool is_override) {
    if (!cJSON_IsArray(mem)) return hw_bad(x, "memory", "must be an array of memory levels");
    int n = cJSON_GetArraySize(mem);
    if (n > RL_HW_MAX_MEM) return hw_bad(x, "memory", "has %d levels; at most %d are read", n, RL_HW_MAX_MEM);
    if (is_override && n > hw->n_mem)
        return hw_bad(x, "memory", "has %d entries but the base profile has %d memory levels", n, hw->n_mem);
    int i = 0;
    const cJSON *lvl;
    cJSON_ArrayForEach(lvl, mem) {
        char path[32];
        snprintf(path, sizeof path, "memory[%d]", i);
        if (!cJSON_IsObject(lvl)) return hw_bad(x, path, "must be an object");
        if (hw_check_keys(x, lvl, level_keys, path)) return -1;
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(lvl, "name");
        if (nm && !cJSON_IsString(nm)) return hw_bad(x, path, "has a \"name\" that is not text");
        if (cJSON_IsString(nm)) hw->mem_name[i] = nm->valuestring;
        if (hw_read_figure(x, lvl, "bandwidth_Bps", path, &hw->mem_bw[i], NULL)) return -1;
        if (hw_read_figure(x, lvl, "capacity_bytes", path, &hw->mem_cap[i], NULL)) return -1;
        /* What the device exposes to software (ECC and the driver's share
         * taken off the nominal size), where its datasheet gives both: a
         * capacity above it would let a model "fit" that does not. */
        double exposed = 0;
        if (hw_read_figure(x, lvl, "exposed_bytes", path, &exposed, NULL)) return -1;
        if (exposed > 0 && hw->mem_cap[i] > exposed)
            return hw_bad(x, path, "has capacity_bytes %g above the %g bytes the device exposes (exposed_bytes): "
                                   "use the exposed figure", hw->mem_cap[i], exposed);
        i++;
    }
    if (i > hw->n_mem) hw->n_mem = i;
    return 0;
}

/* What one layer of figures said about energy, for the provenance label and
 * the DVFS rule. */
typedef struct energy_seen {
    bool flop_j;            /* this layer gave energy.flop_j */
    const char *flop_kind;  /* its kind */
} energy_seen;

static int apply_energy(const parse_ctx *x, const cJSON *en, rl_hw *hw, energy_seen *seen, double dvfs[2]) {
    if (!cJSON_IsObject(en)) return hw_bad(x, "energy", "must be an object");
    if (hw_check_keys(x, en, energy_keys, "energy")) return -1;
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(en, "model");
    if (model) {
        if (!cJSON_IsString(model) || (strcmp(model->valuestring, "tdp-split") && strcmp(model->valuestring, "coefficients")))
            return hw_bad(x, "energy.model", "must be \"tdp-split\" (derive every coefficient from power_budget_w) "
                                          "or \"coefficients\" (the flop_j, byte_j and static_w given)");
        hw->energy_tdp_split = strcmp(model->valuestring, "tdp-split") == 0;
    }
    const cJSON *rp = cJSON_GetObjectItemCaseSensitive(en, "flop_j_precision");
    if (rp) {
        int p = cJSON_IsString(rp) ? rl_precision_parse(rp->valuestring) : RL_P_NONE;
        if (p == RL_P_NONE) return hw_bad(x, "energy.flop_j_precision", "must name a precision (e.g. \"fp16\")");
        hw->e_ref_prec = p;
    }
    const cJSON *ru = cJSON_GetObjectItemCaseSensitive(en, "flop_j_unit");
    if (ru) {
        if (!cJSON_IsString(ru) || (strcmp(ru->valuestring, "matrix") && strcmp(ru->valuestring, "vector")))
            return hw_bad(x, "energy.flop_j_unit", "must be \"matrix\" or \"vector\"");
        hw->e_ref_unit = strcmp(ru->valuestring, "vector") == 0 ? RL_UNIT_VECTOR : RL_UNIT_MATRIX;
    }
    if (cJSON_GetObjectItemCaseSensitive(en, "flop_j")) {
        seen->flop_j = true;
        seen->flop_kind = NULL;
        if (hw_read_figure(x, en, "flop_j", "energy", &hw->e_flop, &seen->flop_kind)) return -1;
    }
    if (hw_read_figure(x, en, "byte_j", "energy", &hw->e_byte, NULL)) return -1;
    if (hw_read_figure(x, en, "static_w", "energy", &hw->static_w, NULL)) return -1;
    if (hw_read_figure(x, en, "voltage_floor_ratio", "energy", &dvfs[0], NULL)) return -1;
    if (hw_read_figure(x, en, "voltage_floor_clock_hz", "energy", &dvfs[1], NULL)) return -1;
    return 0;
}

/* One layer of figures: the base profile, then a mode's overrides. */
static int apply(const parse_ctx *x, const cJSON *p, rl_hw *hw, bool is_override, energy_seen *seen,
                 double dvfs[2]) {
    if (hw_check_keys(x, p, is_override ? override_keys : top_keys, "")) return -1;
    if (hw_read_figure(x, p, "clock_hz", "", &hw->clock_hz, NULL)) return -1;
    if (hw_read_figure(x, p, "launch_overhead_s", "", &hw->launch_s, NULL)) return -1;
    if (hw_read_figure(x, p, "power_budget_w", "", &hw->power_budget_w, NULL)) return -1;
    if (!is_override && hw_read_figure(x, p, "power_max_w", "", &hw->power_max_w, NULL)) return -1;
    const cJSON *compute = cJSON_GetObjectItemCaseSensitive(p, "compute");
    if (compute && apply_compute(x, compute, hw, is_override)) return -1;
    const cJSON *mem = cJSON_GetObjectItemCaseSensitive(p, "memory");
    if (mem && apply_memory(x, mem, hw, is_override)) return -1;
    const cJSON *ic = is_override ? NULL : cJSON_GetObjectItemCaseSensitive(p, "interconnect");
    if (ic && hw_apply_interconnect(x, ic, hw)) return -1;
    const cJSON *en = cJSON_GetObjectItemCaseSensitive(p, "energy");
    if (en && apply_energy(x, en, hw, seen, dvfs)) return -1;
    return 0;
}

/* -------------------------------------------------------------- modes -- */
/* The modes array's own rules (ids, names, one default), and the mode to
 * apply: `mode` by id, else the default one (NULL when there is none). */
static int find_mode(const parse_ctx *x, const cJSON *modes, const char *mode, rl_hw *hw, const cJSON **chosen,
                     const cJSON **deflt) {
    *chosen = *deflt = NULL;
    if (!modes) return 0;
    if (!cJSON_IsArray(modes) || cJSON_GetArraySize(modes) == 0)
        return hw_bad(x, "power_modes", "must be a non-empty array of modes");
    hw->n_modes = cJSON_GetArraySize(modes);
    int i = 0, defaults = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, modes) {
        char path[48];
        snprintf(path, sizeof path, "power_modes[%d]", i++);
        if (!cJSON_IsObject(m)) return hw_bad(x, path, "must be an object {id, name, default, overrides}");
        if (hw_check_keys(x, m, mode_keys, path)) return -1;
        const cJSON *mid = cJSON_GetObjectItemCaseSensitive(m, "id");
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(m, "name");
        const cJSON *df = cJSON_GetObjectItemCaseSensitive(m, "default");
        const cJSON *ov = cJSON_GetObjectItemCaseSensitive(m, "overrides");
        if (!cJSON_IsString(mid) || !mid->valuestring[0]) return hw_bad(x, path, "needs an \"id\" (text)");
        if (nm && !cJSON_IsString(nm)) return hw_bad(x, path, "has a \"name\" that is not text");
        if (df && !cJSON_IsBool(df)) return hw_bad(x, path, "has a \"default\" that is not true or false");
        if (ov && !cJSON_IsObject(ov)) return hw_bad(x, path, "has \"overrides\" that are not an object");
        for (const cJSON *o = modes->child; o != m; o = o->next) {
            const cJSON *oid = cJSON_GetObjectItemCaseSensitive(o, "id");
            if (cJSON_IsString(oid) && strcmp(oid->valuestring, mid->valuestring) == 0)
                return hw_bad(x, path, "repeats the mode id '%s'", mid->valuestring);
        }
        if (cJSON_IsTrue(df)) defaults++, *deflt = m;
        if (mode && mode[0] ? strcmp(mid->valuestring, mode) == 0 : cJSON_IsTrue(df)) *chosen = m;
    }
    if (defaults != 1)
        return hw_bad(x, "power_modes", "must have exactly one mode with \"default\": true (found %d)", defaults);
    return 0;
}

/* --------------------------------------------------------------- energy -- */
/* The reference unit of e_flop when the profile names none: the 16-bit
 * matrix unit (the fp16 row and its fallbacks), else the first matrix peak. */
static void default_reference(rl_hw *hw) {
    if (hw->e_ref_prec != RL_P_NONE) return;
    hw->e_ref_unit = RL_UNIT_MATRIX;
    if (hw->matrix[RL_P_FP16] > 0) {
        hw->e_ref_prec = RL_P_FP16;
        return;
    }
    const int *fb = rl_precision_table[RL_P_FP16].fallback;
    for (int k = 0; k < RL_P_MAX_FALLBACK && fb[k] != RL_P_NONE; k++)
        if (hw->matrix[fb[k]] > 0) {
            hw->e_ref_prec = fb[k];
            return;
        }
    for (int p = 0; p < RL_P_COUNT && hw->e_ref_prec == RL_P_NONE; p++)
        if (hw->matrix[p] > 0) hw->e_ref_prec = p;
}

static double peak_of(const rl_hw *hw, int p, int u) { return u == RL_UNIT_VECTOR ? hw->vector[p] : hw->matrix[p]; }

void rl_hw_fill_energy_defaults(rl_hw *hw) {
    memset(hw->e_flop_unit, 0, sizeof hw->e_flop_unit);
    hw->has_energy = false;
    default_reference(hw);
    double unit_power = 0; /* dynamic W of any compute unit at its peak */
    if (hw->energy_tdp_split) {
        if (!(hw->power_budget_w > 0) || !(hw->mem_bw[0] > 0)) return;
        unit_power = TDP_SPLIT_COMPUTE * hw->power_budget_w;
        hw->e_byte = TDP_SPLIT_MEMORY * hw->power_budget_w / hw->mem_bw[0];
        hw->static_w = TDP_SPLIT_STATIC * hw->power_budget_w;
    }
    /* the peaks of the operating point flop_j was given for, else this one's */
    bool given_peaks = false;
    for (int p = 0; p < RL_P_COUNT; p++) given_peaks = given_peaks || hw->e_given_peak[p][RL_UNIT_MATRIX] > 0;
    double v2 = hw->e_voltage_sq > 0 ? hw->e_voltage_sq : 1;
    if (!hw->energy_tdp_split) {
        if (hw->e_ref_prec == RL_P_NONE) return;
        if (!(hw->e_flop_given > 0)) hw->e_flop_given = hw->e_flop;
        double ref_peak = given_peaks ? hw->e_given_peak[hw->e_ref_prec][hw->e_ref_unit]
                                      : peak_of(hw, hw->e_ref_prec, hw->e_ref_unit);
        unit_power = hw->e_flop_given * ref_peak * v2;
    }
    if (!(unit_power > 0) || !(hw->e_byte > 0)) return;
    for (int p = 0; p < RL_P_COUNT; p++)
        for (int u = 0; u < RL_UNIT_COUNT; u++) {
            double at = hw->energy_tdp_split || !given_peaks || !(hw->e_given_peak[p][u] > 0) ? peak_of(hw, p, u)
                                                                                             : hw->e_given_peak[p][u];
            if (peak_of(hw, p, u) > 0) hw->e_flop_unit[p][u] = unit_power / at;
        }
    if (hw->e_ref_prec != RL_P_NONE) hw->e_flop = hw->e_flop_unit[hw->e_ref_prec][hw->e_ref_unit];
    hw->has_energy = true;
}

int rl_hw_vector_precision(const rl_hw *hw, int p) {
    if (p != RL_P_INT8 && p != RL_P_INT4 && p != RL_P_FP8) return p;
    int best = p;
    static const int wider[] = {RL_P_FP16, RL_P_BF16};
    for (int i = 0; i < 2; i++)
        if (hw->vector[wider[i]] > hw->vector[best]) best = wider[i];
    return best;
}

double rl_hw_flop_energy(const rl_hw *hw, int p, double matrix_flops, double vector_flops) {
    if (!hw->has_energy || p < 0 || p >= RL_P_COUNT) return 0;
    return hw->e_flop_unit[p][RL_UNIT_MATRIX] * matrix_flops +
           hw->e_flop_unit[rl_hw_vector_precision(hw, p)][RL_UNIT_VECTOR] * vector_flops;
}

/* DVFS (docs/power.md): dynamic energy per operation scales with V²; the
 * voltage stays at its floor up to the floor clock and rises linearly to
 * the base clock's voltage (ratio 1) above it. */
static double voltage_ratio(double f, double f_base, const double dvfs[2]) {
    double r_floor = dvfs[0], f_floor = dvfs[1];
    if (f <= f_floor || f_base <= f_floor) return r_floor;
    return r_floor + (1 - r_floor) * (f - f_floor) / (f_base - f_floor);
}

/* Each compute unit at its peak stays within the power budget. */
static int check_power(const parse_ctx *x, const rl_hw *hw) {
    if (!(hw->power_budget_w > 0) || !hw->has_energy) return 0;
    if (hw->static_w >= hw->power_budget_w)
        return hw_bad(x, "energy.static_w", "(%.4g W) must be below power_budget_w (%.4g W)", hw->static_w,
                   hw->power_budget_w);
    double room = hw->power_budget_w - hw->static_w;
    for (int p = 0; p < RL_P_COUNT; p++)
        for (int u = 0; u < RL_UNIT_COUNT; u++) {
            double w = hw->e_flop_unit[p][u] * peak_of(hw, p, u);
            if (w > room * (1 + 1e-9))
                return hw_bad(x, "energy.flop_j",
                           "gives %s %s work at its peak (%.4g FLOP/s) a dynamic power of %.4g W, more than "
                           "power_budget_w %.4g W minus static_w %.4g W: lower energy.flop_j or raise "
                           "power_budget_w", rl_precision_name(p), rl_unit_name(u), peak_of(hw, p, u), w,
                           hw->power_budget_w, hw->static_w);
        }
    return 0;
}

/* ---------------------------------------------------- effective profile -- */
/* The effective peaks of the figures read so far (a unit without a figure of
 * its own runs at the other unit's rate, as check_effective fills in). */
static void effective_peaks(const rl_hw *hw, double out[RL_P_COUNT][RL_UNIT_COUNT]) {
    for (int p = 0; p < RL_P_COUNT; p++) {
        double m = hw->matrix[p], v = hw->vector[p];
        out[p][RL_UNIT_MATRIX] = m > 0 ? m : v;
        out[p][RL_UNIT_VECTOR] = v > 0 ? v : m;
    }
}

/* The physical consistency of the figures the analysis will use. */
static int check_effective(const parse_ctx *x, rl_hw *hw) {
    if (hw->n_mem == 0 || !(hw->mem_bw[0] > 0))
        return hw_bad(x, "memory[0].bandwidth_Bps", "is needed: the bandwidth of main memory");
    for (int i = 1; i < hw->n_mem; i++) {
        char f[48];
        snprintf(f, sizeof f, "memory[%d].bandwidth_Bps", i);
        if (hw->mem_bw[i] > 0 && hw->mem_bw[i] <= hw->mem_bw[0])
            return hw_bad(x, f, "(%g B/s) must be above main memory's %g B/s: levels after memory[0] are faster "
                             "on-chip memories", hw->mem_bw[i], hw->mem_bw[0]);
        snprintf(f, sizeof f, "memory[%d].capacity_bytes", i);
        if (hw->mem_cap[i] > 0 && hw->mem_cap[0] > 0 && hw->mem_cap[i] >= hw->mem_cap[0])
            return hw_bad(x, f, "(%g bytes) must be below main memory's %g bytes", hw->mem_cap[i], hw->mem_cap[0]);
    }
    bool any = false;
    for (int p = 0; p < RL_P_COUNT; p++) {
        if (hw->matrix[p] > 0 && hw->vector[p] > 0 && hw->matrix[p] < hw->vector[p]) {
            char f[48];
            snprintf(f, sizeof f, "compute.%s.matrix", rl_precision_name(p));
            return hw_bad(x, f, "(%g FLOP/s) is below compute.%s.vector (%g FLOP/s): matrix is the fastest unit "
                             "for the precision", hw->matrix[p], rl_precision_name(p), hw->vector[p]);
        }
        if (hw->vector[p] <= 0 && hw->matrix[p] > 0) hw->vector[p] = hw->matrix[p];
        if (hw->matrix[p] <= 0 && hw->vector[p] > 0) hw->matrix[p] = hw->vector[p];
        if (hw->matrix[p] > 0) any = true;
    }
    if (!any) return hw_bad(x, "compute", "gives no peak FLOP/s (compute.<precision>.matrix)");
    if (hw->e_ref_prec != RL_P_NONE && !(peak_of(hw, hw->e_ref_prec, hw->e_ref_unit) > 0))
        return hw_bad(x, "energy.flop_j_precision", "names %s %s, which has no peak in the profile",
                   rl_precision_name(hw->e_ref_prec), rl_unit_name(hw->e_ref_unit));
    if (hw->energy_tdp_split && !(hw->power_budget_w > 0))
        return hw_bad(x, "energy.model", "is \"tdp-split\", which needs power_budget_w");
    if (hw->power_max_w > 0 && hw->power_budget_w > hw->power_max_w)
        return hw_bad(x, "power_budget_w", "(%g W) is above the device's maximum power_max_w (%g W): no mode may "
                                           "draw more than the module can", hw->power_budget_w, hw->power_max_w);
    return 0;
}

/* The provenance label: how the energy per FLOP of this mode was obtained.
 * `inherited_from` names the mode whose value a mode at the same clock
 * reuses. */
static void label_energy(rl_hw *hw, const energy_seen *base, const energy_seen *mode, const char *scaled_from,
                         const char *inherited_from) {
    const char *how = hw->energy_tdp_split ? "tdp-split" : NULL;
    if (!how) {
        const energy_seen *s = mode->flop_j ? mode : base;
        how = s->flop_kind ? s->flop_kind : "given";
    }
    if (scaled_from)
        snprintf(hw->energy_model, sizeof hw->energy_model, "dvfs-scaled from %s (%s)", scaled_from, how);
    else if (inherited_from && !hw->energy_tdp_split && !mode->flop_j)
        snprintf(hw->energy_model, sizeof hw->energy_model, "%s at %s", how, inherited_from);
    else
        snprintf(hw->energy_model, sizeof hw->energy_model, "%s", how);
}

/* The chosen power mode's overrides over the base profile's figures, and
 * where its energy per FLOP comes from: *scaled_from (the mode it is
 * scaled from by V², DVFS) or *inherited_from (the mode it is carried over
 * from unchanged). 0, or -1 with x->err set. */
static int apply_mode(parse_ctx *x, const cJSON *chosen, const cJSON *deflt, rl_hw *hw, double base_clock,
                      const energy_seen *base_seen, energy_seen *mode_seen, double dvfs[2],
                      const char **scaled_from, const char **inherited_from) {
    const cJSON *mid = cJSON_GetObjectItemCaseSensitive(chosen, "id");
    const cJSON *mname = cJSON_GetObjectItemCaseSensitive(chosen, "name");
    hw->mode_id = mid->valuestring;
    hw->mode_name = cJSON_IsString(mname) ? mname->valuestring : mid->valuestring;
    snprintf(x->prefix, sizeof x->prefix, "power_modes[%s].overrides.", hw->mode_id);
    const cJSON *ov = cJSON_GetObjectItemCaseSensitive(chosen, "overrides");
    if (ov && apply(x, ov, hw, true, mode_seen, dvfs)) return -1;
    /* A mode that gives its own energy per FLOP gives it for its own
     * peaks. One at another clock that gives none gets each unit's base
     * energy per FLOP scaled by V² (DVFS); without a voltage curve the
     * base value would be carried over unchanged, which no physical
     * device does. */
    if (mode_seen->flop_j) {
        hw->e_flop_given = hw->e_flop;
        effective_peaks(hw, hw->e_given_peak);
    } else if (base_seen->flop_j && !hw->energy_tdp_split && hw->clock_hz != base_clock) {
        if (!(dvfs[0] > 0 && dvfs[1] > 0))
            return hw_bad(x, "energy.flop_j",
                       "is needed: this mode runs at %g Hz instead of %g Hz, so the base profile's energy "
                       "per FLOP does not apply (give energy.flop_j here, or a voltage curve in the base "
                       "profile: energy.voltage_floor_ratio and energy.voltage_floor_clock_hz)",
                       hw->clock_hz, base_clock);
        double v = voltage_ratio(hw->clock_hz, base_clock, dvfs);
        hw->e_voltage_sq = v * v;
    }
    const cJSON *did = deflt ? cJSON_GetObjectItemCaseSensitive(deflt, "id") : NULL;
    const char *from = cJSON_IsString(did) ? did->valuestring : "the base profile";
    if (hw->e_voltage_sq > 0 && hw->e_voltage_sq != 1) *scaled_from = from;
    else if (chosen != deflt) *inherited_from = from;
    return 0;
}

int rl_hw_parse(const cJSON *p, const char *mode, rl_hw *hw, rl_error *err) {
    memset(hw, 0, sizeof *hw);
    hw->profile = p;
    hw->e_ref_prec = RL_P_NONE;
    parse_ctx x = {.id = "custom", .err = err};
    if (!cJSON_IsObject(p)) {
        rl_error_set(err, "bad_hardware", "hardware", "the hardware profile must be a JSON object");
        return -1;
    }
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(p, "id");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
    const cJSON *cat = cJSON_GetObjectItemCaseSensitive(p, "category");
    hw->id = x.id = cJSON_IsString(id) ? id->valuestring : "custom";
    hw->name = cJSON_IsString(name) ? name->valuestring : hw->id;
    hw->category = cJSON_IsString(cat) ? cat->valuestring : "";
    energy_seen base_seen = {0}, mode_seen = {0};
    double dvfs[2] = {0, 0};
    if (apply(&x, p, hw, false, &base_seen, dvfs)) return -1;
    const double base_clock = hw->clock_hz;
    hw->e_flop_given = hw->e_flop;
    effective_peaks(hw, hw->e_given_peak);
    const cJSON *chosen, *deflt;
    if (find_mode(&x, cJSON_GetObjectItemCaseSensitive(p, "power_modes"), mode, hw, &chosen, &deflt)) return -1;
    if (mode && mode[0] && !chosen) {
        char where[200];
        snprintf(where, sizeof where, "hardware '%s' power_mode", hw->id);
        rl_error_set(err, "unknown_power_mode", where, "hardware '%s' has no power mode '%s' (see its power_modes)",
                     hw->id, mode);
        return -1;
    }
    const char *scaled_from = NULL, *inherited_from = NULL;
    if (chosen && apply_mode(&x, chosen, deflt, hw, base_clock, &base_seen, &mode_seen, dvfs, &scaled_from,
                             &inherited_from))
        return -1;
    /* the faults found from here on are in the mode's effective figures */
    if (chosen) snprintf(x.prefix, sizeof x.prefix, "(power mode %s) ", hw->mode_id);
    if (check_effective(&x, hw)) return -1;
    x.prefix[0] = '\0';
    hw_forecast_defaults(hw);
    if (hw_apply_forecast(&x, cJSON_GetObjectItemCaseSensitive(p, "forecast"), hw)) return -1;
    if (hw->fc.kernel_s < 0) hw->fc.kernel_s = hw->launch_s;
    rl_hw_fill_energy_defaults(hw);
    if (hw->has_energy) label_energy(hw, &base_seen, &mode_seen, scaled_from, inherited_from);
    return check_power(&x, hw);
}

/* ---------------------------------------------------- shipped profiles -- */
/* A profile that ships with rooflens (hw/<id>.json) is held to more than a
 * user's: every figure says where it comes from (hw/README.md, "Figures").
 * hw/check_profiles.py adds only what needs the file (id = file name). */
/* The one list of profile categories: the message below names them from it,
 * and the page's groups (web/js/hardware.js CATEGORY_LABELS) are tested
 * against it (tests/web/hardware-categories.test.mjs). */
static const char *const categories[] = {"datacenter-gpu", "consumer-gpu", "workstation", "client",
                                          "edge",           "tpu",          "cpu",         "apple", NULL};
#define SHIPPED_SOURCE_MIN 4     /* a citation, not "x" */
#define SHIPPED_HOW_MIN 12       /* an estimated or derived figure says how */

/* Lowercase letters and digits in groups joined by single '-'. */
static bool is_profile_id(const char *s) {
    if (!s || !*s || *s == '-') return false;
    for (const char *c = s; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || (*c == '-' && c[1] && c[1] != '-')))
            return false;
    return true;
}

static size_t trimmed_length(const char *s) {
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r')) n--;
    return n;
}

/* Every number under `node` is a figure {value, source, kind} with a known
 * kind and a source; `path` names node in errors ("compute.fp16"). */
static int check_provenance(const parse_ctx *x, const cJSON *node, const char *path) {
    /* the band's numbers are ratios of the runs its own "source" lists
     * (rl_hw_parse required it): one provenance for all of them */
    if (!strcmp(path, "forecast.band")) return 0;
    if (cJSON_IsNumber(node))
        return hw_bad(x, path, "must be {\"value\", \"source\", \"kind\"} in a shipped profile, not a bare number");
    if (cJSON_IsObject(node) && cJSON_GetObjectItemCaseSensitive(node, "value")) {
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(node, "source");
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(node, "kind");
        if (!cJSON_IsString(src) || trimmed_length(src->valuestring) < SHIPPED_SOURCE_MIN)
            return hw_bad(x, path, "needs a \"source\" that says where the figure comes from");
        if (!cJSON_IsString(k) || !hw_in_list(k->valuestring, hw_figure_kinds))
            return hw_bad(x, path, "needs a \"kind\": datasheet, measured, derived or estimated");
        if ((!strcmp(k->valuestring, "estimated") || !strcmp(k->valuestring, "derived")) &&
            trimmed_length(src->valuestring) < SHIPPED_HOW_MIN)
            return hw_bad(x, path, "is %s: its source must say how", k->valuestring);
        return 0;
    }
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, node) {
        char sub[200];
        if (cJSON_IsArray(node)) {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(it, "id");
            if (cJSON_IsString(id)) snprintf(sub, sizeof sub, "%s[%s]", path, id->valuestring);
            else snprintf(sub, sizeof sub, "%s[%d]", path, i);
        } else if (!path[0] && !strcmp(it->string, "schema")) {
            i++;
            continue;
        } else {
            snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", it->string);
        }
        i++;
        if (check_provenance(x, it, sub)) return -1;
    }
    return 0;
}

/* The rules of a shipped profile beyond rl_hw_parse's (which it passed). */
static int check_shipped(const cJSON *p, rl_error *err) {
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(p, "id");
    parse_ctx x = {.id = cJSON_IsString(id) ? id->valuestring : "custom", .err = err};
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(p, "schema");
    if (!cJSON_IsNumber(schema) || schema->valuedouble != 1) return hw_bad(&x, "schema", "must be 1");
    if (!cJSON_IsString(id) || !is_profile_id(id->valuestring))
        return hw_bad(&x, "id", "must be lowercase letters and digits joined by single '-'");
    static const char *const texts[] = {"name", "vendor", NULL};
    for (int i = 0; texts[i]; i++) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(p, texts[i]);
        if (!cJSON_IsString(t) || trimmed_length(t->valuestring) == 0)
            return hw_bad(&x, texts[i], "must be a non-empty text");
    }
    const cJSON *cat = cJSON_GetObjectItemCaseSensitive(p, "category");
    char known[200];
    if (!cJSON_IsString(cat) || !hw_in_list(cat->valuestring, categories))
        return hw_bad(&x, "category", "must be one of %s", hw_list_text(categories, known, sizeof known));
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(p, "power_modes")) {
        const cJSON *mid = cJSON_GetObjectItemCaseSensitive(m, "id");
        if (!is_profile_id(mid->valuestring)) {
            char field[200];
            snprintf(field, sizeof field, "power_modes[%s].id", mid->valuestring);
            return hw_bad(&x, field, "must be lowercase letters and digits joined by single '-'");
        }
    }
    if (check_provenance(&x, p, "")) return -1;
    if (!cJSON_GetObjectItemCaseSensitive(p, "interconnect"))
        return hw_bad(&x, "interconnect", "is needed in a shipped profile: the chip-to-chip links, or "
                                       "{\"topology\": \"none\", \"notes\": \"one device: ...\"}");
    return 0;
}

/* A shipped profile's INT8 matrix peak is at least its FP16/BF16 one: every
 * shipped device runs INT8 at the 16-bit rate or faster, so a lower figure
 * is a mix of sources (a measured FP16 beside a datasheet INT8 divided by
 * something else) or a sparse figure halved once too often. */
static int check_int8_rate(const rl_hw *hw, rl_error *err) {
    parse_ctx x = {.id = hw->id, .err = err};
    if (hw->mode_id) snprintf(x.prefix, sizeof x.prefix, "(power mode %s) ", hw->mode_id);
    double half = fmax(hw->matrix[RL_P_FP16], hw->matrix[RL_P_BF16]);
    if (hw->matrix[RL_P_INT8] > 0 && half > 0 && hw->matrix[RL_P_INT8] < half)
        return hw_bad(&x, "compute.int8.matrix", "(%g OP/s) is below the FP16/BF16 matrix peak (%g FLOP/s): a "
                                                 "shipped profile's figures come from one source per mode",
                      hw->matrix[RL_P_INT8], half);
    return 0;
}

int rl_hw_check_modes(const cJSON *profile, rl_error *err) {
    rl_hw hw;
    if (rl_hw_parse(profile, NULL, &hw, err)) return -1;
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(profile, "power_modes"))
        if (rl_hw_parse(profile, cJSON_GetObjectItemCaseSensitive(m, "id")->valuestring, &hw, err)) return -1;
    return 0;
}

/* ------------------------------------------------------------- the API -- */
static char *check_hardware(const char *profile_json, bool shipped) {
    rl_json_begin();
    rl_error err = {0};
    cJSON *p = cJSON_Parse(profile_json ? profile_json : "");
    rl_hw hw;
    if (!p) {
        rl_error_set(&err, "bad_hardware", "hardware", "the hardware profile is not valid JSON");
        return rl_error_json(&err);
    }
    /* the default mode, then every mode: a profile is valid in all of them */
    if (rl_hw_parse(p, NULL, &hw, &err) || (shipped && (check_shipped(p, &err) || check_int8_rate(&hw, &err)))) {
        cJSON_Delete(p);
        return rl_error_json(&err);
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddTrueToObject(o, "ok");
    cJSON_AddStringToObject(o, "id", hw.id);
    cJSON_AddStringToObject(o, "name", hw.name);
    cJSON *modes = cJSON_AddArrayToObject(o, "modes");
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(p, "power_modes")) {
        rl_hw mh;
        if (rl_hw_parse(p, cJSON_GetObjectItemCaseSensitive(m, "id")->valuestring, &mh, &err) ||
            (shipped && check_int8_rate(&mh, &err))) {
            cJSON_Delete(o);
            cJSON_Delete(p);
            return rl_error_json(&err);
        }
        cJSON *row = cJSON_CreateObject();
        cJSON_AddStringToObject(row, "id", mh.mode_id);
        if (mh.power_budget_w > 0) cJSON_AddNumberToObject(row, "power_budget_w", mh.power_budget_w);
        else cJSON_AddNullToObject(row, "power_budget_w");
        if (mh.has_energy) cJSON_AddStringToObject(row, "energy_model", mh.energy_model);
        else cJSON_AddNullToObject(row, "energy_model");
        cJSON_AddItemToArray(modes, row);
    }
    if (hw.power_budget_w > 0) cJSON_AddNumberToObject(o, "power_budget_w", hw.power_budget_w);
    else cJSON_AddNullToObject(o, "power_budget_w");
    if (hw.has_energy) cJSON_AddStringToObject(o, "energy_model", hw.energy_model);
    else cJSON_AddNullToObject(o, "energy_model");
    cJSON_Delete(p);
    return rl_json_finish(o);
}

/* ------------------------------------------------------------ a handle -- */
rl_hw *rl_hw_read(const char *profile_json, char **error_json) {
    rl_json_begin();
    rl_error err = {0};
    if (error_json) *error_json = NULL;
    cJSON *p = cJSON_Parse(profile_json ? profile_json : "");
    rl_hw *hw = p ? malloc(sizeof *hw) : NULL;
    if (!p || !hw) {
        if (!p && !rl_json_alloc_failed())
            rl_error_set(&err, "bad_hardware", "hardware", "the hardware profile is not valid JSON");
        else
            rl_error_set(&err, "out_of_memory", "hardware", "out of memory while reading the hardware profile");
    } else if (rl_hw_parse(p, NULL, hw, &err) == 0) {
        hw->owned = p;
        return hw;
    }
    free(hw);
    cJSON_Delete(p);
    if (error_json) *error_json = rl_error_json(&err);
    return NULL;
}

void rl_hw_free(rl_hw *hw) {
    if (!hw) return;
    cJSON_Delete(hw->owned);
    free(hw);
}

char *rl_check_hardware(const char *profile_json) { return check_hardware(profile_json, false); }

char *rl_check_shipped_hardware(const char *profile_json) { return check_hardware(profile_json, true); }
