/* Model-local functions (ModelProto.functions) as the model knows them: the
 * (domain, name) index built when the model is read, the lookup every node
 * makes through it, and the expansion budget measured once per model.
 * Model layer: it knows nothing of how a call is expanded (functions.c,
 * which uses this index; never the reverse). */
#ifndef ROOFLENS_FUNCTION_INDEX_H
#define ROOFLENS_FUNCTION_INDEX_H
#include "internal.h"

/* Expansion stops at this many nested calls (limit_depth); the budget
 * below counts sizes that deep. */
#define RL_FN_MAX_NEST 64
/* Each expanded call builds a body graph, which costs memory (~10 KB for a
 * small body) even when the body has one node: every expansion counts as
 * this many nodes, plus its body's, against limits.max_nodes. With the
 * default limit that allows ~15000 expansions of small functions (real
 * exports with a function per module have a few thousand). */
#define RL_FN_CALL_WEIGHT 128

/* Fills m->functions from m->proto and indexes them by (domain, name), so a
 * model with many functions and many nodes is not quadratic. Memory comes
 * from m->arena. Returns -1 with *err set when out of memory or when two
 * functions share a (domain, name) without an IR 10 overload telling them
 * apart (duplicate_function). */
int rl_function_index_build(rl_model *m, rl_error *err);
/* The function a node of (domain, name) calls, NULL when none (or no index).
 * "ai.onnx" and "" are one domain. The pointer lives as long as m. */
const rl_function *rl_function_lookup(const rl_model *m, const char *domain, const char *name);
/* The expansion budget, measured once when the model is read: fills
 * m->function_sizes (from m->arena) and refuses with limit_nodes a model
 * whose main graph, bodies and function calls, expanded, exceed
 * limits.max_nodes. Needs the index. -1 with *err set on refusal or OOM. */
int rl_functions_measure(rl_model *m, rl_error *err);
#endif
