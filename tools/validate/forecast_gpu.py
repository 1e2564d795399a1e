#!/usr/bin/env python3
"""Time the forecast's models on a CUDA GPU, in the best stack PyTorch gives
without downloading anything, to set beside rooflens's analytic forecast
(docs/validation.md, "The analytic forecast on a GPU").

    python3 tools/validate/forecast_gpu.py OUTDIR [--budget SECONDS]
        [--models a,b,...] [--stacks graph,tuned,compiled] [--compiled-batches all]

Runs on any machine with PyTorch, torchvision and a CUDA GPU; the models are
built from their architecture with random weights. For each model and batch,
in fp16:

  * "graph":  the plain model (NCHW, BatchNorm as its own kernels), replayed
              from a captured CUDA graph, as in tools/validate/gpu.py;
  * "tuned":  what an inference engine does to the same graph without
              compiling new kernels: BatchNorm folded into the convolutions,
              channels-last tensors, cuDNN's fastest algorithm per shape,
              fused attention (SDPA), replayed from a CUDA graph;
  * "compiled": torch.compile (Inductor, weights frozen: it folds and fuses
              the elementwise work into generated kernels) replayed from a
              CUDA graph, for the models the time budget leaves room for.

It also measures the ceilings (copy bandwidth, fp16 matrix rate, a graph
replay's cost per kernel) and, for the tuned stack at the largest batch, the
GPU time of every kernel (torch.profiler), so that the time can be set
beside the forecast op class by op class. Writes OUTDIR/gpu-forecast.json
after every measurement (a run cut short keeps what it measured) and prints
a summary table last. tools/validate/forecast_gpu_report.py analyses the
same graphs with rooflens and writes the comparison.
"""
import json
import os
import re
import sys
import time
import traceback

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_models import Bert  # noqa: E402
from gpu_timing import bench, graphed  # noqa: E402

START = time.time()
OUT = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else "."


def option(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


BUDGET = float(option("--budget", 360.0))
STACKS = option("--stacks", "graph,tuned,compiled").split(",")
os.makedirs(OUT, exist_ok=True)
dev = torch.device("cuda")
torch.backends.cudnn.benchmark = True
props = torch.cuda.get_device_properties(0)
results = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "cudnn": torch.backends.cudnn.version(), "sm_count": props.multi_processor_count,
           "ceilings": {}, "runs": [], "kernels": [], "errors": []}

# model name -> (constructor, input maker, batches); the names are the ONNX
# files' (tools/make-models/torch_models.py; bert_base: tests/fixtures/models/torch)
IMAGE = lambda b: torch.randn(b, 3, 224, 224, device=dev, dtype=torch.float16)  # noqa: E731
TOKENS = lambda b: torch.randint(0, 30522, (b, 128), device=dev)  # noqa: E731
MODELS = option("--models", "resnet50,mobilenet_v3_large,bert_base,vit_b_16,efficientnet_b0,convnext_tiny,"
                "resnet18,regnet_y_400mf,shufflenet_v2_x1_0,squeezenet1_1").split(",")
BATCHES = {"bert_base": [1, 8, 32]}
# compiling takes 10-20 s a model and batch: by default only the first four
# models, at their smallest and largest batch
COMPILED = MODELS if "--models" in sys.argv else MODELS[:4]
ALL_COMPILED_BATCHES = option("--compiled-batches", "ends") == "all"


def log(*a):
    print(*a, flush=True)


def elapsed():
    return time.time() - START


def save():
    with open(os.path.join(OUT, "gpu-forecast.json"), "w") as f:
        json.dump(results, f, indent=1)


def build(name, fused_attention=False):
    torch.manual_seed(0)
    if name == "bert_base":
        return Bert(fused_attention=fused_attention), TOKENS
    import torchvision
    return getattr(torchvision.models, name)(), IMAGE


def fold_batchnorm(model):
    """Conv+BatchNorm pairs folded into one convolution (torch.fx); the model
    unchanged where it cannot be traced."""
    try:
        from torch.fx.experimental.optimization import fuse
        return fuse(model), True
    except Exception:  # noqa: BLE001 - an untraceable model runs unfolded
        return model, False


def ceilings():
    c = results["ceilings"]
    n = 1 << 30
    a = torch.empty(n, dtype=torch.uint8, device=dev).random_(0, 255)
    b = torch.empty_like(a)
    t, _ = bench(lambda: b.copy_(a), reps=20)
    c["copy_Bps"] = 2 * n / t
    del a, b
    N = 8192
    A = torch.randn(N, N, dtype=torch.float16, device=dev)
    B = torch.randn(N, N, dtype=torch.float16, device=dev)
    C = torch.empty(N, N, dtype=torch.float16, device=dev)
    t, _ = bench(lambda: torch.matmul(A, B, out=C), warmup=3, reps=10)
    c["matmul_fp16_flops"] = 2 * N ** 3 / t
    del A, B, C
    x = torch.zeros(256, device=dev)
    g = graphed(lambda: [x.add_(1.0) for _ in range(1000)])
    t, _ = bench(g, warmup=2, reps=10)
    c["graph_s_per_kernel"] = t / 1000
    log("ceilings: copy %.2f TB/s, fp16 matrix %.0f TFLOP/s, graph replay %.2f us/kernel"
        % (c["copy_Bps"] / 1e12, c["matmul_fp16_flops"] / 1e12, c["graph_s_per_kernel"] * 1e6))
    save()


def time_graph(model, inp, stack, name, b, extra=None):
    out = {}

    def run():
        out["y"] = model(inp)
    with torch.inference_mode():
        replay = graphed(run)
        t, spread = bench(replay, warmup=5, reps=40)
    row = {"model": name, "batch": b, "precision": "fp16", "stack": stack, "time_s": t, "spread_s": spread}
    row.update(extra or {})
    results["runs"].append(row)
    log("%-20s b%-3d %-9s %8.3f ms (spread %.3f)" % (name, b, stack, t * 1e3, spread * 1e3))
    save()


def kernel_times(model, inp, name, b, stack):
    """GPU time of each kernel of one call (torch.profiler), by kernel name."""
    from torch.profiler import ProfilerActivity, profile
    with torch.inference_mode():
        for _ in range(3):
            model(inp)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(5):
                model(inp)
            torch.cuda.synchronize()
    by = {}
    for e in prof.events():
        if not str(e.device_type).endswith("CUDA"):
            continue
        k = by.setdefault(e.name, [0.0, 0])
        k[0] += e.time_range.elapsed_us() / 5e6  # one call's share, in seconds
        k[1] += 1
    rows = sorted(([n, s, c // 5] for n, (s, c) in by.items()), key=lambda r: -r[1])
    results["kernels"].append({"model": name, "batch": b, "stack": stack, "total_s": sum(r[1] for r in rows),
                               "kernels": [{"name": re.sub(r"\s+", " ", n)[:160], "s": s, "count": c}
                                           for n, s, c in rows]})
    save()


def measure(name):
    batches = BATCHES.get(name, [1, 8, 64])
    model, make = build(name)
    model = model.to(dev).half().eval()
    for b in batches if "graph" in STACKS else ():
        time_graph(model, make(b), "graph", name, b)
    if "tuned" not in STACKS:
        return
    tuned, folded = fold_batchnorm(build(name, fused_attention=True)[0].eval())
    tuned = tuned.to(dev).half().eval()
    if make is IMAGE:
        tuned = tuned.to(memory_format=torch.channels_last)
    for b in batches:
        inp = make(b)
        if make is IMAGE:
            inp = inp.contiguous(memory_format=torch.channels_last)
        time_graph(tuned, inp, "tuned", name, b, {"batchnorm_folded": folded})
    inp = make(batches[-1])
    if make is IMAGE:
        inp = inp.contiguous(memory_format=torch.channels_last)
    kernel_times(tuned, inp, name, batches[-1], "tuned")
    del model, tuned
    torch.cuda.empty_cache()


def compiled(name):
    import torch._inductor.config as inductor
    inductor.freezing = True
    batches = BATCHES.get(name, [1, 8, 64])
    model, make = build(name, fused_attention=True)
    model = model.to(dev).half().eval()
    if make is IMAGE:
        model = model.to(memory_format=torch.channels_last)
    for b in batches if ALL_COMPILED_BATCHES else (batches[0], batches[-1]):
        if elapsed() > BUDGET:
            log("budget spent: %s b%d not compiled" % (name, b))
            return
        inp = make(b)
        if make is IMAGE:
            inp = inp.contiguous(memory_format=torch.channels_last)
        torch._dynamo.reset()
        fn = torch.compile(model, dynamic=False)
        t0 = time.time()
        with torch.inference_mode():
            fn(inp)
            fn(inp)
        torch.cuda.synchronize()
        time_graph(fn, inp, "compiled", name, b, {"compile_s": time.time() - t0})
        kernel_times(fn, inp, name, b, "compiled")


def step(fn, *args):
    try:
        fn(*args)
    except Exception:  # noqa: BLE001 - keep the other measurements
        tb = traceback.format_exc()
        results["errors"].append({"step": "%s%r" % (fn.__name__, args), "error": tb[-2000:]})
        log("ERROR in %s%r:\n%s" % (fn.__name__, args, tb[-1500:]))
        save()
    torch.cuda.empty_cache()


step(ceilings)
for m in MODELS:
    if elapsed() > BUDGET:
        log("budget spent before %s" % m)
        break
    step(measure, m)
for m in COMPILED if "compiled" in STACKS else ():
    if elapsed() > BUDGET:
        break
    step(compiled, m)
results["elapsed_s"] = elapsed()
save()
log("\n%-20s %5s %10s %10s %10s" % ("model", "batch", "graph ms", "tuned ms", "compiled ms"))
for m in MODELS:
    for b in BATCHES.get(m, [1, 8, 64]):
        t = {r["stack"]: r["time_s"] for r in results["runs"] if r["model"] == m and r["batch"] == b}
        if t:
            log("%-20s %5d %10s %10s %10s" % (m, b, *("%.3f" % (t[s] * 1e3) if s in t else "-"
                                                     for s in ("graph", "tuned", "compiled"))))
log("elapsed %.0f s, errors %d" % (elapsed(), len(results["errors"])))
