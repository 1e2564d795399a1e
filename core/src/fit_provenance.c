/* The fit's provenance (fit_samples.h): the "fit" block of a fitted
 * profile, from the samples analyze_fit.c drew. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit_samples.h"
#include "forecast.h"
#include "forecast_cv.h"
#include "json.h"
#include "words.h"

/* Median and maximum of v[0..n) (sorted in place). */
static void median_max(double *v, int n, double *median, double *max) {
    *median = rl_median(v, n);
    *max = n ? v[n - 1] : NAN;
}

/* Input r's measured time and its forecast under p: the sums over its samples. */
void rl_fit_run_totals(const fit_samples *fs, int r, const rl_forecast_params *p, double *meas, double *fc) {
    *meas = *fc = 0;
    for (int i = 0; i < fs->n; i++)
        if (fs->s[i].run == r) *meas += fs->s[i].measured_s, *fc += rl_fc_kernel_time(&fs->s[i].k, p);
}

/* One run's row of the provenance: its name, kernels, measured and
 * forecast time under p and their relative error (*error; -1 when nothing
 * was measured). */
static cJSON *run_row(const fit_samples *fs, int r, const char *name, const rl_forecast_params *p, double *error) {
    double meas, fc;
    int k = 0;
    rl_fit_run_totals(fs, r, p, &meas, &fc);
    for (int i = 0; i < fs->n; i++) k += fs->s[i].run == r;
    *error = meas > 0 ? fabs(fc - meas) / meas : -1;
    cJSON *row = cJSON_CreateObject();
    cJSON_AddStringToObject(row, "name", name);
    cJSON_AddNumberToObject(row, "kernels", k);
    rl_json_add_num(row, "measured_s", meas);
    rl_json_add_num(row, "forecast_s", fc);
    rl_json_add_num(row, "error", *error >= 0 ? *error : NAN);
    return row;
}

/* fit.search: the distinct kernels the search worked on (samples with the
 * same figures pooled), the evaluations it made, and whether its budget
 * stopped it before it converged (then a note says so: the parameters are
 * the best it found, and the errors above say how good they are). */
static void add_search(cJSON *fit, const rl_fit_search *s) {
    cJSON *o = cJSON_AddObjectToObject(fit, "search");
    cJSON_AddNumberToObject(o, "distinct_kernels", s->pools);
    cJSON_AddNumberToObject(o, "evaluations", (double)s->evaluations);
    cJSON_AddNumberToObject(o, "budget", (double)RL_FIT_BUDGET);
    cJSON_AddBoolToObject(o, "stopped", s->stopped);
    if (s->stopped)
        cJSON_AddStringToObject(o, "note", "the search stopped at its budget of kernel evaluations before it "
                                           "converged: the parameters are the best it found");
}

/* The fit's provenance: per run its kernels, measured and forecast time and
 * their relative error; per kernel and per model the median and maximum. */
cJSON *rl_fit_provenance(const fit_samples *fs, const rl_fit_input *in, size_t n_in, const rl_forecast_params *p,
                         double *kernel_median) {
    cJSON *fit = cJSON_CreateObject();
    double *err = malloc((size_t)(fs->n + (int)n_in + 1) * sizeof *err), *run_err = err ? err + fs->n : NULL;
    if (!fit || !err) {
        free(err);
        cJSON_Delete(fit);
        return NULL;
    }
    cJSON *models = cJSON_AddArrayToObject(fit, "models");
    int n_runs = 0;
    for (size_t r = 0; r < n_in; r++) {
        char label[32];
        snprintf(label, sizeof label, "model %zu", r + 1);
        double error;
        cJSON *mo = run_row(fs, (int)r, in[r].name ? in[r].name : label, p, &error);
        cJSON_AddNumberToObject(mo, "kernels_launched", fs->launched[r]);
        cJSON_AddNumberToObject(mo, "kernels_unfused_plan", fs->plan_unfused[r]);
        cJSON_AddNumberToObject(mo, "kernels_fused_plan", fs->plan_fused[r]);
        if (error >= 0) run_err[n_runs++] = error;
        cJSON_AddItemToArray(models, mo);
    }
    for (int i = 0; i < fs->n; i++) err[i] = rl_fit_rel_error(&fs->s[i], p);
    double med, max;
    cJSON_AddNumberToObject(fit, "kernels", fs->n);
    median_max(err, fs->n, &med, &max);
    *kernel_median = med;
    rl_json_add_num(fit, "kernel_median_error", med);
    rl_json_add_num(fit, "kernel_max_error", max);
    median_max(run_err, n_runs, &med, &max);
    rl_json_add_num(fit, "model_median_error", med);
    rl_json_add_num(fit, "model_max_error", max);
    free(err);
    add_search(fit, &fs->search);
    return fit;
}

/* fit.held_out_pairs: every pair's fit forecasting each other model
 * (rl_fit_pair_fits), and in meas / fc their figures for the band.
 * Returns the rows, or -1 out of memory. */
static int add_pair_rows(cJSON *fit, const fit_samples *fs, const fit_samples *probes, const rl_fit_input *in,
                         size_t n_in, const rl_forecast_params *fitted, const rl_forecast_params *profile,
                         const rl_fit_cv_runs *runs, double **meas, double **fc) {
    size_t most = n_in * (n_in - 1) * (n_in - 2) / 2;
    rl_fit_pair_row *rows = malloc((most ? most : 1) * sizeof *rows);
    *meas = malloc(2 * (most ? most : 1) * sizeof **meas);
    int k = rows && *meas ? rl_fit_pair_fits(fs->s, fs->n, (int)n_in, probes ? probes->s : NULL,
                                             probes ? probes->n : 0, fitted, profile, runs, rows)
                          : -1;
    cJSON *arr = k >= 0 ? cJSON_AddArrayToObject(fit, "held_out_pairs") : NULL;
    *fc = *meas ? *meas + (most ? most : 1) : NULL;
    for (int i = 0; i < k && arr; i++) {
        const rl_fit_pair_row *r = &rows[i];
        cJSON *row = cJSON_CreateObject(), *on = cJSON_AddArrayToObject(row, "fit_on");
        cJSON_AddItemToArray(on, cJSON_CreateString(in[r->fit_a].name ? in[r->fit_a].name : "a model"));
        cJSON_AddItemToArray(on, cJSON_CreateString(in[r->fit_b].name ? in[r->fit_b].name : "a model"));
        cJSON_AddStringToObject(row, "name", in[r->run].name ? in[r->run].name : "a model");
        rl_json_add_num(row, "measured_s", r->measured_s);
        rl_json_add_num(row, "forecast_s", r->forecast_s);
        rl_json_add_num(row, "error", r->forecast_s > 0 ? r->measured_s / r->forecast_s - 1 : NAN);
        cJSON_AddItemToArray(arr, row);
        (*meas)[i] = r->measured_s, (*fc)[i] = r->forecast_s;
    }
    free(rows);
    return k;
}

/* The fit's cross-validation (forecast_cv.h): fit.held_out, each run
 * forecast by a fit of the others (rl_fit_leave_one_out: the stack's
 * settings those others tell), and the profile's forecast.band from their
 * ratios; a fit of fewer than RL_BAND_PAIRS_BELOW models (and more than
 * 3, where a pair's fit is a leave-one-out fit) takes the band from
 * fit.held_out_pairs instead. With fewer than RL_BAND_MIN_RUNS held-out
 * runs no band (a base profile's own band, of another stack, is dropped)
 * and fit.band_missing says why. */
int rl_fit_add_cross_validation(cJSON *fit, cJSON *fc_block, const fit_samples *fs, const fit_samples *probes,
                                const rl_fit_input *in, size_t n_in, const rl_forecast_params *fitted,
                                const rl_forecast_params *profile, const rl_fit_cv_runs *runs) {
    double *meas = malloc(2 * (n_in + 1) * sizeof *meas), *fc = meas ? meas + n_in + 1 : NULL;
    rl_fit_band b;
    bool banded = false, by_pairs = n_in > RL_BAND_MIN_RUNS && n_in < RL_BAND_PAIRS_BELOW;
    if (!meas) return -1;
    if (n_in >= RL_BAND_MIN_RUNS) {
        if (rl_fit_leave_one_out(fs->s, fs->n, (int)n_in, probes ? probes->s : NULL, probes ? probes->n : 0, fitted,
                                 profile, runs, meas, fc))
            return free(meas), -1;
        cJSON *rows = cJSON_AddArrayToObject(fit, "held_out");
        for (size_t r = 0; r < n_in; r++) {
            cJSON *row = cJSON_CreateObject();
            cJSON_AddStringToObject(row, "name", in[r].name ? in[r].name : "a model");
            rl_json_add_num(row, "measured_s", meas[r]);
            rl_json_add_num(row, "forecast_s", fc[r]);
            rl_json_add_num(row, "error", fc[r] > 0 ? meas[r] / fc[r] - 1 : NAN);
            cJSON_AddItemToArray(rows, row);
        }
        if (!by_pairs) banded = rl_fit_band_of(meas, fc, (int)n_in, &b);
    }
    free(meas);
    if (by_pairs) {
        double *pm = NULL, *pf = NULL;
        int k = add_pair_rows(fit, fs, probes, in, n_in, fitted, profile, runs, &pm, &pf);
        banded = k >= 0 && rl_fit_band_of(pm, pf, k, &b);
        free(pm);
        if (k < 0) return -1;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(fc_block, "band");
    if (!banded) {
        cJSON_AddStringToObject(fit, "band_missing",
                                n_in < RL_BAND_MIN_RUNS
                                    ? "no error band: it needs at least 3 held-out runs, and a fit on fewer than 3 "
                                      "models has fewer (each model is forecast by a fit of the others)"
                                    : "no error band: fewer than 3 of the models could be forecast by a fit of the "
                                      "others (a model without matched kernels, or the only one with any)");
        return 0;
    }
    cJSON *band = cJSON_CreateObject();
    /* two decimals, outward: the band never narrower than its runs' */
    cJSON_AddNumberToObject(band, "low", fmax(0.01, floor(100 * b.low) / 100));
    cJSON_AddNumberToObject(band, "high", ceil(100 * b.high) / 100);
    cJSON_AddNumberToObject(band, "runs", b.runs);
    if (by_pairs && (double)n_in <= b.runs) cJSON_AddNumberToObject(band, "models", (double)n_in);
    cJSON_AddNumberToObject(band, "median_error", round(1000 * b.median_error) / 1000);
    cJSON_AddNumberToObject(band, "worst_error", ceil(1000 * b.worst_error) / 1000);
    cJSON_AddStringToObject(band, "basis", rl_value_id(RL_LIST_BAND_BASIS, RL_BAND_FIT_CROSS_VALIDATION));
    cJSON_AddStringToObject(band, "source",
                            by_pairs ? "forecast.fit.held_out_pairs (each fit model forecast by the fit of every "
                                       "pair of the others)"
                                     : "forecast.fit.held_out (each fit model forecast by a fit of the others)");
    cJSON_AddItemToObject(fc_block, "band", band);
    return 0;
}

/* The source text of a fitted figure: the kernels and the models. */
/* Appends to out (k bytes written of size) the inputs' names, ", "
 * between them, whole names only: where the next would leave less than
 * RL_FIT_SOURCE_TAIL bytes (for what the caller writes after the list), it
 * says how many are left instead. Returns the new length. */
static int append_names(char *out, size_t size, int k, const rl_fit_input *in, size_t n, const char *unnamed) {
    for (size_t r = 0; r < n && k >= 0 && (size_t)k < size; r++) {
        const char *name = in[r].name ? in[r].name : unnamed;
        if ((size_t)k + strlen(name) + 2 + RL_FIT_SOURCE_TAIL >= size) {
            k += snprintf(out + k, size - (size_t)k, " and %zu more", n - r);
            break;
        }
        k += snprintf(out + k, size - (size_t)k, "%s%s", r ? ", " : "", name);
    }
    return k;
}

void rl_fit_source(char *out, size_t size, const fit_samples *fs, const rl_fit_input *in, size_t n_in,
                   double median) {
    int k = snprintf(out, size, "fitted by rooflens on %d measured kernels of ", fs->n);
    k = append_names(out, size, k, in, n_in, "a model");
    if (k > 0 && (size_t)k < size)
        snprintf(out + k, size - (size_t)k, " (median error per kernel %.1f%%)", 100 * median);
}

/* The source text of a fraction the probes set. */
void rl_fit_probe_source(char *out, size_t size, const fit_samples *ps, const rl_fit_input *probe, size_t n) {
    int k = snprintf(out, size, "fitted by rooflens on %d measured kernels of the probe models ", ps->n);
    k = append_names(out, size, k, probe, n, "a probe");
    if (k > 0 && (size_t)k < size)
        snprintf(out + k, size - (size_t)k, ": no kernel of this class among the models fitted");
}

/* fit.probes: per probe its kernels, measured and forecast time (under the
 * fitted stack), and what it set. */
void rl_fit_add_probes(cJSON *fit, const fit_samples *ps, const rl_fit_input *probe, size_t n_probe,
                       const rl_forecast_params *p) {
    if (!n_probe) return;
    cJSON *rows = cJSON_AddArrayToObject(fit, "probes");
    double error;
    for (size_t r = 0; r < n_probe; r++)
        cJSON_AddItemToArray(rows, run_row(ps, (int)r, probe[r].name ? probe[r].name : "a probe", p, &error));
}

/* fit.conv_lowering_from: what told the stack's lowering of convolutions. */
void rl_fit_add_lowering_source(cJSON *fit, const fit_samples *fs) {
    cJSON_AddStringToObject(fit, "conv_lowering_from",
                            fs->lowering_told ? "the runs' kernels (the layout ONNX Runtime ran most convolution time in)"
                            : fs->lowering_unfolded
                                ? "the runs' graph: no convolution ran, and the stack folds nothing (every view "
                                  "and shape computation ran), so it runs the graph as written, with no blocked "
                                  "layout"
                                : "the fit (the lowering whose forecast of the kernels was closer)");
}
