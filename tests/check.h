/* A small test helper: CHECK records a failure and goes on; tests end with
 * check_report(), which prints "N passed, M failed" and returns the exit code. */
#ifndef ROOFLENS_CHECK_H
#define ROOFLENS_CHECK_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (cond) check_passed++;                                              \
        else {                                                                 \
            check_failed++;                                                    \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);               \
            fprintf(stderr, __VA_ARGS__);                                      \
            fprintf(stderr, "\n");                                             \
        }                                                                      \
    } while (0)

static inline int check_close(double got, double want, double rel) {
    if (got == want) return 1;
    double scale = fabs(want) > 1e-300 ? fabs(want) : 1.0;
    return fabs(got - want) <= rel * scale;
}

#define CHECK_NEAR(got, want, rel, what)                                       \
    CHECK(check_close((got), (want), (rel)), "%s: got %.10g, want %.10g", (what), \
          (double)(got), (double)(want))

static inline int check_report(const char *suite) {
    printf("%s: %d passed, %d failed\n", suite, check_passed, check_failed);
    return check_failed ? 1 : 0;
}

static inline char *check_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
    fclose(f);
    if (buf) buf[n] = 0;
    if (len) *len = (size_t)n;
    return buf;
}
#endif
