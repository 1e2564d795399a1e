/* The skeleton reader's hand-over to the model builder. */
#ifndef ROOFLENS_READER_H
#define ROOFLENS_READER_H
#include "internal.h"

typedef struct rl_reader_result {
    uint8_t *skeleton;       /* malloc'd; the receiver frees it */
    size_t skeleton_len;
    uint64_t file_bytes;
    uint64_t skipped_bytes;
    uint64_t nodes;
    rl_limits limits;
    rl_error error;
} rl_reader_result;

/* Limits left 0 take their defaults (docs/api.md). */
void rl_limits_fill_defaults(rl_limits *l);

/* Ends reading: on success hands over the skeleton (0), else fills error (-1). */
int rl_reader_take(rl_reader *r, rl_reader_result *res);

/* The field the reader adds to a TensorProto whose payload it dropped (not
 * an ONNX field), so the model knows the contents are absent, not empty. */
#define RL_DROP_MARKER_FIELD 7936u
/* The field that carries a weight's storage (storage.h) in a TensorProto
 * the GGUF reader writes (gguf_decoder.c); the ONNX reader refuses it in a
 * file, so only a GGUF file's tensors carry it. */
#define RL_STORAGE_FIELD 7937u
/* The field that carries a weight's exact bytes in its files when its
 * storage alone does not give them (a GPTQ weight's codes plus its scales,
 * zero points and group indexes; an FP8 weight plus its scales): written by
 * gguf_decoder.c for a safetensors checkpoint, refused in an ONNX file. */
#define RL_BYTES_FIELD 7938u
#endif
