/* Hardware profiles: the figures an analysis needs, read from profile JSON. */
#ifndef ROOFLENS_HW_H
#define ROOFLENS_HW_H
#include <cjson/cJSON.h>
#include "internal.h"

#include "precision.h"

#define RL_HW_MAX_MEM 8

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
    int n_modes;
} rl_hw;

/* Read a profile; apply power mode `mode` (NULL or "" = the default mode).
 * Strings point into `profile`, which must outlive `out`. Returns 0 or -1
 * with err set. */
int rl_hw_parse(const cJSON *profile, const char *mode, rl_hw *out, rl_error *err);
/* The value of a figure: a number or {"value": number, ...}; NAN if absent. */
double rl_hw_figure(const cJSON *f);
#endif
