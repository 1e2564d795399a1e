#!/usr/bin/env bash
# libFuzzer targets of the C core, built with ASan + UBSan (any report fatal):
#
#   reader    the streaming ONNX reader, chunked, then the analysis
#   request   the request JSON over fixed models
#   hardware  the hardware-profile parser, then an analysis with the profile
#   model     a request and a model together (seeds: fixtures and the
#             structural mutants of tests/fuzz/mutate_onnx.py)
#   study     study objects (batch sweep, compare, power modes) on 4 models
#   calibrate the forecast's fit: pairs of the measured fixtures, kernel
#             times and profile edits (tests/fuzz/fuzz_calibrate.c)
#   checkpoint a Hugging Face checkpoint's .safetensors headers and index
#             beside a fixed config.json, then its LLM view
#
# Every response must pass tests/response_oracle.h (valid UTF-8, a clean
# error, or finite non-negative figures).
#
#   tools/fuzz/fuzz.sh TARGET SECONDS [JOBS]   build if needed, then fuzz TARGET (or
#                                         "all", one after the other) for SECONDS
#                                         with JOBS parallel workers (default 1)
#   tools/fuzz/fuzz.sh bundle DIR              build a self-contained fuzz directory:
#                                         DIR/run.sh TARGET SECONDS [JOBS] runs it
#                                         on another machine (no checkout needed)
#
# The bundle ($FUZZ_BUILD, default build-fuzz) holds the fuzzers (libFuzzer,
# ASan, UBSan and protobuf-c linked statically; the other shared libraries
# they need copied into lib/ beside them), the fixture models and profiles the
# targets read (src/), the seed corpora (corpus/<target>, grown by the runs),
# the regression inputs, and run.sh. Crashes, timeouts (an input taking more
# than 10 s is a hang) and OOMs land in crashes/<target>/; copy one into
# tests/fuzz/regressions/<target>/ once it is fixed: ctest replays that folder
# in every build. FUZZ_KEEP_GOING=1 keeps fuzzing after a crash.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"
TARGETS_ALL=(reader request hardware model study calibrate checkpoint)
usage() { sed -n '18,24p' "$0" >&2; exit 2; }
[[ $# -ge 2 ]] || usage

CC=clang
command -v "$CC" >/dev/null || { echo "fuzz.sh needs clang (apt-get install clang libclang-rt-dev)"; exit 2; }

build_bundle() {
  local out="$1" B="$1/build"
  mkdir -p "$out/lib" "$out/bin" "$B"
  out="$(cd "$out" && pwd)"
  B="$out/build"
  local SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
  echo "== building the fuzzers into $out"
  cmake -S "$ROOT" -B "$B" -DCMAKE_C_COMPILER="$CC" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link $SAN" \
    -DROOFLENS_BUILD_CLI=OFF -DROOFLENS_BUILD_TESTS=OFF >/dev/null
  cmake --build "$B" --target rooflens_core -j"${BUILD_JOBS:-2}" >/dev/null
  # protobuf-c statically when its archive is installed; cJSON (Debian ships
  # no archive) and the C++ runtime libFuzzer needs are copied into lib/
  local pbc="-lprotobuf-c"
  for a in /usr/lib/*/libprotobuf-c.a /usr/lib/libprotobuf-c.a; do [[ -f $a ]] && pbc="$a" && break; done
  for t in "${TARGETS_ALL[@]}"; do
    "$CC" -g -O1 -fsanitize=fuzzer $SAN -DROOFLENS_SOURCE_DIR="\"$ROOT\"" \
      -Icore/include -Icore/src -I"$B/gen" tests/fuzz/fuzz_"$t".c "$B/librooflens_core.a" \
      -lcjson "$pbc" -lm -Wl,-rpath,'$ORIGIN/../lib' -o "$out/bin/fuzz_$t"
  done
  ldd "$out"/bin/fuzz_* | awk '$3 ~ /^\// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so' | while read -r lib; do
      # rebuilt into a bundle, ldd finds the bundle's own copy (the rpath): keep it
      [[ "$(readlink -f "$lib")" == "$(readlink -f "$out/lib")/"* ]] || cp -L "$lib" "$out/lib/"
    done
  # what the targets read at start (ROOFLENS_SOURCE_DIR points here in run.sh)
  mkdir -p "$out/src/tests/fixtures" "$out/src/hw" "$out/regressions"
  cp -r tests/fixtures/models tests/fixtures/measured "$out/src/tests/fixtures/"
  cp hw/*.json "$out/src/hw/"
  cp -r tests/fuzz/regressions/. "$out/regressions/"
  if [[ ! -d "$out/corpus" ]]; then
    /usr/bin/python3 tests/fuzz/make_seeds.py "$out/corpus"
  fi
  cp tools/fuzz/run.sh "$out/run.sh"
  chmod +x "$out/run.sh"
  echo "   $(ls "$out/bin" | wc -l) fuzzers, $(ls "$out/lib" | wc -l) bundled libraries; run with $out/run.sh TARGET SECONDS [JOBS]"
}

if [[ $1 == bundle ]]; then
  build_bundle "$2"
  exit 0
fi

TARGET="$1" SECS="$2" JOBS="${3:-1}"
B="${FUZZ_BUILD:-build-fuzz}"
# rebuilt when a source is newer than the fuzzers
if [[ ! -x "$B/bin/fuzz_study" ]] || [[ -n "$(find core tests/fuzz tests/response_oracle.h -newer "$B/bin/fuzz_study" -name '*.[ch]' | head -1)" ]]; then
  build_bundle "$B"
fi
if [[ $TARGET == all ]]; then
  for t in "${TARGETS_ALL[@]}"; do "$B/run.sh" "$t" "$SECS" "$JOBS"; done
else
  "$B/run.sh" "$TARGET" "$SECS" "$JOBS"
fi
