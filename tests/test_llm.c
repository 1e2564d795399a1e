/* The LLM inference view ("llm" in the request; docs/llm.md) on decoders
 * made by tools/make-models/llm_model.py --suite (argv[3]): the tiny Llama-shaped
 * models of both layouts (2 layers, hidden 64, 4 query heads and 2 KV heads
 * of 16, MLP 128, vocabulary 256, 128 positions), a Llama-3.2-1B-shaped fp16
 * decoder, a prefill-only export and two mixtures of experts. Checks:
 *  - roles, and KV bytes per token, exactly (and at 8 and 4 bits);
 *  - prefill matrix FLOPs = 2·(matrix weights)·tokens + full attention;
 *  - decode bytes = weights read + KV read: the growth per context token is
 *    exactly the KV row (+ the int64 mask), the rest lies between the
 *    weights + KV and that plus the few small tensors a step also moves, and
 *    the present cache is written in place (only the new row);
 *  - the prefill is the same analysis as a plain request at those dims;
 *  - a generation's time is the sum of its steps (closed form or piecewise);
 *  - fits, max_batch and max_context agree with capacity arithmetic and with
 *    direct runs at those batches;
 *  - the weight and KV bits what-if, MoE (com.microsoft QMoE and a router
 *    TopK over dense experts), a prefill-only model, errors;
 *  - Llama-3.2-1B fp16 on the H100: TPOT = (weights + KV read) / bandwidth
 *    within 2%. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdbool.h>

#include "check.h"
#include "check_llm.h"
#include "rooflens.h"

/* the tiny preset of tools/make-models/llm_model.py */
enum { L_ = 2, D_ = 64, H_ = 4, HKV_ = 2, HD_ = 16, FF_ = 128, V_ = 256, POS_ = 128 };
/* matrix weights: per layer q, k, v, o and the three MLP matrices, + LM head */
static const double tiny_matrix_params =
    L_ * ((double)D_ * H_ * HD_ * 2 + (double)D_ * HKV_ * HD_ * 2 + 3.0 * D_ * FF_) + (double)D_ * V_;
static const double tiny_kv_per_token_fp16 = L_ * 2.0 * HKV_ * HD_ * 2; /* 256 B */

static cJSON *analyze(rl_model *m, cJSON *req) { return check_analyze(m, req); }

/* A request on `hw` (consumed) with an "llm" member from `llm_json`. The
 * sweeps are cut to one row unless the test asks for them. */
static cJSON *llm_request(cJSON *hw, const char *llm_json) {
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "hardware", hw);
    cJSON_AddFalseToObject(r, "layers");
    cJSON *l = cJSON_Parse(llm_json);
    CHECK(l != NULL, "bad test JSON %s", llm_json);
    if (!cJSON_GetObjectItem(l, "batches")) cJSON_AddItemToObject(l, "batches", cJSON_CreateIntArray((int[]){1}, 1));
    if (!cJSON_GetObjectItem(l, "contexts")) cJSON_AddItemToObject(l, "contexts", cJSON_CreateIntArray((int[]){64}, 1));
    cJSON_AddItemToObject(r, "llm", l);
    return r;
}

static cJSON *run_llm(rl_model *m, const char *hw_id, const char *llm_json) {
    cJSON *res = analyze(m, llm_request(llm_hw(hw_id), llm_json));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "ok")), "llm %s failed: %s", llm_json, check_str(res, "error.message"));
    return res;
}


static const char *error_code(const cJSON *res) {
    return check_str(res, "error.code");
}

/* Full attention, as the graph computes it: QK^T and the V product, each
 * 2·B·H·S·T·head_dim, per layer. */
static double attention_matrix_flops(double layers, double B, double heads, double S, double T, double hd) {
    return layers * 4 * B * heads * S * T * hd;
}

/* ---------------------------------------------------------------- roles -- */
static void test_roles(void) {
    rl_model *m = llm_model("tiny_hf.onnx");
    rl_model *g = llm_model("tiny_genai.onnx");
    if (!m || !g) return;
    cJSON *r = run_llm(m, "unit", "{\"prompt\": 16, \"generate\": 4}");
    CHECK(cJSON_IsTrue(check_at(r, "llm.roles.kv_cache")), "hf: KV cache found");
    CHECK(!strcmp(check_str(r, "llm.roles.batch"), "batch_size"), "hf batch: %s", check_str(r, "llm.roles.batch"));
    CHECK(!strcmp(check_str(r, "llm.roles.seq"), "sequence_length"), "hf seq: %s", check_str(r, "llm.roles.seq"));
    CHECK(!strcmp(check_str(r, "llm.roles.past"), "past_sequence_length"), "hf past: %s", check_str(r, "llm.roles.past"));
    CHECK(!strcmp(check_str(r, "llm.roles.total"), "past_sequence_length + 1"), "hf total: %s", check_str(r, "llm.roles.total"));
    CHECK(check_num(r, "llm.roles.kv_inputs") == 2 * L_ && check_num(r, "llm.roles.kv_outputs") == 2 * L_, "hf: 4 cache pairs");
    {   /* the cache's input names, for a summary that lists them as one item */
        const cJSON *names = check_at(r, "llm.roles.kv_input_names");
        CHECK(cJSON_GetArraySize(names) == 2 * L_, "hf: %d cache input names", cJSON_GetArraySize(names));
        const cJSON *first = cJSON_GetArrayItem(names, 0);
        CHECK(cJSON_IsString(first) && strstr(first->valuestring, "past") != NULL, "hf: a cache input's name: %s",
              cJSON_IsString(first) ? first->valuestring : "none");
    }
    CHECK(check_num(r, "llm.kv_cache_bytes_per_token") == tiny_kv_per_token_fp16, "hf KV per token %g, want %g",
          check_num(r, "llm.kv_cache_bytes_per_token"), tiny_kv_per_token_fp16);
    CHECK(check_num(r, "llm.kv_cache_bytes") == tiny_kv_per_token_fp16 * 20, "hf KV at P+G: %g", check_num(r, "llm.kv_cache_bytes"));
    CHECK(check_num(r, "llm.max_positions") == POS_, "hf positions (the gathered cos table) %g", check_num(r, "llm.max_positions"));
    cJSON_Delete(r);

    r = run_llm(g, "unit", "{\"prompt\": 16, \"generate\": 4, \"contexts\": [64, 128, 1024]}");
    CHECK(!strcmp(check_str(r, "llm.roles.total"), "total_sequence_length"), "genai total: %s", check_str(r, "llm.roles.total"));
    /* the rotary caches hold 128 positions: the context sweep stops at the last one */
    CHECK(check_num(r, "llm.max_positions") == POS_, "genai positions %g", check_num(r, "llm.max_positions"));
    const cJSON *rows = check_at(r, "llm.context_sweep.rows");
    CHECK(cJSON_GetArraySize(rows) == 2 && check_num(cJSON_GetArrayItem(rows, 0), "context") == 64 &&
              check_num(cJSON_GetArrayItem(rows, 1), "context") == POS_ - 1,
          "context sweep 64, %d", POS_ - 1);
    CHECK(!strcmp(check_str(r, "llm.roles.past"), "past_sequence_length"), "genai past");
    CHECK(check_num(r, "llm.kv_cache_bytes_per_token") == tiny_kv_per_token_fp16, "genai KV per token %g",
          check_num(r, "llm.kv_cache_bytes_per_token"));
    cJSON_Delete(r);

    /* the user names a role: it wins and says so */
    r = run_llm(m, "unit", "{\"prompt\": 16, \"generate\": 4, \"dims\": {\"total\": \"past_sequence_length + 1\"}}");
    CHECK(!strcmp(check_str(r, "llm.roles.sources.total"), "user"), "total named by the user");
    CHECK(!strcmp(check_str(r, "llm.roles.sources.seq"), "detected"), "seq detected");
    cJSON_Delete(r);

    /* rl_model_info reports the roles; a model without a sequence dim has none */
    char *info = rl_model_info(m);
    cJSON *ij = cJSON_Parse(info);
    CHECK(cJSON_IsTrue(check_at(ij, "llm.kv_cache")) && !strcmp(check_str(ij, "llm.past"), "past_sequence_length"),
          "info reports the roles: %.300s", info);
    cJSON_Delete(ij);
    rl_free(info);
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/models/mlp.onnx", tests_dir);
    rl_model *mlp = check_read_model(path);
    if (mlp) {
        info = rl_model_info(mlp);
        ij = cJSON_Parse(info);
        CHECK(cJSON_IsNull(check_at(ij, "llm")), "mlp: no LLM roles");
        cJSON_Delete(ij);
        rl_free(info);
        cJSON *e = analyze(mlp, llm_request(llm_hw("unit"), "{}"));
        CHECK(!strcmp(error_code(e), "bad_request") && strstr(check_str(e, "error.message"), "llm.dims.seq"),
              "mlp: no sequence dim is a bad request naming llm.dims.seq: %s", check_str(e, "error.message"));
        cJSON_Delete(e);
        rl_model_free(mlp);
    }
    rl_model_free(m);
    rl_model_free(g);
}

/* -------------------------------------------------------------- prefill -- */
static void test_prefill_flops(void) {
    static const char *const models[] = {"tiny_hf.onnx", "tiny_genai.onnx"};
    for (int i = 0; i < 2; i++) {
        rl_model *m = llm_model(models[i]);
        if (!m) continue;
        const double B = 3, P = 20;
        cJSON *r = run_llm(m, "unit", "{\"prompt\": 20, \"generate\": 2, \"batch\": 3}");
        double want = 2 * tiny_matrix_params * B * P + attention_matrix_flops(L_, B, H_, P, P, HD_);
        CHECK(check_num(r, "llm.prefill.matrix_flops") == want, "%s prefill matrix FLOPs %.17g, want %.17g", models[i],
              check_num(r, "llm.prefill.matrix_flops"), want);
        /* a decode step at context c: one token against c + 1 keys */
        double c = P, step = 2 * tiny_matrix_params * B + attention_matrix_flops(L_, B, H_, 1, c + 1, HD_);
        double step2 = 2 * tiny_matrix_params * B + attention_matrix_flops(L_, B, H_, 1, c + 2, HD_);
        CHECK(check_close(check_num(r, "llm.decode.matrix_flops_per_step"), (step + step2) / 2, 1e-12),
              "%s decode matrix FLOPs per step %.17g, want %.17g", models[i], check_num(r, "llm.decode.matrix_flops_per_step"),
              (step + step2) / 2);
        cJSON_Delete(r);

        /* one answer: the prefill is a plain analysis at those dims */
        cJSON *req = cJSON_CreateObject();
        cJSON_AddItemToObject(req, "hardware", llm_hw("unit"));
        cJSON_AddFalseToObject(req, "layers");
        cJSON *dims = cJSON_AddObjectToObject(req, "dims");
        cJSON_AddNumberToObject(dims, "batch_size", B);
        cJSON_AddNumberToObject(dims, "sequence_length", P);
        cJSON_AddNumberToObject(dims, "past_sequence_length", 0);
        cJSON_AddNumberToObject(dims, i ? "total_sequence_length" : "past_sequence_length + 1", P);
        cJSON_AddItemToObject(req, "llm", cJSON_Parse("{\"prompt\": 20, \"generate\": 2, \"batch\": 3, \"batches\": [3], \"contexts\": [8]}"));
        cJSON *plain = analyze(m, req);
        CHECK(check_num(plain, "llm.prefill.time_s") == check_num(plain, "sol.chosen.time_s"),
              "%s prefill time %.17g = the plain analysis' %.17g", models[i], check_num(plain, "llm.prefill.time_s"),
              check_num(plain, "sol.chosen.time_s"));
        CHECK(check_num(plain, "llm.prefill.flops") == check_num(plain, "totals.flops"), "%s prefill FLOPs = totals", models[i]);
        CHECK(check_num(plain, "llm.prefill.energy_j") == check_num(plain, "sol.chosen.energy_j"), "%s prefill energy", models[i]);
        cJSON_Delete(plain);
        rl_model_free(m);
    }
}

/* --------------------------------------------------------------- decode -- */
/* Bytes of one decode step (G = 1) at context c, batch B. */
static double step_bytes(rl_model *m, double B, double c) {
    char llm[200];
    snprintf(llm, sizeof llm, "{\"prompt\": %.0f, \"generate\": 1, \"batch\": %.0f, \"batches\": [%.0f]}", c, B, B);
    cJSON *r = run_llm(m, "unit", llm);
    double b = check_num(r, "llm.decode.bytes_per_step");
    cJSON_Delete(r);
    return b;
}

static void test_decode_bytes(void) {
    rl_model *m = llm_model("tiny_hf.onnx");
    rl_model *g = llm_model("tiny_genai.onnx");
    if (!m || !g) return;
    const double B = 2, c = 32, kv = tiny_kv_per_token_fp16;
    /* the KV read grows by one row of every cache per token of context (and
     * the HF layout's int64 attention mask by 8 bytes) */
    double b1 = step_bytes(m, B, c), b2 = step_bytes(m, B, c + 10);
    CHECK(b2 - b1 == 10 * B * (kv + 8), "hf: 10 more tokens of context read %g more bytes, want %g", b2 - b1,
          10 * B * (kv + 8));
    /* weights read + KV read, and only the few small tensors besides */
    double norms = (2 * L_ + 1) * D_ * 2.0;
    double weights = tiny_matrix_params * 2 + norms, kv_read = B * c * kv;
    double small = B * kv                    /* the new row written in place */
                   + B * V_ * 2              /* logits */
                   + B * (D_ + 2 * HD_) * 2  /* embedding and cos/sin rows */
                   + B * 8 * (3 + c + 1)     /* input_ids, position_ids twice, the mask */
                   + 4096;                   /* shape operands and scalar constants */
    CHECK(b1 >= weights + kv_read && b1 <= weights + kv_read + small,
          "hf decode bytes %g: weights %g + KV %g (+ at most %g)", b1, weights, kv_read, small);
    /* in place: a plain analysis at the same dims writes the whole present cache */
    cJSON *req = cJSON_CreateObject();
    cJSON_AddItemToObject(req, "hardware", llm_hw("unit"));
    cJSON_AddFalseToObject(req, "layers");
    cJSON *dims = cJSON_AddObjectToObject(req, "dims");
    cJSON_AddNumberToObject(dims, "batch_size", B);
    cJSON_AddNumberToObject(dims, "sequence_length", 1);
    cJSON_AddNumberToObject(dims, "past_sequence_length", c);
    cJSON_AddNumberToObject(dims, "past_sequence_length + 1", c + 1);
    cJSON *plain = analyze(m, req);
    CHECK(check_num(plain, "sol.fused.bytes") - b1 == B * c * kv,
          "in place: the plain analysis writes %g more bytes (the whole present), want %g",
          check_num(plain, "sol.fused.bytes") - b1, B * c * kv);
    cJSON_Delete(plain);

    /* GenAI int4: the packed blocks and their fp16 scales (block 32) */
    double g_weights = tiny_matrix_params * (0.5 + 2.0 / 32) + norms;
    double gb = step_bytes(g, B, c);
    double g_small = small + L_ * 2.0 * POS_ * (HD_ / 2) * 2; /* + the cos/sin caches, at most whole */
    CHECK(gb >= g_weights + kv_read && gb <= g_weights + kv_read + g_small,
          "genai decode bytes %g: weights %g + KV %g (+ at most %g)", gb, g_weights, kv_read, g_small);
    rl_model_free(m);
    rl_model_free(g);
}

/* Σ of the decode steps equals the generation's time, whatever the method. */
static void test_generation_sum(void) {
    rl_model *g = llm_model("tiny_genai.onnx");
    if (!g) return;
    /* A device whose vector unit is slow next to its memory. */
    cJSON *hw = llm_hw("unit");
    cJSON *mem = cJSON_GetArrayItem(cJSON_GetObjectItem(hw, "memory"), 0);
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(mem, "bandwidth_Bps"), "value", cJSON_CreateNumber(1e12));
    cJSON *fp16 = cJSON_GetObjectItem(cJSON_GetObjectItem(hw, "compute"), "fp16");
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(fp16, "vector"), "value", cJSON_CreateNumber(1e11));
    char *hw_text = cJSON_PrintUnformatted(hw);
    cJSON_Delete(hw);
    const int P = 4, G = 64;
    char llm[200];
    snprintf(llm, sizeof llm, "{\"prompt\": %d, \"generate\": %d}", P, G);
    cJSON *r = analyze(g, llm_request(cJSON_Parse(hw_text), llm));
    double sum = 0, e_sum = 0, first = 0, last = 0;
    double t[G];
    for (int i = 0; i < G; i++) {
        snprintf(llm, sizeof llm, "{\"prompt\": %d, \"generate\": 1}", P + i);
        cJSON *s = analyze(g, llm_request(cJSON_Parse(hw_text), llm));
        t[i] = check_num(s, "llm.decode.time_s");
        sum += t[i];
        e_sum += check_num(s, "llm.decode.energy_j");
        if (i == 0) first = t[i];
        last = t[i];
        cJSON_Delete(s);
    }
    bool linear = true;
    for (int i = 1; i + 1 < G; i++)
        if (!check_close(t[i], t[0] + (t[G - 1] - t[0]) * i / (G - 1), 1e-9)) linear = false;
    CHECK(check_close(check_num(r, "llm.decode.time_s"), sum, 1e-9), "generation %.17g = Σ of its %d steps %.17g (%s)",
          check_num(r, "llm.decode.time_s"), G, sum, check_str(r, "llm.decode.method"));
    CHECK(check_close(check_num(r, "llm.decode.energy_j"), e_sum, 1e-9), "generation energy = Σ of the steps'");
    CHECK(!strcmp(check_str(r, "llm.decode.method"), linear ? "closed_form" : "exact_piecewise"),
          "method %s for a %s step time", check_str(r, "llm.decode.method"), linear ? "linear" : "bent");
    /* Since GroupQueryAttention reads one rotary-cache row per token (not the
     * whole cache), this device's step time no longer bends, so the method
     * is the closed form; the Σ-of-steps checks above hold either way. A
     * device that bends again belongs here (the piecewise path is otherwise
     * covered only by larger models). */
    if (!linear) printf("test_llm: the step time bends on the test device (piecewise sum exercised)\n");
    CHECK(check_num(r, "llm.decode.first_time_per_token_s") == first && check_num(r, "llm.decode.last_time_per_token_s") == last,
          "first and last step times");
    CHECK(check_close(check_num(r, "llm.floor.tpot_s"), sum / G, 1e-9), "TPOT is the mean step");
    CHECK(check_close(check_num(r, "llm.floor.e2e_s"), check_num(r, "llm.floor.ttft_s") + sum, 1e-9), "e2e = TTFT + decode");
    CHECK(check_close(check_num(r, "llm.floor.tokens_per_s"), G / sum, 1e-9), "tokens/s = batch·G / decode time");
    CHECK(check_close(check_num(r, "llm.floor.energy_per_token_j"), (check_num(r, "llm.prefill.energy_j") + e_sum) / G, 1e-9),
          "energy per token = (prefill + decode) / generated tokens");
    /* the answer the view leads with is the forecast's, by the same arithmetic */
    double fsum = check_num(r, "llm.decode.forecast_s");
    CHECK(check_num(r, "llm.tpot_s") == check_num(r, "llm.forecast.tpot_s") && check_close(check_num(r, "llm.tpot_s"), fsum / G, 1e-12),
          "the answer's TPOT is the forecast's mean step");
    CHECK(check_close(check_num(r, "llm.e2e_s"), check_num(r, "llm.prefill.forecast_s") + fsum, 1e-12) &&
              check_close(check_num(r, "llm.tokens_per_s"), G / fsum, 1e-12) && fsum >= sum,
          "the answer's e2e and tokens/s are the forecast's, never faster than the floor");
    cJSON_Delete(r);
    free(hw_text);
    rl_model_free(g);
}

/* -------------------------------------------------------------- memory -- */
static void test_memory_fit(void) {
    rl_model *m = llm_model("tiny_hf.onnx");
    if (!m) return;
    cJSON *hw = llm_hw("unit");
    cJSON *mem = cJSON_GetArrayItem(cJSON_GetObjectItem(hw, "memory"), 0);
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(mem, "capacity_bytes"), "value", cJSON_CreateNumber(1e6));
    char *hw_text = cJSON_PrintUnformatted(hw);
    cJSON_Delete(hw);
    const char *llm = "{\"prompt\": 32, \"generate\": 32, \"batch\": 4, \"batches\": [1, 2, 4, 8, 16, 32, 64, 128]}";
    cJSON *r = analyze(m, llm_request(cJSON_Parse(hw_text), llm));
    double W = check_num(r, "llm.weight_bytes"), kv = check_num(r, "llm.kv_cache_bytes_per_token");
    double act = check_num(r, "llm.activation_bytes"), cap = check_num(r, "llm.device_memory_bytes"), B = 4, T = 64;
    CHECK(cap == 1e6, "device memory from the profile");
    CHECK(act > 0 && W > 0, "activations %g, weights %g", act, W);
    double need = W + B * T * kv + act;
    CHECK(check_num(r, "llm.memory_required_bytes") == need, "required %g = weights + KV + activations %g",
          check_num(r, "llm.memory_required_bytes"), need);
    CHECK(cJSON_IsTrue(check_at(r, "llm.fits")) == (need <= cap), "fits");
    double per_seq = T * kv + act / B, mb = check_num(r, "llm.max_batch");
    CHECK(mb >= 1 && W + mb * per_seq <= cap && W + (mb + 1) * per_seq > cap,
          "max_batch %g: %g fits, one more does not (cap %g)", mb, W + mb * per_seq, cap);
    double mc = check_num(r, "llm.max_context_memory");
    CHECK(W + act + B * kv * mc <= cap && W + act + B * kv * (mc + 1) > cap, "max_context_memory %g", mc);
    /* the memory would hold more than the model's 128 positions: the longest context is theirs */
    CHECK(mc > POS_ && check_num(r, "llm.max_context") == POS_ && !strcmp(check_str(r, "llm.max_context_limit"), "positions"),
          "max_context %g capped at the model's %d positions (memory: %g)", check_num(r, "llm.max_context"), POS_, mc);
    const cJSON *row;
    cJSON_ArrayForEach(row, check_at(r, "llm.batch_sweep.rows"))
        CHECK(cJSON_IsTrue(check_at(row, "fits")) == (check_num(row, "batch") <= mb), "sweep row %g fits iff <= max_batch %g",
              check_num(row, "batch"), mb);
    /* direct runs at max_batch and one more agree */
    char q[300];
    for (int k = 0; k < 2; k++) {
        snprintf(q, sizeof q, "{\"prompt\": 32, \"generate\": 32, \"batch\": %.0f}", mb + k);
        cJSON *d = analyze(m, llm_request(cJSON_Parse(hw_text), q));
        CHECK(cJSON_IsTrue(check_at(d, "llm.fits")) == (k == 0), "a run at batch %.0f %s", mb + k, k ? "does not fit" : "fits");
        cJSON_Delete(d);
    }
    cJSON_Delete(r);
    free(hw_text);
    rl_model_free(m);
}

/* The Llama-3.2-1B shape in fp16 on the H100: a decode step reads the
 * weights and the KV cache, and takes their bytes over the HBM bandwidth. */
static void test_llama_1b_h100(void) {
    rl_model *m = llm_model("llama-3.2-1b_hf_fp16.onnx");
    if (!m) return;
    const double L = 16, d = 2048, H = 32, Hkv = 8, hd = 64, ff = 8192, V = 128256, P = 512, G = 128;
    double matrix = L * (2 * d * H * hd + 2 * d * Hkv * hd + 3 * d * ff) + d * V;
    double weights = 2 * matrix + (2 * L + 1) * d * 2;
    double kv_tok = L * 2 * Hkv * hd * 2, kv_mean = (P + (G - 1) / 2.0) * kv_tok;
    cJSON *hw = llm_hw("h100-sxm");
    double bw = check_num(cJSON_GetArrayItem(cJSON_GetObjectItem(hw, "memory"), 0), "bandwidth_Bps.value");
    cJSON *r = analyze(m, llm_request(hw, "{\"prompt\": 512, \"generate\": 128}"));
    double want = (weights + kv_mean) / bw, got = check_num(r, "llm.floor.tpot_s");
    CHECK(fabs(got - want) <= 0.02 * want, "Llama-3.2-1B fp16 on H100: TPOT %.4g s vs (weights + KV) / bandwidth %.4g s",
          got, want);
    printf("Llama-3.2-1B fp16 on H100: TPOT %.2f us, (weights %.4g B + KV %.4g B) / %.4g B/s = %.2f us (%+.3f%%)\n",
           got * 1e6, weights, kv_mean, bw, want * 1e6, 100 * (got - want) / want);
    CHECK(check_num(r, "llm.kv_cache_bytes_per_token") == kv_tok, "1B KV per token %g", check_num(r, "llm.kv_cache_bytes_per_token"));
    CHECK(!strcmp(check_str(r, "llm.decode.bound"), "memory"), "1B decode at batch 1 is memory-bound");
    CHECK(cJSON_IsTrue(check_at(r, "llm.fits")), "1B fp16 fits an H100");
    cJSON_Delete(r);
    rl_model_free(m);
}

/* ---------------------------------------------------------- what-if -- */
static void test_quantization(void) {
    rl_model *m = llm_model("tiny_hf.onnx");
    rl_model *g = llm_model("tiny_genai.onnx");
    if (!m || !g) return;
    cJSON *base = run_llm(m, "unit", "{\"prompt\": 8, \"generate\": 2}");
    cJSON *w4 = run_llm(m, "unit", "{\"prompt\": 8, \"generate\": 2, \"weight_bits\": 4, \"weight_group\": 32}");
    cJSON *w8 = run_llm(m, "unit", "{\"prompt\": 8, \"generate\": 2, \"weight_bits\": 8, \"weight_group\": 64}");
    double wb = check_num(base, "llm.weight_bytes");
    CHECK(check_num(w4, "llm.weight_bytes") == wb - 2 * tiny_matrix_params + tiny_matrix_params * (0.5 + 2.0 / 32),
          "4-bit weights: %g", check_num(w4, "llm.weight_bytes"));
    CHECK(check_num(w8, "llm.weight_bytes") == wb - 2 * tiny_matrix_params + tiny_matrix_params * (1 + 2.0 / 64),
          "8-bit weights: %g", check_num(w8, "llm.weight_bytes"));
    CHECK(check_num(w4, "llm.quantization.requantized_matrices") == 7 * L_ + 1, "15 matrices requantized");
    /* decode reads the smaller weights: the step's bytes fall by as much */
    double saved = 2 * tiny_matrix_params - tiny_matrix_params * (0.5 + 2.0 / 32);
    CHECK(check_close(check_num(base, "llm.decode.bytes_per_step") - check_num(w4, "llm.decode.bytes_per_step"), saved, 1e-12),
          "4-bit decode reads %g fewer bytes, want %g",
          check_num(base, "llm.decode.bytes_per_step") - check_num(w4, "llm.decode.bytes_per_step"), saved);
    cJSON *kv8 = run_llm(m, "unit", "{\"prompt\": 8, \"generate\": 2, \"kv_bits\": 8}");
    cJSON *kv4 = run_llm(m, "unit", "{\"prompt\": 8, \"generate\": 2, \"kv_bits\": 4}");
    CHECK(check_num(kv8, "llm.kv_cache_bytes_per_token") == tiny_kv_per_token_fp16 / 2, "8-bit KV per token");
    CHECK(check_num(kv4, "llm.kv_cache_bytes_per_token") == tiny_kv_per_token_fp16 / 4, "4-bit KV per token");
    cJSON_Delete(base);
    cJSON_Delete(w4);
    cJSON_Delete(w8);
    cJSON_Delete(kv8);
    cJSON_Delete(kv4);
    /* MatMulNBits keep the bits the model carries */
    cJSON *gb = run_llm(g, "unit", "{\"prompt\": 8, \"generate\": 2}");
    cJSON *g8 = run_llm(g, "unit", "{\"prompt\": 8, \"generate\": 2, \"weight_bits\": 8}");
    CHECK(check_num(g8, "llm.weight_bytes") == check_num(gb, "llm.weight_bytes"), "GenAI int4 weights keep their size");
    CHECK(check_num(g8, "llm.quantization.requantized_matrices") == 0 && check_num(g8, "llm.quantization.quantized_nodes_kept") == 7 * L_ + 1,
          "no MatMul to requantize, 15 MatMulNBits kept");
    cJSON_Delete(gb);
    cJSON_Delete(g8);
    rl_model_free(m);
    rl_model_free(g);
}

/* ------------------------------------------------------------------ MoE -- */
static void test_moe(void) {
    rl_model *q = llm_model("tiny_qmoe.onnx");
    rl_model *d = llm_model("tiny_moe.onnx");
    if (!q || !d) return;
    const double E = 4, k = 2, B = 1, P = 4;
    /* QMoE: the op counts the top-k experts of each token */
    cJSON *r = run_llm(q, "unit", "{\"prompt\": 4, \"generate\": 2}");
    CHECK(!strcmp(check_str(r, "llm.moe.kind"), "MoE op") && check_num(r, "llm.moe.experts") == E && check_num(r, "llm.moe.top_k") == k &&
              check_num(r, "llm.moe.layers") == L_, "QMoE found: %s", check_str(r, "llm.moe.kind"));
    double experts_active = L_ * k * 3.0 * D_ * FF_, attn = L_ * ((double)D_ * H_ * HD_ * 2 + (double)D_ * HKV_ * HD_ * 2);
    double router = L_ * (double)D_ * E;
    double want = 2 * B * P * (experts_active + attn + router + (double)D_ * V_) + attention_matrix_flops(L_, B, H_, P, P, HD_);
    CHECK(check_num(r, "llm.prefill.matrix_flops") == want, "QMoE prefill matrix FLOPs %.17g, want %.17g",
          check_num(r, "llm.prefill.matrix_flops"), want);
    cJSON_Delete(r);
    /* a plain export computing every expert behind a router TopK */
    r = run_llm(d, "unit", "{\"prompt\": 4, \"generate\": 2}");
    CHECK(!strcmp(check_str(r, "llm.moe.kind"), "router TopK") && check_num(r, "llm.moe.experts") == E && check_num(r, "llm.moe.top_k") == k,
          "router TopK found: %s", check_str(r, "llm.moe.kind"));
    double all_experts = L_ * E * 3.0 * D_ * FF_;
    want = 2 * B * P * (all_experts * k / E + attn + router + (double)D_ * V_) + attention_matrix_flops(L_, B, H_, P, P, HD_);
    CHECK(check_num(r, "llm.prefill.matrix_flops") == want, "dense MoE prefill matrix FLOPs %.17g, want %.17g (active experts)",
          check_num(r, "llm.prefill.matrix_flops"), want);
    /* every expert is resident */
    CHECK(check_num(r, "llm.weight_bytes") >= 2 * (all_experts + attn + router + 2.0 * D_ * V_), "all experts resident");
    cJSON_Delete(r);
    rl_model_free(q);
    rl_model_free(d);
}

/* ------------------------------------------------- prefill-only, errors -- */
static void test_no_kv_and_errors(void) {
    rl_model *n = llm_model("tiny_nokv.onnx");
    rl_model *m = llm_model("tiny_hf.onnx");
    if (!n || !m) return;
    cJSON *r = run_llm(n, "unit", "{\"prompt\": 16, \"generate\": 4}");
    CHECK(cJSON_IsFalse(check_at(r, "llm.roles.kv_cache")), "no KV cache");
    CHECK(cJSON_IsNull(check_at(r, "llm.decode")) && cJSON_IsNull(check_at(r, "llm.tokens_per_s")) && cJSON_IsNull(check_at(r, "llm.max_context")),
          "prefill only: no decode figures");
    CHECK(check_num(r, "llm.floor.ttft_s") > 0 && check_num(r, "llm.prefill.time_s") == check_num(r, "llm.floor.ttft_s") &&
              check_num(r, "llm.prefill.forecast_s") == check_num(r, "llm.ttft_s"),
          "prefill time is TTFT (the floor's and the forecast's)");
    CHECK(cJSON_IsNull(check_at(r, "llm.forecast.tokens_per_s")) && cJSON_IsNull(check_at(r, "llm.floor.tpot_s")),
          "prefill only: no decode figures, forecast or floor");
    char *notes = cJSON_PrintUnformatted(check_at(r, "llm.notes"));
    CHECK(notes && strstr(notes, "no KV cache") != NULL, "a note says why: %s", notes ? notes : "");
    CHECK(notes && strstr(notes, "text-generation-with-past") != NULL, "and what export gives one: %s", notes ? notes : "");
    free(notes);
    cJSON_Delete(r);
    /* the model info says so before any analysis (the page's LLM section shows it) */
    char *info_text = rl_model_info(n);
    cJSON *info = info_text ? cJSON_Parse(info_text) : NULL;
    CHECK(info && cJSON_IsFalse(check_at(info, "llm.kv_cache")) &&
              strstr(check_str(info, "llm.no_kv_cache"), "text-generation-with-past") != NULL,
          "model info of a decoder without a KV cache: why, and what export gives one");
    cJSON_Delete(info);
    rl_free(info_text);

    static const char *const bad[] = {
        "{\"prompt\": 0}", "{\"generate\": 1.5}", "{\"weight_bits\": 5}", "{\"kv_bits\": 2}",
        "{\"dims\": {\"seq\": \"nope\"}}", "{\"dims\": {\"heads\": \"x\"}}", "{\"batches\": []}", "[]",
        "{\"prompt\": 99999999, \"generate\": 99999999}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cJSON *req = cJSON_CreateObject();
        cJSON_AddItemToObject(req, "hardware", llm_hw("unit"));
        cJSON_AddItemToObject(req, "llm", cJSON_Parse(bad[i]));
        cJSON *e = analyze(m, req);
        CHECK(!strcmp(error_code(e), "bad_request"), "%s -> %s (%s)", bad[i], error_code(e), check_str(e, "error.message"));
        cJSON_Delete(e);
    }
    r = run_llm(m, "unit", "{\"prompt\": 8, \"generate\": 2}");
    CHECK(check_num(r, "llm.ttft_s") > 0, "the model still answers after errors");
    cJSON_Delete(r);
    rl_model_free(n);
    rl_model_free(m);
}

/* ----------------------------------------------------------- parameters -- */
/* An int4 decoder counts its weights, not its packed bytes: MatMulNBits' B
 * holds two 4-bit weights a byte, and its fp16 scales are no parameters.
 * tiny_genai: the matrices, the fp16 embedding (vocabulary × hidden), the
 * norms (2 a layer + 1, of hidden) and the rotary cos and sin tables
 * (positions × head_dim/2 each); a few scalar constants besides. */
static void test_params(void) {
    rl_model *m = llm_model("tiny_genai.onnx");
    if (!m) return;
    cJSON *req = cJSON_CreateObject();
    cJSON_AddItemToObject(req, "hardware", llm_hw("unit"));
    cJSON_AddFalseToObject(req, "layers");
    cJSON *r = analyze(m, req);
    const double want = tiny_matrix_params + (double)V_ * D_ + (2.0 * L_ + 1) * D_ + 2.0 * POS_ * HD_ / 2;
    double got = check_num(r, "model.params");
    CHECK(got >= want && got <= want + 16, "int4 tiny_genai: %.0f parameters, want the %.0f weights (not packed bytes)",
          got, want);
    cJSON_Delete(r);
    rl_model_free(m);
}

/* ------------------------------------------------------ a torch export -- */
/* The Llama-3.2-1B-shaped decoder tools/validate/gpu.py exported with
 * torch.onnx.export (fp32, past_key_values in, present out): the roles, the
 * KV bytes per token and the prefill's matrix FLOPs hold on a real export. */
static void test_torch_export(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/models/torch/llama_1b_kv.onnx", tests_dir);
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("test_llm: %s not found, torch export not checked\n", path);
        return;
    }
    fclose(f);
    rl_model *m = check_read_model(path);
    if (!m) return;
    const double L = 16, d = 2048, H = 32, Hkv = 8, hd = 64, ff = 8192, V = 128256, P = 16, B = 2;
    cJSON *r = run_llm(m, "unit", "{\"prompt\": 16, \"generate\": 4, \"batch\": 2}");
    CHECK(cJSON_IsTrue(check_at(r, "llm.roles.kv_cache")) && check_num(r, "llm.roles.kv_inputs") == 2 * L &&
              check_num(r, "llm.roles.kv_outputs") == 2 * L && !strcmp(check_str(r, "llm.roles.past"), "past_sequence_length") &&
              !strcmp(check_str(r, "llm.roles.total"), "total_sequence_length"),
          "torch export: roles");
    CHECK(check_num(r, "llm.kv_cache_bytes_per_token") == L * 2 * Hkv * hd * 4, "torch export: fp32 KV per token %g",
          check_num(r, "llm.kv_cache_bytes_per_token"));
    double matrix = L * (2 * d * H * hd + 2 * d * Hkv * hd + 3 * d * ff) + d * V;
    double want = 2 * matrix * P * B + attention_matrix_flops(L, B, H, P, P, hd);
    CHECK(check_num(r, "llm.prefill.matrix_flops") == want, "torch export: prefill matrix FLOPs %.17g, want %.17g",
          check_num(r, "llm.prefill.matrix_flops"), want);
    double kv_read = B * (P + 1.5) * L * 2 * Hkv * hd * 4; /* the mean context of the 4 steps */
    double bytes = check_num(r, "llm.decode.bytes_per_step");
    CHECK(bytes >= 4 * matrix + kv_read && bytes <= (4 * matrix + kv_read) * 1.001,
          "torch export: decode bytes %g = fp32 weights %g + KV %g (within 0.1%%)", bytes, 4 * matrix, kv_read);
    cJSON_Delete(r);
    rl_model_free(m);
}

int main(int argc, char **argv) {
    if (llm_test_setup(argc, argv, "test_llm")) return 77;
    test_roles();
    test_params();
    test_prefill_flops();
    test_decode_bytes();
    test_generation_sum();
    test_memory_fit();
    test_llama_1b_h100();
    test_quantization();
    test_moe();
    test_no_kv_and_errors();
    test_torch_export();
    return check_report("test_llm");
}
