/* Importers of measured per-kernel times (measured.h): ONNX Runtime profiling
 * JSON, trtexec --exportProfile JSON and a name,time_s CSV. Each turns its
 * format into rl_kernel rows with the time of a typical kept run: the median
 * over the runs (see collector_finish). */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measured.h"

static int bad(rl_error *err, const char *msg) {
    rl_error_set(err, "bad_measured", "measured", "%s", msg);
    return -1;
}

/* One kept time of a kernel in a run (the parts of a kernel that ran
 * twice in a run are two samples of the same run). */
typedef struct run_sample {
    int kernel, run;
    double s;
} run_sample;

/* Kernels are collected by name; runs are counted per kernel so that a kernel
 * absent from a run counts 0 there. */
typedef struct collector {
    rl_arena *a;
    rl_name_map *index;
    rl_kernel *k;
    double *sum;  /* summed time over kept runs */
    int *seen;    /* occurrences so far (CSV and ORT without run markers) */
    int n, cap;
    run_sample *samples; /* every kept time, for the median (cap of them) */
    int n_samples;
    double read_s; /* every time read so far, warm-up included: must stay finite */
} collector;

static int collector_init(collector *c, rl_arena *a, int cap) {
    memset(c, 0, sizeof *c);
    c->a = a;
    c->cap = cap > 0 ? cap : 1;
    c->index = rl_map_new(a, (size_t)c->cap);
    c->k = rl_arena_alloc(a, (size_t)c->cap * sizeof *c->k);
    c->sum = rl_arena_alloc(a, (size_t)c->cap * sizeof *c->sum);
    c->seen = rl_arena_alloc(a, (size_t)c->cap * sizeof *c->seen);
    c->samples = rl_arena_alloc(a, (size_t)c->cap * sizeof *c->samples);
    return c->index && c->k && c->sum && c->seen && c->samples ? 0 : -1;
}

/* Kernel i took `s` seconds in kept run `run`. cap is the number of rows in
 * the profile and each row adds at most one sample, so it is never exceeded. */
static void collector_add(collector *c, int i, int run, double s) {
    c->sum[i] += s;
    if (c->n_samples < c->cap) c->samples[c->n_samples++] = (run_sample){i, run, s};
}

/* The kernel named `name` (created on first sight), or -1 when out of
 * memory, -2 when the name is not UTF-8. cap is the number of rows in the
 * profile, so it is never exceeded. */
static int collector_get(collector *c, const char *name, size_t len) {
    char local[512];
    char *key = len < sizeof local ? local : rl_arena_alloc(c->a, len + 1);
    if (!key) return -1;
    memcpy(key, name, len);
    key[len] = 0;
    int i = rl_map_get(c->index, key);
    if (i >= 0) return i;
    if (rl_utf8_bad_at(key) >= 0) return -2;
    if (key == local && !(key = rl_arena_strdup(c->a, local))) return -1;
    if (c->n >= c->cap || !rl_map_put(c->index, key, c->n)) return -1;
    rl_kernel *k = &c->k[c->n];
    k->name = key;
    k->order = -1;
    k->out_rank = -1;
    return c->n++;
}

static int oom(rl_error *err) {
    rl_error_set(err, "out_of_memory", "measured", "out of memory while reading the measured profile");
    return -1;
}

/* collector_get, with its failure said: `row` names where in the profile
 * the kernel was read ("line 12", "event 40", "row 7"). */
static int kernel_at(collector *c, const char *name, size_t len, const char *row, rl_error *err) {
    int i = collector_get(c, name, len);
    if (i == -1) return oom(err);
    if (i == -2) {
        rl_error_set(err, "bad_measured", "measured",
                     "%s of the measured profile names a kernel that is not valid UTF-8: save the profile as UTF-8",
                     row);
        return -1;
    }
    return i;
}

/* Counts `seconds` (finite, >= 0) into the profile's running total, which
 * bounds every sum the analysis makes of its times and so keeps the totals
 * and their ratios to the prediction finite (a sum that would overflow is
 * stopped long before): more than RL_MEASURED_MAX_S of kernel time in one
 * profile (over 31 years) is no measurement but a wrong unit or a broken
 * file. */
#define RL_MEASURED_MAX_S 1e9
static int count_time(collector *c, double seconds, const char *row, rl_error *err) {
    c->read_s += seconds;
    if (c->read_s <= RL_MEASURED_MAX_S) return 0;
    rl_error_set(err, "bad_measured", "measured",
                 "the measured profile's times add up to more than 1e9 s (31 years) at %s: each time must "
                 "be one kernel's time in the profile's unit", row);
    return -1;
}

static int cmp_sample(const void *a, const void *b) {
    const run_sample *x = a, *y = b;
    return x->kernel != y->kernel ? (x->kernel > y->kernel) - (x->kernel < y->kernel)
                                  : (x->run > y->run) - (x->run < y->run);
}

/* Each kernel's median time over the kept runs, into time_s, for the
 * kernels that ran in every one of them. The median and not the mean: on a
 * shared machine one run in ten can be paused for tens of milliseconds (a
 * ShuffleNet run of 11 ms took 69 ms once), and a mean would put that pause
 * into the kernels it fell on and into the time between kernels. A kernel
 * missing from some runs (a branch taken now and then) keeps its mean per
 * run, 0 where it did not run, which a median of mostly zeros would lose. */
static int collector_medians(collector *c, int kept_runs) {
    double *v = rl_arena_alloc(c->a, (size_t)kept_runs * sizeof *v);
    if (!v) return -1;
    qsort(c->samples, (size_t)c->n_samples, sizeof *c->samples, cmp_sample);
    for (int s = 0; s < c->n_samples;) {
        int i = c->samples[s].kernel, runs = 0;
        for (; s < c->n_samples && c->samples[s].kernel == i; s++) {
            bool same_run = runs > 0 && c->samples[s].run == c->samples[s - 1].run;
            if (same_run) v[runs - 1] += c->samples[s].s;
            else if (runs < kept_runs) v[runs++] = c->samples[s].s;
        }
        if (runs == kept_runs) c->k[i].time_s = rl_median(v, runs);
    }
    return 0;
}

/* Kernels that ran in a kept run, in execution order, with their time in a
 * typical run: the median over three or more kept runs, else the mean. */
static int collector_finish(collector *c, int kept_runs, rl_profile *out, rl_error *err) {
    for (int i = 0; i < c->n; i++) c->k[i].time_s = kept_runs > 0 ? c->sum[i] / kept_runs : c->sum[i];
    out->median = kept_runs >= 3;
    if (out->median && collector_medians(c, kept_runs)) return oom(err);
    int n = 0;
    for (int i = 0; i < c->n; i++) {
        if (c->k[i].order < 0) { /* only in the warm-up run: counted, and said */
            out->warmup_only++;
            continue;
        }
        c->k[n++] = c->k[i];
    }
    /* execution order of the first kept run (insertion sort: profiles are
     * nearly in order already) */
    for (int i = 1; i < n; i++) {
        rl_kernel t = c->k[i];
        int j = i - 1;
        while (j >= 0 && c->k[j].order > t.order) { c->k[j + 1] = c->k[j]; j--; }
        c->k[j + 1] = t;
    }
    for (int i = 0; i < n; i++) c->k[i].order = i;
    out->kernels = c->k;
    out->n_kernels = n;
    if (n == 0) return bad(err, "the measured profile holds no kernel times");
    return 0;
}

/* ----------------------------------------------------------------- ORT -- */
static double num_or(const cJSON *o, const char *k, double def) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : def;
}

static const char *str_or_null(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const char KERNEL_SUFFIX[] = "_kernel_time";

/* args.output_type_shape: [{"float": [1, 64, 112, 112]}, ...]: the first
 * output. A dim must be a whole number a 64-bit integer holds; else -1. */
static int ort_out_shape(const cJSON *args, rl_kernel *k) {
    const cJSON *shapes = cJSON_GetObjectItemCaseSensitive(args, "output_type_shape");
    const cJSON *first = cJSON_IsArray(shapes) ? cJSON_GetArrayItem(shapes, 0) : NULL;
    const cJSON *dims = first && first->child ? first->child : NULL;
    if (!cJSON_IsArray(dims) || cJSON_GetArraySize(dims) > 8) return 0;
    int r = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, dims) {
        if (!cJSON_IsNumber(d)) return 0;
        double v = d->valuedouble;
        /* 2^63 is exact as a double: every v below it converts without overflow */
        if (!(v >= 0 && v < 9223372036854775808.0) || v != floor(v)) return -1;
        k->out_dims[r++] = (int64_t)v;
    }
    k->out_rank = r;
    return 0;
}

typedef struct run_span {
    double t0, t1;
} run_span;

/* The run holding time ts (runs sorted by start), or -1. */
static int run_of(const run_span *runs, int n, double ts) {
    int lo = 0, hi = n - 1, at = -1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (runs[mid].t0 <= ts) { at = mid; lo = mid + 1; }
        else hi = mid - 1;
    }
    return at >= 0 && ts <= runs[at].t1 ? at : -1;
}

static int cmp_span(const void *a, const void *b) {
    double x = ((const run_span *)a)->t0, y = ((const run_span *)b)->t0;
    return x < y ? -1 : x > y;
}

static bool is_node_kernel(const cJSON *e, size_t *name_len) {
    const char *cat = str_or_null(e, "cat"), *name = str_or_null(e, "name");
    if (!cat || !name || strcmp(cat, "Node") != 0) return false;
    size_t n = strlen(name), s = sizeof KERNEL_SUFFIX - 1;
    if (n <= s || strcmp(name + n - s, KERNEL_SUFFIX) != 0) return false;
    *name_len = n - s;
    return true;
}

/* Runs: ORT brackets each InferenceSession::Run with a "model_run" session
 * event; node events fall inside one. Fills runs (sorted by start) and
 * returns their number; a span whose end is not finite is no run. */
static int ort_runs(const cJSON *events, run_span *runs) {
    int n_runs = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, events) {
        const char *cat = str_or_null(e, "cat"), *name = str_or_null(e, "name");
        if (cat && name && !strcmp(cat, "Session") && !strcmp(name, "model_run")) {
            double ts = num_or(e, "ts", NAN), dur = num_or(e, "dur", NAN);
            if (isfinite(ts) && isfinite(ts + dur) && dur >= 0) runs[n_runs++] = (run_span){ts, ts + dur};
        }
    }
    qsort(runs, (size_t)n_runs, sizeof *runs, cmp_span);
    return n_runs;
}

/* One node kernel event (the ev-th of the trace) counted into its kernel:
 * its time when it fell in a kept run, and on its first kept sight its
 * operator, provider and output shape. */
static int ort_event(rl_arena *a, collector *c, const cJSON *e, size_t len, int ev, int run, int first_kept,
                     int *pos, rl_profile *out, rl_error *err) {
    double dur = num_or(e, "dur", NAN);
    const char *name = cJSON_GetObjectItemCaseSensitive(e, "name")->valuestring;
    char row[48];
    snprintf(row, sizeof row, "event %d", ev);
    if (!isfinite(dur) || dur < 0) {
        rl_error_set(err, "bad_measured", "measured",
                     "the ONNX Runtime profile gives '%.200s' (event %d) no valid \"dur\" (microseconds)", name, ev);
        return -1;
    }
    int i = kernel_at(c, name, len, row, err);
    if (i < 0 || count_time(c, dur * 1e-6, row, err)) return -1;
    if (run == -2) run = c->seen[i]++; /* no run markers: the k-th sight of a name is run k */
    if (run < first_kept) {
        if (run < 0) out->ignored_events++; /* outside every run */
        return 0;
    }
    rl_kernel *k = &c->k[i];
    collector_add(c, i, run, dur * 1e-6);
    if (k->order >= 0) return 0;
    k->order = (*pos)++;
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
    const char *op = str_or_null(args, "op_name"), *prov = str_or_null(args, "provider");
    if ((op && !(k->op = rl_arena_strdup(a, op))) || (prov && !(k->provider = rl_arena_strdup(a, prov))))
        return oom(err);
    if (ort_out_shape(args, k) == 0) return 0;
    rl_error_set(err, "bad_measured", "measured",
                 "the ONNX Runtime profile gives '%.200s' (event %d) an output_type_shape dim that is not a "
                 "whole number from 0 to 2^63", name, ev);
    return -1;
}

/* A node kernel event of a kept run: where it starts and how long it took, µs. */
typedef struct kept_event {
    int run;
    double ts, dur;
} kept_event;

static int cmp_kept(const void *a, const void *b) {
    const kept_event *x = a, *y = b;
    if (x->run != y->run) return (x->run > y->run) - (x->run < y->run);
    return (x->ts > y->ts) - (x->ts < y->ts);
}

/* A gap between two kernels longer than this (µs) is a time slice of other
 * work on a shared machine, not the runtime's own time, and is left out of
 * the slope; the runtime's own gaps on this project's CPUs were 3-35 µs. */
#define GAP_SLICE_US 1000.0
/* Fewer gaps than this in a run tell no slope. */
#define GAP_MIN_COUNT 8

/* One run's least-squares slope of the time after each kernel (to the next
 * one's start) on that kernel's own time, over its n events sorted by
 * start; NAN when the run tells none: too few gaps, kernels all alike, or
 * kernels that overlap (an executor running several at once, whose gaps
 * are no runtime's time between kernels). */
static double run_slope(const kept_event *e, int n) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0, overlaps = 0;
    for (int i = 0; i + 1 < n; i++) {
        double gap = e[i + 1].ts - (e[i].ts + e[i].dur);
        if (gap < -1) overlaps++; /* timestamps are whole µs: -1 is rounding */
        if (gap < 0 || gap > GAP_SLICE_US) continue;
        double x = e[i].dur;
        sx += x, sy += gap, sxx += x * x, sxy += x * gap, k++;
    }
    if (k < GAP_MIN_COUNT || overlaps * 20 > n) return NAN;
    double vxx = sxx - sx * sx / k, vxy = sxy - sx * sy / k;
    return vxx > 0 ? vxy / vxx : NAN;
}

/* How the time between kernels grows with the kernel before it: the median
 * over the kept runs (at most n_runs) of each run's slope (run_slope); NAN
 * when no run tells one. Sorts ev (n events). */
static double gap_growth(rl_arena *a, kept_event *ev, int n, int n_runs) {
    qsort(ev, (size_t)n, sizeof *ev, cmp_kept);
    double *slope = rl_arena_alloc(a, (size_t)(n_runs + 1) * sizeof *slope);
    if (!slope) return NAN;
    int runs = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && ev[j].run == ev[i].run) j++;
        double s = run_slope(ev + i, j - i);
        if (isfinite(s) && runs < n_runs) slope[runs++] = s;
        i = j;
    }
    return runs ? rl_median(slope, runs) : NAN;
}

static int parse_ort(rl_arena *a, const cJSON *events, rl_profile *out, rl_error *err) {
    int n_ev = cJSON_GetArraySize(events);
    run_span *runs = rl_arena_alloc(a, (size_t)(n_ev + 1) * sizeof *runs);
    if (!runs) return oom(err);
    int n_runs = ort_runs(events, runs);
    double *run_kernels = rl_arena_alloc(a, (size_t)(n_runs + 1) * sizeof *run_kernels); /* µs of kernels per run */
    kept_event *kept_ev = rl_arena_alloc(a, (size_t)(n_ev + 1) * sizeof *kept_ev);
    if (!run_kernels || !kept_ev) return oom(err);
    int n_kept = 0;
    collector c;
    if (collector_init(&c, a, n_ev)) return oom(err);
    /* Without run markers the k-th time a name appears is run k. */
    int max_occ = 0, ev = 0;
    const cJSON *e;
    if (n_runs == 0) {
        cJSON_ArrayForEach(e, events) {
            size_t len;
            char row[48];
            snprintf(row, sizeof row, "event %d", ev++);
            if (!is_node_kernel(e, &len)) continue;
            int i = kernel_at(&c, cJSON_GetObjectItemCaseSensitive(e, "name")->valuestring, len, row, err);
            if (i < 0) return -1;
            if (++c.seen[i] > max_occ) max_occ = c.seen[i];
        }
        memset(c.seen, 0, (size_t)c.cap * sizeof *c.seen);
    }
    int total_runs = n_runs ? n_runs : max_occ;
    int first_kept = total_runs >= 2 ? 1 : 0;
    int pos = 0;
    out->ignored_events = 0;
    ev = 0;
    cJSON_ArrayForEach(e, events) {
        size_t len;
        if (!is_node_kernel(e, &len)) {
            out->ignored_events++, ev++;
            continue;
        }
        int run = n_runs ? run_of(runs, n_runs, num_or(e, "ts", NAN)) : -2;
        if (ort_event(a, &c, e, len, ev++, run, first_kept, &pos, out, err)) return -1;
        if (run >= first_kept) {
            run_kernels[run] += num_or(e, "dur", 0); /* ort_event checked it */
            kept_ev[n_kept++] = (kept_event){run, num_or(e, "ts", NAN), num_or(e, "dur", 0)};
        }
    }
    out->format = RL_PROFILE_ORT;
    out->runs = total_runs - first_kept;
    out->warmup_excluded = first_kept > 0;
    /* A typical kept run's wall time, and its time outside kernels: medians
     * over the runs, as for the kernels, and each run's own gap (the wall
     * time of one run minus the kernels of another is no gap at all). */
    double *span = rl_arena_alloc(a, (size_t)(n_runs + 1) * sizeof *span);
    double *gap = rl_arena_alloc(a, (size_t)(n_runs + 1) * sizeof *gap);
    if (!span || !gap) return oom(err);
    int kept = 0;
    for (int r = first_kept; r < n_runs; r++, kept++) {
        span[kept] = runs[r].t1 - runs[r].t0;
        gap[kept] = span[kept] - run_kernels[r] > 0 ? span[kept] - run_kernels[r] : 0; /* threads overlap: none */
    }
    double wall = rl_median(span, kept), between = rl_median(gap, kept);
    /* a span of finite ends can still overflow: then neither is given */
    bool given = kept > 0 && isfinite(wall) && isfinite(between);
    out->run_wall_s = given ? wall * 1e-6 : 0;
    out->between_kernels_s = given ? between * 1e-6 : -1;
    out->between_growth = given ? gap_growth(a, kept_ev, n_kept, n_runs) : NAN;
    if (c.n == 0)
        return bad(err, "the ONNX Runtime profile has no node kernel events (\"cat\": \"Node\", "
                        "\"…_kernel_time\"): run the session at least once with profiling on");
    return collector_finish(&c, out->runs, out, err);
}

/* ------------------------------------------------------------ trtexec -- */
/* The {"count": N} row: the timed runs, a whole number an int holds. */
static int trtexec_count(const cJSON *cnt, int row, int *count, rl_error *err) {
    double v = cnt->valuedouble;
    if (v >= 0 && v <= INT_MAX && v == floor(v)) {
        *count = (int)v;
        return 0;
    }
    rl_error_set(err, "bad_measured", "measured",
                 "row %d of the trtexec profile gives \"count\" %.6g: the number of timed runs must be a whole "
                 "number from 0 to %d", row, v, INT_MAX);
    return -1;
}

static int parse_trtexec(rl_arena *a, const cJSON *rows, rl_profile *out, rl_error *err) {
    collector c;
    if (collector_init(&c, a, cJSON_GetArraySize(rows))) return oom(err);
    int count = 0, pos = 0, row = 0;
    bool medians = true; /* every layer gave its medianMs */
    const cJSON *r;
    cJSON_ArrayForEach(r, rows) {
        if (!cJSON_IsObject(r)) return bad(err, "a trtexec profile is an array of objects");
        const cJSON *cnt = cJSON_GetObjectItemCaseSensitive(r, "count");
        const char *name = str_or_null(r, "name");
        char where[48];
        snprintf(where, sizeof where, "row %d", row++);
        if (!name && cJSON_IsNumber(cnt)) {
            if (trtexec_count(cnt, row - 1, &count, err)) return -1;
            continue;
        }
        if (!name) return bad(err, "a trtexec profile row has no \"name\"");
        /* medianMs and averageMs are over the timed runs (trtexec has already
         * left out its warm-up): the median when given, as for the other
         * formats; older versions give only the total timeMs */
        double med = num_or(r, "medianMs", NAN), avg = num_or(r, "averageMs", NAN), total = num_or(r, "timeMs", NAN);
        double ms = isfinite(med) && med >= 0 ? med : isfinite(avg) ? avg : (count > 0 ? total / count : total);
        medians &= isfinite(med) && med >= 0;
        if (!isfinite(ms) || ms < 0) {
            rl_error_set(err, "bad_measured", "measured",
                         "the trtexec profile gives layer '%.200s' (%s) no valid medianMs, averageMs or timeMs",
                         name, where);
            return -1;
        }
        int i = kernel_at(&c, name, strlen(name), where, err);
        if (i < 0 || count_time(&c, ms * 1e-3, where, err)) return -1;
        c.sum[i] += ms * 1e-3; /* a layer listed twice: both parts of its time */
        if (c.k[i].order < 0) c.k[i].order = pos++;
    }
    out->format = RL_PROFILE_TRTEXEC;
    out->runs = count > 0 ? count : 1;
    out->warmup_excluded = false;
    int rc = collector_finish(&c, 1, out, err); /* one row per layer: the statistic is trtexec's */
    out->median = medians;
    return rc;
}

/* ----------------------------------------------------------------- CSV -- */
/* One field of a CSV line (RFC 4180 quotes), copied into buf (trimmed);
 * returns the position after its separator, or NULL at the end of the line.
 * *cut is set when the field does not fit in cap - 1 bytes: it is never
 * silently shortened (a cut name could merge two kernels, a cut time read
 * as another number). */
static const char *csv_field(const char *p, const char *end, char *buf, size_t cap, bool *cut) {
    size_t n = 0;
    bool quoted = p < end && *p == '"';
    *cut = false;
    if (quoted) p++;
    while (p < end) {
        if (quoted && *p == '"') {
            if (p + 1 < end && p[1] == '"') p++;
            else { quoted = false; p++; continue; }
        } else if (!quoted && *p == ',') {
            break;
        }
        if (n + 1 < cap) buf[n++] = *p;
        else if (!isspace((unsigned char)*p)) *cut = true; /* trailing blanks would be trimmed anyway */
        p++;
    }
    while (n > 0 && isspace((unsigned char)buf[n - 1])) n--;
    size_t lead = 0;
    while (lead < n && isspace((unsigned char)buf[lead])) lead++;
    memmove(buf, buf + lead, n - lead);
    buf[n - lead] = 0;
    return p < end ? p + 1 : NULL;
}

static bool parse_number(const char *s, double *v) {
    char *e;
    if (!*s) return false;
    *v = strtod(s, &e);
    return *e == 0;
}

typedef struct csv_cols {
    int name, time, op;
    double scale; /* to seconds */
} csv_cols;

/* The longest kernel name and other field a CSV row may hold, in bytes. */
enum { CSV_NAME_MAX = 1023, CSV_FIELD_MAX = 255 };

/* A header names its columns: name, time_s | time_ms | time_us, op. A field
 * too long for any of these names is simply not one of them. */
static bool csv_header(const char *line, const char *end, csv_cols *cols) {
    char f[CSV_FIELD_MAX + 1];
    const char *p = line;
    bool cut;
    *cols = (csv_cols){-1, -1, -1, 1};
    for (int i = 0; p; i++) {
        p = csv_field(p, end, f, sizeof f, &cut);
        for (char *q = f; *q; q++) *q = (char)tolower((unsigned char)*q);
        if (cut) continue;
        if (!strcmp(f, "name") || !strcmp(f, "node") || !strcmp(f, "kernel")) cols->name = i;
        else if (!strcmp(f, "time_s")) cols->time = i, cols->scale = 1;
        else if (!strcmp(f, "time_ms")) cols->time = i, cols->scale = 1e-3;
        else if (!strcmp(f, "time_us")) cols->time = i, cols->scale = 1e-6;
        else if (!strcmp(f, "op") || !strcmp(f, "op_type")) cols->op = i;
    }
    return cols->name >= 0 && cols->time >= 0;
}

typedef struct csv_row {
    char name[CSV_NAME_MAX + 1];
    double t;           /* in the file's unit */
    const char *op;     /* in the arena, or NULL */
} csv_row;

/* The fields of line `line_no` ([line, le)) into *r. Returns 0, or -1 with
 * err set (a field over its limit, a missing name, a bad time, a name or
 * op that is not UTF-8, out of memory). */
static int csv_read_row(rl_arena *a, const char *line, const char *le, int line_no, const csv_cols *cols,
                        csv_row *r, rl_error *err) {
    char field[CSV_FIELD_MAX + 1];
    const char *q = line;
    r->t = NAN;
    r->name[0] = 0;
    r->op = NULL;
    for (int i = 0; q; i++) {
        bool is_name = i == cols->name, cut;
        q = csv_field(q, le, is_name ? r->name : field, is_name ? sizeof r->name : sizeof field, &cut);
        if (cut) {
            rl_error_set(err, "bad_measured", "measured",
                         "line %d of the CSV profile: field %d is longer than %d bytes (the limit for %s): "
                         "shorten it", line_no, i + 1, is_name ? CSV_NAME_MAX : CSV_FIELD_MAX,
                         is_name ? "a kernel name" : "a time or an operator");
            return -1;
        }
        if (is_name) continue;
        if (i == cols->time && !parse_number(field, &r->t)) r->t = NAN;
        else if (i == cols->op && field[0] && !(r->op = rl_arena_strdup(a, field))) return oom(err);
    }
    const char *bad_text = rl_utf8_bad_at(r->name) >= 0 ? "kernel name" : r->op && rl_utf8_bad_at(r->op) >= 0 ? "op" : NULL;
    if (bad_text) {
        rl_error_set(err, "bad_measured", "measured",
                     "line %d of the CSV profile: the %s is not valid UTF-8: save the profile as UTF-8", line_no,
                     bad_text);
        return -1;
    }
    if (!r->name[0] || !isfinite(r->t) || r->t < 0) {
        rl_error_set(err, "bad_measured", "measured",
                     "line %d of the CSV profile is not 'name,time' with a time >= 0 (columns: "
                     "name,time_s; or a header naming time_ms or time_us)", line_no);
        return -1;
    }
    return 0;
}

static int parse_csv(rl_arena *a, const char *text, size_t len, rl_profile *out, rl_error *err) {
    const char *end = text + len;
    int lines = 1;
    for (const char *p = text; p < end; p++) lines += *p == '\n';
    collector c;
    if (collector_init(&c, a, lines)) return oom(err);
    int *run_of_row = rl_arena_alloc(a, (size_t)lines * sizeof *run_of_row);
    int *kernel_of_row = rl_arena_alloc(a, (size_t)lines * sizeof *kernel_of_row);
    double *time_of_row = rl_arena_alloc(a, (size_t)lines * sizeof *time_of_row);
    csv_row *row = rl_arena_alloc(a, sizeof *row);
    if (!run_of_row || !kernel_of_row || !time_of_row || !row) return oom(err);
    csv_cols cols = {0, 1, -1, 1};
    bool first = true;
    int rows = 0, max_run = 0, line_no = 0;
    for (const char *p = text; p < end;) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *le = eol ? eol : end;
        line_no++;
        const char *line = p;
        p = eol ? eol + 1 : end;
        if (le > line && le[-1] == '\r') le--;
        const char *s = line;
        while (s < le && isspace((unsigned char)*s)) s++;
        if (s == le || *s == '#') continue;
        if (first) {
            first = false;
            if (csv_header(line, le, &cols)) continue;
            cols = (csv_cols){0, 1, -1, 1}; /* no header: name, seconds */
        }
        char where[48];
        snprintf(where, sizeof where, "line %d", line_no);
        if (csv_read_row(a, line, le, line_no, &cols, row, err)) return -1;
        int k = kernel_at(&c, row->name, strlen(row->name), where, err);
        if (k < 0 || count_time(&c, row->t * cols.scale, where, err)) return -1;
        if (row->op && !c.k[k].op) c.k[k].op = row->op;
        run_of_row[rows] = c.seen[k]++; /* the k-th row of a name is run k */
        if (c.seen[k] > max_run) max_run = c.seen[k];
        kernel_of_row[rows] = k;
        time_of_row[rows] = row->t * cols.scale;
        rows++;
    }
    int first_kept = max_run >= 2 ? 1 : 0, pos = 0;
    for (int r = 0; r < rows; r++) {
        if (run_of_row[r] < first_kept) continue;
        int k = kernel_of_row[r];
        collector_add(&c, k, run_of_row[r], time_of_row[r]);
        if (c.k[k].order < 0) c.k[k].order = pos++;
    }
    out->format = RL_PROFILE_CSV;
    out->runs = max_run - first_kept;
    out->warmup_excluded = first_kept > 0;
    return collector_finish(&c, out->runs, out, err);
}

/* ---------------------------------------------------------- detection -- */
static bool looks_ort(const cJSON *arr) {
    const cJSON *e;
    cJSON_ArrayForEach(e, arr) if (cJSON_IsObject(e) && cJSON_GetObjectItemCaseSensitive(e, "ph") &&
                                   cJSON_GetObjectItemCaseSensitive(e, "cat")) return true;
    return false;
}

static bool looks_trtexec(const cJSON *arr) {
    const cJSON *e;
    cJSON_ArrayForEach(e, arr) {
        if (!cJSON_IsObject(e)) return false;
        if (cJSON_GetObjectItemCaseSensitive(e, "name") &&
            (cJSON_GetObjectItemCaseSensitive(e, "averageMs") || cJSON_GetObjectItemCaseSensitive(e, "timeMs")))
            return true;
    }
    return false;
}

int rl_profile_parse(rl_arena *a, const char *text, size_t len, const char *format, rl_profile *out,
                     rl_error *err) {
    memset(out, 0, sizeof *out);
    out->between_kernels_s = -1;
    out->between_growth = NAN;
    /* "auto" (or none) asks to detect the kind; else one of the table's */
    bool is_auto = !format || !strcmp(format, "auto");
    int want = is_auto ? -1 : rl_value_of(RL_LIST_MEASURED_FORMAT, format);
    if (!is_auto && want < 0) {
        char ids[128], msg[192];
        rl_value_list_text(RL_LIST_MEASURED_FORMAT, ids, sizeof ids);
        snprintf(msg, sizeof msg, "measured.format must be auto or one of %s", ids);
        return bad(err, msg);
    }
    size_t skip = 0;
    if (len >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB &&
        (unsigned char)text[2] == 0xBF)
        skip = 3; /* a UTF-8 byte-order mark */
    text += skip, len -= skip;
    size_t lead = 0;
    while (lead < len && isspace((unsigned char)text[lead])) lead++;
    bool json = lead < len && (text[lead] == '[' || text[lead] == '{');
    if (want == RL_PROFILE_CSV || (is_auto && !json)) return parse_csv(a, text, len, out, err);
    cJSON *doc = cJSON_ParseWithLength(text, len);
    if (!doc) {
        if (rl_json_alloc_failed()) return oom(err);
        return bad(err, "the measured profile looks like JSON but does not parse");
    }
    int rc;
    /* ORT writes a bare array of trace events; Chrome's object form holds them in traceEvents */
    const cJSON *events = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, "traceEvents") : doc;
    bool want_ort = want == RL_PROFILE_ORT, want_trt = want == RL_PROFILE_TRTEXEC;
    if (cJSON_IsArray(events) && (want_ort || (is_auto && looks_ort(events))))
        rc = parse_ort(a, events, out, err);
    else if (cJSON_IsArray(doc) && (want_trt || (is_auto && looks_trtexec(doc))))
        rc = parse_trtexec(a, doc, out, err);
    else
        rc = bad(err, "the measured profile is JSON but neither ONNX Runtime profiling output (trace events "
                      "with \"cat\" and \"ph\") nor trtexec --exportProfile output (rows with \"name\" and "
                      "\"averageMs\")");
    cJSON_Delete(doc);
    return rc;
}
