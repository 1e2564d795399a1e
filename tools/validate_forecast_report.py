#!/usr/bin/python3
"""Tables for docs/validation.md from a tools/validate-forecast.sh run:

    /usr/bin/python3 tools/validate_forecast_report.py build/validate-forecast --fit "mobilenet_v3_large bert_base"

Reads OUT/runs/<model>_<opt>.meta.json (ort-profile.mjs's record: the wall
times around each session.run call, and the load),
OUT/runs/<model>_<opt>.profile.json (ORT's trace: its own time of each run,
the "model_run" events) and OUT/runs/<model>_<opt>.{calibrated-cpu,fitted}.json
(rooflens's JSON with its forecast and measured sections), and
OUT/fit-<opt>.log. Every figure is rooflens's own (forecast.time_s,
forecast.floor_s, measured.total_s, measured.sol_bound_share) or ORT's (run
times); this script only pools and formats them.

The forecast is compared with ORT's own time of a run (the median over the
runs after the warm-up), not with the wall time around session.run: the
JavaScript binding adds about 0.3 ms to every run, and copying a large
output into JavaScript far more (26 MB of the GPT decoder's logits: 26–28 ms). Writes Markdown on stdout and
OUT/forecast-summary.json. Standard library only.
"""
import argparse
import glob
import json
import os
import statistics


def ms(v):
    return "–" if v is None else "%.2f" % (v * 1e3)


def pct(x):
    return "–" if x is None else "%+.1f %%" % (100 * x)


def apct(x):
    return "–" if x is None else "%.1f %%" % (100 * x)


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def run_times(profile):
    """ORT's own time of each run after the warm-up (its model_run events), in s."""
    spans = sorted((e["ts"], e["dur"]) for e in profile or []
                   if isinstance(e, dict) and e.get("cat") == "Session" and e.get("name") == "model_run")
    return [d * 1e-6 for _, d in (spans[1:] if len(spans) > 1 else spans)]


def row(out, model, opt):
    base = os.path.join(out, "runs", "%s_%s" % (model, opt))
    meta = load(base + ".meta.json")
    runs = run_times(load(base + ".profile.json"))
    analytic = load(base + ".calibrated-cpu.json")
    fitted = load(base + ".fitted.json")
    if not meta or not runs or not analytic or not fitted or not analytic.get("ok") or not fitted.get("ok"):
        return None
    walls = meta["wall_s"][1:] or meta["wall_s"]     # the first run is the warm-up
    m = fitted["measured"]
    r = {
        "model": model, "opt": opt,
        "run_s": statistics.median(runs), "run_min_s": min(runs),
        "call_s": statistics.median(walls),
        "kernels_s": m["total_s"],
        "floor_s": fitted["forecast"]["floor_s"],
        "analytic_s": analytic["forecast"]["time_s"],
        "fitted_s": fitted["forecast"]["time_s"],
        "sol_bound_share": m.get("sol_bound_share"),
        "sol_bound_share_unfused": m.get("sol_bound_share_unfused"),
        "load": [meta["loadavg_before"][0], meta["loadavg_after"][0]],
        "basis": fitted["forecast"].get("basis"),
    }
    for k in ("analytic", "fitted"):
        r[k + "_err"] = r[k + "_s"] / r["run_s"] - 1
        r[k + "_err_kernels"] = r[k + "_s"] / r["kernels_s"] - 1 if r["kernels_s"] else None
    r["floor_below_run"] = r["floor_s"] <= r["run_min_s"]
    r["floor_below_kernels"] = r["floor_s"] <= r["kernels_s"]
    r["forecast_above_floor"] = r["fitted_s"] >= r["floor_s"] and r["analytic_s"] >= r["floor_s"]
    return r


def fitted_stack(out, opt):
    """What the fit found about the stack (the fitted profile's forecast block)."""
    prof = load(os.path.join(out, "fitted-%s.json" % opt)) or {}
    f = prof.get("forecast", {})
    fig = lambda k: (f.get(k) or {}).get("value")
    return {"fusion": f.get("fusion"), "epilogue_apart": f.get("epilogue_apart"),
            "shape_ops": f.get("shape_ops", "folded"), "grouped_conv": f.get("grouped_conv", "one_kernel"),
            "conv_lowering": f.get("conv_lowering", "implicit_gemm"),
            "kernel_overhead_s": fig("kernel_overhead_s"), "group_overhead_s": fig("group_overhead_s"),
            "tile_overhead_k": fig("tile_overhead_k"),
            "between_kernels_s": (f.get("fit") or {}).get("between_kernels_s")}


def summary(rows, key):
    errs = [abs(r[key]) for r in rows if r[key] is not None]
    if not errs:
        return None, None
    return statistics.median(errs), max(errs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--fit", default="mobilenet_v3_large bert_base")
    a = ap.parse_args()
    fit = a.fit.split()
    models = sorted({os.path.basename(p).rsplit("_", 1)[0]
                     for p in glob.glob(os.path.join(a.out, "runs", "*.meta.json"))})
    models = fit + [m for m in models if m not in fit]
    out = {"fit": fit, "setups": {}}
    try:
        with open(os.path.join(a.out, "calibrate.log")) as f:
            first = f.readline().strip()
        out["calibrate"] = first
        print("Calibration: %s" % first.split(": ", 1)[-1])
    except OSError:
        pass
    for opt in ("disabled", "all"):
        rows = [r for r in (row(a.out, m, opt) for m in models) if r]
        held = [r for r in rows if r["model"] not in fit]
        print("\n#### ONNX Runtime, one thread, graph optimisations %s\n" % opt)
        print("| model | | measured run (ms) | Σ kernels (ms) | floor (ms) | forecast, fitted (ms) | error | "
              "forecast, analytic (ms) | error | floor share | load |")
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
        for r in rows:
            print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.1f → %.1f |" % (
                r["model"], "fit" if r["model"] in fit else "held out", ms(r["run_s"]), ms(r["kernels_s"]),
                ms(r["floor_s"]), ms(r["fitted_s"]), pct(r["fitted_err"]), ms(r["analytic_s"]),
                pct(r["analytic_err"]), "–" if r["sol_bound_share"] is None else "%.3f" % r["sol_bound_share"],
                r["load"][0], r["load"][1]))
        fm, fx = summary(held, "fitted_err")
        am, ax = summary(held, "analytic_err")
        km, kx = summary(held, "fitted_err_kernels")
        shares = [r["sol_bound_share"] for r in rows if r["sol_bound_share"] is not None]
        print("\nHeld-out models: %d. Fitted forecast against the measured run: median error %s, maximum %s"
              " (against the sum of kernel times: median %s, maximum %s). Analytic forecast: median %s, maximum %s."
              % (len(held), apct(fm), apct(fx), apct(km), apct(kx), apct(am), apct(ax)))
        print("Floor below the fastest measured run on %d of %d models; forecast never below the floor on %d of %d;"
              " lowest floor share %s." % (sum(r["floor_below_run"] for r in rows), len(rows),
                                          sum(r["forecast_above_floor"] for r in rows), len(rows),
                                          "%.3f" % min(shares) if shares else "–"))
        binding = sorted(r["call_s"] - r["run_s"] for r in rows)
        print("Around each run the JavaScript binding added %.2f–%.2f ms (the median of session.run's wall time less "
              "ORT's own time of a run)." % (binding[0] * 1e3, binding[-1] * 1e3))
        st = fitted_stack(a.out, opt)
        us = lambda v: "–" if v is None else "%.2f µs" % (v * 1e6)
        shape_words = {"folded": "folded", "run": "run",
                       "dynamic": "of the inputs run",
                       "distinct": "of the inputs run, identical ones merged"}
        k0 = st["tile_overhead_k"]
        print("The fit found: fusion %s, epilogues apart after %s, views and shape arithmetic %s, %s per kernel "
              "(of which %s between kernels), %s per convolution group, %s steps of K of fixed work an output tile; "
              "convolutions %s; grouped convolutions %s "
              "(the calibrated profile's)." % (st["fusion"], ", ".join(st["epilogue_apart"] or []) or "none",
                               shape_words.get(st["shape_ops"], st["shape_ops"]),
                               us(st["kernel_overhead_s"]), us(st["between_kernels_s"]),
                               us(st["group_overhead_s"]), "–" if k0 is None else "%.2f" % k0,
                               "lowered by im2col" if st["conv_lowering"] == "im2col" else "as implicit GEMMs",
                               st["grouped_conv"].replace("_", " ")))
        out["setups"][opt] = {"rows": rows, "held_out": len(held), "stack": st,
                              "fitted_median_err": fm, "fitted_max_err": fx,
                              "analytic_median_err": am, "analytic_max_err": ax,
                              "min_sol_bound_share": min(shares) if shares else None}
    with open(os.path.join(a.out, "forecast-summary.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
