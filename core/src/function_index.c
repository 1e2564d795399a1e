/* Model-local functions as the model knows them: the (domain, name) index
 * and each function's expanded size (see function_index.h). Built once when
 * the model is read; functions.c expands calls through rl_function_lookup. */
#include <stdlib.h>
#include <string.h>

#include "function_index.h"

/* ------------------------------------------------------------ the index -- */
/* FunctionProto.overload (field 13, IR 10): not in the onnx.proto this
 * build may be generated from, so read from the unknown fields; "" if none. */
static const char *function_overload(const Onnx__FunctionProto *fp) {
    for (size_t i = 0; i < fp->base.n_unknown_fields; i++) {
        const ProtobufCMessageUnknownField *u = &fp->base.unknown_fields[i];
        if (u->tag == 13 && u->wire_type == PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED) {
            /* a NUL-terminated copy (at most 255 bytes) to compare */
            static _Thread_local char buf[2][256];
            static _Thread_local int k;
            char *b = buf[k++ & 1];
            size_t n = u->len < 255 ? u->len : 255;
            memcpy(b, u->data, n);
            b[n] = 0;
            return b;
        }
    }
    return "";
}

static uint32_t function_hash(const char *domain, const char *name) {
    uint32_t h = 2166136261u; /* FNV-1a over domain, a separator, name */
    for (const char *p = domain; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
    h = (h ^ 0xffu) * 16777619u;
    for (const char *p = name; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
    return h;
}

static bool list_functions(rl_model *m) {
    m->n_functions = (int)m->proto->n_functions;
    m->functions = rl_arena_alloc(&m->arena, (size_t)(m->n_functions + 1) * sizeof *m->functions);
    if (!m->functions) return false;
    for (int i = 0; i < m->n_functions; i++) {
        const char *d = m->proto->functions[i]->domain ? m->proto->functions[i]->domain : "";
        m->functions[i].proto = m->proto->functions[i];
        m->functions[i].name = m->proto->functions[i]->name ? m->proto->functions[i]->name : "";
        m->functions[i].domain = strcmp(d, "ai.onnx") == 0 ? "" : d; /* one spelling of the default domain */
    }
    return true;
}

int rl_function_index_build(rl_model *m, rl_error *err) {
    bool listed = list_functions(m);
    if (listed && m->n_functions == 0) return 0;
    int cap = 16;
    while (cap < 2 * m->n_functions) cap *= 2;
    m->function_index = listed ? rl_arena_alloc(&m->arena, (size_t)cap * sizeof *m->function_index) : NULL;
    if (!m->function_index) {
        rl_error_set(err, "out_of_memory", "", "out of memory while indexing the model's functions");
        return -1;
    }
    m->function_index_cap = cap;
    for (int k = 0; k < cap; k++) m->function_index[k] = -1;
    for (int i = 0; i < m->n_functions; i++) {
        uint32_t h = function_hash(m->functions[i].domain, m->functions[i].name) & (uint32_t)(cap - 1);
        while (m->function_index[h] >= 0) {
            const rl_function *f = &m->functions[m->function_index[h]];
            if (strcmp(f->name, m->functions[i].name) == 0 && strcmp(f->domain, m->functions[i].domain) == 0)
                break;
            h = (h + 1) & (uint32_t)(cap - 1);
        }
        if (m->function_index[h] < 0) {
            m->function_index[h] = i;
            continue;
        }
        /* Two definitions of one (domain, name): which one a call means is
         * undefined, so the model is refused. IR 10 overloads (a third
         * key, unknown to this build's onnx.proto) are told apart: the
         * first definition answers calls, as before. */
        const rl_function *f = &m->functions[m->function_index[h]];
        if (strcmp(function_overload(f->proto), function_overload(m->functions[i].proto)) == 0) {
            rl_error_set(err, "duplicate_function", m->functions[i].name,
                         "model-local function '%s%s%.200s' is defined twice (functions #%d and #%d): "
                         "a model defines each (domain, name) once; remove or rename one",
                         f->domain, f->domain[0] ? "." : "", f->name, m->function_index[h], i);
            return -1;
        }
    }
    return 0;
}

const rl_function *rl_function_lookup(const rl_model *m, const char *domain, const char *name) {
    if (!m || !name || m->n_functions == 0 || !m->function_index) return NULL;
    if (!domain || strcmp(domain, "ai.onnx") == 0) domain = "";
    uint32_t mask = (uint32_t)(m->function_index_cap - 1);
    for (uint32_t h = function_hash(domain, name) & mask; m->function_index[h] >= 0; h = (h + 1) & mask) {
        const rl_function *f = &m->functions[m->function_index[h]];
        if (strcmp(f->name, name) == 0 && strcmp(f->domain, domain) == 0) return f;
    }
    return NULL;
}

/* ------------------------------------------------- the expansion budget -- */
/* Every node the analysis will build counts against limits.max_nodes: the
 * main graph's nodes, the nodes of every body (If/Loop/Scan...) at any depth,
 * and for each call of a model-local function RL_FN_CALL_WEIGHT plus what
 * the function's body becomes, bodies and nested calls included. A function
 * whose If body holds 10,000 nodes, called 1,000 times, is 10^7 nodes: it is
 * refused when the model is read, before any of them is built.
 *
 * Expansion stops at RL_FN_MAX_NEST nested calls (limit_depth), so the size
 * of a function is its size with calls expanded at most that deep:
 *   size_0(f) = 0,  size_d(f) = own(f) + sum over f's calls g of size_(d-1)(g)
 * (own: its nodes, bodies included, and RL_FN_CALL_WEIGHT - 1 more per call).
 * That is exact for calls that do not recurse and an upper bound for ones that
 * do (recursion is invalid ONNX; the expansion stops at it), computed over
 * the call edges alone, without recursion in C (a chain of 100,000 functions
 * must not recurse 100,000 deep). Sizes saturate just above the limit. */
typedef struct budget {
    const rl_model *m;
    int64_t *size;  /* per function */
    int64_t cap;
} budget;

/* Nodes a node list becomes, with the functions it calls at their sizes. */
static int64_t nodes_size(const budget *b, Onnx__NodeProto *const *nodes, size_t count, int depth) {
    int64_t total = 0;
    if (depth > 1024) return 0; /* past any max_depth: the reader refused it */
    for (size_t i = 0; i < count && total <= b->cap; i++) {
        const Onnx__NodeProto *np = nodes[i];
        const rl_function *fn = rl_function_lookup(b->m, np->domain, np->op_type);
        total += 1;
        if (fn) total += RL_FN_CALL_WEIGHT - 1 + b->size[fn - b->m->functions];
        for (size_t k = 0; k < np->n_attribute && total <= b->cap; k++) {
            const Onnx__AttributeProto *a = np->attribute[k];
            if (a->g) total += nodes_size(b, a->g->node, a->g->n_node, depth + 1);
            for (size_t gi = 0; gi < a->n_graphs && total <= b->cap; gi++)
                total += nodes_size(b, a->graphs[gi]->node, a->graphs[gi]->n_node, depth + 1);
        }
    }
    return total > b->cap ? b->cap + 1 : total;
}

/* The functions a node list calls (bodies included), appended to *out. */
static void collect_calls(const rl_model *m, Onnx__NodeProto *const *nodes, size_t count, int depth, int *out,
                          size_t *n, size_t cap) {
    if (depth > 1024) return;
    for (size_t i = 0; i < count; i++) {
        const Onnx__NodeProto *np = nodes[i];
        const rl_function *fn = rl_function_lookup(m, np->domain, np->op_type);
        if (fn && *n < cap) out[(*n)++] = (int)(fn - m->functions);
        for (size_t k = 0; k < np->n_attribute; k++) {
            const Onnx__AttributeProto *a = np->attribute[k];
            if (a->g) collect_calls(m, a->g->node, a->g->n_node, depth + 1, out, n, cap);
            for (size_t gi = 0; gi < a->n_graphs; gi++)
                collect_calls(m, a->graphs[gi]->node, a->graphs[gi]->n_node, depth + 1, out, n, cap);
        }
    }
}

static size_t count_nodes(Onnx__NodeProto *const *nodes, size_t count, int depth) {
    size_t total = count;
    if (depth > 1024) return 0;
    for (size_t i = 0; i < count; i++)
        for (size_t k = 0; k < nodes[i]->n_attribute; k++) {
            const Onnx__AttributeProto *a = nodes[i]->attribute[k];
            if (a->g) total += count_nodes(a->g->node, a->g->n_node, depth + 1);
            for (size_t gi = 0; gi < a->n_graphs; gi++)
                total += count_nodes(a->graphs[gi]->node, a->graphs[gi]->n_node, depth + 1);
        }
    return total;
}

static int measure_functions(budget *b) {
    const rl_model *m = b->m;
    int nf = m->n_functions;
    size_t n_calls = 0, cap = 0;
    for (int i = 0; i < nf; i++) cap += count_nodes(m->functions[i].proto->node, m->functions[i].proto->n_node, 0);
    size_t *first = calloc((size_t)nf + 1, sizeof *first);
    int64_t *own = malloc(((size_t)nf + 1) * sizeof *own), *next = malloc(((size_t)nf + 1) * sizeof *next);
    int *calls = malloc((cap + 1) * sizeof *calls);
    if (!first || !own || !next || !calls) {
        free(first), free(own), free(next), free(calls);
        return -1;
    }
    for (int i = 0; i < nf; i++) {
        const Onnx__FunctionProto *fp = m->functions[i].proto;
        first[i] = n_calls;
        collect_calls(m, fp->node, fp->n_node, 0, calls, &n_calls, cap);
        uint64_t o = count_nodes(fp->node, fp->n_node, 0) + (uint64_t)(n_calls - first[i]) * (RL_FN_CALL_WEIGHT - 1);
        own[i] = o > (uint64_t)b->cap ? b->cap + 1 : (int64_t)o;
        b->size[i] = 0;
    }
    first[nf] = n_calls;
    for (int d = 0; d <= RL_FN_MAX_NEST; d++) {
        bool changed = false;
        for (int i = 0; i < nf; i++) {
            int64_t t = own[i];
            for (size_t e = first[i]; e < first[i + 1] && t <= b->cap; e++) t += b->size[calls[e]];
            next[i] = t > b->cap ? b->cap + 1 : t;
            changed |= next[i] != b->size[i];
        }
        memcpy(b->size, next, (size_t)nf * sizeof *next);
        if (!changed) break; /* no recursion: every size is exact */
    }
    free(first), free(own), free(next), free(calls);
    return 0;
}

int rl_functions_measure(rl_model *m, rl_error *err) {
    budget b = {m, NULL, (int64_t)m->limits.max_nodes};
    m->function_sizes = rl_arena_alloc(&m->arena, (size_t)(m->n_functions + 1) * sizeof *m->function_sizes);
    b.size = m->function_sizes;
    if (!m->function_sizes || measure_functions(&b)) {
        rl_error_set(err, "out_of_memory", "", "out of memory while measuring the model's functions");
        return -1;
    }
    int64_t total = nodes_size(&b, m->proto->graph->node, m->proto->graph->n_node, 0);
    if (total > b.cap) {
        /* the largest function the main graph calls (else the largest of
         * all), named so the user knows where to look */
        int big = 0;
        for (int i = 1; i < m->n_functions; i++)
            if (m->function_sizes[i] > m->function_sizes[big]) big = i;
        int64_t best = -1;
        for (size_t i = 0; i < m->proto->graph->n_node; i++) {
            const Onnx__NodeProto *np = m->proto->graph->node[i];
            const rl_function *fn = rl_function_lookup(m, np->domain, np->op_type);
            if (fn && m->function_sizes[fn - m->functions] > best) {
                best = m->function_sizes[fn - m->functions];
                big = (int)(fn - m->functions);
            }
        }
        rl_error_set(err, "limit_nodes", m->functions[big].name,
                     "with its model-local functions expanded (each call counts %d plus its body, "
                     "bodies of If, Loop and Scan included), the model has more than %llu nodes; the "
                     "largest, function '%.200s', expands to %s%lld nodes per call; raise "
                     "limits.max_nodes if the model is genuine",
                     RL_FN_CALL_WEIGHT, (unsigned long long)m->limits.max_nodes, m->functions[big].name,
                     m->function_sizes[big] > b.cap ? "more than " : "",
                     (long long)(m->function_sizes[big] > b.cap ? b.cap : m->function_sizes[big]));
        return -1;
    }
    return 0;
}
