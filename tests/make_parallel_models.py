#!/usr/bin/env python3
"""The models tests/test_parallel.c reads, written into DIR (standard
library only; weights are external and not written, as in
tools/make-models/llm_model.py, whose writer this reuses):

  seed_D<D>.onnx   seed 003's two-chip example: Z = X @ Y, X fp32[B, D] an
                   input, Y[D, F] a weight, B = F = 8192 (analysed at bf16),
                   for D in 4096, 8192, 9216, 16384
  mlp2.onnx        a two-layer MLP: X[16, 256] @ W1[256, 1024], Relu, @ W2[1024, 256]
  llama1.onnx      one Llama block (hf layout, fp16): hidden 256, 8 heads,
                   4 KV heads, head dim 32, MLP 512, vocab 1024, with a KV cache
  vit_chunk.onnx   one ViT-B/16 encoder block as torch exports
                   nn.MultiheadAttention (sequence first): 197 tokens, batch 1,
                   width 768, 12 heads of 64; the packed Q/K/V product cut in
                   three by Split (torch's chunk), each reshaped
                   [197, 1, 768] -> [197, 12, 64] (sequence, batch x heads, dim)
  vit_unflatten.onnx  the same block as newer torch writes the cut: the packed
                   product reshaped [197, 1, 2304] -> [197, 1, 3, 768] and its
                   three parts gathered (the 3 is not a head count)
  vit_dynamic.onnx the chunk block with the heads' shape a graph input
                   (head_shape), so that its head count cannot be known
  mlp_narrow.onnx  X[4, 8] @ W1[8, 6], Relu, @ W2[6, 8]: six hidden features

    python3 tests/make_parallel_models.py DIR
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools", "make-models"))
import llm_model as mk  # noqa: E402

SEED_B = SEED_F = 8192
SEED_DS = (4096, 8192, 9216, 16384)


def write(path, g, name):
    with open(path, "wb") as f:
        f.write(g.model_bytes(name, [("", 17)]))


def seed(path, d):
    g = mk.Graph(mk.FLOAT, os.path.basename(path) + ".data")
    g.inputs.append(mk.value_info("X", mk.FLOAT, [SEED_B, d]))
    g.op("MatMul", ["X", g.weight("Y", [d, SEED_F])], "matmul", outputs=["Z"])
    g.outputs.append(mk.value_info("Z", mk.FLOAT, [SEED_B, SEED_F]))
    write(path, g, "seed003")


def mlp2(path):
    g = mk.Graph(mk.FLOAT, "mlp2.onnx.data")
    g.inputs.append(mk.value_info("X", mk.FLOAT, [16, 256]))
    h = g.op("MatMul", ["X", g.weight("W1", [256, 1024])], "fc1")
    r = g.op("Relu", [h], "relu")
    g.op("MatMul", [r, g.weight("W2", [1024, 256])], "fc2", outputs=["Y"])
    g.outputs.append(mk.value_info("Y", mk.FLOAT, [16, 256]))
    write(path, g, "mlp2")


def mlp_narrow(path):
    g = mk.Graph(mk.FLOAT, "mlp_narrow.onnx.data")
    g.inputs.append(mk.value_info("X", mk.FLOAT, [4, 8]))
    h = g.op("MatMul", ["X", g.weight("W1", [8, 6])], "fc1")
    r = g.op("Relu", [h], "relu")
    g.op("MatMul", [r, g.weight("W2", [6, 8])], "fc2", outputs=["Y"])
    g.outputs.append(mk.value_info("Y", mk.FLOAT, [4, 8]))
    write(path, g, "mlp_narrow")


VIT_S, VIT_E, VIT_H, VIT_FF = 197, 768, 12, 3072


def vit_qkv(g, qkv, cut):
    """The packed [S, 1, 3E] product cut into q, k, v of [S, 1, E]."""
    if cut != "unflatten":
        return g.op("Split", [qkv, g.const("qkv_split", [VIT_E] * 3, mk.INT64)], "/attn/Split", axis=-1,
                    outputs=["q", "k", "v"])
    parts = g.op("Reshape", [qkv, g.const("shape_s_1_3_e", [VIT_S, 1, 3, VIT_E], mk.INT64)], "/attn/Reshape")
    parts = g.op("Transpose", [parts], "/attn/Transpose", perm=[2, 0, 1, 3])
    return [g.op("Gather", [parts, g.const("idx%d" % i, [i], mk.INT64, dims=[])], "/attn/Gather_%d" % i, axis=0)
            for i in range(3)]


def vit_block(path, cut):
    """One encoder block of torchvision's ViT-B/16, batch 1, as exported."""
    g = mk.Graph(mk.FLOAT, os.path.basename(path) + ".data")
    S, E, H, d = VIT_S, VIT_E, VIT_H, VIT_E // VIT_H
    g.inputs.append(mk.value_info("X", mk.FLOAT, [1, S, E]))
    ln = g.op("LayerNormalization", ["X", g.weight("ln_1.weight", [E]), g.weight("ln_1.bias", [E])], "/ln_1/LN", axis=-1)
    xt = g.op("Transpose", [ln], "/attn/Transpose_in", perm=[1, 0, 2])
    qkv = g.op("MatMul", [xt, g.weight("in_proj_weight_t", [E, 3 * E])], "/attn/in_proj/MatMul")
    qkv = g.op("Add", [qkv, g.weight("in_proj_bias", [3 * E])], "/attn/in_proj/Add")
    heads = []
    if cut == "dynamic":
        g.inputs.append(mk.value_info("head_shape", mk.INT64, [3]))
    for name, x in zip("qkv", vit_qkv(g, qkv, cut)):
        shape = "head_shape" if cut == "dynamic" else g.const("shape_s_bh_d_" + name, [S, H, d], mk.INT64)
        r = g.op("Reshape", [x, shape], "/attn/Reshape_" + name)
        heads.append(g.op("Transpose", [r], "/attn/Transpose_" + name, perm=[1, 0, 2]))  # [H, S, d]
    q = g.op("Mul", [heads[0], g.scalar("scale", 0.125)], "/attn/Mul")
    kt = g.op("Transpose", [heads[1]], "/attn/Transpose_kt", perm=[0, 2, 1])
    p = g.op("Softmax", [g.op("MatMul", [q, kt], "/attn/MatMul")], "/attn/Softmax", axis=-1)
    ctx = g.op("Transpose", [g.op("MatMul", [p, heads[2]], "/attn/MatMul_1")], "/attn/Transpose_out", perm=[1, 0, 2])
    ctx = g.op("Reshape", [ctx, g.const("shape_s_e", [S, E], mk.INT64)], "/attn/Reshape_out")
    o = g.op("Gemm", [ctx, g.weight("out_proj.weight", [E, E]), g.weight("out_proj.bias", [E])], "/attn/out_proj/Gemm",
             transB=1)
    o = g.op("Transpose", [g.op("Reshape", [o, g.const("shape_s_1_e", [S, 1, E], mk.INT64)], "/attn/Reshape_o")],
             "/attn/Transpose_o", perm=[1, 0, 2])
    x1 = g.op("Add", ["X", o], "/Add")
    ln2 = g.op("LayerNormalization", [x1, g.weight("ln_2.weight", [E]), g.weight("ln_2.bias", [E])], "/ln_2/LN", axis=-1)
    h = g.op("Add", [g.op("MatMul", [ln2, g.weight("mlp.0.weight_t", [E, VIT_FF])], "/mlp/0/MatMul"),
                     g.weight("mlp.0.bias", [VIT_FF])], "/mlp/0/Add")
    erf = g.op("Erf", [g.op("Div", [h, g.scalar("sqrt2", 1.4142135)], "/mlp/1/Div")], "/mlp/1/Erf")
    h = g.op("Mul", [g.op("Mul", [h, g.op("Add", [erf, g.scalar("one", 1.0)], "/mlp/1/Add")], "/mlp/1/Mul"),
                     g.scalar("half", 0.5)], "/mlp/1/Mul_1")
    y = g.op("Add", [g.op("MatMul", [h, g.weight("mlp.3.weight_t", [VIT_FF, E])], "/mlp/3/MatMul"),
                     g.weight("mlp.3.bias", [E])], "/mlp/3/Add")
    g.op("Add", [x1, y], "/Add_1", outputs=["Y"])
    g.outputs.append(mk.value_info("Y", mk.FLOAT, [1, S, E]))
    write(path, g, "vit_block")


def main(argv):
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    for d in SEED_DS:
        seed(os.path.join(out, "seed_D%d.onnx" % d), d)
    mlp2(os.path.join(out, "mlp2.onnx"))
    for cut in ("chunk", "unflatten", "dynamic"):
        vit_block(os.path.join(out, "vit_%s.onnx" % cut), cut)
    mlp_narrow(os.path.join(out, "mlp_narrow.onnx"))
    subprocess.run([sys.executable, os.path.join(HERE, "..", "tools", "make-models", "llm_model.py"),
                    os.path.join(out, "llama1.onnx"), "--layout", "hf", "--layers", "1", "--hidden", "256",
                    "--heads", "8", "--kv-heads", "4", "--head-dim", "32", "--ff", "512", "--vocab", "1024",
                    "--max-pos", "256"], check=True, stdout=subprocess.DEVNULL)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
