#!/usr/bin/env python3
"""--format is one table (cli/formats.c): the help lists every format with
the subcommands that print it, each subcommand prints exactly the formats
the help gives it and refuses the others with an error that lists its own,
and --max-slowdown is read once (the study carries the number typed).
    formats.py ROOFLENS REPO_ROOT"""
import json
import re
import subprocess
import sys

rooflens, root = sys.argv[1], sys.argv[2]
mlp = f"{root}/tests/fixtures/models/mlp.onnx"
unit = f"{root}/tests/hw/unit.json"
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def run(*args):
    p = subprocess.run([rooflens, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


# The help's --format block: "id  what it prints (who)" a line.
_, out, _ = run("--help")
block = out.split("--format F", 1)[1].split("\n  --", 1)[0]
# "[MODEL.onnx, diff]" after a format printed by some subcommands only
rows = re.findall(r"^\s+(\w+)\s{2,}(.*?)(?: \[([^\[\]]*)\])?$", block, re.M)
ALL = {"MODEL.onnx", "diff", "batch"}
formats = {fid: set(who.split(", ")) if who else ALL for fid, _, who in rows if fid != "how"}
check(len(formats) >= 6, f"the help lists {len(formats)} formats: {sorted(formats)}")
analyze = [f for f, who in formats.items() if "MODEL.onnx" in who]
diff = [f for f, who in formats.items() if "diff" in who]
batch = [f for f, who in formats.items() if "batch" in who]
check("netron" in analyze and "markdown" not in analyze, f"analyze's formats: {analyze}")
check("markdown" in diff and "netron" not in diff, f"diff's formats: {diff}")
check("markdown" in batch and "dot" not in batch, f"batch's formats: {batch}")

for f in formats:
    rc, out, err = run(mlp, "--hw", unit, "--format", f)
    if f in analyze:
        check(rc == 0 and out.strip(), f"analyze --format {f}: exit {rc} {err[:200]}")
    else:
        check(rc == 2 and all(a in err for a in analyze), f"analyze refuses --format {f} listing its own: {err[:200]}")
    rc, out, err = run("diff", mlp, mlp, "--hw", unit, "--format", f)
    if f in diff:
        check(rc == 0, f"diff --format {f}: exit {rc} {err[:200]}")
    else:
        check(rc == 2 and all(d in err for d in diff), f"diff refuses --format {f} listing its own: {err[:200]}")
    rc, out, err = run("batch", mlp, "--hw", unit, "--format", f)
    if f in batch:
        check(rc == 0, f"batch --format {f}: exit {rc} {err[:200]}")
    else:
        check(rc == 2 and all(b in err for b in batch), f"batch refuses --format {f} listing its own: {err[:200]}")

# the README's synopsis lists the analysis's formats as the table does
with open(f"{root}/README.md", encoding="utf-8") as f:
    readme = f.read()
check(f"[--format {'|'.join(analyze)}]" in readme, f"README's synopsis says [--format {'|'.join(analyze)}]")

# --sol's help lists the core's speed-of-light models, the ones an answer carries
_, help_text, _ = run("--help")
sol_help = " ".join(help_text.split("--sol S", 1)[1].split("\n  --", 1)[0].split())
rc, out, err = run(mlp, "--hw", unit, "--format", "json")
sols = [k for k in json.loads(out)["sol"] if k != "chosen"] if rc == 0 else []
check(len(sols) >= 3 and ", ".join(sols) in sol_help, f"--sol's help lists the core's models {sols}: {sol_help!r}")
# --kv-type's help lists the cache types the core takes, the list its error names
kv_help = " ".join(help_text.split("--kv-type T", 1)[1].split("\n  --", 1)[0].split())
rc, _, err = run(mlp, "--hw", unit, "--llm", "--kv-type", "q9")
kv_types = err.split("must be one of ", 1)[1].split(" (", 1)[0] if "must be one of " in err else ""
check(rc != 0 and "q8_0" in kv_types and kv_types in kv_help, f"--kv-type's help lists the core's {kv_types!r}: {kv_help!r}")
# a study and --llm name the formats they print from the table
for view in (["--compare", "h100-sxm"], ["--llm"]):
    rc, _, err = run(mlp, "--hw", unit, *view, "--format", "csv")
    check(rc == 2 and "(--format table|json), not csv" in err, f"{view[0]} --format csv refused naming its formats: {err[:200]}")

# --max-slowdown: one parse, its number in the study
rc, out, err = run(mlp, "--hw", "jetson-agx-orin", "--power-modes", "--max-slowdown", "0.25", "--format", "json")
check(rc == 0 and json.loads(out)["study"].get("max_slowdown") == 0.25, f"--max-slowdown 0.25 reaches the study: {err[:200]}")
rc, _, err = run(mlp, "--power-modes", "--max-slowdown", "1e999")
check(rc == 2 and "finite number" in err, f"--max-slowdown 1e999 refused: {err[:200]}")
rc, _, err = run(mlp, "--max-slowdown", "0.1")
check(rc == 2 and "goes with --power-modes" in err, f"--max-slowdown alone refused: {err[:200]}")

print(f"formats: {len(formats)} formats, {len(failures)} failures")
sys.exit(1 if failures else 0)
