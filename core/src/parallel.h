/* Many devices (docs/parallel.md): the request's "parallel" object —
 * tensor parallelism in the Megatron style found from the graph, pipeline
 * stages of balanced time, data-parallel replicas — and the communication
 * roofline of seed 003: T_comms = bytes / link bandwidth + hops × latency,
 * a lower bound max(T_math, T_comms) and an upper bound their sum. Every
 * time comes from the timing model's per-layer rows (rl_layer_time), scaled
 * to the slice of the work one device does. */
#ifndef ROOFLENS_PARALLEL_H
#define ROOFLENS_PARALLEL_H
#include <cjson/cJSON.h>

#include "timing.h"

/* How a layer's work is split over the T devices of a tensor-parallel group. */
typedef enum {
    RL_SHARD_NONE,    /* replicated: every device does all of it (norms, residual adds) */
    RL_SHARD_SLICE,   /* works on a value already split over T (attention heads, MLP hidden) */
    RL_SHARD_COLUMN,  /* weighted matmul, output features split: the first of a pair */
    RL_SHARD_ROW,     /* weighted matmul, contraction split: the second of a pair, or a lone one */
    RL_SHARD_VOCAB    /* embedding or lm_head, vocabulary split */
} rl_shard_kind;

typedef enum { RL_COLL_NONE, RL_COLL_ALL_REDUCE, RL_COLL_ALL_GATHER } rl_collective;

/* One layer on the devices. */
typedef struct rl_layer_comm {
    rl_shard_kind shard;
    rl_collective coll;  /* the collective that follows it (or, for a SLICE layer, gathers its input) */
    double comm_bytes;   /* bytes each device sends for it (training: forward and backward) */
    double t_comms_s;    /* their time: bytes / bandwidth + steps × latency */
    double t_math_s;     /* the layer's time on one device (training: forward and backward) */
    double flops;        /* the FLOPs one device does for it (training: forward and backward) */
    double fc_math_s;    /* the forecast of it on one device: its fixed costs in full, the rest scaled
                            as t_math_s is (training: forward and backward) */
    double fc_comms_s;   /* the forecast of its collective: bytes at the link's achievable rate
                            (forecast.link_fraction) + steps × latency + one kernel's fixed cost */
    int stage;           /* pipeline stage */
} rl_layer_comm;

typedef struct rl_parallel rl_parallel;

/* Plan `spec` (the request's "parallel" object) over the timed graph:
 * *out (in c->arena) holds the per-layer figures (layer[i] for node i) and
 * the totals. `lt` holds one row per node of pg->graph. Returns 0, or -1
 * with err set: bad_request for a bad option, a device without an
 * interconnect asked to work with others, a tp that does not divide the
 * attention heads, more stages than layers; out_of_memory. */
int rl_parallel_plan(rl_ctx *c, const cJSON *spec, const rl_options *o, const rl_hw *hw, const rl_prepared *pg,
                     const rl_layer_time *lt, const rl_timing *t, rl_parallel **out, rl_error *err);

/* The totals another analysis builds on (the LLM view's phases). */
typedef struct rl_parallel_summary {
    int tp, pp, dp, devices;
    double time_s, t_math_s, t_comms_s, comm_bytes;
    double forecast_s, forecast_t_comms_s; /* the forecast over the devices (never below time_s), its
                                              communication part */
    double energy_j, forecast_energy_j;    /* every device's energy over time_s, over forecast_s (NAN: the
                                              profile has no energy figures) */
    double weight_bytes_per_device, weight_bytes; /* the largest stage's share; every weight once */
    double memory_bytes_per_device, memory_capacity_bytes, speedup; /* capacity 0 = unknown */
    rl_bound bound;
} rl_parallel_summary;
void rl_parallel_summarize(const rl_parallel *p, rl_parallel_summary *out);

/* Layer i's figures (NULL when p is NULL). */
const rl_layer_comm *rl_parallel_layer(const rl_parallel *p, int i);

/* Adds the "parallel" member to `root` (docs/api.md). */
void rl_parallel_json(const rl_parallel *p, cJSON *root);
/* Its totals and interconnect alone, into the object `o` (a compare row's). */
void rl_parallel_totals_json(const rl_parallel *p, cJSON *o);

/* Names, for the response and the CLI: "column", "row", ... / "all-reduce", ... */
const char *rl_shard_name(rl_shard_kind k);
const char *rl_collective_name(rl_collective k);
#endif
