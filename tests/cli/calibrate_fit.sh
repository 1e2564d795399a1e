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

echo "cli calibrate --from: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
