/* The LLM view's request options and the roles of a decoder's inputs
 * (llm_roles.c): which symbolic dims are the batch, the sequence, the past
 * and the total length, and which inputs are the KV cache with the outputs
 * that carry its next state. Used by llm.c and llm_phase.c. */
#ifndef ROOFLENS_LLM_ROLES_H
#define ROOFLENS_LLM_ROLES_H
#include <cjson/cJSON.h>

#include "graph.h"

#define LLM_MAX_TOKENS 100000000.0 /* prompt + generated, per sequence */
#define LLM_MAX_BATCH 1000000.0
#define LLM_MAX_SWEEP 32

enum { ROLE_BATCH, ROLE_SEQ, ROLE_PAST, ROLE_TOTAL, ROLE_COUNT };

typedef struct llm_opts {
    int64_t prompt, generate, batch;
    int weight_bits;          /* 16, 8, 4; 0 = the model's own */
    int64_t weight_group;     /* weights per scale when weight_bits < 16 */
    int kv_bits;              /* 16, 8, 4; 0 = the activation precision */
    int kv_storage;           /* llama.cpp's cache types f16, q8_0, q4_0 (storage.h); 0 = none given */
    const char *kv_type;      /* its name; NULL = none given */
    const char *dim[ROLE_COUNT]; /* the user's names for the roles, NULL = detect */
    int64_t batches[LLM_MAX_SWEEP], contexts[LLM_MAX_SWEEP];
    int n_batches, n_contexts;
} llm_opts;

/* A KV cache input and the output that carries its next state. */
typedef struct kv_pair {
    const char *past, *present; /* value names; present NULL when the graph has none */
    int axis;                   /* the past-sequence axis */
} kv_pair;

typedef struct llm_roles {
    const char *dim[ROLE_COUNT];    /* dim_param names; NULL = none */
    const char *source[ROLE_COUNT]; /* "detected" | "user" */
    int64_t fixed_batch;            /* > 0: the token input's batch axis is this fixed size */
    const char *token_input;
    kv_pair *kv;
    int n_kv, n_present;
} llm_roles;

/* The request's "llm" object `j` read into O (defaults: prompt 512,
 * generate 128, the request's batch, the sweeps' default lists). Returns 0,
 * or -1 with err set (bad_request naming the field). */
int rl_llm_parse_opts(const cJSON *j, const rl_ctx *c, llm_opts *O, rl_error *err);

/* Detect the roles among g's inputs; the user's names (O->dim) win.
 * Returns 0, or -1 with err set when the sequence dim cannot be found or a
 * user name is not a dim of the model. The KV pairs live in c->arena. */
int rl_llm_find_roles(rl_ctx *c, const rl_graph *g, const llm_opts *O, llm_roles *R, rl_error *err);

/* The roles detected among the inputs of `g` (built by rl_graph_build, dims
 * not resolved), as rl_model_info reports them: {"kv_cache", "batch",
 * "seq", "past", "total", "kv_inputs"}, or a JSON null when no sequence
 * dimension is found (not a language model, as far as rooflens can tell).
 * The caller owns the returned item. */
cJSON *rl_llm_roles_json(rl_ctx *c, const rl_graph *g);

/* Why a decoder without KV-cache inputs has no decode to time, and what
 * export would give it one: one text for the LLM view's note and the
 * model info's "no_kv_cache" (docs/llm.md). */
extern const char rl_llm_no_kv_reason[];

/* The roles as the response's llm.roles: each role's dim, where it came
 * from, the fixed batch, the token input and the cache counts. */
cJSON *rl_llm_roles_detail_json(const llm_roles *R);
#endif
