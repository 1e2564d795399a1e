/* The cost of one analysis, in-process, without the CLI: a model read once
 * through the public API (weights skipped), then analysed N times under one
 * hardware profile; prints the median and the best wall time and the mean
 * CPU time per analysis. The request is the page's ("layers": "packed") or
 * the one named by --layers.
 *
 *   bench_analyze MODEL.onnx PROFILE.json [--runs N] [--layers packed|true|false]
 *                 [--no-forecast-block]
 *
 * --no-forecast-block drops the profile's "forecast" block before the
 * request is built (the forecast then runs on the core's defaults): what
 * reading the block costs. It uses only rooflens.h, so it builds against an
 * older tree's core as well (tools/bench/forecast.sh). */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "rooflens.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)ru.ru_stime.tv_usec;
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseeko(f, 0, SEEK_END);
    long n = (long)ftello(f);
    fseeko(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s) s[n] = 0;
    fclose(f);
    return s;
}

/* The model read as the CLI reads it: payloads jumped over. */
static rl_model *read_model(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    rl_reader *r = rl_reader_new(NULL);
    static unsigned char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        int64_t skip = rl_reader_feed(r, buf, n);
        if (skip < 0) break;
        if (skip > 0 && fseeko(f, (off_t)skip, SEEK_CUR) == 0) rl_reader_skip(r, (uint64_t)skip);
    }
    fclose(f);
    char *err = NULL;
    rl_model *m = rl_reader_finish(r, &err);
    rl_reader_free(r);
    if (!m) fprintf(stderr, "bench_analyze: %s: %s\n", path, err ? err : "cannot read");
    rl_free(err);
    return m;
}

/* Cut the profile's top-level "forecast" member out of its text (the
 * shipped profiles keep it last, after a comma). */
static void drop_forecast_block(char *profile) {
    char *k = strstr(profile, "\"forecast\"");
    if (!k) return;
    char *comma = k;
    while (comma > profile && *comma != ',') comma--;
    int depth = 0;
    char *p = strchr(k, '{');
    for (; p && *p; p++) {
        if (*p == '{') depth++;
        else if (*p == '}' && --depth == 0) break;
    }
    if (!p || !*p) return;
    memmove(comma, p + 1, strlen(p + 1) + 1);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_analyze MODEL.onnx PROFILE.json [--runs N] [--layers packed|true|false] "
                        "[--no-forecast-block]\n");
        return 2;
    }
    int runs = 50;
    const char *layers = "\"packed\"";
    int no_block = 0;
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--layers") && i + 1 < argc) {
            const char *v = argv[++i];
            layers = !strcmp(v, "packed") ? "\"packed\"" : !strcmp(v, "true") ? "true" : "false";
        } else if (!strcmp(argv[i], "--no-forecast-block")) no_block = 1;
    }
    if (runs < 1) runs = 1;
    char *profile = slurp(argv[2]);
    rl_model *m = profile ? read_model(argv[1]) : NULL;
    if (!m) return 1;
    if (no_block) drop_forecast_block(profile);
    size_t cap = strlen(profile) + 64;
    char *req = malloc(cap);
    snprintf(req, cap, "{\"hardware\":%s,\"layers\":%s}", profile, layers);
    double *t = malloc((size_t)runs * sizeof *t);
    char *first = rl_model_analyze(m, req); /* warm: the first run touches fresh memory */
    int ok = first && strstr(first, "\"ok\":true") != NULL;
    if (!ok) fprintf(stderr, "bench_analyze: %.300s\n", first ? first : "out of memory");
    rl_free(first);
    double c0 = cpu();
    for (int i = 0; ok && i < runs; i++) {
        double t0 = now();
        char *out = rl_model_analyze(m, req);
        t[i] = now() - t0;
        rl_free(out);
    }
    double c1 = cpu();
    if (ok) {
        qsort(t, (size_t)runs, sizeof *t, cmp_double);
        printf("median %.3f ms, best %.3f ms, mean CPU %.3f ms per analysis (%d runs, request %zu bytes)\n",
               1e3 * t[runs / 2], 1e3 * t[0], 1e3 * (c1 - c0) / runs, runs, strlen(req));
    }
    free(t);
    free(req);
    free(profile);
    rl_model_free(m);
    return ok ? 0 : 1;
}
