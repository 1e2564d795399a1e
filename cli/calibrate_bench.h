/* The benchmark machinery of rooflens calibrate (calibrate_bench.c): the
 * machine's description (CPU, caches, memory, clock), a fork-join thread
 * pool and the measurements run on it (FMA peak, core clock, triad
 * bandwidth, dispatch cost), each figure kept as every repetition of every
 * run and summarised into the values a profile takes. calibrate.c turns
 * those into the profile's JSON and drives the subcommand.
 *
 * Contracts: calib_describe_machine fills a setup before calib_measure runs
 * on it; calib_measure fills every field of a results; the repetitions it
 * keeps live until calib_free_repetitions (once, after the last use of the
 * results). Not thread-safe: one measurement at a time per process. */
#ifndef ROOFLENS_CALIBRATE_BENCH_H
#define ROOFLENS_CALIBRATE_BENCH_H
#include <stdbool.h>
#include <stddef.h>

#include "calibrate_kernels.h"

/* The figures measured. Each is the best (or, for a cost, the median) of
 * many short repetitions; calibrate_bench.c keeps every repetition's value,
 * per figure, so that the profile and the printed table can give their
 * spread. */
enum { F_PEAK_ALL, F_PEAK_ONE, F_DEPTHWISE_ONE, F_CLOCK, F_MEM_ALL, F_MEM_ONE, F_LLC_ALL, F_LLC_ONE, F_DISPATCH_ALL, F_DISPATCH_ONE,
       F_COUNT };

/* Each figure's label and unit, in the order of the enum above, for the
 * printed table and the sources. */
typedef struct calib_figure {
    const char *label, *unit;
} calib_figure;

extern const calib_figure calib_fig[F_COUNT];

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

/* The run's set-up: the options and what calib_describe_machine found. */
typedef struct setup {
    int threads, runs;
    size_t mem_bytes, llc_footprint;
    double llc_capacity, mem_capacity, mhz, sys_max_hz;
    const char *llc_source, *isa;
    char model[256], vendor[64], date[32];
    double load_before[3], load_after[3];
} setup;

/* The machine's description and the run's set-up: CPU, caches, memory, the
 * triad sizes (s->mem_bytes when not given), the date and the load before
 * measuring. */
void calib_describe_machine(setup *s);

/* Runs every benchmark s->runs times into r (its medians and spreads
 * summarised); s->threads becomes the threads started. Returns 0, or 1 with
 * a message when the arrays or threads cannot be had. */
int calib_measure(setup *s, results *r);

/* Frees the repetitions calib_measure kept (r's summaries stay valid). */
void calib_free_repetitions(void);
#endif
