/* A Hugging Face config.json read alone (hf_config.c): a model that is not
 * downloaded, sized from its configuration. The config's hyperparameters
 * and torch_dtype become the tensors the checkpoint would hold, named and
 * shaped as llama.cpp's converter names and shapes them, and the decoder
 * is then built by gguf_decoder.c, the one builder of GGUF models: the same
 * graph, the same answer. Every weight is sized at the config's dtype; the
 * model's description says that no weights file was read. A quantized
 * checkpoint (quantization_config) is refused: its storage is in its
 * .safetensors headers, which the config alone does not give. */
#ifndef ROOFLENS_HF_CONFIG_H
#define ROOFLENS_HF_CONFIG_H
#include "internal.h"

#define HF_CONFIG_MAX_BYTES (4u << 20) /* a config.json is a few KB */

/* Does a file starting with this byte look like a JSON object? */
bool hf_config_magic(const uint8_t *p, size_t n);
/* The decoder's skeleton from the config's text (len bytes), as
 * gguf_decoder_skeleton gives it, or NULL with err set. */
uint8_t *hf_config_skeleton(const char *text, size_t len, size_t *out_len, uint64_t *nodes, rl_error *err);
#endif
