/* rooflens calibrate --from (calibrate_fit.h): reads each MODEL=PROFILE
 * pair, asks the core to fit the forecast (rl_fit_forecast) and prints what
 * the fit found, model by model. */
#include "calibrate_fit.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rooflens.h"

int fit_parse_option(fit_args *a, const char *opt, const char *value) {
    if (!strcmp(opt, "--from") || !strcmp(opt, "--probe")) {
        const char *eq = strchr(value, '=');
        if (!eq || eq == value || !eq[1]) {
            fprintf(stderr, "rooflens calibrate: %s takes MODEL.onnx=PROFILE, not '%s'\n", opt, txt(value));
            return 2;
        }
        if (a->n_from == FIT_MAX_FROM) {
            fprintf(stderr, "rooflens calibrate: at most %d --from and --probe pairs\n", FIT_MAX_FROM);
            return 2;
        }
        a->probe[a->n_from] = !strcmp(opt, "--probe");
        a->from[a->n_from++] = value;
        return 1;
    }
    if (!strcmp(opt, "--dim")) {
        if (!strchr(value, '=') || a->n_dims == FIT_MAX_DIMS) {
            fprintf(stderr, "rooflens calibrate: --dim takes NAME=VALUE (at most %d), not '%s'\n", FIT_MAX_DIMS,
                    txt(value));
            return 2;
        }
        a->dims[a->n_dims++] = value;
        return 1;
    }
    const char **slot = !strcmp(opt, "--profile")           ? &a->base
                        : !strcmp(opt, "--write-probes")    ? &a->write_probes
                        : !strcmp(opt, "--stack")           ? &a->stack
                        : !strcmp(opt, "--measured-format") ? &a->format
                        : !strcmp(opt, "--power-mode")      ? &a->power_mode
                        : !strcmp(opt, "--precision")       ? &a->precision
                        : !strcmp(opt, "--batch")           ? &a->batch
                                                            : NULL;
    if (!slot) return 0;
    *slot = value;
    return 1;
}

/* The request every run was measured with: the fit's options as
 * rl_model_analyze takes them. NULL on a bad value (said on stderr). */
static char *fit_request(const fit_args *a) {
    cJSON *req = cJSON_CreateObject();
    if (a->precision) cJSON_AddStringToObject(req, "precision", a->precision);
    if (a->power_mode) cJSON_AddStringToObject(req, "power_mode", a->power_mode);
    cJSON *dims = cJSON_AddObjectToObject(req, "dims");
    if (a->batch) {
        char *end = NULL;
        double b = strtod(a->batch, &end);
        if (*end || !(b >= 1 && b <= 1e9) || b != (double)(long long)b) {
            fprintf(stderr, "rooflens calibrate: --batch needs a whole number from 1, not '%s'\n", txt(a->batch));
            cJSON_Delete(req);
            return NULL;
        }
        cJSON_AddNumberToObject(req, "batch", b);
    }
    for (int i = 0; i < a->n_dims; i++) {
        const char *eq = strchr(a->dims[i], '=');
        char name[256];
        size_t n = (size_t)(eq - a->dims[i]);
        char *end = NULL;
        double v = strtod(eq + 1, &end);
        if (n == 0 || n >= sizeof name || *end || !(v >= 1 && v <= 1e12) || v != (double)(long long)v) {
            fprintf(stderr, "rooflens calibrate: --dim %s: a name and a whole number from 1\n", txt(a->dims[i]));
            cJSON_Delete(req);
            return NULL;
        }
        memcpy(name, a->dims[i], n);
        name[n] = '\0';
        cJSON_AddNumberToObject(dims, name, v);
    }
    char *text = cJSON_PrintUnformatted(req);
    cJSON_Delete(req);
    return text;
}

/* The fit's cross-validation: each model's error when a fit of the others
 * forecast it, and the band written from them, or why there is none. */
static void print_band(const cJSON *fit, const cJSON *fc) {
    const cJSON *m, *band = get(fc, "band");
    if (cJSON_GetArraySize(get(fit, "held_out")) > 0) {
        fprintf(stderr, "  held out (each model forecast by a fit of the others):");
        cJSON_ArrayForEach(m, get(fit, "held_out"))
            fprintf(stderr, " %s %s", txt_tail(str(m, "name"), 40), numf("%+.1f%%", 100 * num(m, "error")));
        fprintf(stderr, "\n");
    }
    if (band)
        fprintf(stderr, "  error band (fit cross-validation, %s runs): measured / forecast %s to %s, median error %s, "
                        "worst %s\n", numf("%g", num(band, "runs")), numf("%.2f", num(band, "low")),
                numf("%.2f", num(band, "high")), numf("%.1f%%", 100 * num(band, "median_error")),
                numf("%.1f%%", 100 * num(band, "worst_error")));
    else
        fprintf(stderr, "  %s\n", tstr(fit, "band_missing"));
}

/* A relative error as a percentage: one decimal up to 99,999.9 %, then in
 * powers of ten (a kernel forecast 1e9 times its time prints 1e+11 %, not
 * a number as long as the line); "n/a" when not a number. */
static const char *pct(double error) {
    double v = 100 * error;
    return numf(fabs(v) < 1e5 ? "%.1f%%" : "%.2g%%", v);
}

/* What the fit found, on stderr: the error per model and per kernel, and
 * the stack's kernels (fc: the fitted profile's forecast block). */
static void print_fit(const cJSON *fit, const cJSON *fc) {
    char a[40], b[40];
    fprintf(stderr, "\nforecast fitted on %s kernels of %d models (%s)\n", numf("%g", num(fit, "kernels")),
            cJSON_GetArraySize(get(fit, "models")), tstr(fit, "stack"));
    fprintf(stderr, "  %-40s %8s %12s %12s %8s\n", "model", "kernels", "measured", "forecast", "error");
    const cJSON *m;
    cJSON_ArrayForEach(m, get(fit, "models"))
        fprintf(stderr, "  %-40s %8s %12s %12s %8s\n", txt_tail(str(m, "name"), 40), numf("%g", num(m, "kernels")),
                tsec(num(m, "measured_s"), a, sizeof a), tsec(num(m, "forecast_s"), b, sizeof b),
                pct(num(m, "error")));
    cJSON_ArrayForEach(m, get(fit, "probes"))
        fprintf(stderr, "  %-40s %8s %12s %12s %8s\n", txt_tail(str(m, "name"), 40), numf("%g", num(m, "kernels")),
                tsec(num(m, "measured_s"), a, sizeof a), tsec(num(m, "forecast_s"), b, sizeof b),
                pct(num(m, "error")));
    fprintf(stderr, "  error per kernel: median %s, max %s; per model: median %s, max %s%s\n",
            pct(num(fit, "kernel_median_error")), pct(num(fit, "kernel_max_error")),
            pct(num(fit, "model_median_error")), pct(num(fit, "model_max_error")),
            cJSON_GetArraySize(get(fit, "probes")) ? " (the models; the probes, listed after them, set only "
                                                     "the classes the models have no kernel of)" : "");
    const cJSON *search = get(fit, "search");
    if (is_true(search, "stopped"))
        fprintf(stderr, "  the search stopped at its budget (%s evaluations over %s distinct kernels): the "
                "parameters are the best it found\n", numf("%.0f", num(search, "evaluations")),
                numf("%.0f", num(search, "distinct_kernels")));
    print_band(fit, fc);
    fprintf(stderr, "  fitted:");
    const cJSON *f;
    /* each class fraction with the kernels that set it: a figure that a
     * few kernels set is a weak one */
    const cJSON *counts = get(fit, "kernels_setting");
    cJSON_ArrayForEach(f, get(fit, "fitted")) {
        const char *name = cJSON_IsString(f) ? f->valuestring : "";
        const cJSON *n = get(counts, name);
        fprintf(stderr, " %s", txt(name));
        if (cJSON_IsNumber(n)) fprintf(stderr, " (%s)", numf("%.0f", n->valuedouble));
    }
    if (cJSON_GetArraySize(get(fit, "fitted_on_probes"))) {
        fprintf(stderr, "\n  fitted on the probes (no kernel of these among the models):");
        cJSON_ArrayForEach(f, get(fit, "fitted_on_probes"))
            fprintf(stderr, " %s", txt(cJSON_IsString(f) ? f->valuestring : ""));
    }
    fprintf(stderr, "\n  left at the profile's figures (no kernel of these classes measured):");
    cJSON_ArrayForEach(f, get(fit, "classes_at_defaults"))
        fprintf(stderr, " %s", txt(cJSON_IsString(f) ? f->valuestring : ""));
    if (!cJSON_GetArraySize(get(fit, "classes_at_defaults"))) fprintf(stderr, " none");
    cJSON_ArrayForEach(f, get(fit, "classes_borrowed"))
        fprintf(stderr, "\n  %s: no kernel of it measured; takes the fitted %s class's figures (the same multiply-add units)",
                txt(tstr(f, "class")), txt(tstr(f, "from")));
    fprintf(stderr, "\n  the stack: fusion %s; epilogues run apart after:", tstr(fc, "fusion"));
    int apart = 0;
    cJSON_ArrayForEach(f, get(fc, "epilogue_apart")) apart++, fprintf(stderr, " %s", txt(cJSON_IsString(f) ? f->valuestring : ""));
    const char *lowered_from = tstr(fit, "conv_lowering_from");
    if (!strcmp(tstr(fc, "epilogue_branches"), "apart"))
        fprintf(stderr, "%s; every epilogue that branches (a SiLU, an erf GELU) apart", apart ? "" : " none"), apart = 1;
    fprintf(stderr, "%s; convolutions %s%s%s%s; %s between kernels (in the fixed cost per kernel)", apart ? "" : " none",
            !strcmp(tstr(fc, "conv_lowering"), "im2col") ? "lowered by im2col" : "as implicit GEMMs",
            lowered_from[0] ? " (told by " : "", txt(lowered_from), lowered_from[0] ? ")" : "",
            tsec(num(fit, "between_kernels_s"), a, sizeof a));
    /* and how it grows with the kernel before, when the runs' traces told it */
    double growth = num(fit, "between_kernels_growth");
    if (growth > 0) fprintf(stderr, " plus %s %% of the kernel before", numf("%.3g", 100 * growth));
    /* the fixed work of an output tile, when the fit set it */
    const cJSON *k0 = get(get(fc, "tile_overhead_k"), "value");
    if (cJSON_IsNumber(k0)) fprintf(stderr, "; an output tile's fixed work: %s steps of K", numf("%.2f", k0->valuedouble));
    fprintf(stderr, "\n");
}

typedef struct fit_files {
    rl_fit_input in[FIT_MAX_FROM];
    char *paths[FIT_MAX_FROM]; /* the model's path (the pair's text before '=') */
    char *measured[FIT_MAX_FROM];
    int n;
} fit_files;

static void free_files(fit_files *f) {
    for (int i = 0; i < f->n; i++) {
        rl_model_free(f->in[i].model);
        free(f->paths[i]);
        free(f->measured[i]);
    }
}

/* Reads pair i: the model and its measured profile. 0, or the exit code. */
static int read_pair(fit_files *f, const char *pair, bool probe, const char *format, const char *request) {
    int i = f->n;
    const char *eq = strrchr(pair, '=');
    size_t n = (size_t)(eq - pair);
    f->paths[i] = malloc(n + 1);
    if (!f->paths[i]) return 1;
    memcpy(f->paths[i], pair, n);
    f->paths[i][n] = '\0';
    f->n++;
    char *err = NULL;
    f->in[i].model = read_model(f->paths[i], false, &err);
    if (!f->in[i].model) {
        report_error_json(err, f->paths[i]);
        rl_free(err);
        return EXIT_BAD_MODEL;
    }
    char why[256];
    f->measured[i] = read_text(eq + 1, why, sizeof why);
    if (!f->measured[i]) {
        fprintf(stderr, "rooflens calibrate: the measured profile %s: %s\n", txt(eq + 1), why);
        return EXIT_BAD_MODEL;
    }
    f->in[i].name = f->paths[i];
    f->in[i].measured = f->measured[i];
    f->in[i].format = format;
    f->in[i].request_json = request;
    f->in[i].probe = probe;
    return 0;
}

/* The file an error of the fit is about: the measured profile of pair i
 * for "inputs[i].measured", its model for another "inputs[i]...", else
 * NULL (copied into buf). */
static const char *error_file(const char *answer, const fit_args *a, char *buf, size_t cap) {
    cJSON *e = cJSON_Parse(answer);
    const char *where = str(get(e, "error"), "where");
    int i = -1, used = 0;
    const char *file = NULL;
    if (sscanf(where, "inputs[%d]%n", &i, &used) == 1 && used > 0 && i >= 0 && i < a->n_from) {
        const char *eq = strrchr(a->from[i], '=');
        if (!strncmp(where + used, ".measured", 9)) file = eq + 1;
        else snprintf(buf, cap, "%.*s", (int)(eq - a->from[i]), a->from[i]), file = buf;
    }
    if (file && file != buf) snprintf(buf, cap, "%s", file), file = buf;
    cJSON_Delete(e);
    return file;
}

int write_probe_model(const char *path) {
    size_t n = 0;
    unsigned char *bytes = rl_probe_model(&n);
    bool made = bytes != NULL;
    FILE *f = made ? fopen(path, "wb") : NULL;
    bool ok = f && fwrite(bytes, 1, n, f) == n;
    if (f && fclose(f) != 0) ok = false;
    rl_free(bytes);
    if (!ok) {
        fprintf(stderr, "rooflens calibrate: could not write the probe model to %s%s\n", txt(path),
                made ? ": check the folder exists and is writable" : " (out of memory)");
        return 1;
    }
    fprintf(stderr, "probe model written to %s (%zu bytes): 3x3, 1x1 and strided convolutions, a transformer's GEMM "
                    "and attention scores, a classifier's GEMV.\nProfile it with your runtime as you profile your "
                    "models, then fit with --probe %s=PROFILE beside each --from: it sets the product class "
                    "(convolutions or GEMMs) your models have no kernel of.\n", txt(path), n, txt(path));
    return 0;
}

char *fit_profile(const char *profile_text, const fit_args *a, int *status) {
    fit_files f = {0};
    char *request = fit_request(a), *answer = NULL, *fitted = NULL;
    *status = 2;
    if (!request) return NULL;
    for (int i = 0; i < a->n_from; i++)
        if ((*status = read_pair(&f, a->from[i], a->probe[i], a->format, request))) goto done;
    answer = rl_fit_forecast(profile_text, f.in, (size_t)f.n, a->stack);
    cJSON *res = answer ? cJSON_Parse(answer) : NULL;
    if (!res || !is_true(res, "ok")) {
        char file[4096];
        report_error_json(answer ? answer : "", answer ? error_file(answer, a, file, sizeof file) : NULL);
        *status = EXIT_BAD_MODEL;
    } else {
        cJSON *fit = cJSON_GetObjectItemCaseSensitive(res, "fit");
        const cJSON *fc = get(get(res, "profile"), "forecast");
        if (fit && !cJSON_GetObjectItemCaseSensitive(fit, "stack"))
            cJSON_AddStringToObject(fit, "stack", str(fc, "stack"));
        print_fit(fit, fc);
        fitted = cJSON_Print(get(res, "profile"));
        *status = fitted ? 0 : 1;
    }
    cJSON_Delete(res);
done:
    rl_free(answer);
    free(request);
    free_files(&f);
    return fitted;
}
