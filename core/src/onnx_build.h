/* Writing an ONNX graph (onnx_build.c): nodes, initializers, inputs and
 * outputs appended to a GraphProto in the protobuf wire format (pb_write.h),
 * for the graphs rooflens builds itself: a GGUF decoder's skeleton
 * (gguf_decoder.c) and the probe model a fit measures (probes.c).
 *
 * Ownership: an onnx_graph owns its buffers; onnx_graph_free releases
 * them. An allocation that fails marks a buffer (onnx_graph_oom), and
 * later writes are dropped. */
#ifndef ROOFLENS_ONNX_BUILD_H
#define ROOFLENS_ONNX_BUILD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pb_write.h"

/* ONNX enums used by the writers (onnx.proto) */
enum { ONNX_FLOAT = 1, ONNX_INT64 = 7, ONNX_FLOAT16 = 10 };
enum { ATTR_FLOAT = 1, ATTR_INT = 2, ATTR_STRING = 3, ATTR_INTS = 7 };
/* GraphProto's fields for a graph input and output */
enum { ONNX_GRAPH_INPUT = 11, ONNX_GRAPH_OUTPUT = 12 };

typedef struct onnx_graph {
    pb_buf graph;        /* the GraphProto */
    pb_buf node, tmp, tmp2; /* scratch for the message being written */
    uint64_t nodes;      /* nodes written */
} onnx_graph;

/* One attribute: type ATTR_INT (i), ATTR_FLOAT (f), ATTR_STRING (s) or
 * ATTR_INTS (ints[0..n_ints)). */
typedef struct attr {
    const char *name;
    int type;
    int64_t i;
    float f;
    const char *s;
    const int64_t *ints;
    int n_ints;
} attr;

/* Attributes by kind (designated, so that the others stay zero) */
#define ATTR_I(n, v) {.name = (n), .type = ATTR_INT, .i = (v)}
#define ATTR_F(n, v) {.name = (n), .type = ATTR_FLOAT, .f = (v)}
#define ATTR_S(n, v) {.name = (n), .type = ATTR_STRING, .s = (v)}
#define ATTR_IS(n, v, k) {.name = (n), .type = ATTR_INTS, .ints = (v), .n_ints = (k)}

/* A NodeProto of op (domain "" for ONNX's) named name. */
void onnx_node(onnx_graph *G, const char *op, const char *domain, const char *name, const char *const *in, int n_in,
               const char *const *out, int n_out, const attr *at, int n_at);

/* Begins an initializer (a TensorProto: dims outermost first, its element
 * type and name) and returns its message, to which the caller adds its
 * payload or other fields before onnx_initializer_end appends it. */
pb_buf *onnx_initializer_begin(onnx_graph *G, const char *name, const int64_t *dims, int rank, int dtype);
void onnx_initializer_end(onnx_graph *G);

/* A graph input (field ONNX_GRAPH_INPUT) or output (ONNX_GRAPH_OUTPUT) of
 * element type dtype, each dim a number or (dims[i] < 0) the symbolic
 * name params[i]; params is read only for such dims (NULL when none). */
void onnx_io(onnx_graph *G, int field, const char *name, int dtype, int rank, const int64_t *dims,
             const char *const *params);

/* Whether some write ran out of memory. */
bool onnx_graph_oom(const onnx_graph *G);
void onnx_graph_free(onnx_graph *G);
#endif
