/* Test helpers that read models, profiles and JSON files and analyse through
 * the public API (the
 * unit tests share them instead of each carrying its own copy). Each CHECKs
 * its own failure and returns NULL then; the caller frees what it gets
 * (rl_model_free, cJSON_Delete). */
#ifndef ROOFLENS_CHECK_MODEL_H
#define ROOFLENS_CHECK_MODEL_H
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The item at a dotted path of a response ("llm.rows.0.t": an array's items
 * by index), or NULL when a step is missing. */
static inline const cJSON *check_at(const cJSON *o, const char *path) {
    char key[256];
    const cJSON *cur = o;
    for (const char *k = path; cur && *k;) {
        size_t n = strcspn(k, ".");
        snprintf(key, sizeof key, "%.*s", (int)n, k);
        cur = cJSON_IsArray(cur) ? cJSON_GetArrayItem(cur, atoi(key)) : cJSON_GetObjectItemCaseSensitive(cur, key);
        k += n + (k[n] == '.');
    }
    return cur;
}

/* The number at a dotted path; NAN when it is missing or no number. */
static inline double check_num(const cJSON *o, const char *path) {
    const cJSON *v = check_at(o, path);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The text at a dotted path; "" when it is missing or no text. */
static inline const char *check_str(const cJSON *o, const char *path) {
    const cJSON *v = check_at(o, path);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* A hardware profile by id: "unit" is tests/hw/unit.json (tests_dir is the
 * tests/ folder), any other id is <root_dir>/hw/<id>.json. */
static inline cJSON *check_read_hw(const char *tests_dir, const char *root_dir, const char *id) {
    char path[1024];
    if (strcmp(id, "unit") == 0) snprintf(path, sizeof path, "%s/hw/unit.json", tests_dir);
    else snprintf(path, sizeof path, "%s/hw/%s.json", root_dir, id);
    return check_read_json(path);
}

/* rl_model_analyze with `req` (consumed: deleted here); the response
 * parsed (CHECKs that it is JSON; NULL when not). The caller deletes it. */
static inline cJSON *check_analyze(rl_model *m, cJSON *req) {
    char *text = cJSON_PrintUnformatted(req);
    cJSON_Delete(req);
    char *out = rl_model_analyze(m, text);
    free(text);
    cJSON *res = cJSON_Parse(out);
    CHECK(res != NULL, "response is not JSON: %.200s", out);
    rl_free(out);
    return res;
}

/* One case of a tests/cases file analysed as rl_analyze answers it: its
 * "model" read from fixtures_dir, its "request" with the unit hardware
 * (unit_hw, JSON text) when it names none. The response parsed (the caller
 * deletes it); NULL, after a failed CHECK naming `name`, when the model
 * cannot be read or the answer is not JSON. */
static inline cJSON *check_run_case(const cJSON *tc, const char *fixtures_dir, const char *unit_hw, const char *name) {
    const char *model = cJSON_GetStringValue(cJSON_GetObjectItem(tc, "model"));
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", fixtures_dir, model ? model : "");
    size_t len = 0;
    char *bytes = check_read_file(path, &len);
    CHECK(bytes != NULL, "%s: cannot read %s", name, path);
    if (!bytes) return NULL;
    cJSON *req = cJSON_Duplicate(cJSON_GetObjectItem(tc, "request"), 1);
    if (!req) req = cJSON_CreateObject();
    if (!cJSON_GetObjectItem(req, "hardware")) cJSON_AddItemToObject(req, "hardware", cJSON_Parse(unit_hw));
    char *rtext = cJSON_PrintUnformatted(req);
    char *out = rl_analyze(rtext, bytes, len);
    cJSON *res = out ? cJSON_Parse(out) : NULL;
    CHECK(res != NULL, "%s: response is not JSON", name);
    rl_free(out);
    free(rtext);
    cJSON_Delete(req);
    free(bytes);
    return res;
}
#endif
