/* The probe model (rl_probe_model, rooflens.h): dense products as a CNN and
 * a transformer run them, side by side in one ONNX graph, each reading its
 * own graph input so that no runtime can fold it away. Measured beside a
 * user's models and given to the fit as a probe (rl_fit_input.probe), it
 * sets the product class the models have no kernel of (docs/model.md
 * §12.5). The shapes are fixed, each from the middle of a common network;
 * grouped and depthwise convolutions are left out, their time resting on
 * the cost per group and the depthwise class, which a probe does not set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_build.h"
#include "rooflens.h"

/* The weights' values: a fixed sequence (a 32-bit LCG) in [-0.05, 0.05).
 * A product's time does not depend on them; a runtime must only not see
 * zeros it could skip. */
static float next_weight(uint32_t *state) {
    *state = *state * 1664525u + 1013904223u;
    return (float)((double)(*state >> 8) / (double)(1u << 24) - 0.5) * 0.1f;
}

static void weights(onnx_graph *G, const char *name, const int64_t *dims, int rank, uint32_t *state) {
    size_t n = 1;
    for (int i = 0; i < rank; i++) n *= (size_t)dims[i];
    uint8_t *raw = malloc(4 * n);
    if (!raw) {
        G->graph.oom = true;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        float f = next_weight(state);
        uint32_t u;
        memcpy(&u, &f, 4);
        for (int k = 0; k < 4; k++) raw[4 * i + (size_t)k] = (uint8_t)(u >> (8 * k)); /* little-endian, as ONNX stores it */
    }
    pb_bytes_field(onnx_initializer_begin(G, name, dims, rank, ONNX_FLOAT), 9, raw, 4 * n);
    onnx_initializer_end(G);
    free(raw);
}

/* "<probe>/<what>" */
static const char *at(char *buf, size_t cap, const char *probe, const char *what) {
    snprintf(buf, cap, "%s/%s", probe, what);
    return buf;
}

/* A k x k convolution, stride s, padded to keep the size at stride 1. */
static void conv(onnx_graph *G, const char *p, int64_t c_in, int64_t c_out, int64_t hw, int64_t k, int64_t s,
                 uint32_t *state) {
    char x[96], w[96], b[96], y[96], name[96];
    int64_t pad = k / 2, out = (hw + 2 * pad - k) / s + 1;
    const int64_t in_dims[] = {1, c_in, hw, hw}, w_dims[] = {c_out, c_in, k, k}, b_dims[] = {c_out},
                  out_dims[] = {1, c_out, out, out}, kernel[] = {k, k}, pads[] = {pad, pad, pad, pad},
                  strides[] = {s, s};
    onnx_io(G, ONNX_GRAPH_INPUT, at(x, sizeof x, p, "x"), ONNX_FLOAT, 4, in_dims, NULL);
    weights(G, at(w, sizeof w, p, "w"), w_dims, 4, state);
    weights(G, at(b, sizeof b, p, "b"), b_dims, 1, state);
    const attr a[] = {ATTR_IS("kernel_shape", kernel, 2), ATTR_IS("pads", pads, 4), ATTR_IS("strides", strides, 2)};
    const char *in[] = {x, w, b}, *o[] = {at(y, sizeof y, p, "y")};
    onnx_node(G, "Conv", "", at(name, sizeof name, p, "Conv"), in, 3, o, 1, a, 3);
    onnx_io(G, ONNX_GRAPH_OUTPUT, y, ONNX_FLOAT, 4, out_dims, NULL);
}

/* A[rank_a dims] x B: B a weight of b_dims when `weight`, else a second input. */
static void matmul(onnx_graph *G, const char *p, const int64_t *a_dims, const int64_t *b_dims, const int64_t *y_dims,
                   int rank, bool weight, uint32_t *state) {
    char a[96], b[96], y[96], name[96];
    onnx_io(G, ONNX_GRAPH_INPUT, at(a, sizeof a, p, "a"), ONNX_FLOAT, rank, a_dims, NULL);
    if (weight) weights(G, at(b, sizeof b, p, "w"), b_dims, 2, state);
    else onnx_io(G, ONNX_GRAPH_INPUT, at(b, sizeof b, p, "b"), ONNX_FLOAT, rank, b_dims, NULL);
    const char *in[] = {a, b}, *o[] = {at(y, sizeof y, p, "y")};
    onnx_node(G, "MatMul", "", at(name, sizeof name, p, "MatMul"), in, 2, o, 1, NULL, 0);
    onnx_io(G, ONNX_GRAPH_OUTPUT, y, ONNX_FLOAT, rank, y_dims, NULL);
}

/* A classifier's GEMV: [1, k] x [n, k]^T + bias. */
static void gemv(onnx_graph *G, const char *p, int64_t k, int64_t n, uint32_t *state) {
    char x[96], w[96], b[96], y[96], name[96];
    const int64_t x_dims[] = {1, k}, w_dims[] = {n, k}, b_dims[] = {n}, y_dims[] = {1, n};
    onnx_io(G, ONNX_GRAPH_INPUT, at(x, sizeof x, p, "x"), ONNX_FLOAT, 2, x_dims, NULL);
    weights(G, at(w, sizeof w, p, "w"), w_dims, 2, state);
    weights(G, at(b, sizeof b, p, "b"), b_dims, 1, state);
    const attr a[] = {ATTR_I("transB", 1)};
    const char *in[] = {x, w, b}, *o[] = {at(y, sizeof y, p, "y")};
    onnx_node(G, "Gemm", "", at(name, sizeof name, p, "Gemm"), in, 3, o, 1, a, 1);
    onnx_io(G, ONNX_GRAPH_OUTPUT, y, ONNX_FLOAT, 2, y_dims, NULL);
}

unsigned char *rl_probe_model(size_t *size) {
    onnx_graph G = {0};
    uint32_t state = 20261129u;
    conv(&G, "conv3x3_64", 64, 64, 56, 3, 1, &state);          /* ResNet's first stage */
    conv(&G, "conv1x1_256to64", 256, 64, 56, 1, 1, &state);    /* a bottleneck's reduction */
    conv(&G, "conv3x3_s2_128", 128, 128, 56, 3, 2, &state);    /* a stage's strided entry */
    const int64_t seq[] = {1, 128, 768}, up[] = {768, 3072}, ffn[] = {1, 128, 3072};
    matmul(&G, "matmul_128x768x3072", seq, up, ffn, 3, true, &state); /* BERT-base's feed-forward */
    const int64_t q[] = {1, 12, 128, 64}, kt[] = {1, 12, 64, 128}, scores[] = {1, 12, 128, 128};
    matmul(&G, "matmul_attention_scores", q, kt, scores, 4, false, &state);
    gemv(&G, "gemm_1280x1000", 1280, 1000, &state); /* a classifier at batch 1 */
    pb_str_field(&G.graph, 2, "rooflens probes");
    pb_buf model = {0}, opset = {0};
    pb_varint_field(&model, 1, 8); /* IR version 8 */
    pb_str_field(&model, 2, "rooflens");
    pb_str_field(&model, 3, "probe model");
    pb_msg_field(&model, 7, &G.graph);
    pb_str_field(&opset, 1, "");
    pb_varint_field(&opset, 2, 17);
    pb_msg_field(&model, 8, &opset);
    bool oom = model.oom || opset.oom || onnx_graph_oom(&G);
    onnx_graph_free(&G);
    pb_free(&opset);
    if (oom) {
        pb_free(&model);
        return NULL;
    }
    *size = model.n;
    return model.p;
}
