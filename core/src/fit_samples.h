/* What the fit draws from its runs (fit_samples, filled by analyze_fit.c)
 * and the writing of its provenance, the "fit" block (fit_provenance.c):
 * per model its kernels and errors, the cross-validation and band, the
 * probes, the sources of the fitted figures. Used by the fit only.
 *
 * Ownership: fit_samples owns its samples array (s, freed by the fit);
 * every cJSON made here is added to the caller's objects, which own it. */
#ifndef ROOFLENS_FIT_SAMPLES_H
#define ROOFLENS_FIT_SAMPLES_H
#include <cjson/cJSON.h>

#include "fit_profile.h"
#include "forecast_cv.h"
#include "forecast_fit.h"
#include "rooflens.h"
#include "timing.h"

/* The most inputs a fit takes; a run's kernel counts are kept for each (the stack's fusion). */
#define RL_FIT_MAX_RUNS 1000
/* Operator types whose epilogues the fit tells apart (a model has a few). */
#define RL_FIT_MAX_HEADS 64

/* One run's vote on the epilogues of operator type `head` (an index into
 * fit_samples.heads; RL_FIT_BRANCHES: on the epilogues that branch,
 * rl_fc_group_branches, whatever their head): its groups' members
 * measured inside the head's kernel (together) and apart. */
#define RL_FIT_BRANCHES (-2)
typedef struct rl_fit_epilogue_vote {
    int run, head, together, apart;
} rl_fit_epilogue_vote;

/* What one run's kernels tell of the stack beyond its epilogues
 * (fit_settings.c). The nodes the plan counts as no kernel (views, folded
 * shape arithmetic), [0] those of weights and constants alone, [1] those
 * that depend on the inputs: how many ran as kernels, how many not; of
 * those that depend on the inputs, merged as a stack's
 * common-subexpression elimination merges identical ones: the distinct
 * computations of which some node ran or none did, and the others alike
 * (beyond one a computation) that ran or not. Its dense convolutions'
 * measured time (conv_s), and of ONNX Runtime's, the time in its blocked
 * NCHWc layout (named "<output>_nchwc": MLAS's direct convolution) and in
 * the plain one (its Conv kernel: im2col and a GEMM), which tell how the
 * stack lowers them (analyze_fit.c, fit_lowerings). */
typedef struct rl_fit_run_votes {
    int shape_ran[2], shape_folded[2], distinct_ran, distinct_folded, alike_ran, alike_folded;
    double conv_s, conv_blocked, conv_plain;
} rl_fit_run_votes;

/* What the runs of a fit gave: each (model, measured profile) run analysed
 * as rl_model_analyze would, its measured kernel groups turned into
 * samples of the forecast's figures (forecast.h), and what the kernels say
 * of the stack. */
typedef struct fit_samples {
    rl_fit_sample *s;
    int n, cap;
    const char *format; /* the first run's profile format ("ort", "trtexec", "csv") */
    /* per run: the kernels it launched (matched to nodes) and the kernels
     * of the model's unfused and fused plans (docs/model.md §4) */
    double launched[RL_FIT_MAX_RUNS], plan_unfused[RL_FIT_MAX_RUNS], plan_fused[RL_FIT_MAX_RUNS];
    /* per run: its time between kernels (measured.between_kernels_s: a
     * typical run's wall time minus its own kernels' times) and the kernels
     * it launched (0 for a profile without wall times), and its measured
     * wall time: a typical run's (its kernels' times where the profile
     * gives no wall time), NAN none; rl_fit_add_runs_gap pools them */
    double run_gap_s[RL_FIT_MAX_RUNS], run_gap_kernels[RL_FIT_MAX_RUNS], run_wall_s[RL_FIT_MAX_RUNS];
    /* per run: how its time between kernels grows with the kernel before
     * (measured.between_kernels_growth, NAN none) and its kernels' own
     * time, s (measured.total_s) */
    double run_gap_growth[RL_FIT_MAX_RUNS], run_kernels_s[RL_FIT_MAX_RUNS];
    /* the operator types that head a fused group of the plan with an
     * epilogue measured (rl_fit_vote_epilogues), and per run and head how
     * many of its groups measured ran their epilogue inside the head's
     * kernel, how many apart (the runs vote in turn: a run's votes follow
     * each other) */
    char heads[RL_FIT_MAX_HEADS][65];
    int n_heads;
    rl_fit_epilogue_vote *votes;
    int n_votes, cap_votes;
    rl_fit_run_votes run_votes[RL_FIT_MAX_RUNS]; /* per run: what else its kernels tell of the stack */
    rl_fit_search search; /* how the fit's search went (forecast_fit.h) */
    /* the operator types of the nodes in measured kernels, by class (as many
     * as fit; a fit of many models has some tens) */
    rl_fit_op ops[RL_FC_MAX_FITTED_OPS];
    int n_ops;
    bool lowering_told; /* the lowering came from those layouts, not from the fit */
    bool lowering_unfolded; /* no convolution ran; the lowering came from a graph run unfolded (fit_lowerings) */
} fit_samples;

/* Input r's measured time (*meas) and its forecast under p (*fc): the
 * sums over its samples. */
void rl_fit_run_totals(const fit_samples *fs, int r, const rl_forecast_params *p, double *meas, double *fc);

/* The fit's provenance, a new object the caller owns: per model of in[0..
 * n_in) its kernels, measured and forecast time and their relative error;
 * per kernel and per model the median and maximum (*kernel_median: the
 * kernels'), and the search. NULL out of memory. */
cJSON *rl_fit_provenance(const fit_samples *fs, const rl_fit_input *in, size_t n_in, const rl_forecast_params *p,
                         double *kernel_median);

/* The fit's cross-validation (forecast_cv.h) into fit (fit.held_out, or
 * fit.band_missing) and fc_block (the profile's forecast.band): each
 * model forecast by a fit of the others (the stack's settings those tell,
 * the gaps filled from probes when given), with fewer than
 * RL_BAND_MIN_RUNS held-out runs no band (a base profile's own band, of
 * another stack, is dropped). 0, or -1 out of memory. */
int rl_fit_add_cross_validation(cJSON *fit, cJSON *fc_block, const fit_samples *fs, const fit_samples *probes,
                                const rl_fit_input *in, size_t n_in, const rl_forecast_params *fitted,
                                const rl_forecast_params *profile, const rl_fit_cv_runs *runs);

/* The source text of a figure the models set (out, size bytes): the
 * kernels, the models and the median error per kernel. */
void rl_fit_source(char *out, size_t size, const fit_samples *fs, const rl_fit_input *in, size_t n_in,
                   double median);

/* The source text of a figure the probes set (rl_fit_fill_gaps). */
void rl_fit_probe_source(char *out, size_t size, const fit_samples *ps, const rl_fit_input *probe, size_t n);

/* fit.probes (when n_probe > 0): per probe its kernels, measured and
 * forecast time under p, and the error. */
void rl_fit_add_probes(cJSON *fit, const fit_samples *ps, const rl_fit_input *probe, size_t n_probe,
                       const rl_forecast_params *p);

/* fit.conv_lowering_from: what told the stack's lowering of convolutions. */
void rl_fit_add_lowering_source(cJSON *fit, const fit_samples *fs);
/* The votes of run `run`'s measured groups (set_of: each node's group,
 * -1 when not measured) on the epilogues of the plan's fused groups. 0, or
 * -1 out of memory. */
int rl_fit_vote_epilogues(const rl_prepared *pg, const int *set_of, int run, fit_samples *fs);

/* Which views and pieces of folded shape arithmetic of run `run` ran as
 * kernels: by whether they depend on the inputs, and of those, per
 * distinct computation (rl_fc_first_alike) and for the others alike. A
 * stack that merges identical computations ran one node of each and few
 * others alike. 0, or -1 out of memory (c's arena). */
int rl_fit_vote_shape_ops(rl_ctx *c, const rl_prepared *pg, const int *set_of, int run, fit_samples *fs);

/* Adds a measured group (its first node `first`, measured_s long; grp
 * and measured: the group and the profile of measured.json) to run `run`'s
 * dense convolution time and, for ONNX Runtime's, to its layout's. */
void rl_fit_count_conv_layout(const rl_prepared *pg, int first, const cJSON *grp, const cJSON *measured,
                              double measured_s, int run, fit_samples *fs);

/* The votes of the runs in_fit says (NULL: all n_runs), summed. */
rl_fit_run_votes rl_fit_votes_of(const fit_samples *fs, const bool *in_fit, int n_runs);

/* The stack settings the runs in_fit says (NULL: all n_runs) tell, into
 * p: whether it fuses (p->unfused), its epilogues apart (p->apart: names
 * that point into fs, valid while fs is) and the shape arithmetic it runs
 * (p->shape_ops). */
void rl_fit_settle(const fit_samples *fs, const bool *in_fit, int n_runs, rl_forecast_params *p);
#endif
