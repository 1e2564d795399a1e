/* The forecast (forecast.h; the model in words: docs/model.md §12). */
#include <math.h>
#include <string.h>

#include "forecast.h"
#include "ops/families.h"
#include "ops/op.h"

static double max2(double a, double b) { return a > b ? a : b; }

/* ------------------------------------------------------------- classes -- */
/* The class of each operator family whose ops are all of one kind; control
 * flow, misc and classical-ML families are classed by each node's work. */
static const struct {
    const rl_op_family *family;
    int cls;
} family_class[] = {
    /* the commonest families first: every node of a model looks its own up */
    {&rl_family_elementwise, RL_CLASS_ELEMENTWISE}, {&rl_family_matmul, RL_CLASS_MATRIX},
    {&rl_family_views, RL_CLASS_MOVEMENT},          {&rl_family_conv, RL_CLASS_CONV},
    {&rl_family_layout, RL_CLASS_MOVEMENT},         {&rl_family_norm, RL_CLASS_NORM},
    {&rl_family_reduce, RL_CLASS_NORM},             {&rl_family_indexing, RL_CLASS_GATHER},
    {&rl_family_pool, RL_CLASS_NORM},               {&rl_family_attention, RL_CLASS_MATRIX},
    {&rl_family_rnn, RL_CLASS_MATRIX},              {&rl_family_quant, RL_CLASS_ELEMENTWISE},
    {&rl_family_generators, RL_CLASS_ELEMENTWISE},  {&rl_family_sequences, RL_CLASS_MOVEMENT},
    {&rl_family_sampling, RL_CLASS_MOVEMENT},
};

static bool in_family(const rl_op_def *op, const rl_op_family *f) { return op >= f->ops && op < f->ops + f->count; }

static int64_t conv_groups(const rl_node *n) {
    const Onnx__AttributeProto *a = rl_attr(n, "group");
    return a && a->i > 1 ? a->i : 1;
}

/* Input channels each group of a convolution reads: its weight's axis 1
 * ([C_out, C_in/g, kh, kw]); 1 when unknown. */
static int64_t channels_per_group(const rl_node *n) {
    const rl_value *w = n->n_in > 1 ? n->inv[1] : NULL;
    return w && w->rank >= 2 && w->dims[1] > 0 ? w->dims[1] : 1;
}

bool rl_fc_class_is_product(int cls) { return cls == RL_CLASS_MATRIX || cls == RL_CLASS_CONV; }

int rl_node_op_class(const rl_node *n) {
    const rl_cost *k = &n->cost;
    int cls = -1;
    if (n->op && (n->op->flags & RL_OP_ACTIVATION)) cls = RL_CLASS_ELEMENTWISE;
    for (size_t i = 0; n->op && cls < 0 && i < sizeof family_class / sizeof *family_class; i++)
        if (in_family(n->op, family_class[i].family)) cls = family_class[i].cls;
    /* a depthwise convolution (one input channel a group) is no product at
     * all; a grouped one with several channels a group is g small products,
     * each quantized on its own (node_quantization), as a dense one is. A
     * convolution is a class apart from GEMMs: a CPU runtime runs it as a
     * direct convolution kernel of its own (ONNX Runtime's NCHWc
     * convolutions beside its packed SGEMM), a GPU engine as an implicit
     * GEMM, each at its own share of the peak */
    if (cls == RL_CLASS_CONV && conv_groups(n) > 1 && channels_per_group(n) == 1) return RL_CLASS_DEPTHWISE;
    if (k->matrix_flops > 0 && cls == RL_CLASS_CONV) return RL_CLASS_CONV;
    if (k->matrix_flops > 0 && cls != RL_CLASS_DEPTHWISE) return RL_CLASS_MATRIX;
    if (rl_fc_class_is_product(cls) || cls < 0)
        return k->vector_flops > 0 || cls < 0 ? RL_CLASS_ELEMENTWISE : RL_CLASS_MOVEMENT;
    return cls;
}

/* -------------------------------------------------------- quantization -- */
/* ceil and floor of x ≥ 0 inline: libm's are calls on a plain x86-64
 * build, and the tilings below take a dozen for every matrix node. Beyond
 * 2^52 every double is whole. */
static double ceil_pos(double x) {
    if (!(x < 4503599627370496.0)) return x;
    double t = (double)(int64_t)x;
    return t < x ? t + 1 : t;
}

static double floor_pos(double x) { return x < 4503599627370496.0 ? (double)(int64_t)x : x; }

/* Useful share of one tiling: padding of M and N to whole tiles, of K to
 * whole steps, and of the last wave of tiles over the units. */
static double tiling_share(const rl_forecast_params *p, double tm, double tn, double m, double n, double k,
                           double batch) {
    double mt = ceil_pos(m / tm), nt = ceil_pos(n / tn), kt = ceil_pos(k / p->tile_k);
    double pad = (m * n) / (mt * tm * nt * tn) * (k / (kt * p->tile_k));
    double tiles = batch * mt * nt;
    /* too few tiles to fill the units: the engine splits K among them */
    if (tiles < p->units) {
        double split = floor_pos(p->units / tiles);
        tiles *= split < kt ? split : kt;
    }
    double waves = ceil_pos(tiles / p->units);
    return pad * tiles / (waves * p->units);
}

/* rl_matrix_quantization with tile_n replaced by tile_n_full (a blocked
 * layout's channel block for a direct convolution). */
static double quantization_with_n(const rl_forecast_params *p, double tile_n_full, double m, double n, double k,
                                  double batch) {
    if (!(m >= 1 && n >= 1 && k >= 1 && batch >= 1) || !isfinite(m * n * k * batch)) return 1;
    /* the engine halves its tile (up to 3 times) only while the tiles do
     * not fill the units: smaller tiles reuse less, so big products keep it.
     * M no larger than the smallest tile gets it at once, filled or not: a
     * skinny product's kernel (a GEMV for M = 1, as the batched products of
     * a decode step's attention) reuses along M no more anyway */
    double m_min = max2(1, floor_pos(p->tile_m / 8));
    double best = 0;
    for (int s = 0; s < 4; s++) {
        double tm = max2(1, floor_pos(p->tile_m / (1 << s))), tn = max2(1, floor_pos(tile_n_full / (1 << s)));
        if (m <= m_min) tm = m_min;
        best = max2(best, tiling_share(p, tm, tn, m, n, k, batch));
        if (batch * ceil_pos(m / tm) * ceil_pos(n / tn) >= p->units) break;
    }
    return best > 0 && best <= 1 ? best : 1;
}

double rl_matrix_quantization(const rl_forecast_params *p, double m, double n, double k, double batch) {
    return quantization_with_n(p, p->tile_n, m, n, k, batch);
}

/* Whether a grouped (not depthwise) convolution runs one GEMM call a
 * group: in a stack that does so ("grouped_conv": "per_group"), every one
 * when it lowers by im2col; with a blocked direct convolution
 * ("implicit_gemm", ONNX Runtime's NCHWc layout), only one whose channels a
 * group, in and out, do not fill whole blocks of the layout (the FP32 lanes
 * of a vector register, rl_fc_channel_block: 16 with AVX-512F, 8 with
 * AVX2; RegNetX-1.6GF's 24 channels a group fill them only with AVX2), which the
 * layout cannot hold and the stack runs plain. Charged a call a group,
 * RegNetX-400MF's 16 channels a group (25 groups at its widest) were
 * forecast 26-44 % long by every fit with graph optimisations on
 * (docs/validation.md, run 6): ONNX Runtime runs them blocked, as one
 * kernel. */
static bool conv_per_group_calls(const rl_forecast_params *p, const rl_node *n) {
    int64_t g = conv_groups(n), in_per_group = channels_per_group(n);
    if (!p->group_calls || g <= 1 || in_per_group == 1 || !n->op_type || strcmp(n->op_type, "Conv")) return false;
    if (p->im2col) return true;
    const rl_value *out = n->n_out > 0 ? n->outv[0] : NULL;
    int64_t block = (int64_t)rl_fc_channel_block(p), out_per_group = out && out->rank >= 2 ? out->dims[1] / g : 0;
    return block > 1 && (in_per_group % block != 0 || out_per_group <= 0 || out_per_group % block != 0);
}

/* Whether a depthwise Conv runs as one GEMM a channel on im2col columns,
 * for want of a kernel of its own: in a stack that lowers by im2col
 * (ONNX Runtime's NCHW Conv on x86: MLAS has a depthwise kernel only in its
 * WebAssembly and Arm64 builds, so each channel's patches are expanded into
 * columns for a one-row GEMM). A blocked stack ("implicit_gemm", ONNX
 * Runtime's NCHWc layout) runs every one with its depthwise kernel, its
 * channels padded to whole blocks (depthwise_block_share). */
static bool depthwise_by_im2col(const rl_forecast_params *p, const rl_node *n) {
    return p->im2col && conv_groups(n) > 1 && channels_per_group(n) == 1 && n->op_type && !strcmp(n->op_type, "Conv");
}

/* The useful share of a depthwise Conv's work in a blocked CPU stack (one
 * that runs a grouped convolution's groups call by call, as
 * conv_per_group_calls reads it: its blocks are the FP32 lanes of a vector
 * register, rl_fc_channel_block): its channels padded to whole blocks. ONNX
 * Runtime 1.30 with AVX-512F runs MobileNetV3-Large's 72, 184 and 200
 * channels as 80, 192 and 208 (its profile's NCHWc output shapes). 1 in any
 * other stack: a GPU engine's depthwise kernel is no GEMM, and its tile_n no
 * block of channels. */
static double depthwise_block_share(const rl_forecast_params *p, const rl_node *n) {
    if (!rl_fc_blocked_layout(p)) return 1;
    const rl_value *out = n->n_out > 0 ? n->outv[0] : NULL;
    if (!out || out->rank < 2 || out->dims[1] <= 0) return 1;
    double c = (double)out->dims[1], block = rl_fc_channel_block(p);
    return c / (ceil_pos(c / block) * block);
}

/* A Conv the stack lowers by im2col (conv_lowering "im2col"): one GEMM of
 * filters × columns per image and group; so is a grouped one a blocked
 * stack runs plain (conv_per_group_calls), and a depthwise one in a stack
 * with no depthwise kernel (depthwise_by_im2col). */
static bool lowered_by_im2col(const rl_forecast_params *p, const rl_node *n) {
    return (p->im2col && n->op_type && !strcmp(n->op_type, "Conv")) || conv_per_group_calls(p, n) ||
           depthwise_by_im2col(p, n);
}

/* A matrix node as an M×N×K product: a convolution's implicit GEMM (M the
 * output pixels, N its output channels per group, one product per group),
 * or, lowered by im2col, filters × columns (M the output channels per
 * group, N the pixels of one image, one product per image and group); else
 * the last two axes of its output with the leading ones as the batch. K is
 * its MACs per output element, which *k receives (0 when unknown). */
static double node_quantization(const rl_prepared *pg, const rl_forecast_params *p, const rl_node *n, double *k) {
    const rl_value *out = n->n_out > 0 ? n->outv[0] : NULL;
    *k = 0;
    if (!out || out->rank < 1 || rl_numel(out) <= 0 || n->cost.macs <= 0) return 1;
    double scale = pg->per_sample && pg->per_sample[n->index] ? pg->batch_scale : 1;
    double elems = (double)rl_numel(out) * scale, m = 1, nn = 1, batch = 1;
    if (n->op && in_family(n->op, &rl_family_conv) && out->rank >= 3 && out->dims[0] > 0) {
        double g = (double)conv_groups(n), pixels = elems / (double)out->dims[1];
        if (lowered_by_im2col(p, n)) {
            double images = (double)out->dims[0] * scale;
            m = (double)out->dims[1] / g, nn = pixels / images, batch = g * images;
        } else {
            nn = (double)out->dims[1] / g, batch = g, m = pixels;
            /* a blocked layout pads the output channels to its blocks, not
             * to the GEMM's strips: the direct kernel writes whole blocks */
            if (rl_fc_blocked_layout(p)) {
                *k = n->cost.macs / elems;
                return quantization_with_n(p, rl_fc_channel_block(p), m, nn, *k, batch);
            }
        }
    } else {
        nn = (double)out->dims[out->rank - 1];
        /* A product with one shared right-hand matrix (a weight: MatMul
         * [.., M, K] x [K, N], Gemm) is one GEMM over every leading row, as
         * runtimes flatten it: [197, 1, 768] x [768, 2304] is 197 x 2304, not
         * 197 products of one row. Batched right-hand sides stay a batch. */
        const rl_value *b = n->n_in > 1 ? n->inv[1] : NULL;
        bool shared_rhs = b && b->rank >= 1 && b->rank <= 2;
        m = shared_rhs ? elems / nn : out->rank >= 2 ? (double)out->dims[out->rank - 2] : 1;
        batch = elems / (m * nn);
    }
    *k = n->cost.macs / elems;
    return rl_matrix_quantization(p, m, nn, *k, batch);
}

/* The groups a grouped convolution runs, each a small product of its own:
 * its group attribute times the images of its batch (N of its NCHW output,
 * and the batch scale of a fixed-batch graph). */
static double conv_group_runs(const rl_prepared *pg, const rl_node *n) {
    const rl_value *out = n->n_out > 0 ? n->outv[0] : NULL;
    double images = out && out->rank >= 3 && out->dims[0] > 0 ? (double)out->dims[0] : 1;
    double scale = pg->per_sample && pg->per_sample[n->index] ? pg->batch_scale : 1;
    return (double)conv_groups(n) * images * scale;
}

/* What an im2col lowering moves for Conv node n before its product, and in
 * *buffer the column matrix's bytes: each output pixel's patch (its K =
 * MACs per output element, the input channels of a group times the
 * kernel's size) for every group, in the input's element size. The
 * columns are written, then read and written again as the GEMM packs its
 * right-hand operand, as a CPU GEMM does for an operand it was not given
 * packed: 3 times the matrix. A pointwise convolution (a 1×1 kernel,
 * stride 1, no padding, which the pixels tell: they are the input's) is
 * its own column matrix, only packed: 2 times. */
static double lowering_bytes(const rl_ctx *c, const rl_node *n, double *buffer) {
    *buffer = 0;
    const rl_value *x = n->n_in > 0 ? n->inv[0] : NULL, *w = n->n_in > 1 ? n->inv[1] : NULL;
    const rl_value *out = n->n_out > 0 ? n->outv[0] : NULL;
    if (!x || !w || !out || x->rank != out->rank || w->rank != out->rank || out->rank < 3 || out->dims[1] <= 0)
        return 0;
    bool pointwise = true;
    for (int d = 2; d < out->rank; d++) pointwise = pointwise && w->dims[d] == 1 && x->dims[d] == out->dims[d];
    double elems = (double)rl_numel(x);
    if (!(elems > 0)) return 0;
    /* the MACs are the batch's already (timing.c scales them) */
    *buffer = n->cost.macs * (double)conv_groups(n) / (double)out->dims[1] * rl_value_bytes(c, x) / elems;
    return (pointwise ? 2 : 3) * *buffer;
}

/* -------------------------------------------------------------- traffic -- */
/* The node whose output `v` is, looking through metadata views; *made
 * receives that output. -1 for a graph input or weight. */
static int source_node(const rl_graph *g, const rl_value *v, const rl_value **made) {
    *made = v;
    int p = v->producer;
    for (int hops = 0; p >= 0 && hops < g->n_nodes; hops++) {
        const rl_node *q = &g->nodes[p];
        if (!(q->op && (q->op->flags & RL_OP_VIEW)) || q->n_in < 1 || !q->inv[0]) return p;
        *made = q->inv[0];
        p = q->inv[0]->producer;
    }
    return p;
}

/* Bytes of node n's traffic that stay inside its kernel: the inputs another
 * node of the same kernel made, and their writes when n is their only reader. */
static double kernel_internal_bytes(const rl_ctx *c, const rl_prepared *pg, const rl_node *n, const int *set_of) {
    const rl_graph *g = pg->graph;
    double bytes = 0;
    for (int j = 0; j < n->n_in; j++) {
        const rl_value *v = n->inv[j], *made;
        if (!v) continue;
        int p = source_node(g, v, &made);
        if (p < 0 || p == n->index || set_of[p] != set_of[n->index]) continue;
        double scale = pg->per_sample && pg->per_sample[p] ? pg->batch_scale : 1;
        double b = rl_value_bytes(c, made) * scale;
        bytes += b;
        if (made->consumers == 1 && !made->is_graph_output) bytes += b;
    }
    return bytes;
}

/* A stack that fuses reads a matrix product's operands in place instead of
 * copying them first ("broadcast": "folded"): a broadcast (Expand) through
 * stride-0 axes (grouped-query attention reads each KV head once, not
 * repeated per query head), and a transpose in the transposed order (a
 * GEMM's transA/transB). When the chain up from an operand through views
 * and such nodes, each value read by the next alone, reaches a broadcast,
 * its broadcasts and transposes move nothing (fold < 0) and the product
 * reads the chain's source instead (fold: the bytes it does not read). A
 * transpose alone keeps its size: the product reads as much either way.
 * Arena memory, one per node; NULL when the stack copies them, when every
 * node runs on its own (the unfused model: each writes its output), when
 * the graph has no broadcast, or out of memory. A model output is written
 * whatever the stack. */
double *rl_fc_folded_layouts(rl_ctx *c, const rl_prepared *pg, const rl_hw *hw, bool unfused) {
    if (hw->fc.broadcast_copied || hw->fc.unfused || unfused) return NULL;
    const rl_graph *g = pg->graph;
    bool any = false; /* most graphs have no broadcast: nothing to fold, nothing to allocate */
    for (int i = 0; i < g->n_nodes && !any; i++) any = g->nodes[i].op && (g->nodes[i].op->flags & RL_OP_BROADCAST);
    if (!any) return NULL;
    double *fold = rl_arena_alloc(c->arena, (size_t)(g->n_nodes + 1) * sizeof *fold);
    if (!fold) return NULL;
    memset(fold, 0, (size_t)(g->n_nodes + 1) * sizeof *fold);
    for (int i = 0; i < g->n_nodes; i++) {
        const rl_node *n = &g->nodes[i];
        if (!(n->cost.matrix_flops > 0) || !rl_fc_class_is_product(rl_node_op_class(n))) continue;
        for (int j = 0; j < n->n_in; j++) {
            int chain[8], len = 0;
            bool broadcast = false;
            const rl_value *read = n->inv[j], *v = read;
            while (v && v->producer >= 0 && v->consumers == 1 && !v->is_graph_output && len < 8) {
                const rl_node *q = &g->nodes[v->producer];
                if (q->n_in < 1 || !q->inv[0]) break;
                bool bc = q->op && (q->op->flags & RL_OP_BROADCAST);
                bool layout = bc || (q->op_type && !strcmp(q->op_type, "Transpose") && !q->domain[0]);
                if (!layout && !(q->op && (q->op->flags & RL_OP_VIEW))) break;
                if (layout) chain[len++] = q->index;
                broadcast |= bc;
                v = q->inv[0];
            }
            if (!broadcast) continue;
            for (int h = 0; h < len; h++) fold[chain[h]] = -1;
            int p = read->producer;
            double scale = pg->per_sample && pg->per_sample[p] ? pg->batch_scale : 1;
            fold[i] += max2(rl_value_bytes(c, read) - rl_value_bytes(c, v), 0) * scale;
        }
    }
    return fold;
}

/* ------------------------------------------------------------- kernels -- */
/* What one node adds to its kernel's figures; returns its compute time at
 * the peaks. L (may be NULL): the timing pass's figures of the node, its
 * precision and the energy of its work, read instead of worked out again. */
static double add_node(rl_ctx *c, const rl_prepared *pg, const rl_options *o, const rl_hw *hw, const rl_node *n,
                       int cls, const rl_layer_time *L, rl_fc_kernel *k) {
    const rl_cost *q = &n->cost;
    int p = L ? L->prec : rl_node_timing_precision(c, o, hw, n);
    double steps = 0, quant = rl_fc_class_is_product(cls) ? node_quantization(pg, &hw->fc, n, &steps)
                              : cls == RL_CLASS_DEPTHWISE ? depthwise_block_share(&hw->fc, n) : 1;
    double tm = hw->matrix[p] > 0 ? q->matrix_flops / (hw->matrix[p] * quant) : 0;
    const int pv = rl_hw_vector_precision(hw, p);
    double tv = hw->vector[pv] > 0 ? q->vector_flops / hw->vector[pv] : 0;
    double tc = max2(tm, tv);
    k->tc[cls] += tc;
    /* each output tile's fixed work, in steps of K: its time is tm / K a step */
    if (steps > 0 && tm >= tv) k->tk += tm / steps;
    if (cls == RL_CLASS_CONV && lowered_by_im2col(&hw->fc, n)) {
        double buffer;
        k->columns_moved += lowering_bytes(c, n, &buffer);
        k->columns_bytes = max2(k->columns_bytes, buffer);
    } else if (cls == RL_CLASS_DEPTHWISE && depthwise_by_im2col(&hw->fc, n)) {
        /* a depthwise convolution with no kernel of its own expands each
         * channel's patches into columns and runs a one-row GEMM on them,
         * channel after channel: its columns are moved as a dense
         * convolution's are; the buffer is one channel's, reused */
        double buffer, moved = lowering_bytes(c, n, &buffer), runs = conv_group_runs(pg, n);
        k->columns_moved += moved;
        k->columns_bytes = max2(k->columns_bytes, runs > 1 ? buffer / runs : buffer);
    }
    /* every group of a grouped convolution is a product of its own: a
     * depthwise one's, and those of one kernel over every group, pay the
     * cost per group; one run one GEMM call a group (conv_per_group_calls)
     * pays a kernel's fixed cost for each call */
    if (n->op && in_family(n->op, &rl_family_conv) && conv_groups(n) > 1) {
        double runs = conv_group_runs(pg, n);
        if (cls == RL_CLASS_CONV && conv_per_group_calls(&hw->fc, n)) k->calls += runs - 1;
        else k->groups += runs;
    }
    k->e_flop += L ? L->flop_energy : rl_hw_flop_energy(hw, p, q->matrix_flops, q->vector_flops);
    return tc;
}

void rl_fc_kernel_figures(rl_ctx *c, const rl_prepared *pg, const rl_options *o, const rl_hw *hw, int first,
                          const int *next, const int *set_of, const double *fold, double kernels, rl_layer_time *lt,
                          rl_fc_kernel *k) {
    const rl_graph *g = pg->graph;
    memset(k, 0, sizeof *k);
    k->kernels = kernels;
    double bytes = 0, weights = 0, floor_bytes = 0, internal = 0, top_mf = 0, top_t = -1;
    int cls_m = -1, cls_t = RL_CLASS_ELEMENTWISE;
    for (int i = first; i >= 0; i = next ? next[i] : -1) {
        const rl_node *n = &g->nodes[i];
        const rl_cost *q = &n->cost;
        int cls = rl_node_op_class(n);
        double tc = add_node(c, pg, o, hw, n, cls, lt ? &lt[i] : NULL, k);
        double nb = q->input_bytes + q->weight_bytes + q->output_bytes;
        /* a folded node moves nothing; its reader reads its input in place */
        if (fold) nb = fold[i] < 0 ? 0 : max2(nb - fold[i], 0);
        /* a kernel of one node keeps nothing inside: none of its inputs is made there */
        bool alone = i == first && (!next || next[i] < 0);
        double inside = set_of && !alone ? kernel_internal_bytes(c, pg, n, set_of) : 0;
        /* its weight in the kernel: its own roofline on the traffic that leaves the kernel */
        double own = max2(tc, max2(nb - inside, 0) / hw->mem_bw[0]);
        if (lt) lt[i].op_class = cls, lt[i].forecast_s = own;
        bytes += nb;
        weights += q->weight_bytes;
        floor_bytes += lt ? lt[i].fused_bytes : rl_node_fused_bytes(c, pg, n);
        internal += inside;
        if (q->matrix_flops > top_mf) top_mf = q->matrix_flops, cls_m = cls;
        if (own > top_t) top_t = own, cls_t = cls;
    }
    k->cls = cls_m >= 0 ? cls_m : cls_t;
    /* never less traffic than the floor's fused model counts for these nodes */
    double traffic = max2(bytes - internal, floor_bytes);
    double act = max2(traffic - weights, 0);
    int L = hw->fc.cache_level;
    if (L > 0 && act <= RL_FC_CACHE_SHARE * hw->mem_cap[L]) k->cache_bytes = act;
    k->dram_bytes = traffic - k->cache_bytes;
    k->t_dram = k->dram_bytes / hw->mem_bw[0];
    k->t_cache = L > 0 ? k->cache_bytes / hw->mem_bw[L] : 0;
    /* the column matrices, written and packed: in the cache level when
     * they fit its share, else in main memory (counted in the traffic and
     * its energy, apart from the floor's) */
    if (k->columns_moved > 0) {
        bool cached = L > 0 && k->columns_bytes <= RL_FC_CACHE_SHARE * hw->mem_cap[L];
        k->t_columns = k->columns_moved / hw->mem_bw[cached ? L : 0];
        if (cached) k->cache_bytes += k->columns_moved;
        else k->dram_bytes += k->columns_moved;
    }
}

/* A kernel's fixed costs: each launch (and GEMM call) and each group, whatever its work. */
static double kernel_fixed_s(const rl_fc_kernel *k, const rl_forecast_params *p) {
    double per_kernel = rl_fc_class_kernel_s(p, k->cls);
    /* a further call inside one kernel pays no executor's time between kernels */
    double per_call = per_kernel > p->between_s ? per_kernel - p->between_s : 0;
    return k->kernels * per_kernel + k->calls * per_call + k->groups * p->group_s;
}

double rl_fc_kernel_time(const rl_fc_kernel *k, const rl_forecast_params *p) {
    /* an output tile's fixed work runs at the share of the peak of its product's class */
    double tc = k->tk * p->tile_k0 / p->compute[k->cls == RL_CLASS_CONV ? RL_CLASS_CONV : RL_CLASS_MATRIX];
    for (int cls = 0; cls < RL_CLASS_COUNT; cls++)
        if (k->tc[cls] > 0) tc += k->tc[cls] / p->compute[cls];
    double t = max2(tc, (k->t_dram + k->t_cache) / p->memory[k->cls]) + k->t_columns / p->memory[RL_CLASS_MOVEMENT] +
               kernel_fixed_s(k, p);
    /* the runtime's time after a kernel grows with the kernel's own time
     * (its work and fixed cost, not the executor's fixed part between kernels) */
    if (p->between_growth > 0 && k->kernels > 0) t += p->between_growth * max2(t - k->kernels * p->between_s, 0);
    return t;
}

/* ---------------------------------------------------------------- graph -- */
/* Spread kernel time t, of which `fixed` is fixed costs, over its layers in
 * proportion to their own weights (set by rl_fc_kernel_figures); all of it
 * to the first when none weighs. */
static void spread(const int *next, int first, double t, double fixed, rl_layer_time *lt) {
    double w = 0;
    for (int i = first; i >= 0; i = next ? next[i] : -1) w += lt[i].forecast_s;
    for (int i = first; i >= 0; i = next ? next[i] : -1) {
        lt[i].forecast_s = w > 0 ? t * lt[i].forecast_s / w : (i == first ? t : 0);
        lt[i].forecast_fixed_s = t > 0 ? lt[i].forecast_s * fixed / t : 0;
    }
}

/* The clamp: the forecast never below the floor nor above the power budget;
 * the kernels' times and the layers' shares scaled to add up to it. */
static void close_forecast(const rl_prepared *pg, const rl_hw *hw, double e_dyn, rl_layer_time *lt, rl_timing *out) {
    rl_forecast *f = &out->forecast;
    f->floor_s = out->chosen_sol.time_s;
    double t = f->kernels_s;
    if (hw->has_energy && hw->power_budget_w > hw->static_w) t = max2(t, e_dyn / (hw->power_budget_w - hw->static_w));
    f->clamped = f->floor_s > t;
    f->time_s = max2(t, f->floor_s);
    f->energy_j = hw->has_energy ? e_dyn + hw->static_w * f->time_s : NAN;
    double ratio = f->kernels_s > 0 ? f->time_s / f->kernels_s : 0;
    for (int cls = 0; cls < RL_CLASS_COUNT; cls++) f->by_class[cls].time_s *= ratio;
    f->reorders_s *= ratio;
    for (int i = 0; lt && i < pg->graph->n_nodes; i++) {
        lt[i].forecast_s *= ratio;
        lt[i].forecast_fixed_s *= ratio;
        /* no kernel time at all (nothing runs): the floor's own shares */
        if (!(f->kernels_s > 0) && f->floor_s > 0) {
            lt[i].forecast_s = lt[i].t;
            lt[i].forecast_fixed_s = 0;
            f->by_class[lt[i].op_class].time_s += lt[i].t;
        }
    }
}

/* The kernels the stack runs (root, next: each kernel's first node and the
 * chain of its nodes; kernels: per first node, what it launches). NULL
 * next: every node on its own. */
typedef struct fc_plan {
    int *root, *next;
    double *kernels;
} fc_plan;

bool rl_fc_group_branches(const rl_prepared *pg, int root) {
    const rl_graph *g = pg->graph;
    for (int q = root; q >= 0; q = pg->group_next[q]) {
        int readers = 0;
        for (int m = pg->group_next[q]; m >= 0 && readers < 2; m = pg->group_next[m]) {
            bool reads = false;
            for (int j = 0; j < g->nodes[m].n_in && !reads; j++)
                reads = g->nodes[m].inv[j] && g->nodes[m].inv[j]->producer == q;
            readers += reads;
        }
        if (readers >= 2) return true;
    }
    return false;
}

/* Whether the stack runs the epilogue of the fused group that node r
 * heads as a kernel of its own: its head's operator type is among
 * epilogue_apart, or the epilogue branches and the stack runs such
 * epilogues apart ("epilogue_branches"). */
static bool splits_epilogue(const rl_prepared *pg, const rl_forecast_params *p, int r) {
    const rl_node *n = &pg->graph->nodes[r];
    for (int i = 0; i < p->n_apart; i++)
        if (n->op_type && !strcmp(n->op_type, p->apart[i])) return true;
    return p->branches_apart && rl_fc_group_branches(pg, r);
}

/* A pooling node the stack runs as a kernel of its own ("pooling": "apart"). */
static bool pools_apart(const rl_forecast_params *p, const rl_node *n) {
    return !p->pool_fused && n->op && in_family(n->op, &rl_family_pool);
}

/* Whether a group of §4 holds such a node past its first (most graphs'
 * groups hold none, and keep §4's plan). */
static bool pool_in_group(const rl_prepared *pg, const rl_forecast_params *p) {
    const rl_graph *g = pg->graph;
    for (int i = 0; !p->pool_fused && i < g->n_nodes; i++)
        if (pg->group_root[i] != i && pools_apart(p, &g->nodes[i])) return true;
    return false;
}

/* Each pooling node inside a kernel of plan pl starts a kernel of its own,
 * which the later members that read its output, or a node of its kernel,
 * join (a ReLU after the pooling); the others stay where they were. A
 * chain's members come in topological order, so a member's producers in
 * the chain were placed before it. */
static bool split_pools(rl_ctx *c, const rl_prepared *pg, const rl_forecast_params *p, fc_plan *pl) {
    const rl_graph *g = pg->graph;
    size_t n = (size_t)g->n_nodes + 1;
    int *last = rl_arena_alloc(c->arena, n * sizeof *last), *chain = rl_arena_alloc(c->arena, n * sizeof *chain);
    if (!last || !chain) return false;
    for (int i = 0; i < g->n_nodes; i++) chain[i] = -1;
    for (int r = 0; r < g->n_nodes; r++) {
        if (pl->root[r] != r || pl->next[r] < 0) continue;
        int i = pl->next[r];
        pl->next[r] = -1, last[r] = r, chain[r] = r;
        while (i >= 0) {
            int after = pl->next[i], k = r;
            const rl_node *m = &g->nodes[i];
            if (pools_apart(p, m)) k = i, pl->kernels[i] = pg->kernels[i] > 0;
            for (int j = 0; k == r && j < m->n_in; j++) {
                int q = m->inv[j] ? m->inv[j]->producer : -1;
                if (q >= 0 && chain[q] == r && pl->root[q] != r) k = pl->root[q];
            }
            pl->root[i] = k, pl->next[i] = -1, chain[i] = r;
            if (k != i) pl->next[last[k]] = i;
            last[k] = i;
            i = after;
        }
    }
    return true;
}

/* The fused groups of §4, except that a group whose epilogue the stack
 * runs apart (splits_epilogue) becomes two kernels:
 * that node alone, and its epilogue as one kernel of its own (ONNX Runtime
 * runs a MatMul's GELU as one Gelu kernel after it, and the residual Add
 * and LayerNorm as one SkipLayerNorm); and a pooling node in a group starts
 * a kernel of its own unless the stack fuses it (split_pools). */
static bool make_plan(rl_ctx *c, const rl_prepared *pg, const rl_forecast_params *p, bool pools, fc_plan *pl) {
    const rl_graph *g = pg->graph;
    size_t n = (size_t)g->n_nodes + 1;
    pl->root = rl_arena_alloc(c->arena, n * sizeof *pl->root);
    pl->next = rl_arena_alloc(c->arena, n * sizeof *pl->next);
    pl->kernels = rl_arena_alloc(c->arena, n * sizeof *pl->kernels);
    if (!pl->root || !pl->next || !pl->kernels) return false;
    for (int i = 0; i < g->n_nodes; i++)
        pl->root[i] = pg->group_root[i], pl->next[i] = pg->group_next[i], pl->kernels[i] = pg->fused_kernels[i];
    for (int r = 0; r < g->n_nodes; r++) {
        int m = pg->group_next[r];
        if (pg->group_root[r] != r || m < 0 || !splits_epilogue(pg, p, r)) continue;
        pl->next[r] = -1;
        double k = 0;
        for (int i = m; i >= 0; i = pg->group_next[i]) pl->root[i] = m, k += pg->kernels[i] > 0;
        pl->kernels[m] = k > 0 ? 1 : 0;
    }
    return !pools || split_pools(c, pg, p, pl);
}

bool *rl_fc_input_dependent(rl_ctx *c, const rl_prepared *pg) {
    const rl_graph *g = pg->graph;
    bool *dep = rl_arena_alloc(c->arena, (size_t)(g->n_nodes + 1) * sizeof *dep);
    for (int k = 0; dep && k < g->n_nodes; k++) {
        const rl_node *n = &g->nodes[g->order[k]];
        bool d = false;
        for (int j = 0; j < n->n_in && !d; j++) {
            const rl_value *v = n->inv[j];
            d = v && (v->kind == RL_VALUE_INPUT || (v->producer >= 0 ? dep[v->producer] : v->kind == RL_VALUE_ACTIVATION));
        }
        dep[n->index] = d;
    }
    return dep;
}

/* Whether two nodes' attributes are the same, compared as their wire
 * bytes; attributes too long for the buffer count as different (the nodes
 * are then not merged: a missed merge, never a wrong one). */
static bool same_attributes(const rl_node *a, const rl_node *b) {
    size_t na = a->proto ? a->proto->n_attribute : 0, nb = b->proto ? b->proto->n_attribute : 0;
    if (na != nb) return false;
    uint8_t x[256], y[256];
    for (size_t i = 0; i < na; i++) {
        size_t sa = onnx__attribute_proto__get_packed_size(a->proto->attribute[i]);
        if (sa > sizeof x || sa != onnx__attribute_proto__get_packed_size(b->proto->attribute[i])) return false;
        onnx__attribute_proto__pack(a->proto->attribute[i], x);
        onnx__attribute_proto__pack(b->proto->attribute[i], y);
        if (memcmp(x, y, sa)) return false;
    }
    return true;
}

/* Input j of node n after the merges so far (canon: each value's merged
 * value); an input from an outer scope or omitted is itself. */
static const rl_value *merged_input(const rl_graph *g, const int *canon, const rl_node *n, int j) {
    return n->in[j] >= 0 ? &g->values[canon[n->in[j]]] : n->inv[j];
}

static uint64_t alike_hash(const rl_graph *g, const int *canon, const rl_node *n) {
    uint64_t h = 1469598103934665603u;
    for (const char *s = n->op_type; s && *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211u;
    for (int j = 0; j < n->n_in; j++) h = (h ^ (uint64_t)(uintptr_t)merged_input(g, canon, n, j)) * 1099511628211u;
    return h ^ (h >> 29);
}

static bool alike(const rl_graph *g, const int *canon, const rl_node *a, const rl_node *b) {
    if (a->n_in != b->n_in || a->n_out != b->n_out || a->n_subgraphs || b->n_subgraphs || a->n_implicit ||
        b->n_implicit || !a->op_type || !b->op_type || strcmp(a->op_type, b->op_type) ||
        strcmp(a->domain ? a->domain : "", b->domain ? b->domain : ""))
        return false;
    for (int j = 0; j < a->n_in; j++)
        if (merged_input(g, canon, a, j) != merged_input(g, canon, b, j)) return false;
    return same_attributes(a, b);
}

int *rl_fc_first_alike(rl_ctx *c, const rl_prepared *pg) {
    const rl_graph *g = pg->graph;
    size_t cap = 2;
    while (cap < 2 * (size_t)g->n_nodes) cap *= 2;
    int *first = rl_arena_alloc(c->arena, (size_t)(g->n_nodes + 1) * sizeof *first);
    int *canon = rl_arena_alloc(c->arena, (size_t)(g->n_values + 1) * sizeof *canon);
    int *table = rl_arena_alloc(c->arena, cap * sizeof *table);
    if (!first || !canon || !table) return NULL;
    for (int v = 0; v < g->n_values; v++) canon[v] = v;
    for (int i = 0; i < g->n_nodes; i++) first[i] = i;
    for (size_t s = 0; s < cap; s++) table[s] = -1;
    /* in topological order, so that a node's inputs are merged before it is
     * looked up: merging the Shape nodes of one tensor merges the Gathers
     * that read them, and so on down the chain */
    for (int k = 0; k < g->n_nodes; k++) {
        const rl_node *n = &g->nodes[g->order[k]];
        size_t s = alike_hash(g, canon, n) & (cap - 1);
        while (table[s] >= 0 && !alike(g, canon, &g->nodes[table[s]], n)) s = (s + 1) & (cap - 1);
        if (table[s] < 0) table[s] = n->index;
        const rl_node *f = &g->nodes[table[s]];
        first[n->index] = f->index;
        for (int o = 0; f != n && o < n->n_out; o++)
            if (n->out[o] >= 0 && f->out[o] >= 0) canon[n->out[o]] = canon[f->out[o]];
    }
    return first;
}

/* A Cast to the type its input already has: no computation, and no stack
 * runs it (ONNX Runtime drops it even with its graph optimisations off:
 * ShuffleNetV2's 32 int64 -> int64 Casts of its shape arithmetic ran in
 * neither setup, docs/validation.md run 18). */
static bool identity_cast(const rl_node *n) {
    if (!n->op_type || strcmp(n->op_type, "Cast") || (n->domain && n->domain[0]) || n->n_in < 1 || n->n_out < 1)
        return false;
    const rl_value *x = n->inv[0], *y = n->outv[0];
    return x && y && x->dtype == y->dtype && x->dtype != RL_DT_UNDEFINED;
}

bool rl_fc_runs_unfolded(const rl_prepared *pg, const rl_node *n) {
    if (pg->kernels[n->index] != 0) return false;
    return !n->n_subgraphs && n->op_type && strcmp(n->op_type, "Constant") != 0 && !identity_cast(n);
}

void rl_forecast_graph(rl_ctx *c, const rl_prepared *pg, const rl_options *o, const rl_hw *hw, rl_layer_time *lt,
                       rl_timing *out) {
    rl_forecast *f = &out->forecast;
    memset(f, 0, sizeof *f);
    const rl_graph *g = pg->graph;
    /* the kernels the stack runs: every node on its own when the chosen
     * model or the stack does not fuse, else the fused groups of §4 */
    const bool unfused = out->chosen == RL_SOL_UNFUSED || hw->fc.unfused;
    fc_plan pl = {pg->group_root, pg->group_next, pg->fused_kernels};
    /* a stack that runs some epilogues apart gets its own plan (out of
     * memory: the fused groups as they are) */
    fc_plan split;
    const bool pools = !unfused && pool_in_group(pg, &hw->fc);
    const bool splits = hw->fc.n_apart > 0 || hw->fc.branches_apart;
    if (!unfused && (splits || pools) && make_plan(c, pg, &hw->fc, pools, &split)) pl = split;
    if (unfused) pl.root = pl.next = NULL;
    /* the views and folded shape arithmetic the stack runs: all, or those
     * that depend on the inputs, or of those each distinct one once (out of
     * memory: all) */
    const int mode = hw->fc.shape_ops;
    const bool runs = mode != RL_SHAPE_FOLDED;
    const bool *dep = mode == RL_SHAPE_DYNAMIC || mode == RL_SHAPE_DISTINCT ? rl_fc_input_dependent(c, pg) : NULL;
    const int *first = mode == RL_SHAPE_DISTINCT && dep ? rl_fc_first_alike(c, pg) : NULL;
    const double *fold = rl_fc_folded_layouts(c, pg, hw, unfused);
    double e_dyn = 0;
    for (int r = 0; r < g->n_nodes; r++) {
        if (pl.root && pl.root[r] != r) continue;
        rl_fc_kernel k;
        double kernels = unfused ? pg->kernels[r] : pl.kernels[r];
        if (kernels == 0 && runs && rl_fc_runs_unfolded(pg, &g->nodes[r]) && (!dep || dep[r]) &&
            (!first || first[r] == r))
            kernels = 1;
        rl_fc_kernel_figures(c, pg, o, hw, r, pl.next, pl.root, fold, kernels, lt, &k);
        double t = rl_fc_kernel_time(&k, &hw->fc);
        f->kernels_s += t;
        f->dram_bytes += k.dram_bytes, f->cache_bytes += k.cache_bytes;
        e_dyn += k.e_flop + hw->e_byte * k.dram_bytes;
        rl_forecast_class *bc = &f->by_class[k.cls];
        bc->time_s += t, bc->kernels += kernels;
        if (!lt) continue;
        spread(pl.next, r, t, kernel_fixed_s(&k, &hw->fc), lt);
        for (int i = r; i >= 0; i = pl.next ? pl.next[i] : -1) bc->floor_s += lt[i].t;
    }
    /* a blocked CPU stack's conversions between its layout and the plain one */
    rl_fc_layout_reorders(c, pg, hw, lt, f, &e_dyn);
    close_forecast(pg, hw, e_dyn, lt, out);
}

void rl_time_and_forecast(rl_ctx *c, const rl_prepared *pg, const rl_options *o, const rl_hw *hw, rl_layer_time *lt,
                          rl_timing *out) {
    rl_time_graph(c, pg, o, hw, lt, out);
    rl_forecast_graph(c, pg, o, hw, lt, out);
}

int rl_prepare_and_time(rl_ctx *c, const rl_options *o, const rl_hw *hw, rl_prepared *pg,
                        rl_layer_time **lt, rl_timing *out) {
    if (rl_prepare_graph(c, pg)) return -1;
    rl_layer_time *rows = NULL;
    if (lt) {
        rows = rl_arena_alloc(c->arena, (size_t)(pg->graph->n_nodes + 1) * sizeof *rows);
        if (!rows) {
            rl_error_set(c->err, "out_of_memory", "", "out of memory");
            return -1;
        }
        *lt = rows;
    }
    rl_time_and_forecast(c, pg, o, hw, rows, out);
    return 0;
}
