#!/usr/bin/env bash
# Builds the libFuzzer targets (reader, request, hardware) with ASan+UBSan and
# runs each for SECONDS seconds, one after the other, on one core.
#
#   tools/fuzz.sh [SECONDS-PER-TARGET] [TARGET...]     (default 60, all three)
#
# Build dir: $FUZZ_BUILD (default build-fuzz). Corpora grow in
# $FUZZ_BUILD/corpus/<target> (seeded from tests/fixtures, hw/ by
# tests/fuzz/make_seeds.py); crashes land in $FUZZ_BUILD/crashes/<target>.
# Copy a crash into tests/fuzz/regressions/<target>/ once it is fixed: ctest
# replays that folder in every build. FUZZ_KEEP_GOING=1 keeps fuzzing after a
# crash (libFuzzer's fork mode), for long unattended runs.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS="${1:-60}"
shift || true
TARGETS=("$@")
[[ ${#TARGETS[@]} -gt 0 ]] || TARGETS=(reader request hardware)
B="${FUZZ_BUILD:-build-fuzz}"
CC=clang
command -v "$CC" >/dev/null || { echo "fuzz.sh needs clang (apt-get install clang libclang-rt-dev)"; exit 2; }

SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
cmake -S . -B "$B" -DCMAKE_C_COMPILER="$CC" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link $SAN" \
  -DROOFLENS_BUILD_CLI=OFF -DROOFLENS_BUILD_TESTS=OFF >/dev/null
cmake --build "$B" --target rooflens_core -j"$(nproc)" >/dev/null

LIBS="$(pkg-config --libs libcjson libprotobuf-c 2>/dev/null || echo -lcjson -lprotobuf-c) -lm"
for t in "${TARGETS[@]}"; do
  "$CC" -g -O1 -fsanitize=fuzzer $SAN -DROOFLENS_SOURCE_DIR="\"$PWD\"" \
    -Icore/include -Icore/src -I"$B/gen" tests/fuzz/fuzz_"$t".c "$B/librooflens_core.a" $LIBS \
    -o "$B/fuzz_$t"
done

if [[ ! -d "$B/corpus" ]]; then
  /usr/bin/python3 tests/fuzz/make_seeds.py "$B/corpus"
fi

for t in "${TARGETS[@]}"; do
  mkdir -p "$B/corpus/$t" "$B/crashes/$t"
  max_len=65536
  [[ $t == reader ]] || max_len=16384
  echo "== fuzz_$t for ${SECS}s"
  # Regressions join the corpus so the fuzzer starts from past findings too.
  keep=()
  [[ "${FUZZ_KEEP_GOING:-0}" == 1 ]] && keep=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  "$B/fuzz_$t" "${keep[@]}" -max_total_time="$SECS" -max_len=$max_len -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$B/crashes/$t/" \
    "$B/corpus/$t" tests/fuzz/regressions/"$t" 2>&1 | tee "$B/fuzz_$t.log" | grep -E "^#[0-9]+ +(DONE|INITED)|ERROR|SUMMARY|stat::|Test unit written|crashes:" || true
  status=${PIPESTATUS[0]}
  echo "   corpus: $(ls "$B/corpus/$t" | wc -l) inputs; crashes: $(ls "$B/crashes/$t" | wc -l)"
  [[ $status -eq 0 ]] || { echo "fuzz_$t failed (exit $status); see $B/fuzz_$t.log"; exit 1; }
done
