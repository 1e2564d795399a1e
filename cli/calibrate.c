/* rooflens calibrate (calibrate.h): a hardware profile of this machine from
 * measurements. Each run measures every figure as the best of a few
 * repetitions; the profile takes the best run for a rate (a peak is what the
 * machine can reach: another process can only slow a repetition down) and the
 * median run for the dispatch cost. The spread over the runs is printed and
 * kept in each figure's source. Two operating points become two
 * power modes: all cores (the default) and one core (one thread, e.g. an
 * inference runtime limited to one intra-op thread). The measuring itself
 * (thread pool, kernels' timing, the machine's description) is in
 * calibrate_bench.c; this file writes the profile and drives the
 * subcommand. */
#include "calibrate.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibrate_bench.h"
#include "calibrate_fit.h"
#include "cli.h"
#include "rooflens.h"

/* ------------------------------------------------------- profile JSON -- */
/* "N repetitions in R runs: min A, median B, max C" for figure f. */
static const char *spread_text(const results *r, int f, char *buf, size_t cap) {
    char lo[32], mid[32], hi[32];
    snprintf(buf, cap, "%zu repetitions in %d runs: min %s, median %s, max %s", r->rep_n[f], r->runs,
             rl_format_eng(lo, sizeof lo, r->rep_min[f], calib_fig[f].unit, 0),
             rl_format_eng(mid, sizeof mid, r->rep_med[f], calib_fig[f].unit, 0),
             rl_format_eng(hi, sizeof hi, r->rep_max[f], calib_fig[f].unit, 0));
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
static cJSON *forecast_block(const setup *s, const results *r, bool llc) {
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "stack", "ONNX Runtime, CPU provider (estimated; fit with calibrate --from)");
    /* no "basis": the core takes a profile without one as its estimates
     * (analytic), and writes the id from its own table when a fit replaces it */
    cJSON_AddItemToObject(f, "matrix_units", figure_of_kind(1, "one core works one tile at a time (a one-thread "
                                                               "runtime; wave quantization over cores not modelled)",
                                                            "estimated"));
    /* Not the cache blocks: a CPU GEMM runs leftover rows through narrower
     * kernels (no padding of M), and pads N only to whole vector registers.
     * With 32 x 32 tiles a ViT's 197 rows lost 12 % to padding that the
     * runtime does not pay (it ran them faster per FLOP than BERT's 128). */
    cJSON_AddItemToObject(f, "tile_m", figure_of_kind(1, "estimated: a CPU GEMM runs leftover rows through narrower "
                                                        "kernels, so M is not padded", "estimated"));
    cJSON_AddItemToObject(f, "tile_n", figure_of_kind(16, "estimated: N is padded to whole strips of 16 columns, "
                                                         "as ONNX Runtime's GEMM (MLAS) packs its right-hand matrix "
                                                         "on x86, with AVX2 as with AVX-512", "estimated"));
    /* Its NCHWc layout blocks the channels by the vector register's FP32
     * lanes instead: RegNetX-1.6GF's 24 channels a group fill 8-channel
     * blocks (AVX2) and run as one blocked kernel, but not 16-channel ones
     * (AVX-512F), where they run a GEMM call a group. */
    int block = r->isa.channel_block;
    if (block > 0) {
        char src[300];
        /* named by the vector set the block follows, not the FMA kernel
         * measured: a CPU with AVX but no FMA runs an SSE2 FMA loop */
        const char *set = block >= 16 ? "AVX-512F" : block >= 8 ? "AVX" : "no AVX";
        snprintf(src, sizeof src, "this CPU has %s: ONNX Runtime's NCHWc layout (MLAS) blocks the channels by the FP32 "
                 "lanes of the vector register it runs, 16 with AVX-512F, 8 with AVX or AVX2, none below (1)", set);
        cJSON_AddItemToObject(f, "channel_block", figure_of_kind(block, src, "estimated"));
    }
    cJSON_AddItemToObject(f, "tile_k", figure_of_kind(1, "no K step: a CPU GEMM takes any K", "estimated"));
    /* ONNX Runtime's CPU convolution loops over the groups of a grouped
     * convolution that is not depthwise, one im2col and GEMM call a group
     * (RegNetY's 8-channel groups: 5-15 µs a group measured, however small) */
    cJSON_AddStringToObject(f, "grouped_conv", "per_group");
    /* its Expand writes the repeated tensor, which the reader then reads */
    cJSON_AddStringToObject(f, "broadcast", "copied");
    if (llc) cJSON_AddStringToObject(f, "cache_level", "LLC");
    /* A depthwise convolution runs on the same FMA units as the rest, with
     * the 6 accumulators of ONNX Runtime's NCHWc depthwise kernel in flight:
     * until a fit measures its kernels, it gets the share of the peak that a
     * loop of 6 FMA chains reaches here (the chains' latency, not a guess;
     * the generic default, 0.1, is a GPU's vector rate under its matrix
     * units). Its memory share keeps the generic default. */
    double peak = r->peak[1];
    if (peak > 0 && r->value[F_DEPTHWISE_ONE] > 0) {
        double share = fmin(1, r->value[F_DEPTHWISE_ONE] / peak);
        char src[400], reps[160], got[32];
        snprintf(src, sizeof src, "rooflens calibrate %s, %s: a loop of %s with 6 chains of dependent FMAs in flight "
                 "(the outputs ONNX Runtime's NCHWc depthwise kernel keeps in flight) on one core: %s at best, %.0f%% "
                 "of the one-core peak (%s)", ROOFLENS_VERSION, s->date, s->isa,
                 rl_format_eng(got, sizeof got, r->value[F_DEPTHWISE_ONE], "FLOP/s", 0), 100 * share,
                 spread_text(r, F_DEPTHWISE_ONE, reps, sizeof reps));
        cJSON *dw = cJSON_AddObjectToObject(cJSON_AddObjectToObject(f, "classes"), "depthwise");
        cJSON_AddItemToObject(dw, "compute_fraction", figure_of_kind(share, src, "estimated"));
        cJSON_AddItemToObject(dw, "memory_fraction",
                              figure_of_kind(0.6, "the core's generic default: no measured kernel of this class set it",
                                             "estimated"));
    }
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
    snprintf(src[S_MEM_ALL], sizeof src[0], "%s, %s: STREAM-like triad over 3 arrays of %zu MiB (32 B per element: "
             "STREAM's 24 and the write-allocate read of each stored line), "
             "%d threads: the best timed window (%s; the runs' bests spread %.1f%%)", how, s->date, s->mem_bytes >> 20,
             s->threads, spread_text(r, F_MEM_ALL, reps, sizeof reps), 100 * r->spread[F_MEM_ALL]);
    snprintf(src[S_MEM_ONE], sizeof src[0], "%s, %s: triad over 3 arrays of %zu MiB, one thread: the best timed "
             "window (%s; the runs' bests spread %.1f%%)", how, s->date, s->mem_bytes >> 20,
             spread_text(r, F_MEM_ONE, reps, sizeof reps), 100 * r->spread[F_MEM_ONE]);
    snprintf(src[S_LLC_ALL], sizeof src[0], "%s, %s: triad over %zu KiB in all (inside the last-level cache; 32 B per element), %d "
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
    cJSON_AddItemToObject(p, "forecast", forecast_block(s, r, llc));
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
    "                          [--profile ID|FILE] [--from MODEL.onnx=PROFILE ...]\n"
    "                          [--probe MODEL.onnx=PROFILE ...] [--stack TEXT]\n"
    "                          [--power-mode MODE] [--batch N] [--dim NAME=V] [--precision P]\n"
    "                          [--measured-format auto|ort|trtexec|csv]\n"
    "       rooflens calibrate --write-probes FILE\n"
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
    "  --probe M=P    the probe model and its profile, measured beside the models in\n"
    "                 the same session: it sets only the product class (convolutions\n"
    "                 or GEMMs) no --from model has a kernel of\n"
    "  --write-probes FILE  write the probe model (six dense products, ONNX) and stop\n"
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
        fprintf(stderr, "%-36s", calib_fig[f].label);
        for (int k = 0; k < r->runs; k++) fprintf(stderr, " %12s", rl_format_eng(b, sizeof b, r->v[f][k], calib_fig[f].unit, 0));
        fprintf(stderr, " %13s %6.1f%%", rl_format_eng(b, sizeof b, r->median[f], calib_fig[f].unit, 0), 100 * r->spread[f]);
        fprintf(stderr, " %13s\n", rl_format_eng(b, sizeof b, in_profile, calib_fig[f].unit, 0));
    }
    fprintf(stderr, "\n%-36s %12s %13s %13s %13s\n", "every repetition", "count", "min", "median", "max");
    for (int f = 0; f < F_COUNT; f++)
        fprintf(stderr, "%-36s %12zu %13s %13s %13s\n", calib_fig[f].label, r->rep_n[f],
                rl_format_eng(b, sizeof b, r->rep_min[f], calib_fig[f].unit, 0), rl_format_eng(c, sizeof c, r->rep_med[f], calib_fig[f].unit, 0),
                rl_format_eng(d, sizeof d, r->rep_max[f], calib_fig[f].unit, 0));
    if (r->peak_is_bound)
        fprintf(stderr, "\nFP32 ceiling: %s, x %.4g GHz (%s) = %s a core, %s on %d threads; the FMA loop reached "
                "%.0f%% of it on one core, %.0f%% on all\n", r->isa.how, r->clock_hz * 1e-9, r->clock_how,
                rl_format_eng(b, sizeof b, r->peak[1], "FLOP/s", 0), rl_format_eng(c, sizeof c, r->peak[0], "FLOP/s", 0), s->threads,
                100 * r->value[F_PEAK_ONE] / r->peak[1], 100 * r->value[F_PEAK_ALL] / r->peak[0]);
    else
        fprintf(stderr, "\nFP32 ceiling: the FMA loop's best (%s)\n", r->isa.how);
}


/* How to use the profile written to `out`: with the power mode the runs
 * were measured in (--power-mode), else naming only the modes the profile
 * has (the core's verdict lists them): one-core for one thread on a
 * measured CPU, none on a profile without modes. */
static void say_written(const char *out, const cJSON *verdict, const char *fit_mode) {
    fprintf(stderr, "profile written to %s (use it with --hw %s", out, out);
    const cJSON *m, *modes = cJSON_GetObjectItem(verdict, "modes");
    bool one_core = false;
    cJSON_ArrayForEach(m, modes) one_core |= !strcmp(str(m, "id"), "one-core");
    if (fit_mode) fprintf(stderr, " --power-mode %s, the mode the runs were measured in", txt(fit_mode));
    else if (one_core) fprintf(stderr, "; --power-mode one-core for one thread");
    else if (cJSON_GetArraySize(modes) > 0) {
        fprintf(stderr, "; its power modes:");
        cJSON_ArrayForEach(m, modes) fprintf(stderr, " %s", tstr(m, "id"));
    }
    fprintf(stderr, ")\n");
}

/* Checks the profile with the core, fits it to --from's runs if any, and
 * writes it to `out` (standard output when NULL). Takes the text (malloc'd)
 * and frees it. Returns 0 when written. */
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
                say_written(out, v, fit->n_from > 0 ? fit->power_mode : NULL);
            }
        }
    }
    cJSON_Delete(v);
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
    s.mem_bytes = 0; /* --mem-mib, else chosen by calib_describe_machine */
    int rc = parse_args(argc, argv, &s, &fit, &out, &id);
    if (rc) return rc == 1 ? 0 : rc;
    if (fit.write_probes) return write_probe_model(fit.write_probes);
    if (fit.base && fit.n_from == 0) {
        fprintf(stderr, "rooflens calibrate: --profile goes with --from (a profile to fit onto)\n");
        return 2;
    }
    if (fit.base) {
        char *text = base_profile(fit.base);
        return text ? write_profile(text, &fit, out) : 2;
    }
    calib_describe_machine(&s);
    results r = {0};
    if (calib_measure(&s, &r)) return 1;
    print_results(&s, &r);
    cJSON *prof = profile_json(&s, &r, id);
    rc = write_profile(cJSON_Print(prof), &fit, out);
    cJSON_Delete(prof);
    calib_free_repetitions();
    return rc;
}
