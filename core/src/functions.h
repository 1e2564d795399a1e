/* Expansion of calls to model-local functions (functions.c). */
#ifndef ROOFLENS_FUNCTIONS_H
#define ROOFLENS_FUNCTIONS_H
#include "internal.h"

/* The entry a node calling a model-local function gets instead of a table
 * entry (infer.c assigns it when rl_function_lookup finds the callee): its
 * shape function expands the body with the call's inputs and attributes;
 * the node then costs what its body costs (RL_OP_CONTROL). */
extern const rl_op_def rl_function_call_op;
#endif
