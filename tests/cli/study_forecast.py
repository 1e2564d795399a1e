#!/usr/bin/python3
"""The forecast beside the floor in every what-if study of the CLI: the
compare, batch-sweep and power-mode tables show each row's forecast_s (the
core's, as --format json gives it) right after the row's floor, never below
it, and a device without energy figures has a null forecast energy.

  study_forecast.py path/to/rooflens REPO_ROOT
"""
import json
import os
import re
import subprocess
import sys

CLI, ROOT = sys.argv[1], sys.argv[2]
MODEL = os.path.join(ROOT, "tests/fixtures/models/conv_net.onnx")

# a time cell as the CLI writes it (rl_format_eng: three significant digits and a prefix)
TIME = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?) ([pnµm]?)s(?!\w)")
PREFIX = {"p": 1e-12, "n": 1e-9, "µ": 1e-6, "m": 1e-3, "": 1.0}


def times(line):
    return [float(v) * PREFIX[p] for v, p in TIME.findall(line)]


def near(shown, value):
    """a cell of three significant digits shows this value"""
    return value == 0 and shown == 0 or abs(shown - value) <= 0.0051 * abs(value)

fails = passed = 0


def check(what, ok):
    global fails, passed
    passed += bool(ok)
    if not ok:
        fails += 1
        print(f"FAIL: {what}", file=sys.stderr)


def run(args):
    r = subprocess.run([CLI, MODEL, *args], capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL)
    return r.stdout


STUDIES = [
    ("compare", ["--compare", "h100-sxm,jetson-agx-orin:15w,tpu-v5e"], "chosen_time_s", lambda r: r["hardware"]["id"]),
    ("power modes", ["--hw", "jetson-agx-orin", "--power-modes"], "time_s", lambda r: r["mode"]),
    ("batch sweep", ["--hw", "a100-sxm-80gb", "--sweep-batch", "1,8,64"], "time_s", lambda r: str(r["batch"])),
]
for name, args, floor_key, key in STUDIES:
    rows = json.loads(run([*args, "--format", "json"]))["study"]["rows"]
    table = run(args).splitlines()
    header = next((l for l in table if " forecast " in l), "")
    check(f"{name}: the table has a forecast column: {header!r}", header)
    for r in rows:
        f, t = r["forecast_s"], r[floor_key]
        check(f"{name} {key(r)}: forecast {f} is a number, not below the floor {t}", isinstance(f, (int, float)) and f >= t)
        line = next((l for l in table if l.split() and l.split()[0] == key(r)), "")
        cells = times(line)
        check(f"{name} {key(r)}: the row shows the floor then the forecast ({t:.4g} s, {f:.4g} s): {line!r}",
              any(near(cells[i], t) and near(cells[i + 1], f) for i in range(len(cells) - 1)))
        if name == "compare" and key(r) == "tpu-v5e":
            check("tpu-v5e has no energy figures: no forecast energy", r["forecast_energy_j"] is None)
        elif name == "compare":
            check(f"{key(r)}: a forecast energy", isinstance(r["forecast_energy_j"], (int, float)) and r["forecast_energy_j"] > 0)

print(f"study forecast: {passed} passed, {fails} failed")
sys.exit(1 if fails else 0)
