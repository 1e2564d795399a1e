/* One phase of the LLM view (llm_phase.h). Each phase is the model's own
 * graph with the phase's dims set, prepared and costed like any request,
 * then adjusted for the serving assumptions (serve_* below) and timed by
 * the timing model through one function, time_phase(). Nothing here
 * re-derives a roofline. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forecast.h"
#include "llm_phase.h"
#include "roofline.h"
#include "ops/op.h"

/* The one place that reads the timing model. A decode step replays a
 * captured graph (captured = true): the device pays no per-kernel launch
 * cost, so the step is timed on the same device with a zero launch
 * overhead (the roofline and power floors still hold) and the launch floor
 * it would have paid is reported beside. The prefill takes the model's
 * expected time as any request does. Both use the chosen SOL model's
 * traffic (weights read once per pass). */
static int time_phase(rl_ctx *r, const rl_prepared *pg, const llm_run *L, bool captured, phase *out,
                      rl_error *err) {
    rl_hw hw = *L->hw;
    if (captured) hw.launch_s = 0;
    rl_timing t;
    /* over several devices the plan needs each layer's time */
    rl_layer_time *lt = L->parallel ? rl_arena_alloc(r->arena, (size_t)(pg->graph->n_nodes + 1) * sizeof *lt) : NULL;
    if (L->parallel && !lt) {
        rl_error_set(err, "out_of_memory", "llm", "out of memory");
        return -1;
    }
    rl_time_and_forecast(r, pg, L->o, &hw, lt, &t);
    const rl_sol_result *s = rl_timing_chosen(&t);
    out->flops = s->flops;
    out->matrix_flops = t.matrix_flops;
    out->bytes = s->bytes;
    out->time_s = s->time_s;
    out->forecast_s = t.forecast.time_s;
    out->forecast_energy_j = t.forecast.energy_j;
    out->energy_j = s->energy_j;
    out->t_compute = s->t_compute;
    out->t_memory = s->t_memory;
    out->bound = s->bound;
    out->kernels = s->kernels;
    out->launch_floor_s = s->kernels * L->hw->launch_s;
    out->unknown_layers = t.unknown_layers;
    if (!L->parallel) return 0;
    rl_parallel *par;
    if (rl_parallel_plan(r, L->parallel, L->o, &hw, pg, lt, &t, &par, err)) return -1;
    rl_parallel_summarize(par, &out->par);
    out->has_parallel = true;
    return 0;
}

/* Integer storage types of a given width for the what-if: the float
 * precision override (rl_elem_bytes) must not widen a quantized tensor. */
static int storage_dtype(int bits) {
    return bits == 4 ? RL_DT_INT4 : bits == 8 ? RL_DT_INT8 : RL_DT_INT16;
}

/* Per value: the tokens its cache keeps when a GroupQueryAttention with a
 * sliding window reads it as its past key or value (local_window_size + 1:
 * the query and the keys before it that it sees), else 0. A window of 2^53
 * tokens or more is none: no context reaches it, and the memory plan and
 * the decode sum count tokens in doubles, exact to 2^53, and in int64s. */
static double *cache_windows(rl_ctx *r, const rl_graph *g) {
    double *keep = rl_arena_alloc(r->arena, (size_t)(g->n_values + 1) * sizeof *keep);
    if (!keep) return NULL;
    for (int i = 0; i < g->n_nodes; i++) {
        const rl_node *n = &g->nodes[i];
        if (strcmp(n->op_type, "GroupQueryAttention") || strcmp(n->domain, "com.microsoft")) continue;
        int64_t w = rl_attr_i(NULL, n, "local_window_size", -1);
        for (int j = 3; j <= 4 && w >= 0 && (double)w + 1 < 0x1p53; j++)
            if (j < n->n_in && n->in[j] >= 0) keep[n->in[j]] = (double)w + 1;
    }
    return keep;
}

/* A cache of `per_token` bytes a token that keeps `tokens` of them: counted
 * with the others of its window. false when every slot is taken (the
 * cache is then counted whole, an upper bound). */
static bool add_window(phase *out, double tokens, double per_token) {
    int i = 0;
    while (i < out->n_kv_windows && out->kv_windows[i].tokens != tokens) i++;
    if (i == LLM_MAX_KV_WINDOWS) return false;
    if (i == out->n_kv_windows) out->kv_windows[out->n_kv_windows++] = (kv_window){tokens, 0, 0};
    out->kv_windows[i].bytes_per_token += per_token;
    out->kv_windows[i].caches++;
    return true;
}

/* Serving assumption: the KV cache is updated in place. `present` aliases
 * `past`, so the producer of present writes only the new tokens' rows
 * (`seq` of them) and nothing copies the past; the past is read by whatever
 * reads it (the attention). With kv_bits or kv_type the cache is stored at
 * that width. A cache read through a sliding window keeps only the
 * window's tokens (llama.cpp's SWA cache): its past is cut to them, for
 * its size and its readers' traffic. Fills out's cache figures; returns
 * the bytes of the past cache as stored, or NAN when out of memory. */
static double serve_kv_in_place(rl_ctx *r, rl_graph *g, const llm_run *L, int64_t batch, int64_t seq, phase *out) {
    double past_bytes = 0;
    const int kv_dt = L->O->kv_bits ? storage_dtype(L->O->kv_bits) : 0, kv_st = L->O->kv_storage;
    /* per value, what a reader's traffic changes by: stored width, window */
    double *read_delta = rl_arena_alloc(r->arena, (size_t)(g->n_values + 1) * sizeof *read_delta);
    const double *keep = cache_windows(r, g);
    if (!read_delta || !keep) return NAN;
    for (int i = 0; i < L->R->n_kv; i++) {
        const kv_pair *p = &L->R->kv[i];
        int pi = rl_map_get(g->names, p->past);
        if (pi < 0) continue;
        rl_value *past = &g->values[pi];
        double before = rl_value_bytes(r, past);
        if (kv_dt) past->dtype = kv_dt;
        else if (kv_st) past->storage = kv_st;
        double rows = past->rank > p->axis ? (double)past->dims[p->axis] : -1;
        double per_token = rows > 0 && batch > 0 ? rl_value_bytes(r, past) / (rows * (double)batch) : 0;
        if (keep[pi] > 0 && add_window(out, keep[pi], per_token)) {
            if (rows > keep[pi]) past->dims[p->axis] = (int64_t)keep[pi];
        } else {
            out->kv_full_per_token += per_token;
        }
        read_delta[pi] = rl_value_bytes(r, past) - before;
        past_bytes += rl_value_bytes(r, past);
        int ri = p->present ? rl_map_get(g->names, p->present) : -1;
        if (ri < 0) continue;
        rl_value *present = &g->values[ri];
        if (present->producer < 0 || present->rank <= p->axis) continue;
        rl_node *writer = &g->nodes[present->producer];
        double was = rl_value_bytes(r, present);
        present->dims[p->axis] = seq;
        if (kv_dt) present->dtype = kv_dt;
        if (kv_st) present->storage = kv_st;
        writer->cost.output_bytes += rl_value_bytes(r, present) - was;
    }
    for (int n = 0; n < g->n_nodes; n++) /* the readers read the cache as stored */
        for (int j = 0; j < g->nodes[n].n_in; j++)
            if (g->nodes[n].in[j] >= 0) g->nodes[n].cost.input_bytes += read_delta[g->nodes[n].in[j]];
    return past_bytes;
}

/* A float initializer read as the B operand of MatMul or Gemm: what the
 * weight-bits what-if requantizes. */
static const rl_value *matrix_weight(const rl_node *n) {
    if (n->domain[0] || (strcmp(n->op_type, "MatMul") && strcmp(n->op_type, "Gemm"))) return NULL;
    const rl_value *w = rl_in(n, 1);
    return w && w->kind == RL_VALUE_WEIGHT && rl_dtype_is_float(w->dtype) && w->rank >= 2 ? w : NULL;
}

/* Bytes of a requantized matrix weight: bits per weight plus one fp16 scale
 * per group of `group` weights along K (the reduced axis). */
static double requantized_bytes(const rl_node *n, const rl_value *w, int bits, int64_t group) {
    double numel = rl_numel_d(w);
    if (bits >= 16) return numel * 2;
    bool trans_b = strcmp(n->op_type, "Gemm") == 0 && rl_attr_i(NULL, n, "transB", 0);
    double K = (double)w->dims[trans_b ? w->rank - 1 : w->rank - 2];
    double groups = K > 0 ? (numel / K) * ceil(K / (double)group) : 0;
    return numel * bits / 8.0 + groups * 2;
}

/* The weight-bits what-if: matrix weights stored at weight_bits with their
 * scales; other weights (embeddings, norms, already-packed int4 blocks of
 * MatMulNBits, ...) keep their size. Returns the resident weight bytes. */
static double serve_weights(rl_ctx *r, rl_graph *g, llm_run *L) {
    const int bits = L->O->weight_bits;
    /* per value: its requantized size as its first matrix reader sees it, 0 = kept */
    double *requant = rl_arena_alloc(r->arena, (size_t)(g->n_values + 1) * sizeof *requant);
    if (!requant) return NAN;
    int requantized = 0, kept = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        rl_node *n = &g->nodes[i];
        if (strcmp(n->op_type, "MatMulNBits") == 0 || strcmp(n->op_type, "QMoE") == 0) kept++;
        const rl_value *w = matrix_weight(n);
        if (!bits || !w) continue;
        double q = requantized_bytes(n, w, bits, L->O->weight_group);
        if (requant[w - g->values] == 0) requant[w - g->values] = q > 0 ? q : 1e-300;
        n->cost.weight_bytes += q - rl_value_bytes(r, w);
        if (bits < 16) n->cost.vector_flops += 2 * rl_numel_d(w); /* dequantize, as MatMulNBits */
        requantized++;
    }
    L->requantized = requantized;
    L->kept_quantized = kept;
    double resident = 0;
    for (int i = 0; i < g->n_values; i++) {
        const rl_value *w = &g->values[i];
        if (w->kind == RL_VALUE_WEIGHT) resident += requant[i] > 0 ? requant[i] : rl_value_bytes(r, w);
    }
    return resident;
}

static bool name_has_expert(const char *s) {
    static const char word[] = "expert";
    for (; *s; s++) {
        size_t k = 0;
        while (word[k] && tolower((unsigned char)s[k]) == word[k]) k++;
        if (!word[k]) return true;
    }
    return false;
}

static int64_t dim_of(const rl_value *v, int axis) {
    return v && axis >= 0 && axis < v->rank ? v->dims[axis] : -1;
}

/* MoE: com.microsoft MoE/QMoE nodes count their active experts themselves
 * (the op table). A plain export computes every expert densely behind a
 * router TopK: there, the expert nodes (named "...expert...", or reading a
 * weight so named) count k/E of their work, and read the weights of the
 * experts the tokens touch. Found once, from the first phase graph. */
static void find_moe(const rl_graph *g, moe_info *m) {
    int expert_weights = 0;
    for (int i = 0; i < g->n_values; i++)
        if (g->values[i].kind == RL_VALUE_WEIGHT && name_has_expert(g->values[i].name)) expert_weights++;
    for (int i = 0; i < g->n_nodes; i++) {
        const rl_node *n = &g->nodes[i];
        if (!strcmp(n->domain, "com.microsoft") && (!strcmp(n->op_type, "MoE") || !strcmp(n->op_type, "QMoE"))) {
            m->kind = "MoE op";
            m->layers++;
            m->experts = dim_of(rl_in(n, 1), 1);
            m->top_k = rl_attr_i(NULL, n, "k", 1);
            continue;
        }
        const int64_t *k = NULL;
        const rl_value *x = rl_in(n, 0);
        if (strcmp(n->op_type, "TopK") || !x || x->rank < 1 || rl_in_ints(n, 1, &k) != 1) continue;
        int64_t E = x->dims[x->rank - 1];
        if (E > 1 && k[0] < E && expert_weights >= E && (!m->kind || !strcmp(m->kind, "router TopK"))) {
            m->kind = "router TopK";
            m->layers++;
            m->experts = E;
            m->top_k = k[0];
        }
    }
}

/* The positions the model can encode: the rows of its rotary tables (the
 * cos cache of GroupQueryAttention or RotaryEmbedding, or a gathered table
 * whose name says cos); 0 when the graph has none. */
static int64_t max_positions(const rl_graph *g) {
    int64_t best = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const rl_node *n = &g->nodes[i];
        const rl_value *t = NULL;
        if (!strcmp(n->op_type, "GroupQueryAttention") && rl_attr_i(NULL, n, "do_rotary", 0)) t = rl_in(n, 7);
        else if (!strcmp(n->op_type, "RotaryEmbedding")) t = rl_in(n, n->domain[0] ? 2 : 1);
        else if (!strcmp(n->op_type, "Gather") && rl_in(n, 0) && rl_in(n, 0)->kind == RL_VALUE_WEIGHT &&
                 strstr(rl_in(n, 0)->name, "cos"))
            t = rl_in(n, 0);
        int64_t rows = t && t->rank == 2 ? t->dims[0] : 0;
        if (rows > best) best = rows;
    }
    return best;
}

static void serve_dense_experts(rl_graph *g, llm_run *L, double tokens) {
    const moe_info *m = &L->moe;
    if (!m->kind || strcmp(m->kind, "router TopK")) return;
    double active = (double)m->top_k / (double)m->experts;
    double touched = rl_moe_experts_touched((double)m->experts, (double)m->top_k, tokens) / (double)m->experts;
    int count = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        rl_node *n = &g->nodes[i];
        bool expert = name_has_expert(n->name);
        for (int j = 0; j < n->n_in && !expert; j++)
            expert = n->inv[j] && n->inv[j]->kind == RL_VALUE_WEIGHT && name_has_expert(n->inv[j]->name);
        if (!expert) continue;
        rl_cost *k = &n->cost;
        k->matrix_flops *= active;
        k->vector_flops *= active;
        k->macs *= active;
        k->input_bytes *= active;
        k->output_bytes *= active;
        k->weight_bytes *= touched;
        count++;
    }
    L->moe.expert_nodes = count;
}

/* Live activation bytes at the peak of one pass in topological order: a
 * value lives from its producer to its last reader (graph outputs to the
 * end); views share their input's memory. Weights and the KV cache (inputs
 * and their in-place outputs) are counted apart, so they are left out. */
static double activation_peak(rl_ctx *r, const rl_graph *g, const llm_run *L) {
    int nv = g->n_values, nn = g->n_nodes;
    int *root = rl_arena_alloc(r->arena, (size_t)(nv + 1) * sizeof *root);
    int *last = rl_arena_alloc(r->arena, (size_t)(nv + 1) * sizeof *last);
    bool *skip = rl_arena_alloc(r->arena, (size_t)(nv + 1) * sizeof *skip);
    if (!root || !last || !skip) return NAN;
    for (int i = 0; i < nv; i++) {
        const rl_value *v = &g->values[i];
        root[i] = i;
        last[i] = v->is_graph_output ? nn : -1;
        skip[i] = v->type != RL_TYPE_TENSOR || v->kind == RL_VALUE_WEIGHT || v->kind == RL_VALUE_CONSTANT;
    }
    for (int i = 0; i < L->R->n_kv; i++) {
        int p = rl_map_get(g->names, L->R->kv[i].past);
        int q = L->R->kv[i].present ? rl_map_get(g->names, L->R->kv[i].present) : -1;
        if (p >= 0) skip[p] = true;
        if (q >= 0) skip[q] = true;
    }
    for (int k = 0; k < nn; k++) {
        const rl_node *n = &g->nodes[g->order[k]];
        bool view = n->op && (n->op->flags & RL_OP_VIEW) && n->n_in > 0 && n->in[0] >= 0;
        for (int j = 0; j < n->n_out; j++)
            if (n->out[j] >= 0 && view) root[n->out[j]] = root[n->in[0]];
        for (int j = 0; j < n->n_in; j++)
            if (n->in[j] >= 0 && last[root[n->in[j]]] < k) last[root[n->in[j]]] = k;
        for (int j = 0; j < n->n_out; j++) {
            int o = n->out[j];
            if (o < 0) continue;
            if (last[root[o]] < k) last[root[o]] = k; /* an output nobody reads dies at once */
            if (g->values[o].is_graph_output) last[root[o]] = nn;
        }
    }
    double live = 0, peak = 0;
    for (int i = 0; i < g->n_inputs; i++)
        if (!skip[g->inputs[i]]) live += rl_value_bytes(r, &g->values[g->inputs[i]]);
    peak = live;
    for (int k = 0; k < nn; k++) {
        const rl_node *n = &g->nodes[g->order[k]];
        for (int j = 0; j < n->n_out; j++) {
            int o = n->out[j];
            if (o >= 0 && root[o] == o && !skip[o]) live += rl_value_bytes(r, &g->values[o]);
        }
        if (live > peak) peak = live;
        for (int j = 0; j < n->n_in + n->n_out; j++) {
            int v = j < n->n_in ? n->in[j] : n->out[j - n->n_in];
            if (v < 0 || skip[root[v]] || last[root[v]] != k) continue;
            live -= rl_value_bytes(r, &g->values[root[v]]);
            last[root[v]] = -2; /* freed */
        }
    }
    return peak;
}

/* A context for one phase graph: the request's settings with the phase's
 * dims, its own memory and warnings (the request's warnings are its own). */
static bool phase_ctx(rl_ctx *r, const rl_ctx *c, rl_arena *arena, rl_error *err) {
    *r = *c;
    r->arena = arena;
    r->err = err;
    r->n_warnings = 0;
    r->dropped_warnings = 0;
    r->total_nodes = 0;
    r->warn_slots = NULL;
    r->warnings = rl_arena_alloc(arena, RL_MAX_WARNINGS * sizeof *r->warnings);
    return r->warnings != NULL;
}

/* Analyse the model with batch, seq and past set (total = past + seq).
 * captured: a decode step (see time_phase). want_memory: also the
 * activation peak. Returns 0, or -1 with err set. */
int rl_llm_run_phase(llm_run *L, int64_t batch, int64_t seq, int64_t past, bool captured, bool want_memory,
                     phase *out, rl_error *err) {
    memset(out, 0, sizeof *out);
    rl_arena *arena = &L->arena;
    rl_arena_reset(arena);
    rl_error perr = {0};
    rl_ctx r;
    const rl_ctx *c = L->c;
    const llm_roles *R = L->R;
    rl_dim_setting *dims = phase_ctx(&r, c, arena, &perr)
                               ? rl_arena_alloc(arena, (size_t)(c->n_dims + ROLE_COUNT) * sizeof *dims)
                               : NULL;
    if (!dims) {
        rl_error_set(err, "out_of_memory", "llm", "out of memory");
        return -1;
    }
    const int64_t role_value[ROLE_COUNT] = {batch, seq, past, past + seq};
    int nd = 0;
    for (int i = 0; i < c->n_dims; i++) {
        bool is_role = false;
        for (int k = 0; k < ROLE_COUNT; k++)
            if (R->dim[k] && strcmp(R->dim[k], c->dims[i].name) == 0) is_role = true;
        if (!is_role) dims[nd++] = c->dims[i];
    }
    for (int k = 0; k < ROLE_COUNT; k++)
        if (R->dim[k]) dims[nd++] = (rl_dim_setting){R->dim[k], role_value[k]};
    r.dims = dims;
    r.n_dims = nd;
    r.batch = R->fixed_batch > 0 ? 0 : batch; /* unnamed leading dims take it */
    rl_prepared pg;
    if (rl_prepare_graph(&r, &pg)) {
        *err = perr;
        if (!err->code[0]) rl_error_set(err, "internal", "", "analysis failed");
        snprintf(err->where, sizeof err->where, "llm %s phase (batch %lld, seq %lld, past %lld)",
                 captured ? "decode" : "prefill", (long long)batch, (long long)seq, (long long)past);
        return -1;
    }
    rl_graph *g = pg.graph;
    L->evals++;
    if (!L->facts_checked) {
        find_moe(g, &L->moe);
        L->max_positions = max_positions(g);
        L->facts_checked = true;
    }
    serve_dense_experts(g, L, (double)batch * (double)seq);
    out->weight_resident = serve_weights(&r, g, L);
    out->kv_past_bytes = serve_kv_in_place(&r, g, L, batch, seq, out);
    if (time_phase(&r, &pg, L, captured, out, err)) return -1;
    if (want_memory) out->activation_peak = activation_peak(&r, g, L);
    return 0;
}
