/* The golden numbers of the design documents (docs/model.md cites them), checked against the formulas the analysis
 * uses and the profiles rooflens ships:
 *  - seed 000's worked example of the three SOL models,
 *  - seed 004's Jetson AGX Orin MAXN balance points and peak efficiencies,
 *  - seed 002's V100 tensor-core peak and machine balance,
 *  - seed 003's H100 and TPU v5e critical intensities,
 *  - the same seed 004 figures as the analysis reports them (the JSON
 *    roofline object), per-layer energy, and seed 002's launch overhead in
 *    the time model (overhead-bound layers, launch floor, the
 *    overhead_dominated warning). */
#include <cjson/cJSON.h>

#include "check.h"
#include "check_model.h"
#include "hw.h"
#include "roofline.h"
#include "rooflens.h"

static const char *root_dir;

static cJSON *load_hw(const char *id) { return check_read_hw(NULL, root_dir, id); }

static void seed000_worked_example(void) {
    /* 10^6 MACs on tensor cores, 5·10^4 other ops, 25·10^6 unfused and 10·10^6
     * fused elements at 2 bytes; the example's machine moves 50e6/49049 bytes
     * per cycle. Its cycle counts are truncated to whole cycles. */
    const double clock = 1e9, bytes_per_cycle = 1019.38;
    const double bw = bytes_per_cycle * clock;
    const double t_compute = 2645 / clock; /* the example's compute cycles */
    double unfused = rl_roof_time(t_compute, 25e6 * 2 / bw);
    double fused = rl_roof_time(t_compute, 10e6 * 2 / bw);
    CHECK((long)(unfused * clock) == 49049, "unfused cycles %ld, want 49049", (long)(unfused * clock));
    CHECK((long)(fused * clock) == 19619, "fused cycles %ld, want 19619", (long)(fused * clock));
    CHECK_NEAR(unfused / fused, 2.5, 1e-9, "fused speedup");
    /* per-op sums are never below the whole-graph roofline */
    double c[3] = {1, 5, 2}, m[3] = {4, 1, 3}, per_op = 0, sc = 0, sm = 0;
    for (int i = 0; i < 3; i++) { per_op += rl_roof_time(c[i], m[i]); sc += c[i]; sm += m[i]; }
    CHECK(per_op >= rl_roof_time(sc, sm), "per-op sum %g below whole graph %g", per_op, rl_roof_time(sc, sm));
}

static void seed004_orin_maxn(void) {
    cJSON *p = load_hw("jetson-agx-orin");
    rl_hw hw;
    rl_error err = {0};
    CHECK(rl_hw_parse(p, "maxn", &hw, &err) == 0, "parse orin: %s", err.message);
    double peak = hw.matrix[RL_P_FP32], bw = hw.mem_bw[0];
    CHECK_NEAR(peak, 14.7e12, 1e-9, "Orin MAXN FP32 peak");
    CHECK_NEAR(bw, 164.4e9, 1e-9, "Orin MAXN bandwidth");
    CHECK_NEAR(rl_time_balance(peak, bw), 89.4, 0.001, "Orin time balance 89.4 FLOP/B");
    CHECK_NEAR(rl_energy_balance(hw.e_flop, hw.e_byte, hw.static_w, peak, bw), 39.8, 0.002,
               "Orin energy balance with static power 39.8");
    CHECK_NEAR(rl_energy_balance_no_static(hw.e_flop, hw.e_byte), 36.6, 0.002,
               "Orin energy balance without static power (seed: 36.5 in the figure, 36.6x ratio in the text)");
    CHECK_NEAR(rl_peak_flop_per_j_no_static(hw.e_flop), 0.26e12, 0.005, "Orin peak 0.26 TFLOP/J without static");
    CHECK_NEAR(rl_peak_flop_per_j(hw.e_flop, hw.static_w, peak), 0.196e12, 0.01, "Orin peak 0.196 TFLOP/J with static");
    /* FP16: 33.0 TFLOP/s at 159.7 GB/s; the seed prints 208.4 from unrounded figures */
    CHECK_NEAR(rl_time_balance(hw.matrix[RL_P_FP16], 159.7e9), 208.4, 0.01, "Orin FP16 balance 208.4");
    /* Power modes change the roofline: the 0.7 GHz memory mode raises the energy per byte */
    rl_hw low;
    CHECK(rl_hw_parse(p, "emc-700mhz", &low, &err) == 0, "parse orin emc-700mhz: %s", err.message);
    CHECK_NEAR(low.e_byte, 444.9e-12, 1e-6, "Orin 0.7 GHz memory: 444.9 pJ/B");
    CHECK(low.mem_bw[0] < bw, "a slower memory clock must lower bandwidth");
    rl_error err2 = {0};
    CHECK(rl_hw_parse(p, "no-such-mode", &low, &err2) != 0 && strcmp(err2.code, "unknown_power_mode") == 0,
          "unknown power mode must be an error");
    cJSON_Delete(p);
}

static void seed002_v100(void) {
    cJSON *p = load_hw("v100-sxm2");
    rl_hw hw;
    rl_error err = {0};
    CHECK(rl_hw_parse(p, NULL, &hw, &err) == 0, "parse v100: %s", err.message);
    CHECK_NEAR(80 * 8 * 1.312e9 * 64 * 2, 107.479e12, 1e-5, "V100 tensor core formula");
    CHECK_NEAR(hw.matrix[RL_P_FP16], 107.479e12, 1e-5, "V100 FP16 matrix peak");
    CHECK_NEAR(rl_time_balance(hw.matrix[RL_P_FP16], hw.mem_bw[0]), 129.68, 1e-4, "V100 balance 129.68");
    CHECK_NEAR(hw.launch_s, 4.2e-6, 1e-9, "V100 launch overhead");
    cJSON_Delete(p);
}

static void seed003_h100_tpu(void) {
    cJSON *p = load_hw("h100-sxm");
    rl_hw hw;
    rl_error err = {0};
    CHECK(rl_hw_parse(p, NULL, &hw, &err) == 0, "parse h100: %s", err.message);
    CHECK_NEAR(rl_time_balance(hw.matrix[RL_P_BF16], hw.mem_bw[0]), 298, 0.03, "H100 bf16 critical intensity ~298");
    cJSON_Delete(p);
    p = load_hw("tpu-v5e");
    CHECK(rl_hw_parse(p, NULL, &hw, &err) == 0, "parse tpu-v5e: %s", err.message);
    CHECK_NEAR(rl_time_balance(hw.matrix[RL_P_BF16], hw.mem_bw[0]), 240, 0.01, "TPU v5e ~240 FLOP/B");
    CHECK_NEAR(hw.matrix[RL_P_INT8], 3.94e14, 1e-9, "TPU v5e int8");
    cJSON_Delete(p);
}

/* ---- through the JSON API: what a user of the CLI or the page sees */
static cJSON *analyze_fixture(const char *model, const char *hw_id, const char *extra_json) {
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/fixtures/models/%s", root_dir, model);
    size_t len = 0;
    char *bytes = check_read_file(path, &len);
    CHECK(bytes != NULL, "cannot read %s", path);
    if (!bytes) return cJSON_CreateObject();
    cJSON *req = extra_json ? cJSON_Parse(extra_json) : cJSON_CreateObject();
    cJSON_AddItemToObject(req, "hardware", load_hw(hw_id));
    char *text = cJSON_PrintUnformatted(req);
    char *out = rl_analyze(text, bytes, len);
    cJSON *res = cJSON_Parse(out);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "ok")), "analysis of %s on %s failed: %.300s", model, hw_id, out);
    rl_free(out);
    free(text);
    free(bytes);
    cJSON_Delete(req);
    return res;
}

static double jnum(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *jstr(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static bool has_warning(const cJSON *res, const char *code) {
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(res, "warnings")) if (strcmp(jstr(w, "code"), code) == 0) return true;
    return false;
}

static const char *warning_message(const cJSON *res, const char *code) {
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(res, "warnings")) if (strcmp(jstr(w, "code"), code) == 0) return jstr(w, "message");
    return "";
}

static void seed004_orin_json(void) {
    static const char *const sols[] = {"unfused", "fused"};
    for (int m = 0; m < 2; m++) {
        char req[128];
        snprintf(req, sizeof req, "{\"precision\": \"fp32\", \"batch\": 1, \"sol\": \"%s\"}", sols[m]);
        cJSON *res = analyze_fixture("mlp.onnx", "jetson-agx-orin", req);
        const cJSON *ro = cJSON_GetObjectItem(res, "roofline");
        CHECK(strcmp(jstr(cJSON_GetObjectItem(res, "hardware"), "power_mode"), "maxn") == 0, "default mode is MAXN");
        CHECK(strcmp(jstr(ro, "precision"), "fp32") == 0, "roofline precision fp32");
        CHECK_NEAR(jnum(ro, "time_balance"), 89.4, 0.001, "JSON time balance 89.4");
        CHECK_NEAR(jnum(ro, "energy_balance"), 39.8, 0.002, "JSON energy balance 39.8");
        CHECK_NEAR(jnum(ro, "energy_balance_no_static"), 36.6, 0.002, "JSON energy balance without static 36.6");
        CHECK_NEAR(jnum(ro, "peak_flop_per_j"), 0.196e12, 0.005, "JSON peak 0.196 TFLOP/J");
        CHECK_NEAR(jnum(ro, "peak_flop_per_j_no_static"), 0.26e12, 0.005, "JSON peak 0.26 TFLOP/J without static");
        /* seed 004: the balance with static power lies left of the time balance */
        CHECK(jnum(ro, "energy_balance") < jnum(ro, "time_balance"), "energy balance left of time balance");
        /* The energy roof the charts draw, sampled by the core: seed 004's
         * curve 1/(ε_flop + ε_mop/I + π0·max(1/peak, 1/(BW·I))) with the
         * measured 3.86 pJ/FLOP, 141.38 pJ/B and 17.9 W; it rises with the
         * intensity to the peaks above and never exceeds the roof without
         * static power. */
        const cJSON *roof = cJSON_GetObjectItem(ro, "energy_roof"), *pt;
        double bw = jnum(ro, "bandwidth_Bps"), last_x = 0, last_y = 0;
        int points = 0;
        cJSON_ArrayForEach(pt, roof) {
            double x = jnum(pt, "intensity"), y = jnum(pt, "flop_per_j"), y0 = jnum(pt, "flop_per_j_no_static");
            double spf = 1 / 14.7e12 > 1 / (bw * x) ? 1 / 14.7e12 : 1 / (bw * x);
            CHECK_NEAR(y, 1 / (3.86e-12 + 141.38e-12 / x + 17.9 * spf), 1e-9, "energy roof at an intensity");
            CHECK_NEAR(y0, 1 / (3.86e-12 + 141.38e-12 / x), 1e-9, "energy roof without static power");
            CHECK(x > last_x && y >= last_y && y <= y0, "energy roof ascends below the roof without static power");
            last_x = x, last_y = y;
            points++;
        }
        CHECK(points > 60 && last_x >= 1e6, "energy roof spans the intensities (%d points to %g)", points, last_x);
        CHECK_NEAR(last_y, jnum(ro, "peak_flop_per_j"), 1e-3, "energy roof reaches the peak with static power");
        /* Per layer: E = ε_flop·W + ε_mop·Q + π0·t with the traffic of the
         * chosen model (every tensor unfused; weights and model boundary
         * fused) and t the layer's share of the model's time; the matrix
         * FLOPs at the measured 3.86 pJ (fp32 on the Tensor Cores) and the
         * vector FLOPs on the CUDA cores, which draw the same power at their
         * 3.49 TFLOP/s peak; energy-bound where the FLOP energy outweighs
         * the byte energy; the model's energy is their sum, and there is one
         * energy figure. */
        double sum = 0;
        const double e_vec = 3.86e-12 * 14.7e12 / 3.49e12;
        const cJSON *l;
        cJSON_ArrayForEach(l, cJSON_GetObjectItem(res, "layers")) {
            double wm = jnum(l, "matrix_flops"), wv = jnum(l, "vector_flops");
            double q = jnum(l, m ? "fused_bytes" : "bytes"), t = jnum(l, "t");
            double dyn = 3.86e-12 * wm + e_vec * wv;
            CHECK_NEAR(jnum(l, "energy_j"), dyn + 141.38e-12 * q + 17.9 * t, 1e-12, sols[m]);
            CHECK(strcmp(jstr(l, "energy_bound"), dyn >= 141.38e-12 * q ? "compute" : "memory") == 0,
                  "layer %s energy bound %s", jstr(l, "name"), jstr(l, "energy_bound"));
            sum += jnum(l, "energy_j");
        }
        const cJSON *ch = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "sol"), "chosen");
        CHECK_NEAR(jnum(cJSON_GetObjectItem(res, "totals"), "energy_j"), sum, 1e-12, "model energy = sum of layers");
        CHECK(jnum(cJSON_GetObjectItem(res, "totals"), "energy_j") == jnum(ch, "energy_j"), "one energy figure");
        cJSON_Delete(res);
    }
}

static void seed002_launch_overhead(void) {
    /* mlp at batch 1 on H100: fc1, relu1, fc2, softmax take nanoseconds on
     * the roofline, far below the 1.27 us a kernel costs (a CUDA graph's
     * replay, measured: docs/validation.md). Unfused they are 4
     * kernels; fused, relu1 joins fc1's kernel and softmax fc2's (epilogue
     * fusion), 2 kernels. Each model's time is max(roofline, its own floor). */
    cJSON *res = analyze_fixture("mlp.onnx", "h100-sxm", "{\"batch\": 1}");
    const cJSON *to = cJSON_GetObjectItem(res, "totals"), *sol = cJSON_GetObjectItem(res, "sol");
    const cJSON *un = cJSON_GetObjectItem(sol, "unfused"), *fu = cJSON_GetObjectItem(sol, "fused");
    const cJSON *ch = cJSON_GetObjectItem(sol, "chosen");
    const double t0 = jnum(cJSON_GetObjectItem(res, "hardware"), "launch_overhead_s");
    CHECK_NEAR(t0, 1.27e-6, 1e-12, "H100 launch overhead (a CUDA graph's replay, measured)");
    CHECK(jnum(un, "kernels") == 4, "4 unfused kernels, got %g", jnum(un, "kernels"));
    CHECK(jnum(fu, "kernels") == 2, "2 fused kernels, got %g", jnum(fu, "kernels"));
    CHECK_NEAR(jnum(un, "time_s"), 4 * t0, 1e-12, "unfused time = its launch floor");
    CHECK_NEAR(jnum(fu, "launch_floor_s"), 2 * t0, 1e-12, "fused launch floor = its own kernels x overhead");
    CHECK_NEAR(jnum(ch, "time_s"), 2 * t0, 1e-12, "chosen (fused) time = its launch floor");
    CHECK(strcmp(jstr(ch, "bound"), "overhead") == 0, "bound overhead, got %s", jstr(ch, "bound"));
    CHECK(jnum(ch, "lower_bound_s") <= jnum(ch, "time_s") && jnum(ch, "time_s") <= jnum(ch, "upper_bound_s"),
          "the headline lies within its own bounds");
    CHECK(jnum(to, "t") == jnum(ch, "time_s") && jnum(to, "kernels") == 2, "totals are the chosen model's");
    double sum = 0;
    const cJSON *l;
    cJSON_ArrayForEach(l, cJSON_GetObjectItem(res, "layers")) {
        sum += jnum(l, "t");
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(l, "kernel")), "layer %s is a kernel", jstr(l, "name"));
        const char *nm = jstr(l, "name");
        const cJSON *into = cJSON_GetObjectItem(l, "fused_into");
        int want = !strcmp(nm, "relu1") ? 0 : !strcmp(nm, "softmax") ? 2 : -1;
        CHECK(want < 0 ? cJSON_IsNull(into) : jnum(l, "fused_into") == want, "layer %s fused_into", nm);
    }
    CHECK_NEAR(sum, jnum(ch, "time_s"), 1e-12, "layer times are shares of the chosen time");
    CHECK(has_warning(res, "overhead_dominated"), "a launch-bound model gets overhead_dominated");
    /* its times in the core's one number format, as every surface writes them (not 1.27e-06 s) */
    const char *msg = warning_message(res, "overhead_dominated");
    CHECK(strstr(msg, "2 kernels x 1.27 \xc2\xb5s = 2.54 \xc2\xb5s") != NULL && strstr(msg, "e-0") == NULL,
          "the warning's times have units: %s", msg);
    cJSON_Delete(res);
    /* at batch 2^20 the same model moves ~300 MB: launches no longer matter */
    res = analyze_fixture("mlp.onnx", "h100-sxm", "{\"batch\": 1048576}");
    ch = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "sol"), "chosen");
    CHECK(!has_warning(res, "overhead_dominated"), "a large batch is not overhead-dominated");
    CHECK(strcmp(jstr(ch, "bound"), "overhead") != 0, "batch 2^20 is %s", jstr(ch, "bound"));
    CHECK_NEAR(jnum(ch, "launch_floor_s"), 2 * 1.27e-6, 1e-12, "launch floor is per kernel, not per sample");
    cJSON_Delete(res);
}

/* The kernel rule (docs/model.md §4) on the BERT-style block at batch 8,
 * seq 128: shape arithmetic (Shape, Gather/Unsqueeze/Concat on int64 dims)
 * and views (Reshape) launch nothing; every MatMul is a kernel of its own,
 * and the bias Add after a projection joins its kernel in the fused models. */
static void kernel_rule(void) {
    cJSON *res = analyze_fixture("transformer_block.onnx", "h100-sxm", "{\"batch\": 8, \"dims\": {\"seq\": 128}}");
    const cJSON *layers = cJSON_GetObjectItem(res, "layers"), *l;
    int matmuls = 0, shape_ops = 0, bias_fused = 0, kernels = 0, fused = 0;
    cJSON_ArrayForEach(l, layers) {
        const char *op = jstr(l, "op");
        bool kernel = cJSON_IsTrue(cJSON_GetObjectItem(l, "kernel"));
        kernels += kernel;
        fused += kernel && cJSON_IsNull(cJSON_GetObjectItem(l, "fused_into"));
        if (!strcmp(op, "Shape") || !strcmp(op, "Unsqueeze") || !strcmp(op, "Concat") || !strcmp(op, "Reshape")) {
            shape_ops++;
            CHECK(!kernel, "%s (%s) is not a kernel", jstr(l, "name"), op);
        }
        if (!strcmp(op, "MatMul")) {
            matmuls++;
            CHECK(kernel && cJSON_IsNull(cJSON_GetObjectItem(l, "fused_into")), "%s is a kernel of its own", jstr(l, "name"));
        }
        const char *slash = strrchr(jstr(l, "name"), '/');
        if (!strcmp(op, "Add") && slash && !strcmp(slash, "/Add") && strstr(jstr(l, "name"), "dense") ) {
            const cJSON *into = cJSON_GetObjectItem(l, "fused_into");
            const cJSON *p = cJSON_IsNumber(into) ? cJSON_GetArrayItem(layers, (int)into->valuedouble) : NULL;
            CHECK(p && !strcmp(jstr(p, "op"), "MatMul"), "bias %s joins its MatMul's kernel", jstr(l, "name"));
            bias_fused += p != NULL;
        }
    }
    const cJSON *sol = cJSON_GetObjectItem(res, "sol");
    CHECK(matmuls >= 6 && shape_ops >= 10 && bias_fused >= 2, "the block has its MatMuls (%d), shape ops (%d), fused biases (%d)",
          matmuls, shape_ops, bias_fused);
    CHECK(jnum(cJSON_GetObjectItem(sol, "unfused"), "kernels") == kernels, "unfused kernels = kernel layers");
    CHECK(jnum(cJSON_GetObjectItem(sol, "fused"), "kernels") == fused && fused < kernels, "fused: %d of %d", fused, kernels);
    cJSON_Delete(res);
}

int main(int argc, char **argv) {
    root_dir = argc > 2 ? argv[2] : "..";
    seed000_worked_example();
    seed004_orin_maxn();
    seed002_v100();
    seed003_h100_tpu();
    seed004_orin_json();
    seed002_launch_overhead();
    kernel_rule();
    return check_report("golden");
}
