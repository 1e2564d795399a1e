#!/usr/bin/env bash
# Runs every test of rooflens: the C core and CLI (ctest: data-driven operator
# cases, golden numbers, reader, bad inputs), the hardware-profile check, the
# same cost cases against the WebAssembly build, and
# the WebAssembly + browser tests. Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh --web

echo "== native build and tests"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
(cd build && ctest --output-on-failure)

echo "== hardware profiles"
python3 hw/check_profiles.py

if [[ -x tools/build-site.sh ]]; then
  echo "== WebAssembly build and browser tests"
  tools/build-site.sh
  echo "== the cost cases against the WebAssembly build (tests/test_cases.c built with emcc)"
  for case_file in tests/cases/*.json; do
    node --no-experimental-fetch build-wasm/wasm/test_cases.cjs "$case_file" tests/fixtures tests/hw/unit.json
  done
  npm test
fi
