/* Under "llm" the main analysis runs at the prefill of the prompt (issue 27,
 * item 1): the role dims the request leaves open take batch = the LLM
 * view's batch, sequence = prompt, past = 0 and total = past + sequence, so
 * the shapes add up and the answer warns
 * of no unset dim and equals the analysis with those dims set by hand; a
 * dim the request sets wins. On the tiny decoders of
 * tools/make-models/llm_model.py --suite (argv[3]). */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdbool.h>

#include "check.h"
#include "check_llm.h"
#include "rooflens.h"

static cJSON *request(const char *extra) {
    cJSON *r = cJSON_Parse(extra);
    cJSON_AddItemToObject(r, "hardware", llm_hw("h100-sxm"));
    cJSON_AddFalseToObject(r, "layers");
    return r;
}

static bool warns_unset(const cJSON *res) {
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(res, "warnings")) {
        if (!strcmp(check_str(w, "code"), "unset_dim")) return true;
    }
    return false;
}

static double dim_value(const cJSON *res, const char *name) {
    const cJSON *d = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "model"), "dims"), name);
    return cJSON_GetNumberValue(cJSON_GetObjectItem(d, "value"));
}

static void check_model(const char *name) {
    rl_model *m = llm_model(name);
    CHECK(m != NULL, "%s reads", name);
    if (!m) return;
    char *info_text = rl_model_info(m);
    cJSON *info = cJSON_Parse(info_text);
    rl_free(info_text);
    const cJSON *roles = cJSON_GetObjectItem(info, "llm");
    const char *seq = check_str(roles, "seq"), *past = check_str(roles, "past"), *total = check_str(roles, "total");
    CHECK(*seq && *past, "%s: roles found (seq '%s', past '%s')", name, seq, past);

    cJSON *llm = check_analyze(m, request("{\"llm\": {\"prompt\": 96, \"generate\": 8, \"batches\": [1], \"contexts\": [64]}}"));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(llm, "ok")), "%s: %s", name, check_str(llm, "error.message"));
    CHECK(!warns_unset(llm), "%s: an unset_dim warning under llm", name);
    CHECK(dim_value(llm, seq) == 96 && dim_value(llm, past) == 0, "%s: prefill dims %g, %g", name,
          dim_value(llm, seq), dim_value(llm, past));
    if (*total) CHECK(dim_value(llm, total) == 96, "%s: total %g", name, dim_value(llm, total));

    char by_hand[512];
    snprintf(by_hand, sizeof by_hand, "{\"batch\": 1, \"dims\": {\"%s\": 96, \"%s\": 0%s%s%s}}", seq, past,
             *total ? ", \"" : "", *total ? total : "", *total ? "\": 96" : "");
    cJSON *plain = check_analyze(m, request(by_hand));
    CHECK(check_num(llm, "sol.chosen.time_s") == check_num(plain, "sol.chosen.time_s"),
          "%s: the prefill analysis %g equals the dims set by hand %g", name, check_num(llm, "sol.chosen.time_s"),
          check_num(plain, "sol.chosen.time_s"));
    cJSON *open = check_analyze(m, request("{}"));
    CHECK(warns_unset(open), "%s: without llm the open dims are warned of (the check above can fail)", name);
    cJSON_Delete(open);

    /* a dim the request sets wins over the prefill */
    snprintf(by_hand, sizeof by_hand, "{\"dims\": {\"%s\": 7}, \"llm\": {\"prompt\": 96, \"batches\": [1], \"contexts\": [64]}}", past);
    cJSON *mine = check_analyze(m, request(by_hand));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(mine, "ok")), "%s: %s", name, check_str(mine, "error.message"));
    CHECK(dim_value(mine, past) == 7, "%s: the request's past %g", name, dim_value(mine, past));
    /* and the total is past + sequence, so the shapes add up */
    if (*total) CHECK(dim_value(mine, total) == 7 + 96, "%s: total %g is past + sequence", name, dim_value(mine, total));
    cJSON_Delete(mine);
    cJSON_Delete(plain);
    cJSON_Delete(llm);
    cJSON_Delete(info);
    rl_model_free(m);
}

int main(int argc, char **argv) {
    if (llm_test_setup(argc, argv, "test_llm_prefill")) return 77;
    check_model("tiny_hf.onnx");
    check_model("tiny_genai.onnx");
    return check_report("llm_prefill");
}
