/* The what-if studies of rl_model_analyze ("study" in the request):
 *  - compare rows agree with single analyses of the same device and mode,
 *    and with a hand computation on the unit device;
 *  - the batch sweep's intensity grows with the batch and its critical batch
 *    is the first batch whose intensity reaches the time balance, worked out
 *    by hand for tests/fixtures/models/mlp.onnx on the unit device;
 *  - the power-mode study on jetson-agx-orin picks the least-energy mode
 *    within the allowed slowdown, with a correct Pareto front;
 *  - bad study requests answer bad_request (or no_power_modes) and leave the
 *    model usable. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdbool.h>

#include "check.h"
#include "check_model.h"
#include "rooflens.h"
#include "study.h"

static const char *tests_dir, *root_dir;

static cJSON *load_hw(const char *id) { return check_read_hw(tests_dir, root_dir, id); }

static rl_model *load_model(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/models/%s", tests_dir, name);
    return check_read_model(path);
}

static cJSON *analyze(rl_model *m, cJSON *req) { return check_analyze(m, req); }

static cJSON *request(const char *hw_id, const char *mode, int batch) {
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "hardware", load_hw(hw_id));
    if (mode) cJSON_AddStringToObject(r, "power_mode", mode);
    if (batch > 0) cJSON_AddNumberToObject(r, "batch", batch);
    cJSON_AddFalseToObject(r, "layers");
    return r;
}

static double num_at(const cJSON *o, const char *path) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    const cJSON *cur = o;
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && cur; k = strtok_r(NULL, ".", &save))
        cur = cJSON_GetObjectItemCaseSensitive(cur, k);
    return cJSON_IsNumber(cur) ? cur->valuedouble : NAN;
}

static const char *str_at(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static bool is_ok(const cJSON *res) { return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "ok")); }

/* ----------------------------------------------------------- compare -- */
static void test_compare(rl_model *mlp) {
    static const char *const ids[] = {"unit", "h100-sxm", "jetson-agx-orin", "tpu-v5e", "jetson-agx-orin"};
    static const char *const modes[] = {NULL, NULL, "15w", NULL, "no-such-mode"};
    const int n = 5;
    cJSON *req = request("unit", NULL, 1);
    cJSON *study = cJSON_AddObjectToObject(req, "study");
    cJSON_AddStringToObject(study, "kind", "compare");
    cJSON *hws = cJSON_AddArrayToObject(study, "hardware");
    cJSON *pms = cJSON_AddArrayToObject(study, "power_modes");
    for (int i = 0; i < n; i++) {
        cJSON_AddItemToArray(hws, load_hw(ids[i]));
        cJSON_AddItemToArray(pms, modes[i] ? cJSON_CreateString(modes[i]) : cJSON_CreateNull());
    }
    /* a profile that cannot be read gets a row error, not a failed response */
    cJSON_AddItemToArray(hws, cJSON_Parse("{\"id\": \"broken\", \"compute\": {}}"));
    cJSON_AddItemToArray(pms, cJSON_CreateNull());
    cJSON *res = analyze(mlp, req);
    CHECK(is_ok(res), "compare study failed");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(res, "study");
    CHECK(strcmp(str_at(st, "kind"), "compare") == 0, "study.kind");
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(st, "rows");
    CHECK(cJSON_GetArraySize(rows) == n + 1, "compare rows: %d, want %d", cJSON_GetArraySize(rows), n + 1);

    /* Hand computation, unit device (1 TFLOP/s matrix, 0.1 TFLOP/s vector,
     * 100 GB/s, no launch overhead, 1 pJ/FLOP, 100 pJ/B, 10 W), mlp at batch
     * 1, fused per-op: relu joins fc1's kernel and softmax fc2's (epilogue
     * fusion), each kernel at max(Σ compute, Σ fused bytes / BW):
     *   fc1+relu     compute 16384/1e12 + 128/1e11, bytes 32768+512+256 -> 3.3536e-7
     *   fc2+softmax  compute 2560/1e12 + 50/1e11,   bytes 5120+40+40    -> 5.2e-8
     * Energy: 18944 matrix FLOPs at 1 pJ, 316 vector FLOPs (biases, relu,
     * softmax) at 10 pJ (the vector unit's 1 W at its 1e11 FLOP/s peak). */
    const double t_hand = 3.3536e-7 + 5.2e-8;
    const double e_hand = 1e-12 * 18944 + 10e-12 * 316 + 1e-10 * (38440 + 296) + 10 * t_hand;
    const cJSON *r0 = cJSON_GetArrayItem(rows, 0);
    CHECK_NEAR(num_at(r0, "chosen_time_s"), t_hand, 1e-12, "unit chosen (fused per-op) time by hand");
    CHECK_NEAR(num_at(r0, "energy_j"), e_hand, 1e-12, "unit energy by hand");
    CHECK(strcmp(str_at(r0, "bound"), "memory") == 0, "unit mlp batch 1 is memory-bound, got %s", str_at(r0, "bound"));

    for (int i = 0; i < n - 1; i++) {
        const cJSON *row = cJSON_GetArrayItem(rows, i);
        cJSON *single = analyze(mlp, request(ids[i], modes[i], 1));
        CHECK(is_ok(single), "single analysis of %s failed", ids[i]);
        CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "error")), "row %d has an error", i);
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(row, "hardware");
        CHECK(strcmp(str_at(h, "id"), ids[i]) == 0, "row %d id %s", i, str_at(h, "id"));
        CHECK(modes[i] ? strcmp(str_at(h, "power_mode"), modes[i]) == 0
                       : !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(h, "power_mode")) ||
                             strcmp(ids[i], "jetson-agx-orin") == 0,
              "row %d power mode", i);
        CHECK(num_at(row, "chosen_time_s") == num_at(single, "sol.chosen.time_s"), "%s chosen time %g vs %g", ids[i],
              num_at(row, "chosen_time_s"), num_at(single, "sol.chosen.time_s"));
        CHECK(num_at(row, "sol.unfused") == num_at(single, "sol.unfused.time_s"), "%s unfused", ids[i]);
        CHECK(num_at(row, "sol.fused") == num_at(single, "sol.fused.time_s"), "%s fused", ids[i]);
        CHECK(num_at(row, "sol.fused_prefetched") == num_at(single, "sol.fused_prefetched.time_s"),
              "%s fused_prefetched", ids[i]);
        static const char *const same[] = {"lower_bound_s", "upper_bound_s", "launch_floor_s", "kernels"};
        for (int f = 0; f < 4; f++) {
            char path[64];
            snprintf(path, sizeof path, "sol.chosen.%s", same[f]);
            CHECK(num_at(row, same[f]) == num_at(single, path), "%s %s", ids[i], same[f]);
        }
        CHECK(num_at(row, "lower_bound_s") <= num_at(row, "chosen_time_s") &&
              num_at(row, "chosen_time_s") <= num_at(row, "upper_bound_s"), "%s time within its bounds", ids[i]);
        /* the forecast is the analysis's, never below the row's floor */
        CHECK(num_at(row, "forecast_s") == num_at(single, "forecast.time_s") &&
              num_at(row, "forecast_s") >= num_at(row, "chosen_time_s"), "%s forecast %g vs analysis %g, floor %g", ids[i],
              num_at(row, "forecast_s"), num_at(single, "forecast.time_s"), num_at(row, "chosen_time_s"));
        CHECK(strcmp(ids[i], "tpu-v5e") == 0 ? cJSON_IsNull(cJSON_GetObjectItem(row, "forecast_energy_j"))
                                             : num_at(row, "forecast_energy_j") == num_at(single, "forecast.energy_j"),
              "%s forecast energy", ids[i]);
        {   /* one verdict: the summary's bound is the compare row's bound */
            const cJSON *ch = cJSON_GetObjectItem(cJSON_GetObjectItem(single, "sol"), "chosen");
            CHECK(*str_at(row, "bound") && strcmp(str_at(row, "bound"), str_at(ch, "bound")) == 0,
                  "%s bound %s vs sol.chosen.bound %s", ids[i], str_at(row, "bound"), str_at(ch, "bound"));
        }
        CHECK(strcmp(str_at(row, "precision"), str_at(cJSON_GetObjectItem(single, "roofline"), "precision")) == 0,
              "%s precision", ids[i]);
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(row, "energy_j");
        if (strcmp(ids[i], "tpu-v5e") == 0) {
            CHECK(cJSON_IsNull(e), "tpu-v5e has no energy coefficients: energy_j must be null");
        } else {
            CHECK(cJSON_IsNumber(e) && e->valuedouble == num_at(single, "sol.chosen.energy_j"), "%s energy", ids[i]);
        }
        /* 2 fused kernels x 4.2 us against a few ns: launches dominate on real GPUs */
        if (strcmp(ids[i], "h100-sxm") == 0)
            CHECK(strcmp(str_at(row, "bound"), "overhead") == 0, "h100 mlp batch 1 bound %s", str_at(row, "bound"));
        cJSON_Delete(single);
    }
    const cJSON *bad_mode = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(rows, n - 1), "error");
    CHECK(strcmp(str_at(bad_mode, "code"), "unknown_power_mode") == 0, "unknown mode row error: %s", str_at(bad_mode, "code"));
    const cJSON *broken = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(rows, n), "error");
    CHECK(strcmp(str_at(broken, "code"), "bad_hardware") == 0 && str_at(broken, "message")[0],
          "broken profile row error: %s", str_at(broken, "code"));
    CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(rows, n), "chosen_time_s")),
          "a failed row has no time");
    /* the request's own analysis is unchanged by the study */
    CHECK_NEAR(num_at(res, "sol.chosen.time_s"), t_hand, 1e-12, "the response's own figures");
    cJSON_Delete(res);
}

/* ------------------------------------------------------- batch sweep -- */
static cJSON *sweep(rl_model *m, const char *hw, const char *batches_json, const char *dims_json) {
    cJSON *req = request(hw, NULL, 0);
    if (dims_json) cJSON_AddItemToObject(req, "dims", cJSON_Parse(dims_json));
    cJSON *study = cJSON_AddObjectToObject(req, "study");
    cJSON_AddStringToObject(study, "kind", "batch_sweep");
    if (batches_json) cJSON_AddItemToObject(study, "batches", cJSON_Parse(batches_json));
    return analyze(m, req);
}

static void test_batch_sweep(rl_model *mlp, rl_model *transformer, rl_model *conv) {
    /* mlp on the unit device, fused SOL bytes: FLOPs = 19260·B (16384 + 2560
     * matrix, 128 bias + 128 Relu + 10 bias + 50 Softmax vector per sample),
     * bytes = 38440 weight bytes + 296·B (x and probs), balance 1e12/1e11 = 10.
     * Compute-bound when Σ compute time ≥ bytes / BW: per sample fc1
     * 16384/1e12, relu 128/1e11, fc2 2560/1e12, softmax 50/1e11 = 2.0724e-8 s
     * against (38440 + 296·B)/1e11: B ≥ 3.844e-7 / 1.7764e-8 = 21.64. The
     * first power of two is 32, the first whole batch 22 (matrix work alone
     * would reach the time balance at 23.58). */
    cJSON *res = sweep(mlp, "unit", NULL, NULL);
    CHECK(is_ok(res), "default sweep failed");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(res, "study");
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(st, "rows");
    CHECK(cJSON_GetArraySize(rows) == 11, "default batches 1..1024: %d rows", cJSON_GetArraySize(rows));
    CHECK_NEAR(num_at(st, "time_balance"), 10, 1e-12, "unit time balance");
    CHECK(num_at(st, "critical_batch") == 32, "critical batch %g, want 32", num_at(st, "critical_batch"));
    double prev = -1;
    int i = 0;
    const cJSON *row;
    cJSON_ArrayForEach(row, rows) {
        double b = num_at(row, "batch");
        CHECK(b == (double)(1 << i), "row %d batch %g", i, b);
        CHECK_NEAR(num_at(row, "flops"), 19260 * b, 1e-12, "mlp flops by hand");
        CHECK_NEAR(num_at(row, "bytes"), 38440 + 296 * b, 1e-12, "mlp fused bytes by hand");
        double ai = num_at(row, "intensity");
        CHECK(ai > prev, "intensity must grow with the batch (%g after %g)", ai, prev);
        CHECK(strcmp(str_at(row, "bound"), b >= 22 ? "compute" : "memory") == 0, "batch %g bound", b);
        CHECK(strcmp(str_at(row, "batch_applied"), "dim") == 0, "batch %g applied to the symbolic dim", b);
        CHECK_NEAR(num_at(row, "attainable_flops_per_s"), ai * 1e11 < 1e12 ? ai * 1e11 : 1e12, 1e-12, "attainable");
        CHECK_NEAR(num_at(row, "time_per_sample_s") * b, num_at(row, "time_s"), 1e-12, "time per sample");
        CHECK_NEAR(num_at(row, "energy_per_sample_j") * b, num_at(row, "energy_j"), 1e-12, "energy per sample");
        prev = ai;
        i++;
    }
    /* rows agree with single analyses at the same batch */
    static const int check_b[] = {1, 64, 1024};
    for (int k = 0; k < 3; k++) {
        cJSON *single = analyze(mlp, request("unit", NULL, check_b[k]));
        const cJSON *r = cJSON_GetArrayItem(rows, check_b[k] == 1 ? 0 : check_b[k] == 64 ? 6 : 10);
        CHECK(num_at(r, "time_s") == num_at(single, "sol.chosen.time_s"), "batch %d time %g vs %g", check_b[k],
              num_at(r, "time_s"), num_at(single, "sol.chosen.time_s"));
        CHECK(num_at(r, "energy_j") == num_at(single, "sol.chosen.energy_j"), "batch %d energy", check_b[k]);
        CHECK(strcmp(str_at(r, "bound"), str_at(cJSON_GetObjectItem(cJSON_GetObjectItem(single, "sol"), "chosen"), "bound")) == 0,
              "batch %d bound", check_b[k]);
        CHECK(num_at(r, "kernels") == num_at(single, "sol.chosen.kernels"), "batch %d kernels", check_b[k]);
        CHECK(num_at(r, "flops") == num_at(single, "totals.flops"), "batch %d flops", check_b[k]);
        CHECK(num_at(r, "bytes") == num_at(single, "totals.fused_bytes"), "batch %d bytes", check_b[k]);
        CHECK(num_at(r, "forecast_s") == num_at(single, "forecast.time_s") && num_at(r, "forecast_s") >= num_at(r, "time_s"),
              "batch %d forecast %g vs %g", check_b[k], num_at(r, "forecast_s"), num_at(single, "forecast.time_s"));
        cJSON_Delete(single);
    }
    cJSON_Delete(res);

    res = sweep(mlp, "unit", "[21, 22, 23]", NULL);
    st = cJSON_GetObjectItemCaseSensitive(res, "study");
    CHECK(num_at(st, "critical_batch") == 22, "critical batch among 21,22,23: %g, want 22", num_at(st, "critical_batch"));
    CHECK(strcmp(str_at(cJSON_GetArrayItem(cJSON_GetObjectItem(st, "rows"), 0), "bound"), "memory") == 0, "batch 21 memory-bound");
    cJSON_Delete(res);

    res = sweep(mlp, "unit", "[1, 2, 4, 8]", NULL);
    st = cJSON_GetObjectItemCaseSensitive(res, "study");
    CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(st, "critical_batch")), "no critical batch below 22");
    CHECK(strstr(str_at(st, "note"), "no batch in the range") != NULL || strstr(str_at(st, "note"), "At no batch") != NULL,
          "note says it never turns compute-bound: %s", str_at(st, "note"));
    cJSON_Delete(res);

    /* a matmul model (the encoder layer): intensity never falls as the batch grows */
    res = sweep(transformer, "h100-sxm", "[1, 2, 4, 8, 16, 32, 64]", "{\"seq\": 32}");
    CHECK(is_ok(res), "transformer sweep failed");
    st = cJSON_GetObjectItemCaseSensitive(res, "study");
    prev = -1;
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(st, "rows")) {
        double ai = num_at(row, "intensity");
        CHECK(ai >= prev, "transformer intensity must not fall with the batch (%g after %g)", ai, prev);
        CHECK(num_at(row, "flops") > 0, "transformer flops");
        prev = ai;
    }
    CHECK(prev > num_at(cJSON_GetArrayItem(cJSON_GetObjectItem(st, "rows"), 0), "intensity"),
          "transformer intensity must grow from batch 1 to 64");
    cJSON_Delete(res);

    /* a model with a fixed batch of 1: the batch is applied by scaling, so
     * batch 8 does 8 times the work of batch 1 and reads the weights once */
    res = sweep(conv, "unit", "[1, 8]", NULL);
    st = cJSON_GetObjectItemCaseSensitive(res, "study");
    rows = cJSON_GetObjectItem(st, "rows");
    const cJSON *r1 = cJSON_GetArrayItem(rows, 0), *r8 = cJSON_GetArrayItem(rows, 1);
    CHECK_NEAR(num_at(r8, "flops"), 8 * num_at(r1, "flops"), 1e-12, "fixed-batch model: batch 8 = 8x the FLOPs");
    CHECK(strcmp(str_at(r8, "batch_applied"), "scaled") == 0, "fixed batch applied by scaling: %s", str_at(r8, "batch_applied"));
    for (int k = 0; k < 2; k++) {
        cJSON *single = analyze(conv, request("unit", NULL, k ? 8 : 1));
        const cJSON *r = k ? r8 : r1;
        CHECK(num_at(r, "time_s") == num_at(single, "sol.chosen.time_s") && num_at(r, "flops") == num_at(single, "totals.flops"),
              "scaled sweep row %d = the direct run", k);
        CHECK(num_at(single, "options.batch") == (k ? 8 : 1), "the direct run echoes the applied batch");
        CHECK(strcmp(str_at(cJSON_GetObjectItem(single, "options"), "batch_applied"), "scaled") == 0, "batch_applied scaled");
        cJSON_Delete(single);
    }
    cJSON_Delete(res);
}

/* ------------------------------------------------------- power modes -- */
static cJSON *power_study(rl_model *m, const char *hw, double max_slowdown) {
    cJSON *req = request(hw, NULL, 1);
    cJSON *study = cJSON_AddObjectToObject(req, "study");
    cJSON_AddStringToObject(study, "kind", "power_modes");
    if (max_slowdown >= 0) cJSON_AddNumberToObject(study, "max_slowdown", max_slowdown);
    return analyze(m, req);
}

static void test_power_modes(rl_model *mlp) {
    static const char *const modes[] = {"maxn", "gpu-1100mhz", "gpu-700mhz", "gpu-300mhz", "emc-2100mhz",
                                        "emc-700mhz", "50w", "30w", "15w"};
    const int n = 9;
    double t[9], e[9], ft[9], fe[9];
    for (int i = 0; i < n; i++) {
        cJSON *single = analyze(mlp, request("jetson-agx-orin", modes[i], 1));
        t[i] = num_at(single, "sol.chosen.time_s");
        e[i] = num_at(single, "sol.chosen.energy_j");
        ft[i] = num_at(single, "forecast.time_s");
        fe[i] = num_at(single, "forecast.energy_j");
        cJSON_Delete(single);
    }
    static const double limits[] = {0.05, 0.2, 10, 0};
    for (int L = 0; L < 4; L++) {
        cJSON *res = power_study(mlp, "jetson-agx-orin", L == 0 ? -1 : limits[L]); /* 0.05 is the default */
        CHECK(is_ok(res), "power-mode study failed");
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(res, "study");
        const cJSON *rows = cJSON_GetObjectItemCaseSensitive(st, "rows");
        CHECK(cJSON_GetArraySize(rows) == n, "orin has %d modes in the study, want %d", cJSON_GetArraySize(rows), n);
        CHECK_NEAR(num_at(st, "max_slowdown"), limits[L], 1e-12, "max_slowdown echoed");
        /* the advisor ranks the modes by the forecast, not the floor */
        int fastest = 0, rec = -1;
        for (int i = 1; i < n; i++)
            if (ft[i] < ft[fastest]) fastest = i;
        for (int i = 0; i < n; i++)
            if (ft[i] <= (1 + limits[L]) * ft[fastest] && (rec < 0 || fe[i] < fe[rec])) rec = i;
        CHECK(strcmp(str_at(st, "ranked_by"), "forecast") == 0, "ranked_by %s", str_at(st, "ranked_by"));
        CHECK(strcmp(str_at(st, "fastest"), modes[fastest]) == 0, "fastest %s, want %s", str_at(st, "fastest"), modes[fastest]);
        CHECK(strcmp(str_at(st, "recommended"), modes[rec]) == 0, "limit %g: recommended %s, want %s", limits[L],
              str_at(st, "recommended"), modes[rec]);
        const char *rec_name = str_at(cJSON_GetArrayItem(rows, rec), "label");
        CHECK(!strchr(rec_name, '(') && strncmp(str_at(cJSON_GetArrayItem(rows, rec), "name"), rec_name, strlen(rec_name)) == 0,
              "the label is the vendor's name, the name before its bracketed settings: '%s'", rec_name);
        CHECK(strstr(str_at(st, "reason"), rec_name) != NULL && strstr(str_at(st, "reason"), "compute-bound") &&
                  strstr(str_at(st, "reason"), "By the forecast") && !strstr(str_at(st, "reason"), modes[rec]),
              "the reason names the mode as the vendor does (%s, not its id %s), says the forecast ranks, and gives "
              "the layer-level cause: %s", rec_name, modes[rec], str_at(st, "reason"));
        for (int i = 0; i < n; i++) {
            const cJSON *row = cJSON_GetArrayItem(rows, i);
            CHECK(strcmp(str_at(row, "mode"), modes[i]) == 0, "row %d mode %s", i, str_at(row, "mode"));
            CHECK(num_at(row, "time_s") == t[i] && num_at(row, "energy_j") == e[i], "%s figures = single analysis", modes[i]);
            CHECK(num_at(row, "forecast_s") == ft[i] && num_at(row, "forecast_energy_j") == fe[i] && ft[i] >= t[i],
                  "%s forecast = single analysis's (%g s, %g J), never below the floor", modes[i], ft[i], fe[i]);
            CHECK_NEAR(num_at(row, "avg_power_w"), e[i] / t[i], 1e-12, "average power");
            CHECK_NEAR(num_at(row, "slowdown"), ft[i] / ft[fastest] - 1, 1e-9, "slowdown at the forecast");
            double share = num_at(row, "compute_bound_time_share");
            CHECK(share >= 0 && share <= 1, "%s compute-bound share %g", modes[i], share);
            bool dominated = false;
            for (int j = 0; j < n; j++)
                if (j != i && ft[j] <= ft[i] && fe[j] <= fe[i] && (ft[j] < ft[i] || fe[j] < fe[i])) dominated = true;
            CHECK(cJSON_IsTrue(cJSON_GetObjectItem(row, "pareto")) == !dominated, "%s pareto flag", modes[i]);
        }
        /* Worked out from the profile: at batch 1 the MLP's two fused kernels
         * take their 2 x 4.2 us launch floor in every mode (its roofline time
         * is under 1 us even at 15W), so every mode's floor is the same. The
         * forecast adds each kernel's work at the stack's efficiency, a few
         * per cent more at 15W's clocks than at MAXN's (under 5 %), so from
         * a 5 % limit up the least static power wins: 15W; with no slowdown
         * allowed, the forecast's fastest, MAXN. */
        CHECK(strcmp(str_at(st, "recommended"), limits[L] > 0 ? "15w" : "maxn") == 0, "launch-bound, limit %g: got %s",
              limits[L], str_at(st, "recommended"));
        cJSON_Delete(res);
    }
    cJSON *res = power_study(mlp, "h100-sxm", -1);
    CHECK(!is_ok(res), "a device without power modes must fail the study");
    const cJSON *err = cJSON_GetObjectItem(res, "error");
    CHECK(strcmp(str_at(err, "code"), "no_power_modes") == 0, "code %s", str_at(err, "code"));
    CHECK(strstr(str_at(err, "message"), "h100-sxm") != NULL, "message names the device: %s", str_at(err, "message"));
    cJSON_Delete(res);
}

/* A profile with n made-up modes: memory bandwidth, peak and static power
 * vary with the mode index (a fixed pseudo-random sequence). */
static cJSON *many_modes(int n) {
    cJSON *p = load_hw("unit");
    cJSON *modes = cJSON_AddArrayToObject(p, "power_modes");
    uint32_t x = 12345;
    for (int i = 0; i < n; i++) {
        char id[32], ov[256];
        snprintf(id, sizeof id, "m%d", i);
        x = x * 1664525u + 1013904223u;
        double bw = 2e10 + (x >> 8) % 100 * 1e9, st = 1 + (x >> 16) % 20;
        x = x * 1664525u + 1013904223u;
        double peak = 1e11 + (x >> 8) % 100 * 1e10;
        snprintf(ov, sizeof ov, "{\"memory\": [{\"bandwidth_Bps\": %g}], \"compute\": {\"fp32\": {\"matrix\": %g}}, "
                 "\"energy\": {\"static_w\": %g}}", bw, peak, st);
        cJSON *m = cJSON_CreateObject();
        cJSON_AddStringToObject(m, "id", id);
        cJSON_AddItemToObject(m, "overrides", cJSON_Parse(ov));
        if (i == 0) cJSON_AddTrueToObject(m, "default");
        cJSON_AddItemToArray(modes, m);
    }
    return p;
}

/* The Pareto front of a large study against the definition, and the limit
 * on the number of modes: 50,000 modes answer at once with an error. */
static void test_many_modes(rl_model *mlp) {
    cJSON *req = cJSON_CreateObject();
    cJSON_AddItemToObject(req, "hardware", many_modes(RL_STUDY_MAX_POWER_MODES));
    cJSON_AddNumberToObject(req, "batch", 4096);
    cJSON_AddFalseToObject(req, "layers");
    cJSON_AddItemToObject(req, "study", cJSON_Parse("{\"kind\": \"power_modes\", \"max_slowdown\": 0.5}"));
    cJSON *res = analyze(mlp, req);
    CHECK(is_ok(res), "a study of %d modes", RL_STUDY_MAX_POWER_MODES);
    const cJSON *rows = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "study"), "rows");
    int n = cJSON_GetArraySize(rows), front = 0, wrong = 0;
    double *t = malloc((size_t)n * sizeof *t), *e = malloc((size_t)n * sizeof *e);
    for (int i = 0; i < n; i++) {
        t[i] = num_at(cJSON_GetArrayItem(rows, i), "forecast_s");
        e[i] = num_at(cJSON_GetArrayItem(rows, i), "forecast_energy_j");
    }
    for (int i = 0; i < n; i++) {
        bool dominated = false;
        for (int j = 0; j < n && !dominated; j++)
            dominated = j != i && t[j] <= t[i] && e[j] <= e[i] && (t[j] < t[i] || e[j] < e[i]);
        bool pareto = cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, i), "pareto"));
        front += pareto;
        wrong += pareto == dominated;
    }
    CHECK(n == RL_STUDY_MAX_POWER_MODES && wrong == 0 && front > 1, "%d modes: %d on the front, %d flags wrong", n, front, wrong);
    free(t);
    free(e);
    cJSON_Delete(res);

    req = cJSON_CreateObject();
    cJSON_AddItemToObject(req, "hardware", many_modes(50000));
    cJSON_AddFalseToObject(req, "layers");
    cJSON_AddItemToObject(req, "study", cJSON_Parse("{\"kind\": \"power_modes\"}"));
    res = analyze(mlp, req);
    const cJSON *err = cJSON_GetObjectItem(res, "error");
    CHECK(!is_ok(res) && strcmp(str_at(err, "code"), "too_many_power_modes") == 0 && strstr(str_at(err, "message"), "50000"),
          "50,000 modes: %s %s", str_at(err, "code"), str_at(err, "message"));
    cJSON_Delete(res);
}

/* ------------------------------------------------------ bad requests -- */
static void test_bad_requests(rl_model *mlp) {
    static const struct { const char *study, *where; } bad[] = {
        {"3", "study"},
        {"{}", "study"},
        {"{\"kind\": \"nonsense\"}", "study.kind"},
        {"{\"kind\": \"batch_sweep\", \"batches\": []}", "study.batches"},
        {"{\"kind\": \"batch_sweep\", \"batches\": [0]}", "study.batches"},
        {"{\"kind\": \"batch_sweep\", \"batches\": [2.5]}", "study.batches"},
        {"{\"kind\": \"batch_sweep\", \"batches\": \"1..8\"}", "study.batches"},
        {"{\"kind\": \"batch_sweep\", \"batches\": [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
         "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}", "study.batches"},
        {"{\"kind\": \"compare\"}", "study.hardware"},
        {"{\"kind\": \"compare\", \"hardware\": []}", "study.hardware"},
        {"{\"kind\": \"compare\", \"hardware\": [{}], \"power_modes\": [null, null]}", "study.power_modes"},
        {"{\"kind\": \"compare\", \"hardware\": [{}], \"power_modes\": [3]}", "study.power_modes"},
        {"{\"kind\": \"power_modes\", \"max_slowdown\": -0.1}", "study.max_slowdown"},
        {"{\"kind\": \"power_modes\", \"max_slowdown\": \"5%\"}", "study.max_slowdown"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cJSON *req = request("jetson-agx-orin", NULL, 1);
        cJSON *st = cJSON_Parse(bad[i].study);
        CHECK(st != NULL, "test request %zu is not JSON", i);
        cJSON_AddItemToObject(req, "study", st);
        cJSON *res = analyze(mlp, req);
        const cJSON *err = cJSON_GetObjectItem(res, "error");
        CHECK(!is_ok(res) && strcmp(str_at(err, "code"), "bad_request") == 0, "study %s: want bad_request, got %s",
              bad[i].study, str_at(err, "code"));
        CHECK(strcmp(str_at(err, "where"), bad[i].where) == 0, "study %s: where '%s', want '%s'", bad[i].study,
              str_at(err, "where"), bad[i].where);
        CHECK(strlen(str_at(err, "message")) > 20, "study %s: a message that says what to do", bad[i].study);
        CHECK(!cJSON_GetObjectItem(res, "study"), "an error response has no study");
        cJSON_Delete(res);
    }
    /* the model is still usable after the errors */
    cJSON *res = analyze(mlp, request("unit", NULL, 1));
    CHECK(is_ok(res), "analysis after bad studies");
    cJSON_Delete(res);
    /* "study": null is no study */
    cJSON *req = request("unit", NULL, 1);
    cJSON_AddNullToObject(req, "study");
    res = analyze(mlp, req);
    CHECK(is_ok(res) && !cJSON_GetObjectItem(res, "study"), "study: null is ignored");
    cJSON_Delete(res);
}

int main(int argc, char **argv) {
    tests_dir = argc > 1 ? argv[1] : ".";
    root_dir = argc > 2 ? argv[2] : "..";
    rl_model *mlp = load_model("mlp.onnx");
    rl_model *transformer = load_model("transformer_block.onnx");
    rl_model *conv = load_model("conv_net.onnx");
    if (mlp && transformer && conv) {
        test_compare(mlp);
        test_batch_sweep(mlp, transformer, conv);
        test_power_modes(mlp);
        test_many_modes(mlp);
        test_bad_requests(mlp);
    }
    rl_model_free(mlp);
    rl_model_free(transformer);
    rl_model_free(conv);
    return check_report("study");
}
