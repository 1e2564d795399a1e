#!/usr/bin/env bash
# Compares every top-level shape rooflens infers with onnx.shape_inference's on
# the torch exports of tools/make-models/torch_models.py (build/models/*_ext.onnx:
# the external-data twins, so no weights are loaded), with the same comparison
# test_expected_shapes runs on the repo's own fixtures.
#   tools/validate/torch-shapes.sh [MODEL_DIR]
# Needs Debian's python3-onnx and the exported models (torch only to make them).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SRC="${1:-$ROOT/build/models}"
compgen -G "$SRC/*_ext.onnx" >/dev/null || { echo "no $SRC/*_ext.onnx: run /usr/bin/python3 tools/make-models/torch_models.py first" >&2; exit 1; }
[[ -x "$ROOT/build/tests/test_expected_shapes" ]] || cmake --build "$ROOT/build" --target test_expected_shapes >/dev/null
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/hw" "$WORK/fixtures/torch"
cp "$ROOT/tests/hw/unit.json" "$WORK/hw/"
cp "$SRC"/*_ext.onnx "$WORK/fixtures/torch/"
cp "$ROOT/tests/fixtures/expected_shapes.py" "$WORK/fixtures/"
(cd "$WORK/fixtures" && /usr/bin/python3 expected_shapes.py --models torch --out expected_shapes.json)
"$ROOT/build/tests/test_expected_shapes" "$WORK" any
