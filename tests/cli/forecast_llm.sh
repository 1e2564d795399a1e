#!/usr/bin/env bash
# The LLM view forecasts TTFT and TPOT beside the floor's: llm.forecast's
# figures are finite, never below the floor's, and tokens/s agrees with TPOT,
# on a decoder with a KV cache over several devices and profiles.
#   tests/cli/forecast_llm.sh path/to/rooflens REPO_ROOT
set -uo pipefail
CLI="$1"
ROOT="$2"
M="$ROOT/tests/fixtures/models/torch/llama_1b_kv.onnx"
fails=0
pass=0
for hw in h100-sxm jetson-agx-orin tpu-v5e intel-xeon-8480; do
  for g in 1 64; do
    if "$CLI" "$M" --hw "$hw" --llm --prompt 256 --generate "$g" --format json | /usr/bin/python3 -c '
import json, math, sys
d = json.load(sys.stdin)["llm"]
f = d["forecast"]
for k in ("ttft_s", "tpot_s", "tokens_per_s"):
    assert isinstance(f[k], (int, float)) and math.isfinite(f[k]) and f[k] > 0, (k, f)
assert f["ttft_s"] >= d["ttft_s"] * (1 - 1e-12), (f["ttft_s"], d["ttft_s"])
assert f["tpot_s"] >= d["tpot_s"] * (1 - 1e-12), (f["tpot_s"], d["tpot_s"])
assert abs(f["tokens_per_s"] * f["tpot_s"] - d["batch"]) <= 1e-9 * d["batch"]
'; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $hw generate $g" >&2; fi
  done
done
echo "forecast llm: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
