/* Test helpers that read models and JSON files through the public API (the
 * unit tests share them instead of each carrying its own copy). Each CHECKs
 * its own failure and returns NULL then; the caller frees what it gets
 * (rl_model_free, cJSON_Delete). */
#ifndef ROOFLENS_CHECK_MODEL_H
#define ROOFLENS_CHECK_MODEL_H
#include <cjson/cJSON.h>

#include "check.h"
#include "rooflens.h"

/* A whole ONNX file read into a model with the default limits. */
static inline rl_model *check_read_model(const char *path) {
    size_t len = 0;
    char *bytes = check_read_file(path, &len);
    CHECK(bytes != NULL, "cannot read %s", path);
    if (!bytes) return NULL;
    char *err = NULL;
    rl_model *m = rl_model_read(bytes, len, NULL, &err);
    CHECK(m != NULL, "cannot parse %s: %s", path, err ? err : "");
    rl_free(err);
    free(bytes);
    return m;
}

/* A JSON file, parsed. */
static inline cJSON *check_read_json(const char *path) {
    char *text = check_read_file(path, NULL);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    free(text);
    CHECK(j != NULL, "cannot load %s", path);
    return j;
}
#endif
