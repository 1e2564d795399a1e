#!/usr/bin/env bash
# Checks the README's first command on its own: runs tools/serve.sh exactly as
# a newcomer would (it installs what is missing, builds the site and serves
# it), waits until it serves, fetches the page and what it loads first, and
# stops the server. .ci/run calls it on a fresh clone before anything else is
# built, so it also proves that serve.sh needs nothing done before it.
#   tools/check-serve.sh    (PORT defaults to a free port; the build may take
#                            several minutes on a fresh machine)
# The installer prints "[deps] ready"; its absence from the log means
# serve.sh or build-site.sh stopped calling it, which fails the check even on
# a machine that already has every package.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PORT="${PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')}"
LOG="$(mktemp)"
fail() { echo "[check-serve] FAIL: $*" >&2; echo "--- serve.sh log:" >&2; tail -40 "$LOG" >&2; exit 1; }

PORT="$PORT" setsid "$ROOT/tools/serve.sh" >"$LOG" 2>&1 &
pid=$!
stop() { kill -TERM -- "-$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -f "$LOG"; }
trap stop EXIT

deadline=$((SECONDS + 1200))   # a fresh machine installs Emscripten and Chromium first
until grep -q "^rooflens: http://localhost:$PORT/" "$LOG"; do
    kill -0 "$pid" 2>/dev/null || fail "tools/serve.sh exited before serving"
    ((SECONDS < deadline)) || fail "tools/serve.sh did not serve within 20 minutes"
    sleep 1
done
deps_line=$(grep -n '^\[deps\] ready' "$LOG" | head -1 | cut -d: -f1 || true)
site_line=$(grep -n '^\[build-site\] done' "$LOG" | head -1 | cut -d: -f1 || true)
[[ -n "$deps_line" ]] || fail "serve.sh did not run tools/install-deps.sh (no '[deps] ready' in its output)"
[[ -n "$site_line" ]] || fail "serve.sh did not build the site (no '[build-site] done')"
((deps_line < site_line)) || fail "the installer ran after the site was built"

python3 - "$PORT" <<'PY' || fail "the page is not served whole"
import sys, time, urllib.request
port = sys.argv[1]
paths = ['/', '/js/main.js', '/js/worker.js', '/wasm/rooflens.mjs', '/wasm/rooflens.wasm',
         '/hw/index.json', '/samples/index.json', '/samples/resnet50.onnx']
for attempt in range(50):
    try:
        urllib.request.urlopen(f'http://127.0.0.1:{port}/', timeout=5).read()
        break
    except OSError:
        time.sleep(0.2)
for p in paths:
    with urllib.request.urlopen(f'http://127.0.0.1:{port}{p}', timeout=10) as r:
        body = r.read()
        assert r.status == 200 and len(body) > 0, p
        if p == '/':
            assert b'js/main.js' in body, 'index.html does not load js/main.js'
print(f'[check-serve] served {len(paths)} paths on port {port}')
PY
echo "[check-serve] ok: tools/serve.sh installed what it needed, built the site and served it"
