#!/usr/bin/python3
"""The analytic forecast against the H100 measurements of docs/data
(tools/validate/gpu.py's run: PyTorch, fp16, eager and replayed from a
captured CUDA graph), model by model:

    /usr/bin/python3 tools/validate/forecast_h100.py [build/rooflens]

The shipped h100-sxm profile's forecast describes a tuned inference engine
(TensorRT with CUDA graphs); PyTorch replayed from a CUDA graph runs the same
cuDNN/cuBLAS kernels without TensorRT's fusion, so it is the nearest stack
measured here, and eager PyTorch a slower one. Prints a Markdown table on
stdout, then the same for the decode steps of the Llama-shaped decoder
(the --llm view's TPOT). Standard library only; every figure is rooflens's
or the file's."""
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILES = {"resnet50": ("resnet50.onnx", {}), "mobilenet_v3_large": ("mobilenet_v3_large.onnx", {}),
         "bert_base_s128": ("bert_base.onnx", {"sequence": 128})}


def analyse(cli, row):
    f, dims = FILES[row["model"]]
    args = [cli, os.path.join(ROOT, "tests/fixtures/models/torch", f), "--hw", "h100-sxm", "--batch",
            str(row["batch"]), "--precision", row["precision"], "--format", "json"]
    for k, v in dims.items():
        args += ["--dim", "%s=%s" % (k, v)]
    return json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)


def main():
    cli = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/rooflens")
    data = json.load(open(os.path.join(ROOT, "docs/data/h100-sxm-measured-2026-11-22.json")))
    print("| model | batch | floor | forecast | CUDA graph | error | eager | forecast / eager |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    errs = []
    below = 0
    for row in data["models"]:
        f = analyse(cli, row)["forecast"]
        err = f["time_s"] / row["graph_s"] - 1
        errs.append(abs(err))
        below += f["time_s"] < f["floor_s"]
        print("| %s | %d | %.3f ms | %.3f ms | %.3f ms | %+.0f %% | %.3f ms | %.2f |" % (
            row["model"], row["batch"], 1e3 * f["floor_s"], 1e3 * f["time_s"], 1e3 * row["graph_s"], 100 * err,
            1e3 * row["eager_s"], f["time_s"] / row["eager_s"]))
    print("\nAgainst the CUDA-graph runs: median error %.0f %%, maximum %.0f %%; forecast below the floor: %d of %d."
          % (100 * statistics.median(errs), 100 * max(errs), below, len(errs)))
    # the decode steps of the Llama-shaped decoder: the --llm view's TPOT
    # (its serving assumptions: KV cache in place, captured graph) at the
    # measured batch and context
    print("\n| batch | context | floor (TPOT) | forecast (TPOT) | CUDA graph | error |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    derr = []
    for row in data["decode"]:
        args = [cli, os.path.join(ROOT, "tests/fixtures/models/torch/llama_1b_kv.onnx"), "--hw", "h100-sxm", "--llm",
                "--precision", "fp16", "--batch", str(row["batch"]), "--prompt", str(row["context"]), "--generate",
                "1", "--format", "json"]
        llm = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)["llm"]
        tpot, floor = llm["forecast"]["tpot_s"], llm["decode"]["time_s"]
        err = tpot / row["graph_s"] - 1
        derr.append(abs(err))
        print("| %d | %d | %.3f ms | %.3f ms | %.3f ms | %+.0f %% |" % (
            row["batch"], row["context"], 1e3 * floor, 1e3 * tpot, 1e3 * row["graph_s"], 100 * err))
    print("\nDecode steps against the CUDA-graph runs: median error %.0f %%, maximum %.0f %%."
          % (100 * statistics.median(derr), 100 * max(derr)))


if __name__ == "__main__":
    main()
