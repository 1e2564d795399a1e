#!/usr/bin/env bash
# Build the site (tools/build-site.sh, which first installs what is missing
# with tools/install-deps.sh --web) and serve build/site on
# http://localhost:${PORT:-8000}/ with python3's static server. It sends the
# headers every host of the page should send (docs/guide.md, "Hosting the
# page"): no framing by other sites (the page's CSP is a meta tag, which
# cannot carry frame-ancestors).
#   tools/serve.sh            build then serve
#   tools/serve.sh --no-build serve what is already built
set -Eeuo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PORT="${PORT:-8000}"
if [ "${1:-}" != "--no-build" ]; then
    "$ROOT/tools/build-site.sh"
fi
[ -f "$ROOT/build/site/index.html" ] || { echo "build/site is missing: run tools/build-site.sh" >&2; exit 1; }
echo "rooflens: http://localhost:$PORT/"
cd "$ROOT/build/site"
exec python3 - "$PORT" <<'PY'
import http.server, sys, functools
class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      '.mjs': 'text/javascript', '.js': 'text/javascript',
                      '.wasm': 'application/wasm', '.json': 'application/json'}
    def end_headers(self):
        self.send_header('Cache-Control', 'no-cache')
        self.send_header('Content-Security-Policy', "frame-ancestors 'none'")
        self.send_header('X-Frame-Options', 'DENY')
        self.send_header('X-Content-Type-Options', 'nosniff')
        self.send_header('Referrer-Policy', 'no-referrer')
        super().end_headers()
http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), Handler).serve_forever()
PY
