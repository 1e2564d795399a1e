#!/usr/bin/env python3
"""Structural mutator for ONNX models: writes a corpus of hostile variants of
real models, for tests/test_mutants.c (ctest) and the fuzzers' seeds.

    mutate_onnx.py OUT_DIR [--count N] [--seed S] [--max-bytes B] MODEL_OR_DIR...

Every model is decoded into a tree of protobuf fields (the ONNX messages are
descended, everything else kept as bytes), 1 to 4 mutations are applied at
any depth (If/Loop bodies and model-local functions included), and the tree
is written back. The mutations are the ones a byte-level fuzzer rarely finds:

  dims        a TensorShapeProto or TensorProto dim set to 0, -1, 2^31, 2^40,
              2^53, 2^62, INT64_MAX, INT64_MIN, 3,000,000 ...; dim_value <-> dim_param
  attr_float  an attribute's float (or a float replacing its int) set to NaN,
              +-inf, +-1e30, -0, a denormal
  attr_int    an int attribute (or an ints entry) set to a huge or negative value
  op_swap     a node's op_type replaced by another op (from the corpus and a list)
  cycle       a node's input rewired to its own or a later node's output
  drop        a node removed
  duplicate   a node repeated (same outputs, or renamed ones)
  elem_type   a tensor's or value_info's element type set to an unknown value
  names       a name replaced by a long multi-byte one or by invalid UTF-8
  external    a tensor marked external, with a hostile location/offset/length
  opset       an opset version set to 0, 1, 10^6 or removed
  empty_op    a node's op_type emptied

Deterministic for a given seed and input set. Standard library only (the
wire helpers are tools/make-models/protowire.py)."""
import argparse
import os
import random
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "make-models"))
from protowire import key, varint  # noqa: E402

U64 = (1 << 64) - 1

# --------------------------------------------------------------- the schema --
# For each message type: field number -> submessage type (fields not listed
# are kept as raw bytes or scalars).
SCHEMA = {
    "Model": {7: "Graph", 8: "OpsetId", 25: "Function"},
    "Graph": {1: "Node", 5: "Tensor", 15: "Sparse", 11: "ValueInfo", 12: "ValueInfo", 13: "ValueInfo"},
    "Node": {5: "Attr"},
    "Attr": {5: "Tensor", 6: "Graph", 10: "Tensor", 11: "Graph", 22: "Sparse", 23: "Sparse"},
    "Tensor": {13: "Entry"},
    "Sparse": {1: "Tensor", 2: "Tensor"},
    "ValueInfo": {2: "Type"},
    "Type": {1: "TensorType", 8: "TensorType", 4: "SeqType", 9: "SeqType", 5: "MapType"},
    "TensorType": {2: "Shape"},
    "SeqType": {1: "Type"},
    "MapType": {2: "Type"},
    "Shape": {1: "Dim"},
    "Dim": {},
    "Function": {7: "Node", 9: "OpsetId", 11: "Attr"},
    "OpsetId": {},
    "Entry": {},
}


class Msg:
    """A decoded message: its type and an ordered list of [field, wire type, value]
    (value: int for varints, bytes for fixed and raw length-delimited fields,
    Msg for descended submessages)."""

    def __init__(self, kind, fields):
        self.kind, self.fields = kind, fields

    def get(self, field):
        return [f for f in self.fields if f[0] == field]


def read_varint(b, i):
    n = shift = 0
    while True:
        if i >= len(b) or shift > 63:
            raise ValueError("bad varint")
        c = b[i]
        i += 1
        n |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return n & U64, i


def decode(b, kind):
    fields, i = [], 0
    sub = SCHEMA[kind]
    while i < len(b):
        k, i = read_varint(b, i)
        field, wt = k >> 3, k & 7
        if wt == 0:
            v, i = read_varint(b, i)
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        elif wt == 2:
            n, i = read_varint(b, i)
            v, i = b[i:i + n], i + n
            if field in sub:
                v = decode(v, sub[field])
        else:
            raise ValueError("wire type %d" % wt)
        fields.append([field, wt, v])
    return Msg(kind, fields)


def encode(m):
    out = bytearray()
    for field, wt, v in m.fields:
        out += key(field, wt)
        if wt == 0:
            out += varint(v)
        elif wt in (1, 5):
            out += v
        else:
            body = encode(v) if isinstance(v, Msg) else v
            out += varint(len(body)) + body
    return bytes(out)


def walk(m, kind=None):
    """Every message in the tree (depth first), optionally of one kind."""
    if kind is None or m.kind == kind:
        yield m
    for f in m.fields:
        if isinstance(f[2], Msg):
            yield from walk(f[2], kind)


def s(x):
    return x.decode("utf-8", "replace") if isinstance(x, bytes) else x


# ------------------------------------------------------------ the mutations --
HOSTILE_INTS = [0, 1, -1, -2, 2, 3, 1 << 31, (1 << 31) - 1, 1 << 32, 1 << 40, 1 << 53, (1 << 53) + 1,
                1 << 62, (1 << 63) - 1, -(1 << 63), -(1 << 62), 3000000, 10 ** 12, 10 ** 18, -1000000]
HOSTILE_FLOATS = [float("nan"), float("inf"), float("-inf"), 1e30, -1e30, -0.0, 1e-45, 3.4e38, -1e6,
                  0.5, 1e19, -1e19, 9.3e18]
OPS = ["Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool", "MaxUnpool", "Gemm", "MatMul",
       "Attention", "LRN", "TfIdfVectorizer", "StringSplit", "DequantizeLinear", "QuantizeLinear",
       "Scan", "Loop", "If", "Reshape", "Expand", "Tile", "Resize", "Slice", "Pad", "Gather",
       "GatherND", "ScatterND", "Split", "Concat", "Transpose", "Einsum", "TopK", "OneHot", "Range",
       "ConstantOfShape", "Constant", "Cast", "Softmax", "LayerNormalization", "BatchNormalization",
       "LSTM", "GRU", "RNN", "NonZero", "Unique", "DFT", "STFT", "CumSum", "ReduceSum", "ReduceMean",
       "ArgMax", "Squeeze", "Unsqueeze", "Flatten", "DepthToSpace", "SpaceToDepth", "Col2Im",
       "CenterCropPad", "RoiAlign", "MaxRoiPool", "NonMaxSuppression", "Multinomial", "Bernoulli",
       "RandomNormal", "EyeLike", "Trilu", "Compress", "SequenceConstruct", "SplitToSequence",
       "MatMulNBits", "GroupQueryAttention", "MultiHeadAttention", "QAttention", "SkipLayerNormalization",
       "Relu", "Add", "Mul", "Where", "Identity", "Dropout", "Shape", "Size", "NoSuchOp", ""]
ATTR_NAMES = ["axis", "group", "size", "num_heads", "kv_num_heads", "q_num_heads", "block_size",
              "bits", "N", "K", "maxsplit", "max_skip_count", "min_gram_length", "max_gram_length",
              "num_scan_inputs", "to", "dtype", "keepdims", "ceil_mode", "blocksize", "k",
              "num_outputs", "batch_dims", "hidden_size", "output_height", "sampling_ratio",
              "transA", "transB", "alpha", "beta", "epsilon", "stash_type", "axes", "perm",
              "kernel_shape", "strides", "pads", "dilations", "output_padding", "output_shape"]


def pick(rng, items):
    return items[rng.randrange(len(items))] if items else None


def pick_in(rng, items):
    """One of items, or None when there are none (the mutation then does not apply)."""
    return pick(rng, items) if items else None


def set_attr_value(a, field, wire, value, attr_type):
    """Attribute a's value replaced: the old f/i/type fields dropped, `value`
    written as field `field` and the type set to `attr_type`."""
    a.fields = [f for f in a.fields if f[0] not in (2, 3, 20)]
    a.fields.append([field, wire, value])
    a.fields.append([20, 0, attr_type])


def hostile_int(rng):
    return pick(rng, HOSTILE_INTS) if rng.random() < 0.8 else rng.randrange(-(1 << 63), 1 << 63)


def mut_dims(rng, model):
    dims = [d for d in walk(model, "Dim")]
    tensors = [t for t in walk(model, "Tensor") if t.get(1)]
    if dims and (not tensors or rng.random() < 0.7):
        d = pick(rng, dims)
        r = rng.random()
        if r < 0.7:
            d.fields = [[1, 0, hostile_int(rng) & U64]]
        elif r < 0.85:
            d.fields = [[2, 2, pick(rng, [b"N", b"batch", b"\xc3\xa9" * 200, b"s"])]]
        else:
            d.fields = []
        return "dims"
    if tensors:
        t = pick(rng, tensors)
        f = pick(rng, t.get(1))
        if f[1] == 0:
            f[2] = hostile_int(rng) & U64
        else:  # packed dims: rewrite them all
            vals = [hostile_int(rng) & U64 for _ in range(rng.randrange(1, 5))]
            f[2] = b"".join(varint(v) for v in vals)
        return "dims"
    return None


def mut_attr_float(rng, model):
    a = pick_in(rng, list(walk(model, "Attr")))
    if a is None:
        return None
    fl = pick(rng, HOSTILE_FLOATS)
    # an int attribute sent as a float (the type slip rl_attr_i must check), or a float changed
    set_attr_value(a, 2, 5, struct.pack("<f", fl), 1)
    return "attr_float"


def mut_attr_int(rng, model):
    attrs = list(walk(model, "Attr"))
    nodes = list(walk(model, "Node"))
    if nodes and (not attrs or rng.random() < 0.4):
        # a new attribute the op reads, with a hostile value
        n = pick(rng, nodes)
        if rng.random() < 0.3:
            vals = [hostile_int(rng) & U64 for _ in range(rng.randrange(1, 7))]
            n.fields.append([5, 2, Msg("Attr", [[1, 2, pick(rng, ATTR_NAMES).encode()],
                                                [8, 2, b"".join(varint(v) for v in vals)], [20, 0, 7]])])
        else:
            n.fields.append([5, 2, Msg("Attr", [[1, 2, pick(rng, ATTR_NAMES).encode()],
                                                [3, 0, hostile_int(rng) & U64], [20, 0, 2]])])
        return "attr_int"
    if not attrs:
        return None
    a = pick(rng, attrs)
    ints = a.get(8)
    if ints and rng.random() < 0.5:
        f = pick(rng, ints)
        if f[1] == 0:
            f[2] = hostile_int(rng) & U64
        else:
            vals = []
            b, i = f[2], 0
            try:
                while i < len(b):
                    v, i = read_varint(b, i)
                    vals.append(v)
            except ValueError:
                vals = [0]
            if vals:
                vals[rng.randrange(len(vals))] = hostile_int(rng) & U64
            f[2] = b"".join(varint(v) for v in vals)
        return "attr_int"
    set_attr_value(a, 3, 0, hostile_int(rng) & U64, 2)
    return "attr_int"


def node_lists(model):
    """(message, list of its node fields) for the main graph, bodies and functions."""
    out = []
    for m in walk(model):
        if m.kind in ("Graph", "Function"):
            nodes = m.get(1 if m.kind == "Graph" else 7)
            if nodes:
                out.append((m, nodes))
    return out


def op_types(model):
    return sorted({s(f[2]) for n in walk(model, "Node") for f in n.get(4)})


def mut_op_swap(rng, model):
    n = pick_in(rng, list(walk(model, "Node")))
    if n is None:
        return None
    op = pick(rng, OPS + op_types(model))
    n.fields = [f for f in n.fields if f[0] != 4] + [[4, 2, op.encode()]]
    return "op_swap"


def mut_cycle(rng, model):
    picked = pick_in(rng, node_lists(model))
    if picked is None:
        return None
    g, nodes = picked
    i = rng.randrange(len(nodes))
    later = [f[2] for n in nodes[i:] for f in n[2].get(2)]
    ins = nodes[i][2].get(1)
    if not later or not ins:
        return None
    pick(rng, ins)[2] = pick(rng, later)
    return "cycle"


def mut_drop(rng, model):
    picked = pick_in(rng, node_lists(model))
    if picked is None:
        return None
    g, nodes = picked
    victim = pick(rng, nodes)
    g.fields = [f for f in g.fields if f is not victim]
    return "drop"


def mut_duplicate(rng, model):
    picked = pick_in(rng, node_lists(model))
    if picked is None:
        return None
    g, nodes = picked
    src = pick(rng, nodes)
    copy = Msg("Node", [list(f) for f in src[2].fields])
    if rng.random() < 0.5:  # renamed outputs: a valid duplicate
        for f in copy.get(2):
            f[2] = f[2] + b"_dup"
    times = pick(rng, [1, 1, 1, 50, 500])
    at = g.fields.index(src)
    for _ in range(times):
        g.fields.insert(at + 1, [src[0], 2, copy])
    return "duplicate"


def mut_elem_type(rng, model):
    cands = [(t, 2) for t in walk(model, "Tensor")] + [(t, 1) for t in walk(model, "TensorType")]
    if not cands:
        return None
    m, field = pick(rng, cands)
    m.fields = [f for f in m.fields if f[0] != field] + [[field, 0, pick(rng, [0, 27, 30, 99, 1 << 31, U64, 8, 14])]]
    return "elem_type"


def mut_names(rng, model):
    nodes = list(walk(model, "Node"))
    if not nodes:
        return None
    n = pick(rng, nodes)
    r = rng.random()
    if r < 0.4:
        name = ("\u00e9" * rng.randrange(90, 400)).encode()      # 2-byte characters across every buffer size
    elif r < 0.7:
        name = ("\u20ac" * rng.randrange(60, 250)).encode()      # 3-byte ones
    elif r < 0.85:
        name = ("\U0001F600" * rng.randrange(40, 200)).encode()  # 4-byte ones
    else:
        name = pick(rng, [b"\xff\xfe", b"ab\xe2\x82", b"\xed\xa0\x80", b"=HYPERLINK(1)", b"\t+cmd"])
    field = pick(rng, [3, 3, 1, 2, 7])
    fs = n.get(field)
    if fs:
        pick(rng, fs)[2] = name
    else:
        n.fields.append([field, 2, name])
    return "names"


def mut_external(rng, model):
    tensors = list(walk(model, "Tensor"))
    if not tensors:
        return None
    t = pick(rng, tensors)
    loc = pick(rng, [b"/etc/passwd", b"../x.bin", b"w.bin", b"a/../../b", b"C:\\x", b"\xff.bin",
                     ("\u00e9" * 150).encode(), b""])
    kv = [(b"location", loc)]
    if rng.random() < 0.6:
        kv.append((b"offset", pick(rng, [b"0", b"-1", b"9223372036854775808", b"18446744073709551615",
                                         b"99999999999999999999", b"12", b"x"])))
    if rng.random() < 0.6:
        kv.append((b"length", pick(rng, [b"0", b"9223372036854775807", b"9223372036854775808", b"4"])))
    t.fields = [f for f in t.fields if f[0] not in (13, 14)]
    t.fields += [[13, 2, Msg("Entry", [[1, 2, k], [2, 2, v]])] for k, v in kv]
    t.fields.append([14, 0, 1])
    return "external"


def mut_opset(rng, model):
    ops = list(walk(model, "OpsetId"))
    if not ops:
        return None
    o = pick(rng, ops)
    o.fields = [f for f in o.fields if f[0] != 2] + [[2, 0, pick(rng, [0, 1, 6, 10 ** 6, U64])]]
    return "opset"


def mut_empty_op(rng, model):
    nodes = list(walk(model, "Node"))
    if not nodes:
        return None
    n = pick(rng, nodes)
    n.fields = [f for f in n.fields if f[0] != 4]
    return "empty_op"


MUTATIONS = [(mut_dims, 5), (mut_attr_float, 4), (mut_attr_int, 4), (mut_op_swap, 3), (mut_cycle, 1),
             (mut_drop, 1), (mut_duplicate, 1), (mut_elem_type, 1), (mut_names, 2), (mut_external, 1),
             (mut_opset, 1), (mut_empty_op, 1)]


def mutate(rng, data):
    model = decode(data, "Model")
    applied = []
    for _ in range(rng.choice([1, 1, 2, 2, 3, 4])):
        total = sum(w for _, w in MUTATIONS)
        r = rng.randrange(total)
        for fn, w in MUTATIONS:
            if r < w:
                break
            r -= w
        what = fn(rng, model)
        if what:
            applied.append(what)
    return encode(model), applied


def inputs(paths, max_bytes):
    out = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, files in os.walk(p):
                out += [os.path.join(root, f) for f in files if f.endswith(".onnx")]
        elif os.path.isfile(p):
            out.append(p)
    seeds = []
    for p in sorted(set(out)):
        data = open(p, "rb").read()
        if len(data) > max_bytes:
            continue
        try:
            decode(data, "Model")
        except (ValueError, IndexError, KeyError):
            continue  # the malformed corpus: byte-level fuzzing covers it
        seeds.append((p, data))
    return seeds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-bytes", type=int, default=2 << 20)
    a = ap.parse_args()
    seeds = inputs(a.paths, a.max_bytes)
    if not seeds:
        sys.exit("no decodable ONNX models under %s" % " ".join(a.paths))
    os.makedirs(a.out, exist_ok=True)
    for old in os.listdir(a.out):  # a previous corpus: the folder holds this run's mutants only
        if old.endswith(".onnx"):
            os.remove(os.path.join(a.out, old))
    rng = random.Random(a.seed)
    counts = {}
    for i in range(a.count):
        path, data = seeds[i % len(seeds)]
        out, applied = mutate(rng, data)
        for m in applied:
            counts[m] = counts.get(m, 0) + 1
        name = "%05d_%s_%s.onnx" % (i, os.path.basename(path)[:-5], "+".join(applied) or "none")
        with open(os.path.join(a.out, name), "wb") as f:
            f.write(out)
    print("%d mutants of %d models in %s; mutations: %s" % (
        a.count, len(seeds), a.out, ", ".join("%s %d" % kv for kv in sorted(counts.items()))))


if __name__ == "__main__":
    main()
