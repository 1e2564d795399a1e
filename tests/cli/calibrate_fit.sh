#!/usr/bin/env bash
# rooflens calibrate --from: the forecast fitted to measured kernels, end to
# end. A fit onto a given profile (--profile, so no machine is measured here)
# from two models' ONNX Runtime profiles writes a profile whose forecast is
# "calibrated", names its stack and its fit; an analysis with that profile
# reports the fitted forecast, never below the floor; bad pairs are usage
# errors, and a profile of another model is refused.
#   tests/cli/calibrate_fit.sh path/to/rooflens REPO_ROOT
set -uo pipefail
CLI="$1"
ROOT="$2"
F="$ROOT/tests/fixtures/measured"
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
py() { /usr/bin/python3 -c "$@"; }

run "$TMP/out" "$TMP/err" calibrate --profile intel-xeon-8480 --out "$TMP/fit.json" --stack "ORT test stack" \
    --from "$F/small_cnn.onnx=$F/ort_small_cnn_all.json" --from "$F/small_mlp.onnx=$F/ort_small_mlp_all.json"
check "fit exits 0 ($rc)" test "$rc" -eq 0
check "fit prints each model's error" grep -qE 'small_mlp.onnx +[0-9]+ ' "$TMP/err"
check "fit says what it fitted" has "$TMP/err" "fitted: matrix.compute_fraction"
check "the profile's forecast is calibrated, on the given stack, with its fit" py "
import json, sys
f = json.load(open('$TMP/fit.json'))['forecast']
assert f['basis'] == 'calibrated' and f['stack'] == 'ORT test stack', f
assert [m['name'].rsplit('/', 1)[-1] for m in f['fit']['models']] == ['small_cnn.onnx', 'small_mlp.onnx']
assert f['fit']['kernels'] > 0 and 'kernel_overhead_s' in f['fit']['fitted']
assert f['kernel_overhead_s']['kind'] == 'measured'
"
# each class fraction the models set says how many of their kernels set it,
# in the fit, in the figure's source and on the CLI's line
check "each fitted fraction counts the kernels that set it" py "
import json, re, sys
f = json.load(open('$TMP/fit.json'))['forecast']
counts = f['fit']['kernels_setting']
fractions = [n for n in f['fit']['fitted'] if n.endswith('_fraction')]
assert fractions and sorted(counts) == sorted(fractions), (counts, fractions)
for name, n in counts.items():
    cls, side = name.split('.')
    assert 1 <= n <= f['fit']['kernels'], (name, n)
    src = f['classes'][cls][side]['source']
    assert src.endswith('; %d of those kernels set this figure' % n), src
"
check "and the CLI prints them" grep -qE 'fitted: matrix\.compute_fraction \([0-9]+\)' "$TMP/err"
run "$TMP/chk" "$TMP/err" --check-hw "$TMP/fit.json"
check "the fitted profile passes the core's check ($rc)" test "$rc" -eq 0

run "$TMP/a.json" "$TMP/err" "$F/small_mlp.onnx" --hw "$TMP/fit.json" --format json
check "an analysis with the fitted profile ($rc)" test "$rc" -eq 0
check "reports the fitted forecast, never below the floor" py "
import json
d = json.load(open('$TMP/a.json'))
f = d['forecast']
assert f['basis'] == 'calibrated' and f['stack'] == 'ORT test stack', f
assert f['time_s'] >= f['floor_s'] > 0 and f['floor_s'] == d['sol']['chosen']['time_s'], f
assert abs(sum(l['forecast_s'] for l in d['layers']) - f['time_s']) <= 1e-9 * f['time_s']
"

run "$TMP/t.txt" "$TMP/err" "$F/small_mlp.onnx" --hw "$TMP/fit.json" --measured "$F/ort_small_mlp_all.json"
check "the table states the forecast beside the floor" grep -qE '^forecast  .*x the floor .*; fitted to measured runs: ORT test stack\)' "$TMP/t.txt"
check "the layer table has a forecast column" grep -qE '^layer \(top by time\) .* time +forecast +limited by' "$TMP/t.txt"
check "--measured compares the measured time with the forecast too" grep -qE 'forecast .* \(fitted to measured runs\): measured is .*x the forecast' "$TMP/t.txt"
run "$TMP/t.csv" "$TMP/err" "$F/small_mlp.onnx" --hw "$TMP/fit.json" --format csv
check "the CSV carries each layer's forecast and op class" grep -q '^index,.*,forecast_s,op_class,' "$TMP/t.csv"

run "$TMP/out" "$TMP/err" calibrate --profile intel-xeon-8480 --from "$F/small_mlp.onnx"
check "--from without =PROFILE is a usage error ($rc)" test "$rc" -eq 2
check "and says the form" has "$TMP/err" "--from takes MODEL.onnx=PROFILE"
run "$TMP/out" "$TMP/err" calibrate --profile intel-xeon-8480
check "--profile without --from is a usage error ($rc)" test "$rc" -eq 2
run "$TMP/out" "$TMP/err" calibrate --profile intel-xeon-8480 --from "$F/small_mlp.onnx=$F/ort_small_cnn_all.json"
check "a profile of another model is refused ($rc)" test "$rc" -eq 3
check "as a bad measured profile" has "$TMP/err" "bad_measured"
run "$TMP/out" "$TMP/err" calibrate --profile intel-xeon-8480 --from "$F/small_mlp.onnx=$TMP/none.json"
check "a missing measured profile is refused ($rc)" test "$rc" -eq 3

# the probe model: written by the CLI, and as a probe it sets only the product class the models lack
run "$TMP/out" "$TMP/err" calibrate --write-probes "$TMP/probes.onnx"
check "--write-probes writes the probe model ($rc)" test "$rc" -eq 0 -a -s "$TMP/probes.onnx"
check "and says what to do with it" has "$TMP/err" "--probe $TMP/probes.onnx=PROFILE"
run "$TMP/p.json" "$TMP/err" "$TMP/probes.onnx" --hw intel-xeon-8480 --format json
check "the probe model is six products ($rc)" py "
import json
d = json.load(open('$TMP/p.json'))
assert sorted(l['op_class'] for l in d['layers']) == ['convolution'] * 3 + ['matrix'] * 3, d['layers']
"
run "$TMP/out" "$TMP/err" calibrate --write-probes "$TMP/no/such/folder/p.onnx"
check "--write-probes into a missing folder fails ($rc)" test "$rc" -eq 1
check "saying where" has "$TMP/err" "could not write the probe model to"
run "$TMP/out" "$TMP/err" calibrate --profile intel-xeon-8480 --out "$TMP/probed.json" \
    --from "$F/small_mlp.onnx=$F/ort_small_mlp_all.json" --probe "$F/small_cnn.onnx=$F/ort_small_cnn_all.json"
check "a fit with a probe ($rc)" test "$rc" -eq 0
check "says what the probe set" has "$TMP/err" "fitted on the probes (no kernel of these among the models): convolution.compute_fraction"
check "the probe sets the convolutions, and is no model of the fit" py "
import json
f = json.load(open('$TMP/probed.json'))['forecast']
assert f['fit']['fitted_on_probes'] == ['convolution.compute_fraction'], f['fit']['fitted_on_probes']
assert [m['name'].rsplit('/', 1)[-1] for m in f['fit']['models']] == ['small_mlp.onnx']
assert [m['name'].rsplit('/', 1)[-1] for m in f['fit']['probes']] == ['small_cnn.onnx']
c = f['classes']['convolution']['compute_fraction']
assert c['kind'] == 'measured' and 'probe models' in c['source'], c
"
run "$TMP/out" "$TMP/err" calibrate --profile intel-xeon-8480 --probe "$F/small_cnn.onnx=$F/ort_small_cnn_all.json"
check "probes alone are refused ($rc)" test "$rc" -eq 3
check "saying a fit needs a model" has "$TMP/err" "every input is a probe"
run "$TMP/out" "$TMP/err" calibrate --profile intel-xeon-8480 --probe "$F/small_mlp.onnx=$F/ort_small_cnn_all.json" \
    --from "$F/small_mlp.onnx=$F/ort_small_mlp_all.json"
check "a probe whose profile matches nothing is refused ($rc)" test "$rc" -eq 3
check "naming the probe's own profile, by its place on the command line" has "$TMP/err" "at inputs[0].measured"

# issue 43: hostile fits. A pair that matches nothing is refused beside a good one too.
run "$TMP/out" "$TMP/err" calibrate --profile intel-xeon-8480 --out "$TMP/mix.json" \
    --from "$F/small_cnn.onnx=$F/csv_small_cnn.csv" --from "$F/small_mlp.onnx=$F/csv_small_cnn.csv"
check "a pair that matches nothing beside a good one is refused ($rc)" test "$rc" -eq 3
check "naming its measured profile" has "$TMP/err" "csv_small_cnn.csv: "
check "at inputs[1].measured" has "$TMP/err" "at inputs[1].measured"
check "and no profile is written" test ! -e "$TMP/mix.json"

# kernel times no kernel takes: refused naming the kernel and the file, never printed as inf% or 47 digits
for t in 1e-320 1e-15 1e-300; do
  { echo "name,time_s"; for n in /conv1/Conv /relu/Relu /conv2/Conv /down/Conv /Add /relu_1/Relu /fc/Gemm; do
      echo "$n,$t"; done; } >"$TMP/tiny.csv"
  run "$TMP/out" "$TMP/err" calibrate --profile intel-xeon-8480 --out "$TMP/tiny.json" --from "$F/small_cnn.onnx=$TMP/tiny.csv"
  check "kernels at $t s are refused ($rc)" test "$rc" -eq 3
  check "naming the file and the kernel ($t)" has "$TMP/err" "tiny.csv: kernel '/conv1/Conv' took"
  check "no inf% nor a long number ($t)" bash -c "! grep -qE 'inf%|[0-9]{20}' '$TMP/err'"
done

# an ONNX Runtime run of 1,000 s around kernels of microseconds: no 125 s between kernels
py "
import json
ev = json.load(open('$F/ort_small_cnn_all.json'))
for e in ev:
    if e.get('name') == 'model_run': e['dur'] = 1e9
json.dump(ev, open('$TMP/ort_long.json', 'w'))
"
run "$TMP/out" "$TMP/err" calibrate --profile intel-xeon-8480 --out "$TMP/long.json" --from "$F/small_cnn.onnx=$TMP/ort_long.json"
check "a run with 125 s between kernels is refused ($rc)" test "$rc" -eq 3
check "as a bad measured profile, not a profile the core refuses" bash -c "has() { grep -qF -- \"\$2\" \"\$1\"; };
  has '$TMP/err' 'between two kernels' && ! has '$TMP/err' 'refused the profile it made'"

# fitted onto a GPU profile, the CLI suggests no CPU power mode
run "$TMP/out" "$TMP/err" calibrate --profile h100-sxm --out "$TMP/gpu.json" --from "$F/small_cnn.onnx=$F/ort_small_cnn_all.json"
check "a fit onto the H100 profile ($rc)" test "$rc" -eq 0
check "suggests no --power-mode one-core" bash -c "grep -q '^profile written to' '$TMP/err' && ! grep -q 'one-core' '$TMP/err'"

# the fit's work is bounded: 8 pairs of a 2,000-node model (43 s before pooling on a loaded
# 2-core machine), and of 2,000 distinct kernels (129 s before the budget)
/usr/bin/python3 "$ROOT/tests/cli/make_fit_hostile.py" "$TMP/chain"
/usr/bin/python3 "$ROOT/tests/cli/make_fit_hostile.py" "$TMP/distinct" --distinct
pairs() { for i in 1 2 3 4 5 6 7 8; do echo "--from $1/chain.onnx=$1/chain.csv"; done; }
RUN_TIMEOUT=60 run "$TMP/out" "$TMP/err" calibrate --profile intel-xeon-8480 --out "$TMP/chain.json" $(pairs "$TMP/chain")
check "8 pairs of a 2,000-node model fit ($rc)" test "$rc" -eq 0
check "on its few distinct kernels, the search complete" py "
import json
s = json.load(open('$TMP/chain.json'))['forecast']['fit']['search']
assert s['distinct_kernels'] <= 12 and not s['stopped'] and s['evaluations'] < s['budget'], s
"
RUN_TIMEOUT=60 run "$TMP/out" "$TMP/err" calibrate --profile intel-xeon-8480 --out "$TMP/distinct.json" $(pairs "$TMP/distinct")
check "8 pairs of 2,000 distinct kernels fit ($rc)" test "$rc" -eq 0
check "the search stops at its budget, and says so" py "
import json
s = json.load(open('$TMP/distinct.json'))['forecast']['fit']['search']
assert s['stopped'] and s['evaluations'] <= 2 * s['budget'] and 'budget' in s['note'], s
"
check "the CLI says the search stopped" has "$TMP/err" "the search stopped at its budget"

# the cross-validation: each of three models forecast by a fit of the other
# two, against its measured wall time (a run's, kernels and the time
# between them), as a user's analysis of it would be compared; not against
# the sum of its matched kernels, which is fit.models' measured time
run "$TMP/out" "$TMP/err" calibrate --profile intel-xeon-8480 --out "$TMP/three.json" \
    --from "$F/small_cnn.onnx=$F/ort_small_cnn_all.json" --from "$F/small_mlp.onnx=$F/ort_small_mlp_all.json" \
    --from "$F/small_gelu_first.onnx=$F/ort_small_gelu_first_all.json"
check "a fit of three models ($rc)" test "$rc" -eq 0
for m in small_cnn small_mlp small_gelu_first; do
    run "$TMP/$m.json" "$TMP/err" "$F/$m.onnx" --hw intel-xeon-8480 --measured "$F/ort_${m}_all.json" --format json
done
check "each held out against its run's wall time, not its kernels' sum" py "
import json
fit = json.load(open('$TMP/three.json'))['forecast']['fit']
for row, model in zip(fit['held_out'], fit['models']):
    name = row['name'].rsplit('/', 1)[-1][:-5]
    wall = json.load(open('$TMP/' + name + '.json'))['measured']['run_wall_s']
    assert abs(row['measured_s'] - wall) <= 1e-12 and row['measured_s'] > model['measured_s'], (row, wall, model)
    assert row['forecast_s'] > 0, row
"

echo "cli calibrate --from: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
