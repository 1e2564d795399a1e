/* Properties of the timing model (docs/model.md) that must hold for every
 * model of the corpus (tests/model_corpus.h) × every profile in hw/ and
 * every power mode × fp32/fp16/int8 × batch 1 and 32, through the JSON API:
 *  - lower ≤ time ≤ upper for each SOL model and the chosen one;
 *  - unfused ≥ fused ≥ fused_prefetched in time, bytes and kernels;
 *  - average power ≤ the power budget, when the profile gives one;
 *  - layer times and energies add up to the chosen model's, and totals are
 *    the chosen model's (one time, one energy);
 *  - the roofline block is never zero, and says when it fell back;
 *  - a batch on a fixed-batch graph scales exactly (×32 FLOPs and
 *    activations per per-sample layer, weights once); an echoed batch was
 *    applied;
 *  - batch-sweep rows equal direct runs;
 *  - no kernel is a view or shape arithmetic on small integer tensors, and
 *    kernel counts are the layers' own;
 *  - no number anywhere in a response is negative (JSON has no inf/NaN);
 *  - the forecast is never below the floor (sol.chosen.time_s), its classes
 *    and its layers add up to it, and its power stays within the budget;
 *  - a layer's bound names the term that sets its time;
 *  - the forecast's band: floor <= low <= forecast <= high where the
 *    profile gives a track record (forecast.band), with its runs and source;
 *    none at all (null low, high and band, and the words "no track record
 *    for this stack") where it does not; a sweep row's band is the direct
 *    run's.
 * Then, through the internal API, the power cap on the unit device: a
 * budget below the model's roofline power stretches the time until the
 * average power equals it. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "check.h"
#include "check_model.h"
#include "model_corpus.h"
#include "timing.h"

static const char *tests_dir, *root_dir;

typedef struct device {
    cJSON *profile;
    const char *id, *mode; /* mode NULL = the default */
} device;

static device devices[256];
static int n_devices;

/* Every profile of hw/ and every power mode of each. */
static void load_devices(void) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/hw", root_dir);
    DIR *d = opendir(dir);
    CHECK(d != NULL, "cannot open %s", dir);
    if (!d) return;
    char *names[128];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 128) {
        size_t len = strlen(e->d_name);
        if (len > 5 && !strcmp(e->d_name + len - 5, ".json") && strcmp(e->d_name, "schema.json"))
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, corpus_cmp);
    for (int i = 0; i < n; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        cJSON *p = check_read_json(path);
        free(names[i]);
        if (!p) continue;
        const char *id = cJSON_GetObjectItem(p, "id")->valuestring;
        devices[n_devices++] = (device){p, id, NULL};
        const cJSON *m;
        cJSON_ArrayForEach(m, cJSON_GetObjectItem(p, "power_modes"))
            if (n_devices < 256) devices[n_devices++] = (device){p, id, cJSON_GetObjectItem(m, "id")->valuestring};
    }
    /* No shipped profile has a blocked CPU stack (calibrate writes one): the
     * Xeon's profile with ONNX Runtime's NCHWc layout (channels in blocks of
     * 16, grouped convolutions a group at a time), so that every model's
     * layout conversions (forecast_layout.c) are timed too */
    for (int d = 0; d < n_devices && n_devices < 256; d++) {
        if (devices[d].mode || strcmp(devices[d].id, "intel-xeon-8480")) continue;
        cJSON *p = cJSON_Duplicate(devices[d].profile, true), *f = cJSON_GetObjectItem(p, "forecast");
        cJSON_ReplaceItemInObject(p, "id", cJSON_CreateString("intel-xeon-8480-nchwc"));
        cJSON_DeleteItemFromObject(f, "band");
        cJSON_ReplaceItemInObject(cJSON_GetObjectItem(f, "tile_n"), "value", cJSON_CreateNumber(16));
        cJSON_AddStringToObject(f, "grouped_conv", "per_group");
        devices[n_devices++] = (device){p, "intel-xeon-8480-nchwc", NULL};
        break;
    }
    CHECK(!strcmp(devices[n_devices - 1].id, "intel-xeon-8480-nchwc"), "the blocked CPU stack's device was made");
}

static double num(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}
static const char *str(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}
static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static bool le(double a, double b) { return a <= b + 1e-12 * fabs(b); } /* a ≤ b up to rounding */
static bool same(double a, double b, double rel) { return check_close(a, b, rel); }

static bool has_warning(const cJSON *res, const char *code) {
    const cJSON *w;
    cJSON_ArrayForEach(w, get(res, "warnings")) if (!strcmp(str(w, "code"), code)) return true;
    return false;
}

static cJSON *analyze(rl_model *m, const device *dv, const char *prec, int batch, bool layers, const char *study) {
    cJSON *req = cJSON_CreateObject();
    cJSON_AddItemReferenceToObject(req, "hardware", dv->profile);
    if (dv->mode) cJSON_AddStringToObject(req, "power_mode", dv->mode);
    cJSON_AddStringToObject(req, "precision", prec);
    cJSON_AddNumberToObject(req, "batch", batch);
    cJSON_AddBoolToObject(req, "layers", layers);
    if (study) cJSON_AddItemToObject(req, "study", cJSON_Parse(study));
    return check_analyze(m, req);
}

static int negative_numbers(const cJSON *j) {
    int n = 0;
    for (const cJSON *c = j->child; c; c = c->next) n += negative_numbers(c);
    if (cJSON_IsNumber(j) && !(j->valuedouble >= 0)) n++;
    return n;
}

/* ------------------------------------------------------------ forecast -- */
/* The pooling family's operators (core/src/ops/pool.c), as an oracle. */
static bool pooling(const char *op) {
    static const char *const ops[] = {"MaxPool", "AveragePool", "LpPool", "GlobalMaxPool", "GlobalAveragePool",
                                      "GlobalLpPool", "MaxRoiPool", "RoiAlign", "MaxUnpool"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(op, ops[i])) return true;
    return false;
}

/* The forecast (docs/model.md §12): never below the floor, which is
 * sol.chosen.time_s; its classes add up to it; its energy follows its time
 * within the power budget. */
/* analyses whose forecast has layout conversions (the blocked CPU stack's) */
static int reordered;

static void check_forecast(const char *what, const cJSON *res, bool energy) {
    const cJSON *f = get(res, "forecast"), *ch = get(get(res, "sol"), "chosen");
    double t = num(f, "time_s"), floor_s = num(f, "floor_s");
    CHECK(cJSON_IsObject(f) && t >= 0 && isfinite(t), "%s: a forecast with a finite time", what);
    CHECK(floor_s == num(ch, "time_s"), "%s: forecast.floor_s %g is sol.chosen.time_s %g", what, floor_s, num(ch, "time_s"));
    CHECK(t >= floor_s, "%s: the forecast %g is below the floor %g", what, t, floor_s);
    CHECK(floor_s > 0 ? same(num(f, "headroom"), t / floor_s, 1e-12) : num(f, "headroom") == 1, "%s: headroom", what);
    CHECK(!strcmp(str(f, "basis"), "analytic") || !strcmp(str(f, "basis"), "calibrated"), "%s: basis", what);
    CHECK(str(f, "stack")[0] != '\0', "%s: the forecast names its stack", what);
    CHECK(energy == cJSON_IsNumber(get(f, "energy_j")), "%s: a forecast energy iff the profile has energy", what);
    const cJSON *budget = get(get(res, "hardware"), "power_budget_w");
    if (energy && cJSON_IsNumber(budget) && t > 0)
        CHECK(le(num(f, "energy_j") / t, budget->valuedouble), "%s: the forecast draws %g W over the %g W budget", what,
              num(f, "energy_j") / t, budget->valuedouble);
    double ct = 0, cf = 0, ck = 0;
    int n = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, get(f, "by_class")) {
        ct += num(c, "time_s"), cf += num(c, "floor_s"), ck += num(c, "kernels"), n++;
        CHECK(num(c, "peak_flops_per_s") > 0 && num(c, "bandwidth_Bps") > 0 &&
              le(num(c, "bandwidth_Bps"), num(get(res, "roofline"), "bandwidth_Bps")),
              "%s: class %s's ceilings are under the roofs", what, str(c, "class"));
    }
    CHECK(n == RL_CLASS_COUNT && same(ct, t, 1e-9), "%s: %d classes' forecasts add up to %g, want %g", what, n, ct, t);
    /* the stack's kernels: the chosen model's, each pooling node that
     * model fused into the kernel before it as one of its own (every
     * shipped stack runs pooling apart, docs/model.md §12.2), and a blocked
     * CPU stack's layout conversions (their own count, none elsewhere) */
    const double reorders = num(get(f, "layout_reorders"), "kernels");
    reordered += reorders > 0;
    CHECK(reorders >= 0 && (reorders == 0 || strstr(what, "-nchwc")), "%s: %g layout conversions", what, reorders);
    double apart = reorders;
    bool fused = strcmp(str(ch, "model"), "unfused") != 0, listed = cJSON_IsArray(get(res, "layers"));
    const cJSON *l, *layers = listed && fused ? get(res, "layers") : NULL;
    cJSON_ArrayForEach(l, layers) apart += pooling(str(l, "op")) && !cJSON_IsNull(get(l, "fused_into"));
    CHECK(listed ? same(ck, num(ch, "kernels") + apart, 1e-12) : ck >= num(ch, "kernels"),
          "%s: classes' kernels %g, the model's %g and %g pooling kernels and conversions", what, ck,
          num(ch, "kernels"), apart);
    if (cJSON_IsArray(get(res, "layers")))
        CHECK(same(cf, floor_s, 1e-9), "%s: classes' floors add up to %g, want %g", what, cf, floor_s);
}

/* ---------------------------------------------------------- one answer -- */
static const char *const SOLS[] = {"unfused", "fused", "fused_prefetched", "chosen"};

static void check_models(const char *what, const cJSON *res) {
    const cJSON *sol = get(res, "sol");
    bool energy = cJSON_IsNumber(get(get(res, "roofline"), "energy_balance"));
    for (int m = 0; m < 4; m++) {
        const cJSON *s = get(sol, SOLS[m]);
        double t = num(s, "time_s");
        CHECK(le(num(s, "lower_bound_s"), t) && le(t, num(s, "upper_bound_s")), "%s %s: %g <= %g <= %g", what,
              SOLS[m], num(s, "lower_bound_s"), t, num(s, "upper_bound_s"));
        CHECK(le(num(s, "roof_time_s"), t) && le(num(s, "launch_floor_s"), t) && le(num(s, "power_floor_s"), t),
              "%s %s: the time is at least each of its terms", what, SOLS[m]);
        static const char *const fields[] = {"time_s", "lower_bound_s", "upper_bound_s", "roof_time_s", "kernels",
                                             "launch_floor_s", "power_floor_s", "bytes", "flops", "t_compute", "t_memory"};
        for (size_t f = 0; f < sizeof fields / sizeof *fields; f++)
            CHECK(num(s, fields[f]) >= 0, "%s %s.%s = %g", what, SOLS[m], fields[f], num(s, fields[f]));
        CHECK(energy == cJSON_IsNumber(get(s, "energy_j")), "%s %s: energy figures iff the profile has them", what, SOLS[m]);
        const cJSON *budget = get(get(res, "hardware"), "power_budget_w");
        if (energy && cJSON_IsNumber(budget))
            CHECK(le(num(s, "avg_power_w"), budget->valuedouble), "%s %s: %g W over the %g W budget", what, SOLS[m],
                  num(s, "avg_power_w"), budget->valuedouble);
    }
    const cJSON *un = get(sol, "unfused"), *fu = get(sol, "fused"), *pf = get(sol, "fused_prefetched");
    CHECK(le(num(fu, "time_s"), num(un, "time_s")) && le(num(pf, "time_s"), num(fu, "time_s")),
          "%s: unfused %g >= fused %g >= prefetched %g", what, num(un, "time_s"), num(fu, "time_s"), num(pf, "time_s"));
    CHECK(le(num(fu, "bytes"), num(un, "bytes")) && num(pf, "bytes") == num(fu, "bytes"), "%s: bytes order", what);
    CHECK(num(fu, "kernels") <= num(un, "kernels") && num(pf, "kernels") == num(fu, "kernels"), "%s: kernels order", what);
    const cJSON *to = get(res, "totals"), *ch = get(sol, "chosen");
    CHECK(num(to, "t") == num(ch, "time_s") && num(to, "kernels") == num(ch, "kernels"), "%s: totals are the chosen model's", what);
    CHECK(!energy || num(to, "energy_j") == num(ch, "energy_j"), "%s: one energy figure", what);
    const cJSON *ro = get(res, "roofline");
    CHECK(num(ro, "peak_matrix_flops") > 0 && num(ro, "time_balance") > 0 && num(ro, "peak_vector_flops") > 0,
          "%s: the roofline block is never zero", what);
    CHECK(!strcmp(str(ro, "precision"), str(ro, "requested_precision")) || has_warning(res, "precision_fallback"),
          "%s: a fallback (%s for %s) is warned", what, str(ro, "precision"), str(ro, "requested_precision"));
    const cJSON *op = get(res, "options");
    CHECK(cJSON_IsNull(get(op, "batch")) == cJSON_IsNull(get(op, "batch_applied")), "%s: batch echoed iff applied", what);
    CHECK(!cJSON_IsNull(get(op, "batch")) || has_warning(res, "batch_not_applied"), "%s: an unapplied batch is warned", what);
    CHECK(negative_numbers(res) == 0, "%s: %d negative numbers in the response", what, negative_numbers(res));
    check_forecast(what, res, energy);
}

static bool small_int_tensors(const cJSON *list, bool *any) {
    const cJSON *t;
    cJSON_ArrayForEach(t, list) {
        const char *dt = str(t, "dtype");
        if (strncmp(dt, "int", 3) && strncmp(dt, "uint", 4) && strcmp(dt, "bool")) return false;
        const cJSON *shape = get(t, "shape"), *d;
        if (!cJSON_IsArray(shape)) return false;
        double e = 1;
        cJSON_ArrayForEach(d, shape) e *= cJSON_IsNumber(d) ? d->valuedouble : INFINITY;
        if (e > RL_SHAPE_ARITH_MAX_ELEMS) return false;
        *any = true;
    }
    return true;
}

/* A layer's bound names the term that sets its time (issue 27): compute or
 * memory only when its time is within its own roofline (the larger of its
 * compute time and its traffic under the chosen model over the bandwidth),
 * and then the larger of the two; overhead or power exactly when that floor
 * set the model's time, as the summary says. */
static void check_layer_bound(const char *what, const cJSON *l, const cJSON *ch, double bw) {
    const char *b = str(l, "bound"), *model_bound = str(ch, "bound");
    bool unfused = !strcmp(str(ch, "model"), "unfused");
    double tc = num(l, "t_compute"), tm = num(l, unfused ? "bytes" : "fused_bytes") / bw, t = num(l, "t");
    bool floor_set = !strcmp(model_bound, "overhead") || !strcmp(model_bound, "power");
    if (!strcmp(b, "compute") || !strcmp(b, "memory")) {
        CHECK(!floor_set, "%s: %s is %s-bound while the %s floor sets the model's time", what, str(l, "name"), b,
              model_bound);
        CHECK(le(t, (tc > tm ? tc : tm) * (1 + 1e-9)), "%s: %s is %s-bound with a time %g above both its compute "
              "time %g and its memory time %g", what, str(l, "name"), b, t, tc, tm);
        CHECK(!strcmp(b, "compute") == (tc >= tm), "%s: %s says %s with compute %g, memory %g", what,
              str(l, "name"), b, tc, tm);
    } else if (!strcmp(b, "overhead") || !strcmp(b, "power")) {
        CHECK(!strcmp(b, model_bound), "%s: %s is %s-bound, the model %s-bound", what, str(l, "name"), b, model_bound);
    } else {
        CHECK(!strcmp(b, "none") || !strcmp(b, "unknown"), "%s: %s has bound '%s'", what, str(l, "name"), b);
    }
}

/* `own_dtypes`: the response shows the model's own element types (a
 * precision override to int8 would show every float tensor as int8). */
static void check_layers(const char *what, const cJSON *res, bool own_dtypes) {
    const cJSON *ch = get(get(res, "sol"), "chosen"), *fu = get(get(res, "sol"), "fused");
    bool energy = cJSON_IsNumber(get(ch, "energy_j"));
    double t = 0, e = 0, kernels = 0, fused_kernels = 0, forecast = 0;
    bool control = false;
    const cJSON *l;
    const cJSON *ro = get(res, "roofline");
    const char *main_prec = str(ro, "precision");
    /* the units run side by side (docs/model.md §2): a kernel's FLOP/s is at
     * most the sum of a precision's matrix and vector peaks */
    double bw = num(ro, "bandwidth_Bps"), top_peak = 0, prec_sum = 0;
    const char *last_prec = "";
    const cJSON *cc;
    cJSON_ArrayForEach(cc, get(get(ro, "ceilings"), "compute")) {
        prec_sum = strcmp(str(cc, "precision"), last_prec) ? num(cc, "flops") : prec_sum + num(cc, "flops");
        last_prec = str(cc, "precision");
        if (prec_sum > top_peak) top_peak = prec_sum;
    }
    /* vector FLOPs per kernel (its first layer's index): the energy roof is
     * the matrix unit's, a bound for kernels of matrix work and traffic */
    int n_layers = cJSON_GetArraySize(get(res, "layers"));
    double *kernel_vector = calloc((size_t)n_layers + 1, sizeof *kernel_vector);
    cJSON_ArrayForEach(cc, get(res, "layers")) {
        const cJSON *into = get(cc, "fused_into");
        int root = cJSON_IsNumber(into) ? (int)into->valuedouble : (int)num(cc, "index");
        if (root >= 0 && root < n_layers) kernel_vector[root] += num(cc, "vector_flops");
    }
    /* the energy roof is the roofline precision's: check it where every layer runs at it */
    bool single_precision = true;
    cJSON_ArrayForEach(cc, get(res, "layers")) if (strcmp(str(cc, "precision"), main_prec)) single_precision = false;
    cJSON_ArrayForEach(l, get(res, "layers")) {
        t += num(l, "t");
        if (energy) e += num(l, "energy_j");
        /* Every point the charts draw lies on or under the roofs they draw:
         * a kernel of the chosen model (a fused group summed on its first
         * layer) runs at most at the bandwidth roof at its intensity and at
         * most at the fastest precision's two units together; at the
         * roofline's precision a kernel of matrix work and traffic gets at
         * most the energy roof's FLOP/J (the matrix unit's energy per FLOP,
         * static power over the roofline time). */
        const cJSON *kx = get(l, "kernel_intensity"), *kf = get(l, "kernel_flops_per_s"), *kj = get(l, "kernel_flop_per_j");
        CHECK(cJSON_IsNull(kx) || (cJSON_IsNumber(kx) && kx->valuedouble >= 0),
              "%s: %s has a kernel intensity that is neither null nor a number >= 0", what, str(l, "name"));
        /* the kernel's own figures are the point's: FLOPs over bytes its
         * intensity, over time its FLOP/s, bytes over the bandwidth its memory time */
        if (cJSON_IsNumber(kx) && kx->valuedouble > 0) {
            double kfl = num(l, "kernel_flops"), kb = num(l, "kernel_bytes");
            CHECK(check_close(kfl / kb, kx->valuedouble, 1e-9), "%s: %s's kernel FLOPs / bytes", what, str(l, "name"));
            CHECK(check_close(num(l, "kernel_t_memory"), kb / bw, 1e-9), "%s: %s's kernel memory time", what, str(l, "name"));
            CHECK(num(l, "kernel_t_compute") >= 0, "%s: %s's kernel compute time", what, str(l, "name"));
            if (cJSON_IsNumber(kf))
                CHECK(check_close(kfl / num(l, "kernel_t"), kf->valuedouble, 1e-9), "%s: %s's kernel FLOP/s", what,
                      str(l, "name"));
        }
        if (cJSON_IsNumber(kx) && kx->valuedouble > 0 && cJSON_IsNumber(kf)) {
            double x = kx->valuedouble, perf = kf->valuedouble;
            CHECK(perf <= bw * x * (1 + 1e-9) && perf <= top_peak * (1 + 1e-9),
                  "%s: kernel %s at %g FLOP/B runs at %g FLOP/s, above the roofs (%g, %g)", what, str(l, "name"), x, perf,
                  bw * x, top_peak);
            int idx = (int)num(l, "index");
            bool matrix_only = idx >= 0 && idx < n_layers && kernel_vector[idx] == 0;
            if (cJSON_IsNumber(kj) && kj->valuedouble > 0 && single_precision && matrix_only) {
                double ef = num(ro, "flop_j"), eb = num(ro, "byte_j"), sw = num(ro, "static_w");
                double peak = num(ro, "peak_matrix_flops");
                double spf = 1 / peak > 1 / (bw * x) ? 1 / peak : 1 / (bw * x);
                double roof = 1 / (ef + eb / x + sw * spf);
                CHECK(kj->valuedouble <= roof * (1 + 1e-9), "%s: kernel %s at %g FLOP/B gets %g FLOP/J, above the energy roof %g",
                      what, str(l, "name"), x, kj->valuedouble, roof);
            }
        }
        check_layer_bound(what, l, ch, bw);
        forecast += num(l, "forecast_s");
        CHECK(num(l, "forecast_s") >= 0 && cJSON_IsString(get(l, "op_class")), "%s: %s's forecast", what, str(l, "name"));
        kernels += num(l, "kernels");
        if (num(l, "kernels") != (double)cJSON_IsTrue(get(l, "kernel"))) control = true;
        if (cJSON_IsNull(get(l, "fused_into"))) fused_kernels += num(l, "kernels");
        if (!cJSON_IsTrue(get(l, "kernel"))) continue;
        static const char *const views[] = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Shape",
                                            "Size", "Constant"};
        for (size_t v = 0; v < sizeof views / sizeof *views; v++)
            CHECK(strcmp(str(l, "op"), views[v]) || strcmp(str(l, "domain"), ""), "%s: %s is a view, not a kernel",
                  what, str(l, "name"));
        bool any = false;
        bool small = small_int_tensors(get(l, "inputs"), &any) && small_int_tensors(get(l, "outputs"), &any) && any;
        CHECK(!own_dtypes || !small, "%s: %s (%s) is shape arithmetic, not a kernel", what, str(l, "name"), str(l, "op"));
    }
    free(kernel_vector);
    CHECK(same(t, num(ch, "time_s"), 1e-9), "%s: layer times add up to %g, want %g", what, t, num(ch, "time_s"));
    CHECK(!energy || same(e, num(ch, "energy_j"), 1e-9), "%s: layer energies add up to %g, want %g", what, e,
          num(ch, "energy_j"));
    double ft = num(get(res, "forecast"), "time_s");
    CHECK(same(forecast, ft, 1e-9), "%s: layer forecasts add up to %g, want %g", what, forecast, ft);
    CHECK(kernels == num(get(get(res, "sol"), "unfused"), "kernels"), "%s: unfused kernels %g = the layers' %g", what,
          num(get(get(res, "sol"), "unfused"), "kernels"), kernels);
    if (!control)
        CHECK(fused_kernels == num(fu, "kernels"), "%s: fused kernels %g = kernels not fused into another %g", what,
              num(fu, "kernels"), fused_kernels);
}

/* Batch 32 against batch 1 on a fixed-batch graph: every per-sample layer
 * does exactly 32 times the work on 32 times the activations, and reads
 * its weights once; other layers are unchanged. */
static void check_scaling(const char *what, const cJSON *r1, const cJSON *r32) {
    if (strcmp(str(get(r32, "options"), "batch_applied"), "scaled") != 0) return;
    CHECK(!strcmp(str(get(r1, "options"), "batch_applied"), "scaled"), "%s: batch 1 scaled too", what);
    const cJSON *a = get(r1, "layers")->child, *b = get(r32, "layers")->child;
    for (; a && b; a = a->next, b = b->next) {
        static const char *const act[] = {"matrix_flops", "vector_flops", "macs", "input_bytes", "output_bytes"};
        double sa = num(a, "flops") + num(a, "input_bytes") + num(a, "output_bytes");
        double sb = num(b, "flops") + num(b, "input_bytes") + num(b, "output_bytes");
        double k = sb == sa ? 1 : 32;
        for (size_t f = 0; f < sizeof act / sizeof *act; f++)
            CHECK(same(num(b, act[f]), k * num(a, act[f]), 1e-12), "%s: %s %s x%g: %g vs %g", what, str(a, "name"),
                  act[f], k, num(b, act[f]), num(a, act[f]));
        CHECK(num(b, "weight_bytes") == num(a, "weight_bytes"), "%s: %s reads its weights once", what, str(a, "name"));
    }
    CHECK(num(get(r32, "totals"), "weight_bytes") == num(get(r1, "totals"), "weight_bytes"), "%s: weights once", what);
}

/* A sweep's rows are the direct runs at those batches. */
static void check_sweep(const char *what, rl_model *m, const device *dv) {
    cJSON *res = analyze(m, dv, "fp16", 1, false, "{\"kind\": \"batch_sweep\", \"batches\": [1, 32]}");
    if (!cJSON_IsTrue(get(res, "ok"))) {
        cJSON_Delete(res);
        return;
    }
    const cJSON *row;
    cJSON_ArrayForEach(row, get(get(res, "study"), "rows")) {
        cJSON *direct = analyze(m, dv, "fp16", (int)num(row, "batch"), false, NULL);
        const cJSON *ch = get(get(direct, "sol"), "chosen");
        if (!cJSON_IsObject(get(row, "error"))) {
            static const char *const same_f[] = {"time_s", "lower_bound_s", "upper_bound_s", "flops", "bytes",
                                                 "kernels", "launch_floor_s", "energy_j", "avg_power_w"};
            for (size_t f = 0; f < sizeof same_f / sizeof *same_f; f++)
                CHECK(cJSON_Compare(get(row, same_f[f]), get(ch, same_f[f]), true), "%s: sweep row %g %s differs from "
                      "the direct run", what, num(row, "batch"), same_f[f]);
            const cJSON *fc = get(direct, "forecast");
            static const char *const band_f[][2] = {{"forecast_s", "time_s"}, {"forecast_low_s", "low_s"},
                                                    {"forecast_high_s", "high_s"}};
            for (size_t f = 0; f < 3; f++)
                CHECK(cJSON_Compare(get(row, band_f[f][0]), get(fc, band_f[f][1]), true), "%s: sweep row %g %s is not "
                      "the direct run's forecast.%s", what, num(row, "batch"), band_f[f][0], band_f[f][1]);
            CHECK(!strcmp(str(row, "bound"), str(ch, "bound")), "%s: sweep bound", what);
            CHECK(!strcmp(str(row, "batch_applied"), str(get(direct, "options"), "batch_applied")), "%s: applied", what);
        } else {
            CHECK(!cJSON_IsTrue(get(direct, "ok")) || cJSON_IsNull(get(get(direct, "options"), "batch_applied")),
                  "%s: a sweep row fails only where the direct run fails or cannot apply the batch", what);
        }
        cJSON_Delete(direct);
    }
    cJSON_Delete(res);
}

/* ---------------------------------------------------------------- band -- */
static int banded, unbanded;

static void check_band(const char *what, const cJSON *res, const device *dv) {
    const cJSON *f = get(res, "forecast"), *rec = get(f, "band");
    const bool has = get(get(dv->profile, "forecast"), "band") != NULL;
    const double t = num(f, "time_s"), floor_s = num(f, "floor_s"), lo = num(f, "low_s"), hi = num(f, "high_s");
    if (has) {
        banded++;
        CHECK(floor_s <= lo && lo <= t && t <= hi && isfinite(hi), "%s: floor %g <= low %g <= forecast %g <= high %g",
              what, floor_s, lo, t, hi);
        CHECK(cJSON_IsObject(rec) && num(rec, "runs") >= 3 && str(rec, "source")[0] && str(rec, "basis")[0],
              "%s: the band says what it rests on", what);
        CHECK(!strncmp(str(f, "track_record"), "checked against ", 16), "%s: track record '%s'", what,
              str(f, "track_record"));
    } else {
        unbanded++;
        CHECK(cJSON_IsNull(get(f, "low_s")) && cJSON_IsNull(get(f, "high_s")) && cJSON_IsNull(rec),
              "%s: a profile without a track record gives no band", what);
        CHECK(!strcmp(str(f, "track_record"), "no track record for this stack"), "%s: says it has none", what);
    }
}

static int analyses, failures, scaled, capped_models;

static void each_model(const char *name, rl_model *m, void *ctx) {
    (void)ctx;
    static const char *const precs[] = {"fp32", "fp16", "int8"};
    for (int d = 0; d < n_devices; d++) {
        for (int p = 0; p < 3; p++) {
            cJSON *r[2];
            for (int b = 0; b < 2; b++) {
                char what[512];
                snprintf(what, sizeof what, "%s on %s%s%s %s batch %d", name, devices[d].id, devices[d].mode ? ":" : "",
                         devices[d].mode ? devices[d].mode : "", precs[p], b ? 32 : 1);
                r[b] = analyze(m, &devices[d], precs[p], b ? 32 : 1, true, NULL);
                analyses++;
                if (!cJSON_IsTrue(get(r[b], "ok"))) {
                    const char *code = str(get(r[b], "error"), "code");
                    CHECK(code[0] && strcmp(code, "internal"), "%s: error without a code", what);
                    failures++;
                    continue;
                }
                check_models(what, r[b]);
                check_band(what, r[b], &devices[d]);
                check_layers(what, r[b], strcmp(precs[p], "int8") != 0);
            }
            if (cJSON_IsTrue(get(r[0], "ok")) && cJSON_IsTrue(get(r[1], "ok"))) {
                scaled += !strcmp(str(get(r[1], "options"), "batch_applied"), "scaled");
                check_scaling(name, r[0], r[1]);
            }
            cJSON_Delete(r[0]);
            cJSON_Delete(r[1]);
        }
    }
    for (int d = 0; d < n_devices; d++)
        if (!strcmp(devices[d].id, "h100-sxm") || (!strcmp(devices[d].id, "jetson-agx-orin") && !devices[d].mode))
            check_sweep(name, m, &devices[d]);
}

/* ------------------------------------------------------------ power cap -- */
static void power_cap(const char *name, rl_model *m, void *ctx) {
    const cJSON *unit = ctx;
    rl_arena arena = {0};
    rl_error err = {0};
    rl_ctx c = {.model = m, .arena = &arena, .err = &err, .batch = 8};
    c.warnings = rl_arena_alloc(&arena, RL_MAX_WARNINGS * sizeof *c.warnings);
    rl_options o = {.precision_name = "model", .precision = -1, .sol = RL_SOL_FUSED, .granularity = RL_GRAN_INTENDED};
    rl_hw hw;
    rl_prepared pg;
    rl_timing free_t, capped, loose;
    if (!c.warnings || rl_hw_parse(unit, NULL, &hw, &err) || rl_prepare_graph(&c, &pg)) {
        rl_arena_free(&arena);
        return; /* models that do not analyse are covered above */
    }
    rl_time_graph(&c, &pg, &o, &hw, NULL, &free_t);
    const rl_sol_result *f = rl_timing_chosen(&free_t);
    if (f->time_s > 0 && f->avg_power_w > hw.static_w) {
        /* half the dynamic power: the time doubles and the power is the budget */
        hw.power_budget_w = hw.static_w + (f->avg_power_w - hw.static_w) / 2;
        rl_time_graph(&c, &pg, &o, &hw, NULL, &capped);
        for (int s = 0; s <= RL_SOL_COUNT; s++) {
            const rl_sol_result *r = s < RL_SOL_COUNT ? &capped.sol[s] : rl_timing_chosen(&capped);
            CHECK(le(r->avg_power_w, hw.power_budget_w), "%s: %g W over a %g W budget", name, r->avg_power_w,
                  hw.power_budget_w);
            CHECK(le(r->lower_bound_s, r->time_s) && le(r->time_s, r->upper_bound_s), "%s: capped time in its bounds", name);
        }
        const rl_sol_result *cr = rl_timing_chosen(&capped);
        capped_models++;
        CHECK(cr->power_capped && cr->bound == RL_BOUND_POWER, "%s: capped, bound %s", name, rl_bound_id(cr->bound));
        CHECK(same(cr->time_s, 2 * f->time_s, 1e-9), "%s: capped time %g, want twice %g", name, cr->time_s, f->time_s);
        CHECK(same(cr->avg_power_w, hw.power_budget_w, 1e-9), "%s: capped power is the budget", name);
        CHECK(same(cr->energy_j - hw.static_w * cr->time_s, f->energy_j - hw.static_w * f->time_s, 1e-9),
              "%s: the cap stretches time, not dynamic energy", name);
        hw.power_budget_w = 1e9; /* a budget never reached changes nothing */
        rl_time_graph(&c, &pg, &o, &hw, NULL, &loose);
        CHECK(rl_timing_chosen(&loose)->time_s == f->time_s && !rl_timing_chosen(&loose)->power_capped,
              "%s: an unreached budget leaves the time", name);
    }
    rl_arena_free(&arena);
}

/* An ok answer has finite, non-negative figures: rl_timing_check turns a
 * negative layer figure into bad_model (naming the node) and an infinite
 * or NaN total into limit_size. */
static void timing_check(void) {
    rl_node node = {.name = "lrn1", .op_type = "LRN"};
    rl_graph g = {.nodes = &node, .n_nodes = 1};
    rl_timing t = {.bad_layer = -1, .flops = 1, .bytes = 1};
    rl_error err = {0};
    CHECK(rl_timing_check(&t, &g, &err) == 0, "a sane timing passes");
    t.bad_layer = 0;
    CHECK(rl_timing_check(&t, &g, &err) && !strcmp(err.code, "bad_model") && !strcmp(err.where, "lrn1"),
          "a negative layer figure: %s at %s", err.code, err.where);
    t.bad_layer = -1;
    t.sol[RL_SOL_FUSED].time_s = INFINITY;
    memset(&err, 0, sizeof err);
    CHECK(rl_timing_check(&t, &g, &err) && !strcmp(err.code, "limit_size"), "an infinite time: %s", err.code);
    t.sol[RL_SOL_FUSED].time_s = 0;
    t.has_energy = true;
    t.chosen_sol.energy_j = NAN;
    memset(&err, 0, sizeof err);
    CHECK(rl_timing_check(&t, &g, &err) && !strcmp(err.code, "limit_size"), "a NaN energy: %s", err.code);
}

int main(int argc, char **argv) {
    tests_dir = argc > 1 ? argv[1] : ".";
    root_dir = argc > 2 ? argv[2] : "..";
    const char *samples = argc > 3 ? argv[3] : NULL;
    timing_check();
    load_devices();
    int models = corpus_each(tests_dir, samples, each_model, NULL);
    char path[1024];
    snprintf(path, sizeof path, "%s/hw/unit.json", tests_dir);
    cJSON *unit = check_read_json(path);
    corpus_each(tests_dir, samples, power_cap, unit);
    cJSON_Delete(unit);
    printf("%d models x %d devices and modes x 3 precisions x 2 batches: %d analyses (%d refused with an error), "
           "%d fixed-batch pairs scaled; power cap checked on %d models\n", models, n_devices, analyses, failures,
           scaled, capped_models);
    CHECK(models > 60 && n_devices > 26 && capped_models > 60, "the corpus and the profiles were found");
    CHECK(reordered > 20, "%d analyses had layout conversions", reordered);
    printf("band: %d analyses with one, %d without\n", banded, unbanded);
    CHECK(banded > 1000 && unbanded > 1000, "profiles with and without a track record were both checked");
    for (int d = 0; d < n_devices; d++)
        if (!devices[d].mode) cJSON_Delete(devices[d].profile);
    return check_report("timing properties");
}
