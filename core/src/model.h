/* The model layer's own entries beyond the public API (rooflens.h declares
 * rl_reader_finish, rl_model_read and rl_model_free, defined in model.c). */
#ifndef ROOFLENS_MODEL_H
#define ROOFLENS_MODEL_H
#include "internal.h"

/* The version of `domain` the model imports ("ai.onnx" and "" are one
 * domain); -1 when it imports none. */
int64_t rl_model_opset(const rl_model *m, const char *domain);
#endif
