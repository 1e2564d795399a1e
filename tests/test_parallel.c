/* Many devices (docs/parallel.md), against figures worked out by hand:
 * seed 003's two-chip example, a two-layer MLP and one Llama block at
 * tp = 2 and 4, the pipeline's bubble and sends, and the refusals. The
 * models are made at test time by tests/make_parallel_models.py (argv[3]). */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "check.h"
#include "check_model.h"
#include "rooflens.h"

static const char *tests_dir, *root_dir, *models_dir;

/* The answer for model `name` on profile `hw_id` with the request's other
 * members from `extra` (JSON text). */
static cJSON *run(const char *name, const char *hw_id, const char *extra) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", models_dir, name);
    rl_model *m = check_read_model(path);
    if (!m) return NULL;
    cJSON *req = cJSON_Parse(extra);
    CHECK(req != NULL, "bad test JSON %s", extra);
    cJSON_AddItemToObject(req, "hardware", check_read_hw(tests_dir, root_dir, hw_id));
    cJSON *res = check_analyze(m, req);
    rl_model_free(m);
    return res;
}

static bool ok(const cJSON *res, const char *what) {
    bool yes = cJSON_IsTrue(cJSON_GetObjectItem(res, "ok"));
    CHECK(yes, "%s failed: %s", what, check_str(res, "error.message"));
    return yes;
}

/* Every figure of the parallel object finite and non-negative. */
static void all_finite(const cJSON *p, const char *what) {
    const cJSON *it;
    cJSON_ArrayForEach(it, p) {
        if (cJSON_IsNumber(it))
            CHECK(isfinite(it->valuedouble) && it->valuedouble >= 0, "%s: parallel.%s = %g", what, it->string,
                  it->valuedouble);
    }
}

/* Seed 003: X bf16[B, D] @ Y[D, F] split along D over two TPU v5e.
 * T_math = B·D·F / 1.97e14 (2BDF FLOPs over two chips); T_comms = 2BF /
 * 4.5e10 (each chip sends its bf16 partial sum: an all-reduce over two moves
 * 2(T-1)/T = 1 times the tensor) plus the two steps' latency. Comms-bound
 * below D = 2 × 1.97e14 / 4.5e10 = 8755, compute-bound above. */
static void seed_two_chips(void) {
    const double B = 8192, F = 8192;
    const int Ds[] = {4096, 8192, 9216, 16384};
    for (int i = 0; i < 4; i++) {
        char name[64], what[96];
        snprintf(name, sizeof name, "seed_D%d.onnx", Ds[i]);
        snprintf(what, sizeof what, "seed 003, D = %d", Ds[i]);
        cJSON *res = run(name, "tpu-v5e", "{\"precision\": \"bf16\", \"parallel\": {\"tp\": 2}}");
        if (!ok(res, what)) continue;
        const cJSON *p = cJSON_GetObjectItem(res, "parallel");
        double lat = check_num(p, "interconnect.latency_s");
        CHECK_NEAR(check_num(p, "t_math_s"), B * Ds[i] * F / 1.97e14, 1e-9, what);
        CHECK_NEAR(check_num(p, "t_comms_s"), 2 * B * F / 4.5e10 + 2 * lat, 1e-12, what);
        CHECK_NEAR(check_num(p, "comm_bytes"), 2 * B * F, 1e-12, what);
        CHECK_NEAR(check_num(p, "interconnect.critical_intensity"), 1.97e14 / 4.5e10, 1e-12, what);
        CHECK_NEAR(check_num(p, "lower_bound_s"), fmax(check_num(p, "t_math_s"), check_num(p, "t_comms_s")), 1e-12,
                   what);
        CHECK_NEAR(check_num(p, "upper_bound_s"), check_num(p, "t_math_s") + check_num(p, "t_comms_s"), 1e-12, what);
        const char *want = Ds[i] < 8755 ? "communication" : "compute";
        CHECK(!strcmp(check_str(p, "bound"), want), "%s: bound %s, want %s", what, check_str(p, "bound"), want);
        CHECK(!strcmp(check_str(p, "sharding.0.split"), "row") &&
                  !strcmp(check_str(p, "sharding.0.collective"), "all-reduce"),
              "%s: a lone matmul is row-parallel + all-reduce, got %s + %s", what, check_str(p, "sharding.0.split"),
              check_str(p, "sharding.0.collective"));
        CHECK_NEAR(check_num(res, "layers.0.comm_bytes"), 2 * B * F, 1e-12, "seed 003: the layer's comm_bytes");
        /* its point on the communication roofline: BDF FLOPs per device over 2BF bytes = D/2 */
        CHECK_NEAR(check_num(p, "sharding.0.comm_intensity"), Ds[i] / 2.0, 1e-12, "seed 003: FLOPs per byte sent");
        all_finite(p, what);
        cJSON_Delete(res);
    }
}

/* X fp32[16, 256] @ W1[256, 1024], Relu, @ W2[1024, 256]: fc1 column, Relu
 * on the split hidden, fc2 row + all-reduce of Y (16 × 256 × 4 B = 16 KiB):
 * each device sends 2(T-1)/T of it. NVLink through a switch: 18 links of
 * 25e9 B/s, 2(T-1) steps of 1 µs. */
static void mlp_by_hand(void) {
    const double y = 16 * 256 * 4, w = (256.0 * 1024 + 1024.0 * 256) * 4;
    for (int T = 2; T <= 4; T += 2) {
        char extra[96], what[48];
        snprintf(extra, sizeof extra, "{\"parallel\": {\"tp\": %d}}", T);
        snprintf(what, sizeof what, "MLP at tp=%d", T);
        cJSON *res = run("mlp2.onnx", "h100-sxm", extra);
        if (!ok(res, what)) continue;
        const cJSON *p = cJSON_GetObjectItem(res, "parallel");
        double bytes = 2.0 * (T - 1) / T * y;
        CHECK_NEAR(check_num(p, "comm_bytes"), bytes, 1e-12, what);
        CHECK_NEAR(check_num(p, "t_comms_s"), bytes / (18 * 25e9) + 2.0 * (T - 1) * 1e-6, 1e-12, what);
        CHECK_NEAR(check_num(p, "weight_bytes_per_device"), w / T, 1e-12, what);
        CHECK_NEAR(check_num(p, "flops_per_device"), check_num(res, "totals.flops") / T, 1e-12, what);
        CHECK(!strcmp(check_str(p, "sharding.0.split"), "column") && !strcmp(check_str(p, "sharding.1.split"), "row"),
              "%s: fc1 column, fc2 row", what);
        CHECK(check_num(p, "sharded_layers.slice") == 1, "%s: Relu works on the split hidden", what);
        CHECK(check_num(res, "layers.0.comm_bytes") == 0 && check_num(res, "layers.2.comm_bytes") == bytes,
              "%s: per layer, only fc2 sends", what);
        all_finite(p, what);
        cJSON_Delete(res);
    }
}

/* One Llama block (hidden 256, 8 heads, 4 KV heads, MLP 512, vocab 1024,
 * fp16) at batch 1, 16 new tokens after 16 cached: q/k/v/gate/up column,
 * o/down row + all-reduce of [1, 16, 256] (8 KiB), the embedding
 * vocabulary-parallel + all-reduce (8 KiB), lm_head vocabulary-parallel +
 * all-gather of the logits [1, 16, 1024] (32 KiB). */
static void llama_block_by_hand(void) {
    const char *dims = "\"dims\": {\"batch_size\": 1, \"sequence_length\": 16, \"past_sequence_length\": 16}";
    const double h = 16 * 256 * 2, logits = 16 * 1024 * 2;
    for (int T = 2; T <= 4; T += 2) {
        char extra[256], what[48];
        snprintf(extra, sizeof extra, "{%s, \"parallel\": {\"tp\": %d}}", dims, T);
        snprintf(what, sizeof what, "Llama block at tp=%d", T);
        cJSON *res = run("llama1.onnx", "h100-sxm", extra);
        if (!ok(res, what)) continue;
        const cJSON *p = cJSON_GetObjectItem(res, "parallel");
        CHECK(check_num(p, "sharded_layers.column") == 5 && check_num(p, "sharded_layers.row") == 2 &&
                  check_num(p, "sharded_layers.vocab") == 2,
              "%s: 5 column, 2 row, 2 vocabulary layers; got %g, %g, %g", what, check_num(p, "sharded_layers.column"),
              check_num(p, "sharded_layers.row"), check_num(p, "sharded_layers.vocab"));
        double want = 3 * 2.0 * (T - 1) / T * h + (T - 1.0) / T * logits;
        CHECK_NEAR(check_num(p, "tp_comm_bytes"), want, 1e-12, what);
        all_finite(p, what);
        cJSON_Delete(res);
    }
    char extra[256];
    snprintf(extra, sizeof extra, "{%s, \"parallel\": {\"tp\": 3}}", dims);
    cJSON *res = run("llama1.onnx", "h100-sxm", extra);
    CHECK(!strcmp(check_str(res, "error.where"), "parallel.tp") && strstr(check_str(res, "error.message"), "8"),
          "tp=3 must be refused: it does not divide the 8 heads: %s", check_str(res, "error.message"));
    cJSON_Delete(res);
    /* two stages, four micro-batches: bubble (P-1)/(M+P-1) = 1/5; the first
     * stage sends the activations the second reads */
    snprintf(extra, sizeof extra, "{%s, \"parallel\": {\"tp\": 2, \"pp\": 2, \"micro_batches\": 4}}", dims);
    res = run("llama1.onnx", "h100-sxm", extra);
    if (ok(res, "tp=2, pp=2")) {
        const cJSON *p = cJSON_GetObjectItem(res, "parallel");
        CHECK_NEAR(check_num(p, "bubble"), 0.2, 1e-12, "bubble at P=2, M=4");
        CHECK(check_num(p, "stages.0.send_bytes") > 0 && check_num(p, "stages.1.send_bytes") == 0,
              "the first stage sends, the last does not");
        CHECK(check_num(p, "devices") == 4, "devices = tp × pp");
        all_finite(p, "tp=2, pp=2");
    }
    cJSON_Delete(res);
}

/* The LLM view: how many devices hold the model (devices_needed), and the
 * plan over them fits where fewer do not. The device's memory is set to a
 * third of what one needs: 4 devices (the next power of two). */
static void llm_devices_needed(void) {
    const char *base = "{\"dims\": {\"batch_size\": 1}, \"llm\": {\"prompt\": 64, \"generate\": 16}";
    char extra[256];
    snprintf(extra, sizeof extra, "%s}", base);
    cJSON *one = run("llama1.onnx", "h100-sxm", extra);
    if (!ok(one, "llama1 --llm")) return;
    double need = check_num(one, "llm.memory_required_bytes");
    CHECK(check_num(one, "llm.devices_needed") == 1, "llama1 fits one H100");
    cJSON_Delete(one);
    for (int T = 1; T <= 4; T *= 2) {
        snprintf(extra, sizeof extra, "%s, \"parallel\": {\"tp\": %d}}", base, T);
        char path[1024];
        snprintf(path, sizeof path, "%s/llama1.onnx", models_dir);
        rl_model *m = check_read_model(path);
        cJSON *req = cJSON_Parse(extra), *hw = check_read_hw(tests_dir, root_dir, "h100-sxm");
        cJSON *cap = (cJSON *)check_at(hw, "memory.0.capacity_bytes.value");
        CHECK(m && req && cap, "test setup: model, request and profile");
        if (!m || !req || !cap) {
            rl_model_free(m);
            cJSON_Delete(req);
            cJSON_Delete(hw);
            continue;
        }
        cJSON_SetNumberValue(cap, need / 3);
        cJSON *levels = cJSON_GetObjectItem(hw, "memory"); /* on-chip levels must stay below main memory */
        while (cJSON_GetArraySize(levels) > 1) cJSON_DeleteItemFromArray(levels, 1);
        /* and the forecast's cache level goes with them */
        cJSON_DeleteItemFromObject(cJSON_GetObjectItem(hw, "forecast"), "cache_level");
        cJSON_AddItemToObject(req, "hardware", hw);
        cJSON *res = check_analyze(m, req);
        rl_model_free(m);
        if (ok(res, "llama1 --llm on a third of the memory")) {
            CHECK(check_num(res, "llm.devices_needed") == 4, "devices_needed %g, want 4", check_num(res, "llm.devices_needed"));
            const cJSON *fits = check_at(res, "llm.parallel.fits");
            CHECK(cJSON_IsBool(fits) && cJSON_IsTrue(fits) == (T == 4), "tp=%d: fits must be %s", T, T == 4 ? "true" : "false");
        }
        cJSON_Delete(res);
    }
}

/* Whether every byte count of a plan is whole: a device sends and holds
 * whole bytes, its share the larger one when T does not divide a tensor. */
static bool whole_bytes(const cJSON *o) {
    const cJSON *it;
    bool whole = true;
    cJSON_ArrayForEach(it, o) {
        if (cJSON_IsObject(it) || cJSON_IsArray(it)) whole &= whole_bytes(it);
        else if (cJSON_IsNumber(it) && it->string && strstr(it->string, "bytes"))
            whole &= it->valuedouble == floor(it->valuedouble);
    }
    return whole;
}

/* Issue 43: the heads of layouts other than [B, S, H·d] -> [B, S, H, d],
 * a tp beyond a split dimension, and bytes when T does not divide a tensor. */
static void heads_and_split_sizes(void) {
    static const struct { const char *model; int tp; const char *says; } refused[] = {
        {"vit_chunk.onnx", 7, "12 attention heads"},          /* [197, 1, 768] -> [197, 12, 64] */
        {"vit_chunk.onnx", 1024, "12 attention heads"},
        {"vit_unflatten.onnx", 7, "12 attention heads"},      /* the [197, 1, 3, 768] cut is not 3 heads */
        {"mlp_narrow.onnx", 7, "'fc1' (MatMul) has output features to split over (6)"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        char extra[64];
        snprintf(extra, sizeof extra, "{\"parallel\": {\"tp\": %d}}", refused[i].tp);
        cJSON *res = run(refused[i].model, "h100-sxm", extra);
        CHECK(!strcmp(check_str(res, "error.where"), "parallel.tp") && strstr(check_str(res, "error.message"), refused[i].says),
              "%s at tp=%d must be refused (%s): %s", refused[i].model, refused[i].tp, refused[i].says,
              check_str(res, "error.message"));
        cJSON_Delete(res);
    }
    static const struct { const char *model; int tp; bool unknown_heads; } answered[] = {
        {"vit_chunk.onnx", 4, false}, {"vit_chunk.onnx", 12, false}, {"vit_unflatten.onnx", 2, false},
        {"vit_dynamic.onnx", 7, true}, {"mlp_narrow.onnx", 6, false}, {"mlp2.onnx", 2, false},
        {"llama1.onnx", 4, false},
    };
    for (size_t i = 0; i < sizeof answered / sizeof *answered; i++) {
        char extra[64], what[96];
        snprintf(extra, sizeof extra, "{\"parallel\": {\"tp\": %d}}", answered[i].tp);
        snprintf(what, sizeof what, "%s at tp=%d", answered[i].model, answered[i].tp);
        cJSON *res = run(answered[i].model, "h100-sxm", extra);
        if (ok(res, what)) {
            bool said = false;
            const cJSON *w;
            cJSON_ArrayForEach(w, cJSON_GetObjectItem(res, "warnings")) said |= !strcmp(check_str(w, "code"), "heads_unknown");
            CHECK(said == answered[i].unknown_heads, "%s: heads_unknown warning %s", what,
                  answered[i].unknown_heads ? "missing" : "given though the heads are known");
        }
        cJSON_Delete(res);
    }
    /* torchvision's ViT-B/16 as torch.onnx.export wrote it (the model) */
    char torch_dir[1024];
    snprintf(torch_dir, sizeof torch_dir, "%s/fixtures/models/torch", tests_dir);
    const char *saved = models_dir;
    models_dir = torch_dir;
    cJSON *res = run("vit_b_16.onnx", "h100-sxm", "{\"batch\": 1, \"parallel\": {\"tp\": 7}}");
    CHECK(strstr(check_str(res, "error.message"), "tp=7 does not divide the 12 attention heads") != NULL,
          "torchvision ViT-B/16 at tp=7 must be refused: %s", check_str(res, "error.message"));
    cJSON_Delete(res);
    res = run("vit_b_16.onnx", "h100-sxm", "{\"batch\": 1, \"parallel\": {\"tp\": 4}}");
    ok(res, "torchvision ViT-B/16 at tp=4");
    cJSON_Delete(res);
    models_dir = saved;
    /* tp = 3 does not divide Y's 16 KiB: each device sends 2 x 2 shares of
     * ceil(16384 / 3) = 5462 B; the stage sends ceil(64 KiB / 3) */
    res = run("mlp2.onnx", "h100-sxm", "{\"parallel\": {\"tp\": 3, \"pp\": 2}}");
    if (ok(res, "mlp2 at tp=3, pp=2")) {
        CHECK(check_num(res, "parallel.tp_comm_bytes") == 4 * 5462.0, "tp=3: %g B sent", check_num(res, "parallel.tp_comm_bytes"));
        CHECK(check_num(res, "parallel.stages.0.send_bytes") == 21846, "tp=3: the stage sends %g B",
              check_num(res, "parallel.stages.0.send_bytes"));
        CHECK(whole_bytes(cJSON_GetObjectItem(res, "parallel")), "tp=3: every byte count whole");
    }
    cJSON_Delete(res);
}

/* Compare 1 x H100 with 2 and 4, and a Jetson asked for 2: each row's
 * plan is the one a request with that "parallel" gives. */
static void compare_device_counts(void) {
    const char *dims = "\"dims\": {\"batch_size\": 1, \"sequence_length\": 16, \"past_sequence_length\": 16}";
    char extra[256];
    snprintf(extra, sizeof extra, "{%s, \"layers\": false}", dims);
    char path[1024];
    snprintf(path, sizeof path, "%s/llama1.onnx", models_dir);
    rl_model *m = check_read_model(path);
    cJSON *req = cJSON_Parse(extra);
    if (!m || !req) {
        rl_model_free(m);
        cJSON_Delete(req);
        return;
    }
    cJSON *study = cJSON_CreateObject(), *hws = cJSON_CreateArray();
    const char *ids[] = {"h100-sxm", "h100-sxm", "h100-sxm", "jetson-agx-orin", "h100-sxm"};
    for (int i = 0; i < 5; i++) cJSON_AddItemToArray(hws, check_read_hw(tests_dir, root_dir, ids[i]));
    cJSON_AddStringToObject(study, "kind", "compare");
    cJSON_AddItemToObject(study, "hardware", hws);
    cJSON_AddItemToObject(study, "parallel", cJSON_Parse("[null, {\"tp\": 2}, {\"tp\": 4}, {\"tp\": 2}, "
                                                         "{\"tp\": 2, \"pp\": 2, \"micro_batches\": 4}]"));
    cJSON_AddItemToObject(req, "study", study);
    cJSON_AddItemToObject(req, "hardware", check_read_hw(tests_dir, root_dir, "h100-sxm"));
    cJSON *res = check_analyze(m, req);
    rl_model_free(m);
    if (ok(res, "compare 1, 2, 4 H100s")) {
        CHECK(check_at(res, "study.rows.0.parallel") == NULL, "one device: no plan");
        /* a group's figures are the --parallel answer's for the same plan, every total of it (the page's
         * several-devices view shows them from the compare rows alone) */
        const char *plans[] = {NULL, "{\"tp\": 2}", "{\"tp\": 4}", NULL, "{\"tp\": 2, \"pp\": 2, \"micro_batches\": 4}"};
        const char *totals[] = {"time_s", "t_math_s", "t_comms_s", "forecast_s", "forecast_speedup", "speedup",
                                "bubble", "micro_batches", "comm_bytes", "memory_bytes_per_device",
                                "lower_bound_s", "single_device_forecast_s", "interconnect.tp_bandwidth_Bps"};
        for (int r = 1; r < 5; r++) {
            if (!plans[r]) continue;
            char single[256], key[96], plain[64];
            snprintf(single, sizeof single, "{%s, \"layers\": false, \"parallel\": %s}", dims, plans[r]);
            cJSON *one = run("llama1.onnx", "h100-sxm", single);
            const bool alone = ok(one, "the same plan alone");
            for (size_t k = 0; alone && k < sizeof totals / sizeof *totals; k++) {
                snprintf(key, sizeof key, "study.rows.%d.parallel.%s", r, totals[k]);
                snprintf(plain, sizeof plain, "parallel.%s", totals[k]);
                CHECK_NEAR(check_num(res, key), check_num(one, plain), 1e-12, key);
            }
            cJSON_Delete(one);
        }
        CHECK(strstr(check_str(res, "study.rows.3.error.message"), "no interconnect") != NULL,
              "the Jetson row says why: %s", check_str(res, "study.rows.3.error.message"));
    }
    cJSON_Delete(res);
}

static void refusals(void) {
    static const struct { const char *hw, *extra, *where; } cases[] = {
        {"jetson-agx-orin", "{\"parallel\": {\"tp\": 2}}", "parallel"},         /* one device */
        {"h100-sxm", "{\"parallel\": {\"tp\": 0}}", "parallel.tp"},
        {"h100-sxm", "{\"parallel\": {\"tp\": 2.5}}", "parallel.tp"},
        {"h100-sxm", "{\"parallel\": {\"pp\": 9}}", "parallel.pp"},            /* 3 layers */
        {"h100-sxm", "{\"parallel\": {\"xp\": 2}}", "parallel"},
        {"h100-sxm", "{\"parallel\": 2}", "parallel"},
        {"h100-sxm", "{\"parallel\": {\"tp\": 1024, \"pp\": 1024, \"dp\": 65536}}", "parallel"}, /* 2^36 devices */
        /* a key given twice: JSON readers disagree on which counts (issue 43) */
        {"h100-sxm", "{\"parallel\": {\"tp\": 2, \"tp\": 4}}", "parallel.tp"},
        {"h100-sxm", "{\"parallel\": {\"pp\": 1, \"tp\": 2, \"pp\": 1}}", "parallel.pp"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cJSON *res = run("mlp2.onnx", cases[i].hw, cases[i].extra);
        CHECK(!strcmp(check_str(res, "error.code"), "bad_request") &&
                  !strcmp(check_str(res, "error.where"), cases[i].where),
              "%s on %s must be refused at %s: %s", cases[i].extra, cases[i].hw, cases[i].where,
              check_str(res, "error.message"));
        cJSON_Delete(res);
    }
    /* one device needs no interconnect */
    cJSON *res = run("mlp2.onnx", "jetson-agx-orin", "{\"parallel\": {\"tp\": 1}}");
    if (ok(res, "tp=1 on a Jetson")) CHECK(check_num(res, "parallel.t_comms_s") == 0, "one device sends nothing");
    cJSON_Delete(res);
}

/* Every fixture model over 2 x 2 x 2 devices, inference and training: an
 * answer with every figure finite and non-negative and the bounds in order,
 * or a clear refusal. */
static void every_fixture(void) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/fixtures/models", tests_dir);
    DIR *d = opendir(dir);
    CHECK(d != NULL, "cannot open %s", dir);
    if (!d) return;
    const char *saved = models_dir;
    models_dir = dir;
    int answered = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".onnx")) continue;
        for (int training = 0; training < 2; training++) {
            char extra[160];
            snprintf(extra, sizeof extra, "{\"mode\": \"%s\", \"parallel\": {\"tp\": 2, \"pp\": 2, \"dp\": 2, "
                     "\"micro_batches\": 3}}", training ? "training" : "inference");
            cJSON *res = run(e->d_name, "h100-sxm", extra);
            const cJSON *p = cJSON_GetObjectItem(res, "parallel");
            if (cJSON_IsTrue(cJSON_GetObjectItem(res, "ok"))) {
                answered++;
                all_finite(p, e->d_name);
                CHECK(check_num(p, "lower_bound_s") <= check_num(p, "time_s") * (1 + 1e-12) &&
                          check_num(p, "time_s") <= check_num(p, "upper_bound_s") * (1 + 1e-12),
                      "%s: lower <= time <= upper", e->d_name);
                CHECK(!training || check_num(p, "gradient_allreduce_bytes") >= 0, "%s: training", e->d_name);
            } else {
                CHECK(check_str(res, "error.message")[0] != 0, "%s: a refusal says why", e->d_name);
            }
            cJSON_Delete(res);
        }
    }
    closedir(d);
    models_dir = saved;
    CHECK(answered >= 20, "only %d fixture answers over many devices", answered);
}

int main(int argc, char **argv) {
    tests_dir = argc > 1 ? argv[1] : "tests";
    root_dir = argc > 2 ? argv[2] : ".";
    models_dir = argc > 3 ? argv[3] : "build/parallel-models";
    seed_two_chips();
    mlp_by_hand();
    llama_block_by_hand();
    refusals();
    heads_and_split_sizes();
    llm_devices_needed();
    compare_device_counts();
    every_fixture();
    return check_report("test_parallel");
}
