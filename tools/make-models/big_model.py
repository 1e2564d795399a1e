#!/usr/bin/python3
"""Write a BERT-Large-shaped ONNX model with random float32 weights, streaming.

Needs only python3-onnx and python3-numpy (no torch):

    /usr/bin/python3 tools/make-models/big_model.py OUT.onnx [--external]
        [--layers 24 --hidden 1024 --heads 16 --ff 4096 --vocab 30522
         --max-pos 512 --batch 1 --seq 128] [--dynamic] [--opset 13|17]
        [--seed 0]
    /usr/bin/python3 tools/make-models/big_model.py --selftest

The default configuration has the same 335,141,888 parameters as
tools/make-models/torch_models.py's bert_large and gives a ~1.34 GB file.

Graph (like a torch.onnx.export of a post-LN BERT encoder, opset 13):
inputs input_ids and attention_mask int64 [batch, seq]; word + position
(Shape/Gather/Range) + token-type embeddings; LayerNorm decomposed into
ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add (opset 17:
LayerNormalization); per layer Q/K/V MatMul+Add, Reshape [0,0,heads,head_dim],
Transpose, MatMul, Div, Add mask bias, Softmax, MatMul, Transpose, Reshape,
output MatMul+Add, residual Add, LayerNorm, FF MatMul+Add, erf GELU
(Div/Erf/Add/Mul/Mul), MatMul+Add, residual Add, LayerNorm; pooler Gather +
Gemm + Tanh.  Outputs last_hidden_state [batch, seq, hidden] and
pooler_output [batch, hidden].  --dynamic makes batch/seq dim_params.

Memory: the protobuf is written by hand.  The graph is serialized by onnx
without any tensor payload; each initializer's header is serialized by onnx
and its raw_data (field 9) is streamed in chunks of at most 4 Mi floats from
numpy's generator.  Peak RSS is ~110 MB (mostly the onnx/numpy imports)
for any model size.  All
length prefixes are computed up front, so the output is a single sequential
write, byte-for-byte what onnx's own SerializeToString would give for the
same model (checked by --selftest).

--external writes OUT.onnx plus OUT.onnx.data (initializers of >= 1024
bytes, offsets aligned to 4096 bytes, like onnx.save_model with
save_as_external_data=True, size_threshold=1024 except for the alignment).

Weights are reproducible: tensor i uses numpy.random.default_rng([seed, i]).
"""

import argparse
import math
import os
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from protowire import key, len_field, varint  # noqa: E402  (the shared wire helpers)

CHUNK = 4 << 20            # elements per generated chunk
EXTERNAL_THRESHOLD = 1024  # bytes; smaller tensors stay inline
EXTERNAL_ALIGN = 4096


# --------------------------------------------------------------------------
# initializer specs
# --------------------------------------------------------------------------

NP2ONNX = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int64): TensorProto.INT64}


class Init:
    """An initializer: name, dims, dtype, and how to produce its data."""

    def __init__(self, name, dims, dtype=np.float32, kind="normal", std=0.02,
                 value=None):
        self.name, self.dims = name, [int(d) for d in dims]
        self.dtype = np.dtype(dtype)
        self.kind, self.std, self.value = kind, std, value
        self.numel = int(np.prod(self.dims, dtype=np.int64)) if self.dims else 1
        self.nbytes = self.numel * self.dtype.itemsize
        self.index = None   # set by the builder; seeds the generator

    def chunks(self, seed):
        """Yield the little-endian payload in pieces."""
        if self.kind == "const":
            yield np.ascontiguousarray(self.value, dtype=self.dtype.newbyteorder("<")).tobytes()
            return
        rng = np.random.default_rng([seed, self.index])
        left = self.numel
        while left:
            n = min(left, CHUNK)
            a = rng.standard_normal(n, dtype=np.float32)
            a *= self.std
            if self.kind == "ones":
                a += 1.0
            yield a.astype("<f4", copy=False).tobytes()
            left -= n

    def full(self, seed):
        return np.frombuffer(b"".join(self.chunks(seed)),
                             dtype=self.dtype.newbyteorder("<")).reshape(self.dims)

    def header(self):
        t = TensorProto()
        t.dims.extend(self.dims)
        t.data_type = NP2ONNX[self.dtype]
        t.name = self.name
        return t


# --------------------------------------------------------------------------
# graph builder
# --------------------------------------------------------------------------

class Builder:
    def __init__(self):
        self.nodes, self.inits, self.n = [], [], 0

    def init(self, spec):
        spec.index = len(self.inits)
        self.inits.append(spec)
        return spec.name

    def const(self, name, value, dtype):
        return self.init(Init(name, np.shape(value), dtype, "const",
                              value=np.array(value, dtype=dtype)))

    def op(self, op_type, inputs, name, out=None, **attrs):
        self.n += 1
        out = out or "%s_output_%d" % (name.replace("/", "_").strip("_"), self.n)
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=name, **attrs))
        return out

    def layer_norm(self, x, prefix, d, opset, out=None):
        g = self.init(Init(prefix + ".weight", [d], kind="ones"))
        b = self.init(Init(prefix + ".bias", [d]))
        p = "/" + prefix.replace(".", "/") + "/"
        if opset >= 17:
            return self.op("LayerNormalization", [x, g, b], p + "LayerNormalization",
                           out=out, axis=-1, epsilon=1e-12)
        mean = self.op("ReduceMean", [x], p + "ReduceMean", axes=[-1], keepdims=1)
        cen = self.op("Sub", [x, mean], p + "Sub")
        sq = self.op("Pow", [cen, "const_two"], p + "Pow")
        var = self.op("ReduceMean", [sq], p + "ReduceMean_1", axes=[-1], keepdims=1)
        ve = self.op("Add", [var, "const_ln_eps"], p + "Add")
        sd = self.op("Sqrt", [ve], p + "Sqrt")
        nrm = self.op("Div", [cen, sd], p + "Div")
        sc = self.op("Mul", [nrm, g], p + "Mul")
        return self.op("Add", [sc, b], p + "Add_1", out=out)

    def linear(self, x, prefix, d_in, d_out):
        w = self.init(Init(prefix + ".weight_t", [d_in, d_out]))
        b = self.init(Init(prefix + ".bias", [d_out]))
        p = "/" + prefix.replace(".", "/") + "/"
        mm = self.op("MatMul", [x, w], p + "MatMul")
        return self.op("Add", [b, mm], p + "Add")


def build_bert(cfg):
    L, d, h, ff, V, P = cfg.layers, cfg.hidden, cfg.heads, cfg.ff, cfg.vocab, cfg.max_pos
    if d % h:
        sys.exit("--hidden must be a multiple of --heads")
    hd = d // h
    bld = Builder()
    bld.const("const_two", 2.0, np.float32)
    bld.const("const_ln_eps", 1e-12, np.float32)
    bld.const("const_zero_i64", 0, np.int64)
    bld.const("const_one_i64", 1, np.int64)
    bld.const("const_one_f", 1.0, np.float32)
    bld.const("const_mask_neg", -10000.0, np.float32)
    bld.const("const_axes_0", [0], np.int64)
    bld.const("const_axes_12", [1, 2], np.int64)
    bld.const("const_split_heads", [0, 0, h, hd], np.int64)
    bld.const("const_merge_heads", [0, 0, d], np.int64)
    bld.const("const_sqrt_head_dim", math.sqrt(hd), np.float32)
    bld.const("const_sqrt2", 1.4142135381698608, np.float32)
    bld.const("const_half", 0.5, np.float32)

    # embeddings
    we = bld.init(Init("word_embeddings.weight", [V, d]))
    pe = bld.init(Init("position_embeddings.weight", [P, d]))
    te = bld.init(Init("token_type_embeddings.weight", [2, d]))
    x_w = bld.op("Gather", [we, "input_ids"], "/word_embeddings/Gather")
    shp = bld.op("Shape", ["input_ids"], "/embeddings/Shape")
    seq = bld.op("Gather", [shp, "const_one_i64"], "/embeddings/Gather", axis=0)
    rng = bld.op("Range", ["const_zero_i64", seq, "const_one_i64"], "/embeddings/Range")
    pos = bld.op("Unsqueeze", [rng, "const_axes_0"], "/embeddings/Unsqueeze")
    x_p = bld.op("Gather", [pe, pos], "/position_embeddings/Gather")
    x_t = bld.op("Gather", [te, "const_zero_i64"], "/token_type_embeddings/Gather", axis=0)
    e1 = bld.op("Add", [x_w, x_p], "/embeddings/Add")
    e2 = bld.op("Add", [e1, x_t], "/embeddings/Add_1")
    x = bld.layer_norm(e2, "embeddings_norm", d, cfg.opset)

    # attention mask bias [batch, 1, 1, seq]
    mu = bld.op("Unsqueeze", ["attention_mask", "const_axes_12"], "/mask/Unsqueeze")
    mf = bld.op("Cast", [mu], "/mask/Cast", to=TensorProto.FLOAT)
    inv = bld.op("Sub", ["const_one_f", mf], "/mask/Sub")
    mask_bias = bld.op("Mul", [inv, "const_mask_neg"], "/mask/Mul")

    for i in range(L):
        pre = "layers.%d" % i
        pp = "/layers.%d/" % i
        q = bld.linear(x, pre + ".attention.query", d, d)
        k = bld.linear(x, pre + ".attention.key", d, d)
        v = bld.linear(x, pre + ".attention.value", d, d)
        heads = []
        # K goes straight to [b, h, hd, s]: torch's exporter fuses the two
        # transposes of k.transpose(1, 2).transpose(-1, -2) into one.
        for nm, t, perm in (("q", q, [0, 2, 1, 3]), ("k", k, [0, 2, 3, 1]),
                            ("v", v, [0, 2, 1, 3])):
            r = bld.op("Reshape", [t, "const_split_heads"], pp + "attention/Reshape_" + nm)
            heads.append(bld.op("Transpose", [r], pp + "attention/Transpose_" + nm,
                                perm=perm))
        qh, kt, vh = heads
        sc = bld.op("MatMul", [qh, kt], pp + "attention/MatMul")
        sc = bld.op("Div", [sc, "const_sqrt_head_dim"], pp + "attention/Div")
        sc = bld.op("Add", [sc, mask_bias], pp + "attention/Add")
        pr = bld.op("Softmax", [sc], pp + "attention/Softmax", axis=-1)
        cx = bld.op("MatMul", [pr, vh], pp + "attention/MatMul_1")
        cx = bld.op("Transpose", [cx], pp + "attention/Transpose_ctx", perm=[0, 2, 1, 3])
        cx = bld.op("Reshape", [cx, "const_merge_heads"], pp + "attention/Reshape_ctx")
        ao = bld.linear(cx, pre + ".attention.dense", d, d)
        r1 = bld.op("Add", [x, ao], pp + "Add")
        x1 = bld.layer_norm(r1, pre + ".attention_norm", d, cfg.opset)
        f = bld.linear(x1, pre + ".intermediate", d, ff)
        g1 = bld.op("Div", [f, "const_sqrt2"], pp + "act/Div")
        g2 = bld.op("Erf", [g1], pp + "act/Erf")
        g3 = bld.op("Add", [g2, "const_one_f"], pp + "act/Add")
        g4 = bld.op("Mul", [f, g3], pp + "act/Mul")
        g5 = bld.op("Mul", [g4, "const_half"], pp + "act/Mul_1")
        o = bld.linear(g5, pre + ".output", ff, d)
        r2 = bld.op("Add", [x1, o], pp + "Add_1")
        last = i == L - 1
        x = bld.layer_norm(r2, pre + ".output_norm", d, cfg.opset,
                           out="last_hidden_state" if last else None)

    cls = bld.op("Gather", [x, "const_zero_i64"], "/pooler/Gather", axis=1)
    pw = bld.init(Init("pooler.weight", [d, d]))
    pb = bld.init(Init("pooler.bias", [d]))
    pg = bld.op("Gemm", [cls, pw, pb], "/pooler/Gemm", transB=1)
    bld.op("Tanh", [pg], "/pooler/Tanh", out="pooler_output")

    b, s = ("batch", "seq") if cfg.dynamic else (cfg.batch, cfg.seq)
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [b, s]),
              helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [b, s])]
    outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, [b, s, d]),
               helper.make_tensor_value_info("pooler_output", TensorProto.FLOAT, [b, d])]
    return bld, inputs, outputs


def build_resnet50(cfg):
    """torchvision ResNet-50 as torch.onnx.export writes it: BatchNorm folded
    into each convolution's bias, Relu, MaxPool, 16 bottlenecks, global
    average pool, Flatten, Gemm. 25,530,472 parameters (~102 MB as fp32):
    torchvision's 25,557,032 less one of the two BatchNorm vectors per channel."""
    bld = Builder()

    def conv(x, name, c_in, c_out, k, stride=1, relu=True):
        w = bld.init(Init(name + ".weight", [c_out, c_in, k, k],
                          std=math.sqrt(2.0 / (c_in * k * k))))
        b = bld.init(Init(name + ".bias", [c_out]))
        p = "/" + name.replace(".", "/") + "/"
        pad = k // 2
        y = bld.op("Conv", [x, w, b], p + "Conv", dilations=[1, 1], group=1,
                   kernel_shape=[k, k], pads=[pad] * 4, strides=[stride, stride])
        return bld.op("Relu", [y], p + "Relu") if relu else y

    x = conv("input", "conv1", 3, 64, 7, 2)
    x = bld.op("MaxPool", [x], "/maxpool/MaxPool", ceil_mode=0, kernel_shape=[3, 3],
               pads=[1, 1, 1, 1], strides=[2, 2])
    c_in = 64
    for li, (width, blocks, stride) in enumerate(((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)), 1):
        for bi in range(blocks):
            pre = "layer%d.%d" % (li, bi)
            s = stride if bi == 0 else 1
            y = conv(x, pre + ".conv1", c_in, width, 1)
            y = conv(y, pre + ".conv2", width, width, 3, s)
            y = conv(y, pre + ".conv3", width, width * 4, 1, relu=False)
            idn = conv(x, pre + ".downsample.0", c_in, width * 4, 1, s, relu=False) if bi == 0 else x
            p = "/layer%d/%s/" % (li, pre)
            y = bld.op("Add", [y, idn], p + "Add")
            x = bld.op("Relu", [y], p + "Relu")
            c_in = width * 4
    x = bld.op("GlobalAveragePool", [x], "/avgpool/GlobalAveragePool")
    x = bld.op("Flatten", [x], "/Flatten", axis=1)
    w = bld.init(Init("fc.weight", [1000, 2048]))
    b = bld.init(Init("fc.bias", [1000]))
    bld.op("Gemm", [x, w, b], "/fc/Gemm", out="output", alpha=1.0, beta=1.0, transB=1)
    n = "batch" if cfg.dynamic else cfg.batch
    inputs = [helper.make_tensor_value_info("input", TensorProto.FLOAT, [n, 3, 224, 224])]
    outputs = [helper.make_tensor_value_info("output", TensorProto.FLOAT, [n, 1000])]
    return bld, inputs, outputs


ARCHS = {"bert": (build_bert, "bert_encoder"), "resnet50": (build_resnet50, "resnet50")}


# --------------------------------------------------------------------------
# streaming writer
# --------------------------------------------------------------------------

def model_parts(bld, inputs, outputs, opset, graph_name):
    """Model header fields before `graph`, graph parts A (nodes, name) and C
    (inputs, outputs), and the trailing opset_import field bytes."""
    m = onnx.ModelProto()
    m.ir_version = 8
    m.producer_name = "rooflens-make_big_model"
    m.producer_version = "1"
    head = m.SerializeToString()            # fields 1..3 precede graph (7)
    op = onnx.ModelProto()
    op.opset_import.extend([helper.make_opsetid("", opset)])   # domain "" present, as helper/torch write it
    tail = op.SerializeToString()           # field 8 follows graph
    ga = onnx.GraphProto()
    ga.node.extend(bld.nodes)
    ga.name = graph_name
    gc = onnx.GraphProto()
    gc.input.extend(inputs)
    gc.output.extend(outputs)
    return head, ga.SerializeToString(), gc.SerializeToString(), tail


def plan(bld, external, data_location):
    """For each initializer: (serialized header incl. raw_data key+len or
    external_data fields, inline payload?, external offset)."""
    out, off = [], 0
    for spec in bld.inits:
        t = spec.header()
        if external and spec.nbytes >= EXTERNAL_THRESHOLD:
            off += (-off) % EXTERNAL_ALIGN
            for k, v in (("location", data_location), ("offset", str(off)),
                         ("length", str(spec.nbytes))):
                e = t.external_data.add()
                e.key, e.value = k, v
            t.data_location = TensorProto.EXTERNAL
            out.append((t.SerializeToString(), False, off))
            off += spec.nbytes
        else:
            hdr = t.SerializeToString() + len_field(9, spec.nbytes)
            out.append((hdr, True, None))
    return out


def write_model(path, bld, inputs, outputs, cfg, external=False, progress=False,
                write_data=True, graph_name="bert_encoder"):
    seed = cfg.seed
    data_name = os.path.basename(path) + ".data"
    data_path = os.path.join(os.path.dirname(os.path.abspath(path)), data_name)
    head, ga, gc, tail = model_parts(bld, inputs, outputs, cfg.opset, graph_name)
    layout = plan(bld, external, data_name)

    init_fields = []
    for (hdr, inline, _), spec in zip(layout, bld.inits):
        tlen = len(hdr) + (spec.nbytes if inline else 0)
        init_fields.append(len_field(5, tlen) + hdr)
    graph_len = len(ga) + len(gc) + sum(
        len(f) + (s.nbytes if lay[1] else 0)
        for f, s, lay in zip(init_fields, bld.inits, layout))

    t0 = time.time()
    done = 0
    total = sum(s.nbytes for s in bld.inits)
    # write_data=False leaves the references dangling on purpose: the site's
    # examples show that the analyzer needs the .onnx file alone.
    data_f = open(data_path, "wb") if external and write_data else None
    try:
        with open(path, "wb") as f:
            f.write(head)
            f.write(len_field(7, graph_len))
            f.write(ga)
            for fld, spec, (hdr, inline, off) in zip(init_fields, bld.inits, layout):
                f.write(fld)
                if inline:
                    dst = f
                elif data_f is None:
                    done += spec.nbytes
                    continue
                else:
                    pad = off - data_f.tell()
                    if pad:
                        data_f.write(b"\0" * pad)
                    dst = data_f
                n = 0
                for piece in spec.chunks(seed):
                    dst.write(piece)
                    n += len(piece)
                assert n == spec.nbytes, spec.name
                done += n
                if progress and spec.nbytes >= (64 << 20):
                    print("  %-40s %6.1f%%  %.1fs" % (spec.name, 100.0 * done / total,
                                                     time.time() - t0), flush=True)
            f.write(gc)
            f.write(tail)
    finally:
        if data_f:
            data_f.close()
    if not external and os.path.exists(data_path):
        os.remove(data_path)    # stale data file from an earlier --external run
    return data_path if external and write_data else None


# --------------------------------------------------------------------------
# self test: compare with onnx's own serialization on a tiny config
# --------------------------------------------------------------------------

def reference_model(bld, inputs, outputs, cfg):
    tensors = []
    for spec in bld.inits:
        t = spec.header()
        t.raw_data = spec.full(cfg.seed).tobytes()
        tensors.append(t)
    g = helper.make_graph(bld.nodes, "bert_encoder", inputs, outputs, tensors)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", cfg.opset)],
                          producer_name="rooflens-make_big_model", producer_version="1")
    m.ir_version = 8
    return m


def selftest():
    import tempfile
    from onnx import numpy_helper
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for opset in (13, 17):
            for dynamic in (False, True):
                cfg = argparse.Namespace(layers=2, hidden=64, heads=4, ff=256, vocab=5000,
                                         max_pos=64, batch=2, seq=16, dynamic=dynamic,
                                         opset=opset, seed=3)
                bld, ins, outs = build_bert(cfg)
                ref = reference_model(bld, ins, outs, cfg)
                onnx.checker.check_model(ref)
                onnx.shape_inference.infer_shapes(ref, strict_mode=True)
                p = os.path.join(tmp, "m.onnx")
                write_model(p, bld, ins, outs, cfg)
                same = open(p, "rb").read() == ref.SerializeToString()
                # external variant: must load back to the same tensors
                pe = os.path.join(tmp, "m_ext.onnx")
                write_model(pe, bld, ins, outs, cfg, external=True)
                onnx.checker.check_model(pe)
                me = onnx.load(pe)
                ext_same = all(
                    np.array_equal(numpy_helper.to_array(a), numpy_helper.to_array(b))
                    for a, b in zip(me.graph.initializer, ref.graph.initializer))
                print("opset %d dynamic %-5s inline byte-identical: %s, external "
                      "round-trip: %s" % (opset, dynamic, same, ext_same))
                ok &= same and ext_same
    print("selftest", "PASSED" if ok else "FAILED")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[1:]))
    ap.add_argument("out", nargs="?", help="output .onnx path")
    ap.add_argument("--arch", choices=sorted(ARCHS), default="bert",
                    help="bert (the default: an encoder shaped by the options below) or resnet50")
    ap.add_argument("--no-data", action="store_true",
                    help="with --external: write only OUT.onnx, not the weights file")
    ap.add_argument("--external", action="store_true",
                    help="store initializers >= 1 KiB in OUT.data")
    ap.add_argument("--layers", type=int, default=24)
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--ff", type=int, default=4096)
    ap.add_argument("--vocab", type=int, default=30522)
    ap.add_argument("--max-pos", type=int, default=512)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--dynamic", action="store_true", help="batch/seq as dim_params")
    ap.add_argument("--opset", type=int, default=13, choices=(13, 17))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--selftest", action="store_true",
                    help="check the writer against onnx's serializer and exit")
    args = ap.parse_args()
    if args.selftest:
        sys.exit(0 if selftest() else 1)
    if not args.out:
        ap.error("OUT is required")
    t0 = time.time()
    build, graph_name = ARCHS[args.arch]
    bld, ins, outs = build(args)
    params = sum(s.numel for s in bld.inits if s.kind != "const")
    print("%s: %d nodes, %d initializers, %d parameters"
          % (graph_name, len(bld.nodes), len(bld.inits), params), flush=True)
    data = write_model(args.out, bld, ins, outs, args, external=args.external, progress=True,
                       write_data=not args.no_data, graph_name=graph_name)
    msg = "wrote %s (%d bytes)" % (args.out, os.path.getsize(args.out))
    if data:
        msg += " + %s (%d bytes)" % (data, os.path.getsize(data))
    print("%s in %.1fs" % (msg, time.time() - t0))


if __name__ == "__main__":
    main()
