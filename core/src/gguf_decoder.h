/* A GGUF model's decoder as an ONNX graph (gguf_decoder.c).
 *
 * The contract: a GGUF file becomes the skeleton of an ONNX ModelProto (the
 * wire bytes the ONNX reader would hand over), so it enters the one model
 * builder, shape inference, costs, timing, LLM view, forecast and answers
 * that an ONNX file does; no figure has a second code path.
 *
 * The graph is ONNX Runtime GenAI's decoder layout, built from the
 * architecture's metadata and the file's tensors: Gather of token_embd;
 * per block SimplifiedLayerNormalization (SkipSimplified... with the
 * residual), the Q/K/V projections (or the fused QKV), GroupQueryAttention
 * with rotary and the KV cache (past_key_values.N.key/value in,
 * present.N.key/value out), the output projection, the FFN norm, then the
 * gated MLP or the router and a com.microsoft MoE over the experts; the
 * final norm and the LM head (output.weight, or token_embd when tied).
 * Every projection is a FusedMatMul with transB, reading the tensor in
 * ggml's [rows, columns] order as it is stored.
 *
 * Every tensor of the file is an initializer, exactly once, of the floating
 * type it computes in and tagged with its storage (storage.h), so its bytes
 * are the file's to the byte (weight bytes = the sum of the tensor sizes)
 * and its parameters its elements. What the graph needs and the file does
 * not hold (rotary tables, shape constants) is tagged RL_ST_RUNTIME: no
 * bytes, no parameters. Tensors the layout does not place (rope_freqs, ...)
 * stay initializers, so they are counted, and are named in the model's
 * doc string. */
#ifndef ROOFLENS_GGUF_DECODER_H
#define ROOFLENS_GGUF_DECODER_H
#include "gguf.h"

/* The skeleton of f's decoder (malloc'd, *len bytes) and its node count,
 * or NULL with err set: an architecture not read (the message lists those
 * that are), a hyperparameter missing or contradicted by a tensor's shape,
 * a tensor the architecture needs missing, or out of memory. */
uint8_t *gguf_decoder_skeleton(const gguf_file *f, size_t *len, uint64_t *nodes, rl_error *err);
#endif
