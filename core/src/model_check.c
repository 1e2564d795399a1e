/* Checks of a decoded model (model_check.h): valid UTF-8 names, and
 * external data references that stay inside the model's folder. */
#include <stdio.h>
#include <string.h>

#include "model_check.h"

/* ------------------------------------------------------- UTF-8 checks -- */
/* ONNX strings are UTF-8 by definition, and names end up in the JSON
 * response; protobuf-c does not check them, so a name with invalid bytes
 * would make the response itself invalid (rl_utf8_bad_at, utf8.c). */
static bool utf8_ok(rl_error *e, const char *s, const char *what, const char *where) {
    if (!s) return true;
    long at = rl_utf8_bad_at(s);
    if (at < 0) return true;
    rl_error_set(e, "bad_utf8", where,
                 "%s is not valid UTF-8 (byte %ld): ONNX names are UTF-8 text; the file is "
                 "corrupted or was written by a broken exporter",
                 what, at);
    return false;
}

static bool type_utf8_ok(rl_error *e, const Onnx__TypeProto *tp, const char *where, int depth) {
    if (!tp || depth > 1000) return true;
    const Onnx__TensorShapeProto *sh = NULL;
    if (tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && tp->tensor_type) sh = tp->tensor_type->shape;
    if (tp->value_case == ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE && tp->sparse_tensor_type)
        sh = tp->sparse_tensor_type->shape;
    for (size_t i = 0; sh && i < sh->n_dim; i++)
        if (sh->dim[i]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
            !utf8_ok(e, sh->dim[i]->dim_param, "a symbolic dimension name", where))
            return false;
    if (!utf8_ok(e, tp->denotation, "a type denotation", where)) return false;
    if (tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE && tp->sequence_type)
        return type_utf8_ok(e, tp->sequence_type->elem_type, where, depth + 1);
    if (tp->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE && tp->optional_type)
        return type_utf8_ok(e, tp->optional_type->elem_type, where, depth + 1);
    if (tp->value_case == ONNX__TYPE_PROTO__VALUE_MAP_TYPE && tp->map_type)
        return type_utf8_ok(e, tp->map_type->value_type, where, depth + 1);
    return true;
}

static bool graph_utf8_ok(rl_error *e, const Onnx__GraphProto *g, int depth);

/* A node's strings; "node #i" is written only for an error (formatting it for
 * every node of a big graph cost more than the checks). */
static bool node_text_ok(rl_error *e, const char *s, const char *what, size_t idx) {
    if (!s || rl_utf8_bad_at(s) < 0) return true;
    char where[64];
    snprintf(where, sizeof where, "node #%zu", idx);
    return utf8_ok(e, s, what, where);
}

static bool node_utf8_ok(rl_error *e, const Onnx__NodeProto *n, size_t idx, int depth) {
    if (!node_text_ok(e, n->name, "a node name", idx) || !node_text_ok(e, n->op_type, "an operator type", idx) ||
        !node_text_ok(e, n->domain, "a node domain", idx))
        return false;
    for (size_t j = 0; j < n->n_input; j++)
        if (!node_text_ok(e, n->input[j], "a node input name", idx)) return false;
    for (size_t j = 0; j < n->n_output; j++)
        if (!node_text_ok(e, n->output[j], "a node output name", idx)) return false;
    for (size_t k = 0; k < n->n_attribute; k++) {
        const Onnx__AttributeProto *a = n->attribute[k];
        if (!node_text_ok(e, a->name, "an attribute name", idx)) return false;
        if (a->g && !graph_utf8_ok(e, a->g, depth + 1)) return false;
        for (size_t gi = 0; gi < a->n_graphs; gi++)
            if (!graph_utf8_ok(e, a->graphs[gi], depth + 1)) return false;
    }
    return true;
}

static bool graph_utf8_ok(rl_error *e, const Onnx__GraphProto *g, int depth) {
    if (!g || depth > 1000) return true;
    if (!utf8_ok(e, g->name, "the graph name", "graph")) return false;
    for (size_t i = 0; i < g->n_initializer; i++)
        if (!utf8_ok(e, g->initializer[i]->name, "an initializer name", "initializer")) return false;
    for (size_t i = 0; i < g->n_sparse_initializer; i++)
        if (g->sparse_initializer[i]->values &&
            !utf8_ok(e, g->sparse_initializer[i]->values->name, "an initializer name", "initializer"))
            return false;
    const Onnx__ValueInfoProto *const *lists[3] = {(const Onnx__ValueInfoProto *const *)g->input,
                                                   (const Onnx__ValueInfoProto *const *)g->output,
                                                   (const Onnx__ValueInfoProto *const *)g->value_info};
    size_t counts[3] = {g->n_input, g->n_output, g->n_value_info};
    static const char *const what[3] = {"graph input", "graph output", "value_info"};
    for (int l = 0; l < 3; l++)
        for (size_t i = 0; i < counts[l]; i++) {
            if (!utf8_ok(e, lists[l][i]->name, "a value name", what[l])) return false;
            if (!type_utf8_ok(e, lists[l][i]->type, what[l], 0)) return false;
        }
    for (size_t i = 0; i < g->n_node; i++)
        if (!node_utf8_ok(e, g->node[i], i, depth)) return false;
    return true;
}

static bool model_utf8_ok(rl_error *e, const Onnx__ModelProto *m) {
    if (!utf8_ok(e, m->producer_name, "the producer name", "ModelProto") ||
        !utf8_ok(e, m->producer_version, "the producer version", "ModelProto"))
        return false;
    for (size_t i = 0; i < m->n_opset_import; i++)
        if (!utf8_ok(e, m->opset_import[i]->domain, "an opset domain", "ModelProto.opset_import"))
            return false;
    for (size_t i = 0; i < m->n_functions; i++) {
        const Onnx__FunctionProto *f = m->functions[i];
        if (!utf8_ok(e, f->name, "a function name", "function") ||
            !utf8_ok(e, f->domain, "a function domain", "function"))
            return false;
        for (size_t j = 0; j < f->n_input; j++)
            if (!utf8_ok(e, f->input[j], "a function input name", "function")) return false;
        for (size_t j = 0; j < f->n_output; j++)
            if (!utf8_ok(e, f->output[j], "a function output name", "function")) return false;
        for (size_t j = 0; j < f->n_node; j++)
            if (!node_utf8_ok(e, f->node[j], j, 0)) return false;
    }
    return graph_utf8_ok(e, m->graph, 0);
}

/* ------------------------------------------------------ external data -- */
/* rooflens never opens external data files, but a model that points its
 * weights outside its own folder (an absolute path, a "..") is hostile or
 * broken, and a tool that does load the data would read arbitrary files: the
 * ONNX spec requires a relative path under the model's directory. Offsets and
 * lengths are byte counts within int64 (their sum too). Every tensor of the
 * model is checked when it is read, wherever it sits: initializers, sparse
 * initializers, a Constant's value or sparse_value, TENSOR(S) and
 * SPARSE_TENSOR(S) attributes of any node, in bodies and functions alike.
 * (No file is opened, so a file too short for offset + length cannot be
 * told; a tool that loads the data must check that itself.) */
static bool byte_count(const char *p, uint64_t *out) {
    uint64_t v = 0;
    if (!*p) return false;
    for (; *p; p++) {
        if (*p < '0' || *p > '9' || v > (uint64_t)(INT64_MAX - (*p - '0')) / 10) return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    *out = v;
    return true;
}

static bool external_ok(rl_error *e, const Onnx__TensorProto *t, const char *what, const char *where) {
    if (!t || !t->has_data_location || t->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
        return true;
    const char *name = t->name ? t->name : "";
    const char *loc = NULL;
    uint64_t offset = 0, length = 0;
    for (size_t i = 0; i < t->n_external_data; i++) {
        const Onnx__StringStringEntryProto *kv = t->external_data[i];
        if (!kv->key || !kv->value) continue;
        if (rl_utf8_bad_at(kv->key) >= 0 || rl_utf8_bad_at(kv->value) >= 0) {
            rl_error_set(e, "bad_external_data", where,
                         "%s '%.200s' describes its external data with text that is not valid UTF-8; "
                         "the file is corrupted or was written by a broken exporter", what, name);
            return false;
        }
        if (strcmp(kv->key, "location") == 0) loc = kv->value;
        bool is_offset = strcmp(kv->key, "offset") == 0;
        if (is_offset || strcmp(kv->key, "length") == 0) {
            if (!byte_count(kv->value, is_offset ? &offset : &length)) {
                rl_error_set(e, "bad_external_data", where,
                             "%s '%.200s' gives its external data %s as '%.40s', which is not a byte "
                             "count from 0 to 2^63-1", what, name, kv->key, kv->value);
                return false;
            }
        }
    }
    if (offset > (uint64_t)INT64_MAX - length) {
        rl_error_set(e, "bad_external_data", where,
                     "%s '%.200s' gives its external data offset %llu and length %llu, which end past "
                     "2^63-1 bytes", what, name, (unsigned long long)offset, (unsigned long long)length);
        return false;
    }
    if (!loc || !loc[0]) {
        rl_error_set(e, "bad_external_data", where,
                     "%s '%.200s' says its data is external but names no file (external_data has no "
                     "\"location\")", what, name);
        return false;
    }
    bool absolute = loc[0] == '/' || loc[0] == '\\' ||
                    (((loc[0] | 0x20) >= 'a' && (loc[0] | 0x20) <= 'z') && loc[1] == ':');
    bool up = false;
    for (const char *p = loc; *p;) {
        size_t n = strcspn(p, "/\\");
        if (n == 2 && p[0] == '.' && p[1] == '.') up = true;
        p += n;
        if (*p) p++;
    }
    if (absolute || up) {
        rl_error_set(e, "bad_external_data", where,
                     "%s '%.200s' keeps its data in '%.200s', %s: external data must be a relative "
                     "path inside the model's folder; re-save the model with its data next to it",
                     what, name, loc, absolute ? "an absolute path" : "outside the model's folder (\"..\")");
        return false;
    }
    return true;
}

static bool sparse_external_ok(rl_error *e, const Onnx__SparseTensorProto *sp, const char *what, const char *where) {
    return !sp || (external_ok(e, sp->values, what, where) && external_ok(e, sp->indices, what, where));
}

static bool graph_external_ok(rl_error *e, const Onnx__GraphProto *g, int depth);

static bool nodes_external_ok(rl_error *e, Onnx__NodeProto *const *nodes, size_t count, const char *where, int depth) {
    for (size_t i = 0; i < count; i++) {
        const char *node = nodes[i]->name && nodes[i]->name[0] ? nodes[i]->name : where;
        for (size_t k = 0; k < nodes[i]->n_attribute; k++) {
            const Onnx__AttributeProto *a = nodes[i]->attribute[k];
            /* the error's words are written only for an attribute that holds
             * a tensor (most hold a number or a list) */
            if (a->t || a->sparse_tensor || a->n_tensors || a->n_sparse_tensors) {
                char what[300];
                rl_snprintf_utf8(what, sizeof what, "the tensor of attribute '%.60s' of node '%.200s'",
                                 a->name ? a->name : "", node);
                if (!external_ok(e, a->t, what, node) || !sparse_external_ok(e, a->sparse_tensor, what, node))
                    return false;
                for (size_t j = 0; j < a->n_tensors; j++)
                    if (!external_ok(e, a->tensors[j], what, node)) return false;
                for (size_t j = 0; j < a->n_sparse_tensors; j++)
                    if (!sparse_external_ok(e, a->sparse_tensors[j], what, node)) return false;
            }
            if (a->g && !graph_external_ok(e, a->g, depth + 1)) return false;
            for (size_t j = 0; j < a->n_graphs; j++)
                if (!graph_external_ok(e, a->graphs[j], depth + 1)) return false;
        }
    }
    return true;
}

static bool graph_external_ok(rl_error *e, const Onnx__GraphProto *g, int depth) {
    if (!g || depth > 1024) return true; /* nesting is bounded by limits.max_depth already */
    for (size_t i = 0; i < g->n_initializer; i++)
        if (!external_ok(e, g->initializer[i], "initializer", "initializer")) return false;
    for (size_t i = 0; i < g->n_sparse_initializer; i++)
        if (!sparse_external_ok(e, g->sparse_initializer[i], "sparse initializer", "sparse_initializer")) return false;
    return nodes_external_ok(e, g->node, g->n_node, "node attribute", depth);
}

static bool model_external_ok(rl_error *e, const Onnx__ModelProto *m) {
    for (size_t i = 0; i < m->n_functions; i++)
        if (!nodes_external_ok(e, m->functions[i]->node, m->functions[i]->n_node, "function", 0)) return false;
    return graph_external_ok(e, m->graph, 0);
}

bool rl_model_check(rl_error *e, const Onnx__ModelProto *m) {
    return model_utf8_ok(e, m) && model_external_ok(e, m);
}
