/* Tensor decoding: what a TensorProto or a TypeProto says about a value. */
#ifndef ROOFLENS_TENSOR_H
#define ROOFLENS_TENSOR_H
#include "internal.h"

/* Set a value from a TensorProto (initializer or Constant attribute): type,
 * dtype, dims and, when the reader kept a small payload (at most
 * RL_FOLD_MAX_ELEMS elements), its contents for constant folding. Memory
 * comes from c->arena; v->name must be set (errors name it). -1 with c->err
 * set (limit_rank, bad_dim, dim_overflow) when the dims are unusable. */
int rl_value_from_tensor(rl_ctx *c, rl_value *v, const Onnx__TensorProto *t, const char *where);
/* Shape from a ValueInfoProto's type: dims (-1 unknown) and dim_params.
 * declared_only: record it as the model's declaration (declared_*), to be
 * checked against inference, and tolerate what no tensor can have. -1 with
 * c->err set otherwise. */
int rl_value_from_type(rl_ctx *c, rl_value *v, const Onnx__TypeProto *tp, const char *where,
                       bool declared_only);
/* Warn (unknown_dtype) when dtype is outside what this build knows: the
 * value's bytes then count as 0, which the user must be told. */
void rl_value_check_dtype(rl_ctx *c, const rl_value *v, int dtype);
#endif
