#!/usr/bin/env bash
# Installs what rooflens needs to build and test, from Debian's packages and
# npm. Idempotent: installs only what is missing. Run as root or with sudo.
#   tools/install-deps.sh          native build (C core, CLI, tests)
#   tools/install-deps.sh --web    also the WebAssembly build and browser tests
#   tools/install-deps.sh --sanitizers  also clang (ASan, UBSan, libFuzzer) and valgrind
#   tools/install-deps.sh --browsers    --web, plus Firefox ESR and WebKitGTK's WebDriver (with
#                                       a virtual X display) for tools/browsers/smoke.sh and
#                                       tools/screenshots.mjs --browser; CI needs only --web
set -euo pipefail
cd "$(dirname "$0")/.."

# git and python3-yaml: tools/ci/test-action.sh runs the GitHub Action's steps on a fixture repository
packages=(build-essential cmake pkg-config protobuf-c-compiler libprotobuf-c-dev libcjson-dev libonnx-dev python3 git python3-yaml)
if [[ "${1:-}" == "--sanitizers" ]]; then
  packages+=(clang libclang-rt-14-dev valgrind)
fi
if [[ "${1:-}" == "--web" || "${1:-}" == "--browsers" ]]; then
  packages+=(emscripten node-acorn nodejs npm chromium dpkg-dev python3-onnx python3-numpy)
fi
# WebKitWebDriver drives a real (not headless) MiniBrowser, hence the X server
# in memory; xauth is what xvfb-run needs to hand it a display.
if [[ "${1:-}" == "--browsers" ]]; then
  packages+=(firefox-esr webkit2gtk-driver xvfb xauth)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# nodejs/npm may come from elsewhere than Debian (a preinstalled Node): accept working commands
if [[ " ${missing[*]} " == *" nodejs "* ]] && command -v node >/dev/null; then missing=("${missing[@]/nodejs}"); fi
if [[ " ${missing[*]} " == *" npm "* ]] && command -v npm >/dev/null; then missing=("${missing[@]/npm}"); fi
read -r -a missing <<< "${missing[*]}"

if ((${#missing[@]})); then
  echo "[deps] installing: ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "[deps] ERROR: need root (or sudo) to apt-get install ${missing[*]}" >&2; exit 1; }
    sudo_cmd=(sudo)
  fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Whether node_modules holds what package-lock.json pins: every package the
# lock names (bar the optional ones another platform needs) at the lock's
# version, as npm's record of the installed tree (node_modules/.package-lock.json)
# lists it. A file's date says nothing about this: a checkout or a rebase
# makes the lock newer without changing a version.
npm_tree_matches_lock() {
  [[ -f node_modules/.package-lock.json ]] || return 1
  node -e '
    const fs = require("fs");
    const want = JSON.parse(fs.readFileSync("package-lock.json", "utf8")).packages || {};
    const have = JSON.parse(fs.readFileSync("node_modules/.package-lock.json", "utf8")).packages || {};
    const off = Object.entries(want).filter(([path, p]) => path && (have[path] ? have[path].version !== p.version : !p.optional));
    for (const [path, p] of off.slice(0, 5)) console.error(`[deps] ${path}: ${have[path] ? have[path].version : "missing"}, the lock pins ${p.version}`);
    process.exit(off.length ? 1 : 0);'
}

if [[ ( "${1:-}" == "--web" || "${1:-}" == "--browsers" ) && -f package.json ]]; then
  if [[ -L node_modules ]]; then
    # Another checkout's modules (a worktree shares them by a link): npm ci
    # here would empty that checkout's folder, so this one never installs.
    owner="$(readlink -f node_modules)"
    [[ -d "$owner" ]] || { echo "[deps] ERROR: node_modules links to $owner, which does not exist" >&2; exit 1; }
    npm_tree_matches_lock || echo "[deps] warning: node_modules links to $owner, which does not match this" \
      "checkout's package-lock.json; run tools/install-deps.sh --web in the checkout that owns it" >&2
  elif ! npm_tree_matches_lock; then
    echo "[deps] npm ci"
    npm ci --no-audit --no-fund --loglevel=error
  fi
fi
echo "[deps] ready"
