#!/usr/bin/env python3
"""Check the shipped hardware profiles (hw/*.json) with the core, and the
one rule the core cannot see: a profile's id is its file name.

Usage:
    python3 hw/check_profiles.py [--rooflens PATH] [FILE|DIR...]
    python3 hw/check_profiles.py --table        # also print the README table
    python3 hw/check_profiles.py --write-readme # write it into hw/README.md
    python3 hw/check_profiles.py --check-readme # fail when hw/README.md's table differs

The core is the one validator of what a profile says (rl_check_shipped_hardware,
through `rooflens --check-hw --shipped`): known fields and precisions, every
figure a normal number inside its physical range, the power modes and their
overrides, the energy model, the power budget rule, and the rules of a shipped
profile (every figure {value, source, kind} with a known kind, estimated and
derived figures say how, schema 1, the ids, the category, an INT8 peak at least
the FP16/BF16 one), a capacity within the exposed memory (exposed_bytes), every
mode within the module's maximum power (power_max_w), an interconnect with its
topology and bandwidth. This script keeps
only what needs the files themselves, which the core never sees: the id is the
file name, and the table of profiles in hw/README.md (--table). Do not add a
rule about a profile's content here: add it to core/src/hw.c.

It needs the built CLI (default: build/rooflens next to this folder, or
--rooflens PATH) and fails without it. Prints one line per profile; exits 1
if anything failed.
"""
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def check_file(path, stem):
    """The profile's JSON and the file-level errors (the id is the file name)."""
    try:
        with open(path, encoding="utf-8") as f:
            p = json.load(f)
    except (OSError, ValueError) as e:
        return None, [f"cannot read JSON: {e}"]
    if not isinstance(p, dict) or p.get("id") != stem:
        got = p.get("id") if isinstance(p, dict) else None
        return p, [f"id {got!r} must be the file name '{stem}'"]
    return p, []


def core_check(rooflens, paths):
    """{path: error text or None} from `rooflens --check-hw`."""
    out = subprocess.run([rooflens, "--check-hw", "--shipped", *paths], capture_output=True, text=True)
    lines = out.stdout.splitlines()
    if len(lines) != len(paths):
        return {p: f"rooflens --check-hw gave no verdict ({out.stderr.strip()[:200]})" for p in paths}
    return {p: (None if line.startswith("ok ") else line) for p, line in zip(paths, lines)}


def summary_row(p):
    def val(prec):
        try:
            return p["compute"][prec]["matrix"]["value"]
        except (KeyError, TypeError):
            return None
    def kind(prec):
        return p["compute"][prec]["matrix"].get("kind", "?")
    peaks = [(val(x), x) for x in ("fp16", "bf16") if val(x)]
    if peaks:
        v, which = max(peaks)
        both = all(val(x) == v for x in ("fp16", "bf16"))
        peak = f"{v / 1e12:,.1f} ({'fp16/bf16' if both else which}, {kind(which)})"
    else:
        peak = "-"
    i8 = val("int8")
    int8 = f"{i8 / 1e12:,.1f} ({kind('int8')})" if i8 else "-"
    bw = p["memory"][0]["bandwidth_Bps"]
    bws = f"{bw['value'] / 1e9:,.1f} GB/s ({bw['kind']})"
    budget = p.get("power_budget_w")
    bud = f"{budget['value']:g} W ({budget['kind']})" if budget else "unknown"
    ic = p.get("interconnect") or {}
    if ic.get("topology", "none") == "none":
        link = "none (one device)"
    else:
        link = (f"{ic.get('name', '')}, {ic['topology']}, {ic['links']['value']:g} x "
                f"{ic['link_bandwidth_Bps']['value'] / 1e9:,.1f} GB/s")
    cap = p["memory"][0].get("capacity_bytes")
    caps = f"{cap['value'] / 2**30:,.1f} GiB ({cap['kind']})" if cap else "-"
    return (f"| `{p['id']}` | {p['name']} | {p['vendor']} | {p['category']} | {bws} | {caps} | {peak} | {int8} | "
            f"{bud} | {len(p.get('power_modes', []))} | {link} |")


README = os.path.join(HERE, "README.md")
TABLE_BEGIN, TABLE_END = "<!-- profiles:begin", "<!-- profiles:end -->"


def table_text(rows):
    head = ("| id | name | vendor | category | main memory bandwidth | main memory capacity "
            "| fp16/bf16 matrix peak, dense (TFLOP/s) | int8 matrix peak, dense (TOP/s) "
            "| power budget | power modes | interconnect (links x per direction) |\n"
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
    return head + "".join(r + "\n" for r in rows)


def readme_table(mode, rows):
    """--check-readme: 0 when hw/README.md's table (between its markers) is
    the generated one, else 1 with the first differing line; --write-readme
    puts the generated one there."""
    with open(README, encoding="utf-8") as f:
        text = f.read()
    try:
        start = text.index("\n", text.index(TABLE_BEGIN)) + 1
        end = text.index(TABLE_END, start)
    except ValueError:
        print(f"{README}: the markers {TABLE_BEGIN} ... {TABLE_END} are missing", file=sys.stderr)
        return 1
    want = table_text(rows)
    if mode == "--write-readme":
        with open(README, "w", encoding="utf-8") as f:
            f.write(text[:start] + want + text[end:])
        print(f"wrote the table of {len(rows)} profiles into {README}")
        return 0
    have = text[start:end]
    if have == want:
        print(f"hw/README.md's table matches the {len(rows)} profiles")
        return 0
    diff = next((f"README: {a!r}\nprofiles: {b!r}" for a, b in zip(have.splitlines(), want.splitlines()) if a != b),
                f"README has {len(have.splitlines())} lines, the profiles give {len(want.splitlines())}")
    print(f"FAIL hw/README.md's profile table differs from hw/*.json (python3 hw/check_profiles.py --write-readme):\n{diff}")
    return 1


def main(argv):
    table = "--table" in argv
    readme = next((a for a in argv if a in ("--check-readme", "--write-readme")), None)
    args = [a for a in argv if a not in ("--table", "--check-readme", "--write-readme")]
    rooflens = os.path.join(os.path.dirname(HERE), "build", "rooflens")
    if "--rooflens" in args:
        i = args.index("--rooflens")
        rooflens = args[i + 1] if i + 1 < len(args) else ""
        del args[i:i + 2]
    files = []
    for a in args or [HERE]:
        files += sorted(glob.glob(os.path.join(a, "*.json"))) if os.path.isdir(a) else [a]
    if not files:
        print("no profiles found", file=sys.stderr)
        return 1
    if not os.access(rooflens, os.X_OK):
        print(f"no rooflens CLI at {rooflens}: build it (cmake --build build) or pass --rooflens PATH",
              file=sys.stderr)
        return 1
    verdicts = core_check(rooflens, files)
    failed, rows = 0, []
    for path in files:
        stem = os.path.splitext(os.path.basename(path))[0]
        p, errors = check_file(path, stem)
        if verdicts.get(path):
            errors.append(f"core: {verdicts[path]}")
        if errors:
            failed += 1
            print(f"FAIL {stem}")
            for e in errors:
                print(f"     {e}")
        else:
            print(f"ok   {stem:<20} {p['name']}")
            rows.append(summary_row(p))
    print(f"{len(files) - failed}/{len(files)} profiles valid")
    if table:
        print()
        print(table_text(rows), end="")
    if readme:
        if failed:
            print(f"{readme}: not done, {failed} profile(s) failed", file=sys.stderr)
            return 1
        return readme_table(readme, rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
