#!/usr/bin/python3
"""Tables for docs/validation.md from a tools/validate/cpu.sh run:

    /usr/bin/python3 tools/validate/cpu_report.py build/validate-cpu > report.md

Reads OUT/runs/<model>_b<batch>_<opt>.{meta,calibrated-cpu,calibrated-cpu-llc}.json
(ort-profile.mjs's record and rooflens's JSON with the measured section) and
OUT/calibrate.log; writes Markdown tables on stdout and OUT/summary.json.
Every figure comes from rooflens's own measured section (efficiency,
sol_bound_share, groups); this script only pools and formats them.
Standard library only.
"""
import glob
import json
import os
import statistics
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from figures import eng  # noqa: E402  (tools/common/figures.py: how every script writes a figure)


def pct(x):
    return "–" if x is None else "%.1f %%" % (100 * x)


def load_runs(out):
    runs = []
    for meta_path in sorted(glob.glob(os.path.join(out, "runs", "*.meta.json"))):
        name = os.path.basename(meta_path)[: -len(".meta.json")]
        model, rest = name.rsplit("_b", 1)
        batch, opt = rest.split("_", 1)
        r = {"name": name, "model": model, "batch": int(batch), "opt": opt,
             "meta": json.load(open(meta_path))}
        for hw in ("calibrated-cpu", "calibrated-cpu-llc"):
            p = os.path.join(out, "runs", "%s.%s.json" % (name, hw))
            r[hw] = json.load(open(p)) if os.path.exists(p) else None
        if r["calibrated-cpu"] and r["calibrated-cpu"].get("ok"):
            runs.append(r)
    return runs


def groups(res):
    """(op, measured_s, sol_s, efficiency, kernel_op, nodes) of the known groups."""
    out = []
    for g in res["measured"]["groups"]:
        if g["known"] and g["measured_s"] > 0:
            out.append(g)
    return out


def main(out):
    runs = load_runs(out)
    if not runs:
        sys.exit("no analyses under %s/runs" % out)
    order = {"resnet50": 0, "mobilenet_v3_large": 1, "bert_base": 2, "gpt_decoder": 3}
    runs.sort(key=lambda r: (order.get(r["model"], 9), r["batch"], r["opt"] != "disabled"))
    first = runs[0]["calibrated-cpu"]
    hw = first["hardware"]
    print("Device: %s, power mode %s (one thread): FP32 peak %s, memory %s; ONNX Runtime %s, one intra-op thread."
          % (hw["name"], hw.get("power_mode"), eng(first["roofline"]["peak_matrix_flops"], "FLOP/s"),
             eng(hw["bandwidth_Bps"], "B/s"), runs[0]["meta"].get("ort")))
    print()
    print("| model | batch | ORT optimisations | measured (Σ kernels) | run wall | rooflens SOL (unfused per-op) | measured / SOL | kernels matched (time) | SOL ≤ measured | … fused kernels as one | … LLC as memory | load average |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    summary = []
    pooled_time = pooled_within = pooled_time_llc = pooled_within_llc = pooled_within_fused = 0.0
    all_fused = True
    for r in runs:
        res, llc = r["calibrated-cpu"], r["calibrated-cpu-llc"]
        ms = res["measured"]
        sol_unfused = res["sol"]["unfused"]["per_op"]["time_s"]
        load = r["meta"]["loadavg_before"][0], r["meta"]["loadavg_after"][0]
        known = sum(g["measured_s"] for g in groups(res))
        pooled_time += known
        pooled_within += known * (ms["sol_bound_share"] or 0)
        has_fused = all("sol_fused_s" in g for g in groups(res))  # older analyses lack it
        within_fused = sum(g["measured_s"] for g in groups(res) if has_fused and g["sol_fused_s"] <= g["measured_s"])
        pooled_within_fused += within_fused
        share_fused = within_fused / known if known and has_fused else None
        all_fused &= has_fused
        share_llc = llc["measured"]["sol_bound_share"] if llc and llc.get("ok") else None
        if share_llc is not None:
            k2 = sum(g["measured_s"] for g in groups(llc))
            pooled_time_llc += k2
            pooled_within_llc += k2 * share_llc
        print("| %s | %d | %s | %s | %s | %s | %.2f | %d of %d (%s) | %s | %s | %s | %.1f → %.1f |" % (
            r["model"], r["batch"], "off" if r["opt"] == "disabled" else "on", eng(ms["total_s"], "s"),
            eng(ms["run_wall_s"], "s"), eng(sol_unfused, "s"), ms["total_s"] / sol_unfused,
            ms["matched"], ms["kernels"], pct(ms["matched_s"] / ms["total_s"]), pct(ms["sol_bound_share"]),
            pct(share_fused), pct(share_llc), load[0], load[1]))
        summary.append({"model": r["model"], "batch": r["batch"], "opt": r["opt"], "total_s": ms["total_s"],
                        "run_wall_s": ms["run_wall_s"], "sol_unfused_s": sol_unfused,
                        "sol_chosen_s": res["sol"]["chosen"]["time_s"], "matched_sol_s": ms["sol_s"],
                        "efficiency": ms["efficiency"], "sol_bound_share": ms["sol_bound_share"],
                        "sol_bound_share_llc": share_llc, "sol_bound_share_fused": share_fused, "kernels": ms["kernels"], "matched": ms["matched"],
                        "matched_s": ms["matched_s"], "nodes_inferred": ms["nodes_inferred"],
                        "loadavg": [load[0], load[1]], "runs": ms["runs"]})
    print()
    all_share = pooled_within / pooled_time if pooled_time else None
    llc_share = pooled_within_llc / pooled_time_llc if pooled_time_llc else None
    fused_share = pooled_within_fused / pooled_time if pooled_time and all_fused else None
    print("All configurations together: the speed of light is at most the measured time for **%s** of the measured "
          "time (each kernel's nodes at the main-memory roofline), %s with fused kernels taken as one kernel "
          "(their intermediates on chip), %s with the last-level cache as the memory ceiling."
          % (pct(all_share), pct(fused_share), pct(llc_share)))
    print()

    # median efficiency per op type, optimisations off (one ONNX node per kernel) and on
    for opt, title in (("disabled", "optimisations off"), ("all", "optimisations on")):
        per = {}
        for r in runs:
            if r["opt"] != opt:
                continue
            for g in groups(r["calibrated-cpu"]):
                d = per.setdefault(g["op"], {"eff": [], "time": 0.0, "n": 0, "above": 0.0})
                d["eff"].append(g["efficiency"])
                d["time"] += g["measured_s"]
                d["n"] += 1
                if g["sol_s"] > g["measured_s"]:
                    d["above"] += g["measured_s"]
        total = sum(d["time"] for d in per.values())
        print("Median efficiency (SOL / measured) per op type, %s, all models and batches:" % title)
        print()
        print("| op | kernels | share of measured time | median efficiency | time where SOL > measured |")
        print("| --- | --- | --- | --- | --- |")
        for op, d in sorted(per.items(), key=lambda kv: -kv[1]["time"]):
            if d["time"] < 0.002 * total:
                continue
            print("| %s | %d | %s | %s | %s |" % (op, d["n"], pct(d["time"] / total),
                                                pct(statistics.median(d["eff"])), pct(d["above"] / d["time"])))
        print()

    # furthest off: the largest measured time above the speed of light, and SOL above measured
    worst = []
    for r in runs:
        res = r["calibrated-cpu"]
        layers = res["layers"]
        for g in groups(res):
            worst.append((g["measured_s"] - g["sol_s"], r, g, layers))
    print("Furthest below the speed of light (largest time lost, measured − SOL):")
    print()
    print("| model | batch | ORT | kernel | op | nodes | measured | SOL | efficiency | intensity |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for lost, r, g, layers in sorted(worst, key=lambda t: -t[0])[:8]:
        print("| %s | %d | %s | `%s` | %s | %d | %s | %s | %s | %.1f |" % (
            r["model"], r["batch"], "off" if r["opt"] == "disabled" else "on", g["kernels"][0][-48:], g["op"],
            len(g["nodes"]), eng(g["measured_s"], "s"), eng(g["sol_s"], "s"), pct(g["efficiency"]), g["intensity"]))
    print()
    print("Faster than the DRAM speed of light (SOL > measured), the largest:")
    print()
    print("| model | batch | ORT | kernel | op | nodes | measured | SOL | efficiency | bytes | SOL as one kernel | SOL with LLC |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    above = [(g["sol_s"] - g["measured_s"], r, g) for _, r, g, _ in worst if g["sol_s"] > g["measured_s"]]
    for _, r, g in sorted(above, key=lambda t: -t[0])[:8]:
        llc = r["calibrated-cpu-llc"]
        g2 = next((x for x in llc["measured"]["groups"] if x["kernels"] == g["kernels"]), None) if llc else None
        print("| %s | %d | %s | `%s` | %s | %d | %s | %s | %s | %s | %s | %s |" % (
            r["model"], r["batch"], "off" if r["opt"] == "disabled" else "on", g["kernels"][0][-48:], g["op"],
            len(g["nodes"]), eng(g["measured_s"], "s"), eng(g["sol_s"], "s"), pct(g["efficiency"]), eng(g["bytes"], "B"),
            eng(g.get("sol_fused_s"), "s"), eng(g2["sol_s"], "s") if g2 else "–"))
    json.dump({"runs": summary, "sol_bound_share": all_share, "sol_bound_share_fused": fused_share,
               "sol_bound_share_llc": llc_share},
              open(os.path.join(out, "summary.json"), "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/validate-cpu")
