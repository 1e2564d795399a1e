/* The answer's roofline section (analyze.h): the roofline of the precision
 * actually used (after any fallback), its ceilings (every precision's and
 * unit's peak, every memory level), the energy roof the charts draw, and
 * the whole model on it as the chosen model places it. The formulas are
 * roofline.c's. */
#include <cjson/cJSON.h>
#include <math.h>

#include "analyze.h"
#include "json.h"
#include "precision.h"
#include "roofline.h"

static void add_ceilings(cJSON *ro, const rl_hw *hw) {
    cJSON *ceil = cJSON_AddObjectToObject(ro, "ceilings");
    cJSON *cc = cJSON_AddArrayToObject(ceil, "compute");
    static const char *const units[RL_UNIT_COUNT] = {"matrix", "vector"};
    for (int p = 0; p < RL_P_COUNT; p++) {
        if (hw->matrix[p] <= 0) continue;
        for (int u = 0; u < RL_UNIT_COUNT; u++) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "precision", rl_precision_name(p));
            cJSON_AddStringToObject(e, "unit", units[u]);
            rl_json_add_num(e, "flops", u == RL_UNIT_MATRIX ? hw->matrix[p] : hw->vector[p]);
            if (u == RL_UNIT_MATRIX && hw->matrix_accumulate[p])
                cJSON_AddStringToObject(e, "accumulate", hw->matrix_accumulate[p]);
            cJSON_AddItemToArray(cc, e);
        }
    }
    cJSON *mc = cJSON_AddArrayToObject(ceil, "memory");
    for (int i = 0; i < hw->n_mem; i++) {
        if (hw->mem_bw[i] <= 0) continue;
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", hw->mem_name[i] ? hw->mem_name[i] : (i ? "cache" : "DRAM"));
        rl_json_add_num(e, "bandwidth_Bps", hw->mem_bw[i]);
        if (hw->mem_cap[i] > 0) rl_json_add_num(e, "capacity_bytes", hw->mem_cap[i]);
        cJSON_AddItemToArray(mc, e);
    }
}

/* The energy roof as points the charts draw: 8 per decade of intensity
 * from 10^-4 to 10^7 FLOP/B, with and without static power. */
static void add_energy_roof(cJSON *ro, double e_flop, double e_byte, double static_w, double peak, double bw) {
    cJSON *roof = cJSON_AddArrayToObject(ro, "energy_roof");
    for (int k = -4 * 8; k <= 7 * 8; k++) {
        double x = pow(10.0, k / 8.0);
        cJSON *pt = cJSON_CreateObject();
        rl_json_add_num(pt, "intensity", x);
        rl_json_add_num(pt, "flop_per_j", rl_flop_per_j(e_flop, e_byte, static_w, peak, bw, x));
        rl_json_add_num(pt, "flop_per_j_no_static", rl_flop_per_j(e_flop, e_byte, 0, peak, bw, x));
        cJSON_AddItemToArray(roof, pt);
    }
}

void rl_analyze_roofline_section(cJSON *root, const rl_hw *hw, const rl_timing *t) {
    const double bw = hw->mem_bw[0];
    const int p = t->main_prec;
    const double peak = hw->matrix[p], peak_v = hw->vector[rl_hw_vector_precision(hw, p)]; /* the rate its vector work runs at */
    cJSON *ro = cJSON_AddObjectToObject(root, "roofline");
    cJSON_AddStringToObject(ro, "precision", rl_precision_name(p));
    cJSON_AddStringToObject(ro, "requested_precision", rl_precision_name(t->requested_prec));
    rl_json_add_num(ro, "peak_matrix_flops", peak);
    rl_json_add_num(ro, "peak_vector_flops", peak_v);
    rl_json_add_num(ro, "bandwidth_Bps", bw);
    rl_json_add_num(ro, "time_balance", rl_time_balance(peak, bw));
    rl_json_add_num(ro, "ridge_vector", peak_v / bw);
    rl_json_add_num(ro, "launch_overhead_s", hw->launch_s);
    if (hw->has_energy) {
        const double e_flop = hw->e_flop_unit[p][RL_UNIT_MATRIX];
        rl_json_add_num(ro, "energy_balance", rl_energy_balance(e_flop, hw->e_byte, hw->static_w, peak, bw));
        rl_json_add_num(ro, "energy_balance_no_static", rl_energy_balance_no_static(e_flop, hw->e_byte));
        rl_json_add_num(ro, "peak_flop_per_j", rl_peak_flop_per_j(e_flop, hw->static_w, peak));
        rl_json_add_num(ro, "peak_flop_per_j_no_static", rl_peak_flop_per_j_no_static(e_flop));
        rl_json_add_num(ro, "flop_j", e_flop);
        rl_json_add_num(ro, "byte_j", hw->e_byte);
        rl_json_add_num(ro, "static_w", hw->static_w);
        add_energy_roof(ro, e_flop, hw->e_byte, hw->static_w, peak, bw);
    } else {
        static const char *const none[] = {"energy_balance", "energy_balance_no_static", "peak_flop_per_j",
                                           "peak_flop_per_j_no_static"};
        for (size_t i = 0; i < sizeof none / sizeof *none; i++) cJSON_AddNullToObject(ro, none[i]);
    }
    add_ceilings(ro, hw);
    const rl_sol_result *ch = rl_timing_chosen(t);
    cJSON *mp = cJSON_AddObjectToObject(ro, "model_point");
    rl_json_add_num(mp, "intensity", ch->bytes > 0 ? ch->flops / ch->bytes : 0);
    rl_json_add_num(mp, "flops_per_s", ch->time_s > 0 ? ch->flops / ch->time_s : 0);
    if (t->has_energy && ch->energy_j > 0) rl_json_add_num(mp, "flop_per_j", ch->flops / ch->energy_j);
}
