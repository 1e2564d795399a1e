/* The forecast's fit (forecast_fit.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "forecast_fit.h"

/* The search ranges, in log space: fractions of a peak from 1e-4 to 1 (the
 * profile format's range), a fixed cost per kernel from 1 ns to 10 ms. */
#define FRACTION_LO 1e-4
#define KERNEL_LO 1e-9
#define KERNEL_HI 1e-2
#define GROUP_LO 1e-11 /* a fixed cost per convolution group: 10 ps (none to speak of) to 1 ms */
#define GROUP_HI 1e-3
#define TILE_K0_LO 1e-3 /* an output tile's fixed work: a thousandth of a step of K (none) to 4096 steps */
#define TILE_K0_HI 4096
#define COARSE 33   /* grid points over a parameter's whole range */
#define REFINES 6   /* finer grids around the best, each a quarter of the last */
#define SWEEPS 16   /* at most this many passes over all parameters */

typedef struct param {
    double *value;
    double lo, hi; /* log range */
} param;

double rl_fit_rel_error(const rl_fit_sample *s, const rl_forecast_params *p) {
    return fabs(rl_fc_kernel_time(&s->k, p) - s->measured_s) / s->measured_s;
}

/* The samples as the search sees them: those with the same figures (the
 * same class and shapes, in any input) pooled, since the forecast gives
 * them one time. A pool's loss is the sum of its members' losses, exact
 * (see pool_loss), so pooling changes no result, only the work: 8 inputs
 * of one 2,000-node model are a handful of pools, not 16,000 samples. */
typedef struct fit_pool {
    rl_fc_kernel k;
    int at, count;      /* its members' measured times and weights: m[at .. at+count) ascending, w[...] */
    double ref, sum_wm; /* the median member's time (the logs' reference), and Σ w m */
} fit_pool;

typedef struct fit_set {
    fit_pool *pool;
    int n;
    /* per pool, count + 1 entries from at + its index: Σ over the members
     * before j of w and w log(m / ref), over those from j of w m and
     * w m log(m / ref) */
    double *m, *w, *pre_w, *pre_log, *suf_m, *suf_mlog;
    long long evaluations, budget; /* pool evaluations made, and allowed (rl_fit_search) */
    const rl_fit_informed *frozen; /* NULL, or the parameters kept as they are (rl_fit_fill_gaps) */
} fit_set;

static int cmp_figures(const void *a, const void *b) {
    const rl_fit_sample *x = *(const rl_fit_sample *const *)a, *y = *(const rl_fit_sample *const *)b;
    int c = memcmp(&x->k, &y->k, sizeof x->k); /* zeroed padding (rl_fc_kernel_figures): same bytes, same figures */
    return c ? c : (x->measured_s > y->measured_s) - (x->measured_s < y->measured_s);
}

/* A pool's prefix and suffix sums, its members' times at m[at..at+count). */
static void pool_sums(fit_set *fs, int i) {
    fit_pool *q = &fs->pool[i];
    const double *m = fs->m + q->at, *w = fs->w + q->at;
    int base = q->at + i; /* count + 1 entries per pool */
    q->ref = m[q->count / 2];
    fs->pre_w[base] = fs->pre_log[base] = 0;
    for (int j = 0; j < q->count; j++) {
        fs->pre_w[base + j + 1] = fs->pre_w[base + j] + w[j];
        fs->pre_log[base + j + 1] = fs->pre_log[base + j] + w[j] * log(m[j] / q->ref);
    }
    fs->suf_m[base + q->count] = fs->suf_mlog[base + q->count] = 0;
    for (int j = q->count - 1; j >= 0; j--) {
        fs->suf_m[base + j] = fs->suf_m[base + j + 1] + w[j] * m[j];
        fs->suf_mlog[base + j] = fs->suf_mlog[base + j + 1] + w[j] * m[j] * log(m[j] / q->ref);
    }
    q->sum_wm = fs->suf_m[base];
}

static void free_set(fit_set *fs) {
    free(fs->pool), free(fs->m), free(fs->w), free(fs->pre_w), free(fs->pre_log), free(fs->suf_m), free(fs->suf_mlog);
    memset(fs, 0, sizeof *fs);
}

/* The pools of n samples. 0, or -1 out of memory. */
static int make_set(const rl_fit_sample *s, int n, fit_set *fs) {
    memset(fs, 0, sizeof *fs);
    const rl_fit_sample **order = malloc((size_t)(n + 1) * sizeof *order);
    fs->pool = malloc((size_t)(n + 1) * sizeof *fs->pool);
    fs->m = malloc((size_t)(n + 1) * sizeof *fs->m), fs->w = malloc((size_t)(n + 1) * sizeof *fs->w);
    size_t sums = (size_t)(2 * n + 1) * sizeof(double);
    fs->pre_w = malloc(sums), fs->pre_log = malloc(sums), fs->suf_m = malloc(sums), fs->suf_mlog = malloc(sums);
    if (!order || !fs->pool || !fs->m || !fs->w || !fs->pre_w || !fs->pre_log || !fs->suf_m || !fs->suf_mlog) {
        free(order), free_set(fs);
        return -1;
    }
    for (int i = 0; i < n; i++) order[i] = &s[i];
    qsort(order, (size_t)n, sizeof *order, cmp_figures);
    for (int i = 0; i < n; i++) {
        if (i == 0 || memcmp(&order[i]->k, &order[i - 1]->k, sizeof order[i]->k)) {
            fit_pool *q = &fs->pool[fs->n++];
            memcpy(&q->k, &order[i]->k, sizeof q->k);
            q->at = i, q->count = 0;
        }
        fs->m[i] = order[i]->measured_s;
        fs->w[i] = order[i]->weight > 0 ? order[i]->weight : 1;
        fs->pool[fs->n - 1].count++;
    }
    for (int i = 0; i < fs->n; i++) pool_sums(fs, i);
    free(order);
    return 0;
}

/* Σ over the pool's members of w × max(t, m) × |log(t / m)|, t its
 * forecast: the members at or below t give w t (log t − log m) each, those
 * above w m (log m − log t), so with the members sorted the sum is prefix
 * sums around the first member above t (logs taken against the pool's
 * median, so that the sums stay small and lose no precision). */
static double pool_loss(const fit_set *fs, int i, double t) {
    const fit_pool *q = &fs->pool[i];
    const double *m = fs->m + q->at;
    if (!(t > 0)) return 1e3 * q->sum_wm;
    if (q->count == 1) return fs->w[q->at] * (fmax(t, m[0]) * fabs(log(t / m[0])));
    int lo = 0, hi = q->count; /* the first member above t */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (m[mid] <= t) lo = mid + 1;
        else hi = mid;
    }
    int base = q->at + i;
    double lt = log(t / q->ref);
    return t * (fs->pre_w[base + lo] * lt - fs->pre_log[base + lo]) + fs->suf_mlog[base + lo] -
           fs->suf_m[base + lo] * lt;
}

/* Σ max(forecast, measured) × |log(forecast / measured)|: 0 for a perfect
 * fit, robust to outliers (a log, not a square), and weighted by the time
 * at stake, because a model's time is the sum of its kernels': a 20 ms
 * convolution counts for what it weighs in the model, not as much as a 5 µs
 * reshape, and a small kernel forecast far too long weighs by its forecast.
 * Unweighted, the many small kernels set the fit and a CNN's total came out
 * 48 % short in the fit itself; weighted by the measured time alone, the
 * fixed cost per kernel grew until a transformer's total was 3x too long.
 * Each sample's weight (rl_fit_sample.weight) divides by its run's time:
 * unweighted by run, a 1 s transformer set every class shared with a 40 ms
 * CNN, which its fit then missed by 18-50 % (docs/validation.md). */
static double set_loss(const fit_set *fs, const rl_forecast_params *p) {
    double sum = 0;
    for (int i = 0; i < fs->n; i++) sum += pool_loss(fs, i, rl_fc_kernel_time(&fs->pool[i].k, p));
    return sum;
}

/* The loss as the search sees it: once the search has spent its budget,
 * infinite, so that no move is taken and every loop ends at once with the
 * best point found (each search keeps a point only when its loss is lower). */
static double loss(fit_set *fs, const rl_forecast_params *p) {
    if (fs->evaluations >= fs->budget) return INFINITY;
    fs->evaluations += fs->n;
    return set_loss(fs, p);
}

double rl_fit_loss(const rl_fit_sample *s, int n, const rl_forecast_params *p) {
    double sum = 0;
    for (int i = 0; i < n; i++) {
        double t = rl_fc_kernel_time(&s[i].k, p), m = s[i].measured_s, w = s[i].weight > 0 ? s[i].weight : 1;
        sum += w * (t > 0 ? fmax(t, m) * fabs(log(t / m)) : 1e3 * m);
    }
    return sum;
}

/* Try x (log of the parameter) and keep it when the loss drops. */
static void try_value(fit_set *fs, rl_forecast_params *p, const param *q, double x,
                      double *best_x, double *best) {
    if (x < q->lo) x = q->lo;
    if (x > q->hi) x = q->hi;
    double keep = *q->value;
    *q->value = exp(x);
    double l = loss(fs, p);
    if (l < *best * (1 - 1e-12)) *best = l, *best_x = x;
    *q->value = keep;
}

/* One parameter: a coarse grid over its range, then finer grids around the
 * best point. Returns whether the loss dropped. */
static bool search_param(fit_set *fs, rl_forecast_params *p, const param *q) {
    double best = loss(fs, p), start = best;
    double best_x = log(*q->value);
    for (int i = 0; i < COARSE; i++) try_value(fs, p, q, q->lo + (q->hi - q->lo) * i / (COARSE - 1), &best_x, &best);
    double step = (q->hi - q->lo) / (COARSE - 1);
    for (int r = 0; r < REFINES; r++) {
        double centre = best_x;
        for (int i = -4; i <= 4; i++)
            if (i) try_value(fs, p, q, centre + step * i / 4, &best_x, &best);
        step /= 4;
    }
    *q->value = exp(best_x);
    return best < start;
}

/* A product's kernel informs the fraction of one side of its roofline
 * only when that side's time at the peaks is at least this share of the
 * other's: a GEMV (a product of one row, as a classifier at batch 1) reads
 * its weights 20x longer than it computes, so any compute fraction above
 * 0.05 gives it the same time. Searched anyway, such a fraction drifts
 * wherever the loss is flat (0.5 from the classifiers of two CNNs, where a
 * transformer's GEMMs run at 0.74), and a held-out transformer was
 * forecast 54 % long. Below that share the fraction stays unfitted and
 * is taken from the sibling product class (rl_fit_borrow_siblings). */
#define RL_FIT_BOUND_SHARE 0.2

/* Class c's compute (memory: false) or memory fraction is no longer
 * informed: its flag and its count of kernels go together. */
static void untell(rl_fit_informed *inf, int c, bool memory) {
    if (memory) inf->memory[c] = false, inf->n_memory[c] = 0;
    else inf->compute[c] = false, inf->n_compute[c] = 0;
}

/* The parameters the samples depend on, the fixed costs first or last. */
static int informed_params(fit_set *fs, rl_forecast_params *p, rl_fit_informed *inf, param *out,
                           bool costs_first) {
    memset(inf, 0, sizeof *inf);
    int distinct[2][RL_CLASS_COUNT] = {{0}}; /* per side and class: the distinct kernels that inform it */
    for (int i = 0; i < fs->n; i++) {
        const rl_fc_kernel *k = &fs->pool[i].k;
        double t_mem = k->t_dram + k->t_cache, t_compute = 0;
        for (int c = 0; c < RL_CLASS_COUNT; c++) t_compute += k->tc[c];
        const int members = fs->pool[i].count;
        for (int c = 0; c < RL_CLASS_COUNT; c++)
            if (k->tc[c] > 0 && (!rl_fc_class_is_product(c) || k->tc[c] >= RL_FIT_BOUND_SHARE * t_mem))
                inf->compute[c] = true, inf->n_compute[c] += members, distinct[0][c]++;
        if (t_mem > 0 && (!rl_fc_class_is_product(k->cls) || t_mem >= RL_FIT_BOUND_SHARE * t_compute))
            inf->memory[k->cls] = true, inf->n_memory[k->cls] += members, distinct[1][k->cls]++;
        if (k->t_columns > 0) /* the im2col copies (forecast.c) */
            inf->memory[RL_CLASS_MOVEMENT] = true, inf->n_memory[RL_CLASS_MOVEMENT] += members,
            distinct[1][RL_CLASS_MOVEMENT]++;
        inf->kernel_s |= k->kernels > 0;
        inf->group_s |= k->groups > 0;
        inf->tile_k0 |= k->tk > 0;
    }
    /* a fraction that one kernel alone informs is that kernel's own figure,
     * whatever else slowed it: no other kernel tests it (docs/model.md) */
    for (int c = 0; c < RL_CLASS_COUNT; c++) {
        for (int side = 0; side < 2; side++)
            if (distinct[side][c] < 2) untell(inf, c, side);
    }
    /* a frozen parameter is no parameter of this search (rl_fit_fill_gaps) */
    const rl_fit_informed *fz = fs->frozen;
    if (fz) {
        for (int c = 0; c < RL_CLASS_COUNT; c++) {
            if (fz->compute[c]) untell(inf, c, false);
            if (fz->memory[c]) untell(inf, c, true);
        }
        inf->kernel_s &= !fz->kernel_s, inf->group_s &= !fz->group_s, inf->tile_k0 &= !fz->tile_k0;
    }
    int m = 0;
    if (costs_first && inf->kernel_s) out[m++] = (param){&p->kernel_s, log(KERNEL_LO), log(KERNEL_HI)};
    if (costs_first && inf->group_s) out[m++] = (param){&p->group_s, log(GROUP_LO), log(GROUP_HI)};
    for (int c = 0; c < RL_CLASS_COUNT; c++) {
        if (inf->compute[c]) out[m++] = (param){&p->compute[c], log(FRACTION_LO), 0};
        if (inf->memory[c]) out[m++] = (param){&p->memory[c], log(FRACTION_LO), 0};
    }
    if (!costs_first && inf->kernel_s) out[m++] = (param){&p->kernel_s, log(KERNEL_LO), log(KERNEL_HI)};
    if (!costs_first && inf->group_s) out[m++] = (param){&p->group_s, log(GROUP_LO), log(GROUP_HI)};
    if (inf->tile_k0) out[m++] = (param){&p->tile_k0, log(TILE_K0_LO), log(TILE_K0_HI)};
    return m;
}

/* Two parameters moved together: the loss is a sum of absolute logs, with
 * kinks where one parameter alone cannot move without raising it (e.g. a
 * class's compute fraction against the cost per convolution group, which
 * both stretch the same kernels). Tries each pair along its four diagonals
 * at steps from 0.1 down to 1e-4 (in log) and keeps every move that lowers
 * the loss. Returns whether one did. */
static bool search_pairs(fit_set *fs, rl_forecast_params *p, const param *q, int m) {
    double best = loss(fs, p), start = best;
    for (int i = 0; i < m; i++)
        for (int j = i + 1; j < m; j++)
            for (double step = 0.1; step > 5e-5; step /= 4)
                for (int d = 0; d < 4; d++) {
                    double a = log(*q[i].value), b = log(*q[j].value);
                    double x = a + (d & 1 ? step : -step), y = b + (d & 2 ? step : -step);
                    if (x < q[i].lo || x > q[i].hi || y < q[j].lo || y > q[j].hi) continue;
                    *q[i].value = exp(x), *q[j].value = exp(y);
                    double l = loss(fs, p);
                    if (l < best * (1 - 1e-12)) best = l;
                    else *q[i].value = exp(a), *q[j].value = exp(b);
                }
    return best < start;
}

/* An output tile's fixed work (tile_k0) and the fractions that set a
 * product's time (the matrix class's compute fraction; with im2col, the
 * copies' bandwidth) all stretch every product, the fixed work the more the
 * smaller its K: a descent that moves one at a time, or two by equal steps,
 * stays where a fraction took up the fixed work's time. So tile_k0 is
 * searched over its whole range, 17 points then 3 finer grids, with those
 * fractions (of q, m parameters) fitted anew, one pass each, at every
 * value; the descent's later passes refine it with the rest. */
static void search_tile_k0(fit_set *fs, rl_forecast_params *p, const param *k0, const param *q,
                           int m) {
    rl_forecast_params best_p = *p;
    double best = loss(fs, p), best_k0 = *k0->value;
    enum { K0_COARSE = 17, K0_REFINES = 3 };
    double step = (k0->hi - k0->lo) / (K0_COARSE - 1), centre = log(best_k0);
    for (int r = -1; r < K0_REFINES; r++) {
        int lo = r < 0 ? 0 : -4, hi = r < 0 ? K0_COARSE - 1 : 4;
        for (int i = lo; i <= hi; i++) {
            double x = r < 0 ? k0->lo + step * i : centre + step * i / 4;
            if (x < k0->lo || x > k0->hi) continue;
            *p = best_p;
            *k0->value = exp(x);
            for (int j = 0; j < m; j++)
                if (q[j].value == &p->compute[RL_CLASS_MATRIX] || q[j].value == &p->memory[RL_CLASS_MATRIX] ||
                    q[j].value == &p->compute[RL_CLASS_CONV] || q[j].value == &p->memory[RL_CLASS_CONV] ||
                    q[j].value == &p->memory[RL_CLASS_MOVEMENT])
                    search_param(fs, p, &q[j]);
            double l = loss(fs, p);
            if (l < best * (1 - 1e-12)) best = l, best_k0 = *k0->value, best_p = *p;
        }
        centre = log(best_k0);
        if (r >= 0) step /= 4;
    }
    *p = best_p;
}

/* One descent from p's values: every parameter in turn, then pairs, until
 * nothing moves. */
static void descend(fit_set *fs, rl_forecast_params *p, rl_fit_informed *informed,
                    bool costs_first) {
    param q[2 * RL_CLASS_COUNT + 3];
    int m = informed_params(fs, p, informed, q, costs_first);
    /* start inside the ranges (a profile may give 0 for the fixed cost) */
    for (int j = 0; j < m; j++) {
        double x = log(*q[j].value > 0 ? *q[j].value : exp(q[j].lo));
        *q[j].value = exp(x < q[j].lo ? q[j].lo : x > q[j].hi ? q[j].hi : x);
    }
    const param *k0 = NULL;
    for (int j = 0; j < m; j++)
        if (q[j].value == &p->tile_k0) k0 = &q[j];
    for (int sweep = 0; sweep < SWEEPS; sweep++) {
        double before = loss(fs, p);
        bool moved = false;
        for (int j = 0; j < m; j++) moved |= search_param(fs, p, &q[j]);
        moved |= search_pairs(fs, p, q, m);
        if (k0 && sweep == 0) search_tile_k0(fs, p, k0, q, m);
        if (!moved && !(loss(fs, p) < before * (1 - 1e-12))) break;
    }
}

/* A fraction the samples touch but do not tell: its kernels stay bound by
 * the other side over a range of it, so the loss is flat there and the
 * search stops wherever it first reached the floor of that range (ResNet-18's
 * compute-bound convolutions left the convolution class's memory share at
 * 0.27, and every memory-bound 1x1 convolution of a held-out model was then
 * forecast slow). Put back at its start, a fraction that costs the samples
 * nothing (the loss within a millionth) is the start's, and not fitted; a
 * product class's then takes its fitted sibling's (rl_fit_borrow_siblings). */
static void keep_untold_fractions(const fit_set *fs, const rl_forecast_params *start, rl_forecast_params *p,
                                  rl_fit_informed *inf) {
    const double fitted = set_loss(fs, p);
    for (int c = 0; c < RL_CLASS_COUNT; c++) {
        double *mine[2] = {&p->compute[c], &p->memory[c]};
        const double theirs[2] = {start->compute[c], start->memory[c]};
        const bool told[2] = {inf->compute[c], inf->memory[c]};
        for (int side = 0; side < 2; side++) {
            if (!told[side]) continue;
            double v = *mine[side];
            /* a fraction the search left at its start: flat if a tenth less costs nothing either */
            *mine[side] = v == theirs[side] ? 0.9 * v : theirs[side];
            bool flat = set_loss(fs, p) <= fitted * (1 + 1e-6);
            *mine[side] = flat ? theirs[side] : v;
            if (flat) untell(inf, c, side);
        }
    }
}

/* Two descents, the keener of which wins: the loss has valleys a search
 * one or two parameters at a time does not leave, where a class's compute
 * fraction and the cost per convolution group take up each other's time
 * (a grouped convolution of the matrix class and a depthwise one both pay
 * the cost per group). Fixed costs first sets them while the fractions are
 * still at their start; fractions first lets a fraction far from its start
 * move before a cost takes up its kernels' time. Each descent has half the
 * budget (RL_FIT_BUDGET). */
static void descend_two_ways(fit_set *fs, rl_forecast_params *p, rl_fit_informed *informed, rl_fit_search *search) {
    const rl_forecast_params start = *p;
    rl_forecast_params other = *p;
    rl_fit_informed inf2;
    fs->budget = (search->budget > 0 ? search->budget : RL_FIT_BUDGET) / 2;
    descend(fs, p, informed, false);
    bool stopped = fs->evaluations >= fs->budget;
    long long spent = fs->evaluations;
    fs->evaluations = 0;
    descend(fs, &other, &inf2, true);
    search->stopped = stopped || fs->evaluations >= fs->budget;
    search->evaluations = spent + fs->evaluations;
    search->pools = fs->n;
    if (set_loss(fs, &other) < set_loss(fs, p)) *p = other, *informed = inf2;
    keep_untold_fractions(fs, &start, p, informed);
}

int rl_fit_params(const rl_fit_sample *s, int n, rl_forecast_params *p, rl_fit_informed *informed,
                  rl_fit_search *search) {
    fit_set fs;
    if (make_set(s, n, &fs)) return -1;
    descend_two_ways(&fs, p, informed, search);
    free_set(&fs);
    rl_fit_borrow_siblings(p, informed);
    return 0;
}

int rl_fit_fill_gaps(const rl_fit_sample *s, int n, const rl_fit_informed *told, rl_forecast_params *p,
                     rl_fit_informed *filled, rl_fit_search *search) {
    fit_set fs;
    memset(filled, 0, sizeof *filled);
    /* a stack that lowers its convolutions by im2col runs them through the
     * GEMM kernel itself: the sibling's figures are the class's own */
    if (n <= 0 || p->im2col) return 0;
    if (make_set(s, n, &fs)) return -1;
    rl_fit_informed keep = *told;
    for (int c = 0; c < RL_CLASS_COUNT; c++) {
        if (!rl_fc_class_is_product(c)) keep.compute[c] = true;
        keep.memory[c] = true;
    }
    keep.kernel_s = keep.group_s = keep.tile_k0 = true;
    fs.frozen = &keep;
    descend_two_ways(&fs, p, filled, search);
    free_set(&fs);
    return 0;
}

void rl_fit_informed_join(rl_fit_informed *a, const rl_fit_informed *b) {
    for (int c = 0; c < RL_CLASS_COUNT; c++) {
        a->compute[c] |= b->compute[c], a->memory[c] |= b->memory[c];
        a->n_compute[c] += b->n_compute[c], a->n_memory[c] += b->n_memory[c];
    }
    a->kernel_s |= b->kernel_s, a->group_s |= b->group_s, a->tile_k0 |= b->tile_k0;
}

int rl_fit_sibling(int cls) {
    return cls == RL_CLASS_MATRIX ? RL_CLASS_CONV : cls == RL_CLASS_CONV ? RL_CLASS_MATRIX : -1;
}

void rl_fit_borrow_siblings(rl_forecast_params *p, const rl_fit_informed *inf) {
    for (int c = 0; c < RL_CLASS_COUNT; c++) {
        int sib = rl_fit_sibling(c);
        if (sib < 0) continue;
        if (!inf->compute[c] && inf->compute[sib]) p->compute[c] = p->compute[sib];
        if (!inf->memory[c] && inf->memory[sib]) p->memory[c] = p->memory[sib];
    }
}
