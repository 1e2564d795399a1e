/* Many devices: tensor, pipeline and data parallelism with the
 * communication roofline of seed 003 (docs/parallel.md has the conventions
 * in words; parallel.h the contract). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "ops/op.h"
#include "parallel.h"
#include "parallel_heads.h"

#define PAR_MAX_TP 1024
#define PAR_MAX_PP 1024
#define PAR_MAX_DP 65536
#define PAR_MAX_MICRO 65536
#define PAR_MAX_DEVICES 1048576

struct rl_parallel {
    int tp, pp, dp, micro_batches, devices;
    bool training;
    const rl_hw *hw;
    const rl_graph *graph;
    int n_layers;
    rl_layer_comm *layer;
    /* the pipeline stages */
    int *stage_first, *stage_last;
    double *stage_math, *stage_comms, *stage_send_bytes, *stage_weights;
    double weight_bytes;           /* every weight once, whole */
    /* totals (docs/api.md, "parallel") */
    double tp_bandwidth;           /* B/s one device's tensor-parallel collective moves */
    double t_math_s, t_comms_s, time_s, lower_bound_s, upper_bound_s, bubble;
    double comm_bytes, tp_comm_bytes, send_bytes, grad_bytes, t_grad_s;
    double weight_bytes_per_device, activation_bytes_per_device, memory_bytes_per_device, capacity;
    double flops_per_device, single_device_s, critical_intensity, peak_flops, t_compute_sum, t_memory_sum;
    /* the forecast: the stages' forecast math and communication, the totals */
    double *stage_fc_math, *stage_fc_comms;
    double forecast_s, forecast_t_math_s, forecast_t_comms_s, single_device_forecast_s;
    /* the energy of the whole group (every device, docs/parallel.md): the
     * layers' dynamic energy on one device and over one replica's devices,
     * then the totals of the floor and of the forecast (NAN: no figures) */
    double dyn_energy_one_j, dyn_energy_group_j, energy_j, forecast_energy_j;
    rl_bound bound;
    int n_column, n_row, n_vocab, n_slice;
};

const char *rl_shard_name(rl_shard_kind k) {
    static const char *const names[] = {"replicated", "slice", "column", "row", "vocab"};
    return k >= RL_SHARD_NONE && k <= RL_SHARD_VOCAB ? names[k] : "replicated";
}

const char *rl_collective_name(rl_collective k) {
    return k == RL_COLL_ALL_REDUCE ? "all-reduce" : k == RL_COLL_ALL_GATHER ? "all-gather" : "none";
}

void rl_parallel_summarize(const rl_parallel *p, rl_parallel_summary *out) {
    *out = (rl_parallel_summary){.tp = p->tp, .pp = p->pp, .dp = p->dp, .devices = p->devices,
                                 .time_s = p->time_s, .t_math_s = p->t_math_s, .t_comms_s = p->t_comms_s,
                                 .comm_bytes = p->comm_bytes, .forecast_s = p->forecast_s,
                                 .forecast_t_comms_s = p->forecast_t_comms_s,
                                 .energy_j = p->energy_j, .forecast_energy_j = p->forecast_energy_j,
                                 .weight_bytes_per_device = p->weight_bytes_per_device,
                                 .weight_bytes = p->weight_bytes,
                                 .memory_bytes_per_device = p->memory_bytes_per_device,
                                 .memory_capacity_bytes = p->capacity,
                                 .speedup = p->time_s > 0 ? p->single_device_s / p->time_s : 0,
                                 .bound = p->bound};
}

const rl_layer_comm *rl_parallel_layer(const rl_parallel *p, int i) {
    return p && i >= 0 && i < p->n_layers ? &p->layer[i] : NULL;
}

/* ------------------------------------------------------------- request -- */
static int parse_count(const cJSON *spec, const char *key, int lo, int hi, int *out, rl_error *err) {
    double v = 0;
    int got = rl_json_whole(spec, key, lo, hi, &v);
    if (got < 0) {
        char where[48];
        snprintf(where, sizeof where, "parallel.%s", key);
        rl_error_set(err, "bad_request", where, "parallel.%s must be a whole number from %d to %d", key, lo, hi);
        return -1;
    }
    if (got > 0) *out = (int)v;
    return 0;
}

static int parse_spec(const cJSON *spec, rl_parallel *P, rl_error *err) {
    static const char *const keys[] = {"tp", "pp", "dp", "micro_batches", NULL};
    if (!cJSON_IsObject(spec)) {
        rl_error_set(err, "bad_request", "parallel",
                     "parallel must be an object {\"tp\": T, \"pp\": P, \"dp\": D, \"micro_batches\": M}");
        return -1;
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, spec) {
        int k = 0;
        while (keys[k] && strcmp(keys[k], it->string)) k++;
        if (!keys[k]) {
            rl_error_set(err, "bad_request", "parallel", "parallel.%s is not an option (known: tp, pp, dp, "
                         "micro_batches)", it->string);
            return -1;
        }
        /* JSON allows a key twice and readers disagree on which one counts */
        for (const cJSON *before = spec->child; before != it; before = before->next)
            if (!strcmp(before->string, it->string)) {
                char where[48];
                snprintf(where, sizeof where, "parallel.%s", it->string);
                rl_error_set(err, "bad_request", where, "parallel.%s is given more than once: give it once",
                             it->string);
                return -1;
            }
    }
    P->tp = P->pp = P->dp = P->micro_batches = 1;
    if (parse_count(spec, "tp", 1, PAR_MAX_TP, &P->tp, err) || parse_count(spec, "pp", 1, PAR_MAX_PP, &P->pp, err) ||
        parse_count(spec, "dp", 1, PAR_MAX_DP, &P->dp, err) ||
        parse_count(spec, "micro_batches", 1, PAR_MAX_MICRO, &P->micro_batches, err))
        return -1;
    int64_t devices = (int64_t)P->tp * P->pp * P->dp; /* up to 2^36: no int overflow */
    if (devices > PAR_MAX_DEVICES) {
        rl_error_set(err, "bad_request", "parallel",
                     "tp x pp x dp = %lld devices; at most %d are analysed", (long long)devices, PAR_MAX_DEVICES);
        return -1;
    }
    P->devices = (int)devices;
    return 0;
}

/* ---------------------------------------------------------- collectives -- */
/* Links one device drives at once in a collective over n devices: all of
 * them through a switch, one per peer when wired to each, one in each
 * direction on a ring or torus (seed 003's two TPUs: 4.5e10 B/s each way). */
static double lanes(const rl_hw *hw, int n) {
    if (hw->ic_topology == RL_TOPO_SWITCH) return hw->ic_links;
    if (hw->ic_topology == RL_TOPO_ALL_TO_ALL) return fmin(hw->ic_links, n - 1);
    return 1;
}

/* One device's share of a `bytes`-byte tensor cut in n: whole bytes, the
 * larger share when n does not divide it (a device sends or holds no
 * fraction of a byte). */
static double share_bytes(double bytes, int n) {
    return bytes > 0 ? ceil(ceil(bytes) / n) : 0;
}

/* Bytes one device sends in a ring collective of a `size`-byte tensor over
 * n: n - 1 steps (twice that for an all-reduce) of one share each. */
static double coll_bytes(rl_collective k, int n, double size) {
    if (n <= 1 || k == RL_COLL_NONE) return 0;
    return (k == RL_COLL_ALL_REDUCE ? 2.0 : 1.0) * (n - 1) * share_bytes(size, n);
}

static double coll_time(const rl_hw *hw, rl_collective k, int n, double bytes) {
    if (n <= 1 || k == RL_COLL_NONE) return 0;
    double steps = (k == RL_COLL_ALL_REDUCE ? 2.0 : 1.0) * (n - 1);
    return bytes / (hw->ic_link_bw * lanes(hw, n)) + steps * hw->ic_latency_s;
}

/* The forecast of a collective: as coll_time, with the bytes at the link's
 * achievable rate (a collective library's protocol overhead), and one
 * kernel's fixed cost, the collective's own kernel. */
static double coll_forecast(const rl_hw *hw, rl_collective k, int n, double bytes) {
    if (n <= 1 || k == RL_COLL_NONE) return 0;
    double steps = (k == RL_COLL_ALL_REDUCE ? 2.0 : 1.0) * (n - 1);
    return bytes / (hw->ic_link_bw * lanes(hw, n) * hw->fc.link_fraction) + steps * hw->ic_latency_s +
           rl_fc_class_kernel_s(&hw->fc, RL_CLASS_MOVEMENT);
}

/* ----------------------------------------------------- finding the pairs -- */
static bool is_weight(const rl_graph *g, const rl_node *n, int j) {
    return j < n->n_in && n->in[j] >= 0 && g->values[n->in[j]].kind == RL_VALUE_WEIGHT;
}

/* A matmul with a weight matrix (an initializer of rank >= 2 after the
 * activation): the layers Megatron splits. */
static bool weighted_matmul(const rl_graph *g, const rl_node *n) {
    static const char *const ops[] = {"MatMul", "Gemm", "MatMulNBits", "FusedMatMul", "MatMulInteger",
                                      "QLinearMatMul", NULL};
    int k = 0;
    while (ops[k] && strcmp(ops[k], n->op_type)) k++;
    if (!ops[k]) return false;
    for (int j = 1; j < n->n_in; j++)
        if (is_weight(g, n, j) && g->values[n->in[j]].rank >= 2) return true;
    return false;
}

/* The vocabulary: the last dim of the graph's logits output (0: none). */
static int64_t vocab_of(const rl_graph *g) {
    for (int i = 0; i < g->n_outputs; i++) {
        const rl_value *v = g->outputs[i];
        if (v && strstr(v->name, "logits") && v->rank > 0 && v->dims[v->rank - 1] > 0) return v->dims[v->rank - 1];
    }
    return 0;
}

/* A token embedding: a table of `vocab` rows gathered (named "embed" when
 * the graph has no logits). Other tables (rotary cos/sin) stay whole. */
static bool embedding(const rl_graph *g, const rl_node *n, int64_t vocab) {
    if ((strcmp(n->op_type, "Gather") && strcmp(n->op_type, "GatherBlockQuantized")) || !is_weight(g, n, 0)) return false;
    const rl_value *t = &g->values[n->in[0]];
    if (t->rank != 2) return false;
    return vocab > 0 ? t->dims[0] == vocab : strstr(t->name, "embed") || strstr(n->name, "embed");
}

/* An op that needs the whole of a split value: a reduction or a
 * normalisation over features, or an elementwise join with a full-size
 * value that is not split (a residual). Shape-only ops read no data. */
static bool needs_whole(const rl_graph *g, const rl_node *n, const int *sh) {
    if (!strncmp(n->op_type, "Reduce", 6) || strstr(n->op_type, "Normalization")) return true;
    static const char *const joins[] = {"Add", "Sub", "Mul", "Div", NULL};
    int k = 0;
    while (joins[k] && strcmp(joins[k], n->op_type)) k++;
    if (!joins[k] || n->n_out < 1 || !n->outv[0]) return false;
    double out = rl_numel_d(n->outv[0]);
    for (int j = 0; j < n->n_in; j++) {
        int v = n->in[j];
        if (v >= 0 && sh[v] < 0 && g->values[v].kind != RL_VALUE_WEIGHT && g->values[v].kind != RL_VALUE_CONSTANT &&
            out > 0 && rl_numel_d(&g->values[v]) >= out)
            return true;
    }
    return false;
}

static int uf_find(int *parent, int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
}

/* The working state of one pass over the graph. */
typedef struct pass_state {
    int *sh;          /* per value: the group (first column layer) of a split value, -1 whole */
    int *parent;      /* union-find over layers: groups joined by a layer that reads both */
    bool *paired;     /* per group root: a row layer consumed it */
    bool *lone;       /* per layer: a column candidate whose split reached no row layer */
} pass_state;

/* The language-model head: by its name or its weight's (lm_head), or as the
 * layer that writes the graph's logits. Any other lone matmul is split
 * along its contraction, as in seed 003's two-chip example. */
static bool is_lm_head(const rl_graph *g, const rl_node *n) {
    if (strstr(n->name, "lm_head")) return true;
    for (int j = 0; j < n->n_in; j++)
        if (is_weight(g, n, j) && strstr(g->values[n->in[j]].name, "lm_head")) return true;
    return n->n_out > 0 && n->outv[0] && n->outv[0]->is_graph_output && strstr(n->outv[0]->name, "logits");
}

/* A layer's outputs take `group` (-1: whole). */
static void set_outputs(const rl_node *n, int *sh, int group) {
    for (int j = 0; j < n->n_out; j++)
        if (n->out[j] >= 0) sh[n->out[j]] = group;
}

/* A layer that is not a weighted matmul or an embedding: split when it
 * reads a split value (its groups joined), whole after a layer that needs
 * the whole value (an all-gather of it). */
static void follow(const rl_graph *g, const rl_node *n, pass_state *S, rl_layer_comm *L) {
    int group = -1;
    for (int j = 0; j < n->n_in; j++) {
        int v = n->in[j];
        if (v < 0 || S->sh[v] < 0) continue;
        int r = uf_find(S->parent, S->sh[v]);
        if (group < 0) group = r;
        else if (r != group) S->parent[r] = group;
    }
    bool shape_only = !strcmp(n->op_type, "Shape") || !strcmp(n->op_type, "Size");
    if (group < 0 || shape_only) {
        set_outputs(n, S->sh, -1);
        return;
    }
    if (needs_whole(g, n, S->sh)) {
        L->coll = RL_COLL_ALL_GATHER;
        set_outputs(n, S->sh, -1);
        return;
    }
    L->shard = RL_SHARD_SLICE;
    set_outputs(n, S->sh, group);
}

/* One pass in topological order: each layer's split and collective. */
static void one_pass(const rl_graph *g, pass_state *S, rl_layer_comm *layer) {
    int64_t vocab = vocab_of(g);
    for (int v = 0; v < g->n_values; v++) S->sh[v] = -1;
    for (int i = 0; i < g->n_nodes; i++) S->parent[i] = i, S->paired[i] = false;
    for (int k = 0; k < g->n_nodes; k++) {
        int i = g->order[k];
        const rl_node *n = &g->nodes[i];
        rl_layer_comm *L = &layer[i];
        L->shard = RL_SHARD_NONE;
        L->coll = RL_COLL_NONE;
        int a = n->n_in > 0 ? n->in[0] : -1;
        if (weighted_matmul(g, n) && a >= 0 && S->sh[a] >= 0) {
            S->paired[uf_find(S->parent, S->sh[a])] = true;
            *L = (rl_layer_comm){.shard = RL_SHARD_ROW, .coll = RL_COLL_ALL_REDUCE};
            set_outputs(n, S->sh, -1);
        } else if (weighted_matmul(g, n) && S->lone[i]) {
            bool head = is_lm_head(g, n);
            *L = (rl_layer_comm){.shard = head ? RL_SHARD_VOCAB : RL_SHARD_ROW,
                                 .coll = head ? RL_COLL_ALL_GATHER : RL_COLL_ALL_REDUCE};
            set_outputs(n, S->sh, -1);
        } else if (weighted_matmul(g, n)) {
            L->shard = RL_SHARD_COLUMN;
            set_outputs(n, S->sh, i);
        } else if (embedding(g, n, vocab)) {
            *L = (rl_layer_comm){.shard = RL_SHARD_VOCAB, .coll = RL_COLL_ALL_REDUCE};
            set_outputs(n, S->sh, -1);
        } else {
            follow(g, n, S, L);
        }
    }
}

/* Megatron's pairs: a column layer whose split reaches a row layer. The
 * others are lone (row-parallel + all-reduce, or vocab-parallel lm_head);
 * making one lone changes what follows it, so the passes repeat until no
 * layer changes (each pass makes at least one more lone, so it ends). */
static int find_pairs(rl_ctx *c, const rl_graph *g, rl_layer_comm *layer, int **sh_out) {
    pass_state S = {rl_arena_alloc(c->arena, (size_t)(g->n_values + 1) * sizeof(int)),
                    rl_arena_alloc(c->arena, (size_t)(g->n_nodes + 1) * sizeof(int)),
                    rl_arena_alloc(c->arena, (size_t)(g->n_nodes + 1) * sizeof(bool)),
                    rl_arena_alloc(c->arena, (size_t)(g->n_nodes + 1) * sizeof(bool))};
    if (!S.sh || !S.parent || !S.paired || !S.lone) return -1;
    for (;;) {
        one_pass(g, &S, layer);
        bool changed = false;
        for (int i = 0; i < g->n_nodes; i++)
            if (layer[i].shard == RL_SHARD_COLUMN && !S.paired[uf_find(S.parent, i)]) S.lone[i] = changed = true;
        if (!changed) break;
    }
    *sh_out = S.sh;
    return 0;
}

static int refuse(rl_error *err, const char *where, const char *msg) {
    rl_error_set(err, "bad_request", where, "%s", msg);
    return -1;
}

/* ------------------------------------------------------ one layer's time -- */
/* The share of a layer's FLOPs and of its input, weight and output bytes
 * that one of T devices handles. */
static void shares(rl_shard_kind k, int T, double *flops, double *in, double *w, double *out) {
    double s = 1.0 / T;
    *flops = *in = *w = *out = 1;
    switch (k) {
    case RL_SHARD_SLICE: *flops = *in = *w = *out = s; break;
    case RL_SHARD_COLUMN: *flops = *w = *out = s; break;
    case RL_SHARD_ROW: *flops = *in = *w = s; break;
    case RL_SHARD_VOCAB: *flops = *w = s; break;
    default: break;
    }
}

/* The share of a layer's bytes one of T devices moves: its input, weight
 * and output bytes each at their share (shares()). */
static double byte_share(const rl_node *n, rl_shard_kind k, int T) {
    double fs, is, ws, os;
    shares(k, T, &fs, &is, &ws, &os);
    const rl_cost *q = &n->cost;
    double total = q->input_bytes + q->weight_bytes + q->output_bytes;
    return total > 0 ? (is * q->input_bytes + ws * q->weight_bytes + os * q->output_bytes) / total : 1;
}

/* The layer's time on one device: the timing model's time of the layer,
 * its roofline part (compute or memory) scaled by the share one device keeps. */
static double layer_time(const rl_node *n, const rl_layer_time *L, rl_shard_kind k, int T, double *tc,
                         double *tm, double *fc) {
    double fs, is, ws, os;
    shares(k, T, &fs, &is, &ws, &os);
    double bs = byte_share(n, k, T);
    *tc = L->tc * fs;
    *tm = L->tm * bs;
    double whole = fmax(L->tc, L->tm), split = fmax(*tc, *tm);
    /* the forecast: its kernels' fixed costs every device pays in full; the
     * work's part (at the stack's efficiencies) shrinks as the roofline does */
    double fixed = fmin(L->forecast_fixed_s, L->forecast_s);
    *fc = whole > 0 ? fixed + (L->forecast_s - fixed) * split / whole : L->forecast_s;
    if (!(whole > 0)) return L->t;
    /* what the layer's time has beyond its roofline (its share of the kernel
     * launches, of a power floor) is not split: each device pays it */
    if (L->t > whole) return L->t - whole + split;
    return L->t * split / whole;
}

/* The bytes of the tensor a layer's collective moves: its output, or for a
 * layer that needs a whole value, the split inputs gathered before it. */
static double coll_size(const rl_ctx *c, const rl_graph *g, const rl_node *n, const rl_layer_comm *L, const int *sh) {
    if (L->coll == RL_COLL_NONE) return 0;
    if (L->shard != RL_SHARD_NONE) return n->n_out > 0 && n->outv[0] ? rl_value_bytes(c, n->outv[0]) : 0;
    double size = 0;
    for (int j = 0; j < n->n_in; j++)
        if (n->in[j] >= 0 && sh[n->in[j]] >= 0) size += rl_value_bytes(c, &g->values[n->in[j]]);
    return size;
}

/* Per layer: time on one device, bytes sent and their time; the totals of
 * the math's compute and memory parts (for the bound). Training: the
 * backward pass is 2x the forward math (as the single-device training
 * figures) and runs the mirror collective once more. */
static void time_layers(rl_ctx *c, const rl_graph *g, const rl_layer_time *lt, const int *sh, rl_parallel *P) {
    double passes = P->training ? 3 : 1, comm_passes = P->training ? 2 : 1;
    for (int i = 0; i < g->n_nodes; i++) {
        rl_layer_comm *L = &P->layer[i];
        double tc, tm, fc;
        L->t_math_s = passes * layer_time(&g->nodes[i], &lt[i], L->shard, P->tp, &tc, &tm, &fc);
        L->fc_math_s = passes * fc;
        double fs, is, ws, os;
        shares(L->shard, P->tp, &fs, &is, &ws, &os);
        L->flops = passes * fs * lt[i].flops;
        P->flops_per_device += L->flops;
        P->t_compute_sum += passes * tc;
        P->t_memory_sum += passes * tm;
        double bytes = coll_bytes(L->coll, P->tp, coll_size(c, g, &g->nodes[i], L, sh));
        L->comm_bytes = comm_passes * bytes;
        L->t_comms_s = comm_passes * coll_time(P->hw, L->coll, P->tp, bytes);
        L->fc_comms_s = comm_passes * coll_forecast(P->hw, L->coll, P->tp, bytes);
        P->tp_comm_bytes += L->comm_bytes;
        /* the dynamic energy of its work: one device's whole layer, and every
         * device of the group's share (T slices, or T copies of a replicated
         * layer): FLOPs at their share, bytes at theirs */
        const rl_layer_time *E = &lt[i];
        double e_bytes = P->hw->e_byte * E->model_bytes;
        P->dyn_energy_one_j += E->flop_energy + e_bytes;
        P->dyn_energy_group_j += passes * P->tp * (fs * E->flop_energy + byte_share(&g->nodes[i], L->shard, P->tp) * e_bytes);
    }
}

/* --------------------------------------------------------------- stages -- */
/* P stages of balanced time: the layers in topological order, cut where the
 * running time passes each P-th of the total (every stage keeps a layer). */
static void split_stages(const rl_graph *g, rl_parallel *P) {
    int n = g->n_nodes, S = P->pp, s = 0;
    double total = 0, cum = 0;
    for (int i = 0; i < n; i++) total += P->layer[i].t_math_s + P->layer[i].t_comms_s;
    P->stage_first[0] = 0;
    for (int k = 0; k < n; k++) {
        const rl_layer_comm *L = &P->layer[g->order[k]];
        P->layer[g->order[k]].stage = s;
        cum += L->t_math_s + L->t_comms_s;
        int nodes_left = n - k - 1, stages_left = S - s - 1;
        bool reached = total > 0 ? cum >= total * (s + 1) / S : (double)(k + 1) >= (double)n * (s + 1) / S;
        if (stages_left > 0 && nodes_left > 0 && (reached || nodes_left == stages_left)) {
            P->stage_last[s++] = k;
            P->stage_first[s] = k + 1;
        }
    }
    P->stage_last[S - 1] = n - 1;
}

/* What each stage sends the next: the activations made in a stage and read
 * in a later one (each device its split of them); and the weights it holds. */
static int stage_traffic(rl_ctx *c, const rl_graph *g, const int *sh, rl_parallel *P) {
    int S = P->pp;
    int *last = rl_arena_alloc(c->arena, (size_t)(g->n_values + 1) * sizeof *last);
    double *diff = rl_arena_alloc(c->arena, (size_t)(S + 1) * sizeof *diff);
    bool *seen = rl_arena_alloc(c->arena, (size_t)(g->n_values + 1) * sizeof *seen);
    if (!last || !diff || !seen) return -1;
    for (int i = 0; i < g->n_nodes; i++)
        for (int j = 0; j < g->nodes[i].n_in; j++) {
            int v = g->nodes[i].in[j];
            if (v >= 0 && P->layer[i].stage + 1 > last[v]) last[v] = P->layer[i].stage + 1; /* stage + 1; 0 none */
        }
    for (int i = 0; i < g->n_nodes; i++) {
        const rl_node *n = &g->nodes[i];
        int s0 = P->layer[i].stage;
        for (int j = 0; j < n->n_out; j++) {
            int v = n->out[j];
            if (v < 0 || last[v] - 1 <= s0) continue;
            double b = share_bytes(rl_value_bytes(c, &g->values[v]), sh[v] >= 0 ? P->tp : 1);
            diff[s0] += b;
            diff[last[v] - 1] -= b;
        }
        double fs, is, ws, os;
        shares(P->layer[i].shard, P->tp, &fs, &is, &ws, &os);
        for (int j = 0; j < n->n_in; j++) {
            int v = n->in[j];
            if (v < 0 || seen[v] || g->values[v].kind != RL_VALUE_WEIGHT) continue;
            seen[v] = true;
            P->stage_weights[s0] += share_bytes(rl_value_bytes(c, &g->values[v]), ws < 1 ? P->tp : 1);
            P->weight_bytes += rl_value_bytes(c, &g->values[v]);
        }
        double act = share_bytes(n->cost.input_bytes, is < 1 ? P->tp : 1) +
                     share_bytes(n->cost.output_bytes, os < 1 ? P->tp : 1);
        if (act > P->activation_bytes_per_device) P->activation_bytes_per_device = act;
    }
    double run = 0;
    for (int s = 0; s < S; s++) P->stage_send_bytes[s] = s < S - 1 ? (run += diff[s]) : 0;
    return 0;
}

/* A pipeline of S stages with M micro-batches: each micro-batch takes x/M
 * in a stage of time x; the last one leaves after the sum of the stages
 * and M - 1 turns of the slowest: (sum + (M - 1) max) / M. The bubble is
 * then (S - 1) / (M + S - 1) of the time when the stages are equal. */
static double pipe_time(const double *x, int S, int M) {
    double sum = 0, mx = 0;
    for (int s = 0; s < S; s++) sum += x[s], mx = fmax(mx, x[s]);
    return (sum + (M - 1) * mx) / M;
}

/* ---------------------------------------------------------------- totals -- */
static void stage_times(const rl_graph *g, rl_parallel *P) {
    double comm_passes = P->training ? 2 : 1;
    const rl_hw *hw = P->hw;
    for (int i = 0; i < g->n_nodes; i++) {
        const rl_layer_comm *L = &P->layer[i];
        P->stage_math[L->stage] += L->t_math_s;
        P->stage_comms[L->stage] += L->t_comms_s;
        P->stage_fc_math[L->stage] += L->fc_math_s;
        P->stage_fc_comms[L->stage] += L->fc_comms_s;
    }
    for (int s = 0; s + 1 < P->pp; s++) {
        double b = P->stage_send_bytes[s];
        P->stage_comms[s] += comm_passes * (b / hw->ic_link_bw + hw->ic_latency_s);
        P->stage_fc_comms[s] += comm_passes * (b / (hw->ic_link_bw * hw->fc.link_fraction) + hw->ic_latency_s +
                                               rl_fc_class_kernel_s(&hw->fc, RL_CLASS_MOVEMENT));
        P->send_bytes += comm_passes * b;
    }
}

/* The forecast over the devices, as the floor's upper bound (no overlap),
 * over the stages' forecast math and communication; the gradients'
 * all-reduce at the link's achievable rate. Never below the floor's time.
 * `both` is scratch for S stages. */
static void forecast_totals(rl_parallel *P, double *both) {
    int S = P->pp, M = P->micro_batches;
    const rl_hw *hw = P->hw;
    for (int s = 0; s < S; s++) both[s] = P->stage_fc_math[s] + P->stage_fc_comms[s];
    double grad = P->grad_bytes > 0 ? coll_forecast(hw, RL_COLL_ALL_REDUCE, P->dp, P->grad_bytes) : 0;
    P->forecast_t_math_s = pipe_time(P->stage_fc_math, S, M);
    P->forecast_t_comms_s = pipe_time(P->stage_fc_comms, S, M) + grad;
    P->forecast_s = fmax(pipe_time(both, S, M) + grad, P->time_s);
}

/* The energy of the whole group over the plan's time: every device's
 * dynamic energy (the replicas' work, each layer's share on each of its T
 * devices, training's backward pass) and every device's static power over
 * the plan's time. One device's dynamic energy (the chosen model's, the
 * forecast's) is scaled by the layers' ratio of the group's to one
 * device's, so tp = pp = dp = 1 gives one device's energy exactly. The
 * links draw no energy in the model (the profiles give none). */
static void group_energy(const rl_timing *t, rl_parallel *P) {
    const rl_hw *hw = P->hw;
    if (!t->has_energy) {
        P->energy_j = P->forecast_energy_j = NAN;
        return;
    }
    const rl_sol_result *ch = rl_timing_chosen(t);
    double ratio = P->dp * (P->dyn_energy_one_j > 0 ? P->dyn_energy_group_j / P->dyn_energy_one_j
                                                     : (P->training ? 3.0 : 1.0) * P->tp);
    double floor_dyn = fmax(ch->energy_j - hw->static_w * ch->time_s, 0);
    double forecast_dyn = fmax(t->forecast.energy_j - hw->static_w * t->forecast.time_s, 0);
    P->energy_j = ratio * floor_dyn + P->devices * hw->static_w * P->time_s;
    P->forecast_energy_j = ratio * forecast_dyn + P->devices * hw->static_w * P->forecast_s;
}

static int totals(rl_ctx *c, const rl_timing *t, rl_parallel *P) {
    int S = P->pp, M = P->micro_batches;
    double *both = rl_arena_alloc(c->arena, (size_t)S * sizeof *both);
    if (!both) return -1;
    for (int s = 0; s < S; s++) {
        both[s] = P->stage_math[s] + P->stage_comms[s];
        P->weight_bytes_per_device = fmax(P->weight_bytes_per_device, P->stage_weights[s]);
    }
    if (P->training && P->dp > 1) { /* the gradients of one device's weights, averaged over the replicas */
        double g = coll_bytes(RL_COLL_ALL_REDUCE, P->dp, P->weight_bytes_per_device);
        P->grad_bytes = g;
        P->t_grad_s = coll_time(P->hw, RL_COLL_ALL_REDUCE, P->dp, g);
    }
    P->t_math_s = pipe_time(P->stage_math, S, M);
    P->t_comms_s = pipe_time(P->stage_comms, S, M) + P->t_grad_s;
    P->upper_bound_s = pipe_time(both, S, M) + P->t_grad_s;
    P->lower_bound_s = fmax(P->t_math_s, P->t_comms_s);
    P->time_s = P->upper_bound_s;
    forecast_totals(P, both);
    group_energy(t, P);
    P->bubble = (double)(S - 1) / (M + S - 1);
    P->comm_bytes = P->tp_comm_bytes + P->send_bytes + P->grad_bytes;
    P->bound = P->t_comms_s > P->t_math_s           ? RL_BOUND_COMMUNICATION
               : P->t_compute_sum >= P->t_memory_sum ? RL_BOUND_COMPUTE
                                                     : RL_BOUND_MEMORY;
    /* training keeps each weight's gradient beside it */
    P->memory_bytes_per_device = P->weight_bytes_per_device * (P->training ? 2 : 1) + P->activation_bytes_per_device;
    P->capacity = P->hw->n_mem > 0 ? P->hw->mem_cap[0] : 0;
    P->single_device_s = rl_timing_chosen(t)->time_s * (P->training ? 3 : 1);
    P->single_device_forecast_s = t->forecast.time_s * (P->training ? 3 : 1);
    P->tp_bandwidth = P->hw->ic_topology == RL_TOPO_NONE ? 0 : P->hw->ic_link_bw * lanes(P->hw, P->tp);
    int prec = t->main_prec >= 0 && t->main_prec < RL_P_COUNT ? t->main_prec : RL_P_FP32;
    P->peak_flops = P->hw->matrix[prec];
    P->critical_intensity = P->tp_bandwidth > 0 ? P->peak_flops / P->tp_bandwidth : 0;
    return 0;
}

static int check_devices(const rl_hw *hw, const rl_graph *g, const rl_parallel *P, rl_error *err) {
    if (P->devices > 1 && hw->ic_topology == RL_TOPO_NONE) {
        rl_error_set(err, "bad_request", "parallel",
                     "hardware '%s' has no interconnect (one device), so it cannot be one of %d devices "
                     "(tp=%d, pp=%d, dp=%d): pick a profile with chip-to-chip links, or give this one an "
                     "\"interconnect\" (hw/README.md)", hw->id, P->devices, P->tp, P->pp, P->dp);
        return -1;
    }
    if (P->pp > g->n_nodes) {
        rl_error_set(err, "bad_request", "parallel.pp",
                     "pp=%d asks for more pipeline stages than the graph has layers (%d): choose pp <= %d",
                     P->pp, g->n_nodes, g->n_nodes > 0 ? g->n_nodes : 1);
        return -1;
    }
    return 0;
}

static bool alloc_plan(rl_ctx *c, rl_parallel *P, int n) {
    size_t S = (size_t)P->pp;
    P->layer = rl_arena_alloc(c->arena, (size_t)(n + 1) * sizeof *P->layer);
    P->stage_first = rl_arena_alloc(c->arena, S * sizeof(int));
    P->stage_last = rl_arena_alloc(c->arena, S * sizeof(int));
    P->stage_math = rl_arena_alloc(c->arena, S * sizeof(double));
    P->stage_comms = rl_arena_alloc(c->arena, S * sizeof(double));
    P->stage_send_bytes = rl_arena_alloc(c->arena, S * sizeof(double));
    P->stage_weights = rl_arena_alloc(c->arena, S * sizeof(double));
    P->stage_fc_math = rl_arena_alloc(c->arena, S * sizeof(double));
    P->stage_fc_comms = rl_arena_alloc(c->arena, S * sizeof(double));
    return P->layer && P->stage_first && P->stage_last && P->stage_math && P->stage_comms && P->stage_send_bytes &&
           P->stage_weights && P->stage_fc_math && P->stage_fc_comms;
}

int rl_parallel_plan(rl_ctx *c, const cJSON *spec, const rl_options *o, const rl_hw *hw, const rl_prepared *pg,
                     const rl_layer_time *lt, const rl_timing *t, rl_parallel **out, rl_error *err) {
    const rl_graph *g = pg->graph;
    rl_parallel *P = rl_arena_alloc(c->arena, sizeof *P);
    *out = NULL;
    if (!P) return refuse(err, "parallel", "out of memory");
    if (parse_spec(spec, P, err) || check_devices(hw, g, P, err)) return -1;
    P->hw = hw;
    P->graph = g;
    P->training = o->training;
    P->n_layers = g->n_nodes;
    if (!alloc_plan(c, P, g->n_nodes)) return refuse(err, "parallel", "out of memory");
    int *sh = rl_arena_alloc(c->arena, (size_t)(g->n_values + 1) * sizeof *sh);
    if (!sh) return refuse(err, "parallel", "out of memory");
    for (int v = 0; v < g->n_values; v++) sh[v] = -1;
    if (P->tp > 1 && find_pairs(c, g, P->layer, &sh)) return refuse(err, "parallel", "out of memory");
    if (rl_parallel_check_heads(c, g, P->tp, sh, err) || rl_parallel_check_split_sizes(c, g, P->layer, P->tp, err))
        return -1;
    if (c->err && c->err->code[0]) { /* a heads attribute that is not a whole number */
        if (c->err != err) *err = *c->err;
        return -1;
    }
    time_layers(c, g, lt, sh, P);
    split_stages(g, P);
    if (stage_traffic(c, g, sh, P)) return refuse(err, "parallel", "out of memory");
    stage_times(g, P);
    if (totals(c, t, P)) return refuse(err, "parallel", "out of memory");
    for (int i = 0; i < g->n_nodes; i++) {
        rl_shard_kind k = P->layer[i].shard;
        P->n_column += k == RL_SHARD_COLUMN;
        P->n_row += k == RL_SHARD_ROW;
        P->n_vocab += k == RL_SHARD_VOCAB;
        P->n_slice += k == RL_SHARD_SLICE;
    }
    *out = P;
    return 0;
}

/* ------------------------------------------------------------------ JSON -- */
static void add_interconnect(cJSON *to, const rl_parallel *P) {
    const rl_hw *hw = P->hw;
    cJSON *ic = cJSON_AddObjectToObject(to, "interconnect");
    cJSON_AddStringToObject(ic, "name", hw->ic_name ? hw->ic_name : "none");
    cJSON_AddStringToObject(ic, "topology", rl_topology_name(hw->ic_topology));
    rl_json_add_num(ic, "links", hw->ic_links);
    rl_json_add_num(ic, "link_bandwidth_Bps", hw->ic_link_bw);
    rl_json_add_num(ic, "latency_s", hw->ic_latency_s);
    rl_json_add_num(ic, "tp_bandwidth_Bps", P->tp_bandwidth);
    rl_json_add_num(ic, "peak_flops_per_s", P->peak_flops);
    if (P->critical_intensity > 0) rl_json_add_num(ic, "critical_intensity", P->critical_intensity);
    else cJSON_AddNullToObject(ic, "critical_intensity");
}

static void add_stages(cJSON *to, const rl_parallel *P) {
    cJSON *st = cJSON_AddArrayToObject(to, "stages");
    for (int s = 0; s < P->pp; s++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "stage", s);
        cJSON_AddNumberToObject(o, "first_layer", P->graph->order[P->stage_first[s]]);
        cJSON_AddNumberToObject(o, "last_layer", P->graph->order[P->stage_last[s]]);
        cJSON_AddNumberToObject(o, "layers", P->stage_last[s] - P->stage_first[s] + 1);
        rl_json_add_num(o, "t_math_s", P->stage_math[s]);
        rl_json_add_num(o, "t_comms_s", P->stage_comms[s]);
        rl_json_add_num(o, "send_bytes", P->stage_send_bytes[s]);
        rl_json_add_num(o, "weight_bytes", P->stage_weights[s]);
        cJSON_AddItemToArray(st, o);
    }
}

/* The layers a tensor-parallel group splits by their weights (the layers
 * that merely work on a split value are counted, not listed). */
static void add_sharding(cJSON *to, const rl_parallel *P) {
    cJSON *sh = cJSON_AddArrayToObject(to, "sharding");
    for (int i = 0; i < P->n_layers; i++) {
        const rl_layer_comm *L = &P->layer[i];
        if (L->shard == RL_SHARD_NONE && L->coll == RL_COLL_NONE) continue;
        if (L->shard == RL_SHARD_SLICE) continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "layer", i);
        cJSON_AddStringToObject(o, "name", P->graph->nodes[i].name);
        cJSON_AddStringToObject(o, "op", P->graph->nodes[i].op_type);
        cJSON_AddStringToObject(o, "split", L->shard == RL_SHARD_NONE ? "gather" : rl_shard_name(L->shard));
        cJSON_AddStringToObject(o, "collective", rl_collective_name(L->coll));
        rl_json_add_num(o, "comm_bytes", L->comm_bytes);
        rl_json_add_num(o, "t_comms_s", L->t_comms_s);
        rl_json_add_num(o, "t_math_s", L->t_math_s);
        /* its point on the communication roofline: FLOPs per byte sent, and
         * FLOP/s attained with the collective on the critical path */
        rl_json_add_num(o, "flops", L->flops);
        if (L->comm_bytes > 0) rl_json_add_num(o, "comm_intensity", L->flops / L->comm_bytes);
        else cJSON_AddNullToObject(o, "comm_intensity");
        double t = L->t_math_s + L->t_comms_s;
        rl_json_add_num(o, "flops_per_s", t > 0 ? L->flops / t : 0);
        cJSON_AddItemToArray(sh, o);
    }
    cJSON *n = cJSON_AddObjectToObject(to, "sharded_layers");
    cJSON_AddNumberToObject(n, "column", P->n_column);
    cJSON_AddNumberToObject(n, "row", P->n_row);
    cJSON_AddNumberToObject(n, "vocab", P->n_vocab);
    cJSON_AddNumberToObject(n, "slice", P->n_slice);
}

/* The plan's totals and its interconnect: all of "parallel" but its stages
 * and layers. A compare row over several devices carries these (study.c), so
 * a group there gives the figures --parallel gives for the same plan. */
void rl_parallel_totals_json(const rl_parallel *P, cJSON *o) {
    cJSON_AddNumberToObject(o, "tp", P->tp);
    cJSON_AddNumberToObject(o, "pp", P->pp);
    cJSON_AddNumberToObject(o, "dp", P->dp);
    cJSON_AddNumberToObject(o, "devices", P->devices);
    cJSON_AddNumberToObject(o, "micro_batches", P->micro_batches);
    cJSON_AddBoolToObject(o, "training", P->training);
    rl_json_add_num(o, "t_math_s", P->t_math_s);
    rl_json_add_num(o, "t_comms_s", P->t_comms_s);
    rl_json_add_num(o, "time_s", P->time_s);
    rl_json_add_num(o, "lower_bound_s", P->lower_bound_s);
    rl_json_add_num(o, "upper_bound_s", P->upper_bound_s);
    cJSON_AddStringToObject(o, "bound", rl_bound_id(P->bound));
    rl_json_add_num(o, "single_device_s", P->single_device_s);
    rl_json_add_num(o, "speedup", P->time_s > 0 ? P->single_device_s / P->time_s : 0);
    rl_json_add_num(o, "bubble", P->bubble);
    /* the forecast over the devices beside one device's (forecast.time_s) */
    rl_json_add_num(o, "forecast_s", P->forecast_s);
    rl_json_add_num(o, "forecast_t_math_s", P->forecast_t_math_s);
    rl_json_add_num(o, "forecast_t_comms_s", P->forecast_t_comms_s);
    rl_json_add_num(o, "single_device_forecast_s", P->single_device_forecast_s);
    rl_json_add_num(o, "forecast_speedup", P->forecast_s > 0 ? P->single_device_forecast_s / P->forecast_s : 0);
    /* every device's energy over the step, the floor's and the forecast's (null: no energy figures) */
    rl_json_add_num(o, "energy_j", P->energy_j);
    rl_json_add_num(o, "forecast_energy_j", P->forecast_energy_j);
    rl_json_add_num(o, "comm_bytes", P->comm_bytes);
    rl_json_add_num(o, "tp_comm_bytes", P->tp_comm_bytes);
    rl_json_add_num(o, "pipeline_send_bytes", P->send_bytes);
    rl_json_add_num(o, "gradient_allreduce_bytes", P->grad_bytes);
    rl_json_add_num(o, "gradient_allreduce_s", P->t_grad_s);
    rl_json_add_num(o, "flops_per_device", P->flops_per_device);
    rl_json_add_num(o, "weight_bytes_per_device", P->weight_bytes_per_device);
    rl_json_add_num(o, "activation_bytes_per_device", P->activation_bytes_per_device);
    rl_json_add_num(o, "memory_bytes_per_device", P->memory_bytes_per_device);
    if (P->capacity > 0) {
        rl_json_add_num(o, "memory_capacity_bytes", P->capacity);
        cJSON_AddBoolToObject(o, "fits", P->memory_bytes_per_device <= P->capacity);
    } else {
        cJSON_AddNullToObject(o, "memory_capacity_bytes");
        cJSON_AddNullToObject(o, "fits");
    }
    add_interconnect(o, P);
}

void rl_parallel_json(const rl_parallel *P, cJSON *root) {
    if (!P) return;
    cJSON *o = cJSON_AddObjectToObject(root, "parallel");
    rl_parallel_totals_json(P, o);
    add_stages(o, P);
    add_sharding(o, P);
}
