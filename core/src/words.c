/* The words for rooflens's concepts and the one table of each list of
 * values the answer carries (words.h), and rl_words(), which publishes
 * them all for the CLI and the page. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "json.h"
#include "words.h"

typedef struct {
    const char *kind, *id, *name, *meaning;
} rl_word;

/* The meanings follow docs/model.md; they are short enough for a tooltip. */
/* The concepts of the glossary: no value of the answer, so no enum. */
static const rl_word WORDS[] = {
    {RL_WORD_TERM, "speed_of_light", "speed of light",
     "The shortest time the device could take: every kernel at the device's peak FLOP/s and memory bandwidth. "
     "A floor, not a forecast: real kernels are slower."},
    {RL_WORD_TERM, "fused", "fused",
     "Layers that only reshape or combine one tensor (bias, activation, normalisation) run inside the kernel before "
     "them, so their intermediate tensors stay on chip and only weights, inputs and outputs cross memory."},
    {RL_WORD_TERM, "prefetched", "prefetched",
     "The next kernel's weights load while the current one computes, so the whole model overlaps compute and "
     "memory as if it were one kernel."},
    {RL_WORD_TERM, "granularity", "granularity",
     "Where the roofline is applied: kernel by kernel (each kernel waits for its own bytes) or to the whole graph "
     "at once."},
    {RL_WORD_TERM, "launch_floor", "launch floor",
     "The number of kernels times the device's cost to launch one: no run is faster, however small its layers."},
    {RL_WORD_TERM, "power_floor", "power floor",
     "The shortest time in which the device can spend the model's energy without drawing more than its power "
     "budget."},
    {RL_WORD_TERM, "forecast", "forecast",
     "What the model is expected to take on the profile's software stack: each kernel at the share of the peaks "
     "that stack reaches for its kind of work, plus a fixed cost per kernel; never below the speed of light. An "
     "estimate that names what it rests on: the profile's defaults, or a fit to measured runs."},
    {RL_WORD_TERM, "headroom", "headroom",
     "The forecast over the speed of light (forecast.headroom, a layer's headroom): how many times longer the "
     "profile's stack is forecast to take than the floor. 1× is at the floor; a large headroom is where tuning "
     "the stack could gain most."},
    /* how far off a forecast may be (forecast.low_s, high_s, band; forecast_band.h) */
    {RL_WORD_TERM, "forecast_band", "likely range",
     "Where the measured time is likely to fall: the forecast times the spread (10th to 90th percentile) of "
     "measured / forecast over the held-out runs of the profile's stack, never below the speed of light."},
    {RL_WORD_TERM, "track_record", "track record",
     "The held-out runs the stack's forecast was checked against: how many, their median and worst error, and "
     "where they are listed. Runs that set a parameter are fits, not part of it."},
    {RL_WORD_TERM, "no_track_record", "no track record for this stack",
     "The profile lists no held-out runs of its stack, so the forecast has no likely range: rooflens does not "
     "invent one."},
    {RL_WORD_TERM, "floor_range", "range of the speed of light",
     "The speed of light's own bounds: from its compute, memory and launches fully overlapped up to none of "
     "them overlapped. They bound the floor, not the forecast."},
};

#define N_WORDS (sizeof WORDS / sizeof WORDS[0])

/* One value of a list: the id the answer writes, the word a user reads,
 * its meaning for the glossary and, for a bound, its colour. */
typedef struct {
    const char *id, *name, *meaning, *color;
} rl_value_row;

/* The bounds (rl_bound). The colours are the only spelling of a bound's
 * colour in the tree (tools/checks/bound_colors.py): distinct in hue, each
 * dark enough for white text (contrast >= 4.5). */
static const rl_value_row BOUNDS[] = {
    [RL_BOUND_COMPUTE] = {"compute", "compute", "The peak FLOP/s of the matrix or vector units sets the time.",
                          "#b34700"},
    [RL_BOUND_MEMORY] = {"memory", "memory bandwidth", "Moving the bytes to and from main memory sets the time.",
                         "#1a5f96"},
    [RL_BOUND_OVERHEAD] = {"overhead", "launch floor", "Launching the kernels takes longer than their work.",
                           "#2e7d32"},
    [RL_BOUND_POWER] = {"power", "power floor", "The power budget stretches the time.", "#b0003a"},
    [RL_BOUND_COMMUNICATION] = {"communication", "communication",
                                "Sending tensors between the devices takes longer than the work on each.", "#7a6200"},
    [RL_BOUND_NONE] = {"none", "no work", "The layer does no work on the device: a view, a constant or a folded node.",
                       "#6e6e6e"},
    [RL_BOUND_UNKNOWN] = {"unknown", "unknown",
                          "rooflens cannot cost the layer (an operator it does not know, or a shape it cannot "
                          "tell), so nothing bounds it that it could say.",
                          "#6b3fa0"},
};
_Static_assert(sizeof BOUNDS / sizeof BOUNDS[0] == RL_BOUND_COUNT, "one row of BOUNDS per rl_bound");

/* The speed-of-light models (rl_sol_model). */
static const rl_value_row SOLS[] = {
    [RL_SOL_UNFUSED] = {"unfused", "unfused",
                        "Every layer is a kernel and every tensor crosses memory. A floor only for a runtime that runs "
                        "each layer on its own (ONNX Runtime without graph optimisations, eager PyTorch): engines that "
                        "fuse beat it.",
                        NULL},
    [RL_SOL_FUSED] = {"fused", "fused",
                      "Elementwise tails run inside the kernel before them; intermediates stay on chip. A floor for a "
                      "runtime that fuses no more than that (TensorRT, ONNX Runtime with optimisations); larger fused "
                      "kernels (attention that keeps its scores on chip) can beat it where they save traffic.",
                      NULL},
    [RL_SOL_FUSED_PREFETCHED] = {"fused_prefetched", "fused and prefetched",
                                 "Fused, and the whole graph overlaps compute and memory as one roofline: the lowest "
                                 "of the three, a floor for any runtime that fuses no more than the fused model.",
                                 NULL},
};
_Static_assert(sizeof SOLS / sizeof SOLS[0] == RL_SOL_COUNT, "one row of SOLS per rl_sol_model");

/* The granularities (rl_granularity). */
static const rl_value_row GRANULARITIES[] = {
    [RL_GRAN_INTENDED] = {"intended", "intended",
                          "Kernel by kernel for unfused and fused, the whole graph for fused and prefetched.", NULL},
    [RL_GRAN_PER_OP] = {"per_op", "kernel by kernel", "Each kernel waits for its own bytes.", NULL},
    [RL_GRAN_WHOLE_GRAPH] = {"whole_graph", "whole graph", "One roofline for the whole graph.", NULL},
};
_Static_assert(sizeof GRANULARITIES / sizeof GRANULARITIES[0] == RL_GRAN_COUNT, "one row per rl_granularity");

/* The forecast's op classes (enum rl_op_class): the ids are a profile's
 * forecast.classes keys too. */
static const rl_value_row OP_CLASSES[] = {
    [RL_CLASS_MATRIX] = {"matrix", "matrix work", "GEMMs: Gemm, MatMul, attention and RNN gates on the matrix units.",
                         NULL},
    [RL_CLASS_DEPTHWISE] = {"depthwise", "depthwise and grouped convolutions",
                            "Too few MACs per output to fill the matrix units: they run near the vector rate.", NULL},
    [RL_CLASS_NORM] = {"normalization", "normalisation, softmax and pooling",
                       "Row and window reductions: normalisations, softmax, pooling.", NULL},
    [RL_CLASS_ELEMENTWISE] = {"elementwise", "elementwise", "Activations, arithmetic, casts and quantization, one pass.",
                              NULL},
    [RL_CLASS_MOVEMENT] = {"data_movement", "data movement", "Transposes, concatenations, slices, pads and resizes.",
                           NULL},
    [RL_CLASS_GATHER] = {"gather_scatter", "gather and scatter",
                         "Indexed reads and writes: embeddings, gathers, scatters.", NULL},
    [RL_CLASS_CONV] = {"convolution", "convolutions",
                       "Dense and grouped convolutions: a CPU runtime's direct convolution kernels, a GPU engine's "
                       "implicit GEMMs.",
                       NULL},
};
_Static_assert(sizeof OP_CLASSES / sizeof OP_CLASSES[0] == RL_CLASS_COUNT, "one row of OP_CLASSES per rl_op_class");

/* What a forecast rests on (rl_basis); the surfaces write "<name>: <stack>". */
static const rl_value_row BASES[] = {
    [RL_BASIS_ANALYTIC] = {"analytic", "analytic estimate",
                           "The profile's stated estimates of what a tuned software stack reaches on the device: no "
                           "run of this model or of yours went into it.",
                           NULL},
    [RL_BASIS_CALIBRATED] = {"calibrated", "fitted to measured runs",
                             "Fitted by rooflens calibrate --from to the kernels of measured runs: it describes the "
                             "stack those runs used.",
                             NULL},
};
_Static_assert(sizeof BASES / sizeof BASES[0] == RL_BASIS_COUNT, "one row of BASES per rl_basis");

/* What a forecast's band rests on (rl_band_basis); the name ends the
 * track record's sentence ("checked against 6 published runs"). */
static const rl_value_row BAND_BASES[] = {
    [RL_BAND_PUBLISHED] = {"published results", "published runs",
                           "Results published for the profile's stack (engine tables, MLPerf), kept apart from "
                           "what set its figures and listed in docs/validation.md.",
                           NULL},
    [RL_BAND_FIT_CROSS_VALIDATION] = {"fit cross-validation", "held-out runs of its fit",
                                      "Each model of a calibrate --from fit forecast by a fit of the others: the "
                                      "spread of those errors.",
                                      NULL},
};
_Static_assert(sizeof BAND_BASES / sizeof BAND_BASES[0] == RL_BAND_BASIS_COUNT, "one row of BAND_BASES per rl_band_basis");

/* The measured profiles rooflens reads (rl_profile_format). */
static const rl_value_row MEASURED_FORMATS[] = {
    [RL_PROFILE_ORT] = {"ort", "ONNX Runtime profile",
                        "The JSON trace ONNX Runtime writes with profiling on: each kernel's run time, by node.", NULL},
    [RL_PROFILE_TRTEXEC] = {"trtexec", "trtexec profile",
                            "The JSON trtexec --exportProfile writes: each TensorRT layer's average time.", NULL},
    [RL_PROFILE_CSV] = {"csv", "CSV profile", "Rows of name,time_s: a kernel's name and its time in seconds.", NULL},
};
_Static_assert(sizeof MEASURED_FORMATS / sizeof MEASURED_FORMATS[0] == RL_PROFILE_COUNT,
               "one row of MEASURED_FORMATS per rl_profile_format");

/* llama.cpp's KV cache types (rl_kv_type): blocks of 32 values with their scale. */
static const rl_value_row KV_TYPES[] = {
    [RL_KV_F16] = {"f16", "f16 cache", "The KV cache in half precision: 2 bytes a value.", NULL},
    [RL_KV_Q8_0] = {"q8_0", "q8_0 cache", "llama.cpp's 8-bit blocks: 32 values and their fp16 scale in 34 bytes.", NULL},
    [RL_KV_Q4_0] = {"q4_0", "q4_0 cache", "llama.cpp's 4-bit blocks: 32 values and their fp16 scale in 18 bytes.", NULL},
};
_Static_assert(sizeof KV_TYPES / sizeof KV_TYPES[0] == RL_KV_COUNT, "one row of KV_TYPES per rl_kv_type");

/* The modes of a request (rl_mode). */
static const rl_value_row MODES[] = {
    [RL_MODE_INFERENCE] = {"inference", "inference", "One forward pass of the model.", NULL},
    [RL_MODE_TRAINING] = {"training", "training",
                          "One training step: the forward pass and a backward pass of twice its FLOPs, bytes and "
                          "kernels.",
                          NULL},
};
_Static_assert(sizeof MODES / sizeof MODES[0] == RL_MODE_COUNT, "one row of MODES per rl_mode");

/* Every list: its kind in rl_words() and its table. */
static const struct {
    const char *kind;
    const rl_value_row *rows;
    int count;
} LISTS[] = {
    [RL_LIST_BOUND] = {RL_WORD_BOUND, BOUNDS, RL_BOUND_COUNT},
    [RL_LIST_SOL] = {RL_WORD_SOL, SOLS, RL_SOL_COUNT},
    [RL_LIST_GRANULARITY] = {RL_WORD_GRANULARITY, GRANULARITIES, RL_GRAN_COUNT},
    [RL_LIST_OP_CLASS] = {RL_WORD_OP_CLASS, OP_CLASSES, RL_CLASS_COUNT},
    [RL_LIST_BASIS] = {RL_WORD_BASIS, BASES, RL_BASIS_COUNT},
    [RL_LIST_BAND_BASIS] = {RL_WORD_BAND_BASIS, BAND_BASES, RL_BAND_BASIS_COUNT},
    [RL_LIST_MEASURED_FORMAT] = {RL_WORD_MEASURED_FORMAT, MEASURED_FORMATS, RL_PROFILE_COUNT},
    [RL_LIST_KV_TYPE] = {RL_WORD_KV_TYPE, KV_TYPES, RL_KV_COUNT},
    [RL_LIST_MODE] = {RL_WORD_MODE, MODES, RL_MODE_COUNT},
};
_Static_assert(sizeof LISTS / sizeof LISTS[0] == RL_LIST_COUNT, "one entry of LISTS per rl_list");

static const rl_value_row *value_row(rl_list list, int v) {
    if ((int)list < 0 || list >= RL_LIST_COUNT || v < 0 || v >= LISTS[list].count) return NULL;
    return &LISTS[list].rows[v];
}

const char *rl_value_id(rl_list list, int v) {
    const rl_value_row *r = value_row(list, v);
    return r ? r->id : NULL;
}

const char *rl_value_name(rl_list list, int v) {
    const rl_value_row *r = value_row(list, v);
    return r ? r->name : NULL;
}

int rl_value_of(rl_list list, const char *id) {
    if ((int)list < 0 || list >= RL_LIST_COUNT || !id) return -1;
    for (int v = 0; v < LISTS[list].count; v++)
        if (!strcmp(LISTS[list].rows[v].id, id)) return v;
    return -1;
}

void rl_value_list_text(rl_list list, char *buf, size_t size) {
    size_t n = 0;
    if (size) buf[0] = 0;
    for (int v = 0; (int)list >= 0 && list < RL_LIST_COUNT && v < LISTS[list].count && n < size; v++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s", v ? ", " : "", LISTS[list].rows[v].id);
}

const char *rl_bound_id(rl_bound b) { return BOUNDS[b >= 0 && b < RL_BOUND_COUNT ? b : RL_BOUND_UNKNOWN].id; }

rl_bound rl_bound_from_id(const char *id) {
    int b = rl_value_of(RL_LIST_BOUND, id);
    return b < 0 ? RL_BOUND_UNKNOWN : (rl_bound)b;
}

const char *rl_bound_color(rl_bound b) { return BOUNDS[b >= 0 && b < RL_BOUND_COUNT ? b : RL_BOUND_UNKNOWN].color; }

const char *rl_word_name(const char *kind, const char *id) {
    if (!kind || !id) return id;
    for (int l = 0; l < RL_LIST_COUNT; l++) {
        if (strcmp(LISTS[l].kind, kind)) continue;
        int v = rl_value_of((rl_list)l, id);
        return v < 0 ? id : LISTS[l].rows[v].name;
    }
    for (size_t i = 0; i < N_WORDS; i++)
        if (!strcmp(WORDS[i].kind, kind) && !strcmp(WORDS[i].id, id)) return WORDS[i].name;
    return id;
}

static void add_word(cJSON *arr, const char *kind, const char *id, const char *name, const char *meaning,
                     const char *color) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", kind);
    cJSON_AddStringToObject(o, "id", id);
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "meaning", meaning);
    if (color) cJSON_AddStringToObject(o, "color", color);
    cJSON_AddItemToArray(arr, o);
}

char *rl_words(void) {
    rl_json_begin();
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < N_WORDS; i++) add_word(arr, WORDS[i].kind, WORDS[i].id, WORDS[i].name, WORDS[i].meaning, NULL);
    for (int l = 0; l < RL_LIST_COUNT; l++)
        for (int v = 0; v < LISTS[l].count; v++) {
            const rl_value_row *r = &LISTS[l].rows[v];
            add_word(arr, LISTS[l].kind, r->id, r->name, r->meaning, r->color);
        }
    return rl_json_finish(arr);
}
