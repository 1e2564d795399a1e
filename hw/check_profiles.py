#!/usr/bin/env python3
"""Check the provenance of rooflens hardware profiles (hw/*.json), and have
the core check everything else.

Usage:
    python3 hw/check_profiles.py [--rooflens PATH] [FILE|DIR...]
    python3 hw/check_profiles.py --table        # also print the README table

The core (rl_check_hardware, through `rooflens --check-hw`) is the one
validator of what a profile says: known fields and precisions, every figure
a normal number inside its physical range, the power modes and their
overrides, the energy model and the power budget rule (hw/README.md). This
script keeps only what the core does not judge because the core also accepts
plain numbers from users: every figure of a shipped profile is
{value, source, kind} with a known kind, estimated and derived figures say
how, the id is the file name, and the category is one the page groups by.

The core check needs the built CLI (default: build/rooflens next to this
folder, or --rooflens PATH); without it only provenance is checked and the
script says so. Prints one line per profile; exits 1 if anything failed.
"""
import glob
import json
import os
import re
import subprocess
import sys

KINDS = ("datasheet", "measured", "estimated", "derived")
CATEGORIES = ("datacenter-gpu", "consumer-gpu", "edge", "tpu", "cpu", "apple")
ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
HERE = os.path.dirname(os.path.abspath(__file__))


def provenance(node, where, errors):
    """Every number is a figure {value, source, kind}; recurse through the rest."""
    if isinstance(node, dict):
        if "value" in node:
            src, kind = node.get("source"), node.get("kind")
            if not isinstance(src, str) or len(src.strip()) < 4:
                errors.append(f"{where}: a shipped figure needs a source")
            if kind not in KINDS:
                errors.append(f"{where}: kind must be one of {', '.join(KINDS)} (got {kind!r})")
            elif kind in ("estimated", "derived") and isinstance(src, str) and len(src.strip()) < 12:
                errors.append(f"{where}: a {kind} figure must say how in its source")
            return
        for k, v in node.items():
            if k != "schema":
                provenance(v, f"{where}.{k}" if where else k, errors)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            label = v.get("id") if isinstance(v, dict) and isinstance(v.get("id"), str) else i
            provenance(v, f"{where}[{label}]", errors)
    elif isinstance(node, (int, float)) and not isinstance(node, bool):
        errors.append(f"{where}: a shipped figure must be {{value, source, kind}}, not a bare number")


def check_file(path, stem):
    errors = []
    try:
        with open(path, encoding="utf-8") as f:
            p = json.load(f)
    except (OSError, ValueError) as e:
        return None, [f"cannot read JSON: {e}"]
    if not isinstance(p, dict):
        return None, ["top level must be an object"]
    if p.get("schema") != 1 or isinstance(p.get("schema"), bool):
        errors.append(f"schema must be 1 (got {p.get('schema')!r})")
    if p.get("id") != stem or not ID_RE.match(stem):
        errors.append(f"id {p.get('id')!r} must be the file name '{stem}' (lowercase letters, digits, '-')")
    for k in ("name", "vendor"):
        if not isinstance(p.get(k), str) or not p[k].strip():
            errors.append(f"'{k}' must be a non-empty string")
    if p.get("category") not in CATEGORIES:
        errors.append(f"category must be one of {', '.join(CATEGORIES)} (got {p.get('category')!r})")
    for m in p.get("power_modes", []) if isinstance(p.get("power_modes"), list) else []:
        if isinstance(m, dict) and not (isinstance(m.get("id"), str) and ID_RE.match(m["id"])):
            errors.append(f"power mode id {m.get('id')!r} must be lowercase letters, digits and '-'")
    provenance(p, "", errors)
    return p, errors


def core_check(rooflens, paths):
    """{path: error text or None} from `rooflens --check-hw`."""
    out = subprocess.run([rooflens, "--check-hw", *paths], capture_output=True, text=True)
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
    peaks = [(val(x), x) for x in ("fp16", "bf16") if val(x)]
    if peaks:
        v, which = max(peaks)
        both = all(val(x) == v for x in ("fp16", "bf16"))
        peak = f"{v / 1e12:,.1f} ({'fp16/bf16' if both else which})"
    else:
        peak = "-"
    bw = p["memory"][0]["bandwidth_Bps"]
    bws = f"{bw['value'] / 1e9:,.1f} GB/s ({bw['kind']})"
    budget = p.get("power_budget_w")
    bud = f"{budget['value']:g} W ({budget['kind']})" if budget else "unknown"
    return (f"| `{p['id']}` | {p['name']} | {p['category']} | {bws} | {peak} | {bud} | "
            f"{len(p.get('power_modes', []))} |")


def main(argv):
    table = "--table" in argv
    args = [a for a in argv if a != "--table"]
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
    have_core = os.access(rooflens, os.X_OK)
    verdicts = core_check(rooflens, files) if have_core else {}
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
    print(f"{len(files) - failed}/{len(files)} profiles valid"
          + ("" if have_core else f" (provenance only: no core at {rooflens}; build it or pass --rooflens)"))
    if table:
        print()
        print("| id | name | category | main memory bandwidth | fp16/bf16 matrix peak, dense (TFLOP/s) "
              "| power budget | power modes |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for r in rows:
            print(r)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
