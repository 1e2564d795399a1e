/* The operator table: one entry per operator (name, domain, opset range,
 * shape function, cost function), gathered from the op families in ops/.
 * Adding an operator is one entry in its family's array plus a test; the
 * table as JSON (rl_operator_table) is what docs/operators.md is made from. */
#include <cjson/cJSON.h>
#include <string.h>

#include "internal.h"
#include "ops/families.h"

const rl_op_family *const rl_op_families[] = {
    RL_FAMILY_LIST
};
const size_t rl_op_family_count = sizeof rl_op_families / sizeof *rl_op_families;

/* The entry for (domain, name) whose opset range holds `opset`; when the
 * model's opset is older than every entry, the oldest one (a model at an old
 * opset still deserves an answer). Linear scan over a few hundred entries,
 * once per node: with a full strcmp per entry it was 14 % of a Swin-T
 * analysis (6,242 nodes); comparing the first letter first leaves most
 * entries after one byte. */
const rl_op_def *rl_op_find(const char *domain, const char *name, int opset) {
    if (!domain || strcmp(domain, "ai.onnx") == 0) domain = "";
    const rl_op_def *oldest = NULL;
    for (size_t f = 0; f < rl_op_family_count; f++) {
        for (size_t i = 0; i < rl_op_families[f]->count; i++) {
            const rl_op_def *d = &rl_op_families[f]->ops[i];
            if (d->name[0] != name[0]) continue;
            if (strcmp(d->name, name) != 0 || strcmp(d->domain, domain) != 0) continue;
            if (opset >= d->since && (d->until == 0 || opset <= d->until)) return d;
            if (!oldest || d->since < oldest->since) oldest = d;
        }
    }
    if (oldest && opset < oldest->since) return oldest;
    return NULL;
}

char *rl_operator_table(void) {
    rl_json_begin();
    cJSON *arr = cJSON_CreateArray();
    for (size_t f = 0; f < rl_op_family_count; f++) {
        for (size_t i = 0; i < rl_op_families[f]->count; i++) {
            const rl_op_def *d = &rl_op_families[f]->ops[i];
            if (!d->name[0]) continue;
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "op", d->name);
            cJSON_AddStringToObject(o, "domain", d->domain[0] ? d->domain : "ai.onnx");
            cJSON_AddNumberToObject(o, "since", d->since);
            if (d->until) cJSON_AddNumberToObject(o, "until", d->until);
            else cJSON_AddNullToObject(o, "until");
            cJSON_AddStringToObject(o, "cost", d->cost_doc ? d->cost_doc : "");
            cJSON_AddBoolToObject(o, "view", (d->flags & RL_OP_VIEW) != 0);
            cJSON_AddBoolToObject(o, "shape", d->shape != NULL); /* infers its outputs' shapes */
            cJSON_AddItemToArray(arr, o);
        }
    }
    return rl_json_finish(arr);
}
