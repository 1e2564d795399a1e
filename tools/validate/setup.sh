# Sourced by tools/validate/cpu.sh and tools/validate/forecast.sh: what both
# validations need before they measure. Builds the native CLI (sets RL) and
# installs onnxruntime-node into $OUT/ort with `npm install --ignore-scripts`
# (its install script fetches GPU binaries from a host this machine cannot
# reach; the CPU library ships in the package). Neither is a dependency of
# rooflens. Expects OUT to be set and the repository root as the folder.

echo "== rooflens (native)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 --target rooflens >/dev/null
RL=build/rooflens

echo "== onnxruntime-node into $OUT/ort"
if [[ ! -d "$OUT/ort/node_modules/onnxruntime-node" ]]; then
  mkdir -p "$OUT/ort"
  [[ -f "$OUT/ort/package.json" ]] || echo '{"private": true}' > "$OUT/ort/package.json"
  (cd "$OUT/ort" && npm install --ignore-scripts --no-audit --no-fund onnxruntime-node >/dev/null)
fi
