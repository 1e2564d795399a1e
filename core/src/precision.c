/* The one table of precisions (see precision.h) and its JSON face,
 * rl_precisions(). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "precision.h"

/* Fallbacks go to the nearest precision a device is likely to have: a wider
 * float of the same family first, then fp32. Integer work without an
 * integer peak runs as fp16 (the usual dequantize-and-compute path). */
const rl_precision_def rl_precision_table[RL_P_COUNT] = {
    [RL_P_FP64] = {"fp64", RL_DT_DOUBLE, {RL_DT_DOUBLE}, {RL_P_FP32, RL_P_NONE}, "#8c564b"},
    [RL_P_FP32] = {"fp32", RL_DT_FLOAT, {RL_DT_FLOAT}, {RL_P_FP16, RL_P_BF16, RL_P_NONE}, "#444444"},
    /* TF32 is a compute mode of fp32 storage: no element type computes at it
     * unless the user asks for it. */
    [RL_P_TF32] = {"tf32", RL_DT_FLOAT, {0}, {RL_P_FP32, RL_P_NONE}, "#6a3d9a"},
    [RL_P_FP16] = {"fp16", RL_DT_FLOAT16, {RL_DT_FLOAT16}, {RL_P_BF16, RL_P_FP32, RL_P_NONE}, "#e31a1c"},
    [RL_P_BF16] = {"bf16", RL_DT_BFLOAT16, {RL_DT_BFLOAT16}, {RL_P_FP16, RL_P_FP32, RL_P_NONE}, "#ff7f00"},
    [RL_P_FP8] = {"fp8", RL_DT_FLOAT8E4M3FN,
                  {RL_DT_FLOAT8E4M3FN, RL_DT_FLOAT8E4M3FNUZ, RL_DT_FLOAT8E5M2, RL_DT_FLOAT8E5M2FNUZ,
                   RL_DT_FLOAT8E8M0, RL_DT_FLOAT4E2M1},
                  {RL_P_FP16, RL_P_BF16, RL_P_FP32, RL_P_NONE}, "#33a02c"},
    [RL_P_INT8] = {"int8", RL_DT_INT8, {RL_DT_INT8, RL_DT_UINT8}, {RL_P_FP16, RL_P_BF16, RL_P_FP32, RL_P_NONE},
                   "#1f78b4"},
    [RL_P_INT4] = {"int4", RL_DT_INT4, {RL_DT_INT4, RL_DT_UINT4, RL_DT_INT2, RL_DT_UINT2},
                   {RL_P_INT8, RL_P_FP16, RL_P_FP32, RL_P_NONE}, "#17becf"},
};

int rl_precision_parse(const char *s) {
    if (!s) return RL_P_NONE;
    for (int i = 0; i < RL_P_COUNT; i++)
        if (strcmp(s, rl_precision_table[i].name) == 0) return i;
    return RL_P_NONE;
}

const char *rl_precision_name(int p) {
    return p >= 0 && p < RL_P_COUNT ? rl_precision_table[p].name : "?";
}

int rl_precision_of_dtype(int dtype) {
    for (int p = 0; p < RL_P_COUNT; p++)
        for (int k = 0; k < RL_P_MAX_COMPUTES && rl_precision_table[p].computes[k]; k++)
            if (rl_precision_table[p].computes[k] == dtype) return p;
    return RL_P_FP32;
}

void rl_precision_list(char *buf, size_t size) {
    size_t n = 0;
    if (size) buf[0] = 0;
    for (int p = 0; p < RL_P_COUNT && n < size; p++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s", p ? ", " : "", rl_precision_table[p].name);
}

char *rl_precisions(void) {
    rl_json_begin();
    cJSON *arr = cJSON_CreateArray();
    for (int p = 0; p < RL_P_COUNT; p++) {
        const rl_precision_def *d = &rl_precision_table[p];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", d->name);
        cJSON_AddStringToObject(o, "dtype", rl_dtype_name(d->dtype));
        cJSON *computes = cJSON_AddArrayToObject(o, "computes");
        for (int k = 0; k < RL_P_MAX_COMPUTES && d->computes[k]; k++)
            cJSON_AddItemToArray(computes, cJSON_CreateString(rl_dtype_name(d->computes[k])));
        cJSON *fb = cJSON_AddArrayToObject(o, "fallback");
        for (int k = 0; k < RL_P_MAX_FALLBACK && d->fallback[k] != RL_P_NONE; k++)
            cJSON_AddItemToArray(fb, cJSON_CreateString(rl_precision_name(d->fallback[k])));
        cJSON_AddStringToObject(o, "colour", d->colour);
        cJSON_AddItemToArray(arr, o);
    }
    return rl_json_finish(arr);
}
