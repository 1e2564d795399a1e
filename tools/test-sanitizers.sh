#!/usr/bin/env bash
# Memory-safety checks of the C core and the CLI:
#  1. the whole ctest suite (operator cases, conformance over the ONNX node
#     tests, reader, malformed corpus, fuzz regressions, ...) built with
#     clang's AddressSanitizer + UndefinedBehaviorSanitizer, any report fatal;
#  2. the CLI under valgrind on every fixture model, good and malformed: no
#     invalid access, no definite or indirect leak.
#
#   tools/test-sanitizers.sh [asan|valgrind]...     (default: both)
#
# Build dirs: $ASAN_BUILD (build-asan), $VALGRIND_BUILD (build-valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh --sanitizers
STEPS=("$@")
[[ ${#STEPS[@]} -gt 0 ]] || STEPS=(asan valgrind)
JOBS="$(nproc)"

for step in "${STEPS[@]}"; do
  case "$step" in
  asan)
    B="${ASAN_BUILD:-build-asan}"
    echo "== ctest under ASan + UBSan ($B)"
    command -v clang >/dev/null || { echo "needs clang (apt-get install clang)"; exit 2; }
    cmake -S . -B "$B" -DCMAKE_C_COMPILER=clang \
      -DCMAKE_C_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -g" >/dev/null
    cmake --build "$B" -j"$JOBS" >/dev/null
    start=$SECONDS
    (cd "$B" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
       ctest --output-on-failure -j"$JOBS")
    echo "   ctest under sanitizers: $((SECONDS - start)) s"
    ;;
  valgrind)
    B="${VALGRIND_BUILD:-build-valgrind}"
    echo "== the CLI under valgrind on every fixture model ($B)"
    command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)"; exit 2; }
    cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DROOFLENS_BUILD_TESTS=OFF >/dev/null
    cmake --build "$B" -j"$JOBS" --target rooflens >/dev/null
    log="$B/valgrind"
    rm -rf "$log" && mkdir -p "$log"
    start=$SECONDS
    # Exit status 99 is valgrind's (an error or a leak); 0 and 3 (a model the
    # CLI rightly refuses) are the CLI's own.
    find tests/fixtures/models tests/fixtures/ops tests/fixtures/bad -name '*.onnx' | sort |
      xargs -P "$JOBS" -I{} sh -c '
        out="$1/$(echo "$2" | tr / _).log"
        valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
          "$3/rooflens" "$2" --hw h100-sxm --format json >/dev/null 2>"$out"
        rc=$?
        if [ $rc -eq 99 ] || [ $rc -gt 3 ]; then echo "FAIL ($rc) $2"; cat "$out"; fi
        echo "$rc $2" >> "$1/status"' _ "$log" {} "$B"
    n=$(wc -l < "$log/status")
    bad=$(awk '$1 == 99 || $1 > 3' "$log/status" | wc -l)
    refused=$(awk '$1 == 3' "$log/status" | wc -l)
    echo "   $n models under valgrind: $((n - bad)) clean ($refused refused as malformed), $bad with errors; $((SECONDS - start)) s"
    [[ $bad -eq 0 ]] || exit 1
    ;;
  *) echo "unknown step $step (asan, valgrind)"; exit 2 ;;
  esac
done
