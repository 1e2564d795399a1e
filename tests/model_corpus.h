/* The models the whole-corpus tests run over: every .onnx of
 * tests/fixtures/models and tests/fixtures/ops, the example models of the
 * page when they were generated (<build>/samples), and two generated ones
 * (a 300-node Relu chain and a 40-node wide fan). Header-only, shared by
 * test_timing_properties and test_studies_everywhere. */
#ifndef ROOFLENS_MODEL_CORPUS_H
#define ROOFLENS_MODEL_CORPUS_H
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_models.h"
#include "rooflens.h"

typedef void (*corpus_fn)(const char *name, rl_model *m, void *ctx);

static int corpus_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Reads every model of `dir` (sorted by name) and calls fn; returns how many. */
static int corpus_dir(const char *dir, corpus_fn fn, void *ctx) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    char *names[512];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 512) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".onnx") == 0) names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, corpus_cmp);
    int done = 0;
    for (int i = 0; i < n; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "rb");
        char *bytes = NULL;
        long len = -1;
        if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
            bytes = malloc((size_t)len + 1);
            if (bytes && fread(bytes, 1, (size_t)len, f) != (size_t)len) len = -1;
        }
        if (f) fclose(f);
        rl_model *m = bytes && len >= 0 ? rl_model_read(bytes, (size_t)len, NULL, NULL) : NULL;
        if (m) {
            fn(names[i], m, ctx);
            rl_model_free(m);
            done++;
        }
        free(bytes);
        free(names[i]);
    }
    return done;
}

/* Every model of the corpus; returns how many were read. */
static int corpus_each(const char *tests_dir, const char *samples_dir, corpus_fn fn, void *ctx) {
    char dir[2048];
    int n = 0;
    snprintf(dir, sizeof dir, "%s/fixtures/models", tests_dir);
    n += corpus_dir(dir, fn, ctx);
    snprintf(dir, sizeof dir, "%s/fixtures/ops", tests_dir);
    n += corpus_dir(dir, fn, ctx);
    if (samples_dir) n += corpus_dir(samples_dir, fn, ctx);
    static const char *const generated[] = {"generated chain of 300 Relu", "generated fan of 40 Relu"};
    for (int g = 0; g < 2; g++) {
        size_t len = 0;
        uint8_t *bytes = g ? gen_wide(40, &len) : gen_chain(300, &len);
        rl_model *m = bytes ? rl_model_read(bytes, len, NULL, NULL) : NULL;
        if (m) {
            fn(generated[g], m, ctx);
            rl_model_free(m);
            n++;
        }
        free(bytes);
    }
    return n;
}
#endif
