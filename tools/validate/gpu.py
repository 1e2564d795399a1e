#!/usr/bin/env python3
"""Measure a CUDA GPU against what rooflens predicts for it.

Runs on any machine with PyTorch and a CUDA GPU (nothing is downloaded: the
models are built from their architecture with random weights). It measures

  * the two ceilings: device-to-device copy bandwidth (bytes read + written)
    and matrix-product rates (fp16, bf16, tf32, fp32 without tensor cores);
  * the cost of a kernel launch: many tiny kernels run eagerly (each one
    dispatched by PyTorch) and replayed from a captured CUDA graph;
  * whole-model latency of ResNet-50, MobileNetV3-Large, a BERT-base encoder
    and a GPT-2-small-shaped decoder (batch 1 and 8, fp16), eager and as a
    captured graph, with the energy per inference read from the GPU's own
    energy counter (NVML) where the driver exposes it;
  * one decode step of a Llama-3.2-1B-shaped decoder (GQA, RoPE, RMSNorm,
    SwiGLU; fp16) with its KV cache updated in place, at several contexts
    and batches, as a captured graph.

Every model is also exported to ONNX (graph only: the weights are written
as external data and left behind, which rooflens does not need), so the
same graphs can be analysed with `rooflens MODEL.onnx --hw h100-sxm ...`
and set against these measurements (docs/validation.md).

Usage: python3 tools/validate/gpu.py OUTDIR   (writes OUTDIR/gpu-results.json
and OUTDIR/*.onnx; prints a summary table last).
"""
import json
import math
import os
import sys
import tempfile
import time
import traceback

import torch
import torch.nn as nn
import torch.nn.functional as F

from gpu_timing import bench, graphed  # tools/validate/gpu_timing.py, beside this script
from gpu_models import Bert  # tools/validate/gpu_models.py, beside this script

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(OUT, exist_ok=True)
dev = torch.device("cuda")
results = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "ceilings": {},
           "launch": {}, "models": [], "decode": [], "errors": []}
props = torch.cuda.get_device_properties(0)
results["sm_count"] = props.multi_processor_count
results["memory_bytes"] = props.total_memory

try:
    import pynvml  # nvidia-ml-py
    pynvml.nvmlInit()
    NVML = pynvml.nvmlDeviceGetHandleByIndex(0)
    try:
        pynvml.nvmlDeviceGetTotalEnergyConsumption(NVML)
    except Exception:
        NVML = None
    if NVML is not None:
        results["power_limit_w"] = pynvml.nvmlDeviceGetEnforcedPowerLimit(NVML) / 1000.0
except Exception:
    NVML = None


def log(*a):
    print(*a, flush=True)


def energy_per_call(fn, seconds=2.0):
    """Average joules per call of fn over about `seconds`, from NVML's energy
    counter (mJ since driver load), with the average power."""
    if NVML is None:
        return None, None
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    n = 0
    while time.perf_counter() - t0 < 0.3:  # estimate the call rate
        fn()
        n += 1
    torch.cuda.synchronize()
    per = (time.perf_counter() - t0) / n
    calls = max(10, int(seconds / per))
    e0 = pynvml.nvmlDeviceGetTotalEnergyConsumption(NVML)
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    e1 = pynvml.nvmlDeviceGetTotalEnergyConsumption(NVML)
    joules = (e1 - e0) / 1e3
    return joules / calls, joules / dt


# ------------------------------------------------------------ ceilings --
def ceilings():
    c = results["ceilings"]
    n = 1 << 30  # 1 GiB per buffer, far beyond the 50 MB L2
    a = torch.empty(n, dtype=torch.uint8, device=dev).random_(0, 255)
    b = torch.empty_like(a)
    t, spread = bench(lambda: b.copy_(a), reps=20)
    c["copy_Bps"] = 2 * n / t
    log(f"copy: {2*n/t/1e12:.3f} TB/s (read+write)")
    del a, b
    # triad-like: c = a + s*b on fp16 (3 streams)
    m = 1 << 29
    x = torch.randn(m, dtype=torch.float16, device=dev)
    y = torch.randn(m, dtype=torch.float16, device=dev)
    z = torch.empty_like(x)
    t, _ = bench(lambda: torch.add(x, y, alpha=0.5, out=z), reps=20)
    c["triad_Bps"] = 3 * 2 * m / t
    log(f"triad: {c['triad_Bps']/1e12:.3f} TB/s")
    del x, y, z
    N = 8192
    for name, dt, tf32 in [("fp16", torch.float16, False), ("bf16", torch.bfloat16, False),
                           ("tf32", torch.float32, True), ("fp32", torch.float32, False)]:
        torch.backends.cuda.matmul.allow_tf32 = tf32
        A = torch.randn(N, N, dtype=dt, device=dev)
        B = torch.randn(N, N, dtype=dt, device=dev)
        C = torch.empty(N, N, dtype=dt, device=dev)
        t, _ = bench(lambda: torch.matmul(A, B, out=C), warmup=3, reps=10)
        c[f"matmul_{name}_flops"] = 2 * N ** 3 / t
        log(f"matmul {name}: {2*N**3/t/1e12:.1f} TFLOP/s")
        if name in ("fp16", "fp32"):
            e, p = energy_per_call(lambda: torch.matmul(A, B, out=C), 3.0)
            if e is not None:
                c[f"matmul_{name}_j_per_flop"] = e / (2 * N ** 3)
                c[f"matmul_{name}_avg_power_w"] = p
                log(f"  energy {name}: {e/(2*N**3)*1e12:.3f} pJ/FLOP at {p:.0f} W")
        del A, B, C
    torch.backends.cuda.matmul.allow_tf32 = False
    # memory energy: a long copy
    a = torch.empty(1 << 30, dtype=torch.uint8, device=dev)
    b = torch.empty_like(a)
    e, p = energy_per_call(lambda: b.copy_(a), 3.0)
    if e is not None:
        c["copy_j_per_byte"] = e / (2 * (1 << 30))
        c["copy_avg_power_w"] = p
        log(f"  energy copy: {c['copy_j_per_byte']*1e12:.1f} pJ/B at {p:.0f} W")
    del a, b
    if NVML is not None:
        torch.cuda.synchronize()
        time.sleep(1.0)
        e0 = pynvml.nvmlDeviceGetTotalEnergyConsumption(NVML)
        time.sleep(2.0)
        e1 = pynvml.nvmlDeviceGetTotalEnergyConsumption(NVML)
        c["idle_power_w"] = (e1 - e0) / 1e3 / 2.0
        log(f"idle power: {c['idle_power_w']:.1f} W")


def launch_cost():
    x = torch.zeros(256, device=dev)
    K = 1000

    def many():
        for _ in range(K):
            x.add_(1.0)
    t, _ = bench(many, warmup=2, reps=10)
    results["launch"]["eager_s_per_kernel"] = t / K
    g = graphed(many)
    t2, _ = bench(g, warmup=2, reps=10)
    results["launch"]["graph_s_per_kernel"] = t2 / K
    log(f"launch: eager {t/K*1e6:.2f} us/kernel, graph replay {t2/K*1e6:.2f} us/kernel")


# ------------------------------------------------------------- models --
def rms(x, w, eps=1e-5):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


class Llama(nn.Module):
    """A Llama-3.2-1B-shaped decoder (hidden 2048, 16 layers, 32 query heads,
    8 KV heads, head 64, FFN 8192, vocab 128256, tied embeddings). forward()
    is the Hugging Face export layout (past -> present by concatenation);
    step_inplace() is the same math with a preallocated cache written in
    place, which is how a serving runtime decodes."""

    def __init__(self, layers=16, d=2048, h=32, kvh=8, ff=8192, vocab=128256):
        super().__init__()
        self.n, self.d, self.h, self.kvh, self.hd = layers, d, h, kvh, d // h
        self.emb = nn.Embedding(vocab, d)
        self.norm = nn.Parameter(torch.ones(d))
        self.layers = nn.ModuleList()
        for _ in range(layers):
            self.layers.append(nn.ModuleDict(dict(
                q=nn.Linear(d, h * self.hd, bias=False), k=nn.Linear(d, kvh * self.hd, bias=False),
                v=nn.Linear(d, kvh * self.hd, bias=False), o=nn.Linear(h * self.hd, d, bias=False),
                gate=nn.Linear(d, ff, bias=False), up=nn.Linear(d, ff, bias=False),
                down=nn.Linear(ff, d, bias=False))))
            self.layers[-1].n1 = nn.Parameter(torch.ones(d))
            self.layers[-1].n2 = nn.Parameter(torch.ones(d))
        inv = 1.0 / (500000.0 ** (torch.arange(0, self.hd, 2).float() / self.hd))
        self.register_buffer("inv_freq", inv, persistent=False)

    def rope(self, x, pos):
        f = pos[..., None].float() * self.inv_freq  # [B,S,hd/2]
        cos, sin = f.cos()[:, None].to(x.dtype), f.sin()[:, None].to(x.dtype)
        x1, x2 = x[..., : self.hd // 2], x[..., self.hd // 2:]
        return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)

    def forward(self, input_ids, attention_mask, *past):
        B, S = input_ids.shape
        P = past[0].shape[2]
        pos = (torch.arange(S, device=input_ids.device) + P)[None].expand(B, S)
        x = self.emb(input_ids)
        total = P + S
        kpos = torch.arange(total, device=input_ids.device)
        causal = (kpos[None, :] > pos[0][:, None])  # [S,total]
        mask = causal[None, None] | (attention_mask[:, None, None, :] == 0)
        presents = []
        for i, L in enumerate(self.layers):
            y = rms(x, L.n1)
            q = L["q"](y).reshape(B, S, self.h, self.hd).transpose(1, 2)
            k = L["k"](y).reshape(B, S, self.kvh, self.hd).transpose(1, 2)
            v = L["v"](y).reshape(B, S, self.kvh, self.hd).transpose(1, 2)
            q, k = self.rope(q, pos), self.rope(k, pos)
            k = torch.cat([past[2 * i], k], dim=2)
            v = torch.cat([past[2 * i + 1], v], dim=2)
            presents += [k, v]
            rep = self.h // self.kvh
            kk = k[:, :, None].expand(B, self.kvh, rep, total, self.hd).reshape(B, self.h, total, self.hd)
            vv = v[:, :, None].expand(B, self.kvh, rep, total, self.hd).reshape(B, self.h, total, self.hd)
            s = (q @ kk.transpose(-1, -2)) / math.sqrt(self.hd)
            s = s.masked_fill(mask, float("-inf"))
            a = torch.softmax(s.float(), dim=-1).to(q.dtype) @ vv
            x = x + L["o"](a.transpose(1, 2).reshape(B, S, self.d))
            y = rms(x, L.n2)
            x = x + L["down"](F.silu(L["gate"](y)) * L["up"](y))
        logits = rms(x, self.norm) @ self.emb.weight.t()
        return (logits, *presents)

    def step_inplace(self, ids, kc, vc, c):
        """One decode step at context c (tokens 0..c-1 cached): writes the new
        K/V at position c of the preallocated caches kc/vc [n,B,kvh,max,hd]."""
        B = ids.shape[0]
        pos = torch.full((B, 1), c, device=ids.device)
        x = self.emb(ids)
        for i, L in enumerate(self.layers):
            y = rms(x, L.n1)
            q = L["q"](y).reshape(B, 1, self.h, self.hd).transpose(1, 2)
            k = L["k"](y).reshape(B, 1, self.kvh, self.hd).transpose(1, 2)
            v = L["v"](y).reshape(B, 1, self.kvh, self.hd).transpose(1, 2)
            q, k = self.rope(q, pos), self.rope(k, pos)
            kc[i, :, :, c:c + 1] = k
            vc[i, :, :, c:c + 1] = v
            a = F.scaled_dot_product_attention(q, kc[i, :, :, : c + 1], vc[i, :, :, : c + 1], enable_gqa=True)
            x = x + L["o"](a.transpose(1, 2).reshape(B, 1, self.d))
            y = rms(x, L.n2)
            x = x + L["down"](F.silu(L["gate"](y)) * L["up"](y))
        return rms(x, self.norm) @ self.emb.weight.t()


def export_onnx(model, args, name, input_names, output_names, dynamic_axes):
    """Export graph-only: weights go to an external file that is not kept."""
    import onnx
    from onnx.external_data_helper import convert_model_to_external_data
    with tempfile.TemporaryDirectory() as tmp:
        p = os.path.join(tmp, "m.onnx")
        try:
            torch.onnx.export(model, args, p, input_names=input_names, output_names=output_names,
                              dynamic_axes=dynamic_axes, opset_version=17, dynamo=False)
        except Exception as ex:  # noqa: BLE001 - the TorchScript exporter may be gone
            log(f"TorchScript export failed ({ex!r}); trying the dynamo exporter")
            torch.onnx.export(model, args, p, input_names=input_names, output_names=output_names,
                              dynamic_axes=dynamic_axes, opset_version=18, dynamo=True, external_data=True)
        m = onnx.load(p, load_external_data=True)
        convert_model_to_external_data(m, all_tensors_to_one_file=True, location=f"{name}.weights", size_threshold=0)
        q = os.path.join(tmp, "out.onnx")
        onnx.save(m, q, save_as_external_data=True, all_tensors_to_one_file=True, location=f"{name}.weights")
        dst = os.path.join(OUT, f"{name}.onnx")
        with open(q, "rb") as f, open(dst, "wb") as g:
            g.write(f.read())
    log(f"exported {name}.onnx ({os.path.getsize(dst)} bytes, weights left out)")


def time_model(name, model, make_input, batches, note):
    model = model.to(dev).half().eval()
    for b in batches:
        inp = make_input(b)
        row = {"model": name, "batch": b, "precision": "fp16", "note": note}
        with torch.inference_mode():
            t_e, sp_e = bench(lambda: model(inp), warmup=5, reps=30)
            row["eager_s"] = t_e
            try:
                static = inp
                out = {}

                def run():
                    out["y"] = model(static)
                g = graphed(run)
                t_g, sp_g = bench(g, warmup=5, reps=50)
                row["graph_s"], row["graph_spread_s"] = t_g, sp_g
                e, p = energy_per_call(g, 2.0)
                if e is not None:
                    row["graph_energy_j"], row["graph_avg_power_w"] = e, p
            except Exception as ex:  # noqa: BLE001 - report and go on
                row["graph_error"] = repr(ex)
        log(f"{name} b{b}: eager {row['eager_s']*1e3:.3f} ms, graph {row.get('graph_s', float('nan'))*1e3:.3f} ms, "
            f"{row.get('graph_energy_j', float('nan')):.4f} J at {row.get('graph_avg_power_w', float('nan')):.0f} W")
        results["models"].append(row)


def models():
    import torchvision
    torch.manual_seed(0)
    r50 = torchvision.models.resnet50()
    time_model("resnet50", r50, lambda b: torch.randn(b, 3, 224, 224, device=dev, dtype=torch.float16), [1, 8, 64],
               "torchvision resnet50, random weights")
    export_onnx(r50.float().cpu(), (torch.randn(1, 3, 224, 224),), "resnet50", ["input"], ["logits"],
                {"input": {0: "batch"}, "logits": {0: "batch"}})
    mb = torchvision.models.mobilenet_v3_large()
    time_model("mobilenet_v3_large", mb, lambda b: torch.randn(b, 3, 224, 224, device=dev, dtype=torch.float16),
               [1, 8, 64], "torchvision mobilenet_v3_large, random weights")
    export_onnx(mb.float().cpu(), (torch.randn(1, 3, 224, 224),), "mobilenet_v3_large", ["input"], ["logits"],
                {"input": {0: "batch"}, "logits": {0: "batch"}})
    bert = Bert()
    time_model("bert_base_s128", bert, lambda b: torch.randint(0, 30522, (b, 128), device=dev), [1, 8, 32],
               "BERT-base-shaped encoder, sequence 128")
    export_onnx(bert.float().cpu(), (torch.randint(0, 30522, (1, 128)),), "bert_base", ["input_ids"], ["hidden"],
                {"input_ids": {0: "batch", 1: "sequence"}, "hidden": {0: "batch", 1: "sequence"}})


def decode():
    torch.manual_seed(0)
    m = Llama().to(dev).half().eval()
    params = sum(p.numel() for p in m.parameters())
    results["llama_params"] = params
    maxc = 4096
    for b in (1, 8, 32):
        kc = torch.zeros(m.n, b, m.kvh, maxc + 1, m.hd, device=dev, dtype=torch.float16)
        vc = torch.zeros_like(kc)
        kc.normal_()
        vc.normal_()
        ids = torch.randint(0, 128256, (b, 1), device=dev)
        for c in (128, 1024, 4096 - 1):
            with torch.inference_mode():
                run = lambda: m.step_inplace(ids, kc, vc, c)  # noqa: E731
                t_e, _ = bench(run, warmup=3, reps=10)
                g = graphed(run)
                t_g, sp = bench(g, warmup=5, reps=50)
                e, p = energy_per_call(g, 1.5)
            row = {"batch": b, "context": c, "eager_s": t_e, "graph_s": t_g, "graph_spread_s": sp,
                   "energy_j": e, "avg_power_w": p}
            log(f"llama1b decode b{b} c{c}: eager {t_e*1e3:.3f} ms, graph {t_g*1e3:.3f} ms"
                + (f", {e:.4f} J at {p:.0f} W" if e else ""))
            results["decode"].append(row)
        del kc, vc
    # prefill of 512 tokens at batch 1 (HF layout, past length 0)
    with torch.inference_mode():
        ids = torch.randint(0, 128256, (1, 512), device=dev)
        am = torch.ones(1, 512, device=dev, dtype=torch.int64)
        past = [torch.zeros(1, m.kvh, 0, m.hd, device=dev, dtype=torch.float16) for _ in range(2 * m.n)]
        t, _ = bench(lambda: m(ids, am, *past), warmup=3, reps=10)
        results["prefill"] = {"batch": 1, "prompt": 512, "eager_s": t}
        log(f"llama1b prefill 512: eager {t*1e3:.3f} ms")
    # export the HF-layout graph at a small context for shapes
    mc = m.float().cpu()
    names = []
    past = []
    dyn = {"input_ids": {0: "batch_size", 1: "sequence_length"},
           "attention_mask": {0: "batch_size", 1: "total_sequence_length"}}
    for i in range(m.n):
        for kv in ("key", "value"):
            nm = f"past_key_values.{i}.{kv}"
            names.append(nm)
            past.append(torch.zeros(1, m.kvh, 3, m.hd))
            dyn[nm] = {0: "batch_size", 2: "past_sequence_length"}
    outs = ["logits"] + [f"present.{i}.{kv}" for i in range(m.n) for kv in ("key", "value")]
    dyn["logits"] = {0: "batch_size", 1: "sequence_length"}
    for o in outs[1:]:
        dyn[o] = {0: "batch_size", 2: "total_sequence_length"}
    export_onnx(mc, (torch.randint(0, 100, (1, 2)), torch.ones(1, 5, dtype=torch.int64), *past), "llama_1b_kv",
                ["input_ids", "attention_mask"] + names, outs, dyn)


for step in (ceilings, launch_cost, models, decode):
    try:
        step()
    except Exception:  # noqa: BLE001 - keep the other measurements
        tb = traceback.format_exc()
        results["errors"].append({"step": step.__name__, "error": tb})
        log(f"ERROR in {step.__name__}:\n{tb}")
    torch.cuda.empty_cache()

with open(os.path.join(OUT, "gpu-results.json"), "w") as f:
    json.dump(results, f, indent=1)
log("\nsummary")
log(json.dumps({k: results[k] for k in ("device", "ceilings", "launch")}, indent=1))
