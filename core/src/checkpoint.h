/* A Hugging Face checkpoint (checkpoint.c): config.json, the headers of its
 * .safetensors shards and, for a sharded one, model.safetensors.index.json,
 * read into the decoder gguf_decoder.c writes, each weight at its stored
 * dtype and size. The public face is rl_checkpoint_* (rooflens.h); this is
 * the reader layer's hand-over to the model layer (model.c), as
 * rl_reader_take is for one file.
 *
 * Consistency, each failure an error saying what, where (the file, the
 * tensor) and what to do: a config.json is among the files; the index's
 * weight_map names only shards that were given and every tensor where the
 * index says it is; no tensor twice; every tensor the config's decoder
 * needs is in a shard with the shape the config implies; every header
 * passes safetensors.h's checks.
 *
 * What a weight weighs: the sum of the bytes of the tensors that hold it.
 * A plain weight is one tensor (F16, BF16, F32 ...); an FP8 weight adds its
 * weight_scale (or weight_scale_inv) and input_scale; a GPTQ or AWQ weight
 * is its packed qweight (int32 words of 8 int4 codes, or 16 int2 or 4 int8,
 * as quantization_config's bits says) plus its qzeros, scales and g_idx.
 * Its parameters are its real elements (8 per int32 word at 4 bits), not
 * the words. Tensors no layer reads are weights all the same, so the
 * model's weight bytes are the sum of every header's tensor sizes, to the
 * byte. */
#ifndef ROOFLENS_CHECKPOINT_H
#define ROOFLENS_CHECKPOINT_H
#include "internal.h"
#include "reader.h"

/* Ends the checkpoint: on success hands over the decoder's skeleton (0),
 * else fills res->error (-1). The checkpoint is spent either way. */
int rl_checkpoint_take(rl_checkpoint *c, rl_reader_result *res);
#endif
