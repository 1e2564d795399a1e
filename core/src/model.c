/* From skeleton bytes to a model, and from a GraphProto to an rl_graph:
 * values, nodes, name resolution across scopes, topological order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "function_index.h"
#include "graph.h"
#include "reader.h"

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

/* ------------------------------------------------------- UTF-8 checks -- */
/* ONNX strings are UTF-8 by definition, and names end up in the JSON
 * response; protobuf-c does not check them, so a name with invalid bytes
 * would make the response itself invalid (rl_utf8_bad_at, util.c). */
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

static bool node_utf8_ok(rl_error *e, const Onnx__NodeProto *n, size_t idx, int depth) {
    char where[64];
    snprintf(where, sizeof where, "node #%zu", idx);
    if (!utf8_ok(e, n->name, "a node name", where) || !utf8_ok(e, n->op_type, "an operator type", where) ||
        !utf8_ok(e, n->domain, "a node domain", where))
        return false;
    for (size_t j = 0; j < n->n_input; j++)
        if (!utf8_ok(e, n->input[j], "a node input name", where)) return false;
    for (size_t j = 0; j < n->n_output; j++)
        if (!utf8_ok(e, n->output[j], "a node output name", where)) return false;
    for (size_t k = 0; k < n->n_attribute; k++) {
        const Onnx__AttributeProto *a = n->attribute[k];
        if (!utf8_ok(e, a->name, "an attribute name", where)) return false;
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
            char what[300];
            rl_snprintf_utf8(what, sizeof what, "the tensor of attribute '%.60s' of node '%.200s'",
                             a->name ? a->name : "", node);
            if (!external_ok(e, a->t, what, node) || !sparse_external_ok(e, a->sparse_tensor, what, node))
                return false;
            for (size_t j = 0; j < a->n_tensors; j++)
                if (!external_ok(e, a->tensors[j], what, node)) return false;
            for (size_t j = 0; j < a->n_sparse_tensors; j++)
                if (!sparse_external_ok(e, a->sparse_tensors[j], what, node)) return false;
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

/* ------------------------------------------------------------ the model -- */
static void *pb_alloc(void *data, size_t size) { (void)data; return malloc(size); }
static void pb_free(void *data, void *p) { (void)data; free(p); }

rl_model *rl_reader_finish(rl_reader *r, char **error_json) {
    if (error_json) *error_json = NULL;
    rl_reader_result res;
    if (!r || rl_reader_take(r, &res) != 0) {
        if (error_json) {
            if (r) *error_json = rl_error_json(&res.error);
            else {
                rl_error e = {0};
                rl_error_set(&e, "internal", "", "no reader");
                *error_json = rl_error_json(&e);
            }
        }
        return NULL;
    }
    rl_model *m = calloc(1, sizeof *m);
    if (!m) {
        free(res.skeleton);
        return NULL;
    }
    m->skeleton = res.skeleton;
    m->skeleton_len = res.skeleton_len;
    m->file_bytes = res.file_bytes;
    m->skipped_bytes = res.skipped_bytes;
    m->total_nodes = (int64_t)res.nodes;
    m->limits = res.limits;
    ProtobufCAllocator alloc = {pb_alloc, pb_free, NULL};
    m->proto = onnx__model_proto__unpack(&alloc, m->skeleton_len, m->skeleton);
    if (!m->proto) {
        rl_error_set(&m->error, "bad_protobuf", "",
                     "the file is not a valid ONNX model: its protobuf structure does not decode "
                     "as a ModelProto (is it an ONNX file, and complete?)");
    } else if (!m->proto->graph) {
        rl_error_set(&m->error, "no_graph", "ModelProto.graph",
                     "the model has no graph: nothing to analyse (is this an ONNX model file?)");
    } else if (m->proto->n_opset_import == 0 && m->proto->ir_version >= 3) {
        rl_error_set(&m->error, "no_opset", "ModelProto.opset_import",
                     "the model declares no opset_import, so its operators' versions are "
                     "unknown; re-export it with an opset");
    } else if (m->proto->graph->n_node == 0 && m->proto->graph->n_output == 0) {
        rl_error_set(&m->error, "empty_graph", "main graph",
                     "the model's graph has no nodes and no outputs: there is nothing to analyse "
                     "(was the export interrupted?)");
    } else if (model_utf8_ok(&m->error, m->proto)) {
        model_external_ok(&m->error, m->proto);
    }
    /* The skeleton is no longer needed once decoded. */
    free(m->skeleton);
    m->skeleton = NULL;
    if (m->error.code[0]) {
        if (error_json) *error_json = rl_error_json(&m->error);
        rl_model_free(m);
        return NULL;
    }
    m->n_opsets = (int)m->proto->n_opset_import;
    m->opsets = rl_arena_alloc(&m->arena, (size_t)(m->n_opsets + 1) * sizeof *m->opsets);
    for (int i = 0; i < m->n_opsets; i++) {
        const Onnx__OperatorSetIdProto *o = m->proto->opset_import[i];
        const char *d = o->domain ? o->domain : "";
        if (strcmp(d, "ai.onnx") == 0) d = "";
        m->opsets[i].domain = d;
        m->opsets[i].version = o->has_version ? o->version : 1;
    }
    if (m->n_opsets == 0) { /* IR < 3: opset 1 of the default domain */
        m->opsets[0].domain = "";
        m->opsets[0].version = 1;
        m->n_opsets = 1;
    }
    /* Every node asks whether it calls a local function: the index keeps
     * that O(1); the budget refuses expansions past max_nodes. */
    if (rl_function_index_build(m, &m->error) == 0 && m->n_functions > 0)
        rl_functions_measure(m, &m->error);
    if (m->error.code[0]) {
        if (error_json) *error_json = rl_error_json(&m->error);
        rl_model_free(m);
        return NULL;
    }
    return m;
}

rl_model *rl_model_read(const void *bytes, size_t len, const rl_limits *limits, char **error_json) {
    rl_reader *r = rl_reader_new(limits);
    if (!r) return NULL;
    rl_reader_feed(r, bytes, len);
    rl_model *m = rl_reader_finish(r, error_json);
    rl_reader_free(r);
    return m;
}

void rl_model_free(rl_model *m) {
    if (!m) return;
    if (m->proto) {
        ProtobufCAllocator alloc = {pb_alloc, pb_free, NULL};
        onnx__model_proto__free_unpacked(m->proto, &alloc);
    }
    free(m->skeleton);
    rl_arena_free(&m->arena);
    free(m);
}

int64_t rl_model_opset(const rl_model *m, const char *domain) {
    if (!domain || strcmp(domain, "ai.onnx") == 0) domain = "";
    for (int i = 0; i < m->n_opsets; i++)
        if (strcmp(m->opsets[i].domain, domain) == 0) return m->opsets[i].version;
    return -1;
}

/* ------------------------------------------------------- tensor helpers -- */
static bool tensor_dropped(const Onnx__TensorProto *t) {
    for (size_t i = 0; i < t->base.n_unknown_fields; i++)
        if (t->base.unknown_fields[i].tag == RL_DROP_MARKER_FIELD) return true;
    return false;
}

static bool tensor_external(const Onnx__TensorProto *t) {
    return t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
}

static int64_t read_le(const uint8_t *p, int bytes, bool is_signed) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v |= (uint64_t)p[i] << (8 * i);
    if (is_signed && bytes < 8 && (v >> (8 * bytes - 1)) & 1) v |= ~0ull << (8 * bytes);
    return (int64_t)v;
}

static double half_to_double(uint16_t h, bool bf16) {
    if (bf16) {
        uint32_t u = (uint32_t)h << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    int s = h >> 15, e = (h >> 10) & 31, f = h & 1023;
    double v;
    if (e == 0) v = f / 1024.0 / 16384.0;
    else if (e == 31) v = f ? 0.0 / 0.0 : 1.0 / 0.0;
    else {
        v = (1.0 + f / 1024.0);
        int ex = e - 15;
        while (ex > 0) { v *= 2; ex--; }
        while (ex < 0) { v /= 2; ex++; }
    }
    return s ? -v : v;
}

/* Float contents become integers for shape arithmetic; out-of-range or NaN
 * values (legal in a float tensor) must not be converted directly (undefined
 * behaviour), so they saturate. */
static int64_t sat_i64(double d) {
    if (d != d) return 0;
    if (d >= 9.2233720368547748e18) return INT64_MAX;
    if (d <= -9.2233720368547758e18) return INT64_MIN;
    return (int64_t)d;
}

/* Fill v's known contents from a tensor's kept payload, when complete. */
static void load_contents(rl_arena *a, rl_value *v, const Onnx__TensorProto *t, int64_t numel) {
    v->n_known = -1;
    if (numel < 0 || numel > RL_FOLD_MAX_ELEMS || v->payload_dropped || v->external) return;
    int dt = v->dtype;
    int64_t n = numel;
    int64_t *iv = rl_arena_alloc(a, (size_t)(n ? n : 1) * sizeof *iv);
    double *fv = rl_arena_alloc(a, (size_t)(n ? n : 1) * sizeof *fv);
    if (!iv || !fv) return;
    if (t->has_raw_data) {
        int bits = rl_dtype_bits(dt);
        if (bits < 8 || dt == RL_DT_STRING) return;
        int bytes = bits / 8;
        if ((int64_t)t->raw_data.len != n * bytes) return;
        const uint8_t *p = t->raw_data.data;
        for (int64_t i = 0; i < n; i++, p += bytes) {
            switch (dt) {
            case RL_DT_FLOAT: { float f; memcpy(&f, p, 4); fv[i] = f; iv[i] = sat_i64(f); break; }
            case RL_DT_DOUBLE: { double d; memcpy(&d, p, 8); fv[i] = d; iv[i] = sat_i64(d); break; }
            case RL_DT_FLOAT16: case RL_DT_BFLOAT16:
                fv[i] = half_to_double((uint16_t)read_le(p, 2, false), dt == RL_DT_BFLOAT16);
                iv[i] = sat_i64(fv[i]);
                break;
            case RL_DT_UINT8: case RL_DT_UINT16: case RL_DT_UINT32: case RL_DT_UINT64: case RL_DT_BOOL:
                iv[i] = read_le(p, bytes, false); fv[i] = (double)iv[i]; break;
            case RL_DT_INT8: case RL_DT_INT16: case RL_DT_INT32: case RL_DT_INT64:
                iv[i] = read_le(p, bytes, true); fv[i] = (double)iv[i]; break;
            default: return;
            }
        }
    } else if (t->n_int64_data == (size_t)n && (dt == RL_DT_INT64)) {
        for (int64_t i = 0; i < n; i++) { iv[i] = t->int64_data[i]; fv[i] = (double)iv[i]; }
    } else if (t->n_int32_data == (size_t)n &&
               (dt == RL_DT_INT32 || dt == RL_DT_INT8 || dt == RL_DT_UINT8 || dt == RL_DT_INT16 ||
                dt == RL_DT_UINT16 || dt == RL_DT_BOOL)) {
        for (int64_t i = 0; i < n; i++) { iv[i] = t->int32_data[i]; fv[i] = (double)iv[i]; }
    } else if (t->n_int32_data == (size_t)n && (dt == RL_DT_FLOAT16 || dt == RL_DT_BFLOAT16)) {
        for (int64_t i = 0; i < n; i++) {
            fv[i] = half_to_double((uint16_t)t->int32_data[i], dt == RL_DT_BFLOAT16);
            iv[i] = sat_i64(fv[i]);
        }
    } else if (t->n_float_data == (size_t)n && dt == RL_DT_FLOAT) {
        for (int64_t i = 0; i < n; i++) { fv[i] = t->float_data[i]; iv[i] = sat_i64(fv[i]); }
    } else if (t->n_double_data == (size_t)n && dt == RL_DT_DOUBLE) {
        for (int64_t i = 0; i < n; i++) { fv[i] = t->double_data[i]; iv[i] = sat_i64(fv[i]); }
    } else if (t->n_uint64_data == (size_t)n && (dt == RL_DT_UINT64 || dt == RL_DT_UINT32)) {
        for (int64_t i = 0; i < n; i++) { iv[i] = (int64_t)t->uint64_data[i]; fv[i] = (double)t->uint64_data[i]; }
    } else {
        return;
    }
    v->ival = iv;
    v->fval = fv;
    v->n_known = n;
}

/* An element type this build does not know (ONNX defines 1 to 26; a newer
 * or broken exporter may write others) has no size: the value's bytes count
 * as 0, which the user must be told. */
static void check_dtype(rl_ctx *c, const rl_value *v, int dtype) {
    if (dtype >= 0 && dtype < RL_DT_COUNT) return;
    rl_warn(c, "unknown_dtype", NULL,
            "'%s' has element type %d, which rooflens does not know (ONNX defines 1 to %d): its bytes "
            "count as 0", v->name ? v->name : "", dtype, RL_DT_COUNT - 1);
}

/* Set a value from a TensorProto (initializer or Constant attribute). */
int rl_value_from_tensor(rl_ctx *c, rl_value *v, const Onnx__TensorProto *t, const char *where) {
    v->type = RL_TYPE_TENSOR;
    v->dtype = t->has_data_type ? t->data_type : 0;
    check_dtype(c, v, v->dtype);
    if (t->n_dims > c->model->limits.max_rank) {
        rl_error_set(c->err, "limit_rank", where,
                     "tensor '%.200s' has %zu dimensions, more than the limit of %u; raise "
                     "limits.max_rank if the model is genuine", v->name, t->n_dims,
                     c->model->limits.max_rank);
        return -1;
    }
    v->rank = (int)t->n_dims;
    v->dims = rl_arena_alloc(c->arena, (t->n_dims + 1) * sizeof *v->dims);
    int64_t numel = 1;
    for (size_t i = 0; i < t->n_dims; i++) {
        if (t->dims[i] < 0) {
            rl_error_set(c->err, "bad_dim", where, "tensor '%s' has a negative dimension %lld",
                         v->name, (long long)t->dims[i]);
            return -1;
        }
        v->dims[i] = t->dims[i];
        if (t->dims[i] > RL_MAX_ELEMS || !rl_mul_ok(numel, t->dims[i], &numel) || numel > RL_MAX_ELEMS) {
            rl_error_set(c->err, "dim_overflow", where,
                         "tensor '%s' has more elements than can be counted (the product of its "
                         "dimensions overflows)", v->name);
            return -1;
        }
    }
    v->payload_dropped = tensor_dropped(t);
    v->external = tensor_external(t); /* its references were checked when the model was read */
    load_contents(c->arena, v, t, numel);
    return 0;
}

/* Shape from a ValueInfoProto's type. Fills dims (-1 unknown) and dim_params. */
int rl_value_from_type(rl_ctx *c, rl_value *v, const Onnx__TypeProto *tp, const char *where,
                       bool declared_only) {
    if (!tp) return 0;
    const Onnx__TypeProto__Tensor *tt = NULL;
    if (tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) tt = tp->tensor_type;
    else if (tp->value_case == ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE)
        tt = (const Onnx__TypeProto__Tensor *)tp->sparse_tensor_type;
    else {
        int type = tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE ? RL_TYPE_SEQUENCE
                   : tp->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE ? RL_TYPE_OPTIONAL
                   : tp->value_case == ONNX__TYPE_PROTO__VALUE_MAP_TYPE ? RL_TYPE_MAP
                                                                         : RL_TYPE_OTHER;
        /* A sequence or optional value carries its element's type and shape
         * (what SequenceAt or OptionalGetElement will produce); an optional
         * sequence is treated as the sequence. */
        const Onnx__TypeProto *elem =
            type == RL_TYPE_SEQUENCE && tp->sequence_type   ? tp->sequence_type->elem_type
            : type == RL_TYPE_OPTIONAL && tp->optional_type ? tp->optional_type->elem_type
                                                            : NULL;
        int rc = 0;
        if (elem && (elem->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
                     (type == RL_TYPE_OPTIONAL && elem->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE)))
            rc = rl_value_from_type(c, v, elem, where, declared_only);
        if (!declared_only && !(elem && elem->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE)) v->type = type;
        return rc;
    }
    if (!tt) return 0;
    int dtype = tt->has_elem_type ? tt->elem_type : 0;
    check_dtype(c, v, dtype);
    if (declared_only) v->declared_dtype = dtype;
    else v->dtype = dtype;
    if (!tt->shape) {
        if (declared_only) v->declared_rank = -1;
        return 0;
    }
    size_t rank = tt->shape->n_dim;
    if (rank > c->model->limits.max_rank) {
        rl_error_set(c->err, "limit_rank", where, "'%.200s' has %zu dimensions, more than the limit of %u; raise "
                     "limits.max_rank if the model is genuine", v->name, rank, c->model->limits.max_rank);
        return -1;
    }
    int64_t *dims = rl_arena_alloc(c->arena, (rank + 1) * sizeof *dims);
    const char **params = declared_only ? NULL : rl_arena_alloc(c->arena, (rank + 1) * sizeof *params);
    for (size_t i = 0; i < rank; i++) {
        const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
        dims[i] = -1;
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
            if (d->dim_value < 0) {
                if (declared_only) continue;
                rl_error_set(c->err, "bad_dim", where, "'%s' declares a negative dimension %lld",
                             v->name, (long long)d->dim_value);
                return -1;
            }
            if (d->dim_value > RL_MAX_ELEMS) {
                if (declared_only) continue;
                rl_error_set(c->err, "dim_overflow", where,
                             "'%s' declares dimension %lld, too large to be real", v->name,
                             (long long)d->dim_value);
                return -1;
            }
            dims[i] = d->dim_value;
        } else if (params && d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM) {
            params[i] = d->dim_param;
        }
    }
    if (!rl_dims_countable((int)rank, dims)) {
        /* each dim fits, their product does not: [2^40, 2^40] */
        if (declared_only) {
            v->declared_rank = -1; /* a declaration no tensor can have is no help */
            return 0;
        }
        rl_dims_overflow(c, v, (int)rank, dims, where, "value");
        return -1;
    }
    if (declared_only) {
        v->declared_rank = (int)rank;
        v->declared_dims = dims;
    } else {
        v->rank = (int)rank;
        v->dims = dims;
        v->dim_params = params;
    }
    return 0;
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

rl_graph *rl_graph_build(rl_ctx *c, const Onnx__GraphProto *gp, rl_graph *parent, int depth,
                         const char *where) {
    rl_arena *a = c->arena;
    if ((uint32_t)depth > c->model->limits.max_depth) {
        rl_error_set(c->err, "limit_depth", where, "subgraphs are nested more than %u deep; raise limits.max_depth if the "
                     "model is genuine",
                     c->model->limits.max_depth);
        return NULL;
    }
    rl_graph *g = rl_arena_alloc(a, sizeof *g);
    if (!g) goto oom;
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
    g->names = rl_map_new(a, expected);
    if (!g->names) goto oom;
    char label[96];

    /* initializers */
    for (size_t i = 0; i < gp->n_initializer; i++) {
        const Onnx__TensorProto *t = gp->initializer[i];
        const char *nm = t->name ? t->name : "";
        int vi = add_value(c, g, nm, RL_VALUE_WEIGHT);
        if (vi < 0) goto oom;
        if (!rl_map_put(g->names, nm, vi)) {
            rl_error_set(c->err, "duplicate_name", where, "two initializers are named '%s'", nm);
            return NULL;
        }
        if (rl_value_from_tensor(c, &g->values[vi], t, where)) return NULL;
    }
    for (size_t i = 0; i < gp->n_sparse_initializer; i++) {
        const Onnx__SparseTensorProto *s = gp->sparse_initializer[i];
        const char *nm = (s->values && s->values->name) ? s->values->name : "";
        int vi = add_value(c, g, nm, RL_VALUE_WEIGHT);
        if (vi < 0) goto oom;
        rl_map_put(g->names, nm, vi);
        rl_value *v = &g->values[vi];
        v->dtype = (s->values && s->values->has_data_type) ? s->values->data_type : 0;
        check_dtype(c, v, v->dtype);
        /* the same checks as a dense initializer: operator code keeps dims in
         * fixed arrays of RL_MAX_RANK_HARD */
        if (s->n_dims > c->model->limits.max_rank) {
            rl_error_set(c->err, "limit_rank", where,
                         "sparse initializer '%.200s' has %zu dimensions, more than the limit of "
                         "%u; raise limits.max_rank if the model is genuine",
                         nm, s->n_dims, c->model->limits.max_rank);
            return NULL;
        }
        v->rank = (int)s->n_dims;
        v->dims = rl_arena_alloc(a, (s->n_dims + 1) * sizeof *v->dims);
        if (!v->dims) goto oom;
        int64_t numel = 1;
        for (size_t d = 0; d < s->n_dims; d++) {
            if (s->dims[d] < 0) {
                rl_error_set(c->err, "bad_dim", where,
                             "sparse initializer '%.200s' has a negative dimension %lld", nm,
                             (long long)s->dims[d]);
                return NULL;
            }
            if (s->dims[d] > RL_MAX_ELEMS || !rl_mul_ok(numel, s->dims[d], &numel) || numel > RL_MAX_ELEMS) {
                rl_error_set(c->err, "dim_overflow", where,
                             "sparse initializer '%.200s' has more elements than can be counted",
                             nm);
                return NULL;
            }
            v->dims[d] = s->dims[d];
        }
    }
    /* inputs (those that are not initializers; old models list both) */
    g->inputs = rl_arena_alloc(a, (gp->n_input + 1) * sizeof *g->inputs);
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
            return NULL;
        }
        int vi = add_value(c, g, nm, RL_VALUE_INPUT);
        if (vi < 0) goto oom;
        if (!rl_map_put(g->names, nm, vi)) {
            rl_error_set(c->err, "duplicate_name", where, "two graph inputs are named '%s'", nm);
            return NULL;
        }
        if (rl_value_from_type(c, &g->values[vi], vi_p->type, where, false)) return NULL;
        g->inputs[g->n_inputs++] = vi;
    }
    /* nodes and their outputs */
    g->n_nodes = (int)gp->n_node;
    g->nodes = rl_arena_alloc(a, (gp->n_node + 1) * sizeof *g->nodes);
    if (!g->nodes) goto oom;
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *np = gp->node[i];
        rl_node *n = &g->nodes[i];
        n->index = (int)i;
        n->proto = np;
        n->op_type = np->op_type ? np->op_type : "";
        n->domain = np->domain ? np->domain : "";
        if (strcmp(n->domain, "ai.onnx") == 0) n->domain = "";
        n->name = (np->name && np->name[0]) ? np->name : rl_arena_strdup(a, node_label(np, i, label, sizeof label));
        if (!n->op_type[0]) {
            /* an empty NodeProto (or a node that lost its type): no operator to analyse */
            rl_error_set(c->err, "bad_node", n->name,
                         "node '%s' (#%zu in %s) has no op_type: every ONNX node names its operator; "
                         "the file is corrupted or was written by a broken exporter",
                         n->name, i, where);
            return NULL;
        }
        n->n_out = (int)np->n_output;
        n->out = rl_arena_alloc(a, (np->n_output + 1) * sizeof *n->out);
        if (!n->out) goto oom;
        for (size_t j = 0; j < np->n_output; j++) {
            const char *nm = np->output[j];
            if (!nm || !nm[0]) {
                n->out[j] = -1;
                continue;
            }
            int vi = add_value(c, g, nm, RL_VALUE_ACTIVATION);
            if (vi < 0) goto oom;
            if (!rl_map_put(g->names, nm, vi)) {
                rl_error_set(c->err, "duplicate_output", n->name,
                             "'%s' is produced twice (by node '%s' and by another node, initializer "
                             "or input): an ONNX graph assigns each name once",
                             nm, n->name);
                return NULL;
            }
            g->values[vi].producer = (int)i;
            n->out[j] = vi;
        }
    }
    /* node inputs, explicit and implicit (read by subgraph bodies) */
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *np = gp->node[i];
        rl_node *n = &g->nodes[i];
        name_list outer = {0};
        for (size_t k = 0; k < np->n_attribute; k++) {
            const Onnx__AttributeProto *at = np->attribute[k];
            if (at->g) collect_outer_names(a, at->g, &outer, depth + 1);
            for (size_t gi = 0; gi < at->n_graphs; gi++) collect_outer_names(a, at->graphs[gi], &outer, depth + 1);
        }
        n->n_in = (int)np->n_input;
        n->n_implicit = outer.n;
        n->in = rl_arena_alloc(a, (np->n_input + (size_t)outer.n + 1) * sizeof *n->in);
        n->inv = rl_arena_alloc(a, (np->n_input + (size_t)outer.n + 1) * sizeof *n->inv);
        n->outv = rl_arena_alloc(a, (np->n_output + 1) * sizeof *n->outv);
        if (!n->in || !n->inv || !n->outv) goto oom;
        for (int j = 0; j < n->n_out; j++) n->outv[j] = n->out[j] >= 0 ? &g->values[n->out[j]] : NULL;
        for (int j = 0; j < n->n_in + n->n_implicit; j++) {
            const char *nm = j < n->n_in ? np->input[j] : outer.names[j - n->n_in];
            if (!nm || !nm[0]) {
                n->in[j] = -1;
                continue;
            }
            rl_graph *owner = NULL;
            rl_value *v = rl_graph_lookup(g, nm, &owner);
            if (!v) {
                if (j >= n->n_in) { /* a body reading a name nobody defines: caught in the body */
                    n->in[j] = -1;
                    continue;
                }
                rl_error_set(c->err, "dangling_input", n->name,
                             "node '%s' (%s) reads '%s', which no node produces and which is "
                             "neither a graph input nor an initializer",
                             n->name, n->op_type, nm);
                return NULL;
            }
            n->inv[j] = v;
            if (owner != g) {
                /* from an enclosing scope: ordering there is the parent's business */
                v->consumers++;
                n->in[j] = -1;
                continue;
            }
            int vi = (int)(v - g->values);
            if (g->values[vi].producer == (int)i) {
                rl_error_set(c->err, "cycle", n->name, "node '%s' (%s) reads its own output '%s'",
                             n->name, n->op_type, nm);
                return NULL;
            }
            g->values[vi].consumers++;
            n->in[j] = vi;
        }
    }
    /* outputs */
    g->outputs = rl_arena_alloc(a, (gp->n_output + 1) * sizeof *g->outputs);
    for (size_t i = 0; i < gp->n_output; i++) {
        const char *nm = gp->output[i]->name ? gp->output[i]->name : "";
        rl_graph *owner = NULL;
        rl_value *v = rl_graph_lookup(g, nm, &owner);
        if (!v) {
            rl_error_set(c->err, "dangling_output", where,
                         "graph output '%s' is produced by no node, input or initializer", nm);
            return NULL;
        }
        g->outputs[g->n_outputs++] = v;
        if (owner != g) continue;
        v->is_graph_output = true;
        if (rl_value_from_type(c, v, gp->output[i]->type, where, true)) return NULL;
    }
    /* value_info: what the model says about intermediates, checked later */
    for (size_t i = 0; i < gp->n_value_info; i++) {
        const char *nm = gp->value_info[i]->name ? gp->value_info[i]->name : "";
        int vi = rl_map_get(g->names, nm);
        if (vi < 0) continue;
        rl_value *v = &g->values[vi];
        if (v->kind != RL_VALUE_ACTIVATION) continue;
        if (rl_value_from_type(c, v, gp->value_info[i]->type, where, true)) return NULL;
        if (gp->value_info[i]->type && v->type == RL_TYPE_TENSOR &&
            gp->value_info[i]->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
            rl_value_from_type(c, v, gp->value_info[i]->type, where, false);
    }
    /* topological order (Kahn) over same-graph edges */
    int nn = g->n_nodes;
    int *indeg = rl_arena_alloc(a, (size_t)(nn + 1) * sizeof *indeg);
    int *head = rl_arena_alloc(a, (size_t)(nn + 1) * sizeof *head);
    int n_edges = 0;
    for (int i = 0; i < nn; i++) n_edges += g->nodes[i].n_in + g->nodes[i].n_implicit;
    int *enext = rl_arena_alloc(a, (size_t)(n_edges + 1) * sizeof *enext);
    int *eto = rl_arena_alloc(a, (size_t)(n_edges + 1) * sizeof *eto);
    g->order = rl_arena_alloc(a, (size_t)(nn + 1) * sizeof *g->order);
    if (!indeg || !head || !enext || !eto || !g->order) goto oom;
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
                return NULL;
            }
    }
    return g;
oom:
    rl_error_set(c->err, "out_of_memory", where, "out of memory while building the graph");
    return NULL;
}
