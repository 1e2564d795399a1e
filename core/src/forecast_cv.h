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

/* What the cross-validation knows of each run beyond its samples: its
 * measured wall time, the time between its kernels, and how to forecast
 * its model under a stack, as a user's analysis would: the plan's kernels
 * and layout conversions, not the kernels measured (a fit of the other
 * runs knows nothing of how this run's graph was cut into kernels). */
typedef struct rl_fit_cv_runs {
    const double *wall_s;      /* per run: its measured wall time, NAN unknown */
    const double *gap_s;       /* per run: time between its kernels, s (0 when unknown) */
    const double *gap_kernels; /* per run: the kernels that time is over */
    const double *gap_growth;  /* per run: how that time grows with the kernel before (NAN unknown) */
    const double *kernels_s;   /* per run: its kernels' own time, s */
    /* run `run`'s model analysed under stack p: its forecast.time_s, NAN
     * when it cannot be had */
    double (*forecast)(void *ctx, int run, const rl_forecast_params *p);
    /* the stack settings (fusion, epilogues apart, shape arithmetic,
     * lowering) that the runs in_fit says tell, into p, as a fit of those
     * runs alone decides them; NULL: the fit of all runs' stay */
    void (*settle)(void *ctx, const bool *in_fit, int n_runs, rl_forecast_params *p);
    void *ctx;
} rl_fit_cv_runs;

/* The runtime's time between kernels, pooled over the runs in_fit says
 * (NULL: all n_runs), joined to p (docs/model.md §12.5) as a fixed part per
 * kernel (added to p->kernel_s, and p->between_s; returned) and a part that
 * grows with the kernel before it (p->between_growth, seconds per second of
 * that kernel's own time):
 * - the growth is the runs' measured slopes (gap_growth) averaged with
 *   their kernels' time as weights (a run of long kernels tells the slope
 *   best), at least 0, and at most what leaves the fixed part >= 0;
 * - the fixed part is the runs' time between kernels less the growth's
 *   share of their kernels' time, per kernel launched.
 * The fixed part is 0 (p's fixed cost unchanged) when no run gives the
 * time, or when it is under RL_FIT_MIN_KERNEL_S (the rounding of the runs'
 * timestamps). The growth is 0 when no run gives a slope, or when it is
 * outside the range a profile allows between_kernels_growth: under a
 * millionth of the kernel before is none, and a time after a kernel that
 * grows faster than the kernel itself is no runtime's dispatch but
 * something else in the runs (a pause, other work). */
double rl_fit_add_runs_gap(const rl_fit_cv_runs *runs, const bool *in_fit, int n_runs, rl_forecast_params *p);

/* Per run r < n_runs: measured[r], its wall time (runs->wall_s), and
 * forecast[r], its forecast (runs->forecast) under a fit of the other runs' samples:
 * the fit of all runs (`fitted`) refitted on them, its stack settings
 * those the other runs tell (runs->settle),
 * from its own values, which the descent's grids over each parameter's
 * whole range leave, and then every parameter those runs do not inform set
 * back to the profile's (`profile`), since only the held-out run set it.
 * With probe samples (n_probe > 0), each held-out fit fills its gaps from
 * them first (rl_fit_fill_gaps), as the fit of all runs did: only what
 * neither the other runs nor the probes inform goes back to the profile's;
 * and the time between kernels is the other runs' (kernel_s and between_s,
 * as the fit of all adds its runs'). NAN for a run without samples, or when
 * no other run has any. Returns 0, or -1 out of memory. */
int rl_fit_leave_one_out(const rl_fit_sample *s, int n, int n_runs, const rl_fit_sample *probe, int n_probe,
                         const rl_forecast_params *fitted, const rl_forecast_params *profile,
                         const rl_fit_cv_runs *runs, double *measured, double *forecast);

/* A fit of so few models takes its band from its pairs' fits
 * (rl_fit_pair_fits), one of this many or more from leave-one-out: each
 * of a few models has a sibling among the others (BERT for GPT-2, ResNet
 * for MobileNet), so a fit of all but one forecast it closer than a model
 * unlike them; on an AMD EPYC (docs/validation.md, run 18) a four-model
 * fit's leave-one-out band held 23 of the 38 forecasts of models it never
 * saw, its pairs' band 32. */
#define RL_BAND_PAIRS_BELOW 8

/* One held-out forecast of a pair's fit: runs fit_a and fit_b fitted,
 * run `run` (neither) forecast; forecast_s NAN when either fit run or
 * `run` has no samples. */
typedef struct rl_fit_pair_row {
    int fit_a, fit_b, run;
    double measured_s, forecast_s;
} rl_fit_pair_row;

/* For every pair of runs a < b, the fit of their samples alone (as
 * rl_fit_leave_one_out's fits: the stack's settings the pair tells, gaps
 * filled from the probes, the uninformed set back to the profile's, the
 * pair's time between kernels; all pairs share one fit's budget)
 * forecasting each other run as rl_fit_leave_one_out does: rows[] gets
 * n_runs (n_runs - 1) (n_runs - 2) / 2 rows, in the order of a, b, run.
 * Returns the rows written, or -1 out of memory. */
int rl_fit_pair_fits(const rl_fit_sample *s, int n, int n_runs, const rl_fit_sample *probe, int n_probe,
                     const rl_forecast_params *fitted, const rl_forecast_params *profile,
                     const rl_fit_cv_runs *runs, rl_fit_pair_row *rows);

/* The band of the runs' ratios measured / forecast (those with both
 * figures), as far below 1 as above it: the 90th percentile (by linear
 * interpolation between the sorted values) of their |log|, both ways. The
 * runs are a fit's few models, each held out once; in both validated setups
 * the models it never saw erred the other way from them (docs/validation.md),
 * so the band takes their errors' size, not their sign. false, b untouched,
 * with fewer than RL_BAND_MIN_RUNS runs. */
bool rl_fit_band_of(const double *measured, const double *forecast, int n_runs, rl_fit_band *b);
#endif
