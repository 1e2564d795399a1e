/* Fuzz target: a Hugging Face checkpoint's .safetensors headers (and its
 * index) beside a fixed config.json, through rl_checkpoint_* as the CLI and
 * the page give them, then the LLM view of whatever it accepted.
 *
 * Input layout: byte 0 = flags (bit 0: the rest after the shards is
 * model.safetensors.index.json; bit 1: two shards, else one; bits 2-7: the
 * shards' files hold that many 4 KB blocks of data past the bytes given), bytes
 * 1-2 and 3-4 = the first and second shard's lengths (little-endian), then
 * the shards' bytes and the index. Seeds: tests/fuzz/make_seeds.py (the
 * checkpoints of tests/make_safetensors.py and its hostile set). */
#include "fuzz_common.h"

/* tests/make_safetensors.py's tiny llama with one block (its hostile set's
 * config), quantized so that packed codes are read too */
static const char config[] =
    "{\"model_type\": \"llama\", \"num_hidden_layers\": 1, \"hidden_size\": 64, \"num_attention_heads\": 4, "
    "\"num_key_value_heads\": 2, \"head_dim\": 16, \"intermediate_size\": 128, \"vocab_size\": 256, "
    "\"max_position_embeddings\": 128, \"rms_norm_eps\": 1e-06, \"torch_dtype\": \"bfloat16\", "
    "\"tie_word_embeddings\": false, \"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": 4}}";

static const char request[] = "{\"hardware\":" FUZZ_HW ",\"precision\":\"fp16\",\"layers\":false,"
                              "\"llm\":{\"prompt\":16,\"generate\":4,\"batches\":[1],\"contexts\":[32]}}";

/* A file given as the page gives it: its first 8 bytes, then what the core asks for. */
static void give(rl_checkpoint *c, const char *name, const uint8_t *p, size_t len, uint64_t size) {
    uint64_t need = rl_checkpoint_need(name, size, p, len < 8 ? len : 8);
    if (need == 0) return;
    rl_checkpoint_add(c, name, size, p, need < len ? (size_t)need : len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 5) return 0;
    uint8_t flags = data[0];
    size_t len1 = (size_t)data[1] | (size_t)data[2] << 8, len2 = (size_t)data[3] | (size_t)data[4] << 8;
    const uint8_t *p = data + 5;
    size_t left = size - 5;
    if (len1 > left) len1 = left;
    if (!(flags & 2)) len2 = 0;
    if (len2 > left - len1) len2 = left - len1;
    uint64_t extra = (uint64_t)(flags >> 2) << 12;
    rl_checkpoint *c = rl_checkpoint_new(NULL);
    if (!c) abort();
    give(c, "config.json", (const uint8_t *)config, sizeof config - 1, sizeof config - 1);
    give(c, flags & 2 ? "model-00001-of-00002.safetensors" : "model.safetensors", p, len1, len1 + extra);
    if (flags & 2) give(c, "model-00002-of-00002.safetensors", p + len1, len2, len2 + extra);
    if (flags & 1)
        give(c, "model.safetensors.index.json", p + len1 + len2, left - len1 - len2, left - len1 - len2);
    char *err = NULL;
    rl_model *m = rl_checkpoint_finish(c, &err);
    rl_checkpoint_free(c);
    if (!m) {
        fuzz_check_response(err);
        rl_free(err);
        return 0;
    }
    char *info = rl_model_info(m);
    fuzz_check_response(info);
    rl_free(info);
    char *out = rl_model_analyze(m, request);
    fuzz_check_response(out);
    rl_free(out);
    rl_model_free(m);
    return 0;
}
