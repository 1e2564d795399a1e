/* One phase of the LLM view (llm_phase.c): the model's own graph with the
 * phase's dims set (seq = P, past = 0 for the prefill; seq = 1, past = c
 * for a decode step), prepared and costed like any request, adjusted for
 * the serving assumptions (docs/llm.md) and timed by the timing model. */
#ifndef ROOFLENS_LLM_PHASE_H
#define ROOFLENS_LLM_PHASE_H
#include "hw.h"
#include "llm_roles.h"
#include "parallel.h"
#include "study.h"

typedef struct moe_info {
    const char *kind;   /* "MoE op" | "router TopK"; NULL = none */
    int64_t experts, top_k;
    int layers;         /* MoE nodes, or router TopK nodes */
    int expert_nodes;   /* dense exports: nodes counted at the active share */
} moe_info;

typedef struct llm_run {
    rl_ctx *c;
    const rl_options *o;
    const rl_hw *hw;
    const llm_roles *R;
    const llm_opts *O;
    moe_info moe;
    int64_t max_positions; /* rows of the model's rotary tables (0 = unknown) */
    bool facts_checked;    /* moe and max_positions found (from the first phase graph) */
    int evals;           /* phase graphs analysed */
    rl_arena arena;      /* one phase graph at a time, reset between phases */
    int requantized, kept_quantized;
    const cJSON *parallel; /* the request's "parallel" object, or NULL: one device */
} llm_run;

/* The KV caches of the layers that attend through one sliding window: they
 * keep only their window's tokens (llama.cpp's SWA cache, docs/llm.md). */
#define LLM_MAX_KV_WINDOWS 8
typedef struct kv_window {
    double tokens;          /* the window: tokens a cache keeps */
    double bytes_per_token; /* of those caches together, per sequence */
    int caches;             /* cache inputs with this window */
} kv_window;

typedef struct phase {
    double flops, matrix_flops, bytes, time_s, energy_j, launch_floor_s, t_compute, t_memory, kernels;
    double forecast_s; /* the phase on the profile's stack (forecast.time_s; docs/model.md §12) */
    double forecast_energy_j; /* its energy at the forecast's pace (forecast.energy_j; NAN: no figures) */
    rl_bound bound;
    int unknown_layers;
    double kv_past_bytes;   /* the past cache, as stored (kv_bits), windowed caches at their window */
    double kv_full_per_token; /* bytes per token per sequence of the caches without a window (0: past empty) */
    kv_window kv_windows[LLM_MAX_KV_WINDOWS];
    int n_kv_windows;
    double weight_resident; /* resident weight bytes (weight what-if applied) */
    double activation_peak; /* live activation bytes at the peak (want_memory only) */
    bool has_parallel;      /* over several devices (L->parallel): */
    rl_parallel_summary par;
} phase;

/* Analyse the model with batch, seq and past set (total = past + seq).
 * captured: a decode step, replayed without launch costs. want_memory:
 * also the activation peak. The phase graph lives in L->arena until the
 * next phase. Returns 0, or -1 with err set ("where" names the phase). */
int rl_llm_run_phase(llm_run *L, int64_t batch, int64_t seq, int64_t past, bool captured, bool want_memory,
                     phase *out, rl_error *err);
#endif
