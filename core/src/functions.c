/* Model-local functions (ModelProto.functions, field 25): a node whose
 * (domain, op_type) names one is expanded. The function body becomes a
 * graph whose inputs are the node's actual inputs and whose attribute
 * references (ref_attr_name) are bound to the node's attributes; shapes are
 * inferred through it and its cost is the sum of its nodes' costs.
 *
 * The call is reported as ONE layer (the body's FLOPs and bytes summed), not
 * as the body's layers: the layer table mirrors the graph the user exported,
 * one row per main-graph node, and a function is usually one logical block
 * (a norm, a gated MLP, an attention) the user reasons about as a whole. The
 * body's own per-node costs stay in the call node's subgraph, like If/Loop
 * bodies. The model layer indexes the functions and measures their
 * expanded sizes when the model is read (function_index.c); this file only
 * expands calls, through that index. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "function_index.h"
#include "functions.h"
#include "graph.h"
#include "ops/op.h"

/* The functions being expanded right now, innermost last: a function that
 * reaches itself again is recursive (invalid ONNX) and must not loop. One
 * analysis runs on one thread at a time per thread, hence thread-local. */
static _Thread_local const rl_function *active[RL_FN_MAX_NEST];
static _Thread_local int n_active;

/* protobuf-c allocations from the analysis arena: they die with it. */
static void *arena_pb_alloc(void *a, size_t size) { return rl_arena_alloc(a, size); }
static void arena_pb_free(void *a, void *p) { (void)a; (void)p; }

/* Default values of a function's attributes: FunctionProto.attribute_proto
 * (field 11, ONNX 1.13+). The onnx.proto this build is generated from may
 * predate it, so it is decoded from the unknown fields when present. */
static const Onnx__AttributeProto *function_default(rl_ctx *c, const Onnx__FunctionProto *fp,
                                                    const char *name) {
    ProtobufCAllocator alloc = {arena_pb_alloc, arena_pb_free, c->arena};
    for (size_t i = 0; i < fp->base.n_unknown_fields; i++) {
        const ProtobufCMessageUnknownField *u = &fp->base.unknown_fields[i];
        if (u->tag != 11 || u->wire_type != PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED) continue;
        Onnx__AttributeProto *a = onnx__attribute_proto__unpack(&alloc, u->len, u->data);
        if (a && a->name && strcmp(a->name, name) == 0) return a;
    }
    return NULL;
}

/* A body node with its attribute references bound: an attribute with
 * ref_attr_name takes the calling node's attribute of that name (or the
 * function's default); with neither it is left out, so the operator's own
 * default applies. */
static Onnx__NodeProto *bind_node(rl_ctx *c, const rl_node *call, const Onnx__FunctionProto *fp,
                                  const Onnx__NodeProto *src, size_t index) {
    Onnx__NodeProto *dst = rl_arena_alloc(c->arena, sizeof *dst);
    Onnx__AttributeProto **attrs = rl_arena_alloc(c->arena, (src->n_attribute + 1) * sizeof *attrs);
    if (!dst || !attrs) return NULL;
    *dst = *src;
    size_t kept = 0;
    for (size_t k = 0; k < src->n_attribute; k++) {
        const Onnx__AttributeProto *a = src->attribute[k];
        if (!a->ref_attr_name || !a->ref_attr_name[0]) {
            attrs[kept++] = (Onnx__AttributeProto *)a;
            continue;
        }
        const Onnx__AttributeProto *bound = rl_attr(call, a->ref_attr_name);
        if (!bound) bound = function_default(c, fp, a->ref_attr_name);
        if (!bound) continue;
        Onnx__AttributeProto *copy = rl_arena_alloc(c->arena, sizeof *copy);
        if (!copy) return NULL;
        *copy = *bound;
        copy->name = a->name;
        copy->ref_attr_name = NULL;
        attrs[kept++] = copy;
    }
    dst->attribute = attrs;
    dst->n_attribute = kept;
    /* "call/inner" names make warnings about body nodes point at the call */
    char label[512];
    if (src->name && src->name[0]) rl_snprintf_utf8(label, sizeof label, "%s/%s", call->name, src->name);
    else rl_snprintf_utf8(label, sizeof label, "%s/%s#%zu", call->name, src->op_type ? src->op_type : "?", index);
    dst->name = rl_arena_strdup(c->arena, label);
    return dst;
}

static Onnx__ValueInfoProto **name_list(rl_ctx *c, char **names, size_t count) {
    Onnx__ValueInfoProto **out = rl_arena_alloc(c->arena, (count + 1) * sizeof *out);
    if (!out) return NULL;
    for (size_t i = 0; i < count; i++) {
        Onnx__ValueInfoProto *v = rl_arena_alloc(c->arena, sizeof *v);
        if (!v) return NULL;
        onnx__value_info_proto__init(v);
        v->name = names[i] ? names[i] : "";
        out[i] = v;
    }
    return out;
}

/* Every name a body node reads must come from the function's inputs or an
 * earlier body node: a function sees nothing of its caller's scope. */
static const char *first_unbound_name(rl_ctx *c, const Onnx__FunctionProto *fp) {
    size_t cap = fp->n_input + 1;
    for (size_t i = 0; i < fp->n_node; i++) cap += fp->node[i]->n_output;
    rl_name_map *known = rl_map_new(c->arena, cap);
    if (!known) return NULL;
    for (size_t i = 0; i < fp->n_input; i++)
        if (fp->input[i]) rl_map_put(known, fp->input[i], 1);
    for (size_t i = 0; i < fp->n_node; i++)
        for (size_t j = 0; j < fp->node[i]->n_output; j++)
            if (fp->node[i]->output[j] && fp->node[i]->output[j][0]) rl_map_put(known, fp->node[i]->output[j], 1);
    for (size_t i = 0; i < fp->n_node; i++)
        for (size_t j = 0; j < fp->node[i]->n_input; j++) {
            const char *nm = fp->node[i]->input[j];
            if (nm && nm[0] && rl_map_get(known, nm) < 0) return nm;
        }
    for (size_t i = 0; i < fp->n_output; i++)
        if (fp->output[i] && rl_map_get(known, fp->output[i]) < 0) return fp->output[i];
    return NULL;
}

static int expand(rl_ctx *c, rl_graph *g, rl_node *n, const rl_function *fn) {
    const Onnx__FunctionProto *fp = fn->proto;
    if ((size_t)n->n_in > fp->n_input)
        return rl_bad(c, n, "it passes %d inputs to function '%s', which takes %zu", n->n_in, fn->name, fp->n_input);
    if ((size_t)n->n_out > fp->n_output)
        return rl_bad(c, n, "it takes %d outputs from function '%s', which gives %zu", n->n_out, fn->name, fp->n_output);
    const char *unbound = first_unbound_name(c, fp);
    if (unbound)
        return rl_bad(c, n, "function '%s' reads '%s', which is neither one of its inputs nor produced in "
                      "its body (a function cannot see its caller's values)", fn->name, unbound);
    Onnx__GraphProto *body = rl_arena_alloc(c->arena, sizeof *body);
    Onnx__NodeProto **nodes = rl_arena_alloc(c->arena, (fp->n_node + 1) * sizeof *nodes);
    if (!body || !nodes) return rl_bad(c, n, "out of memory");
    onnx__graph_proto__init(body);
    for (size_t i = 0; i < fp->n_node; i++)
        if (!(nodes[i] = bind_node(c, n, fp, fp->node[i], i))) return rl_bad(c, n, "out of memory");
    body->name = (char *)fn->name;
    body->node = nodes;
    body->n_node = fp->n_node;
    body->input = name_list(c, fp->input, fp->n_input);
    body->n_input = fp->n_input;
    body->output = name_list(c, fp->output, fp->n_output);
    body->n_output = fp->n_output;
    if (!body->input || !body->output) return rl_bad(c, n, "out of memory");

    /* Omitted optional inputs (and inputs past the call's) stay unknown.
     * The body is inferred through the walker infer.c lends on the context
     * (its only caller), as a control-flow body is: no call back into it. */
    rl_graph *b = c->walkers->body_infer(c, g, n, body, n->n_in, n->inv);
    if (!b) {
        if (!c->err->code[0]) rl_bad(c, n, "could not expand function '%s'", fn->name);
        return RL_FAIL;
    }
    /* An initializer passed in is still a weight inside the body: the
     * layer's weight_bytes must not depend on whether a block was exported
     * as a function or inline. */
    for (int i = 0; i < b->n_inputs && i < n->n_in; i++) {
        const rl_value *src = n->inv[i];
        if (src && (src->kind == RL_VALUE_WEIGHT || src->kind == RL_VALUE_CONSTANT))
            b->values[b->inputs[i]].kind = src->kind;
    }
    n->subgraphs = rl_arena_alloc(c->arena, sizeof *n->subgraphs);
    if (!n->subgraphs) return rl_bad(c, n, "out of memory");
    n->subgraphs[0] = b;
    n->n_subgraphs = 1;
    n->sub_multiplier = 1.0;
    int status = RL_OK;
    for (int i = 0; i < n->n_out; i++) {
        const rl_value *src = i < b->n_outputs ? b->outputs[i] : NULL;
        rl_value *o = rl_out(n, i);
        if (!o) continue;
        if (!src) {
            status = RL_UNKNOWN;
            continue;
        }
        if (rl_set_out_like(c, n, i, src) != RL_OK) return RL_FAIL;
        o->seq_len = src->seq_len;
        if (src->n_known >= 0 && src->type == RL_TYPE_TENSOR)
            rl_set_out_contents(c, n, i, src->n_known, src->ival, src->fval);
        if (src->type == RL_TYPE_TENSOR && !rl_shape_known(src)) status = RL_UNKNOWN;
    }
    return status;
}

static int shape_function_call(rl_ctx *c, rl_graph *g, rl_node *n) {
    const rl_function *fn = rl_function_lookup(c->model, n->domain, n->op_type);
    if (!fn) return rl_bad(c, n, "no model-local function %s.%s", n->domain, n->op_type);
    for (int i = 0; i < n_active; i++) {
        if (active[i] != fn) continue;
        char chain[400];
        size_t len = 0;
        chain[0] = 0;
        for (int k = i; k < n_active && len < sizeof chain; k++)
            len += (size_t)snprintf(chain + len, sizeof chain - len, "%s -> ", active[k]->name);
        if (len < sizeof chain) snprintf(chain + len, sizeof chain - len, "%s", fn->name);
        rl_warn(c, "function_recursion", n->name,
                "model-local function '%s' calls itself (%s): ONNX functions cannot be recursive, so "
                "the call in node '%s' is not expanded and its cost is unknown",
                fn->name, chain, n->name);
        for (int k = 0; k < n->n_out; k++)
            if (rl_out(n, k) && rl_set_out(c, n, k, 0, -1, NULL) != RL_OK) return RL_FAIL;
        return RL_UNKNOWN;
    }
    /* An outermost call: what it expands to (measured when the model was
     * read) must fit what is left of the budget, before any of it is built. */
    if (n_active == 0) {
        int64_t cap = (int64_t)c->model->limits.max_nodes;
        int64_t size = RL_FN_CALL_WEIGHT + c->model->function_sizes[fn - c->model->functions];
        if (size > cap - c->total_nodes) {
            rl_error_set(c->err, "limit_nodes", n->name,
                         "node '%s' calls model-local function '%s', which expands to more than %llu "
                         "nodes with the bodies and functions it holds (each call counts %d); raise "
                         "limits.max_nodes if this model is genuine",
                         n->name, fn->name, (unsigned long long)(cap - c->total_nodes), RL_FN_CALL_WEIGHT);
            return RL_FAIL;
        }
        c->total_nodes += size;
    }
    if (n_active >= RL_FN_MAX_NEST) {
        rl_error_set(c->err, "limit_depth", n->name,
                     "model-local functions are nested more than %d deep (node '%s' calls '%s')",
                     RL_FN_MAX_NEST, n->name, fn->name);
        return RL_FAIL;
    }
    active[n_active++] = fn;
    int r = expand(c, g, n, fn);
    n_active--;
    return r;
}

/* A call whose outputs could not be inferred (a recursive call, an unknown
 * input) has an untrustworthy cost, whatever its body summed to. */
static void cost_function_call(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    if (!n->shape_known || n->n_subgraphs == 0) k->known = false;
}

/* Not in the operator table: infer.c gives it to nodes that call a
 * model-local function. RL_OP_CONTROL: the node costs what its body costs. */
const rl_op_def rl_function_call_op = {
    "(model-local function)", "", 1, 0, shape_function_call, cost_function_call, 0, RL_OP_CONTROL,
    "the sum of the function body's node costs, with the call's inputs and attributes"};
