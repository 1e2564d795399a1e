/* Hostile and huge inputs.
 *
 * 1. Every entry of tests/fixtures/bad/manifest.json, read in one piece and
 *    in 7-byte chunks, then described and analysed as the CLI does: the first
 *    error must carry the manifest's code with a message and a place (or, for
 *    the "ok" entries, the analysis succeeds with the named warning). After
 *    each one a good model must analyse exactly as before.
 * 2. Inputs too big to commit, made here: 1 MB names and doc strings, a
 *    million tiny nodes.
 * 3. Every resource limit set through the request's "limits" object: hit,
 *    each gives its limit_* code, a place and what to raise; invalid limits
 *    are bad requests on both entry points. */
#include <cjson/cJSON.h>
#include <stdbool.h>

#include "check.h"
#include "gen_models.h"
#include "rooflens.h"

static const char *request =
    "{\"hardware\": {\"id\": \"t\", \"name\": \"t\", \"compute\": {\"fp32\": {\"matrix\": 1e12, \"vector\": 1e11}},"
    " \"memory\": [{\"bandwidth_Bps\": 1e11}]}}";

/* Read (whole when chunk is 0), describe, analyse: the first error, or the
 * analysis. Never NULL. */
static char *run_model(const unsigned char *data, size_t len, size_t chunk, const char *req) {
    rl_reader *r = rl_reader_new(NULL);
    size_t off = 0;
    do {
        size_t n = chunk && chunk < len - off ? chunk : len - off;
        if (rl_reader_feed(r, data + off, n) < 0) break;
        off += n;
    } while (off < len);
    char *err = NULL;
    rl_model *m = rl_reader_finish(r, &err);
    rl_reader_free(r);
    if (!m) return err;
    char *info = rl_model_info(m);
    if (!strstr(info, "\"ok\":true")) {
        rl_model_free(m);
        return info;
    }
    rl_free(info);
    char *out = rl_model_analyze(m, req ? req : request);
    rl_model_free(m);
    return out;
}

typedef struct verdict {
    cJSON *json;
    bool ok;
    const char *code, *message, *where;
} verdict;

static verdict judge(char *text) {
    verdict v = {0};
    v.json = cJSON_Parse(text);
    rl_free(text);
    if (!v.json) return v;
    v.ok = cJSON_IsTrue(cJSON_GetObjectItem(v.json, "ok"));
    const cJSON *e = cJSON_GetObjectItem(v.json, "error");
    const cJSON *x;
    if ((x = cJSON_GetObjectItem(e, "code")) && cJSON_IsString(x)) v.code = x->valuestring;
    if ((x = cJSON_GetObjectItem(e, "message")) && cJSON_IsString(x)) v.message = x->valuestring;
    if ((x = cJSON_GetObjectItem(e, "where")) && cJSON_IsString(x)) v.where = x->valuestring;
    return v;
}

static bool has_warning(const verdict *v, const char *code) {
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(v->json, "warnings")) {
        const cJSON *c = cJSON_GetObjectItem(w, "code");
        if (cJSON_IsString(c) && strcmp(c->valuestring, code) == 0) return true;
    }
    return false;
}

static unsigned char *good_model;
static size_t good_len;
static char *good_baseline;

static void good_still_works(const char *after) {
    char *out = run_model(good_model, good_len, 0, NULL);
    CHECK(strcmp(out, good_baseline) == 0, "the good model analyses differently after %s", after);
    rl_free(out);
}

static void check_error(verdict v, const char *want, const char *what) {
    CHECK(v.json != NULL, "%s: the response is not JSON", what);
    CHECK(!v.ok, "%s: accepted as a valid model (want %s)", what, want);
    CHECK(v.code && strcmp(v.code, want) == 0, "%s: code %s, want %s (%s)", what, v.code ? v.code : "(none)",
          want, v.message ? v.message : "");
    CHECK(v.message && strlen(v.message) > 15, "%s: the message says nothing", what);
    CHECK(v.where != NULL, "%s: no \"where\"", what);
    cJSON_Delete(v.json);
}

static int manifest(const char *tests) {
    char path[2048];
    snprintf(path, sizeof path, "%s/fixtures/bad/manifest.json", tests);
    char *text = check_read_file(path, NULL);
    CHECK(text != NULL, "cannot read %s", path);
    if (!text) return 0;
    cJSON *m = cJSON_Parse(text);
    free(text);
    const cJSON *cases = cJSON_GetObjectItem(m, "cases");
    CHECK(cJSON_IsArray(cases), "manifest has no cases array");
    int errors = 0, oks = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cases) {
        const cJSON *file = cJSON_GetObjectItem(e, "file");
        const cJSON *code = cJSON_GetObjectItem(e, "code");
        const cJSON *warn = cJSON_GetObjectItem(e, "warning");
        if (!cJSON_IsString(file)) {
            CHECK(0, "a manifest entry without a file name");
            continue;
        }
        snprintf(path, sizeof path, "%s/fixtures/bad/%s", tests, file->valuestring);
        size_t len;
        unsigned char *data = (unsigned char *)check_read_file(path, &len);
        CHECK(data != NULL, "cannot read %s", path);
        if (!data) continue;
        for (int pass = 0; pass < 2; pass++) {
            char what[600];
            snprintf(what, sizeof what, "%s (%s)", file->valuestring, pass ? "7-byte chunks" : "whole");
            verdict v = judge(run_model(data, len, pass ? 7 : 0, NULL));
            if (cJSON_IsString(code)) {
                /* a limit's error says which limit to raise */
                if (strncmp(code->valuestring, "limit_", 6) == 0)
                    CHECK(v.message && strstr(v.message, "limits.max_"), "%s: %s does not name the limit to raise: %s",
                          what, code->valuestring, v.message ? v.message : "");
                /* a refused attribute is named, with its node */
                if (strcmp(code->valuestring, "bad_attribute") == 0)
                    CHECK(v.message && strstr(v.message, "attribute '") && strstr(v.message, "node '") && v.where &&
                              v.where[0],
                          "%s: bad_attribute must name the node and the attribute: %s", what,
                          v.message ? v.message : "");
                check_error(v, code->valuestring, what);
            } else {
                CHECK(v.ok, "%s: want ok, got %s: %s", what, v.code ? v.code : "?", v.message ? v.message : "");
                if (cJSON_IsString(warn))
                    CHECK(has_warning(&v, warn->valuestring), "%s: no %s warning", what, warn->valuestring);
                cJSON_Delete(v.json);
            }
        }
        if (cJSON_IsString(code)) errors++;
        else oks++;
        good_still_works(file->valuestring);
        free(data);
    }
    cJSON_Delete(m);
    printf("manifest: %d malformed models, %d accepted ones\n", errors, oks);
    return errors;
}

/* rl_analyze with the given request (it applies "limits" while reading). */
static verdict analyze_with(const char *req_tail, const unsigned char *data, size_t len) {
    char req[4096];
    snprintf(req, sizeof req, "%.*s, %s}", (int)strlen(request) - 1, request, req_tail);
    return judge(rl_analyze(req, data, len));
}

static void check_limit(const char *req_tail, const unsigned char *data, size_t len, const char *code,
                        const char *limit_name) {
    verdict v = analyze_with(req_tail, data, len);
    CHECK(v.message && strstr(v.message, limit_name), "%s: the message does not say which limit to raise: %s",
          code, v.message ? v.message : "(none)");
    check_error(v, code, req_tail);
}

static unsigned char *fixture(const char *tests, const char *name, size_t *len) {
    char path[2048];
    snprintf(path, sizeof path, "%s/fixtures/models/%s", tests, name);
    unsigned char *d = (unsigned char *)check_read_file(path, len);
    CHECK(d != NULL, "cannot read %s", path);
    return d;
}

static void limits(const char *tests) {
    size_t mlp_len, cf_len, len;
    unsigned char *mlp = fixture(tests, "mlp.onnx", &mlp_len);
    unsigned char *cf = fixture(tests, "control_flow.onnx", &cf_len);
    if (!mlp || !cf) return;

    check_limit("\"limits\": {\"max_skeleton_bytes\": 100}", mlp, mlp_len, "limit_skeleton", "limits.max_skeleton_bytes");
    check_limit("\"limits\": {\"max_rank\": 1}", mlp, mlp_len, "limit_rank", "limits.max_rank");
    check_limit("\"limits\": {\"max_string_bytes\": 2}", mlp, mlp_len, "limit_string", "limits.max_string_bytes");
    check_limit("\"limits\": {\"max_depth\": 4}", cf, cf_len, "limit_depth", "limits.max_depth");
    unsigned char *chain = gen_chain(1000, &len);
    check_limit("\"limits\": {\"max_nodes\": 999}", chain, len, "limit_nodes", "limits.max_nodes");
    /* the same limits set just high enough pass */
    verdict v = analyze_with("\"limits\": {\"max_nodes\": 1000, \"max_rank\": 2, \"keep_payload_bytes\": 1}", chain, len);
    CHECK(v.ok, "limits at the model's size: %s", v.message ? v.message : "");
    cJSON_Delete(v.json);
    free(chain);

    /* invalid limits: on both entry points */
    static const char *const bad[] = {
        "\"limits\": 5",
        "\"limits\": {\"max_nodes\": -1}",
        "\"limits\": {\"max_nodes\": 1.5}",
        "\"limits\": {\"max_nodes\": 1e68}",
        "\"limits\": {\"max_depth\": 100000}",
        "\"limits\": {\"max_rank\": 65}",
        "\"limits\": {\"max_nodes\": \"10\"}",
        "\"limits\": {\"max_nodez\": 10}",
    };
    char *err = NULL;
    rl_model *m = rl_model_read(mlp, mlp_len, NULL, &err);
    CHECK(m != NULL, "mlp.onnx: %s", err ? err : "");
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        check_error(analyze_with(bad[i], mlp, mlp_len), "bad_request", bad[i]);
        char req[4096];
        snprintf(req, sizeof req, "%.*s, %s}", (int)strlen(request) - 1, request, bad[i]);
        if (m) check_error(judge(rl_model_analyze(m, req)), "bad_request", bad[i]);
    }
    rl_model_free(m);
    /* 40 nested If bodies: refused by default, analysed when the caller allows the depth */
    char path[2048];
    snprintf(path, sizeof path, "%s/fixtures/bad/nested_if_40.onnx", tests);
    unsigned char *deep = (unsigned char *)check_read_file(path, &len);
    CHECK(deep != NULL, "cannot read %s", path);
    if (deep) {
        v = analyze_with("\"limits\": {\"max_depth\": 256}", deep, len);
        CHECK(v.ok, "nested_if_40 with max_depth 256: %s", v.message ? v.message : "");
        cJSON_Delete(v.json);
        free(deep);
    }
    free(mlp);
    free(cf);
}

static void huge(void) {
    size_t len;
    /* 1 MB node name: refused while streaming, before it is stored */
    unsigned char *d = gen_long_string(1 << 20, 3, &len);
    CHECK(d != NULL, "out of memory making a 1 MB name");
    if (d) {
        verdict v = judge(run_model(d, len, 0, NULL));
        CHECK(v.message && strstr(v.message, "limits.max_string_bytes"), "1 MB name: %s", v.message ? v.message : "");
        check_error(v, "limit_string", "1 MB node name");
        /* allowed when the caller raises the limit */
        v = analyze_with("\"limits\": {\"max_string_bytes\": 2000000}", d, len);
        CHECK(v.ok, "1 MB name with max_string_bytes 2e6: %s", v.message ? v.message : "");
        cJSON_Delete(v.json);
        free(d);
        good_still_works("a 1 MB name");
    }
    /* 1 MB doc string: dropped, the model is fine */
    d = gen_long_string(1 << 20, 6, &len);
    if (d) {
        verdict v = judge(run_model(d, len, 4096, NULL));
        CHECK(v.ok, "1 MB doc string: %s", v.message ? v.message : "");
        cJSON_Delete(v.json);
        free(d);
    }
    /* a million tiny nodes: within the default limits, analysed; over a lower one, refused */
    d = gen_chain(1000000, &len);
    CHECK(d != NULL, "out of memory making a million nodes");
    if (d) {
        verdict v = judge(rl_analyze("{\"hardware\": {\"id\": \"t\", \"name\": \"t\", \"compute\": {\"fp32\": {\"matrix\": 1e12, \"vector\": 1e11}},"
                                     " \"memory\": [{\"bandwidth_Bps\": 1e11}]}, \"layers\": false}", d, len));
        CHECK(v.ok, "a million nodes: %s", v.message ? v.message : "");
        const cJSON *layers = cJSON_GetObjectItem(cJSON_GetObjectItem(v.json, "totals"), "layers");
        CHECK(cJSON_IsNumber(layers) && layers->valuedouble == 1000000, "a million nodes: %g layers counted",
              cJSON_IsNumber(layers) ? layers->valuedouble : -1);
        cJSON_Delete(v.json);
        check_limit("\"limits\": {\"max_nodes\": 500000}", d, len, "limit_nodes", "limits.max_nodes");
        free(d);
        good_still_works("a million nodes");
    }
}

/* 100,000 empty NodeProtos (two bytes each): refused at the first, as a
 * node without op_type, not analysed as 100,000 unknown operators. */
static void empty_nodes(void) {
    gen_buf g = {0};
    for (int i = 0; i < 100000; i++) gen_bytes(&g, 1, "", 0);
    gen_str(&g, 2, "empty_nodes");
    gen_value_info(&g, 11, "x", 16);
    gen_value_info(&g, 12, "x", 16);
    size_t len;
    unsigned char *d = gen_model(&g, &len);
    CHECK(d != NULL, "out of memory making 100,000 empty nodes");
    if (!d) return;
    verdict v = judge(run_model(d, len, 0, NULL));
    CHECK(v.message && strstr(v.message, "no op_type"), "100,000 empty nodes: %s", v.message ? v.message : "");
    check_error(v, "bad_node", "100,000 empty NodeProtos");
    free(d);
    good_still_works("100,000 empty nodes");
}

static int count_warnings(const verdict *v, const char *code, const char **truncated_msg) {
    int n = 0;
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(v->json, "warnings")) {
        const cJSON *c = cJSON_GetObjectItem(w, "code");
        if (cJSON_IsString(c) && strcmp(c->valuestring, code) == 0) n++;
        if (cJSON_IsString(c) && strcmp(c->valuestring, "warnings_truncated") == 0 && truncated_msg)
            *truncated_msg = cJSON_GetObjectItem(w, "message")->valuestring;
    }
    return n;
}

/* Warnings are de-duplicated by (code, message) and capped at 2000 listed. */
static void warnings(void) {
    size_t len;
    unsigned char *d = gen_chain_of(20000, "Custom", 1, &len); /* one unknown op, 20,000 times */
    verdict v = judge(run_model(d, len, 0, NULL));
    CHECK(v.ok && count_warnings(&v, "unsupported_op", NULL) == 1, "20,000 nodes of one unknown op: %d "
          "unsupported_op warnings, want 1", count_warnings(&v, "unsupported_op", NULL));
    cJSON_Delete(v.json);
    free(d);
    d = gen_chain_of(5000, "Custom%d", 5000, &len); /* 5,000 different unknown ops */
    const char *trunc = NULL;
    v = judge(run_model(d, len, 0, NULL));
    int n = count_warnings(&v, "unsupported_op", &trunc);
    CHECK(v.ok && n <= 2000 && n > 1900, "5,000 unknown ops: %d unsupported_op warnings listed", n);
    CHECK(trunc && strstr(trunc, "further warnings"), "5,000 unknown ops: no warnings_truncated entry");
    const cJSON *unsup = cJSON_GetObjectItem(cJSON_GetObjectItem(v.json, "totals"), "unsupported_ops");
    CHECK(cJSON_GetArraySize(unsup) == 5000, "5,000 unknown ops: %d listed as unsupported", cJSON_GetArraySize(unsup));
    cJSON_Delete(v.json);
    free(d);
}

int main(int argc, char **argv) {
    const char *tests = argc > 1 ? argv[1] : ".";
    good_model = fixture(tests, "transformer_block.onnx", &good_len);
    if (!good_model) return check_report("malformed");
    good_baseline = run_model(good_model, good_len, 0, NULL);
    CHECK(strstr(good_baseline, "\"ok\":true") != NULL, "the good model does not analyse: %.300s", good_baseline);
    int n = manifest(tests);
    CHECK(n >= 60, "the corpus has only %d malformed models", n);
    limits(tests);
    huge();
    warnings();
    empty_nodes();
    rl_free(good_baseline);
    free(good_model);
    return check_report("malformed");
}
