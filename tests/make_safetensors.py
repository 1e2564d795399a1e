#!/usr/bin/python3
"""Small Hugging Face checkpoints written from the published format (the
safetensors format of huggingface/safetensors: an 8-byte little-endian
header length N, N bytes of JSON naming each tensor's dtype, shape and
data_offsets, then the data), for the tests of rooflens's checkpoint reader.
Nothing is downloaded: each checkpoint is a config.json, its shards (their
data left as sparse zeros) and, when sharded, model.safetensors.index.json.

    /usr/bin/python3 tests/make_safetensors.py --suite DIR --hostile DIR2

--suite writes one folder per checkpoint (f16: one file; bf16_sharded: two
shards and an index; gptq: int4 codes packed 8 to an int32 with their
qzeros, scales and g_idx; fp8: F8_E4M3 weights with their scales; mixtral:
experts stored one by one; mixtral_one_expert: a single expert) and
DIR/expected.json with the figures worked
out here from the headers written, independently of the reader: the weight
bytes (the sum of every tensor's end - begin), the parameters (a packed
weight's real elements, not its words; scales, zeros and indexes none),
the KV cache bytes per token (2 x blocks x KV heads x head dim x 2) and
the shards. --hostile writes broken checkpoints, one folder each, named
after what is wrong, and DIR2/expected.json with the error code each must
give.
"""
import argparse
import json
import os
import struct
import sys

DTYPE_BYTES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "F8_E4M3": 1, "F8_E5M2": 1, "I64": 8, "I32": 4,
               "I16": 2, "I8": 1, "U8": 1, "BOOL": 1}

TINY = dict(L=2, d=64, H=4, Hkv=2, hd=16, ff=128, V=256, ctx=128)


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def header_bytes(tensors, metadata=None):
    """The header of (name, dtype, shape) tensors laid out in order, and
    the data's size. tensors may carry a 4th item: explicit offsets."""
    h, off = {}, 0
    if metadata is not None:
        h["__metadata__"] = metadata
    for t in tensors:
        name, dtype, shape = t[:3]
        size = numel(shape) * DTYPE_BYTES.get(dtype, 1)
        begin, end = t[3] if len(t) > 3 else (off, off + size)
        h[name] = {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}
        off = max(off, end)
    text = json.dumps(h).encode()
    text += b" " * (-len(text) % 8)  # the format pads the header to 8 bytes
    return text, off


def write_shard(path, tensors, metadata=None):
    text, data = header_bytes(tensors, metadata)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        f.truncate(8 + len(text) + data)  # the weights: sparse zeros
    return 8 + len(text) + data


def config(model_type, c, **extra):
    j = {"model_type": model_type, "num_hidden_layers": c["L"], "hidden_size": c["d"],
         "num_attention_heads": c["H"], "num_key_value_heads": c["Hkv"], "head_dim": c["hd"],
         "intermediate_size": c["ff"], "vocab_size": c["V"], "max_position_embeddings": c["ctx"],
         "rms_norm_eps": 1e-6, "torch_dtype": "bfloat16", "tie_word_embeddings": False}
    j.update(extra)
    return j


def linear(name, out_f, in_f, kind, dtype, group=32):
    """The tensors of one projection: (name, dtype, shape) each, and its
    parameters."""
    if kind == "gptq":  # 8 int4 codes an int32 word; a scale and a zero per group of inputs
        return [(name + ".qweight", "I32", [in_f // 8, out_f]), (name + ".qzeros", "I32", [in_f // group, out_f // 8]),
                (name + ".scales", "F16", [in_f // group, out_f]), (name + ".g_idx", "I32", [in_f])], out_f * in_f
    if kind == "fp8":  # one scale for the weight, one for its activations
        return [(name + ".weight", "F8_E4M3", [out_f, in_f]), (name + ".weight_scale", "F32", []),
                (name + ".input_scale", "F32", [])], out_f * in_f
    return [(name + ".weight", dtype, [out_f, in_f])], out_f * in_f


def decoder(c, dtype, kind="plain", bias=False, experts=0):
    """Every tensor of a llama-shaped (qwen2 with bias; mixtral with
    experts) checkpoint, and its parameter count."""
    T, params = [], 0

    def add(ts, p):
        nonlocal params
        T.extend(ts)
        params += p

    d, q, kv, ff = c["d"], c["H"] * c["hd"], c["Hkv"] * c["hd"], c["ff"]
    add([("model.embed_tokens.weight", dtype, [c["V"], d])], c["V"] * d)
    for i in range(c["L"]):
        p = "model.layers.%d." % i
        add([(p + "input_layernorm.weight", dtype, [d])], d)
        for proj, out_f in (("q_proj", q), ("k_proj", kv), ("v_proj", kv)):
            add(*linear(p + "self_attn." + proj, out_f, d, kind, dtype))
            if bias:
                add([(p + "self_attn.%s.bias" % proj, dtype, [out_f])], out_f)
        add(*linear(p + "self_attn.o_proj", d, q, kind, dtype))
        add([(p + "post_attention_layernorm.weight", dtype, [d])], d)
        if experts:
            add([(p + "block_sparse_moe.gate.weight", dtype, [experts, d])], experts * d)
            for e in range(experts):
                for w, shape in (("w1", (ff, d)), ("w3", (ff, d)), ("w2", (d, ff))):
                    add(*linear(p + "block_sparse_moe.experts.%d.%s" % (e, w), shape[0], shape[1], kind, dtype))
        else:
            for proj, shape in (("gate_proj", (ff, d)), ("up_proj", (ff, d)), ("down_proj", (d, ff))):
                add(*linear(p + "mlp." + proj, shape[0], shape[1], kind, dtype))
    add([("model.norm.weight", dtype, [d]), ("lm_head.weight", dtype, [c["V"], d])], d + c["V"] * d)
    return T, params


def figures(T, params, c, shards):
    return {"weight_bytes": sum(numel(s) * DTYPE_BYTES[dt] for _, dt, s in T), "parameters": params,
            "kv_bytes_per_token": 2 * c["L"] * c["Hkv"] * c["hd"] * 2, "shards": shards}


def write_checkpoint(folder, cfg, T, split=1):
    """cfg and T written into folder: one model.safetensors, or `split`
    shards with their index."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    if split == 1:
        write_shard(os.path.join(folder, "model.safetensors"), T, {"format": "pt"})
        return
    per = (len(T) + split - 1) // split
    wmap = {}
    for k in range(split):
        name = "model-%05d-of-%05d.safetensors" % (k + 1, split)
        part = T[k * per:(k + 1) * per]
        write_shard(os.path.join(folder, name), part, {"format": "pt"})
        wmap.update({t[0]: name for t in part})
    total = sum(numel(s) * DTYPE_BYTES[dt] for _, dt, s in T)
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": wmap}, f, indent=1)


def suite(out):
    exp = {}
    c = TINY
    T, p = decoder(c, "F16")
    T.append(("model.layers.0.self_attn.rotary_emb.inv_freq", "F32", [c["hd"] // 2]))  # read by no layer
    write_checkpoint(os.path.join(out, "f16"), dict(config("llama", c), torch_dtype="float16"), T)
    exp["f16"] = dict(figures(T, p + c["hd"] // 2, c, 1), storage="F16")
    T, p = decoder(c, "BF16", bias=True)
    write_checkpoint(os.path.join(out, "bf16_sharded"), config("qwen2", c), T, split=2)
    exp["bf16_sharded"] = dict(figures(T, p, c, 2), storage="BF16")
    q = {"quant_method": "gptq", "bits": 4, "group_size": 32, "desc_act": False, "sym": True}
    T, p = decoder(c, "F16", kind="gptq")
    write_checkpoint(os.path.join(out, "gptq"), config("llama", c, torch_dtype="float16", quantization_config=q), T)
    exp["gptq"] = dict(figures(T, p, c, 1), storage="int4 (gptq)")
    q = {"quant_method": "fp8", "activation_scheme": "static"}
    T, p = decoder(c, "BF16", kind="fp8")
    write_checkpoint(os.path.join(out, "fp8"), config("llama", c, quantization_config=q), T)
    exp["fp8"] = dict(figures(T, p, c, 1), storage="F8_E4M3")
    T, p = decoder(c, "BF16", experts=4)
    write_checkpoint(os.path.join(out, "mixtral"), config("mixtral", c, num_local_experts=4, num_experts_per_tok=2), T,
                     split=3)
    exp["mixtral"] = dict(figures(T, p, c, 3), storage="BF16", experts=4, top_k=2)
    # one expert: each expert's tensor is still one of its own, without the experts' dim
    T, p = decoder(c, "BF16", experts=1)
    write_checkpoint(os.path.join(out, "mixtral_one_expert"),
                     config("mixtral", c, num_local_experts=1, num_experts_per_tok=1), T)
    exp["mixtral_one_expert"] = dict(figures(T, p, c, 1), storage="BF16", experts=1, top_k=1)
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(exp, f, indent=1, sort_keys=True)


def raw_shard(path, header_text, length=None, data=0):
    """A shard of a given header text (bytes), its length field forced when
    `length` is given."""
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header_text) if length is None else length) + header_text)
        f.truncate(8 + len(header_text) + data)


def hostile_cases():
    """{name: (files {name: bytes or None}, code)}: each case's files beside a
    good config.json (None: the file is left out)."""
    good = {"w": {"dtype": "F16", "shape": [4, 4], "data_offsets": [0, 32]}}

    def one(h, data=64, length=None):
        text = json.dumps(h).encode() if isinstance(h, dict) else h
        return ("single", text, length, data)

    return {
        "length_past_eof": (one(good, data=0, length=1 << 20), "truncated"),
        "length_2_63": (one(good, length=1 << 63), "bad_safetensors"),
        "overlapping_offsets": (one({"a": {"dtype": "F16", "shape": [8], "data_offsets": [0, 16]},
                                     "b": {"dtype": "F16", "shape": [8], "data_offsets": [8, 24]}}), "bad_safetensors"),
        "bytes_not_shape": (one({"w": {"dtype": "F16", "shape": [4, 4], "data_offsets": [0, 30]}}), "bad_safetensors"),
        "unknown_dtype": (one({"w": {"dtype": "Q4_K", "shape": [4], "data_offsets": [0, 8]}}), "unsupported_type"),
        "negative_dim": (one({"w": {"dtype": "F16", "shape": [-4, 4], "data_offsets": [0, 32]}}), "bad_safetensors"),
        "overflowing_dim": (one({"w": {"dtype": "F16", "shape": [1 << 40, 1 << 40], "data_offsets": [0, 32]}}),
                            "bad_safetensors"),
        "offsets_past_data": (one({"w": {"dtype": "F16", "shape": [64], "data_offsets": [0, 128]}}, data=16),
                              "truncated"),
        "invalid_json": (one(b'{"w": {"dtype": "F16", "shape": [4'), "bad_safetensors"),
        "not_an_object": (one(b'["w"]   '), "bad_safetensors"),
        "duplicate_name": (one(b'{"w": {"dtype": "F16", "shape": [4], "data_offsets": [0, 8]}, '
                               b'"w": {"dtype": "F16", "shape": [4], "data_offsets": [8, 16]}}'), "bad_safetensors"),
        "short_file": (("single", b"", 0, None), "truncated"),
        "missing_shard": (("missing_shard",), "incomplete_checkpoint"),
        "index_wrong_shard": (("index_wrong_shard",), "bad_checkpoint"),
        "shape_not_config": (("shape_not_config",), "bad_checkpoint"),
        "missing_tensor": (("missing_tensor",), "incomplete_checkpoint"),
        "no_config": (("no_config",), "incomplete_checkpoint"),
        "same_tensor_twice": (("same_tensor_twice",), "bad_checkpoint"),
        "empty_config": (("empty_config",), "truncated"),
        "lfs_pointer": (("lfs_pointer",), "bad_safetensors"),
    }


def hostile(out):
    exp = {}
    c = dict(TINY, L=1)
    cfg = config("llama", c)
    T, _ = decoder(c, "BF16")
    for name, (spec, code) in hostile_cases().items():
        folder = os.path.join(out, name)
        os.makedirs(folder, exist_ok=True)
        exp[name] = code
        if spec[0] != "no_config":
            with open(os.path.join(folder, "config.json"), "w") as f:
                json.dump(cfg, f)
        if spec[0] == "single":
            _, text, length, data = spec
            if data is None:  # a file shorter than the length field
                with open(os.path.join(folder, "model.safetensors"), "wb") as f:
                    f.write(b"\x10\0\0")
            else:
                raw_shard(os.path.join(folder, "model.safetensors"), text, length, data)
        elif spec[0] in ("missing_shard", "index_wrong_shard"):
            write_checkpoint(folder, cfg, T, split=2)
            if spec[0] == "missing_shard":
                os.remove(os.path.join(folder, "model-00002-of-00002.safetensors"))
            else:
                path = os.path.join(folder, "model.safetensors.index.json")
                idx = json.load(open(path))
                idx["weight_map"]["model.norm.weight"] = "model-00001-of-00002.safetensors"
                json.dump(idx, open(path, "w"))
        elif spec[0] == "shape_not_config":
            write_checkpoint(folder, dict(cfg, intermediate_size=96), T)
        elif spec[0] == "missing_tensor":
            write_checkpoint(folder, cfg, [t for t in T if "k_proj" not in t[0]])
        elif spec[0] == "no_config":
            write_shard(os.path.join(folder, "model.safetensors"), T)
        elif spec[0] == "lfs_pointer":  # a clone without git-lfs: each shard is the pointer to it
            with open(os.path.join(folder, "model.safetensors"), "w") as f:
                f.write("version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize 218112\n" % ("0" * 64))
        elif spec[0] == "empty_config":  # an interrupted download: the config is there, but empty
            write_checkpoint(folder, cfg, T)
            open(os.path.join(folder, "config.json"), "w").close()
        elif spec[0] == "same_tensor_twice":
            write_shard(os.path.join(folder, "model-00001-of-00002.safetensors"), T)
            write_shard(os.path.join(folder, "model-00002-of-00002.safetensors"), T[:1])
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(exp, f, indent=1, sort_keys=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", metavar="DIR")
    ap.add_argument("--hostile", metavar="DIR")
    a = ap.parse_args(argv)
    if not (a.suite or a.hostile):
        ap.print_help()
        return 2
    if a.suite:
        suite(a.suite)
    if a.hostile:
        hostile(a.hostile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
