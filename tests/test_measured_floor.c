/* The floor is a floor on real runs: every GPU run recorded in docs/data
 * (docs/validation.md) took at least the speed of light rooflens gives for
 * the same graph, batch and precision on the measured device's shipped
 * profile, and the forecast is never below that floor. The graphs are the
 * ones measured, kept without their weights in tests/fixtures/models/torch.
 * The same holds for the results others published
 * (docs/data/published-results.json: TensorRT, FasterTransformer and MLPerf
 * runs on A100s, H100s, L4s, L40Ss, T4s, V100s and a Jetson AGX Orin), and
 * the four of them that set a profile's matrix compute fraction are forecast
 * within 3 % of their time.
 * A launch overhead above what a kernel replayed from a CUDA graph costs
 * (seed 002's eager 4.2 us) fails this on the H200: ShuffleNetV2 and
 * ViT-B/16 at batch 1 ran below such a floor. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "check_model.h"

static const char *tests_dir, *root_dir;

/* One measured run against the floor; returns 1 when it was checked. An
 * anchor (a published run that sets its device's matrix compute fraction,
 * tools/validate/published.py --derive) must also be forecast within 3 %
 * of its time, as the profile's source says: a change to the forecast that
 * moves it needs the fraction derived again. */
static int check_run(const char *data, const cJSON *hw, const char *model, int batch, const char *precision,
                     const char *stack, double measured_s, const cJSON *dims, bool anchor) {
    const char *file = strncmp(model, "bert_base", 9) == 0 ? "bert_base" : model;
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/models/torch/%s.onnx", tests_dir, file);
    rl_model *m = check_read_model(path);
    if (!m) return 0;
    cJSON *req = cJSON_CreateObject();
    cJSON_AddItemToObject(req, "hardware", cJSON_Duplicate(hw, true));
    cJSON_AddNumberToObject(req, "batch", batch);
    cJSON_AddStringToObject(req, "precision", precision);
    cJSON_AddItemToObject(req, "dims", dims ? cJSON_Duplicate(dims, true) : cJSON_Parse("{\"sequence\": 128}"));
    cJSON *res = check_analyze(m, req);
    double floor_s = check_num(res, "sol.chosen.time_s"), forecast_s = check_num(res, "forecast.time_s");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "ok")) && floor_s > 0, "%s: %s at batch %d analysed", data, model,
          batch);
    CHECK(floor_s <= measured_s, "%s: %s at batch %d (%s) ran in %.4g s, below its floor %.4g s", data, model, batch,
          stack, measured_s, floor_s);
    CHECK(forecast_s >= floor_s, "%s: %s at batch %d: forecast %.4g s below the floor %.4g s", data, model, batch,
          forecast_s, floor_s);
    if (anchor)
        CHECK(fabs(forecast_s / measured_s - 1) <= 0.03, "%s: anchor %s at batch %d on %s: forecast %.4g s, published "
              "%.4g s: derive its fraction again (tools/validate/published.py --derive --write)", data, model, batch,
              check_str(hw, "id"), forecast_s, measured_s);
    cJSON_Delete(res);
    rl_model_free(m);
    return 1;
}

static cJSON *read_data(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/docs/data/%s", root_dir, name);
    return check_read_json(path);
}

/* tools/validate/forecast_gpu.py's runs: {model, batch, precision, stack, time_s}. */
static int h200_runs(void) {
    static const char name[] = "h200-forecast-2026-11-27.json";
    cJSON *data = read_data(name), *hw = check_read_hw(tests_dir, root_dir, "h200");
    int n = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(data, "runs"))
        n += check_run(name, hw, check_str(r, "model"), (int)check_num(r, "batch"), check_str(r, "precision"),
                       check_str(r, "stack"), check_num(r, "time_s"), NULL, false);
    cJSON_Delete(data), cJSON_Delete(hw);
    return n;
}

/* tools/validate/gpu.py's models: {model, batch, precision, eager_s, graph_s}. */
static int h100_runs(void) {
    static const char name[] = "h100-sxm-measured-2026-11-22.json";
    cJSON *data = read_data(name), *hw = check_read_hw(tests_dir, root_dir, "h100-sxm");
    int n = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(data, "models")) {
        const char *model = check_str(r, "model");
        int batch = (int)check_num(r, "batch");
        n += check_run(name, hw, model, batch, check_str(r, "precision"), "graph", check_num(r, "graph_s"), NULL, false);
        n += check_run(name, hw, model, batch, check_str(r, "precision"), "eager", check_num(r, "eager_s"), NULL, false);
    }
    cJSON_Delete(data), cJSON_Delete(hw);
    return n;
}

/* docs/data/published-results.json: each result's published figure as the
 * time of one batch, against the floor of its graph, profile, precision,
 * batch and dims (its "rooflens" member). */
static int published_runs(void) {
    static const char name[] = "published-results.json";
    cJSON *data = read_data(name);
    int n = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(data, "results")) {
        const cJSON *q = cJSON_GetObjectItem(r, "rooflens");
        const char *metric = check_str(r, "metric");
        double value = check_num(r, "value"), batch = check_num(q, "batch"), batch_s = NAN;
        if (!strncmp(metric, "latency_ms", 10)) batch_s = value * 1e-3;
        else if (!strcmp(metric, "throughput_samples_per_s")) batch_s = batch / value;
        CHECK(batch_s > 0, "%s: metric %s is one this test reads", name, metric);
        cJSON *hw = check_read_hw(tests_dir, root_dir, check_str(q, "hw"));
        n += check_run(name, hw, check_str(q, "model"), (int)batch, check_str(q, "precision"), check_str(r, "stack"),
                       batch_s, cJSON_GetObjectItem(q, "dims"), cJSON_GetObjectItem(q, "anchor") != NULL);
        cJSON_Delete(hw);
    }
    cJSON_Delete(data);
    return n;
}

int main(int argc, char **argv) {
    tests_dir = argc > 1 ? argv[1] : ".";
    root_dir = argc > 2 ? argv[2] : "..";
    int h200 = h200_runs(), h100 = h100_runs(), published = published_runs();
    /* every recorded run has its graph here: none is skipped */
    CHECK(h200 == 91, "H200: %d runs checked, want the data's 91", h200);
    CHECK(h100 == 18, "H100: %d runs checked, want 9 models x 2 stacks", h100);
    CHECK(published == 34, "published: %d results checked, want the data's 34", published);
    printf("floor below every measured run: %d on the H200, %d on the H100, %d published\n", h200, h100, published);
    return check_report("measured_floor");
}
