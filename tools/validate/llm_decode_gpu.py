#!/usr/bin/env python3
"""Time decode steps of a Llama-3.2-1B-shaped fp16 decoder on a CUDA GPU, the
way a serving runtime runs them, to set rooflens's decode figures (docs/llm.md)
against a real device. Needs PyTorch with CUDA; not part of the tests.

    python3 tools/validate/llm_decode_gpu.py [--compile] [--cases B:C,...] [OUT.json]

The step: RMSNorm, one fused QKV projection, rotary embedding, the new key
and value written in place into a preallocated cache (the present aliases the
past), scaled_dot_product_attention of the one query against the cache's
c + 1 rows (grouped-query heads), the output projection, RMSNorm, one fused
gate/up projection, SiLU, the down projection, and the LM head; captured in a
CUDA graph per (batch, context) and replayed, so no launch overhead is paid.
Random weights (the timing does not depend on their values). --compile also
times the same step compiled by torch.compile (fused elementwise kernels),
captured the same way. --cases picks the (batch, context) pairs.
docs/data/h100-llm-decode-*.json are runs of this script.
"""
import argparse
import json
import time

import torch
import torch.nn.functional as F

from gpu_timing import replay_ms  # tools/validate/gpu_timing.py, beside this script

L, D, H, HKV, HD, FF, V = 16, 2048, 32, 8, 64, 8192, 128256
CASES = [(1, 128), (1, 512), (1, 4095), (8, 4095), (32, 128), (32, 4095)]
MAXC = 4096


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?")
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--cases", default=",".join(f"{b}:{c}" for b, c in CASES))
    args = ap.parse_args()
    cases = [tuple(int(x) for x in p.split(":")) for p in args.cases.split(",")]
    dev = torch.device("cuda")
    dt = torch.float16
    torch.manual_seed(0)
    g = lambda *s: (torch.randn(*s, device=dev, dtype=dt) * 0.02)
    layers = [dict(ln1=torch.ones(D, device=dev, dtype=dt), qkv=g((H + 2 * HKV) * HD, D), o=g(D, H * HD),
                   ln2=torch.ones(D, device=dev, dtype=dt), gu=g(2 * FF, D), down=g(D, FF)) for _ in range(L)]
    emb, head, lnf = g(V, D), g(V, D), torch.ones(D, device=dev, dtype=dt)
    params = sum(t.numel() for l in layers for t in l.values()) + emb.numel() + head.numel() + lnf.numel()
    inv = 1.0 / (500000 ** (torch.arange(0, HD, 2, device=dev).float() / HD))
    out = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "params": params,
           "dtype": "fp16", "shape": dict(layers=L, hidden=D, heads=H, kv_heads=HKV, head_dim=HD, ff=FF, vocab=V),
           "steps": []}

    def rms(x, w):
        return x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-5).to(x.dtype) * w

    def rope(x, pos):
        f = pos.float()[:, None] * inv[None]
        cos, sin = f.cos().to(x.dtype)[None, None], f.sin().to(x.dtype)[None, None]
        x1, x2 = x[..., : HD // 2], x[..., HD // 2:]
        return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1)

    for B, c in cases:
        kc = torch.zeros(L, B, HKV, MAXC, HD, device=dev, dtype=dt)
        vc = torch.zeros_like(kc)
        ids = torch.zeros(B, 1, dtype=torch.long, device=dev)
        pos = torch.tensor([c], device=dev)

        def step():
            x = emb[ids]                                   # [B, 1, D]
            for i, l in enumerate(layers):
                h = rms(x, l["ln1"])
                qkv = h @ l["qkv"].t()
                q, k, v = qkv.split([H * HD, HKV * HD, HKV * HD], -1)
                q = rope(q.view(B, 1, H, HD).transpose(1, 2), pos)
                k = rope(k.view(B, 1, HKV, HD).transpose(1, 2), pos)
                kc[i, :, :, c:c + 1] = k                   # in place: the new row only
                vc[i, :, :, c:c + 1] = v.view(B, 1, HKV, HD).transpose(1, 2)
                a = F.scaled_dot_product_attention(q, kc[i, :, :, :c + 1], vc[i, :, :, :c + 1], enable_gqa=True)
                x = x + a.transpose(1, 2).reshape(B, 1, H * HD) @ l["o"].t()
                h = rms(x, l["ln2"])
                gate, up = (h @ l["gu"].t()).split(FF, -1)
                x = x + (F.silu(gate) * up) @ l["down"].t()
            return rms(x, lnf) @ head.t()

        kinds = [("graph", step)] + ([("compiled", torch.compile(step))] if args.compile else [])
        for kind, fn in kinds:
            ms = replay_ms(fn)
            out["steps"].append({"batch": B, "context": c, "kind": kind, "graph_s": ms / 1e3})
            print(f"{kind:8s} batch {B:3d} context {c:5d}: {ms:.4f} ms per decode step", flush=True)
        del kc, vc
        torch.cuda.empty_cache()
    # the weights' bytes read at the device's copy bandwidth, for scale
    buf = torch.empty(1 << 30, device=dev, dtype=torch.uint8)
    dst = torch.empty_like(buf)
    for _ in range(3):
        dst.copy_(buf)
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(20):
        dst.copy_(buf)
    torch.cuda.synchronize()
    out["copy_Bps"] = 2 * (1 << 30) * 20 / (time.perf_counter() - t)
    print(f"copy bandwidth {out['copy_Bps'] / 1e12:.3f} TB/s")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
