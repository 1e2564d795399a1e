#!/usr/bin/python3
"""The CLI's figures are the JSON's: for every fixture model, every cell of
`--format csv` equals the same layer's member in `--format json` (numbers to
the last bit, written as JavaScript's String() writes them; inputs and
outputs as the page's table shows them: "float32[1,?], int64[?]"), and every row of the table (name, op, intensity, bound, share
of the time) is the JSON's layer, in the JSON's order by time. The table reads
the packed layer table; the CSV and the JSON are the core's text as it is.

    /usr/bin/python3 tests/cli/figures.py path/to/rooflens REPO_ROOT
"""
import csv
import decimal
import glob
import io
import json
import os
import re
import subprocess
import sys

CLI, ROOT = sys.argv[1], sys.argv[2]
UNIT = os.path.join(ROOT, "tests/hw/unit.json")
fails = 0
checked = 0


def fail(msg):
    global fails
    fails += 1
    if fails <= 20:
        print("FAIL:", msg, file=sys.stderr)


def run(args):
    p = subprocess.run([CLI, *args], capture_output=True, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def js_number(v):
    """String(v) in JavaScript: the shortest digits that read back as v,
    plain from 1e-7 up to 1e21, else d.ddde+x."""
    if v == 0:
        return "0"
    sign = "-" if v < 0 else ""
    t = decimal.Decimal(repr(abs(float(v)))).normalize().as_tuple()  # repr: the shortest round trip
    digits = "".join(map(str, t.digits))
    point = len(digits) + t.exponent  # where the point stands after the first digit
    k, n = len(digits), point
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    e = n - 1
    return sign + digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("-" if e < 0 else "+") + str(abs(e))


def shapes(tensors):
    return ", ".join(f"{t.get('dtype') or '?'}[" + (",".join("?" if d is None else str(d) for d in t["shape"]) if t.get("shape") is not None else "?") + "]" for t in tensors)


def same(cell, value):
    if isinstance(value, list):
        return cell == shapes(value)
    if value is None:
        return cell == ""
    if isinstance(value, bool):
        return cell == ("true" if value else "false")
    if isinstance(value, (int, float)):
        return cell == js_number(value)
    text = value
    if text[:1] in ("=", "+", "-", "@", "\t", "\r"):
        text = "'" + text
    return cell == text


def check_model(model, extra):
    global checked
    rc, out = run([model, "--hw", UNIT, "--format", "json", *extra])
    if rc not in (0,):
        return  # a fixture the core refuses has no figures to compare
    ans = json.loads(out)
    layers = ans["layers"]
    rc, out = run([model, "--hw", UNIT, "--format", "csv", *extra])
    rows = list(csv.reader(io.StringIO(out)))
    head, body = rows[0], rows[1:]
    if len(body) != len(layers):
        fail(f"{model}: csv has {len(body)} rows, json {len(layers)} layers")
        return
    for i, (row, layer) in enumerate(zip(body, layers)):
        for col, cell in zip(head, row):
            checked += 1
            if not same(cell, layer.get(col)):
                fail(f"{model} layer {i} {col}: csv {cell!r}, json {layer.get(col)!r}")
    rc, out = run([model, "--hw", UNIT, "--top", "0", *extra])
    lines = out.splitlines()
    start = next(k for k, l in enumerate(lines) if l.startswith("layer (top by time)")) + 1
    total = ans["sol"]["chosen"]["time_s"]
    order = sorted(range(len(layers)), key=lambda k: (-layers[k]["t"], k))
    for k, idx in enumerate(order):
        layer, line = layers[idx], lines[start + k]
        # a share of a total that is not positive is unknown ("n/a"), never a made-up 0.0%
        share = f"{100 * layer['t'] / total:5.1f}%" if total > 0 else "n/a"
        want_tail = f"{layer['intensity']:8.1f}"
        checked += 1
        plain = lambda s: s.isascii() and s.isprintable()  # others are shown escaped (tests/cli/hostile.sh)
        if plain(layer["name"]) and not line.startswith(layer["name"][:32].ljust(32)):
            fail(f"{model} table row {k}: {line!r} is not layer {layer['name']!r}")
        bound = BOUND_WORDS.get(layer["bound"], layer["bound"])
        if (plain(layer["op"]) and f" {layer['op'][:18]}" not in line) or f" {share}" not in line \
                or want_tail not in line or f" {bound} " not in line:
            fail(f"{model} table row {k}: {line!r} does not show {layer['op']}, {want_tail}, {bound}, {share}")


# The words the table shows for each bound, read from the core's one list
# (core/src/words.c, its table of bounds: [RL_BOUND_X] = {"id", "name", ...}), so this test
# follows it rather than keeping a copy.
BOUND_WORDS = dict(re.findall(r'\[RL_BOUND_\w+\]\s*=\s*\{"([^"]+)",\s*"([^"]+)"',
                              open(os.path.join(ROOT, "core/src/words.c")).read()))
assert BOUND_WORDS.get("overhead") == "launch floor", BOUND_WORDS

models = sorted(glob.glob(os.path.join(ROOT, "tests/fixtures/models/*.onnx")))
models += sorted(glob.glob(os.path.join(ROOT, "tests/fixtures/hostile/*.onnx")))
for m in models:
    check_model(m, [])
measured = os.path.join(ROOT, "tests/fixtures/measured")
check_model(os.path.join(measured, "small_cnn.onnx"), ["--measured", os.path.join(measured, "csv_small_cnn.csv")])
check_model(os.path.join(measured, "small_cnn.onnx"), ["--measured", os.path.join(measured, "ort_small_cnn_all.json")])
print(f"cli figures: {checked} cells and rows compared over {len(models) + 2} analyses, {fails} failed")
sys.exit(1 if fails or checked == 0 else 0)
