/* The forecast's fit (forecast_fit.h). */
#include <math.h>
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
static double loss(const rl_fit_sample *s, int n, const rl_forecast_params *p) {
    double sum = 0;
    for (int i = 0; i < n; i++) {
        double t = rl_fc_kernel_time(&s[i].k, p), m = s[i].measured_s, w = s[i].weight > 0 ? s[i].weight : 1;
        sum += w * (t > 0 ? fmax(t, m) * fabs(log(t / m)) : 1e3 * m);
    }
    return sum;
}

double rl_fit_loss(const rl_fit_sample *s, int n, const rl_forecast_params *p) { return loss(s, n, p); }

/* Try x (log of the parameter) and keep it when the loss drops. */
static void try_value(const rl_fit_sample *s, int n, rl_forecast_params *p, const param *q, double x,
                      double *best_x, double *best) {
    if (x < q->lo) x = q->lo;
    if (x > q->hi) x = q->hi;
    double keep = *q->value;
    *q->value = exp(x);
    double l = loss(s, n, p);
    if (l < *best * (1 - 1e-12)) *best = l, *best_x = x;
    *q->value = keep;
}

/* One parameter: a coarse grid over its range, then finer grids around the
 * best point. Returns whether the loss dropped. */
static bool search_param(const rl_fit_sample *s, int n, rl_forecast_params *p, const param *q) {
    double best = loss(s, n, p), start = best;
    double best_x = log(*q->value);
    for (int i = 0; i < COARSE; i++) try_value(s, n, p, q, q->lo + (q->hi - q->lo) * i / (COARSE - 1), &best_x, &best);
    double step = (q->hi - q->lo) / (COARSE - 1);
    for (int r = 0; r < REFINES; r++) {
        double centre = best_x;
        for (int i = -4; i <= 4; i++)
            if (i) try_value(s, n, p, q, centre + step * i / 4, &best_x, &best);
        step /= 4;
    }
    *q->value = exp(best_x);
    return best < start;
}

/* The parameters the samples depend on, the fixed costs first or last. */
static int informed_params(const rl_fit_sample *s, int n, rl_forecast_params *p, rl_fit_informed *inf, param *out,
                           bool costs_first) {
    memset(inf, 0, sizeof *inf);
    for (int i = 0; i < n; i++) {
        for (int c = 0; c < RL_CLASS_COUNT; c++) inf->compute[c] |= s[i].k.tc[c] > 0;
        inf->memory[s[i].k.cls] |= s[i].k.t_dram + s[i].k.t_cache > 0;
        inf->memory[RL_CLASS_MOVEMENT] |= s[i].k.t_columns > 0; /* the im2col copies (forecast.c) */
        inf->kernel_s |= s[i].k.kernels > 0;
        inf->group_s |= s[i].k.groups > 0;
        inf->tile_k0 |= s[i].k.tk > 0;
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
static bool search_pairs(const rl_fit_sample *s, int n, rl_forecast_params *p, const param *q, int m) {
    double best = loss(s, n, p), start = best;
    for (int i = 0; i < m; i++)
        for (int j = i + 1; j < m; j++)
            for (double step = 0.1; step > 5e-5; step /= 4)
                for (int d = 0; d < 4; d++) {
                    double a = log(*q[i].value), b = log(*q[j].value);
                    double x = a + (d & 1 ? step : -step), y = b + (d & 2 ? step : -step);
                    if (x < q[i].lo || x > q[i].hi || y < q[j].lo || y > q[j].hi) continue;
                    *q[i].value = exp(x), *q[j].value = exp(y);
                    double l = loss(s, n, p);
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
static void search_tile_k0(const rl_fit_sample *s, int n, rl_forecast_params *p, const param *k0, const param *q,
                           int m) {
    rl_forecast_params best_p = *p;
    double best = loss(s, n, p), best_k0 = *k0->value;
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
                    search_param(s, n, p, &q[j]);
            double l = loss(s, n, p);
            if (l < best * (1 - 1e-12)) best = l, best_k0 = *k0->value, best_p = *p;
        }
        centre = log(best_k0);
        if (r >= 0) step /= 4;
    }
    *p = best_p;
}

/* One descent from p's values: every parameter in turn, then pairs, until
 * nothing moves. */
static void descend(const rl_fit_sample *s, int n, rl_forecast_params *p, rl_fit_informed *informed,
                    bool costs_first) {
    param q[2 * RL_CLASS_COUNT + 3];
    int m = informed_params(s, n, p, informed, q, costs_first);
    /* start inside the ranges (a profile may give 0 for the fixed cost) */
    for (int j = 0; j < m; j++) {
        double x = log(*q[j].value > 0 ? *q[j].value : exp(q[j].lo));
        *q[j].value = exp(x < q[j].lo ? q[j].lo : x > q[j].hi ? q[j].hi : x);
    }
    const param *k0 = NULL;
    for (int j = 0; j < m; j++)
        if (q[j].value == &p->tile_k0) k0 = &q[j];
    for (int sweep = 0; sweep < SWEEPS; sweep++) {
        double before = loss(s, n, p);
        bool moved = false;
        for (int j = 0; j < m; j++) moved |= search_param(s, n, p, &q[j]);
        moved |= search_pairs(s, n, p, q, m);
        if (k0 && sweep == 0) search_tile_k0(s, n, p, k0, q, m);
        if (!moved && !(loss(s, n, p) < before * (1 - 1e-12))) break;
    }
}

/* Two descents, the keener of which wins: the loss has valleys a search
 * one or two parameters at a time does not leave, where a class's compute
 * fraction and the cost per convolution group take up each other's time
 * (a grouped convolution of the matrix class and a depthwise one both pay
 * the cost per group). Fixed costs first sets them while the fractions are
 * still at their start; fractions first lets a fraction far from its start
 * move before a cost takes up its kernels' time. */
void rl_fit_params(const rl_fit_sample *s, int n, rl_forecast_params *p, rl_fit_informed *informed) {
    rl_forecast_params other = *p;
    rl_fit_informed inf2;
    descend(s, n, p, informed, false);
    descend(s, n, &other, &inf2, true);
    if (loss(s, n, &other) < loss(s, n, p)) *p = other;
}
