#!/usr/bin/python3
"""The analytic forecast and the floor against tools/validate/forecast_gpu.py's
measurements (docs/data/h200-forecast-2026-11-27.json), model by model:

    /usr/bin/python3 tools/validate/forecast_gpu_report.py [DATA.json [MODELS_DIR [build/rooflens]]]

MODELS_DIR holds the torchvision graphs of tools/make-models/torch_models.py
(build/validate-forecast/models after tools/validate/forecast.sh); the BERT
graph is tests/fixtures/models/torch/bert_base.onnx. Each model is analysed
at the measured batch in fp16 against the profile of the measured device.
Prints Markdown on stdout: every figure is rooflens's or the data file's.
Standard library only."""
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROFILES = {"NVIDIA H200": "h200", "NVIDIA H100 80GB HBM3": "h100-sxm"}


def library_kernel(name):
    """A kernel of cuDNN, cuBLAS or PyTorch's own (convolutions, products,
    attention, pooling, norms), not one Inductor generated (Triton) for the
    elementwise work around them, nor a memset."""
    return not name.startswith("triton") and not re.search(r"Memset|Memcpy", name)


def analyse(cli, models, hw, model, batch):
    path = (os.path.join(ROOT, "tests/fixtures/models/torch/bert_base.onnx") if model == "bert_base"
            else os.path.join(models, model + ".onnx"))
    out = subprocess.run([cli, path, "--hw", hw, "--batch", str(batch), "--precision", "fp16", "--dim",
                          "sequence=128", "--format", "json"], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main():
    data_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "docs/data/h200-forecast-2026-11-27.json")
    models = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "build/validate-forecast/models")
    cli = sys.argv[3] if len(sys.argv) > 3 else os.path.join(ROOT, "build/rooflens")
    data = json.load(open(data_path))
    hw = PROFILES[data["device"]]
    times = {}
    for r in data["runs"]:
        times.setdefault((r["model"], r["batch"], r["stack"]), []).append(r["time_s"])
    library = {}
    for k in data["kernels"]:
        if k["stack"] == "compiled":
            library[(k["model"], k["batch"])] = sum(x["s"] for x in k["kernels"] if library_kernel(x["name"]))
    print("| model | batch | floor | forecast | graph | tuned | compiled | error | Σ library kernels | error |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    errors, lib_errors, above, runs = [], [], 0, 0
    order = []
    for r in data["runs"]:
        if (r["model"], r["batch"]) not in order:
            order.append((r["model"], r["batch"]))
    order.sort(key=lambda mb: (data["runs"][0]["model"] != mb[0], mb[0], mb[1]))

    def ms(x):
        return "%.3f ms" % (1e3 * x) if x is not None else "–"

    for model, batch in order:
        f = analyse(cli, models, hw, model, batch)["forecast"]
        stack = {s: statistics.mean(times[(model, batch, s)]) if (model, batch, s) in times else None
                 for s in ("graph", "tuned", "compiled")}
        for s in ("graph", "tuned", "compiled"):
            for t in times.get((model, batch, s), []):
                runs += 1
                above += t >= f["floor_s"]
        comp, lib = stack["compiled"], library.get((model, batch))
        err = lib_err = None
        if comp:
            err = f["time_s"] / comp - 1
            errors.append(abs(err))
        if lib:
            lib_err = f["time_s"] / lib - 1
            lib_errors.append(abs(lib_err))
        print("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            model, batch, ms(f["floor_s"]), ms(f["time_s"]), ms(stack["graph"]), ms(stack["tuned"]), ms(comp),
            "%+.0f %%" % (100 * err) if err is not None else "–", ms(lib),
            "%+.0f %%" % (100 * lib_err) if lib_err is not None else "–"))
    print("\nProfile `%s`, fp16. Against the compiled runs (%d): median error %.0f %%, maximum %.0f %%, "
          "within 35 %% in %d. Against the library kernels alone (%d): median %.0f %%, maximum %.0f %%, "
          "within 35 %% in %d. The floor is at or below %d of %d measured runs." % (
              hw, len(errors), 100 * statistics.median(errors), 100 * max(errors), sum(e <= 0.35 for e in errors),
              len(lib_errors), 100 * statistics.median(lib_errors), 100 * max(lib_errors),
              sum(e <= 0.35 for e in lib_errors), above, runs))


if __name__ == "__main__":
    main()
