/* The LLM inference view: roles of a decoder's inputs, the prefill and
 * decode phases, generation of G tokens, memory fit, the quantization
 * what-if and the decode batch and context sweeps. Conventions and the
 * serving assumptions are in docs/llm.md; the JSON in docs/api.md.
 *
 * Each phase is the model's own graph with the phase's dims set (seq = P,
 * past = 0 for the prefill; seq = 1, past = c for a decode step), prepared
 * and costed like any request, then adjusted for the serving assumptions
 * (serve_* below) and timed by the timing model through one function,
 * time_phase(). Nothing here re-derives a roofline. */
#include <ctype.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "hw.h"
#include "llm.h"
#include "roofline.h"
#include "ops/op.h"

#define LLM_MAX_TOKENS 100000000.0 /* prompt + generated, per sequence */
#define LLM_MAX_BATCH 1000000.0
#define LLM_MAX_SWEEP 32
#define LLM_MAX_STEP_EVALS 48       /* decode steps analysed for the request's generation */
#define LLM_SWEEP_STEP_EVALS 12     /* ... for each row of the batch sweep */
#define LLM_DEFAULT_PROMPT 512
#define LLM_DEFAULT_GENERATE 128
#define LLM_DEFAULT_GROUP 128

enum { ROLE_BATCH, ROLE_SEQ, ROLE_PAST, ROLE_TOTAL, ROLE_COUNT };
static const char *const role_names[ROLE_COUNT] = {"batch", "seq", "past", "total"};

/* ------------------------------------------------------------- options -- */
typedef struct llm_opts {
    int64_t prompt, generate, batch;
    int weight_bits;          /* 16, 8, 4; 0 = the model's own */
    int64_t weight_group;     /* weights per scale when weight_bits < 16 */
    int kv_bits;              /* 16, 8, 4; 0 = the activation precision */
    const char *dim[ROLE_COUNT]; /* the user's names for the roles, NULL = detect */
    int64_t batches[LLM_MAX_SWEEP], contexts[LLM_MAX_SWEEP];
    int n_batches, n_contexts;
} llm_opts;

static int whole(const cJSON *j, const char *key, double lo, double hi, int64_t *out, rl_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    if (!v || cJSON_IsNull(v)) return 0;
    if (!cJSON_IsNumber(v) || v->valuedouble < lo || v->valuedouble > hi || v->valuedouble != floor(v->valuedouble)) {
        rl_error_set(err, "bad_request", "llm", "llm.%s must be a whole number from %.0f to %.0f", key, lo, hi);
        return -1;
    }
    *out = (int64_t)v->valuedouble;
    return 1;
}

static int bits_option(const cJSON *j, const char *key, int *out, rl_error *err) {
    int64_t b = 0;
    int r = whole(j, key, 4, 16, &b, err);
    if (r < 0) return -1;
    if (r == 1 && b != 4 && b != 8 && b != 16) {
        rl_error_set(err, "bad_request", "llm", "llm.%s must be 16, 8 or 4 (or null: %s)", key,
                     strcmp(key, "kv_bits") ? "the model's own weights" : "the activation precision");
        return -1;
    }
    *out = (int)b;
    return 0;
}

/* Ascending and without repeats: the sweeps read them in order. */
static void sort_unique(int64_t *v, int *n) {
    for (int i = 1; i < *n; i++)
        for (int k = i; k > 0 && v[k] < v[k - 1]; k--) {
            int64_t t = v[k];
            v[k] = v[k - 1];
            v[k - 1] = t;
        }
    int m = 0;
    for (int i = 0; i < *n; i++)
        if (m == 0 || v[i] != v[m - 1]) v[m++] = v[i];
    *n = m;
}

static int list_option(const cJSON *j, const char *key, double hi, int64_t *vals, int *n, rl_error *err) {
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(j, key);
    if (!l || cJSON_IsNull(l)) return 0;
    int count = cJSON_IsArray(l) ? cJSON_GetArraySize(l) : -1;
    if (count < 1 || count > LLM_MAX_SWEEP) {
        rl_error_set(err, "bad_request", "llm", "llm.%s must be an array of 1 to %d whole numbers", key, LLM_MAX_SWEEP);
        return -1;
    }
    *n = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, l) {
        if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > hi || v->valuedouble != floor(v->valuedouble)) {
            rl_error_set(err, "bad_request", "llm", "entry %d of llm.%s is not a whole number from 1 to %.0f", *n, key, hi);
            return -1;
        }
        vals[(*n)++] = (int64_t)v->valuedouble;
    }
    sort_unique(vals, n);
    return 0;
}

static int parse_opts(const cJSON *j, const rl_ctx *c, llm_opts *O, rl_error *err) {
    memset(O, 0, sizeof *O);
    O->prompt = LLM_DEFAULT_PROMPT;
    O->generate = LLM_DEFAULT_GENERATE;
    O->batch = c->batch > 0 ? c->batch : 1;
    O->weight_group = LLM_DEFAULT_GROUP;
    if (!cJSON_IsObject(j)) {
        rl_error_set(err, "bad_request", "llm",
                     "\"llm\" must be an object: {\"prompt\": P, \"generate\": G, ...} (see docs/api.md)");
        return -1;
    }
    if (whole(j, "prompt", 1, LLM_MAX_TOKENS, &O->prompt, err) < 0 ||
        whole(j, "generate", 1, LLM_MAX_TOKENS, &O->generate, err) < 0 ||
        whole(j, "batch", 1, LLM_MAX_BATCH, &O->batch, err) < 0 ||
        whole(j, "weight_group", 1, 1e9, &O->weight_group, err) < 0 || bits_option(j, "weight_bits", &O->weight_bits, err) ||
        bits_option(j, "kv_bits", &O->kv_bits, err) ||
        list_option(j, "batches", LLM_MAX_BATCH, O->batches, &O->n_batches, err) ||
        list_option(j, "contexts", LLM_MAX_TOKENS, O->contexts, &O->n_contexts, err))
        return -1;
    if ((double)O->prompt + (double)O->generate > LLM_MAX_TOKENS) {
        rl_error_set(err, "bad_request", "llm", "prompt + generate must stay within %.0f tokens", LLM_MAX_TOKENS);
        return -1;
    }
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "dims");
    if (d && !cJSON_IsNull(d)) {
        if (!cJSON_IsObject(d)) goto bad_dims;
        const cJSON *it;
        cJSON_ArrayForEach(it, d) {
            int r = -1;
            for (int k = 0; k < ROLE_COUNT; k++)
                if (strcmp(it->string, role_names[k]) == 0) r = k;
            if (r < 0 || !(cJSON_IsString(it) || cJSON_IsNull(it))) goto bad_dims;
            O->dim[r] = cJSON_IsString(it) ? it->valuestring : NULL;
        }
    }
    if (O->n_batches == 0)
        for (int64_t b = 1; b <= 1024; b *= 2) O->batches[O->n_batches++] = b;
    if (O->n_contexts == 0)
        for (int64_t t = 128; t <= 131072; t *= 2) O->contexts[O->n_contexts++] = t;
    return 0;
bad_dims:
    rl_error_set(err, "bad_request", "llm.dims",
                 "llm.dims names the model's symbolic dims by role: {\"batch\": NAME, \"seq\": NAME, "
                 "\"past\": NAME, \"total\": NAME} (CLI: --llm-dims batch=NAME,seq=NAME,...)");
    return -1;
}

/* --------------------------------------------------------------- roles -- */
/* A KV cache input and the output that carries its next state. */
typedef struct kv_pair {
    const char *past, *present; /* value names; present NULL when the graph has none */
    int axis;                   /* the past-sequence axis */
} kv_pair;

typedef struct llm_roles {
    const char *dim[ROLE_COUNT];    /* dim_param names; NULL = none */
    const char *source[ROLE_COUNT]; /* "detected" | "user" */
    int64_t fixed_batch;            /* > 0: the token input's batch axis is this fixed size */
    const char *token_input;
    kv_pair *kv;
    int n_kv, n_present;
} llm_roles;

/* A cache name's words (lowercase, split at anything not alphanumeric) less
 * the leading "past" or "present" and a "key values" pair, so that
 * "past_key_values.3.key" and "present.3.key" both give "3 key". Returns 1
 * for a past name, 2 for a present name, 0 otherwise. */
static int kv_signature(const char *name, char *sig, size_t cap) {
    char words[24][32];
    int n = 0;
    for (const char *p = name; *p && n < 24;) {
        while (*p && !isalnum((unsigned char)*p)) p++;
        int len = 0;
        while (*p && isalnum((unsigned char)*p)) {
            if (len < 31) words[n][len++] = (char)tolower((unsigned char)*p);
            p++;
        }
        words[n][len] = 0;
        if (len) n++;
    }
    if (n == 0) return 0;
    int kind = strcmp(words[0], "past") == 0 ? 1 : strcmp(words[0], "present") == 0 ? 2 : 0;
    if (!kind) return 0;
    size_t used = 0;
    sig[0] = 0;
    for (int i = 1; i < n; i++) {
        if (strcmp(words[i], "key") == 0 && i + 1 < n && strcmp(words[i + 1], "values") == 0) {
            i++;
            continue;
        }
        int w = snprintf(sig + used, cap - used, "%s%s", used ? " " : "", words[i]);
        if (w < 0 || (size_t)w >= cap - used) break;
        used += (size_t)w;
    }
    return kind;
}

static const char *dim_param(const rl_value *v, int axis) {
    if (!v->dim_params || axis < 0 || axis >= v->rank) return NULL;
    const char *p = v->dim_params[axis];
    return p && p[0] ? p : NULL;
}

static bool has_dim_param(const rl_graph *g, const char *name) {
    for (int i = 0; i < g->n_inputs; i++) {
        const rl_value *v = &g->values[g->inputs[i]];
        for (int k = 0; k < v->rank; k++)
            if (dim_param(v, k) && strcmp(dim_param(v, k), name) == 0) return true;
    }
    return false;
}

static bool is_kv_candidate(const rl_value *v) {
    char sig[128];
    return v->type == RL_TYPE_TENSOR && (v->rank == 4 || v->rank == 5) && rl_dtype_is_float(v->dtype) &&
           kv_signature(v->name, sig, sizeof sig) == 1;
}

/* The input carrying the tokens: input_ids, else inputs_embeds, else the
 * first integer input of rank 2. */
static const rl_value *token_input(const rl_graph *g) {
    const rl_value *best = NULL;
    int rank_of_best = 0;
    for (int i = 0; i < g->n_inputs; i++) {
        const rl_value *v = &g->values[g->inputs[i]];
        int score = strstr(v->name, "input_ids") ? 3 : strstr(v->name, "inputs_embeds") ? 2
                  : (rl_dtype_is_int(v->dtype) && v->rank == 2) ? 1 : 0;
        if (score > rank_of_best && v->rank >= 2) best = v, rank_of_best = score;
    }
    return best;
}

/* The batch and sequence dims from the token input, the past dim shared by
 * the cache inputs, the total dim from the attention mask. */
static void detect_dims(const rl_graph *g, llm_roles *R) {
    const rl_value *tok = token_input(g);
    if (tok) {
        R->token_input = tok->name;
        R->dim[ROLE_BATCH] = dim_param(tok, 0);
        if (!R->dim[ROLE_BATCH] && tok->dims[0] > 0) R->fixed_batch = tok->dims[0];
        R->dim[ROLE_SEQ] = dim_param(tok, 1);
    }
    /* the past dim: the symbolic dim the cache inputs share, other than batch */
    const char *cand[64];
    int votes[64], n_cand = 0, best = 0;
    for (int i = 0; i < g->n_inputs; i++) {
        const rl_value *v = &g->values[g->inputs[i]];
        if (!is_kv_candidate(v)) continue;
        for (int k = 0; k < v->rank; k++) {
            const char *p = dim_param(v, k);
            if (!p) continue;
            if (!R->dim[ROLE_BATCH] && !R->fixed_batch && k == v->rank - 4) R->dim[ROLE_BATCH] = p;
            if (R->dim[ROLE_BATCH] && strcmp(p, R->dim[ROLE_BATCH]) == 0) continue;
            int j = 0;
            while (j < n_cand && strcmp(cand[j], p)) j++;
            if (j == n_cand && n_cand < 64) cand[n_cand] = p, votes[n_cand++] = 0;
            if (j < n_cand) votes[j]++;
        }
    }
    for (int j = 0; j < n_cand; j++)
        if (!R->dim[ROLE_PAST] || votes[j] > best) R->dim[ROLE_PAST] = cand[j], best = votes[j];
    /* total: the attention mask's key length, when it has a name of its own */
    for (int i = 0; i < g->n_inputs; i++) {
        const rl_value *v = &g->values[g->inputs[i]];
        const char *p = strstr(v->name, "attention_mask") ? dim_param(v, v->rank - 1) : NULL;
        if (p && (!R->dim[ROLE_SEQ] || strcmp(p, R->dim[ROLE_SEQ])) &&
            (!R->dim[ROLE_PAST] || strcmp(p, R->dim[ROLE_PAST])))
            R->dim[ROLE_TOTAL] = p;
    }
}

/* The cache inputs (those with the past dim) and the outputs that match them. */
static int pair_caches(rl_ctx *c, const rl_graph *g, llm_roles *R, rl_error *err) {
    R->kv = rl_arena_alloc(c->arena, (size_t)(g->n_inputs + 1) * sizeof *R->kv);
    if (!R->kv) {
        rl_error_set(err, "out_of_memory", "llm", "out of memory");
        return -1;
    }
    /* the outputs named present..., by signature (a map: a model may have thousands) */
    rl_name_map *present = rl_map_new(c->arena, (size_t)g->n_outputs + 1);
    if (!present) {
        rl_error_set(err, "out_of_memory", "llm", "out of memory");
        return -1;
    }
    for (int o = 0; o < g->n_outputs; o++) {
        char osig[128];
        if (kv_signature(g->outputs[o]->name, osig, sizeof osig) != 2 || g->outputs[o]->producer < 0) continue;
        const char *key = rl_arena_strdup(c->arena, osig);
        if (key && rl_map_get(present, key) < 0) rl_map_put(present, key, o);
    }
    for (int i = 0; i < g->n_inputs && R->dim[ROLE_PAST]; i++) {
        const rl_value *v = &g->values[g->inputs[i]];
        if (!is_kv_candidate(v)) continue;
        int axis = -1;
        for (int k = 0; k < v->rank; k++)
            if (dim_param(v, k) && strcmp(dim_param(v, k), R->dim[ROLE_PAST]) == 0) axis = k;
        if (axis < 0) continue;
        kv_pair *p = &R->kv[R->n_kv++];
        p->past = v->name;
        p->axis = axis;
        char sig[128];
        kv_signature(v->name, sig, sizeof sig);
        int o = rl_map_get(present, sig);
        if (o >= 0) {
            p->present = g->outputs[o]->name;
            R->n_present++;
        }
    }
    return 0;
}

/* Detect the roles among g's inputs; the user's names (O->dim) win.
 * Returns 0, or -1 with err set when the sequence dim cannot be found or a
 * user name is not a dim of the model. */
static int find_roles(rl_ctx *c, const rl_graph *g, const llm_opts *O, llm_roles *R, rl_error *err) {
    memset(R, 0, sizeof *R);
    detect_dims(g, R);
    for (int r = 0; r < ROLE_COUNT; r++) {
        R->source[r] = "detected";
        if (!O->dim[r]) continue;
        if (!has_dim_param(g, O->dim[r])) {
            rl_error_set(err, "bad_request", "llm.dims",
                         "the model has no symbolic dimension '%s' (llm.dims.%s); its inputs' symbolic dims "
                         "are listed under model.inputs[].dim_params", O->dim[r], role_names[r]);
            return -1;
        }
        R->dim[r] = O->dim[r];
        R->source[r] = "user";
        if (r == ROLE_BATCH) R->fixed_batch = 0;
    }
    if (!R->dim[ROLE_SEQ]) {
        rl_error_set(err, "bad_request", "llm.dims",
                     "no sequence dimension found (the second axis of input_ids or of an integer [batch, "
                     "sequence] input): name it with llm.dims.seq (CLI: --llm-dims seq=NAME)");
        return -1;
    }
    return pair_caches(c, g, R, err);
}

cJSON *rl_llm_roles_json(rl_ctx *c, const rl_graph *g) {
    llm_opts O;
    memset(&O, 0, sizeof O);
    llm_roles R;
    rl_error scratch = {0};
    if (find_roles(c, g, &O, &R, &scratch)) return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "kv_cache", R.n_kv > 0);
    for (int r = 0; r < ROLE_COUNT; r++) {
        if (R.dim[r]) cJSON_AddStringToObject(o, role_names[r], R.dim[r]);
        else cJSON_AddNullToObject(o, role_names[r]);
    }
    cJSON_AddNumberToObject(o, "kv_inputs", R.n_kv);
    return o;
}

/* ---------------------------------------------------------- the phases -- */
typedef struct moe_info {
    const char *kind;   /* "MoE op" | "router TopK"; NULL = none */
    int64_t experts, top_k;
    int layers;         /* MoE nodes, or router TopK nodes */
    int expert_nodes;   /* dense exports: nodes counted at the active share */
} moe_info;

typedef struct llm_run {
    rl_ctx *c;
    const rl_options *o;
    const rl_hw *hw;
    const llm_roles *R;
    const llm_opts *O;
    moe_info moe;
    int64_t max_positions; /* rows of the model's rotary tables (0 = unknown) */
    bool facts_checked;    /* moe and max_positions found (from the first phase graph) */
    int evals;           /* phase graphs analysed */
    rl_arena arena;      /* one phase graph at a time, reset between phases */
    int requantized, kept_quantized;
} llm_run;

typedef struct phase {
    double flops, matrix_flops, bytes, time_s, energy_j, launch_floor_s, t_compute, t_memory, kernels;
    const char *bound;
    int unknown_layers;
    double kv_past_bytes;   /* the past cache, as stored (kv_bits) */
    double weight_resident; /* resident weight bytes (weight what-if applied) */
    double activation_peak; /* live activation bytes at the peak (want_memory only) */
} phase;

/* The one place that reads the timing model. A decode step replays a
 * captured graph (captured = true): the device pays no per-kernel launch
 * cost, so the step is timed on the same device with a zero launch
 * overhead (the roofline and power floors still hold) and the launch floor
 * it would have paid is reported beside. The prefill takes the model's
 * expected time as any request does. Both use the chosen SOL model's
 * traffic (weights read once per pass). */
static void time_phase(rl_ctx *r, const rl_prepared *pg, const llm_run *L, bool captured, phase *out) {
    rl_hw hw = *L->hw;
    if (captured) hw.launch_s = 0;
    rl_timing t;
    rl_time_graph(r, pg, L->o, &hw, NULL, &t);
    const rl_sol_result *s = rl_timing_chosen(&t);
    out->flops = s->flops;
    out->matrix_flops = t.matrix_flops;
    out->bytes = s->bytes;
    out->time_s = s->time_s;
    out->energy_j = s->energy_j;
    out->t_compute = s->t_compute;
    out->t_memory = s->t_memory;
    out->bound = s->bound;
    out->kernels = s->kernels;
    out->launch_floor_s = s->kernels * L->hw->launch_s;
    out->unknown_layers = t.unknown_layers;
}

/* Integer storage types of a given width for the what-if: the float
 * precision override (rl_elem_bytes) must not widen a quantized tensor. */
static int storage_dtype(int bits) {
    return bits == 4 ? RL_DT_INT4 : bits == 8 ? RL_DT_INT8 : RL_DT_INT16;
}

/* Serving assumption: the KV cache is updated in place. `present` aliases
 * `past`, so the producer of present writes only the new tokens' rows
 * (`seq` of them) and nothing copies the past; the past is read by whatever
 * reads it (the attention). With kv_bits the cache is stored at that width.
 * Returns the bytes of the past cache as stored. */
static double serve_kv_in_place(rl_ctx *r, rl_graph *g, const llm_run *L, int64_t seq) {
    double past_bytes = 0;
    const int kv_dt = L->O->kv_bits ? storage_dtype(L->O->kv_bits) : 0;
    /* per value, what a reader's traffic changes by when the cache is stored at kv_bits */
    double *read_delta = kv_dt ? rl_arena_alloc(r->arena, (size_t)(g->n_values + 1) * sizeof *read_delta) : NULL;
    if (kv_dt && !read_delta) return NAN;
    for (int i = 0; i < L->R->n_kv; i++) {
        const kv_pair *p = &L->R->kv[i];
        int pi = rl_map_get(g->names, p->past);
        if (pi < 0) continue;
        rl_value *past = &g->values[pi];
        if (kv_dt) {
            double before = rl_value_bytes(r, past);
            past->dtype = kv_dt;
            read_delta[pi] = rl_value_bytes(r, past) - before;
        }
        past_bytes += rl_value_bytes(r, past);
        int ri = p->present ? rl_map_get(g->names, p->present) : -1;
        if (ri < 0) continue;
        rl_value *present = &g->values[ri];
        if (present->producer < 0 || present->rank <= p->axis) continue;
        rl_node *writer = &g->nodes[present->producer];
        double before = rl_value_bytes(r, present);
        present->dims[p->axis] = seq;
        if (kv_dt) present->dtype = kv_dt;
        writer->cost.output_bytes += rl_value_bytes(r, present) - before;
    }
    for (int n = 0; read_delta && n < g->n_nodes; n++) /* the readers read the stored width */
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
static int run_phase(llm_run *L, int64_t batch, int64_t seq, int64_t past, bool captured, bool want_memory,
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
    out->kv_past_bytes = serve_kv_in_place(&r, g, L, seq);
    time_phase(&r, &pg, L, captured, out);
    if (want_memory) out->activation_peak = activation_peak(&r, g, L);
    return 0;
}

/* ---------------------------------------------------------- generation -- */
/* The figures of decode steps that add up over a generation. */
typedef struct step_sum {
    double time_s, energy_j, flops, matrix_flops, bytes;
} step_sum;

static step_sum step_of(const phase *p) {
    return (step_sum){p->time_s, p->energy_j, p->flops, p->matrix_flops, p->bytes};
}

static void sum_add(step_sum *s, const step_sum *a, double w) {
    s->time_s += w * a->time_s;
    s->energy_j += w * a->energy_j;
    s->flops += w * a->flops;
    s->matrix_flops += w * a->matrix_flops;
    s->bytes += w * a->bytes;
}

typedef struct generation {
    step_sum total;           /* over the G steps */
    phase first, mid, last;   /* steps at P, at the first midpoint, at P + G - 1 */
    const char *method;       /* exact_sum | closed_form | exact_piecewise | trapezoid_upper_bound */
    int evaluated;            /* steps analysed */
} generation;

typedef struct gen_walk {
    llm_run *L;
    int64_t batch;
    int evals_left;
    bool truncated;
    int failed;
    rl_error *err;
    generation *gen;
} gen_walk;

static bool on_chord(double fa, double fb, double fm, double t) {
    if (!isfinite(fm)) return true; /* no energy figures: nothing to compare */
    double want = fa + (fb - fa) * t;
    return fabs(fm - want) <= 1e-9 * fmax(fabs(fm), fabs(want)) + 1e-300;
}

/* Σ over c = a..b of the step at context c, given the steps at a and b. A
 * step's time is a sum over nodes of the larger of a compute and a memory
 * term, each linear in c: a convex, piecewise-linear function. When the
 * midpoint lies on the chord, so does every point between (convexity), and
 * the trapezoid sum (b - a + 1)·(f(a) + f(b))/2 is exact; otherwise split. */
static void sum_interval(gen_walk *w, int64_t a, const phase *pa, int64_t b, const phase *pb, step_sum *out) {
    step_sum fa = step_of(pa), fb = step_of(pb);
    if (b - a <= 1 || w->failed || w->evals_left <= 0) {
        if (b - a > 1) w->truncated = true; /* convex: the trapezoid is an upper bound */
        double n = (double)(b - a + 1);
        sum_add(out, &fa, b > a ? n / 2 : 1);
        if (b > a) sum_add(out, &fb, n / 2);
        return;
    }
    int64_t m = a + (b - a) / 2;
    phase pm;
    w->evals_left--;
    if (run_phase(w->L, w->batch, 1, m, true, false, &pm, w->err)) {
        w->failed = 1;
        return;
    }
    w->gen->evaluated++;
    if (w->gen->evaluated == 3) w->gen->mid = pm;
    double t = (double)(m - a) / (double)(b - a);
    if (on_chord(pa->time_s, pb->time_s, pm.time_s, t) && on_chord(pa->energy_j, pb->energy_j, pm.energy_j, t)) {
        double n = (double)(b - a + 1);
        sum_add(out, &fa, n / 2);
        sum_add(out, &fb, n / 2);
        return;
    }
    step_sum fm = step_of(&pm);
    sum_interval(w, a, pa, m, &pm, out);
    sum_interval(w, m, &pm, b, pb, out);
    sum_add(out, &fm, -1); /* m was counted by both halves */
}

/* G decode steps at batch B, at contexts P .. P + G - 1, analysing at most
 * `budget` steps (>= 3). */
static int decode_generation(llm_run *L, int64_t batch, int64_t P, int64_t G, int budget, generation *gen,
                             rl_error *err) {
    memset(gen, 0, sizeof *gen);
    if (run_phase(L, batch, 1, P, true, false, &gen->first, err)) return -1;
    gen->evaluated = 1;
    gen->mid = gen->last = gen->first;
    if (G == 1) {
        gen->total = step_of(&gen->first);
        gen->method = "exact_sum";
        return 0;
    }
    if (run_phase(L, batch, 1, P + G - 1, true, false, &gen->last, err)) return -1;
    gen->evaluated = 2;
    gen_walk w = {L, batch, budget - 2, false, 0, err, gen};
    sum_interval(&w, P, &gen->first, P + G - 1, &gen->last, &gen->total);
    if (w.failed) return -1;
    gen->method = G <= 3 ? "exact_sum" : w.truncated ? "trapezoid_upper_bound"
                : gen->evaluated == 3 ? "closed_form" : "exact_piecewise";
    return 0;
}

/* -------------------------------------------------------------- memory -- */
/* Capacity arithmetic (docs/llm.md): resident weights + the KV cache of
 * `batch` sequences of `context` tokens + the activation peak of the
 * prefill, which scales with the batch. */
typedef struct memory_plan {
    double weights, kv_per_token, activation_per_seq, capacity; /* capacity 0 = unknown */
} memory_plan;

static double memory_required(const memory_plan *m, double batch, double context) {
    return m->weights + batch * (context * m->kv_per_token + m->activation_per_seq);
}

/* The largest batch whose sequences of `context` tokens fit; 0 when not
 * even one does, -1 when the capacity is unknown. */
static double max_batch_at(const memory_plan *m, double context) {
    if (m->capacity <= 0) return -1;
    double per_seq = context * m->kv_per_token + m->activation_per_seq;
    double room = m->capacity - m->weights;
    if (room < per_seq) return 0;
    return per_seq > 0 ? floor(room / per_seq) : -1;
}

/* The longest context (tokens per sequence) that fits at `batch`. */
static double max_context_at(const memory_plan *m, double batch) {
    if (m->capacity <= 0 || m->kv_per_token <= 0) return -1;
    double room = m->capacity - m->weights - batch * m->activation_per_seq;
    return room > 0 ? floor(room / (batch * m->kv_per_token)) : 0;
}

/* ---------------------------------------------------------------- JSON -- */
static void put(cJSON *o, const char *k, double v) {
    if (isfinite(v)) cJSON_AddNumberToObject(o, k, v);
    else cJSON_AddNullToObject(o, k);
}

/* A count that may be unknown (negative). */
static void put_count(cJSON *o, const char *k, double v) {
    if (v >= 0 && isfinite(v)) cJSON_AddNumberToObject(o, k, v);
    else cJSON_AddNullToObject(o, k);
}

static cJSON *roles_json(const llm_roles *R) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "kv_cache", R->n_kv > 0);
    for (int r = 0; r < ROLE_COUNT; r++) {
        if (R->dim[r]) cJSON_AddStringToObject(o, role_names[r], R->dim[r]);
        else cJSON_AddNullToObject(o, role_names[r]);
    }
    cJSON *src = cJSON_AddObjectToObject(o, "sources");
    for (int r = 0; r < ROLE_COUNT; r++)
        if (R->dim[r]) cJSON_AddStringToObject(src, role_names[r], R->source[r]);
    put_count(o, "fixed_batch", R->fixed_batch > 0 ? (double)R->fixed_batch : -1);
    if (R->token_input) cJSON_AddStringToObject(o, "token_input", R->token_input);
    cJSON_AddNumberToObject(o, "kv_inputs", R->n_kv);
    cJSON_AddNumberToObject(o, "kv_outputs", R->n_present);
    return o;
}

static void phase_figures(cJSON *o, const phase *p) {
    put(o, "flops", p->flops);
    put(o, "matrix_flops", p->matrix_flops);
    put(o, "bytes", p->bytes);
    cJSON_AddStringToObject(o, "bound", p->bound);
    put(o, "t_compute", p->t_compute);
    put(o, "t_memory", p->t_memory);
    put(o, "kernels", p->kernels);
    put(o, "launch_floor_s", p->launch_floor_s);
}

static cJSON *point_json(const char *name, double flops, double bytes, double time) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "phase", name);
    put(o, "intensity", bytes > 0 ? flops / bytes : NAN);
    put(o, "flops_per_s", time > 0 ? flops / time : NAN);
    put(o, "time_s", time);
    put(o, "flops", flops);
    put(o, "bytes", bytes);
    return o;
}

static const char *const assumptions[] = {
    "decode steps replay a captured graph (CUDA Graphs or the like): no per-kernel launch cost; the "
    "launch floor of one step is shown beside it (decode.launch_floor_s)",
    "the KV cache is updated in place: present aliases past, so a step writes only its new tokens' keys "
    "and values and nothing copies the past; the attention reads the whole cache",
    "attention FLOPs are full, as the graph computes them: every query against every key of the present "
    "cache, the causal mask applied to the scores (a causal kernel skips about half of the prefill's "
    "attention work; a decode step is the same either way)",
    "every pass reads the weights once (the chosen speed-of-light model's traffic); a prefill of P "
    "tokens makes the first token, then G decode steps run at contexts P .. P + G - 1",
};

/* --------------------------------------------------------------- sweeps -- */
static int batch_sweep(llm_run *L, const memory_plan *mem, cJSON *out, rl_error *err) {
    const llm_opts *O = L->O;
    cJSON *rows = cJSON_AddArrayToObject(out, "rows");
    double context = (double)(O->prompt + O->generate);
    int64_t compute_bound = -1;
    for (int i = 0; i < O->n_batches; i++) {
        int64_t b = O->batches[i];
        if (L->R->fixed_batch > 0 && b != L->R->fixed_batch) continue;
        generation gen;
        if (decode_generation(L, b, O->prompt, O->generate, LLM_SWEEP_STEP_EVALS, &gen, err)) return -1;
        cJSON *row = cJSON_CreateObject();
        cJSON_AddItemToArray(rows, row);
        cJSON_AddNumberToObject(row, "batch", (double)b);
        double tpot = gen.total.time_s / (double)O->generate;
        put(row, "tpot_s", tpot);
        put(row, "tokens_per_s", (double)b * (double)O->generate / gen.total.time_s);
        put(row, "intensity", gen.total.bytes > 0 ? gen.total.flops / gen.total.bytes : NAN);
        cJSON_AddStringToObject(row, "bound", gen.mid.bound);
        cJSON_AddStringToObject(row, "method", gen.method);
        put(row, "memory_required_bytes", memory_required(mem, (double)b, context));
        if (mem->capacity > 0) cJSON_AddBoolToObject(row, "fits", memory_required(mem, (double)b, context) <= mem->capacity);
        else cJSON_AddNullToObject(row, "fits");
        /* the batch from which decode stays compute-bound (a constant cost,
         * such as dequantizing weights, can make batch 1 compute-bound alone) */
        if (!strcmp(gen.mid.bound, "compute")) {
            if (compute_bound < 0) compute_bound = b;
        } else {
            compute_bound = -1;
        }
    }
    put_count(out, "compute_bound_batch", (double)compute_bound);
    put_count(out, "max_batch", max_batch_at(mem, context));
    cJSON_AddStringToObject(out, "note",
                            "each row is a whole generation at that batch (the same prompt and generated "
                            "tokens); bound is the decode step's at the middle context");
    return 0;
}

static int context_sweep(llm_run *L, const memory_plan *mem, cJSON *out, rl_error *err) {
    const llm_opts *O = L->O;
    cJSON *rows = cJSON_AddArrayToObject(out, "rows");
    /* a step at context c writes position c, which the model must have:
     * the contexts below its positions, then its last one */
    int64_t ctxs[LLM_MAX_SWEEP + 1];
    int n = 0;
    for (int i = 0; i < O->n_contexts; i++)
        if (L->max_positions <= 0 || O->contexts[i] < L->max_positions) ctxs[n++] = O->contexts[i];
    if (n < O->n_contexts && (n == 0 || ctxs[n - 1] < L->max_positions - 1)) ctxs[n++] = L->max_positions - 1;
    for (int i = 0; i < n; i++) {
        int64_t ctx = ctxs[i];
        phase p;
        if (run_phase(L, O->batch, 1, ctx, true, false, &p, err)) return -1;
        cJSON *row = cJSON_CreateObject();
        cJSON_AddItemToArray(rows, row);
        cJSON_AddNumberToObject(row, "context", (double)ctx);
        put(row, "tpot_s", p.time_s);
        put(row, "tokens_per_s", (double)O->batch / p.time_s);
        cJSON_AddStringToObject(row, "bound", p.bound);
        put(row, "memory_required_bytes", memory_required(mem, (double)O->batch, (double)ctx + 1));
        if (mem->capacity > 0)
            cJSON_AddBoolToObject(row, "fits", memory_required(mem, (double)O->batch, (double)ctx + 1) <= mem->capacity);
        else cJSON_AddNullToObject(row, "fits");
    }
    put_count(out, "max_context", max_context_at(mem, (double)O->batch));
    put_count(out, "max_positions", L->max_positions > 0 ? (double)L->max_positions : -1);
    cJSON_AddStringToObject(out, "note",
                            "one decode step at each context (tokens already in the cache) at the request's "
                            "batch, up to the model's positions; memory at context + 1 tokens per sequence");
    return 0;
}

/* ------------------------------------------------------------- the run -- */
static void add_note(cJSON *notes, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void add_note(cJSON *notes, const char *fmt, ...) {
    char buf[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cJSON_AddItemToArray(notes, cJSON_CreateString(buf));
}

static cJSON *quantization_json(const llm_run *L) {
    const llm_opts *O = L->O;
    cJSON *q = cJSON_CreateObject();
    cJSON_AddStringToObject(q, "activation_precision", L->o->precision_name);
    put_count(q, "weight_bits", O->weight_bits ? O->weight_bits : -1);
    put_count(q, "weight_group", O->weight_bits && O->weight_bits < 16 ? (double)O->weight_group : -1);
    put_count(q, "kv_bits", O->kv_bits ? O->kv_bits : -1);
    cJSON_AddNumberToObject(q, "requantized_matrices", L->requantized);
    cJSON_AddNumberToObject(q, "quantized_nodes_kept", L->kept_quantized);
    return q;
}

static cJSON *moe_json(const moe_info *m) {
    if (!m->kind) return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", m->kind);
    put_count(o, "experts", (double)m->experts);
    put_count(o, "top_k", (double)m->top_k);
    cJSON_AddNumberToObject(o, "layers", m->layers);
    if (!strcmp(m->kind, "router TopK")) cJSON_AddNumberToObject(o, "expert_nodes", m->expert_nodes);
    cJSON_AddStringToObject(o, "rule",
                            "FLOPs of the top-k active experts per token; weights read for the experts the "
                            "tokens touch, E·(1 − (1 − k/E)^tokens) under uniform routing; every expert "
                            "resident");
    return o;
}

/* The batch a generation runs at: the request's, unless the model fixes it. */
static int settle_batch(const cJSON *j, const rl_ctx *c, const llm_roles *R, llm_opts *O, rl_error *err) {
    if (R->fixed_batch <= 0 || R->dim[ROLE_BATCH]) return 0;
    bool asked = c->batch > 0 || cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j, "batch"));
    if (asked && O->batch != R->fixed_batch) {
        rl_error_set(err, "bad_request", "llm.batch",
                     "the model's batch is fixed at %lld (axis 0 of '%s'): it cannot run at batch %lld",
                     (long long)R->fixed_batch, R->token_input, (long long)O->batch);
        return -1;
    }
    O->batch = R->fixed_batch;
    return 0;
}

/* What the view is built from: the prefill, the generation and the memory plan. */
typedef struct llm_result {
    phase pre;
    generation gen;
    memory_plan mem;
    bool kv;
} llm_result;

/* The prefill, the decode of G tokens (with a KV cache) and the memory plan. */
static int compute_phases(llm_run *L, llm_result *x, rl_error *err) {
    const llm_opts *O = L->O;
    const double B = (double)O->batch, P = (double)O->prompt;
    x->kv = L->R->n_kv > 0;
    if (run_phase(L, O->batch, O->prompt, 0, false, true, &x->pre, err)) return -1;
    if (x->kv && decode_generation(L, O->batch, O->prompt, O->generate, LLM_MAX_STEP_EVALS, &x->gen, err))
        return -1;
    x->mem = (memory_plan){x->pre.weight_resident, x->kv ? x->gen.first.kv_past_bytes / (B * P) : 0,
                           x->pre.activation_peak / B,
                           L->hw->n_mem > 0 && L->hw->mem_cap[0] > 0 ? L->hw->mem_cap[0] : 0};
    return 0;
}

static void write_decode(cJSON *out, const llm_run *L, const generation *gen) {
    const double B = (double)L->O->batch, G = (double)L->O->generate;
    cJSON *d = cJSON_AddObjectToObject(out, "decode");
    put(d, "mean_time_per_token_s", gen->total.time_s / G);
    put(d, "first_time_per_token_s", gen->first.time_s);
    put(d, "last_time_per_token_s", gen->last.time_s);
    put(d, "time_s", gen->total.time_s);
    put(d, "flops_per_token", gen->total.flops / (G * B));
    put(d, "bytes_per_token", gen->total.bytes / (G * B));
    put(d, "flops_per_step", gen->total.flops / G);
    put(d, "matrix_flops_per_step", gen->total.matrix_flops / G);
    put(d, "bytes_per_step", gen->total.bytes / G);
    cJSON_AddStringToObject(d, "bound", gen->mid.bound);
    put(d, "energy_j", gen->total.energy_j);
    put(d, "kernels", gen->mid.kernels);
    put(d, "launch_floor_s", gen->mid.launch_floor_s);
    cJSON_AddStringToObject(d, "method", gen->method);
    cJSON_AddNumberToObject(d, "steps_evaluated", gen->evaluated);
}

/* The phases and the figures a user reads first (TTFT, TPOT, tokens/s...). */
static void write_phases(cJSON *out, const llm_run *L, const llm_result *x) {
    const double B = (double)L->O->batch, P = (double)L->O->prompt, G = (double)L->O->generate;
    cJSON_AddItemToObject(out, "roles", roles_json(L->R));
    cJSON_AddNumberToObject(out, "prompt_tokens", P);
    if (x->kv) cJSON_AddNumberToObject(out, "generated_tokens", G);
    else cJSON_AddNullToObject(out, "generated_tokens");
    cJSON_AddNumberToObject(out, "batch", B);
    cJSON_AddStringToObject(out, "sol", L->o->sol);
    cJSON_AddItemToObject(out, "quantization", quantization_json(L));
    cJSON *po = cJSON_AddObjectToObject(out, "prefill");
    put(po, "time_s", x->pre.time_s);
    phase_figures(po, &x->pre);
    put(po, "energy_j", x->pre.energy_j);
    if (x->kv) write_decode(out, L, &x->gen);
    else cJSON_AddNullToObject(out, "decode");
    const double decode_time = x->kv ? x->gen.total.time_s : NAN;
    const double energy = x->pre.energy_j + (x->kv ? x->gen.total.energy_j : NAN);
    put(out, "ttft_s", x->pre.time_s);
    put(out, "tpot_s", decode_time / G);
    put(out, "e2e_s", x->pre.time_s + decode_time);
    put(out, "tokens_per_s", B * G / decode_time);
    put(out, "energy_per_token_j", energy / (B * G));
    put(out, "energy_j", energy);
}

static void write_memory(cJSON *out, const llm_run *L, const llm_result *x) {
    const memory_plan *mem = &x->mem;
    const double B = (double)L->O->batch, context = (double)L->O->prompt + (x->kv ? (double)L->O->generate : 0);
    put(out, "weight_bytes", mem->weights);
    put(out, "kv_cache_bytes_per_token", x->kv ? mem->kv_per_token : NAN);
    put(out, "kv_cache_bytes", x->kv ? B * context * mem->kv_per_token : NAN);
    put(out, "activation_bytes", x->pre.activation_peak);
    put(out, "memory_required_bytes", memory_required(mem, B, context));
    put(out, "device_memory_bytes", mem->capacity > 0 ? mem->capacity : NAN);
    if (mem->capacity > 0) cJSON_AddBoolToObject(out, "fits", memory_required(mem, B, context) <= mem->capacity);
    else cJSON_AddNullToObject(out, "fits");
    put_count(out, "max_batch", max_batch_at(mem, context));
    put_count(out, "max_context", x->kv ? max_context_at(mem, B) : -1);
    put_count(out, "max_positions", L->max_positions > 0 ? (double)L->max_positions : -1);
}

static void write_notes(cJSON *out, cJSON *notes, const llm_run *L, const llm_result *x) {
    const llm_opts *O = L->O;
    const llm_roles *R = L->R;
    cJSON *as = cJSON_AddArrayToObject(out, "assumptions");
    for (size_t i = 0; i < sizeof assumptions / sizeof *assumptions; i++)
        cJSON_AddItemToArray(as, cJSON_CreateString(assumptions[i]));
    if (!x->kv)
        add_note(notes, "the model has no KV cache input (past_key_values.N.key/value, past_key_N, past.N...): "
                        "every new token would rerun the whole sequence, so only the prefill of %lld tokens over "
                        "'%s' is shown", (long long)O->prompt, R->dim[ROLE_SEQ]);
    else if (R->n_present < R->n_kv)
        add_note(notes, "%d of the %d cache inputs have no matching present output: their new rows are not "
                        "counted as written", R->n_kv - R->n_present, R->n_kv);
    const double tokens = (double)O->prompt + (x->kv ? (double)O->generate : 0);
    if (L->max_positions > 0 && tokens > (double)L->max_positions)
        add_note(notes, "%.0f tokens per sequence is more than the %lld positions of the model's rotary tables: "
                        "the figures extrapolate the graph beyond what the model encodes",
                 tokens, (long long)L->max_positions);
    if (x->mem.capacity <= 0)
        add_note(notes, "the hardware profile gives no memory capacity: fits, max_batch and max_context are unknown");
    if (L->requantized)
        add_note(notes, "%d matrix weights stored at %d bits%s; embeddings, norms and already-quantized blocks "
                        "keep their size", L->requantized, O->weight_bits,
                 O->weight_bits < 16 ? " with one fp16 scale per group of weights" : "");
    if (O->weight_bits && L->kept_quantized)
        add_note(notes, "%d MatMulNBits/QMoE nodes keep the bits the model carries", L->kept_quantized);
    if (x->pre.unknown_layers)
        add_note(notes, "%d layers of the prefill graph have unknown shapes or unsupported operators: their work "
                        "is not counted", x->pre.unknown_layers);
    add_note(notes, "activation_bytes: the peak of live activations in the prefill graph as written (a fused "
                    "attention kernel that never stores the scores needs less)");
    cJSON_AddItemToObject(out, "notes", notes);
}

static int llm_body(llm_run *L, cJSON *out, cJSON *notes, rl_error *err) {
    llm_result x;
    if (compute_phases(L, &x, err)) return -1;
    write_phases(out, L, &x);
    write_memory(out, L, &x);
    const double G = (double)L->O->generate;
    cJSON *pts = cJSON_AddArrayToObject(out, "points");
    cJSON_AddItemToArray(pts, point_json("prefill", x.pre.flops, x.pre.bytes, x.pre.time_s));
    if (x.kv)
        cJSON_AddItemToArray(pts, point_json("decode", x.gen.total.flops / G, x.gen.total.bytes / G,
                                             x.gen.total.time_s / G));
    if (x.kv) {
        if (batch_sweep(L, &x.mem, cJSON_AddObjectToObject(out, "batch_sweep"), err) ||
            context_sweep(L, &x.mem, cJSON_AddObjectToObject(out, "context_sweep"), err))
            return -1;
    } else {
        cJSON_AddNullToObject(out, "batch_sweep");
        cJSON_AddNullToObject(out, "context_sweep");
    }
    cJSON_AddItemToObject(out, "moe", moe_json(&L->moe));
    write_notes(out, notes, L, &x);
    cJSON_AddNumberToObject(out, "graphs_analysed", L->evals);
    return 0;
}

int rl_llm_run(rl_ctx *c, const cJSON *j, const rl_options *o, const rl_hw *hw, cJSON *root, rl_error *err) {
    llm_opts O;
    if (parse_opts(j, c, &O, err)) return -1;
    rl_error *saved = c->err;
    c->err = err;
    rl_graph *g = rl_graph_build(c, c->model->proto->graph, NULL, 0, "main graph");
    c->err = saved;
    if (!g) return -1;
    llm_roles R;
    if (find_roles(c, g, &O, &R, err) || settle_batch(j, c, &R, &O, err)) return -1;
    llm_run L = {.c = c, .o = o, .hw = hw, .R = &R, .O = &O};
    cJSON *out = cJSON_CreateObject();
    cJSON *notes = cJSON_CreateArray();
    int rc = llm_body(&L, out, notes, err);
    rl_arena_free(&L.arena);
    if (rc) {
        if (!cJSON_GetObjectItemCaseSensitive(out, "notes")) cJSON_Delete(notes);
        cJSON_Delete(out);
        return -1;
    }
    cJSON_AddItemToObject(root, "llm", out);
    return 0;
}
