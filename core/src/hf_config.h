/* A Hugging Face config.json read alone (hf_config.c): a model that is not
 * downloaded, sized from its configuration. The config's hyperparameters
 * and torch_dtype become the tensors the checkpoint would hold, named and
 * shaped as llama.cpp's converter names and shapes them, and the decoder
 * is then built by gguf_decoder.c, the one builder of GGUF models: the same
 * graph, the same answer. Every weight is sized at the config's dtype; the
 * model's description says that no weights file was read. A quantized
 * checkpoint (quantization_config) is refused: its storage is in its
 * .safetensors headers, which the config alone does not give. With the
 * headers, checkpoint.c reads the config through hf_config_read and puts
 * each tensor at its stored size (checkpoint.h). */
#ifndef ROOFLENS_HF_CONFIG_H
#define ROOFLENS_HF_CONFIG_H
#include <cjson/cJSON.h>

#include "gguf.h"
#include "internal.h"

#define HF_CONFIG_MAX_BYTES (4u << 20) /* a config.json is a few KB */

/* Does a file starting with this byte look like a JSON object? */
bool hf_config_magic(const uint8_t *p, size_t n);
/* A config read into the tensors its checkpoint holds. */
typedef struct hf_model {
    gguf_file f;              /* llama.cpp's names and dims, each at the config's dtype */
    char **source;            /* per tensor of f: its name in a Hugging Face checkpoint before ".weight" or
                               * ".bias", under the model's prefix ("layers.3.self_attn.q_proj"; "norm"); a
                               * leading '^': outside the prefix ("^lm_head"); '*': where an expert's number
                               * goes, the one tensor of llama.cpp being E tensors of the checkpoint */
    size_t n_source;          /* entries of source: f's tensors as the config lists them */
    int64_t experts;          /* E (0: no experts) */
    cJSON *root;              /* the parsed config */
    const cJSON *quantization; /* its quantization_config, or NULL */
} hf_model;

/* The config's text (len bytes) read into m (hf_model_free frees it, and
 * only it, whatever this returns). 0, or -1 with err set: not a JSON
 * object, a model_type not read, a hyperparameter missing or out of
 * range, a quantization_config when !quantized_ok (the config alone cannot
 * size a quantized checkpoint), out of memory. */
int hf_config_read(const char *text, size_t len, bool quantized_ok, hf_model *m, rl_error *err);
void hf_model_free(hf_model *m);

/* The decoder's skeleton from the config's text (len bytes), as
 * gguf_decoder_skeleton gives it, or NULL with err set. */
uint8_t *hf_config_skeleton(const char *text, size_t len, size_t *out_len, uint64_t *nodes, rl_error *err);
#endif
