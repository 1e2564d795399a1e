/* Hardware profiles: the figures an analysis needs, read from profile JSON. */
#ifndef ROOFLENS_HW_H
#define ROOFLENS_HW_H
#include <cjson/cJSON.h>
#include "internal.h"

enum rl_precision {
    RL_P_FP64, RL_P_FP32, RL_P_TF32, RL_P_FP16, RL_P_BF16, RL_P_FP8, RL_P_INT8, RL_P_INT4,
    RL_P_COUNT
};
extern const char *const rl_precision_names[RL_P_COUNT];
int rl_precision_parse(const char *s); /* -1 if unknown */

#define RL_HW_MAX_MEM 8

/* The unit a piece of work runs on. */
enum rl_unit { RL_UNIT_MATRIX = 0, RL_UNIT_VECTOR = 1, RL_UNIT_COUNT };

typedef struct rl_hw {
    const char *id, *name, *category;     /* point into the profile JSON */
    const char *mode_id, *mode_name;      /* power mode applied, or NULL */
    double clock_hz;
    double launch_s;                      /* kernel launch overhead t0 */
    double matrix[RL_P_COUNT], vector[RL_P_COUNT]; /* FLOP/s; 0 = not supported */
    int n_mem;
    const char *mem_name[RL_HW_MAX_MEM];
    double mem_bw[RL_HW_MAX_MEM], mem_cap[RL_HW_MAX_MEM];
    bool has_energy;
    double e_flop, e_byte, static_w;      /* J/FLOP, J/byte, W */
    double e_flop_unit[RL_P_COUNT][RL_UNIT_COUNT]; /* J per FLOP for work of precision p on unit u;
                                                      0 where the device has no such peak */
    double power_budget_w;                /* the mode's budget, else board power / TDP; 0 = unknown */
    const char *energy_model;             /* short provenance of the energy figures */
    int n_modes;
} rl_hw;

/* Read a profile; apply power mode `mode` (NULL or "" = the default mode).
 * Strings point into `profile`, which must outlive `out`. Returns 0 or -1
 * with err set. */
int rl_hw_parse(const cJSON *profile, const char *mode, rl_hw *out, rl_error *err);
/* Fill e_flop_unit, power_budget_w and energy_model from the profile's
 * figures once a profile and its mode are applied (rl_hw_parse calls it). */
void rl_hw_fill_energy_defaults(rl_hw *hw);
/* The value of a figure: a number or {"value": number, ...}; NAN if absent. */
double rl_hw_figure(const cJSON *f);
#endif
