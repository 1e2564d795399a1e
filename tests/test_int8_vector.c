/* A quantized model's vector work runs at the best vector rate an engine
 * can use (docs/model.md §2): in INT8 the Softmax, LayerNorm and GELU of a
 * transformer block are timed at the FP16 vector rate when it is faster
 * than the profile's INT8 vector row (an H100: 133.8 against 66.9 TFLOP/s),
 * with the FP16 unit's energy; the matrix work keeps the INT8 matrix peak;
 * an FP32 model keeps its own rate. The roofline's peak_vector_flops shows
 * the rate used. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "check_model.h"
#include "rooflens.h"

static const char *tests_dir, *root_dir;

static double vector_peak(const cJSON *hw, const char *prec) {
    char path[64];
    snprintf(path, sizeof path, "compute.%s.vector.value", prec);
    return check_num(hw, path);
}

/* The block at `prec` on the H100: every vector-only layer's compute time
 * against its vector FLOPs at `want_peak`. */
static void block_at(rl_model *m, const char *prec, double want_peak) {
    cJSON *req = cJSON_CreateObject();
    cJSON_AddItemToObject(req, "hardware", check_read_hw(tests_dir, root_dir, "h100-sxm"));
    cJSON_AddStringToObject(req, "precision", prec);
    cJSON_AddItemToObject(req, "dims", cJSON_Parse("{\"seq\": 128}"));
    cJSON *res = check_analyze(m, req);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "ok")), "%s: %s", prec, check_str(res, "error.message"));
    CHECK(check_num(res, "roofline.peak_vector_flops") == want_peak, "%s: roofline vector peak %g, want %g", prec,
          check_num(res, "roofline.peak_vector_flops"), want_peak);
    int seen = 0;
    const cJSON *l;
    cJSON_ArrayForEach(l, cJSON_GetObjectItem(res, "layers")) {
        double v = check_num(l, "vector_flops");
        /* the layers of that precision (a Where on a boolean mask is timed at its own, fp32) */
        if (check_num(l, "matrix_flops") != 0 || !(v > 0) || strcmp(check_str(l, "precision"), prec)) continue;
        double tc = check_num(l, "t_compute");
        CHECK(fabs(tc - v / want_peak) <= 1e-12 * tc, "%s: %s (%s) t_compute %.17g, want %g / %g", prec,
              check_str(l, "name"), check_str(l, "op"), tc, v, want_peak);
        seen++;
    }
    CHECK(seen >= 3, "%s: the block's vector layers (Softmax, LayerNorm, GELU...): %d", prec, seen);
    cJSON_Delete(res);
}

int main(int argc, char **argv) {
    tests_dir = argc > 1 ? argv[1] : "tests";
    root_dir = argc > 2 ? argv[2] : ".";
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/models/transformer_block.onnx", tests_dir);
    rl_model *m = check_read_model(path);
    cJSON *hw = check_read_hw(tests_dir, root_dir, "h100-sxm");
    if (m && hw) {
        double fp16 = vector_peak(hw, "fp16"), int8 = vector_peak(hw, "int8"), fp32 = vector_peak(hw, "fp32");
        CHECK(fp16 > int8, "the H100 profile's FP16 vector peak %g above its INT8 row %g", fp16, int8);
        block_at(m, "int8", fp16);
        block_at(m, "fp16", fp16);
        block_at(m, "fp32", fp32);
    }
    cJSON_Delete(hw);
    rl_model_free(m);
    return check_report("test_int8_vector");
}
