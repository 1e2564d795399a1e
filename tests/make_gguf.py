#!/usr/bin/python3
"""Small GGUF files written from the published format (ggml's docs/gguf.md),
for the tests of rooflens's GGUF reader. Nothing is downloaded: every file is
a decoder's header with its tensor infos, and a data section of zeros left
sparse (the file is as long as its tensors need; the disk holds little).

    /usr/bin/python3 tests/make_gguf.py --suite DIR

writes DIR/<name>.gguf for each model of SUITE and DIR/expected.json: for
each file the figures worked out here, independently of the reader, from
the format and the architecture: the bytes of every tensor (whole blocks of
its type), their sum, the element count, and the KV cache bytes per token
by the hand formula 2 (K and V) x blocks x KV heads x head dim x 2 bytes
(fp16).

    /usr/bin/python3 tests/make_gguf.py --big PATH --gib 40

writes one sparse llama-shaped GGUF of about that size (for the header-read
benchmark). --hostile DIR writes broken files, each named after what is
wrong with it (the fuzz corpus and the error tests).
"""
import argparse
import json
import os
import struct
import sys

# ggml tensor types: number, elements per block, bytes per block. From the
# block layouts of ggml's quantization formats (a block's codes, its fp16 or
# fp32 scales and minima, its sign and high-bit planes).
GGML = {
    "F32": (0, 1, 4), "F16": (1, 1, 2), "Q4_0": (2, 32, 18), "Q4_1": (3, 32, 20),
    "Q5_0": (6, 32, 22), "Q5_1": (7, 32, 24), "Q8_0": (8, 32, 34), "Q8_1": (9, 32, 36),
    "Q2_K": (10, 256, 84), "Q3_K": (11, 256, 110), "Q4_K": (12, 256, 144), "Q5_K": (13, 256, 176),
    "Q6_K": (14, 256, 210), "Q8_K": (15, 256, 292), "IQ2_XXS": (16, 256, 66), "IQ2_XS": (17, 256, 74),
    "IQ3_XXS": (18, 256, 98), "IQ1_S": (19, 256, 50), "IQ4_NL": (20, 32, 18), "IQ3_S": (21, 256, 110),
    "IQ2_S": (22, 256, 82), "IQ4_XS": (23, 256, 136), "I8": (24, 1, 1), "I16": (25, 1, 2),
    "I32": (26, 1, 4), "I64": (27, 1, 8), "F64": (28, 1, 8), "IQ1_M": (29, 256, 56), "BF16": (30, 1, 2),
    "TQ1_0": (34, 256, 54), "TQ2_0": (35, 256, 66), "MXFP4": (39, 32, 17),
}

# metadata value types
U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
SCALAR = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32: "<f", BOOL: "<?",
          U64: "<Q", I64: "<q", F64: "<d"}


def gstr(s):
    b = s.encode() if isinstance(s, str) else s
    return struct.pack("<Q", len(b)) + b


def value(t, v):
    if t == STRING:
        return gstr(v)
    if t == ARRAY:
        et, items = v
        out = struct.pack("<IQ", et, len(items))
        return out + b"".join(value(et, x) for x in items)
    return struct.pack(SCALAR[t], v)


def tensor_bytes(ne, tname):
    _, block, size = GGML[tname]
    assert ne[0] % block == 0, (ne, tname)
    n = 1
    for d in ne:
        n *= d
    return n // block * size


def header(kvs, tensors, version=3, alignment=32):
    """The header bytes and the data section's size; tensors: (name, ne, type)."""
    out = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kvs))
    for key, t, v in kvs:
        out += gstr(key) + struct.pack("<I", t) + value(t, v)
    offset = 0
    for name, ne, tname in tensors:
        out += gstr(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", d) for d in ne)
        out += struct.pack("<IQ", GGML[tname][0], offset)
        offset += tensor_bytes(ne, tname)
        offset = (offset + alignment - 1) // alignment * alignment
    last = tensors[-1] if tensors else None
    data = offset - (0 if not last else (-(tensor_bytes(last[1], last[2])) % alignment))
    return out, data


def write(path, kvs, tensors, version=3, alignment=32):
    hdr, data = header(kvs, tensors, version, alignment)
    start = (len(hdr) + alignment - 1) // alignment * alignment
    with open(path, "wb") as f:
        f.write(hdr)
        f.truncate(start + data)  # zeros, sparse: the reader skips them
    return start + data


# ------------------------------------------------------------ decoders --
def decoder(arch, L, d, H, Hkv, hd, ff, V, ctx, types, experts=0, top_k=0, window=0, extra=None,
            qkv_bias=False, qk_norm=False, fused=False, post_norms=False, tied=False, shared=False):
    """kvs and tensors of a decoder; types: matrix, embedding, head, norm."""
    mt, et, ht, nt = types["matrix"], types["embed"], types.get("head", types["matrix"]), "F32"
    a = arch
    kvs = [("general.architecture", STRING, arch), ("general.name", STRING, "tiny " + arch),
           (a + ".block_count", U32, L), (a + ".embedding_length", U32, d), (a + ".context_length", U32, ctx),
           (a + ".feed_forward_length", U32, ff), (a + ".attention.head_count", U32, H),
           (a + ".attention.head_count_kv", U32, Hkv), (a + ".attention.key_length", U32, hd),
           (a + ".attention.layer_norm_rms_epsilon", F32, 1e-6), (a + ".rope.freq_base", F32, 10000.0),
           ("tokenizer.ggml.model", STRING, "gpt2"),
           ("tokenizer.ggml.tokens", ARRAY, (STRING, ["tok%d" % i for i in range(V)])),
           ("tokenizer.ggml.token_type", ARRAY, (I32, [1] * V)),
           ("general.quantization_version", U32, 2)]
    if experts:
        kvs += [(a + ".expert_count", U32, experts), (a + ".expert_used_count", U32, top_k)]
    if window:
        kvs += [(a + ".attention.sliding_window", U32, window)]
    T = [("token_embd.weight", [d, V], et)]
    for i in range(L):
        p = "blk.%d." % i
        T.append((p + "attn_norm.weight", [d], nt))
        if fused:
            T.append((p + "attn_qkv.weight", [d, (H + 2 * Hkv) * hd], mt))
        else:
            T += [(p + "attn_q.weight", [d, H * hd], mt), (p + "attn_k.weight", [d, Hkv * hd], mt),
                  (p + "attn_v.weight", [d, Hkv * hd], mt)]
        if qkv_bias:
            T += [(p + "attn_q.bias", [H * hd], nt), (p + "attn_k.bias", [Hkv * hd], nt),
                  (p + "attn_v.bias", [Hkv * hd], nt)]
        if qk_norm:
            T += [(p + "attn_q_norm.weight", [hd], nt), (p + "attn_k_norm.weight", [hd], nt)]
        T.append((p + "attn_output.weight", [H * hd, d], mt))
        if post_norms:
            T.append((p + "post_attention_norm.weight", [d], nt))
        T.append((p + "ffn_norm.weight", [d], nt))
        if experts:
            T += [(p + "ffn_gate_inp.weight", [d, experts], nt),
                  (p + "ffn_gate_exps.weight", [d, ff, experts], mt), (p + "ffn_up_exps.weight", [d, ff, experts], mt),
                  (p + "ffn_down_exps.weight", [ff, d, experts], mt)]
            if shared:
                T += [(p + "ffn_gate_inp_shexp.weight", [d], nt), (p + "ffn_gate_shexp.weight", [d, ff], mt), (p + "ffn_up_shexp.weight", [d, ff], mt),
                      (p + "ffn_down_shexp.weight", [ff, d], mt)]
        elif fused:
            T += [(p + "ffn_up.weight", [d, 2 * ff], mt), (p + "ffn_down.weight", [ff, d], mt)]
        else:
            T += [(p + "ffn_gate.weight", [d, ff], mt), (p + "ffn_up.weight", [d, ff], mt),
                  (p + "ffn_down.weight", [ff, d], mt)]
        if post_norms:
            T.append((p + "post_ffw_norm.weight", [d], nt))
    T.append(("output_norm.weight", [d], nt))
    if not tied:
        T.append(("output.weight", [d, V], ht))
    T += extra or []
    return kvs, T


def expected(kvs, T, arch, L, Hkv, hd, experts=0, top_k=0, window=0, every=0, kv_per_token=None):
    """The figures by hand; the KV cache per token 2 (K, V) x blocks x KV
    heads x head dim x 2 bytes unless the architecture's own is given."""
    sizes = {n: tensor_bytes(ne, t) for n, ne, t in T}
    elements = 0
    for _, ne, _ in T:
        n = 1
        for x in ne:
            n *= x
        elements += n
    kv = 2 * L * Hkv * hd * 2 if kv_per_token is None else kv_per_token
    return {"arch": arch, "weight_bytes": sum(sizes.values()), "parameters": elements,
            "kv_bytes_per_token": kv, "experts": experts, "top_k": top_k,
            "blocks": L, "tensors": len(T), "window": window, "swa_every": every}


def gpt_oss(L=4, d=256, H=8, Hkv=2, hd=64, ff=256, E=8, k=2, V=512, ctx=4096, window=128):
    """gpt-oss as llama.cpp's converter writes it: biased projections,
    attention sinks, post_attention_norm before the experts, MXFP4 experts
    with biases, even blocks attending through the sliding window."""
    a = "gpt-oss"
    kvs = [("general.architecture", STRING, a), ("general.name", STRING, "tiny gpt-oss"),
           (a + ".block_count", U32, L), (a + ".embedding_length", U32, d), (a + ".context_length", U32, ctx),
           (a + ".feed_forward_length", U32, ff), (a + ".expert_feed_forward_length", U32, ff),
           (a + ".attention.head_count", U32, H), (a + ".attention.head_count_kv", U32, Hkv),
           (a + ".attention.key_length", U32, hd), (a + ".attention.value_length", U32, hd),
           (a + ".attention.layer_norm_rms_epsilon", F32, 1e-5), (a + ".attention.sliding_window", U32, window),
           (a + ".rope.freq_base", F32, 150000.0), (a + ".expert_count", U32, E), (a + ".expert_used_count", U32, k)]
    T = [("token_embd.weight", [d, V], "Q8_0")]
    for i in range(L):
        p = "blk.%d." % i
        T += [(p + "attn_norm.weight", [d], "F32"),
              (p + "attn_q.weight", [d, H * hd], "Q8_0"), (p + "attn_q.bias", [H * hd], "F32"),
              (p + "attn_k.weight", [d, Hkv * hd], "Q8_0"), (p + "attn_k.bias", [Hkv * hd], "F32"),
              (p + "attn_v.weight", [d, Hkv * hd], "Q8_0"), (p + "attn_v.bias", [Hkv * hd], "F32"),
              (p + "attn_output.weight", [H * hd, d], "Q8_0"), (p + "attn_output.bias", [d], "F32"),
              (p + "attn_sinks.weight", [H], "F32"), (p + "post_attention_norm.weight", [d], "F32"),
              (p + "ffn_gate_inp.weight", [d, E], "F32"), (p + "ffn_gate_inp.bias", [E], "F32"),
              (p + "ffn_gate_exps.weight", [d, ff, E], "MXFP4"), (p + "ffn_gate_exps.bias", [ff, E], "F32"),
              (p + "ffn_up_exps.weight", [d, ff, E], "MXFP4"), (p + "ffn_up_exps.bias", [ff, E], "F32"),
              (p + "ffn_down_exps.weight", [ff, d, E], "MXFP4"), (p + "ffn_down_exps.bias", [d, E], "F32")]
    T += [("output_norm.weight", [d], "F32"), ("output.weight", [d, V], "Q8_0")]
    return kvs, T, expected(kvs, T, a, L, Hkv, hd, E, k, window, 2)


def deepseek2(L=3, dense=1, d=256, H=4, q_rank=96, rank=128, rope=32, nope=64, v=64, ff=512, ff_exp=128, E=8, k=2,
              shared=1, V=512, ctx=4096):
    """deepseek2 with multi-head latent attention as a current llama.cpp
    writes it (attn_k_b and attn_v_b split per head): the first `dense`
    blocks with a dense MLP, the others with routed and shared experts. Its
    KV cache per token and block: one latent of kv_lora_rank and the rotary
    key, shared by the heads: (rank + rope) x 2 bytes."""
    a = "deepseek2"
    kvs = [("general.architecture", STRING, a), ("general.name", STRING, "tiny deepseek2"),
           (a + ".block_count", U32, L), (a + ".embedding_length", U32, d), (a + ".context_length", U32, ctx),
           (a + ".feed_forward_length", U32, ff), (a + ".attention.head_count", U32, H),
           (a + ".attention.head_count_kv", U32, 1), (a + ".attention.key_length", U32, rank + rope),
           (a + ".attention.value_length", U32, rank), (a + ".attention.key_length_mla", U32, nope + rope),
           (a + ".attention.value_length_mla", U32, v), (a + ".attention.q_lora_rank", U32, q_rank),
           (a + ".attention.kv_lora_rank", U32, rank), (a + ".rope.dimension_count", U32, rope),
           (a + ".attention.layer_norm_rms_epsilon", F32, 1e-6), (a + ".leading_dense_block_count", U32, dense),
           (a + ".expert_feed_forward_length", U32, ff_exp), (a + ".expert_count", U32, E),
           (a + ".expert_used_count", U32, k), (a + ".expert_shared_count", U32, shared)]
    T = [("token_embd.weight", [d, V], "Q6_K")]
    for i in range(L):
        p = "blk.%d." % i
        T += [(p + "attn_norm.weight", [d], "F32"), (p + "attn_q_a.weight", [d, q_rank], "Q8_0"),
              (p + "attn_q_a_norm.weight", [q_rank], "F32"), (p + "attn_q_b.weight", [q_rank, H * (nope + rope)], "Q8_0"),
              (p + "attn_kv_a_mqa.weight", [d, rank + rope], "Q8_0"), (p + "attn_kv_a_norm.weight", [rank], "F32"),
              (p + "attn_k_b.weight", [nope, rank, H], "Q8_0"), (p + "attn_v_b.weight", [rank, v, H], "Q8_0"),
              (p + "attn_output.weight", [H * v, d], "Q8_0"), (p + "ffn_norm.weight", [d], "F32")]
        if i < dense:
            T += [(p + "ffn_gate.weight", [d, ff], "Q4_K"), (p + "ffn_up.weight", [d, ff], "Q4_K"),
                  (p + "ffn_down.weight", [ff, d], "Q4_K")]
        else:
            T += [(p + "ffn_gate_inp.weight", [d, E], "F32"), (p + "exp_probs_b.bias", [E], "F32"),
                  (p + "ffn_gate_exps.weight", [d, ff_exp, E], "Q4_0"), (p + "ffn_up_exps.weight", [d, ff_exp, E], "Q4_0"),
                  (p + "ffn_down_exps.weight", [ff_exp, d, E], "Q4_0"),
                  (p + "ffn_gate_shexp.weight", [d, ff_exp * shared], "Q8_0"),
                  (p + "ffn_up_shexp.weight", [d, ff_exp * shared], "Q8_0"),
                  (p + "ffn_down_shexp.weight", [ff_exp * shared, d], "Q8_0")]
    T += [("output_norm.weight", [d], "F32"), ("output.weight", [d, V], "Q6_K")]
    return kvs, T, expected(kvs, T, a, L, 1, rank + rope, E, k, kv_per_token=L * (rank + rope) * 2)


# architectures whose blocks the generic decoder() does not write: name -> builder
OWN_LAYOUT = {"gpt_oss": gpt_oss, "deepseek2": deepseek2}


ALL_TYPES = [t for t in GGML if t not in ("F32",)]

SUITE = {
    # tools/make-models/llm_model.py's tiny decoder (the GenAI int4 layout) as llama.cpp stores it in Q4_0
    "tiny_q4_0": dict(arch="llama", L=2, d=64, H=4, Hkv=2, hd=16, ff=128, V=256, ctx=128,
                      types={"matrix": "Q4_0", "embed": "F16"}),
    # Llama 3 shape: GQA, Q4_0 matrices, Q6_K head, rope_freqs (read by no layer, still weights)
    "llama": dict(arch="llama", L=2, d=256, H=4, Hkv=2, hd=64, ff=512, V=512, ctx=2048,
                  types={"matrix": "Q4_0", "embed": "Q4_K", "head": "Q6_K"},
                  extra=[("rope_freqs.weight", [32], "F32")]),
    "qwen2": dict(arch="qwen2", L=2, d=256, H=4, Hkv=2, hd=64, ff=512, V=512, ctx=4096,
                  types={"matrix": "Q8_0", "embed": "Q5_0"}, qkv_bias=True),
    "qwen3": dict(arch="qwen3", L=2, d=256, H=8, Hkv=2, hd=64, ff=768, V=512, ctx=4096,
                  types={"matrix": "Q4_K", "embed": "Q5_K", "head": "IQ4_XS"}, qk_norm=True),
    "gemma2": dict(arch="gemma2", L=4, d=256, H=4, Hkv=2, hd=128, ff=512, V=512, ctx=8192, window=4096,
                   types={"matrix": "Q5_1", "embed": "BF16"}, post_norms=True, tied=True),
    "gemma3": dict(arch="gemma3", L=6, d=256, H=4, Hkv=1, hd=64, ff=512, V=512, ctx=8192, window=1024,
                   types={"matrix": "IQ3_S", "embed": "Q8_0"}, post_norms=True, qk_norm=True, tied=True),
    # gemma3 with a window as long as its context: no context here reaches it (the sliding window test)
    "gemma3_wide": dict(arch="gemma3", L=6, d=256, H=4, Hkv=1, hd=64, ff=512, V=512, ctx=8192, window=8192,
                        types={"matrix": "IQ3_S", "embed": "Q8_0"}, post_norms=True, qk_norm=True, tied=True),
    "phi3": dict(arch="phi3", L=2, d=256, H=4, Hkv=4, hd=64, ff=512, V=512, ctx=4096,
                 types={"matrix": "F16", "embed": "Q4_1"}, fused=True),
    "mixtral": dict(arch="llama", L=2, d=256, H=4, Hkv=2, hd=64, ff=512, V=512, ctx=4096,
                    types={"matrix": "Q3_K", "embed": "Q2_K"}, experts=4, top_k=2),
    "qwen3moe": dict(arch="qwen3moe", L=2, d=256, H=4, Hkv=2, hd=64, ff=256, V=512, ctx=4096,
                     types={"matrix": "MXFP4", "embed": "IQ2_XXS", "head": "TQ2_0"}, experts=8, top_k=2,
                     qk_norm=True),
    "qwen2moe": dict(arch="qwen2moe", L=2, d=256, H=4, Hkv=2, hd=64, ff=256, V=512, ctx=4096,
                     types={"matrix": "IQ2_S", "embed": "IQ1_M", "head": "IQ1_S"}, experts=4, top_k=2,
                     qkv_bias=True, shared=True),
}


HF_TYPE = {"llama": "llama", "mixtral": "mixtral", "qwen2": "qwen2", "qwen3": "qwen3", "gemma2": "gemma2",
           "gemma3": "gemma3_text", "phi3": "phi3", "qwen3moe": "qwen3_moe", "qwen2moe": "qwen2_moe"}


def config(name, c):
    """The Hugging Face config.json of suite model `name`, and its figures:
    the same tensors in bfloat16 (2 bytes each)."""
    j = {"model_type": HF_TYPE[name], "num_hidden_layers": c["L"], "hidden_size": c["d"],
         "num_attention_heads": c["H"], "num_key_value_heads": c["Hkv"], "head_dim": c["hd"],
         "intermediate_size": c["ff"], "vocab_size": c["V"], "max_position_embeddings": c["ctx"],
         "rms_norm_eps": 1e-6, "torch_dtype": "bfloat16", "tie_word_embeddings": bool(c.get("tied"))}
    if c.get("experts"):
        j["num_local_experts" if name == "mixtral" else "num_experts"] = c["experts"]
        j["num_experts_per_tok"] = c["top_k"]
        j["moe_intermediate_size"] = c["ff"]
        if c.get("shared"):
            j["shared_expert_intermediate_size"] = c["ff"]
    if c.get("window"):
        j["sliding_window"] = c["window"]
    c = dict(c, types={"matrix": "BF16", "embed": "BF16", "head": "BF16"}, extra=None)
    arch = c.pop("arch")
    kvs, T = decoder(arch, **c)
    e = expected(kvs, T, arch, c["L"], c["Hkv"], c["hd"], c.get("experts", 0), c.get("top_k", 0))
    e["weight_bytes"] = sum(tensor_bytes(ne, "BF16") for _, ne, _ in T)
    return j, e


def suite(out):
    os.makedirs(out, exist_ok=True)
    exp = {}
    for name, c in SUITE.items():
        c = dict(c)
        arch = c.pop("arch")
        kvs, T = decoder(arch, **c)
        write(os.path.join(out, name + ".gguf"), kvs, T)
        every = {"gemma2": 2, "gemma3": 6}.get(arch, 0)
        exp[name] = expected(kvs, T, arch, c["L"], c["Hkv"], c["hd"], c.get("experts", 0), c.get("top_k", 0),
                             c.get("window", 0), every)
    for name, build in OWN_LAYOUT.items():
        kvs, T, exp[name] = build()
        write(os.path.join(out, name + ".gguf"), kvs, T)
    # every ggml type once, each in a tensor no layer reads (counted in the weights all the same)
    extra = [("types.%s" % t, [256, 3], t) for t in ALL_TYPES]
    kvs, T = decoder("llama", 1, 256, 4, 4, 64, 256, 256, 512, {"matrix": "F16", "embed": "F16"}, extra=extra)
    write(os.path.join(out, "types.gguf"), kvs, T)
    exp["types"] = expected(kvs, T, "llama", 1, 4, 64)
    # version 2 of the format: the same layout
    kvs, T = decoder("llama", 1, 256, 4, 4, 64, 256, 256, 512, {"matrix": "Q8_0", "embed": "F16"})
    kvs.append(("general.description", STRING, ""))  # an empty string value (once read past its buffer)
    write(os.path.join(out, "v2.gguf"), kvs, T, version=2)
    exp["v2"] = expected(kvs, T, "llama", 1, 4, 64)
    # a custom alignment
    kvs, T = decoder("llama", 1, 256, 4, 4, 64, 256, 256, 512, {"matrix": "Q4_0", "embed": "F16"})
    kvs.append(("general.alignment", U32, 64))
    write(os.path.join(out, "align64.gguf"), kvs, T, alignment=64)
    exp["align64"] = expected(kvs, T, "llama", 1, 4, 64)
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(exp, f, indent=1, sort_keys=True)
    # each architecture's config.json alone, for a model not downloaded
    cexp = {}
    for name in HF_TYPE:
        j, e = config(name, SUITE[name])
        with open(os.path.join(out, name + ".config.json"), "w") as f:
            json.dump(j, f, indent=1)
        cexp[name] = e
    with open(os.path.join(out, "expected_config.json"), "w") as f:
        json.dump(cexp, f, indent=1, sort_keys=True)


def big(path, gib):
    """A Llama-3-70B-shaped Q4_K decoder, about `gib` GiB, sparse."""
    L = max(1, int(80 * gib / 40))
    kvs, T = decoder("llama", L, 8192, 64, 8, 128, 28672, 128256, 8192, {"matrix": "Q4_K", "embed": "Q4_K",
                                                                     "head": "Q6_K"})
    size = write(path, kvs, T)
    print("%s: %d bytes, %d tensors" % (path, size, len(T)))


def small_files():
    """(name, bytes) of whole small decoders, data included (the fuzz seeds):
    one of each architecture the reader builds, a few KB each."""
    out = []
    for name, c in SUITE.items():
        c = dict(c)
        arch = c.pop("arch")
        c.update(L=1, d=32 if c["types"]["matrix"] in ("Q4_0", "Q8_0", "Q5_1", "F16", "MXFP4") else 256,
                 V=32, ff=64 if not c.get("experts") else 32, ctx=64)
        c["H"], c["Hkv"], c["hd"] = 2, 1 if c["Hkv"] < c["H"] else 2, 16
        blocks = {"matrix": c["types"]["matrix"]}
        for k in ("embed", "head"):
            t = c["types"].get(k)
            if t and GGML[t][1] <= c["d"]:
                blocks[k] = t
        blocks.setdefault("embed", "F16")
        c["types"] = blocks
        if GGML[blocks["matrix"]][1] > min(c["d"], c["ff"], c["H"] * c["hd"]):
            continue
        kvs, T = decoder(arch, **c)
        hdr, data = header(kvs, T)
        start = (len(hdr) + 31) // 32 * 32
        out.append((name, hdr + b"\0" * (start - len(hdr) + data)))
    return out


def hostile_files():
    """Broken files, each named after its fault: {name: bytes}."""
    kvs, T = decoder("llama", 1, 256, 4, 2, 64, 256, 256, 512, {"matrix": "Q4_0", "embed": "F16"})
    hdr, data = header(kvs, T)
    files = {
        "truncated_header": hdr[: len(hdr) // 2],
        "truncated_data": hdr + b"\0" * 100,
        "version1": b"GGUF" + struct.pack("<IQQ", 1, 0, 0),
        "version_big_endian": b"GGUF" + struct.pack(">IQQ", 3, 0, 0),
        "huge_tensor_count": b"GGUF" + struct.pack("<IQQ", 3, 1 << 60, 0),
        "huge_kv_count": b"GGUF" + struct.pack("<IQQ", 3, 0, 1 << 60),
        "huge_key_length": b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 1 << 62),
        "huge_array": b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + gstr("a") + struct.pack("<IIQ", ARRAY, U64, 1 << 62),
        "nested_array": b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + gstr("a") + struct.pack("<IIQ", ARRAY, ARRAY, 1),
        "bad_value_type": b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + gstr("a") + struct.pack("<I", 99),
    }
    # tensor-level faults: a header whose one tensor info is wrong
    def one(name, ne, tcode, offset, kv=()):
        b = b"GGUF" + struct.pack("<IQQ", 3, 1, len(kv)) + b"".join(gstr(k) + struct.pack("<I", t) + value(t, v)
                                                                    for k, t, v in kv)
        b += gstr(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", d) for d in ne)
        return b + struct.pack("<IQ", tcode, offset)
    files["misplaced_offset"] = one("t", [32], 0, 64) + b"\0" * 4096
    files["unknown_type"] = one("t", [32], 200, 0) + b"\0" * 4096
    files["removed_type"] = one("t", [32], 31, 0) + b"\0" * 4096
    files["row_not_blocks"] = one("t", [33], 2, 0) + b"\0" * 4096
    files["zero_dim"] = one("t", [0], 0, 0)
    files["dims_overflow"] = one("t", [1 << 40, 1 << 40], 0, 0)
    files["five_dims"] = one("t", [1, 1, 1, 1, 1], 0, 0)
    files["bad_alignment"] = one("t", [32], 0, 0, [("general.alignment", U32, 3)]) + b"\0" * 4096
    dup = b"GGUF" + struct.pack("<IQQ", 3, 0, 2) + (gstr("k") + struct.pack("<I", U8) + b"\1") * 2
    files["duplicate_key"] = dup
    files["no_architecture"] = one("t", [32], 0, 0) + b"\0" * 4096
    kvs2 = [k for k in kvs if k[0] != "llama.block_count"]
    files["no_block_count"] = header(kvs2, T)[0] + b"\0" * (data + 64)
    kvs3 = [("general.architecture", STRING, "rwkv6")] + kvs[1:]
    files["unknown_architecture"] = header(kvs3, T)[0] + b"\0" * (data + 64)
    T4 = [t for t in T if t[0] != "blk.0.attn_k.weight"]
    files["missing_tensor"] = header(kvs, T4)[0] + b"\0" * (data + 64)
    # fewer embedding dims than heads and no key_length: embedding_length / head_count is a head dim of 0
    kvs6, T6 = decoder("llama", 1, 2, 4, 2, 1, 8, 32, 64, {"matrix": "F32", "embed": "F32"})
    kvs6 = [k for k in kvs6 if k[0] != "llama.attention.key_length"]
    hdr6, data6 = header(kvs6, T6)
    files["no_head_dim"] = hdr6 + b"\0" * (data6 + 64)
    # deepseek2 as older llama.cpp conversions wrote it: one attn_kv_b a block (a cache of whole keys and values)
    kvs5, T5, _ = deepseek2(L=1, dense=1)
    T5 = [t for t in T5 if t[0] not in ("blk.0.attn_k_b.weight", "blk.0.attn_v_b.weight")]
    T5.append(("blk.0.attn_kv_b.weight", [128, 4 * (64 + 64)], "Q8_0"))
    hdr5, data5 = header(kvs5, T5)
    files["deepseek2_legacy"] = hdr5 + b"\0" * (data5 + 64)
    return files


def hostile(out):
    os.makedirs(out, exist_ok=True)
    for name, b in hostile_files().items():
        with open(os.path.join(out, name + ".gguf"), "wb") as f:
            f.write(b)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", metavar="DIR")
    ap.add_argument("--big", metavar="PATH")
    ap.add_argument("--gib", type=float, default=40)
    ap.add_argument("--hostile", metavar="DIR")
    a = ap.parse_args(argv)
    if a.suite:
        suite(a.suite)
    if a.big:
        big(a.big, a.gib)
    if a.hostile:
        hostile(a.hostile)
    if not (a.suite or a.big or a.hostile):
        ap.print_help()
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
