/* The model: from the reader's skeleton to a decoded, checked rl_model
 * (rl_reader_finish, rl_model_read, rl_checkpoint_finish), its opsets,
 * and its lifetime.
 *
 * rl_reader_finish is part of the public reader API (rooflens.h) but lives
 * here, in the model layer, not in reader.c: it builds a model, and the
 * reader sits below the model (the model consumes the reader's skeleton and
 * marker, reader.h); a reader that built models would make the two depend
 * on each other. reader.c stays the wire walker that knows no model. */
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "function_index.h"
#include "model.h"
#include "model_check.h"
#include "reader.h"

/* The decoded skeleton lives in the model's arena: its thousands of small
 * messages and strings then cost no malloc header each and die together
 * with the model (a BERT-Large skeleton: about 0.6 MB of small blocks and
 * 0.17 MB of headers as separate mallocs). Freeing one piece is a no-op. */
static void *pb_alloc(void *arena, size_t size) { return rl_arena_alloc(arena, size); }
static void pb_free(void *arena, void *p) { (void)arena, (void)p; }

/* The reader's hand-over, or its error as JSON; NULL model either way when
 * the reader failed. */
static bool take_skeleton(rl_reader *r, rl_reader_result *res, char **error_json) {
    if (r && rl_reader_take(r, res) == 0) return true;
    if (error_json) {
        if (r) *error_json = rl_error_json(&res->error);
        else {
            rl_error e = {0};
            rl_error_set(&e, "internal", "", "no reader");
            *error_json = rl_error_json(&e);
        }
    }
    return false;
}

/* Decode the skeleton into m->proto and check what the decoder does not;
 * the skeleton bytes are freed either way. Errors go to m->error. */
static void decode_skeleton(rl_model *m) {
    ProtobufCAllocator alloc = {pb_alloc, pb_free, &m->arena};
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
    } else {
        rl_model_check(&m->error, m->proto);
    }
    /* The skeleton is no longer needed once decoded. */
    free(m->skeleton);
    m->skeleton = NULL;
}

/* The opsets the model imports, "ai.onnx" spelled "". -1 when out of memory. */
static int read_opsets(rl_model *m) {
    m->n_opsets = (int)m->proto->n_opset_import;
    m->opsets = rl_arena_alloc(&m->arena, (size_t)(m->n_opsets + 1) * sizeof *m->opsets);
    if (!m->opsets) {
        rl_error_set(&m->error, "out_of_memory", "", "out of memory while reading the model's opsets");
        return -1;
    }
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
    return 0;
}

/* The model of a reader's (or a checkpoint's) hand-over, or NULL with
 * *error_json set; the skeleton is the model's or freed. */
static rl_model *model_from(rl_reader_result *res, char **error_json) {
    rl_model *m = calloc(1, sizeof *m);
    if (!m) {
        free(res->skeleton);
        return NULL;
    }
    m->skeleton = res->skeleton;
    m->skeleton_len = res->skeleton_len;
    m->file_bytes = res->file_bytes;
    m->skipped_bytes = res->skipped_bytes;
    m->total_nodes = (int64_t)res->nodes;
    m->limits = res->limits;
    decode_skeleton(m);
    /* Every node asks whether it calls a local function: the index keeps
     * that O(1); the budget refuses expansions past max_nodes. */
    if (!m->error.code[0] && read_opsets(m) == 0 && rl_function_index_build(m, &m->error) == 0 &&
        m->n_functions > 0)
        rl_functions_measure(m, &m->error);
    if (m->error.code[0]) {
        if (error_json) *error_json = rl_error_json(&m->error);
        rl_model_free(m);
        return NULL;
    }
    return m;
}

rl_model *rl_reader_finish(rl_reader *r, char **error_json) {
    if (error_json) *error_json = NULL;
    rl_reader_result res;
    if (!take_skeleton(r, &res, error_json)) return NULL;
    return model_from(&res, error_json);
}

rl_model *rl_checkpoint_finish(rl_checkpoint *c, char **error_json) {
    if (error_json) *error_json = NULL;
    rl_reader_result res;
    if (rl_checkpoint_take(c, &res)) {
        if (error_json) *error_json = rl_error_json(&res.error);
        return NULL;
    }
    return model_from(&res, error_json);
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
    free(m->skeleton); /* m->proto lives in the arena */
    rl_arena_free(&m->arena);
    free(m);
}

int64_t rl_model_opset(const rl_model *m, const char *domain) {
    if (!domain || strcmp(domain, "ai.onnx") == 0) domain = "";
    for (int i = 0; i < m->n_opsets; i++)
        if (strcmp(m->opsets[i].domain, domain) == 0) return m->opsets[i].version;
    return -1;
}
