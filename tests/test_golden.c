/* The golden numbers of MODEL.md, checked against the formulas the analysis
 * uses and the profiles rooflens ships:
 *  - seed 000's worked example of the three SOL models,
 *  - seed 004's Jetson AGX Orin MAXN balance points and peak efficiencies,
 *  - seed 002's V100 tensor-core peak and machine balance,
 *  - seed 003's H100 and TPU v5e critical intensities. */
#include <cjson/cJSON.h>

#include "check.h"
#include "hw.h"
#include "roofline.h"

static const char *root_dir;

static cJSON *load_hw(const char *id) {
    char path[1024];
    snprintf(path, sizeof path, "%s/hw/%s.json", root_dir, id);
    char *text = check_read_file(path, NULL);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    free(text);
    CHECK(j != NULL, "cannot load %s", path);
    return j;
}

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

int main(int argc, char **argv) {
    root_dir = argc > 2 ? argv[2] : "..";
    seed000_worked_example();
    seed004_orin_maxn();
    seed002_v100();
    seed003_h100_tpu();
    return check_report("golden");
}
