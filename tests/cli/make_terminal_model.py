#!/usr/bin/python3
"""Write tests/fixtures/hostile/terminal.onnx: a valid model whose strings
would act on a terminal if printed raw.

    /usr/bin/python3 tests/cli/make_terminal_model.py [--out FILE]

Every string the CLI's tables show (graph name, node names, op type and
domain of an unsupported operator, a symbolic dimension, tensor names that
warnings quote) holds one of the PAYLOADS: escape sequences that set the
window title or clear the screen, a carriage return that would print a fake
line, a C1 control, DEL and bidi overrides. tests/cli/terminal.sh checks that
none reaches the terminal raw. Uses only `onnx` (Debian's python3-onnx);
deterministic output.
"""

import argparse
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

PAYLOADS = {
    "title": "\x1b]0;pwned\x07title",         # OSC: sets the window title; BEL
    "clear": "\x1b[2J\x1b[Hclear",            # CSI: clears the screen
    "fake_line": "ok\rFAKE ok",               # CR: overprints the line
    "c1": "c1\u009b31mred",                   # C1 CSI
    "del": "del\x7fx",
    "bidi": "bidi\u202egnp.exe\u2066x\u2069\u200f",
    "newline": "two\nlines",
    "long_utf8": "\u00e9" * 40,              # 80 bytes: a 32-column cell must cut between two characters
}
FLOAT = TensorProto.FLOAT


def model():
    p = PAYLOADS
    n1 = helper.make_node("MatMul", ["x", "w"], [p["clear"]], name=p["title"])
    n2 = helper.make_node("Relu", [p["clear"]], [p["fake_line"]], name=p["fake_line"])
    n3 = helper.make_node(p["c1"], [p["fake_line"]], [p["bidi"]], name=p["bidi"], domain=p["del"])
    n4 = helper.make_node("Relu", [p["bidi"]], ["z"], name=p["newline"])
    n5 = helper.make_node("Relu", ["z"], ["y"], name=p["long_utf8"])
    weight = numpy_helper.from_array(np.ones((8, 8), np.float32), "w")
    graph = helper.make_graph(
        [n1, n2, n3, n4, n5], p["title"],
        [helper.make_tensor_value_info("x", FLOAT, [p["clear"], 8])],
        [helper.make_tensor_value_info("y", FLOAT, None)], [weight])
    return helper.make_model(graph, producer_name="rooflens tests",
                             opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid(p["del"], 1)])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(here, "..", "fixtures", "hostile", "terminal.onnx"))
    save(model(), ap.parse_args().out)


if __name__ == "__main__":
    main()
