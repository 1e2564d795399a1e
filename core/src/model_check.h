/* Checks of a decoded model that its decoder does not make. */
#ifndef ROOFLENS_MODEL_CHECK_H
#define ROOFLENS_MODEL_CHECK_H
#include "internal.h"

/* Every string that ends up in a response (names, domains, dim params...)
 * is valid UTF-8, and every tensor whose data is external points inside the
 * model's folder with byte offsets and lengths within int64: graph, bodies,
 * attributes and functions alike. false with *e set (bad_utf8 or
 * bad_external_data) at the first failure. Allocates nothing. */
bool rl_model_check(rl_error *e, const Onnx__ModelProto *m);
#endif
