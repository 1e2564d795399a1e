/* Shape inference over a graph in topological order, and per-node costs. */
#include <stdio.h>
#include <string.h>

#include "graph.h"

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
    for (int i = 0; i < rank && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, i ? ",%lld" : "%lld", (long long)d[i]);
    if (n < cap) snprintf(buf + n, cap - n, "]");
}

/* Compare what we inferred with the model's own value_info; adopt the
 * declaration where we know nothing. */
static void check_declared(rl_ctx *c, const rl_node *n, rl_value *v) {
    if (v->declared_rank < 0) {
        if (v->declared_rank == -1 || v->declared_dtype == 0 || v->dtype) return;
    }
    if (!v->dtype && v->declared_dtype) {
        v->dtype = v->declared_dtype;
        v->from_declared = true;
    }
    if (v->declared_rank < 0) return;
    if (v->rank < 0) {
        v->rank = v->declared_rank;
        v->dims = v->declared_dims;
        v->from_declared = true;
        return;
    }
    bool differ = v->rank != v->declared_rank;
    for (int k = 0; !differ && k < v->rank; k++) {
        int64_t d = v->declared_dims[k];
        if (d >= 0 && v->dims[k] >= 0 && d != v->dims[k]) differ = true;
        if (d >= 0 && v->dims[k] < 0) { /* fill what we could not tell */
            v->dims[k] = d;
            v->from_declared = true;
        }
    }
    if (differ) {
        char ours[160], theirs[160];
        format_dims(ours, sizeof ours, v->rank, v->dims);
        format_dims(theirs, sizeof theirs, v->declared_rank, v->declared_dims);
        rl_warn(c, "value_info_mismatch", n->name,
                "the model declares '%s' as %s but its inputs give %s; using %s", v->name, theirs,
                ours, ours);
    }
}

static const rl_function *find_function(const rl_model *m, const char *domain, const char *name) {
    for (int i = 0; i < m->n_functions; i++)
        if (strcmp(m->functions[i].name, name) == 0 && strcmp(m->functions[i].domain, domain) == 0)
            return &m->functions[i];
    return NULL;
}

int rl_infer_graph(rl_ctx *c, rl_graph *g) {
    for (int k = 0; k < g->n_nodes; k++) {
        rl_node *n = &g->nodes[g->order[k]];
        int64_t opset = rl_model_opset(c->model, n->domain);
        n->opset = (int)opset;
        n->op = rl_op_find(n->domain, n->op_type, (int)(opset < 0 ? 1 << 20 : opset));
        if (opset < 0 && !find_function(c->model, n->domain, n->op_type) && n->op)
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
        for (int i = 0; i < n->n_out; i++)
            if (n->outv[i]) check_declared(c, n, n->outv[i]);
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

void rl_cost_graph(rl_ctx *c, rl_graph *g, rl_cost *sum) {
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
                rl_cost_graph(c, n->subgraphs[s], &body);
                add_cost(cost, &body, n->sub_multiplier > 0 ? n->sub_multiplier : 1.0);
            }
            if (n->op->cost) n->op->cost(c, g, n, cost);
        } else {
            if (!n->op || !(n->op->flags & RL_OP_VIEW)) default_bytes(c, n, cost);
            if (n->op && n->op->cost && n->shape_known) n->op->cost(c, g, n, cost);
        }
        add_cost(sum, cost, 1.0);
    }
}
