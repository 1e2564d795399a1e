#!/usr/bin/python3
"""Give a graph-only ONNX model random weights, so a runtime can execute it.

The exports in tests/fixtures/models/torch/ keep only the graph: their
initializers point to an external file that was left behind. ONNX Runtime
needs the data; its times do not depend on the values (denormals aside, which
tools/validate/ort-profile.mjs flushes to zero), so random ones of the right shape and
type do:

    /usr/bin/python3 tools/validate/fill_weights.py IN.onnx OUT.onnx

Float tensors get N(0, 1/fan_in) (fan_in = product of all dims but the
first; 0.02 for vectors), integer tensors zeros. Initializers that already
hold data are kept. Deterministic (numpy seed 0). Needs python3-onnx and
python3-numpy only.
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def main(src, dst):
    m = onnx.load(src, load_external_data=False)
    rng = np.random.default_rng(0)
    for t in m.graph.initializer:
        if t.data_location != onnx.TensorProto.EXTERNAL:
            continue
        dtype = onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[t.data_type]
        dims = tuple(t.dims)
        if np.issubdtype(dtype, np.floating):
            fan_in = int(np.prod(dims[1:])) if len(dims) >= 2 else 0
            std = 1.0 / np.sqrt(fan_in) if fan_in else 0.02
            arr = (rng.standard_normal(dims, dtype=np.float32) * std).astype(dtype)
        else:
            arr = np.zeros(dims, dtype=dtype)
        t.CopyFrom(numpy_helper.from_array(arr, t.name))
    onnx.save(m, dst)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
