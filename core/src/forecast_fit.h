/* The forecast's fit (docs/model.md §12.5): the parameters of a profile's
 * forecast (the achievable fractions per op class and the fixed cost per
 * kernel) chosen so that the forecast of measured kernels matches their
 * measured times. rl_fit_forecast (analyze.c) turns (model, measured
 * profile) pairs into samples; this file fits them.
 *
 * The fit minimises Σ |log(forecast / measured)| over the samples (robust:
 * one bad kernel moves it little) by coordinate search in log space: each
 * parameter in turn over a coarse grid of its range, then finer grids around
 * the best, sweeps repeated until nothing improves. Deterministic: the same
 * samples give the same parameters. A parameter no sample depends on keeps
 * its value (and is reported as not fitted).
 *
 * Ownership: the caller owns every array; nothing is allocated. */
#ifndef ROOFLENS_FORECAST_FIT_H
#define ROOFLENS_FORECAST_FIT_H
#include "forecast.h"

/* One measured kernel group: its figures at full efficiency and its time. */
typedef struct rl_fit_sample {
    rl_fc_kernel k;
    double measured_s;
    int run;               /* which input it came from */
    double weight;         /* its weight in the fit's objective (0: 1): 1 / its run's measured time, so that
                              each model counts alike, not the longest alone */
} rl_fit_sample;

/* Which parameters the samples inform (some sample's forecast depends on it). */
typedef struct rl_fit_informed {
    bool compute[RL_CLASS_COUNT], memory[RL_CLASS_COUNT], kernel_s, group_s, tile_k0;
    bool conv_lowering; /* the runs told how the stack lowers a convolution (analyze_fit.c) */
    /* how many of the measured kernels inform each class's fractions (0
     * where none does): a figure a few kernels set is a weak one */
    int n_compute[RL_CLASS_COUNT], n_memory[RL_CLASS_COUNT];
} rl_fit_informed;

/* The shortest time a kernel can take: a few clock cycles. No dispatch of a
 * kernel is quicker, and the fit's fixed cost per kernel goes no lower
 * (forecast_fit.c), so a shorter time (a denormal, 1e-15 s) is a wrong
 * unit or a broken file, never a measurement. */
#define RL_FIT_MIN_KERNEL_S 1e-9

/* How the search went: samples with the same figures are pooled (the
 * forecast gives them one time), and the search stops once it has made
 * RL_FIT_BUDGET evaluations of a pool's loss, whatever the input's size. */
#define RL_FIT_BUDGET 40000000LL
typedef struct rl_fit_search {
    long long budget;      /* in: the evaluations allowed (0: RL_FIT_BUDGET) */
    int pools;             /* distinct kernel figures among the samples */
    long long evaluations; /* pool losses evaluated */
    bool stopped;          /* the budget ended the search before it converged */
} rl_fit_search;

/* Fit `p` (its other fields untouched) to n samples; *informed says which
 * parameters moved with the data, *search how the search went. 0, or -1
 * out of memory. */
int rl_fit_params(const rl_fit_sample *s, int n, rl_forecast_params *p, rl_fit_informed *informed,
                  rl_fit_search *search);

/* The product classes a fit had no kernel of, filled from probe kernels:
 * on samples s (the probes' kernels, weighed as rl_fit_params weighs any),
 * only the compute fraction of a product class (matrix, convolution) that
 * `told` does not mark (what the user's own models informed) is searched,
 * and every other parameter keeps p's value, so a probe never moves what
 * the models set. Without probes such a class borrows its sibling's
 * figures, though the two run different kernels at different shares of
 * the peak (ONNX Runtime's packed SGEMM at 0.84 of this project's CPU, its
 * direct NCHWc convolutions at 0.95). A stack that lowers convolutions by
 * im2col (p->im2col) runs them through the GEMM kernel itself, so there
 * the sibling's figure is the class's own and nothing is filled (on run
 * 14, the probes' convolutions, reading their inputs cold from the host,
 * ran at 0.70 of the peak where the networks' ran at the GEMMs' 0.79).
 * Everything else keeps the profile's
 * (or the borrowed) figure: on the CPU validation's run 14
 * (docs/validation.md), probes that also set the depthwise, data-movement
 * and normalization classes and the cost per group from their few shapes
 * forecast the depthwise networks 12-20 points worse than the profile's
 * estimates did, RegNets and ShuffleNetV2 10-23 points worse; and one 1x1
 * convolution set the convolutions' memory share to 0.11 (ResNet-18's set
 * 0.27), which forecast every CNN 16-85 % slow with graph optimisations
 * off. *filled: the fractions the samples set. 0, or -1 out of memory. */
int rl_fit_fill_gaps(const rl_fit_sample *s, int n, const rl_fit_informed *told, rl_forecast_params *p,
                     rl_fit_informed *filled, rl_fit_search *search);

/* a's parameters informed, or b's (the lowering: a's); their counts of kernels added. */
void rl_fit_informed_join(rl_fit_informed *a, const rl_fit_informed *b);

/* The class whose fitted fractions an unfitted class takes: the other
 * dense product (matrix for convolution and back), which runs on the same
 * multiply-add units through the same runtime's micro-kernels; -1 for the
 * classes with no sibling, which keep the profile's figures. */
int rl_fit_sibling(int cls);

/* Each fraction the samples did not inform, of a class whose sibling's
 * they did: the sibling's fitted figure (rl_fit_params does this; a
 * caller that resets unfitted figures to a profile's does it again). */
void rl_fit_borrow_siblings(rl_forecast_params *p, const rl_fit_informed *inf);

/* The fit's objective (the lower the better) of n samples under p: how far
 * the forecast is from the measured times, weighted by the time at stake. */
double rl_fit_loss(const rl_fit_sample *s, int n, const rl_forecast_params *p);

/* |forecast − measured| / measured of one sample under p. */
double rl_fit_rel_error(const rl_fit_sample *s, const rl_forecast_params *p);
#endif
