#!/usr/bin/python3
"""--compare over device counts: h100-sxm against 2, 4 and 8 of it
(ID@tp=T). The core's compare rows carry the plan of each (study.rows[].
parallel); the table's "over the devices" rows show those figures and no
others; going from one device to two the time falls, and communication
appears and grows with the devices. A malformed count is a usage error, and
a device without chip-to-chip links is a row error, the other rows intact.

  compare_devices.py path/to/rooflens REPO_ROOT
"""
import importlib.util
import json
import os
import subprocess
import sys

CLI, ROOT = sys.argv[1], sys.argv[2]
MODEL = os.path.join(ROOT, "tests/fixtures/models/torch/llama_1b_kv.onnx")
LIST = "h100-sxm,h100-sxm@tp=2,h100-sxm@tp=4,h100-sxm@tp=8"
ARGS = [MODEL, "--batch", "8", "--compare", LIST]

# The number format of docs/parallel.md's generator (three significant
# digits, an SI prefix), the one the CLI's rl_format_eng writes.
spec = importlib.util.spec_from_file_location("pdoc", os.path.join(ROOT, "tools/make-docs/parallel_example.py"))
pdoc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pdoc)
eng = pdoc.eng

fails = 0
passed = 0


def check(what, ok):
    global fails, passed
    if ok:
        passed += 1
    else:
        fails += 1
        print(f"FAIL: {what}", file=sys.stderr)


def run(args):
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL)


ans = json.loads(run([*ARGS, "--format", "json"]).stdout)
rows = ans["study"]["rows"]
check("four rows", len(rows) == 4)
check("the first row is one device", "parallel" not in rows[0])
par = [r.get("parallel") or {} for r in rows[1:]]
check("devices 2, 4, 8 as asked", [(p.get("tp"), p.get("devices")) for p in par] == [(2, 2), (4, 4), (8, 8)])
check("two devices are faster than one", par[0]["time_s"] < rows[0]["chosen_time_s"])
comms = [p["t_comms_s"] for p in par]
check(f"communication appears and grows with the devices {comms}", 0 < comms[0] < comms[1] < comms[2])
check("each plan is math + communication",
      all(abs(p["time_s"] - p["t_math_s"] - p["t_comms_s"]) <= 1e-9 * p["time_s"] for p in par))

out = run(ARGS)
check("the table runs", out.returncode == 0)
lines = out.stdout.splitlines()
start = next((k for k, l in enumerate(lines) if l.startswith("over the devices")), None)
check("an 'over the devices' table", start is not None)
table = lines[start + 2:start + 6] if start is not None else []
one = table[0].split() if table else []
check(f"one device: its own time, no communication: {one}",
      one[:5] == ["h100-sxm", "-", "1", *eng(rows[0]["chosen_time_s"], "s").split()] and one[5:7] == ["-", "-"])
for line, p in zip(table[1:], par):
    f = line.split()
    want = ["h100-sxm", f"tp={p['tp']}", str(p["devices"]), *eng(p["time_s"], "s").split(),
            *eng(p["t_math_s"], "s").split(), *eng(p["t_comms_s"], "s").split()]
    check(f"row tp={p['tp']} shows the core's time, math and communication: {line!r} vs {want}", f[:len(want)] == want)
    check(f"row tp={p['tp']} shows the speed-up {p['speedup']:.2f}x", f"{p['speedup']:.2f}x" in f)
    check(f"row tp={p['tp']} shows what is sent {eng(p['comm_bytes'], 'B')}", eng(p["comm_bytes"], "B") in line)
    check(f"row tp={p['tp']} ends with the energy of its devices {eng(p['energy_j'], 'J')}",
          line.endswith(" " + eng(p["energy_j"], "J")))

for wrong in ("h100-sxm@tp=x", "h100-sxm@tp=2+", "h100-sxm@tp=2++pp=2", "h100-sxm@tp=2+tp=4", "h100-sxm@tp=-2"):
    bad = run([MODEL, "--compare", wrong])
    check(f"a malformed count is a usage error: {wrong}", bad.returncode == 2 and "ID@tp=T[+pp=P][+dp=D]" in bad.stderr)
zero = json.loads(run([MODEL, "--compare", "h100-sxm@tp=0", "--format", "json"]).stdout)["study"]["rows"][0]
check("a count out of the core's range is the core's row error", zero["error"]["code"] == "bad_request")
mixed = run([MODEL, "--compare", "jetson-agx-orin@tp=2,h100-sxm@tp=2", "--format", "json"])
mrows = json.loads(mixed.stdout)["study"]["rows"]
check("a device without links is a row error", mrows[0]["error"]["code"] == "bad_request" and "interconnect" in
      mrows[0]["error"]["message"])
check("the other row is planned", mrows[1]["parallel"]["devices"] == 2)
both = run([MODEL, "--compare", "h100-sxm,h100-sxm@tp=2", "--parallel", "tp=2"])
check("--parallel is not mixed with --compare", both.returncode == 2 and "ID@tp=T" in both.stderr)

print(f"compare devices: {passed} passed, {fails} failed")
sys.exit(1 if fails else 0)
