/* The precisions rooflens models: ONE table (precision.c) that every other
 * list derives from — request validation, profile keys, the fallback when a
 * device lacks a precision, the element type a requested precision stores,
 * which element types compute at which precision, the CLI usage text, the
 * page's precision menu and chart colours (through rl_precisions()). */
#ifndef ROOFLENS_PRECISION_H
#define ROOFLENS_PRECISION_H
#include <stddef.h>

/* Indexes into rl_precision_table; the order is the table's order. */
enum rl_precision {
    RL_P_FP64, RL_P_FP32, RL_P_TF32, RL_P_FP16, RL_P_BF16, RL_P_FP8, RL_P_INT8, RL_P_INT4,
    RL_P_COUNT
};

#define RL_P_NONE (-1)
#define RL_P_MAX_FALLBACK 4
#define RL_P_MAX_COMPUTES 6

typedef struct rl_precision_def {
    const char *name;   /* request value and profile key: "fp16" */
    int dtype;          /* RL_DT_* a floating tensor is stored in when the user picks it */
    int computes[RL_P_MAX_COMPUTES]; /* element types whose work runs at this precision; 0 ends */
    int fallback[RL_P_MAX_FALLBACK]; /* precisions tried in order when the device has no peak
                                        for this one; RL_P_NONE ends */
    const char *colour; /* the page's chart colour for this precision's ceilings */
} rl_precision_def;

extern const rl_precision_def rl_precision_table[RL_P_COUNT];

/* The precision named `s`, or RL_P_NONE. */
int rl_precision_parse(const char *s);
/* The name of precision p ("?" when out of range). */
const char *rl_precision_name(int p);
/* The precision an element type computes at: the row whose `computes` lists
 * it; any other type (int32, int64, bool, …) is timed at the fp32 rate. */
int rl_precision_of_dtype(int dtype);
/* Writes "fp64, fp32, …, int4" (every name in table order, for messages)
 * into buf, truncated to size; 128 bytes always suffice. */
void rl_precision_list(char *buf, size_t size);
#endif
