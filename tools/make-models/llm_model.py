#!/usr/bin/env python3
"""Write a decoder-only language model as ONNX, shaped like a real one.

Standard library only (the protobuf is written with tools/make-models/protowire.py), so
the tests generate their models at run time with any python3:

    python3 tools/make-models/llm_model.py OUT.onnx [--layout hf|genai]
        [--preset tiny|llama-3.2-1b|llama-3-8b] [--layers N --hidden D
         --heads H --kv-heads K --head-dim HD --ff F --vocab V --max-pos P]
        [--dtype fp16|fp32] [--block-size 32] [--no-kv] [--experts E --top-k K]
    python3 tools/make-models/llm_model.py --suite DIR     # the models tests/test_llm.c reads

Every weight is referenced as external data in OUT.onnx.data, which is NOT
written: rooflens analyses a model from its .onnx file alone, so a 32-layer
8B-shaped decoder is a few hundred KB. Small shape operands (Reshape shapes,
Slice bounds, axes, scalars) are stored inline.

Layouts:

  hf     the Hugging Face / optimum export of a Llama decoder with past:
         inputs input_ids and position_ids [batch_size, sequence_length],
         attention_mask [batch_size, "past_sequence_length + 1"],
         past_key_values.N.key/value [batch_size, kv_heads,
         past_sequence_length, head_dim]; outputs logits and present.N.key/value.
         RMSNorm decomposed (Pow, ReduceMean, Add, Sqrt, Div, Mul, Mul); Q/K/V
         MatMuls, Reshape + Transpose to heads, RoPE as rotate_half (Slice,
         Neg, Concat, Mul, Add) with cos/sin rows gathered by position_ids;
         present = Concat(past, new) on the sequence axis; grouped-query
         heads repeated by Unsqueeze, Expand, Reshape; QK^T MatMul, scale,
         padding-mask Add, Softmax, MatMul V; SwiGLU MLP (Sigmoid, Mul).
         --no-kv drops past and present (a prefill-only export).
         --experts E --top-k K turns each MLP into E dense SwiGLU experts
         behind a router (MatMul, Softmax, TopK), the way a plain export of a
         mixture of experts computes every expert and weighs the top K.
  genai  ONNX Runtime GenAI's int4 layout: MatMulNBits (4 bits, --block-size)
         for every projection and the LM head, GroupQueryAttention with
         do_rotary and cos/sin caches [max_pos, head_dim/2], seqlens_k and
         total_sequence_length from the attention mask, SimplifiedLayer-
         Normalization then SkipSimplifiedLayerNormalization; inputs
         attention_mask [batch_size, total_sequence_length], outputs
         present.N.key/value [batch_size, kv_heads, total_sequence_length,
         head_dim]. --experts E --top-k K uses com.microsoft QMoE (int4
         experts, SwiGLU) behind a router MatMul.
"""

import argparse
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from protowire import key, len_field, varint  # noqa: E402  (the shared wire helpers)

FLOAT, UINT8, INT8, INT32, INT64, FLOAT16 = 1, 2, 3, 6, 7, 10
ELEM_BYTES = {FLOAT: 4, UINT8: 1, INT8: 1, INT32: 4, INT64: 8, FLOAT16: 2}

PRESETS = {
    # layers, hidden, heads, kv_heads, head_dim, ff, vocab, max_pos
    "tiny": (2, 64, 4, 2, 16, 128, 256, 128),
    "llama-3.2-1b": (16, 2048, 32, 8, 64, 8192, 128256, 131072),
    "llama-3-8b": (32, 4096, 32, 8, 128, 14336, 128256, 8192),
}


# ------------------------------------------------------------ wire format --
def f_varint(field, v):
    return key(field, 0) + varint(v)


def f_bytes(field, b):
    return len_field(field, len(b)) + b


def f_str(field, s):
    return f_bytes(field, s.encode())


def f_float(field, x):
    return key(field, 5) + struct.pack("<f", x)


def attribute(name, v):
    """AttributeProto for an int, float, string or list of ints."""
    b = f_str(1, name)
    if isinstance(v, bool) or isinstance(v, int):
        return b + f_varint(3, int(v)) + f_varint(20, 2)
    if isinstance(v, float):
        return b + f_float(2, v) + f_varint(20, 1)
    if isinstance(v, str):
        return b + f_bytes(4, v.encode()) + f_varint(20, 3)
    return b + b"".join(f_varint(8, int(x)) for x in v) + f_varint(20, 7)


def value_info(name, elem, dims):
    """ValueInfoProto of a tensor; a str dim is a dim_param."""
    shape = b"".join(f_bytes(1, f_str(2, d) if isinstance(d, str) else f_varint(1, d)) for d in dims)
    tensor_type = f_varint(1, elem) + f_bytes(2, shape)
    return f_str(1, name) + f_bytes(2, f_bytes(1, tensor_type))


# ------------------------------------------------------------------ graph --
class Graph:
    def __init__(self, dtype, data_name):
        self.dtype = dtype
        self.data_name = data_name
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []
        self.offset = 0
        self.n = 0
        self.params = 0

    def weight(self, name, dims, elem=None):
        """An initializer stored as external data (not written)."""
        elem = elem or self.dtype
        numel = 1
        for d in dims:
            numel *= d
        nbytes = numel * ELEM_BYTES[elem]
        t = b"".join(f_varint(1, d) for d in dims) + f_varint(2, elem) + f_str(8, name)
        for k, v in (("location", self.data_name), ("offset", str(self.offset)), ("length", str(nbytes))):
            t += f_bytes(13, f_str(1, k) + f_str(2, v))
        t += f_varint(14, 1)  # data_location = EXTERNAL
        self.offset += nbytes
        self.params += numel
        self.inits.append(t)
        return name

    def const(self, name, values, elem, dims=None):
        """A small initializer stored inline (shape operands, scalars)."""
        dims = [len(values)] if dims is None else dims
        fmt = {INT64: "<q", INT32: "<i", FLOAT: "<f", FLOAT16: "<e"}[elem]
        raw = b"".join(struct.pack(fmt, v) for v in values)
        t = b"".join(f_varint(1, d) for d in dims) + f_varint(2, elem) + f_str(8, name) + f_bytes(9, raw)
        self.inits.append(t)
        return name

    def scalar(self, name, value):
        return self.const(name, [value], self.dtype, dims=[])

    def op(self, op_type, inputs, name, outputs=None, domain="", **attrs):
        self.n += 1
        outputs = outputs or ["%s_out%d" % (name.strip("/").replace("/", "_"), self.n)]
        b = b"".join(f_str(1, i) for i in inputs) + b"".join(f_str(2, o) for o in outputs)
        b += f_str(3, name) + f_str(4, op_type)
        b += b"".join(f_bytes(5, attribute(k, v)) for k, v in sorted(attrs.items()))
        if domain:
            b += f_str(7, domain)
        self.nodes.append(b)
        return outputs[0] if len(outputs) == 1 else outputs

    def model_bytes(self, graph_name, opsets):
        g = b"".join(f_bytes(1, n) for n in self.nodes) + f_str(2, graph_name)
        g += b"".join(f_bytes(5, t) for t in self.inits)
        g += b"".join(f_bytes(11, v) for v in self.inputs)
        g += b"".join(f_bytes(12, v) for v in self.outputs)
        m = f_varint(1, 8) + f_str(2, "rooflens-make_llm_model") + f_str(3, "1") + f_bytes(7, g)
        for dom, ver in opsets:
            m += f_bytes(8, f_str(1, dom) + f_varint(2, ver))
        return m


# ---------------------------------------------------------- HF / optimum --
def rms_norm(g, x, w, p):
    sq = g.op("Pow", [x, "const_two"], p + "Pow")
    mean = g.op("ReduceMean", [sq], p + "ReduceMean", axes=[-1], keepdims=1)
    ve = g.op("Add", [mean, "const_eps"], p + "Add")
    sd = g.op("Sqrt", [ve], p + "Sqrt")
    inv = g.op("Div", ["const_one", sd], p + "Div")
    xn = g.op("Mul", [x, inv], p + "Mul")
    return g.op("Mul", [w, xn], p + "Mul_1")


def rope(g, x, cos, sin, p, hd):
    x1 = g.op("Slice", [x, "const_zero1", "const_half_hd", "const_axis_m1"], p + "Slice")
    x2 = g.op("Slice", [x, "const_half_hd", "const_big", "const_axis_m1"], p + "Slice_1")
    nx2 = g.op("Neg", [x2], p + "Neg")
    rot = g.op("Concat", [nx2, x1], p + "Concat", axis=-1)
    a = g.op("Mul", [x, cos], p + "Mul")
    b = g.op("Mul", [rot, sin], p + "Mul_1")
    return g.op("Add", [a, b], p + "Add")


def swiglu(g, x, pre, p, d, ff):
    gate = g.op("MatMul", [x, g.weight(pre + "gate_proj.weight_t", [d, ff])], p + "gate_proj/MatMul")
    up = g.op("MatMul", [x, g.weight(pre + "up_proj.weight_t", [d, ff])], p + "up_proj/MatMul")
    sg = g.op("Sigmoid", [gate], p + "act_fn/Sigmoid")
    act = g.op("Mul", [gate, sg], p + "act_fn/Mul")
    h = g.op("Mul", [act, up], p + "Mul")
    return g.op("MatMul", [h, g.weight(pre + "down_proj.weight_t", [ff, d])], p + "down_proj/MatMul")


def build_hf(g, c):
    L, d, H, Hkv, hd, ff, V, P = c.layers, c.hidden, c.heads, c.kv_heads, c.head_dim, c.ff, c.vocab, c.max_pos
    n_rep = H // Hkv
    kv = not c.no_kv
    total = "past_sequence_length + 1" if kv else "sequence_length"
    g.scalar("const_two", 2.0)
    g.scalar("const_eps", 1e-5)
    g.scalar("const_one", 1.0)
    g.scalar("const_mask_min", -65504.0)
    g.scalar("const_scale", 1.0 / math.sqrt(hd))
    g.const("const_shape_q", [0, 0, H, hd], INT64)
    g.const("const_shape_kv", [0, 0, Hkv, hd], INT64)
    g.const("const_shape_rep", [0, H, -1, hd], INT64)
    g.const("const_expand_rep", [1, 1, n_rep, 1, 1], INT64)
    g.const("const_merge", [0, 0, H * hd], INT64)
    g.const("const_axes_1", [1], INT64)
    g.const("const_axes_2", [2], INT64)
    g.const("const_axes_12", [1, 2], INT64)
    g.const("const_zero1", [0], INT64)
    g.const("const_half_hd", [hd // 2], INT64)
    g.const("const_big", [2 ** 62], INT64)
    g.const("const_axis_m1", [-1], INT64)

    x = g.op("Gather", [g.weight("model.embed_tokens.weight", [V, d]), "input_ids"], "/model/embed_tokens/Gather")
    cos = g.op("Gather", [g.weight("model.rotary_emb.cos_cached", [P, hd]), "position_ids"], "/model/rotary_emb/Gather")
    sin = g.op("Gather", [g.weight("model.rotary_emb.sin_cached", [P, hd]), "position_ids"], "/model/rotary_emb/Gather_1")
    cos = g.op("Unsqueeze", [cos, "const_axes_1"], "/model/rotary_emb/Unsqueeze")
    sin = g.op("Unsqueeze", [sin, "const_axes_1"], "/model/rotary_emb/Unsqueeze_1")
    m = g.op("Cast", ["attention_mask"], "/model/mask/Cast", to=g.dtype)
    m = g.op("Sub", ["const_one", m], "/model/mask/Sub")
    m = g.op("Mul", [m, "const_mask_min"], "/model/mask/Mul")
    mask = g.op("Unsqueeze", [m, "const_axes_12"], "/model/mask/Unsqueeze")

    for i in range(L):
        pre, p = "model.layers.%d." % i, "/model/layers.%d/" % i
        h = rms_norm(g, x, g.weight(pre + "input_layernorm.weight", [d]), p + "input_layernorm/")
        heads = {}
        for nm, width, shape in (("q", H, "const_shape_q"), ("k", Hkv, "const_shape_kv"), ("v", Hkv, "const_shape_kv")):
            t = g.op("MatMul", [h, g.weight(pre + "self_attn.%s_proj.weight_t" % nm, [d, width * hd])],
                     p + "self_attn/%s_proj/MatMul" % nm)
            t = g.op("Reshape", [t, shape], p + "self_attn/Reshape_" + nm)
            heads[nm] = g.op("Transpose", [t], p + "self_attn/Transpose_" + nm, perm=[0, 2, 1, 3])
        q = rope(g, heads["q"], cos, sin, p + "self_attn/rope_q/", hd)
        k = rope(g, heads["k"], cos, sin, p + "self_attn/rope_k/", hd)
        v = heads["v"]
        if kv:
            k = g.op("Concat", ["past_key_values.%d.key" % i, k], p + "self_attn/Concat_k",
                     outputs=["present.%d.key" % i], axis=2)
            v = g.op("Concat", ["past_key_values.%d.value" % i, v], p + "self_attn/Concat_v",
                     outputs=["present.%d.value" % i], axis=2)
        if n_rep > 1:
            reps = []
            for nm, t in (("k", k), ("v", v)):
                t = g.op("Unsqueeze", [t, "const_axes_2"], p + "self_attn/repeat_kv_%s/Unsqueeze" % nm)
                t = g.op("Expand", [t, "const_expand_rep"], p + "self_attn/repeat_kv_%s/Expand" % nm)
                reps.append(g.op("Reshape", [t, "const_shape_rep"], p + "self_attn/repeat_kv_%s/Reshape" % nm))
            k, v = reps
        kt = g.op("Transpose", [k], p + "self_attn/Transpose_kt", perm=[0, 1, 3, 2])
        s = g.op("MatMul", [q, kt], p + "self_attn/MatMul")
        s = g.op("Mul", [s, "const_scale"], p + "self_attn/Mul")
        s = g.op("Add", [s, mask], p + "self_attn/Add")
        s = g.op("Softmax", [s], p + "self_attn/Softmax", axis=-1)
        o = g.op("MatMul", [s, v], p + "self_attn/MatMul_1")
        o = g.op("Transpose", [o], p + "self_attn/Transpose_o", perm=[0, 2, 1, 3])
        o = g.op("Reshape", [o, "const_merge"], p + "self_attn/Reshape_o")
        o = g.op("MatMul", [o, g.weight(pre + "self_attn.o_proj.weight_t", [H * hd, d])], p + "self_attn/o_proj/MatMul")
        x = g.op("Add", [x, o], p + "Add")
        h = rms_norm(g, x, g.weight(pre + "post_attention_layernorm.weight", [d]), p + "post_attention_layernorm/")
        if c.experts:
            y = dense_moe(g, h, pre, p, c)
        else:
            y = swiglu(g, h, pre + "mlp.", p + "mlp/", d, ff)
        x = g.op("Add", [x, y], p + "Add_1")
    h = rms_norm(g, x, g.weight("model.norm.weight", [d]), "/model/norm/")
    g.op("MatMul", [h, g.weight("lm_head.weight_t", [d, V])], "/lm_head/MatMul", outputs=["logits"])

    g.inputs += [value_info("input_ids", INT64, ["batch_size", "sequence_length"]),
                 value_info("attention_mask", INT64, ["batch_size", total]),
                 value_info("position_ids", INT64, ["batch_size", "sequence_length"])]
    g.outputs.append(value_info("logits", g.dtype, ["batch_size", "sequence_length", V]))
    if kv:
        for i in range(L):
            for kind in ("key", "value"):
                g.inputs.append(value_info("past_key_values.%d.%s" % (i, kind), g.dtype,
                                           ["batch_size", Hkv, "past_sequence_length", hd]))
                g.outputs.append(value_info("present.%d.%s" % (i, kind), g.dtype, ["batch_size", Hkv, total, hd]))
    return [("", 17)]


def dense_moe(g, h, pre, p, c):
    """Every expert computed on every token, weighed by the router's top K
    (zero for the others): what a plain export of a MoE block looks like."""
    E, k, d, ff = c.experts, c.top_k, c.hidden, c.ff
    logits = g.op("MatMul", [h, g.weight(pre + "mlp.gate.weight_t", [d, E])], p + "mlp/gate/MatMul")
    probs = g.op("Softmax", [logits], p + "mlp/Softmax", axis=-1)
    g.const(p + "k", [k], INT64)
    vals, idx = g.op("TopK", [probs, p + "k"], p + "mlp/TopK", outputs=[p + "topk_v", p + "topk_i"], axis=-1)
    # scatter the top-k weights back over the E experts: [B, S, E]
    zeros = g.op("Mul", [probs, "const_zero_f"], p + "mlp/zeros")
    dense = g.op("ScatterElements", [zeros, idx, vals], p + "mlp/ScatterElements", axis=-1)
    y = None
    for e in range(E):
        out = swiglu(g, h, pre + "mlp.experts.%d." % e, p + "mlp/experts.%d/" % e, d, ff)
        g.const(p + "e%d" % e, [e], INT64)
        w = g.op("Gather", [dense, p + "e%d" % e], p + "mlp/Gather_%d" % e, axis=-1)
        out = g.op("Mul", [out, w], p + "mlp/Mul_%d" % e)
        y = out if y is None else g.op("Add", [y, out], p + "mlp/Add_%d" % e)
    return y


# ------------------------------------------------------------ GenAI int4 --
def nbits(g, x, name, p, k_in, n_out, bs):
    blocks = (k_in + bs - 1) // bs
    b = g.weight(name + ".qweight", [n_out, blocks, bs // 2], UINT8)
    s = g.weight(name + ".scales", [n_out * blocks], FLOAT16)
    return g.op("MatMulNBits", [x, b, s], p + "MatMul_Q4", domain="com.microsoft",
                K=k_in, N=n_out, bits=4, block_size=bs, accuracy_level=4)


def build_genai(g, c):
    L, d, H, Hkv, hd, ff, V, P, bs = (c.layers, c.hidden, c.heads, c.kv_heads, c.head_dim, c.ff, c.vocab,
                                      c.max_pos, c.block_size)
    g.const("const_axes_1", [1], INT64)
    g.const("const_one_i64", [1], INT64, dims=[])
    g.const("const_shape_router", [-1, c.experts or 1], INT64)
    x = g.op("Gather", [g.weight("model.embed_tokens.weight", [V, d]), "input_ids"], "/model/embed_tokens/Gather")
    p = "/model/attn_mask_reformat/attn_mask_subgraph/"
    s = g.op("ReduceSum", ["attention_mask", "const_axes_1"], p + "ReduceSum", keepdims=0)
    s = g.op("Sub", [s, "const_one_i64"], p + "Sub")
    seqlens_k = g.op("Cast", [s], p + "Sub/Cast", to=INT32)
    shp = g.op("Shape", ["attention_mask"], p + "Shape")
    tot = g.op("Gather", [shp, "const_one_i64"], p + "Gather", axis=0)
    total_len = g.op("Cast", [tot], p + "Gather/Cast", to=INT32)
    cos = g.weight("cos_cache", [P, hd // 2])
    sin = g.weight("sin_cache", [P, hd // 2])
    residual = None
    for i in range(L):
        pre, p = "model.layers.%d." % i, "/model/layers.%d/" % i
        w = g.weight(pre + "input_layernorm.weight", [d])
        if residual is None:
            h = g.op("SimplifiedLayerNormalization", [x, w], p + "input_layernorm/LayerNorm", axis=-1, epsilon=1e-5,
                     stash_type=1)
            residual = x
        else:
            h, _, _, residual = g.op("SkipSimplifiedLayerNormalization", [x, residual, w], p + "input_layernorm/SkipLayerNorm",
                               outputs=[p + "in_ln_out", "", "", p + "in_ln_sum"], domain="com.microsoft", epsilon=1e-5)
        q = nbits(g, h, pre + "attn.q_proj", p + "attn/q_proj/", d, H * hd, bs)
        k = nbits(g, h, pre + "attn.k_proj", p + "attn/k_proj/", d, Hkv * hd, bs)
        v = nbits(g, h, pre + "attn.v_proj", p + "attn/v_proj/", d, Hkv * hd, bs)
        a = g.op("GroupQueryAttention",
                 [q, k, v, "past_key_values.%d.key" % i, "past_key_values.%d.value" % i, seqlens_k, total_len, cos, sin],
                 p + "attn/GroupQueryAttention",
                 outputs=[p + "attn_out", "present.%d.key" % i, "present.%d.value" % i], domain="com.microsoft",
                 num_heads=H, kv_num_heads=Hkv, do_rotary=1, rotary_interleaved=0, scale=1.0 / math.sqrt(hd),
                 local_window_size=-1)[0]
        o = nbits(g, a, pre + "attn.o_proj", p + "attn/o_proj/", H * hd, d, bs)
        w = g.weight(pre + "post_attention_layernorm.weight", [d])
        h, _, _, residual = g.op("SkipSimplifiedLayerNormalization", [o, residual, w],
                                 p + "post_attention_layernorm/SkipLayerNorm",
                           outputs=[p + "post_ln_out", "", "", p + "post_ln_sum"], domain="com.microsoft", epsilon=1e-5)
        if c.experts:
            E = c.experts
            r = g.op("MatMul", [h, g.weight(pre + "moe.gate.weight_t", [d, E])], p + "moe/gate/MatMul")
            r = g.op("Reshape", [r, "const_shape_router"], p + "moe/Reshape")
            ins = [h, r,
                   g.weight(pre + "moe.fc1.qweight", [E, ff, d // 2], UINT8), g.weight(pre + "moe.fc1.scales", [E, ff], FLOAT16), "",
                   g.weight(pre + "moe.fc2.qweight", [E, d, ff // 2], UINT8), g.weight(pre + "moe.fc2.scales", [E, d], FLOAT16), "",
                   g.weight(pre + "moe.fc3.qweight", [E, ff, d // 2], UINT8), g.weight(pre + "moe.fc3.scales", [E, ff], FLOAT16)]
            x = g.op("QMoE", ins, p + "moe/QMoE", domain="com.microsoft", k=c.top_k, activation_type="silu",
                     expert_weight_bits=4, normalize_routing_weights=1)
        else:
            gate = nbits(g, h, pre + "mlp.gate_proj", p + "mlp/gate_proj/", d, ff, bs)
            up = nbits(g, h, pre + "mlp.up_proj", p + "mlp/up_proj/", d, ff, bs)
            sg = g.op("Sigmoid", [gate], p + "mlp/act_fn/Sigmoid")
            act = g.op("Mul", [gate, sg], p + "mlp/act_fn/Mul")
            hm = g.op("Mul", [act, up], p + "mlp/Mul")
            x = nbits(g, hm, pre + "mlp.down_proj", p + "mlp/down_proj/", ff, d, bs)
    h = g.op("SkipSimplifiedLayerNormalization", [x, residual, g.weight("model.norm.weight", [d])],
             "/model/layers.%d/final_norm_layernorm/SkipLayerNorm" % L, outputs=["final_norm_out"],
             domain="com.microsoft", epsilon=1e-5)
    blocks = (d + bs - 1) // bs
    g.op("MatMulNBits", [h, g.weight("lm_head.qweight", [V, blocks, bs // 2], UINT8),
                         g.weight("lm_head.scales", [V * blocks], FLOAT16)],
         "/lm_head/MatMul_Q4", outputs=["logits"], domain="com.microsoft", K=d, N=V, bits=4, block_size=bs,
         accuracy_level=4)
    g.inputs += [value_info("input_ids", INT64, ["batch_size", "sequence_length"]),
                 value_info("attention_mask", INT64, ["batch_size", "total_sequence_length"])]
    g.outputs.append(value_info("logits", FLOAT16, ["batch_size", "sequence_length", V]))
    for i in range(L):
        for kind in ("key", "value"):
            g.inputs.append(value_info("past_key_values.%d.%s" % (i, kind), FLOAT16,
                                       ["batch_size", Hkv, "past_sequence_length", hd]))
            g.outputs.append(value_info("present.%d.%s" % (i, kind), FLOAT16,
                                        ["batch_size", Hkv, "total_sequence_length", hd]))
    return [("", 21), ("com.microsoft", 1)]


# The models the tests use (tests/test_llm.c), made by --suite DIR.
SUITE = [
    ("tiny_hf.onnx", ["--layout", "hf"]),
    ("tiny_genai.onnx", ["--layout", "genai"]),
    ("tiny_nokv.onnx", ["--layout", "hf", "--no-kv"]),
    ("tiny_moe.onnx", ["--layout", "hf", "--experts", "4", "--top-k", "2"]),
    ("tiny_qmoe.onnx", ["--layout", "genai", "--experts", "4", "--top-k", "2"]),
    ("llama-3.2-1b_hf_fp16.onnx", ["--layout", "hf", "--preset", "llama-3.2-1b"]),
    ("llama-3-8b_genai_int4.onnx", ["--layout", "genai", "--preset", "llama-3-8b"]),
]


def main(argv=None):
    if argv is None and len(sys.argv) == 3 and sys.argv[1] == "--suite":
        os.makedirs(sys.argv[2], exist_ok=True)
        for name, args in SUITE:
            main([os.path.join(sys.argv[2], name)] + args)
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[1:]))
    ap.add_argument("out")
    ap.add_argument("--layout", choices=("hf", "genai"), default="hf")
    ap.add_argument("--preset", choices=sorted(PRESETS), default="tiny")
    for name in ("layers", "hidden", "heads", "kv-heads", "head-dim", "ff", "vocab", "max-pos"):
        ap.add_argument("--" + name, type=int)
    ap.add_argument("--dtype", choices=("fp16", "fp32"), default="fp16", help="hf layout only")
    ap.add_argument("--block-size", type=int, default=32, help="genai layout: MatMulNBits block size")
    ap.add_argument("--no-kv", action="store_true", help="hf layout: no past/present (prefill only)")
    ap.add_argument("--experts", type=int, default=0, help="a mixture of E experts in place of each MLP")
    ap.add_argument("--top-k", type=int, default=2)
    c = ap.parse_args(argv)
    names = ("layers", "hidden", "heads", "kv_heads", "head_dim", "ff", "vocab", "max_pos")
    for n, v in zip(names, PRESETS[c.preset]):
        if getattr(c, n) is None:
            setattr(c, n, v)
    if c.heads % c.kv_heads:
        ap.error("--heads must be a multiple of --kv-heads")
    if c.layout == "genai" and c.no_kv:
        ap.error("--no-kv is for the hf layout")
    g = Graph(FLOAT16 if c.dtype == "fp16" or c.layout == "genai" else FLOAT, os.path.basename(c.out) + ".data")
    if c.experts:
        g.scalar("const_zero_f", 0.0)
    opsets = build_hf(g, c) if c.layout == "hf" else build_genai(g, c)
    data = g.model_bytes("decoder", opsets)
    with open(c.out, "wb") as f:
        f.write(data)
    print("%s: %s layout, %d nodes, %d weight elements, %d bytes" % (c.out, c.layout, len(g.nodes), g.params, len(data)))


if __name__ == "__main__":
    main()
