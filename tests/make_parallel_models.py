#!/usr/bin/env python3
"""The models tests/test_parallel.c reads, written into DIR (standard
library only; weights are external and not written, as in
tools/make_llm_model.py, whose writer this reuses):

  seed_D<D>.onnx   seed 003's two-chip example: Z = X @ Y, X fp32[B, D] an
                   input, Y[D, F] a weight, B = F = 8192 (analysed at bf16),
                   for D in 4096, 8192, 9216, 16384
  mlp2.onnx        a two-layer MLP: X[16, 256] @ W1[256, 1024], Relu, @ W2[1024, 256]
  llama1.onnx      one Llama block (hf layout, fp16): hidden 256, 8 heads,
                   4 KV heads, head dim 32, MLP 512, vocab 1024, with a KV cache

    python3 tests/make_parallel_models.py DIR
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import make_llm_model as mk  # noqa: E402

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


def main(argv):
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    for d in SEED_DS:
        seed(os.path.join(out, "seed_D%d.onnx" % d), d)
    mlp2(os.path.join(out, "mlp2.onnx"))
    subprocess.run([sys.executable, os.path.join(HERE, "..", "tools", "make_llm_model.py"),
                    os.path.join(out, "llama1.onnx"), "--layout", "hf", "--layers", "1", "--hidden", "256",
                    "--heads", "8", "--kv-heads", "4", "--head-dim", "32", "--ff", "512", "--vocab", "1024",
                    "--max-pos", "256"], check=True, stdout=subprocess.DEVNULL)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
