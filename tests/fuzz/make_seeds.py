#!/usr/bin/env python3
"""Seed corpora for the fuzz targets, from the project's own files.

    make_seeds.py OUT_DIR

writes OUT_DIR/reader/ (fixture models, good and malformed, and GGUF files
from tests/make_gguf.py, whole small decoders and its hostile set, each
behind the 5-byte header fuzz_reader.c expects), OUT_DIR/request/ (requests built from
hardware profiles with assorted options and limits), OUT_DIR/hardware/
(every profile in hw/ and tests/hw/), OUT_DIR/model/ (a request and a model,
fuzz_model.c's layout: the fixtures and structural mutants of them from
mutate_onnx.py, with requests of every option and study kind) and
OUT_DIR/study/ (study objects of the three kinds, fuzz_study.c) and
OUT_DIR/calibrate/ (pairs of the measured fixtures, kernel times and profile
edits in fuzz_calibrate.c's layout). Standard library only."""
import json
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import make_gguf  # noqa: E402
import make_safetensors  # noqa: E402
import mutate_onnx  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MAX_SEED = 64 * 1024  # larger models slow every execution down; small ones cover the same code


def files(*dirs, ext):
    for d in dirs:
        p = os.path.join(ROOT, d)
        if not os.path.isdir(p):
            continue
        for name in sorted(os.listdir(p)):
            if name.endswith(ext):
                yield os.path.join(p, name)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "fuzz-corpus"
    for t in ("reader", "request", "hardware", "model", "study", "calibrate", "checkpoint"):
        os.makedirs(os.path.join(out, t), exist_ok=True)

    # reader: flags, four chunk sizes, model
    headers = [bytes([0, 0, 0, 0, 0]), bytes([1, 1, 7, 64, 3]), bytes([3, 13, 255, 2, 0])]
    n = 0
    for path in files("tests/fixtures/models", "tests/fixtures/bad", "tests/fixtures/ops", ext=".onnx"):
        data = open(path, "rb").read()
        if len(data) > MAX_SEED:
            continue
        for i, h in enumerate(headers):
            write(os.path.join(out, "reader", "%s.%d" % (os.path.basename(path), i)), h + data)
            n += 1

    # reader: GGUF files, whole small decoders of each architecture and the hostile set
    ggufs = make_gguf.small_files() + sorted(make_gguf.hostile_files().items())
    for name, data in ggufs:
        for i, h in enumerate(headers):
            write(os.path.join(out, "reader", "gguf-%s.%d" % (name, i)), h + data)

    checkpoint_seeds(os.path.join(out, "checkpoint"))

    # hardware: the profiles as they are
    profiles = []
    for path in files("hw", "tests/hw", ext=".json"):
        data = open(path, "rb").read()
        write(os.path.join(out, "hardware", os.path.basename(path)), data)
        profiles.append(json.loads(data))

    # request: each profile once, with options cycling through their values
    options = [
        {},
        {"precision": "fp16", "batch": 8},
        {"precision": "int8", "mode": "training", "sol": "unfused", "granularity": "per_op"},
        {"precision": "bf16", "sol": "fused_prefetched", "granularity": "whole_graph", "layers": False},
        {"dims": {"batch": 4, "seq": 128}, "precision": "model"},
        {"limits": {"max_nodes": 10, "max_depth": 3, "max_rank": 2, "max_string_bytes": 8}},
        {"limits": {"max_skeleton_bytes": 100}, "batch": 1},
    ]
    for i, prof in enumerate(profiles):
        req = dict(options[i % len(options)])
        req["hardware"] = prof
        modes = prof.get("power_modes") or []
        if modes and isinstance(modes, list) and isinstance(modes[0], dict) and "id" in modes[0]:
            req["power_mode"] = modes[-1]["id"]
        write(os.path.join(out, "request", "req_%02d.json" % i), json.dumps(req).encode())
    # study: the three kinds with odd but valid settings (the target wraps them in a request)
    unit = json.loads(open(os.path.join(ROOT, "tests", "hw", "unit.json")).read())
    orin = json.loads(open(os.path.join(ROOT, "hw", "jetson-agx-orin.json")).read())
    studies = [
        {"kind": "batch_sweep"},
        {"kind": "batch_sweep", "batches": [1, 2, 3, 1000000000]},
        {"kind": "batch_sweep", "batches": [7]},
        {"kind": "compare", "hardware": [unit, orin], "power_modes": [None, "15w"]},
        {"kind": "compare", "hardware": [orin], "power_modes": ["nope"]},
        {"kind": "compare", "hardware": [dict(unit, memory=[{"bandwidth_Bps": 1e-300}])]},
        {"kind": "power_modes"},
        {"kind": "power_modes", "max_slowdown": 100},
        {"kind": "power_modes", "max_slowdown": 0},
    ]
    for i, st in enumerate(studies):
        write(os.path.join(out, "study", "study_%02d.json" % i), json.dumps(st).encode())

    # model: fixtures and mutants of them, each with a request
    reqs = [dict(o) for o in options] + [{"study": st} for st in studies[:2] + studies[6:8]]
    seeds = mutate_onnx.inputs([os.path.join(ROOT, "tests", "fixtures", d) for d in ("models", "ops", "shapes", "hostile")],
                               MAX_SEED)
    rng = random.Random(7)
    pairs = [data for _, data in seeds] + [mutate_onnx.mutate(rng, seeds[i % len(seeds)][1])[0] for i in range(300)]
    nm = 0
    for i, data in enumerate(pairs):
        if len(data) > MAX_SEED:
            continue
        req = dict(reqs[i % len(reqs)])
        req["hardware"] = orin if i % 3 == 0 else unit
        text = json.dumps(req).encode()
        write(os.path.join(out, "model", "pair_%04d" % i), struct.pack("<H", len(text)) + text + data)
        nm += 1
    nc = calibrate_seeds(os.path.join(out, "calibrate"))
    print("seeds: reader %d, request %d, hardware %d, model %d, study %d, calibrate %d" % (
        n, len(profiles), len(profiles), nm, len(studies), nc))


def checkpoint_seeds(out):
    """fuzz_checkpoint.c's layout: flags, the two shards' lengths, the
    shards' headers and the index; the shards' files long enough for their
    data (flags' bits 2-7, in 4 KB), which is never given."""
    ms = make_safetensors
    c = dict(ms.TINY, L=1)

    def seed(shards, index=b""):
        data = max(d for _, d in shards)
        blocks = min(63, -(-data // 4096))
        flags = (blocks << 2) | (2 if len(shards) == 2 else 0) | (1 if index else 0)
        heads = [struct.pack("<Q", len(t)) + t for t, _ in shards]
        lens = [len(h) for h in heads] + [0]
        return bytes([flags]) + struct.pack("<HH", lens[0], lens[1]) + b"".join(heads) + index

    seeds = {}
    for name, kind, dtype in (("bf16", "plain", "BF16"), ("gptq", "gptq", "F16"), ("fp8", "fp8", "BF16")):
        T, _ = ms.decoder(c, dtype, kind=kind)
        seeds[name] = seed([ms.header_bytes(T)])
    T, _ = ms.decoder(c, "BF16")
    half = len(T) // 2
    names = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
    index = json.dumps({"weight_map": {t[0]: names[i >= half] for i, t in enumerate(T)}}).encode()
    seeds["sharded"] = seed([ms.header_bytes(T[:half]), ms.header_bytes(T[half:])], index)
    for name, (spec, _) in ms.hostile_cases().items():
        if spec[0] == "single" and spec[3] is not None:
            _, text, length, data = spec
            head = struct.pack("<Q", len(text) if length is None else length) + text
            seeds["hostile-" + name] = bytes([4 * (1 + data // 4096)]) + struct.pack("<HH", len(head), 0) + head
    for name, data in seeds.items():
        write(os.path.join(out, name), data)


def calibrate_seeds(out):
    """fuzz_calibrate.c's inputs: a flag byte, three pair bytes, then sections
    split at a line "%%" (a profile edit, then each pair's measured text)."""
    cnn = ["/conv1/Conv", "/relu/Relu", "/conv2/Conv", "/down/Conv", "/Add", "/relu_1/Relu", "/fc/Gemm"]

    def csv(t):
        return "name,time_s\n" + "".join("%s,%s\n" % (k, t) for k in cnn)

    edit_cost = json.dumps({"forecast": {"kernel_overhead_s": {"value": 1e-5}}})
    edit_stack = json.dumps({"forecast": {"fusion": "none", "conv_lowering": "im2col"}})
    broken_mode = json.dumps({"power_modes": [{"id": "a", "name": "a", "default": True, "overrides": {}},
                                              {"id": "b", "name": "b", "overrides": {"clock_hz": -5}}]})
    ort = json.load(open(os.path.join(ROOT, "tests", "fixtures", "measured", "ort_small_cnn_all.json")))
    for e in ort:
        if e.get("name") == "model_run":
            e["dur"] = 1e9
    seeds = [  # (flags and pairs, profile edit, measured texts)
        (bytes([0, 0, 0, 0]), "", []),                       # the CNN with its ORT profile
        (bytes([1, 0, 1, 0]), edit_cost, []),                # the CNN and the MLP
        (bytes([2, 6, 3, 5]), edit_stack, []),               # three pairs: CSV, ORT, trtexec
        (bytes([4, 0, 0, 0]), "", []),                       # onto the Orin profile
        (bytes([12, 1, 0, 0]), "", []),                      # onto the Orin, in mode 15w
        (bytes([0, 0, 0, 0]), "", [csv("1e-5")]),
        # issue 43: a denormal, 1e-15 s, 1,000 s kernels; the MLP with the CNN's
        # times beside the CNN; 1,000 s runs; a base with a broken power mode
        (bytes([0, 0, 0, 0]), "", [csv("1e-320")]),
        (bytes([0, 0, 0, 0]), "", [csv("1e-15")]),
        (bytes([0, 0, 0, 0]), "", [csv("1e3")]),
        (bytes([1, 0, 1, 0]), "", [csv("1e-5"), csv("1e-5")]),
        (bytes([0, 0, 0, 0]), "", [json.dumps(ort)]),
        (bytes([0, 0, 0, 0]), broken_mode, []),
    ]
    for i, (head, edit, texts) in enumerate(seeds):
        write(os.path.join(out, "calib_%02d" % i), head + "\n%%\n".join([edit] + texts).encode())
    return len(seeds)


if __name__ == "__main__":
    main()
