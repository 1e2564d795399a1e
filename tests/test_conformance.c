/* Runs rooflens on every ONNX conformance model in ../shared/onnx-node-tests
 * and compares each graph output's element type and shape with the
 * reference (manifest.json). Symbolic input dims are set from the reference
 * inputs. Two shares are measured:
 *   (i)  models whose every output rooflens inferred from the graph alone;
 *   (ii) the same, also counting an output whose shape rooflens took from the
 *        model's declaration because its size depends on a runtime value and
 *        the declaration agrees with rooflens's partial inference (the
 *        analysis flags these with a "declared_consistent" warning naming the
 *        tensor).
 * Writes a report (docs/conformance.md when given) listing every miss with
 * its reason category. Asserts: no model crashes, and both shares are at
 * least the floors given (so a regression fails the test).
 * Usage: test_conformance TESTS_DIR ROOT FLOOR_INFERRED FLOOR_WITH_DECLARED [REPORT]
 * Exit 77 (ctest SKIP_RETURN_CODE) when ROOT/../shared/onnx-node-tests is
 * missing: a clone without the shared folder skips this test. */
#include <cjson/cJSON.h>

#include "check.h"
#include "rooflens.h"

static const char *const dtype_names[] = {
    "undefined", "float32", "uint8", "int8", "uint16", "int16", "int32", "int64", "string", "bool",
    "float16", "float64", "uint32", "uint64", "complex64", "complex128", "bfloat16",
    "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "uint4", "int4",
    "float4e2m1", "float8e8m0", "uint2", "int2"};

static int dtype_num(const char *name) {
    for (int i = 0; i < (int)(sizeof dtype_names / sizeof *dtype_names); i++)
        if (strcmp(dtype_names[i], name) == 0) return i;
    return -1;
}

/* Reason categories of a miss, worst first. */
enum miss_kind { OK_INFERRED = 0, OK_DECLARED_RUNTIME, MISS_RUNTIME_UNKNOWN, MISS_DECLARED, MISS_WRONG_SHAPE,
                 MISS_WRONG_DTYPE, MISS_UNKNOWN_SHAPE, MISS_UNSUPPORTED, MISS_ANALYSIS_ERROR, MISS_READ_ERROR,
                 KIND_COUNT };
static const char *const kind_names[KIND_COUNT] = {
    "inferred", "runtime value: declared shape, consistent with the partial inference",
    "runtime value: shape left open (no usable declaration)", "declared shape, not inferred",
    "wrong shape", "wrong element type", "shape not inferred", "unsupported op", "analysis error",
    "read error"};

/* Is there a warning of this code whose message names tensor `name`? */
static int has_warning_for(const cJSON *warnings, const char *code, const char *name) {
    char quoted[400];
    snprintf(quoted, sizeof quoted, "'%s'", name ? name : "");
    const cJSON *w;
    cJSON_ArrayForEach(w, warnings) {
        const char *wc = cJSON_GetStringValue(cJSON_GetObjectItem(w, "code"));
        const char *msg = cJSON_GetStringValue(cJSON_GetObjectItem(w, "message"));
        if (wc && !strcmp(wc, code) && (!name || (msg && strstr(msg, quoted)))) return 1;
    }
    return 0;
}

static const char *hw_json =
    "{\"id\": \"t\", \"compute\": {\"fp32\": {\"matrix\": 1e12, \"vector\": 1e11}}, \"memory\": [{\"bandwidth_Bps\": 1e11}]}";

int main(int argc, char **argv) {
    const char *root = argc > 2 ? argv[2] : ".";
    double floor_inferred = argc > 3 ? atof(argv[3]) : 0;
    double floor_declared = argc > 4 ? atof(argv[4]) : 0;
    const char *report_path = argc > 5 ? argv[5] : NULL;
    char dir[1024], path[1200];
    snprintf(dir, sizeof dir, "%s/../shared/onnx-node-tests", root);
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    char *text = check_read_file(path, NULL);
    if (!text) {
        fprintf(stderr,
                "SKIP: no conformance models at %s (the shared/onnx-node-tests folder beside the "
                "checkout). Put the ONNX node-test models and their manifest.json there to run "
                "this test.\n", dir);
        return 77;
    }
    cJSON *manifest = cJSON_Parse(text);
    free(text);
    CHECK(manifest != NULL, "%s is not valid JSON", path);
    if (!manifest) return check_report("conformance");
    int total = 0, right_inferred = 0, right_declared = 0, parse_errors = 0, checked_outputs = 0,
        outputs_inferred = 0, outputs_declared = 0;
    int kind_count[KIND_COUNT] = {0};
    size_t cap = 1 << 21;
    char *misses = calloc(1, cap), *declared_list = calloc(1, cap);
    size_t mlen = 0, dlen = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, manifest) {
        const char *file = cJSON_GetStringValue(cJSON_GetObjectItem(t, "file"));
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(t, "name"));
        if (!file) continue;
        total++;
        snprintf(path, sizeof path, "%s/%s", dir, file);
        size_t len;
        char *bytes = check_read_file(path, &len);
        int kind = OK_INFERRED;
        char why[700] = "";
        if (!bytes) {
            kind = MISS_READ_ERROR;
            snprintf(why, sizeof why, "cannot read %s", path);
        }
        char *err = NULL;
        rl_model *m = bytes ? rl_model_read(bytes, len, NULL, &err) : NULL;
        free(bytes);
        if (!m && kind == OK_INFERRED) {
            parse_errors++;
            kind = MISS_READ_ERROR;
            snprintf(why, sizeof why, "%.300s", err ? err : "?");
        }
        rl_free(err);
        if (m) {
            /* dims from the reference inputs */
            char *info = rl_model_info(m);
            cJSON *ij = cJSON_Parse(info);
            rl_free(info);
            cJSON *req = cJSON_CreateObject();
            cJSON_AddItemToObject(req, "hardware", cJSON_Parse(hw_json));
            cJSON_AddFalseToObject(req, "layers");
            cJSON *dims = cJSON_AddObjectToObject(req, "dims");
            const cJSON *min = cJSON_GetObjectItem(t, "inputs");
            const cJSON *mi;
            cJSON_ArrayForEach(mi, cJSON_GetObjectItem(cJSON_GetObjectItem(ij, "model"), "inputs")) {
                const cJSON *dp = cJSON_GetObjectItem(mi, "dim_params");
                const char *iname = cJSON_GetStringValue(cJSON_GetObjectItem(mi, "name"));
                const cJSON *ref = NULL, *r;
                cJSON_ArrayForEach(r, min) if (iname && !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(r, "name")) ?: "", iname)) ref = r;
                const cJSON *rshape = cJSON_GetObjectItem(ref, "shape");
                for (int k = 0; k < cJSON_GetArraySize(dp); k++) {
                    const cJSON *p = cJSON_GetArrayItem(dp, k);
                    const cJSON *v = cJSON_GetArrayItem(rshape, k);
                    if (cJSON_IsString(p) && cJSON_IsNumber(v) && !cJSON_GetObjectItem(dims, p->valuestring))
                        cJSON_AddNumberToObject(dims, p->valuestring, v->valuedouble);
                }
            }
            cJSON_Delete(ij);
            char *rq = cJSON_PrintUnformatted(req);
            cJSON_Delete(req);
            char *out = rl_model_analyze(m, rq);
            free(rq);
            rl_model_free(m);
            cJSON *res = cJSON_Parse(out);
            rl_free(out);
            if (!cJSON_IsTrue(cJSON_GetObjectItem(res, "ok"))) {
                const cJSON *e = cJSON_GetObjectItem(res, "error");
                kind = MISS_ANALYSIS_ERROR;
                snprintf(why, sizeof why, "%s: %.300s", cJSON_GetStringValue(cJSON_GetObjectItem(e, "code")) ?: "?",
                         cJSON_GetStringValue(cJSON_GetObjectItem(e, "message")) ?: "?");
            } else {
                const cJSON *warnings = cJSON_GetObjectItem(res, "warnings");
                int unsupported = has_warning_for(warnings, "unsupported_op", NULL);
                const cJSON *outs = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "model"), "outputs");
                const cJSON *refs = cJSON_GetObjectItem(t, "outputs");
                for (int k = 0; k < cJSON_GetArraySize(refs); k++) {
                    const cJSON *ref = cJSON_GetArrayItem(refs, k);
                    const cJSON *got = cJSON_GetArrayItem(outs, k);
                    const cJSON *rshape = cJSON_GetObjectItem(ref, "shape");
                    if (cJSON_IsNull(rshape) || !rshape) continue; /* sequence/optional: no-crash only */
                    checked_outputs++;
                    int want_dt = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(ref, "elem_type"));
                    const char *gdt = cJSON_GetStringValue(cJSON_GetObjectItem(got, "dtype"));
                    const char *gname = cJSON_GetStringValue(cJSON_GetObjectItem(got, "name"));
                    const cJSON *gshape = cJSON_GetObjectItem(got, "shape");
                    int shape_ok = cJSON_IsArray(gshape) && cJSON_GetArraySize(gshape) == cJSON_GetArraySize(rshape);
                    int shape_open = !cJSON_IsArray(gshape);
                    for (int d = 0; cJSON_IsArray(gshape) && d < cJSON_GetArraySize(gshape); d++) {
                        const cJSON *a = cJSON_GetArrayItem(gshape, d), *b = cJSON_GetArrayItem(rshape, d);
                        if (!cJSON_IsNumber(a)) shape_open = 1;
                        if (shape_ok) shape_ok = cJSON_IsNumber(a) && b && a->valuedouble == b->valuedouble;
                    }
                    int dt_ok = gdt && dtype_num(gdt) == want_dt;
                    int declared = cJSON_IsTrue(cJSON_GetObjectItem(got, "declared"));
                    int consistent = declared && has_warning_for(warnings, "declared_consistent", gname);
                    int this_kind;
                    if (!dt_ok) this_kind = MISS_WRONG_DTYPE;
                    else if (shape_ok && !declared) this_kind = OK_INFERRED;
                    else if (shape_ok && consistent) this_kind = OK_DECLARED_RUNTIME;
                    else if (unsupported) this_kind = MISS_UNSUPPORTED;
                    else if (shape_ok) this_kind = MISS_DECLARED;
                    else if (shape_open && has_warning_for(warnings, "declared_consistent", NULL)) this_kind = MISS_RUNTIME_UNKNOWN;
                    else if (shape_open) this_kind = MISS_UNKNOWN_SHAPE;
                    else this_kind = MISS_WRONG_SHAPE;
                    if (this_kind == OK_INFERRED) outputs_inferred++;
                    if (this_kind <= OK_DECLARED_RUNTIME) outputs_declared++;
                    if (this_kind > kind) {
                        kind = this_kind;
                        char *gs = cJSON_PrintUnformatted(gshape), *rs = cJSON_PrintUnformatted(rshape);
                        snprintf(why, sizeof why, "output %d: got %s %s%s, want %s %s", k, gdt ? gdt : "?", gs ? gs : "?",
                                 declared ? " (declared)" : "", want_dt >= 0 && want_dt < 27 ? dtype_names[want_dt] : "?",
                                 rs ? rs : "?");
                        free(gs);
                        free(rs);
                    }
                }
            }
            cJSON_Delete(res);
        }
        kind_count[kind]++;
        if (kind == OK_INFERRED) right_inferred++;
        if (kind <= OK_DECLARED_RUNTIME) right_declared++;
        char *os = cJSON_PrintUnformatted(cJSON_GetObjectItem(t, "op_types"));
        if (kind == OK_DECLARED_RUNTIME && dlen < cap - 2048)
            dlen += (size_t)snprintf(declared_list + dlen, cap - dlen, "| `%s` | %s | %s |\n", name, os ? os : "", why);
        else if (kind > OK_DECLARED_RUNTIME && mlen < cap - 2048)
            mlen += (size_t)snprintf(misses + mlen, cap - mlen, "| `%s` | %s | %s | %s |\n", name, os ? os : "",
                                     kind_names[kind], why);
        free(os);
    }
    double pct_inferred = total ? 100.0 * right_inferred / total : 0;
    double pct_declared = total ? 100.0 * right_declared / total : 0;
    printf("conformance: %d models; (i) inferred from the graph alone: %d (%.1f%%); (ii) counting "
           "consistent declared shapes of runtime-valued outputs: %d (%.1f%%); outputs %d / %d / %d "
           "checked; %d read errors\n",
           total, right_inferred, pct_inferred, right_declared, pct_declared, outputs_inferred,
           outputs_declared, checked_outputs, parse_errors);
    FILE *rep = report_path ? fopen(report_path, "w") : NULL;
    if (rep) {
        fprintf(rep,
                "# Conformance with the ONNX node tests\n\n"
                "Generated by `tests/test_conformance.c` (ctest `test_conformance`). Each model of the ONNX "
                "backend node tests is analysed and every graph output's element type and shape compared with "
                "the reference output; sequence and optional outputs are checked for no crash only. Symbolic "
                "input dims are set from the reference inputs.\n\n"
                "**The rule.** Two shares are reported:\n\n"
                "- **(i) inferred**: every output's type and shape was inferred by rooflens from the graph alone. "
                "A shape taken from the model's own declaration (`\"declared\": true` in the response), or "
                "computed from such a shape upstream, does not count.\n"
                "- **(ii) inferred or declared-consistent**: as (i), but an output also counts when its size "
                "depends on a *runtime value* (the contents of a graph input that the file does not hold, or of "
                "values computed from one, such as Resize scales, Reshape shapes, Reduce axes, a Loop's trip "
                "count, or the data of NonZero/Unique; a constant rooflens fails to fold does not qualify), rooflens "
                "inferred what the graph fixes (rank, the dims that do not depend on that value, bounds on the "
                "others), and the model's declared shape agrees with it. The analysis flags each such tensor "
                "with a `declared_consistent` warning; a declaration that disagrees is a "
                "`value_info_mismatch` and is not used. Declarations adopted for any other reason (an "
                "unsupported operator, a shape function that could not tell) never count.\n\n"
                "**%d models: (i) %d inferred (%.1f%%); (ii) %d inferred or declared-consistent (%.1f%%).** "
                "Outputs: %d of %d checked outputs inferred, %d inferred or declared-consistent. %d read errors; "
                "0 crashes and 0 hangs (a crash would stop the test, a hang would hit its ctest timeout).\n\n",
                total, right_inferred, pct_inferred, right_declared, pct_declared, outputs_inferred,
                checked_outputs, outputs_declared, parse_errors);
        fprintf(rep, "## Models by category\n\n| category | models |\n| --- | --- |\n");
        for (int k = 0; k < KIND_COUNT; k++)
            if (kind_count[k]) fprintf(rep, "| %s | %d |\n", kind_names[k], kind_count[k]);
        fprintf(rep, "\n## Misses of (ii)\n\nThe worst output of each model is shown.\n\n"
                     "| model | ops | category | detail |\n| --- | --- | --- | --- |\n%s",
                misses);
        fprintf(rep, "\n## Right in (ii) only: declared shapes of runtime-valued outputs\n\n"
                     "| model | ops | detail |\n| --- | --- | --- |\n%s",
                declared_list);
        fclose(rep);
    }
    free(misses);
    free(declared_list);
    cJSON_Delete(manifest);
    CHECK(pct_inferred >= floor_inferred, "only %.1f%% of the conformance models are inferred right (floor %.1f%%)",
          pct_inferred, floor_inferred);
    CHECK(pct_declared >= floor_declared,
          "only %.1f%% of the conformance models are right counting consistent declared shapes (floor %.1f%%)",
          pct_declared, floor_declared);
    return check_report("conformance");
}
