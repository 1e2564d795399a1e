#!/usr/bin/env python3
"""Set rooflens's predictions against a GPU run of tools/validate/gpu.py.

  python3 tools/validate/gpu_report.py docs/data/h100-sxm-measured-2026-11-22.json [--hw h100-sxm]

For every model and batch the GPU run timed, it analyses the same exported
graph (tests/fixtures/models/torch/) with the CLI at the same batch and
precision and prints a Markdown table: measured time (CUDA-graph replay, so
without per-kernel launch gaps) and energy against the predicted time, the
bounds of the chosen speed-of-light model, and the predicted energy. For the
Llama-shaped decoder it does the same for one decode step at each context.
No GPU is needed: it reads the measurements from the JSON file.
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.path.join(ROOT, "build", "rooflens")
GRAPHS = os.path.join(ROOT, "tests", "fixtures", "models", "torch")
FILES = {"resnet50": ("resnet50.onnx", {}), "mobilenet_v3_large": ("mobilenet_v3_large.onnx", {}),
         "bert_base_s128": ("bert_base.onnx", {"sequence": 128})}


def analyse(model, hw, batch, dims, extra=()):
    args = [CLI, os.path.join(GRAPHS, model), "--hw", hw, "--precision", "fp16", "--format", "json"]
    if batch:
        args += ["--batch", str(batch)]
    for k, v in dims.items():
        args += ["--dim", f"{k}={v}"]
    args += list(extra)
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode not in (0, 4):
        sys.exit(f"rooflens failed on {model}: {r.stderr or r.stdout}")
    return json.loads(r.stdout)


def ms(x):
    return f"{x * 1e3:.3f}" if x is not None else "–"


def mj(x):
    return f"{x * 1e3:.1f}" if x is not None else "–"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--hw", default="h100-sxm")
    a = ap.parse_args()
    res = json.load(open(a.results))
    print(f"Device measured: {res['device']} (torch {res['torch']}); profile: `{a.hw}`\n")
    c = res["ceilings"]
    print(f"Measured ceilings: copy {c['copy_Bps'] / 1e12:.2f} TB/s, fp16 matrix {c['matmul_fp16_flops'] / 1e12:.0f} "
          f"TFLOP/s, fp32 (CUDA cores) {c['matmul_fp32_flops'] / 1e12:.1f} TFLOP/s; launch "
          f"{res['launch']['eager_s_per_kernel'] * 1e6:.1f} µs/kernel eager, "
          f"{res['launch']['graph_s_per_kernel'] * 1e6:.2f} µs/kernel as a graph.\n")
    print("| model | batch | measured (graph) ms | predicted ms | lower … upper ms | bound | measured ÷ predicted "
          "| measured mJ | predicted mJ | measured W | predicted W |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for row in res["models"]:
        f, dims = FILES[row["model"]]
        r = analyse(f, a.hw, row["batch"], dims)
        ch = r["sol"]["chosen"]
        t = row.get("graph_s")
        print(f"| {row['model']} | {row['batch']} | {ms(t)} | {ms(ch['time_s'])} | "
              f"{ms(ch['lower_bound_s'])} … {ms(ch['upper_bound_s'])} | {ch['bound']} | "
              f"{t / ch['time_s']:.1f}× | {mj(row.get('graph_energy_j'))} | {mj(ch.get('energy_j'))} | "
              f"{row.get('graph_avg_power_w', 0):.0f} | {ch.get('avg_power_w') or 0:.0f} |")
    print("\nLlama-3.2-1B-shaped decoder, one decode step (fp16, KV cache in place, captured graph):\n")
    print("| batch | context | measured ms | predicted ms | bound | measured ÷ predicted | measured mJ | predicted mJ |")
    print("|---|---|---|---|---|---|---|---|")
    for row in res["decode"]:
        b, ctx = row["batch"], row["context"]
        r = analyse("llama_1b_kv.onnx", a.hw, None,
                    {"batch_size": b, "sequence_length": 1, "past_sequence_length": ctx,
                     "total_sequence_length": ctx + 1})
        ch = r["sol"]["chosen"]
        print(f"| {b} | {ctx} | {ms(row['graph_s'])} | {ms(ch['time_s'])} | {ch['bound']} | "
              f"{row['graph_s'] / ch['time_s']:.1f}× | {mj(row.get('energy_j'))} | {mj(ch.get('energy_j'))} |")


if __name__ == "__main__":
    main()
