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

/* The devices of a compare entry, "tp=T[+pp=P][+dp=D]" (the text after its
 * '@'), as the study's parallel object; NULL when it is not of that form.
 * The counts' ranges are the core's to check (a row error names them). */
static cJSON *parse_devices(const char *spec) {
    cJSON *p = cJSON_CreateObject();
    char *copy = strdup(spec);
    size_t n = strlen(spec);
    bool ok = p && copy && n && spec[0] != '+' && spec[n - 1] != '+' && !strstr(spec, "++"); /* no empty count */
    for (char *save = NULL, *item = ok ? strtok_r(copy, "+", &save) : NULL; ok && item; item = strtok_r(NULL, "+", &save)) {
        char *end = item, *eq = strchr(item, '=');
        if (eq) *eq = 0;
        long long v = eq && eq[1] ? strtoll(eq + 1, &end, 10) : 0;
        ok = eq && (!strcmp(item, "tp") || !strcmp(item, "pp") || !strcmp(item, "dp")) && eq[1] >= '0' &&
             eq[1] <= '9' && !*end && !cJSON_GetObjectItemCaseSensitive(p, item);
        if (ok) cJSON_AddNumberToObject(p, item, (double)v);
    }
    free(copy);
    if (ok) return p;
    cJSON_Delete(p);
    return NULL;
}

/* "ID[:MODE][@tp=T[+pp=P][+dp=D]],..." into the study's parallel hardware,
 * power_modes and parallel arrays (null: one device). */
static int build_compare(cJSON *study, const char *list, const char *dir) {
    cJSON *hws = cJSON_AddArrayToObject(study, "hardware");
    cJSON *modes = cJSON_AddArrayToObject(study, "power_modes");
    cJSON *pars = cJSON_AddArrayToObject(study, "parallel");
    char *copy = strdup(list);
    int rc = 0;
    for (char *save = NULL, *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *at = strrchr(item, '@');
        cJSON *devices = NULL;
        /* an '@' followed by anything but a device count is part of a file's name */
        if (at && (!strncmp(at + 1, "tp=", 3) || !strncmp(at + 1, "pp=", 3) || !strncmp(at + 1, "dp=", 3))) {
            if (!(devices = parse_devices(at + 1))) {
                rc = usage_error("--compare: each device count is ID@tp=T[+pp=P][+dp=D] (whole numbers), not '%s'", item);
                break;
            }
            *at = 0;
        }
        cJSON_AddItemToArray(pars, devices ? devices : cJSON_CreateNull());
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
    bool several = false;
    const cJSON *row;
    cJSON_ArrayForEach(row, pars) several |= cJSON_IsObject(row);
    if (!several) cJSON_DeleteItemFromObject(study, "parallel"); /* every row on one device: the request as before */
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
        if (!isnan(A->max_slowdown)) cJSON_AddNumberToObject(study, "max_slowdown", A->max_slowdown);
    }
    return EXIT_OK;
}

/* The request's measured object: the profile's text and its format. */
static int add_measured(cJSON *req, const cli_args *A) {
    char why[256];
    char *text = read_text(A->measured, why, sizeof why);
    if (!text) {
        fprintf(stderr, "rooflens: the measured profile %s: %s\n", txt(A->measured), why);
        return EXIT_USAGE;
    }
    cJSON *ms = cJSON_AddObjectToObject(req, "measured");
    cJSON_AddStringToObject(ms, "text", text);
    cJSON_AddStringToObject(ms, "format", A->measured_format ? A->measured_format : "auto");
    free(text);
    return EXIT_OK;
}

/* --strict: exit 4 when the analysis is incomplete (its totals say so). */
static int strict_code(const cJSON *res) {
    const cJSON *tot = get(res, "totals");
    /* a missing count is no proof of a complete analysis */
    bool incomplete = !(num(tot, "unknown_layers") <= 0) || cJSON_GetArraySize(get(tot, "unsupported_ops")) > 0;
    return incomplete ? EXIT_INCOMPLETE : EXIT_OK;
}

/* What the Netron attachment could not carry (its metadata counts them),
 * said on stderr: a node without a name has no target in Netron, and nodes
 * that share a name cannot be told apart. */
static void netron_notes(const char *attachment) {
    cJSON *a = cJSON_Parse(attachment);
    const cJSON *it;
    cJSON_ArrayForEach(it, get(a, "metadata")) {
        const char *name = str(it, "name");
        const char *why = !strcmp(name, "nodes_without_name") ? "have no name: Netron has no target for them"
                          : !strcmp(name, "nodes_with_shared_name") ? "share a name with another node: Netron cannot "
                                                                      "tell them apart"
                                                                    : NULL;
        if (why)
            fprintf(stderr, "rooflens: note: %s nodes %s, so the attachment leaves their figures out (%s)\n",
                    numf("%g", num(it, "value")), why, name);
    }
    cJSON_Delete(a);
}

/* An ok answer laid out: the core's text as it is (json), the Netron
 * attachment, or a table or CSV whose per-layer figures come from the packed
 * layer table, so that no layer row is written as text and parsed back. */
static int print_answer(const char *out, size_t size, const cli_args *A, int top) {
    const cli_format format = A->format;
    if (format == CLI_FORMAT_JSON || format == CLI_FORMAT_NETRON) {
        char *att = format != CLI_FORMAT_JSON ? rl_netron_attachment(out) : NULL;
        puts(att ? att : out);
        if (att) netron_notes(att);
        rl_free(att);
        if (!A->strict) return EXIT_OK;
    }
    bool csv = format == CLI_FORMAT_CSV && !A->studies && !A->llm;
    if (csv) {
        /* the core's CSV ("layers": "csv"), after the text's NUL */
        size_t at = strlen(out) + 1;
        if (at < size) fwrite(out + at, 1, size - at, stdout);
        if (!A->strict) return EXIT_OK;
    }
    layer_table L;
    bool table_view = !A->studies && !A->llm && format == CLI_FORMAT_TABLE;
    /* the text only: no layer row is in it, nor (layer_io false) any tensor */
    cJSON *res = cJSON_Parse(out);
    int rc = res ? EXIT_OK : EXIT_BAD_MODEL;
    if (!res || (table_view && layer_table_open(&L, res, out, size))) {
        fputs("rooflens: the core's answer could not be read (out of memory?)\n", stderr);
        rc = EXIT_BAD_MODEL;
    } else if (format == CLI_FORMAT_DOT) print_dot(res);
    else if (format == CLI_FORMAT_TABLE) {
        if (A->studies) print_study(res);
        else if (A->llm) print_llm(res);
        else print_table(res, &L, top, A->explain), print_measured(res, &L, top);
        print_parallel(res);
    }
    if (rc == EXIT_OK && A->strict) rc = strict_code(res);
    cJSON_Delete(res);
    return rc;
}

/* Where a streamed answer goes: standard output, all of it (JSON) or only
 * what follows the text's NUL (CSV: the table after the answer's text,
 * which an error answer lacks: it is kept to be reported). */
typedef struct stdout_sink {
    bool after_nul; /* CSV: drop the text, up to its NUL */
    bool seen_nul;
    char error[4096]; /* CSV: the start of the text, for an error answer */
    size_t n_error;
} stdout_sink;

static int write_stdout(void *ctx, const char *bytes, size_t n) {
    stdout_sink *s = ctx;
    if (s->after_nul && !s->seen_nul) {
        const char *nul = memchr(bytes, 0, n);
        size_t text = nul ? (size_t)(nul - bytes) : n, keep = sizeof s->error - 1 - s->n_error;
        memcpy(s->error + s->n_error, bytes, text < keep ? text : keep);
        s->n_error += text < keep ? text : keep;
        if (!nul) return 0;
        s->seen_nul = true;
        bytes = nul + 1, n -= text + 1;
    }
    return fwrite(bytes, 1, n, stdout) == n ? 0 : -1;
}

/* --format json or csv: the core's answer written as the core makes it, so
 * the layer rows (most of a big answer) are never held whole: the JSON text
 * as it is, or the CSV that follows it. */
static int stream_answer(rl_model *m, const rl_hw *hw, const char *request, bool csv, const char *model_path) {
    bool ok = false;
    stdout_sink sink = {.after_nul = csv};
    int rc = rl_model_analyze_hw_write(m, hw, request, write_stdout, &sink, &ok);
    if (rc || (!csv && putchar('\n') == EOF) || fflush(stdout)) {
        fputs("rooflens: the answer could not be written to standard output\n", stderr);
        return EXIT_WRITE;
    }
    if (csv && !ok) report_error_json(sink.error, model_path); /* an error answer, held whole (a few hundred bytes) */
    return ok ? EXIT_OK : EXIT_BAD_MODEL;
}

/* One analysis (or study, or LLM view) of one model, printed in the chosen
 * format. req stays the caller's. */
static int analyze_and_print(cJSON *req, const char *model_path, const cli_args *A, int top) {
    char *err = NULL;
    rl_model *m = is_checkpoint(A->paths, A->n_paths) ? read_checkpoint(A->paths, A->n_paths, &err)
                                                       : read_model(model_path, true, &err);
    if (!m) {
        if (!err) return EXIT_BAD_MODEL;
        if (A->format == CLI_FORMAT_JSON) puts(err);
        else report_error_json(err, model_path);
        rl_free(err);
        return EXIT_BAD_MODEL;
    }
    char *text = cJSON_PrintUnformatted(req);
    bool csv = A->format == CLI_FORMAT_CSV && !A->studies && !A->llm;
    if (text && (csv || A->format == CLI_FORMAT_JSON) && !A->strict) {
        int rc = stream_answer(m, A->hw_handle, text, csv, model_path);
        free(text);
        rl_model_free(m);
        return rc;
    }
    size_t size = 0;
    char *out = text ? rl_model_analyze_hw(m, A->hw_handle, text, &size) : NULL;
    free(text);
    rl_model_free(m);
    int rc = EXIT_BAD_MODEL;
    if (!out) fputs("rooflens: out of memory\n", stderr);
    else if (!rl_answer_ok(out)) {
        if (A->format == CLI_FORMAT_JSON) puts(out);
        else report_error_json(out, model_path);
    } else {
        rc = print_answer(out, size, A, top);
    }
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
    const int top = A->top < 0 ? 15 : A->top; /* the table's rows; 0: all */
    if (A->studies) {
        if ((rc = add_study(req, A)) != EXIT_OK) return rc;
        /* the study carries the figures; the per-layer rows are not printed */
        cJSON_AddFalseToObject(req, "layers");
    } else if (A->format == CLI_FORMAT_NETRON) {
        cJSON_AddTrueToObject(req, "layers"); /* the attachment is built from the rows */
    } else if (A->format == CLI_FORMAT_DOT) {
        cJSON_AddTrueToObject(req, "layers"); /* the boxes are the rows */
        cJSON_AddTrueToObject(req, "graph");  /* the edges and modules it draws */
    } else if (!A->llm && A->format == CLI_FORMAT_CSV) {
        cJSON_AddStringToObject(req, "layers", "csv"); /* the core writes it */
    } else if (!A->llm && A->format != CLI_FORMAT_JSON) {
        cJSON_AddStringToObject(req, "layers", "packed"); /* the table reads the doubles */
        cJSON_AddFalseToObject(req, "layer_io");          /* and prints no tensor */
        /* and the layers it shows, slowest first (all of them for --top 0
         * and for the measured times, compared over every layer) */
        cJSON_AddNumberToObject(req, "top_layers", top > 0 && !A->measured ? top : 1e9);
    }
    if (A->measured && (rc = add_measured(req, A)) != EXIT_OK) return rc;
    return analyze_and_print(req, A->paths[0], A, top);
}
