/* Scale benchmark without the CLI: generates a chain or a wide graph of N
 * tiny nodes in memory (tests/gen_models.h), reads and analyses it through
 * the public API, and prints the time of each phase and the peak RSS.
 *
 *   bench_scale chain|wide N            time read + analyse (layers included)
 *   bench_scale chain|wide N --no-layers  the same without per-layer rows
 *   bench_scale chain|wide N --write F  only write the model to F (for the WASM run)
 *
 * One model per process, so the peak RSS is that model's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../tests/gen_models.h"
#include "rooflens.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 3 || (strcmp(argv[1], "chain") && strcmp(argv[1], "wide"))) {
        fprintf(stderr, "usage: bench_scale chain|wide N [--write FILE]\n");
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
