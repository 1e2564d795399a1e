/* The timing model (timing.h; the physics in words: docs/model.md). Two
 * steps: rl_prepare_graph turns c->model into a graph whose dims, shapes,
 * costs, batch, kernels and fusion groups are known, which depends on the
 * request but not on the device; rl_time_graph places it on a device. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "infer.h"
#include "roofline.h"
#include "timing.h"
#include "ops/op.h"

/* ----------------------------------------------------------- precision -- */
static int node_precision(const rl_options *o, const rl_node *n) {
    int dt = 0;
    for (int i = 0; i < n->n_in && !dt; i++)
        if (n->inv[i] && n->inv[i]->type == RL_TYPE_TENSOR && n->inv[i]->dtype) dt = n->inv[i]->dtype;
    for (int i = 0; i < n->n_out && !dt; i++)
        if (n->outv[i] && n->outv[i]->dtype) dt = n->outv[i]->dtype;
    if (o->precision >= 0 && (rl_dtype_is_float(dt) || dt == 0)) return o->precision;
    return rl_precision_of_dtype(dt);
}

/* The precision work of precision p is timed at: p when the device has a
 * peak for it, else the first of its fallbacks that it has (warned). */
static int usable_precision(rl_ctx *c, const rl_hw *hw, int p) {
    if (hw->matrix[p] > 0) return p;
    const int *fallback = rl_precision_table[p].fallback;
    int q = -1;
    for (int k = 0; k < RL_P_MAX_FALLBACK && fallback[k] != RL_P_NONE && q < 0; k++)
        if (hw->matrix[fallback[k]] > 0) q = fallback[k];
    for (int k = 0; k < RL_P_COUNT && q < 0; k++)
        if (hw->matrix[k] > 0) q = k;
    if (q < 0) return RL_P_FP32; /* rl_hw_parse refuses a profile without any peak */
    rl_warn(c, "precision_fallback", NULL,
            "%s has no %s peak in its profile; %s work is timed at its %s peak, and the roofline "
            "is drawn for %s", hw->name, rl_precision_name(p), rl_precision_name(p),
            rl_precision_name(q), rl_precision_name(q));
    return q;
}

/* ---------------------------------------------------------- input dims -- */
static int64_t find_dim(const rl_ctx *c, const char *name) {
    for (int i = 0; i < c->n_dims; i++)
        if (strcmp(c->dims[i].name, name) == 0) return c->dims[i].value;
    return -1;
}

static void note_dim(rl_prepared *pg, const char *param, int64_t val, const char *source) {
    for (int u = 0; u < pg->n_dims; u++)
        if (strcmp(pg->dims[u].name, param) == 0) return;
    if (pg->n_dims < RL_MAX_DIMS_USED) pg->dims[pg->n_dims++] = (rl_dim_used){param, val, source};
}

/* The value of one open dim: the request's dims, then the batch for a
 * leading dim, then 1 (warned). */
static int64_t open_dim_value(rl_ctx *c, const rl_value *v, int k, const char *param,
                              const char **source) {
    int64_t val = param && param[0] ? find_dim(c, param) : -1;
    *source = "user";
    if (val >= 0) return val;
    if (k == 0 && c->batch > 0) {
        *source = "batch";
        return c->batch;
    }
    *source = "default";
    if (param && param[0])
        rl_warn(c, "unset_dim", NULL, "symbolic dimension '%s' is not set; using 1 (set it with --dim %s=N)",
                param, param);
    else
        rl_warn(c, "unset_dim", NULL, "dimension %d of input '%s' has neither a size nor a name; using 1", k,
                v->name);
    return 1;
}

/* Give every symbolic or unknown dim of the main graph's inputs a value.
 * Returns how many dims took c->batch; *open_leading tells whether any
 * input's leading dim was open (symbolic or unnamed). */
static int resolve_input_dims(rl_ctx *c, rl_graph *g, rl_prepared *pg, bool *open_leading) {
    int from_batch = 0;
    *open_leading = false;
    for (int i = 0; i < g->n_inputs; i++) {
        rl_value *v = &g->values[g->inputs[i]];
        if (v->rank < 0) {
            if (v->type == RL_TYPE_TENSOR)
                rl_warn(c, "shape_unknown", NULL,
                        "graph input '%s' declares no shape: the nodes that read it are marked unknown", v->name);
            continue;
        }
        for (int k = 0; k < v->rank; k++) {
            if (v->dims[k] >= 0) continue;
            if (k == 0) *open_leading = true;
            const char *param = v->dim_params ? v->dim_params[k] : NULL, *source;
            v->dims[k] = open_dim_value(c, v, k, param, &source);
            if (strcmp(source, "batch") == 0) from_batch++;
            if (param && param[0]) note_dim(pg, param, v->dims[k], source);
        }
    }
    for (int i = 0; i < c->n_dims; i++) {
        bool seen = false;
        for (int u = 0; u < pg->n_dims && !seen; u++) seen = strcmp(pg->dims[u].name, c->dims[i].name) == 0;
        if (!seen) rl_warn(c, "unused_dim", NULL, "the model has no symbolic dimension '%s'", c->dims[i].name);
    }
    return from_batch;
}

/* -------------------------------------------------------- batch scaling -- */
/* The fixed leading dim every tensor input of rank >= 1 shares, or -1. */
static int64_t fixed_batch(const rl_graph *g) {
    int64_t b0 = -1;
    for (int i = 0; i < g->n_inputs; i++) {
        const rl_value *v = &g->values[g->inputs[i]];
        if (v->type != RL_TYPE_TENSOR || v->rank < 1) continue;
        if (v->dims[0] < 1 || (b0 >= 0 && v->dims[0] != b0)) return -1;
        b0 = v->dims[0];
    }
    return b0;
}

/* A node's work scales with the batch when it reads a graph input, directly
 * or through other nodes; nodes on weights alone run once whatever the batch. */
static bool reads_samples(const rl_node *n, const bool *per_sample) {
    for (int j = 0; j < n->n_in + n->n_implicit; j++) {
        const rl_value *v = n->inv[j];
        if (!v) continue;
        if (v->kind == RL_VALUE_INPUT) return true;
        if (v->producer >= 0 && per_sample[v->producer]) return true;
    }
    return false;
}

/* Whether an output of a per-sample node lost the batch axis (a scalar, or
 * a leading dim that is not a whole number of samples): scaling such a
 * layer by the batch is an estimate, not exact. */
static bool mixes_samples(const rl_node *n, int64_t b0) {
    for (int j = 0; j < n->n_out; j++) {
        const rl_value *v = n->outv[j];
        if (!v || v->type != RL_TYPE_TENSOR || v->rank < 0) continue;
        if (v->rank == 0 || v->dims[0] < 1 || v->dims[0] % b0 != 0) return true;
    }
    return false;
}

/* Apply the batch to a graph whose inputs have a fixed leading dim B0:
 * FLOPs and activation bytes of every per-sample node × batch / B0,
 * weights read once. */
static int scale_batch(rl_ctx *c, rl_prepared *pg, int64_t b0) {
    rl_graph *g = pg->graph;
    bool *per_sample = rl_arena_alloc(c->arena, (size_t)(g->n_nodes + 1) * sizeof *per_sample);
    if (!per_sample) {
        rl_error_set(c->err, "out_of_memory", "", "out of memory");
        return -1;
    }
    const double s = (double)c->batch / (double)b0;
    int mixing = 0;
    const char *first = NULL;
    for (int k = 0; k < g->n_nodes; k++) {
        rl_node *n = &g->nodes[g->order[k]];
        if (!(per_sample[n->index] = reads_samples(n, per_sample))) continue;
        rl_cost *q = &n->cost;
        q->matrix_flops *= s, q->vector_flops *= s, q->macs *= s;
        q->input_bytes *= s, q->output_bytes *= s;
        if (mixes_samples(n, b0) && (n->cost.matrix_flops + n->cost.vector_flops > 0 || q->output_bytes > 0)) {
            if (!mixing++) first = n->name;
        }
    }
    pg->batch = c->batch, pg->batch_applied = "scaled", pg->batch_base = b0, pg->batch_scale = s;
    pg->per_sample = per_sample;
    if (mixing)
        rl_warn(c, "batch_mixes_samples", first,
                "the model's inputs have a fixed batch of %lld, so batch %lld is applied by scaling every "
                "per-sample layer by %g; %d layers (the first: '%s') combine samples (their output has no "
                "leading batch axis), so their scaled figures are estimates",
                (long long)b0, (long long)c->batch, s, mixing, first);
    return 0;
}

/* Decide how the request's batch applies: a symbolic leading dim took it
 * ("dim"), or a fixed-batch graph is scaled ("scaled"), or it cannot apply
 * (warned; the response then echoes no batch). */
static int apply_batch(rl_ctx *c, rl_prepared *pg, int from_batch, bool open_leading) {
    pg->batch_scale = 1;
    if (c->batch <= 0) return 0;
    if (from_batch > 0) {
        pg->batch = c->batch, pg->batch_applied = "dim";
        return 0;
    }
    if (open_leading) {
        rl_warn(c, "batch_not_applied", NULL,
                "batch %lld is not applied: every open leading dimension is set by \"dims\", which wins",
                (long long)c->batch);
        return 0;
    }
    int64_t b0 = fixed_batch(pg->graph);
    if (b0 < 1) {
        rl_warn(c, "batch_not_applied", NULL,
                "batch %lld is not applied: the model's inputs have no common leading (batch) dimension",
                (long long)c->batch);
        return 0;
    }
    return scale_batch(c, pg, b0);
}

/* ----------------------------------------------------------- kernels -- */
static bool all_small_ints(const rl_node *n) {
    bool any = false;
    for (int pass = 0; pass < 2; pass++) {
        int count = pass ? n->n_out : n->n_in;
        for (int j = 0; j < count; j++) {
            const rl_value *v = pass ? n->outv[j] : n->inv[j];
            if (!v) continue;
            if (v->type != RL_TYPE_TENSOR || !rl_dtype_is_int(v->dtype)) return false;
            int64_t e = rl_numel(v);
            if (e < 0 || e > RL_SHAPE_ARITH_MAX_ELEMS) return false;
            any = true;
        }
    }
    return any;
}

static bool all_outputs_folded(const rl_node *n) {
    bool any = false;
    for (int j = 0; j < n->n_out; j++) {
        const rl_value *v = n->outv[j];
        if (!v) continue;
        if (v->type != RL_TYPE_TENSOR || v->n_known < 0) return false;
        any = true;
    }
    return any;
}

/* The kernel rule (docs/model.md §4) for a node without bodies: it runs on
 * the device unless it is a metadata view (or a Constant), does no work,
 * was constant-folded here (a runtime folds it when it loads the model), or
 * is shape arithmetic on small integer tensors. */
static bool leaf_is_kernel(const rl_node *n) {
    if (n->op && (n->op->flags & RL_OP_VIEW)) return false;
    const rl_cost *k = &n->cost;
    if (k->matrix_flops + k->vector_flops <= 0 && k->input_bytes + k->weight_bytes + k->output_bytes <= 0)
        return false;
    return !all_outputs_folded(n) && !all_small_ints(n);
}

/* Epilogue fusion (docs/model.md §4). A node can join the kernel that
 * produced its input when it does no matrix work and writes no more
 * elements than it reads on that input: elementwise ops, activations,
 * normalisations (fused or spelled out with reductions), softmax, casts and
 * transposes (a kernel writes its output in any layout). */
static bool epilogue_node(const rl_node *n) {
    if (n->n_subgraphs || !n->op || (n->op->flags & RL_OP_VIEW) || n->cost.matrix_flops > 0 || n->n_out < 1 ||
        !n->outv[0])
        return false;
    return rl_numel(n->outv[0]) >= 0;
}

/* Per value of a graph: how many of its reads are by epilogue nodes that
 * write no more than they read. A value all of whose readers are such nodes
 * (no other node, no subgraph) need not leave the kernel that makes it. */
static int *epilogue_reads(rl_ctx *c, const rl_graph *g) {
    int *reads = rl_arena_alloc(c->arena, (size_t)(g->n_values + 1) * sizeof *reads);
    if (!reads) return NULL;
    for (int i = 0; i < g->n_nodes; i++) {
        const rl_node *n = &g->nodes[i];
        if (!epilogue_node(n)) continue;
        int64_t out_elems = rl_numel(n->outv[0]);
        for (int j = 0; j < n->n_in; j++)
            if (n->in[j] >= 0 && rl_numel(n->inv[j]) >= out_elems) reads[n->in[j]]++;
    }
    return reads;
}

/* May value vi stay inside the kernel that makes it? */
static bool stays_on_chip(const rl_graph *g, const int *reads, int vi) {
    const rl_value *v = &g->values[vi];
    return v->producer >= 0 && !v->is_graph_output && v->consumers > 0 && reads[vi] == v->consumers;
}

/* The fusion group an epilogue node joins, or -1: the group of the kernel
 * that makes one of its inputs at least as large as its output, looking
 * through metadata views (a Reshape between a MatMul and its Transpose
 * moves nothing). */
static int epilogue_producer(const rl_graph *g, const rl_node *n, const double *kern, const int *root,
                             const int *reads) {
    if (!epilogue_node(n)) return -1;
    int64_t out_elems = rl_numel(n->outv[0]);
    for (int j = 0; j < n->n_in; j++) {
        int vi = n->in[j];
        if (vi < 0 || rl_numel(n->inv[j]) < out_elems || !stays_on_chip(g, reads, vi)) continue;
        int p = g->values[vi].producer;
        for (int hops = 0; hops < g->n_nodes && p >= 0; hops++) {
            const rl_node *q = &g->nodes[p];
            if (q->op && (q->op->flags & RL_OP_VIEW) && q->n_in > 0 && q->in[0] >= 0) {
                const rl_value *u = &g->values[q->in[0]];
                p = u->consumers == 1 && !u->is_graph_output ? u->producer : -1;
                continue;
            }
            if (!q->n_subgraphs && kern[p] > 0) return root[p];
            break;
        }
    }
    return -1;
}

/* Kernels of a graph in the unfused and the fused models; `kern`, `fkern`
 * and `root` (may be NULL) receive per-node figures. Bodies count their
 * kernels as many times as their cost counts. */
static int count_kernels(rl_ctx *c, const rl_graph *g, double *kern, double *fkern, int *root,
                         double *total, double *fused_total) {
    if (!kern) {
        kern = rl_arena_alloc(c->arena, (size_t)(g->n_nodes + 1) * sizeof *kern);
        fkern = rl_arena_alloc(c->arena, (size_t)(g->n_nodes + 1) * sizeof *fkern);
        root = rl_arena_alloc(c->arena, (size_t)(g->n_nodes + 1) * sizeof *root);
    }
    int *reads = epilogue_reads(c, g);
    if (!kern || !fkern || !root || !reads) return -1;
    *total = *fused_total = 0;
    for (int k = 0; k < g->n_nodes; k++) {
        const rl_node *n = &g->nodes[g->order[k]];
        int i = n->index;
        root[i] = i;
        kern[i] = fkern[i] = 0;
        if (n->n_subgraphs) {
            double mult = n->sub_multiplier > 0 ? n->sub_multiplier : 1.0;
            for (int s = 0; s < n->n_subgraphs; s++) {
                double bk, bf;
                if (!n->subgraphs[s]) continue;
                if (count_kernels(c, n->subgraphs[s], NULL, NULL, NULL, &bk, &bf)) return -1;
                kern[i] += mult * bk, fkern[i] += mult * bf;
            }
        } else if (leaf_is_kernel(n)) {
            kern[i] = 1;
            int p = epilogue_producer(g, n, kern, root, reads);
            if (p >= 0) root[i] = p;
            else fkern[i] = 1;
        }
        *total += kern[i];
        *fused_total += fkern[i];
    }
    return 0;
}

/* Per-node kernels and fusion groups of the main graph, kept in pg. */
static int plan_kernels(rl_ctx *c, rl_prepared *pg) {
    const rl_graph *g = pg->graph;
    size_t n = (size_t)g->n_nodes + 1;
    pg->kernels = rl_arena_alloc(c->arena, n * sizeof *pg->kernels);
    pg->fused_kernels = rl_arena_alloc(c->arena, n * sizeof *pg->fused_kernels);
    pg->group_root = rl_arena_alloc(c->arena, n * sizeof *pg->group_root);
    pg->group_next = rl_arena_alloc(c->arena, n * sizeof *pg->group_next);
    int *last = rl_arena_alloc(c->arena, n * sizeof *last);
    double total, fused_total;
    if (!pg->kernels || !pg->fused_kernels || !pg->group_root || !pg->group_next || !last ||
        count_kernels(c, g, pg->kernels, pg->fused_kernels, pg->group_root, &total, &fused_total)) {
        rl_error_set(c->err, "out_of_memory", "", "out of memory");
        return -1;
    }
    /* chain each group's members after its root, in topological order */
    for (int i = 0; i < g->n_nodes; i++) pg->group_next[i] = -1, last[i] = i;
    for (int k = 0; k < g->n_nodes; k++) {
        int i = g->order[k], r = pg->group_root[i];
        if (r == i) continue;
        pg->group_next[last[r]] = i;
        last[r] = i;
    }
    return 0;
}

/* ------------------------------------------------------------- prepare -- */
int rl_prepare_graph(rl_ctx *c, rl_prepared *pg) {
    memset(pg, 0, sizeof *pg);
    pg->batch_scale = 1;
    rl_graph *g = rl_graph_build(c, c->model->proto->graph, NULL, 0, "main graph");
    if (!g) return -1;
    pg->graph = g;
    bool open_leading;
    int from_batch = resolve_input_dims(c, g, pg, &open_leading);
    if (rl_infer_graph(c, g) || rl_cost_graph(c, g, &pg->sum)) return -1;
    if (apply_batch(c, pg, from_batch, open_leading)) return -1;
    if (pg->per_sample) { /* the sum again, with the batch applied */
        rl_cost *s = &pg->sum;
        *s = (rl_cost){.known = s->known};
        for (int i = 0; i < g->n_nodes; i++) {
            const rl_cost *k = &g->nodes[i].cost;
            s->matrix_flops += k->matrix_flops, s->vector_flops += k->vector_flops, s->macs += k->macs;
            s->input_bytes += k->input_bytes, s->weight_bytes += k->weight_bytes;
            s->output_bytes += k->output_bytes;
        }
    }
    return plan_kernels(c, pg);
}

/* ------------------------------------------------------------- timing -- */
/* Fused traffic (docs/model.md §3): weights and model-boundary tensors only. */
static double fused_bytes(const rl_ctx *c, const rl_prepared *pg, const rl_node *n) {
    if (n->op && (n->op->flags & RL_OP_VIEW)) return 0;
    if (n->op && (n->op->flags & RL_OP_CONTROL)) return n->cost.weight_bytes;
    double act = 0;
    for (int i = 0; i < n->n_in; i++) {
        const rl_value *v = n->inv[i];
        if (v && v->kind == RL_VALUE_INPUT) act += rl_value_bytes(c, v);
    }
    for (int i = 0; i < n->n_out; i++) {
        const rl_value *v = n->outv[i];
        if (v && (v->is_graph_output || v->consumers == 0)) act += rl_value_bytes(c, v);
    }
    if (pg->per_sample && pg->per_sample[n->index]) act *= pg->batch_scale;
    double b = n->cost.weight_bytes + act;
    /* never more than the unfused traffic (a cost function may have trimmed it) */
    double unfused = n->cost.input_bytes + n->cost.weight_bytes + n->cost.output_bytes;
    return b < unfused ? b : unfused;
}

int rl_node_timing_precision(rl_ctx *c, const rl_options *o, const rl_hw *hw, const rl_node *n) {
    return usable_precision(c, hw, node_precision(o, n));
}

double rl_node_fused_bytes(const rl_ctx *c, const rl_prepared *pg, const rl_node *n) { return fused_bytes(c, pg, n); }

double rl_traffic_floor_s(const rl_hw *hw, double main_bytes, double exchanged_bytes) {
    double bw = hw->mem_bw[0];
    for (int L = 1; L < hw->n_mem; L++)
        if (hw->mem_cap[L] >= exchanged_bytes && hw->mem_bw[L] > bw) bw = hw->mem_bw[L];
    return main_bytes / hw->mem_bw[0] + exchanged_bytes / bw;
}

/* One node's figures on the device, before the model-level rules. */
typedef struct node_fig {
    double flops, bytes, fbytes, tc, e_flop; /* e_flop: dynamic energy of its FLOPs */
    int prec;
} node_fig;

static node_fig node_figures(rl_ctx *c, const rl_prepared *pg, const rl_options *o, const rl_hw *hw,
                             const rl_node *n) {
    const rl_cost *k = &n->cost;
    node_fig f;
    f.prec = usable_precision(c, hw, node_precision(o, n));
    f.flops = k->matrix_flops + k->vector_flops;
    f.bytes = k->input_bytes + k->weight_bytes + k->output_bytes;
    f.fbytes = fused_bytes(c, pg, n);
    const int pv = rl_hw_vector_precision(hw, f.prec); /* an integer model's vector work runs in FP16 */
    f.tc = rl_compute_time(k->matrix_flops, k->vector_flops, hw->matrix[f.prec], hw->vector[pv]);
    f.e_flop = hw->e_flop_unit[f.prec][RL_UNIT_MATRIX] * k->matrix_flops +
               hw->e_flop_unit[pv][RL_UNIT_VECTOR] * k->vector_flops;
    return f;
}

/* The per-op roofline of one model: each kernel of the unfused model, or
 * each fusion group of the fused models (a fused kernel is one point on the
 * roofline), at max(Σ compute, Σ bytes / BW). *compute_part receives the
 * time of the compute-bound ones. */
static double per_op_roof(rl_ctx *c, const rl_prepared *pg, const rl_options *o, const rl_hw *hw,
                          bool fused, double *compute_part) {
    const rl_graph *g = pg->graph;
    const double bw = hw->mem_bw[0];
    double sum = 0;
    *compute_part = 0;
    for (int r = 0; r < g->n_nodes; r++) {
        if (fused && pg->group_root[r] != r) continue;
        double tc = 0, q = 0;
        for (int i = r; i >= 0; i = fused ? pg->group_next[i] : -1) {
            node_fig f = node_figures(c, pg, o, hw, &g->nodes[i]);
            tc += f.tc, q += fused ? f.fbytes : f.bytes;
        }
        double t = rl_roof_time(tc, q / bw);
        sum += t;
        if (t > 0 && tc >= q / bw) *compute_part += t;
    }
    return sum;
}

/* Close one SOL model: floors, the expected time, bounds, energy, power. */
static void finish_model(rl_sol_result *r, const rl_hw *hw, double e_dyn, bool per_op) {
    r->granularity = per_op ? RL_GRAN_PER_OP : RL_GRAN_WHOLE_GRAPH;
    r->roof_time_s = per_op ? r->roof_per_op_s : r->roof_whole_graph_s;
    r->launch_floor_s = r->kernels * hw->launch_s;
    r->power_floor_s = 0;
    if (hw->has_energy && hw->power_budget_w > hw->static_w)
        r->power_floor_s = e_dyn / (hw->power_budget_w - hw->static_w);
    double t = rl_roof_time(r->roof_time_s, r->launch_floor_s);
    r->time_s = rl_roof_time(t, r->power_floor_s);
    r->lower_bound_s = rl_roof_time(rl_roof_time(r->t_compute, r->t_memory),
                                    rl_roof_time(r->launch_floor_s, r->power_floor_s));
    r->upper_bound_s = rl_roof_time(r->t_compute + r->t_memory + r->launch_floor_s, r->power_floor_s);
    r->power_capped = r->power_floor_s > t;
    if (r->power_capped) r->bound = RL_BOUND_POWER;
    else if (r->launch_floor_s > r->roof_time_s) r->bound = RL_BOUND_OVERHEAD;
    else r->bound = r->t_compute >= r->t_memory ? RL_BOUND_COMPUTE : RL_BOUND_MEMORY;
    if (hw->has_energy) {
        r->energy_j = e_dyn + hw->static_w * r->time_s;
        r->avg_power_w = r->time_s > 0 ? r->energy_j / r->time_s : 0;
    } else {
        r->energy_j = r->avg_power_w = NAN;
    }
}

/* The graph's sums every model is built from. */
typedef struct graph_sums {
    double tc, e_flops, k_unfused, k_fused;
    double roof[2], compute_part[2]; /* per-op roofline: [0] unfused, [1] fused groups */
} graph_sums;

static void time_models(rl_timing *out, const rl_hw *hw, const graph_sums *s) {
    const double bw = hw->mem_bw[0];
    for (int m = 0; m < RL_SOL_COUNT; m++) {
        rl_sol_result *r = &out->sol[m];
        const bool unfused = m == RL_SOL_UNFUSED;
        memset(r, 0, sizeof *r);
        r->flops = out->flops;
        r->bytes = unfused ? out->bytes : out->fused_bytes;
        r->t_compute = s->tc;
        r->t_memory = r->bytes / bw;
        r->kernels = unfused ? s->k_unfused : s->k_fused;
        r->roof_per_op_s = s->roof[!unfused];
        r->roof_whole_graph_s = rl_roof_time(r->t_compute, r->t_memory);
        finish_model(r, hw, s->e_flops + hw->e_byte * r->bytes, m != RL_SOL_FUSED_PREFETCHED);
    }
}

/* The chosen model at the request's granularity. */
static void choose(rl_timing *out, const rl_options *o, const rl_hw *hw, const graph_sums *s) {
    out->chosen = o->sol >= 0 && o->sol < RL_SOL_COUNT ? o->sol : RL_SOL_FUSED;
    out->chosen_sol = out->sol[out->chosen];
    const int fused = out->chosen != RL_SOL_UNFUSED;
    out->compute_bound_share = s->roof[fused] > 0 ? s->compute_part[fused] / s->roof[fused] : 0;
    if (o->granularity != RL_GRAN_INTENDED && o->granularity != out->chosen_sol.granularity) {
        rl_sol_result *r = &out->chosen_sol;
        finish_model(r, hw, s->e_flops + hw->e_byte * r->bytes, o->granularity == RL_GRAN_PER_OP);
    }
}

static void fill_layer(rl_layer_time *L, const rl_prepared *pg, const rl_node *n, const node_fig *f,
                       double bw, bool unfused) {
    memset(L, 0, sizeof *L);
    L->flops = f->flops, L->bytes = f->bytes, L->fused_bytes = f->fbytes;
    L->tc = f->tc, L->tm = f->bytes / bw, L->prec = f->prec, L->flop_energy = f->e_flop;
    L->kernels = pg->kernels[n->index];
    L->kernel = L->kernels > 0;
    L->fused_into = pg->group_root[n->index] != n->index ? pg->group_root[n->index] : -1;
    double tm_model = (unfused ? f->bytes : f->fbytes) / bw;
    if (!n->cost.known) L->bound = RL_BOUND_UNKNOWN;
    else if (f->flops == 0 && f->bytes == 0) L->bound = RL_BOUND_NONE;
    else L->bound = L->tc >= tm_model ? RL_BOUND_COMPUTE : RL_BOUND_MEMORY;
}

/* Whether a floor set a model's time (overhead: kernel launches, power:
 * the power budget) rather than its roofline. */
static bool floor_set_time(const rl_sol_result *r) {
    return r->bound == RL_BOUND_OVERHEAD || r->bound == RL_BOUND_POWER;
}

/* Each layer's share of the chosen model's time and energy: its roofline
 * time under that model (a fused group's time split in proportion to its
 * members' own), scaled so that the shares add up to time_s. */
static void share_layers(const rl_prepared *pg, const rl_hw *hw, rl_layer_time *lt, const rl_timing *out) {
    const rl_graph *g = pg->graph;
    const double bw = hw->mem_bw[0];
    const bool unfused = out->chosen == RL_SOL_UNFUSED;
    double roof_sum = 0;
    int kernels = 0;
    for (int r = 0; r < g->n_nodes; r++) {
        if (pg->group_root[r] != r) continue;
        double tc = 0, q = 0, w = 0;
        for (int i = r; i >= 0; i = pg->group_next[i]) {
            rl_layer_time *L = &lt[i];
            double qi = unfused ? L->bytes : L->fused_bytes;
            L->t = rl_roof_time(L->tc, qi / bw); /* the layer's own roofline, for now */
            tc += L->tc, q += qi, w += L->t;
        }
        double group = unfused ? w : rl_roof_time(tc, q / bw);
        for (int i = r; i >= 0; i = pg->group_next[i]) {
            lt[i].t = w > 0 ? group * (lt[i].t / w) : 0;
            roof_sum += lt[i].t;
            kernels += lt[i].kernel;
        }
    }
    const double time = out->chosen_sol.time_s;
    /* When the launch floor or the power floor sets the model's time, every
     * layer's share is stretched past its own roofline by that floor: its
     * bound is the floor's, as the summary's is (docs/model.md §7). */
    const bool floor_bound = floor_set_time(&out->chosen_sol);
    for (int i = 0; i < g->n_nodes; i++) {
        rl_layer_time *L = &lt[i];
        if (roof_sum > 0) L->t = time * (L->t / roof_sum);
        else L->t = kernels > 0 && L->kernel ? time / kernels : 0;
        if (floor_bound && (L->bound == RL_BOUND_COMPUTE || L->bound == RL_BOUND_MEMORY))
            L->bound = out->chosen_sol.bound;
        double q = unfused ? L->bytes : L->fused_bytes;
        L->model_bytes = q;
        if (out->has_energy) {
            L->energy = L->flop_energy + hw->e_byte * q + hw->static_w * L->t;
            L->energy_bound = L->flop_energy >= hw->e_byte * q ? RL_BOUND_COMPUTE : RL_BOUND_MEMORY;
        } else {
            L->energy = NAN;
            L->energy_bound = RL_BOUND_UNKNOWN;
        }
    }
    for (int i = 0; i < g->n_nodes; i++) {
        rl_layer_time *L = &lt[i];
        bool own = unfused || pg->group_root[i] == i;
        L->kernel_flops = L->kernel_bytes = L->kernel_t = L->kernel_energy = L->kernel_tc = own ? 0 : NAN;
        L->kernel_tm = NAN;
        if (!own) continue;
        for (int k = unfused ? i : pg->group_root[i]; k >= 0; k = unfused ? -1 : pg->group_next[k]) {
            L->kernel_flops += lt[k].flops;
            L->kernel_bytes += lt[k].model_bytes;
            L->kernel_t += lt[k].t;
            L->kernel_energy += lt[k].energy;
            L->kernel_tc += lt[k].tc;
        }
        L->kernel_tm = L->kernel_bytes / bw;
    }
}

static bool figure_ok(double v) { return isfinite(v) && v >= 0; }

void rl_time_graph(rl_ctx *c, const rl_prepared *pg, const rl_options *o, const rl_hw *hw,
                   rl_layer_time *lt, rl_timing *out) {
    memset(out, 0, sizeof *out);
    out->bad_layer = -1;
    const rl_graph *g = pg->graph;
    const double bw = hw->mem_bw[0];
    const bool unfused = o->sol == RL_SOL_UNFUSED;
    double prec_flops[RL_P_COUNT] = {0};
    graph_sums s = {0};
    for (int i = 0; i < g->n_nodes; i++) {
        const rl_node *n = &g->nodes[i];
        node_fig f = node_figures(c, pg, o, hw, n);
        if (lt) fill_layer(&lt[i], pg, n, &f, bw, unfused);
        if (!n->cost.known) out->unknown_layers++;
        if (out->bad_layer < 0 && !(figure_ok(f.flops) && figure_ok(f.bytes) && figure_ok(f.tc) &&
                                    figure_ok(n->cost.matrix_flops) && figure_ok(n->cost.vector_flops)))
            out->bad_layer = i;
        out->flops += f.flops, out->bytes += f.bytes, out->fused_bytes += f.fbytes;
        out->matrix_flops += n->cost.matrix_flops, out->vector_flops += n->cost.vector_flops;
        s.tc += f.tc, s.e_flops += f.e_flop;
        s.k_unfused += pg->kernels[i], s.k_fused += pg->fused_kernels[i];
        prec_flops[f.prec] += f.flops;
    }
    s.roof[0] = per_op_roof(c, pg, o, hw, false, &s.compute_part[0]);
    s.roof[1] = per_op_roof(c, pg, o, hw, true, &s.compute_part[1]);
    out->has_energy = hw->has_energy;
    out->power_budget_w = hw->power_budget_w;
    int main_prec = RL_P_FP32;
    for (int p = 0; p < RL_P_COUNT; p++)
        if (prec_flops[p] > prec_flops[main_prec]) main_prec = p;
    out->requested_prec = o->precision >= 0 ? o->precision : main_prec;
    out->main_prec = usable_precision(c, hw, out->requested_prec);
    time_models(out, hw, &s);
    choose(out, o, hw, &s);
    if (lt) share_layers(pg, hw, lt, out);
}

int rl_timing_check(const rl_timing *t, const rl_graph *g, rl_error *err) {
    if (t->bad_layer >= 0) {
        const rl_node *n = &g->nodes[t->bad_layer];
        rl_error_set(err, "bad_model", n->name,
                     "node '%s' (%s) gets a negative or non-finite FLOP or byte count from its attributes "
                     "or shapes: check them", n->name, n->op_type);
        return -1;
    }
    const double totals[] = {t->flops, t->matrix_flops, t->vector_flops, t->bytes, t->fused_bytes};
    bool ok = true;
    for (size_t i = 0; i < sizeof totals / sizeof *totals; i++) ok = ok && figure_ok(totals[i]);
    for (int m = 0; m <= RL_SOL_COUNT; m++) {
        const rl_sol_result *r = m < RL_SOL_COUNT ? &t->sol[m] : &t->chosen_sol;
        const double f[] = {r->time_s, r->lower_bound_s, r->upper_bound_s, r->roof_time_s,
                            r->launch_floor_s, r->kernels, r->t_compute, r->t_memory};
        for (size_t i = 0; i < sizeof f / sizeof *f; i++) ok = ok && figure_ok(f[i]);
        if (t->has_energy) ok = ok && figure_ok(r->energy_j) && figure_ok(r->avg_power_w);
    }
    const rl_forecast *f = &t->forecast;
    ok = ok && figure_ok(f->time_s) && figure_ok(f->kernels_s) && (!t->has_energy || figure_ok(f->energy_j));
    if (ok) return 0;
    rl_error_set(err, "limit_size", "totals",
                 "the model's totals are beyond what can be counted (a FLOP, byte, time or energy figure "
                 "is infinite or not a number): check its dims, trip counts and attributes");
    return -1;
}
