/* The conformance rule shared by tests/test_conformance.c and
 * tools/make-docs/gen_operator_doc.c; see conformance_rule.h. */
#include "conformance_rule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooflens.h"

const char *const conf_kind_names[CONF_KIND_COUNT] = {
    "inferred", "runtime value: declared shape, consistent with the partial inference",
    "runtime value: shape left open (no usable declaration)", "declared shape, not inferred",
    "wrong shape", "wrong element type", "shape not inferred", "unsupported op", "analysis error",
    "read error"};

/* The manifest gives ONNX's element type numbers, the response dtype names. */
static const char *const dtype_names[] = {
    "undefined", "float32", "uint8", "int8", "uint16", "int16", "int32", "int64", "string", "bool",
    "float16", "float64", "uint32", "uint64", "complex64", "complex128", "bfloat16",
    "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "uint4", "int4",
    "float4e2m1", "float8e8m0", "uint2", "int2"};
#define N_DTYPES ((int)(sizeof dtype_names / sizeof *dtype_names))

static int dtype_num(const char *name) {
    for (int i = 0; i < N_DTYPES; i++)
        if (name && strcmp(dtype_names[i], name) == 0) return i;
    return -1;
}

char *conf_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) buf[n] = 0;
    if (len) *len = buf ? (size_t)n : 0;
    return buf;
}

cJSON *conf_load_manifest(const char *dir, bool *present) {
    char path[1400];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    char *text = conf_read_file(path, NULL);
    *present = text != NULL;
    if (!text) return NULL;
    cJSON *manifest = cJSON_Parse(text);
    free(text);
    return manifest;
}

/* Is there a warning of this code (naming tensor `name` in quotes, when
 * given)? */
static bool has_warning_for(const cJSON *warnings, const char *code, const char *name) {
    char quoted[400];
    snprintf(quoted, sizeof quoted, "'%s'", name ? name : "");
    const cJSON *w;
    cJSON_ArrayForEach(w, warnings) {
        const char *wc = cJSON_GetStringValue(cJSON_GetObjectItem(w, "code"));
        const char *msg = cJSON_GetStringValue(cJSON_GetObjectItem(w, "message"));
        if (wc && !strcmp(wc, code) && (!name || (msg && strstr(msg, quoted)))) return true;
    }
    return false;
}

/* A small made-up device: only shapes are judged, the numbers do not matter. */
static const char *hw_json =
    "{\"id\": \"t\", \"compute\": {\"fp32\": {\"matrix\": 1e12, \"vector\": 1e11}}, \"memory\": [{\"bandwidth_Bps\": 1e11}]}";

/* The analysis request: symbolic input dims set from the reference inputs.
 * Returns a malloc'd JSON string. */
static char *request_for(rl_model *m, const cJSON *entry) {
    char *info = rl_model_info(m);
    cJSON *ij = cJSON_Parse(info);
    rl_free(info);
    cJSON *req = cJSON_CreateObject();
    cJSON_AddItemToObject(req, "hardware", cJSON_Parse(hw_json));
    cJSON_AddFalseToObject(req, "layers");
    cJSON *dims = cJSON_AddObjectToObject(req, "dims");
    const cJSON *mi, *r;
    cJSON_ArrayForEach(mi, cJSON_GetObjectItem(cJSON_GetObjectItem(ij, "model"), "inputs")) {
        const cJSON *dp = cJSON_GetObjectItem(mi, "dim_params");
        const char *iname = cJSON_GetStringValue(cJSON_GetObjectItem(mi, "name"));
        const cJSON *ref = NULL;
        cJSON_ArrayForEach(r, cJSON_GetObjectItem(entry, "inputs"))
            if (iname && !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(r, "name")) ?: "", iname)) ref = r;
        const cJSON *rshape = cJSON_GetObjectItem(ref, "shape");
        for (int k = 0; k < cJSON_GetArraySize(dp); k++) {
            const cJSON *p = cJSON_GetArrayItem(dp, k), *v = cJSON_GetArrayItem(rshape, k);
            if (cJSON_IsString(p) && cJSON_IsNumber(v) && !cJSON_GetObjectItem(dims, p->valuestring))
                cJSON_AddNumberToObject(dims, p->valuestring, v->valuedouble);
        }
    }
    cJSON_Delete(ij);
    char *rq = cJSON_PrintUnformatted(req);
    cJSON_Delete(req);
    return rq;
}

/* Judges the outputs of a successful analysis into v. */
static void judge_outputs(const cJSON *res, const cJSON *entry, conf_verdict *v) {
    const cJSON *warnings = cJSON_GetObjectItem(res, "warnings");
    bool unsupported = has_warning_for(warnings, "unsupported_op", NULL);
    bool any_consistent = has_warning_for(warnings, "declared_consistent", NULL);
    const cJSON *outs = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "model"), "outputs");
    const cJSON *refs = cJSON_GetObjectItem(entry, "outputs");
    for (int k = 0; k < cJSON_GetArraySize(refs); k++) {
        const cJSON *ref = cJSON_GetArrayItem(refs, k), *got = cJSON_GetArrayItem(outs, k);
        const cJSON *rshape = cJSON_GetObjectItem(ref, "shape");
        if (!rshape || cJSON_IsNull(rshape)) continue; /* sequence/optional: no-crash only */
        v->checked_outputs++;
        int want_dt = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(ref, "elem_type"));
        const char *gdt = cJSON_GetStringValue(cJSON_GetObjectItem(got, "dtype"));
        const char *gname = cJSON_GetStringValue(cJSON_GetObjectItem(got, "name"));
        const cJSON *gshape = cJSON_GetObjectItem(got, "shape");
        bool shape_ok = cJSON_IsArray(gshape) && cJSON_GetArraySize(gshape) == cJSON_GetArraySize(rshape);
        bool shape_open = !cJSON_IsArray(gshape);
        for (int d = 0; cJSON_IsArray(gshape) && d < cJSON_GetArraySize(gshape); d++) {
            const cJSON *a = cJSON_GetArrayItem(gshape, d), *b = cJSON_GetArrayItem(rshape, d);
            if (!cJSON_IsNumber(a)) shape_open = true;
            if (shape_ok) shape_ok = cJSON_IsNumber(a) && b && a->valuedouble == b->valuedouble;
        }
        bool dt_ok = gdt && dtype_num(gdt) == want_dt;
        bool declared = cJSON_IsTrue(cJSON_GetObjectItem(got, "declared"));
        bool consistent = declared && has_warning_for(warnings, "declared_consistent", gname);
        int kind;
        if (!dt_ok) kind = CONF_MISS_WRONG_DTYPE;
        else if (shape_ok && !declared) kind = CONF_OK_INFERRED;
        else if (shape_ok && consistent) kind = CONF_OK_DECLARED_RUNTIME;
        else if (unsupported) kind = CONF_MISS_UNSUPPORTED;
        else if (shape_ok) kind = CONF_MISS_DECLARED;
        else if (shape_open && any_consistent) kind = CONF_MISS_RUNTIME_UNKNOWN;
        else if (shape_open) kind = CONF_MISS_UNKNOWN_SHAPE;
        else kind = CONF_MISS_WRONG_SHAPE;
        if (kind == CONF_OK_INFERRED) v->outputs_inferred++;
        if (kind <= CONF_OK_DECLARED_RUNTIME) v->outputs_declared++;
        if (kind > v->kind) {
            v->kind = kind;
            char *gs = cJSON_PrintUnformatted(gshape), *rs = cJSON_PrintUnformatted(rshape);
            snprintf(v->why, sizeof v->why, "output %d: got %s %s%s, want %s %s", k, gdt ? gdt : "?", gs ? gs : "?",
                     declared ? " (declared)" : "", want_dt >= 0 && want_dt < N_DTYPES ? dtype_names[want_dt] : "?",
                     rs ? rs : "?");
            free(gs);
            free(rs);
        }
    }
}

void conf_judge(const char *dir, const cJSON *entry, conf_verdict *v) {
    memset(v, 0, sizeof *v);
    v->kind = CONF_OK_INFERRED;
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, cJSON_GetStringValue(cJSON_GetObjectItem(entry, "file")) ?: "");
    size_t len;
    char *bytes = conf_read_file(path, &len);
    if (!bytes) {
        v->kind = CONF_MISS_READ_ERROR;
        snprintf(v->why, sizeof v->why, "cannot read %.600s", path);
        return;
    }
    char *err = NULL;
    rl_model *m = rl_model_read(bytes, len, NULL, &err);
    free(bytes);
    if (!m) {
        v->parse_error = true;
        v->kind = CONF_MISS_READ_ERROR;
        snprintf(v->why, sizeof v->why, "%.300s", err ? err : "?");
        rl_free(err);
        return;
    }
    rl_free(err);
    char *rq = request_for(m, entry);
    char *out = rl_model_analyze(m, rq);
    free(rq);
    rl_model_free(m);
    cJSON *res = cJSON_Parse(out);
    rl_free(out);
    if (!cJSON_IsTrue(cJSON_GetObjectItem(res, "ok"))) {
        const cJSON *e = cJSON_GetObjectItem(res, "error");
        v->kind = CONF_MISS_ANALYSIS_ERROR;
        snprintf(v->why, sizeof v->why, "%s: %.300s", cJSON_GetStringValue(cJSON_GetObjectItem(e, "code")) ?: "?",
                 cJSON_GetStringValue(cJSON_GetObjectItem(e, "message")) ?: "?");
    } else {
        judge_outputs(res, entry, v);
    }
    cJSON_Delete(res);
}
