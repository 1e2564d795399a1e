/* The GGUF header read, timed: a GGUF file read through the public reader
 * as the CLI reads it (64 KB chunks, every skip the reader offers jumped
 * with fseeko, never past the file's end), then rl_reader_finish (the
 * decoder's graph built and decoded). Prints the median wall time of N
 * reads, the bytes read and skipped, and the process's peak resident
 * memory. tools/bench/gguf.sh makes a sparse 40 GB file and runs it. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

#include "rooflens.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One read; returns seconds, or -1 when the file is not a model. */
static double read_once(const char *path, uint64_t *fed, uint64_t *skipped) {
    double t0 = now();
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseeko(f, 0, SEEK_END);
    off_t size = ftello(f);
    fseeko(f, 0, SEEK_SET);
    rl_reader *r = rl_reader_new(NULL);
    static unsigned char buf[1 << 16];
    size_t n;
    *fed = *skipped = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        *fed += n;
        int64_t skip = rl_reader_feed(r, buf, n);
        if (skip < 0) break;
        off_t pos = ftello(f);
        if (skip > size - pos) skip = size - pos;
        if (skip > 0 && fseeko(f, skip, SEEK_CUR) == 0 && rl_reader_skip(r, (uint64_t)skip) == 0) *skipped += skip;
    }
    fclose(f);
    char *err = NULL;
    rl_model *m = rl_reader_finish(r, &err);
    rl_reader_free(r);
    double t = now() - t0;
    if (!m) fprintf(stderr, "%s\n", err ? err : "not read");
    rl_free(err);
    rl_model_free(m);
    return m ? t : -1;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_gguf FILE.gguf [RUNS]\n");
        return 2;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 10;
    if (runs < 1 || runs > 1000) runs = 10;
    double *t = calloc((size_t)runs, sizeof *t);
    uint64_t fed = 0, skipped = 0;
    for (int i = 0; i < runs; i++)
        if ((t[i] = read_once(argv[1], &fed, &skipped)) < 0) return 1;
    qsort(t, (size_t)runs, sizeof *t, cmp);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("header read: median %.2f ms of %d runs (min %.2f, max %.2f); %llu bytes read, %llu skipped; "
           "peak RSS %ld KB\n",
           t[runs / 2] * 1e3, runs, t[0] * 1e3, t[runs - 1] * 1e3, (unsigned long long)fed,
           (unsigned long long)skipped, ru.ru_maxrss);
    free(t);
    return 0;
}
