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

    /usr/bin/python3 tools/validate-published.py [--rooflens build/rooflens]
        [--json FILE]

The graphs are those of tests/fixtures/models/torch (no weights; its README
says how each was made); tests/test_measured_floor.c checks the same
results against the floor. Under a second in all.
"""
import argparse
import json
import os
import statistics
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


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


def analyse(rl, model, r):
    q = r["rooflens"]
    cmd = [rl, model, "--hw", q["hw"], "--precision", q["precision"], "--batch", str(q["batch"]), "--format", "json"]
    for k, v in q.get("dims", {}).items():
        cmd += ["--dim", f"{k}={v}"]
    res = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    return res["sol"]["chosen"]["time_s"], res["forecast"]["time_s"], res["forecast"]["stack"]


def ms(s):
    return f"{s * 1e3:.3g}" if s < 1 else f"{s * 1e3:,.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rooflens", default=os.path.join(ROOT, "build/rooflens"))
    ap.add_argument("--json", help="write the rows as JSON here")
    a = ap.parse_args()
    data = json.load(open(os.path.join(ROOT, "docs/data/published-results.json")))
    rows = []
    for r in data["results"]:
        q = r["rooflens"]
        floor, forecast, stack = analyse(a.rooflens, graph(q["model"]), r)
        meas = measured_batch_s(r)
        rows.append({"model": q["model"], "dims": q.get("dims", {}), "hw": q["hw"], "precision": q["precision"],
                     "batch": q["batch"], "tier": r["tier"].split(" ")[0], "stack": r["stack"], "metric": r["metric"],
                     "published_s": meas, "floor_s": floor, "forecast_s": forecast, "error": forecast / meas - 1,
                     "measured_over_floor": meas / floor, "forecast_stack": stack})
    print("| model | device | precision | batch | published (ms) | floor (ms) | forecast (ms) | error | published / floor | source |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for x, r in zip(rows, data["results"]):
        m = x["model"] + "".join(f" {k}={v}" for k, v in x["dims"].items())
        src = r["stack"].split(",")[0].split(" - ")[0]
        print(f"| {m} | {x['hw']} | {x['precision']} | {x['batch']} | {ms(x['published_s'])} | {ms(x['floor_s'])} | "
              f"{ms(x['forecast_s'])} | {x['error'] * 100:+.1f} % | {x['measured_over_floor']:.2f} | {x['tier']}: {src} |")
    errs = [abs(x["error"]) for x in rows]
    within = sum(e <= 0.35 for e in errs)
    below = [x for x in rows if x["published_s"] < x["floor_s"]]
    print(f"\nResults: {len(rows)}. Forecast against the published time: median error "
          f"{statistics.median(errs) * 100:.1f} %, within 35 % on {within} of {len(rows)}, maximum "
          f"{max(errs) * 100:.1f} %. Published time at or above the floor on {len(rows) - len(below)} of {len(rows)}"
          + (f" (below: {', '.join(x['model'] + ' ' + x['hw'] for x in below)})" if below else "") + ".")
    for tier in sorted({x["tier"] for x in rows}):
        e = [abs(x["error"]) for x in rows if x["tier"] == tier]
        print(f"Tier {tier}: {len(e)} results, median error {statistics.median(e) * 100:.1f} %, "
              f"within 35 % on {sum(v <= 0.35 for v in e)}.")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
