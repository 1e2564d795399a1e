#!/usr/bin/env bash
# Prints, for large models, the CLI's wall time, peak RSS and file throughput
# (the reader skips weight payloads, so throughput counts the whole file).
#   tools/bench-native.sh [MODEL.onnx ...]
# Without arguments it uses build/models/bert_large.onnx and its external-data
# twin, making them first with tools/make_big_model.py (Debian's python3-onnx).
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -x build/rooflens ]] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null; cmake --build build -j"$(nproc)" >/dev/null; }
models=("$@")
if ((${#models[@]} == 0)); then
  mkdir -p build/models
  [[ -f build/models/bert_large.onnx ]] || /usr/bin/python3 tools/make_big_model.py build/models/bert_large.onnx
  [[ -f build/models/bert_large_ext.onnx ]] || /usr/bin/python3 tools/make_big_model.py build/models/bert_large_ext.onnx --external
  models=(build/models/bert_large.onnx build/models/bert_large_ext.onnx)
fi
printf "%-44s %12s %10s %12s %14s\n" model "file MB" "wall s" "peak RSS MB" "throughput GB/s"
for m in "${models[@]}"; do
  size=$(stat -c %s "$m")
  best=999; rss=0
  for _ in 1 2 3; do   # best of three: the first run also warms the page cache
    out=$( { /usr/bin/time -f "%e %M" build/rooflens "$m" --format json --hw h100-sxm >/dev/null; } 2>&1 | tail -1)
    t=${out% *}; r=${out#* }
    best=$(awk -v a="$t" -v b="$best" 'BEGIN{print (a<b)?a:b}')
    rss=$(awk -v a="$r" -v b="$rss" 'BEGIN{print (a>b)?a:b}')
  done
  awk -v m="$m" -v s="$size" -v t="$best" -v r="$rss" 'BEGIN{printf "%-44s %12.1f %10.3f %12.1f %14.1f\n", m, s/1e6, t, r/1024, (t>0? s/1e9/t : 0)}'
done
