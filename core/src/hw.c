/* Hardware profile parsing and power-mode overrides. See hw/README.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hw.h"

const char *const rl_precision_names[RL_P_COUNT] = {"fp64", "fp32", "tf32", "fp16",
                                                    "bf16", "fp8",  "int8", "int4"};

int rl_precision_parse(const char *s) {
    if (!s) return -1;
    for (int i = 0; i < RL_P_COUNT; i++)
        if (strcmp(s, rl_precision_names[i]) == 0) return i;
    return -1;
}

double rl_hw_figure(const cJSON *f) {
    if (cJSON_IsNumber(f)) return f->valuedouble;
    if (cJSON_IsObject(f)) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, "value");
        if (cJSON_IsNumber(v)) return v->valuedouble;
    }
    return NAN;
}

static int figure(const cJSON *obj, const char *key, double *out, bool required, const char *what,
                  rl_error *err) {
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!f) {
        if (required) {
            rl_error_set(err, "bad_hardware", what, "the hardware profile lacks '%s'", key);
            return -1;
        }
        return 0;
    }
    double v = rl_hw_figure(f);
    if (!isfinite(v) || v < 0) {
        rl_error_set(err, "bad_hardware", what,
                     "'%s' must be a non-negative number or {\"value\": number, ...}", key);
        return -1;
    }
    *out = v;
    return 0;
}

/* Apply one layer of figures (the base profile, then a mode's overrides). */
static int apply(const cJSON *p, rl_hw *hw, rl_error *err, const char *what) {
    if (figure(p, "clock_hz", &hw->clock_hz, false, what, err)) return -1;
    if (figure(p, "launch_overhead_s", &hw->launch_s, false, what, err)) return -1;
    const cJSON *compute = cJSON_GetObjectItemCaseSensitive(p, "compute");
    if (compute) {
        if (!cJSON_IsObject(compute)) {
            rl_error_set(err, "bad_hardware", what, "'compute' must be an object of precisions");
            return -1;
        }
        const cJSON *prec;
        cJSON_ArrayForEach(prec, compute) {
            int pi = rl_precision_parse(prec->string);
            if (pi < 0) continue; /* a precision rooflens does not model */
            if (figure(prec, "matrix", &hw->matrix[pi], false, what, err)) return -1;
            if (figure(prec, "vector", &hw->vector[pi], false, what, err)) return -1;
        }
    }
    const cJSON *mem = cJSON_GetObjectItemCaseSensitive(p, "memory");
    if (mem) {
        if (!cJSON_IsArray(mem)) {
            rl_error_set(err, "bad_hardware", what, "'memory' must be an array of memory levels");
            return -1;
        }
        int i = 0;
        const cJSON *lvl;
        cJSON_ArrayForEach(lvl, mem) {
            if (i >= RL_HW_MAX_MEM) break;
            if (!cJSON_IsObject(lvl)) {
                rl_error_set(err, "bad_hardware", what, "memory level %d must be an object", i);
                return -1;
            }
            const cJSON *nm = cJSON_GetObjectItemCaseSensitive(lvl, "name");
            if (cJSON_IsString(nm)) hw->mem_name[i] = nm->valuestring;
            if (figure(lvl, "bandwidth_Bps", &hw->mem_bw[i], false, what, err)) return -1;
            if (figure(lvl, "capacity_bytes", &hw->mem_cap[i], false, what, err)) return -1;
            i++;
        }
        if (i > hw->n_mem) hw->n_mem = i;
    }
    const cJSON *en = cJSON_GetObjectItemCaseSensitive(p, "energy");
    if (cJSON_IsObject(en)) {
        if (figure(en, "flop_j", &hw->e_flop, false, what, err)) return -1;
        if (figure(en, "byte_j", &hw->e_byte, false, what, err)) return -1;
        if (figure(en, "static_w", &hw->static_w, false, what, err)) return -1;
        hw->has_energy = hw->e_flop > 0 && hw->e_byte > 0;
    }
    return 0;
}

int rl_hw_parse(const cJSON *p, const char *mode, rl_hw *hw, rl_error *err) {
    memset(hw, 0, sizeof *hw);
    if (!cJSON_IsObject(p)) {
        rl_error_set(err, "bad_hardware", "hardware", "the hardware profile must be a JSON object");
        return -1;
    }
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(p, "id");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
    const cJSON *cat = cJSON_GetObjectItemCaseSensitive(p, "category");
    hw->id = cJSON_IsString(id) ? id->valuestring : "custom";
    hw->name = cJSON_IsString(name) ? name->valuestring : hw->id;
    hw->category = cJSON_IsString(cat) ? cat->valuestring : "";
    char what[160];
    snprintf(what, sizeof what, "hardware '%s'", hw->id);
    if (apply(p, hw, err, what)) return -1;
    const cJSON *modes = cJSON_GetObjectItemCaseSensitive(p, "power_modes");
    const cJSON *chosen = NULL;
    if (cJSON_IsArray(modes)) {
        hw->n_modes = cJSON_GetArraySize(modes);
        const cJSON *m;
        cJSON_ArrayForEach(m, modes) {
            const cJSON *mid = cJSON_GetObjectItemCaseSensitive(m, "id");
            if (!cJSON_IsString(mid)) continue;
            if (mode && mode[0]) {
                if (strcmp(mid->valuestring, mode) == 0) chosen = m;
            } else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "default"))) {
                chosen = m;
            }
        }
    }
    if (mode && mode[0] && !chosen) {
        rl_error_set(err, "unknown_power_mode", what,
                     "hardware '%s' has no power mode '%s' (see its power_modes)", hw->id, mode);
        return -1;
    }
    if (chosen) {
        const cJSON *mid = cJSON_GetObjectItemCaseSensitive(chosen, "id");
        const cJSON *mname = cJSON_GetObjectItemCaseSensitive(chosen, "name");
        hw->mode_id = mid->valuestring;
        hw->mode_name = cJSON_IsString(mname) ? mname->valuestring : mid->valuestring;
        const cJSON *ov = cJSON_GetObjectItemCaseSensitive(chosen, "overrides");
        if (ov && apply(ov, hw, err, what)) return -1;
    }
    if (hw->n_mem == 0 || !(hw->mem_bw[0] > 0)) {
        rl_error_set(err, "bad_hardware", what,
                     "the hardware profile needs memory[0].bandwidth_Bps (main memory) above 0");
        return -1;
    }
    bool any = false;
    for (int i = 0; i < RL_P_COUNT; i++) {
        if (hw->vector[i] <= 0 && hw->matrix[i] > 0) hw->vector[i] = hw->matrix[i];
        if (hw->matrix[i] <= 0 && hw->vector[i] > 0) hw->matrix[i] = hw->vector[i];
        if (hw->matrix[i] > 0) any = true;
    }
    if (!any) {
        rl_error_set(err, "bad_hardware", what,
                     "the hardware profile gives no peak FLOP/s (compute.<precision>.matrix)");
        return -1;
    }
    rl_hw_fill_energy_defaults(hw);
    return 0;
}

/* Until per-unit, per-precision coefficients and power budgets are read
 * from the profiles, every unit and precision costs the profile's one
 * ε_flop and the budget is unknown. */
void rl_hw_fill_energy_defaults(rl_hw *hw) {
    for (int p = 0; p < RL_P_COUNT; p++)
        for (int u = 0; u < RL_UNIT_COUNT; u++)
            hw->e_flop_unit[p][u] = hw->has_energy && hw->matrix[p] > 0 ? hw->e_flop : 0;
    hw->power_budget_w = 0;
    hw->energy_model = hw->has_energy ? "one coefficient for every unit and precision" : NULL;
}
