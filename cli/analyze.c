/* rooflens MODEL.onnx: one model analysed, with its views (a what-if
 * study, the LLM view, a measured profile) turned from options into the
 * request the page sends too, and the answer printed in the chosen format. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "print.h"

/* "A..B" = the powers of two from A to B; or a comma list. */
static cJSON *parse_batches(const char *spec) {
    cJSON *arr = cJSON_CreateArray();
    const char *dots = strstr(spec, "..");
    if (dots) {
        char *end;
        long long lo = strtoll(spec, &end, 10), hi;
        if (end != dots || lo < 1) goto bad;
        hi = strtoll(dots + 2, &end, 10);
        if (*end || hi < lo || hi > 1000000000LL) goto bad;
        for (long long b = 1; b <= hi; b *= 2)
            if (b >= lo) cJSON_AddItemToArray(arr, cJSON_CreateNumber((double)b));
        if (cJSON_GetArraySize(arr) == 0) goto bad;
        return arr;
    }
    for (const char *p = spec; *p;) {
        char *end;
        long long b = strtoll(p, &end, 10);
        if (end == p || b < 1 || (*end && *end != ',')) goto bad;
        cJSON_AddItemToArray(arr, cJSON_CreateNumber((double)b));
        p = *end ? end + 1 : end;
    }
    if (cJSON_GetArraySize(arr) > 0) return arr;
bad:
    cJSON_Delete(arr);
    return NULL;
}

/* "ID[:MODE],..." into the study's parallel hardware and power_modes arrays. */
static int build_compare(cJSON *study, const char *list, const char *dir) {
    cJSON *hws = cJSON_AddArrayToObject(study, "hardware");
    cJSON *modes = cJSON_AddArrayToObject(study, "power_modes");
    char *copy = strdup(list);
    int rc = 0;
    for (char *save = NULL, *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *colon = strrchr(item, ':');
        /* a colon inside a file path is part of the path */
        if (colon && (strchr(colon, '/') || strstr(colon, ".json"))) colon = NULL;
        if (colon) *colon = 0;
        cJSON *profile = load_profile(item, dir);
        if (!profile) { rc = -1; break; }
        cJSON_AddItemToArray(hws, profile);
        cJSON_AddItemToArray(modes, colon && colon[1] ? cJSON_CreateString(colon + 1) : cJSON_CreateNull());
    }
    if (!rc && cJSON_GetArraySize(hws) == 0) {
        fprintf(stderr, "rooflens: --compare needs at least one hardware id\n");
        rc = -1;
    }
    free(copy);
    return rc;
}

/* The request's study object from --compare, --sweep-batch or --power-modes. */
static int add_study(cJSON *req, const cli_args *A) {
    cJSON *study = cJSON_AddObjectToObject(req, "study");
    if (A->compare) {
        cJSON_AddStringToObject(study, "kind", "compare");
        if (build_compare(study, A->compare, hw_dir(A->dir))) return EXIT_USAGE;
    } else if (A->sweep) {
        cJSON_AddStringToObject(study, "kind", "batch_sweep");
        cJSON *b = parse_batches(A->sweep);
        if (!b)
            return usage_error("--sweep-batch needs A..B (powers of two from A to B) or a comma list of "
                               "whole numbers >= 1, not '%s'", A->sweep);
        cJSON_AddItemToObject(study, "batches", b);
    } else {
        cJSON_AddStringToObject(study, "kind", "power_modes");
        if (A->max_slowdown) {
            char *end;
            double x = strtod(A->max_slowdown, &end);
            if (*end || end == A->max_slowdown || !isfinite(x))
                return usage_error("--max-slowdown needs a finite number (0.05 = 5%% slower), not '%s'", A->max_slowdown);
            cJSON_AddNumberToObject(study, "max_slowdown", x);
        }
    }
    return EXIT_OK;
}

/* The request's measured object: the profile's text and its format. */
static int add_measured(cJSON *req, const cli_args *A) {
    char *text = read_text(A->measured);
    if (!text) {
        fprintf(stderr, "rooflens: cannot read the measured profile %s: %s\n", txt(A->measured), strerror(errno));
        return EXIT_USAGE;
    }
    cJSON *ms = cJSON_AddObjectToObject(req, "measured");
    cJSON_AddStringToObject(ms, "text", text);
    cJSON_AddStringToObject(ms, "format", A->measured_format ? A->measured_format : "auto");
    free(text);
    return EXIT_OK;
}

/* One analysis (or study, or LLM view) of one model, printed in the chosen
 * format. req stays the caller's. */
static int analyze_and_print(cJSON *req, const char *model_path, const cli_args *A, int top) {
    const char *format = A->format;
    char *err = NULL;
    rl_model *m = read_model(model_path, false, &err);
    if (!m) {
        if (!err) return EXIT_BAD_MODEL;
        if (!strcmp(format, "json")) puts(err);
        else {
            cJSON *e = cJSON_Parse(err);
            print_error_line(model_path, get(e, "error"));
            cJSON_Delete(e);
        }
        rl_free(err);
        return EXIT_BAD_MODEL;
    }
    char *text = cJSON_PrintUnformatted(req);
    char *out = rl_model_analyze(m, text);
    free(text);
    rl_model_free(m);
    cJSON *res = cJSON_Parse(out);
    int rc = EXIT_OK;
    if (!cJSON_IsTrue(get(res, "ok"))) {
        if (!strcmp(format, "json")) puts(out);
        else print_error_line(model_path, get(res, "error"));
        rc = EXIT_BAD_MODEL;
    } else {
        if (!strcmp(format, "json")) puts(out);
        else if (!strcmp(format, "csv")) print_csv(res);
        else if (!strcmp(format, "dot")) print_dot(res);
        else if (!strcmp(format, "netron")) {
            char *att = rl_netron_attachment(out);
            puts(att);
            rl_free(att);
        }
        else if (A->studies) print_study(res);
        else if (A->llm) print_llm(res);
        else {
            print_table(res, top);
            print_measured(res, top);
        }
        const cJSON *tot = get(res, "totals");
        if (A->strict && (num(tot, "unknown_layers") > 0 || cJSON_GetArraySize(get(tot, "unsupported_ops")) > 0))
            rc = EXIT_INCOMPLETE;
    }
    cJSON_Delete(res);
    rl_free(out);
    return rc;
}

/* analyze: one model; its view (the layer table, a study or the LLM view)
 * chosen by the options. */
int run_analyze(cJSON *req, cli_args *A) {
    int rc;
    if (A->llm) {
        cJSON_AddItemToObject(req, "llm", A->llm_req);
        A->llm_req = NULL;
        cJSON_AddFalseToObject(req, "layers"); /* the view carries the figures */
    }
    if (A->studies) {
        if ((rc = add_study(req, A)) != EXIT_OK) return rc;
        /* the study carries the figures; the per-layer rows are not printed */
        cJSON_AddFalseToObject(req, "layers");
    } else if (!A->llm && strcmp(A->format, "json")) cJSON_AddTrueToObject(req, "layers");
    if (!strcmp(A->format, "dot")) cJSON_AddTrueToObject(req, "graph"); /* the edges and modules it draws */
    if (A->measured && (rc = add_measured(req, A)) != EXIT_OK) return rc;
    return analyze_and_print(req, A->paths[0], A, A->top < 0 ? 15 : A->top);
}
