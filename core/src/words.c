/* The one list of the words for rooflens's concepts (words.h) and
 * rl_words(), which publishes it for the CLI and the page. */
#include <cjson/cJSON.h>
#include <string.h>

#include "internal.h"
#include "json.h"
#include "words.h"

typedef struct {
    const char *kind, *id, *name, *meaning;
} rl_word;

/* The meanings follow docs/model.md; they are short enough for a tooltip. */
/* The bounds are a table of their own below (they carry a colour too). */
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
    /* what a forecast rests on (forecast.basis); the surfaces write "<name>: <stack>" */
    {RL_WORD_BASIS, "analytic", "analytic estimate",
     "The profile's stated estimates of what a tuned software stack reaches on the device: no run of this model "
     "or of yours went into it."},
    {RL_WORD_BASIS, "calibrated", "fitted to measured runs",
     "Fitted by rooflens calibrate --from to the kernels of measured runs: it describes the stack those runs used."},
    {RL_WORD_SOL, "unfused", "unfused",
     "Every layer is a kernel and every tensor crosses memory. A floor only for a runtime that runs each layer on "
     "its own (ONNX Runtime without graph optimisations, eager PyTorch): engines that fuse beat it."},
    {RL_WORD_SOL, "fused", "fused",
     "Elementwise tails run inside the kernel before them; intermediates stay on chip. A floor for a runtime that "
     "fuses no more than that (TensorRT, ONNX Runtime with optimisations); larger fused kernels (attention that "
     "keeps its scores on chip) can beat it where they save traffic."},
    {RL_WORD_SOL, "fused_prefetched", "fused and prefetched",
     "Fused, and the whole graph overlaps compute and memory as one roofline: the lowest of the three, a floor for "
     "any runtime that fuses no more than the fused model."},
    {RL_WORD_GRANULARITY, "intended", "intended",
     "Kernel by kernel for unfused and fused, the whole graph for fused and prefetched."},
    {RL_WORD_GRANULARITY, "per_op", "kernel by kernel", "Each kernel waits for its own bytes."},
    {RL_WORD_GRANULARITY, "whole_graph", "whole graph", "One roofline for the whole graph."},
    /* the forecast's op classes (hw.h, enum rl_op_class) */
    {RL_WORD_OP_CLASS, "matrix", "matrix work", "GEMMs: Gemm, MatMul, attention and RNN gates on the matrix units."},
    {RL_WORD_OP_CLASS, "depthwise", "depthwise and grouped convolutions",
     "Too few MACs per output to fill the matrix units: they run near the vector rate."},
    {RL_WORD_OP_CLASS, "normalization", "normalisation, softmax and pooling",
     "Row and window reductions: normalisations, softmax, pooling."},
    {RL_WORD_OP_CLASS, "elementwise", "elementwise", "Activations, arithmetic, casts and quantization, one pass."},
    {RL_WORD_OP_CLASS, "data_movement", "data movement", "Transposes, concatenations, slices, pads and resizes."},
    {RL_WORD_OP_CLASS, "gather_scatter", "gather and scatter", "Indexed reads and writes: embeddings, gathers, scatters."},
    {RL_WORD_OP_CLASS, "convolution", "convolutions",
     "Dense and grouped convolutions: a CPU runtime's direct convolution kernels, a GPU engine's implicit GEMMs."},
};

#define N_WORDS (sizeof WORDS / sizeof WORDS[0])

typedef struct {
    const char *id, *name, *meaning, *color;
} rl_bound_row;

/* The one table of bounds (words.h, rl_bound). The colours are the only
 * spelling of a bound's colour in the tree (tools/check-bound-colors.py):
 * distinct in hue, each dark enough for white text (contrast >= 4.5). */
static const rl_bound_row BOUNDS[] = {
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

const char *rl_bound_id(rl_bound b) { return BOUNDS[b >= 0 && b < RL_BOUND_COUNT ? b : RL_BOUND_UNKNOWN].id; }

rl_bound rl_bound_from_id(const char *id) {
    for (int b = 0; id && b < RL_BOUND_COUNT; b++)
        if (!strcmp(BOUNDS[b].id, id)) return (rl_bound)b;
    return RL_BOUND_UNKNOWN;
}

const char *rl_bound_color(rl_bound b) { return BOUNDS[b >= 0 && b < RL_BOUND_COUNT ? b : RL_BOUND_UNKNOWN].color; }

const char *rl_word_name(const char *kind, const char *id) {
    if (!kind || !id) return id;
    if (!strcmp(kind, RL_WORD_BOUND)) {
        rl_bound b = rl_bound_from_id(id);
        return strcmp(BOUNDS[b].id, id) ? id : BOUNDS[b].name;
    }
    for (size_t i = 0; i < N_WORDS; i++)
        if (!strcmp(WORDS[i].kind, kind) && !strcmp(WORDS[i].id, id)) return WORDS[i].name;
    return id;
}

char *rl_words(void) {
    rl_json_begin();
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < N_WORDS; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", WORDS[i].kind);
        cJSON_AddStringToObject(o, "id", WORDS[i].id);
        cJSON_AddStringToObject(o, "name", WORDS[i].name);
        cJSON_AddStringToObject(o, "meaning", WORDS[i].meaning);
        cJSON_AddItemToArray(arr, o);
    }
    for (int b = 0; b < RL_BOUND_COUNT; b++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", RL_WORD_BOUND);
        cJSON_AddStringToObject(o, "id", BOUNDS[b].id);
        cJSON_AddStringToObject(o, "name", BOUNDS[b].name);
        cJSON_AddStringToObject(o, "meaning", BOUNDS[b].meaning);
        cJSON_AddStringToObject(o, "color", BOUNDS[b].color);
        cJSON_AddItemToArray(arr, o);
    }
    return rl_json_finish(arr);
}
