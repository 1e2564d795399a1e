#!/usr/bin/python3
"""Write a GPT-style decoder (GPT-2-small shaped by default) with random
float32 weights, for runtimes that need the data (tools/validate/cpu.sh):

    /usr/bin/python3 tools/make-models/gpt_model.py OUT.onnx [--layers 12 --hidden 768
        --heads 12 --vocab 50257 --ctx 1024]

Graph (opset 17, as torch.onnx.export writes a pre-LN decoder, node names in
its style): input_ids int64 [batch, seq] (symbolic); token + position
embedding (positions from Shape/Gather/Range); per layer LayerNormalization,
Q/K/V MatMul + Add, Reshape [0, 0, heads, head_dim] + Transpose, scores
MatMul, Div by sqrt(head_dim), causal mask (Trilu of ones, Where to -1e9),
Softmax, MatMul V, Transpose + Reshape back, output MatMul + Add, residual
Add, LayerNormalization, MLP MatMul + Add, erf GELU (Div, Erf, Add, Mul, Mul),
MatMul + Add, residual Add; final LayerNormalization and the LM head MatMul
-> logits [batch, seq, vocab]. Weights N(0, 0.02), LayerNorm gains 1, seed 0.
Needs python3-onnx and python3-numpy only.
"""
import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build(layers, d, heads, vocab, ctx):
    rng = np.random.default_rng(0)
    inits, nodes = [], []

    def w(name, *shape, std=0.02):
        inits.append(numpy_helper.from_array((rng.standard_normal(shape, dtype=np.float32) * std), name))
        return name

    def c(name, value, dtype=np.float32):
        inits.append(numpy_helper.from_array(np.array(value, dtype=dtype), name))
        return name

    def node(op, ins, outs, name, **attrs):
        nodes.append(helper.make_node(op, ins, outs, name=name, **attrs))
        return outs[0]

    hd = d // heads
    c("one", 1.0), c("half", 0.5), c("sqrt2", np.sqrt(2.0)), c("scale", np.sqrt(hd)), c("neg", -1e9)
    c("zero_f", 0.0), c("i0", 0, np.int64), c("i1", 1, np.int64), c("axes0", [0], np.int64)
    c("heads_shape", [0, 0, heads, hd], np.int64), c("merge_shape", [0, 0, d], np.int64)
    tok = node("Gather", [w("wte", vocab, d), "input_ids"], ["/wte/Gather_output_0"], "/wte/Gather")
    shape = node("Shape", ["input_ids"], ["/Shape_output_0"], "/Shape")
    seq = node("Gather", [shape, "i1"], ["/Gather_output_0"], "/Gather", axis=0)
    pos_ids = node("Range", ["i0", seq, "i1"], ["/Range_output_0"], "/Range")
    pos = node("Gather", [w("wpe", ctx, d), pos_ids], ["/wpe/Gather_output_0"], "/wpe/Gather")
    h = node("Add", [tok, pos], ["/Add_output_0"], "/Add")
    seq1 = node("Unsqueeze", [seq, "axes0"], ["/Unsqueeze_output_0"], "/Unsqueeze")
    mshape = node("Concat", [seq1, seq1], ["/Concat_output_0"], "/Concat", axis=0)
    ones = node("ConstantOfShape", [mshape], ["/ConstantOfShape_output_0"], "/ConstantOfShape",
                value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0]))
    lower = node("Trilu", [ones], ["/Trilu_output_0"], "/Trilu", upper=0)
    masked = node("Equal", [lower, "zero_f"], ["/Equal_output_0"], "/Equal")
    for i in range(layers):
        p = "/h.%d" % i
        c(p + ".ln1.g", np.ones(d)), c(p + ".ln1.b", np.zeros(d))
        c(p + ".ln2.g", np.ones(d)), c(p + ".ln2.b", np.zeros(d))
        x = node("LayerNormalization", [h, p + ".ln1.g", p + ".ln1.b"], [p + "/ln_1/LayerNormalization_output_0"],
                 p + "/ln_1/LayerNormalization", axis=-1)
        qkv = []
        for n in ("q", "k", "v"):
            mm = node("MatMul", [x, w("%s.attn.%s.w" % (p, n), d, d)], ["%s/attn/%s/MatMul_output_0" % (p, n)],
                      "%s/attn/%s/MatMul" % (p, n))
            b = node("Add", [w("%s.attn.%s.b" % (p, n), d), mm], ["%s/attn/%s/Add_output_0" % (p, n)],
                     "%s/attn/%s/Add" % (p, n))
            r = node("Reshape", [b, "heads_shape"], ["%s/attn/Reshape_%s_output_0" % (p, n)], "%s/attn/Reshape_%s" % (p, n))
            perm = [0, 2, 3, 1] if n == "k" else [0, 2, 1, 3]
            qkv.append(node("Transpose", [r], ["%s/attn/Transpose_%s_output_0" % (p, n)],
                            "%s/attn/Transpose_%s" % (p, n), perm=perm))
        s = node("MatMul", [qkv[0], qkv[1]], [p + "/attn/MatMul_output_0"], p + "/attn/MatMul")
        s = node("Div", [s, "scale"], [p + "/attn/Div_output_0"], p + "/attn/Div")
        s = node("Where", [masked, "neg", s], [p + "/attn/Where_output_0"], p + "/attn/Where")
        s = node("Softmax", [s], [p + "/attn/Softmax_output_0"], p + "/attn/Softmax", axis=-1)
        o = node("MatMul", [s, qkv[2]], [p + "/attn/MatMul_1_output_0"], p + "/attn/MatMul_1")
        o = node("Transpose", [o], [p + "/attn/Transpose_output_0"], p + "/attn/Transpose", perm=[0, 2, 1, 3])
        o = node("Reshape", [o, "merge_shape"], [p + "/attn/Reshape_output_0"], p + "/attn/Reshape")
        o = node("MatMul", [o, w(p + ".attn.proj.w", d, d)], [p + "/attn/proj/MatMul_output_0"], p + "/attn/proj/MatMul")
        o = node("Add", [w(p + ".attn.proj.b", d), o], [p + "/attn/proj/Add_output_0"], p + "/attn/proj/Add")
        h = node("Add", [h, o], [p + "/Add_output_0"], p + "/Add")
        x = node("LayerNormalization", [h, p + ".ln2.g", p + ".ln2.b"], [p + "/ln_2/LayerNormalization_output_0"],
                 p + "/ln_2/LayerNormalization", axis=-1)
        f = node("MatMul", [x, w(p + ".mlp.fc.w", d, 4 * d)], [p + "/mlp/fc/MatMul_output_0"], p + "/mlp/fc/MatMul")
        f = node("Add", [w(p + ".mlp.fc.b", 4 * d), f], [p + "/mlp/fc/Add_output_0"], p + "/mlp/fc/Add")
        g = node("Div", [f, "sqrt2"], [p + "/mlp/act/Div_output_0"], p + "/mlp/act/Div")
        g = node("Erf", [g], [p + "/mlp/act/Erf_output_0"], p + "/mlp/act/Erf")
        g = node("Add", [g, "one"], [p + "/mlp/act/Add_output_0"], p + "/mlp/act/Add")
        g = node("Mul", [f, g], [p + "/mlp/act/Mul_output_0"], p + "/mlp/act/Mul")
        g = node("Mul", [g, "half"], [p + "/mlp/act/Mul_1_output_0"], p + "/mlp/act/Mul_1")
        f = node("MatMul", [g, w(p + ".mlp.proj.w", 4 * d, d)], [p + "/mlp/proj/MatMul_output_0"], p + "/mlp/proj/MatMul")
        f = node("Add", [w(p + ".mlp.proj.b", d), f], [p + "/mlp/proj/Add_output_0"], p + "/mlp/proj/Add")
        h = node("Add", [h, f], [p + "/Add_1_output_0"], p + "/Add_1")
    c("lnf.g", np.ones(d)), c("lnf.b", np.zeros(d))
    x = node("LayerNormalization", [h, "lnf.g", "lnf.b"], ["/ln_f/LayerNormalization_output_0"],
             "/ln_f/LayerNormalization", axis=-1)
    node("MatMul", [x, w("lm_head.w", d, vocab)], ["logits"], "/lm_head/MatMul")
    graph = helper.make_graph(nodes, "gpt_decoder",
                              [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "seq", vocab])],
                              inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="rooflens")
    model.ir_version = 8
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--hidden", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--vocab", type=int, default=50257)
    ap.add_argument("--ctx", type=int, default=1024)
    a = ap.parse_args()
    m = build(a.layers, a.hidden, a.heads, a.vocab, a.ctx)
    onnx.checker.check_model(m)
    onnx.save(m, a.out)


if __name__ == "__main__":
    main()
