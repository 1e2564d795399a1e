/* rooflens calibrate (calibrate.h): a hardware profile of this machine from
 * measurements. Each run measures every figure as the best of a few
 * repetitions; the profile takes the best run for a rate (a peak is what the
 * machine can reach: another process can only slow a repetition down) and the
 * median run for the dispatch cost. The spread over the runs is printed and
 * kept in each figure's source. Two operating points become two
 * power modes: all cores (the default) and one core (one thread, e.g. an
 * inference runtime limited to one intra-op thread). */
#define _DEFAULT_SOURCE /* getloadavg, gethostname */
#include "calibrate.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calibrate_fit.h"
#include "calibrate_kernels.h"
#include "cli.h"
#include "rooflens.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---------------------------------------------------------- thread pool -- */
/* A fork-join pool: run(job) starts job(t) on every thread (the caller is
 * thread 0) and returns when all have finished. Workers block between jobs,
 * as a runtime's pool does when idle, so a round trip is a real wake-up. */
typedef struct pool pool;
typedef void (*job_fn)(pool *p, int t);

struct pool {
    int n;
    pthread_t *th;
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    long generation;
    int running;
    bool quit;
    job_fn job;
    void *arg;
};

typedef struct worker_arg {
    pool *p;
    int t;
} worker_arg;

static void *worker(void *a) {
    worker_arg *w = a;
    pool *p = w->p;
    long seen = 0;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (p->generation == seen && !p->quit) pthread_cond_wait(&p->go, &p->mu);
        if (p->quit) { pthread_mutex_unlock(&p->mu); return NULL; }
        seen = p->generation;
        job_fn job = p->job;
        pthread_mutex_unlock(&p->mu);
        job(p, w->t);
        pthread_mutex_lock(&p->mu);
        if (--p->running == 0) pthread_cond_signal(&p->done);
        pthread_mutex_unlock(&p->mu);
    }
}

static void pool_run(pool *p, job_fn job) {
    pthread_mutex_lock(&p->mu);
    p->job = job;
    p->running = p->n - 1;
    p->generation++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    job(p, 0);
    pthread_mutex_lock(&p->mu);
    while (p->running > 0) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

static worker_arg *pool_start(pool *p, int n) {
    memset(p, 0, sizeof *p);
    p->n = n;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    p->th = calloc((size_t)n, sizeof *p->th);
    worker_arg *args = calloc((size_t)n, sizeof *args);
    if (!p->th || !args) { free(p->th); free(args); return NULL; }
    for (int t = 1; t < n; t++) {
        args[t] = (worker_arg){p, t};
        if (pthread_create(&p->th[t], NULL, worker, &args[t])) { p->n = t; break; }
    }
    return args;
}

static void pool_stop(pool *p, worker_arg *args) {
    pthread_mutex_lock(&p->mu);
    p->quit = true;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (int t = 1; t < p->n; t++) pthread_join(p->th[t], NULL);
    free(p->th);
    free(args);
}

/* ----------------------------------------------------------- the jobs -- */
typedef struct bench {
    rl_fma_kernel fma;
    long fma_iters;
    volatile double sink;
    double *a, *b, *c;   /* triad arrays */
    size_t n;            /* elements each */
    size_t block, block_elems; /* the timed window: block `block` of each thread's slice */
    int passes;          /* passes over the window per timing */
} bench;

static bench B;

static void job_fma(pool *p, int t) {
    (void)p, (void)t;
    B.sink += B.fma.fn(B.fma_iters);
}

/* Each thread takes its own slice (and first-touches it, so its pages sit
 * near it on a NUMA machine). */
static void slice(pool *p, int t, size_t *lo, size_t *hi) {
    *lo = B.n * (size_t)t / (size_t)p->n;
    *hi = B.n * (size_t)(t + 1) / (size_t)p->n;
}

static void job_init(pool *p, int t) {
    size_t lo, hi;
    slice(p, t, &lo, &hi);
    for (size_t i = lo; i < hi; i++) B.a[i] = 0, B.b[i] = 1, B.c[i] = 2;
}

/* Elements [*a, *e) of thread t's window. */
static void window(pool *p, int t, int threads, size_t *a, size_t *e) {
    size_t lo, hi;
    if (threads > 1) slice(p, t, &lo, &hi);
    else lo = 0, hi = B.n;
    *a = lo + B.block * B.block_elems;
    *e = *a + B.block_elems;
    if (*a > hi) *a = hi;
    if (*e > hi) *e = hi;
}

static void job_triad(pool *p, int t) {
    size_t a, e;
    window(p, t, p->n, &a, &e);
    for (int r = 0; r < B.passes; r++) rl_triad(B.a + a, B.b + a, B.c + a, 0.5 + r * 1e-9, e - a);
}

static void job_nothing(pool *p, int t) { (void)p, (void)t; }

static void job_triad_one(pool *p) {
    size_t a, e;
    window(p, 0, 1, &a, &e);
    for (int r = 0; r < B.passes; r++) rl_triad(B.a + a, B.b + a, B.c + a, 0.5 + r * 1e-9, e - a);
}

/* ------------------------------------------------------- repetitions -- */
/* Every figure below is the best (or, for a cost, the median) of many
 * short repetitions; each repetition's value is kept here, per figure, so
 * that the profile and the printed table can give their spread. */
enum { F_PEAK_ALL, F_PEAK_ONE, F_CLOCK, F_MEM_ALL, F_MEM_ONE, F_LLC_ALL, F_LLC_ONE, F_DISPATCH_ALL, F_DISPATCH_ONE,
       F_COUNT };

typedef struct samples {
    double *v;
    size_t n, cap;
} samples;

static samples REP[F_COUNT];

/* A repetition's value; one that cannot be stored (no memory) is only left
 * out of the spread, never of the best. */
static void rep_add(int f, double x) {
    samples *s = &REP[f];
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        double *v = realloc(s->v, cap * sizeof *v);
        if (!v) return;
        s->v = v, s->cap = cap;
    }
    s->v[s->n++] = x;
}

/* ------------------------------------------------------- measurements -- */
/* FP32 FLOP/s the FMA loop reaches: best of `reps` short repetitions (a few
 * ms: on a shared machine some run without being preempted), on the pool's
 * threads or on this one alone. */
static double peak_flops(pool *p, bool all, int reps) {
    double best = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        if (all) pool_run(p, job_fma);
        else job_fma(p, 0);
        double dt = now_s() - t0;
        double f = (all ? p->n : 1) * B.fma_iters * B.fma.flops_per_iter / dt;
        rep_add(all ? F_PEAK_ALL : F_PEAK_ONE, f);
        if (f > best) best = f;
    }
    return best;
}

/* The core's clock: dependent adds per second, best of `reps` repetitions
 * of about a millisecond (the fastest is the highest clock the core
 * reached: a preempted or throttled repetition is only slower). 0 where
 * there is no cycle loop. */
static double core_clock(int reps) {
    const long iters = 250000;
    double best = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        if (!rl_cycle_loop(iters)) return 0;
        double hz = (double)iters * RL_CYCLE_ADDS / (now_s() - t0);
        rep_add(F_CLOCK, hz);
        if (hz > best) best = hz;
    }
    return best;
}

/* Triad bandwidth (STREAM's count: 24 bytes per element) over arrays of n
 * elements: each thread streams through its slice in windows of
 * block_elems elements (`passes` times each), every window timed on its own;
 * the best of `windows` windows. Short windows make a busy machine's answer
 * its real ceiling: a window another process preempted is simply not the
 * best. For main memory, the arrays are far larger than the last-level cache
 * and the windows move on through them, so each starts cold; for the cache,
 * one small working set is passed over again and again. `f` is the figure
 * the windows are kept under. */
static double triad_bw(pool *p, bool all, size_t n, size_t block_elems, int passes, int windows, int f) {
    size_t keep = B.n;
    int threads = all ? p->n : 1;
    B.n = n;
    B.block_elems = block_elems;
    B.passes = passes;
    size_t per = n / (size_t)threads, blocks = per / block_elems ? per / block_elems : 1;
    double best = 0;
    for (int w = 0; w < windows + 1; w++) {
        B.block = (size_t)w % blocks;
        size_t elems = 0;
        for (int t = 0; t < threads; t++) {
            size_t a, e;
            window(p, t, threads, &a, &e);
            elems += e - a;
        }
        double t0 = now_s();
        if (all) pool_run(p, job_triad);
        else job_triad_one(p);
        double dt = now_s() - t0;
        double bw = 24.0 * (double)elems * passes / dt;
        if (w == 0) continue; /* the first window warms TLBs (and the cache) */
        rep_add(f, bw);
        if (bw > best) best = bw;
    }
    B.n = keep;
    return best;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A fork-join round trip through the pool: median of many. */
static double dispatch_pool(pool *p) {
    enum { N = 2001 };
    static double t[N];
    for (int i = 0; i < N; i++) {
        double t0 = now_s();
        pool_run(p, job_nothing);
        t[i] = now_s() - t0;
        rep_add(F_DISPATCH_ALL, t[i]);
    }
    qsort(t, N, sizeof *t, cmp_double);
    return t[N / 2];
}

static void empty_kernel(void) {}

/* One thread: a call through a function pointer the compiler cannot see through. */
static double dispatch_call(void) {
    void (*volatile fp)(void) = empty_kernel;
    const long n = 2000000;
    double best = INFINITY;
    for (int r = 0; r < 5; r++) {
        double t0 = now_s();
        for (long i = 0; i < n; i++) fp();
        double dt = (now_s() - t0) / n;
        rep_add(F_DISPATCH_ONE, dt);
        if (dt < best) best = dt;
    }
    return best;
}

/* ------------------------------------------------------- the machine -- */
static void cpu_info(char *model, size_t mcap, char *vendor, size_t vcap, double *mhz) {
    snprintf(model, mcap, "this machine's CPU");
    snprintf(vendor, vcap, "unknown");
    *mhz = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    bool got_model = false, got_vendor = false;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon) continue;
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t') v++;
        v[strcspn(v, "\n")] = 0;
        if (!got_model && (!strncmp(line, "model name", 10) || !strncmp(line, "Model", 5)) && *v)
            snprintf(model, mcap, "%s", v), got_model = true;
        else if (!got_vendor && !strncmp(line, "vendor_id", 9))
            snprintf(vendor, vcap, "%s", !strcmp(v, "AuthenticAMD") ? "AMD" : !strcmp(v, "GenuineIntel") ? "Intel" : v),
                got_vendor = true;
        else if (*mhz == 0 && !strncmp(line, "cpu MHz", 7))
            *mhz = atof(v);
    }
    fclose(f);
}

/* The last-level cache a core sees: /sys gives the cache instance, sysconf
 * (where /sys has nothing) what the CPU reports, which may be a socket's. */
static double llc_bytes(const char **source) {
    for (int idx = 3; idx >= 2; idx--) {
        char path[128];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        char buf[64] = {0};
        bool ok = fgets(buf, sizeof buf, f) != NULL;
        fclose(f);
        if (!ok) continue;
        double v = atof(buf);
        if (strchr(buf, 'K')) v *= 1024;
        else if (strchr(buf, 'M')) v *= 1024 * 1024;
        if (v > 0) {
            *source = "/sys/devices/system/cpu/cpu0/cache (the cache instance of core 0)";
            return v;
        }
    }
#ifdef _SC_LEVEL3_CACHE_SIZE
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l3 > 0) {
        *source = "sysconf(_SC_LEVEL3_CACHE_SIZE): what the CPU reports, possibly the whole socket's";
        return (double)l3;
    }
#endif
    *source = "not reported; assumed 8 MiB";
    return 8.0 * 1024 * 1024;
}

/* ------------------------------------------------------------ figures -- */
static const struct {
    const char *label, *unit;
} FIG[F_COUNT] = {
    {"FP32 FMA loop, all cores", "FLOP/s"},   {"FP32 FMA loop, one core", "FLOP/s"},
    {"core clock (dependent adds)", "Hz"},
    {"memory triad, all cores", "B/s"},       {"memory triad, one core", "B/s"},
    {"LLC triad, all cores", "B/s"},          {"LLC triad, one core", "B/s"},
    {"dispatch (fork-join), all cores", "s"}, {"dispatch (indirect call), one core", "s"},
};

#define MAX_RUNS 9

typedef struct results {
    int runs;
    double v[F_COUNT][MAX_RUNS];
    double median[F_COUNT], spread[F_COUNT]; /* over the runs; spread = (max - min) / median */
    double value[F_COUNT]; /* what the profile takes: the best run for a rate (a
                              ceiling: other processes can only lower it), the
                              median for a cost */
    size_t rep_n[F_COUNT]; /* every repetition of every run: count, min, median, max */
    double rep_min[F_COUNT], rep_med[F_COUNT], rep_max[F_COUNT];
    /* the compute ceiling: the instruction set's FLOP per cycle times the
     * highest clock (measured, or /sys's maximum when that is higher) */
    rl_isa_bound isa;
    double clock_hz;
    char clock_how[200];
    double peak[2];        /* all cores, one core: what the profile takes */
    bool peak_is_bound;    /* false: no bound known, the FMA loop's best is taken */
} results;

static void rep_summary(results *r, int f) {
    samples *s = &REP[f];
    r->rep_n[f] = s->n;
    if (!s->n) return;
    qsort(s->v, s->n, sizeof *s->v, cmp_double);
    r->rep_min[f] = s->v[0];
    r->rep_max[f] = s->v[s->n - 1];
    r->rep_med[f] = s->n % 2 ? s->v[s->n / 2] : 0.5 * (s->v[s->n / 2 - 1] + s->v[s->n / 2]);
}

/* The compute ceiling for `threads` cores and one, from r's clock and the
 * instruction set; never below what the FMA loop itself reached. */
static void compute_ceiling(results *r, int threads, double sys_max_hz) {
    r->isa = rl_isa_flops_per_cycle();
    r->clock_hz = r->value[F_CLOCK];
    snprintf(r->clock_how, sizeof r->clock_how, "the fastest of %zu repetitions of a dependent-add loop",
             r->rep_n[F_CLOCK]);
    if (sys_max_hz > r->clock_hz) {
        r->clock_hz = sys_max_hz;
        snprintf(r->clock_how, sizeof r->clock_how, "cpuinfo_max_freq in /sys (above the %.3g GHz measured)",
                 r->value[F_CLOCK] * 1e-9);
    }
    r->peak_is_bound = r->isa.flops_per_cycle > 0 && r->clock_hz > 0;
    r->peak[0] = r->value[F_PEAK_ALL], r->peak[1] = r->value[F_PEAK_ONE];
    if (!r->peak_is_bound) return;
    r->peak[0] = fmax(r->peak[0], threads * r->isa.flops_per_cycle * r->clock_hz);
    r->peak[1] = fmax(r->peak[1], r->isa.flops_per_cycle * r->clock_hz);
}

static void summarise(results *r, int threads, double sys_max_hz) {
    for (int f = 0; f < F_COUNT; f++) {
        double s[MAX_RUNS];
        memcpy(s, r->v[f], sizeof s);
        qsort(s, (size_t)r->runs, sizeof *s, cmp_double);
        r->median[f] = r->runs % 2 ? s[r->runs / 2] : 0.5 * (s[r->runs / 2 - 1] + s[r->runs / 2]);
        r->spread[f] = r->median[f] > 0 ? (s[r->runs - 1] - s[0]) / r->median[f] : 0;
        bool cost = f == F_DISPATCH_ALL || f == F_DISPATCH_ONE;
        r->value[f] = cost ? r->median[f] : s[r->runs - 1];
        rep_summary(r, f);
    }
    compute_ceiling(r, threads, sys_max_hz);
}

/* "N repetitions in R runs: min A, median B, max C" for figure f. */
static const char *spread_text(const results *r, int f, char *buf, size_t cap) {
    char lo[32], mid[32], hi[32];
    snprintf(buf, cap, "%zu repetitions in %d runs: min %s, median %s, max %s", r->rep_n[f], r->runs,
             rl_format_eng(lo, sizeof lo, r->rep_min[f], FIG[f].unit, 0),
             rl_format_eng(mid, sizeof mid, r->rep_med[f], FIG[f].unit, 0),
             rl_format_eng(hi, sizeof hi, r->rep_max[f], FIG[f].unit, 0));
    return buf;
}

static cJSON *figure(double value, const char *source) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "value", value);
    cJSON_AddStringToObject(o, "source", source);
    cJSON_AddStringToObject(o, "kind", "measured");
    return o;
}

static cJSON *figure_of_kind(double value, const char *source, const char *kind) {
    cJSON *o = figure(value, source);
    cJSON_ReplaceItemInObject(o, "kind", cJSON_CreateString(kind));
    return o;
}

typedef struct setup {
    int threads, runs;
    size_t mem_bytes, llc_footprint;
    double llc_capacity, mem_capacity, mhz, sys_max_hz;
    const char *llc_source, *isa;
    char model[256], vendor[64], date[32];
    double load_before[3], load_after[3];
} setup;

static cJSON *level(const char *name, double bw, const char *bw_source, double cap, const char *cap_source) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddItemToObject(o, "bandwidth_Bps", figure(bw, bw_source));
    cJSON *c = figure(cap, cap_source);
    cJSON_ReplaceItemInObject(c, "kind", cJSON_CreateString("datasheet")); /* reported, not measured */
    cJSON_AddItemToObject(o, "capacity_bytes", c);
    return o;
}

/* The forecast's block of this machine (docs/model.md, the forecast): the
 * stack a CPU is deployed with and the shape of its GEMM tiles; the achievable
 * shares of each ceiling keep the core's generic defaults until
 * `calibrate --from` fits them to real runs. One unit: a one-thread runtime
 * (mode one-core) works one tile at a time; on all cores the tiles' wave
 * quantization is not modelled. */
static cJSON *forecast_block(bool llc) {
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "stack", "ONNX Runtime, CPU provider (estimated; fit with calibrate --from)");
    cJSON_AddStringToObject(f, "basis", "analytic");
    cJSON_AddItemToObject(f, "matrix_units", figure_of_kind(1, "one core works one tile at a time (a one-thread "
                                                               "runtime; wave quantization over cores not modelled)",
                                                            "estimated"));
    cJSON_AddItemToObject(f, "tile_m", figure_of_kind(32, "estimated: a CPU GEMM's cache-blocked tile rows", "estimated"));
    cJSON_AddItemToObject(f, "tile_n", figure_of_kind(32, "estimated: a CPU GEMM's cache-blocked tile columns", "estimated"));
    cJSON_AddItemToObject(f, "tile_k", figure_of_kind(1, "no K step: a CPU GEMM takes any K", "estimated"));
    if (llc) cJSON_AddStringToObject(f, "cache_level", "LLC");
    return f;
}

/* The sources of the profile's figures, in the order of the enum below. */
enum { S_PEAK_ALL, S_PEAK_ONE, S_MEM_ALL, S_MEM_ONE, S_LLC_ALL, S_LLC_ONE, S_DISPATCH_ALL, S_DISPATCH_ONE, S_CLOCK,
       S_COUNT };
typedef char sources[S_COUNT][900];

/* A compute ceiling's source: the bound and how it was derived, then what
 * the FMA loop reached beside it (or, with no bound, the loop's best). */
static void peak_source(const setup *s, const results *r, int f, int threads, char *buf, size_t cap) {
    char reps[160], got[32], bound[32];
    spread_text(r, f, reps, sizeof reps);
    rl_format_eng(got, sizeof got, r->value[f], "FLOP/s", 0);
    if (!r->peak_is_bound) {
        snprintf(buf, cap, "rooflens calibrate %s, %s: %s on %d thread(s), best of %s (%s)", ROOFLENS_VERSION,
                 s->date, s->isa, threads, got, reps);
        return;
    }
    snprintf(buf, cap, "rooflens calibrate %s, %s: the instruction set's bound, which no kernel can beat: %s, x %.4g "
             "GHz (%s) x %d thread(s) = %s. Reached by the %s loop: %s at best (%.0f%% of the bound; %s)",
             ROOFLENS_VERSION, s->date, r->isa.how, r->clock_hz * 1e-9, r->clock_how, threads,
             rl_format_eng(bound, sizeof bound, r->peak[f == F_PEAK_ALL ? 0 : 1], "FLOP/s", 0), s->isa, got,
             100 * r->value[f] / r->peak[f == F_PEAK_ALL ? 0 : 1], reps);
}

static void make_sources(const setup *s, const results *r, sources src) {
    const char *how = "rooflens calibrate " ROOFLENS_VERSION;
    char reps[160];
    peak_source(s, r, F_PEAK_ALL, s->threads, src[S_PEAK_ALL], sizeof src[0]);
    peak_source(s, r, F_PEAK_ONE, 1, src[S_PEAK_ONE], sizeof src[0]);
    snprintf(src[S_MEM_ALL], sizeof src[0], "%s, %s: STREAM-like triad over 3 arrays of %zu MiB (24 B per element), "
             "%d threads: the best timed window (%s; the runs' bests spread %.1f%%)", how, s->date, s->mem_bytes >> 20,
             s->threads, spread_text(r, F_MEM_ALL, reps, sizeof reps), 100 * r->spread[F_MEM_ALL]);
    snprintf(src[S_MEM_ONE], sizeof src[0], "%s, %s: triad over 3 arrays of %zu MiB, one thread: the best timed "
             "window (%s; the runs' bests spread %.1f%%)", how, s->date, s->mem_bytes >> 20,
             spread_text(r, F_MEM_ONE, reps, sizeof reps), 100 * r->spread[F_MEM_ONE]);
    snprintf(src[S_LLC_ALL], sizeof src[0], "%s, %s: triad over %zu KiB in all (inside the last-level cache), %d "
             "threads: the best timed pass (%s; the runs' bests spread %.1f%%)", how, s->date, s->llc_footprint >> 10,
             s->threads, spread_text(r, F_LLC_ALL, reps, sizeof reps), 100 * r->spread[F_LLC_ALL]);
    snprintf(src[S_LLC_ONE], sizeof src[0], "%s, %s: triad over %zu KiB, one thread: the best timed pass (%s; the "
             "runs' bests spread %.1f%%)", how, s->date, s->llc_footprint >> 10,
             spread_text(r, F_LLC_ONE, reps, sizeof reps), 100 * r->spread[F_LLC_ONE]);
    snprintf(src[S_DISPATCH_ALL], sizeof src[0], "%s, %s: median fork-join round trip of an empty job on %d threads "
             "(blocking pool; %s)", how, s->date, s->threads, spread_text(r, F_DISPATCH_ALL, reps, sizeof reps));
    snprintf(src[S_DISPATCH_ONE], sizeof src[0], "%s, %s: a call through a function pointer on one thread (%s)", how,
             s->date, spread_text(r, F_DISPATCH_ONE, reps, sizeof reps));
    snprintf(src[S_CLOCK], sizeof src[0], "%s, %s: %s (%s)", how, s->date, r->clock_how,
             spread_text(r, F_CLOCK, reps, sizeof reps));
}

/* Mode one-core: the one-thread figures. */
static cJSON *one_core_mode(const results *r, sources src, bool llc) {
    cJSON *one = cJSON_CreateObject();
    cJSON_AddStringToObject(one, "id", "one-core");
    cJSON_AddStringToObject(one, "name", "one thread");
    cJSON *ov = cJSON_AddObjectToObject(one, "overrides");
    cJSON_AddItemToObject(ov, "launch_overhead_s", figure(r->value[F_DISPATCH_ONE], src[S_DISPATCH_ONE]));
    cJSON *ofp = cJSON_AddObjectToObject(cJSON_AddObjectToObject(ov, "compute"), "fp32");
    const char *kind = r->peak_is_bound ? "derived" : "measured";
    cJSON_AddItemToObject(ofp, "matrix", figure_of_kind(r->peak[1], src[S_PEAK_ONE], kind));
    cJSON_AddItemToObject(ofp, "vector", figure_of_kind(r->peak[1], src[S_PEAK_ONE], kind));
    cJSON *om = cJSON_AddArrayToObject(ov, "memory");
    cJSON *m0 = cJSON_CreateObject();
    cJSON_AddItemToObject(m0, "bandwidth_Bps", figure(r->value[F_MEM_ONE], src[S_MEM_ONE]));
    cJSON_AddItemToArray(om, m0);
    if (llc) {
        cJSON *m1 = cJSON_CreateObject();
        cJSON_AddItemToObject(m1, "bandwidth_Bps", figure(r->value[F_LLC_ONE], src[S_LLC_ONE]));
        cJSON_AddItemToArray(om, m1);
    }
    return one;
}

static cJSON *clock_figure(const setup *s, const results *r, sources src) {
    if (r->clock_hz > 0) return figure(r->clock_hz, src[S_CLOCK]);
    return figure_of_kind(s->mhz > 0 ? s->mhz * 1e6 : 1e9,
                          s->mhz > 0 ? "/proc/cpuinfo cpu MHz (the clock the operating system reports)"
                                     : "not reported; 1 GHz assumed", "estimated");
}

/* The profile: all cores as the base (and default mode), one core as a mode. */
static cJSON *profile_json(const setup *s, const results *r, const char *id) {
    static sources src;
    char notes[1400], name[400];
    make_sources(s, r, src);
    snprintf(notes, sizeof notes,
             "Measured on this machine by rooflens calibrate %s on %s: %s, %d threads, kernels selected at run "
             "time (%s). The FP32 ceiling is %s. Each bandwidth is the best of many short timed repetitions in %d "
             "runs (a ceiling: another process can only slow a repetition down), the dispatch cost their median; "
             "each figure's source gives the spread of its repetitions. Load average before %.2f, after %.2f (other "
             "processes share the cores: a high load lowers the all-core bandwidths). Mode one-core is one thread "
             "(an inference runtime with one intra-op thread). matrix = vector: the CPU's GEMMs run on the same "
             "FMA units. Last-level cache size: %s.",
             ROOFLENS_VERSION, s->date, s->model, s->threads, s->isa,
             r->peak_is_bound ? "the instruction set's FLOP per cycle times the highest clock the core reached, "
                                "a bound no kernel can beat"
                              : "the best the FMA loop reached (no bound is known for this instruction set)",
             s->runs, s->load_before[0], s->load_after[0], s->llc_source);
    cJSON *p = cJSON_CreateObject();
    cJSON_AddNumberToObject(p, "schema", 1);
    cJSON_AddStringToObject(p, "id", id);
    snprintf(name, sizeof name, "%s (%d threads, calibrated %s)", s->model, s->threads, s->date);
    cJSON_AddStringToObject(p, "name", name);
    cJSON_AddStringToObject(p, "vendor", s->vendor);
    cJSON_AddStringToObject(p, "category", "cpu");
    cJSON_AddStringToObject(p, "notes", notes);
    cJSON_AddItemToObject(p, "clock_hz", clock_figure(s, r, src));
    cJSON_AddItemToObject(p, "launch_overhead_s", figure(r->value[F_DISPATCH_ALL], src[S_DISPATCH_ALL]));
    cJSON *fp32 = cJSON_AddObjectToObject(cJSON_AddObjectToObject(p, "compute"), "fp32");
    const char *kind = r->peak_is_bound ? "derived" : "measured";
    cJSON_AddItemToObject(fp32, "matrix", figure_of_kind(r->peak[0], src[S_PEAK_ALL], kind));
    cJSON_AddItemToObject(fp32, "vector", figure_of_kind(r->peak[0], src[S_PEAK_ALL], kind));
    cJSON *mem = cJSON_AddArrayToObject(p, "memory");
    cJSON_AddItemToArray(mem, level("DRAM", r->value[F_MEM_ALL], src[S_MEM_ALL], s->mem_capacity, "sysconf: physical memory"));
    /* an on-chip level must be faster than main memory to mean anything */
    bool llc = r->value[F_LLC_ALL] > r->value[F_MEM_ALL] && r->value[F_LLC_ONE] > r->value[F_MEM_ONE];
    if (llc) cJSON_AddItemToArray(mem, level("LLC", r->value[F_LLC_ALL], src[S_LLC_ALL], s->llc_capacity, s->llc_source));
    cJSON_AddItemToObject(p, "forecast", forecast_block(llc));
    /* one machine is measured: no chip-to-chip link (hw/README.md, interconnect) */
    cJSON *ic = cJSON_AddObjectToObject(p, "interconnect");
    cJSON_AddStringToObject(ic, "name", "none");
    cJSON_AddStringToObject(ic, "topology", "none");
    cJSON_AddStringToObject(ic, "notes", "one device: rooflens calibrate measures this machine alone");
    cJSON *modes = cJSON_AddArrayToObject(p, "power_modes");
    cJSON *all = cJSON_CreateObject();
    cJSON_AddStringToObject(all, "id", "all-cores");
    snprintf(name, sizeof name, "all %d threads", s->threads);
    cJSON_AddStringToObject(all, "name", name);
    cJSON_AddTrueToObject(all, "default");
    cJSON_AddObjectToObject(all, "overrides");
    cJSON_AddItemToArray(modes, all);
    cJSON_AddItemToArray(modes, one_core_mode(r, src, llc));
    return p;
}

/* ------------------------------------------------------------- driver -- */
static const char calibrate_usage[] =
    "usage: rooflens calibrate [--out FILE] [--runs N] [--id ID] [--threads N] [--mem-mib M]\n"
    "                          [--profile ID|FILE] [--from MODEL.onnx=PROFILE ...] [--stack TEXT]\n"
    "                          [--power-mode MODE] [--batch N] [--dim NAME=V] [--precision P]\n"
    "                          [--measured-format auto|ort|trtexec|csv]\n"
    "\n"
    "Measures this machine and writes a hardware profile of its figures, each with its\n"
    "provenance: the FP32 ceiling on all cores and on one (the instruction set's FLOP per\n"
    "cycle times the highest clock measured: a bound no kernel beats), memory bandwidth\n"
    "(STREAM-like triad over arrays far larger than the last-level cache), last-level\n"
    "cache bandwidth and the cost of a dispatch. Mode 'one-core' holds the one-thread\n"
    "figures. Takes a few seconds; the figures of each run and the spread of every\n"
    "repetition are printed.\n"
    "\n"
    "  --out FILE     write the profile there (default: standard output)\n"
    "  --runs N       runs (default 3, at most 9): their spread is reported\n"
    "  --id ID        profile id (default calibrated-cpu; lowercase letters, digits, -)\n"
    "  --threads N    threads for the all-core figures (default: the online CPUs)\n"
    "  --mem-mib M    size of each of the 3 memory-triad arrays (default 128, or more\n"
    "                 for a last-level cache above 48 MiB)\n"
    "\n"
    "The forecast fitted to real runs (docs/model.md, the forecast): each --from pairs a\n"
    "model with a profile of its measured kernels (ONNX Runtime profiling JSON, trtexec\n"
    "--exportProfile JSON, or name,time_s CSV). The achievable share of each ceiling per\n"
    "op class and the fixed cost per kernel are fitted to them and written into the\n"
    "profile with the fit's provenance; any model analysed with it then gets a forecast\n"
    "from them.\n"
    "  --profile ID|FILE  fit onto this profile instead of measuring this machine\n"
    "  --from M=P     a model and its measured profile (repeat: fit on several models)\n"
    "  --stack TEXT   the software stack the runs were measured on (named in the answer)\n"
    "  --power-mode, --batch, --dim, --precision, --measured-format\n"
    "                 how the runs were measured (as for an analysis; one for all)\n";

static bool valid_id(const char *s) {
    if (!*s || *s == '-') return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || (*p == '-' && p[1] && p[1] != '-'))) return false;
    return true;
}

static int parse_args(int argc, char **argv, setup *s, fit_args *fit, const char **out, const char **id) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n = 0;
        char *end = NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(calibrate_usage, stdout); return 1; }
        if (!v) { fprintf(stderr, "rooflens calibrate: unknown option or missing value '%s'\n%s", txt(a), calibrate_usage); return 2; }
        i++;
        int taken = fit_parse_option(fit, a, v);
        if (taken == 2) return 2;
        if (taken) continue;
        if (!strcmp(a, "--out")) { *out = v; continue; }
        if (!strcmp(a, "--id")) {
            if (!valid_id(v)) { fprintf(stderr, "rooflens calibrate: --id takes lowercase letters, digits and single '-', not '%s'\n", v); return 2; }
            *id = v;
            continue;
        }
        n = strtol(v, &end, 10);
        if (*end || n < 1) { fprintf(stderr, "rooflens calibrate: %s needs a whole number >= 1, not '%s'\n", a, v); return 2; }
        if (!strcmp(a, "--runs")) s->runs = n > MAX_RUNS ? MAX_RUNS : (int)n;
        else if (!strcmp(a, "--threads")) s->threads = n > 1024 ? 1024 : (int)n;
        else if (!strcmp(a, "--mem-mib")) s->mem_bytes = (size_t)(n > 65536 ? 65536 : n) << 20;
        else { fprintf(stderr, "rooflens calibrate: unknown option '%s'\n%s", a, calibrate_usage); return 2; }
    }
    return 0;
}

/* The table of every run, then the spread of every repetition, then how
 * the compute ceiling was derived (standard error). */
static void print_results(const setup *s, const results *r) {
    char b[64], c[64], d[64];
    fprintf(stderr, "rooflens calibrate: %s, %d threads, %s, load average %.2f before, %.2f after\n", s->model,
            s->threads, s->isa, s->load_before[0], s->load_after[0]);
    fprintf(stderr, "%-36s", "figure (best of each run)");
    for (int k = 0; k < r->runs; k++) fprintf(stderr, " %11s%d", "run ", k + 1);
    fprintf(stderr, " %13s %7s %13s\n", "median", "spread", "profile");
    for (int f = 0; f < F_COUNT; f++) {
        double in_profile = f == F_PEAK_ALL ? r->peak[0] : f == F_PEAK_ONE ? r->peak[1] : f == F_CLOCK ? r->clock_hz
                                                                                                       : r->value[f];
        fprintf(stderr, "%-36s", FIG[f].label);
        for (int k = 0; k < r->runs; k++) fprintf(stderr, " %12s", rl_format_eng(b, sizeof b, r->v[f][k], FIG[f].unit, 0));
        fprintf(stderr, " %13s %6.1f%%", rl_format_eng(b, sizeof b, r->median[f], FIG[f].unit, 0), 100 * r->spread[f]);
        fprintf(stderr, " %13s\n", rl_format_eng(b, sizeof b, in_profile, FIG[f].unit, 0));
    }
    fprintf(stderr, "\n%-36s %12s %13s %13s %13s\n", "every repetition", "count", "min", "median", "max");
    for (int f = 0; f < F_COUNT; f++)
        fprintf(stderr, "%-36s %12zu %13s %13s %13s\n", FIG[f].label, r->rep_n[f],
                rl_format_eng(b, sizeof b, r->rep_min[f], FIG[f].unit, 0), rl_format_eng(c, sizeof c, r->rep_med[f], FIG[f].unit, 0),
                rl_format_eng(d, sizeof d, r->rep_max[f], FIG[f].unit, 0));
    if (r->peak_is_bound)
        fprintf(stderr, "\nFP32 ceiling: %s, x %.4g GHz (%s) = %s a core, %s on %d threads; the FMA loop reached "
                "%.0f%% of it on one core, %.0f%% on all\n", r->isa.how, r->clock_hz * 1e-9, r->clock_how,
                rl_format_eng(b, sizeof b, r->peak[1], "FLOP/s", 0), rl_format_eng(c, sizeof c, r->peak[0], "FLOP/s", 0), s->threads,
                100 * r->value[F_PEAK_ONE] / r->peak[1], 100 * r->value[F_PEAK_ALL] / r->peak[0]);
    else
        fprintf(stderr, "\nFP32 ceiling: the FMA loop's best (%s)\n", r->isa.how);
}

/* cpuinfo_max_freq (kHz) of core 0, in Hz; 0 where /sys does not give it
 * (virtual machines often do not). */
static double sys_max_clock_hz(void) {
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
    if (!f) return 0;
    double khz = 0;
    if (fscanf(f, "%lf", &khz) != 1 || !(khz > 0 && khz < 1e8)) khz = 0;
    fclose(f);
    return khz * 1e3;
}

/* The machine's description and the run's set-up: CPU, caches, memory, the
 * triad sizes, the date and the load before measuring. */
static void describe_machine(setup *s) {
    cpu_info(s->model, sizeof s->model, s->vendor, sizeof s->vendor, &s->mhz);
    s->sys_max_hz = sys_max_clock_hz();
    s->llc_capacity = llc_bytes(&s->llc_source);
    s->mem_capacity = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (!s->mem_bytes) {
        /* the three arrays together at least 8 times the cache a core can use
         * when /sys tells it (a socket-wide figure from sysconf would ask for
         * gigabytes), and at least 128 MiB each: 12 times a 32 MiB L3 */
        double want = strncmp(s->llc_source, "/sys", 4) == 0 ? 8 * s->llc_capacity / 3 : 0;
        want = fmin(fmax(want, 128.0 * 1024 * 1024), s->mem_capacity / 16);
        s->mem_bytes = ((size_t)want + ((size_t)1 << 20) - 1) & ~(((size_t)1 << 20) - 1);
    }
    /* the cache working set: beyond the private caches (L2 up to 2 MiB a
     * core) and well inside the last level */
    s->llc_footprint = (size_t)fmin(fmax(s->llc_capacity / 4, 4.0 * 1024 * 1024), 16.0 * 1024 * 1024);
    time_t now = time(NULL);
    strftime(s->date, sizeof s->date, "%Y-%m-%d", gmtime(&now));
    if (getloadavg(s->load_before, 3) < 0) s->load_before[0] = NAN;
}

/* Runs every benchmark s->runs times into r (its medians and spreads
 * summarised); s->threads becomes the threads started. Returns 0, or 1 with
 * a message when the arrays or threads cannot be had. */
static int measure(setup *s, results *r) {
    B.fma = rl_pick_fma_kernel();
    s->isa = B.fma.isa;
    size_t n = s->mem_bytes / sizeof(double);
    B.a = malloc(s->mem_bytes), B.b = malloc(s->mem_bytes), B.c = malloc(s->mem_bytes);
    pool p;
    worker_arg *args = (B.a && B.b && B.c) ? pool_start(&p, s->threads) : NULL;
    if (!args) {
        fprintf(stderr, "rooflens calibrate: cannot allocate 3 x %zu MiB and %d threads (try --mem-mib)\n",
                s->mem_bytes >> 20, s->threads);
        free(B.a), free(B.b), free(B.c);
        return 1;
    }
    s->threads = p.n;
    B.n = n;
    pool_run(&p, job_init);
    /* FMA iterations for ~5 ms per repetition, from a short trial: many
     * short repetitions find a quiet moment on a shared machine */
    B.fma_iters = 1 << 16;
    double t0 = now_s();
    B.sink += B.fma.fn(B.fma_iters);
    double per_iter = (now_s() - t0) / B.fma_iters;
    B.fma_iters = (long)fmax(1e3, fmin(1e9, 0.005 / fmax(per_iter, 1e-12)));
    size_t n_llc = s->llc_footprint / 24;
    /* main memory: windows of 1 Mi elements a thread (24 MiB of traffic),
     * two sweeps through the arrays */
    size_t mem_block = (size_t)1 << 20;
    int mem_windows = (int)fmin(400, fmax(16, 2.0 * (double)n / (double)mem_block));

    r->runs = s->runs;
    for (int k = 0; k < s->runs; k++) {
        r->v[F_PEAK_ALL][k] = peak_flops(&p, true, 24);
        r->v[F_PEAK_ONE][k] = peak_flops(&p, false, 24);
        r->v[F_CLOCK][k] = core_clock(40);
        r->v[F_MEM_ALL][k] = triad_bw(&p, true, n, mem_block, 1, mem_windows, F_MEM_ALL);
        r->v[F_MEM_ONE][k] = triad_bw(&p, false, n, mem_block, 1, mem_windows / p.n + 8, F_MEM_ONE);
        /* the cache: the whole working set per window, 4 passes */
        r->v[F_LLC_ALL][k] = triad_bw(&p, true, n_llc, n_llc, 4, 100, F_LLC_ALL);
        r->v[F_LLC_ONE][k] = triad_bw(&p, false, n_llc, n_llc, 4, 100, F_LLC_ONE);
        r->v[F_DISPATCH_ALL][k] = dispatch_pool(&p);
        r->v[F_DISPATCH_ONE][k] = dispatch_call();
    }
    pool_stop(&p, args);
    free(B.a), free(B.b), free(B.c);
    if (getloadavg(s->load_after, 3) < 0) s->load_after[0] = NAN;
    summarise(r, s->threads, s->sys_max_hz);
    return 0;
}

/* The profile of the figures, checked by the core's validator before it is
 * written to `out` (standard output when NULL). Returns 0 when written. */
/* Checks the profile with the core, fits it to --from's runs if any, and
 * writes it. Takes the text (malloc'd) and frees it. */
static int write_profile(char *text, const fit_args *fit, const char *out) {
    if (text && fit->n_from > 0) {
        int status = 0;
        char *fitted = fit_profile(text, fit, &status);
        free(text);
        if (!fitted) return status;
        text = fitted;
    }
    if (!text) return 1;
    char *verdict = rl_check_hardware(text);
    cJSON *v = cJSON_Parse(verdict);
    bool ok = cJSON_IsTrue(cJSON_GetObjectItem(v, "ok"));
    if (!ok) fprintf(stderr, "rooflens calibrate: the core refused the profile it made: %s\n", verdict);
    cJSON_Delete(v);
    rl_free(verdict);
    if (ok) {
        FILE *f = out ? fopen(out, "w") : stdout;
        if (!f) {
            fprintf(stderr, "rooflens calibrate: cannot write %s: %s\n", out, strerror(errno));
            ok = false;
        } else {
            fprintf(f, "%s\n", text);
            if (out) {
                fclose(f);
                fprintf(stderr, "profile written to %s (use it with --hw %s; --power-mode one-core for one thread)\n",
                        out, out);
            }
        }
    }
    free(text);
    return ok ? 0 : 1;
}

/* --profile: the profile to fit onto, as text (malloc'd), or NULL. */
static char *base_profile(const char *id_or_file) {
    cJSON *p = load_profile(id_or_file, hw_dir(NULL));
    char *text = p ? cJSON_Print(p) : NULL;
    cJSON_Delete(p);
    return text;
}

int rl_calibrate_main(int argc, char **argv) {
    setup s = {0};
    fit_args fit = {0};
    const char *out = NULL, *id = "calibrated-cpu";
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    s.threads = online > 0 ? (int)online : 1;
    s.runs = 3;
    s.mem_bytes = 0; /* --mem-mib, else chosen by describe_machine */
    int rc = parse_args(argc, argv, &s, &fit, &out, &id);
    if (rc) return rc == 1 ? 0 : rc;
    if (fit.base && fit.n_from == 0) {
        fprintf(stderr, "rooflens calibrate: --profile goes with --from (a profile to fit onto)\n");
        return 2;
    }
    if (fit.base) {
        char *text = base_profile(fit.base);
        return text ? write_profile(text, &fit, out) : 2;
    }
    describe_machine(&s);
    results r = {0};
    if (measure(&s, &r)) return 1;
    print_results(&s, &r);
    cJSON *prof = profile_json(&s, &r, id);
    rc = write_profile(cJSON_Print(prof), &fit, out);
    cJSON_Delete(prof);
    for (int f = 0; f < F_COUNT; f++) free(REP[f].v), REP[f] = (samples){0};
    return rc;
}
