#!/usr/bin/env bash
# Measured-profile benchmark (issue 22): a trtexec profile of R
# {ForeignNode[A...B]} rows (default 3,000) over a chain of N nodes (default
# 100,000), each row naming a long range of the chain, analysed by the CLI
# with --measured. Prints the profile's size, the wall time and the peak
# memory (/usr/bin/time -v), and the same at N/10 and R/10 so the ratios show
# whether the matching grows with R × N (it must not: a range is kept as a
# range). Targets: under 1 GB peak and under 20 s.
#   tools/bench/measured.sh [N] [R]
set -euo pipefail
cd "$(dirname "$0")/../.."
N="${1:-100000}"
R="${2:-3000}"
B="${BENCH_BUILD:-build-bench}"
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DROOFLENS_BUILD_TESTS=OFF >/dev/null
cmake --build "$B" -j"$(nproc)" --target rooflens_core rooflens >/dev/null
LIBS="$(pkg-config --libs libcjson libprotobuf-c 2>/dev/null || echo -lcjson -lprotobuf-c) -lm"
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Icore/include tools/bench/scale.c "$B/librooflens_core.a" $LIBS -o "$B/bench_scale"
HW=tests/hw/unit.json

# Row i names nodes n(i*step) ... n(N-1-i*step): nested ranges, each most of
# the chain, so expanding every row node by node costs R × N.
profile() {
  awk -v n="$1" -v r="$2" 'BEGIN {
    step = int(n / (2 * r)); if (step < 1) step = 1
    printf "[{\"count\": 100}"
    for (i = 0; i < r; i++) {
      a = (i * step) % n; b = n - 1 - a
      printf ",\n{\"name\": \"{ForeignNode[n%d...n%d]}\", \"averageMs\": 0.01}", a, b
    }
    printf "]\n"
  }'
}

run() {
  local n=$1 r=$2
  local model="$B/measured_chain_$n.onnx" prof="$B/measured_fn_${n}_$r.json"
  [[ -f $model ]] || "$B/bench_scale" chain "$n" --write "$model" >/dev/null
  profile "$n" "$r" >"$prof"
  local log
  log=$( { /usr/bin/time -v "$B/rooflens" "$model" --hw "$HW" --measured "$prof" --format json >"$B/measured_out.json"; } 2>&1 )
  local wall rss
  wall=$(sed -nE 's/.*Elapsed \(wall clock\) time.*: ([0-9:.]+)/\1/p' <<<"$log")
  rss=$(sed -nE 's/.*Maximum resident set size \(kbytes\): ([0-9]+)/\1/p' <<<"$log")
  local ok
  ok=$(head -c 200 "$B/measured_out.json" | grep -o '"ok":[a-z]*' || true)
  printf "%7d nodes %5d rows  profile %6d KB  wall %8s  peak %7.1f MB  %s\n" "$n" "$r" \
    $(( $(stat -c %s "$prof") / 1024 )) "$wall" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$ok"
}

echo "== rooflens --measured, {ForeignNode[A...B]} rows over a chain ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
run $((N / 10)) "$R"
run "$N" $((R / 10))
run "$N" "$R"
