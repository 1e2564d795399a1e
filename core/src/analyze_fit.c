/* rl_fit_forecast (rooflens.h): the forecast's parameters fitted to measured
 * kernels. Each input is analysed as rl_model_analyze would (the request
 * parsing it shares with analyze.c, analyze.h), its kernels matched with the
 * measured-profile matcher, and the fit itself is forecast_fit.c's. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "forecast.h"
#include "forecast_cv.h"
#include "forecast_fit.h"
#include "fit_profile.h"
#include "fit_samples.h"
#include "hw.h"
#include "json.h"
#include "measured.h"
#include "timing.h"
#include "words.h"

static bool push_sample(fit_samples *fs, const rl_fit_sample *x) {
    if (fs->n == fs->cap) {
        int cap = fs->cap ? 2 * fs->cap : 256;
        rl_fit_sample *s = realloc(fs->s, (size_t)cap * sizeof *s);
        if (!s) return false;
        fs->s = s, fs->cap = cap;
    }
    fs->s[fs->n++] = *x;
    return true;
}

/* A node of a measured kernel: its operator type joins its class's list
 * (fit_profile.h, "fitted_ops"), once. */
static void note_op(const rl_node *n, fit_samples *fs) {
    int cls = rl_node_op_class(n);
    if (!n->op_type || !n->op_type[0] || strlen(n->op_type) >= sizeof fs->ops[0].op_type) return;
    for (int k = 0; k < fs->n_ops; k++)
        if (fs->ops[k].cls == cls && !strcmp(fs->ops[k].op_type, n->op_type)) return;
    if (fs->n_ops == RL_FC_MAX_FITTED_OPS) return;
    fs->ops[fs->n_ops].cls = cls;
    snprintf(fs->ops[fs->n_ops].op_type, sizeof fs->ops[0].op_type, "%s", n->op_type);
    fs->n_ops++;
}

/* A measured kernel may beat its floor (the speed of light of its nodes on
 * the profile, fused) only by this factor. Some beat it honestly: the
 * profile is of a slower device or power mode than the one measured (up to
 * a few times), or a cache served what the floor reads from main memory
 * (a small model's weights stay in a CPU's caches from run to run: cache
 * bandwidths are up to some 20x main memory's). Beyond 100x no device
 * ran the kernel: the time is in another unit than the profile says, or of
 * another model. */
#define RL_FIT_BELOW_FLOOR 100

/* Refuses a measured group whose time (measured > 0) no kernel takes: under
 * RL_FIT_MIN_KERNEL_S, not finite, or RL_FIT_BELOW_FLOOR times under its
 * floor. 0, or -1 with err set (where: the measured profile). */
static int impossible_time(const cJSON *grp, double measured, rl_error *err) {
    const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(grp, "kernels"), 0);
    const char *name = cJSON_IsString(k) ? k->valuestring : "(unnamed)";
    double floor = rl_hw_figure(cJSON_GetObjectItemCaseSensitive(grp, "sol_fused_s"));
    if (!isfinite(measured) || measured < RL_FIT_MIN_KERNEL_S) {
        rl_error_set(err, "bad_measured", "measured",
                     "kernel '%.200s' took %.3g s: no kernel runs in less than 1 ns; give the times in the "
                     "profile's unit (a CSV header names time_s, time_ms or time_us)", name, measured);
        return -1;
    }
    if (floor > 0 && measured < floor / RL_FIT_BELOW_FLOOR) {
        rl_error_set(err, "bad_measured", "measured",
                     "kernel '%.200s' took %.3g s, %.3g times less than its floor on this profile (%.3g s): no "
                     "device runs that fast; is the time in the profile's unit, and the profile of this model "
                     "and of the device measured?", name, measured, floor / measured, floor);
        return -1;
    }
    return 0;
}

/* The measured groups (measured.groups of the response: nodes, kernels,
 * measured_s) whose nodes' costs are known, as samples: each group one
 * kernel of its nodes, paying the fixed cost once per measured kernel.
 * A group measured at 0 (under the profile's resolution: ONNX Runtime
 * writes whole microseconds) tells the fit nothing and is left out; a time
 * no kernel takes is refused. 0, or -1 with err set. */
static int run_samples(rl_ctx *c, const rl_prepared *pg, const rl_options *o, const rl_hw *hw, const cJSON *mo,
                       int run, fit_samples *fs, rl_error *err) {
    const int nn = pg->graph->n_nodes;
    int *set_of = rl_arena_alloc(c->arena, (size_t)(nn + 1) * sizeof *set_of);
    int *next = rl_arena_alloc(c->arena, (size_t)(nn + 1) * sizeof *next);
    if (!set_of || !next) goto oom;
    for (int i = 0; i < nn; i++) set_of[i] = next[i] = -1;
    int gid = 0;
    /* the profile's stack reads broadcasts in place or copies them, as the
     * forecast it is fitted for (NULL: copied, or out of memory) */
    const double *fold = rl_fc_folded_layouts(c, pg, hw, false);
    const cJSON *grp;
    cJSON_ArrayForEach(grp, cJSON_GetObjectItemCaseSensitive(mo, "groups")) {
        const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(grp, "nodes"), *it;
        double measured = rl_hw_figure(cJSON_GetObjectItemCaseSensitive(grp, "measured_s"));
        gid++;
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(grp, "known")) || !(measured > 0)) continue;
        int first = -1, last = -1;
        cJSON_ArrayForEach(it, nodes) {
            int i = it->valueint;
            if (i < 0 || i >= nn || set_of[i] >= 0) continue;
            set_of[i] = gid;
            if (last >= 0) next[last] = i;
            else first = i;
            last = i;
        }
        if (first < 0) continue;
        if (impossible_time(grp, measured, err)) return -1;
        rl_fit_count_conv_layout(pg, first, grp, mo, measured, run, fs);
        for (int i = first; i >= 0; i = next[i]) note_op(&pg->graph->nodes[i], fs);
        rl_fit_sample x = {.measured_s = measured, .run = run};
        double kernels = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(grp, "kernels"));
        rl_fc_kernel_figures(c, pg, o, hw, first, next, set_of, fold, kernels, NULL, &x.k);
        if (!push_sample(fs, &x)) goto oom;
    }
    if (!rl_fit_vote_epilogues(pg, set_of, run, fs) && !rl_fit_vote_shape_ops(c, pg, set_of, run, fs)) return 0;
oom:
    rl_error_set(err, "out_of_memory", "", "out of memory while fitting");
    return -1;
}

/* The stack a measured profile's format implies, when the caller names none. */
static const char *stack_of_format(const cJSON *format) {
    int f = rl_value_of(RL_LIST_MEASURED_FORMAT, cJSON_IsString(format) ? format->valuestring : NULL);
    if (f == RL_PROFILE_ORT) return "ONNX Runtime (the measured runs)";
    if (f == RL_PROFILE_TRTEXEC) return "TensorRT (the measured runs)";
    return "the measured runs (CSV)";
}

/* Names the input in an error the run reported. */
static void error_in_input(rl_error *err, int run) {
    char where[sizeof err->where];
    snprintf(where, sizeof where, "inputs[%d]%s%.200s", run, err->where[0] ? "." : "", err->where);
    snprintf(err->where, sizeof err->where, "%s", where);
}

/* The most time between two kernels the fit believes, per kernel: the
 * most it gives a kernel's fixed cost (forecast_fit.c). A runtime's own
 * time between kernels (dispatching the next, allocating its output) is
 * microseconds; more than 10 ms a kernel is something else in the run's
 * wall time (a pause, I/O, other work, a wrong timestamp), and added to the
 * fixed cost per kernel it would put that on every kernel of every model. */
#define RL_FIT_MAX_BETWEEN_S 1e-2

/* The run's time between kernels (measured.between_kernels_s: a typical
 * run's wall time minus its kernels' times) joins the pool, or is refused
 * beyond RL_FIT_MAX_BETWEEN_S a kernel. 0, or -1 with err set. */
static int pool_between(const cJSON *measured, int run, fit_samples *fs, rl_error *err) {
    double between = rl_hw_figure(cJSON_GetObjectItemCaseSensitive(measured, "between_kernels_s"));
    double all_kernels = rl_hw_figure(cJSON_GetObjectItemCaseSensitive(measured, "kernels"));
    double wall = rl_hw_figure(cJSON_GetObjectItemCaseSensitive(measured, "run_wall_s"));
    double kernels_s = rl_hw_figure(cJSON_GetObjectItemCaseSensitive(measured, "total_s"));
    fs->run_wall_s[run] = wall > 0 ? wall : kernels_s > 0 ? kernels_s : NAN;
    const cJSON *growth = cJSON_GetObjectItemCaseSensitive(measured, "between_kernels_growth");
    fs->run_gap_growth[run] = cJSON_IsNumber(growth) ? growth->valuedouble : NAN;
    fs->run_kernels_s[run] = kernels_s > 0 ? kernels_s : 0;
    if (!(between >= 0 && all_kernels > 0)) return 0;
    if (between / all_kernels > RL_FIT_MAX_BETWEEN_S) {
        rl_error_set(err, "bad_measured", "measured",
                     "a run's wall time exceeds its %.0f kernels' times by %.3g s, %.3g s between two kernels: "
                     "more than 10 ms is no runtime's dispatch but something else in the run (a pause, I/O, other "
                     "work); record the runs again", all_kernels, between, between / all_kernels);
        return -1;
    }
    fs->run_gap_s[run] = between, fs->run_gap_kernels[run] = all_kernels;
    return 0;
}

/* One run: its options, the analysis, the measured profile matched, its
 * samples (a run none of whose kernels matched a node of known cost is
 * refused: fitted beside others it would add nothing but its name and its
 * kernel count, which sets the stack's fusion). */
/* Input in's model analysed and timed under hw as its request asks (its
 * dims, batch, precision): *req (the caller deletes it: the options point
 * into it) and c, o, pg, lt (NULL: no layers), t in arena. 0, or -1 with
 * err set. */
static int time_input(const rl_fit_input *in, const rl_hw *hw, rl_arena *arena, cJSON **req, rl_ctx *c,
                      rl_options *o, rl_prepared *pg, rl_layer_time **lt, rl_timing *t, rl_error *err) {
    rl_dim_setting *dims = NULL;
    *req = rl_analyze_parse_request(in->request_json ? in->request_json : "{}", err);
    if (!*req || !in->model || !rl_analyze_setup_ctx(c, in->model, arena, err)) {
        if (!err->code[0]) rl_error_set(err, "bad_request", "model", "no model, or out of memory");
        return -1;
    }
    return rl_analyze_parse_options(*req, o, c, &dims, err) || rl_prepare_and_time(c, o, hw, pg, lt, t) ? -1 : 0;
}

static int fit_one_run(const rl_fit_input *in, int run, int input, const rl_hw *hw, fit_samples *fs, rl_error *err) {
    rl_arena arena = {0};
    rl_ctx c;
    rl_options o;
    rl_prepared pg;
    rl_layer_time *lt = NULL;
    rl_timing t;
    rl_measured *m = NULL;
    int rc = -1, before = fs->n;
    cJSON *req = NULL;
    /* the measured profile as a request's "measured" member */
    cJSON *wrap = cJSON_CreateObject(), *mo = cJSON_CreateObject();
    cJSON *spec = wrap ? cJSON_AddObjectToObject(wrap, "measured") : NULL;
    if (!spec || !mo) {
        rl_error_set(err, "out_of_memory", "", "out of memory while fitting");
        goto done;
    }
    cJSON_AddStringToObject(spec, "text", in->measured ? in->measured : "");
    cJSON_AddStringToObject(spec, "format", in->format ? in->format : "auto");
    if (time_input(in, hw, &arena, &req, &c, &o, &pg, &lt, &t, err) || rl_timing_check(&t, pg.graph, err) ||
        rl_analyze_attach_measured(&c, wrap, pg.graph, lt, hw, &m, err))
        goto done;
    rl_measured_json(m, mo, rl_timing_chosen(&t)->time_s, t.forecast.time_s);
    const cJSON *measured = cJSON_GetObjectItemCaseSensitive(mo, "measured");
    if (!fs->format) fs->format = stack_of_format(cJSON_GetObjectItemCaseSensitive(measured, "format"));
    fs->launched[run] = rl_hw_figure(cJSON_GetObjectItemCaseSensitive(measured, "matched"));
    fs->plan_unfused[run] = t.sol[RL_SOL_UNFUSED].kernels, fs->plan_fused[run] = t.sol[RL_SOL_FUSED].kernels;
    if (pool_between(measured, run, fs, err) || run_samples(&c, &pg, &o, hw, measured, run, fs, err)) goto done;
    if (fs->n == before)
        rl_error_set(err, "bad_measured", "measured",
                     "no measured kernel of this profile (with a time above 0) matched a node of known cost: was "
                     "it recorded with this model (and its request's dims and batch)?");
    else rc = 0;
done:
    if (rc) error_in_input(err, input);
    cJSON_Delete(req), cJSON_Delete(wrap), cJSON_Delete(mo);
    rl_arena_free(&arena);
    return rc;
}

/* The runtime's own time between kernels (its executor dispatching the
 * next, allocating its output): a typical run's wall time minus its own
 * kernels' times, pooled over the inputs whose profile gives wall times,
 * as a fixed part per kernel launched and a part that grows with the
 * kernel before it (rl_fit_add_runs_gap). It joins the forecast after the fit
 * (the fit's samples are the kernels' own times, its errors are against
 * those), so that the forecast is of a run's wall time.
 * fit.between_kernels_s and fit.between_kernels_growth say how much; 0
 * when no run gives a wall time, or when the runs' wall time exceeds their
 * kernels' by less than the shortest dispatch a kernel
 * (RL_FIT_MIN_KERNEL_S): that is the rounding of the runs' timestamps (a
 * median of 0.5 us over a thousand kernels), and a profile holds no
 * between_kernels_s under it. */
static void add_time_between_kernels(const rl_fit_cv_runs *runs, int n_runs, cJSON *fit, rl_forecast_params *p,
                                     rl_fit_informed *inf, char *source, size_t size) {
    double gap = rl_fit_add_runs_gap(runs, NULL, n_runs, p), growth = p->between_growth;
    rl_json_add_num(fit, "between_kernels_s", gap);
    rl_json_add_num(fit, "between_kernels_growth", growth);
    if (gap > 0) inf->kernel_s = true;
    size_t k = strlen(source);
    if (k < size && gap > 0)
        k += (size_t)snprintf(source + k, size - k, "; the fixed cost per kernel includes %.3g s between kernels "
                              "(the runs' wall time minus their kernels' times, per kernel)", gap);
    if (k < size && growth > 0)
        snprintf(source + k, size - k, "; after each kernel a further %.3g of its own time", growth);
}

/* The power mode every input's request names ("" for the default); an
 * error when two inputs name different modes. */
static int fit_power_mode(const rl_fit_input *in, size_t n, char *mode, size_t cap, rl_error *err) {
    for (size_t r = 0; r < n; r++) {
        cJSON *req = cJSON_Parse(in[r].request_json ? in[r].request_json : "{}");
        const cJSON *pm = cJSON_GetObjectItemCaseSensitive(req, "power_mode");
        const char *m = cJSON_IsString(pm) ? pm->valuestring : "";
        bool differs = r > 0 && strcmp(m, mode) != 0;
        if (r == 0) snprintf(mode, cap, "%s", m);
        cJSON_Delete(req);
        if (differs) {
            rl_error_set(err, "bad_request", "inputs", "every input of one fit must be measured in the same power mode");
            return -1;
        }
    }
    return 0;
}

/* Each sample weighs 1 / its run's measured time: every model counts
 * alike in the fit, whatever its length (forecast_fit.c, loss). */
static void weigh_runs(fit_samples *fs, size_t n_runs) {
    double *total = calloc(n_runs + 1, sizeof *total);
    for (int i = 0; total && i < fs->n; i++) total[fs->s[i].run] += fs->s[i].measured_s;
    for (int i = 0; total && i < fs->n; i++) fs->s[i].weight = total[fs->s[i].run] > 0 ? 1 / total[fs->s[i].run] : 1;
    free(total);
}

/* The stack fitted to the samples in fs (every run's, with hw's forecast
 * parameters): the stack's settings the kernel counts tell, the fractions
 * and fixed costs; *loss: the fit's objective. 0, or -1 with err. */
static int fit_stack(size_t n_inputs, const rl_hw *hw, fit_samples *fs, rl_forecast_params *p, rl_fit_informed *inf,
                     double *loss, rl_error *err) {
    weigh_runs(fs, n_inputs);
    *p = hw->fc;
    /* a fitted stack has one fixed cost per kernel, whatever the class: the
     * profile's own costs per class are estimates the fit replaces */
    for (int c = 0; c < RL_CLASS_COUNT; c++) p->class_kernel_s[c] = -1;
    /* the kernels' own times are fitted: the time between them is added after (add_time_between_kernels) */
    p->between_s = 0, p->between_growth = 0;
    rl_fit_settle(fs, NULL, (int)n_inputs, p);
    if (rl_fit_params(fs->s, fs->n, p, inf, &fs->search)) {
        rl_error_set(err, "out_of_memory", "", "out of memory while fitting");
        return -1;
    }
    *loss = rl_fit_loss(fs->s, fs->n, p);
    return 0;
}

/* Whether two tries drew the same samples (then their fits are the same). */
static bool same_samples(const fit_samples *a, const fit_samples *b) {
    if (a->n != b->n) return false;
    for (int i = 0; i < a->n; i++)
        if (memcmp(&a->s[i].k, &b->s[i].k, sizeof a->s[i].k) || a->s[i].measured_s != b->s[i].measured_s)
            return false;
    return true;
}

/* The lowering of convolutions for runs that had none (im2col: true).
 * A stack that folds nothing (every view and shape computation ran, even
 * those of constants alone: ONNX Runtime without graph optimisations) runs
 * the graph as written, and a blocked layout is a graph transformation, so
 * its convolutions run plain, by im2col. Left at the profile's implicit
 * GEMM, a fit on two transformers forecast ResNet-18 22 % short and RegNetX
 * 37 % short with optimisations off (docs/validation.md, run 6). Otherwise
 * the runs tell nothing, and the profile's lowering stays (the probes are
 * drawn with it). */
static bool lowering_without_convs(int shape_ops, bool profile_im2col) {
    return shape_ops == RL_SHAPE_RUN || profile_im2col;
}

/* How the stack lowers a convolution. ONNX Runtime's kernels tell it: its
 * optimised graph runs dense convolutions in the blocked NCHWc layout
 * (MLAS's direct convolution, no column matrix), its plain Conv kernel
 * expands the columns (im2col) for a GEMM; the runs are fitted the way
 * that ran most of their dense convolutions' time (one lowering a stack:
 * a grouped convolution whose groups do not fill the layout's blocks runs
 * plain among blocked ones). Left to the fit, the lowering went
 * the wrong way in 6 of 12 fits of two models (docs/validation.md): a
 * depthwise CNN's pointwise convolutions fit either. Otherwise (other
 * formats) the fit is made both ways (tries[0] implicit
 * GEMM, tries[1] im2col), and the one whose forecast of the measured
 * kernels is closer kept. Runs without a Conv draw the same samples both
 * ways: fitted once, the profile's setting stays. Returns the kept try, or
 * -1 with err set. */
static int fit_lowerings(const rl_fit_input *inputs, const int *index, size_t n_inputs, rl_hw *hw,
                         fit_samples *tries, rl_forecast_params *p, rl_fit_informed *inf, rl_error *err) {
    rl_forecast_params tried[2];
    rl_fit_informed tried_inf[2];
    double loss[2] = {INFINITY, INFINITY};
    int told = -1; /* the lowering the runs' kernels tell (rl_fit_run_votes.conv_blocked) */
    const bool profile_im2col = hw->fc.im2col;
    for (int im2col = 0; im2col < 2; im2col++) {
        hw->fc.im2col = im2col;
        for (size_t r = 0; r < n_inputs; r++)
            if (fit_one_run(&inputs[r], (int)r, index[r], hw, &tries[im2col], err)) return -1;
        if (!im2col) {
            rl_fit_run_votes layout = rl_fit_votes_of(&tries[0], NULL, (int)n_inputs);
            if (layout.conv_blocked + layout.conv_plain > 0) told = layout.conv_blocked >= layout.conv_plain ? 0 : 1;
        }
        if (told >= 0 && im2col != told) continue;
        if (im2col && told < 0 && same_samples(&tries[0], &tries[1])) {
            tried[1] = tried[0], tried_inf[1] = tried_inf[0], loss[1] = loss[0];
            tries[1].search = tries[0].search;
        } else if (fit_stack(n_inputs, hw, &tries[im2col], &tried[im2col], &tried_inf[im2col], &loss[im2col], err)) {
            return -1;
        }
    }
    int best = told >= 0 ? told : loss[1] < loss[0] * (1 - 1e-9) ? 1 : 0;
    *p = tried[best], *inf = tried_inf[best];
    inf->conv_lowering = told >= 0 || loss[0] != loss[1];
    tries[best].lowering_told = told >= 0;
    if (!inf->conv_lowering) {
        p->im2col = lowering_without_convs(p->shape_ops, profile_im2col);
        /* the graph told it when it runs unfolded */
        inf->conv_lowering = tries[best].lowering_unfolded = p->shape_ops == RL_SHAPE_RUN;
    }
    return best;
}

/* A fit whose forecast of some model it was fitted on is more than this
 * factor from its measured time is beyond use. The parameters range over
 * fractions from 1e-4 to 1 and fixed costs from 1 ns to 10 ms; where none of
 * that comes within 10x of a model's own kernels, the runs are not what the
 * profile describes (times in another unit, another device), and a profile
 * marked calibrated would carry that error into every forecast. */
#define RL_FIT_MAX_MODEL_RATIO 10

/* Refuses the fit when some input's forecast (its matched kernels under p)
 * is not within RL_FIT_MAX_MODEL_RATIO of its measured time. 0, or -1 with
 * err set (where: the input). */
static int check_usable(const fit_samples *fs, const int *index, size_t n_in, const rl_forecast_params *p,
                        rl_error *err) {
    for (size_t r = 0; r < n_in; r++) {
        double meas = 0, fc = 0;
        rl_fit_run_totals(fs, (int)r, p, &meas, &fc);
        double ratio = fc / meas;
        if (ratio >= 1.0 / RL_FIT_MAX_MODEL_RATIO && ratio <= RL_FIT_MAX_MODEL_RATIO) continue;
        rl_error_set(err, "bad_measured", "",
                     "the best fit forecasts this input's kernels at %.3g s against %.3g s measured (%.3gx): no parameters in "
                     "their ranges come within 10x, so the fit is beyond use; are its times in the profile's unit, "
                     "and is the hardware profile of the device measured?",
                     fc, meas, ratio);
        error_in_input(err, index[r]);
        return -1;
    }
    return 0;
}

static void free_tries(fit_samples *tries) {
    for (int t = 0; tries && t < 3; t++) free(tries[t].s), free(tries[t].votes);
    free(tries);
}

/* The probes' samples (rl_fit_input.probe), drawn with the lowering the
 * models' fit chose, and the product classes the models have no kernel of
 * fitted on them (rl_fit_fill_gaps): *filled says which. A probe whose
 * kernels match nothing is refused, as a model's run is. 0, or -1 with
 * err set. */
static int fill_from_probes(const rl_fit_input *probe, const int *index, size_t n_probe, rl_hw *hw,
                            const rl_fit_informed *told, fit_samples *ps, rl_forecast_params *p,
                            rl_fit_informed *filled, rl_error *err) {
    memset(filled, 0, sizeof *filled);
    if (!n_probe) return 0;
    hw->fc.im2col = p->im2col;
    for (size_t r = 0; r < n_probe; r++)
        if (fit_one_run(&probe[r], (int)r, index[r], hw, ps, err)) return -1;
    weigh_runs(ps, n_probe);
    if (rl_fit_fill_gaps(ps->s, ps->n, told, p, filled, &ps->search)) {
        rl_error_set(err, "out_of_memory", "", "out of memory while fitting");
        return -1;
    }
    rl_fit_informed both = *told;
    rl_fit_informed_join(&both, filled);
    rl_fit_borrow_siblings(p, &both);
    return 0;
}

/* The fitted profile passes what rl_check_hardware checks (every power
 * mode), or the fit is refused. 0, or -1 with err set. */
static int check_fitted_profile(const cJSON *profile, rl_error *err) {
    if (!rl_hw_check_modes(profile, err)) return 0;
    char msg[sizeof err->message], code[sizeof err->code];
    snprintf(msg, sizeof msg, "%s", err->message);
    snprintf(code, sizeof code, "%s", err->code);
    err->code[0] = '\0'; /* replaced by the same error, said of the fit */
    rl_error_set(err, code, "hardware", "the fitted profile does not pass the hardware check (%.400s): fit "
                 "onto a profile that rl_check_hardware accepts", msg);
    return -1;
}

/* The inputs in the order the fit takes them, the models first and the
 * probes after, with each one's index in inputs (for errors). Returns the
 * number of models. */
static size_t models_then_probes(const rl_fit_input *inputs, size_t n, rl_fit_input *order, int *index) {
    size_t k = 0, models = 0;
    for (int probes = 0; probes < 2; probes++) {
        for (size_t r = 0; r < n; r++)
            if (inputs[r].probe == (probes == 1)) order[k] = inputs[r], index[k++] = (int)r;
        if (!probes) models = k;
    }
    return models;
}

/* The base the fit starts from: the profile (NULL when not valid JSON),
 * parsed in the power mode the runs were measured in (the first request's
 * "power_mode", else the default: the fitted fractions are shares of that
 * mode's ceilings, e.g. one thread's for a runtime with one intra-op
 * thread). A profile rl_check_hardware refuses (in any mode) is no base to
 * fit onto. 0, or -1 with err set. */
static int base_of_fit(const cJSON *profile, const rl_fit_input *inputs, size_t n_inputs, rl_hw *hw, rl_error *err) {
    if (!inputs || n_inputs == 0 || n_inputs > RL_FIT_MAX_RUNS) {
        rl_error_set(err, "bad_request", "inputs", "give from 1 to %d (model, measured profile) inputs to fit",
                     RL_FIT_MAX_RUNS);
        return -1;
    }
    if (!profile) {
        rl_error_set(err, "bad_hardware", "hardware", "the hardware profile is not valid JSON");
        return -1;
    }
    char mode[64] = "";
    if (fit_power_mode(inputs, n_inputs, mode, sizeof mode, err)) return -1;
    return rl_hw_check_modes(profile, err) || rl_hw_parse(profile, mode[0] ? mode : NULL, hw, err) ? -1 : 0;
}

/* The cross-validation's forecast of a run's model (rl_fit_cv_runs): the
 * model analysed as the user's request for it would be, under the base
 * profile (hw: its forecast block replaced) with the stack p a fit of
 * other runs gave. */
typedef struct cv_inputs {
    const rl_fit_input *in;
    const rl_hw *hw;
    const fit_samples *fs; /* the runs' votes on the stack's settings */
    bool profile_im2col;   /* the base profile's lowering */
} cv_inputs;

/* The stack settings of a fit of the runs in_fit says
 * (rl_fit_cv_runs.settle): those their kernels tell (rl_fit_settle), as
 * a fit made of them alone decides. Their lowering of convolutions stays
 * the fit of all runs' (its samples are drawn with it) unless none of them
 * ran a dense convolution: then lowering_without_convs decides. Held-out fits that kept the settings of all runs forecast
 * other models closer than the fit of those runs alone: on run 21's
 * measurements (docs/validation.md, run 21s), the pool's held-out fit of
 * BERT and the GPT-2 decoder kept the fusion its CNNs told and forecast
 * MobileNetV3-Large +2 %, where the fit of those two alone, deciding that
 * the stack fused nothing, forecast it +20 %. */
static void settle_runs(void *ctx, const bool *in_fit, int n_runs, rl_forecast_params *p) {
    const cv_inputs *x = ctx;
    rl_fit_settle(x->fs, in_fit, n_runs, p);
    if (rl_fit_votes_of(x->fs, in_fit, n_runs).conv_s > 0) return;
    p->im2col = lowering_without_convs(p->shape_ops, x->profile_im2col);
}

static double forecast_of_input(void *ctx, int run, const rl_forecast_params *p) {
    const cv_inputs *x = ctx;
    const rl_fit_input *in = &x->in[run];
    rl_hw hw = *x->hw;
    hw.fc = *p;
    rl_arena arena = {0};
    rl_ctx c;
    rl_options o;
    rl_prepared pg;
    rl_timing t;
    rl_error err = {0};
    cJSON *req = NULL;
    double out = time_input(in, &hw, &arena, &req, &c, &o, &pg, NULL, &t, &err) ? NAN : t.forecast.time_s;
    cJSON_Delete(req);
    rl_arena_free(&arena);
    return out;
}

char *rl_fit_forecast(const char *profile_json, const rl_fit_input *inputs, size_t n_inputs, const char *stack) {
    rl_json_begin();
    rl_error err = {0};
    fit_samples *tries = NULL;
    rl_fit_input *order = NULL;
    int *index = NULL;
    cJSON *profile = cJSON_Parse(profile_json ? profile_json : ""), *fit = NULL;
    rl_hw hw;
    if (base_of_fit(profile, inputs, n_inputs, &hw, &err)) goto fail;
    /* the models first, the probes after, each with its index in inputs
     * (for errors); tries stays until the end: the fitted epilogue_apart
     * names point into its samples' heads, and tries[2] holds the probes' */
    tries = calloc(3, sizeof *tries);
    order = malloc(n_inputs * sizeof *order);
    index = malloc(n_inputs * sizeof *index);
    if (!tries || !order || !index) goto oom;
    size_t n_models = models_then_probes(inputs, n_inputs, order, index), n_probes = n_inputs - n_models;
    if (!n_models) {
        rl_error_set(&err, "bad_request", "inputs", "every input is a probe: a fit needs at least one model of "
                     "the user's own, whose kernels set the stack; probes only fill the classes it has none of");
        goto fail;
    }
    rl_forecast_params p;
    rl_fit_informed inf, filled;
    const bool profile_im2col = hw.fc.im2col;
    int best = fit_lowerings(order, index, n_models, &hw, tries, &p, &inf, &err);
    if (best < 0 || check_usable(&tries[best], index, n_models, &p, &err)) goto fail;
    const fit_samples *fs = &tries[best];
    if (fill_from_probes(order + n_models, index + n_models, n_probes, &hw, &inf, &tries[2], &p, &filled, &err))
        goto fail;
    double median = 0;
    fit = rl_fit_provenance(fs, order, n_models, &p, &median);
    if (!fit) goto oom;
    rl_fit_add_probes(fit, &tries[2], order + n_models, n_probes, &p);
    rl_fit_add_fitted_names(fit, &inf, &filled);
    if (inf.conv_lowering) rl_fit_add_lowering_source(fit, fs);
    char source[RL_FIT_SOURCE_SIZE], probe_source[RL_FIT_SOURCE_SIZE] = "";
    rl_fit_source(source, sizeof source, fs, order, n_models, median);
    if (n_probes) rl_fit_probe_source(probe_source, sizeof probe_source, &tries[2], order + n_models, n_probes);
    rl_forecast_params fitted = p;
    cv_inputs cvx = {order, &hw, fs, profile_im2col};
    rl_fit_cv_runs runs = {fs->run_wall_s,        fs->run_gap_s,       fs->run_gap_kernels, fs->run_gap_growth,
                           fs->run_kernels_s,     forecast_of_input,   settle_runs,         &cvx};
    add_time_between_kernels(&runs, (int)n_models, fit, &p, &inf, source, sizeof source);
    if (rl_fit_add_cross_validation(fit, rl_fit_child_object(profile, "forecast"), fs, n_probes ? &tries[2] : NULL,
                                    order, n_models, &fitted, &hw.fc, &runs)) {
        cJSON_Delete(fit);
        goto oom;
    }
    cJSON *fit_copy = cJSON_Duplicate(fit, true);
    /* the profile holds fit */
    rl_fit_put_profile(profile, &p, &inf, &filled, fit, stack ? stack : fs->format, source, probe_source);
    rl_fit_put_fitted_ops(profile, &inf, tries[best].ops, tries[best].n_ops, &filled, tries[2].ops, tries[2].n_ops);
    if (check_fitted_profile(profile, &err)) {
        cJSON_Delete(fit_copy);
        goto fail;
    }
    cJSON *out = cJSON_CreateObject();
    cJSON_AddTrueToObject(out, "ok");
    cJSON_AddItemToObject(out, "fit", fit_copy);
    cJSON_AddItemToObject(out, "profile", profile);
    free_tries(tries);
    free(order), free(index);
    return rl_json_finish(out);
oom:
    rl_error_set(&err, "out_of_memory", "", "out of memory while fitting");
fail:
    free_tries(tries);
    free(order), free(index);
    cJSON_Delete(profile);
    return rl_error_json(&err);
}
