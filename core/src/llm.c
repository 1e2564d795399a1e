/* The LLM inference view: generation of G tokens from its decode steps,
 * memory fit, the quantization what-if, the decode batch and context
 * sweeps, and the response. The roles of a decoder's inputs are found by
 * llm_roles.c; each prefill or decode step is analysed and timed by
 * llm_phase.c. Conventions and the serving assumptions are in docs/llm.md;
 * the JSON in docs/api.md. */
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forecast_band.h"
#include "llm.h"
#include "llm_phase.h"
#include "llm_roles.h"

#define LLM_MAX_STEP_EVALS 48       /* decode steps analysed for the request's generation */
#define LLM_SWEEP_STEP_EVALS 12     /* ... for each row of the batch sweep */

/* ---------------------------------------------------------- generation -- */
/* The figures of decode steps that add up over a generation. */
typedef struct step_sum {
    double time_s, energy_j, flops, matrix_flops, bytes, forecast_s, forecast_energy_j;
} step_sum;

static step_sum step_of(const phase *p) {
    return (step_sum){p->time_s, p->energy_j, p->flops, p->matrix_flops, p->bytes, p->forecast_s,
                      p->forecast_energy_j};
}

static void sum_add(step_sum *s, const step_sum *a, double w) {
    s->time_s += w * a->time_s;
    s->energy_j += w * a->energy_j;
    s->flops += w * a->flops;
    s->matrix_flops += w * a->matrix_flops;
    s->bytes += w * a->bytes;
    s->forecast_s += w * a->forecast_s;
    s->forecast_energy_j += w * a->forecast_energy_j;
}

typedef struct generation {
    step_sum total;           /* over the G steps */
    phase first, mid, last;   /* steps at P, at the first midpoint, at P + G - 1 */
    const char *method;       /* exact_sum | closed_form | exact_piecewise | trapezoid_upper_bound */
    int evaluated;            /* steps analysed */
} generation;

typedef struct gen_walk {
    llm_run *L;
    int64_t batch;
    int evals_left;
    bool truncated;
    int failed;
    rl_error *err;
    generation *gen;
} gen_walk;

static bool on_chord(double fa, double fb, double fm, double t) {
    if (!isfinite(fm)) return true; /* no energy figures: nothing to compare */
    double want = fa + (fb - fa) * t;
    return fabs(fm - want) <= 1e-9 * fmax(fabs(fm), fabs(want)) + 1e-300;
}

/* Σ over c = a..b of the step at context c, given the steps at a and b. A
 * step's time is a sum over nodes of the larger of a compute and a memory
 * term, each linear in c: a convex, piecewise-linear function. When the
 * midpoint lies on the chord, so does every point between (convexity), and
 * the trapezoid sum (b - a + 1)·(f(a) + f(b))/2 is exact; otherwise split. */
static void sum_interval(gen_walk *w, int64_t a, const phase *pa, int64_t b, const phase *pb, step_sum *out) {
    step_sum fa = step_of(pa), fb = step_of(pb);
    if (b - a <= 1 || w->failed || w->evals_left <= 0) {
        if (b - a > 1) w->truncated = true; /* convex: the trapezoid is an upper bound */
        double n = (double)(b - a + 1);
        sum_add(out, &fa, b > a ? n / 2 : 1);
        if (b > a) sum_add(out, &fb, n / 2);
        return;
    }
    int64_t m = a + (b - a) / 2;
    phase pm;
    w->evals_left--;
    if (rl_llm_run_phase(w->L, w->batch, 1, m, true, false, &pm, w->err)) {
        w->failed = 1;
        return;
    }
    w->gen->evaluated++;
    if (w->gen->evaluated == 3) w->gen->mid = pm;
    double t = (double)(m - a) / (double)(b - a);
    if (on_chord(pa->time_s, pb->time_s, pm.time_s, t) && on_chord(pa->energy_j, pb->energy_j, pm.energy_j, t)) {
        double n = (double)(b - a + 1);
        sum_add(out, &fa, n / 2);
        sum_add(out, &fb, n / 2);
        return;
    }
    step_sum fm = step_of(&pm);
    sum_interval(w, a, pa, m, &pm, out);
    sum_interval(w, m, &pm, b, pb, out);
    sum_add(out, &fm, -1); /* m was counted by both halves */
}

/* G decode steps at batch B, at contexts P .. P + G - 1, analysing at most
 * `budget` steps (>= 3). */
static int decode_generation(llm_run *L, int64_t batch, int64_t P, int64_t G, int budget, generation *gen,
                             rl_error *err) {
    memset(gen, 0, sizeof *gen);
    if (rl_llm_run_phase(L, batch, 1, P, true, false, &gen->first, err)) return -1;
    gen->evaluated = 1;
    gen->mid = gen->last = gen->first;
    if (G == 1) {
        gen->total = step_of(&gen->first);
        gen->method = "exact_sum";
        return 0;
    }
    if (rl_llm_run_phase(L, batch, 1, P + G - 1, true, false, &gen->last, err)) return -1;
    gen->evaluated = 2;
    gen_walk w = {L, batch, budget - 2, false, 0, err, gen};
    /* a sliding window bends the step's work where its cache stops growing
     * (past W − 1: the keys seen; past W: the cache kept): the pieces between
     * those points are summed apart, each convex as above */
    int64_t at[2 * LLM_MAX_KV_WINDOWS + 1];
    int n_at = 0;
    for (int i = 0; i < gen->first.n_kv_windows; i++)
        for (int64_t k = (int64_t)gen->first.kv_windows[i].tokens - 1; k <= (int64_t)gen->first.kv_windows[i].tokens; k++)
            if (k > P && k < P + G - 1) {
                int j = n_at++;
                while (j > 0 && at[j - 1] > k) at[j] = at[j - 1], j--;
                at[j] = k;
            }
    int64_t a = P;
    phase pa = gen->first, pk;
    for (int i = 0; i <= n_at && !w.failed; i++) {
        bool end = i == n_at;
        if (!end && at[i] == a) continue; /* a point given twice */
        if (!end && rl_llm_run_phase(L, batch, 1, at[i], true, false, &pk, err)) return -1;
        if (!end && ++gen->evaluated == 3) gen->mid = pk;
        if (!end) w.evals_left--;
        sum_interval(&w, a, &pa, end ? P + G - 1 : at[i], end ? &gen->last : &pk, &gen->total);
        if (end) break;
        step_sum fk = step_of(&pk);
        sum_add(&gen->total, &fk, -1); /* the point ends one piece and starts the next */
        a = at[i];
        pa = pk;
    }
    if (w.failed) return -1;
    gen->method = G <= 3 ? "exact_sum" : w.truncated ? "trapezoid_upper_bound"
                : gen->evaluated == 3 ? "closed_form" : "exact_piecewise";
    return 0;
}

/* -------------------------------------------------------------- memory -- */
/* Capacity arithmetic (docs/llm.md): resident weights + the KV cache of
 * `batch` sequences of `context` tokens + the activation peak of the
 * prefill, which scales with the batch. A cache read through a sliding
 * window holds at most its window's tokens, so the cache of one sequence
 * is full · context + Σ window bytes · min(context, window). */
typedef struct memory_plan {
    double weights, kv_per_token, activation_per_seq, capacity; /* capacity 0 = unknown */
    double kv_full_per_token;                                   /* the caches without a window */
    kv_window windows[LLM_MAX_KV_WINDOWS];
    int n_windows;
} memory_plan;

/* The KV cache of one sequence of `context` tokens. */
static double kv_bytes_at(const memory_plan *m, double context) {
    double b = m->kv_full_per_token * context;
    for (int i = 0; i < m->n_windows; i++) b += m->windows[i].bytes_per_token * fmin(context, m->windows[i].tokens);
    return b;
}

static double memory_required(const memory_plan *m, double batch, double context) {
    return m->weights + batch * (kv_bytes_at(m, context) + m->activation_per_seq);
}

/* The largest batch whose sequences of `context` tokens fit; 0 when not
 * even one does, -1 when the capacity is unknown. */
static double max_batch_at(const memory_plan *m, double context) {
    if (m->capacity <= 0) return -1;
    double per_seq = kv_bytes_at(m, context) + m->activation_per_seq;
    double room = m->capacity - m->weights;
    if (room < per_seq) return 0;
    return per_seq > 0 ? floor(room / per_seq) : -1;
}

/* The longest context (tokens per sequence) that fits at `batch`: the
 * cache grows with the context (more slowly past each window), so the
 * largest whole context whose cache fits is found by bisection. INFINITY
 * when only windowed caches grow and they fit whole: the memory sets no
 * limit. */
static double max_context_at(const memory_plan *m, double batch) {
    if (m->capacity <= 0 || m->kv_per_token <= 0) return -1;
    double room = m->capacity - m->weights - batch * m->activation_per_seq;
    if (room <= 0) return 0;
    if (m->n_windows == 0) return floor(room / (batch * m->kv_per_token));
    room /= batch;
    double widest = 0;
    for (int i = 0; i < m->n_windows; i++) widest = fmax(widest, m->windows[i].tokens);
    if (m->kv_full_per_token <= 0 && kv_bytes_at(m, widest) <= room) return INFINITY;
    double lo = 0, hi = m->kv_full_per_token > 0 ? fmin(floor(room / m->kv_full_per_token) + 1, 0x1p53) : widest;
    while (hi - lo > 1) { /* kv_bytes_at(lo) <= room < kv_bytes_at(hi) */
        double mid = floor((lo + hi) / 2);
        if (kv_bytes_at(m, mid) <= room) lo = mid;
        else hi = mid;
    }
    return kv_bytes_at(m, hi) <= room ? hi : lo;
}

/* The plan of one decode step's phase: its caches' bytes per token, the
 * windowed ones apart. */
static memory_plan memory_of(const phase *decode, double weights, double activation_per_seq, double capacity) {
    memory_plan m = {.weights = weights, .kv_per_token = decode->kv_full_per_token,
                     .activation_per_seq = activation_per_seq, .capacity = capacity,
                     .kv_full_per_token = decode->kv_full_per_token, .n_windows = decode->n_kv_windows};
    for (int i = 0; i < decode->n_kv_windows; i++) {
        m.windows[i] = decode->kv_windows[i];
        m.kv_per_token += decode->kv_windows[i].bytes_per_token;
    }
    return m;
}

/* The plan split over `shards` devices (tensor and pipeline parallelism split
 * the cache; the weights and activations as the caller says). */
static memory_plan memory_split(const memory_plan *m, double weights, double activation_per_seq, double shards) {
    memory_plan s = *m;
    s.weights = weights;
    s.activation_per_seq = activation_per_seq;
    s.kv_per_token /= shards;
    s.kv_full_per_token /= shards;
    for (int i = 0; i < s.n_windows; i++) s.windows[i].bytes_per_token /= shards;
    return s;
}

/* The longest context is the memory's limit, capped at the positions the
 * model encodes when it states them (its rotary tables): beyond them the
 * graph computes but the model does not. Negative stays unknown. */
static double capped_context(const llm_run *L, double memory_limit) {
    if (L->max_positions <= 0) return memory_limit;
    double positions = (double)L->max_positions;
    return memory_limit < 0 || memory_limit > positions ? positions : memory_limit;
}

/* What sets the longest context: "positions" (the model's), "memory", or
 * "unknown" (no capacity and no positions). */
static const char *context_limit(const llm_run *L, const memory_plan *mem, double batch) {
    double m = max_context_at(mem, batch);
    if (L->max_positions > 0 && (m < 0 || m > (double)L->max_positions)) return "positions";
    if (isinf(m)) return "unknown"; /* only windowed caches, which fit, and no positions stated */
    return m >= 0 ? "memory" : "unknown";
}

/* How many devices hold `required` bytes split evenly over them, as tensor
 * parallelism splits weights, cache and activations: the smallest power of
 * two (head counts are) at or above required / capacity. -1 when the
 * capacity is unknown. An estimate: docs/parallel.md plans the exact split. */
static double devices_needed(double required, double capacity) {
    if (!(capacity > 0) || !isfinite(required)) return -1;
    double n = 1;
    while (n * capacity < required && n < 1048576) n *= 2;
    return n;
}

/* ---------------------------------------------------------------- JSON -- */
static void put(cJSON *o, const char *k, double v) {
    if (isfinite(v)) cJSON_AddNumberToObject(o, k, v);
    else cJSON_AddNullToObject(o, k);
}

/* A count that may be unknown (negative). */
static void put_count(cJSON *o, const char *k, double v) {
    if (v >= 0 && isfinite(v)) cJSON_AddNumberToObject(o, k, v);
    else cJSON_AddNullToObject(o, k);
}

static void phase_figures(cJSON *o, const phase *p) {
    put(o, "flops", p->flops);
    put(o, "matrix_flops", p->matrix_flops);
    put(o, "bytes", p->bytes);
    cJSON_AddStringToObject(o, "bound", rl_bound_id(p->bound));
    put(o, "t_compute", p->t_compute);
    put(o, "t_memory", p->t_memory);
    put(o, "kernels", p->kernels);
    put(o, "launch_floor_s", p->launch_floor_s);
}

static cJSON *point_json(const char *name, double flops, double bytes, double time) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "phase", name);
    put(o, "intensity", bytes > 0 ? flops / bytes : NAN);
    put(o, "flops_per_s", time > 0 ? flops / time : NAN);
    put(o, "time_s", time);
    put(o, "flops", flops);
    put(o, "bytes", bytes);
    return o;
}

static const char *const assumptions[] = {
    "decode steps replay a captured graph (CUDA Graphs or the like): no per-kernel launch cost; the "
    "launch floor of one step is shown beside it (decode.launch_floor_s)",
    "the KV cache is updated in place: present aliases past, so a step writes only its new tokens' keys "
    "and values and nothing copies the past; the attention reads the whole cache",
    "attention FLOPs are full, as the graph computes them: every query against every key of the present "
    "cache, the causal mask applied to the scores (a causal kernel skips about half of the prefill's "
    "attention work; a decode step is the same either way)",
    "every pass reads the weights once (the chosen speed-of-light model's traffic); a prefill of P "
    "tokens makes the first token, then G decode steps run at contexts P .. P + G - 1",
};

/* --------------------------------------------------------------- sweeps -- */
static int batch_sweep(llm_run *L, const memory_plan *mem, cJSON *out, rl_error *err) {
    const llm_opts *O = L->O;
    cJSON *rows = cJSON_AddArrayToObject(out, "rows");
    double context = (double)(O->prompt + O->generate);
    int64_t compute_bound = -1;
    for (int i = 0; i < O->n_batches; i++) {
        int64_t b = O->batches[i];
        if (L->R->fixed_batch > 0 && b != L->R->fixed_batch) continue;
        generation gen;
        if (decode_generation(L, b, O->prompt, O->generate, LLM_SWEEP_STEP_EVALS, &gen, err)) return -1;
        cJSON *row = cJSON_CreateObject();
        cJSON_AddItemToArray(rows, row);
        cJSON_AddNumberToObject(row, "batch", (double)b);
        double tpot = gen.total.time_s / (double)O->generate;
        put(row, "tpot_s", tpot);
        put(row, "tokens_per_s", (double)b * (double)O->generate / gen.total.time_s);
        put(row, "intensity", gen.total.bytes > 0 ? gen.total.flops / gen.total.bytes : NAN);
        cJSON_AddStringToObject(row, "bound", rl_bound_id(gen.mid.bound));
        cJSON_AddStringToObject(row, "method", gen.method);
        put(row, "memory_required_bytes", memory_required(mem, (double)b, context));
        if (mem->capacity > 0) cJSON_AddBoolToObject(row, "fits", memory_required(mem, (double)b, context) <= mem->capacity);
        else cJSON_AddNullToObject(row, "fits");
        /* the batch from which decode stays compute-bound (a constant cost,
         * such as dequantizing weights, can make batch 1 compute-bound alone) */
        if (gen.mid.bound == RL_BOUND_COMPUTE) {
            if (compute_bound < 0) compute_bound = b;
        } else {
            compute_bound = -1;
        }
    }
    put_count(out, "compute_bound_batch", (double)compute_bound);
    put_count(out, "max_batch", max_batch_at(mem, context));
    cJSON_AddStringToObject(out, "note",
                            "each row is a whole generation at that batch (the same prompt and generated "
                            "tokens); bound is the decode step's at the middle context");
    return 0;
}

static int context_sweep(llm_run *L, const memory_plan *mem, cJSON *out, rl_error *err) {
    const llm_opts *O = L->O;
    cJSON *rows = cJSON_AddArrayToObject(out, "rows");
    /* a step at context c writes position c, which the model must have:
     * the contexts below its positions, then its last one */
    int64_t ctxs[LLM_MAX_SWEEP + 1];
    int n = 0;
    for (int i = 0; i < O->n_contexts; i++)
        if (L->max_positions <= 0 || O->contexts[i] < L->max_positions) ctxs[n++] = O->contexts[i];
    if (n < O->n_contexts && (n == 0 || ctxs[n - 1] < L->max_positions - 1)) ctxs[n++] = L->max_positions - 1;
    for (int i = 0; i < n; i++) {
        int64_t ctx = ctxs[i];
        phase p;
        if (rl_llm_run_phase(L, O->batch, 1, ctx, true, false, &p, err)) return -1;
        cJSON *row = cJSON_CreateObject();
        cJSON_AddItemToArray(rows, row);
        cJSON_AddNumberToObject(row, "context", (double)ctx);
        put(row, "tpot_s", p.time_s);
        put(row, "tokens_per_s", (double)O->batch / p.time_s);
        cJSON_AddStringToObject(row, "bound", rl_bound_id(p.bound));
        put(row, "memory_required_bytes", memory_required(mem, (double)O->batch, (double)ctx + 1));
        if (mem->capacity > 0)
            cJSON_AddBoolToObject(row, "fits", memory_required(mem, (double)O->batch, (double)ctx + 1) <= mem->capacity);
        else cJSON_AddNullToObject(row, "fits");
    }
    put_count(out, "max_context", max_context_at(mem, (double)O->batch)); /* the memory's limit, drawn as such */
    put_count(out, "max_positions", L->max_positions > 0 ? (double)L->max_positions : -1);
    cJSON_AddStringToObject(out, "note",
                            "one decode step at each context (tokens already in the cache) at the request's "
                            "batch, up to the model's positions; memory at context + 1 tokens per sequence");
    return 0;
}

/* ------------------------------------------------------------- the run -- */
static void add_note(cJSON *notes, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void add_note(cJSON *notes, const char *fmt, ...) {
    char buf[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cJSON_AddItemToArray(notes, cJSON_CreateString(buf));
}

static cJSON *quantization_json(const llm_run *L) {
    const llm_opts *O = L->O;
    cJSON *q = cJSON_CreateObject();
    cJSON_AddStringToObject(q, "activation_precision", L->o->precision_name);
    put_count(q, "weight_bits", O->weight_bits ? O->weight_bits : -1);
    put_count(q, "weight_group", O->weight_bits && O->weight_bits < 16 ? (double)O->weight_group : -1);
    put_count(q, "kv_bits", O->kv_bits ? O->kv_bits : -1);
    if (O->kv_type) cJSON_AddStringToObject(q, "kv_type", O->kv_type);
    else cJSON_AddNullToObject(q, "kv_type");
    cJSON_AddNumberToObject(q, "requantized_matrices", L->requantized);
    cJSON_AddNumberToObject(q, "quantized_nodes_kept", L->kept_quantized);
    return q;
}

static cJSON *moe_json(const moe_info *m) {
    if (!m->kind) return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", m->kind);
    put_count(o, "experts", (double)m->experts);
    put_count(o, "top_k", (double)m->top_k);
    cJSON_AddNumberToObject(o, "layers", m->layers);
    if (!strcmp(m->kind, "router TopK")) cJSON_AddNumberToObject(o, "expert_nodes", m->expert_nodes);
    cJSON_AddStringToObject(o, "rule",
                            "FLOPs of the top-k active experts per token; weights read for the experts the "
                            "tokens touch, E·(1 − (1 − k/E)^tokens) under uniform routing; every expert "
                            "resident");
    return o;
}

/* The batch a generation runs at: the request's, unless the model fixes it. */
static int settle_batch(const cJSON *j, const rl_ctx *c, const llm_roles *R, llm_opts *O, rl_error *err) {
    if (R->fixed_batch <= 0 || R->dim[ROLE_BATCH]) return 0;
    bool asked = c->batch > 0 || cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j, "batch"));
    if (asked && O->batch != R->fixed_batch) {
        rl_error_set(err, "bad_request", "llm.batch",
                     "the model's batch is fixed at %lld (axis 0 of '%s'): it cannot run at batch %lld",
                     (long long)R->fixed_batch, R->token_input, (long long)O->batch);
        return -1;
    }
    O->batch = R->fixed_batch;
    return 0;
}

/* What the view is built from: the prefill, the generation and the memory plan. */
typedef struct llm_result {
    phase pre;
    generation gen;
    memory_plan mem;
    bool kv;
} llm_result;

/* The prefill, the decode of G tokens (with a KV cache) and the memory plan. */
static int compute_phases(llm_run *L, llm_result *x, rl_error *err) {
    const llm_opts *O = L->O;
    const double B = (double)O->batch;
    x->kv = L->R->n_kv > 0;
    if (rl_llm_run_phase(L, O->batch, O->prompt, 0, false, true, &x->pre, err)) return -1;
    if (x->kv && decode_generation(L, O->batch, O->prompt, O->generate, LLM_MAX_STEP_EVALS, &x->gen, err))
        return -1;
    const phase none = {0};
    x->mem = memory_of(x->kv ? &x->gen.first : &none, x->pre.weight_resident, x->pre.activation_peak / B,
                       L->hw->n_mem > 0 && L->hw->mem_cap[0] > 0 ? L->hw->mem_cap[0] : 0);
    return 0;
}

static void write_decode(cJSON *out, const llm_run *L, const generation *gen) {
    const double B = (double)L->O->batch, G = (double)L->O->generate;
    cJSON *d = cJSON_AddObjectToObject(out, "decode");
    put(d, "mean_time_per_token_s", gen->total.time_s / G);
    put(d, "first_time_per_token_s", gen->first.time_s);
    put(d, "last_time_per_token_s", gen->last.time_s);
    put(d, "time_s", gen->total.time_s);
    put(d, "forecast_s", gen->total.forecast_s);
    put(d, "flops_per_token", gen->total.flops / (G * B));
    put(d, "bytes_per_token", gen->total.bytes / (G * B));
    put(d, "flops_per_step", gen->total.flops / G);
    put(d, "matrix_flops_per_step", gen->total.matrix_flops / G);
    put(d, "bytes_per_step", gen->total.bytes / G);
    cJSON_AddStringToObject(d, "bound", rl_bound_id(gen->mid.bound));
    put(d, "energy_j", gen->total.energy_j);
    put(d, "kernels", gen->mid.kernels);
    put(d, "launch_floor_s", gen->mid.launch_floor_s);
    cJSON_AddStringToObject(d, "method", gen->method);
    cJSON_AddNumberToObject(d, "steps_evaluated", gen->evaluated);
}

/* The figures a user reads first, of the floor or of the forecast. */
typedef struct llm_answer {
    double ttft_s, tpot_s, tokens_per_s, e2e_s, energy_j, energy_per_token_j;
} llm_answer;

/* The energy of a decode step over the plan's devices: the mean of the
 * first and the last steps', as the plan's TPOT is. */
static double step_energy(const generation *gen, bool forecast) {
    const rl_parallel_summary *f = &gen->first.par, *l = &gen->last.par;
    return forecast ? (f->forecast_energy_j + l->forecast_energy_j) / 2 : (f->energy_j + l->energy_j) / 2;
}

/* The answer on one device, or over the devices of the plan (docs/parallel.md:
 * TPOT the mean of the first and last decode steps' planned times, tokens/s
 * dp·B / TPOT; the energy every device's, prefill and G steps, over the
 * dp·B·G tokens the group makes). `forecast`: the profile's stack, else
 * the floor. */
static llm_answer answer_of(const llm_run *L, const llm_result *x, bool forecast) {
    const double B = (double)L->O->batch, G = (double)L->O->generate;
    llm_answer a;
    const generation *gen = &x->gen;
    if (x->pre.has_parallel) {
        const rl_parallel_summary *p = &x->pre.par, *f = &gen->first.par, *l = &gen->last.par;
        a.ttft_s = forecast ? p->forecast_s : p->time_s;
        a.tpot_s = !x->kv ? NAN : forecast ? (f->forecast_s + l->forecast_s) / 2 : (f->time_s + l->time_s) / 2;
        a.tokens_per_s = a.tpot_s > 0 ? p->dp * B / a.tpot_s : NAN;
        a.e2e_s = a.ttft_s + G * a.tpot_s;
        a.energy_j = (forecast ? p->forecast_energy_j : p->energy_j) + (x->kv ? G * step_energy(gen, forecast) : NAN);
        a.energy_per_token_j = a.energy_j / (p->dp * B * G);
        return a;
    }
    a.energy_j = forecast ? x->pre.forecast_energy_j + (x->kv ? gen->total.forecast_energy_j : NAN)
                          : x->pre.energy_j + (x->kv ? gen->total.energy_j : NAN);
    a.energy_per_token_j = a.energy_j / (B * G);
    const double decode = !x->kv ? NAN : forecast ? gen->total.forecast_s : gen->total.time_s;
    a.ttft_s = forecast ? x->pre.forecast_s : x->pre.time_s;
    a.tpot_s = decode / G;
    a.tokens_per_s = B * G / decode;
    a.e2e_s = a.ttft_s + decode;
    return a;
}

static void put_answer(cJSON *o, const llm_answer *a) {
    put(o, "ttft_s", a->ttft_s);
    put(o, "tpot_s", a->tpot_s);
    put(o, "tokens_per_s", a->tokens_per_s);
    put(o, "e2e_s", a->e2e_s);
    put(o, "energy_per_token_j", a->energy_per_token_j);
    put(o, "energy_j", a->energy_j);
}

/* The LLM forecast's band (forecast_band.h): each figure's band from its
 * own forecast and floor (over the plan's devices when one is asked for);
 * tokens/s is the time per token's band inverted. */
static void write_forecast_band(cJSON *fo, const llm_run *L, const llm_answer *fc, const llm_answer *fl) {
    rl_forecast_band_put(fo, "ttft_low_s", "ttft_high_s", rl_forecast_band(L->hw, fc->ttft_s, fl->ttft_s));
    rl_band tpot = isfinite(fc->tpot_s) ? rl_forecast_band(L->hw, fc->tpot_s, fl->tpot_s) : (rl_band){0};
    rl_forecast_band_put(fo, "tpot_low_s", "tpot_high_s", tpot);
    const double per = fc->tokens_per_s * fc->tpot_s; /* batch × replicas */
    rl_forecast_band_put(fo, "tokens_per_s_low", "tokens_per_s_high",
                         (rl_band){tpot.known, per / tpot.high_s, per / tpot.low_s});
    rl_forecast_band_record_json(fo, L->hw);
}

/* The phases and the figures a user reads first (TTFT, TPOT, tokens/s...):
 * the forecast's, with the floor's beside them in "floor". */
static void write_phases(cJSON *out, const llm_run *L, const llm_result *x) {
    const double B = (double)L->O->batch, P = (double)L->O->prompt, G = (double)L->O->generate;
    cJSON_AddItemToObject(out, "roles", rl_llm_roles_detail_json(L->R));
    cJSON_AddNumberToObject(out, "prompt_tokens", P);
    if (x->kv) cJSON_AddNumberToObject(out, "generated_tokens", G);
    else cJSON_AddNullToObject(out, "generated_tokens");
    cJSON_AddNumberToObject(out, "batch", B);
    cJSON_AddStringToObject(out, "sol", rl_value_id(RL_LIST_SOL, L->o->sol));
    cJSON_AddItemToObject(out, "quantization", quantization_json(L));
    cJSON *po = cJSON_AddObjectToObject(out, "prefill");
    put(po, "time_s", x->pre.time_s);
    put(po, "forecast_s", x->pre.forecast_s);
    phase_figures(po, &x->pre);
    put(po, "energy_j", x->pre.energy_j);
    if (x->kv) write_decode(out, L, &x->gen);
    else cJSON_AddNullToObject(out, "decode");
    /* the answer: the phases on the profile's software stack (never below
     * the floor's), over the devices when a plan is asked for */
    const llm_answer fc = answer_of(L, x, true), fl = answer_of(L, x, false);
    put_answer(out, &fc);
    cJSON *fo = cJSON_AddObjectToObject(out, "forecast");
    put_answer(fo, &fc);
    write_forecast_band(fo, L, &fc, &fl);
    cJSON_AddNumberToObject(fo, "devices", x->pre.has_parallel ? x->pre.par.devices : 1);
    cJSON *flo = cJSON_AddObjectToObject(out, "floor");
    put_answer(flo, &fl);
    cJSON_AddNumberToObject(flo, "devices", x->pre.has_parallel ? x->pre.par.devices : 1);
}

static void write_memory(cJSON *out, const llm_run *L, const llm_result *x) {
    const memory_plan *mem = &x->mem;
    const double B = (double)L->O->batch, context = (double)L->O->prompt + (x->kv ? (double)L->O->generate : 0);
    put(out, "weight_bytes", mem->weights);
    put(out, "kv_cache_bytes_per_token", x->kv ? mem->kv_per_token : NAN);
    put(out, "kv_cache_bytes", x->kv ? B * kv_bytes_at(mem, context) : NAN);
    cJSON *win = cJSON_AddArrayToObject(out, "kv_cache_windows");
    for (int i = 0; x->kv && i < mem->n_windows; i++) {
        cJSON *w = cJSON_CreateObject();
        cJSON_AddNumberToObject(w, "tokens", mem->windows[i].tokens);
        put(w, "bytes_per_token", mem->windows[i].bytes_per_token);
        cJSON_AddNumberToObject(w, "caches", mem->windows[i].caches);
        cJSON_AddItemToArray(win, w);
    }
    put(out, "activation_bytes", x->pre.activation_peak);
    put(out, "memory_required_bytes", memory_required(mem, B, context));
    put(out, "device_memory_bytes", mem->capacity > 0 ? mem->capacity : NAN);
    if (mem->capacity > 0) cJSON_AddBoolToObject(out, "fits", memory_required(mem, B, context) <= mem->capacity);
    else cJSON_AddNullToObject(out, "fits");
    put_count(out, "max_batch", max_batch_at(mem, context));
    double ctx = x->kv ? capped_context(L, max_context_at(mem, B)) : -1;
    put_count(out, "max_context", ctx);
    put_count(out, "max_context_memory", x->kv ? max_context_at(mem, B) : -1);
    put_count(out, "max_positions", L->max_positions > 0 ? (double)L->max_positions : -1);
    if (!x->kv) cJSON_AddNullToObject(out, "max_context_limit");
    else cJSON_AddStringToObject(out, "max_context_limit", context_limit(L, mem, B));
    put_count(out, "devices_needed", devices_needed(memory_required(mem, B, context), mem->capacity));
}

/* Over several devices (docs/parallel.md): each phase timed by the plan;
 * the weights split as the plan splits them (the weight what-if kept), the
 * KV cache over tp (heads) and pp (layers), the activations over tp. TPOT:
 * the mean of the first and the last decode steps' planned times. */
static void write_parallel(cJSON *out, const llm_run *L, const llm_result *x) {
    const rl_parallel_summary *pre = &x->pre.par;
    const double B = (double)L->O->batch, G = (double)L->O->generate;
    const double context = (double)L->O->prompt + (x->kv ? G : 0), shards = (double)pre->tp * pre->pp;
    double share = pre->weight_bytes > 0 ? pre->weight_bytes_per_device / pre->weight_bytes : 1 / shards;
    memory_plan m = memory_split(&x->mem, x->mem.weights * share, x->mem.activation_per_seq / pre->tp, shards);
    cJSON *o = cJSON_AddObjectToObject(out, "parallel");
    cJSON_AddNumberToObject(o, "tp", pre->tp);
    cJSON_AddNumberToObject(o, "pp", pre->pp);
    cJSON_AddNumberToObject(o, "dp", pre->dp);
    cJSON_AddNumberToObject(o, "devices", pre->devices);
    put(o, "ttft_s", pre->time_s);
    put(o, "forecast_ttft_s", pre->forecast_s);
    put(o, "prefill_energy_j", pre->energy_j); /* every device's */
    put(o, "forecast_prefill_energy_j", pre->forecast_energy_j);
    if (x->kv) {
        const rl_parallel_summary *a = &x->gen.first.par, *b = &x->gen.last.par;
        double tpot = (a->time_s + b->time_s) / 2;
        put(o, "tpot_s", tpot);
        put(o, "tokens_per_s", tpot > 0 ? pre->dp * B / tpot : NAN);
        put(o, "e2e_s", pre->time_s + G * tpot);
        put(o, "decode_t_comms_s", (a->t_comms_s + b->t_comms_s) / 2);
        put(o, "forecast_tpot_s", (a->forecast_s + b->forecast_s) / 2);
        put(o, "forecast_decode_t_comms_s", (a->forecast_t_comms_s + b->forecast_t_comms_s) / 2);
        put(o, "comm_bytes_per_token", (a->comm_bytes + b->comm_bytes) / 2 / B);
        put(o, "decode_step_energy_j", step_energy(&x->gen, false));
        put(o, "forecast_decode_step_energy_j", step_energy(&x->gen, true));
        cJSON_AddStringToObject(o, "decode_bound", rl_bound_id(b->bound));
    } else {
        static const char *const none[] = {"tpot_s", "tokens_per_s", "e2e_s", "decode_t_comms_s", "forecast_tpot_s",
                                           "forecast_decode_t_comms_s", "comm_bytes_per_token", "decode_bound",
                                           "decode_step_energy_j", "forecast_decode_step_energy_j"};
        for (size_t i = 0; i < sizeof none / sizeof *none; i++) cJSON_AddNullToObject(o, none[i]);
    }
    put(o, "weight_bytes_per_device", m.weights);
    put(o, "kv_cache_bytes_per_device", x->kv ? B * kv_bytes_at(&m, context) : 0);
    put(o, "activation_bytes_per_device", B * m.activation_per_seq);
    put(o, "memory_required_bytes_per_device", memory_required(&m, B, context));
    if (m.capacity > 0) cJSON_AddBoolToObject(o, "fits", memory_required(&m, B, context) <= m.capacity);
    else cJSON_AddNullToObject(o, "fits");
    put_count(o, "max_batch", max_batch_at(&m, context));
}

static void write_notes(cJSON *out, cJSON *notes, const llm_run *L, const llm_result *x) {
    const llm_opts *O = L->O;
    const llm_roles *R = L->R;
    cJSON *as = cJSON_AddArrayToObject(out, "assumptions");
    for (size_t i = 0; i < sizeof assumptions / sizeof *assumptions; i++)
        cJSON_AddItemToArray(as, cJSON_CreateString(assumptions[i]));
    if (!x->kv)
        add_note(notes, "%s; only the prefill of %lld tokens over '%s' is shown", rl_llm_no_kv_reason,
                 (long long)O->prompt, R->dim[ROLE_SEQ]);
    else if (R->n_present < R->n_kv)
        add_note(notes, "%d of the %d cache inputs have no matching present output: their new rows are not "
                        "counted as written", R->n_kv - R->n_present, R->n_kv);
    const double tokens = (double)O->prompt + (x->kv ? (double)O->generate : 0);
    if (L->max_positions > 0 && tokens > (double)L->max_positions)
        add_note(notes, "%.0f tokens per sequence is more than the %lld positions of the model's rotary tables: "
                        "the figures extrapolate the graph beyond what the model encodes",
                 tokens, (long long)L->max_positions);
    if (x->kv && L->max_positions <= 0)
        add_note(notes, "the model states no maximum positions (no rotary cos/sin table in its graph): the longest "
                        "context is the memory's limit alone, and may be more than the model was trained for");
    if (x->mem.capacity <= 0)
        add_note(notes, "the hardware profile gives no memory capacity: fits, max_batch and max_context are unknown");
    if (L->requantized)
        add_note(notes, "%d matrix weights stored at %d bits%s; embeddings, norms and already-quantized blocks "
                        "keep their size", L->requantized, O->weight_bits,
                 O->weight_bits < 16 ? " with one fp16 scale per group of weights" : "");
    if (O->weight_bits && L->kept_quantized)
        add_note(notes, "%d MatMulNBits/QMoE nodes keep the bits the model carries", L->kept_quantized);
    if (x->pre.unknown_layers)
        add_note(notes, "%d layers of the prefill graph have unknown shapes or unsupported operators: their work "
                        "is not counted", x->pre.unknown_layers);
    add_note(notes, "activation_bytes: the peak of live activations in the prefill graph as written (a fused "
                    "attention kernel that never stores the scores needs less)");
    cJSON_AddItemToObject(out, "notes", notes);
}

static int llm_body(llm_run *L, cJSON *out, cJSON *notes, rl_error *err) {
    llm_result x;
    if (compute_phases(L, &x, err)) return -1;
    write_phases(out, L, &x);
    write_memory(out, L, &x);
    if (x.pre.has_parallel) write_parallel(out, L, &x);
    const double G = (double)L->O->generate;
    cJSON *pts = cJSON_AddArrayToObject(out, "points");
    cJSON_AddItemToArray(pts, point_json("prefill", x.pre.flops, x.pre.bytes, x.pre.time_s));
    if (x.kv)
        cJSON_AddItemToArray(pts, point_json("decode", x.gen.total.flops / G, x.gen.total.bytes / G,
                                             x.gen.total.time_s / G));
    if (x.kv) {
        if (batch_sweep(L, &x.mem, cJSON_AddObjectToObject(out, "batch_sweep"), err) ||
            context_sweep(L, &x.mem, cJSON_AddObjectToObject(out, "context_sweep"), err))
            return -1;
    } else {
        cJSON_AddNullToObject(out, "batch_sweep");
        cJSON_AddNullToObject(out, "context_sweep");
    }
    cJSON_AddItemToObject(out, "moe", moe_json(&L->moe));
    write_notes(out, notes, L, &x);
    cJSON_AddNumberToObject(out, "graphs_analysed", L->evals);
    return 0;
}

int rl_llm_run(rl_ctx *c, const cJSON *j, const rl_options *o, const rl_hw *hw, const cJSON *parallel, cJSON *root,
               rl_error *err) {
    llm_opts O;
    if (rl_llm_parse_opts(j, c, &O, err)) return -1;
    rl_error *saved = c->err;
    c->err = err;
    rl_graph *g = rl_graph_build(c, c->model->proto->graph, NULL, 0, "main graph");
    c->err = saved;
    if (!g) return -1;
    llm_roles R;
    if (rl_llm_find_roles(c, g, &O, &R, err) || settle_batch(j, c, &R, &O, err)) return -1;
    llm_run L = {.c = c, .o = o, .hw = hw, .R = &R, .O = &O, .parallel = parallel};
    cJSON *out = cJSON_CreateObject();
    cJSON *notes = cJSON_CreateArray();
    int rc = llm_body(&L, out, notes, err);
    rl_arena_free(&L.arena);
    if (rc) {
        if (!cJSON_GetObjectItemCaseSensitive(out, "notes")) cJSON_Delete(notes);
        cJSON_Delete(out);
        return -1;
    }
    cJSON_AddItemToObject(root, "llm", out);
    return 0;
}
