/* Writing a fitted stack into a hardware profile (docs/model.md §12.5):
 * the forecast block's fitted figures, each {"value", "source", "kind"},
 * and fit.fitted's list of what the measured kernels informed. Used by the
 * fit (analyze_fit.c) only.
 *
 * Ownership: every cJSON made here is added to the caller's objects, which
 * own it; nothing else is allocated. */
#ifndef ROOFLENS_FIT_PROFILE_H
#define ROOFLENS_FIT_PROFILE_H
#include <cjson/cJSON.h>

#include "forecast_fit.h"

/* A figure's source text: RL_FIT_SOURCE_SIZE bytes, of which the last
 * RL_FIT_SOURCE_TAIL are kept for what follows the list of models (the
 * median error, the time between kernels and its growth, the count of
 * kernels that set a fraction); a list too long for the rest ends "and N
 * more" after its last whole name, never in the middle of one. */
#define RL_FIT_SOURCE_SIZE 2048
#define RL_FIT_SOURCE_TAIL 320

/* obj[key] as an object: the one there, else a new one put in its place. */
cJSON *rl_fit_child_object(cJSON *obj, const char *key);

/* The profile's "forecast" block with the fitted parameters p (kind
 * "measured", `source` their source; the class fractions `filled` marks,
 * which probes set (rl_fit_fill_gaps), `probe_source`), basis
 * "calibrated", the stack, the fit block (which the profile then owns);
 * what neither inf nor filled says a kernel informed keeps its figure, or
 * takes a sibling class's (derived). */
void rl_fit_put_profile(cJSON *profile, const rl_forecast_params *p, const rl_fit_informed *inf,
                        const rl_fit_informed *filled, cJSON *fit, const char *stack, const char *source,
                        const char *probe_source);

/* An operator type among a fit's measured kernels, and its class. */
typedef struct rl_fit_op {
    int cls;
    char op_type[65];
} rl_fit_op;

/* Each class the kernels informed lists the operator types of its measured
 * kernels, sorted ("fitted_ops"): the models' (ops, n) where inf says they
 * informed it, else the probes' (probe_ops, n_probe) where filled says
 * those did; another class lists none (a stale list of the base profile
 * goes). Any order (sorted here). */
void rl_fit_put_fitted_ops(cJSON *profile, const rl_fit_informed *inf, rl_fit_op *ops, int n,
                           const rl_fit_informed *filled, rl_fit_op *probe_ops, int n_probe);

/* fit.fitted (the parameters the models' kernels informed),
 * fit.fitted_on_probes (the fractions the probes' set: filled),
 * fit.classes_at_defaults and fit.classes_borrowed. */
void rl_fit_add_fitted_names(cJSON *fit, const rl_fit_informed *inf, const rl_fit_informed *filled);
#endif
