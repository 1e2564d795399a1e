#!/usr/bin/env bash
# Build the static rooflens web site into build/site/ (or $1):
#   1. the WASM dependencies (wasm/build-deps.sh -> build/wasm-deps),
#   2. the WASM module with emcmake into build-wasm/ (rooflens.mjs/.wasm for the
#      worker, rooflens-node.mjs/.wasm for the Node tests),
#   3. the npm front-end dependencies (npm ci when node_modules is missing),
#   4. the site: web/ + wasm/ + vendor/chart.umd.js + hw/ (+ hw/index.json)
#      + samples/ (example models + samples/index.json).
# The output is self-contained: serve it as static files (GitHub Pages, or
# tools/serve.sh). Nothing is fetched from a CDN at run time.
set -Eeuo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SITE="${1:-$ROOT/build/site}"
WASM_BUILD="$ROOT/build-wasm"
DEPS="$ROOT/build/wasm-deps"
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"   # Debian emcc needs acorn

log() { printf '[build-site] %s\n' "$*"; }
die() { printf '[build-site] ERROR: %s\n' "$*" >&2; exit 1; }
trap 'die "command failed at line $LINENO: $BASH_COMMAND"' ERR

command -v node >/dev/null || die "node not found (apt-get install nodejs npm)"

# 1. dependencies compiled with emcc
"$ROOT/wasm/build-deps.sh" "$DEPS" | sed -n '$p'
command -v emcmake >/dev/null || die "emcmake not found (apt-get install emscripten)"

# 2. the WASM module
if [ ! -f "$WASM_BUILD/CMakeCache.txt" ]; then
    log "configure: emcmake cmake -S . -B build-wasm"
    emcmake cmake -S "$ROOT" -B "$WASM_BUILD" -DCMAKE_BUILD_TYPE=Release -DROOFLENS_DEPS_PREFIX="$DEPS" >/dev/null
fi
log "build: cmake --build build-wasm"
cmake --build "$WASM_BUILD" -j"$(nproc 2>/dev/null || echo 2)" | grep -E 'error|warning|Linking' || true
for f in rooflens.mjs rooflens.wasm rooflens-node.mjs rooflens-node.wasm; do
    [ -f "$WASM_BUILD/wasm/$f" ] || die "missing $WASM_BUILD/wasm/$f"
done

# 3. front-end dependencies from npm
CHART="$ROOT/node_modules/chart.js/dist/chart.umd.js"
if [ ! -f "$CHART" ]; then
    log "npm ci"
    (cd "$ROOT" && npm ci --no-audit --no-fund)
fi
[ -f "$CHART" ] || die "chart.js not installed ($CHART missing)"

# 4. the site
log "site: $SITE"
rm -rf "$SITE"
mkdir -p "$SITE"
cp -R "$ROOT/web/." "$SITE/"
rm -rf "$SITE/wasm" "$SITE/vendor" "$SITE/samples" "$SITE/hw"   # generated below
mkdir -p "$SITE/wasm" "$SITE/vendor" "$SITE/samples" "$SITE/hw"
cp "$WASM_BUILD/wasm/rooflens.mjs" "$WASM_BUILD/wasm/rooflens.wasm" "$SITE/wasm/"
cp "$CHART" "$SITE/vendor/chart.umd.js"
cp "$ROOT/node_modules/chart.js/LICENSE.md" "$SITE/vendor/chart.js-LICENSE.md"

# hardware profiles and their index (hw/schema.json is not a profile)
node - "$ROOT/hw" "$SITE/hw" <<'JS'
const fs = require('fs'), path = require('path');
const [src, dst] = process.argv.slice(2);
const profiles = [];
for (const f of fs.readdirSync(src).filter((f) => f.endsWith('.json') && f !== 'schema.json').sort()) {
  const p = JSON.parse(fs.readFileSync(path.join(src, f), 'utf8'));
  if (!p.id || !p.name) continue;
  if (`${p.id}.json` !== f) throw new Error(`${f}: id '${p.id}' does not match the file name`);
  fs.writeFileSync(path.join(dst, f), JSON.stringify(p));
  profiles.push({ id: p.id, name: p.name, vendor: p.vendor || '', category: p.category || 'other',
    power_modes: (p.power_modes || []).map((m) => ({ id: m.id, name: m.name || m.id, default: !!m.default })) });
}
fs.writeFileSync(path.join(dst, 'index.json'), JSON.stringify({ schema: 1, profiles }));
console.log(`[build-site] hw: ${profiles.length} profiles`);
JS

# example models. ResNet-50 and a BERT-base encoder are generated here with
# their weights referenced as external data that is not written: the .onnx
# files hold the whole graph in a few tens of KB, and rooflens analyzes a
# model from its .onnx file alone.
SAMPLES_SRC="$ROOT/build/samples"
mkdir -p "$SAMPLES_SRC"
PY=/usr/bin/python3
"$PY" -c 'import onnx, numpy' 2>/dev/null || die "Debian's python3-onnx is needed for the example models (tools/install-deps.sh --web)"
if [ ! -f "$SAMPLES_SRC/resnet50.onnx" ] || [ "$ROOT/tools/make_big_model.py" -nt "$SAMPLES_SRC/resnet50.onnx" ]; then
    "$PY" "$ROOT/tools/make_big_model.py" --arch resnet50 --dynamic --external --no-data "$SAMPLES_SRC/resnet50.onnx" >/dev/null
    "$PY" "$ROOT/tools/make_big_model.py" --arch bert --dynamic --external --no-data --opset 17 \
        --layers 12 --hidden 768 --heads 12 --ff 3072 "$SAMPLES_SRC/bert_base.onnx" >/dev/null
fi
EXAMPLES=(
  "resnet50|ResNet-50|build/samples/resnet50.onnx|torchvision ResNet-50 as exported (BatchNorm folded), symbolic batch; weights stored externally"
  "bert_base|BERT-base encoder|build/samples/bert_base.onnx|12 layers, hidden 768, 12 heads, LayerNormalization (opset 17), symbolic batch and seq; weights stored externally"
  "transformer_block|Transformer block|tests/fixtures/models/transformer_block.onnx|a small BERT-style encoder block (symbolic batch and seq)"
  "conv_net|Small CNN|tests/fixtures/models/conv_net.onnx|convolutions, pooling and a classifier head"
)
{
    printf '{"examples":['
    sep=''
    for e in "${EXAMPLES[@]}"; do
        IFS='|' read -r id name file desc <<<"$e"
        cp "$ROOT/$file" "$SITE/samples/$id.onnx"
        printf '%s{"id":"%s","name":"%s","file":"%s.onnx","description":"%s"}' "$sep" "$id" "$name" "$id" "$desc"
        sep=','
    done
    printf ']}\n'
} > "$SITE/samples/index.json"

raw=$(du -sb "$SITE" | cut -f1)
gz=0
while IFS= read -r -d '' f; do gz=$((gz + $(gzip -9c "$f" | wc -c))); done < <(find "$SITE" -type f ! -path "$SITE/samples/*" -print0)
log "done: $SITE ($((raw / 1024)) KiB; $((gz / 1024)) KiB gzipped without samples)"
