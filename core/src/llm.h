/* The LLM inference view (docs/llm.md): a decoder with a KV cache split into
 * its two phases, the prefill of the prompt and the decode of one token at a
 * context, with time to first token, time per output token, tokens/s, the KV
 * cache, and whether weights and cache fit the device's memory. Every figure
 * comes from analysing the model's own graph with the phase's dims set,
 * timed by the same timing model as rl_model_analyze.
 * The request and response are documented in docs/api.md ("LLM inference"). */
#ifndef ROOFLENS_LLM_H
#define ROOFLENS_LLM_H
#include <cjson/cJSON.h>

#include "llm_roles.h" /* rl_llm_roles_json, for rl_model_info */
#include "study.h"

/* Runs the request's "llm" member (an object) on c->model with the request's
 * options `o` and device `hw`, and adds the "llm" member to `root`. The
 * request's own graph is not touched: each phase is analysed in memory of
 * its own. Returns 0, or -1 with err set: bad_request (invalid options, or
 * roles that cannot be found: the message says how to name them), an
 * analysis error of a phase graph (its code, "where" naming the phase), or
 * out_of_memory. `parallel` (the request's "parallel" object, or NULL)
 * adds llm.parallel: every phase planned over the devices (parallel.h). */
int rl_llm_run(rl_ctx *c, const cJSON *llm, const rl_options *o, const rl_hw *hw, const cJSON *parallel,
               cJSON *root, rl_error *err);

#endif
