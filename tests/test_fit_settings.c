/* The stack settings a fit's runs tell (fit_settings.c), decided from the
 * runs a fit is made of: the fit of all runs from all, a held-out fit of
 * the cross-validation (forecast_cv.c) from its own runs alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fit_samples.h"
#include "forecast_cv.h"

/* Whether p runs the epilogues of operator type t apart. */
static bool apart(const rl_forecast_params *p, const char *t) {
    for (int i = 0; i < p->n_apart; i++)
        if (!strcmp(p->apart[i], t)) return true;
    return false;
}

/* Four runs as ONNX Runtime with its graph optimisations on ran them: two
 * CNNs, far fewer kernels than their unfused plans (their convolutions'
 * epilogues inside; one's classifier Gemm apart), and two transformers
 * that launched nearly every node of theirs (their MatMuls' bias Adds
 * apart, and their GELUs, epilogues that branch) but folded their constants' shape arithmetic and merged the
 * computations alike. `optimised`: whether the transformers' runs show
 * that optimiser at work (else they ran the graph as written). */
static fit_samples *four_runs(bool optimised) {
    fit_samples *fs = calloc(1, sizeof *fs);
    static const double launched[] = {24, 84, 304, 347}, unfused[] = {48, 139, 316, 367};
    for (int r = 0; r < 4; r++) fs->launched[r] = launched[r], fs->plan_unfused[r] = unfused[r];
    fs->n_heads = 3;
    strcpy(fs->heads[0], "Conv"), strcpy(fs->heads[1], "Gemm"), strcpy(fs->heads[2], "MatMul");
    static const rl_fit_epilogue_vote votes[] = {
        {0, 0, 16, 0}, {0, 1, 0, 1}, {1, 0, 40, 2}, {2, 2, 1, 72}, {2, RL_FIT_BRANCHES, 12, 60},
        {3, 2, 0, 96}, {3, RL_FIT_BRANCHES, 0, 48},
    };
    fs->n_votes = fs->cap_votes = (int)(sizeof votes / sizeof *votes);
    fs->votes = malloc(sizeof votes);
    memcpy(fs->votes, votes, sizeof votes);
    fs->run_votes[0].conv_s = fs->run_votes[1].conv_s = 1e-2;
    for (int r = 2; r < 4; r++) {
        rl_fit_run_votes *x = &fs->run_votes[r];
        x->distinct_ran = 60;
        if (optimised) x->shape_folded[0] = 24, x->alike_folded = 90, x->alike_ran = 3;
        else x->shape_ran[0] = 24, x->alike_ran = 93;
    }
    return fs;
}

static void free_runs(fit_samples *fs) {
    free(fs->votes);
    free(fs);
}

/* The fit of all four runs, and of each pair, decide alike only where
 * their runs tell alike. */
static void settings_per_subset(void) {
    fit_samples *fs = four_runs(true);
    rl_forecast_params p = {0};
    rl_fit_settle(fs, NULL, 4, &p);
    CHECK(!p.unfused && !apart(&p, "Conv") && apart(&p, "Gemm") && apart(&p, "MatMul") && p.n_apart == 2,
          "all four: fused, Gemm and MatMul epilogues apart (%d apart)", p.n_apart);
    CHECK(p.shape_ops == RL_SHAPE_DISTINCT, "all four: one of each distinct computation runs (%d)", p.shape_ops);
    CHECK(p.branches_apart, "all four: the epilogues that branch run apart");
    bool cnns[4] = {true, true, false, false}, transformers[4] = {false, false, true, true};
    rl_fit_settle(fs, cnns, 4, &p);
    CHECK(!p.unfused && apart(&p, "Gemm") && !apart(&p, "MatMul") && p.n_apart == 1 && !p.branches_apart,
          "the CNNs alone: Gemm apart, MatMul and branching epilogues not told (%d apart)", p.n_apart);
    rl_fit_settle(fs, transformers, 4, &p);
    CHECK(!p.unfused && apart(&p, "MatMul") && p.n_apart == 1,
          "the transformers alone launched nearly all their nodes, but an optimiser folded and merged: a fusing "
          "stack with MatMul apart, the convolutions fused as it fuses (%d, %d apart)", p.unfused, p.n_apart);
    free_runs(fs);
    fs = four_runs(false);
    rl_fit_settle(fs, transformers, 4, &p);
    CHECK(p.unfused && p.n_apart == 0 && !p.branches_apart && p.shape_ops == RL_SHAPE_RUN,
          "transformers run as written: a stack that fuses nothing and runs its shape arithmetic (%d, %d, %d)",
          p.unfused, p.n_apart, p.shape_ops);
    rl_fit_settle(fs, NULL, 4, &p);
    CHECK(!p.unfused, "with the CNNs, which fused, the stack fuses");
    rl_fit_run_votes t = rl_fit_votes_of(fs, transformers, 4);
    CHECK(t.conv_s == 0 && rl_fit_votes_of(fs, cnns, 4).conv_s == 2e-2, "the convolution time of each subset");
    free_runs(fs);
}

/* The cross-validation asks runs->settle for each held-out fit's settings
 * (its runs alone) before it forecasts: here a stack whose fits without
 * run 0 run unfused, and whose unfused forecasts are twice as long. */
static void settle_of(void *ctx, const bool *in_fit, int n_runs, rl_forecast_params *p) {
    (void)ctx, (void)n_runs;
    p->unfused = !in_fit[0];
}

static double forecast_of(void *ctx, int run, const rl_forecast_params *p) {
    (void)ctx, (void)run;
    return p->unfused ? 2e-3 : 1e-3;
}

static void held_out_fits_settle(void) {
    enum { RUNS = 4, PER_RUN = 3 };
    rl_fit_sample s[RUNS * PER_RUN];
    memset(s, 0, sizeof s);
    for (int i = 0; i < RUNS * PER_RUN; i++) {
        s[i].k.kernels = 1, s[i].k.cls = RL_CLASS_ELEMENTWISE;
        s[i].k.t_dram = 1e-4, s[i].measured_s = 2e-4, s[i].run = i / PER_RUN;
    }
    rl_forecast_params fitted = {0};
    for (int c = 0; c < RL_CLASS_COUNT; c++) fitted.compute[c] = fitted.memory[c] = 0.5;
    fitted.kernel_s = 1e-6, fitted.tile_m = fitted.tile_n = fitted.tile_k = fitted.units = 1, fitted.tile_k0 = 1e-3;
    double wall[RUNS] = {1e-3, 1e-3, 1e-3, 1e-3}, gap[RUNS] = {0}, gap_kernels[RUNS] = {0}, growth[RUNS] = {0},
           kernels_s[RUNS] = {0};
    rl_fit_cv_runs runs = {.wall_s = wall,       .gap_s = gap,           .gap_kernels = gap_kernels,
                           .gap_growth = growth, .kernels_s = kernels_s, .forecast = forecast_of,
                           .settle = settle_of};
    double measured[RUNS], forecast[RUNS];
    CHECK(rl_fit_leave_one_out(s, RUNS * PER_RUN, RUNS, NULL, 0, &fitted, &fitted, &runs, measured, forecast) == 0,
          "leave-one-out runs");
    CHECK(forecast[0] == 2e-3 && forecast[1] == 1e-3 && forecast[3] == 1e-3,
          "the fit without run 0 takes its own settings: %g %g %g", forecast[0], forecast[1], forecast[3]);
    rl_fit_pair_row rows[RUNS * (RUNS - 1) * (RUNS - 2) / 2];
    int n = rl_fit_pair_fits(s, RUNS * PER_RUN, RUNS, NULL, 0, &fitted, &fitted, &runs, rows);
    int right = 0;
    for (int i = 0; i < n; i++)
        right += rows[i].forecast_s == (rows[i].fit_a == 0 ? 1e-3 : 2e-3);
    CHECK(n == 12 && right == 12, "each pair's fit takes the settings of its pair (%d of %d)", right, n);
}

int main(void) {
    settings_per_subset();
    held_out_fits_settle();
    return check_report("fit settings");
}
