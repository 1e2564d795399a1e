/* Scale benchmark without the CLI: generates a chain or a wide graph of N
 * tiny nodes in memory (tests/gen_models.h), reads and analyses it through
 * the public API, and prints the time of each phase and the peak RSS.
 *
 *   bench_scale chain|wide N            time read + analyse (layers included)
 *   bench_scale chain|wide N --no-layers  the same without per-layer rows
 *   bench_scale chain|wide N --write F  only write the model to F (for the WASM run)
 *   bench_scale diff N                  rl_models_diff of a chain of N layers with
 *                                       itself (matched by name) and with the
 *                                       same chain renamed (matched by op and position)
 *
 * One model per process, so the peak RSS is that model's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../../tests/gen_models.h"
#include "rooflens.h"

/* CPU time of this process (user + system): on a shared machine the wall
 * time also counts the other processes' turns. */
static double cpu(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)ru.ru_stime.tv_usec;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static const char bench_hw[] =
    "{\"id\": \"bench\", \"name\": \"bench\", \"compute\": {\"fp32\": {\"matrix\": 1e12, "
    "\"vector\": 1e11}}, \"memory\": [{\"bandwidth_Bps\": 1e11}], \"launch_overhead_s\": 1e-6}";

static rl_model *read_generated(unsigned char *bytes, size_t len) {
    char *err = NULL;
    rl_model *m = bytes ? rl_model_read(bytes, len, NULL, &err) : NULL;
    if (!m) fprintf(stderr, "read failed: %s\n", err ? err : "out of memory");
    rl_free(err);
    free(bytes);
    return m;
}

/* A chain of n layers of three op types against itself and against the
 * same chain with every name changed. */
static int bench_diff(int n) {
    size_t la = 0, lb = 0;
    unsigned char *ba = gen_chain_named(n, "Op%d", 3, "n", &la), *bb = gen_chain_named(n, "Op%d", 3, "renamed", &lb);
    rl_model *a = read_generated(ba, la), *b = read_generated(bb, lb);
    if (!a || !b) return 1;
    char req[512];
    snprintf(req, sizeof req, "{\"hardware\": %s, \"diff\": {\"markdown\": true}}", bench_hw);
    int ok = 1;
    for (int k = 0; k < 2; k++) {
        double t0 = now(), c0 = cpu();
        char *out = rl_models_diff(a, k ? b : a, req);
        double t = now() - t0, c = cpu() - c0;
        const char *by = k ? "\"matched_by_op_position\":" : "\"matched_by_name\":";
        const char *at = strstr(out, by);
        ok &= at && atoi(at + strlen(by)) == n;
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("diff  %7d layers, %-28s %.3f s (CPU %.3f s)  response %.1f MB  peak RSS %.0f MB%s\n", n,
               k ? "renamed (by op and position)" : "against itself (by name)", t, c, strlen(out) / 1e6,
               ru.ru_maxrss / 1024.0, at && atoi(at + strlen(by)) == n ? "" : "  NOT ALL MATCHED");
        rl_free(out);
    }
    rl_model_free(a);
    rl_model_free(b);
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc >= 3 && !strcmp(argv[1], "diff")) return bench_diff(atoi(argv[2]));
    if (argc < 3 || (strcmp(argv[1], "chain") && strcmp(argv[1], "wide"))) {
        fprintf(stderr, "usage: bench_scale chain|wide N [--no-layers | --write FILE] | bench_scale diff N\n");
        return 2;
    }
    int n = atoi(argv[2]);
    size_t len = 0;
    double t0 = now();
    unsigned char *model = strcmp(argv[1], "chain") == 0 ? gen_chain(n, &len) : gen_wide(n, &len);
    double t_gen = now() - t0;
    if (!model) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    if (argc >= 5 && strcmp(argv[3], "--write") == 0) {
        FILE *f = fopen(argv[4], "wb");
        if (!f || fwrite(model, 1, len, f) != len) return 1;
        fclose(f);
        free(model);
        return 0;
    }
    int layers = !(argc >= 4 && strcmp(argv[3], "--no-layers") == 0);
    const char *req = layers
        ? "{\"hardware\": {\"id\": \"bench\", \"name\": \"bench\", \"compute\": {\"fp32\": {\"matrix\": 1e12, "
          "\"vector\": 1e11}}, \"memory\": [{\"bandwidth_Bps\": 1e11}], \"launch_overhead_s\": 1e-6}}"
        : "{\"hardware\": {\"id\": \"bench\", \"name\": \"bench\", \"compute\": {\"fp32\": {\"matrix\": 1e12, "
          "\"vector\": 1e11}}, \"memory\": [{\"bandwidth_Bps\": 1e11}], \"launch_overhead_s\": 1e-6}, \"layers\": false}";
    t0 = now();
    char *err = NULL;
    rl_model *m = rl_model_read(model, len, NULL, &err);
    double t_read = now() - t0;
    if (!m) {
        fprintf(stderr, "read failed: %s\n", err);
        return 1;
    }
    t0 = now();
    char *out = rl_model_analyze(m, req);
    double t_analyze = now() - t0;
    int ok = strstr(out, "\"ok\":true") != NULL;
    size_t out_len = strlen(out);
    rl_free(out);
    rl_model_free(m);
    free(model);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%-5s %7d nodes%s  file %6.2f MB  read %.3f s  analyse %.3f s  total %.3f s  "
           "response %.1f MB  peak RSS %.0f MB  (generate %.3f s)%s\n",
           argv[1], n, layers ? "" : " (no layer rows)", len / 1e6, t_read, t_analyze, t_read + t_analyze, out_len / 1e6,
           ru.ru_maxrss / 1024.0, t_gen, ok ? "" : "  ANALYSIS FAILED");
    return ok ? 0 : 1;
}
