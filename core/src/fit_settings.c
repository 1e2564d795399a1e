/* The stack settings a fit's runs tell (fit_samples.h): whether it fuses,
 * which epilogues it runs apart, which views and shape arithmetic it runs
 * as kernels, and how it lowers convolutions. Each run's kernels vote, and
 * the votes are kept per run, so that a fit of some of the runs (the
 * cross-validation's held-out fits) decides the settings from those runs
 * alone, as a fit made of them would. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit_samples.h"
#include "forecast.h"
#include "words.h"

static bool counted(const bool *in_fit, int run) { return !in_fit || in_fit[run]; }

/* The index of operator type t among fs->heads (added when new); -1 when
 * the list is full or t too long to keep. */
static int head_of(fit_samples *fs, const char *t) {
    int v = 0;
    while (v < fs->n_heads && strcmp(fs->heads[v], t)) v++;
    if (v < fs->n_heads) return v;
    if (v == RL_FIT_MAX_HEADS || strlen(t) >= sizeof fs->heads[v]) return -1;
    snprintf(fs->heads[v], sizeof fs->heads[v], "%s", t);
    return fs->n_heads++;
}

/* Run `run`'s vote for head v: the last of fs's votes when it is that
 * run's for v (the runs vote one after the other), else a new one. NULL out
 * of memory. */
static rl_fit_epilogue_vote *vote_of(fit_samples *fs, int run, int v) {
    for (int i = fs->n_votes - 1; i >= 0 && fs->votes[i].run == run; i--)
        if (fs->votes[i].head == v) return &fs->votes[i];
    if (fs->n_votes == fs->cap_votes) {
        int cap = fs->cap_votes ? 2 * fs->cap_votes : 64;
        rl_fit_epilogue_vote *grown = realloc(fs->votes, (size_t)cap * sizeof *grown);
        if (!grown) return NULL;
        fs->votes = grown, fs->cap_votes = cap;
    }
    rl_fit_epilogue_vote *x = &fs->votes[fs->n_votes++];
    *x = (rl_fit_epilogue_vote){.run = run, .head = v};
    return x;
}

int rl_fit_vote_epilogues(const rl_prepared *pg, const int *set_of, int run, fit_samples *fs) {
    const rl_graph *g = pg->graph;
    for (int r = 0; r < g->n_nodes; r++) {
        if (pg->group_root[r] != r || pg->group_next[r] < 0 || set_of[r] < 0 || !g->nodes[r].op_type) continue;
        int together = 0, apart = 0;
        for (int i = pg->group_next[r]; i >= 0; i = pg->group_next[i])
            if (set_of[i] >= 0) set_of[i] == set_of[r] ? together++ : apart++;
        if (together + apart == 0) continue;
        /* an epilogue that branches votes for all such, whatever its head */
        int v = rl_fc_group_branches(pg, r) ? RL_FIT_BRANCHES : head_of(fs, g->nodes[r].op_type);
        if (v == -1) continue;
        rl_fit_epilogue_vote *x = vote_of(fs, run, v);
        if (!x) return -1;
        x->apart += apart, x->together += together;
    }
    return 0;
}

int rl_fit_vote_shape_ops(rl_ctx *c, const rl_prepared *pg, const int *set_of, int run, fit_samples *fs) {
    const int nn = pg->graph->n_nodes;
    const bool *dep = rl_fc_input_dependent(c, pg);
    const int *first = rl_fc_first_alike(c, pg);
    bool *some_ran = rl_arena_alloc(c->arena, (size_t)(nn + 1) * sizeof *some_ran);
    if (!dep || !first || !some_ran) return -1;
    rl_fit_run_votes *x = &fs->run_votes[run];
    for (int i = 0; i < nn; i++) some_ran[i] = false;
    for (int i = 0; i < nn; i++) {
        if (!rl_fc_runs_unfolded(pg, &pg->graph->nodes[i])) continue;
        bool ran = set_of[i] >= 0;
        ran ? x->shape_ran[dep[i]]++ : x->shape_folded[dep[i]]++;
        if (!dep[i]) continue;
        some_ran[first[i]] |= ran;
        if (first[i] != i) ran ? x->alike_ran++ : x->alike_folded++;
    }
    for (int i = 0; i < nn; i++)
        if (dep[i] && first[i] == i && rl_fc_runs_unfolded(pg, &pg->graph->nodes[i]))
            some_ran[i] ? x->distinct_ran++ : x->distinct_folded++;
    return 0;
}

void rl_fit_count_conv_layout(const rl_prepared *pg, int first, const cJSON *grp, const cJSON *measured,
                              double measured_s, int run, fit_samples *fs) {
    if (rl_node_op_class(&pg->graph->nodes[first]) != RL_CLASS_CONV) return;
    rl_fit_run_votes *x = &fs->run_votes[run];
    x->conv_s += measured_s;
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(measured, "format");
    if (rl_value_of(RL_LIST_MEASURED_FORMAT, cJSON_IsString(format) ? format->valuestring : NULL) != RL_PROFILE_ORT)
        return;
    const cJSON *k;
    bool blocked = false;
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(grp, "kernels")) {
        size_t len = cJSON_IsString(k) ? strlen(k->valuestring) : 0;
        blocked |= len >= 6 && !strcmp(k->valuestring + len - 6, "_nchwc");
    }
    if (blocked) x->conv_blocked += measured_s;
    else x->conv_plain += measured_s;
}

rl_fit_run_votes rl_fit_votes_of(const fit_samples *fs, const bool *in_fit, int n_runs) {
    rl_fit_run_votes t = {0};
    for (int r = 0; r < n_runs; r++) {
        if (!counted(in_fit, r)) continue;
        const rl_fit_run_votes *x = &fs->run_votes[r];
        for (int d = 0; d < 2; d++) t.shape_ran[d] += x->shape_ran[d], t.shape_folded[d] += x->shape_folded[d];
        t.distinct_ran += x->distinct_ran, t.distinct_folded += x->distinct_folded;
        t.alike_ran += x->alike_ran, t.alike_folded += x->alike_folded;
        t.conv_s += x->conv_s, t.conv_blocked += x->conv_blocked, t.conv_plain += x->conv_plain;
    }
    return t;
}

/* Whether the measured stack fuses: it runs every node as a kernel of its
 * own ("none") when each run launched at least 90 % of the unfused plan's
 * kernels (a runtime may fold a few nodes at load time), else it fuses
 * ("epilogue"). A stack that fuses launches far fewer: ONNX Runtime with its
 * optimisations on ran ResNet-50 as 57 kernels against 121 unfused. */
static bool runs_unfused(const fit_samples *fs, const bool *in_fit, int n_runs) {
    int seen = 0;
    for (int r = 0; r < n_runs; r++) {
        if (!counted(in_fit, r)) continue;
        if (!(fs->launched[r] >= 0.9 * fs->plan_unfused[r])) return false;
        seen++;
    }
    return seen > 0;
}

/* Whether most of the measured members of the epilogues that vote v
 * counts (an operator type, an index into fs->heads, or RL_FIT_BRANCHES)
 * ran apart from their head's kernel. */
static bool mostly_apart(const fit_samples *fs, const bool *in_fit, int v) {
    int together = 0, apart = 0;
    for (int i = 0; i < fs->n_votes; i++)
        if (fs->votes[i].head == v && counted(in_fit, fs->votes[i].run))
            together += fs->votes[i].together, apart += fs->votes[i].apart;
    return apart > together;
}

/* The stack's epilogue_apart: the operator types most of whose measured
 * epilogue members ran apart, and epilogue_branches: whether most of those
 * of branching epilogues did (none in a stack that fuses nothing). */
static void epilogues_apart(const fit_samples *fs, const bool *in_fit, rl_forecast_params *p) {
    p->n_apart = 0;
    p->branches_apart = !p->unfused && mostly_apart(fs, in_fit, RL_FIT_BRANCHES);
    if (p->unfused) return;
    for (int v = 0; v < fs->n_heads && p->n_apart < RL_FC_MAX_APART; v++)
        if (mostly_apart(fs, in_fit, v)) p->apart[p->n_apart++] = fs->heads[v];
}

/* A stack that ran most of the views and shape arithmetic of constants
 * alone folds nothing; one that ran most of the distinct computations that
 * depend on the inputs folds constants only, and merges identical ones when
 * it ran few of the nodes alike. With none alike measured (CNNs and GPT-2's
 * exports have none) the runs do not tell, and the stack's fusion does: a
 * runtime that fuses optimises its graph, and merging identical
 * computations is among the first things every graph optimiser does
 * (ONNX Runtime's level 1, before its fusions); one that fuses nothing runs
 * them all. Left to "runs them all", a fit of ResNet-18 and MobileNetV3
 * forecast ShuffleNetV2's 77 Shape nodes as kernels where ONNX Runtime ran
 * 29, and ShuffleNetV2 45 % slow (docs/validation.md, run 10). */
static int shape_ops_of(const rl_fit_run_votes *t, bool unfused) {
    if (t->shape_ran[0] > t->shape_folded[0]) return RL_SHAPE_RUN;
    if (!(t->distinct_ran > t->distinct_folded)) return RL_SHAPE_FOLDED;
    if (t->alike_folded + t->alike_ran == 0) return unfused ? RL_SHAPE_DYNAMIC : RL_SHAPE_DISTINCT;
    return t->alike_folded > t->alike_ran ? RL_SHAPE_DISTINCT : RL_SHAPE_DYNAMIC;
}

/* Whether the runs show a graph optimiser at work: most of the shape
 * arithmetic of constants alone folded, or most computations alike to
 * another merged (rl_fit_vote_shape_ops). Runs that launched nearly their
 * whole unfused plan under an optimiser tell only that their own
 * epilogues ran apart (epilogue_apart says so per operator type), not
 * that the stack fuses nothing: ONNX Runtime with its optimisations on ran
 * BERT and the GPT-2 decoder nearly unfused (their MatMuls' bias Adds
 * apart), and a fit of those two that said "fuses nothing" forecast every
 * CNN 12-32 % long, their convolutions' epilogues apart (docs/model.md
 * §12.5, fusion). */
static bool graph_optimised(const rl_fit_run_votes *t) {
    return t->shape_folded[0] > t->shape_ran[0] || t->alike_folded > t->alike_ran;
}

void rl_fit_settle(const fit_samples *fs, const bool *in_fit, int n_runs, rl_forecast_params *p) {
    rl_fit_run_votes t = rl_fit_votes_of(fs, in_fit, n_runs);
    p->unfused = runs_unfused(fs, in_fit, n_runs) && !graph_optimised(&t);
    epilogues_apart(fs, in_fit, p);
    p->shape_ops = shape_ops_of(&t, p->unfused);
}
