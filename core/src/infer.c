/* Shape inference over a graph in topological order, and per-node costs. */
#include <stdio.h>
#include <string.h>

#include "function_index.h"
#include "functions.h"
#include "graph.h"
#include "infer.h"
#include "model.h"
#include "ops/op.h"

static bool all_known(const rl_node *n) {
    for (int i = 0; i < n->n_in; i++) {
        const rl_value *v = n->inv[i];
        if (v && v->type == RL_TYPE_TENSOR && !rl_shape_known(v)) return false;
    }
    for (int i = 0; i < n->n_out; i++) {
        const rl_value *v = n->outv[i];
        if (v && v->type == RL_TYPE_TENSOR && !rl_shape_known(v)) return false;
    }
    return true;
}

static void format_dims(char *buf, size_t cap, int rank, const int64_t *d) {
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < rank && n < cap; i++) {
        if (d[i] < 0) n += (size_t)snprintf(buf + n, cap - n, i ? ",?" : "?");
        else n += (size_t)snprintf(buf + n, cap - n, i ? ",%lld" : "%lld", (long long)d[i]);
    }
    if (n < cap) snprintf(buf + n, cap - n, "]");
}

/* The weakest source among a node's inputs: a shape computed from a
 * declared shape is no better than the declaration. */
static int inputs_source(const rl_node *n) {
    int s = RL_SRC_INFERRED;
    for (int i = 0; i < n->n_in + n->n_implicit; i++) {
        const rl_value *v = n->inv[i];
        if (v && v->shape_source > s) s = v->shape_source;
    }
    return s;
}

/* Does the declaration agree with what partial inference knows (rank, the
 * dims it could tell, the bounds of the others)? */
static bool declared_agrees(const rl_value *v) {
    if (v->rank < 0) return true;
    if (v->rank != v->declared_rank) return false;
    for (int k = 0; k < v->rank; k++) {
        int64_t d = v->declared_dims[k], m = v->dims[k];
        if (d < 0) continue;
        if (m >= 0) {
            if (d != m) return false;
            continue;
        }
        int64_t bound = v->dim_max ? v->dim_max[k] : -1;
        if (bound < 0) continue;
        if (v->dims_one_or_max ? d != 1 && d != bound : d > bound) return false;
    }
    return true;
}

static void mark_source(rl_value *v, int src, bool inherited) {
    if (src <= v->shape_source) return;
    v->shape_source = src;
    v->source_inherited = inherited;
    v->from_declared = true;
}

/* Compare what we inferred with the model's own value_info. Where inference
 * left the shape open, adopt the declaration only if it agrees with what is
 * known; it counts as "declared, consistent" (RL_SRC_DECLARED_RUNTIME) only
 * when the open part depends on a runtime value. A disagreement is a
 * value_info_mismatch and the partial shape stays (its cost stays unknown). */
static void check_declared(rl_ctx *c, const rl_node *n, rl_value *v, int in_src) {
    /* open because of this node's runtime operand, or because an input's
     * dims are open for that reason upstream */
    const rl_value *open_in = NULL;
    for (int i = 0; i < n->n_in + n->n_implicit && !open_in; i++)
        if (n->inv[i] && n->inv[i]->runtime_open) open_in = n->inv[i];
    /* The operand the shape needed must really be a runtime value (from a
     * graph input), not a constant rooflens failed to fold. */
    const rl_value *operand = n->runtime_dep && n->runtime_input >= 0 && n->runtime_input < n->n_in
                                  ? n->inv[n->runtime_input] : NULL;
    bool operand_runtime = operand && (operand->runtime_contents || operand->runtime_open);
    bool runtime = n->op && (operand_runtime || open_in) && in_src != RL_SRC_DECLARED;
    if (runtime && v->type == RL_TYPE_TENSOR && !rl_shape_known(v)) v->runtime_open = true;
    int adopt_src = runtime ? RL_SRC_DECLARED_RUNTIME : RL_SRC_DECLARED;
    if (!v->dtype && v->declared_dtype) {
        v->dtype = v->declared_dtype;
        mark_source(v, adopt_src, false);
    }
    bool known = v->type != RL_TYPE_TENSOR || rl_shape_known(v);
    if (known || v->declared_rank < 0) {
        if (in_src != RL_SRC_INFERRED) mark_source(v, in_src, true);
        if (!known || v->declared_rank < 0) return;
        bool differ = v->rank != v->declared_rank;
        for (int k = 0; !differ && k < v->rank; k++) {
            int64_t d = v->declared_dims[k];
            if (d >= 0 && d != v->dims[k]) differ = true;
        }
        if (differ) {
            char ours[160], theirs[160];
            format_dims(ours, sizeof ours, v->rank, v->dims);
            format_dims(theirs, sizeof theirs, v->declared_rank, v->declared_dims);
            rl_warn(c, "value_info_mismatch", n->name,
                    "the model declares '%s' as %s but its inputs give %s; using %s", v->name,
                    theirs, ours, ours);
        }
        return;
    }
    char ours[160], theirs[160];
    if (v->rank >= 0) format_dims(ours, sizeof ours, v->rank, v->dims);
    else snprintf(ours, sizeof ours, "an unknown rank");
    format_dims(theirs, sizeof theirs, v->declared_rank, v->declared_dims);
    if (!declared_agrees(v)) {
        rl_warn(c, "value_info_mismatch", n->name,
                "the model declares '%s' as %s but what its inputs determine is %s; the "
                "declaration is not used", v->name, theirs, ours);
        return;
    }
    int64_t *dims = rl_arena_alloc(c->arena, (size_t)(v->declared_rank + 1) * sizeof *dims);
    if (!dims) return;
    for (int k = 0; k < v->declared_rank; k++)
        dims[k] = v->rank >= 0 && v->dims[k] >= 0 ? v->dims[k] : v->declared_dims[k];
    if (!rl_dims_countable(v->declared_rank, dims)) return; /* no tensor has that shape: stays unknown */
    v->rank = v->declared_rank;
    v->dims = dims;
    mark_source(v, in_src > adopt_src ? in_src : adopt_src, false);
    if (runtime) {
        const rl_value *dep = operand_runtime ? operand : open_in;
        rl_warn(c, "declared_consistent", n->name,
                "the shape of '%s' (output of %s node '%s') depends on the runtime value of '%s'; "
                "using the model's declared %s, which agrees with the inferred %s",
                v->name, n->op_type, n->name, dep && dep->name ? dep->name : "an input", theirs, ours);
    }
}

/* Contents that come from a graph input are runtime values; so are the
 * unknown contents of whatever is computed from them. */
static void mark_runtime_contents(const rl_node *n) {
    bool from_runtime = false;
    for (int i = 0; i < n->n_in + n->n_implicit && !from_runtime; i++)
        from_runtime = n->inv[i] && (n->inv[i]->runtime_contents || n->inv[i]->runtime_open);
    for (int i = 0; from_runtime && i < n->n_out; i++)
        if (n->outv[i] && n->outv[i]->n_known < 0) n->outv[i]->runtime_contents = true;
}

static const rl_graph_walkers walkers = {rl_body_infer, rl_cost_graph};

int rl_infer_graph(rl_ctx *c, rl_graph *g) {
    c->walkers = &walkers;
    for (int i = 0; i < g->n_inputs; i++) {
        rl_value *v = &g->values[g->inputs[i]];
        if (v->n_known < 0) v->runtime_contents = true;
        /* sizes given to symbolic dims may make each dim fine and their
         * product not: [s, s, s] with s = 3,000,000 */
        if (v->rank > 0 && !rl_dims_countable(v->rank, v->dims)) {
            rl_dims_overflow(c, v, v->rank, v->dims, v->name, "graph input");
            return -1;
        }
    }
    for (int k = 0; k < g->n_nodes; k++) {
        rl_node *n = &g->nodes[g->order[k]];
        int64_t opset = rl_model_opset(c->model, n->domain);
        n->opset = (int)opset;
        n->op = rl_op_find(n->domain, n->op_type, (int)(opset < 0 ? 1 << 20 : opset));
        /* the model's own definition wins over the table (functions.c) */
        bool local_function = rl_function_lookup(c->model, n->domain, n->op_type) != NULL;
        if (local_function) n->op = &rl_function_call_op;
        if (opset < 0 && !local_function && n->op)
            rl_warn(c, "unknown_domain", n->name,
                    "the model imports no opset for domain '%s' (node '%s'); assuming its latest "
                    "version", n->domain, n->name);
        if (n->op && n->op->shape) {
            int r = n->op->shape(c, g, n);
            if (r == RL_FAIL) {
                if (!c->err->code[0]) rl_bad(c, n, "invalid node");
                return -1;
            }
        } else if (!n->op) {
            rl_warn(c, "unsupported_op", NULL,
                    "operator %s%s%s (opset %lld) is not in rooflens's operator table: its layers "
                    "count bytes from known shapes and zero FLOPs",
                    n->domain[0] ? n->domain : "", n->domain[0] ? "." : "", n->op_type,
                    (long long)opset);
        }
        int in_src = inputs_source(n);
        for (int i = 0; i < n->n_out; i++)
            if (n->outv[i]) check_declared(c, n, n->outv[i], in_src);
        mark_runtime_contents(n);
        n->shape_known = all_known(n);
        if (!n->shape_known && n->op) {
            for (int i = 0; i < n->n_out; i++) {
                rl_value *v = n->outv[i];
                if (v && v->type == RL_TYPE_TENSOR && !rl_shape_known(v)) {
                    rl_warn(c, "shape_unknown", n->name,
                            "could not infer the shape of '%s' (output of %s node '%s'): its cost "
                            "and the cost of nodes that read it are marked unknown",
                            v->name, n->op_type, n->name);
                    break;
                }
            }
        }
        if (c->err->code[0]) return -1;
    }
    /* A graph output whose shape was computed from a declared, consistent
     * shape upstream says so too (its own node computed it). */
    for (int i = 0; !g->parent && i < g->n_outputs; i++) {
        const rl_value *v = g->outputs[i];
        if (v && v->shape_source == RL_SRC_DECLARED_RUNTIME && v->source_inherited)
            rl_warn(c, "declared_consistent", NULL,
                    "the shape of graph output '%s' is computed from declared shapes that agree "
                    "with rooflens's partial inference (their sizes depend on runtime values)",
                    v->name);
    }
    return 0;
}

rl_graph *rl_body_infer(rl_ctx *c, rl_graph *outer, rl_node *n, const Onnx__GraphProto *body,
                        int n_preset, rl_value *const *preset) {
    char where[300];
    snprintf(where, sizeof where, "body of node '%s' (%s)", n->name, n->op_type);
    rl_graph *b = rl_graph_build(c, body, outer, outer->depth + 1, where);
    if (!b) return NULL;
    for (int i = 0; i < b->n_inputs && i < n_preset; i++) {
        rl_value *dst = &b->values[b->inputs[i]];
        const rl_value *src = preset[i];
        if (!src) continue;
        /* The body's own declaration of its inputs may leave dims open; what
         * flows in from the outer graph is what it gets. */
        if (src->rank >= 0) {
            dst->rank = src->rank;
            dst->dims = src->dims;
        }
        if (src->dtype) dst->dtype = src->dtype;
        dst->type = src->type;
        dst->n_known = src->n_known;
        dst->ival = src->ival;
        dst->fval = src->fval;
    }
    if (rl_infer_graph(c, b)) return NULL;
    return b;
}

/* Default bytes: every tensor the node reads and writes. */
static void default_bytes(rl_ctx *c, const rl_node *n, rl_cost *k) {
    for (int i = 0; i < n->n_in; i++) {
        const rl_value *v = n->inv[i];
        if (!v) continue;
        double b = rl_value_bytes(c, v);
        if (v->kind == RL_VALUE_WEIGHT || v->kind == RL_VALUE_CONSTANT) k->weight_bytes += b;
        else k->input_bytes += b;
    }
    for (int i = 0; i < n->n_out; i++) k->output_bytes += rl_value_bytes(c, n->outv[i]);
}

static void add_cost(rl_cost *s, const rl_cost *k, double times) {
    s->matrix_flops += k->matrix_flops * times;
    s->vector_flops += k->vector_flops * times;
    s->macs += k->macs * times;
    s->input_bytes += k->input_bytes * times;
    s->weight_bytes += k->weight_bytes * times;
    s->output_bytes += k->output_bytes * times;
    if (!k->known) s->known = false;
}

/* Every node's cost must be a physical quantity before it reaches a total:
 * finite, not negative, and at most RL_MAX_NODE_COST (10^36 FLOPs or bytes,
 * far past any model: a zettaFLOP/s machine would need 10^15 s). With at
 * most 10^8 nodes, the sums then stay finite too, so an answer can never
 * print inf as null or 0. A negative or NaN figure means an attribute or
 * shape the op's cost formula does not accept; a too-large one, trip counts
 * or shapes past any real model (20 nested Scans). Either way the node is
 * named and the analysis stops. */
#define RL_MAX_NODE_COST 1e36

static int check_node_cost(rl_ctx *c, const rl_node *n, const rl_cost *k) {
    static const char *const names[] = {"matrix FLOPs", "vector FLOPs", "MACs", "input bytes",
                                        "weight bytes", "output bytes"};
    const double v[] = {k->matrix_flops, k->vector_flops, k->macs, k->input_bytes, k->weight_bytes,
                        k->output_bytes};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        if (v[i] >= 0 && v[i] <= RL_MAX_NODE_COST) continue;
        bool control = n->op && (n->op->flags & RL_OP_CONTROL);
        if (v[i] > RL_MAX_NODE_COST) /* inf included */
            rl_error_set(c->err, "cost_overflow", n->name,
                         "node '%s' (%s) would count %g %s, more than rooflens can count (%g)%s; "
                         "its shapes or attributes are not those of a model that can run",
                         n->name, n->op_type, v[i], names[i], RL_MAX_NODE_COST,
                         control ? ": its bodies' cost times their trip counts" : "");
        else
            rl_error_set(c->err, "bad_model", n->name,
                         "node '%s' (%s) would count %g %s: a negative or undefined cost means "
                         "its attributes or input shapes are outside what the operator accepts",
                         n->name, n->op_type, v[i], names[i]);
        return -1;
    }
    return 0;
}

int rl_cost_graph(rl_ctx *c, rl_graph *g, rl_cost *sum) {
    c->walkers = &walkers;
    memset(sum, 0, sizeof *sum);
    sum->known = true;
    for (int k = 0; k < g->n_nodes; k++) {
        rl_node *n = &g->nodes[g->order[k]];
        rl_cost *cost = &n->cost;
        memset(cost, 0, sizeof *cost);
        cost->known = n->shape_known;
        if (n->op && (n->op->flags & RL_OP_CONTROL)) {
            /* A control node costs what its bodies cost. */
            cost->known = true;
            for (int s = 0; s < n->n_subgraphs; s++) {
                if (!n->subgraphs[s]) continue;
                rl_cost body;
                if (rl_cost_graph(c, n->subgraphs[s], &body)) return -1;
                add_cost(cost, &body, n->sub_multiplier > 0 ? n->sub_multiplier : 1.0);
            }
            if (n->op->cost) n->op->cost(c, g, n, cost);
        } else {
            if (!n->op || !(n->op->flags & RL_OP_VIEW)) default_bytes(c, n, cost);
            if (n->op && n->op->cost && n->shape_known) n->op->cost(c, g, n, cost);
        }
        /* an attribute a cost function read may have been refused (rl_attr_i_in) */
        if (c->err->code[0] || check_node_cost(c, n, cost)) return -1;
        add_cost(sum, cost, 1.0);
    }
    return 0;
}

