/* The words rooflens uses for its concepts (speed of light, fused,
 * prefetched, granularity, launch floor, power floor) and the lists of
 * values the answer carries (bound, speed-of-light model, granularity, op
 * class, forecast basis, measured-profile format): one enum-indexed table
 * per list in words.c, so the Markdown, the CLI, the dot output and the
 * page say the same thing. Published whole by rl_words().
 *
 * The physics carries the enum values; only the writers turn them into
 * the ids the answer writes (rl_value_id), and only the readers of a
 * request or a profile turn ids back (rl_value_of). No other source file
 * spells a bound's or a format's id (tools/checks/value_ids.py).
 *
 * Adding a value to a list: a value in its enum below (before its _COUNT),
 * a row in its table in words.c (the static_assert counts them), then
 * whatever the new value means to the physics. docs/architecture.md,
 * "Lists of values", has the whole recipe. */
#ifndef RL_WORDS_H
#define RL_WORDS_H
#include <stddef.h>

/* The kinds of entry: a concept of the glossary, or the value of one of the
 * response's enumerations. */
#define RL_WORD_TERM "term"
#define RL_WORD_BOUND "bound"
#define RL_WORD_SOL "sol"
#define RL_WORD_GRANULARITY "granularity"
#define RL_WORD_OP_CLASS "op_class"
#define RL_WORD_BASIS "basis"                     /* what a forecast rests on: forecast.basis */
#define RL_WORD_BAND_BASIS "band_basis"           /* what a forecast's band rests on: forecast.band.basis */
#define RL_WORD_MEASURED_FORMAT "measured_format" /* measured.format: the profile's kind */
#define RL_WORD_MODE "mode"                       /* options.mode: what one step of the model is */
#define RL_WORD_KV_TYPE "kv_type"                 /* llm.kv_type: a KV cache stored as llama.cpp stores it */

/* The lists, one table each in words.c. */
typedef enum {
    RL_LIST_BOUND,
    RL_LIST_SOL,
    RL_LIST_GRANULARITY,
    RL_LIST_OP_CLASS,
    RL_LIST_BASIS,
    RL_LIST_BAND_BASIS,
    RL_LIST_MEASURED_FORMAT,
    RL_LIST_KV_TYPE,
    RL_LIST_MODE,
    RL_LIST_COUNT
} rl_list;

/* What bounds a time. The colour is the one every surface draws it in (the
 * graph and module views, the charts, Compare and the CLI's Graphviz
 * output: rl_words() publishes the colours). The order breaks a tie in
 * time when a module's bound is the one its layers spend most time in. */
typedef enum {
    RL_BOUND_COMPUTE,       /* the peak FLOP/s */
    RL_BOUND_MEMORY,        /* the memory bandwidth */
    RL_BOUND_OVERHEAD,      /* the launch floor */
    RL_BOUND_POWER,         /* the power floor */
    RL_BOUND_COMMUNICATION, /* the links between devices (the parallel view) */
    RL_BOUND_NONE,          /* no work on the device */
    RL_BOUND_UNKNOWN,       /* a layer the core cannot cost */
    RL_BOUND_COUNT
} rl_bound;

/* The three speed-of-light models of the whole graph (docs/model.md §3). */
typedef enum { RL_SOL_UNFUSED, RL_SOL_FUSED, RL_SOL_FUSED_PREFETCHED, RL_SOL_COUNT } rl_sol_model;

/* Where the roofline is applied: a model's own (intended), kernel by kernel,
 * or to the whole graph at once. */
typedef enum { RL_GRAN_INTENDED, RL_GRAN_PER_OP, RL_GRAN_WHOLE_GRAPH, RL_GRAN_COUNT } rl_granularity;

/* The op classes of the forecast (docs/model.md §12): each has its own
 * achievable fractions of the peaks. A node's class comes from its operator
 * family (forecast.c). */
enum rl_op_class {
    RL_CLASS_MATRIX,      /* GEMM: Gemm, MatMul, attention, RNN gates on the matrix unit */
    RL_CLASS_DEPTHWISE,   /* depthwise and grouped convolutions */
    RL_CLASS_NORM,        /* normalisation, softmax, reductions, pooling */
    RL_CLASS_ELEMENTWISE, /* elementwise maths, activations, casts, quantization */
    RL_CLASS_MOVEMENT,    /* data movement: transpose, concat, slice, pad, resize */
    RL_CLASS_GATHER,      /* gather and scatter */
    RL_CLASS_CONV,        /* dense convolutions (several input channels a group): a CPU runtime's direct
                             convolution kernels, a GPU engine's implicit GEMMs; a profile that gives no
                             figures of its own for it gives it the matrix class's */
    RL_CLASS_COUNT
};

/* What a forecast rests on (forecast.basis, a profile's forecast.basis). */
typedef enum { RL_BASIS_ANALYTIC, RL_BASIS_CALIBRATED, RL_BASIS_COUNT } rl_basis;

/* The kind of a measured profile (measured.format; a request's
 * measured.format also takes "auto", which is no kind but a request to
 * detect one). */
typedef enum { RL_PROFILE_ORT, RL_PROFILE_TRTEXEC, RL_PROFILE_CSV, RL_PROFILE_COUNT } rl_profile_format;

/* What one step of the model is (options.mode): a forward pass, or a
 * training step (forward and backward, docs/model.md). */
typedef enum { RL_MODE_INFERENCE, RL_MODE_TRAINING, RL_MODE_COUNT } rl_mode;

/* What a forecast's error band rests on (forecast.band.basis): results
 * published for the profile's stack, or the fit's own held-out runs. */
typedef enum { RL_BAND_PUBLISHED, RL_BAND_FIT_CROSS_VALIDATION, RL_BAND_BASIS_COUNT } rl_band_basis;

/* A KV cache type of llama.cpp (its --cache-type-k/-v names; llm.kv_type). */
typedef enum { RL_KV_F16, RL_KV_Q8_0, RL_KV_Q4_0, RL_KV_COUNT } rl_kv_type;

/* The id the answer writes for value v of `list` ("compute"); NULL for a
 * value out of range. */
const char *rl_value_id(rl_list list, int v);
/* The value written `id` in `list`; -1 for NULL or an id of no value. */
int rl_value_of(rl_list list, const char *id);
/* The plain word a user reads for value v ("launch floor"); NULL out of range. */
const char *rl_value_name(rl_list list, int v);
/* "compute, memory, ..." : the list's ids, for an error message. */
void rl_value_list_text(rl_list list, char *buf, size_t size);

/* The name a user reads for `id` of `kind` ("bound", "overhead" ->
 * "launch floor"); `id` itself when the list has no such entry, so a new
 * value is shown rather than lost. Never NULL for a non-NULL `id`. */
const char *rl_word_name(const char *kind, const char *id);

/* The bound's id ("compute"); "unknown" for a value out of range. */
const char *rl_bound_id(rl_bound b);
/* The bound written `id`; RL_BOUND_UNKNOWN for NULL or an id of no bound. */
rl_bound rl_bound_from_id(const char *id);
/* The bound's colour, "#rrggbb", dark enough for white text. */
const char *rl_bound_color(rl_bound b);

#endif
