/* The LLM view's forecast over several devices (docs/llm.md, docs/parallel.md)
 * against hand arithmetic on the tiny Llama-shaped decoder of
 * tools/make-models/llm_model.py --suite (argv[3]):
 *  - the collectives' forecast: each collective's bytes at the link's
 *    achievable rate (bandwidth × links × link_fraction), its ring steps ×
 *    latency, and one kernel's fixed cost, summed over the plan's list;
 *  - kernels per device: on a profile where a kernel's fixed cost is
 *    everything, tp = 2 pays every kernel on each device, so the forecast
 *    per token is one device's plus the collectives (halving it, as the
 *    floor's work is halved, would be wrong);
 *  - on a profile where the work is everything, the split work shrinks: the
 *    forecast per token falls below one device's, stays at or above the
 *    tp = 2 floor, and is the answer the view leads with;
 *  - tp = 1 is the one-device forecast, exactly, energies too;
 *  - the energy over tp = 2 and pp = 2 is every device's: each layer's
 *    dynamic energy at every device's share and the static power of all
 *    four devices over the plan's time, worked out from the layer rows; the
 *    LLM view's energy per token divides it by the tokens the group makes. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_llm.h"
#include "rooflens.h"

/* The H100 SXM profile with every kernel's fixed cost set to `kernel_s`
 * (the stack's and each class's) and, when `link_fraction` > 0, that share
 * of the link given. */
static cJSON *h100_with(double kernel_s, double link_fraction) {
    cJSON *hw = llm_hw("h100-sxm");
    cJSON *fc = cJSON_GetObjectItem(hw, "forecast");
    cJSON_ReplaceItemInObject(fc, "kernel_overhead_s", cJSON_CreateNumber(kernel_s));
    cJSON *cls;
    cJSON_ArrayForEach(cls, cJSON_GetObjectItem(fc, "classes")) {
        if (cJSON_GetObjectItem(cls, "kernel_overhead_s"))
            cJSON_ReplaceItemInObject(cls, "kernel_overhead_s", cJSON_CreateNumber(kernel_s));
    }
    if (link_fraction > 0) cJSON_AddNumberToObject(fc, "link_fraction", link_fraction);
    return hw;
}

static double figure(const cJSON *hw, const char *path) {
    const cJSON *v = check_at(hw, path);
    if (cJSON_IsObject(v)) v = cJSON_GetObjectItem(v, "value");
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The answer of `name` on `hw` (consumed) with `extra` (JSON text) merged in. */
static cJSON *run(const char *name, cJSON *hw, const char *extra) {
    rl_model *m = llm_model(name);
    cJSON *req = cJSON_Parse(extra);
    CHECK(m && req, "test setup: %s and %s", name, extra);
    if (!m || !req) {
        rl_model_free(m);
        cJSON_Delete(req);
        cJSON_Delete(hw);
        return NULL;
    }
    cJSON_AddItemToObject(req, "hardware", hw);
    cJSON *res = check_analyze(m, req);
    rl_model_free(m);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "ok")), "%s %s failed: %s", name, extra,
          check_str(res, "error.message"));
    return res;
}

/* A decode step of G = 1 token after P = 8: its first and last steps are one. */
#define LLM_ONE_STEP "\"llm\": {\"prompt\": 8, \"generate\": 1, \"batches\": [1], \"contexts\": [64]}"
/* The same step as a plain request (tiny_hf's dims: seq 1 after 8 tokens). */
#define PLAIN_STEP                                                                                                   \
    "\"dims\": {\"batch_size\": 1, \"sequence_length\": 1, \"past_sequence_length\": 8, "                           \
    "\"total_sequence_length\": 9}"

/* Σ over the plan's collectives of bytes / (bandwidth × links × fraction) +
 * steps × latency + the kernel's fixed cost: ring all-reduce 2(T−1) steps,
 * all-gather T−1 (docs/parallel.md), worked out from the profile's figures. */
static double collectives_by_hand(const cJSON *sharding, const cJSON *hw, int T, double fraction, double kernel_s,
                                  int *count) {
    double bw = figure(hw, "interconnect.link_bandwidth_Bps") * figure(hw, "interconnect.links") * fraction;
    double latency = figure(hw, "interconnect.latency_s"), sum = 0;
    *count = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, sharding) {
        const char *coll = check_str(e, "collective");
        if (!strcmp(coll, "none")) continue;
        double steps = !strcmp(coll, "all-reduce") ? 2.0 * (T - 1) : (double)(T - 1);
        sum += check_num(e, "comm_bytes") / bw + steps * latency + kernel_s;
        ++*count;
    }
    return sum;
}

static void collectives_at_achievable_rate(void) {
    const double kernel_s = 3e-6, fraction = 0.5;
    cJSON *plain = run("tiny_hf.onnx", h100_with(kernel_s, fraction),
                       "{" PLAIN_STEP ", \"layers\": false, \"parallel\": {\"tp\": 2}}");
    cJSON *llm = run("tiny_hf.onnx", h100_with(kernel_s, fraction),
                     "{\"layers\": false, \"parallel\": {\"tp\": 2}, " LLM_ONE_STEP "}");
    cJSON *hw = h100_with(kernel_s, fraction);
    if (plain && llm) {
        int n = 0;
        double want = collectives_by_hand(check_at(plain, "parallel.sharding"), hw, 2, fraction, kernel_s, &n);
        double got = check_num(plain, "parallel.forecast_t_comms_s");
        CHECK(n >= 2 * 2, "tiny_hf at tp=2: at least two all-reduces a layer (got %d collectives)", n);
        CHECK(check_close(got, want, 1e-12), "forecast communication %.17g, by hand %.17g", got, want);
        double floor_comms = check_num(plain, "parallel.t_comms_s");
        CHECK(got > floor_comms, "the forecast's communication %g above the floor's %g", got, floor_comms);
        double llm_comms = check_num(llm, "llm.parallel.forecast_decode_t_comms_s");
        CHECK(check_close(llm_comms, want, 1e-12), "the LLM view's decode step %.17g, by hand %.17g", llm_comms, want);
    }
    cJSON_Delete(hw);
    cJSON_Delete(plain);
    cJSON_Delete(llm);
}

/* Fixed costs of 1 ms a kernel dwarf the tiny model's work (microseconds):
 * every device runs every kernel, so tp = 2 costs one device's forecast
 * plus the collectives, within the work's share. */
static void kernels_per_device(void) {
    cJSON *one = run("tiny_hf.onnx", h100_with(1e-3, 0), "{\"layers\": false, " LLM_ONE_STEP "}");
    cJSON *two = run("tiny_hf.onnx", h100_with(1e-3, 0), "{\"layers\": false, \"parallel\": {\"tp\": 2}, " LLM_ONE_STEP "}");
    if (one && two) {
        double f1 = check_num(one, "llm.forecast.tpot_s"), f2 = check_num(two, "llm.forecast.tpot_s");
        double comms = check_num(two, "llm.parallel.forecast_decode_t_comms_s");
        CHECK(f1 > 0.01, "one device: tens of kernels at 1 ms (%g s)", f1);
        CHECK(f2 - comms <= f1 * (1 + 1e-12) && f2 - comms >= f1 * 0.99,
              "tp=2: %.6g s = one device's %.6g s + collectives %.6g s (each device runs every kernel)", f2, f1, comms);
        CHECK(f2 > f1, "tp=2 is slower than one device when the kernels' fixed costs are all (%g vs %g)", f2, f1);
    }
    cJSON_Delete(one);
    cJSON_Delete(two);
}

/* Fixed costs of 1 ns: the split work sets the forecast. */
static void work_split_over_devices(void) {
    const char *one_req = "{\"layers\": false, \"parallel\": {\"tp\": 1}, " LLM_ONE_STEP "}";
    cJSON *plain = run("tiny_hf.onnx", h100_with(1e-9, 0), "{\"layers\": false, " LLM_ONE_STEP "}");
    cJSON *one = run("tiny_hf.onnx", h100_with(1e-9, 0), one_req);
    cJSON *two = run("tiny_hf.onnx", h100_with(1e-9, 0), "{\"layers\": false, \"parallel\": {\"tp\": 2}, " LLM_ONE_STEP "}");
    if (plain && one && two) {
        static const char *const keys[] = {"ttft_s", "tpot_s", "tokens_per_s", "e2e_s", "energy_j", "energy_per_token_j"};
        for (int k = 0; k < 6; k++) {
            char a[64];
            snprintf(a, sizeof a, "llm.forecast.%s", keys[k]);
            CHECK(check_close(check_num(one, a), check_num(plain, a), 1e-12), "tp=1: %s %.17g = one device's %.17g",
                  keys[k], check_num(one, a), check_num(plain, a));
        }
        double f1 = check_num(plain, "llm.forecast.tpot_s"), f2 = check_num(two, "llm.forecast.tpot_s");
        double floor2 = check_num(two, "llm.floor.tpot_s"), comms = check_num(two, "llm.parallel.forecast_decode_t_comms_s");
        CHECK(f2 - comms < 0.75 * f1, "tp=2: each device's work %g s under 3/4 of one device's %g s", f2 - comms, f1);
        CHECK(f2 >= floor2, "tp=2: forecast %g at or above the tp=2 floor %g", f2, floor2);
        CHECK(check_num(two, "llm.floor.tpot_s") == check_num(two, "llm.parallel.tpot_s"), "the floor is the plan's");
        /* the view leads with the forecast; tokens/s and end to end follow from it */
        CHECK(check_num(two, "llm.tpot_s") == f2 && check_num(two, "llm.forecast.devices") == 2, "the answer is the plan's forecast");
        CHECK(check_close(check_num(two, "llm.tokens_per_s"), 1 / f2, 1e-12), "tokens/s = batch / TPOT");
        CHECK(check_close(check_num(two, "llm.e2e_s"), check_num(two, "llm.ttft_s") + f2, 1e-12), "e2e = TTFT + G·TPOT");
        CHECK(check_num(two, "llm.ttft_s") == check_num(two, "llm.parallel.forecast_ttft_s"), "TTFT is the plan's forecast");
    }
    cJSON_Delete(plain);
    cJSON_Delete(one);
    cJSON_Delete(two);
}

/* One device of T's share of a layer's FLOPs, and of its bytes (its input,
 * weight and output bytes at theirs), by its split (docs/parallel.md). */
static void split_shares(const cJSON *layer, int T, double *flops, double *bytes) {
    const char *split = check_str(layer, "split");
    double s = 1.0 / T, in = 1, w = 1, out = 1;
    *flops = strcmp(split, "replicated") ? s : 1;
    if (!strcmp(split, "slice")) in = w = out = s;
    else if (!strcmp(split, "column")) w = out = s;
    else if (!strcmp(split, "row")) in = w = s;
    else if (!strcmp(split, "vocab")) w = s;
    double i = check_num(layer, "input_bytes"), wb = check_num(layer, "weight_bytes"), o = check_num(layer, "output_bytes");
    *bytes = i + wb + o > 0 ? (in * i + w * wb + out * o) / (i + wb + o) : 1;
}

/* The group's energy over one step of the plan, from the answer's layer
 * rows (the unfused model, so a layer's bytes are its "bytes"): each
 * layer's dynamic energy on one device is its energy less static power
 * over its time, of which its bytes draw byte_j each; the group draws, for
 * every layer, T devices' shares of it. One device's dynamic energy (the
 * floor's or the forecast's) scaled by that ratio, plus every device's
 * static power over the plan's time. */
static double group_energy_by_hand(const cJSON *res, int T, int devices, bool forecast) {
    const double S = check_num(res, "roofline.static_w"), byte_j = check_num(res, "roofline.byte_j");
    double one = 0, group = 0;
    const cJSON *layer;
    cJSON_ArrayForEach(layer, cJSON_GetObjectItem(res, "layers")) {
        double dyn = check_num(layer, "energy_j") - S * check_num(layer, "t");
        double bytes_j = byte_j * check_num(layer, "bytes"), fs, bs;
        split_shares(layer, T, &fs, &bs);
        one += dyn;
        group += T * (fs * (dyn - bytes_j) + bs * bytes_j);
    }
    const char *whole = forecast ? "forecast" : "sol.chosen", *plan = forecast ? "parallel.forecast_s" : "parallel.time_s";
    char energy[32], time[32];
    snprintf(energy, sizeof energy, "%s.energy_j", whole);
    snprintf(time, sizeof time, "%s.time_s", whole);
    double dyn_one_device = check_num(res, energy) - S * check_num(res, time);
    return group / one * dyn_one_device + devices * S * check_num(res, plan);
}

/* Energy over tp = 2 and pp = 2 (4 devices) on the decoder: the plan's
 * (parallel.energy_j, the prefill the main analysis runs at) is every
 * device's, worked out by hand from the layer rows; the LLM view's prefill
 * is that plan's, and its answer adds G decode steps over the devices and
 * divides by the tokens the group makes. With dp = 2 the replicas double
 * the energy and the tokens, so the energy per token stays. */
#define LLM_GROUP "\"llm\": {\"prompt\": 8, \"generate\": 3, \"batch\": 2, \"batches\": [2], \"contexts\": [64]}"
static void energy_of_every_device(void) {
    cJSON *res = run("tiny_hf.onnx", llm_hw("h100-sxm"),
                     "{\"sol\": \"unfused\", \"parallel\": {\"tp\": 2, \"pp\": 2}, " LLM_GROUP "}");
    cJSON *dp2 = run("tiny_hf.onnx", llm_hw("h100-sxm"),
                     "{\"sol\": \"unfused\", \"layers\": false, \"parallel\": {\"tp\": 2, \"pp\": 2, \"dp\": 2}, " LLM_GROUP "}");
    if (res && dp2) {
        CHECK(check_num(res, "parallel.devices") == 4, "tp=2, pp=2: 4 devices");
        for (int fc = 0; fc < 2; fc++) {
            double want = group_energy_by_hand(res, 2, 4, fc), got = check_num(res, fc ? "parallel.forecast_energy_j" : "parallel.energy_j");
            CHECK(check_close(got, want, 1e-9), "the plan's %s energy %.17g J, by hand %.17g J", fc ? "forecast" : "floor", got, want);
            double prefill = check_num(res, fc ? "llm.parallel.forecast_prefill_energy_j" : "llm.parallel.prefill_energy_j");
            CHECK(check_close(prefill, want, 1e-9), "the LLM view's prefill %.17g J is the plan's %.17g J", prefill, want);
            double step = check_num(res, fc ? "llm.parallel.forecast_decode_step_energy_j" : "llm.parallel.decode_step_energy_j");
            double one_step = check_num(res, "llm.decode.energy_j") / 3; /* one device, the mean step */
            if (!fc) CHECK(step > one_step, "a decode step over 4 devices %g J, more than on one %g J", step, one_step);
            const char *answer = fc ? "llm.forecast" : "llm.floor";
            char key[64];
            snprintf(key, sizeof key, "%s.energy_j", answer);
            double total = check_num(res, key);
            CHECK(check_close(total, prefill + 3 * step, 1e-12), "%s: %.17g J = prefill %g J + 3 steps of %g J",
                  key, total, prefill, step);
            snprintf(key, sizeof key, "%s.energy_per_token_j", answer);
            CHECK(check_close(check_num(res, key), total / (2 * 3), 1e-12), "%s = energy / (batch 2 x 3 tokens)", key);
            CHECK(check_close(check_num(dp2, key), check_num(res, key), 1e-9), "dp=2: %s %.17g J, dp=1 %.17g J", key,
                  check_num(dp2, key), check_num(res, key));
            snprintf(key, sizeof key, "%s.energy_j", answer);
            CHECK(check_close(check_num(dp2, key), 2 * total, 1e-9), "dp=2: %s twice dp=1's", key);
        }
        CHECK(check_num(res, "llm.energy_j") == check_num(res, "llm.forecast.energy_j"), "the answer's energy is the forecast's");
    }
    cJSON_Delete(res);
    cJSON_Delete(dp2);
    /* pipeline stages alone split no layer: the work is one device's, and
     * each of the two devices draws static power over the pipeline's time */
    cJSON *pp2 = run("tiny_hf.onnx", llm_hw("h100-sxm"), "{\"layers\": false, \"parallel\": {\"pp\": 2}}");
    if (pp2) {
        double S = check_num(pp2, "roofline.static_w"), e1 = check_num(pp2, "sol.chosen.energy_j");
        double want = e1 - S * check_num(pp2, "sol.chosen.time_s") + 2 * S * check_num(pp2, "parallel.time_s");
        CHECK(check_close(check_num(pp2, "parallel.energy_j"), want, 1e-12), "pp=2: %.17g J = one device's work + 2 x static "
              "over the pipeline's time %.17g J", check_num(pp2, "parallel.energy_j"), want);
    }
    cJSON_Delete(pp2);
}

int main(int argc, char **argv) {
    if (llm_test_setup(argc, argv, "test_llm_parallel")) return 77;
    collectives_at_achievable_rate();
    kernels_per_device();
    work_split_over_devices();
    energy_of_every_device();
    return check_report("test_llm_parallel");
}
