#!/usr/bin/python3
"""Write a model of many small nodes and a CSV profile of it, for timing
`rooflens calibrate --from` (issue 43: 8 pairs of a 2,000-node model took
115 s to fit).

    /usr/bin/python3 tests/cli/make_fit_hostile.py OUT_DIR [--nodes N] [--distinct]

OUT_DIR/chain.onnx: x[1,8,8,8] through N nodes, a repeating 3x3 Conv, a
depthwise 3x3 Conv, Add, MatMul, Softmax and Relu (weights shared): few
distinct kernels, many of each, and every kind of parameter of the fit.
With --distinct, N/3 branches of x[1,8,1,N/3+2] instead, branch i a Slice
of its first i+3 columns, a 1x1 Conv, a depthwise 1x3 Conv or a Softmax of
that, and a Relu: every kernel of its own shape.
OUT_DIR/chain.csv: name,time_us,op, one row per node, times from 2 to 12 us
in a fixed pattern. Uses only `onnx` and numpy; deterministic output.
"""

import argparse
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

F = TensorProto.FLOAT


def chain(n):
    c = 8
    inits = [numpy_helper.from_array(np.full((c, c, 3, 3), 0.01, dtype=np.float32), "w"),
             numpy_helper.from_array(np.full((c, 1, 3, 3), 0.1, dtype=np.float32), "dw"),
             numpy_helper.from_array(np.full((c, 1, 1), 0.1, dtype=np.float32), "b"),
             numpy_helper.from_array(np.full((8, 8), 0.1, dtype=np.float32), "m")]
    nodes, prev = [], "x"
    for i in range(n):
        out = "y" if i == n - 1 else "t%d" % i
        kind = i % 6
        if kind == 0:
            nd = helper.make_node("Conv", [prev, "w"], [out], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
        elif kind == 1:
            nd = helper.make_node("Conv", [prev, "dw"], [out], kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=c)
        elif kind == 2:
            nd = helper.make_node("Add", [prev, "b"], [out])
        elif kind == 3:
            nd = helper.make_node("MatMul", [prev, "m"], [out])
        elif kind == 4:
            nd = helper.make_node("Softmax", [prev], [out], axis=1)
        else:
            nd = helper.make_node("Relu", [prev], [out])
        nd.name = "n%d" % i
        nodes.append(nd)
        prev = out
    g = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", F, [1, c, 8, 8])],
                          [helper.make_tensor_value_info("y", F, [1, c, 8, 8])], inits)
    return g, [(nd.name, nd.op_type) for nd in nodes]


def distinct(n):
    c, width = 8, max(n // 3, 1)
    inits = [numpy_helper.from_array(np.array([0], dtype=np.int64), "zero"),
             numpy_helper.from_array(np.array([3], dtype=np.int64), "axis"),
             numpy_helper.from_array(np.full((c, c, 1, 1), 0.01, dtype=np.float32), "w"),
             numpy_helper.from_array(np.full((c, 1, 1, 3), 0.1, dtype=np.float32), "dw")]
    nodes, outs = [], []
    for i in range(width):
        inits.append(numpy_helper.from_array(np.array([i + 3], dtype=np.int64), "end%d" % i))
        nodes.append(helper.make_node("Slice", ["x", "zero", "end%d" % i, "axis"], ["s%d" % i], name="slice%d" % i))
        kind = i % 3
        if kind == 0:
            nd = helper.make_node("Conv", ["s%d" % i, "w"], ["c%d" % i], kernel_shape=[1, 1])
        elif kind == 1:
            nd = helper.make_node("Conv", ["s%d" % i, "dw"], ["c%d" % i], kernel_shape=[1, 3], pads=[0, 1, 0, 1], group=c)
        else:
            nd = helper.make_node("Softmax", ["s%d" % i], ["c%d" % i], axis=3)
        nd.name = "op%d" % i
        nodes.append(nd)
        nodes.append(helper.make_node("Relu", ["c%d" % i], ["r%d" % i], name="relu%d" % i))
        outs.append(helper.make_tensor_value_info("r%d" % i, F, [1, c, 1, i + 3]))
    g = helper.make_graph(nodes, "distinct", [helper.make_tensor_value_info("x", F, [1, c, 1, width + 2])], outs, inits)
    return g, [(nd.name, nd.op_type) for nd in nodes]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--nodes", type=int, default=2000)
    ap.add_argument("--distinct", action="store_true")
    a = ap.parse_args()
    g, rows = (distinct if a.distinct else chain)(a.nodes)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], producer_name="rooflens-tests")
    m.ir_version = 8
    os.makedirs(a.out, exist_ok=True)
    save(m, os.path.join(a.out, "chain.onnx"))
    with open(os.path.join(a.out, "chain.csv"), "w") as f:
        f.write("name,time_us,op\n")
        for i, (name, op) in enumerate(rows):
            f.write("%s,%d,%s\n" % (name, 2 + (i * 7) % 11, op))


if __name__ == "__main__":
    main()
