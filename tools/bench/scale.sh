#!/usr/bin/env bash
# Scale benchmark: a chain and a wide fan of N tiny nodes (default 100,000),
# generated in memory by tools/bench/scale.c (tests/gen_models.h, no CLI),
# read and analysed natively with per-layer rows and without; also at N/10
# so the ratio shows whether any step grows faster than linearly (~10 is
# linear). With a Node build of the WASM core (build-wasm/wasm/rooflens-node.mjs,
# made by tools/build-site.sh), the same models through WebAssembly.
#   tools/bench/scale.sh [N]
set -euo pipefail
cd "$(dirname "$0")/../.."
N="${1:-100000}"
B="${BENCH_BUILD:-build-bench}"
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DROOFLENS_BUILD_TESTS=OFF -DROOFLENS_BUILD_CLI=OFF >/dev/null
cmake --build "$B" -j"$(nproc)" --target rooflens_core >/dev/null
LIBS="$(pkg-config --libs libcjson libprotobuf-c 2>/dev/null || echo -lcjson -lprotobuf-c) -lm"
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Icore/include tools/bench/scale.c "$B/librooflens_core.a" $LIBS -o "$B/bench_scale"

echo "== native ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
for kind in chain wide; do
  small=$("$B/bench_scale" "$kind" $((N / 10)))
  big=$("$B/bench_scale" "$kind" "$N")
  echo "$small"
  echo "$big"
  "$B/bench_scale" "$kind" "$N" --no-layers
  t_small=$(sed -E 's/.*total ([0-9.]+) s.*/\1/' <<<"$small")
  t_big=$(sed -E 's/.*total ([0-9.]+) s.*/\1/' <<<"$big")
  awk -v a="$t_small" -v b="$t_big" -v k="$kind" 'BEGIN { printf "%-5s time ratio %dx nodes: %.1f (linear: 10)\n", k, 10, b / a }'
done

# rooflens diff: the matching stays linear (a renamed chain is one stretch too
# large for the alignment table, so its layers pair in order per op type)
"$B/bench_scale" diff $((N / 10))
"$B/bench_scale" diff "$N"

NODE_WASM=build-wasm/wasm/rooflens-node.mjs
if [[ -f $NODE_WASM ]] && command -v node >/dev/null; then
  echo "== WebAssembly (Node, $NODE_WASM)"
  for kind in chain wide; do "$B/bench_scale" "$kind" "$N" --write "$B/scale_${kind}_$N.onnx"; done
  node tools/bench/scale-wasm.mjs "$B/scale_chain_$N.onnx" "$B/scale_wide_$N.onnx"
else
  echo "== WebAssembly: skipped ($NODE_WASM not built; run tools/build-site.sh)"
fi
