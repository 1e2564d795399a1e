#!/usr/bin/env python3
"""Prints rooflens's whole-model figures for the torch exports beside Pagoda's
Table 4 (batch 1, FP32, analytical), for docs/accuracy.md.
Usage: tools/validate/accuracy.py [MODELS_DIR]   (default build/models, made by tools/make-models/torch_models.py)"""
import json, subprocess, sys
models_dir = sys.argv[1] if len(sys.argv) > 1 else "build/models"
table4 = {"resnet50": (8.23, 425.80, 19.33), "mobilenet_v3_large": (0.46, 138.27, 3.33),
          "bert_large": (79.14, 2601.01, 30.43)}
print("| model | rooflens GFLOP (matrix) | Pagoda GFLOP | ratio | rooflens MB | Pagoda MB | ratio | rooflens AI | Pagoda AI | unsupported / unknown |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for name, (gf, mb, ai) in table4.items():
    out = subprocess.run(["build/rooflens", f"{models_dir}/{name}.onnx", "--format", "json", "--precision", "fp32"],
                         capture_output=True, text=True, check=True).stdout
    t = json.loads(out)["totals"]
    print(f"| {name} | {t['flops']/1e9:.2f} ({t['matrix_flops']/1e9:.2f}) | {gf} | {t['flops']/1e9/gf:.3f} | "
          f"{t['bytes']/1e6:.2f} | {mb} | {t['bytes']/1e6/mb:.3f} | {t['intensity']:.2f} | {ai} | "
          f"{','.join(t['unsupported_ops']) or '-'} / {t['unknown_layers']} |")
