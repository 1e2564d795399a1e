#!/usr/bin/env bash
# The CLI on big inputs: wall time (median of N runs after a warm-up, page
# cache warm, in milliseconds) and mean CPU time, peak RSS beside that of
# `rooflens --version` (what the process needs to start), and, with
# --callgrind, the instructions executed and the share of them outside the
# core's analysis call and outside the core's calls altogether (the reader,
# rl_reader_*, reads the model before the analysis).
#   tools/bench/native.sh [--runs N] [--callgrind] [MODEL.onnx ...]
# Without models it uses build/models/bert_large.onnx (weights inline,
# 1.3 GB) and its external-data twin, making them first with
# tools/make-models/big_model.py (Debian's python3-onnx). Each model is timed as a
# table, as CSV and as JSON; then `diff` of the two exports and `batch` over
# $BENCH_BATCH_DIR (default: the ONNX node tests in ../shared or ../../shared).
# Needs perf (wall times) and, with --callgrind, valgrind.
set -euo pipefail
cd "$(dirname "$0")/../.."
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
  [[ -f build/models/bert_large.onnx ]] || /usr/bin/python3 tools/make-models/big_model.py build/models/bert_large.onnx
  [[ -f build/models/bert_large_ext.onnx ]] || /usr/bin/python3 tools/make-models/big_model.py build/models/bert_large_ext.onnx --external
  models=(build/models/bert_large.onnx build/models/bert_large_ext.onnx)
fi
batch_dir="${BENCH_BATCH_DIR:-../shared/onnx-node-tests}"
[[ -d "$batch_dir" ]] || batch_dir=../../shared/onnx-node-tests # a worktree beside the checkout
CLI="${ROOFLENS_CLI:-build/rooflens}" # ROOFLENS_CLI: another build to compare with

# median wall ms of $runs runs (after one warm-up run: page cache warm),
# mean CPU ms (perf stat -r: on a busy machine the steadier figure) and max
# peak RSS KB (/usr/bin/time) of `rooflens ARGS`
measure() {
  local cpu rss best_rss=0 tf t0 t1 times=()
  tf=$(mktemp)
  "$CLI" "$@" >/dev/null 2>&1 || true
  for ((i = 0; i < runs; i++)); do
    t0=$EPOCHREALTIME
    "$CLI" "$@" >/dev/null 2>&1 || true
    t1=$EPOCHREALTIME
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) * 1000 }')")
  done
  cpu=$(perf stat -r "$runs" -e task-clock "$CLI" "$@" 2>&1 >/dev/null |
    awk '/task-clock/ { gsub(",", "", $1); printf "%.2f", $1 }')
  for ((i = 0; i < 3; i++)); do
    /usr/bin/time -o "$tf" -f "%M" "$CLI" "$@" >/dev/null 2>&1 || true
    rss=$(tail -1 "$tf")
    ((rss > best_rss)) && best_rss=$rss
  done
  rm -f "$tf"
  echo "$(printf '%s\n' "${times[@]}" | sort -g | awk '{ a[NR] = $1 } END { printf "%.2f", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')/$cpu $best_rss"
}

# instructions in all, the share outside the core's analysis call
# (rl_model_analyze* (for --format json its writer too: the CLI's stdout
# writes happen inside it), rl_models_diff*, rl_model_summary*, each also in
# its form with a hardware handle), and the share outside the core's calls
# altogether: that call, the reader's (rl_reader_feed, rl_reader_skip,
# rl_reader_finish, which read the model before the analysis) and the
# profile's (rl_hw_read, which reads --hw once)
instructions() {
  local out
  out=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file="$out" "$CLI" "$@" >/dev/null 2>&1 || true
  callgrind_annotate --inclusive=yes --threshold=100 "$out" 2>/dev/null | awk '
    /PROGRAM TOTALS/ { gsub(",", "", $1); total = $1 + 0 }
    / \?\?\?:(rl_model_analyze_sized|rl_model_analyze_write|rl_model_analyze|rl_model_analyze_hw|rl_model_analyze_hw_write|rl_models_diff|rl_models_diff_hw|rl_model_summary|rl_model_summary_hw) / { gsub(",", "", $1); if ($1 + 0 > core) core = $1 + 0 }
    / \?\?\?:(rl_reader_feed|rl_reader_skip|rl_reader_finish|rl_hw_read) / { gsub(",", "", $1); rd += $1 }
    END { if (total) printf "%.1f M instr, %.1f%% outside the analysis call, %.1f%% outside the core'"'"'s calls (reader and profile included)", total / 1e6, 100 * (total - core) / total, 100 * (total - core - rd) / total }'
  rm -f "$out"
}

base=$(measure --version)
echo "startup (rooflens --version): ${base% *} ms wall/CPU, peak RSS ${base#* } KB; median wall / mean CPU of $runs runs each, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-50s %16s %12s %11s  %s\n" "command" "wall/CPU ms" "peak RSS MB" "over start" "instructions"
row() { # row LABEL ARGS...
  local label="$1"; shift
  local r cg=""
  r=$(measure "$@")
  ((callgrind)) && cg=$(instructions "$@")
  awk -v l="$label" -v t="${r% *}" -v m="${r#* }" -v b="${base#* }" -v c="$cg" \
    'BEGIN { printf "%-50s %16s %12.2f %11.2f  %s\n", l, t, m / 1024, (m - b) / 1024, c }'
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
  echo "load before batch: $(cut -d' ' -f1-3 /proc/loadavg)"
  row "batch $(basename "$batch_dir") ($n models)" batch "$batch_dir" --hw h100-sxm
  row "batch ... --format json" batch "$batch_dir" --hw h100-sxm --format json
  runs=$runs_saved
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
