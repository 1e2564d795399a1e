/* The LLM view's options and the roles of a decoder's inputs (llm_roles.h):
 * the request's "llm" object read and checked, and the batch, sequence,
 * past and total dims and the KV cache pairs found among the graph's
 * inputs and outputs by their names and shapes (docs/llm.md, "Roles"). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "llm_roles.h"
#include "storage.h"
#include "words.h"

#define LLM_DEFAULT_PROMPT 512
#define LLM_DEFAULT_GENERATE 128
#define LLM_DEFAULT_GROUP 128

static const char *const role_names[ROLE_COUNT] = {"batch", "seq", "past", "total"};

/* ------------------------------------------------------------- options -- */


static int whole(const cJSON *j, const char *key, double lo, double hi, int64_t *out, rl_error *err) {
    double v = 0;
    int got = rl_json_whole(j, key, lo, hi, &v);
    if (got < 0) rl_error_set(err, "bad_request", "llm", "llm.%s must be a whole number from %.0f to %.0f", key, lo, hi);
    if (got > 0) *out = (int64_t)v;
    return got;
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

/* llm.kv_type: a KV cache type of llama.cpp (the words' table, rl_kv_type),
 * stored in blocks with their scales: f16, q8_0 (8.5 bits), q4_0 (4.5). */
static int kv_type_option(const cJSON *j, llm_opts *O, rl_error *err) {
    static const int storage_of[RL_KV_COUNT] = {[RL_KV_F16] = RL_ST_F16, [RL_KV_Q8_0] = RL_ST_Q8_0,
                                                [RL_KV_Q4_0] = RL_ST_Q4_0};
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "kv_type");
    if (!t || cJSON_IsNull(t)) return 0;
    int kv = rl_value_of(RL_LIST_KV_TYPE, cJSON_IsString(t) ? t->valuestring : NULL);
    if (kv < 0) {
        char ids[96];
        rl_value_list_text(RL_LIST_KV_TYPE, ids, sizeof ids);
        rl_error_set(err, "bad_request", "llm", "llm.kv_type must be one of %s (llama.cpp's cache types)", ids);
        return -1;
    }
    O->kv_storage = storage_of[kv];
    O->kv_type = rl_value_id(RL_LIST_KV_TYPE, kv);
    if (O->kv_bits) {
        rl_error_set(err, "bad_request", "llm", "llm.kv_type and llm.kv_bits both size the KV cache: give one");
        return -1;
    }
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

int rl_llm_parse_opts(const cJSON *j, const rl_ctx *c, llm_opts *O, rl_error *err) {
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
        bits_option(j, "kv_bits", &O->kv_bits, err) || kv_type_option(j, O, err) ||
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
int rl_llm_find_roles(rl_ctx *c, const rl_graph *g, const llm_opts *O, llm_roles *R, rl_error *err) {
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

cJSON *rl_llm_roles_detail_json(const llm_roles *R) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "kv_cache", R->n_kv > 0);
    for (int r = 0; r < ROLE_COUNT; r++) {
        if (R->dim[r]) cJSON_AddStringToObject(o, role_names[r], R->dim[r]);
        else cJSON_AddNullToObject(o, role_names[r]);
    }
    cJSON *src = cJSON_AddObjectToObject(o, "sources");
    for (int r = 0; r < ROLE_COUNT; r++)
        if (R->dim[r]) cJSON_AddStringToObject(src, role_names[r], R->source[r]);
    if (R->fixed_batch > 0) cJSON_AddNumberToObject(o, "fixed_batch", (double)R->fixed_batch);
    else cJSON_AddNullToObject(o, "fixed_batch");
    if (R->token_input) cJSON_AddStringToObject(o, "token_input", R->token_input);
    cJSON_AddNumberToObject(o, "kv_inputs", R->n_kv);
    cJSON_AddNumberToObject(o, "kv_outputs", R->n_present);
    /* their names, in the graph's order: a summary lists the cache as one item
     * ("KV cache: 32 inputs, ...") rather than as 32 inputs among the others */
    cJSON *names = cJSON_AddArrayToObject(o, "kv_input_names");
    for (int i = 0; i < R->n_kv; i++) cJSON_AddItemToArray(names, cJSON_CreateString(R->kv[i].past));
    return o;
}

const char rl_llm_no_kv_reason[] =
    "the model has no KV cache input (past_key_values.N.key/value, past_key_N, past.N...): every new token "
    "would rerun the whole sequence, so there is no decode step to time. An export with its cache gives one: "
    "Hugging Face optimum's `optimum-cli export onnx --task text-generation-with-past`, torch.onnx.export with "
    "the past keys and values as inputs and the present ones as outputs, or ONNX Runtime GenAI's model builder";

cJSON *rl_llm_roles_json(rl_ctx *c, const rl_graph *g) {
    llm_opts O;
    memset(&O, 0, sizeof O);
    llm_roles R;
    rl_error scratch = {0};
    if (rl_llm_find_roles(c, g, &O, &R, &scratch)) return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "kv_cache", R.n_kv > 0);
    for (int r = 0; r < ROLE_COUNT; r++) {
        if (R.dim[r]) cJSON_AddStringToObject(o, role_names[r], R.dim[r]);
        else cJSON_AddNullToObject(o, role_names[r]);
    }
    cJSON_AddNumberToObject(o, "kv_inputs", R.n_kv);
    if (R.n_kv == 0) cJSON_AddStringToObject(o, "no_kv_cache", rl_llm_no_kv_reason);
    return o;
}
