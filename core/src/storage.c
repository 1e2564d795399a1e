/* The storage table (storage.h): every ggml tensor type and safetensors
 * dtype with its block of elements and the bytes of one block. The ggml
 * figures are those of ggml's block structures (ggml-common.h) and its type
 * traits (ggml.c); a block's bytes count its codes and every scale, minimum
 * or sign it carries. The safetensors dtypes are those of the format's
 * description (huggingface/safetensors), sub-byte floats packed whole. */
#include <string.h>

#include "storage.h"

const rl_storage_def rl_storage_table[RL_ST_COUNT] = {
    [RL_ST_DTYPE] = {"dtype", -1, NULL, 1, 0, false},
    [RL_ST_RUNTIME] = {"runtime", -1, NULL, 1, 0, false},
    [RL_ST_F32] = {"F32", 0, "F32", 1, 4, false},
    [RL_ST_F16] = {"F16", 1, "F16", 1, 2, false},
    [RL_ST_BF16] = {"BF16", 30, "BF16", 1, 2, false},
    [RL_ST_F64] = {"F64", 28, "F64", 1, 8, false},
    [RL_ST_I8] = {"I8", 24, "I8", 1, 1, false},
    [RL_ST_I16] = {"I16", 25, "I16", 1, 2, false},
    [RL_ST_I32] = {"I32", 26, "I32", 1, 4, false},
    [RL_ST_I64] = {"I64", 27, "I64", 1, 8, false},
    /* 32 weights: fp16 scale d (+ fp16 minimum m), 4 or 5 or 8 bits each */
    [RL_ST_Q4_0] = {"Q4_0", 2, NULL, 32, 2 + 16, true},
    [RL_ST_Q4_1] = {"Q4_1", 3, NULL, 32, 4 + 16, true},
    [RL_ST_Q5_0] = {"Q5_0", 6, NULL, 32, 2 + 4 + 16, true},
    [RL_ST_Q5_1] = {"Q5_1", 7, NULL, 32, 4 + 4 + 16, true},
    [RL_ST_Q8_0] = {"Q8_0", 8, NULL, 32, 2 + 32, true},
    [RL_ST_Q8_1] = {"Q8_1", 9, NULL, 32, 4 + 32, true},
    /* super-blocks of 256 weights: codes, 6- or 8-bit sub-block scales, fp16 d (and dmin) */
    [RL_ST_Q2_K] = {"Q2_K", 10, NULL, 256, 16 + 64 + 4, true},
    [RL_ST_Q3_K] = {"Q3_K", 11, NULL, 256, 32 + 64 + 12 + 2, true},
    [RL_ST_Q4_K] = {"Q4_K", 12, NULL, 256, 4 + 12 + 128, true},
    [RL_ST_Q5_K] = {"Q5_K", 13, NULL, 256, 4 + 12 + 32 + 128, true},
    [RL_ST_Q6_K] = {"Q6_K", 14, NULL, 256, 128 + 64 + 16 + 2, true},
    [RL_ST_Q8_K] = {"Q8_K", 15, NULL, 256, 4 + 256 + 32, true},
    /* importance-matrix codebooks: fp16 d, grid indices, signs, scales */
    [RL_ST_IQ2_XXS] = {"IQ2_XXS", 16, NULL, 256, 2 + 64, true},
    [RL_ST_IQ2_XS] = {"IQ2_XS", 17, NULL, 256, 2 + 64 + 8, true},
    [RL_ST_IQ2_S] = {"IQ2_S", 22, NULL, 256, 2 + 64 + 8 + 8, true},
    [RL_ST_IQ3_XXS] = {"IQ3_XXS", 18, NULL, 256, 2 + 96, true},
    [RL_ST_IQ3_S] = {"IQ3_S", 21, NULL, 256, 2 + 64 + 8 + 32 + 4, true},
    [RL_ST_IQ1_S] = {"IQ1_S", 19, NULL, 256, 2 + 32 + 16, true},
    [RL_ST_IQ1_M] = {"IQ1_M", 29, NULL, 256, 32 + 16 + 8, true},
    [RL_ST_IQ4_NL] = {"IQ4_NL", 20, NULL, 32, 2 + 16, true},
    [RL_ST_IQ4_XS] = {"IQ4_XS", 23, NULL, 256, 2 + 2 + 4 + 128, true},
    /* ternary: base-3 packed codes (+ 2-bit tail) and an fp16 d */
    [RL_ST_TQ1_0] = {"TQ1_0", 34, NULL, 256, 48 + 4 + 2, true},
    [RL_ST_TQ2_0] = {"TQ2_0", 35, NULL, 256, 64 + 2, true},
    /* OCP microscaling fp4: one e8m0 exponent per 32 e2m1 codes */
    [RL_ST_MXFP4] = {"MXFP4", 39, NULL, 32, 1 + 16, true},
    /* safetensors: plain element types, and floats of 8, 6 and 4 bits packed whole */
    [RL_ST_U8] = {"U8", -1, "U8", 1, 1, false},
    [RL_ST_U16] = {"U16", -1, "U16", 1, 2, false},
    [RL_ST_U32] = {"U32", -1, "U32", 1, 4, false},
    [RL_ST_U64] = {"U64", -1, "U64", 1, 8, false},
    [RL_ST_BOOL] = {"BOOL", -1, "BOOL", 1, 1, false},
    [RL_ST_C64] = {"C64", -1, "C64", 1, 8, false},
    [RL_ST_F8_E4M3] = {"F8_E4M3", -1, "F8_E4M3", 1, 1, false},
    [RL_ST_F8_E5M2] = {"F8_E5M2", -1, "F8_E5M2", 1, 1, false},
    [RL_ST_F8_E8M0] = {"F8_E8M0", -1, "F8_E8M0", 1, 1, false},
    [RL_ST_F6_E2M3] = {"F6_E2M3", -1, "F6_E2M3", 4, 3, false},
    [RL_ST_F6_E3M2] = {"F6_E3M2", -1, "F6_E3M2", 4, 3, false},
    [RL_ST_F4] = {"F4", -1, "F4", 2, 1, false},
    /* GPTQ / AWQ codes alone (8 codes of 4 bits an int32 word...); their
     * scales, zero points and group indexes are tensors of their own, whose
     * bytes a checkpoint's weight adds to these (checkpoint.c) */
    [RL_ST_INT2] = {"int2", -1, NULL, 4, 1, true},
    [RL_ST_INT3] = {"int3", -1, NULL, 32, 12, true},
    [RL_ST_INT4] = {"int4", -1, NULL, 2, 1, true},
    [RL_ST_INT8] = {"int8", -1, NULL, 1, 1, true},
};

/* Numbers ggml gave to types it has since dropped: a file that holds one
 * was written by an old converter and must be converted again. */
static const struct {
    uint32_t type;
    const char *name;
} removed_types[] = {
    {4, "Q4_2"},         {5, "Q4_3"},         {31, "Q4_0_4_4"},    {32, "Q4_0_4_8"},
    {33, "Q4_0_8_8"},    {36, "IQ4_NL_4_4"},  {37, "IQ4_NL_4_8"},  {38, "IQ4_NL_8_8"},
};

int rl_storage_from_ggml(uint32_t t, const char **removed) {
    if (removed) *removed = NULL;
    for (int s = 0; s < RL_ST_COUNT; s++)
        if (rl_storage_table[s].ggml_type >= 0 && (uint32_t)rl_storage_table[s].ggml_type == t) return s;
    for (size_t i = 0; i < sizeof removed_types / sizeof removed_types[0]; i++)
        if (removed_types[i].type == t && removed) *removed = removed_types[i].name;
    return -1;
}

int rl_storage_from_safetensors(const char *dtype) {
    for (int s = 0; dtype && s < RL_ST_COUNT; s++)
        if (rl_storage_table[s].safetensors && strcmp(rl_storage_table[s].safetensors, dtype) == 0) return s;
    return -1;
}

int rl_storage_parse(const char *s) {
    for (int i = 0; s && i < RL_ST_COUNT; i++)
        if (strcmp(rl_storage_table[i].name, s) == 0) return i;
    return -1;
}

double rl_storage_elem_bytes(int st) {
    if (st <= RL_ST_DTYPE || st >= RL_ST_COUNT) return -1;
    return (double)rl_storage_table[st].block_bytes / (double)rl_storage_table[st].block;
}

double rl_storage_bytes(int st, double elements) {
    if (st <= RL_ST_DTYPE || st >= RL_ST_COUNT) return -1;
    const rl_storage_def *d = &rl_storage_table[st];
    /* whole blocks: a row shorter than a block still fills one */
    double blocks = elements / d->block;
    if (blocks != (double)(int64_t)blocks) blocks = (double)((int64_t)blocks + 1);
    return blocks * d->block_bytes;
}

const char *rl_storage_name(int st) { return st >= 0 && st < RL_ST_COUNT ? rl_storage_table[st].name : "?"; }
