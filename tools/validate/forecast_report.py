#!/usr/bin/python3
"""Figures and tables for docs/validation.md from a tools/validate/forecast.sh run:

    /usr/bin/python3 tools/validate/forecast_report.py build/validate-forecast \\
        --pool "resnet18 mobilenet_v3_large bert_base gpt_decoder"

Reads OUT/runs/<model>_<opt>.{meta,profile}.json (ort-profile.mjs's record
and ORT's trace: its own time of each run, the "model_run" events), the
forecasts OUT/fits/<opt>/<a>+<b>/<model>.json of the fit on every pair of
the pool (rooflens's JSON), OUT/fits/<opt>/pool.json and pool/ (the fit on
the whole pool, its band from its pairs' fits: docs/model.md §12.5) and
OUT/analytic/ (the calibrated profile's default parameters). Every forecast
is rooflens's own (forecast.time_s); this script only pools and formats.

A model's measured time is the fastest of its runs after the warm-up,
kernel by kernel (tools/validate/ort_fastest.py's cut-down profile, which the fits
read too), and, in a second set of tables, ORT's own time of its fastest
whole run: the machine is shared, and a slower run holds the other work's
time, not the model's. Per setup it prints the median over pairs of each
pair's median |error| on the models the pair never saw, the 90th percentile
of all those errors (over every pair), the worst, and each pair's fit
models' own errors; then the CPU, its ISA and the load while measuring.
Writes Markdown on stdout and OUT/forecast-summary.json. Standard library
only.
"""
import argparse
import glob
import json
import os
import statistics


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def fastest_run(out, model, opt):
    """ORT's own time of the fastest run after the warm-up, in s."""
    prof = load(os.path.join(out, "runs", "%s_%s.profile.json" % (model, opt))) or []
    spans = sorted((e["ts"], e["dur"]) for e in prof
                   if isinstance(e, dict) and e.get("cat") == "Session" and e.get("name") == "model_run")
    spans = spans[1:] if len(spans) > 1 else spans
    return min(d for _, d in spans) * 1e-6 if spans else None


def composed_run(out, model, opt):
    """The fastest of the runs kernel by kernel (tools/validate/ort_fastest.py's run), in s."""
    prof = load(os.path.join(out, "runs", "%s_%s.fastest.json" % (model, opt))) or []
    spans = sorted((e["ts"], e["dur"]) for e in prof
                   if isinstance(e, dict) and e.get("cat") == "Session" and e.get("name") == "model_run")
    return spans[-1][1] * 1e-6 if len(spans) > 1 else None


def forecast_s(path):
    r = load(path)
    return r["forecast"]["time_s"] if r and r.get("ok") else None


def warned(path, code):
    """Whether the forecast gives the warning `code` (forecast_unfitted_classes: a tenth of it or more rests
    on classes its fit had no kernel of; forecast_unseen_ops: on operator types its fit never measured)."""
    r = load(path) or {}
    return any(w.get("code") == code for w in r.get("warnings") or [])


def split_summary(errs):
    """n, median, 90th percentile and worst of a list of held-out |errors|."""
    return {"n": len(errs), "median": statistics.median(errs) if errs else None,
            "p90": p90(errs) if errs else None, "worst": max(errs, default=None)}


WARNINGS = ("forecast_unfitted_classes", "forecast_unseen_ops")


def p90(v):
    """90th percentile, linear between the sorted values."""
    s = sorted(v)
    at = 0.9 * (len(s) - 1)
    i = int(at)
    return s[i] + (at - i) * (s[i + 1] - s[i]) if i + 1 < len(s) else s[-1]


def cpu():
    model, flags = "?", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k.strip() == "model name":
                    model = v.strip()
                elif k.strip() == "flags":
                    flags = set(v.split())
    except OSError:
        pass
    isa = [x for x in ("avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile") if x in flags]
    return model, " ".join(isa) or "?"


def setup(out, opt, pool, models, whole, fits=None):
    """fits: the folder of the fits under OUT/fits (default: opt itself;
    "<opt>+probes" for the fits that add the probe models)."""
    measured = {m: (fastest_run if whole else composed_run)(out, m, opt) for m in models}
    fits = fits or opt
    pairs, errors, worst = [], [], (0, None, None)
    split = {code: ([], []) for code in WARNINGS}  # per warning: held-out errors with it, without it
    for i, a in enumerate(pool):
        for b in pool[i + 1:]:
            name = "%s+%s" % (a, b)
            errs, own = {}, {}
            for m in models:
                f = forecast_s(os.path.join(out, "fits", fits, name, m + ".json"))
                if f is None or not measured[m]:
                    continue
                e = f / measured[m] - 1
                (own if m in (a, b) else errs)[m] = e
                if m not in (a, b):
                    path = os.path.join(out, "fits", fits, name, m + ".json")
                    for code, (with_it, without) in split.items():
                        (with_it if warned(path, code) else without).append(abs(e))
            if not errs:
                continue
            med = statistics.median(abs(e) for e in errs.values())
            pairs.append({"pair": name, "median": med, "errors": errs, "fit_errors": own,
                          "max": max(abs(e) for e in errs.values())})
            for m, e in errs.items():
                errors.append(abs(e))
                if abs(e) > worst[0]:
                    worst = (abs(e), m, name)
    loads = []
    for m in models:
        meta = load(os.path.join(out, "runs", "%s_%s.meta.json" % (m, opt))) or {}
        loads += [meta.get("loadavg_before", [None])[0], meta.get("loadavg_after", [None])[0]]
    loads = [x for x in loads if x is not None]
    pool_rows = {}
    for m in models:
        f = forecast_s(os.path.join(out, "fits", fits, "pool", m + ".json"))
        if f is not None and measured[m]:
            pool_rows[m] = f / measured[m] - 1
    band = ((load(os.path.join(out, "fits", fits, "pool.json")) or {}).get("forecast") or {}).get("band")
    return {"measured": measured, "pairs": pairs,
            "median_of_medians": statistics.median(p["median"] for p in pairs) if pairs else None,
            "p90": p90(errors) if errors else None, "worst": worst, "n_errors": len(errors),
            "fit_max": max((abs(e) for p in pairs for e in p["fit_errors"].values()), default=None),
            "load": (min(loads), max(loads)) if loads else None, "pool_fit": pool_rows, "band": band,
            "warnings": {code: {"with": split_summary(w), "without": split_summary(wo)}
                         for code, (w, wo) in split.items()}}


def pct(x):
    return "–" if x is None else "%.1f %%" % (100 * x)


def spct(x):
    return "–" if x is None else "%+.0f" % (100 * x)


def band_cover(s, pool):
    """How many models the whole-pool fit never saw fall inside its band."""
    b = s["band"]
    held = {m: e for m, e in s["pool_fit"].items() if m not in pool}
    if not b or not held:
        return None
    # the band is measured / forecast; e is forecast / measured - 1
    inside = sum(b["low"] <= 1 / (1 + e) <= b["high"] for e in held.values())
    return inside, len(held)


def print_setup(opt, s, pool, models, whole, probes=False):
    print("\n#### ONNX Runtime, one thread, graph optimisations %s; against %s%s\n"
          % (opt, "the fastest whole run" if whole else "the fastest run kernel by kernel",
             "; each fit with the probe models (calibrate --probe)" if probes else ""))
    w = s["worst"]
    print("Median over the %d pairs of each pair's median |error|: **%s**; 90th percentile of all %d held-out "
          "errors: **%s**; worst: %s (%s, fit on %s). The fit models' own errors, every pair: at most %s. "
          "Load while measuring: %.1f–%.1f." % (
              len(s["pairs"]), pct(s["median_of_medians"]), s["n_errors"], pct(s["p90"]), pct(w[0]), w[1], w[2],
              pct(s["fit_max"]), *(s["load"] or (0, 0))))
    meaning = {"forecast_unfitted_classes": "a tenth or more of the forecast in classes the fit had no kernel of",
               "forecast_unseen_ops": "a tenth or more in operator types the fit never measured, for a stack that "
                                      "rewrites its graph"}
    for code in WARNINGS:
        u, f = s["warnings"][code]["without"], s["warnings"][code]["with"]
        print("\nHeld-out forecasts without the warning `%s` (%s): %d, median %s, 90th percentile %s, worst %s; "
              "with it: %d, median %s, 90th percentile %s, worst %s." % (
                  code, meaning[code], u["n"], pct(u["median"]), pct(u["p90"]), pct(u["worst"]), f["n"],
                  pct(f["median"]), pct(f["p90"]), pct(f["worst"])))
    print("\nError of the forecast, % (rows: models; columns: the pair fitted on; "
          "*italic*: a fit model):\n")
    print("| model | measured (ms) | " + " | ".join(p["pair"].replace("+", " + ") for p in s["pairs"]) + " |")
    print("| --- | ---: | " + " | ".join("---:" for _ in s["pairs"]) + " |")
    for m in models:
        cells = []
        for p in s["pairs"]:
            if m in p["fit_errors"]:
                cells.append("*%s*" % spct(p["fit_errors"][m]))
            else:
                cells.append(spct(p["errors"].get(m)))
        t = s["measured"][m]
        print("| %s | %s | %s |" % (m, "–" if t is None else "%.2f" % (t * 1e3), " | ".join(cells)))
    print("| **median \\|error\\|, held out** | | " + " | ".join(pct(p["median"]) for p in s["pairs"]) + " |")
    b = s["band"]
    cov = band_cover(s, pool)
    if b:
        print("\nThe fit on the whole pool writes the band %.2f–%.2f × the forecast (%s, median error %s, worst "
              "%s); the models it never saw fall inside it: %s."
              % (b["low"], b["high"], band_basis(b), pct(b["median_error"]), pct(b["worst_error"]),
                 "%d of %d" % cov if cov else "–"))


def band_basis(b):
    """Where a fit's band comes from, in words: its pairs' fits (4 to 7
    models: the band gives "models") or leave one model out."""
    if b.get("models"):
        return "its pairs' fits: %d forecasts of its %d models" % (b["runs"], b["models"])
    return "leave-one-model-out over its %d models" % b["runs"]


def wide_fit(out, opt, wide, models):
    """The fit on the wide pool: its own models' leave-one-out errors (from
    its log) and its errors on every model it never saw, with its band."""
    fit = load(os.path.join(out, "fits", opt, "wide.json"))
    band = ((fit or {}).get("forecast") or {}).get("band")
    held, inside = {}, 0
    for m in models:
        if m in wide:
            continue
        r = load(os.path.join(out, "fits", opt, "wide", m + ".json")) or {}
        t = composed_run(out, m, opt)
        f = (r.get("forecast") or {}) if r.get("ok") else {}
        if not t or f.get("time_s") is None:
            continue
        held[m] = f["time_s"] / t - 1
        lo, hi = f.get("low_s"), f.get("high_s")
        inside += lo is not None and hi is not None and lo <= t <= hi
    errs = sorted(abs(e) for e in held.values())
    return {"errors": held, "band": band, "inside": inside, "n": len(errs),
            "median": statistics.median(errs) if errs else None, "p90": p90(errs) if errs else None,
            "worst": errs[-1] if errs else None}


def print_wide(opt, w, wide):
    print("\n#### The wide fit (%d models), graph optimisations %s, on the %d models it never saw\n" % (len(wide), opt, w["n"]))
    b = w["band"]
    if b:
        print("Its band, from %s: %.2f–%.2f × the forecast (median error %s, worst %s)."
              % (band_basis(b), b["low"], b["high"], pct(b["median_error"]), pct(b["worst_error"])))
    print("Never-seen models: median |error| **%s**, 90th percentile **%s**, worst %s; the measured time falls "
          "inside the forecast's band for %d of %d.\n" % (pct(w["median"]), pct(w["p90"]), pct(w["worst"]),
                                                          w["inside"], w["n"]))
    print("| model | error |")
    print("| --- | ---: |")
    for m, e in sorted(w["errors"].items()):
        print("| %s | %s |" % (m, spct(e)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--pool", default="resnet18 mobilenet_v3_large bert_base gpt_decoder")
    ap.add_argument("--wide", default="", help="the wide pool's models (forecast.sh's WIDE), if it was fitted")
    a = ap.parse_args()
    pool = a.pool.split()
    models = sorted({os.path.basename(p).rsplit("_", 1)[0]
                     for p in glob.glob(os.path.join(a.out, "runs", "*.meta.json"))})
    # the probe model (rooflens calibrate --write-probes) is measured beside the
    # models but are no model of the validation
    models = pool + [m for m in models if m not in pool and m != "probes"]
    model, isa = cpu()
    print("CPU: %s; ISA: %s; %d models, the pool: %s." % (model, isa, len(models), ", ".join(pool)))
    try:
        with open(os.path.join(a.out, "calibrate.log")) as f:
            print("Calibration: %s" % f.readline().strip().split(": ", 1)[-1])
    except OSError:
        pass
    out = {"cpu": model, "isa": isa, "pool": pool, "models": models, "setups": {}}
    for whole in (False, True):
        for opt in ("disabled", "all"):
            s = setup(a.out, opt, pool, models, whole)
            print_setup(opt, s, pool, models, whole)
            out["setups"][opt + (" whole run" if whole else "")] = s
    for opt in ("disabled", "all"):
        if os.path.isdir(os.path.join(a.out, "fits", opt + "+probes")):
            s = setup(a.out, opt, pool, models, False, opt + "+probes")
            print_setup(opt, s, pool, models, False, probes=True)
            out["setups"][opt + " probes"] = s
    wide = a.wide.split()
    for opt in ("disabled", "all") if wide else ():
        if load(os.path.join(a.out, "fits", opt, "wide.json")):
            w = wide_fit(a.out, opt, wide, models)
            print_wide(opt, w, wide)
            out["setups"][opt + " wide"] = w
    with open(os.path.join(a.out, "forecast-summary.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
