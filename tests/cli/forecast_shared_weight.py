#!/usr/bin/python3
"""The forecast's tile quantization sees a product with one shared weight
matrix as one GEMM over all its leading rows, as runtimes run it:
MatMul [197, 1, 768] x [768, 2304] (a sequence-first transformer's
projection) must forecast as [197, 768] x [768, 2304], not as 197 products
of one row each (which a 32-row tile would fill to 1/32).

    tests/cli/forecast_shared_weight.py path/to/rooflens REPO_ROOT
Needs Debian's python3-onnx (to write the two small models)."""
import json
import os
import subprocess
import sys
import tempfile

import onnx
from onnx import TensorProto, helper


def model(path, x_shape):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)
    w = helper.make_tensor_value_info("w", TensorProto.FLOAT, [768, 2304])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, x_shape[:-1] + [2304])
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="proj")], "g", [x, w], [y])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


def forecast(cli, path, hw):
    out = subprocess.run([cli, path, "--hw", hw, "--format", "json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["forecast"]


def main():
    cli, root = sys.argv[1], sys.argv[2]
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        rows3, rows2 = os.path.join(tmp, "rows3.onnx"), os.path.join(tmp, "rows2.onnx")
        model(rows3, [197, 1, 768])
        model(rows2, [197, 768])
        for hw in ("h100-sxm", "intel-xeon-8480", os.path.join(root, "tests/hw/unit.json")):
            a, b = forecast(cli, rows3, hw), forecast(cli, rows2, hw)
            same = abs(a["time_s"] - b["time_s"]) <= 1e-12 + 1e-9 * b["time_s"]
            print("%-30s [197,1,768]: %.6g s  [197,768]: %.6g s  %s" % (os.path.basename(hw), a["time_s"],
                                                                         b["time_s"], "ok" if same else "FAIL"))
            fails += not same
    print("forecast shared weight: %d passed, %d failed" % (3 - fails, fails))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
