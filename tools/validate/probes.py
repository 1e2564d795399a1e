#!/usr/bin/python3
"""Writes the probe model: dense products as a CNN and a transformer run
them (3x3 and 1x1 convolutions, a strided one, a transformer's GEMM and
attention scores, a classifier's GEMV), side by side in one ONNX graph.

Why: a fit learns a class's efficiency only from kernels of that class. A
calibration on two transformers has no convolution, one on two CNNs no
GEMM, and the product class it lacks borrows the other's figures, though
a runtime runs them with different kernels at different shares of the
peak (docs/validation.md, runs 11-14: the tail of every run). Measured
beside a user's own models and given to `rooflens calibrate --probe`, the
probe sets the product classes the models have no kernel of, and nothing
else (docs/model.md §12.5).

The shapes are fixed: each is a product from the middle of a common
network. They are synthetic: no model the validation holds out is among
them. Every probe reads its data from a graph input, so no runtime can
fold it away. Grouped and depthwise convolutions are left out: their time
rests on the cost per group and the depthwise class, which a probe does
not set.

    /usr/bin/python3 tools/validate/probes.py OUT_DIR   (writes OUT_DIR/probes.onnx)

Needs Debian's python3-onnx and python3-numpy.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
rng = np.random.default_rng(20261129)


def weight(name, shape):
    return numpy_helper.from_array((rng.standard_normal(shape) * 0.05).astype(np.float32), name)


def value(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def model(name, nodes, inputs, outputs, inits=()):
    for i, n in enumerate(nodes):  # a profile names its kernels by their nodes
        n.name = f"{name}/{n.op_type}_{i}"
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="rooflens-probes")
    onnx.checker.check_model(m)
    return m


def conv(name, c_in, c_out, hw, k, stride=1, group=1):
    pad = k // 2
    out_hw = (hw + 2 * pad - k) // stride + 1
    return model(
        name,
        [helper.make_node("Conv", ["x", "w", "b"], ["y"], kernel_shape=[k, k], pads=[pad] * 4,
                          strides=[stride, stride], group=group)],
        [value("x", [1, c_in, hw, hw])], [value("y", [1, c_out, out_hw, out_hw])],
        [weight("w", [c_out, c_in // group, k, k]), weight("b", [c_out])])


def probes():
    seq = [1, 128, 768]  # a BERT-base layer's activations
    yield conv("conv3x3_64", 64, 64, 56, 3)
    yield conv("conv1x1_256to64", 256, 64, 56, 1)
    yield conv("conv3x3_s2_128", 128, 128, 56, 3, stride=2)
    yield model("matmul_128x768x3072", [helper.make_node("MatMul", ["x", "w"], ["y"])],
                [value("x", seq)], [value("y", [1, 128, 3072])], [weight("w", [768, 3072])])
    yield model("matmul_attention_scores", [helper.make_node("MatMul", ["q", "k"], ["y"])],
                [value("q", [1, 12, 128, 64]), value("k", [1, 12, 64, 128])], [value("y", [1, 12, 128, 128])])
    yield model("gemm_1280x1000", [helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)],
                [value("x", [1, 1280])], [value("y", [1, 1000])], [weight("w", [1000, 1280]), weight("b", [1000])])


def combined(models):
    """Every probe side by side in one graph, each under its own prefix: a
    fit weighs each model alike, so the set enters it as one model, not as
    twenty that would outweigh the user's own."""
    nodes, inputs, outputs, inits = [], [], [], []
    for m in models:
        g, pre = m.graph, m.graph.name + "/"
        ren = lambda x: pre + x if x else x
        for n in g.node:
            n.input[:] = [ren(x) for x in n.input]
            n.output[:] = [ren(x) for x in n.output]
            nodes.append(n)
        for v in g.input:
            v.name = ren(v.name)
            inputs.append(v)
        for v in g.output:
            v.name = ren(v.name)
            outputs.append(v)
        for t in g.initializer:
            t.name = ren(t.name)
            inits.append(t)
    graph = helper.make_graph(nodes, "probes", inputs, outputs, inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="rooflens-probes")
    onnx.checker.check_model(m)
    return m


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: probes.py OUT_DIR")
    os.makedirs(sys.argv[1], exist_ok=True)
    onnx.save(combined(list(probes())), os.path.join(sys.argv[1], "probes.onnx"))
    print("probes.onnx")


if __name__ == "__main__":
    main()
