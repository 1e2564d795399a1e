#!/usr/bin/env python3
"""Validate rooflens hardware profiles (hw/*.json).

Usage:
    python3 hw/check_profiles.py            # every hw/*.json next to this script
    python3 hw/check_profiles.py FILE|DIR…  # only these
    python3 hw/check_profiles.py --table    # also print the README profile table

Checks each profile against the format in hw/README.md (standard library only,
no jsonschema): schema 1, id = file name, known fields only, every figure
{value > 0 and finite, non-empty source, valid kind}, memory non-empty, at least
one compute precision, matrix >= vector, on-chip levels faster than main memory,
power-mode overrides naming only known fields, exactly one default mode, and
every power mode still complete and valid after its overrides are merged.

Prints one line per profile and exits 1 if anything failed.
"""
import copy
import glob
import json
import math
import os
import re
import sys

KINDS = ("datasheet", "measured", "estimated", "derived")
CATEGORIES = ("datacenter-gpu", "consumer-gpu", "edge", "tpu", "cpu", "apple")
PRECISIONS = ("fp32", "tf32", "fp16", "bf16", "fp8", "int8")
ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

TOP_REQUIRED = ("schema", "id", "name", "vendor", "category", "clock_hz",
                "launch_overhead_s", "compute", "memory")
TOP_OPTIONAL = ("notes", "energy", "power_modes")
LEVEL_FIELDS = ("name", "bandwidth_Bps", "capacity_bytes")
ENERGY_FIELDS = ("flop_j", "byte_j", "static_w")
UNIT_FIELDS = ("matrix", "vector")
MODE_FIELDS = ("id", "name", "default", "overrides")
OVERRIDE_FIELDS = ("clock_hz", "launch_overhead_s", "compute", "memory", "energy")


class Checker:
    def __init__(self):
        self.errors = []

    def err(self, where, msg):
        self.errors.append(f"{where}: {msg}")

    # -- building blocks ---------------------------------------------------
    def unknown(self, obj, allowed, where):
        for k in obj:
            if k not in allowed:
                self.err(where, f"unknown field '{k}'")

    def figure(self, f, where):
        if not isinstance(f, dict):
            self.err(where, "figure must be an object {value, source, kind}")
            return
        self.unknown(f, ("value", "source", "kind"), where)
        v = f.get("value")
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            self.err(where, "value must be a number")
        elif not math.isfinite(v) or v <= 0:
            self.err(where, f"value must be finite and > 0 (got {v})")
        s = f.get("source")
        if not isinstance(s, str) or not s.strip():
            self.err(where, "source must be a non-empty string")
        k = f.get("kind")
        if k not in KINDS:
            self.err(where, f"kind must be one of {', '.join(KINDS)} (got {k!r})")
        elif k in ("estimated", "derived") and isinstance(s, str) and len(s.strip()) < 12:
            self.err(where, f"{k} figure must say how in its source")

    def string(self, obj, key, where, required=True):
        if key not in obj:
            if required:
                self.err(where, f"missing '{key}'")
            return
        if not isinstance(obj[key], str) or not obj[key].strip():
            self.err(f"{where}.{key}", "must be a non-empty string")

    def compute(self, c, where, partial):
        if not isinstance(c, dict):
            self.err(where, "must be an object")
            return
        if not partial and not c:
            self.err(where, "needs at least one precision")
        for prec, units in c.items():
            w = f"{where}.{prec}"
            if prec not in PRECISIONS:
                self.err(where, f"unknown precision '{prec}' (known: {', '.join(PRECISIONS)})")
                continue
            if not isinstance(units, dict):
                self.err(w, "must be an object {matrix, vector}")
                continue
            self.unknown(units, UNIT_FIELDS, w)
            for u in UNIT_FIELDS:
                if u in units:
                    self.figure(units[u], f"{w}.{u}")
                elif not partial:
                    self.err(w, f"missing '{u}'")
            if partial and not units:
                self.err(w, "empty precision override")

    def level(self, lv, where, partial):
        if not isinstance(lv, dict):
            self.err(where, "memory level must be an object")
            return
        self.unknown(lv, LEVEL_FIELDS, where)
        if "name" in lv or not partial:
            self.string(lv, "name", where)
        for k in ("bandwidth_Bps", "capacity_bytes"):
            if k in lv:
                self.figure(lv[k], f"{where}.{k}")
            elif not partial:
                self.err(where, f"missing '{k}'")

    def memory(self, m, where, partial):
        if not isinstance(m, list) or (not partial and not m):
            self.err(where, "must be a non-empty array" if not partial else "must be an array")
            return
        for i, lv in enumerate(m):
            self.level(lv, f"{where}[{i}]", partial)

    def energy(self, e, where, partial):
        if not isinstance(e, dict):
            self.err(where, "must be an object")
            return
        self.unknown(e, ENERGY_FIELDS, where)
        for k in ENERGY_FIELDS:
            if k in e:
                self.figure(e[k], f"{where}.{k}")
            elif not partial:
                self.err(where, f"missing '{k}'")

    # -- whole profile -------------------------------------------------------
    def profile(self, p, stem):
        w = stem
        if not isinstance(p, dict):
            self.err(w, "top level must be an object")
            return
        self.unknown(p, TOP_REQUIRED + TOP_OPTIONAL, w)
        for k in TOP_REQUIRED:
            if k not in p:
                self.err(w, f"missing '{k}'")
        if p.get("schema") != 1 or isinstance(p.get("schema"), bool):
            self.err(w, f"schema must be 1 (got {p.get('schema')!r})")
        pid = p.get("id")
        if not isinstance(pid, str) or not ID_RE.match(pid):
            self.err(w, f"id {pid!r} must be lowercase letters, digits and '-'")
        elif pid != stem:
            self.err(w, f"id '{pid}' does not match file name '{stem}.json'")
        for k in ("name", "vendor"):
            self.string(p, k, w)
        self.string(p, "notes", w, required=False)
        if p.get("category") not in CATEGORIES:
            self.err(w, f"category must be one of {', '.join(CATEGORIES)} (got {p.get('category')!r})")
        for k in ("clock_hz", "launch_overhead_s"):
            if k in p:
                self.figure(p[k], f"{w}.{k}")
        if "compute" in p:
            self.compute(p["compute"], f"{w}.compute", partial=False)
        if "memory" in p:
            self.memory(p["memory"], f"{w}.memory", partial=False)
        if "energy" in p:
            self.energy(p["energy"], f"{w}.energy", partial=False)
        self.consistency(p, w)
        if "power_modes" in p:
            self.power_modes(p, w)

    def consistency(self, p, w):
        """Physical sanity of an effective (merged) profile."""
        c = p.get("compute")
        if isinstance(c, dict):
            for prec, units in c.items():
                try:
                    if units["matrix"]["value"] < units["vector"]["value"]:
                        self.err(f"{w}.compute.{prec}", "matrix peak is below vector peak")
                except (KeyError, TypeError):
                    pass
        m = p.get("memory")
        if isinstance(m, list) and len(m) > 1:
            try:
                main = m[0]["bandwidth_Bps"]["value"]
                for i, lv in enumerate(m[1:], 1):
                    if lv["bandwidth_Bps"]["value"] <= main:
                        self.err(f"{w}.memory[{i}]", "on-chip level is not faster than main memory (memory[0])")
            except (KeyError, TypeError):
                pass

    def power_modes(self, p, w):
        modes = p["power_modes"]
        if not isinstance(modes, list) or not modes:
            self.err(f"{w}.power_modes", "must be a non-empty array")
            return
        seen, defaults = set(), 0
        for i, mode in enumerate(modes):
            mw = f"{w}.power_modes[{i}]"
            if not isinstance(mode, dict):
                self.err(mw, "must be an object")
                continue
            self.unknown(mode, MODE_FIELDS, mw)
            mid = mode.get("id")
            if not isinstance(mid, str) or not ID_RE.match(mid):
                self.err(mw, f"id {mid!r} must be lowercase letters, digits and '-'")
            elif mid in seen:
                self.err(mw, f"duplicate mode id '{mid}'")
            else:
                seen.add(mid)
                mw = f"{w}.power_modes[{mid}]"
            self.string(mode, "name", mw)
            if "default" in mode:
                if not isinstance(mode["default"], bool):
                    self.err(mw, "default must be true or false")
                elif mode["default"]:
                    defaults += 1
            ov = mode.get("overrides")
            if not isinstance(ov, dict):
                self.err(mw, "missing 'overrides' object (use {} for none)")
                continue
            ow = f"{mw}.overrides"
            self.unknown(ov, OVERRIDE_FIELDS, ow)
            for k in ("clock_hz", "launch_overhead_s"):
                if k in ov:
                    self.figure(ov[k], f"{ow}.{k}")
            if "compute" in ov:
                self.compute(ov["compute"], f"{ow}.compute", partial=True)
                if isinstance(ov["compute"], dict) and isinstance(p.get("compute"), dict):
                    for prec in ov["compute"]:
                        if prec in PRECISIONS and prec not in p["compute"]:
                            self.err(f"{ow}.compute", f"precision '{prec}' is not in the base profile")
            if "memory" in ov:
                self.memory(ov["memory"], f"{ow}.memory", partial=True)
                if isinstance(ov["memory"], list) and isinstance(p.get("memory"), list) \
                        and len(ov["memory"]) > len(p["memory"]):
                    self.err(f"{ow}.memory", f"{len(ov['memory'])} entries but the base profile has "
                                             f"{len(p['memory'])} memory levels")
            if "energy" in ov:
                self.energy(ov["energy"], f"{ow}.energy", partial="energy" in p)
            try:
                self.consistency(merge(p, ov), ow)
            except (TypeError, AttributeError, KeyError, IndexError):
                pass  # structural errors already reported above
        if defaults != 1:
            self.err(f"{w}.power_modes", f"exactly one mode must have \"default\": true (found {defaults})")


def merge(base, overrides):
    """Effective profile for a power mode: the override rule of hw/README.md.

    Scalars (clock_hz, launch_overhead_s) are replaced; compute[prec] replaces
    the unit fields it names (matrix and/or vector); memory[i] merges its fields
    into the base level with the same index; energy fields merge."""
    out = copy.deepcopy(base)
    out.pop("power_modes", None)
    for k in ("clock_hz", "launch_overhead_s"):
        if k in overrides:
            out[k] = copy.deepcopy(overrides[k])
    for prec, units in overrides.get("compute", {}).items():
        out.setdefault("compute", {}).setdefault(prec, {}).update(copy.deepcopy(units))
    for i, lv in enumerate(overrides.get("memory", [])):
        out["memory"][i].update(copy.deepcopy(lv))
    if "energy" in overrides:
        out.setdefault("energy", {}).update(copy.deepcopy(overrides["energy"]))
    return out


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
    return (f"| `{p['id']}` | {p['name']} | {p['category']} | {bws} | {peak} | "
            f"{len(p.get('power_modes', []))} |")


def main(argv):
    table = "--table" in argv
    args = [a for a in argv if a != "--table"]
    here = os.path.dirname(os.path.abspath(__file__))
    files = []
    for a in args or [here]:
        if os.path.isdir(a):
            files += sorted(f for f in glob.glob(os.path.join(a, "*.json"))
                            if os.path.basename(f) != "schema.json")
        else:
            files.append(a)
    if not files:
        print("no profiles found", file=sys.stderr)
        return 1
    failed, rows, ids = 0, [], {}
    for path in files:
        stem = os.path.splitext(os.path.basename(path))[0]
        ck = Checker()
        p = None
        try:
            with open(path, encoding="utf-8") as f:
                p = json.load(f, parse_constant=lambda c: float(c))
        except (OSError, ValueError) as e:
            ck.err(stem, f"cannot read JSON: {e}")
        if p is not None:
            try:
                ck.profile(p, stem)
            except Exception as e:  # malformed beyond what the checks expect
                ck.err(stem, f"unexpected structure ({type(e).__name__}: {e})")
            if isinstance(p, dict) and p.get("id") in ids:
                ck.err(stem, f"duplicate id also used by {ids[p['id']]}")
            elif isinstance(p, dict) and isinstance(p.get("id"), str):
                ids[p["id"]] = path
        if ck.errors:
            failed += 1
            print(f"FAIL {stem}")
            for e in ck.errors:
                print(f"     {e}")
        else:
            n_prec = len(p["compute"])
            print(f"ok   {stem:<20} {p['name']} ({n_prec} precisions, {len(p['memory'])} memory levels, "
                  f"{len(p.get('power_modes', []))} power modes)")
            rows.append(summary_row(p))
    print(f"{len(files) - failed}/{len(files)} profiles valid")
    if table:
        print()
        print("| id | name | category | main memory bandwidth | fp16/bf16 matrix peak, dense (TFLOP/s) | power modes |")
        print("| --- | --- | --- | --- | --- | --- |")
        for r in rows:
            print(r)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
