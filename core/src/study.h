/* What-if studies (compare hardware, sweep the batch, compare power modes)
 * over one parsed model. Every figure comes from the timing model
 * (timing.h), the one rl_model_analyze uses, so a study row equals a single
 * analysis with the same settings. The request/response contract is in
 * docs/api.md ("Studies"). */
#ifndef ROOFLENS_STUDY_H
#define ROOFLENS_STUDY_H
#include <cjson/cJSON.h>

#include "timing.h"

/* The most power modes the power-mode study compares: more answers
 * too_many_power_modes (a profile or share link could otherwise make the
 * page time every one of tens of thousands of modes). */
#define RL_STUDY_MAX_POWER_MODES 1024

/* Run the request's "study" (an object) and add the "study" member to
 * `root`. `pg` is the request's own prepared graph (the request's batch and
 * dims), `hw` its own device. Studies warn into contexts of their own, not
 * c. Returns 0, or -1 with err set (bad_request, no_power_modes,
 * too_many_power_modes, out_of_memory): the caller then answers with the
 * error. */
int rl_study_run(rl_ctx *c, const cJSON *study, const cJSON *req, const rl_options *o,
                 const rl_hw *hw, const rl_prepared *pg, cJSON *root, rl_error *err);
#endif
