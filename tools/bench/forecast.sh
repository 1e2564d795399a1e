#!/usr/bin/env bash
# What the forecast costs an analysis (issue 29's speed target: no more than
# 10% longer with it than without). tools/bench/analyze.c analyses a model N
# times in one process and prints the median per analysis; it is built twice,
# against this tree's core and against the core of the commit before the
# forecast existed (BASE, default 964e877^: no forecast computed, written or
# read from the profile), and the two run one after the other, three rounds,
# with that tree's own h100-sxm profile each; and, with valgrind, the
# instructions of one analysis, which no other process changes. A third line runs this tree
# with the profile's forecast block cut out (the forecast on the core's
# defaults): the share of reading the block. A fourth is this tree's core
# with the forecast cut out of it (a copy of the tree in which
# rl_time_and_forecast does not call rl_forecast_graph and the answer has no forecast
# section and no forecast_s, headroom or op_class column): the forecast's
# own cost, everything else alike.
#   tools/bench/forecast.sh [--runs N] [--base COMMIT] [MODEL.onnx ...]
# Without models: ResNet-50 and BERT-Large graphs (tools/make-models/big_model.py,
# no weights written).
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=300 base=964e877^ models=()
while (($#)); do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --base) base="$2"; shift 2 ;;
    *) models+=("$1"); shift ;;
  esac
done
LIBS="$(pkg-config --libs libcjson libprotobuf-c 2>/dev/null || echo -lcjson -lprotobuf-c) -lm"
B=build/bench-forecast
mkdir -p "$B"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 --target rooflens_core >/dev/null
cc -O2 -std=c11 -Icore/include tools/bench/analyze.c build/librooflens_core.a $LIBS -o "$B/now"
if [[ ! -x "$B/base" || "$(cat "$B/base.commit" 2>/dev/null)" != "$base" ]]; then
  rm -rf "$B/base-src" "$B/base-build"
  mkdir -p "$B/base-src"
  git archive "$base" | tar -x -C "$B/base-src"
  cmake -S "$B/base-src" -B "$B/base-build" -DCMAKE_BUILD_TYPE=Release -DROOFLENS_BUILD_TESTS=OFF -DROOFLENS_BUILD_CLI=OFF >/dev/null
  cmake --build "$B/base-build" -j2 --target rooflens_core >/dev/null
  cc -O2 -std=c11 -I"$B/base-src/core/include" tools/bench/analyze.c "$B/base-build/librooflens_core.a" $LIBS -o "$B/base"
  echo "$base" >"$B/base.commit"
fi
# this tree without the forecast: each cut must match once, or the script stops
rm -rf "$B/cut-src" "$B/cut-build"
mkdir -p "$B/cut-src"
git ls-files -z | tar --null -T - -cf - | tar -x -C "$B/cut-src"
cut_line() { # cut_line FILE TEXT: the line holding TEXT removed, which must be there once
  local f="$B/cut-src/$1"
  [[ $(grep -cF -- "$2" "$f") == 1 ]] || { echo "bench-forecast: '$2' is not once in $1: update the cut" >&2; exit 1; }
  grep -vF -- "$2" "$f" >"$f.cut" && mv "$f.cut" "$f"
}
cut_line core/src/forecast.c 'rl_forecast_graph(c, pg, o, hw, lt, out);'
cut_line core/src/analyze.c 'add_forecast_section(root, &t, &hw);'
cut_line core/src/analyze_layers.c 'rl_layer_num(w, "forecast_s", L->forecast_s);'
cut_line core/src/analyze_layers.c 'rl_layer_num(w, "headroom", L->t > 0 ? L->forecast_s / L->t : NAN);'
cut_line core/src/analyze_layers.c 'rl_layer_str(w, "op_class", rl_value_id(RL_LIST_OP_CLASS, L->op_class));'
cmake -S "$B/cut-src" -B "$B/cut-build" -DCMAKE_BUILD_TYPE=Release -DROOFLENS_BUILD_TESTS=OFF -DROOFLENS_BUILD_CLI=OFF >/dev/null
cmake --build "$B/cut-build" -j2 --target rooflens_core 2>&1 | grep -E '\berror\b' || true
cc -O2 -std=c11 -Icore/include tools/bench/analyze.c "$B/cut-build/librooflens_core.a" $LIBS -o "$B/cut"
if ((${#models[@]} == 0)); then
  mkdir -p build/models
  [[ -f build/models/resnet50_graph.onnx ]] ||
    /usr/bin/python3 tools/make-models/big_model.py --arch resnet50 --external --no-data build/models/resnet50_graph.onnx >/dev/null
  [[ -f build/models/bert_large_graph.onnx ]] ||
    /usr/bin/python3 tools/make-models/big_model.py --external --no-data build/models/bert_large_graph.onnx >/dev/null
  models=(build/models/resnet50_graph.onnx build/models/bert_large_graph.onnx)
fi
median() { sed -E 's/^median ([0-9.]+) ms.*/\1/'; }
# instructions of one analysis (valgrind's count, the same under any load):
# 20 analyses less 10, over 10, so that reading the model drops out
instr() {
  local a b
  a=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" --runs 20 2>&1 | awk '/Collected/ { print $NF }')
  b=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" --runs 10 2>&1 | awk '/Collected/ { print $NF }')
  echo $(((a - b) / 10))
}
echo "base $(git rev-parse --short "$base") (before the forecast) against this tree; $runs analyses per line, load $(cut -d' ' -f1-3 /proc/loadavg)"
for m in "${models[@]}"; do
  if command -v valgrind >/dev/null; then
    b=$(instr "$B/base" "$m" "$B/base-src/hw/h100-sxm.json")
    n=$(instr "$B/now" "$m" hw/h100-sxm.json)
    nb=$(instr "$B/now" "$m" hw/h100-sxm.json --no-forecast-block)
    c=$(instr "$B/cut" "$m" hw/h100-sxm.json)
    awk -v m="$(basename "$m")" -v b="$b" -v n="$n" -v nb="$nb" -v c="$c" 'BEGIN {
      printf "%-24s instructions per analysis: before the forecast %.3f M, with it %.3f M (%+.1f%%); without the profile'"'"'s block %.3f M\n", m, b / 1e6, n / 1e6, 100 * (n / b - 1), nb / 1e6
      printf "%-24s this tree with the forecast cut out %.3f M: the forecast adds %+.1f%%\n", m, c / 1e6, 100 * (n / c - 1) }'
  fi
  for round in 1 2 3; do
    b=$("$B/base" "$m" "$B/base-src/hw/h100-sxm.json" --runs "$runs" | median)
    n=$("$B/now" "$m" hw/h100-sxm.json --runs "$runs" | median)
    nb=$("$B/now" "$m" hw/h100-sxm.json --runs "$runs" --no-forecast-block | median)
    c=$("$B/cut" "$m" hw/h100-sxm.json --runs "$runs" | median)
    awk -v m="$(basename "$m")" -v r="$round" -v b="$b" -v n="$n" -v nb="$nb" -v c="$c" 'BEGIN {
      printf "%-24s round %d: before the forecast %.3f ms, with it %.3f ms (%+.1f%%); without the profile'"'"'s block %.3f ms; forecast cut out %.3f ms (with it %+.1f%%)\n", m, r, b, n, 100 * (n / b - 1), nb, c, 100 * (n / c - 1) }'
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
