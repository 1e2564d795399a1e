/* Every what-if study on every model of the corpus (tests/model_corpus.h),
 * with no dims set and with every symbolic dim set: each answer is JSON,
 * ok with a study, or a clean error. Studies warn into a state of their own,
 * so warnings repeated inside a study (an unset dim, a precision fallback)
 * must not touch the request's warning table: the fp64 request on
 * jetson-agx-orin (no fp64 peak) and the models with unset symbolic dims
 * are the cases that once crashed. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdbool.h>

#include "check.h"
#include "check_model.h"
#include "model_corpus.h"

static const char *tests_dir, *root_dir;
static cJSON *h100, *orin, *tpu;
static int runs, ok_runs;

static cJSON *load_hw(const char *id) { return check_read_hw(NULL, root_dir, id); }

/* {"name": 2, ...} for every symbolic dim of the model's inputs. */
static cJSON *all_dims(rl_model *m) {
    cJSON *dims = cJSON_CreateObject();
    char *info = rl_model_info(m);
    cJSON *j = cJSON_Parse(info);
    rl_free(info);
    const cJSON *d;
    cJSON_ArrayForEach(d, cJSON_GetObjectItem(j, "symbolic_dims"))
        cJSON_AddNumberToObject(dims, cJSON_GetObjectItem(d, "name")->valuestring, 2);
    cJSON_Delete(j);
    return dims;
}

static void run(const char *name, rl_model *m, const cJSON *hw, const char *prec, const cJSON *dims,
                const char *study) {
    cJSON *req = cJSON_CreateObject();
    cJSON_AddItemReferenceToObject(req, "hardware", (cJSON *)hw);
    cJSON_AddStringToObject(req, "precision", prec);
    if (dims) cJSON_AddItemToObject(req, "dims", cJSON_Duplicate(dims, true));
    cJSON_AddFalseToObject(req, "layers");
    cJSON *st = cJSON_Parse(study);
    if (cJSON_GetObjectItem(st, "hardware")) { /* the compare list */
        cJSON_DeleteItemFromObject(st, "hardware");
        cJSON *list = cJSON_AddArrayToObject(st, "hardware");
        cJSON_AddItemReferenceToArray(list, h100);
        cJSON_AddItemReferenceToArray(list, orin);
        cJSON_AddItemReferenceToArray(list, tpu);
    }
    cJSON_AddItemToObject(req, "study", st);
    char *text = cJSON_PrintUnformatted(req);
    cJSON_Delete(req);
    char *out = rl_model_analyze(m, text);
    free(text);
    cJSON *res = cJSON_Parse(out);
    runs++;
    CHECK(res != NULL, "%s %s %s: response is not JSON: %.200s", name, prec, study, out);
    if (cJSON_IsTrue(cJSON_GetObjectItem(res, "ok"))) {
        ok_runs++;
        CHECK(cJSON_IsObject(cJSON_GetObjectItem(res, "study")), "%s %s: ok without a study", name, study);
    } else {
        const cJSON *e = cJSON_GetObjectItem(res, "error");
        const cJSON *code = cJSON_GetObjectItem(e, "code");
        CHECK(cJSON_IsString(code) && code->valuestring[0] && strcmp(code->valuestring, "internal"),
              "%s %s: error without a code", name, study);
    }
    cJSON_Delete(res);
    rl_free(out);
}

static void each_model(const char *name, rl_model *m, void *ctx) {
    (void)ctx;
    static const char *const studies[] = {
        "{\"kind\": \"compare\", \"hardware\": []}",
        "{\"kind\": \"batch_sweep\", \"batches\": [1, 2]}",
        "{\"kind\": \"power_modes\"}",
    };
    cJSON *dims = all_dims(m);
    for (int with_dims = 0; with_dims < 2; with_dims++)
        for (int s = 0; s < 3; s++)
            for (int p = 0; p < 2; p++)
                run(name, m, s == 2 || p ? orin : h100, p ? "fp64" : "model", with_dims ? dims : NULL, studies[s]);
    cJSON_Delete(dims);
}

int main(int argc, char **argv) {
    tests_dir = argc > 1 ? argv[1] : ".";
    root_dir = argc > 2 ? argv[2] : "..";
    const char *samples = argc > 3 ? argv[3] : NULL;
    h100 = load_hw("h100-sxm");
    orin = load_hw("jetson-agx-orin");
    tpu = load_hw("tpu-v5e");
    int models = h100 && orin && tpu ? corpus_each(tests_dir, samples, each_model, NULL) : 0;
    printf("%d models, %d study runs, %d ok\n", models, runs, ok_runs);
    CHECK(models > 60, "the corpus was found");
    cJSON_Delete(h100);
    cJSON_Delete(orin);
    cJSON_Delete(tpu);
    return check_report("studies everywhere");
}
