#!/usr/bin/env bash
# The CLI against hostile inputs (issue 22): no table output lets a model's,
# a profile's or a file's name act on the terminal (control characters and
# bidi overrides are shown escaped; text cuts fall between characters);
# batch reads only regular files, reports what it could not search, and
# writes valid UTF-8 JSON whatever the file names; every other file read
# (profiles, measured profiles, calibration inputs, models) is a regular file
# of at most 256 MiB, or a model through a pipe; option values outside
# their range are usage errors.
#   tests/cli/hostile.sh path/to/rooflens REPO_ROOT
set -uo pipefail
CLI="$1"
ROOT="$2"
M="$ROOT/tests/fixtures/models"
T="$ROOT/tests/fixtures/hostile/terminal.onnx"
UNIT="$ROOT/tests/hw/unit.json"
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
# No byte a terminal acts on: C0 but newline, DEL, C1 (U+0080-009F as UTF-8),
# U+200E/F, U+2028-202E, U+2066-2069; and the output is valid UTF-8.
clean() {
  local f="$1"
  ! LC_ALL=C grep -qP '[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\x8e\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]' "$f" &&
    iconv -f UTF-8 -t UTF-8 "$f" >/dev/null 2>&1
}
both_clean() { clean "$1" && clean "$2"; }

# ---- a hostile profile: its name and a power mode id set the title, clear the screen
sed -e 's/"name": "NVIDIA Jetson AGX Orin[^"]*"/"name": "Orin\\u001b]0;pwned\\u0007 \\u202eevil"/' \
    -e 's/"id": "maxn"/"id": "maxn\\u001b[2J"/' "$ROOT/hw/jetson-agx-orin.json" >"$TMP/orin_evil.json"
check "the hostile profile is made" grep -q 'pwned' "$TMP/orin_evil.json"

# ---- every table output of a model whose strings are escape sequences
run "$TMP/out" "$TMP/err" "$T" --hw "$UNIT"
check "analysis table exits 0 ($rc)" test "$rc" -eq 0
check "analysis table: nothing raw reaches the terminal" both_clean "$TMP/out" "$TMP/err"
check "the title escape is shown escaped" has "$TMP/out" 'model     \x1b]0;pwned\x07title'
check "the carriage return is shown escaped" has "$TMP/out" 'ok\x0dFAKE ok'
check "the bidi override is shown escaped" has "$TMP/out" 'bidi\u202egnp.exe'
check "the C1 control is shown escaped" has "$TMP/out" 'c1\x9b31mred'
check "the symbolic dimension is shown escaped" has "$TMP/out" 'dims      \x1b[2J\x1b[Hclear=1'
check "warnings are shown escaped" has "$TMP/out" "operator del\x7fx.c1\x9b31mred"
check "a long name is cut between two characters" grep -qE '^(é){16} +Relu' "$TMP/out"

printf 'name,time_s\n"\x1b]0;pwned\x07title",0.001\n"evil\x1b[2Jk",0.002\n' >"$TMP/evil.csv"
run "$TMP/out" "$TMP/err" "$T" --hw "$UNIT" --measured "$TMP/evil.csv"
check "measured table exits 0 ($rc)" test "$rc" -eq 0
check "measured table: nothing raw" both_clean "$TMP/out" "$TMP/err"
check "measured: the unmatched kernel shown escaped" has "$TMP/out" 'evil\x1b[2Jk'
check "measured: the unmeasured nodes shown escaped" has "$TMP/out" 'ok\x0dFAKE ok bidi\u202e'

run "$TMP/out" "$TMP/err" "$T" --compare "$UNIT,$TMP/orin_evil.json"
check "compare exits 0 ($rc)" test "$rc" -eq 0
check "compare: nothing raw" both_clean "$TMP/out" "$TMP/err"
run "$TMP/out" "$TMP/err" "$T" --hw "$TMP/orin_evil.json" --power-modes
check "power modes exit 0 ($rc)" test "$rc" -eq 0
check "power modes: nothing raw" both_clean "$TMP/out" "$TMP/err"
check "power modes: the mode id shown escaped" has "$TMP/out" 'maxn\x1b[2J'
run "$TMP/out" "$TMP/err" "$T" --hw "$TMP/orin_evil.json" --power-mode "maxn$(printf '\x1b')[2J"
check "analysis with the hostile profile: nothing raw" both_clean "$TMP/out" "$TMP/err"
check "the profile's name shown escaped" has "$TMP/out" 'Orin\x1b]0;pwned\x07 \u202eevil'
run "$TMP/out" "$TMP/err" "$T" --hw "$UNIT" --sweep-batch 1,2
check "sweep: nothing raw" both_clean "$TMP/out" "$TMP/err"
run "$TMP/out" "$TMP/err" "$T" --hw "$UNIT" --llm --llm-dims "seq=$(printf '\x1b')[2Jclear"
check "LLM view (or its refusal): nothing raw" both_clean "$TMP/out" "$TMP/err"
run "$TMP/out" "$TMP/err" --hw-dir "$TMP" --list-hw
check "--list-hw: nothing raw" both_clean "$TMP/out" "$TMP/err"
check "--list-hw: the hostile profile listed, escaped" has "$TMP/out" 'Orin\x1b]0;pwned\x07'
run "$TMP/out" "$TMP/err" --check-hw "$TMP/orin_evil.json"
check "--check-hw: nothing raw" both_clean "$TMP/out" "$TMP/err"

run "$TMP/out" "$TMP/err" diff "$M/mlp.onnx" "$T" --hw "$UNIT" --top 0
check "diff table exits 0 ($rc)" test "$rc" -eq 0
check "diff table: nothing raw" both_clean "$TMP/out" "$TMP/err"
check "diff: the added layer shown escaped" has "$TMP/out" '\x1b]0;pwned\x07title +'
run "$TMP/out" "$TMP/err" diff "$M/mlp.onnx" "$T" --hw "$UNIT" --fail-if "$(printf 'time>\x1b[2J')"
check "a bad --fail-if is shown escaped" both_clean "$TMP/out" "$TMP/err"

# ---- batch: file names, special files, depth
mkdir -p "$TMP/zoo"
cp "$M/mlp.onnx" "$TMP/zoo/a_$(printf '\x1b]0;pwned\x07').onnx"
cp "$M/mlp.onnx" "$TMP/zoo/b_$(printf '\xff\xfe')_not_utf8.onnx"
mkfifo "$TMP/fifo"
ln -s "$TMP/fifo" "$TMP/zoo/c_fifo.onnx"
ln -s /dev/zero "$TMP/zoo/d_device.onnx"
ln -s /dev/stdin "$TMP/zoo/e_stdin.onnx"
deep="$TMP/zoo/deep"
for i in $(seq 1 34); do deep="$deep/d"; done
mkdir -p "$deep"
cp "$M/mlp.onnx" "$deep/f_deep.onnx"
cp "$M/mlp.onnx" "$TMP/zoo/g_last.onnx"
run "$TMP/out" "$TMP/err" batch "$TMP/zoo" --hw "$UNIT"
check "batch over special files ends, not hangs, exit 3 ($rc)" test "$rc" -eq 3
check "batch table: nothing raw" both_clean "$TMP/out" "$TMP/err"
check "batch: the FIFO is reported in its row" grep -q 'c_fifo.onnx *error: not a regular file' "$TMP/out"
check "batch: the device is reported in its row" grep -q 'd_device.onnx *error: not a regular file' "$TMP/out"
check "batch: stdin is reported in its row" grep -q 'e_stdin.onnx *error: not a regular file' "$TMP/out"
check "batch: the too-deep folder is reported" grep -q '/d/d *error: a folder more than 32 levels deep.*\[too_deep\]' "$TMP/out"
check "batch: the models after them are analysed" grep -qE 'g_last.onnx +4 ' "$TMP/out"
check "batch: the escaped name analysed" grep -qF 'a_\x1b]0;pwned\x07.onnx' "$TMP/out"
run "$TMP/out" "$TMP/err" batch "$TMP/zoo" --hw "$UNIT" --format json
check "batch json: one line per row (7)" test "$(wc -l <"$TMP/out")" -eq 7
check "batch json is valid UTF-8" iconv -f UTF-8 -t UTF-8 "$TMP/out" -o /dev/null
check "batch json: the bytes that are not UTF-8 written as \\xNN" has "$TMP/out" '"file":"'"$TMP"'/zoo/b_\\xff\\xfe_not_utf8.onnx","ok":true'
check "batch json: a control character as JSON escapes it" has "$TMP/out" 'a_\u001b]0;pwned\u0007.onnx","ok":true'
check "batch json: not_a_file code" grep -q 'c_fifo.onnx","ok":false,"error":{[^}]*"code":"not_a_file"' "$TMP/out"
run "$TMP/out" "$TMP/err" batch "$TMP/zoo/c_fifo.onnx" "$M/mlp.onnx" --hw "$UNIT" --format csv
check "batch of a named FIFO ends ($rc)" test "$rc" -eq 3
check "batch csv: the FIFO's row" grep -q 'c_fifo.onnx,false,not_a_file,' "$TMP/out"

# ---- every file the CLI reads whole: a regular file (links followed), at most
# 256 MiB; a FIFO, a device or a folder is refused before it is read, never
# waited on or read to its end (issue 43). A model may come through a pipe.
F="$ROOT/tests/fixtures/measured"
ln -s "$TMP/fifo" "$TMP/gpu.json"
ln -s /dev/zero "$TMP/zero.json"
truncate -s 300M "$TMP/huge.json"
for target in gpu zero huge; do
  case $target in gpu) why='not a regular file (a FIFO';; zero) why='not a regular file';; huge) why='over the 256 MiB';; esac
  run "$TMP/out" "$TMP/err" "$M/mlp.onnx" --hw "$TMP/$target.json"
  check "--hw $target: refused, not hung ($rc)" test "$rc" -eq 2
  check "--hw $target: says why" has "$TMP/err" "$why"
  run "$TMP/out" "$TMP/err" "$M/mlp.onnx" --hw "$UNIT" --measured "$TMP/$target.json"
  check "--measured $target: refused, not hung ($rc)" test "$rc" -eq 2
  check "--measured $target: says why" has "$TMP/err" "$why"
  run "$TMP/out" "$TMP/err" "$M/mlp.onnx" --compare "$UNIT,$TMP/$target.json"
  check "--compare $target: refused, not hung ($rc)" test "$rc" -eq 2
  run "$TMP/out" "$TMP/err" --check-hw "$TMP/$target.json"
  check "--check-hw $target: refused, not hung ($rc)" test "$rc" -eq 3
  check "--check-hw $target: says why" has "$TMP/err" "$why"
  run "$TMP/out" "$TMP/err" calibrate --profile "$TMP/$target.json" --from "$F/small_mlp.onnx=$F/ort_small_mlp_all.json"
  check "calibrate --profile $target: refused, not hung ($rc)" test "$rc" -ne 0 -a "$rc" -ne 124
  check "calibrate --profile $target: says why" has "$TMP/err" "$why"
  run "$TMP/out" "$TMP/err" calibrate --profile intel-xeon-8480 --from "$F/small_mlp.onnx=$TMP/$target.json"
  check "calibrate --from M=$target: refused, not hung ($rc)" test "$rc" -ne 0 -a "$rc" -ne 124
  check "calibrate --from M=$target: says why" has "$TMP/err" "$why"
done
mkdir -p "$TMP/hwdir" && cp "$UNIT" "$TMP/hwdir/unit.json" && ln -s "$TMP/fifo" "$TMP/hwdir/gpu.json"
run "$TMP/out" "$TMP/err" --hw-dir "$TMP/hwdir" --list-hw
check "--list-hw: a FIFO among the profiles is left out, not waited on ($rc)" test "$rc" -eq 0
check "--list-hw: and named" has "$TMP/err" "gpu.json: not a regular file"
check "--list-hw: the others listed" has "$TMP/out" "unit"
run "$TMP/out" "$TMP/err" "$TMP/zoo/d_device.onnx" --hw "$UNIT"
check "a device as the model: refused ($rc)" test "$rc" -eq 3
check "a device as the model: not_a_file" has "$TMP/err" "[not_a_file]"
run "$TMP/out" "$TMP/err" diff "$M/mlp.onnx" "$TMP/zoo/d_device.onnx" --hw "$UNIT"
check "diff of a device: refused ($rc)" test "$rc" -eq 3
run "$TMP/out" "$TMP/err" calibrate --profile intel-xeon-8480 --from "$TMP/zoo/c_fifo.onnx=$F/ort_small_mlp_all.json"
check "calibrate --from FIFO=...: refused, not hung ($rc)" test "$rc" -ne 0 -a "$rc" -ne 124
check "calibrate --from FIFO=...: says why" has "$TMP/err" "not a regular file"
# a model streamed through a pipe is read as it comes
timeout 20 "$CLI" <(cat "$M/mlp.onnx") --hw "$UNIT" >"$TMP/out" 2>"$TMP/err"
check "a model through a pipe is analysed ($?)" has "$TMP/out" "Relu"

# ---- the Netron attachment of nodes that share a name (issue 43): Netron files
# figures by name, so they get none, are counted, and the CLI says so
/usr/bin/python3 - "$ROOT/tools/make-models" "$TMP/dups.onnx" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import llm_model as mk
g = mk.Graph(mk.FLOAT, "dups.onnx.data")
g.inputs.append(mk.value_info("x", mk.FLOAT, [16]))
g.op("Relu", [g.op("Sigmoid", [g.op("Relu", ["x"], "dup")], "dup")], "solo", outputs=["y"])
g.outputs.append(mk.value_info("y", mk.FLOAT, [16]))
open(sys.argv[2], "wb").write(g.model_bytes("dups", [("", 17)]))
PY
run "$TMP/out" "$TMP/err" "$TMP/dups.onnx" --hw "$UNIT" --format netron
check "netron of shared names exits 0 ($rc)" test "$rc" -eq 0
check "netron: no figures under the shared name" bash -c "! grep -q '\"target\":\"dup\"' '$TMP/out'"
check "netron: the shared names counted" has "$TMP/out" '"name":"nodes_with_shared_name","value":2'
check "netron: and said on stderr" has "$TMP/err" "2 nodes share a name with another node"

# ---- option values outside their range
run "$TMP/out" "$TMP/err" "$M/mlp.onnx" --hw jetson-agx-orin --power-modes --max-slowdown nan
check "--max-slowdown nan: exit 2 ($rc)" test "$rc" -eq 2
run "$TMP/out" "$TMP/err" "$M/mlp.onnx" --hw jetson-agx-orin --power-modes --max-slowdown inf
check "--max-slowdown inf: exit 2 ($rc)" test "$rc" -eq 2
check "and says why" has "$TMP/err" "--max-slowdown needs a finite number"
run "$TMP/out" "$TMP/err" diff "$M/diff_old.onnx" "$M/diff_new.onnx" --hw "$UNIT" --top 5000
check "diff --top 5000: exit 2 ($rc)" test "$rc" -eq 2
check "and gives the core's range" has "$TMP/err" "from 1 to 1000"
run "$TMP/out" "$TMP/err" "$M/mlp.onnx" --hw "$UNIT" --top 99999999999
check "--top past an int: exit 2 ($rc)" test "$rc" -eq 2

echo "cli hostile: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
