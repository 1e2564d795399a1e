/* From a GraphProto to an rl_graph: values, nodes, name resolution across
 * scopes, topological order (graph.h). The name map every scope resolves
 * names through lives here too. */
#include <stdio.h>
#include <string.h>

#include "graph.h"
#include "tensor.h"

/* ------------------------------------------------------------- name map -- */
struct rl_name_map {
    const char **keys;
    int *vals;
    size_t cap, count;
};

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

rl_name_map *rl_map_new(rl_arena *a, size_t expected) {
    rl_name_map *m = rl_arena_alloc(a, sizeof *m);
    if (!m) return NULL;
    size_t cap = 16;
    while (cap < expected * 2 + 8) cap *= 2;
    m->keys = rl_arena_alloc(a, cap * sizeof *m->keys);
    m->vals = rl_arena_alloc(a, cap * sizeof *m->vals);
    if (!m->keys || !m->vals) return NULL;
    m->cap = cap;
    return m;
}

int rl_map_get(const rl_name_map *m, const char *key) {
    if (!m) return -1;
    size_t i = (size_t)hash_str(key) & (m->cap - 1);
    while (m->keys[i]) {
        if (strcmp(m->keys[i], key) == 0) return m->vals[i];
        i = (i + 1) & (m->cap - 1);
    }
    return -1;
}

/* Returns false if the key exists already (the value is not replaced). The
 * map never needs to grow: it is sized for every name of the graph. */
bool rl_map_put(rl_name_map *m, const char *key, int val) {
    size_t i = (size_t)hash_str(key) & (m->cap - 1);
    while (m->keys[i]) {
        if (strcmp(m->keys[i], key) == 0) return false;
        i = (i + 1) & (m->cap - 1);
    }
    m->keys[i] = key;
    m->vals[i] = val;
    m->count++;
    return true;
}

/* ------------------------------------------------------------ the graph -- */
static int add_value(rl_ctx *c, rl_graph *g, const char *name, int kind) {
    if (g->n_values == g->cap_values) {
        int cap = g->cap_values ? g->cap_values * 2 : 64;
        rl_value *nv = rl_arena_alloc(c->arena, (size_t)cap * sizeof *nv);
        if (!nv) return -1;
        if (g->n_values) memcpy(nv, g->values, (size_t)g->n_values * sizeof *nv);
        g->values = nv;
        g->cap_values = cap;
    }
    int idx = g->n_values++;
    rl_value *v = &g->values[idx];
    memset(v, 0, sizeof *v);
    v->name = name;
    v->kind = kind;
    v->rank = -1;
    v->producer = -1;
    v->n_known = -1;
    v->declared_rank = -2; /* nothing declared */
    v->seq_len = -1;
    return idx;
}

/* Resolve a name in this graph or an enclosing one. Returns the owning graph. */
rl_value *rl_graph_lookup(rl_graph *g, const char *name, rl_graph **owner) {
    for (rl_graph *s = g; s; s = s->parent) {
        int i = rl_map_get(s->names, name);
        if (i >= 0) {
            if (owner) *owner = s;
            return &s->values[i];
        }
    }
    return NULL;
}

/* Names a subgraph reads from enclosing scopes (recursively). */
typedef struct name_list {
    const char **names;
    int n, cap;
    const char **set; /* open-addressing set of the same names: a body may read */
    size_t set_cap;   /* tens of thousands of outer names, a scan per add is quadratic */
} name_list;

static bool set_insert(const char **set, size_t cap, const char *s) {
    size_t i = (size_t)hash_str(s) & (cap - 1);
    while (set[i]) {
        if (strcmp(set[i], s) == 0) return false;
        i = (i + 1) & (cap - 1);
    }
    set[i] = s;
    return true;
}

static void list_add(rl_arena *a, name_list *l, const char *s) {
    if ((size_t)l->n * 2 + 2 > l->set_cap) {
        size_t cap = l->set_cap ? l->set_cap * 2 : 16;
        const char **set = rl_arena_alloc(a, cap * sizeof *set);
        if (!set) return;
        for (int k = 0; k < l->n; k++) set_insert(set, cap, l->names[k]);
        l->set = set;
        l->set_cap = cap;
    }
    if (!set_insert(l->set, l->set_cap, s)) return;
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 8;
        const char **nn = rl_arena_alloc(a, (size_t)cap * sizeof *nn);
        if (!nn) return;
        if (l->n) memcpy(nn, l->names, (size_t)l->n * sizeof *nn);
        l->names = nn;
        l->cap = cap;
    }
    l->names[l->n++] = s;
}

static void collect_outer_names(rl_arena *a, const Onnx__GraphProto *body, name_list *out, int depth) {
    /* nesting is already bounded by limits.max_depth (at most 256 messages) */
    if (depth > 256) return;
    size_t cnt = body->n_input + body->n_initializer + body->n_sparse_initializer + 1;
    for (size_t i = 0; i < body->n_node; i++) cnt += body->node[i]->n_output;
    rl_name_map *local = rl_map_new(a, cnt);
    if (!local) return;
    for (size_t i = 0; i < body->n_input; i++)
        if (body->input[i]->name) rl_map_put(local, body->input[i]->name, 1);
    for (size_t i = 0; i < body->n_initializer; i++)
        if (body->initializer[i]->name) rl_map_put(local, body->initializer[i]->name, 1);
    for (size_t i = 0; i < body->n_sparse_initializer; i++)
        if (body->sparse_initializer[i]->values && body->sparse_initializer[i]->values->name)
            rl_map_put(local, body->sparse_initializer[i]->values->name, 1);
    for (size_t i = 0; i < body->n_node; i++)
        for (size_t j = 0; j < body->node[i]->n_output; j++)
            if (body->node[i]->output[j][0]) rl_map_put(local, body->node[i]->output[j], 1);
    for (size_t i = 0; i < body->n_node; i++) {
        const Onnx__NodeProto *n = body->node[i];
        for (size_t j = 0; j < n->n_input; j++)
            if (n->input[j][0] && rl_map_get(local, n->input[j]) < 0) list_add(a, out, n->input[j]);
        for (size_t k = 0; k < n->n_attribute; k++) {
            const Onnx__AttributeProto *at = n->attribute[k];
            name_list inner = {0};
            if (at->g) collect_outer_names(a, at->g, &inner, depth + 1);
            for (size_t gi = 0; gi < at->n_graphs; gi++) collect_outer_names(a, at->graphs[gi], &inner, depth + 1);
            for (int q = 0; q < inner.n; q++)
                if (rl_map_get(local, inner.names[q]) < 0) list_add(a, out, inner.names[q]);
        }
    }
    for (size_t i = 0; i < body->n_output; i++)
        if (body->output[i]->name && rl_map_get(local, body->output[i]->name) < 0)
            list_add(a, out, body->output[i]->name);
}

static const char *node_label(const Onnx__NodeProto *n, size_t i, char *buf, size_t cap) {
    if (n->name && n->name[0]) return n->name;
    rl_snprintf_utf8(buf, cap, "#%zu (%s)", i, n->op_type ? n->op_type : "?");
    return buf;
}

/* ------------------------------------------------------ graph building -- */
/* rl_graph_build runs these phases in order; each returns 0, or -1 with
 * c->err set (the first error found, in the order a reader of the graph
 * meets them: initializers, inputs, nodes, node inputs, outputs,
 * value_info, order). */
static int out_of_memory(rl_ctx *c, const char *where) {
    rl_error_set(c->err, "out_of_memory", where, "out of memory while building the graph");
    return -1;
}

/* The graph itself and its name map, sized for every name it defines. */
static rl_graph *graph_new(rl_ctx *c, const Onnx__GraphProto *gp, rl_graph *parent, int depth,
                           const char *where) {
    if ((uint32_t)depth > c->model->limits.max_depth) {
        rl_error_set(c->err, "limit_depth", where, "subgraphs are nested more than %u deep; raise limits.max_depth if the "
                     "model is genuine",
                     c->model->limits.max_depth);
        return NULL;
    }
    rl_graph *g = rl_arena_alloc(c->arena, sizeof *g);
    if (!g) {
        out_of_memory(c, where);
        return NULL;
    }
    g->proto = gp;
    g->parent = parent;
    g->model = c->model;
    g->depth = depth;
    size_t expected = gp->n_input + gp->n_initializer + gp->n_sparse_initializer + 1;
    for (size_t i = 0; i < gp->n_node; i++) expected += gp->node[i]->n_output;
    if (expected > (size_t)INT32_MAX / 4) {
        rl_error_set(c->err, "limit_nodes", where,
                     "the graph has more than %d values and nodes, more than rooflens can index",
                     INT32_MAX / 4);
        return NULL;
    }
    g->names = rl_map_new(c->arena, expected);
    /* Every value the graph will hold, at once: grown by doubling, a
     * 100,000-node graph copied and zeroed its values array twice over. */
    g->values = rl_arena_alloc(c->arena, expected * sizeof *g->values);
    if (!g->names || !g->values) {
        out_of_memory(c, where);
        return NULL;
    }
    g->cap_values = (int)expected;
    return g;
}

static int add_sparse_initializer(rl_ctx *c, rl_graph *g, const Onnx__SparseTensorProto *s, const char *where) {
    const char *nm = (s->values && s->values->name) ? s->values->name : "";
    int vi = add_value(c, g, nm, RL_VALUE_WEIGHT);
    if (vi < 0) return out_of_memory(c, where);
    rl_map_put(g->names, nm, vi);
    rl_value *v = &g->values[vi];
    v->dtype = (s->values && s->values->has_data_type) ? s->values->data_type : 0;
    rl_value_check_dtype(c, v, v->dtype);
    /* the same checks as a dense initializer: operator code keeps dims in
     * fixed arrays of RL_MAX_RANK_HARD */
    if (s->n_dims > c->model->limits.max_rank) {
        rl_error_set(c->err, "limit_rank", where,
                     "sparse initializer '%.200s' has %zu dimensions, more than the limit of "
                     "%u; raise limits.max_rank if the model is genuine",
                     nm, s->n_dims, c->model->limits.max_rank);
        return -1;
    }
    v->rank = (int)s->n_dims;
    v->dims = rl_arena_alloc(c->arena, (s->n_dims + 1) * sizeof *v->dims);
    if (!v->dims) return out_of_memory(c, where);
    int64_t numel = 1;
    for (size_t d = 0; d < s->n_dims; d++) {
        if (s->dims[d] < 0) {
            rl_error_set(c->err, "bad_dim", where,
                         "sparse initializer '%.200s' has a negative dimension %lld", nm,
                         (long long)s->dims[d]);
            return -1;
        }
        if (s->dims[d] > RL_MAX_ELEMS || !rl_mul_ok(numel, s->dims[d], &numel) || numel > RL_MAX_ELEMS) {
            rl_error_set(c->err, "dim_overflow", where,
                         "sparse initializer '%.200s' has more elements than can be counted",
                         nm);
            return -1;
        }
        v->dims[d] = s->dims[d];
    }
    return 0;
}

static int add_initializers(rl_ctx *c, rl_graph *g, const Onnx__GraphProto *gp, const char *where) {
    for (size_t i = 0; i < gp->n_initializer; i++) {
        const Onnx__TensorProto *t = gp->initializer[i];
        const char *nm = t->name ? t->name : "";
        int vi = add_value(c, g, nm, RL_VALUE_WEIGHT);
        if (vi < 0) return out_of_memory(c, where);
        if (!rl_map_put(g->names, nm, vi)) {
            rl_error_set(c->err, "duplicate_name", where, "two initializers are named '%s'", nm);
            return -1;
        }
        if (rl_value_from_tensor(c, &g->values[vi], t, where)) return -1;
    }
    for (size_t i = 0; i < gp->n_sparse_initializer; i++)
        if (add_sparse_initializer(c, g, gp->sparse_initializer[i], where)) return -1;
    return 0;
}

/* Graph inputs that are not initializers (old models list both). */
static int add_inputs(rl_ctx *c, rl_graph *g, const Onnx__GraphProto *gp, const char *where) {
    g->inputs = rl_arena_alloc(c->arena, (gp->n_input + 1) * sizeof *g->inputs);
    if (!g->inputs) return out_of_memory(c, where);
    for (size_t i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *vi_p = gp->input[i];
        const char *nm = vi_p->name ? vi_p->name : "";
        int existing = rl_map_get(g->names, nm);
        if (existing >= 0 && g->values[existing].kind == RL_VALUE_WEIGHT) {
            /* an initializer that is also an input: its shape wins */
            continue;
        }
        if (existing >= 0) {
            rl_error_set(c->err, "duplicate_name", where, "two graph inputs are named '%.200s'", nm);
            return -1;
        }
        int vi = add_value(c, g, nm, RL_VALUE_INPUT);
        if (vi < 0) return out_of_memory(c, where);
        if (!rl_map_put(g->names, nm, vi)) {
            rl_error_set(c->err, "duplicate_name", where, "two graph inputs are named '%s'", nm);
            return -1;
        }
        if (rl_value_from_type(c, &g->values[vi], vi_p->type, where, false)) return -1;
        g->inputs[g->n_inputs++] = vi;
    }
    return 0;
}

/* Node i: its identity and the values it produces. */
static int add_node(rl_ctx *c, rl_graph *g, const Onnx__NodeProto *np, size_t i, const char *where) {
    rl_node *n = &g->nodes[i];
    char label[96];
    n->index = (int)i;
    n->proto = np;
    n->op_type = np->op_type ? np->op_type : "";
    n->domain = np->domain ? np->domain : "";
    if (strcmp(n->domain, "ai.onnx") == 0) n->domain = "";
    n->name = (np->name && np->name[0]) ? np->name : rl_arena_strdup(c->arena, node_label(np, i, label, sizeof label));
    if (!n->op_type[0]) {
        /* an empty NodeProto (or a node that lost its type): no operator to analyse */
        rl_error_set(c->err, "bad_node", n->name,
                     "node '%s' (#%zu in %s) has no op_type: every ONNX node names its operator; "
                     "the file is corrupted or was written by a broken exporter",
                     n->name, i, where);
        return -1;
    }
    n->n_out = (int)np->n_output;
    n->out = rl_arena_alloc(c->arena, (np->n_output + 1) * sizeof *n->out);
    if (!n->out) return out_of_memory(c, where);
    for (size_t j = 0; j < np->n_output; j++) {
        const char *nm = np->output[j];
        if (!nm || !nm[0]) {
            n->out[j] = -1;
            continue;
        }
        int vi = add_value(c, g, nm, RL_VALUE_ACTIVATION);
        if (vi < 0) return out_of_memory(c, where);
        if (!rl_map_put(g->names, nm, vi)) {
            rl_error_set(c->err, "duplicate_output", n->name,
                         "'%s' is produced twice (by node '%s' and by another node, initializer "
                         "or input): an ONNX graph assigns each name once",
                         nm, n->name);
            return -1;
        }
        g->values[vi].producer = (int)i;
        n->out[j] = vi;
    }
    return 0;
}

/* Input j of node n, named nm: resolved in this scope or an enclosing one.
 * Implicit inputs (j >= n_in, read by a body) that nobody defines are left
 * for the body to report. */
static int link_input(rl_ctx *c, rl_graph *g, rl_node *n, int j, const char *nm) {
    if (!nm || !nm[0]) {
        n->in[j] = -1;
        return 0;
    }
    rl_graph *owner = NULL;
    rl_value *v = rl_graph_lookup(g, nm, &owner);
    if (!v) {
        if (j >= n->n_in) { /* a body reading a name nobody defines: caught in the body */
            n->in[j] = -1;
            return 0;
        }
        rl_error_set(c->err, "dangling_input", n->name,
                     "node '%s' (%s) reads '%s', which no node produces and which is "
                     "neither a graph input nor an initializer",
                     n->name, n->op_type, nm);
        return -1;
    }
    n->inv[j] = v;
    if (owner != g) {
        /* from an enclosing scope: ordering there is the parent's business */
        v->consumers++;
        n->in[j] = -1;
        return 0;
    }
    int vi = (int)(v - g->values);
    if (g->values[vi].producer == n->index) {
        rl_error_set(c->err, "cycle", n->name, "node '%s' (%s) reads its own output '%s'",
                     n->name, n->op_type, nm);
        return -1;
    }
    g->values[vi].consumers++;
    n->in[j] = vi;
    return 0;
}

/* Node i's inputs, explicit and implicit (the outer names its subgraph
 * bodies read), once every node's outputs are known. */
static int link_node_inputs(rl_ctx *c, rl_graph *g, const Onnx__NodeProto *np, size_t i, const char *where) {
    rl_arena *a = c->arena;
    rl_node *n = &g->nodes[i];
    name_list outer = {0};
    for (size_t k = 0; k < np->n_attribute; k++) {
        const Onnx__AttributeProto *at = np->attribute[k];
        if (at->g) collect_outer_names(a, at->g, &outer, g->depth + 1);
        for (size_t gi = 0; gi < at->n_graphs; gi++) collect_outer_names(a, at->graphs[gi], &outer, g->depth + 1);
    }
    n->n_in = (int)np->n_input;
    n->n_implicit = outer.n;
    n->in = rl_arena_alloc(a, (np->n_input + (size_t)outer.n + 1) * sizeof *n->in);
    n->inv = rl_arena_alloc(a, (np->n_input + (size_t)outer.n + 1) * sizeof *n->inv);
    n->outv = rl_arena_alloc(a, (np->n_output + 1) * sizeof *n->outv);
    if (!n->in || !n->inv || !n->outv) return out_of_memory(c, where);
    for (int j = 0; j < n->n_out; j++) n->outv[j] = n->out[j] >= 0 ? &g->values[n->out[j]] : NULL;
    for (int j = 0; j < n->n_in + n->n_implicit; j++)
        if (link_input(c, g, n, j, j < n->n_in ? np->input[j] : outer.names[j - n->n_in])) return -1;
    return 0;
}

static int add_nodes(rl_ctx *c, rl_graph *g, const Onnx__GraphProto *gp, const char *where) {
    g->n_nodes = (int)gp->n_node;
    g->nodes = rl_arena_alloc(c->arena, (gp->n_node + 1) * sizeof *g->nodes);
    if (!g->nodes) return out_of_memory(c, where);
    for (size_t i = 0; i < gp->n_node; i++)
        if (add_node(c, g, gp->node[i], i, where)) return -1;
    for (size_t i = 0; i < gp->n_node; i++)
        if (link_node_inputs(c, g, gp->node[i], i, where)) return -1;
    return 0;
}

/* Graph outputs, then value_info: what the model says about intermediates,
 * kept as declarations that inference checks later. */
static int add_outputs(rl_ctx *c, rl_graph *g, const Onnx__GraphProto *gp, const char *where) {
    g->outputs = rl_arena_alloc(c->arena, (gp->n_output + 1) * sizeof *g->outputs);
    if (!g->outputs) return out_of_memory(c, where);
    for (size_t i = 0; i < gp->n_output; i++) {
        const char *nm = gp->output[i]->name ? gp->output[i]->name : "";
        rl_graph *owner = NULL;
        rl_value *v = rl_graph_lookup(g, nm, &owner);
        if (!v) {
            rl_error_set(c->err, "dangling_output", where,
                         "graph output '%s' is produced by no node, input or initializer", nm);
            return -1;
        }
        g->outputs[g->n_outputs++] = v;
        if (owner != g) continue;
        v->is_graph_output = true;
        if (rl_value_from_type(c, v, gp->output[i]->type, where, true)) return -1;
    }
    for (size_t i = 0; i < gp->n_value_info; i++) {
        const char *nm = gp->value_info[i]->name ? gp->value_info[i]->name : "";
        int vi = rl_map_get(g->names, nm);
        if (vi < 0) continue;
        rl_value *v = &g->values[vi];
        if (v->kind != RL_VALUE_ACTIVATION) continue;
        if (rl_value_from_type(c, v, gp->value_info[i]->type, where, true)) return -1;
        if (gp->value_info[i]->type && v->type == RL_TYPE_TENSOR &&
            gp->value_info[i]->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
            rl_value_from_type(c, v, gp->value_info[i]->type, where, false);
    }
    return 0;
}

/* Topological order (Kahn) over same-graph edges into g->order; a cycle is
 * an error naming a node on it. */
static int order_nodes(rl_ctx *c, rl_graph *g, const char *where) {
    rl_arena *a = c->arena;
    int nn = g->n_nodes;
    int *indeg = rl_arena_alloc(a, (size_t)(nn + 1) * sizeof *indeg);
    int *head = rl_arena_alloc(a, (size_t)(nn + 1) * sizeof *head);
    int n_edges = 0;
    for (int i = 0; i < nn; i++) n_edges += g->nodes[i].n_in + g->nodes[i].n_implicit;
    int *enext = rl_arena_alloc(a, (size_t)(n_edges + 1) * sizeof *enext);
    int *eto = rl_arena_alloc(a, (size_t)(n_edges + 1) * sizeof *eto);
    g->order = rl_arena_alloc(a, (size_t)(nn + 1) * sizeof *g->order);
    if (!indeg || !head || !enext || !eto || !g->order) return out_of_memory(c, where);
    for (int i = 0; i < nn; i++) head[i] = -1;
    int e = 0;
    for (int i = 0; i < nn; i++) {
        rl_node *n = &g->nodes[i];
        for (int j = 0; j < n->n_in + n->n_implicit; j++) {
            if (n->in[j] < 0) continue;
            int p = g->values[n->in[j]].producer;
            if (p < 0) continue;
            indeg[i]++;
            eto[e] = i;
            enext[e] = head[p];
            head[p] = e++;
        }
    }
    /* A FIFO seeded in graph order keeps the given order when it is valid. */
    int qh = 0, qt = 0;
    for (int i = 0; i < nn; i++)
        if (indeg[i] == 0) g->order[qt++] = i;
    while (qh < qt) {
        int u = g->order[qh++];
        for (int k = head[u]; k >= 0; k = enext[k])
            if (--indeg[eto[k]] == 0) g->order[qt++] = eto[k];
    }
    if (qt != nn) {
        for (int i = 0; i < nn; i++)
            if (indeg[i] > 0) {
                rl_error_set(c->err, "cycle", g->nodes[i].name,
                             "the graph has a cycle through node '%s' (%s): ONNX graphs must be "
                             "acyclic",
                             g->nodes[i].name, g->nodes[i].op_type);
                return -1;
            }
    }
    return 0;
}

rl_graph *rl_graph_build(rl_ctx *c, const Onnx__GraphProto *gp, rl_graph *parent, int depth,
                         const char *where) {
    rl_graph *g = graph_new(c, gp, parent, depth, where);
    if (!g || add_initializers(c, g, gp, where) || add_inputs(c, g, gp, where) || add_nodes(c, g, gp, where) ||
        add_outputs(c, g, gp, where) || order_nodes(c, g, where))
        return NULL;
    return g;
}
