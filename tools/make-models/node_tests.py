#!/usr/bin/python3
"""Write the ONNX backend node tests of the installed `onnx` package as a
conformance set for tests/test_conformance.c.

Usage: /usr/bin/python3 tools/make-models/node_tests.py OUT_DIR

Debian 12's python3-onnx (1.12) carries the generators of the ONNX node tests
(onnx.backend.test.case.node); `onnx.backend.test.cmd_tools generate-data`
runs them. They were written against an older numpy and use aliases that
numpy 1.24 removed (np.float, np.int, np.bool, np.object, np.complex), so
those are restored before the generators run. Then, for each test NAME,
OUT_DIR/NAME.onnx is the test's model and OUT_DIR/manifest.json lists, per
test, its op types, opsets and the element type and shape of every
reference input and output (test_data_set_0/*.pb), in the format
tests/conformance_rule.c reads. Nothing is downloaded.
"""
import json
import os
import runpy
import shutil
import sys
import tempfile

import numpy as np

for alias, kind in (("float", float), ("int", int), ("bool", bool), ("object", object), ("complex", complex)):
    if alias not in np.__dict__:
        setattr(np, alias, kind)

import onnx  # noqa: E402  (after the numpy aliases)


def value_kind(type_proto):
    which = type_proto.WhichOneof("value") if type_proto is not None else None
    return {"sequence_type": "sequence", "optional_type": "optional", "map_type": "map"}.get(which, "tensor")


def reference(path, value_info):
    """{name, dtype, elem_type, shape} of one reference .pb file."""
    kind = value_kind(value_info.type if value_info is not None else None)
    entry = {"name": value_info.name if value_info is not None else "", "dtype": kind, "elem_type": None,
             "shape": None}
    if kind != "tensor":
        return entry
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    entry["name"] = entry["name"] or t.name
    entry["dtype"] = onnx.TensorProto.DataType.Name(t.data_type) if t.data_type in onnx.TensorProto.DataType.values() \
        else "UNKNOWN_%d" % t.data_type
    entry["elem_type"] = int(t.data_type)
    entry["shape"] = [int(d) for d in t.dims]
    return entry


def references(test_dir, values, prefix):
    out, k = [], 0
    while True:
        p = os.path.join(test_dir, "test_data_set_0", "%s_%d.pb" % (prefix, k))
        if not os.path.exists(p):
            return out
        out.append(reference(p, values[k] if k < len(values) else None))
        k += 1


def subgraph_op_types(graph, acc):
    for node in graph.node:
        for attr in node.attribute:
            for g in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
                acc.extend(n.op_type for n in g.node if n.op_type not in acc)
                subgraph_op_types(g, acc)
    return acc


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        argv = sys.argv
        sys.argv = ["cmd_tools", "generate-data", "-o", tmp]
        runpy.run_module("onnx.backend.test.cmd_tools", run_name="__main__")
        sys.argv = argv
        src = os.path.join(tmp, "node")
        os.makedirs(out, exist_ok=True)
        manifest = []
        for name in sorted(os.listdir(src)):
            model_path = os.path.join(src, name, "model.onnx")
            if not os.path.isfile(model_path):
                continue
            shutil.copyfile(model_path, os.path.join(out, name + ".onnx"))
            m = onnx.load(model_path)
            ops = []
            for n in m.graph.node:
                if n.op_type not in ops:
                    ops.append(n.op_type)
            manifest.append({
                "name": name, "file": name + ".onnx", "op_types": ops, "node_count": len(m.graph.node),
                "subgraph_op_types": subgraph_op_types(m.graph, []),
                "local_functions": [f.name for f in m.functions], "ir_version": int(m.ir_version),
                "opset": {(i.domain or "ai.onnx"): int(i.version) for i in m.opset_import},
                "inputs": references(os.path.join(src, name), list(m.graph.input), "input"),
                "outputs": references(os.path.join(src, name), list(m.graph.output), "output"),
            })
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    print("%d node tests (onnx %s) written to %s" % (len(manifest), onnx.__version__, out))


if __name__ == "__main__":
    main()
