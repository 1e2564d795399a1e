/* Matching measured kernels to ONNX nodes, and the figures that set them
 * beside the speed of light (measured.h; the rules are in docs/measured.md).
 * The groups it builds (measured_groups.h) are written by measured_json.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measured_groups.h"
#include "ops/op.h"

static bool push_int(rl_arena *a, int **arr, int *n, int *cap, int v) {
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 4;
        int *na = rl_arena_alloc(a, (size_t)nc * sizeof *na);
        if (!na) return false;
        if (*n) memcpy(na, *arr, (size_t)*n * sizeof *na);
        *arr = na, *cap = nc;
    }
    (*arr)[(*n)++] = v;
    return true;
}

/* ------------------------------------------------------ name resolving -- */
typedef struct names {
    rl_name_map *node;    /* node name -> index */
    rl_name_map *tensor;  /* tensor name -> producing node */
    int *pos;             /* node index -> position in topological order */
} names;

static int lookup(const names *nm, const char *s) {
    int i = rl_map_get(nm->node, s);
    return i >= 0 ? i : rl_map_get(nm->tensor, s);
}

/* Suffixes ONNX Runtime's graph transformers give the nodes they create:
 * "<output tensor>_nchwc" (NCHWc layout), "<name>_token_<n>" (a generated
 * unique name), "<node>/<Pattern>Fusion/" (MatMulScaleFusion...). Returns
 * the length of `s` without one such suffix, or 0 when none applies. */
static size_t strip_runtime_suffix(const char *s, size_t n) {
    static const char *const plain[] = {"_nchwc", "_fused", "_Fused"};
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++) {
        size_t k = strlen(plain[i]);
        if (n > k && !memcmp(s + n - k, plain[i], k)) return n - k;
    }
    size_t d = n;
    while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9') d--;
    if (d < n && d > 7 && !memcmp(s + d - 7, "_token_", 7)) return d - 7;
    if (n > 1 && s[n - 1] == '/') n--; /* "/MatMul/MatMulScaleFusion/" */
    size_t slash = n;
    while (slash > 0 && s[slash - 1] != '/') slash--;
    if (slash > 1 && n - slash > 6 && !memcmp(s + n - 6, "Fusion", 6)) return slash - 1;
    return 0;
}

/* The node a single name stands for: a node name, an output tensor's name,
 * either after runtime suffixes are taken off. -1 when none. *renamed tells
 * whether the name had to be changed (evidence of fusion). */
static int resolve_one(const names *nm, const char *s, size_t n, bool *renamed) {
    char buf[1024];
    if (n >= sizeof buf) return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    *renamed = false;
    for (int step = 0; step < 4; step++) {
        int i = lookup(nm, buf);
        if (i >= 0) {
            if (rl_map_get(nm->node, buf) < 0) *renamed = true; /* a tensor's name */
            return i;
        }
        size_t k = strip_runtime_suffix(buf, n);
        if (!k) return -1;
        buf[n = k] = 0;
        *renamed = true;
    }
    return -1;
}

/* The nodes a kernel name stands for: single nodes, and ranges of the
 * topological order kept as ranges ({ForeignNode[A...B]} can span a whole
 * model: expanding every such row node by node would cost rows × nodes). */
typedef struct node_list {
    int *v, n, cap;       /* single nodes */
    int *r, nr, cap_r;    /* ranges as pairs: positions r[j] .. r[j + 1] of g->order, j even */
    bool fused; /* several nodes, or found only after renaming */
    bool ok;    /* every part resolved */
    bool oom;   /* an allocation failed: the matching stops */
} node_list;

static void list_push(rl_arena *a, node_list *l, int node) {
    if (!push_int(a, &l->v, &l->n, &l->cap, node)) l->oom = true;
}

static void trim(const char **s, size_t *n) {
    while (*n && (**s == ' ' || **s == '\t')) (*s)++, (*n)--;
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t')) (*n)--;
}

/* The nodes of a kernel name, trtexec's compound forms included:
 * "A + B + C", "PWN(A, PWN(B, C))", "{ForeignNode[A...B]}" (A to B in
 * topological order). */
static void resolve_name(rl_arena *a, const names *nm, const char *s, size_t n, node_list *out, int depth) {
    if (out->oom) return;
    trim(&s, &n);
    bool renamed = false;
    int i = resolve_one(nm, s, n, &renamed);
    if (i >= 0) {
        list_push(a, out, i);
        out->fused |= renamed;
        return;
    }
    if (depth > 8) { out->ok = false; return; }
    static const char fn[] = "{ForeignNode[";
    size_t lf = sizeof fn - 1;
    if (n > lf + 2 && !memcmp(s, fn, lf) && s[n - 1] == '}' && s[n - 2] == ']') {
        const char *body = s + lf;
        size_t bn = n - lf - 2;
        const char *dots = NULL;
        for (size_t k = 0; k + 3 <= bn; k++)
            if (!memcmp(body + k, "...", 3)) { dots = body + k; break; }
        bool r1, r2;
        int first = dots ? resolve_one(nm, body, (size_t)(dots - body), &r1) : resolve_one(nm, body, bn, &r1);
        int last = dots ? resolve_one(nm, dots + 3, bn - (size_t)(dots - body) - 3, &r2) : first;
        if (first < 0 || last < 0) { out->ok = false; return; }
        int p0 = nm->pos[first], p1 = nm->pos[last];
        if (p0 > p1) { int t = p0; p0 = p1; p1 = t; }
        if (!push_int(a, &out->r, &out->nr, &out->cap_r, p0) || !push_int(a, &out->r, &out->nr, &out->cap_r, p1))
            out->oom = true;
        out->fused = true;
        return;
    }
    if (n > 5 && !memcmp(s, "PWN(", 4) && s[n - 1] == ')') {
        s += 4, n -= 5; /* the inside, split at top-level commas below */
        int lvl = 0;
        size_t start = 0;
        for (size_t k = 0; k <= n; k++) {
            if (k < n && s[k] == '(') lvl++;
            else if (k < n && s[k] == ')') lvl--;
            else if (k == n || (s[k] == ',' && lvl == 0)) {
                resolve_name(a, nm, s + start, k - start, out, depth + 1);
                start = k + 1;
            }
        }
        out->fused = true;
        return;
    }
    /* "A + B" (trtexec) or "A+B": several nodes in one kernel */
    for (int pass = 0; pass < 2; pass++) {
        const char *sep = pass == 0 ? " + " : "+";
        size_t ls = strlen(sep), start = 0;
        bool split = false;
        for (size_t k = 0; k + ls <= n; k++) {
            if (memcmp(s + k, sep, ls)) continue;
            resolve_name(a, nm, s + start, k - start, out, depth + 1);
            start = k + ls;
            k = start - 1;
            split = true;
        }
        if (split) {
            resolve_name(a, nm, s + start, n - start, out, depth + 1);
            out->fused = true;
            return;
        }
    }
    out->ok = false;
}

/* Fused operator types and the ONNX op they are built on. */
const char *measured_base_op(const char *op) {
    static const struct { const char *fused, *base; } map[] = {
        {"FusedConv", "Conv"}, {"FusedMatMul", "MatMul"}, {"FusedGemm", "Gemm"},
        {"NhwcFusedConv", "Conv"}, {"QLinearConv", "Conv"}, {"MatMulInteger", "MatMul"},
    };
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (!strcmp(op, map[i].fused)) return map[i].base;
    return op;
}

/* The first tensor input of node i that another main-graph node produced. */
static int producer_of(const rl_graph *g, int i) {
    const rl_node *n = &g->nodes[i];
    for (int j = 0; j < n->n_in; j++) {
        int v = n->in[j];
        if (v >= 0 && g->values[v].producer >= 0 && g->values[v].kind == RL_VALUE_ACTIVATION)
            return g->values[v].producer;
    }
    return -1;
}

/* ORT names a fused kernel after its OUTPUT (an NCHWc Conv+Relu is
 * "<relu output>_nchwc") while op_name says what it computes (Conv): walk back
 * from the named node to the nearest producer of that type, through nodes
 * that feed only the next one, and take the whole chain. */
static void add_fused_head(rl_arena *a, const rl_graph *g, const char *op, node_list *l) {
    if (!op || l->n != 1 || l->nr) return;
    const char *want = measured_base_op(op);
    int at = l->v[0];
    if (!strcmp(g->nodes[at].op_type, want)) return;
    int chain[8], n = 0;
    for (int cur = at; n < 8;) {
        int p = producer_of(g, cur);
        if (p < 0) return;
        const rl_node *pn = &g->nodes[p];
        if (pn->n_out < 1 || pn->out[0] < 0 || g->values[pn->out[0]].consumers != 1) return;
        chain[n++] = p;
        if (!strcmp(pn->op_type, want)) {
            for (int k = 0; k < n; k++) list_push(a, l, chain[k]);
            l->fused = true;
            return;
        }
        cur = p;
    }
}

/* Kernels the runtime adds that compute nothing of the model (layout
 * changes, copies): never given nodes of the model. */
bool measured_inserted_by_runtime(const rl_kernel *k) {
    static const char *const ops[] = {"ReorderInput", "ReorderOutput", "MemcpyToHost", "MemcpyFromHost"};
    for (size_t i = 0; k->op && i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(k->op, ops[i])) return true;
    return !strncmp(k->name, "Reformatting CopyNode", 21);
}

/* --------------------------------------------------------- union-find -- */
static int find(int *parent, int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
}

/* --------------------------------------------------------------- build -- */
static int new_group(rl_measured *m) { return m->n_groups++; }

static bool group_add_node(rl_arena *a, rl_measured *m, int gi, int node, const char *how) {
    group *G = &m->groups[gi];
    m->group_of_node[node] = gi;
    m->how_of_node[node] = how;
    G->placed_by_name_only = (G->n_nodes == 0 || G->placed_by_name_only) && !strcmp(how, "name");
    return push_int(a, &G->nodes, &G->n_nodes, &G->cap_nodes, node);
}

static bool group_add_kernel(rl_arena *a, rl_measured *m, int gi, int k) {
    group *G = &m->groups[gi];
    m->group_of_kernel[k] = gi;
    if (m->p.kernels[k].order > G->last_order) G->last_order = m->p.kernels[k].order;
    return push_int(a, &G->kernels, &G->n_kernels, &G->cap_kernels, k);
}

/* What a runtime's fused operator may contain: the ONNX op types a kernel of
 * that type can have computed (ORT's fusions and NCHWc convolutions). One
 * table; a kernel op not listed covers only its own op type. */
static bool covers(const char *kernel_op, const char *node_op) {
    static const char *const conv[] = {"Conv", "Add", "Sum", "Relu", "Clip", "Sigmoid", "HardSigmoid", "HardSwish",
                                       "LeakyRelu", "Tanh", "BatchNormalization", NULL};
    static const char *const gemm[] = {"Gemm", "MatMul", "Add", "Relu", NULL};
    static const char *const matmul[] = {"MatMul", "Transpose", "Div", "Mul", NULL};
    static const char *const gelu[] = {"Add", "Div", "Erf", "Mul", "Tanh", "Pow", "Sigmoid", NULL};
    static const char *const norm[] = {"LayerNormalization", "ReduceMean", "Sub", "Pow", "Add", "Sqrt", "Div", "Mul",
                                       "Cast", NULL};
    static const char *const attention[] = {"MatMul", "Add", "Reshape", "Transpose", "Div", "Mul", "Softmax", "Sqrt",
                                            "Where", "Split", "Slice", "Concat", NULL};
    static const struct { const char *op; const char *const *covered; } table[] = {
        {"Conv", conv}, {"FusedConv", conv}, {"NhwcFusedConv", conv},
        {"Gemm", gemm}, {"FusedGemm", gemm}, {"FusedMatMul", matmul},
        {"Gelu", gelu}, {"BiasGelu", gelu}, {"FastGelu", gelu}, {"QuickGelu", gelu},
        {"LayerNormalization", norm}, {"SimplifiedLayerNormalization", norm},
        {"SkipLayerNormalization", norm}, {"SkipSimplifiedLayerNormalization", norm},
        {"Attention", attention}, {"MultiHeadAttention", attention}, {"GroupQueryAttention", attention},
    };
    /* ONNX function ops a runtime may run as their body's ops, each its own
     * kernel (ORT expands HardSwish into HardSigmoid and Mul) */
    static const char *const hardswish[] = {"HardSigmoid", "Mul", NULL};
    static const struct { const char *op; const char *const *body; } expands[] = {{"HardSwish", hardswish}};
    if (!kernel_op) return false;
    if (!strcmp(measured_base_op(kernel_op), node_op)) return true;
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        if (strcmp(table[i].op, kernel_op)) continue;
        for (const char *const *c = table[i].covered; *c; c++)
            if (!strcmp(*c, node_op)) return true;
    }
    for (size_t i = 0; i < sizeof expands / sizeof *expands; i++) {
        if (strcmp(expands[i].op, node_op)) continue;
        for (const char *const *c = expands[i].body; *c; c++)
            if (!strcmp(*c, kernel_op)) return true;
    }
    return false;
}

/* Evidence that the group's kernel ran more than its named node: a fused or
 * renamed kernel, or a runtime operator other than the node's. */
static bool group_fused(const rl_measured *m, const group *G) {
    if (G->n_nodes && !G->placed_by_name_only) return true; /* O(1): asked once per unplaced node */
    const char *op = measured_group_kernel_op(m, G);
    return op && G->n_nodes && strcmp(measured_base_op(op), m->g->nodes[G->nodes[0]].op_type);
}

/* Consumers of every value, as lists (the graph keeps only counts). */
typedef struct consumers {
    int *start, *node;
} consumers;

static bool build_consumers(rl_arena *a, const rl_graph *g, consumers *c) {
    c->start = rl_arena_alloc(a, (size_t)(g->n_values + 2) * sizeof *c->start);
    int edges = 0;
    for (int i = 0; i < g->n_nodes; i++) edges += g->nodes[i].n_in;
    c->node = rl_arena_alloc(a, (size_t)(edges + 1) * sizeof *c->node);
    int *fill = rl_arena_alloc(a, (size_t)(g->n_values + 1) * sizeof *fill);
    if (!c->start || !c->node || !fill) return false;
    for (int i = 0; i < g->n_nodes; i++)
        for (int j = 0; j < g->nodes[i].n_in; j++)
            if (g->nodes[i].in[j] >= 0) c->start[g->nodes[i].in[j] + 1]++;
    for (int v = 0; v < g->n_values; v++) c->start[v + 1] += c->start[v];
    for (int i = 0; i < g->n_nodes; i++)
        for (int j = 0; j < g->nodes[i].n_in; j++) {
            int v = g->nodes[i].in[j];
            if (v >= 0) c->node[c->start[v] + fill[v]++] = i;
        }
    return true;
}

/* Prologue fusion: every consumer of node i sits in one fused group whose
 * kernel can have computed i (a Transpose folded into a FusedMatMul). */
static int consumer_group(const rl_measured *m, const consumers *c, int i) {
    const rl_node *n = &m->g->nodes[i];
    int found = -1;
    for (int o = 0; o < n->n_out; o++) {
        int v = n->out[o];
        if (v < 0) continue;
        if (m->g->values[v].is_graph_output) return -1;
        for (int k = c->start[v]; k < c->start[v + 1]; k++) {
            int gi = m->group_of_node[c->node[k]];
            if (gi < 0 || (found >= 0 && gi != found)) return -1;
            found = gi;
        }
    }
    if (found < 0 || !group_fused(m, &m->groups[found])) return -1;
    return covers(measured_group_kernel_op(m, &m->groups[found]), n->op_type) ? found : -1;
}

/* How far after a group's last kernel a renamed kernel is looked for: it
 * runs right after its producer, and the bound keeps the search linear in
 * the graph (each unplaced node looks at most this far). */
enum { RENAMED_WINDOW = 16 };

/* Kernels that name no node, run after group `after` (at most
 * RENAMED_WINDOW positions on) and before the next kernel that does, and
 * can have computed op: a renamed fusion (ORT's
 * "BiasGelu" for an erf GELU) or a function op run as its body
 * ("HardSigmoid_185" and "Mul_186" for a HardSwish). `after` < 0: a node
 * that reads only the graph's inputs and constants, whose kernels are the
 * run's first (a graph that opens with a GELU). They join one new group
 * with the node; returns it, or -1 when there are none. */
static int renamed_kernels(rl_arena *a, rl_measured *m, int after, const char *op, bool *oom) {
    int target = -1, start = after >= 0 ? m->groups[after].last_order + 1 : 0;
    for (int pos = start; pos < m->p.n_kernels && pos < start + RENAMED_WINDOW; pos++) {
        int k = m->kernel_at_order[pos];
        if (m->group_of_kernel[k] >= 0) break; /* the next named kernel: the gap is over */
        const rl_kernel *K = &m->p.kernels[k];
        if (measured_inserted_by_runtime(K) || !covers(K->op, op)) continue;
        if (target < 0) {
            target = new_group(m);
            m->groups[target].last_order = -1;
        }
        if (!group_add_kernel(a, m, target, k)) { *oom = true; return -1; }
    }
    return target;
}

/* Whether some input of n is computed by a node (not a graph input or a
 * constant). */
static bool has_producer(const rl_graph *g, const rl_node *n) {
    for (int j = 0; j < n->n_in; j++)
        if (n->in[j] >= 0 && g->values[n->in[j]].producer >= 0) return true;
    return false;
}

/* Nodes without a kernel of their own, for a runtime that fuses. In
 * topological order, a node joins (1) the fused group that consumes all its
 * outputs, when that kernel can compute it (prologue); else (2) the fused
 * group of its latest producer, when that kernel can compute it (epilogue:
 * an NCHWc Conv with its Add and Relu); else (3) a renamed kernel that ran
 * right after its producer and can compute it. A node none of these fits
 * stays unmeasured and is listed: nothing is placed without evidence. */
static bool infer_fused_nodes(rl_arena *a, rl_measured *m) {
    const rl_graph *g = m->g;
    consumers cons;
    if (!build_consumers(a, g, &cons)) return false;
    for (int p = 0; p < g->n_nodes; p++) {
        int i = g->order[p];
        const rl_node *n = &g->nodes[i];
        if (m->group_of_node[i] >= 0 || measured_node_sol(m, i) <= 0) continue;
        if (n->op && (n->op->flags & (RL_OP_VIEW | RL_OP_CONTROL))) continue;
        int target = consumer_group(m, &cons, i);
        int producer = -1;
        for (int j = 0; j < n->n_in; j++) {
            int v = n->in[j];
            int pr = v >= 0 ? g->values[v].producer : -1;
            int gi = pr >= 0 ? m->group_of_node[pr] : -1;
            if (gi >= 0 && (producer < 0 || m->groups[gi].last_order > m->groups[producer].last_order)) producer = gi;
        }
        if (target < 0 && producer >= 0 && group_fused(m, &m->groups[producer]) &&
            covers(measured_group_kernel_op(m, &m->groups[producer]), n->op_type))
            target = producer;
        if (target < 0 && (producer >= 0 || !has_producer(g, n))) {
            bool oom = false;
            target = renamed_kernels(a, m, producer, n->op_type, &oom);
            if (oom) return false;
        }
        if (target >= 0 && !group_add_node(a, m, target, i, "inferred")) return false;
    }
    return true;
}

static void check_shape(rl_ctx *c, rl_measured *m, const rl_kernel *k, int node) {
    const rl_node *n = &m->g->nodes[node];
    const rl_value *v = n->n_out > 0 ? n->outv[0] : NULL;
    if (k->out_rank < 0 || !v || v->rank != k->out_rank) return;
    for (int d = 0; d < v->rank; d++) {
        if (v->dims[d] >= 0 && v->dims[d] != k->out_dims[d]) {
            if (m->shape_mismatches++ == 0)
                rl_warn(c, "measured_shape_mismatch", n->name,
                        "the profile ran '%s' with output dim %d = %lld where this analysis has %lld: analyse "
                        "with the batch and dims the profile was recorded with", n->name, d,
                        (long long)k->out_dims[d], (long long)v->dims[d]);
            return;
        }
    }
}

/* A range of the topological order and the kernel that named it. */
typedef struct span {
    int p0, p1, kernel;
} span;

static int by_start(const void *a, const void *b) {
    const span *x = a, *y = b;
    if (x->p0 != y->p0) return x->p0 < y->p0 ? -1 : 1;
    return x->kernel - y->kernel;
}

/* The kernels' ranges merged where they overlap (their kernels ran common
 * nodes: one group), each node of a merged range owned by it, or its
 * kernel joined with the node's owner. spans is rewritten in place to the
 * merged ranges, ordered by start, each with its lowest kernel; returns how
 * many. Time O(ranges log ranges + nodes): merged ranges are disjoint, so
 * every node is visited once however many rows name it. */
static int merge_spans(const rl_graph *g, span *sp, int n, int *owner, int *parent) {
    qsort(sp, (size_t)n, sizeof *sp, by_start);
    int out = 0;
    for (int i = 0; i < n;) {
        span cur = sp[i++];
        for (; i < n && sp[i].p0 <= cur.p1; i++) {
            if (sp[i].p1 > cur.p1) cur.p1 = sp[i].p1;
            if (sp[i].kernel < cur.kernel) cur.kernel = sp[i].kernel;
            parent[find(parent, sp[i].kernel)] = find(parent, sp[i - 1].kernel);
        }
        for (int p = cur.p0; p <= cur.p1; p++) {
            int node = g->order[p];
            if (owner[node] < 0) owner[node] = cur.kernel;
            else parent[find(parent, cur.kernel)] = find(parent, owner[node]);
        }
        sp[out++] = cur;
    }
    return out;
}

/* Each kernel's name resolved (lists[k]); the single nodes owned and the
 * ranges collected into *spans. Returns false when memory runs out. */
static bool resolve_kernels(rl_ctx *c, rl_measured *m, const names *nm, node_list *lists, int *parent, int *owner,
                            span **spans, int *n_spans) {
    rl_arena *a = c->arena;
    int nk = m->p.n_kernels, cap = 0;
    for (int k = 0; k < nk; k++) {
        const rl_kernel *K = &m->p.kernels[k];
        parent[k] = k;
        lists[k] = (node_list){.ok = true};
        resolve_name(a, nm, K->name, strlen(K->name), &lists[k], 0);
        if (lists[k].oom) return false;
        if (!lists[k].ok) { lists[k].n = lists[k].nr = 0; continue; } /* a part names no node: unmatched */
        add_fused_head(a, m->g, K->op, &lists[k]);
        if (lists[k].oom) return false;
        if (lists[k].n == 1 && !lists[k].fused) check_shape(c, m, K, lists[k].v[0]);
        for (int j = 0; j < lists[k].n; j++) {
            int node = lists[k].v[j];
            if (owner[node] < 0) owner[node] = k;
            else parent[find(parent, k)] = find(parent, owner[node]); /* two kernels ran one node */
        }
        cap += lists[k].nr / 2;
    }
    *spans = rl_arena_alloc(a, (size_t)(cap + 1) * sizeof **spans);
    if (!*spans) return false;
    *n_spans = 0;
    for (int k = 0; k < nk; k++)
        for (int j = 0; j < lists[k].nr; j += 2) (*spans)[(*n_spans)++] = (span){lists[k].r[j], lists[k].r[j + 1], k};
    return true;
}

static bool match(rl_ctx *c, rl_measured *m) {
    rl_arena *a = c->arena;
    const rl_graph *g = m->g;
    int nk = m->p.n_kernels, nn = g->n_nodes, n_spans = 0;
    names nm = {rl_map_new(a, (size_t)nn), rl_map_new(a, (size_t)g->n_values), NULL};
    nm.pos = rl_arena_alloc(a, (size_t)(nn + 1) * sizeof *nm.pos);
    node_list *lists = rl_arena_alloc(a, (size_t)(nk + 1) * sizeof *lists);
    int *parent = rl_arena_alloc(a, (size_t)(nk + 1) * sizeof *parent);
    int *owner = rl_arena_alloc(a, (size_t)(nn + 1) * sizeof *owner);
    int *group_of_root = rl_arena_alloc(a, (size_t)(nk + 1) * sizeof *group_of_root);
    span *spans = NULL;
    if (!nm.node || !nm.tensor || !nm.pos || !lists || !parent || !owner || !group_of_root) return false;
    for (int p = 0; p < nn; p++) nm.pos[g->order[p]] = p;
    for (int i = 0; i < nn; i++) rl_map_put(nm.node, g->nodes[i].name, i);
    for (int v = 0; v < g->n_values; v++)
        if (g->values[v].producer >= 0 && g->values[v].name) rl_map_put(nm.tensor, g->values[v].name, g->values[v].producer);
    for (int i = 0; i < nn; i++) owner[i] = -1;
    if (!resolve_kernels(c, m, &nm, lists, parent, owner, &spans, &n_spans)) return false;
    n_spans = merge_spans(g, spans, n_spans, owner, parent);
    for (int k = 0; k < nk; k++) group_of_root[k] = -1;
    for (int k = 0; k < nk; k++) {
        if (lists[k].n == 0 && lists[k].nr == 0) continue;
        int r = find(parent, k);
        if (group_of_root[r] < 0) {
            group_of_root[r] = new_group(m);
            m->groups[group_of_root[r]].last_order = -1;
        }
        if (!group_add_kernel(a, m, group_of_root[r], k)) return false;
    }
    for (int k = 0; k < nk; k++) {
        int gi = m->group_of_kernel[k];
        for (int j = 0; gi >= 0 && j < lists[k].n; j++) {
            int node = lists[k].v[j];
            if (m->group_of_node[node] >= 0) continue; /* listed twice */
            if (!group_add_node(a, m, gi, node, lists[k].fused || lists[k].n > 1 ? "fused" : "name")) return false;
        }
    }
    for (int j = 0; j < n_spans; j++) {
        int gi = m->group_of_kernel[spans[j].kernel];
        for (int p = spans[j].p0; p <= spans[j].p1; p++)
            if (m->group_of_node[g->order[p]] < 0 && !group_add_node(a, m, gi, g->order[p], "fused")) return false;
    }
    if (m->infer_fusion && !infer_fused_nodes(a, m)) return false;
    return true;
}

/* Bytes a group moves as one kernel: the tensors that enter it (weights,
 * graph inputs, values made outside it) and those that leave it (read
 * outside it or graph outputs), each once; intermediates stay on chip.
 * *main receives the weights and the model's inputs and outputs, which
 * cross main memory; *exchanged the tensors it trades with other kernels.
 * Never more than its nodes' own traffic (a node may read only part of a
 * tensor, a Gather's rows): both are scaled down to it. */
static void group_external_bytes(rl_ctx *c, const rl_measured *m, int gi, const consumers *cons, int *stamp,
                                 double *main, double *exchanged) {
    const rl_graph *g = m->g;
    const group *G = &m->groups[gi];
    double own = 0;
    *main = *exchanged = 0;
    for (int j = 0; j < G->n_nodes; j++) {
        const rl_node *n = &g->nodes[G->nodes[j]];
        own += m->cost[G->nodes[j]].bytes;
        for (int i = 0; i < n->n_in; i++) {
            int v = n->in[i];
            if (v < 0 || stamp[v] == gi + 1) continue;
            int pr = g->values[v].producer;
            if (pr >= 0 && m->group_of_node[pr] == gi) continue;
            stamp[v] = gi + 1;
            *(pr >= 0 ? exchanged : main) += rl_value_bytes(c, &g->values[v]);
        }
        for (int o = 0; o < n->n_out; o++) {
            int v = n->out[o];
            if (v < 0 || stamp[v] == gi + 1) continue;
            bool out = g->values[v].is_graph_output, leaves = out;
            for (int k = cons->start[v]; k < cons->start[v + 1] && !leaves; k++)
                leaves = m->group_of_node[cons->node[k]] != gi;
            if (!leaves) continue;
            stamp[v] = gi + 1;
            *(out ? main : exchanged) += rl_value_bytes(c, &g->values[v]);
        }
    }
    double b = *main + *exchanged;
    if (b > own) *main *= own / b, *exchanged *= own / b;
}

static bool group_figures(rl_ctx *c, rl_measured *m) {
    consumers cons;
    int *stamp = rl_arena_alloc(c->arena, (size_t)(m->g->n_values + 1) * sizeof *stamp);
    if (!stamp || !build_consumers(c->arena, m->g, &cons)) return false;
    for (int gi = 0; gi < m->n_groups; gi++) {
        group *G = &m->groups[gi];
        G->known = true;
        G->how = "name";
        for (int j = 0; j < G->n_kernels; j++) G->measured_s += m->p.kernels[G->kernels[j]].time_s;
        for (int j = 0; j < G->n_nodes; j++) {
            int i = G->nodes[j];
            G->sol_s += measured_node_sol(m, i);
            G->t_compute += m->cost[i].t_compute;
            G->flops += m->cost[i].flops;
            G->bytes += m->cost[i].bytes;
            G->known &= m->cost[i].known;
            const char *h = m->how_of_node[i];
            if (!strcmp(h, "inferred") || (!strcmp(h, "fused") && !strcmp(G->how, "name"))) G->how = h;
        }
        double main, exchanged;
        group_external_bytes(c, m, gi, &cons, stamp, &main, &exchanged);
        double tm = rl_traffic_floor_s(m->hw, main, exchanged);
        G->sol_fused_s = G->t_compute > tm ? G->t_compute : tm;
        m->matched_s += G->measured_s;
    }
    for (int k = 0; k < m->p.n_kernels; k++) m->total_s += m->p.kernels[k].time_s;
    return true;
}

/* The match's tables for m's graph and profile, in the arena: no node or
 * kernel in a group yet, the kernels by their order in the run. false when
 * out of memory. */
static bool make_match_tables(rl_arena *a, rl_measured *m) {
    int nn = m->g->n_nodes, nk = m->p.n_kernels;
    m->group_of_node = rl_arena_alloc(a, (size_t)(nn + 1) * sizeof *m->group_of_node);
    m->how_of_node = rl_arena_alloc(a, (size_t)(nn + 1) * sizeof *m->how_of_node);
    m->group_of_kernel = rl_arena_alloc(a, (size_t)(nk + 1) * sizeof *m->group_of_kernel);
    m->kernel_at_order = rl_arena_alloc(a, (size_t)(nk + 1) * sizeof *m->kernel_at_order);
    /* at most one group per kernel */
    m->groups = rl_arena_alloc(a, (size_t)(nk + 1) * sizeof *m->groups);
    m->ranked = rl_arena_alloc(a, (size_t)(nk + 1) * sizeof *m->ranked);
    m->eff = rl_arena_alloc(a, (size_t)(nk + 1) * sizeof *m->eff);
    m->done = rl_arena_alloc(a, (size_t)(nk + 1) * sizeof *m->done);
    if (!m->ranked || !m->eff || !m->done) return false;
    if (!m->group_of_node || !m->how_of_node || !m->group_of_kernel || !m->kernel_at_order || !m->groups) return false;
    for (int i = 0; i < nn; i++) m->group_of_node[i] = -1;
    for (int k = 0; k < nk; k++) {
        m->group_of_kernel[k] = -1;
        m->kernel_at_order[m->p.kernels[k].order] = k;
    }
    return true;
}

rl_measured *rl_measured_attach(rl_ctx *c, const cJSON *spec, const rl_graph *g,
                                const rl_measured_cost *cost, const rl_hw *hw, rl_error *err) {
    if (!cJSON_IsObject(spec)) {
        rl_error_set(err, "bad_request", "measured",
                     "measured must be an object {\"text\": \"<profile>\", \"format\": \"auto\"}");
        return NULL;
    }
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(spec, "text");
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(spec, "format");
    if (!cJSON_IsString(text)) {
        rl_error_set(err, "bad_request", "measured.text",
                     "measured.text must be the profile's text (ONNX Runtime or trtexec JSON, or CSV)");
        return NULL;
    }
    if (fmt && !cJSON_IsNull(fmt) && !cJSON_IsString(fmt)) {
        rl_error_set(err, "bad_request", "measured.format",
                     "measured.format must be \"auto\", \"ort\", \"trtexec\" or \"csv\"");
        return NULL;
    }
    rl_arena *a = c->arena;
    rl_measured *m = rl_arena_alloc(a, sizeof *m);
    if (!m) goto oom;
    if (rl_profile_parse(a, text->valuestring, strlen(text->valuestring),
                         cJSON_IsString(fmt) ? fmt->valuestring : "auto", &m->p, err))
        return NULL;
    m->g = g;
    m->cost = cost;
    m->hw = hw;
    m->infer_fusion = m->p.format != RL_PROFILE_CSV; /* a CSV names exactly what ran */
    int nk = m->p.n_kernels;
    if (!make_match_tables(a, m) || !match(c, m)) goto oom;
    if (!group_figures(c, m)) goto oom;
    if (m->p.warmup_only)
        rl_warn(c, "measured_warmup_only", NULL,
                "%d kernels of the profile ran only in its first run, which is left out as the warm-up",
                m->p.warmup_only);
    int unmatched = 0;
    double unmatched_s = 0;
    for (int k = 0; k < nk; k++)
        if (m->group_of_kernel[k] < 0) unmatched++, unmatched_s += m->p.kernels[k].time_s;
    if (unmatched == nk) {
        /* A profile of another model: its run time against this model's
         * floor would be a ratio of two unrelated figures, so no figure is
         * given at all. */
        rl_error_set(err, "bad_measured", "measured",
                     "none of the profile's %d kernels names a node of this model: the profile was recorded "
                     "with another model (or renamed its nodes); profile this model and attach that profile",
                     nk);
        return NULL;
    }
    if (unmatched)
        rl_warn(c, "measured_unmatched", NULL,
                "%d of the profile's %d kernels (%.1f%% of the measured time) name no node of this model; "
                "they are listed in measured.unmatched", unmatched, nk,
                m->total_s > 0 ? 100 * unmatched_s / m->total_s : 0);
    return m;
oom:
    rl_error_set(err, "out_of_memory", "measured", "out of memory while matching the measured profile");
    return NULL;
}
