#!/usr/bin/env bash
# Validates the forecast on this machine's CPU against ONNX Runtime
# (onnxruntime-node, one intra-op thread), with graph optimisations on and
# off: `rooflens calibrate` measures the machine, ORT profiles every model
# RUNS times (the models in turn, one run each a round, so that a slow
# minute of the shared machine slows them all alike), the forecast is fitted on two models (FIT) and then forecasts
# every other model, which the fit never saw. The analytic forecast (the
# calibrated ceilings with the profile's default parameters) is reported
# beside it. tools/validate_forecast_report.py writes the tables of
# docs/validation.md ("The forecast on this CPU").
#
#   tools/validate-forecast.sh        (a few minutes on a quiet machine, more on a busy one)
#   REUSE=DIR tools/validate-forecast.sh   (about 2 minutes: DIR's models and
#       ORT profiles, measured before, are reused; the machine is calibrated
#       anew unless the scratch folder already holds calibrated-cpu.json)
#
# Environment: ROOFLENS_VALIDATE_DIR (scratch folder, default
# build/validate-forecast), RUNS (runs per profile, the first is the warm-up;
# default 16), FIT (default "mobilenet_v3_large bert_base": a depthwise CNN and
# a transformer encoder, so the fit sees every op class; docs/validation.md
# says why), MODELS (the held-out ones), REUSE (a scratch folder of an
# earlier run whose models/, ort/ and runs/*.profile.json and *.meta.json are
# reused instead of measured again).
# Needs Debian's python3-torch and python3-torchvision to export the
# torchvision models (installed here when missing), and onnxruntime-node,
# installed into the scratch folder with `npm install --ignore-scripts` (its
# install script fetches GPU binaries from a host this machine cannot reach;
# the CPU library ships in the package). Neither is a dependency of rooflens.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${ROOFLENS_VALIDATE_DIR:-build/validate-forecast}
RUNS=${RUNS:-16}
FIT=${FIT:-"mobilenet_v3_large bert_base"}
MODELS=${MODELS:-"resnet50 efficientnet_b0 convnext_tiny vit_b_16 gpt_decoder resnet18 regnet_y_400mf shufflenet_v2_x1_0 squeezenet1_1"}
PY=/usr/bin/python3   # Debian's, with python3-onnx, python3-numpy, python3-torch
DIMS=(--dim sequence=128 --dim seq=128)
mkdir -p "$OUT/models" "$OUT/runs"

if [[ -n "${REUSE:-}" ]]; then
  echo "== reusing the models and ORT profiles of $REUSE"
  [[ -d "$REUSE/runs" && -d "$REUSE/models" ]] || { echo "REUSE=$REUSE has no runs/ and models/" >&2; exit 1; }
  for f in "$REUSE"/models/*.onnx; do [[ -e "$OUT/models/$(basename "$f")" ]] || ln -s "$(readlink -f "$f")" "$OUT/models/"; done
  [[ -e "$OUT/ort" || ! -e "$REUSE/ort" ]] || ln -s "$(readlink -f "$REUSE/ort")" "$OUT/ort"
  for f in "$REUSE"/runs/*.profile.json "$REUSE"/runs/*.meta.json; do
    [[ -e "$OUT/runs/$(basename "$f")" ]] || cp "$f" "$OUT/runs/"
  done
fi

# the native CLI (RL) and onnxruntime-node in $OUT/ort
source tools/validate-setup.sh

echo "== models with weights into $OUT/models"
for m in $FIT $MODELS; do
  f="$OUT/models/$m.onnx"
  [[ -f "$f" ]] && continue
  case "$m" in
    gpt_decoder) $PY tools/make_gpt_model.py "$f" ;;
    bert_base) $PY tools/fill_weights.py "tests/fixtures/models/torch/$m.onnx" "$f" ;;
    *)
      if ! $PY -c 'import torchvision' 2>/dev/null; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-torch python3-torchvision >/dev/null
      fi
      $PY tools/export_torch_models.py --out "$OUT/models" --opset 17 --dynamic "$m" ;;
  esac
done

echo "== rooflens calibrate"
[[ -f "$OUT/calibrated-cpu.json" ]] || $RL calibrate --out "$OUT/calibrated-cpu.json" 2> "$OUT/calibrate.log"
cat "$OUT/calibrate.log"

echo "== ORT profiles ($RUNS runs each, the first left out as the warm-up; every model in turn, one run each a round)"
jobs=()
for m in $FIT $MODELS; do
  for opt in disabled all; do
    name="${m}_${opt}"
    [[ -f "$OUT/runs/$name.profile.json" ]] && continue
    jobs+=(--job "$OUT/models/$m.onnx,$opt,$OUT/runs/$name.profile.json,$OUT/runs/$name.meta.json")
  done
done
if ((${#jobs[@]})); then
  node tools/ort-profile.mjs --ort "$OUT/ort" --runs "$RUNS" --threads 1 --batch 1 "${DIMS[@]}" "${jobs[@]}"
fi

echo "== fit on: $FIT (one fit per ORT setup: optimisations on and off are two stacks)"
for opt in disabled all; do
  from=()
  for m in $FIT; do from+=(--from "$OUT/models/$m.onnx=$OUT/runs/${m}_${opt}.profile.json"); done
  /usr/bin/time -f "fit wall %e s, peak %M KB" $RL calibrate --profile "$OUT/calibrated-cpu.json" \
    --out "$OUT/fitted-$opt.json" --power-mode one-core --stack "ONNX Runtime CPU, 1 thread, graph optimisations $opt" \
    "${DIMS[@]}" "${from[@]}" 2> "$OUT/fit-$opt.log" || { cat "$OUT/fit-$opt.log"; exit 1; }
  cat "$OUT/fit-$opt.log"
done

echo "== forecasts"
for m in $FIT $MODELS; do
  for opt in disabled all; do
    name="${m}_${opt}"
    for hw in calibrated-cpu "fitted-$opt"; do
      $RL "$OUT/models/$m.onnx" --hw "$OUT/$hw.json" --power-mode one-core --batch 1 "${DIMS[@]}" \
        --measured "$OUT/runs/$name.profile.json" --format json > "$OUT/runs/$name.${hw%-"$opt"}.json"
    done
  done
done

echo "== report"
$PY tools/validate_forecast_report.py "$OUT" --fit "$FIT" > "$OUT/report.md"
cat "$OUT/report.md"
