/* Fuzz target: the forecast's fit (rl_fit_forecast). The input mixes pairs
 * of the two measured fixture models with measured profiles, and edits the
 * profile fitted onto:
 *
 *   byte 0       flags: bits 0-1 the pairs (1 + value % 3); bit 2 the base
 *                profile (Jetson AGX Orin, with power modes, else the Xeon
 *                8480); bit 3 (Orin) the runs measured in mode "15w"
 *   bytes 1-3    per pair: bit 0 the model (small_cnn, small_mlp); bits 1-2
 *                its default measured profile (ORT optimised, ORT without
 *                optimisations, trtexec, the CNN's CSV)
 *   the rest     sections split at a line "%%": first a JSON object merged
 *                into the base profile (objects merged key by key, anything
 *                else replaced), then the measured text of pair 1, 2, 3 (an
 *                empty or missing section: the pair's default profile)
 *
 * Besides tests/response_oracle.h, an ok answer must keep the fit's
 * promises (docs/api.md, "Fitting the forecast"): every figure of "fit"
 * finite and non-negative, every model fitted on at least one kernel and
 * forecast within 10x of its measured time, the search within its budget,
 * a profile that rl_check_hardware accepts, marked calibrated, with which an
 * analysis answers finite figures. */
#include "fuzz_common.h"

static const char *const model_files[] = {"tests/fixtures/measured/small_cnn.onnx",
                                          "tests/fixtures/measured/small_mlp.onnx"};
static const char *const measured_files[2][4] = {
    {"tests/fixtures/measured/ort_small_cnn_all.json", "tests/fixtures/measured/ort_small_cnn_disabled.json",
     "tests/fixtures/measured/trtexec_small_cnn.json", "tests/fixtures/measured/csv_small_cnn.csv"},
    {"tests/fixtures/measured/ort_small_mlp_all.json", "tests/fixtures/measured/ort_small_mlp_disabled.json",
     "tests/fixtures/measured/trtexec_small_mlp.json", "tests/fixtures/measured/csv_small_cnn.csv"}};
static rl_model *models[2];
static char *measured[2][4], *profiles[2];

static char *read_text(const char *rel) {
    size_t len;
    char *t = (char *)fuzz_read_source(rel, &len);
    t[len] = 0;
    return t;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    for (int m = 0; m < 2; m++) {
        models[m] = fuzz_fixture_model(model_files[m]);
        for (int f = 0; f < 4; f++) measured[m][f] = read_text(measured_files[m][f]);
    }
    profiles[0] = read_text("hw/intel-xeon-8480.json");
    profiles[1] = read_text("hw/jetson-agx-orin.json");
    return 0;
}

/* edit merged into base: objects key by key, any other value replaced. */
static void merge(cJSON *base, const cJSON *edit, int depth) {
    const cJSON *e;
    cJSON_ArrayForEach(e, edit) {
        if (!e->string) continue;
        cJSON *b = cJSON_GetObjectItemCaseSensitive(base, e->string);
        if (cJSON_IsObject(b) && cJSON_IsObject(e) && depth < 16) merge(b, e, depth + 1);
        else if (b) cJSON_ReplaceItemInObjectCaseSensitive(base, e->string, cJSON_Duplicate(e, true));
        else cJSON_AddItemToObject(base, e->string, cJSON_Duplicate(e, true));
    }
}

/* Every number under item finite and >= 0 (a held-out run's "error",
 * measured / forecast - 1, finite and > -1), and no null (a non-finite
 * value the writer hid). */
static bool all_finite(const cJSON *item, int depth) {
    if (cJSON_IsNumber(item) && item->string && !strcmp(item->string, "error"))
        return isfinite(item->valuedouble) && item->valuedouble > -1;
    if (cJSON_IsNumber(item)) return isfinite(item->valuedouble) && item->valuedouble >= 0;
    if (cJSON_IsNull(item)) return false;
    const cJSON *c;
    cJSON_ArrayForEach(c, item) if (depth < 64 && !all_finite(c, depth + 1)) return false;
    return true;
}

/* The fit's promises of an ok answer (see the header). */
static void check_fit(const char *out) {
    cJSON *res = cJSON_Parse(out);
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "ok"))) {
        cJSON_Delete(res);
        return;
    }
    const cJSON *fit = cJSON_GetObjectItemCaseSensitive(res, "fit"), *m;
    if (!all_finite(fit, 0)) fuzz_fail("a fit figure is not finite and non-negative", out);
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(fit, "models")) {
        double k = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "kernels"));
        double meas = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "measured_s"));
        double fc = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "forecast_s"));
        if (!(k >= 1)) fuzz_fail("a model fitted on no kernel", out);
        if (!(fc <= 10 * meas && meas <= 10 * fc)) fuzz_fail("a model forecast beyond 10x of its time", out);
    }
    const cJSON *profile = cJSON_GetObjectItemCaseSensitive(res, "profile");
    const cJSON *basis = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(profile, "forecast"), "basis");
    if (!cJSON_IsString(basis) || strcmp(basis->valuestring, "calibrated")) fuzz_fail("not marked calibrated", out);
    char *text = cJSON_PrintUnformatted(profile);
    char *verdict = rl_check_hardware(text);
    if (!strstr(verdict, "\"ok\":true")) fuzz_fail("rl_check_hardware refuses the fitted profile", verdict);
    rl_free(verdict);
    const cJSON *search = cJSON_GetObjectItemCaseSensitive(fit, "search");
    double evals = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(search, "evaluations"));
    double budget = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(search, "budget"));
    if (!(evals <= 2 * budget)) fuzz_fail("the search ran past its budget", out);
    size_t n = strlen(text) + 64;
    char *req = malloc(n);
    if (!req) abort();
    snprintf(req, n, "{\"layers\": false, \"hardware\": %s}", text);
    char *a = rl_model_analyze(models[1], req);
    fuzz_check_response(a);
    rl_free(a), free(req), free(text);
    cJSON_Delete(res);
}

/* The next section of the input (up to a line "%%"), NUL-terminated in place; NULL past the end. */
static char *next_section(char **at) {
    if (!*at) return NULL;
    char *s = *at, *end = strstr(s, "\n%%\n");
    if (end) *end = 0, *at = end + 4;
    else *at = NULL;
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!models[0]) LLVMFuzzerInitialize(NULL, NULL);
    if (size < 4) return 0;
    int flags = data[0], n_pairs = 1 + (flags & 3) % 3;
    bool orin = flags & 4;
    char *text = fuzz_cstr(data + 4, size - 4), *at = text;
    cJSON *base = cJSON_Parse(profiles[orin]), *edit = cJSON_Parse(next_section(&at));
    if (cJSON_IsObject(edit)) merge(base, edit, 0);
    cJSON_Delete(edit);
    char *profile = cJSON_PrintUnformatted(base);
    cJSON_Delete(base);
    rl_fit_input in[3];
    const char *request = orin && (flags & 8) ? "{\"power_mode\": \"15w\"}" : NULL;
    for (int i = 0; i < n_pairs; i++) {
        int model = data[1 + i] & 1, file = (data[1 + i] >> 1) & 3;
        char *own = next_section(&at);
        in[i] = (rl_fit_input){models[model], model_files[model], own && own[0] ? own : measured[model][file], "auto",
                               request};
    }
    char *out = rl_fit_forecast(profile, in, (size_t)n_pairs, NULL);
    fuzz_check_response(out);
    check_fit(out);
    rl_free(out);
    free(profile), free(text);
    return 0;
}
