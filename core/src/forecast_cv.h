/* The fit's cross-validation (docs/model.md §12.5): how far a fitted stack
 * is from runs it did not see, and the error band that follows from it.
 *
 * Each run is forecast by a fit of the other runs' samples alone (leave one
 * model out): what only the held-out run teaches (a class no other run
 * has) stays at the profile's figure, as it does for a model the user
 * forecasts later. The band is the
 * spread of measured / forecast over those runs (the profile's
 * forecast.band, hw/README.md).
 *
 * Ownership: the caller owns every array; nothing is kept. */
#ifndef ROOFLENS_FORECAST_CV_H
#define ROOFLENS_FORECAST_CV_H
#include "forecast_fit.h"

/* Fewer held-out runs than this give no band: two ratios are no spread. */
#define RL_BAND_MIN_RUNS 3

typedef struct rl_fit_band {
    double low, high;         /* measured / forecast: exp(∓ the 90th percentile of |log(measured / forecast)|),
                                 so low = 1 / high <= 1 <= high */
    double median_error;      /* median |measured / forecast - 1| */
    double worst_error;       /* largest |measured / forecast - 1| */
    int runs;                 /* held-out runs the ratios come from */
} rl_fit_band;

/* Per run r < n_runs: measured[r], the sum of its samples' measured times,
 * and forecast[r], their forecast under a fit of the other runs' samples:
 * the fit of all runs (`fitted`: its stack settings kept) refitted on them
 * from its own values, which the descent's grids over each parameter's
 * whole range leave, and then every parameter those runs do not inform set
 * back to the profile's (`profile`), since only the held-out run set it.
 * With probe samples (n_probe > 0), each held-out fit fills its gaps from
 * them first (rl_fit_fill_gaps), as the fit of all runs did: only what
 * neither the other runs nor the probes inform goes back to the profile's.
 * NAN for a run without samples, or when no other run has any. Returns 0,
 * or -1 out of memory. */
int rl_fit_leave_one_out(const rl_fit_sample *s, int n, int n_runs, const rl_fit_sample *probe, int n_probe,
                         const rl_forecast_params *fitted, const rl_forecast_params *profile, double *measured,
                         double *forecast);

/* The band of the runs' ratios measured / forecast (those with both
 * figures), as far below 1 as above it: the 90th percentile (by linear
 * interpolation between the sorted values) of their |log|, both ways. The
 * runs are a fit's few models, each held out once; in both validated setups
 * the models it never saw erred the other way from them (docs/validation.md),
 * so the band takes their errors' size, not their sign. false, b untouched,
 * with fewer than RL_BAND_MIN_RUNS runs. */
bool rl_fit_band_of(const double *measured, const double *forecast, int n_runs, rl_fit_band *b);
#endif
