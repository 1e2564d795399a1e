/* How a weight is stored in its file, when that is not simply its element
 * type times its element count: ONE table (storage.c) of every ggml tensor
 * type a GGUF file may hold and every dtype a .safetensors header may name,
 * with its block of elements and the bytes of one block (scales and minima
 * included), the packed integer codes of GPTQ and AWQ checkpoints, plus the
 * tensors a runtime makes itself and a file does not hold (rotary tables,
 * shape constants).
 *
 * A value whose `storage` is not RL_ST_DTYPE takes its bytes from here
 * (rl_value_storage_bytes in ops/op.c, which rl_value_bytes and the model's
 * weight bytes in analyze.c read), so a
 * Q4_K matrix is counted at its 144 bytes per 256 weights on every surface,
 * whatever precision the request names. Its element type (rl_value.dtype)
 * stays the floating type it is computed in, so operators treat it as any
 * floating weight. */
#ifndef ROOFLENS_STORAGE_H
#define ROOFLENS_STORAGE_H
#include <stdbool.h>
#include <stdint.h>

/* Indexes into rl_storage_table; the order is the table's order. */
enum rl_storage {
    RL_ST_DTYPE = 0, /* the element type's own size (every ONNX tensor) */
    RL_ST_RUNTIME,   /* made by the runtime, not held by the file: no bytes, no parameters */
    RL_ST_F32, RL_ST_F16, RL_ST_BF16, RL_ST_F64,
    RL_ST_I8, RL_ST_I16, RL_ST_I32, RL_ST_I64,
    RL_ST_Q4_0, RL_ST_Q4_1, RL_ST_Q5_0, RL_ST_Q5_1, RL_ST_Q8_0, RL_ST_Q8_1,
    RL_ST_Q2_K, RL_ST_Q3_K, RL_ST_Q4_K, RL_ST_Q5_K, RL_ST_Q6_K, RL_ST_Q8_K,
    RL_ST_IQ2_XXS, RL_ST_IQ2_XS, RL_ST_IQ2_S, RL_ST_IQ3_XXS, RL_ST_IQ3_S,
    RL_ST_IQ1_S, RL_ST_IQ1_M, RL_ST_IQ4_NL, RL_ST_IQ4_XS,
    RL_ST_TQ1_0, RL_ST_TQ2_0, RL_ST_MXFP4,
    /* safetensors dtypes ggml has no number for */
    RL_ST_U8, RL_ST_U16, RL_ST_U32, RL_ST_U64, RL_ST_BOOL, RL_ST_C64,
    RL_ST_F8_E4M3, RL_ST_F8_E5M2, RL_ST_F8_E8M0, RL_ST_F6_E2M3, RL_ST_F6_E3M2, RL_ST_F4,
    /* GPTQ / AWQ weights: integer codes packed into int32 words, with a
     * scale (and zero point) per group of inputs held in tensors of their own */
    RL_ST_INT2, RL_ST_INT3, RL_ST_INT4, RL_ST_INT8,
    RL_ST_COUNT
};

typedef struct rl_storage_def {
    const char *name;   /* as llama.cpp names the type: "Q4_K" (safetensors' own name for its dtypes) */
    int ggml_type;      /* its number in a GGUF tensor info; -1 for none */
    const char *safetensors; /* its dtype in a .safetensors header ("BF16"); NULL for none */
    int block;          /* elements per block (1 for plain types) */
    int block_bytes;    /* bytes of one block, its scales and minima included */
    bool quantized;     /* blocks of low-bit codes with scales: dequantized in the kernel */
} rl_storage_def;

extern const rl_storage_def rl_storage_table[RL_ST_COUNT];

/* The storage of ggml type number t, or -1 when ggml has none of that
 * number (or dropped it: *removed then names it, e.g. "Q4_0_4_4"). */
int rl_storage_from_ggml(uint32_t t, const char **removed);
/* The storage of a .safetensors header's dtype ("F8_E4M3"), or -1. */
int rl_storage_from_safetensors(const char *dtype);
/* The storage named s ("Q4_K", as rl_storage_table), or -1. */
int rl_storage_parse(const char *s);
/* Bytes of `elements` elements stored as st: whole blocks, exact (every
 * figure of the table is a multiple of 1/256 byte per element, so the
 * double is exact up to 2^45 elements). RL_ST_DTYPE: -1 (the caller uses
 * the element type). */
double rl_storage_bytes(int st, double elements);
/* Bytes of one element of st, as a fraction (Q4_K: 0.5625); -1 for RL_ST_DTYPE. */
double rl_storage_elem_bytes(int st);
/* The storage's name ("?" when out of range). */
const char *rl_storage_name(int st);
#endif
