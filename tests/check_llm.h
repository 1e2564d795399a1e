/* The set-up the LLM tests share (test_llm.c, test_llm_parallel.c,
 * test_llm_prefill.c): their folders from the command line (ctest gives the
 * tests/ folder, the repository root and the decoders' folder), the skip
 * when tools/make-models/llm_model.py --suite has not made the decoders, a decoder
 * read by its file name and a profile read by its id. */
#ifndef ROOFLENS_CHECK_LLM_H
#define ROOFLENS_CHECK_LLM_H
#include <stdio.h>

#include "check_model.h"

static const char *tests_dir, *root_dir, *models_dir;

/* Reads the folders from argv; 0, or 77 (ctest's skip, SKIP_RETURN_CODE)
 * after saying what is missing when the decoders have not been made. */
static inline int llm_test_setup(int argc, char **argv, const char *test) {
    tests_dir = argc > 1 ? argv[1] : "tests";
    root_dir = argc > 2 ? argv[2] : ".";
    models_dir = argc > 3 ? argv[3] : "build/llm-models";
    char probe[1024];
    snprintf(probe, sizeof probe, "%s/tiny_hf.onnx", models_dir);
    FILE *f = fopen(probe, "rb");
    if (!f) {
        printf("%s: skipped, %s missing (python3 tools/make-models/llm_model.py --suite %s)\n", test, probe, models_dir);
        return 77;
    }
    fclose(f);
    return 0;
}

/* A decoder of the suite by its file name ("tiny_hf.onnx"); NULL (CHECKed) when it cannot be read. */
static inline rl_model *llm_model(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", models_dir, name);
    return check_read_model(path);
}

/* A hardware profile by id ("unit": the tests' own). */
static inline cJSON *llm_hw(const char *id) { return check_read_hw(tests_dir, root_dir, id); }
#endif
