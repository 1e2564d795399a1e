/* The layout conversions of a blocked CPU stack (forecast.h,
 * rl_fc_layout_reorders; docs/model.md §12.2). */
#include <string.h>

#include "forecast.h"
#include "ops/op.h"

double rl_fc_channel_block(const rl_forecast_params *p) { return p->channel_block > 0 ? p->channel_block : p->tile_n; }

bool rl_fc_blocked_layout(const rl_forecast_params *p) {
    return !p->im2col && p->group_calls && rl_fc_channel_block(p) > 1;
}

/* Whether v is a float tensor of rank 4 (NCHW), the only kind the layout takes. */
static bool nchw_float(const rl_value *v) { return v && v->rank == 4 && v->dtype == RL_DT_FLOAT; }

/* A weight the runtime can reorder once, when the session starts. */
static bool constant_weight(const rl_value *w) {
    return w && (w->kind == RL_VALUE_WEIGHT || w->kind == RL_VALUE_CONSTANT);
}

/* read after shape inference took the node: no error to report (NULL context) */
static int64_t conv_group_count(const rl_node *n) { return rl_attr_i(NULL, n, "group", 1); }

/* The ops that keep a blocked input blocked, one input read in that layout
 * (the rest are the op's parameters): pooling over the whole map, the
 * activations the runtime runs on blocks or fuses into the convolution
 * before them, and a normalization it runs as a 1x1 depthwise convolution. */
static bool passes_blocks(const rl_node *n) {
    static const char *const ops[] = {"GlobalAveragePool", "GlobalMaxPool", "Relu", "Sigmoid", "Tanh", "Clip",
                                      "HardSigmoid", "HardSwish", "LeakyRelu", "BatchNormalization", NULL};
    for (int i = 0; ops[i]; i++)
        if (!strcmp(n->op_type, ops[i])) return n->n_out == 1;
    return false;
}

/* A Pad of a map's borders alone (constant pads, none on the batch or the
 * channels), which the runtime folds into the pooling or convolution after
 * it (its pad fusion): PyTorch exports an average pooling that pads as a
 * Pad and an AveragePool, DenseNet's transitions among them. */
static bool pads_borders_only(const rl_node *n) {
    if (strcmp(n->op_type, "Pad") || n->n_out != 1 || n->n_in < 2 || !n->inv[1]) return false;
    const rl_value *pads = n->inv[1];
    if (pads->n_known != 8 || !pads->ival) return false;
    return pads->ival[0] == 0 && pads->ival[1] == 0 && pads->ival[4] == 0 && pads->ival[5] == 0;
}

/* The layout's state of a graph, per value (arena memory). */
typedef struct layout {
    int64_t *channels; /* a blocked value's logical channels, -1 for a value in the plain layout */
    int *blocked_uses; /* the reads of a blocked value that take it blocked */
    int *reorder_in;   /* the first node that reads a plain value blocked (it is reordered once), -1 none */
} layout;

/* v's index in g's values; -1 for a value of another scope (or none). */
static int value_index(const rl_graph *g, const rl_value *v) {
    return v && v >= g->values && v < g->values + g->n_values ? (int)(v - g->values) : -1;
}

/* Node n reads its input x blocked (`blocked`: x needs no reorder). */
static void read_blocked(const rl_graph *g, layout *L, const rl_value *x, int node) {
    int i = value_index(g, x);
    if (i < 0) return;
    if (L->channels[i] >= 0) L->blocked_uses[i]++;
    else if (L->reorder_in[i] < 0) L->reorder_in[i] = node;
}

/* Whether every input of n is blocked, with the same channels and, for an
 * elementwise op (`same_shape`), the same shape: a broadcast (an SE block's
 * scale times its map) runs in the plain layout. *ch receives the sum of
 * their channels (`sum`) or the first one's. */
static bool inputs_blocked(const rl_graph *g, const layout *L, const rl_node *n, bool same_shape, bool sum,
                           int64_t *ch) {
    if (n->n_in < 1) return false;
    *ch = 0;
    for (int j = 0; j < n->n_in; j++) {
        const rl_value *v = n->inv[j], *v0 = n->inv[0];
        int vi = value_index(g, v), v0i = value_index(g, v0);
        if (vi < 0 || v0i < 0) return false;
        int64_t cj = L->channels[vi];
        if (cj < 0) return false;
        if (same_shape) {
            if (cj != L->channels[v0i] || v->rank != v0->rank) return false;
            for (int d = 0; d < v->rank; d++)
                if (v->dims[d] != v0->dims[d]) return false;
        }
        *ch = sum ? *ch + cj : (j == 0 ? cj : *ch);
    }
    return true;
}

/* Walk the graph in topological order as ONNX Runtime's NCHWc transformer
 * does (its rules, ONNX Runtime 1.30: a Conv with a constant FP32 weight
 * takes the blocked layout, its channels padded to whole blocks; a
 * grouped one only when each group's channels fill whole blocks, a
 * depthwise one always; a first Conv of fewer input channels than a block
 * reads its plain input; pooling windows take any channels; Add, Sum and
 * Mul of blocked inputs of one shape, Concat on the channels of blocked
 * inputs and passes_blocks's ops stay blocked). */
static void walk(const rl_graph *g, int64_t block, layout *L) {
    for (int k = 0; k < g->n_nodes; k++) {
        int i = g->order ? g->order[k] : k;
        const rl_node *n = &g->nodes[i];
        if (!n->op_type || n->n_out < 1 || !n->outv[0] || (n->domain && n->domain[0])) continue;
        const rl_value *x = n->n_in > 0 ? n->inv[0] : NULL;
        int out = value_index(g, n->outv[0]), xi = value_index(g, x);
        int64_t ch = -1;
        if (out < 0) continue;
        if (!strcmp(n->op_type, "Conv")) {
            const rl_value *w = n->n_in > 1 ? n->inv[1] : NULL;
            if (!nchw_float(x) || !nchw_float(w) || !constant_weight(w)) continue;
            int64_t co = w->dims[0], ci = w->dims[1], groups = conv_group_count(n);
            bool depthwise = groups > 1 && ci == 1 && co == groups;
            if (groups > 1 && !depthwise && (ci % block || (co / groups) % block)) continue;
            if (groups > 1 || ci >= block) read_blocked(g, L, x, i);
            ch = co;
        } else if (!strcmp(n->op_type, "MaxPool") || !strcmp(n->op_type, "AveragePool")) {
            if (n->n_out != 1 || !nchw_float(x) || x->dims[1] <= 0) continue;
            read_blocked(g, L, x, i);
            ch = x->dims[1];
        } else if (passes_blocks(n) || pads_borders_only(n)) {
            if (xi < 0 || L->channels[xi] < 0) continue;
            L->blocked_uses[xi]++;
            ch = L->channels[xi];
        } else if (!strcmp(n->op_type, "Add") || !strcmp(n->op_type, "Sum") || !strcmp(n->op_type, "Mul")) {
            if (!inputs_blocked(g, L, n, true, false, &ch)) continue;
            for (int j = 0; j < n->n_in; j++) L->blocked_uses[value_index(g, n->inv[j])]++;
        } else if (!strcmp(n->op_type, "Concat")) {
            int64_t axis = rl_attr_i(NULL, n, "axis", 0);
            if (axis < 0 && x) axis += x->rank; /* -3 of a rank-4 tensor is its channels too */
            if (axis != 1 || !inputs_blocked(g, L, n, false, true, &ch)) continue;
            for (int j = 0; j < n->n_in; j++) L->blocked_uses[value_index(g, n->inv[j])]++;
        } else {
            continue;
        }
        L->channels[out] = ch;
    }
}

/* One reorder of value v (its logical channels ch; node `at` takes its
 * time): the plain tensor read or written once and the blocked one, its
 * channels padded, the other way, in the cache level when both fit its
 * share, at the data-movement class's share of the bandwidth, plus that
 * class's fixed cost per kernel. */
static void add_reorder(rl_ctx *c, const rl_prepared *pg, const rl_hw *hw, const rl_value *v, int64_t ch, int at,
                        rl_layer_time *lt, rl_forecast *f, double *e_dyn) {
    const rl_forecast_params *p = &hw->fc;
    double scale = pg->per_sample && at >= 0 && pg->per_sample[at] ? pg->batch_scale : 1;
    double plain = rl_value_bytes(c, v) * scale;
    if (!(plain > 0) || ch <= 0) return;
    int64_t block = (int64_t)rl_fc_channel_block(p);
    double padded = plain * (double)((ch + block - 1) / block) * (double)block / (double)ch;
    double bytes = plain + padded;
    int level = hw->fc.cache_level;
    bool cached = level > 0 && bytes <= RL_FC_CACHE_SHARE * hw->mem_cap[level];
    double fixed = rl_fc_class_kernel_s(p, RL_CLASS_MOVEMENT);
    double t = bytes / (hw->mem_bw[cached ? level : 0] * p->memory[RL_CLASS_MOVEMENT]) + fixed;
    f->kernels_s += t;
    if (cached) f->cache_bytes += bytes;
    else f->dram_bytes += bytes, *e_dyn += hw->e_byte * bytes;
    f->by_class[RL_CLASS_MOVEMENT].time_s += t, f->by_class[RL_CLASS_MOVEMENT].kernels += 1;
    f->reorders += 1, f->reorders_s += t;
    if (lt && at >= 0) lt[at].forecast_s += t, lt[at].forecast_fixed_s += fixed;
}

void rl_fc_layout_reorders(rl_ctx *c, const rl_prepared *pg, const rl_hw *hw, rl_layer_time *lt, rl_forecast *f,
                           double *e_dyn) {
    const rl_graph *g = pg->graph;
    if (!rl_fc_blocked_layout(&hw->fc) || g->n_values < 1) return;
    layout L = {rl_arena_alloc(c->arena, (size_t)g->n_values * sizeof *L.channels),
                rl_arena_alloc(c->arena, (size_t)g->n_values * sizeof *L.blocked_uses),
                rl_arena_alloc(c->arena, (size_t)g->n_values * sizeof *L.reorder_in)};
    if (!L.channels || !L.blocked_uses || !L.reorder_in) return; /* out of memory: none counted */
    for (int v = 0; v < g->n_values; v++) L.channels[v] = -1, L.blocked_uses[v] = 0, L.reorder_in[v] = -1;
    walk(g, (int64_t)rl_fc_channel_block(&hw->fc), &L);
    for (int v = 0; v < g->n_values; v++) {
        const rl_value *val = &g->values[v];
        /* a plain value read blocked: reordered in, once, before its first such reader */
        if (L.reorder_in[v] >= 0) add_reorder(c, pg, hw, val, val->rank == 4 ? val->dims[1] : 0, L.reorder_in[v], lt, f, e_dyn);
        /* a blocked value some reader (or the graph's output) takes plain: reordered out, once */
        int plain_uses = val->consumers + (val->is_graph_output ? 1 : 0) - L.blocked_uses[v];
        if (L.channels[v] >= 0 && plain_uses > 0) add_reorder(c, pg, hw, val, L.channels[v], val->producer, lt, f, e_dyn);
    }
}
