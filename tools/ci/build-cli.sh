#!/usr/bin/env bash
# Builds the rooflens command-line tool for the GitHub Action (action.yml)
# with the project's own scripts: tools/install-deps.sh, then cmake.
#   tools/ci/build-cli.sh DIR     build DIR/rooflens (nothing to do when DIR
#                                 holds a working one, e.g. from the cache)
#   tools/ci/build-cli.sh --key   print "key=..." for the build cache: the
#                                 runner's image and a hash of the sources
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

if [[ "${1:-}" == "--key" ]]; then
  sum=$(cd "$ROOT" && find core cli CMakeLists.txt tools/CMakeLists.txt tools/make-docs/gen_operator_doc.c tools/install-deps.sh \
          -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
  echo "key=rooflens-cli-${ImageOS:-$(uname -s)}-$(uname -m)-$sum"
  exit 0
fi

DIR="${1:?usage: build-cli.sh DIR | --key}"
# A cached binary still needs its shared libraries (libcjson, libprotobuf-c).
if [[ -x "$DIR/rooflens" ]] && ! ldd "$DIR/rooflens" 2>/dev/null | grep -q "not found" && "$DIR/rooflens" --version >/dev/null 2>&1; then
  echo "[rooflens] using the cached build: $("$DIR/rooflens" --version)"
  exit 0
fi
"$ROOT/tools/install-deps.sh"
cmake -S "$ROOT" -B "$DIR" -DCMAKE_BUILD_TYPE=Release -DROOFLENS_BUILD_TESTS=OFF >/dev/null
cmake --build "$DIR" --target rooflens -j"$(nproc 2>/dev/null || echo 2)"
"$DIR/rooflens" --version
