#!/usr/bin/env bash
# The LLM view forecasts TTFT and TPOT beside the floor's: llm.forecast's
# figures are finite, never below the floor's (llm.floor), the answer the
# view leads with, and tokens/s agrees with TPOT, on a decoder with a KV
# cache over several profiles; and over four devices (--parallel tp=4) the
# forecast per token falls below one device's and stays at or above the
# tp=4 floor.
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
fl = d["floor"]
assert f["ttft_s"] >= fl["ttft_s"] * (1 - 1e-12), (f["ttft_s"], fl["ttft_s"])
assert f["tpot_s"] >= fl["tpot_s"] * (1 - 1e-12), (f["tpot_s"], fl["tpot_s"])
assert abs(f["tokens_per_s"] * f["tpot_s"] - d["batch"]) <= 1e-9 * d["batch"]
for k in ("ttft_s", "tpot_s", "tokens_per_s", "e2e_s"):
    assert d[k] == f[k], (k, d[k], f[k])
'; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $hw generate $g" >&2; fi
  done
done
for hw in l4 h100-sxm; do
  one=$("$CLI" "$M" --hw "$hw" --llm --prompt 256 --generate 16 --format json) &&
  four=$("$CLI" "$M" --hw "$hw" --llm --prompt 256 --generate 16 --parallel tp=4 --format json) &&
  if /usr/bin/python3 -c '
import json, sys
one, four = (json.loads(a)["llm"] for a in sys.argv[1:3])
f1, f4, fl4 = one["forecast"]["tpot_s"], four["forecast"]["tpot_s"], four["floor"]["tpot_s"]
assert four["forecast"]["devices"] == 4 and four["floor"]["tpot_s"] == four["parallel"]["tpot_s"], four["forecast"]
assert fl4 <= f4 < f1, ("tp=4 forecast per token", f4, "one device", f1, "tp=4 floor", fl4)
assert four["parallel"]["forecast_tpot_s"] == f4 and four["tpot_s"] == f4
' "$one" "$four"; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $hw tp=4" >&2; fi
done
echo "forecast llm: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
