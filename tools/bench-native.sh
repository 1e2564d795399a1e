#!/usr/bin/env bash
# The CLI on big inputs: wall time (median of N runs, page cache warm, in
# milliseconds), peak RSS beside that of `rooflens --version` (what the
# process needs to start), and, with --callgrind, the instructions executed
# and the share of them outside rl_model_analyze (and outside the reader,
# rl_reader_*, which reads the model before the analysis).
#   tools/bench-native.sh [--runs N] [--callgrind] [MODEL.onnx ...]
# Without models it uses build/models/bert_large.onnx (weights inline,
# 1.3 GB) and its external-data twin, making them first with
# tools/make_big_model.py (Debian's python3-onnx). Each model is timed as a
# table, as CSV and as JSON; then `diff` of the two exports and `batch` over
# $BENCH_BATCH_DIR (default: the ONNX node tests in ../shared or ../../shared).
# Needs perf (wall times) and, with --callgrind, valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=10 callgrind=0 models=()
while (($#)); do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --callgrind) callgrind=1; shift ;;
    *) models+=("$1"); shift ;;
  esac
done
[[ -x build/rooflens ]] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null; cmake --build build -j"$(nproc)" >/dev/null; }
if ((${#models[@]} == 0)); then
  mkdir -p build/models
  [[ -f build/models/bert_large.onnx ]] || /usr/bin/python3 tools/make_big_model.py build/models/bert_large.onnx
  [[ -f build/models/bert_large_ext.onnx ]] || /usr/bin/python3 tools/make_big_model.py build/models/bert_large_ext.onnx --external
  models=(build/models/bert_large.onnx build/models/bert_large_ext.onnx)
fi
batch_dir="${BENCH_BATCH_DIR:-../shared/onnx-node-tests}"
[[ -d "$batch_dir" ]] || batch_dir=../../shared/onnx-node-tests # a worktree beside the checkout
CLI="${ROOFLENS_CLI:-build/rooflens}" # ROOFLENS_CLI: another build to compare with

# mean wall ms/CPU ms (perf stat -r: process start to exit, no shell in
# between; on a busy machine the CPU time is the steadier figure)
# and max peak RSS KB (/usr/bin/time) of `rooflens ARGS` over $runs runs
measure() {
  local ms rss best_rss=0 tf
  tf=$(mktemp)
  ms=$(perf stat -r "$runs" -e task-clock "$CLI" "$@" 2>&1 >/dev/null |
    awk '/task-clock/ { gsub(",", "", $1); cpu = $1 } /seconds time elapsed/ { printf "%.2f/%.2f", $1 * 1000, cpu }')
  for ((i = 0; i < 3; i++)); do
    /usr/bin/time -o "$tf" -f "%M" "$CLI" "$@" >/dev/null 2>&1 || true
    rss=$(tail -1 "$tf")
    ((rss > best_rss)) && best_rss=$rss
  done
  rm -f "$tf"
  echo "$ms $best_rss"
}

# instructions in all, outside rl_model_analyze*/rl_models_diff/rl_model_summary,
# and outside those and the reader
instructions() {
  local out
  out=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file="$out" "$CLI" "$@" >/dev/null 2>&1 || true
  callgrind_annotate --inclusive=yes "$out" 2>/dev/null | awk '
    /PROGRAM TOTALS/ { gsub(",", "", $1); total = $1 + 0 }
    / \?\?\?:(rl_model_analyze_sized|rl_model_analyze|rl_models_diff|rl_model_summary) / { gsub(",", "", $1); if ($1 + 0 > core) core = $1 + 0 }
    / \?\?\?:read_model / { gsub(",", "", $1); if ($1 + 0 > rd) rd = $1 + 0 }
    END { if (total) printf "%.1f M instr, %.1f%% outside the core call, %.1f%% outside it and the reader", total / 1e6, 100 * (total - core) / total, 100 * (total - core - rd) / total }'
  rm -f "$out"
}

base=$(measure --version)
echo "startup (rooflens --version): ${base% *} ms wall/CPU, peak RSS ${base#* } KB; mean of $runs runs each, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-50s %14s %12s %11s  %s\n" "command" "wall/CPU ms" "peak RSS MB" "over start" "instructions"
row() { # row LABEL ARGS...
  local label="$1"; shift
  local r cg=""
  r=$(measure "$@")
  ((callgrind)) && cg=$(instructions "$@")
  awk -v l="$label" -v t="${r% *}" -v m="${r#* }" -v b="${base#* }" -v c="$cg" \
    'BEGIN { printf "%-50s %14s %12.1f %11.1f  %s\n", l, t, m / 1024, (m - b) / 1024, c }'
}
for m in "${models[@]}"; do
  for f in table csv json; do row "$(basename "$m") --format $f" "$m" --hw h100-sxm --format "$f"; done
done
if ((${#models[@]} >= 2)); then
  row "diff $(basename "${models[0]}") $(basename "${models[1]}")" diff "${models[0]}" "${models[1]}" --hw h100-sxm
  row "diff ... --format json" diff "${models[0]}" "${models[1]}" --hw h100-sxm --format json
fi
if [[ -d "$batch_dir" ]]; then
  n=$(find "$batch_dir" -name '*.onnx' | wc -l)
  runs_saved=$runs; runs=3
  row "batch $(basename "$batch_dir") ($n models)" batch "$batch_dir" --hw h100-sxm
  row "batch ... --format json" batch "$batch_dir" --hw h100-sxm --format json
  runs=$runs_saved
fi
