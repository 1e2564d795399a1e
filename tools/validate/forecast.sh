#!/usr/bin/env bash
# Validates the fitted forecast on this machine's CPU against ONNX Runtime
# (onnxruntime-node, one intra-op thread), with graph optimisations on and
# off, in a way no single split can flatter: the forecast is fitted on
# EVERY PAIR of a pool of models (CNNs and transformers), and each fit
# forecasts every other model, which it never saw. `rooflens calibrate`
# measures the machine; ORT profiles every model RUNS times (the models in
# turn, one run each a round, so that a slow minute of the shared machine
# slows them all alike). A model's measured time is the fastest of those
# runs, kernel by kernel (tools/validate/ort_fastest.py: each kernel's fastest time
# plus the least time between kernels; the machine is shared, and a slower
# run holds the other work's time slices, not the model's); the fastest
# whole run is reported beside it. The fits read the same cut-down
# profiles. tools/validate/forecast_report.py prints,
# per setup, the median over pairs of each pair's median error, the 90th
# percentile of all held-out errors and the worst, with the CPU, its ISA and
# the load; docs/validation.md ("The forecast on this CPU, every pair")
# keeps every run's figures. tools/validate/floor_check.py then checks that
# no floor lies above a measured time and no forecast or band below its
# floor.
#
#   tools/validate/forecast.sh        (15-40 minutes on 2 busy cores)
#   REUSE=DIR tools/validate/forecast.sh   (a few minutes: DIR's models and
#       ORT profiles, measured before, are reused; the machine is calibrated
#       anew unless the scratch folder already holds calibrated-cpu.json)
#
# Environment: ROOFLENS_VALIDATE_DIR (scratch folder, default
# build/validate-forecast), RUNS (runs per profile, the first is the warm-up;
# default 12), POOL (the models fitted on, every pair of them; default
# "resnet18 mobilenet_v3_large bert_base gpt_decoder": a dense CNN, a
# depthwise CNN, a transformer encoder and a GPT-2-small decoder), MODELS
# (the models only ever held out), REUSE (a scratch folder of an earlier run
# whose models/, ort/ and runs/*.profile.json and *.meta.json are reused
# instead of measured again). A model that cannot be exported here is left
# out and said so.
# Needs Debian's python3-torch and python3-torchvision to export the
# torchvision models (installed here when missing), and onnxruntime-node,
# installed into the scratch folder with `npm install --ignore-scripts` (its
# install script fetches GPU binaries from a host this machine cannot reach;
# the CPU library ships in the package). Neither is a dependency of rooflens.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${ROOFLENS_VALIDATE_DIR:-build/validate-forecast}
RUNS=${RUNS:-12}
POOL=${POOL:-"resnet18 mobilenet_v3_large bert_base gpt_decoder"}
# a wider calibration, as a user with more models would fit: ten models of
# every class (depthwise, grouped, dense convolutions, ViT, Swin, BERT, a
# decoder), each held out by a fit of the other nine, then the fit on all ten
# forecasting the models it never saw
WIDE=${WIDE:-"resnet18 mobilenet_v3_large bert_base gpt_decoder resnet50 mobilenet_v2 vit_b_16 swin_t convnext_tiny efficientnet_b0"}
MODELS=${MODELS:-"resnet50 efficientnet_b0 regnet_y_400mf shufflenet_v2_x1_0 squeezenet1_1 convnext_tiny densenet121 vit_b_16 swin_t mobilenet_v2 mnasnet1_0 resnext50_32x4d regnet_x_400mf googlenet regnet_y_800mf regnet_x_1_6gf mobilenet_v3_small efficientnet_b1 wide_resnet50_2"}
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
  [[ -e "$OUT/calibrated-cpu.json" || ! -e "$REUSE/calibrated-cpu.json" ]] || cp "$REUSE"/calibrated-cpu.json "$REUSE"/calibrate.log "$OUT/"
fi

# the native CLI (RL) and onnxruntime-node in $OUT/ort
source tools/validate/setup.sh

echo "== models with weights into $OUT/models"
ALL=()
for m in $POOL $MODELS; do
  f="$OUT/models/$m.onnx"
  if [[ ! -f "$f" ]]; then
    case "$m" in
      gpt_decoder) $PY tools/make-models/gpt_model.py "$f" ;;
      bert_base) $PY tools/validate/fill_weights.py "tests/fixtures/models/torch/$m.onnx" "$f" ;;
      *)
        if ! $PY -c 'import torchvision' 2>/dev/null; then
          DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-torch python3-torchvision >/dev/null
        fi
        $PY tools/make-models/torch_models.py --out "$OUT/models" --opset 17 --dynamic "$m" ||
          echo "   $m: the exporter failed here; left out" ;;
    esac
  fi
  [[ -f "$f" ]] && ALL+=("$m")
done
for m in $POOL; do [[ -f "$OUT/models/$m.onnx" ]] || { echo "the pool's $m is missing" >&2; exit 1; }; done
# the probe model (rooflens calibrate --write-probes: six dense products in
# one graph), measured with the models so that the same minutes time both
[[ -f "$OUT/models/probes.onnx" ]] || $RL calibrate --write-probes "$OUT/models/probes.onnx" 2> /dev/null

echo "== rooflens calibrate"
[[ -f "$OUT/calibrated-cpu.json" ]] || $RL calibrate --out "$OUT/calibrated-cpu.json" 2> "$OUT/calibrate.log"
cat "$OUT/calibrate.log"

echo "== ORT profiles ($RUNS runs each, the first left out as the warm-up; every model in turn, one run each a round)"
jobs=()
for m in "${ALL[@]}" probes; do
  for opt in disabled all; do
    name="${m}_${opt}"
    [[ -f "$OUT/runs/$name.profile.json" ]] && continue
    jobs+=(--job "$OUT/models/$m.onnx,$opt,$OUT/runs/$name.profile.json,$OUT/runs/$name.meta.json")
  done
done
if ((${#jobs[@]})); then
  node tools/validate/ort-profile.mjs --ort "$OUT/ort" --runs "$RUNS" --threads 1 --batch 1 "${DIMS[@]}" "${jobs[@]}"
fi

echo "== each profile cut to its fastest run, kernel by kernel (tools/validate/ort_fastest.py)"
for m in "${ALL[@]}" probes; do
  for opt in disabled all; do
    $PY tools/validate/ort_fastest.py "$OUT/runs/${m}_$opt.profile.json" "$OUT/runs/${m}_$opt.fastest.json"
  done
done

# fit: rooflens calibrate --from each model of $1 (space-separated) for
# setup $2 into $3 (its log beside it); $4 "probes": with the probe models
# too (--probe: they set only the classes the models have no kernel of)
fit() {
  local from=() m
  for m in $1; do from+=(--from "$OUT/models/$m.onnx=$OUT/runs/${m}_$2.fastest.json"); done
  [[ "${4:-}" == probes ]] && from+=(--probe "$OUT/models/probes.onnx=$OUT/runs/probes_$2.fastest.json")
  /usr/bin/time -f "fit wall %e s, peak %M KB" $RL calibrate --profile "$OUT/calibrated-cpu.json" \
    --out "$3" --power-mode one-core --stack "ONNX Runtime CPU, 1 thread, graph optimisations $2" \
    "${DIMS[@]}" "${from[@]}" 2> "${3%.json}.log" || { cat "${3%.json}.log"; exit 1; }
}

# forecast: every model under the fitted profile $1, JSON into folder $2
forecast_all() {
  mkdir -p "$2"
  for m in "${ALL[@]}"; do
    $RL "$OUT/models/$m.onnx" --hw "$1" --power-mode one-core --batch 1 "${DIMS[@]}" --format json > "$2/$m.json"
  done
}

read -r -a pool <<< "$POOL"
echo "== fits on every pair of: $POOL (each ORT setup a stack of its own), each forecasting every model"
for opt in disabled all; do
  mkdir -p "$OUT/fits/$opt"
  for ((i = 0; i < ${#pool[@]}; i++)); do
    for ((j = i + 1; j < ${#pool[@]}; j++)); do
      pair="${pool[i]}+${pool[j]}"
      fit "${pool[i]} ${pool[j]}" "$opt" "$OUT/fits/$opt/$pair.json"
      grep -E "^  error per kernel|^  fitted:|^  left at" "$OUT/fits/$opt/$pair.log" | sed "s/^/   $opt $pair:/"
      forecast_all "$OUT/fits/$opt/$pair.json" "$OUT/fits/$opt/$pair"
    done
  done
  # the same pairs with the probe models: every class has kernels of its own
  mkdir -p "$OUT/fits/$opt+probes"
  for ((i = 0; i < ${#pool[@]}; i++)); do
    for ((j = i + 1; j < ${#pool[@]}; j++)); do
      pair="${pool[i]}+${pool[j]}"
      fit "${pool[i]} ${pool[j]}" "$opt" "$OUT/fits/$opt+probes/$pair.json" probes
      grep -E "^  fitted on the probes" "$OUT/fits/$opt+probes/$pair.log" | sed "s/^/   $opt $pair + probes:/" || true
      forecast_all "$OUT/fits/$opt+probes/$pair.json" "$OUT/fits/$opt+probes/$pair"
    done
  done
  # the whole pool: its band (leave-one-model-out), checked on the models it never saw
  fit "$POOL" "$opt" "$OUT/fits/$opt/pool.json"
  cat "$OUT/fits/$opt/pool.log"
  forecast_all "$OUT/fits/$opt/pool.json" "$OUT/fits/$opt/pool"
  # the wide pool: the same, over ten models
  fit "$WIDE" "$opt" "$OUT/fits/$opt/wide.json"
  cat "$OUT/fits/$opt/wide.log"
  forecast_all "$OUT/fits/$opt/wide.json" "$OUT/fits/$opt/wide"
done
echo "== the analytic forecast (the calibrated ceilings, the profile's default parameters)"
forecast_all "$OUT/calibrated-cpu.json" "$OUT/analytic"

echo "== report"
$PY tools/validate/forecast_report.py "$OUT" --pool "$POOL" --wide "$WIDE" > "$OUT/report.md"
cat "$OUT/report.md"

echo "== every fitted forecast against its floor and the measured time (tools/validate/floor_check.py)"
$PY tools/validate/floor_check.py "$OUT"
