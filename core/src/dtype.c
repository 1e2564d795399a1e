/* The element types of ONNX tensors: their names as the answers write them,
 * their sizes in bits and their kinds (internal.h, rl_dtype_*). */
#include "internal.h"

static const struct {
    const char *name;
    int bits;
    char cls; /* f float, i integer, b bool, s string, c complex */
} dtypes[RL_DT_COUNT] = {
    [RL_DT_UNDEFINED] = {"undefined", 0, '?'},  [RL_DT_FLOAT] = {"float32", 32, 'f'},
    [RL_DT_UINT8] = {"uint8", 8, 'i'},          [RL_DT_INT8] = {"int8", 8, 'i'},
    [RL_DT_UINT16] = {"uint16", 16, 'i'},       [RL_DT_INT16] = {"int16", 16, 'i'},
    [RL_DT_INT32] = {"int32", 32, 'i'},         [RL_DT_INT64] = {"int64", 64, 'i'},
    [RL_DT_STRING] = {"string", 0, 's'},        [RL_DT_BOOL] = {"bool", 8, 'b'},
    [RL_DT_FLOAT16] = {"float16", 16, 'f'},     [RL_DT_DOUBLE] = {"float64", 64, 'f'},
    [RL_DT_UINT32] = {"uint32", 32, 'i'},       [RL_DT_UINT64] = {"uint64", 64, 'i'},
    [RL_DT_COMPLEX64] = {"complex64", 64, 'c'}, [RL_DT_COMPLEX128] = {"complex128", 128, 'c'},
    [RL_DT_BFLOAT16] = {"bfloat16", 16, 'f'},   [RL_DT_FLOAT8E4M3FN] = {"float8e4m3fn", 8, 'f'},
    [RL_DT_FLOAT8E4M3FNUZ] = {"float8e4m3fnuz", 8, 'f'},
    [RL_DT_FLOAT8E5M2] = {"float8e5m2", 8, 'f'},
    [RL_DT_FLOAT8E5M2FNUZ] = {"float8e5m2fnuz", 8, 'f'},
    [RL_DT_UINT4] = {"uint4", 4, 'i'},          [RL_DT_INT4] = {"int4", 4, 'i'},
    [RL_DT_FLOAT4E2M1] = {"float4e2m1", 4, 'f'}, [RL_DT_FLOAT8E8M0] = {"float8e8m0", 8, 'f'},
    [RL_DT_UINT2] = {"uint2", 2, 'i'},          [RL_DT_INT2] = {"int2", 2, 'i'},
};

int rl_dtype_bits(int dt) {
    if (dt <= 0 || dt >= RL_DT_COUNT) return 0;
    /* Strings have no fixed size; count a pointer-sized reference. */
    if (dt == RL_DT_STRING) return 64;
    return dtypes[dt].bits;
}
const char *rl_dtype_name(int dt) {
    if (dt < 0 || dt >= RL_DT_COUNT) return "unknown";
    return dtypes[dt].name;
}
bool rl_dtype_is_float(int dt) { return dt > 0 && dt < RL_DT_COUNT && dtypes[dt].cls == 'f'; }
bool rl_dtype_is_int(int dt) {
    return dt > 0 && dt < RL_DT_COUNT && (dtypes[dt].cls == 'i' || dtypes[dt].cls == 'b');
}
