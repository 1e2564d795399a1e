/* The forecast (docs/model.md §12) and its fit (rl_fit_forecast):
 *  - tile and wave quantization on worked examples;
 *  - op classes of the fixtures' layers (conv, depthwise conv, MatMul,
 *    normalisation, elementwise, data movement, gather);
 *  - the clamp: a forecast that would fall below the floor is the floor;
 *  - a profile's forecast block is validated field by field;
 *  - the fit on synthetic measurements made from known parameters recovers
 *    every parameter that sets some kernel's time (both ways) within 5 %,
 *    reproduces each kernel within 2 %, is deterministic, and its profile passes
 *    rl_check_hardware; a profile of another model is refused;
 *  - hostile fits (issue 43): impossible kernel times, long gaps between
 *    kernels, a pair that matches nothing beside a good one and a broken
 *    base profile are refused; samples of the same figures are pooled. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <math.h>
#include <dirent.h>
#include <time.h>

#include "check.h"
#include "check_model.h"
#include "forecast.h"
#include "forecast_band.h"
#include "forecast_fit.h"

static const char *tests_dir, *root_dir;

/* ------------------------------------------------------- quantization -- */
static void quantization(void) {
    rl_forecast_params p = {.units = 132, .tile_m = 128, .tile_n = 128, .tile_k = 32};
    /* 4096³: 32×32 = 1024 tiles over 132 units in 8 waves (1056 slots); the
     * halved tiles give 4096 tiles in 32 waves: the same 1024/1056 */
    CHECK_NEAR(rl_matrix_quantization(&p, 4096, 4096, 4096, 1), 1024.0 / 1056.0, 1e-12, "4096^3 on 132 units");
    /* M = 1 (a vector): the smallest tile (16×16) wastes 15/16 of its rows;
     * 256 column tiles in 2 waves of 132 */
    CHECK_NEAR(rl_matrix_quantization(&p, 1, 4096, 4096, 1), (1.0 / 16) * (256.0 / 264.0), 1e-12, "M = 1");
    /* the same vector product 1024 times (a decode step's attention: one
     * query row against the cache): the tiles fill the units at once, yet
     * M = 1 still takes the smallest tile, 16 rows, not 128 */
    CHECK_NEAR(rl_matrix_quantization(&p, 1, 4096, 64, 1024), (1.0 / 16) * (32768.0 / (249.0 * 132.0)), 1e-12,
               "M = 1, batched");
    /* one 128×128 tile, K = 4096: split K over the units: 132 pieces in one wave */
    CHECK_NEAR(rl_matrix_quantization(&p, 128, 128, 4096, 1), 1.0, 1e-12, "split K fills the units");
    /* K = 40 in steps of 32: 40/64 of the work is useful; 1024 × 1 tiles... */
    double q = rl_matrix_quantization(&p, 4096, 4096, 40, 1);
    CHECK_NEAR(q, 40.0 / 64.0 * 1024.0 / 1056.0, 1e-12, "K padding");
    rl_forecast_params none = {.units = 1, .tile_m = 1, .tile_n = 1, .tile_k = 1};
    CHECK(rl_matrix_quantization(&none, 3, 5, 7, 2) == 1, "no tiles, no quantization");
    CHECK(rl_matrix_quantization(&p, 0, 5, 7, 1) == 1 && rl_matrix_quantization(&p, NAN, 5, 7, 1) == 1,
          "unknown shapes: no quantization");
}

/* ------------------------------------------------------------ helpers -- */
static rl_model *fixture(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/models/%s", tests_dir, name);
    return check_read_model(path);
}

static cJSON *analyze(rl_model *m, const cJSON *hw, const char *sol, int batch) {
    cJSON *req = cJSON_CreateObject();
    cJSON_AddItemToObject(req, "hardware", cJSON_Duplicate(hw, true));
    cJSON_AddStringToObject(req, "sol", sol);
    if (batch > 0) cJSON_AddNumberToObject(req, "batch", batch);
    return check_analyze(m, req);
}

static cJSON *fig(double v) {
    cJSON *f = cJSON_CreateObject();
    cJSON_AddNumberToObject(f, "value", v);
    cJSON_AddStringToObject(f, "source", "test");
    cJSON_AddStringToObject(f, "kind", "estimated");
    return f;
}

/* The unit device with a forecast block of the given parameters. */
static cJSON *with_forecast(const cJSON *base, const double *compute, const double *memory, double kernel_s,
                            double group_s) {
    cJSON *hw = cJSON_Duplicate(base, true), *f = cJSON_AddObjectToObject(hw, "forecast");
    cJSON_AddStringToObject(f, "stack", "test stack");
    cJSON_AddItemToObject(f, "kernel_overhead_s", fig(kernel_s));
    if (group_s > 0) cJSON_AddItemToObject(f, "group_overhead_s", fig(group_s));
    cJSON_AddItemToObject(f, "matrix_units", fig(4));
    cJSON_AddItemToObject(f, "tile_m", fig(16));
    cJSON_AddItemToObject(f, "tile_n", fig(16));
    cJSON_AddItemToObject(f, "tile_k", fig(8));
    cJSON *cl = cJSON_AddObjectToObject(f, "classes");
    for (int c = 0; c < RL_CLASS_COUNT; c++) {
        cJSON *o = cJSON_AddObjectToObject(cl, rl_value_id(RL_LIST_OP_CLASS, c));
        cJSON_AddItemToObject(o, "compute_fraction", fig(compute[c]));
        cJSON_AddItemToObject(o, "memory_fraction", fig(memory[c]));
    }
    return hw;
}

/* ------------------------------------------------------ grouped convs -- */
/* A one-core CPU stack's tiles in forecast block f: one unit, tiles of
 * 1 × tile_n × 1. */
static void one_core_tiles(cJSON *f, double tile_n) {
    cJSON_ReplaceItemInObject(f, "matrix_units", fig(1));
    cJSON_ReplaceItemInObject(f, "tile_m", fig(1));
    cJSON_ReplaceItemInObject(f, "tile_n", fig(tile_n));
    cJSON_ReplaceItemInObject(f, "tile_k", fig(1));
}

/* The response for fixture `model` (batch 1, speed-of-light model `sol`)
 * under hw, which is freed; NULL when the fixture cannot be read. */
static cJSON *fixture_analysis(const char *model, cJSON *hw, const char *sol) {
    rl_model *m = fixture(model);
    cJSON *r = m ? analyze(m, hw, sol, 1) : NULL;
    cJSON_Delete(hw);
    rl_model_free(m);
    return r;
}

/* The forecast of conv_net's layer `layer` (unfused, batch 1) under hw, a
 * one-core CPU stack (one_core_tiles); hw is freed. */
static double conv_net_layer_s(cJSON *hw, double tile_n, const char *layer) {
    one_core_tiles(cJSON_GetObjectItem(hw, "forecast"), tile_n);
    cJSON *r = fixture_analysis("conv_net.onnx", hw, "unfused");
    double t = NAN;
    const cJSON *l;
    cJSON_ArrayForEach(l, cJSON_GetObjectItem(r, "layers")) if (!strcmp(check_str(l, "name"), layer)) t = check_num(l, "forecast_s");
    cJSON_Delete(r);
    return t;
}

/* conv_net's gconv (16 channels in 4 groups: 4 products of N = 4 output
 * channels each, K = 4 x 3 x 3) is quantized per group: 16-wide tiles pad
 * each group's N of 4 to 16 and take 4 times as long as 4-wide ones; the
 * dense dconv (N = 16) fills both. Compute-bound: every fraction 1e-3. */
static double conv_forecast(const cJSON *unit, double tile_n, const char *layer, const char *grouped,
                            double kernel_s, double between_s) {
    static const double low[RL_CLASS_COUNT] = {1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3};
    static const double full[RL_CLASS_COUNT] = {1, 1, 1, 1, 1, 1, 1};
    cJSON *hw = with_forecast(unit, low, full, kernel_s, 0), *f = cJSON_GetObjectItem(hw, "forecast");
    if (grouped) cJSON_AddStringToObject(f, "grouped_conv", grouped);
    if (between_s > 0) cJSON_AddItemToObject(f, "between_kernels_s", fig(between_s));
    return conv_net_layer_s(hw, tile_n, layer);
}

/* A stack that runs a grouped convolution one GEMM call a group
 * ("grouped_conv": "per_group") pays the fixed cost per kernel for each of
 * gconv's 4 groups, not once, less the runtime's time between kernels
 * (between_kernels_s) for each call after the first: no executor runs
 * between the calls of one kernel. Such a convolution runs plain, its
 * columns copied (im2col), so its work differs too: the fixed costs are
 * read as the slope of its time in the fixed cost per kernel. Its
 * depthwise dwconv (a kernel of its own kind) is unchanged. */
static void grouped_calls(const cJSON *unit) {
    const double k = 1e-3; /* far above the convolutions' work */
    double one = conv_forecast(unit, 16, "gconv", "one_kernel", k, 0), per = conv_forecast(unit, 16, "gconv", "per_group", k, 0);
    double one2 = conv_forecast(unit, 16, "gconv", "one_kernel", 2 * k, 0);
    double per2 = conv_forecast(unit, 16, "gconv", "per_group", 2 * k, 0);
    CHECK(fabs((one2 - one) / k - 1) < 0.01, "one_kernel: gconv pays one fixed cost (%g -> %g)", one, one2);
    CHECK(fabs((per2 - per) / (4 * k) - 1) < 0.01, "per_group: gconv pays 4 calls' fixed cost (%g -> %g)", per, per2);
    double plain = conv_forecast(unit, 16, "gconv", NULL, k, 0);
    CHECK(plain == one, "one_kernel is the default (%g, %g)", plain, one);
    double d1 = conv_forecast(unit, 16, "dwconv", "one_kernel", k, 0), d2 = conv_forecast(unit, 16, "dwconv", "per_group", k, 0);
    CHECK(d1 == d2, "a depthwise convolution is not run a group at a time (%g, %g)", d1, d2);
    /* a blocked stack (implicit GEMM) holds a group whose channels fill
     * its blocks (tile_n: 4 here, gconv's channels a group) in one kernel */
    double one4 = conv_forecast(unit, 4, "gconv", "one_kernel", k, 0), per4 = conv_forecast(unit, 4, "gconv", "per_group", k, 0);
    CHECK(per4 == one4, "per_group: groups that fill the blocks run as one kernel (%g, %g)", one4, per4);
    const double between = 0.6e-3;
    double one_b = conv_forecast(unit, 16, "gconv", "one_kernel", k, between);
    double per_b = conv_forecast(unit, 16, "gconv", "per_group", k, between);
    CHECK(one_b == one, "one kernel pays its whole fixed cost, the time between kernels in it (%g, %g)", one_b, one);
    CHECK(fabs((per - per_b) / (3 * between) - 1) < 0.01,
          "per_group: each further call pays the fixed cost less the time between kernels (%g -> %g)", per, per_b);
}

/* conv_net's dwconv (16 channels, one a group) with the fixed cost per
 * kernel 0 and the copies' share of the memory bandwidth `movement`:
 * only a convolution whose columns are moved (im2col) depends on it. */
static double dw_forecast(const cJSON *unit, double tile_n, const char *lowering, const char *grouped, double movement) {
    static const double low[RL_CLASS_COUNT] = {1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3};
    double memory[RL_CLASS_COUNT] = {1, 1, 1, 1, 1, 1, 1};
    memory[RL_CLASS_MOVEMENT] = movement;
    cJSON *hw = with_forecast(unit, low, memory, 0, 0), *f = cJSON_GetObjectItem(hw, "forecast");
    if (lowering) cJSON_AddStringToObject(f, "conv_lowering", lowering);
    if (grouped) cJSON_AddStringToObject(f, "grouped_conv", grouped);
    return conv_net_layer_s(hw, tile_n, "dwconv");
}

/* A depthwise convolution with no kernel of its own runs one GEMM a
 * channel on columns it expands first (ONNX Runtime's NCHW Conv on x86):
 * in a stack that lowers by im2col its time grows as the copies slow. A
 * blocked stack runs it with its own kernel, no copies; a CPU one pads its
 * channels to whole blocks: dwconv's 16 channels take as long as 32 in
 * blocks of 32 (compute-bound here), as 16 in blocks of 16. */
static void depthwise_lowering(const cJSON *unit) {
    const struct { double tile_n; const char *lowering, *grouped; bool moved; } cases[] = {
        {16, "im2col", "per_group", true},
        {16, "im2col", "one_kernel", true},
        {32, "implicit_gemm", "per_group", false},
        {16, "implicit_gemm", "per_group", false},
        {32, "implicit_gemm", "one_kernel", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double fast = dw_forecast(unit, cases[i].tile_n, cases[i].lowering, cases[i].grouped, 1);
        double slow = dw_forecast(unit, cases[i].tile_n, cases[i].lowering, cases[i].grouped, 0.01);
        CHECK(isfinite(fast) && fast > 0 && (cases[i].moved ? slow > 1.5 * fast : slow == fast),
              "dwconv under %s, %s, blocks of %g: %s its columns (%g s with fast copies, %g s with slow)",
              cases[i].lowering, cases[i].grouped, cases[i].tile_n, cases[i].moved ? "moves" : "moves no", fast, slow);
    }
    double b16 = dw_forecast(unit, 16, "implicit_gemm", "per_group", 1), b32 = dw_forecast(unit, 32, "implicit_gemm", "per_group", 1);
    double i16 = dw_forecast(unit, 16, "im2col", "per_group", 1), i32 = dw_forecast(unit, 32, "im2col", "per_group", 1);
    double g16 = dw_forecast(unit, 16, "implicit_gemm", "one_kernel", 1), g32 = dw_forecast(unit, 32, "implicit_gemm", "one_kernel", 1);
    CHECK(fabs(b32 / b16 - 2) < 1e-9, "blocked CPU stack: 16 channels padded to a block of 32 take twice as long (%g -> %g)", b16, b32);
    CHECK(i32 == i16, "im2col: no channel blocks to pad (%g, %g)", i16, i32);
    CHECK(g32 == g16, "a GPU engine's depthwise kernel pads no channels to its tiles (%g, %g)", g16, g32);
}

/* conv_net's layout conversions under a stack of blocks of tile_n
 * channels (grouped_conv `grouped`, conv_lowering `lowering`), each kernel's
 * fixed cost 1 ms: forecast.layout_reorders' kernels; *t its time. */
static double reorders_in_blocks(const cJSON *unit, double tile_n, double channel_block, const char *grouped,
                                 const char *lowering, double *t) {
    static const double half[RL_CLASS_COUNT] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
    cJSON *hw = with_forecast(unit, half, half, 1e-3, 0), *f = cJSON_GetObjectItem(hw, "forecast");
    cJSON_ReplaceItemInObject(f, "tile_n", fig(tile_n));
    if (channel_block > 0) cJSON_AddItemToObject(f, "channel_block", fig(channel_block));
    cJSON_AddStringToObject(f, "grouped_conv", grouped);
    if (lowering) cJSON_AddStringToObject(f, "conv_lowering", lowering);
    cJSON *r = fixture_analysis("conv_net.onnx", hw, "fused");
    double k = check_num(r, "forecast.layout_reorders.kernels");
    *t = check_num(r, "forecast.layout_reorders.time_s");
    cJSON_Delete(r);
    return k;
}

static double reorders_of(const cJSON *unit, double tile_n, const char *grouped, const char *lowering, double *t) {
    return reorders_in_blocks(unit, tile_n, 0, grouped, lowering, t);
}

/* ONNX Runtime's NCHWc layout, placed by hand on conv_net: conv1 (3 input
 * channels, fewer than a block) reads its plain input and writes blocks;
 * bn1, relu1 and the pool keep them; gconv's groups of 4 channels do not
 * fill blocks of 16, so it runs plain: pool1's output is reordered out;
 * dconv reads relu2's plain output blocked: reordered in; dwconv, relu4 and
 * the global pool stay blocked, and Flatten takes gap's output plain:
 * reordered out. 3 conversions; with blocks of 4 gconv's groups fill them
 * and only gap's remains. A stack with im2col or one kernel for all groups
 * has no blocked layout: none. Each pays the fixed cost per kernel. */
static void layout_reorders(const cJSON *unit) {
    double t16, t4, ti, tg;
    double k16 = reorders_of(unit, 16, "per_group", NULL, &t16), k4 = reorders_of(unit, 4, "per_group", NULL, &t4);
    double ki = reorders_of(unit, 16, "per_group", "im2col", &ti), kg = reorders_of(unit, 16, "one_kernel", NULL, &tg);
    CHECK(k16 == 3 && k4 == 1, "conv_net's conversions: %g in blocks of 16 (3 by hand), %g in blocks of 4 (1)", k16, k4);
    CHECK(ki == 0 && kg == 0 && ti == 0 && tg == 0, "no blocked layout, no conversions (im2col %g, one kernel %g)", ki, kg);
    CHECK(t16 > 3e-3 && t16 < 3.1e-3 && t4 > 1e-3 && t4 < 1.1e-3,
          "each conversion pays a kernel's fixed cost and moves a few KB (%g s, %g s)", t16, t4);
}

/* The layer `layer` of conv_net under a blocked stack (per_group, direct
 * convolutions) of tile_n 16 and channel_block `block` (0: none given),
 * compute-bound (every fraction 1e-3), each kernel's fixed cost kernel_s. */
static double blocked_layer_s(const cJSON *unit, double block, const char *layer, double kernel_s) {
    static const double low[RL_CLASS_COUNT] = {1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3};
    static const double full[RL_CLASS_COUNT] = {1, 1, 1, 1, 1, 1, 1};
    cJSON *hw = with_forecast(unit, low, full, kernel_s, 0), *f = cJSON_GetObjectItem(hw, "forecast");
    cJSON_AddStringToObject(f, "grouped_conv", "per_group");
    if (block > 0) cJSON_AddItemToObject(f, "channel_block", fig(block));
    return conv_net_layer_s(hw, 16, layer);
}

/* A blocked CPU stack's channel blocks (channel_block) are not its GEMM's
 * strips (tile_n): ONNX Runtime with AVX2 blocks NCHWc by 8 channels while
 * its GEMM packs N by 16. With tile_n 16 and blocks of 4, conv_net's layout
 * is that of blocks of 4 (1 conversion, not 3), and gconv's groups of 4
 * channels fill the blocks and run as one kernel (one fixed cost, not 4),
 * their output channels unpadded; the Gemm (N = 10) still pads N to 16;
 * without channel_block, tile_n serves. */
static void channel_block(const cJSON *unit) {
    double t;
    double k_b4 = reorders_in_blocks(unit, 16, 4, "per_group", NULL, &t), k_b16 = reorders_in_blocks(unit, 16, 16, "per_group", NULL, &t);
    double k_none = reorders_in_blocks(unit, 16, 0, "per_group", NULL, &t);
    CHECK(k_b4 == 1 && k_b16 == 3 && k_none == 3, "conversions: %g with blocks of 4 at tile_n 16 (1), %g of 16 (3), %g with none given (3)",
          k_b4, k_b16, k_none);
    const double k = 1e-3; /* far above the convolutions' work */
    double g4 = blocked_layer_s(unit, 4, "gconv", k), g4b = blocked_layer_s(unit, 4, "gconv", 2 * k);
    double g16 = blocked_layer_s(unit, 16, "gconv", k), g16b = blocked_layer_s(unit, 16, "gconv", 2 * k);
    CHECK(fabs((g4b - g4) / k - 1) < 0.01 && fabs((g16b - g16) / (4 * k) - 1) < 0.01,
          "gconv: one fixed cost in blocks of 4 (%g -> %g), 4 calls' in blocks of 16 (%g -> %g)", g4, g4b, g16, g16b);
    double w4 = blocked_layer_s(unit, 4, "gconv", 1e-9), w_tiles4 = conv_forecast(unit, 4, "gconv", "per_group", 1e-9, 0);
    double gemm4 = blocked_layer_s(unit, 4, "fc", 1e-9), gemm16 = blocked_layer_s(unit, 16, "fc", 1e-9);
    CHECK(isfinite(w4) && w4 > 0 && check_close(w4, w_tiles4, 1e-9),
          "gconv's 4 output channels a group pad to the block of 4, not to tile_n 16 (%g; at tile_n 4 %g)", w4, w_tiles4);
    CHECK(isfinite(gemm4) && gemm4 > 0 && gemm4 == gemm16, "the Gemm pads N by tile_n, whatever the blocks (%g, %g)",
          gemm4, gemm16);
}

/* BERT-base (sequence 128, unfused) under shape_ops `mode`, each kernel's
 * fixed cost 1 ms (far above its work). */
static cJSON *bert_shape_ops(const cJSON *unit, rl_model *m, const char *mode) {
    static const double half[RL_CLASS_COUNT] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
    cJSON *hw = with_forecast(unit, half, half, 1e-3, 0), *req = cJSON_CreateObject();
    cJSON_AddStringToObject(cJSON_GetObjectItem(hw, "forecast"), "shape_ops", mode);
    cJSON_AddItemToObject(req, "hardware", hw);
    cJSON_AddStringToObject(req, "sol", "unfused");
    cJSON_AddItemToObject(req, "dims", cJSON_Parse("{\"sequence\": 128}"));
    return m ? check_analyze(m, req) : NULL;
}

/* Layers of r of operator `op` that pay a kernel's fixed cost (1 ms). */
static int paying(const cJSON *r, const char *op) {
    int n = 0;
    const cJSON *l;
    cJSON_ArrayForEach(l, cJSON_GetObjectItem(r, "layers")) n +=
        !strcmp(check_str(l, "op"), op) && !cJSON_IsTrue(cJSON_GetObjectItem(l, "kernel")) && check_num(l, "forecast_s") > 0.9e-3;
    return n;
}

/* BERT-base's export has shape arithmetic of constants alone (Unsqueezes
 * of fixed sizes) and of its input (its Shape nodes, its Reshapes):
 * "dynamic" runs only the second kind, "run" both, "distinct" the second
 * kind with identical computations merged: ONNX Runtime with its
 * optimisations on ran its 48 shape Concats (one a Reshape of a layer, all
 * alike) as 2 kernels, and so does "distinct"; "dynamic" runs all 48. */
static void shape_ops_dynamic(const cJSON *unit) {
    const char *modes[] = {"folded", "distinct", "dynamic", "run"};
    double t[4];
    int concats[4], casts[4], identity = 0;
    rl_model *m = fixture("torch/bert_base.onnx");
    for (int i = 0; i < 4; i++) {
        cJSON *r = bert_shape_ops(unit, m, modes[i]);
        t[i] = check_num(r, "forecast.time_s"), concats[i] = paying(r, "Concat"), casts[i] = paying(r, "Cast");
        const cJSON *l;
        if (i == 0)
            cJSON_ArrayForEach(l, cJSON_GetObjectItem(r, "layers")) identity +=
                !strcmp(check_str(l, "op"), "Cast") &&
                !strcmp(check_str(l, "inputs.0.dtype"), check_str(l, "outputs.0.dtype"));
        cJSON_Delete(r);
    }
    rl_model_free(m);
    /* its 3 Casts of int64 to int64 (of its shape arithmetic) run in no
     * mode: ONNX Runtime drops them with its optimisations on, and all but
     * one (5 us a run) with them off */
    CHECK(identity == 3 && casts[0] == 0 && casts[1] == 0 && casts[2] == 0 && casts[3] == 0,
          "bert_base's %d identity Casts pay no kernel (folded %d, distinct %d, dynamic %d, run %d)", identity,
          casts[0], casts[1], casts[2], casts[3]);
    CHECK(t[0] < t[1] && t[1] < t[2] && t[2] < t[3], "bert_base: folded %g < distinct %g < dynamic %g < run %g", t[0],
          t[1], t[2], t[3]);
    CHECK(concats[0] == 0 && concats[1] == 2 && concats[2] == 48, "Concats run: folded %d, distinct %d, dynamic %d",
          concats[0], concats[1], concats[2]);
}

/* "shape_ops": "run": every node the plan counts as no kernel (the
 * transformer block's views and folded shape arithmetic), Constants aside,
 * runs as a kernel and pays the fixed cost; "folded" (the default) adds
 * nothing. */
static void shape_ops(const cJSON *unit) {
    static const double half[RL_CLASS_COUNT] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
    const double k = 1e-3;
    double t[3];
    int unkerneled = 0;
    const char *modes[] = {NULL, "folded", "run"};
    for (int i = 0; i < 3; i++) {
        cJSON *hw = with_forecast(unit, half, half, k, 0);
        if (modes[i]) cJSON_AddStringToObject(cJSON_GetObjectItem(hw, "forecast"), "shape_ops", modes[i]);
        rl_model *m = fixture("transformer_block.onnx");
        cJSON *r = m ? analyze(m, hw, "unfused", 1) : NULL;
        t[i] = check_num(r, "forecast.time_s");
        const cJSON *l;
        if (i == 0)
            cJSON_ArrayForEach(l, cJSON_GetObjectItem(r, "layers")) unkerneled +=
                !cJSON_IsTrue(cJSON_GetObjectItem(l, "kernel")) && strcmp(check_str(l, "op"), "Constant");
        cJSON_Delete(r), cJSON_Delete(hw);
        rl_model_free(m);
    }
    CHECK(unkerneled > 0 && t[0] == t[1], "folded is the default (%g, %g; %d nodes of no kernel)", t[0], t[1],
          unkerneled);
    CHECK(fabs((t[2] - t[1]) / (unkerneled * k) - 1) < 0.01, "run: each of the %d nodes of no kernel pays %g s (%g -> %g)",
          unkerneled, k, t[1], t[2]);
    shape_ops_dynamic(unit);
}

static void grouped_conv(const cJSON *unit) {
    double g16 = conv_forecast(unit, 16, "gconv", NULL, 1e-9, 0), g4 = conv_forecast(unit, 4, "gconv", NULL, 1e-9, 0);
    double d16 = conv_forecast(unit, 16, "dconv", NULL, 1e-9, 0), d4 = conv_forecast(unit, 4, "dconv", NULL, 1e-9, 0);
    CHECK(fabs(g16 / g4 - 4) < 0.04, "gconv: 16-wide tiles pad each group's 4 output channels to 16 (%g / %g)", g16, g4);
    CHECK(fabs(d16 / d4 - 1) < 0.01, "dconv: 16 output channels fill 16- and 4-wide tiles alike (%g / %g)", d16, d4);
}

/* ------------------------------------------------------ conv lowering -- */
/* ResNet-50's convolutions under "conv_lowering" im2col against
 * implicit_gemm, batch 1: with no tiles, each that is not pointwise (1×1,
 * stride 1) takes its column matrix (K × pixels, 4-byte floats) moved 3
 * times (written, then read and written as the GEMM packs it) at the DRAM
 * bandwidth over the data-movement memory fraction longer, and a pointwise
 * one its input moved twice (packed); with 48-wide tiles, layer1's 3×3
 * (64 channels, 56×56 pixels) is quantized with N the pixels, not the
 * channels. */
static double lowered(const cJSON *unit, const char *lowering, double tile_n, double matrix_compute, cJSON **layers) {
    double compute[RL_CLASS_COUNT] = {matrix_compute, 1, 1, 1, 1, 1, matrix_compute},
           memory[RL_CLASS_COUNT] = {1, 1, 1, 1, 0.5, 1, 1};
    cJSON *hw = with_forecast(unit, compute, memory, 1e-6, 0), *f = cJSON_GetObjectItem(hw, "forecast");
    cJSON_AddStringToObject(f, "conv_lowering", lowering);
    one_core_tiles(f, tile_n);
    cJSON *r = fixture_analysis("torch/resnet50.onnx", hw, "unfused");
    *layers = cJSON_DetachItemFromObject(r, "layers");
    double t = check_num(r, "forecast.time_s");
    cJSON_Delete(r);
    return t;
}

static void conv_lowering(const cJSON *unit) {
    cJSON *a, *b, *qa, *qb;
    double ta = lowered(unit, "implicit_gemm", 1, 1, &a), tb = lowered(unit, "im2col", 1, 1, &b);
    const double bw = check_num(unit, "memory.0.bandwidth_Bps.value");
    int convs = 0, pointwise = 0, right = 0;
    for (const cJSON *x = a ? a->child : NULL, *y = b ? b->child : NULL; x && y; x = x->next, y = y->next) {
        if (strcmp(check_str(x, "op"), "Conv")) continue;
        const cJSON *out = check_at(x, "outputs.0.shape"), *in = check_at(x, "inputs.0.shape"), *w = check_at(x, "inputs.1.shape");
        bool pw = check_num(w, "2") == 1 && check_num(w, "3") == 1 && check_num(in, "2") == check_num(out, "2");
        double cols = check_num(x, "macs") / check_num(out, "1") * 4;
        double extra = check_num(y, "forecast_s") - check_num(x, "forecast_s");
        convs++, pointwise += pw;
        right += fabs(extra - (pw ? 2 : 3) * cols / bw / 0.5) <= 1e-9 * check_num(x, "forecast_s") + 1e-15;
    }
    CHECK(convs == 53 && pointwise > 20 && right == convs, "%d of %d convolutions (%d pointwise) pay their columns' moves",
          right, convs, pointwise);
    CHECK(tb > ta, "im2col takes longer in all (%g > %g)", tb, ta);
    lowered(unit, "implicit_gemm", 48, 1e-3, &qa), lowered(unit, "im2col", 48, 1e-3, &qb);
    const cJSON *x = qa ? qa->child : NULL, *y = qb ? qb->child : NULL;
    while (x && y && strcmp(check_str(x, "name"), "/layer1/layer1.0/conv2/Conv")) x = x->next, y = y->next;
    rl_forecast_params p = {.units = 1, .tile_m = 1, .tile_n = 48, .tile_k = 1};
    double want = rl_matrix_quantization(&p, 3136, 64, 576, 1) / rl_matrix_quantization(&p, 64, 3136, 576, 1);
    CHECK(x && y && check_close(check_num(y, "forecast_s") / check_num(x, "forecast_s"), want, 0.01),
          "layer1's 3x3: im2col / implicit %g, want %g (N 3136 pixels against 64 channels)",
          x && y ? check_num(y, "forecast_s") / check_num(x, "forecast_s") : NAN, want);
    cJSON_Delete(a), cJSON_Delete(b), cJSON_Delete(qa), cJSON_Delete(qb);
}

/* ------------------------------------------------------------- classes -- */
static void classes(const cJSON *unit) {
    static const struct {
        const char *model, *layer_op, *cls;
        bool grouped; /* a Conv with group > 1 */
    } want[] = {
        {"conv_net.onnx", "Gemm", "matrix", false},          {"conv_net.onnx", "Relu", "elementwise", false},
        {"conv_net.onnx", "MaxPool", "normalization", false}, {"transformer_block.onnx", "MatMul", "matrix", false},
        {"transformer_block.onnx", "Softmax", "normalization", false},
        {"transformer_block.onnx", "Transpose", "data_movement", false},
        {"transformer_block.onnx", "Gather", "gather_scatter", false},
        /* ONNX Runtime's fused activations sit in the norm family beside the
         * normalisations they are fused with, but are elementwise work */
        {"../ops/contrib_ops.onnx", "BiasGelu", "elementwise", false},
        {"../ops/contrib_ops.onnx", "FastGelu", "elementwise", false},
        {"../ops/contrib_ops.onnx", "QuickGelu", "elementwise", false},
        {"../ops/contrib_ops.onnx", "Gelu", "elementwise", false},
        {"../ops/contrib_ops.onnx", "BiasAdd", "elementwise", false},
        {"../ops/contrib_ops.onnx", "SkipLayerNormalization", "normalization", false},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        rl_model *m = fixture(want[i].model);
        cJSON *r = m ? analyze(m, unit, "unfused", 0) : NULL;
        const cJSON *l;
        int seen = 0;
        cJSON_ArrayForEach(l, cJSON_GetObjectItem(r, "layers")) {
            if (strcmp(check_str(l, "op"), want[i].layer_op)) continue;
            seen++;
            CHECK(!strcmp(check_str(l, "op_class"), want[i].cls), "%s %s: class %s, want %s", want[i].model,
                  check_str(l, "name"), check_str(l, "op_class"), want[i].cls);
        }
        CHECK(seen > 0, "%s has a %s layer", want[i].model, want[i].layer_op);
        cJSON_Delete(r);
        rl_model_free(m);
    }
    /* conv_net's depthwise convolution (one input channel a group) against
     * its two dense ones and its grouped one (4 channels a group: 4 small
     * products, in the convolution class), and its Gemm (matrix: a GEMM) */
    rl_model *m = fixture("conv_net.onnx");
    cJSON *r = m ? analyze(m, unit, "unfused", 0) : NULL;
    int dense = 0, depthwise = 0;
    const cJSON *l;
    cJSON_ArrayForEach(l, cJSON_GetObjectItem(r, "layers")) if (!strcmp(check_str(l, "op"), "Conv")) {
        dense += !strcmp(check_str(l, "op_class"), "convolution");
        depthwise += !strcmp(check_str(l, "op_class"), "depthwise");
        if (!strcmp(check_str(l, "name"), "gconv"))
            CHECK(!strcmp(check_str(l, "op_class"), "convolution"),
                  "gconv (4 channels a group) is in the convolution class");
        if (!strcmp(check_str(l, "name"), "dwconv"))
            CHECK(!strcmp(check_str(l, "op_class"), "depthwise"), "dwconv (1 channel a group) is depthwise");
    }
    CHECK(dense == 3 && depthwise == 1, "conv_net: %d dense and %d depthwise convolutions, want 3 and 1", dense,
          depthwise);
    cJSON_Delete(r);
    rl_model_free(m);
}

/* --------------------------------------------------------------- clamp -- */
/* With no fixed cost and every fraction 1, a launch-bound model's kernels
 * take less than its launch floor: the forecast is the floor, and says so. */
static void clamp(const cJSON *unit) {
    static const double one[RL_CLASS_COUNT] = {1, 1, 1, 1, 1, 1, 1};
    cJSON *hw = with_forecast(unit, one, one, 0, 0);
    cJSON_ReplaceItemInObject(hw, "launch_overhead_s", fig(1e-3));
    rl_model *m = fixture("mlp.onnx");
    cJSON *r = m ? analyze(m, hw, "fused", 0) : NULL;
    double t = check_num(r, "forecast.time_s"), floor_s = check_num(r, "sol.chosen.time_s");
    CHECK(!strcmp(check_str(r, "sol.chosen.bound"), "overhead"), "mlp on a 1 ms launch: launch-bound");
    CHECK(t == floor_s && cJSON_IsTrue(check_at(r, "forecast.clamped")), "clamped: forecast %g = floor %g", t, floor_s);
    CHECK(check_num(r, "forecast.kernels_s") < floor_s, "the kernels alone (%g) are below the floor %g",
          check_num(r, "forecast.kernels_s"), floor_s);
    CHECK(check_num(r, "forecast.headroom") == 1, "headroom 1 when clamped");
    cJSON_Delete(r);
    rl_model_free(m);
    cJSON_Delete(hw);
}

/* ------------------------------------------------ fixed cost by class -- */
/* A class's own kernel_overhead_s replaces the block's for that class's
 * kernels, and for no other: conv_net unfused, its elementwise kernels made
 * 20 us dearer, takes exactly their count x 20 us longer. */
static cJSON *class_cost_profile(const cJSON *unit, double elementwise_s) {
    static const double some[RL_CLASS_COUNT] = {0.5, 0.1, 0.3, 0.5, 0.5, 0.3, 0.5};
    cJSON *hw = with_forecast(unit, some, some, 1e-5, 0);
    if (elementwise_s >= 0)
        cJSON_AddItemToObject(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(hw, "forecast"), "classes"),
                                                  "elementwise"),
                              "kernel_overhead_s", fig(elementwise_s));
    return hw;
}

static void class_kernel_costs(const cJSON *unit) {
    cJSON *one = class_cost_profile(unit, -1), *own = class_cost_profile(unit, 3e-5);
    rl_model *m = fixture("conv_net.onnx");
    cJSON *a = m ? analyze(m, one, "unfused", 0) : NULL, *b = m ? analyze(m, own, "unfused", 0) : NULL;
    double n = check_num(a, "forecast.by_class.3.kernels");
    CHECK(!strcmp(check_str(a, "forecast.by_class.3.class"), "elementwise") && n >= 1,
          "conv_net has elementwise kernels (%g)", n);
    double grew = check_num(b, "forecast.kernels_s") - check_num(a, "forecast.kernels_s");
    CHECK_NEAR(grew, n * 2e-5, 1e-12, "the elementwise kernels alone pay 20 us more each");
    CHECK(check_num(b, "forecast.by_class.3.kernel_overhead_s") == 3e-5 &&
              check_num(b, "forecast.by_class.0.kernel_overhead_s") == 1e-5,
          "each class reports its own fixed cost");
    CHECK_NEAR(check_num(b, "forecast.by_class.0.time_s"), check_num(a, "forecast.by_class.0.time_s"),
               1e-12 + 1e-9 * check_num(a, "forecast.by_class.0.time_s"), "the matrix kernels cost the same");
    cJSON_Delete(a), cJSON_Delete(b), cJSON_Delete(one), cJSON_Delete(own);
    rl_model_free(m);
}

/* ------------------------------------------------- folded broadcasts -- */
/* A decode step of the Llama-shaped decoder (grouped-query attention: the
 * 8 KV heads repeated for 32 query heads by Expand, then Reshape, then a
 * Transpose for K) at batch 32 and 4096 tokens of context. A stack that
 * folds broadcasts reads each KV head once: the Expands move nothing and
 * the attention products read the cache, not its four copies; one that
 * copies them writes and reads 537 MB a head group and layer. The floor is
 * the same either way; a graph without broadcasts is unchanged. */
static cJSON *decode_step(rl_model *m, const cJSON *hw, const char *broadcast, const char *fusion) {
    cJSON *h = cJSON_Duplicate(hw, true), *f = cJSON_GetObjectItem(h, "forecast");
    if (broadcast) cJSON_AddStringToObject(f, "broadcast", broadcast);
    if (fusion) cJSON_AddStringToObject(f, "fusion", fusion);
    cJSON *req = cJSON_CreateObject();
    cJSON_AddItemToObject(req, "hardware", h);
    cJSON_AddStringToObject(req, "precision", "fp16");
    cJSON_AddItemToObject(req, "dims", cJSON_Parse("{\"batch_size\": 32, \"sequence_length\": 1, "
                                                   "\"past_sequence_length\": 4095, \"total_sequence_length\": 4096}"));
    return check_analyze(m, req);
}

static double op_forecast(const cJSON *r, const char *op) {
    double s = 0;
    const cJSON *l;
    cJSON_ArrayForEach(l, cJSON_GetObjectItem(r, "layers")) if (!strcmp(check_str(l, "op"), op)) s += check_num(l, "forecast_s");
    return s;
}

static void folded_broadcasts(void) {
    cJSON *h100 = check_read_hw(tests_dir, root_dir, "h100-sxm");
    rl_model *m = fixture("torch/llama_1b_kv.onnx");
    cJSON *fold = m ? decode_step(m, h100, NULL, NULL) : NULL, *copy = m ? decode_step(m, h100, "copied", NULL) : NULL;
    cJSON *none = m ? decode_step(m, h100, NULL, "none") : NULL;
    double tf = check_num(fold, "forecast.time_s"), tc = check_num(copy, "forecast.time_s");
    CHECK(tf < 0.5 * tc, "folded %g s: less than half of copied %g s", tf, tc);
    CHECK(op_forecast(fold, "Expand") < 0.01 * op_forecast(copy, "Expand"),
          "folded Expands take only their fixed cost (%g s against %g s copied)", op_forecast(fold, "Expand"),
          op_forecast(copy, "Expand"));
    CHECK(op_forecast(fold, "MatMul") < op_forecast(copy, "MatMul"), "the products read the cache once");
    CHECK(check_num(fold, "forecast.floor_s") == check_num(copy, "forecast.floor_s") &&
              check_num(none, "forecast.floor_s") == check_num(fold, "forecast.floor_s"),
          "the floor does not depend on the stack");
    CHECK(tf >= check_num(fold, "forecast.floor_s"), "folded: never below the floor");
    CHECK(op_forecast(none, "Expand") > 0.5 * op_forecast(copy, "Expand"), "a stack that runs every node copies");
    cJSON_Delete(fold), cJSON_Delete(copy), cJSON_Delete(none);
    rl_model_free(m);
    /* no broadcast feeds a product here: folded and copied alike */
    m = fixture("transformer_block.onnx");
    cJSON *hw = cJSON_Duplicate(h100, true);
    cJSON *a = m ? analyze(m, hw, "fused", 8) : NULL;
    cJSON_AddStringToObject(cJSON_GetObjectItem(hw, "forecast"), "broadcast", "copied");
    cJSON *b = m ? analyze(m, hw, "fused", 8) : NULL;
    CHECK(check_num(a, "forecast.time_s") == check_num(b, "forecast.time_s"), "transformer_block: no broadcast, no change");
    cJSON_Delete(a), cJSON_Delete(b), cJSON_Delete(hw), cJSON_Delete(h100);
    rl_model_free(m);
}

/* ---------------------------------------------------------- validation -- */
/* The band (forecast_band.h): checked when the profile is read, and its
 * arithmetic by hand: low = max(floor, forecast x low), high = forecast x
 * high; none without a track record or a forecast. */
#define GOOD_BAND "\"low\": 0.8, \"high\": 1.3, \"runs\": 9, \"median_error\": 0.1, \"worst_error\": 0.4, " \
                  "\"basis\": \"published results\", \"source\": \"docs/validation.md#x\""
static void band(const cJSON *unit) {
    static const struct {
        const char *band, *where;
    } bad[] = {
        {"[]", "forecast.band"},
        {"{\"low\": 1.2, \"high\": 1.3, \"runs\": 9, \"median_error\": 0.1, \"worst_error\": 0.4, \"basis\": "
         "\"published results\", \"source\": \"docs/v.md\"}", "forecast.band.low"},
        {"{\"low\": 0, \"high\": 1.3, \"runs\": 9, \"median_error\": 0.1, \"worst_error\": 1, \"basis\": "
         "\"published results\", \"source\": \"docs/v.md\"}", "forecast.band.low"},
        {"{\"low\": 0.8, \"high\": 0.9, \"runs\": 9, \"median_error\": 0.1, \"worst_error\": 0.4, \"basis\": "
         "\"published results\", \"source\": \"docs/v.md\"}", "forecast.band.high"},
        {"{\"low\": 0.8, \"high\": 1.3, \"runs\": 2, \"median_error\": 0.1, \"worst_error\": 0.4, \"basis\": "
         "\"published results\", \"source\": \"docs/v.md\"}", "forecast.band.runs"},
        {"{\"low\": 0.8, \"high\": 1.3, \"runs\": 9.5, \"median_error\": 0.1, \"worst_error\": 0.4, \"basis\": "
         "\"published results\", \"source\": \"docs/v.md\"}", "forecast.band.runs"},
        {"{\"low\": 0.8, \"high\": 1.3, \"runs\": 9, \"median_error\": 0.5, \"worst_error\": 0.4, \"basis\": "
         "\"published results\", \"source\": \"docs/v.md\"}", "forecast.band.median_error"},
        {"{\"low\": 0.5, \"high\": 1.3, \"runs\": 9, \"median_error\": 0.1, \"worst_error\": 0.4, \"basis\": "
         "\"published results\", \"source\": \"docs/v.md\"}", "forecast.band"},
        {"{\"low\": 0.8, \"high\": 1.3, \"runs\": 9, \"median_error\": 0.1, \"worst_error\": 0.4, \"basis\": "
         "\"a hunch\", \"source\": \"docs/v.md\"}", "forecast.band.basis"},
        {"{\"low\": 0.8, \"high\": 1.3, \"runs\": 9, \"median_error\": 0.1, \"worst_error\": 0.4, \"basis\": "
         "\"published results\"}", "forecast.band.source"},
        {"{\"low\": 0.8, \"high\": 1.3, \"runs\": 9, \"median_error\": 0.1, \"basis\": "
         "\"published results\", \"source\": \"docs/v.md\"}", "forecast.band.worst_error"},
        {"{" GOOD_BAND ", \"spread\": 2}", "forecast.band.spread"},
        {"{" GOOD_BAND ", \"models\": 10}", "forecast.band.models"},
        {"{" GOOD_BAND ", \"models\": 2.5}", "forecast.band.models"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad + 1; i++) {
        const bool good = i == sizeof bad / sizeof *bad;
        cJSON *hw = cJSON_Duplicate(unit, true);
        cJSON *fc = cJSON_CreateObject();
        cJSON_AddItemToObject(fc, "band", cJSON_Parse(good ? "{" GOOD_BAND "}" : bad[i].band));
        cJSON_AddItemToObject(hw, "forecast", fc);
        char *text = cJSON_PrintUnformatted(hw);
        char *out = rl_check_hardware(text);
        cJSON *r = cJSON_Parse(out);
        char where[96];
        snprintf(where, sizeof where, "hardware 'unit' %s", good ? "" : bad[i].where);
        if (good) CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r, "ok")), "a sound band is accepted: %s", out);
        else
            CHECK(!cJSON_IsTrue(cJSON_GetObjectItem(r, "ok")) && !strcmp(check_str(r, "error.where"), where),
                  "%s: refused at %s (got %s)", bad[i].band, bad[i].where, out);
        cJSON_Delete(r);
        rl_free(out);
        free(text);
        cJSON_Delete(hw);
    }
    rl_hw hw = {0};
    hw.fc.band = (rl_forecast_band_params){true, 0.8, 1.3, 9, 0.1, 0.4, RL_BAND_PUBLISHED, "docs/v.md"};
    rl_band b = rl_forecast_band(&hw, 1.0, 0.5);
    CHECK(b.known && b.low_s == 0.8 && b.high_s == 1.3, "the band of 1 s: %g to %g", b.low_s, b.high_s);
    b = rl_forecast_band(&hw, 1.0, 0.9);
    CHECK(b.known && b.low_s == 0.9 && b.high_s == 1.3, "the floor holds the low end up: %g", b.low_s);
    b = rl_forecast_band(&hw, 1.0, NAN);
    CHECK(b.known && b.low_s == 0.8, "no floor: the ratio alone: %g", b.low_s);
    b = rl_forecast_band(&hw, 0, 0);
    CHECK(b.known && b.low_s == 0 && b.high_s == 0, "no work: the band is [0, 0]");
    b = rl_forecast_band(&hw, NAN, 0.5);
    CHECK(!b.known && isnan(b.low_s) && isnan(b.high_s), "no forecast, no band");
    hw.fc.band.known = false;
    b = rl_forecast_band(&hw, 1.0, 0.5);
    CHECK(!b.known && isnan(b.low_s) && isnan(b.high_s), "no track record, no band: never an invented one");
    char buf[160];
    CHECK(!strcmp(rl_forecast_track_record(&hw, buf, sizeof buf), "no track record for this stack"), "%s", buf);
    hw.fc.band.known = true;
    CHECK(!strcmp(rl_forecast_track_record(&hw, buf, sizeof buf),
                  "checked against 9 published runs, median error 10 %, worst 40 %"), "%s", buf);
}

static void validation(const cJSON *unit) {
    static const struct {
        const char *patch, *where;
    } bad[] = {
        {"{\"classes\": {\"matrix\": {\"compute_fraction\": 1.5}}}", "forecast.classes.matrix.compute_fraction"},
        {"{\"classes\": {\"matrix\": {\"memory_fraction\": 0}}}", "forecast.classes.matrix.memory_fraction"},
        {"{\"classes\": {\"softmax\": {}}}", "forecast.classes.softmax"},
        {"{\"classes\": {\"matrix\": {\"speed\": 1}}}", "forecast.classes.matrix.speed"},
        {"{\"basis\": \"guessed\"}", "forecast.basis"},
        {"{\"stack\": 3}", "forecast.stack"},
        {"{\"cache_level\": \"L9\"}", "forecast.cache_level"},
        {"{\"cache_level\": \"DRAM\"}", "forecast.cache_level"},
        {"{\"tile_m\": 0}", "forecast.tile_m"},
        {"{\"kernel_overhead_s\": -1}", "forecast.kernel_overhead_s"},
        {"{\"classes\": {\"elementwise\": {\"kernel_overhead_s\": 1}}}", "forecast.classes.elementwise.kernel_overhead_s"},
        {"{\"launch\": 1}", "forecast.launch"},
        {"{\"fusion\": \"some\"}", "forecast.fusion"},
        {"{\"epilogue_apart\": \"MatMul\"}", "forecast.epilogue_apart"},
        {"{\"epilogue_apart\": [3]}", "forecast.epilogue_apart"},
        {"{\"epilogue_branches\": \"sometimes\"}", "forecast.epilogue_branches"},
        {"{\"epilogue_branches\": true}", "forecast.epilogue_branches"},
        {"{\"group_overhead_s\": 1}", "forecast.group_overhead_s"},
        {"{\"grouped_conv\": \"sometimes\"}", "forecast.grouped_conv"},
        {"{\"grouped_conv\": 1}", "forecast.grouped_conv"},
        {"{\"shape_ops\": \"some\"}", "forecast.shape_ops"},
        {"{\"shape_ops\": true}", "forecast.shape_ops"},
        {"{\"broadcast\": \"sometimes\"}", "forecast.broadcast"},
        {"{\"pooling\": \"together\"}", "forecast.pooling"},
        {"{\"tile_overhead_k\": -1}", "forecast.tile_overhead_k"},
        {"{\"between_kernels_growth\": 1.5}", "forecast.between_kernels_growth"},
        {"{\"between_kernels_growth\": -0.01}", "forecast.between_kernels_growth"},
        {"{\"classes\": {\"matrix\": {\"fitted_ops\": \"MatMul\"}}}", "forecast.classes.matrix.fitted_ops"},
        {"{\"classes\": {\"matrix\": {\"fitted_ops\": [\"MatMul\", 3]}}}", "forecast.classes.matrix.fitted_ops"},
        {"{\"classes\": {\"matrix\": {\"fitted_ops\": [\"\"]}}}", "forecast.classes.matrix.fitted_ops"},
    };
    /* a list longer than any fit writes */
    cJSON *many = cJSON_CreateArray();
    for (int i = 0; i <= RL_FC_MAX_FITTED_OPS; i++) cJSON_AddItemToArray(many, cJSON_CreateString("Add"));
    cJSON *long_list = cJSON_CreateObject();
    cJSON_AddItemToObject(cJSON_AddObjectToObject(cJSON_AddObjectToObject(long_list, "classes"), "elementwise"),
                          "fitted_ops", many);
    char *long_patch = cJSON_PrintUnformatted(long_list);
    cJSON_Delete(long_list);
    for (size_t i = 0; i <= sizeof bad / sizeof *bad; i++) {
        const char *patch = i < sizeof bad / sizeof *bad ? bad[i].patch : long_patch;
        const char *where = i < sizeof bad / sizeof *bad ? bad[i].where : "forecast.classes.elementwise.fitted_ops";
        if (!patch) continue;
        cJSON *hw = cJSON_Duplicate(unit, true);
        cJSON_AddItemToObject(hw, "forecast", cJSON_Parse(patch));
        char *text = cJSON_PrintUnformatted(hw);
        char *out = rl_check_hardware(text);
        cJSON *r = cJSON_Parse(out);
        CHECK(!cJSON_IsTrue(cJSON_GetObjectItem(r, "ok")) && strstr(check_str(r, "error.where"), where),
              "%.120s: refused at %s (got %s)", patch, where, out);
        cJSON_Delete(r);
        rl_free(out);
        free(text);
        cJSON_Delete(hw);
    }
    free(long_patch);
}

/* ---------------------------------------------------- the stack's plan -- */
/* A stack's kernels: "epilogue_apart" runs a MatMul's epilogue as a kernel
 * of its own after it (more kernels, its tensor through memory: longer);
 * naming an operator the model lacks changes nothing; "fusion": "none" runs
 * every node on its own, as the unfused model's kernels. */
static double kernels_of(const cJSON *r) {
    double k = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, check_at(r, "forecast.by_class")) k += check_num(c, "kernels");
    return k;
}

static void stack_plan(const cJSON *unit) {
    rl_model *m = fixture("transformer_block.onnx");
    const char *patches[] = {"{}", "{\"epilogue_apart\": [\"MatMul\"]}", "{\"epilogue_apart\": [\"Conv\"]}",
                             "{\"fusion\": \"none\"}"};
    cJSON *r[4];
    for (int i = 0; i < 4; i++) {
        cJSON *hw = cJSON_Duplicate(unit, true);
        cJSON_AddItemToObject(hw, "forecast", cJSON_Parse(patches[i]));
        r[i] = m ? analyze(m, hw, "fused", 1) : NULL;
        cJSON_Delete(hw);
    }
    cJSON *unf = m ? analyze(m, unit, "unfused", 1) : NULL;
    CHECK(kernels_of(r[1]) > kernels_of(r[0]) && check_num(r[1], "forecast.kernels_s") > check_num(r[0], "forecast.kernels_s"),
          "MatMul epilogues apart: more kernels (%g > %g), longer", kernels_of(r[1]), kernels_of(r[0]));
    CHECK(check_num(r[1], "forecast.time_s") >= check_num(r[1], "forecast.floor_s"), "apart: never below the floor");
    CHECK(check_num(r[2], "forecast.kernels_s") == check_num(r[0], "forecast.kernels_s"),
          "an operator the model lacks changes nothing");
    CHECK(kernels_of(r[3]) == kernels_of(unf) && check_num(r[3], "forecast.kernels_s") == check_num(unf, "forecast.kernels_s"),
          "fusion none: the unfused model's kernels (%g, %g)", kernels_of(r[3]), kernels_of(unf));
    CHECK(check_num(r[3], "forecast.floor_s") == check_num(r[0], "forecast.floor_s"), "fusion none keeps the floor");
    for (int i = 0; i < 4; i++) cJSON_Delete(r[i]);
    cJSON_Delete(unf);
    rl_model_free(m);
}

/* conv_net's max pooling and its global average pooling each join the
 * kernel before them in the fused model of §4; a stack runs each as a
 * kernel of its own ("pooling": "apart", the default: its input leaves
 * the chip and is read back), or inside that kernel ("fused": the fused
 * model's kernels). The floor is the fused model's either way. */
static void pooling_plan(const cJSON *unit) {
    rl_model *m = fixture("conv_net.onnx");
    cJSON *r[2];
    for (int i = 0; i < 2; i++) {
        cJSON *hw = cJSON_Duplicate(unit, true);
        cJSON_AddItemToObject(hw, "forecast", cJSON_Parse(i ? "{\"pooling\": \"fused\"}" : "{}"));
        r[i] = m ? analyze(m, hw, "fused", 1) : NULL;
        cJSON_Delete(hw);
    }
    CHECK(kernels_of(r[1]) == check_num(r[1], "sol.fused.kernels"), "pooling fused: the fused model's kernels (%g, %g)",
          kernels_of(r[1]), check_num(r[1], "sol.fused.kernels"));
    CHECK(kernels_of(r[0]) == kernels_of(r[1]) + 2, "pooling apart: two kernels more (%g, %g)", kernels_of(r[0]),
          kernels_of(r[1]));
    CHECK(check_num(r[0], "forecast.kernels_s") > check_num(r[1], "forecast.kernels_s") &&
              check_num(r[0], "forecast.dram_bytes") + check_num(r[0], "forecast.cache_bytes") >
                  check_num(r[1], "forecast.dram_bytes") + check_num(r[1], "forecast.cache_bytes"),
          "pooling apart: longer, and more traffic");
    CHECK(check_num(r[0], "forecast.floor_s") == check_num(r[1], "forecast.floor_s"), "pooling keeps the floor");
    /* apart, the max pooling's share of the forecast is a kernel of its
     * own (its traffic and its fixed cost); fused, a part of conv1's */
    double pool_s[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        const cJSON *l, *layers = r[i] ? cJSON_GetObjectItem(r[i], "layers") : NULL;
        cJSON_ArrayForEach(l, layers)
            if (!strcmp(check_str(l, "name"), "pool1")) pool_s[i] = check_num(l, "forecast_s");
    }
    CHECK(pool_s[0] > pool_s[1] && pool_s[0] >= check_num(r[0], "forecast.by_class.2.kernel_overhead_s"),
          "pool1 runs as a kernel of its own: %g s apart, %g s fused", pool_s[0], pool_s[1]);
    for (int i = 0; i < 2; i++) cJSON_Delete(r[i]);
    rl_model_free(m);
}

/* "epilogue_branches": "apart" runs an epilogue that branches as a kernel
 * of its own: yolo_head's SiLU (Sigmoid and Mul, both reading the Conv's
 * output) after its Conv, one kernel more, as epilogue_apart ["Conv"]
 * does there; conv_net's epilogues (Conv, then ReLU) are chains, and stay
 * inside their kernels. */
static void branching_plan(const cJSON *unit) {
    const char *models[] = {"yolo_head.onnx", "conv_net.onnx"};
    const char *patches[] = {"{}", "{\"epilogue_branches\": \"apart\"}", "{\"epilogue_apart\": [\"Conv\"]}"};
    double kernels[2][3], kernels_s[2][3];
    for (int k = 0; k < 2; k++) {
        rl_model *m = fixture(models[k]);
        for (int i = 0; i < 3; i++) {
            cJSON *hw = cJSON_Duplicate(unit, true);
            cJSON_AddItemToObject(hw, "forecast", cJSON_Parse(patches[i]));
            cJSON *r = m ? analyze(m, hw, "fused", 1) : NULL;
            kernels[k][i] = kernels_of(r), kernels_s[k][i] = check_num(r, "forecast.kernels_s");
            cJSON_Delete(hw), cJSON_Delete(r);
        }
        rl_model_free(m);
    }
    CHECK(kernels[0][1] == kernels[0][0] + 1 && kernels_s[0][1] > kernels_s[0][0] && kernels[0][2] == kernels[0][1],
          "yolo_head's SiLU apart: one kernel more (%g, %g; Conv apart %g)", kernels[0][0], kernels[0][1], kernels[0][2]);
    CHECK(kernels[1][1] == kernels[1][0] && kernels_s[1][1] == kernels_s[1][0] && kernels[1][2] > kernels[1][0],
          "conv_net's chains stay inside (%g, %g), unlike Conv apart (%g)", kernels[1][0], kernels[1][1], kernels[1][2]);
}

/* ONNX Runtime with its optimisations on ran the small MLP's erf GELU
 * (an epilogue that branches: it reads its input twice) as a kernel of its
 * own after the MatMul, and the MatMuls' chains (a bias Add, a scale)
 * inside them, as Gemm and FusedMatMul kernels (test_measured): the fit
 * finds a stack that fuses (fewer kernels than nodes), runs the epilogues
 * that branch apart, and fuses the MatMuls' others. */
static void fit_finds_epilogues_apart(const cJSON *unit) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/measured/small_mlp.onnx", tests_dir);
    rl_model *m = check_read_model(path);
    snprintf(path, sizeof path, "%s/fixtures/measured/ort_small_mlp_all.json", tests_dir);
    char *text = check_read_file(path, NULL), *hw = cJSON_PrintUnformatted(unit);
    rl_fit_input in = {m, "small_mlp", text, "ort", NULL};
    char *out = m && text ? rl_fit_forecast(hw, &in, 1, NULL) : NULL;
    cJSON *res = cJSON_Parse(out ? out : "");
    const cJSON *apart = check_at(res, "profile.forecast.epilogue_apart");
    bool matmul = false;
    const cJSON *it;
    cJSON_ArrayForEach(it, apart) matmul |= cJSON_IsString(it) && !strcmp(it->valuestring, "MatMul");
    CHECK(!strcmp(check_str(res, "profile.forecast.fusion"), "epilogue") && !matmul &&
              !strcmp(check_str(res, "profile.forecast.epilogue_branches"), "apart"),
          "the fit finds the branching epilogues apart, the MatMuls' chains inside, in a fusing stack: %.300s",
          out ? out : "");
    rl_free(out), free(text), free(hw);
    cJSON_Delete(res);
    rl_model_free(m);
}

/* The fit's shape_ops: a runtime that ran the transformer block's views and
 * shape arithmetic (every node, Constants aside, in the measured CSV, all of
 * them of the block's input) runs what depends on the inputs ("dynamic");
 * one that ran only the plan's kernels folds them. */
static const char *fitted_shape_ops(const cJSON *unit, rl_model *m, bool all_nodes, char *buf, size_t cap) {
    cJSON *r = analyze(m, unit, "unfused", 1);
    size_t len = (size_t)snprintf(buf, cap, "name,time_s\n");
    const cJSON *l;
    cJSON_ArrayForEach(l, cJSON_GetObjectItem(r, "layers")) {
        bool kernel = cJSON_IsTrue(cJSON_GetObjectItem(l, "kernel"));
        if (!strcmp(check_str(l, "op"), "Constant") || (!kernel && !all_nodes) || len + 300 > cap) continue;
        len += (size_t)snprintf(buf + len, cap - len, "%s,%g\n", check_str(l, "name"), kernel ? 1e-4 : 5e-6);
    }
    cJSON_Delete(r);
    char *hw = cJSON_PrintUnformatted(unit);
    rl_fit_input in = {m, "transformer_block", buf, "csv", NULL};
    char *out = rl_fit_forecast(hw, &in, 1, NULL);
    cJSON *res = cJSON_Parse(out ? out : "");
    snprintf(buf, cap, "%s", cJSON_IsString(check_at(res, "profile.forecast.shape_ops")) ?
             check_str(res, "profile.forecast.shape_ops") : "(none)");
    cJSON_Delete(res), rl_free(out), free(hw);
    return buf;
}

/* The fit of a profile of BERT-base in which the kernels ran and, of the
 * views and shape arithmetic, those that shape_ops `mode` runs. */
static cJSON *fit_bert_shape_ops(const cJSON *unit, rl_model *m, const char *mode) {
    static char buf[1 << 17];
    cJSON *r = bert_shape_ops(unit, m, mode);
    size_t len = (size_t)snprintf(buf, sizeof buf, "name,time_s\n");
    const cJSON *l;
    cJSON_ArrayForEach(l, cJSON_GetObjectItem(r, "layers")) {
        bool kernel = cJSON_IsTrue(cJSON_GetObjectItem(l, "kernel"));
        if ((kernel || check_num(l, "forecast_s") > 0.9e-3) && len + 300 < sizeof buf)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s,%g\n", check_str(l, "name"), kernel ? 1e-4 : 5e-6);
    }
    cJSON_Delete(r);
    char *hw = cJSON_PrintUnformatted(unit);
    rl_fit_input in = {m, "bert_base", buf, "csv", "{\"dims\": {\"sequence\": 128}}"};
    char *out = m ? rl_fit_forecast(hw, &in, 1, NULL) : NULL;
    cJSON *res = cJSON_Parse(out ? out : "");
    rl_free(out), free(hw);
    return res;
}

/* One of each identical computation that depends on the input ran: the
 * fit finds "distinct", not "dynamic" (which would run the 46 Concats alike
 * too) nor "folded". A stack that ran every view and shape computation,
 * even those of constants alone ("run"), folds nothing: it runs the graph
 * as written, and no convolution in a blocked layout (which a graph
 * transformation makes), so with no convolution among the runs the fit
 * says the stack lowers them by im2col, and that the graph told it. */
static void fit_finds_distinct(const cJSON *unit) {
    rl_model *m = fixture("torch/bert_base.onnx");
    cJSON *res = fit_bert_shape_ops(unit, m, "distinct");
    const cJSON *so = check_at(res, "profile.forecast.shape_ops");
    CHECK(cJSON_IsString(so) && !strcmp(so->valuestring, "distinct"), "one of each alike ran: shape_ops %s",
          cJSON_IsString(so) ? so->valuestring : "(none)");
    CHECK(!check_at(res, "profile.forecast.conv_lowering") && !check_at(res, "fit.conv_lowering_from"),
          "a stack that folds: the convolutions' lowering is not told");
    cJSON_Delete(res);
    res = fit_bert_shape_ops(unit, m, "run");
    so = check_at(res, "profile.forecast.shape_ops");
    const cJSON *low = check_at(res, "profile.forecast.conv_lowering"), *from = check_at(res, "fit.conv_lowering_from");
    CHECK(cJSON_IsString(so) && !strcmp(so->valuestring, "run"), "every node ran: shape_ops %s",
          cJSON_IsString(so) ? so->valuestring : "(none)");
    CHECK(cJSON_IsString(low) && !strcmp(low->valuestring, "im2col") && cJSON_IsString(from) &&
              strstr(from->valuestring, "folds nothing"),
          "a stack that folds nothing lowers convolutions by im2col (%s, told by %s)",
          cJSON_IsString(low) ? low->valuestring : "(none)", cJSON_IsString(from) ? from->valuestring : "(none)");
    cJSON_Delete(res);
    rl_model_free(m);
}

static void fit_finds_shape_ops(const cJSON *unit) {
    fit_finds_distinct(unit);
    static char buf[1 << 16];
    rl_model *m = fixture("transformer_block.onnx");
    if (!m) return;
    /* every such node of the block depends on its input: "dynamic" runs them all */
    CHECK(!strcmp(fitted_shape_ops(unit, m, true, buf, sizeof buf), "dynamic"), "all nodes measured: shape_ops %s", buf);
    CHECK(!strcmp(fitted_shape_ops(unit, m, false, buf, sizeof buf), "folded"), "kernels measured: shape_ops %s", buf);
    rl_model_free(m);
}

/* ----------------------------------------------------------------- fit -- */
/* the GEMMs (matrix) and the convolutions run at different shares of the
 * peak, as ONNX Runtime's packed SGEMM and its direct NCHWc convolutions */
static const double TRUE_COMPUTE[RL_CLASS_COUNT] = {0.2, 0.08, 0.35, 0.45, 0.5, 0.25, 0.6};
static const double TRUE_MEMORY[RL_CLASS_COUNT] = {0.7, 0.5, 0.65, 0.85, 0.6, 0.4, 0.55};
#define TRUE_KERNEL_S 2e-5
#define TRUE_GROUP_S 8e-7
#define TRUE_TILE_K0 16 /* an output tile's fixed work, in steps of K */
/* the parameters: compute fractions, memory fractions, kernel_s, group_s, tile_overhead_k */
#define P_KERNEL (2 * RL_CLASS_COUNT)
#define P_GROUP (2 * RL_CLASS_COUNT + 1)
#define P_TILE_K0 (2 * RL_CLASS_COUNT + 2)
#define N_PARAMS (2 * RL_CLASS_COUNT + 3)
#define MAX_KERNELS 4096

static const struct {
    const char *model;
    int batch;
} runs[] = {{"conv_net.onnx", 1},         {"conv_net.onnx", 32}, {"transformer_block.onnx", 1},
            {"transformer_block.onnx", 256}, {"yolo_head.onnx", 1}, {"yolo_head.onnx", 8}};
#define N_RUNS (sizeof runs / sizeof *runs)

/* Parameter j of (compute, memory, kernel_s, group_s, tile_overhead_k), scaled by f. */
static cJSON *truth_scaled(const cJSON *unit, int j, double f) {
    double c[RL_CLASS_COUNT], m[RL_CLASS_COUNT], k = TRUE_KERNEL_S, g = TRUE_GROUP_S, k0 = TRUE_TILE_K0;
    memcpy(c, TRUE_COMPUTE, sizeof c), memcpy(m, TRUE_MEMORY, sizeof m);
    if (j >= 0 && j < RL_CLASS_COUNT) c[j] *= f;
    else if (j >= RL_CLASS_COUNT && j < 2 * RL_CLASS_COUNT) m[j - RL_CLASS_COUNT] *= f;
    else if (j == P_KERNEL) k *= f;
    else if (j == P_GROUP) g *= f;
    else if (j == P_TILE_K0) k0 *= f;
    cJSON *hw = with_forecast(unit, c, m, k, g);
    cJSON_AddItemToObject(cJSON_GetObjectItem(hw, "forecast"), "tile_overhead_k", fig(k0));
    /* the synthetic runtime fuses nothing and optimises nothing: it runs
     * the graph as written, its shape arithmetic too (a runtime that folds
     * constants optimises its graph, and the fit takes it to fuse) */
    cJSON_AddStringToObject(cJSON_GetObjectItem(hw, "forecast"), "shape_ops", "run");
    return hw;
}

/* What a runtime that runs each node as a kernel of its own would measure
 * on a device that follows hw's forecast exactly: each node's forecast
 * (the unfused model, unclamped; the views and shape arithmetic that hw's
 * shape_ops runs too), as name,time_s. Appends the times to t. */
static char *synthetic_profile(rl_model *m, const cJSON *hw, int batch, double *t, int *n) {
    cJSON *r = analyze(m, hw, "unfused", batch);
    CHECK(!cJSON_IsTrue(check_at(r, "forecast.clamped")), "a synthetic run is not clamped");
    size_t cap = 1 << 16, len = 0;
    char *csv = malloc(cap);
    len += (size_t)snprintf(csv, cap, "name,time_s\n");
    const cJSON *l;
    cJSON_ArrayForEach(l, cJSON_GetObjectItem(r, "layers")) {
        double f = check_num(l, "forecast_s");
        if (!(f > 0) || len + 600 > cap) continue;
        len += (size_t)snprintf(csv + len, cap - len, "%s,%.17g\n", check_str(l, "name"), f);
        if (*n < MAX_KERNELS) t[(*n)++] = f;
    }
    cJSON_Delete(r);
    return csv;
}

/* Every run's kernel times under hw (the synthetic measurement). */
static int all_times(rl_model **models, const cJSON *hw, double *t, char **csv) {
    int n = 0;
    for (size_t r = 0; r < N_RUNS; r++) {
        char *text = synthetic_profile(models[r], hw, runs[r].batch, t, &n);
        if (csv) csv[r] = text;
        else free(text);
    }
    return n;
}

/* Whether scaling parameter j by f changes some kernel's time by more than 5 %. */
static bool moves_a_kernel(rl_model **models, const cJSON *unit, const double *truth, int n, int j, double f) {
    static double t[MAX_KERNELS];
    cJSON *hw = truth_scaled(unit, j, f);
    int k = all_times(models, hw, t, NULL);
    bool moved = false;
    for (int i = 0; i < k && i < n; i++) moved |= fabs(t[i] / truth[i] - 1) > 0.05;
    cJSON_Delete(hw);
    return moved;
}

/* The parameters that set some kernel's time: scaled down by 0.8 or up by
 * 1.15, some kernel of the synthetic runs changes by more than 5 % either
 * way. (A parameter that moves kernels one way only, e.g. the compute
 * fraction of a class whose kernels turn memory-bound when it grows, is
 * pinned by the data only from one side: the fit reproduces the kernels,
 * but its value is a bound, not a recovery.) */
static void binding_params(rl_model **models, const cJSON *unit, const double *truth, int n, bool *binding) {
    for (int j = 0; j < N_PARAMS; j++)
        binding[j] = moves_a_kernel(models, unit, truth, n, j, 0.8) && moves_a_kernel(models, unit, truth, n, j, 1.15);
}

static char *run_fit(const cJSON *start, rl_model **models, char **csv, double *seconds) {
    rl_fit_input in[N_RUNS];
    char req[N_RUNS][64];
    for (size_t r = 0; r < N_RUNS; r++) {
        snprintf(req[r], sizeof req[r], "{\"batch\": %d}", runs[r].batch);
        in[r] = (rl_fit_input){models[r], runs[r].model, csv[r], "csv", req[r]};
    }
    char *text = cJSON_PrintUnformatted(start);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    char *out = rl_fit_forecast(text, in, N_RUNS, "synthetic");
    clock_gettime(CLOCK_MONOTONIC, &b);
    *seconds = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    free(text);
    return out;
}

/* The fitted profile's value of parameter j. */
static double fitted_param(const cJSON *res, int j) {
    char path[160];
    if (j == P_KERNEL) return check_num(res, "profile.forecast.kernel_overhead_s.value");
    if (j == P_GROUP) return check_num(res, "profile.forecast.group_overhead_s.value");
    if (j == P_TILE_K0) return check_num(res, "profile.forecast.tile_overhead_k.value");
    snprintf(path, sizeof path, "profile.forecast.classes.%s.%s.value", rl_value_id(RL_LIST_OP_CLASS, j % RL_CLASS_COUNT),
             j < RL_CLASS_COUNT ? "compute_fraction" : "memory_fraction");
    return check_num(res, path);
}

static double true_param(int j) {
    return j == P_KERNEL ? TRUE_KERNEL_S : j == P_GROUP ? TRUE_GROUP_S : j == P_TILE_K0 ? TRUE_TILE_K0
           : j < RL_CLASS_COUNT ? TRUE_COMPUTE[j] : TRUE_MEMORY[j - RL_CLASS_COUNT];
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Six runs: each forecast by a fit of the other five (fit.held_out), and
 * by the fit of every pair of the others (fit.held_out_pairs: 15 pairs,
 * each forecasting the 4 runs it left out); a fit of so few models
 * (fewer than 8) takes its band, basis "fit cross-validation", from the
 * pairs' ratios. The synthetic runs follow one set of parameters that each
 * five-run fit recovers as far as its runs pin them (small errors, not
 * all nil); a pair pins less, and errs more. */
static void band_of_six_runs(const cJSON *res) {
    const cJSON *held = check_at(res, "fit.held_out"), *pairs = check_at(res, "fit.held_out_pairs"), *row;
    const cJSON *band = check_at(res, "profile.forecast.band");
    CHECK(cJSON_GetArraySize(held) == 6 && cJSON_GetArraySize(pairs) == 60 && band,
          "six held-out runs, 60 forecasts of pairs' fits (%d), and a band", cJSON_GetArraySize(pairs));
    cJSON_ArrayForEach(row, held) {
        double m = check_num(row, "measured_s"), f = check_num(row, "forecast_s");
        CHECK(m > 0 && f > 0 && fabs(check_num(row, "error") - (m / f - 1)) < 1e-9, "held-out row %s: measured %g, "
              "forecast %g, error measured / forecast - 1", check_str(row, "name"), m, f);
    }
    double worst = 0, size[60];
    int k = 0, apart = 0;
    /* in the order of the pair (a < b), then of the run forecast, neither */
    int a = 0, b = 1, r = -1;
    cJSON_ArrayForEach(row, pairs) {
        do {
            if (++r == (int)N_RUNS) r = 0, ++b == (int)N_RUNS ? (b = ++a + 1) : 0;
        } while (r == a || r == b);
        double m = check_num(row, "measured_s"), f = check_num(row, "forecast_s");
        apart += a < (int)N_RUNS && b < (int)N_RUNS && !strcmp(check_str(row, "name"), runs[r].model) &&
                 !strcmp(check_str(row, "fit_on.0"), runs[a].model) && !strcmp(check_str(row, "fit_on.1"), runs[b].model);
        if (!(m > 0 && f > 0) || k >= 60) continue;
        worst = fmax(worst, fabs(m / f - 1));
        size[k++] = fabs(log(m / f));
    }
    /* the 90th percentile of |log(measured / forecast)|, linear between the
     * sorted values, as far below 1 as above (rounded out to 2 decimals) */
    qsort(size, (size_t)k, sizeof *size, cmp_double);
    double at = 0.9 * (k - 1), q = k > 0 ? size[(int)at] + (at - (int)at) * (size[(int)at + 1 < k ? (int)at + 1 : k - 1] - size[(int)at]) : NAN;
    double low = check_num(band, "low"), high = check_num(band, "high");
    CHECK(apart == 60 && k == 60, "every pair's row forecasts a run neither of its two fit runs (%d of 60), %d with figures", apart, k);
    CHECK(!strcmp(check_str(band, "basis"), "fit cross-validation") && check_num(band, "runs") == 60 &&
              check_num(band, "models") == 6 && low <= 1 &&
              high >= 1 && fabs(log(low) + log(high)) < 0.03 && check_num(band, "worst_error") >= worst - 1e-3 &&
              log(high) >= q - 1e-9 && log(high) <= q + 0.01 && -log(low) >= q - 1e-9 &&
              strstr(check_str(band, "source"), "fit.held_out_pairs"),
          "the band: %g to %g over %g runs, worst %g (pairs: 90th percentile of |log| %g, worst %g)", low, high,
          check_num(band, "runs"), check_num(band, "worst_error"), q, worst);
}

static void check_fitted_profile(const cJSON *res, const cJSON *unit, rl_model *held_out) {
    char *text = cJSON_PrintUnformatted(cJSON_GetObjectItem(res, "profile"));
    char *chk = rl_check_hardware(text);
    CHECK(strstr(chk, "\"ok\":true") != NULL, "the fitted profile passes rl_check_hardware: %s", chk);
    rl_free(chk);
    free(text);
    CHECK(!strcmp(check_str(res, "profile.forecast.basis"), "calibrated") &&
          !strcmp(check_str(res, "profile.forecast.stack"), "synthetic") &&
          !strcmp(check_str(res, "profile.forecast.classes.matrix.compute_fraction.kind"), "measured"),
          "the fitted profile is calibrated, names its stack, its figures are measured");
    CHECK(check_num(res, "profile.forecast.fit.kernels") > 50 && cJSON_GetArraySize(check_at(res, "fit.models")) == 6,
          "provenance: kernels and models");
    band_of_six_runs(res);
    /* the synthetic runtime runs every node as a kernel of its own: the fit
     * says the stack does not fuse, and the forecast follows it */
    CHECK(!strcmp(check_str(res, "profile.forecast.fusion"), "none") &&
              check_num(res, "fit.models.0.kernels_launched") >= check_num(res, "fit.models.0.kernels_unfused_plan"),
          "the fit finds an unfused stack: %s", check_str(res, "profile.forecast.fusion"));
    CHECK(!strcmp(check_str(res, "profile.forecast.conv_lowering"), "implicit_gemm"),
          "the fit, made both ways, finds the truth's implicit GEMMs: %s", check_str(res, "profile.forecast.conv_lowering"));
    /* the fit generalises: a model it never saw (mlp: Gemm, Relu, Softmax) */
    cJSON *truth = truth_scaled(unit, -1, 1);
    cJSON_AddStringToObject(cJSON_GetObjectItem(truth, "forecast"), "fusion", "none");
    cJSON *a = analyze(held_out, truth, "fused", 4), *b = analyze(held_out, cJSON_GetObjectItem(res, "profile"), "fused", 4);
    CHECK_NEAR(check_num(b, "forecast.time_s"), check_num(a, "forecast.time_s"), 0.05, "held-out mlp forecast");
    CHECK(!strcmp(check_str(b, "forecast.basis"), "calibrated"), "a fitted profile's forecast says calibrated");
    cJSON_Delete(a), cJSON_Delete(b), cJSON_Delete(truth);
}

/* The fits start elsewhere: every fraction 0.5, 10 µs per kernel; the same tiles. */
static cJSON *fit_start(const cJSON *unit) {
    static const double half[RL_CLASS_COUNT] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
    return with_forecast(unit, half, half, 1e-5, 0);
}

static void open_runs(rl_model **models) {
    for (size_t r = 0; r < N_RUNS; r++) models[r] = fixture(runs[r].model);
}

static void close_runs(rl_model **models, char **csv) {
    for (size_t r = 0; r < N_RUNS; r++) free(csv[r]), rl_model_free(models[r]);
}

static void fit_tests(const cJSON *unit) {
    rl_model *models[N_RUNS];
    char *csv[N_RUNS];
    static double truth[MAX_KERNELS];
    open_runs(models);
    cJSON *truth_hw = truth_scaled(unit, -1, 1);
    int n = all_times(models, truth_hw, truth, csv);
    bool binding[N_PARAMS];
    binding_params(models, unit, truth, n, binding);
    cJSON *start = fit_start(unit);
    double secs, secs2;
    char *out = run_fit(start, models, csv, &secs), *again = run_fit(start, models, csv, &secs2);
    printf("fit: %d synthetic kernels of %zu runs in %.3f s\n", n, N_RUNS, secs);
    CHECK(!strcmp(out, again), "the fit is deterministic");
    cJSON *res = cJSON_Parse(out);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "ok")), "fit ok: %.300s", out);
    CHECK(check_num(res, "fit.kernel_max_error") < 0.02 && check_num(res, "fit.model_max_error") < 0.01,
          "the fit reproduces every kernel within 2%% (max %g) and every model within 1%% (max %g)",
          check_num(res, "fit.kernel_max_error"), check_num(res, "fit.model_max_error"));
    int bound = 0;
    for (int j = 0; j < N_PARAMS; j++) {
        if (!binding[j]) continue;
        bound++;
        /* conv_net's two depthwise convolutions pin their compute fraction
         * and the cost per group only together (the depthwise memory
         * fraction, which no kernel pins, takes up part of either): 10 % */
        bool traded = j == P_GROUP || j == RL_CLASS_DEPTHWISE;
        CHECK_NEAR(fitted_param(res, j), true_param(j), traded ? 0.10 : 0.05, j == P_KERNEL ? "kernel_overhead_s"
                   : j == P_GROUP ? "group_overhead_s" : rl_value_id(RL_LIST_OP_CLASS, j % RL_CLASS_COUNT));
    }
    printf("fit: %d of %d parameters set some kernel's time; each recovered within 5%% (the depthwise pair 10%%):", bound, N_PARAMS);
    for (int j = 0; j < N_PARAMS; j++) if (binding[j]) printf(" %d=%.4g/%.4g", j, fitted_param(res, j), true_param(j));
    printf("\n");
    /* conv_net's one depthwise convolution (after two poolings: 0.35
     * MFLOP at batch 32) is too small for its compute fraction to set its
     * time: its cost per group does; the grouped one is matrix work */
    /* the GEMMs and the convolutions run at different shares of the peak:
     * both pin the runs, and the fit tells them apart */
    CHECK(binding[RL_CLASS_MATRIX] && binding[RL_CLASS_CONV] &&
              fabs(fitted_param(res, RL_CLASS_MATRIX) / TRUE_COMPUTE[RL_CLASS_MATRIX] - 1) < 0.05 &&
              fabs(fitted_param(res, RL_CLASS_CONV) / TRUE_COMPUTE[RL_CLASS_CONV] - 1) < 0.05,
          "the fit recovers the GEMM (%.3f) and the convolution (%.3f) compute fractions apart (truth %g, %g)",
          fitted_param(res, RL_CLASS_MATRIX), fitted_param(res, RL_CLASS_CONV), TRUE_COMPUTE[RL_CLASS_MATRIX],
          TRUE_COMPUTE[RL_CLASS_CONV]);
    CHECK(bound >= 6 && binding[P_KERNEL] && binding[P_GROUP] && binding[RL_CLASS_MATRIX] &&
              binding[RL_CLASS_COUNT + RL_CLASS_ELEMENTWISE],
          "the synthetic runs pin the matrix compute, the elementwise memory fractions, the fixed "
          "cost per kernel and per convolution group (and %d in all)", bound);
    rl_model *mlp = fixture("mlp.onnx");
    if (res && mlp) check_fitted_profile(res, unit, mlp);
    /* the profile of another model matches nothing */
    rl_fit_input wrong = {mlp, "mlp", "name,time_s\nnot_a_node_of_mlp,0.001\n", "csv", NULL};
    char *text = cJSON_PrintUnformatted(start);
    char *err = rl_fit_forecast(text, &wrong, 1, NULL);
    CHECK(strstr(err, "\"bad_measured\"") != NULL, "another model's profile is refused: %.300s", err);
    rl_free(err);
    err = rl_fit_forecast("{", &wrong, 1, NULL);
    CHECK(strstr(err, "\"bad_hardware\"") != NULL, "a broken profile is refused: %.200s", err);
    rl_free(err);
    err = rl_fit_forecast(text, &wrong, 0, NULL);
    CHECK(strstr(err, "\"bad_request\"") != NULL, "no inputs is refused");
    rl_free(err);
    free(text);
    rl_model_free(mlp);
    cJSON_Delete(res);
    rl_free(out), rl_free(again);
    close_runs(models, csv);
    cJSON_Delete(truth_hw), cJSON_Delete(start);
}

/* A probe (rl_fit_input.probe) fills the product classes the models have
 * no kernel of and moves nothing the models set: transformer_block at
 * batch 1 and 256 (GEMMs, no convolution) fitted with conv_net as a probe
 * takes the convolution class's compute fraction from the probe's
 * kernels, where alone it borrows the GEMMs' (the truth: 0.2 and 0.6);
 * conv_net's depthwise class stays the profile's; every figure the block
 * sets is the same with the probe and without, and in any order. */
static void fit_fills_gaps_from_probes(const cJSON *unit) {
    rl_model *block = fixture("transformer_block.onnx"), *conv = fixture("conv_net.onnx");
    /* the start gives the truth's cost per convolution group: the block
     * has no grouped convolution, and a probe sets no fixed cost */
    static const double half[RL_CLASS_COUNT] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
    cJSON *truth = truth_scaled(unit, -1, 1), *start = with_forecast(unit, half, half, 1e-5, TRUE_GROUP_S);
    static double t[MAX_KERNELS];
    int n = 0;
    char *small_csv = block ? synthetic_profile(block, truth, 1, t, &n) : NULL;
    char *large_csv = block ? synthetic_profile(block, truth, 256, t, &n) : NULL;
    char *conv_csv = conv ? synthetic_profile(conv, truth, 32, t, &n) : NULL;
    char *text = cJSON_PrintUnformatted(start);
    rl_fit_input in[3] = {{block, "block", small_csv, "csv", "{\"batch\": 1}", false},
                          {block, "block x256", large_csv, "csv", "{\"batch\": 256}", false},
                          {conv, "probes", conv_csv, "csv", "{\"batch\": 32}", true}};
    rl_fit_input reversed[3] = {in[2], in[0], in[1]};
    char *alone = rl_fit_forecast(text, in, 2, "synthetic"), *probed = rl_fit_forecast(text, in, 3, "synthetic");
    char *probe_first = rl_fit_forecast(text, reversed, 3, "synthetic");
    char *only = rl_fit_forecast(text, in + 2, 1, "synthetic");
    cJSON *a = cJSON_Parse(alone), *b = cJSON_Parse(probed), *r = cJSON_Parse(probe_first);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(a, "ok")) && cJSON_IsTrue(cJSON_GetObjectItem(b, "ok")) &&
              cJSON_IsTrue(cJSON_GetObjectItem(r, "ok")),
          "the fits with and without a probe: %.200s | %.200s", alone, probed);
    const char *conv_c = "profile.forecast.classes.convolution.compute_fraction";
    char kind[160], value[160], source[160];
    snprintf(kind, sizeof kind, "%s.kind", conv_c), snprintf(value, sizeof value, "%s.value", conv_c);
    snprintf(source, sizeof source, "%s.source", conv_c);
    CHECK(!strcmp(check_str(a, kind), "derived") &&
              check_num(a, value) == check_num(a, "profile.forecast.classes.matrix.compute_fraction.value"),
          "alone, the block's fit borrows the convolution class from the GEMMs: %s %g", check_str(a, kind),
          check_num(a, value));
    CHECK(!strcmp(check_str(b, kind), "measured") && strstr(check_str(b, source), "probe models") &&
              fabs(check_num(b, value) / TRUE_COMPUTE[RL_CLASS_CONV] - 1) < 0.10,
          "with the probe, the convolution class is the probe's kernels' (%g, truth %g; %s, %s)", check_num(b, value),
          TRUE_COMPUTE[RL_CLASS_CONV], check_str(b, kind), check_str(b, source));
    bool listed = false, conv_op = false;
    const cJSON *it;
    cJSON_ArrayForEach(it, check_at(b, "fit.fitted_on_probes")) listed |= !strcmp(it->valuestring, "convolution.compute_fraction");
    cJSON_ArrayForEach(it, check_at(b, "profile.forecast.classes.convolution.fitted_ops")) conv_op |= !strcmp(it->valuestring, "Conv");
    const char *dw = "profile.forecast.classes.depthwise.compute_fraction.kind";
    CHECK(!strcmp(check_str(b, dw), check_str(a, dw)) && strcmp(check_str(b, dw), "measured"),
          "the probe leaves the depthwise class (no product) at the profile's: %s", check_str(b, dw));
    CHECK(listed && conv_op && cJSON_GetArraySize(check_at(b, "fit.models")) == 2 &&
              cJSON_GetArraySize(check_at(b, "fit.probes")) == 1 &&
              !strcmp(check_str(b, "fit.probes.0.name"), "probes"),
          "the fit says what the probe set (fit.fitted_on_probes), lists its Conv, and keeps it apart from the models");
    /* what the block informs, the probe never moves */
    static const char *const kept[] = {"profile.forecast.classes.matrix.compute_fraction.value",
                                       "profile.forecast.classes.elementwise.memory_fraction.value",
                                       "profile.forecast.classes.normalization.memory_fraction.value",
                                       "profile.forecast.kernel_overhead_s.value", "fit.models.0.forecast_s"};
    for (size_t k = 0; k < sizeof kept / sizeof *kept; k++)
        CHECK(check_num(a, kept[k]) == check_num(b, kept[k]) && check_num(b, kept[k]) == check_num(r, kept[k]),
              "%s: %.17g alone, %.17g with the probe, %.17g with it first", kept[k], check_num(a, kept[k]),
              check_num(b, kept[k]), check_num(r, kept[k]));
    CHECK(check_num(b, value) == check_num(r, value), "the order of the inputs changes nothing");
    CHECK(strstr(only, "\"bad_request\"") && strstr(only, "probe"), "probes alone are refused: %.200s", only);
    /* a stack that lowers convolutions by im2col runs them through its GEMM
     * kernel: the borrowed figure is theirs, and the probe sets nothing */
    cJSON_AddStringToObject(cJSON_GetObjectItem(start, "forecast"), "conv_lowering", "im2col");
    char *im2col_text = cJSON_PrintUnformatted(start);
    char *lowered = rl_fit_forecast(im2col_text, in, 3, "synthetic");
    cJSON *l = cJSON_Parse(lowered);
    CHECK(!strcmp(check_str(l, "profile.forecast.conv_lowering"), "im2col") &&
              cJSON_GetArraySize(check_at(l, "fit.fitted_on_probes")) == 0 && !strcmp(check_str(l, kind), "derived"),
          "with im2col the probe fills nothing: %s, %d filled, convolution %s", check_str(l, "profile.forecast.conv_lowering"),
          cJSON_GetArraySize(check_at(l, "fit.fitted_on_probes")), check_str(l, kind));
    cJSON_Delete(l), rl_free(lowered), free(im2col_text);
    cJSON_Delete(a), cJSON_Delete(b), cJSON_Delete(r);
    rl_free(alone), rl_free(probed), rl_free(probe_first), rl_free(only);
    free(text), free(small_csv), free(large_csv), free(conv_csv);
    cJSON_Delete(truth), cJSON_Delete(start);
    rl_model_free(block), rl_model_free(conv);
}

/* The probe model (rl_probe_model): the same bytes every call, a model
 * the reader takes, six products and nothing else: three dense
 * convolutions (the convolution class) and three GEMMs (the matrix
 * class), each with the FLOPs of its shape, each reading its own input. */
static void probe_model(const cJSON *unit) {
    size_t n = 0, n2 = 0;
    unsigned char *a = rl_probe_model(&n), *b = rl_probe_model(&n2);
    CHECK(a && b && n == n2 && n > 1000000 && !memcmp(a, b, n), "the probe model: %zu bytes, the same each call", n);
    char *err = NULL;
    rl_model *m = a ? rl_model_read(a, n, NULL, &err) : NULL;
    CHECK(m != NULL, "the reader takes the probe model: %s", err ? err : "");
    rl_free(err), rl_free(a), rl_free(b);
    if (!m) return;
    cJSON *r = analyze(m, unit, "unfused", 0);
    static const struct { const char *name, *cls; double flops; } want[] = {
        {"conv3x3_64/Conv", "convolution", 2.0 * 64 * 64 * 9 * 56 * 56 + 64 * 56 * 56},
        {"conv1x1_256to64/Conv", "convolution", 2.0 * 256 * 64 * 56 * 56 + 64 * 56 * 56},
        {"conv3x3_s2_128/Conv", "convolution", 2.0 * 128 * 128 * 9 * 28 * 28 + 128 * 28 * 28},
        {"matmul_128x768x3072/MatMul", "matrix", 2.0 * 128 * 768 * 3072},
        {"matmul_attention_scores/MatMul", "matrix", 2.0 * 12 * 128 * 64 * 128},
        {"gemm_1280x1000/Gemm", "matrix", 2.0 * 1280 * 1000 + 1000},
    };
    const cJSON *layers = check_at(r, "layers"), *l;
    CHECK(cJSON_GetArraySize(layers) == 6, "six products, nothing else: %d layers", cJSON_GetArraySize(layers));
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        bool found = false;
        cJSON_ArrayForEach(l, layers) {
            if (strcmp(check_str(l, "name"), want[k].name)) continue;
            found = true;
            CHECK(!strcmp(check_str(l, "op_class"), want[k].cls) && check_num(l, "flops") == want[k].flops,
                  "%s: class %s (want %s), %g FLOPs (want %g)", want[k].name, check_str(l, "op_class"), want[k].cls,
                  check_num(l, "flops"), want[k].flops);
        }
        CHECK(found, "the probe model has %s", want[k].name);
    }
    cJSON_Delete(r);
    rl_model_free(m);
}

/* Runs of a stack that lowers its convolutions by im2col: the fit, made
 * both ways, keeps im2col. */
static void fit_finds_im2col(const cJSON *unit) {
    rl_model *models[N_RUNS];
    char *csv[N_RUNS];
    static double t[MAX_KERNELS];
    open_runs(models);
    cJSON *truth = truth_scaled(unit, -1, 1);
    cJSON_AddStringToObject(cJSON_GetObjectItem(truth, "forecast"), "conv_lowering", "im2col");
    all_times(models, truth, t, csv);
    cJSON *start = fit_start(unit);
    double secs;
    char *out = run_fit(start, models, csv, &secs);
    cJSON *res = cJSON_Parse(out);
    CHECK(!strcmp(check_str(res, "profile.forecast.conv_lowering"), "im2col"), "the fit finds im2col (%s)",
          check_str(res, "profile.forecast.conv_lowering"));
    /* the copies' and the products' fractions can take up each other's time
     * in conv_net's few convolutions (the fit may stop with the matrix
     * compute fraction at 1): every model within 3 %, most kernels within 1 % */
    CHECK(check_num(res, "fit.model_max_error") < 0.03 && check_num(res, "fit.kernel_median_error") < 0.01,
          "the im2col fit reproduces every model within 3%% (max %g), the median kernel within 1%% (%g)",
          check_num(res, "fit.model_max_error"), check_num(res, "fit.kernel_median_error"));
    cJSON_Delete(res), cJSON_Delete(truth), cJSON_Delete(start);
    rl_free(out);
    close_runs(models, csv);
}

/* The fit on real profiles of the measured fixtures (ONNX Runtime with its
 * optimisations on, and trtexec): it matches kernels, fits, and writes a
 * valid profile whose provenance names both models. */
static void fit_real_profiles(const cJSON *start) {
    static const char *const files[][3] = {{"small_cnn.onnx", "ort_small_cnn_all.json", "ort"},
                                           {"small_mlp.onnx", "trtexec_small_mlp.json", "trtexec"}};
    rl_fit_input in[2];
    char *texts[2];
    rl_model *models[2];
    for (int i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/fixtures/measured/%s", tests_dir, files[i][0]);
        models[i] = check_read_model(path);
        snprintf(path, sizeof path, "%s/fixtures/measured/%s", tests_dir, files[i][1]);
        texts[i] = check_read_file(path, NULL);
        in[i] = (rl_fit_input){models[i], files[i][0], texts[i], files[i][2], NULL};
    }
    char *text = cJSON_PrintUnformatted(start);
    char *out = models[0] && models[1] && texts[0] && texts[1] ? rl_fit_forecast(text, in, 2, NULL) : NULL;
    cJSON *res = cJSON_Parse(out ? out : "");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "ok")), "fit on the measured fixtures: %.300s", out ? out : "");
    CHECK(check_num(res, "fit.kernels") >= 4 && !strcmp(check_str(res, "fit.models.1.name"), "small_mlp.onnx") &&
          isfinite(check_num(res, "fit.kernel_median_error")) && isfinite(check_num(res, "fit.model_max_error")),
          "provenance of the real fit");
    /* the ORT profile gives each run's wall time: the time between kernels
     * joins the fixed cost per kernel (the trtexec one gives none) */
    double between = check_num(res, "fit.between_kernels_s");
    CHECK(between > 0 && check_num(res, "profile.forecast.kernel_overhead_s.value") >= between &&
              strstr(check_str(res, "profile.forecast.kernel_overhead_s.source"), "between kernels"),
          "time between kernels %g joins the fixed cost per kernel", between);
    /* a fitted stack has one fixed cost per kernel: a start's own cost per
     * class is gone from the fitted profile */
    const cJSON *cl;
    cJSON_ArrayForEach(cl, check_at(res, "profile.forecast.classes"))
        CHECK(!cJSON_GetObjectItem(cl, "kernel_overhead_s"), "fitted: no own fixed cost left for %s", cl->string);
    /* each class the kernels informed lists their operator types (the CNN's
     * convolutions among them), and only such a class */
    char *fitted = cJSON_PrintUnformatted(check_at(res, "fit.fitted"));
    cJSON_ArrayForEach(cl, check_at(res, "profile.forecast.classes")) {
        const cJSON *ops = cJSON_GetObjectItem(cl, "fitted_ops");
        char name[64];
        snprintf(name, sizeof name, "\"%s.", cl->string);
        bool informed = fitted && strstr(fitted, name);
        CHECK(informed == cJSON_IsArray(ops) && (!ops || cJSON_GetArraySize(ops) > 0),
              "%s: fitted_ops %s, informed %d", cl->string, ops ? "listed" : "absent", informed);
    }
    free(fitted);
    char *conv_ops = cJSON_PrintUnformatted(check_at(res, "profile.forecast.classes.convolution.fitted_ops"));
    CHECK(conv_ops && strstr(conv_ops, "\"Conv\""), "the convolution class lists Conv: %s", conv_ops ? conv_ops : "");
    free(conv_ops);
    /* two models: each forecast by a fit of the other gives two held-out
     * runs, too few for a band; the fitted profile has none and says why */
    CHECK(!cJSON_GetObjectItem(check_at(res, "profile.forecast"), "band") &&
              strstr(check_str(res, "fit.band_missing"), "at least 3 held-out runs"),
          "a fit on two models writes no band, and says why: %s", check_str(res, "fit.band_missing"));
    CHECK(!strcmp(check_str(res, "profile.forecast.stack"), "ONNX Runtime (the measured runs)"),
          "without a stack, the first profile's runtime names it: %s", check_str(res, "profile.forecast.stack"));
    char *p = cJSON_PrintUnformatted(cJSON_GetObjectItem(res, "profile"));
    char *chk = p ? rl_check_hardware(p) : NULL;
    CHECK(chk && strstr(chk, "\"ok\":true"), "the fitted profile is valid: %s", chk ? chk : "");
    rl_free(chk), free(p), free(text), rl_free(out);
    cJSON_Delete(res);
    for (int i = 0; i < 2; i++) free(texts[i]), rl_model_free(models[i]);
}

/* ------------------------------------------------- hostile fits (issue 43) -- */
static rl_model *measured_model(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/measured/%s", tests_dir, name);
    return check_read_model(path);
}

/* small_cnn's kernels as name,time_s: /conv1/Conv at conv1_s, the rest at others_s. */
static void cnn_csv(char *buf, size_t cap, double conv1_s, double others_s) {
    static const char *const names[] = {"/conv1/Conv", "/relu/Relu", "/conv2/Conv", "/down/Conv", "/Add",
                                        "/relu_1/Relu", "/pool/GlobalAveragePool", "/fc/Gemm"};
    size_t len = (size_t)snprintf(buf, cap, "name,time_s\n");
    for (size_t i = 0; i < sizeof names / sizeof *names && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s,%.17g\n", names[i], i ? others_s : conv1_s);
}

/* The fit of inputs in[0..n) onto hw: its answer parsed (the caller deletes it). */
static cJSON *fit_answer(const cJSON *hw, const rl_fit_input *in, size_t n, char **text) {
    char *h = cJSON_PrintUnformatted(hw);
    char *out = rl_fit_forecast(h, in, n, NULL);
    cJSON *res = cJSON_Parse(out ? out : "");
    if (text) *text = out;
    else rl_free(out);
    free(h);
    return res;
}

/* An error answer of `code` at `where` whose message holds `says`. */
static void check_refused(const cJSON *res, const char *code, const char *where, const char *says, const char *what) {
    const cJSON *e = cJSON_GetObjectItem(res, "error");
    const char *msg = cJSON_IsString(cJSON_GetObjectItem(e, "message")) ? check_str(e, "message") : "";
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(res, "ok")) && !strcmp(check_str(e, "code"), code) &&
              !strcmp(check_str(e, "where"), where) && strstr(msg, says),
          "%s: refused as %s at %s saying '%s' (got %s at %s: %s)", what, code, where, says,
          check_str(e, "code"), check_str(e, "where"), msg);
}

/* Kernel times no kernel takes are refused, naming the kernel: under 1 ns
 * (a denormal, 1e-15 s, 1e-300 s) or 100x under its floor; a fit whose
 * forecast of a model stays 10x off its time is refused, not calibrated;
 * a kernel at 0 (under a profile's resolution) is left out. */
static void fit_refuses_impossible_times(const cJSON *unit) {
    rl_model *cnn = measured_model("small_cnn.onnx");
    static char csv[4096];
    rl_fit_input in = {cnn, "small_cnn", csv, "csv", NULL};
    static const double tiny[] = {1e-320, 1e-15, 1e-300};
    for (size_t i = 0; i < sizeof tiny / sizeof *tiny; i++) {
        cnn_csv(csv, sizeof csv, tiny[i], tiny[i]);
        cJSON *res = fit_answer(unit, &in, 1, NULL);
        check_refused(res, "bad_measured", "inputs[0].measured", "kernel '/conv1/Conv' took", "a time under 1 ns");
        cJSON_Delete(res);
    }
    /* conv1's floor on the unit device is 2.4 us (2.4 MFLOP at 1 TFLOP/s) */
    cnn_csv(csv, sizeof csv, 1e-8, 1e-5);
    cJSON *res = fit_answer(unit, &in, 1, NULL);
    check_refused(res, "bad_measured", "inputs[0].measured", "times less than its floor", "240x under the floor");
    CHECK(strstr(check_str(res, "error.message"), "'/conv1/Conv'"), "the kernel is named");
    cJSON_Delete(res);
    /* 1000 s a kernel: seconds given for microseconds, say */
    cnn_csv(csv, sizeof csv, 1e3, 1e3);
    res = fit_answer(unit, &in, 1, NULL);
    check_refused(res, "bad_measured", "inputs[0]", "beyond use", "a fit 10x off");
    cJSON_Delete(res);
    /* 0 s is under the resolution: left out, the rest fitted */
    cnn_csv(csv, sizeof csv, 0, 1e-5);
    res = fit_answer(unit, &in, 1, NULL);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "ok")) && check_num(res, "fit.kernels") >= 4 &&
              isfinite(check_num(res, "fit.kernel_max_error")) && isfinite(check_num(res, "fit.model_max_error")),
          "a kernel at 0 s is left out of a good fit");
    cJSON_Delete(res);
    rl_model_free(cnn);
}

/* An ONNX Runtime profile whose run took 1,000 s around 8 kernels of
 * microseconds: 125 s between kernels is refused, not added to the fixed
 * cost per kernel (the profile's validator allows 0.1 s). */
static void fit_refuses_long_gaps(const cJSON *unit) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/measured/ort_small_cnn_all.json", tests_dir);
    cJSON *trace = check_read_json(path);
    const cJSON *e;
    cJSON_ArrayForEach(e, trace)
        if (!strcmp(check_str(e, "name"), "model_run")) cJSON_SetNumberValue(cJSON_GetObjectItem(e, "dur"), 1e9);
    char *text = cJSON_PrintUnformatted(trace);
    rl_model *cnn = measured_model("small_cnn.onnx");
    rl_fit_input in = {cnn, "small_cnn", text, "ort", NULL};
    cJSON *res = fit_answer(unit, &in, 1, NULL);
    check_refused(res, "bad_measured", "inputs[0].measured", "between two kernels", "a 1,000 s run");
    cJSON_Delete(res), cJSON_Delete(trace);
    free(text);
    rl_model_free(cnn);
}

/* Runs whose wall time exceeds their kernels' by less than a nanosecond a
 * kernel (a trace rounded to microseconds: a median gap of 0.5 us over a
 * thousand kernels) are no time between kernels: the fit answers, and its
 * profile passes the hardware check, which takes no between_kernels_s under
 * 1 ns. Here each run's kernels are laid end to end and the run ends
 * 0.004 us after them: 0.5 ns a kernel. */
static void fit_takes_tiny_gaps(const cJSON *unit) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/measured/ort_small_cnn_all.json", tests_dir);
    cJSON *trace = check_read_json(path);
    const cJSON *run, *e;
    cJSON_ArrayForEach(run, trace) {
        if (strcmp(check_str(run, "name"), "model_run")) continue;
        double t0 = check_num(run, "ts"), t1 = t0 + check_num(run, "dur"), at = t0;
        cJSON_ArrayForEach(e, trace) {
            const char *name = check_str(e, "name");
            size_t n = strlen(name);
            double ts = check_num(e, "ts");
            if (strcmp(check_str(e, "cat"), "Node") || n < 12 || strcmp(name + n - 12, "_kernel_time") || ts < t0 ||
                ts > t1)
                continue;
            cJSON_SetNumberValue(cJSON_GetObjectItem(e, "ts"), at);
            at += check_num(e, "dur");
        }
        cJSON_SetNumberValue(cJSON_GetObjectItem(run, "dur"), at - t0 + 0.004);
    }
    char *text = cJSON_PrintUnformatted(trace);
    rl_model *cnn = measured_model("small_cnn.onnx");
    rl_fit_input in = {cnn, "small_cnn", text, "ort", NULL};
    cJSON *res = fit_answer(unit, &in, 1, NULL);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "ok")), "a 0.5 ns gap a kernel: %s", check_str(res, "error.message"));
    CHECK(check_num(res, "fit.between_kernels_s") == 0 &&
              !cJSON_GetObjectItem(check_at(res, "profile.forecast"), "between_kernels_s"),
          "a gap under 1 ns a kernel joins no fixed cost (fit.between_kernels_s %g)",
          check_num(res, "fit.between_kernels_s"));
    cJSON_Delete(res), cJSON_Delete(trace);
    free(text);
    rl_model_free(cnn);
}

/* Times between kernels that grow with the kernel before: each synthetic
 * run's kernels (its name,time_s CSV) laid out as an ONNX Runtime trace
 * of a warm-up and three kept runs, GAP_FIXED µs before each kernel and
 * after the last, plus GAP_GROWTH of the kernel before. */
#define GAP_FIXED 2.0
#define GAP_GROWTH 0.05
static char *growing_gaps_trace(const char *csv, double growth, double *wall_s) {
    cJSON *ev = cJSON_CreateArray();
    double at = 0;
    for (int run = 0; run < 4; run++) {
        double t0 = at;
        cJSON *mr = cJSON_CreateObject();
        cJSON_AddItemToArray(ev, mr);
        at += GAP_FIXED;
        for (const char *line = strchr(csv, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
            const char *comma = strchr(line + 1, ',');
            if (!comma) break;
            double dur = 1e6 * strtod(comma + 1, NULL);
            char name[256];
            snprintf(name, sizeof name, "%.*s_kernel_time", (int)(comma - line - 1), line + 1);
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "cat", "Node"), cJSON_AddStringToObject(e, "name", name);
            cJSON_AddNumberToObject(e, "ts", at), cJSON_AddNumberToObject(e, "dur", dur);
            cJSON_AddItemToObject(e, "args", cJSON_CreateObject());
            cJSON_AddItemToArray(ev, e);
            at += dur + GAP_FIXED + growth * dur;
        }
        cJSON_AddStringToObject(mr, "cat", "Session"), cJSON_AddStringToObject(mr, "name", "model_run");
        cJSON_AddNumberToObject(mr, "ts", t0), cJSON_AddNumberToObject(mr, "dur", at - t0);
        *wall_s = 1e-6 * (at - t0);
        at += 1000;
    }
    char *text = cJSON_PrintUnformatted(ev);
    cJSON_Delete(ev);
    return text;
}

/* The fit reads from the runs' traces how the time between kernels grows
 * with the kernel before (measured.between_kernels_growth), writes it into
 * the profile, and the forecast of each run is then its wall time: without
 * the growth, a fixed time per kernel fitted on these runs would charge
 * their short kernels the long ones' gaps. */
static void fit_measures_growing_gaps(const cJSON *unit) {
    rl_model *models[N_RUNS];
    char *csv[N_RUNS], *trace[N_RUNS];
    double wall[N_RUNS];
    open_runs(models);
    cJSON *truth = truth_scaled(unit, -1, 1);
    all_times(models, truth, (double[MAX_KERNELS]){0}, csv);
    rl_fit_input in[N_RUNS];
    char req[N_RUNS][64];
    for (size_t r = 0; r < N_RUNS; r++) {
        trace[r] = growing_gaps_trace(csv[r], GAP_GROWTH, &wall[r]);
        snprintf(req[r], sizeof req[r], "{\"batch\": %d}", runs[r].batch);
        in[r] = (rl_fit_input){models[r], runs[r].model, trace[r], "ort", req[r]};
    }
    cJSON *start = fit_start(unit);
    cJSON *res = fit_answer(start, in, N_RUNS, NULL);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "ok")), "a fit on traces with growing gaps: %s",
          check_str(res, "error.message"));
    CHECK_NEAR(check_num(res, "fit.between_kernels_growth"), GAP_GROWTH, 1e-3, "the gaps' growth, from the traces");
    CHECK_NEAR(check_num(res, "profile.forecast.between_kernels_growth.value"), GAP_GROWTH, 1e-3,
               "the profile holds the growth");
    /* the fixed part: GAP_FIXED before each kernel and one after the last */
    double fixed = 1e6 * check_num(res, "fit.between_kernels_s");
    CHECK(fixed > 0.99 * GAP_FIXED && fixed < 1.2 * GAP_FIXED, "the fixed part of the time between kernels: %g µs",
          fixed);
    /* each run's time between kernels as forecast (its forecast less the
     * fit's forecast of its kernels alone) is the time its trace shows (its
     * wall time less its kernels'), within 10 %: the growth's part follows
     * the fit's forecast of the kernels, which for conv_net at batch 32 is
     * 10 % long (read as ONNX Runtime's, the runs' kernel names tell an
     * im2col lowering). One time per kernel, the runs' gaps pooled, misses
     * some run's by half or more. */
    double gaps = 0, kernels = 0;
    for (size_t r = 0; r < N_RUNS; r++) {
        gaps += wall[r] - check_num(cJSON_GetArrayItem(check_at(res, "fit.models"), (int)r), "measured_s");
        kernels += check_num(cJSON_GetArrayItem(check_at(res, "fit.models"), (int)r), "kernels_launched");
    }
    double worst_pooled = 0;
    for (size_t r = 0; r < N_RUNS; r++) {
        const cJSON *fm = cJSON_GetArrayItem(check_at(res, "fit.models"), (int)r);
        cJSON *a = analyze(models[r], cJSON_GetObjectItem(res, "profile"), "fused", runs[r].batch);
        double measured_gap = wall[r] - check_num(fm, "measured_s");
        double forecast_gap = check_num(a, "forecast.time_s") - check_num(fm, "forecast_s");
        CHECK(fabs(forecast_gap / measured_gap - 1) < 0.1, "%s at batch %d: %g s between kernels forecast, %g s "
              "measured", runs[r].model, runs[r].batch, forecast_gap, measured_gap);
        double pooled = gaps / kernels * check_num(fm, "kernels_launched") / measured_gap;
        if (fabs(log(pooled)) > fabs(log(worst_pooled > 0 ? worst_pooled : 1))) worst_pooled = pooled;
        cJSON_Delete(a);
    }
    CHECK(fabs(log(worst_pooled)) > log(1.5), "a time per kernel alone would miss some run's gaps by half (%g)",
          worst_pooled);
    cJSON_Delete(res);
    /* models named at length (paths of 500 characters): the figures'
     * sources list whole names, then say how many more there are, and keep
     * what follows the list (the median error, the time between kernels
     * and its growth, the kernels that set a fraction) */
    char long_name[N_RUNS][512];
    for (size_t r = 0; r < N_RUNS; r++) {
        memset(long_name[r], 'a' + (int)r, sizeof long_name[r] - 1);
        long_name[r][sizeof long_name[r] - 1] = 0;
        in[r].name = long_name[r];
    }
    res = fit_answer(start, in, N_RUNS, NULL);
    const char *src = check_str(res, "profile.forecast.classes.matrix.compute_fraction.source");
    CHECK(strstr(src, "more (median error per kernel") && strstr(src, "s between kernels") &&
              strstr(src, "after each kernel a further") && strstr(src, "of those kernels set this figure") &&
              strstr(src, "ccc and 3 more") && !strstr(src, "ddd"),
          "long names: whole ones, then how many more, and all that follows: %.200s", src);
    cJSON_Delete(res);
    for (size_t r = 0; r < N_RUNS; r++) in[r].name = runs[r].model;
    /* gaps that grow three times as fast as the kernels before them are no
     * runtime's dispatch: the fit takes no growth from them, and its
     * profile passes the hardware check (whose range for the growth ends
     * at 1) */
    for (size_t r = 0; r < N_RUNS; r++) {
        free(trace[r]);
        trace[r] = growing_gaps_trace(csv[r], 3, &wall[r]);
        in[r].measured = trace[r];
    }
    res = fit_answer(start, in, N_RUNS, NULL);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "ok")) && check_num(res, "fit.between_kernels_growth") == 0 &&
              !cJSON_GetObjectItem(check_at(res, "profile.forecast"), "between_kernels_growth"),
          "gaps three times their kernels: no growth taken (%g): %s", check_num(res, "fit.between_kernels_growth"),
          check_str(res, "error.message"));
    cJSON_Delete(res), cJSON_Delete(start), cJSON_Delete(truth);
    for (size_t r = 0; r < N_RUNS; r++) free(trace[r]);
    close_runs(models, csv);
}

/* A fit of the fixed cost per kernel on runs that give no wall time (a
 * trtexec profile) onto a profile that names a time between kernels (an
 * earlier fit's, here 9 ms of a 10 ms fixed cost): that figure was a part of
 * the cost the fit replaces, so it goes with it; kept, it exceeded the fitted
 * cost and the fit refused its own profile. */
static void fit_replaces_time_between(const cJSON *unit) {
    cJSON *base = cJSON_Duplicate(unit, true), *fc = cJSON_AddObjectToObject(base, "forecast");
    cJSON_AddNumberToObject(fc, "kernel_overhead_s", 1e-2);
    cJSON_AddNumberToObject(fc, "between_kernels_s", 9e-3);
    rl_model *mlp = measured_model("small_mlp.onnx");
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/measured/trtexec_small_mlp.json", tests_dir);
    char *text = check_read_file(path, NULL);
    rl_fit_input in = {mlp, "small_mlp", text, "trtexec", NULL};
    cJSON *res = fit_answer(base, &in, 1, NULL);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "ok")), "a fit onto a profile with a time between kernels: %s",
          check_str(res, "error.message"));
    CHECK(check_num(res, "profile.forecast.kernel_overhead_s.value") < 1e-2 &&
              !cJSON_GetObjectItem(check_at(res, "profile.forecast"), "between_kernels_s"),
          "the fitted fixed cost %g replaces the base's, its time between kernels too",
          check_num(res, "profile.forecast.kernel_overhead_s.value"));
    cJSON_Delete(res), cJSON_Delete(base);
    free(text);
    rl_model_free(mlp);
}

/* A pair that matches nothing is refused beside a good one too; a base
 * profile rl_check_hardware refuses (a broken power mode) is no base. */
static void fit_refuses_bad_pairs(const cJSON *unit) {
    rl_model *cnn = measured_model("small_cnn.onnx"), *mlp = measured_model("small_mlp.onnx");
    static char csv[4096];
    cnn_csv(csv, sizeof csv, 1e-5, 1e-5);
    rl_fit_input in[2] = {{cnn, "small_cnn", csv, "csv", NULL}, {mlp, "small_mlp", csv, "csv", NULL}};
    cJSON *res = fit_answer(unit, in, 2, NULL);
    check_refused(res, "bad_measured", "inputs[1].measured", "", "the MLP with the CNN's times");
    cJSON_Delete(res);
    /* a run whose kernels match but tell nothing (every one at 0 s) is refused beside a good one too */
    static char zeros[4096];
    cnn_csv(zeros, sizeof zeros, 0, 0);
    in[1] = (rl_fit_input){cnn, "small_cnn at 0 s", zeros, "csv", NULL};
    res = fit_answer(unit, in, 2, NULL);
    check_refused(res, "bad_measured", "inputs[1].measured", "no measured kernel", "a run of kernels at 0 s");
    cJSON_Delete(res);
    cJSON *broken = cJSON_Duplicate(unit, true), *modes = cJSON_AddArrayToObject(broken, "power_modes");
    cJSON_AddItemToArray(modes, cJSON_Parse("{\"id\": \"a\", \"name\": \"a\", \"default\": true, \"overrides\": {}}"));
    cJSON_AddItemToArray(modes, cJSON_Parse("{\"id\": \"b\", \"name\": \"b\", \"overrides\": {\"clock_hz\": -5}}"));
    res = fit_answer(broken, in, 1, NULL);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(res, "ok")) && !strcmp(check_str(res, "error.code"), "bad_hardware"),
          "a base profile with a broken power mode is refused: %s", check_str(res, "error.message"));
    cJSON_Delete(res), cJSON_Delete(broken);
    rl_model_free(cnn), rl_model_free(mlp);
}

/* Samples of the same figures are pooled: the conv_net runs at batch 1
 * twice over fit as one run does, on the same distinct kernels, and the
 * search says how it went within its budget. */
static void fit_pools_samples(const cJSON *unit) {
    rl_model *m = fixture("conv_net.onnx");
    cJSON *hw = truth_scaled(unit, -1, 1);
    static double t[MAX_KERNELS];
    int n = 0;
    char *csv = synthetic_profile(m, hw, 1, t, &n);
    rl_fit_input in[3] = {{m, "a", csv, "csv", NULL}, {m, "b", csv, "csv", NULL}, {m, "c", csv, "csv", NULL}};
    cJSON *start = fit_start(unit);
    cJSON *one = fit_answer(start, in, 1, NULL), *three = fit_answer(start, in, 3, NULL);
    CHECK(check_num(three, "fit.kernels") == 3 * check_num(one, "fit.kernels") &&
              check_num(three, "fit.search.distinct_kernels") == check_num(one, "fit.search.distinct_kernels") &&
              check_num(one, "fit.search.distinct_kernels") <= check_num(one, "fit.kernels"),
          "three copies of a run pool into the distinct kernels of one (%g of %g kernels)",
          check_num(three, "fit.search.distinct_kernels"), check_num(three, "fit.kernels"));
    CHECK_NEAR(check_num(three, "profile.forecast.kernel_overhead_s.value"),
               check_num(one, "profile.forecast.kernel_overhead_s.value"), 1e-9, "pooled: the same fit");
    CHECK(cJSON_IsFalse(check_at(three, "fit.search.stopped")) &&
              check_num(three, "fit.search.evaluations") <= 2 * check_num(three, "fit.search.budget"),
          "the search converged within its budget");
    cJSON_Delete(one), cJSON_Delete(three), cJSON_Delete(start), cJSON_Delete(hw);
    free(csv);
    rl_model_free(m);
}

/* rl_fit_params on samples s[0..n) from one start (every fraction 0.3,
 * 10 us a kernel, unit tiles) into *p; what they informed. */
static rl_fit_informed fit_from_start(const rl_fit_sample *s, int n, rl_forecast_params *p) {
    memset(p, 0, sizeof *p);
    for (int c = 0; c < RL_CLASS_COUNT; c++) p->compute[c] = 0.3, p->memory[c] = 0.3;
    p->kernel_s = 1e-5, p->tile_m = p->tile_n = p->tile_k = p->units = 1, p->tile_k0 = 1e-3;
    rl_fit_informed inf;
    rl_fit_search search = {0};
    CHECK(rl_fit_params(s, n, p, &inf, &search) == 0, "the fit runs");
    return inf;
}

/* A product kernel informs only the side of its roofline that can bound
 * it, and an unfitted product class takes its sibling's figures
 * (docs/model.md §12.5). Matrix-vector products (a classifier at batch 1:
 * 20x longer on memory than on compute at the peaks) leave the matrix
 * class's compute fraction unfitted, so it is the convolutions' fitted
 * one, not wherever the flat loss left it; the convolutions, compute-bound,
 * leave theirs of memory to the GEMVs'. */
static void fit_informs_bound_sides(void) {
    enum { N = 24 };
    rl_fit_sample s[N];
    memset(s, 0, sizeof s);
    const double conv_fraction = 0.8, gemv_memory = 0.6, fixed = 2e-6;
    for (int i = 0; i < N; i++) {
        rl_fc_kernel *k = &s[i].k;
        k->kernels = 1;
        double scale = 1 + i % 6;
        if (i % 2) { /* a GEMV: compute 1/20 of its weights' reading */
            k->cls = RL_CLASS_MATRIX;
            k->t_dram = 1e-4 * scale, k->tc[RL_CLASS_MATRIX] = k->t_dram / 20;
            s[i].measured_s = k->t_dram / gemv_memory + fixed;
        } else { /* a dense convolution, compute-bound */
            k->cls = RL_CLASS_CONV;
            k->tc[RL_CLASS_CONV] = 1e-3 * scale, k->t_dram = k->tc[RL_CLASS_CONV] / 100;
            s[i].measured_s = k->tc[RL_CLASS_CONV] / conv_fraction + fixed;
        }
        s[i].run = i % 2;
    }
    rl_forecast_params p;
    rl_fit_informed inf = fit_from_start(s, N, &p);
    CHECK(!inf.compute[RL_CLASS_MATRIX] && inf.memory[RL_CLASS_MATRIX] && inf.compute[RL_CLASS_CONV] &&
              !inf.memory[RL_CLASS_CONV],
          "GEMVs inform the matrix class's memory side only, compute-bound convolutions their compute side only");
    CHECK_NEAR(p.compute[RL_CLASS_CONV], conv_fraction, 0.02, "the convolutions' compute fraction");
    CHECK_NEAR(p.memory[RL_CLASS_MATRIX], gemv_memory, 0.02, "the GEMVs' memory fraction");
    CHECK(p.compute[RL_CLASS_MATRIX] == p.compute[RL_CLASS_CONV] && p.memory[RL_CLASS_CONV] == p.memory[RL_CLASS_MATRIX],
          "each unfitted side is the sibling's fitted one: matrix compute %g (conv %g), conv memory %g (matrix %g)",
          p.compute[RL_CLASS_MATRIX], p.compute[RL_CLASS_CONV], p.memory[RL_CLASS_CONV], p.memory[RL_CLASS_MATRIX]);
    CHECK(p.compute[RL_CLASS_NORM] == 0.3 && !inf.compute[RL_CLASS_NORM], "a class without a sibling keeps its figure");
}

/* Compute-bound convolutions whose traffic is a quarter of their work's
 * time: enough to count as touching the memory side (a fifth), too little
 * to bind at any share above 0.2. The loss is flat in the convolution
 * class's memory share, so the fit keeps its start and says it did not fit
 * it; the product class's unfitted side then takes the GEMVs' fitted
 * share. Without the check the share stayed wherever the search stopped. */
static void fit_keeps_untold_fractions(void) {
    enum { N = 24 };
    rl_fit_sample s[N];
    memset(s, 0, sizeof s);
    const double conv_fraction = 0.8, gemv_memory = 0.6, fixed = 2e-6;
    for (int i = 0; i < N; i++) {
        rl_fc_kernel *k = &s[i].k;
        k->kernels = 1;
        double scale = 1 + i % 6;
        if (i % 2) {
            k->cls = RL_CLASS_MATRIX;
            k->t_dram = 1e-4 * scale, k->tc[RL_CLASS_MATRIX] = k->t_dram / 20;
            s[i].measured_s = k->t_dram / gemv_memory + fixed;
        } else {
            k->cls = RL_CLASS_CONV;
            k->tc[RL_CLASS_CONV] = 1e-3 * scale, k->t_dram = k->tc[RL_CLASS_CONV] / 4;
            s[i].measured_s = k->tc[RL_CLASS_CONV] / conv_fraction + fixed;
        }
        s[i].run = i % 2;
    }
    rl_forecast_params p;
    rl_fit_informed inf = fit_from_start(s, N, &p);
    CHECK(inf.compute[RL_CLASS_CONV] && !inf.memory[RL_CLASS_CONV] && inf.memory[RL_CLASS_MATRIX],
          "the convolutions tell their compute share, not their memory share (informed: %d %d)",
          inf.compute[RL_CLASS_CONV], inf.memory[RL_CLASS_CONV]);
    CHECK(inf.n_compute[RL_CLASS_CONV] == N / 2 && inf.n_memory[RL_CLASS_MATRIX] == N / 2 &&
              inf.n_memory[RL_CLASS_CONV] == 0,
          "each fraction counts the kernels that set it: %d convolutions, %d GEMVs, none for conv memory (%d)",
          inf.n_compute[RL_CLASS_CONV], inf.n_memory[RL_CLASS_MATRIX], inf.n_memory[RL_CLASS_CONV]);
    CHECK_NEAR(p.memory[RL_CLASS_CONV], p.memory[RL_CLASS_MATRIX], 1e-12, "conv memory takes the matrix class's fitted share");
    CHECK_NEAR(p.memory[RL_CLASS_MATRIX], gemv_memory, 0.02, "the GEMVs' memory fraction");
}

/* A fraction that one kernel alone informs is not fitted: the runs'
 * classifiers (matrix-vector products, memory-bound) measured four times
 * but of one shape leave the matrix class's memory share at its start;
 * a second shape of them fits it. (On run 24 of docs/validation.md one
 * kernel of ResNet-18 set the convolutions' memory share of a fit, at
 * 0.13 where other runs of the same pair set 0.57, and every MobileNet
 * the fit forecast came out 29-39 % long.) */
static void fit_needs_two_kernels(void) {
    enum { N = 16 };
    for (int shapes = 1; shapes <= 2; shapes++) {
        rl_fit_sample s[N];
        memset(s, 0, sizeof s);
        for (int i = 0; i < N; i++) {
            rl_fc_kernel *k = &s[i].k;
            k->kernels = 1;
            if (i < 4) { /* the classifiers: memory-bound, `shapes` distinct */
                double scale = 1 + i % shapes;
                k->cls = RL_CLASS_MATRIX;
                k->t_dram = 1e-4 * scale, k->tc[RL_CLASS_MATRIX] = k->t_dram / 20;
                s[i].measured_s = k->t_dram / 0.6 + 2e-6;
            } else { /* compute-bound convolutions of several shapes */
                k->cls = RL_CLASS_CONV;
                k->tc[RL_CLASS_CONV] = 1e-3 * (1 + i % 6), k->t_dram = k->tc[RL_CLASS_CONV] / 50;
                s[i].measured_s = k->tc[RL_CLASS_CONV] / 0.8 + 2e-6;
            }
            s[i].run = i % 2;
        }
        rl_forecast_params p;
        rl_fit_informed inf = fit_from_start(s, N, &p);
        if (shapes == 1)
            CHECK(!inf.memory[RL_CLASS_MATRIX] && inf.n_memory[RL_CLASS_MATRIX] == 0 && p.memory[RL_CLASS_MATRIX] == 0.3,
                  "one shape of classifier: the matrix memory share is not fitted (%d, %g)",
                  inf.memory[RL_CLASS_MATRIX], p.memory[RL_CLASS_MATRIX]);
        else
            CHECK(inf.memory[RL_CLASS_MATRIX] && inf.n_memory[RL_CLASS_MATRIX] == 4 &&
                      fabs(p.memory[RL_CLASS_MATRIX] - 0.6) < 0.02,
                  "two shapes: fitted on all four (%d kernels, %g)", inf.n_memory[RL_CLASS_MATRIX],
                  p.memory[RL_CLASS_MATRIX]);
        CHECK(inf.compute[RL_CLASS_CONV] && inf.n_compute[RL_CLASS_CONV] == N - 4, "the convolutions set their compute share");
    }
}

/* ONNX Runtime's kernels tell how it lowered the convolutions: its
 * optimised graph's are NCHWc (direct, "_nchwc" names), its plain graph's
 * Conv kernels im2col; the fit takes that, and says where it came from. */
static void fit_reads_lowering_from_kernels(const cJSON *unit) {
    /* and the shape arithmetic: small_cnn has none alike, so its runs do not
     * tell whether the runtime merges identical computations; the stack's
     * fusion does (one that fuses optimises its graph and merges them) */
    static const char *const runs[][3] = {{"ort_small_cnn_all.json", "implicit_gemm", "distinct"},
                                          {"ort_small_cnn_disabled.json", "im2col", "dynamic"}};
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/measured/small_cnn.onnx", tests_dir);
    rl_model *m = check_read_model(path);
    char *start = cJSON_PrintUnformatted(unit);
    for (int i = 0; m && i < 2; i++) {
        snprintf(path, sizeof path, "%s/fixtures/measured/%s", tests_dir, runs[i][0]);
        char *text = check_read_file(path, NULL);
        rl_fit_input in = {m, "small_cnn.onnx", text, "ort", NULL};
        char *out = text ? rl_fit_forecast(start, &in, 1, NULL) : NULL;
        cJSON *res = cJSON_Parse(out ? out : "");
        CHECK(!strcmp(check_str(res, "profile.forecast.conv_lowering"), runs[i][1]) &&
                  strstr(check_str(res, "fit.conv_lowering_from"), "runs' kernels"),
              "%s: convolutions %s, told by %s", runs[i][0], check_str(res, "profile.forecast.conv_lowering"),
              check_str(res, "fit.conv_lowering_from"));
        CHECK(!strcmp(check_str(res, "profile.forecast.shape_ops"), runs[i][2]), "%s: shape_ops %s (%s by hand)",
              runs[i][0], check_str(res, "profile.forecast.shape_ops"), runs[i][2]);
        cJSON_Delete(res);
        rl_free(out);
        free(text);
    }
    free(start);
    rl_model_free(m);
}

/* A calibrated stack whose fit had no kernel of a class (its figures kept
 * as the base profile's, kind "estimated") says so when that class carries
 * a tenth of the forecast or more: the band does not cover it. Not for an
 * analytic stack (every figure is an estimate, and its band says so), nor
 * once the class's figures are measured. */
static void warns_of_unfitted_classes(const cJSON *unit) {
    double compute[RL_CLASS_COUNT], memory[RL_CLASS_COUNT];
    for (int c = 0; c < RL_CLASS_COUNT; c++) compute[c] = memory[c] = 1;
    compute[RL_CLASS_DEPTHWISE] = memory[RL_CLASS_DEPTHWISE] = 1e-3; /* its work sets the forecast */
    rl_model *m = fixture("conv_net.onnx");
    const char *cases[][2] = {{"calibrated", "estimated"}, {"calibrated", "measured"}, {"analytic", "estimated"}};
    for (int i = 0; m && i < 3; i++) {
        cJSON *hw = with_forecast(unit, compute, memory, 1e-6, 0), *f = cJSON_GetObjectItem(hw, "forecast");
        cJSON_AddStringToObject(f, "basis", cases[i][0]);
        cJSON *cl;
        cJSON_ArrayForEach(cl, cJSON_GetObjectItem(f, "classes")) {
            bool dw = !strcmp(cl->string, "depthwise");
            cJSON *k1 = cJSON_GetObjectItem(cJSON_GetObjectItem(cl, "compute_fraction"), "kind");
            cJSON *k2 = cJSON_GetObjectItem(cJSON_GetObjectItem(cl, "memory_fraction"), "kind");
            const char *kind = dw ? cases[i][1] : "measured";
            cJSON_SetValuestring(k1, kind), cJSON_SetValuestring(k2, kind);
        }
        cJSON *res = analyze(m, hw, "fused", 1);
        char *warnings = cJSON_PrintUnformatted(cJSON_GetObjectItem(res, "warnings"));
        bool warned = warnings && strstr(warnings, "forecast_unfitted_classes") != NULL;
        free(warnings);
        CHECK(warned == (i == 0), "%s stack, depthwise figures %s: %s", cases[i][0], cases[i][1],
              warned ? "warned" : "no warning");
        cJSON_Delete(res), cJSON_Delete(hw);
    }
    rl_model_free(m);
}

/* A calibrated stack that rewrites its graph says when a tenth or more of
 * the forecast is operator types its fit never measured (a class's
 * fitted_ops lacks them, or the class borrowed its figures and lists
 * none); a stack that runs the graph as written, or a profile whose fit
 * listed no operator types, says nothing. */
static void warns_of_unseen_ops(const cJSON *unit) {
    static const double half[RL_CLASS_COUNT] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
    rl_model *m = fixture("conv_net.onnx");
    /* conv_net's operator types, by the class its layers report */
    cJSON *plain = m ? analyze(m, unit, "fused", 1) : NULL;
    const struct { const char *name; bool list_conv, any_list, rewrites; bool warns; } cases[] = {
        {"every type listed", true, true, true, false},
        {"convolutions borrowed (none listed)", false, true, true, true},
        {"the same, a stack that runs the graph as written", false, true, false, false},
        {"no class lists its types (an older fit)", false, false, true, false},
    };
    for (size_t i = 0; plain && i < sizeof cases / sizeof *cases; i++) {
        cJSON *hw = with_forecast(unit, half, half, 1e-6, 0), *f = cJSON_GetObjectItem(hw, "forecast");
        cJSON_AddStringToObject(f, "basis", "calibrated");
        cJSON_AddStringToObject(f, "fusion", cases[i].rewrites ? "epilogue" : "none");
        cJSON_AddStringToObject(f, "shape_ops", cases[i].rewrites ? "distinct" : "dynamic");
        cJSON *cl;
        cJSON_ArrayForEach(cl, cJSON_GetObjectItem(f, "classes")) {
            cJSON_SetValuestring(cJSON_GetObjectItem(cJSON_GetObjectItem(cl, "compute_fraction"), "kind"), "measured");
            cJSON_SetValuestring(cJSON_GetObjectItem(cJSON_GetObjectItem(cl, "memory_fraction"), "kind"), "measured");
            bool conv = !strcmp(cl->string, "convolution");
            if (!cases[i].any_list || (conv && !cases[i].list_conv)) continue;
            cJSON *ops = cJSON_AddArrayToObject(cl, "fitted_ops");
            const cJSON *l;
            cJSON_ArrayForEach(l, cJSON_GetObjectItem(plain, "layers"))
                if (!strcmp(check_str(l, "op_class"), cl->string))
                    cJSON_AddItemToArray(ops, cJSON_CreateString(check_str(l, "op")));
            if (!cJSON_GetArraySize(ops)) cJSON_AddItemToArray(ops, cJSON_CreateString("Identity"));
        }
        cJSON *res = analyze(m, hw, "fused", 1);
        char *warnings = cJSON_PrintUnformatted(cJSON_GetObjectItem(res, "warnings"));
        const char *w = warnings ? strstr(warnings, "forecast_unseen_ops") : NULL;
        CHECK((w != NULL) == cases[i].warns && (!w || strstr(w, "Conv (convolution")), "%s: %.400s", cases[i].name,
              w ? w : "no warning");
        free(warnings);
        cJSON_Delete(res), cJSON_Delete(hw);
    }
    cJSON_Delete(plain);
    rl_model_free(m);
}

/* A band from a fit's cross-validation over fewer than 8 models says so on
 * the forecast; one over 8 or more, or of published results, does not.
 * The models count, not the runs: a four-model fit's pairs give 12 runs. */
static void warns_of_few_band_runs(const cJSON *unit) {
    static const double half[RL_CLASS_COUNT] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
    const struct { double runs, models; const char *basis; bool warns; } cases[] = {
        {4, 0, "fit cross-validation", true}, {7, 0, "fit cross-validation", true},
        {8, 0, "fit cross-validation", false}, {4, 0, "published results", false},
        {12, 4, "fit cross-validation", true}, {45, 10, "fit cross-validation", false}};
    rl_model *m = fixture("conv_net.onnx");
    for (size_t i = 0; m && i < sizeof cases / sizeof *cases; i++) {
        cJSON *hw = with_forecast(unit, half, half, 1e-6, 0), *f = cJSON_GetObjectItem(hw, "forecast");
        cJSON *b = cJSON_AddObjectToObject(f, "band");
        cJSON_AddNumberToObject(b, "low", 0.9), cJSON_AddNumberToObject(b, "high", 1.1);
        cJSON_AddNumberToObject(b, "runs", cases[i].runs);
        if (cases[i].models > 0) cJSON_AddNumberToObject(b, "models", cases[i].models);
        cJSON_AddNumberToObject(b, "median_error", 0.03), cJSON_AddNumberToObject(b, "worst_error", 0.1);
        cJSON_AddStringToObject(b, "basis", cases[i].basis);
        cJSON_AddStringToObject(b, "source", "test");
        cJSON *res = analyze(m, hw, "fused", 1);
        char *warnings = cJSON_PrintUnformatted(cJSON_GetObjectItem(res, "warnings"));
        bool warned = warnings && strstr(warnings, "forecast_band_few_runs") != NULL;
        CHECK(cJSON_IsNumber(check_at(res, "forecast.low_s")) && warned == cases[i].warns,
              "a band of %g runs of %g models (%s): %s", cases[i].runs, cases[i].models, cases[i].basis,
              warned ? "warned" : "no warning");
        free(warnings);
        cJSON_Delete(res), cJSON_Delete(hw);
    }
    rl_model_free(m);
}

/* Every shipped profile forecasts with its own parameters, not the core's
 * generic defaults: its forecast block names the stack and gives every
 * figure (docs/model.md §12.4), and the analysis says so. */
static void shipped_forecast(void) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/hw", root_dir);
    DIR *d = opendir(dir);
    CHECK(d != NULL, "cannot open %s", dir);
    int n = 0;
    struct dirent *e;
    static const char *const needed[] = {"kernel_overhead_s", "matrix_units", "tile_m", "tile_n", "tile_k"};
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json")) continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        cJSON *p = check_read_json(path);
        const cJSON *f = cJSON_GetObjectItem(p, "forecast");
        bool ok = cJSON_IsString(cJSON_GetObjectItem(f, "stack"));
        for (size_t i = 0; i < sizeof needed / sizeof *needed; i++) ok = ok && cJSON_GetObjectItem(f, needed[i]);
        for (int c = 0; c < RL_CLASS_COUNT; c++) {
            const cJSON *co = cJSON_GetObjectItem(cJSON_GetObjectItem(f, "classes"), rl_value_id(RL_LIST_OP_CLASS, c));
            ok = ok && cJSON_GetObjectItem(co, "compute_fraction") && cJSON_GetObjectItem(co, "memory_fraction");
        }
        CHECK(ok, "%s: a complete forecast block (stack, every figure, every class)", e->d_name);
        n++;
        cJSON_Delete(p);
    }
    if (d) closedir(d);
    CHECK(n >= 26, "the shipped profiles were found (%d)", n);
}

int main(int argc, char **argv) {
    tests_dir = argc > 1 ? argv[1] : ".";
    root_dir = argc > 2 ? argv[2] : "..";
    cJSON *unit = check_read_hw(tests_dir, root_dir, "unit");
    quantization();
    shipped_forecast();
    if (unit) {
        classes(unit);
        grouped_conv(unit);
        grouped_calls(unit);
        depthwise_lowering(unit);
        layout_reorders(unit);
        channel_block(unit);
        conv_lowering(unit);
        shape_ops(unit);
        fit_finds_shape_ops(unit);
        clamp(unit);
        validation(unit);
        band(unit);
        fit_tests(unit);
        fit_finds_im2col(unit);
        fit_fills_gaps_from_probes(unit);
        probe_model(unit);
        fit_real_profiles(unit);
        cJSON *per_class = class_cost_profile(unit, 3e-5);
        cJSON_DeleteItemFromObject(cJSON_GetObjectItem(per_class, "forecast"), "stack");
        fit_real_profiles(per_class);
        cJSON_Delete(per_class);
        class_kernel_costs(unit);
        folded_broadcasts();
        stack_plan(unit);
        pooling_plan(unit);
        branching_plan(unit);
        fit_finds_epilogues_apart(unit);
        fit_refuses_impossible_times(unit);
        fit_refuses_long_gaps(unit);
        fit_takes_tiny_gaps(unit);
        fit_measures_growing_gaps(unit);
        fit_replaces_time_between(unit);
        fit_refuses_bad_pairs(unit);
        fit_pools_samples(unit);
        fit_reads_lowering_from_kernels(unit);
        warns_of_unfitted_classes(unit);
        warns_of_few_band_runs(unit);
        warns_of_unseen_ops(unit);
    }
    fit_informs_bound_sides();
    fit_keeps_untold_fractions();
    fit_needs_two_kernels();
    cJSON_Delete(unit);
    return check_report("forecast");
}
