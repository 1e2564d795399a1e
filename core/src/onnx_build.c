/* Writing an ONNX graph (onnx_build.h). */
#include "onnx_build.h"

void onnx_node(onnx_graph *G, const char *op, const char *domain, const char *name, const char *const *in, int n_in,
               const char *const *out, int n_out, const attr *at, int n_at) {
    pb_buf *b = &G->node;
    for (int i = 0; i < n_in; i++) pb_str_field(b, 1, in[i] ? in[i] : "");
    for (int i = 0; i < n_out; i++) pb_str_field(b, 2, out[i] ? out[i] : "");
    pb_str_field(b, 3, name);
    pb_str_field(b, 4, op);
    for (int i = 0; i < n_at; i++) {
        pb_buf *t = &G->tmp;
        pb_str_field(t, 1, at[i].name);
        if (at[i].type == ATTR_FLOAT) pb_float_field(t, 2, at[i].f);
        else if (at[i].type == ATTR_INT) pb_varint_field(t, 3, (uint64_t)at[i].i);
        else if (at[i].type == ATTR_INTS)
            for (int k = 0; k < at[i].n_ints; k++) pb_varint_field(t, 8, (uint64_t)at[i].ints[k]);
        else pb_str_field(t, 4, at[i].s);
        pb_varint_field(t, 20, (uint64_t)at[i].type);
        pb_msg_field(b, 5, t);
    }
    if (domain[0]) pb_str_field(b, 7, domain);
    pb_msg_field(&G->graph, 1, b);
    G->nodes++;
}

pb_buf *onnx_initializer_begin(onnx_graph *G, const char *name, const int64_t *dims, int rank, int dtype) {
    pb_buf *t = &G->tmp2;
    for (int i = 0; i < rank; i++) pb_varint_field(t, 1, (uint64_t)dims[i]);
    pb_varint_field(t, 2, (uint64_t)dtype);
    pb_str_field(t, 8, name);
    return t;
}

void onnx_initializer_end(onnx_graph *G) { pb_msg_field(&G->graph, 5, &G->tmp2); }

void onnx_io(onnx_graph *G, int field, const char *name, int dtype, int rank, const int64_t *dims,
             const char *const *params) {
    pb_buf *shape = &G->tmp, *t = &G->tmp2;
    pb_buf dim = {0}, tensor = {0}, type = {0};
    for (int i = 0; i < rank; i++) {
        if (dims[i] >= 0) pb_varint_field(&dim, 1, (uint64_t)dims[i]);
        else pb_str_field(&dim, 2, params[i]);
        pb_msg_field(shape, 1, &dim);
    }
    pb_varint_field(&tensor, 1, (uint64_t)dtype);
    pb_msg_field(&tensor, 2, shape);
    pb_msg_field(&type, 1, &tensor);
    pb_str_field(t, 1, name);
    pb_msg_field(t, 2, &type);
    pb_msg_field(&G->graph, (uint32_t)field, t);
    if (dim.oom || tensor.oom || type.oom) G->graph.oom = true;
    pb_free(&dim);
    pb_free(&tensor);
    pb_free(&type);
}

bool onnx_graph_oom(const onnx_graph *G) { return G->graph.oom || G->node.oom || G->tmp.oom || G->tmp2.oom; }

void onnx_graph_free(onnx_graph *G) {
    pb_free(&G->graph), pb_free(&G->node), pb_free(&G->tmp), pb_free(&G->tmp2);
}
