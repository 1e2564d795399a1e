#!/usr/bin/env bash
# The cross-browser smoke test in one command: installs Firefox ESR,
# WebKitGTK's WebDriver and the npm drivers (tools/install-deps.sh --browsers),
# builds the CLI and the site when they are missing, then opens an example in
# Chromium, Firefox ESR and WebKitGTK and checks the table, the summary's
# figure against the CLI's, the charts and the 390 px layout
# (tools/browsers/smoke.mjs). Not part of CI, whose browser is Chromium.
#   tools/browsers/smoke.sh [--browsers chromium,firefox,webkit] [--example resnet50] [--hw jetson-agx-orin]
set -euo pipefail
cd "$(dirname "$0")/../.."

tools/install-deps.sh --browsers
if [[ ! -x build/rooflens ]]; then
  echo "[smoke] building the CLI (build/rooflens)"
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build -j"$(nproc 2>/dev/null || echo 2)" --target rooflens >/dev/null
fi
if [[ ! -f build/site/index.html ]]; then
  echo "[smoke] building the site (tools/build-site.sh)"
  tools/build-site.sh
fi
exec node tools/browsers/smoke.mjs "$@"
