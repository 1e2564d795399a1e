#!/usr/bin/python3
"""The analytic forecast against published measured results.

docs/data/published-results.json holds inference results that their makers
published (TensorRT's BERT demo, NVIDIA's Triton and FasterTransformer
tables, MLPerf), each quoted from its source, with the graph, profile,
precision, batch and dims rooflens analyses it with. This script runs the
native CLI on each, with no calibration (the profile's analytic forecast,
which describes a well-tuned inference engine), and prints the table of
docs/validation.md ("The analytic forecast against published results"):
the floor, the forecast, the published time and the forecast's error.

    /usr/bin/python3 tools/validate/published.py [--rooflens build/rooflens]
        [--json FILE]

The graphs are those of tests/fixtures/models/torch (no weights; its README
says how each was made); tests/test_measured_floor.c checks the same
results against the floor. Under a second in all.

Anchors: a result whose "rooflens" member has an "anchor" sets its device's
matrix compute fraction (a tuned engine's share of the Tensor Core peak
differs by device: a 70 W T4 keeps far less of its datasheet peak than an
A100). --derive finds, for each anchor, the fraction at which the forecast
of it equals the published time (bisection on a copy of the profile), and
--write puts it, with its source, into the profiles the anchor names. The
summary gives the other results, held out, apart.

    /usr/bin/python3 tools/validate/published.py --derive [--write]

The track record: --band groups the results by the stack the profile's
forecast names (forecast.stack), prints one table per stack and profile
for docs/validation.md ("Track record"), and the band each stack's held-out
runs give (measured / forecast at the 10th and 90th percentiles, docs/
model.md §12.8), with its leave-one-out check: each held-out run's band
made from the others, and whether it covers the run. Anchors set a
parameter: they are marked as fits and kept out of every band. --write
puts the band into every shipped profile of a stack with at least three
held-out runs (and takes it out of the others: no band is invented).

    /usr/bin/python3 tools/validate/published.py --band [--write]
"""
import argparse
import json
import math
import os
import statistics
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def graph(name):
    return os.path.join(ROOT, "tests/fixtures/models/torch", name + ".onnx")


def measured_batch_s(r):
    """The published figure as the time of one batch, in seconds."""
    metric, value, batch = r["metric"], r["value"], r["rooflens"]["batch"]
    if metric.startswith("latency_ms"):
        return value * 1e-3
    if metric == "throughput_samples_per_s":
        return batch / value
    raise ValueError(f"metric {metric}")


def analyse(rl, model, r, hw=None):
    q = r["rooflens"]
    cmd = [rl, model, "--hw", hw or q["hw"], "--precision", q["precision"], "--batch", str(q["batch"]), "--format", "json"]
    for k, v in q.get("dims", {}).items():
        cmd += ["--dim", f"{k}={v}"]
    res = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    return res["sol"]["chosen"]["time_s"], res["forecast"]["time_s"], res["forecast"]["stack"]


def profile_path(hw_id):
    return os.path.join(ROOT, "hw", hw_id + ".json")


def derive(rl, r, scratch):
    """The matrix compute fraction at which the forecast of anchor r is its published time."""
    with open(profile_path(r["rooflens"]["hw"])) as f:
        prof = json.load(f)
    want, tmp = measured_batch_s(r), os.path.join(scratch, "anchor-profile.json")

    def forecast(fraction):
        prof["forecast"]["classes"]["matrix"]["compute_fraction"]["value"] = fraction
        with open(tmp, "w") as f:
            json.dump(prof, f)
        return analyse(rl, graph(r["rooflens"]["model"]), r, tmp)[1]

    lo, hi = 1e-3, 1.0  # the forecast falls as the fraction rises
    if forecast(hi) > want:
        return None  # slower than the forecast at the full peak: no fraction fits
    for _ in range(40):
        mid = (lo * hi) ** 0.5
        lo, hi = (mid, hi) if forecast(mid) > want else (lo, mid)
    return round(hi, 2)


def anchor_source(r):
    q = r["rooflens"]
    dims = ", ".join(f"{k} {v}" for k, v in q.get("dims", {}).items())
    return (f"estimated from a published run ({r['stack'].split(' - ')[0]}: {r['model']}, {dims}, batch {q['batch']}, "
            f"{q['precision']}, {r['value']:g} ms on {q['hw']}): the fraction at which the forecast matches it (docs/validation.md)")


def write_fraction(hw_id, fraction, source):
    path = profile_path(hw_id)
    with open(path) as f:
        prof = json.load(f)
    prof["forecast"]["classes"]["matrix"]["compute_fraction"] = {"value": fraction, "source": source, "kind": "estimated"}
    with open(path, "w") as f:
        f.write(json.dumps(prof, indent=2, ensure_ascii=False) + "\n")


def ms(s):
    return f"{s * 1e3:.3g}" if s < 1 else f"{s * 1e3:,.0f}"


# ------------------------------------------------------- the track record --
BAND_MIN_RUNS = 3  # with fewer held-out runs a stack gets no band (the core refuses one)
BAND_LOW_Q, BAND_HIGH_Q = 0.10, 0.90


def percentile(xs, q):
    """The q-quantile of xs, linear between order statistics (numpy's default)."""
    xs = sorted(xs)
    h = (len(xs) - 1) * q
    i = int(h)
    return xs[i] if i + 1 >= len(xs) else xs[i] + (h - i) * (xs[i + 1] - xs[i])


def band_of(ratios):
    """measured / forecast of held-out runs -> the profile's band figures (0 < low <= 1 <= high)."""
    errs = [abs(r - 1) for r in ratios]
    return {"low": min(1.0, percentile(ratios, BAND_LOW_Q)), "high": max(1.0, percentile(ratios, BAND_HIGH_Q)),
            "runs": len(ratios), "median_error": statistics.median(errs), "worst_error": max(errs)}


def band_range(band, forecast, floor):
    """The core's rule (core/src/forecast_band.c): low never below the floor, never above the forecast."""
    low = min(forecast, max(floor, forecast * band["low"]))
    return low, forecast * band["high"]


def leave_one_out(held):
    """Each held-out run's band from the other runs: (covered, half-width over the forecast) per run."""
    out = []
    for i, x in enumerate(held):
        others = [y["published_s"] / y["forecast_s"] for j, y in enumerate(held) if j != i]
        low, high = band_range(band_of(others), x["forecast_s"], x["floor_s"])
        out.append((low <= x["published_s"] <= high, (high - low) / 2 / x["forecast_s"]))
    return out


def anchor_name(stack):
    return "track-record-" + "".join(c if c.isalnum() else "-" for c in stack.lower()).strip("-").replace("--", "-")


def rounded_band(b):
    # rounded outwards: the band written is never narrower than the runs give
    return {"low": math.floor(b["low"] * 100) / 100, "high": math.ceil(b["high"] * 100) / 100, "runs": b["runs"],
            "median_error": round(b["median_error"], 3), "worst_error": math.ceil(b["worst_error"] * 1000) / 1000}


def print_track_record(rows, results, stacks):
    """docs/validation.md's "Track record": one section per stack, one table per profile."""
    for stack in sorted({x["forecast_stack"] for x in rows}):
        mine = [(x, r) for x, r in zip(rows, results) if x["forecast_stack"] == stack]
        held = [x for x, _ in mine if not x["anchor"]]
        print(f"\n#### Track record: {stack}\n")
        if len(held) >= BAND_MIN_RUNS:
            b, loo = band_of([x["published_s"] / x["forecast_s"] for x in held]), leave_one_out(held)
            print(f"{len(held)} held-out runs ({len(mine) - len(held)} fits left out): measured / forecast from "
                  f"{b['low']:.2f} to {b['high']:.2f} (10th to 90th percentile), median error "
                  f"{b['median_error'] * 100:.1f} %, worst {b['worst_error'] * 100:.1f} %. Leave one out: the band of "
                  f"the other runs covers {sum(c for c, _ in loo)} of {len(loo)} "
                  f"({100 * sum(c for c, _ in loo) / len(loo):.0f} %), median half-width "
                  f"{statistics.median(h for _, h in loo) * 100:.1f} % of the forecast.")
        else:
            print(f"{len(held)} held-out run{'s' * (len(held) != 1)}: fewer than {BAND_MIN_RUNS}, so its profiles give "
                  "no band (\"no track record for this stack\").")
        print(f"Profiles of this stack: {', '.join(stacks[stack])}.")
        for hw in sorted({x["hw"] for x, _ in mine}):
            print(f"\n{hw}:\n")
            print("| source | date | setting | floor (ms) | forecast (ms) | published (ms) | published / forecast | floor held | role |")
            print("| --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- |")
            for x, r in mine:
                if x["hw"] != hw:
                    continue
                url = r["source"].split()[0]
                setting = x["model"] + "".join(f" {k}={v}" for k, v in x["dims"].items()) + \
                    f", {x['precision']}, batch {x['batch']}"
                print(f"| [{r['stack'].split(',')[0].split(' - ')[0]}]({url}) | collected 2026-11-27 | {setting} | "
                      f"{ms(x['floor_s'])} | {ms(x['forecast_s'])} | {ms(x['published_s'])} | "
                      f"{x['published_s'] / x['forecast_s']:.2f} | "
                      f"{'yes' if x['published_s'] >= x['floor_s'] else '**no**'} | "
                      f"{'fit (anchor: sets the matrix compute fraction)' if x['anchor'] else 'held out'} |")


def write_bands(rows):
    """Each shipped profile's band from its stack's held-out runs, or none."""
    by_stack = {}
    for x in rows:
        if not x["anchor"]:
            by_stack.setdefault(x["forecast_stack"], []).append(x["published_s"] / x["forecast_s"])
    for name in sorted(os.listdir(os.path.join(ROOT, "hw"))):
        if not name.endswith(".json"):
            continue
        path = os.path.join(ROOT, "hw", name)
        with open(path) as f:
            prof = json.load(f)
        fc = prof.get("forecast")
        if fc is None:
            continue
        ratios = by_stack.get(fc.get("stack"), [])
        fc.pop("band", None)
        if len(ratios) >= BAND_MIN_RUNS:
            fc["band"] = dict(rounded_band(band_of(ratios)), basis="published results",
                              source="docs/validation.md#" + anchor_name(fc["stack"]))
        with open(path, "w") as f:
            f.write(json.dumps(prof, indent=2, ensure_ascii=False) + "\n")
        print(f"{name}: {'band from %d runs' % len(ratios) if 'band' in fc else 'no band'}")


def profile_stacks():
    stacks = {}
    for name in sorted(os.listdir(os.path.join(ROOT, "hw"))):
        if name.endswith(".json"):
            with open(os.path.join(ROOT, "hw", name)) as f:
                fc = json.load(f).get("forecast") or {}
            stacks.setdefault(fc.get("stack"), []).append(name[:-5])
    return stacks


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rooflens", default=os.path.join(ROOT, "build/rooflens"))
    ap.add_argument("--json", help="write the rows as JSON here")
    ap.add_argument("--derive", action="store_true", help="print each anchor's matrix compute fraction")
    ap.add_argument("--write", action="store_true", help="with --derive or --band: write them into the profiles")
    ap.add_argument("--band", action="store_true", help="print the track record per stack and profile, with each band")
    a = ap.parse_args()
    data = json.load(open(os.path.join(ROOT, "docs/data/published-results.json")))
    if a.derive:
        scratch = os.path.join(ROOT, "build")
        os.makedirs(scratch, exist_ok=True)
        for r in data["results"]:
            anchor = r["rooflens"].get("anchor")
            if not anchor:
                continue
            fraction = derive(a.rooflens, r, scratch)
            print(f"{r['rooflens']['hw']}: matrix compute fraction {fraction} -> {', '.join(anchor['profiles'])}")
            if a.write and fraction is not None:
                for hw_id in anchor["profiles"]:
                    write_fraction(hw_id, fraction, anchor_source(r))
        return
    rows = []
    for r in data["results"]:
        q = r["rooflens"]
        floor, forecast, stack = analyse(a.rooflens, graph(q["model"]), r)
        meas = measured_batch_s(r)
        rows.append({"anchor": bool(q.get("anchor")), "model": q["model"], "dims": q.get("dims", {}), "hw": q["hw"],
                     "precision": q["precision"], "batch": q["batch"], "tier": r["tier"].split(" ")[0], "stack": r["stack"], "metric": r["metric"],
                     "published_s": meas, "floor_s": floor, "forecast_s": forecast, "error": forecast / meas - 1,
                     "measured_over_floor": meas / floor, "forecast_stack": stack})
    if a.band:
        if a.write:
            write_bands(rows)
        else:
            print_track_record(rows, data["results"], profile_stacks())
        return
    print("| model | device | precision | batch | published (ms) | floor (ms) | forecast (ms) | error | published / floor | source |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for x, r in zip(rows, data["results"]):
        m = x["model"] + "".join(f" {k}={v}" for k, v in x["dims"].items())
        src = r["stack"].split(",")[0].split(" - ")[0]
        print(f"| {m} | {x['hw']} | {x['precision']} | {x['batch']} | {ms(x['published_s'])} | {ms(x['floor_s'])} | "
              f"{ms(x['forecast_s'])} | {x['error'] * 100:+.1f} % | {x['measured_over_floor']:.2f} | {x['tier']}: {src}"
              f"{' (anchor)' if x['anchor'] else ''} |")
    held = [x for x in rows if not x["anchor"]]
    errs = [abs(x["error"]) for x in held]
    within = sum(e <= 0.35 for e in errs)
    below = [x for x in rows if x["published_s"] < x["floor_s"]]
    print(f"\nResults: {len(rows)}, of them {len(rows) - len(held)} anchors. Forecast against the published time, on "
          f"the {len(held)} held out: median error "
          f"{statistics.median(errs) * 100:.1f} %, within 35 % on {within} of {len(held)}, maximum "
          f"{max(errs) * 100:.1f} %. Published time at or above the floor on {len(rows) - len(below)} of {len(rows)}"
          + (f" (below: {', '.join(x['model'] + ' ' + x['hw'] for x in below)})" if below else "") + ".")
    for tier in sorted({x["tier"] for x in held}):
        e = [abs(x["error"]) for x in held if x["tier"] == tier]
        print(f"Tier {tier}: {len(e)} results, median error {statistics.median(e) * 100:.1f} %, "
              f"within 35 % on {sum(v <= 0.35 for v in e)}.")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
