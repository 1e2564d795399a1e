#!/usr/bin/env bash
# Validates rooflens's speed-of-light predictions on this machine's CPU with
# real measurements: ONNX Runtime (CPU, one intra-op thread) profiles the
# project's own models, each at batch 1 and 8 with graph optimisations off
# and on; rooflens analyses each against a profile `rooflens calibrate`
# measured here, with the profile attached (--measured), and
# tools/validate/cpu_report.py writes the tables of docs/validation.md.
#
#   tools/validate/cpu.sh              # everything (10-30 minutes on 2 busy cores)
#   tools/validate/cpu.sh --fixtures   # only re-record tests/fixtures/measured/ort_*.json
#
# Environment: ROOFLENS_VALIDATE_DIR (scratch folder, default
# build/validate-cpu), RUNS (runs per profile, the first is the warm-up;
# default 5), MODELS (default "resnet50 mobilenet_v3_large bert_base gpt_decoder").
#
# onnxruntime-node is installed into the scratch folder with
# `npm install --ignore-scripts` (its install script fetches GPU binaries from
# a host this machine cannot reach; the CPU library ships in the package).
# It is not a dependency of rooflens: no test needs it.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${ROOFLENS_VALIDATE_DIR:-build/validate-cpu}
RUNS=${RUNS:-5}
MODELS=${MODELS:-"resnet50 mobilenet_v3_large bert_base gpt_decoder"}
PY=/usr/bin/python3   # Debian's, with python3-onnx and python3-numpy
mkdir -p "$OUT/models" "$OUT/runs"

# the native CLI (RL) and onnxruntime-node in $OUT/ort
source tools/validate/setup.sh

profile() { # model.onnx opt runs out.json [ort-profile args...]
  local model=$1 opt=$2 runs=$3 out=$4
  shift 4
  node tools/validate/ort-profile.mjs --ort "$OUT/ort" --model "$model" --opt "$opt" --runs "$runs" --threads 1 --out "$out" "$@"
}

if [[ "${1:-}" == "--fixtures" ]]; then
  for m in small_cnn small_mlp small_gelu_first; do
    for opt in disabled all; do
      profile "tests/fixtures/measured/$m.onnx" "$opt" 3 "tests/fixtures/measured/ort_${m}_$opt.json"
    done
  done
  exit 0
fi

echo "== models with weights into $OUT/models"
for m in $MODELS; do
  f="$OUT/models/$m.onnx"
  [[ -f "$f" ]] && continue
  if [[ "$m" == gpt_decoder ]]; then $PY tools/make-models/gpt_model.py "$f"
  else $PY tools/validate/fill_weights.py "tests/fixtures/models/torch/$m.onnx" "$f"; fi
done

echo "== rooflens calibrate"
$RL calibrate --runs 3 --out "$OUT/calibrated-cpu.json" 2> "$OUT/calibrate.log"
cat "$OUT/calibrate.log"
# The same profile with the last-level cache as the memory the roofline
# charges: the bound a layer whose tensors stay in cache could reach.
$PY - "$OUT/calibrated-cpu.json" "$OUT/calibrated-cpu-llc.json" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))
p["id"] = "calibrated-cpu-llc"
p["name"] += ", LLC as main memory"
if len(p["memory"]) > 1:
    p["memory"] = [p["memory"][1]]
    for m in p.get("power_modes", []):
        mem = m["overrides"].get("memory")
        if mem:
            m["overrides"]["memory"] = mem[1:2] if len(mem) > 1 else []
json.dump(p, open(sys.argv[2], "w"), indent=1)
EOF

echo "== profiles and analyses ($RUNS runs each, the first left out as the warm-up)"
for m in $MODELS; do
  for b in 1 8; do
    for opt in disabled all; do
      name="${m}_b${b}_${opt}"
      echo "-- $name"
      profile "$OUT/models/$m.onnx" "$opt" "$RUNS" "$OUT/runs/$name.profile.json" \
        --batch "$b" --dim sequence=128 --dim seq=128 > "$OUT/runs/$name.meta.json"
      for hw in calibrated-cpu calibrated-cpu-llc; do
        $RL "$OUT/models/$m.onnx" --hw "$OUT/$hw.json" --power-mode one-core --batch "$b" \
          --dim sequence=128 --dim seq=128 --measured "$OUT/runs/$name.profile.json" --format json \
          > "$OUT/runs/$name.$hw.json"
      done
    done
  done
done

echo "== report"
$PY tools/validate/cpu_report.py "$OUT" > "$OUT/report.md"
echo "tables in $OUT/report.md (docs/validation.md quotes them); data in $OUT/summary.json"
