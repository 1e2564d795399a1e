/* rooflens calibrate's benchmark machinery (calibrate_bench.h): the thread
 * pool, the jobs it runs, every repetition of every figure, the
 * measurements, the machine's description and the summary of the runs. */
#define _DEFAULT_SOURCE /* getloadavg */
#include "calibrate_bench.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
 * that the profile and the printed table can give their spread (the
 * figures are listed in calibrate_bench.h). */
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

/* One core's FMA rate with the depthwise kernel's 6 chains in flight (the
 * same iterations: it runs a little shorter than the peak's loop). */
static double depthwise_flops(int reps) {
    double best = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        B.sink += B.fma.depthwise_fn(B.fma_iters);
        double f = B.fma_iters * B.fma.depthwise_flops_per_iter / (now_s() - t0);
        rep_add(F_DEPTHWISE_ONE, f);
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

/* Triad bandwidth over arrays of n elements, counting the 32 bytes per
 * element that cross the memory bus: two 8-byte reads and the 8-byte store,
 * whose cache line is first read in (write-allocate). STREAM counts 24, so
 * its figure is 3/4 of what the bus moved, and a kernel that writes in place
 * (a Relu over its own input) beat it on this machine: a ceiling counts the
 * bytes that actually moved. Each thread streams through its slice in
 * windows of block_elems elements (`passes` times each), every window timed on its own;
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
        double bw = 32.0 * (double)elems * passes / dt;
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

/* ------------------------------------------------ figures and summary -- */
const calib_figure calib_fig[F_COUNT] = {
    {"FP32 FMA loop, all cores", "FLOP/s"},   {"FP32 FMA loop, one core", "FLOP/s"},
    {"FP32 FMA loop, 6 chains, one core", "FLOP/s"},
    {"core clock (dependent adds)", "Hz"},
    {"memory triad, all cores", "B/s"},       {"memory triad, one core", "B/s"},
    {"LLC triad, all cores", "B/s"},          {"LLC triad, one core", "B/s"},
    {"dispatch (fork-join), all cores", "s"}, {"dispatch (indirect call), one core", "s"},
};

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

/* ---------------------------------------------------------- the runs -- */
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
void calib_describe_machine(setup *s) {
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
int calib_measure(setup *s, results *r) {
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
        r->v[F_DEPTHWISE_ONE][k] = depthwise_flops(24);
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

void calib_free_repetitions(void) {
    for (int f = 0; f < F_COUNT; f++) free(REP[f].v), REP[f] = (samples){0};
}
