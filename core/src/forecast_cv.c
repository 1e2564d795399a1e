/* The fit's cross-validation (forecast_cv.h). */
#include <math.h>
#include <stdlib.h>

#include "forecast_cv.h"

/* What the fit of the other runs did not inform (no sample of theirs
 * depends on it) takes the profile's figure: the fitted one came from the
 * held-out run alone. */
static void uninformed_from_profile(rl_forecast_params *p, const rl_fit_informed *inf, const rl_forecast_params *profile) {
    for (int c = 0; c < RL_CLASS_COUNT; c++) {
        if (!inf->compute[c]) p->compute[c] = profile->compute[c];
        if (!inf->memory[c]) p->memory[c] = profile->memory[c];
    }
    if (!inf->kernel_s) p->kernel_s = profile->kernel_s;
    if (!inf->group_s) p->group_s = profile->group_s;
    if (!inf->tile_k0) p->tile_k0 = profile->tile_k0;
}

/* Fits the samples of the runs in_fit says (the fit of all runs, `fitted`,
 * refitted on them within `budget` evaluations, gaps filled from the
 * probes, what they do not inform set back to the profile's) into *p.
 * Returns 0, or -1 out of memory. */
static int fit_on_runs(const rl_fit_sample *s, int n, const bool *in_fit, const rl_fit_sample *probe, int n_probe,
                       const rl_forecast_params *fitted, const rl_forecast_params *profile, long long budget,
                       rl_fit_sample *rest, rl_forecast_params *p) {
    int m = 0;
    for (int i = 0; i < n; i++)
        if (in_fit[s[i].run]) rest[m++] = s[i];
    *p = *fitted;
    rl_fit_informed informed, filled;
    rl_fit_search search = {.budget = budget}, probe_search = {.budget = budget};
    if (rl_fit_params(rest, m, p, &informed, &search) ||
        rl_fit_fill_gaps(probe, n_probe, &informed, p, &filled, &probe_search))
        return -1;
    rl_fit_informed_join(&informed, &filled);
    uninformed_from_profile(p, &informed, profile);
    rl_fit_borrow_siblings(p, &informed);
    return 0;
}

double rl_fit_add_runs_gap(const rl_fit_cv_runs *runs, const bool *in_fit, int n_runs, rl_forecast_params *p) {
    double gap = 0, kernels = 0, kernels_s = 0, slope = 0, slope_w = 0;
    for (int q = 0; q < n_runs; q++) {
        if (in_fit && !in_fit[q]) continue;
        if (!(runs->gap_kernels[q] > 0)) continue;
        gap += runs->gap_s[q], kernels += runs->gap_kernels[q], kernels_s += runs->kernels_s[q];
        if (isfinite(runs->gap_growth[q]) && runs->kernels_s[q] > 0)
            slope += runs->gap_growth[q] * runs->kernels_s[q], slope_w += runs->kernels_s[q];
    }
    double g = slope_w > 0 && slope > 0 ? slope / slope_w : 0, lo = 0, hi = 0;
    if (kernels_s > 0 && g * kernels_s > gap) g = gap / kernels_s;
    if (!(kernels > 0 && rl_hw_figure_range("between_kernels_growth", &lo, &hi) && g >= lo && g <= hi)) g = 0;
    double fixed = kernels > 0 ? (gap - g * kernels_s) / kernels : 0;
    p->between_growth = g;
    if (!(fixed >= RL_FIT_MIN_KERNEL_S)) return 0;
    p->kernel_s += fixed;
    p->between_s = fixed;
    return fixed;
}

/* has[r]: whether run r < n_runs has samples (has: n_runs entries). */
static void runs_with_samples(const rl_fit_sample *s, int n, int n_runs, bool *has) {
    for (int r = 0; r < n_runs; r++) has[r] = false;
    for (int i = 0; i < n; i++)
        if (s[i].run >= 0 && s[i].run < n_runs) has[s[i].run] = true;
}

/* Run r's forecast under the stack fitted to the runs in_fit says (its
 * wall time, as the user's analysis forecasts it); NAN when it has none. */
static double held_out_forecast(const rl_fit_cv_runs *runs, const bool *in_fit, int n_runs, int r,
                                rl_forecast_params *p) {
    rl_fit_add_runs_gap(runs, in_fit, n_runs, p);
    if (runs->settle) runs->settle(runs->ctx, in_fit, n_runs, p);
    double fc = runs->forecast(runs->ctx, r, p);
    return fc > 0 && isfinite(fc) ? fc : NAN;
}

int rl_fit_leave_one_out(const rl_fit_sample *s, int n, int n_runs, const rl_fit_sample *probe, int n_probe,
                         const rl_forecast_params *fitted, const rl_forecast_params *profile,
                         const rl_fit_cv_runs *runs, double *measured, double *forecast) {
    rl_fit_sample *rest = malloc((size_t)(n > 0 ? n : 1) * sizeof *rest);
    bool *in_fit = malloc((size_t)(n_runs > 0 ? 2 * n_runs : 1) * sizeof *in_fit);
    bool *has = in_fit ? in_fit + n_runs : NULL;
    int status = rest && in_fit ? 0 : -1;
    if (!status) runs_with_samples(s, n, n_runs, has);
    for (int r = 0; r < n_runs && !status; r++) {
        int others = 0;
        for (int q = 0; q < n_runs; q++) in_fit[q] = q != r && has[q], others += in_fit[q];
        forecast[r] = NAN;
        measured[r] = has[r] ? runs->wall_s[r] : NAN;
        if (!(measured[r] > 0) || !others) continue;
        rl_forecast_params p;
        /* the held-out fits share one fit's budget of evaluations, so that
         * the cross-validation's work does not grow with the runs either */
        status = fit_on_runs(s, n, in_fit, probe, n_probe, fitted, profile, RL_FIT_BUDGET / n_runs, rest, &p);
        if (!status) forecast[r] = held_out_forecast(runs, in_fit, n_runs, r, &p);
    }
    free(rest), free(in_fit);
    return status;
}

int rl_fit_pair_fits(const rl_fit_sample *s, int n, int n_runs, const rl_fit_sample *probe, int n_probe,
                     const rl_forecast_params *fitted, const rl_forecast_params *profile,
                     const rl_fit_cv_runs *runs, rl_fit_pair_row *rows) {
    rl_fit_sample *rest = malloc((size_t)(n > 0 ? n : 1) * sizeof *rest);
    bool *in_fit = malloc((size_t)(n_runs > 0 ? 2 * n_runs : 1) * sizeof *in_fit);
    bool *has = in_fit ? in_fit + n_runs : NULL;
    int status = rest && in_fit ? 0 : -1, k = 0;
    const long long pairs = (long long)n_runs * (n_runs - 1) / 2;
    if (!status) runs_with_samples(s, n, n_runs, has);
    for (int a = 0; a < n_runs && !status; a++)
        for (int b = a + 1; b < n_runs && !status; b++) {
            for (int q = 0; q < n_runs; q++) in_fit[q] = q == a || q == b;
            rl_forecast_params p = *fitted;
            bool fitted_pair = has[a] && has[b];
            /* every pair's fit shares one fit's budget, as leave-one-out's do */
            if (fitted_pair)
                status = fit_on_runs(s, n, in_fit, probe, n_probe, fitted, profile, RL_FIT_BUDGET / pairs, rest, &p);
            for (int r = 0; r < n_runs && !status; r++) {
                if (r == a || r == b) continue;
                rl_fit_pair_row *row = &rows[k++];
                row->fit_a = a, row->fit_b = b, row->run = r;
                row->measured_s = has[r] ? runs->wall_s[r] : NAN;
                rl_forecast_params pr = p;
                row->forecast_s = fitted_pair && row->measured_s > 0 ? held_out_forecast(runs, in_fit, n_runs, r, &pr)
                                                                     : NAN;
            }
        }
    free(rest), free(in_fit);
    return status ? -1 : k;
}

static int cmp_asc(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-th quantile of sorted v[0..n), n >= 1, interpolated linearly. */
static double quantile(const double *v, int n, double q) {
    double at = q * (n - 1);
    int i = (int)at;
    return i + 1 < n ? v[i] + (at - i) * (v[i + 1] - v[i]) : v[n - 1];
}

bool rl_fit_band_of(const double *measured, const double *forecast, int n_runs, rl_fit_band *b) {
    double *size = malloc((size_t)(n_runs > 0 ? 2 * n_runs : 1) * sizeof *size), *err = size + n_runs;
    if (!size) return false;
    int k = 0;
    for (int r = 0; r < n_runs; r++)
        if (measured[r] > 0 && forecast[r] > 0 && isfinite(measured[r] / forecast[r])) {
            double ratio = measured[r] / forecast[r];
            size[k] = fabs(log(ratio));
            err[k] = fabs(ratio - 1);
            k++;
        }
    bool ok = k >= RL_BAND_MIN_RUNS;
    if (ok) {
        qsort(size, (size_t)k, sizeof *size, cmp_asc);
        qsort(err, (size_t)k, sizeof *err, cmp_asc);
        /* as far below as above: a handful of held-out runs tells how far
         * off a forecast is, not which way (docs/model.md §12.8) */
        double q = quantile(size, k, 0.9);
        b->low = exp(-q);
        b->high = exp(q);
        b->median_error = quantile(err, k, 0.5);
        b->worst_error = err[k - 1];
        b->runs = k;
    }
    free(size);
    return ok;
}
