#!/usr/bin/python3
"""Write a model with NODES Relu nodes in a chain and FUNCTIONS model-local
functions defined (unused), for the scale benchmark of function lookup:

    /usr/bin/python3 tools/make-models/functions_model.py FUNCTIONS NODES OUT.onnx
    /usr/bin/time -f "%e s %M KB" build/rooflens OUT.onnx --format json >/dev/null

Every node asks whether it calls a local function; the lookup must not grow
with the number of functions (docs/robustness.md)."""
import sys

from onnx import TensorProto, helper, save

if len(sys.argv) != 4:
    sys.exit(__doc__)
nf, nn, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
nodes = [helper.make_node("Relu", ["x0" if i == 0 else "v%d" % (i - 1)], ["v%d" % i]) for i in range(nn)]
graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x0", TensorProto.FLOAT, [1, 8])],
                          [helper.make_tensor_value_info("v%d" % (nn - 1), TensorProto.FLOAT, [1, 8])])
funcs = [helper.make_function("local", "F%d" % i, ["a"], ["b"], [helper.make_node("Relu", ["a"], ["b"])],
                              [helper.make_opsetid("", 17)]) for i in range(nf)]
save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
                       functions=funcs), out)
