#!/usr/bin/env bash
# rooflens diff and rooflens batch end to end: exit codes (0, 2 for a bad
# --fail-if, 3 for a bad model, 4 with --strict, 5 when a threshold is
# crossed), the four output formats, CSV formula cells neutralised, and a
# batch over a folder holding a corrupt model: reported in its row, the
# other rows complete.
#   tests/cli/diff_batch.sh path/to/rooflens REPO_ROOT
set -uo pipefail
CLI="$1"
ROOT="$2"
M="$ROOT/tests/fixtures/models"
HW=(--hw "$ROOT/tests/hw/unit.json")
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

# ---- diff: table, exit codes
run "$TMP/out" "$TMP/err" diff "$M/diff_old.onnx" "$M/diff_new.onnx" "${HW[@]}"
check "diff table exits 0 ($rc)" test "$rc" -eq 0
check "table lists the widened layer" has "$TMP/out" "fc1"
check "table marks the added layer" has "$TMP/out" "fc_extra +"
check "table names the newly unsupported layer" has "$TMP/out" "act (com.example.MyOp)"
check "table counts the matches" has "$TMP/out" "6 matched (5 by name, 1 by op and position; 4 changed), 1 added, 0 removed"

run "$TMP/out" "$TMP/err" diff "$M/diff_old.onnx" "$M/diff_new.onnx" "${HW[@]}" --fail-if "time>+5%,unsupported>0,removed>0"
check "a crossed threshold exits 5 ($rc)" test "$rc" -eq 5
check "the gate says which thresholds were crossed" has "$TMP/err" "2 of 3 thresholds crossed"
check "and how" has "$TMP/err" "unsupported>0: unsupported 1 exceeds 0"

run "$TMP/out" "$TMP/err" diff "$M/diff_old.onnx" "$M/diff_new.onnx" "${HW[@]}" --fail-if "time>+500%, flops>+1G"
check "thresholds that hold exit 0 ($rc)" test "$rc" -eq 0

run "$TMP/out" "$TMP/err" diff "$M/diff_old.onnx" "$M/diff_new.onnx" "${HW[@]}" --fail-if "time>+5%,flops>>10%"
check "a bad --fail-if is a usage error: exit 2 ($rc)" test "$rc" -eq 2
check "it says what and where" has "$TMP/err" "expected a number after 'flops>'"
check "with a caret under the character" grep -qE '^ {17}\^$' "$TMP/err"

run "$TMP/out" "$TMP/err" diff "$M/diff_old.onnx" "$M/diff_new.onnx" "${HW[@]}" --strict
check "--strict: the new model has an unsupported op: exit 4 ($rc)" test "$rc" -eq 4

run "$TMP/out" "$TMP/err" diff "$M/diff_old.onnx" "$ROOT/tests/fixtures/bad/absurd_dim.onnx" "${HW[@]}"
check "a bad new model exits 3 ($rc)" test "$rc" -eq 3
check "and names the new model" has "$TMP/err" "the new model"

run "$TMP/out" "$TMP/err" diff "$M/diff_old.onnx" "$TMP/missing.onnx" "${HW[@]}"
check "a missing file exits 3 ($rc)" test "$rc" -eq 3
check "and says it cannot be opened" has "$TMP/err" "cannot open the file"

run "$TMP/out" "$TMP/err" diff "$M/diff_old.onnx" "${HW[@]}"
check "diff with one model is a usage error ($rc)" test "$rc" -eq 2

run "$TMP/out" "$TMP/err" "$M/mlp.onnx" --fail-if "time>1%"
check "--fail-if without diff is a usage error ($rc)" test "$rc" -eq 2

# ---- diff: JSON, Markdown, CSV
run "$TMP/out" "$TMP/err" diff "$M/diff_old.onnx" "$M/diff_new.onnx" "${HW[@]}" --format json
check "json exits 0" test "$rc" -eq 0
check "json is the core's diff" grep -q '^{"schema":1,"ok":true,"version":"[^"]*","diff":{' "$TMP/out"

run "$TMP/out" "$TMP/err" diff "$M/diff_old.onnx" "$M/diff_new.onnx" "${HW[@]}" --format markdown --label-old old.onnx --label-new new.onnx
check "markdown headline" has "$TMP/out" "### rooflens: old.onnx → new.onnx"
check "markdown changed layers" has "$TMP/out" "| fc\_extra *(added)* | Gemm |"

run "$TMP/out" "$TMP/err" diff "$M/diff_old.onnx" "$M/diff_new.onnx" "${HW[@]}" --format csv
check "csv header" has "$TMP/out" "kind,matched_by,old_index,new_index,name,old_name,op,old_op,flops_old,flops_new,flops_delta"
check "csv model row" grep -q '^model,,,,diff_new,diff_old,,,102384,209904,107520,' "$TMP/out"
check "csv matched row" grep -q '^matched,name,0,0,fc1,fc1,Gemm,Gemm,66048,132096,66048,36352,71680,35328,' "$TMP/out"
check "csv added row" grep -q '^added,,,3,fc_extra,,Gemm,,,8320,8320,,5248,5248,' "$TMP/out"
check "csv: 1 + 1 + 6 + 1 lines" test "$(wc -l <"$TMP/out")" -eq 9

run "$TMP/out" "$TMP/err" diff "$M/formula_names.onnx" "$M/formula_names.onnx" "${HW[@]}" --format csv
check "formula cells neutralised (quoted)" has "$TMP/out" ",\"'=HYPERLINK(\"\"http://e.x\"\",\"\"click\"\")\","
check "formula cells neutralised (+)" has "$TMP/out" ",'+1+1,'+1+1,"
check "formula cells neutralised (-)" has "$TMP/out" ",'-2+3,'-2+3,"
check "formula cells neutralised (@)" has "$TMP/out" ",'@SUM(A1),'@SUM(A1),"
check "negative numbers stay numbers" bash -c "! grep -q \"'-[0-9.]*e\" '$TMP/out'"

# ---- batch: a folder with a corrupt model, a nested folder, a non-model
mkdir -p "$TMP/zoo/nested"
cp "$M/mlp.onnx" "$TMP/zoo/a_mlp.onnx"
cp "$ROOT/tests/fixtures/bad/absurd_dim.onnx" "$TMP/zoo/b_corrupt.onnx"
head -c 300 "$M/conv_net.onnx" >"$TMP/zoo/c_truncated.onnx"
cp "$M/formula_names.onnx" "$TMP/zoo/nested/d_formula.onnx"
echo "not a model" >"$TMP/zoo/notes.txt"
run "$TMP/out" "$TMP/err" batch "$TMP/zoo" "${HW[@]}" --format csv
check "batch with corrupt models exits 3 ($rc)" test "$rc" -eq 3
check "batch: header + 4 rows" test "$(wc -l <"$TMP/out")" -eq 5
check "batch header" grep -q '^file,ok,error_code,error_message,name,hardware,' "$TMP/out"
check "batch: the good model's row is complete" grep -qE "^$TMP/zoo/a_mlp.onnx,true,,,mlp,unit,,fp32,fused,4,4,9610,38440,19260,[0-9]+,[0-9.]+,[0-9.e-]+," "$TMP/out"
check "batch: the corrupt model is reported in its row" grep -q "^$TMP/zoo/b_corrupt.onnx,false,dim_overflow," "$TMP/out"
check "batch: the truncated model too" grep -qE "^$TMP/zoo/c_truncated.onnx,false,(truncated|bad_protobuf)," "$TMP/out"
check "batch: the nested model comes after them, complete" grep -qE "^$TMP/zoo/nested/d_formula.onnx,true,,,'=cmd\|' /C calc'!A0,unit," "$TMP/out"
check "batch: the folder's other files are not models" bash -c "! grep -q notes.txt '$TMP/out'"
check "batch: stderr counts the failures" has "$TMP/err" "2 of 4 models could not be analysed"

# A new model (OLD is /dev/null): no base, so its old figures are dashes,
# not zeros, and a gate of changes only judged nothing: "not judged".
run "$TMP/out" "$TMP/err" diff /dev/null "$M/diff_new.onnx" "${HW[@]}" --fail-if "time>+5%"
check "new model: exit 0 ($rc)" test "$rc" -eq 0
check "new model: the old side is named as none" has "$TMP/out" "old       none: a new model"
check "new model: old figures are dashes" grep -qE '^  speed of light +- +[0-9.]+ ' "$TMP/out"
check "new model: no zero for the old side" sh -c '! grep -qE "^  speed of light +0 s" "$1"' _ "$TMP/out"
check "new model: a gate of changes is not judged" has "$TMP/out" "gate      time>+5%: not judged"
run "$TMP/out" "$TMP/err" diff /dev/null "$M/diff_new.onnx" "${HW[@]}" --fail-if "unsupported>0"
check "new model: unsupported is judged and fails (exit $rc)" test "$rc" -eq 5
check "new model: FAILED" has "$TMP/out" "gate      unsupported>0: FAILED"

run "$TMP/out" "$TMP/err" batch "$M/mlp.onnx" "$TMP/none.onnx" "$M/conv_net.onnx" "${HW[@]}" --format json
check "batch json: one line per model" test "$(wc -l <"$TMP/out")" -eq 3
check "batch json: the missing file in its row" grep -q '"file":"'"$TMP"'/none.onnx","ok":false,"error":{.*"code":"cannot_open"' "$TMP/out"
check "batch json: the last model still analysed" grep -q 'conv_net.onnx","ok":true,"summary":{"name":"conv_net"' "$TMP/out"

run "$TMP/out" "$TMP/err" batch "$M/mlp.onnx" "$M/conv_net.onnx" "${HW[@]}"
check "batch table exits 0 ($rc)" test "$rc" -eq 0
check "batch table rows" test "$(wc -l <"$TMP/out")" -eq 3
check "batch table: the forecast and its likely range beside the speed of light" grep -qE '^model +layers +FLOPs +bytes +speed of light +forecast +likely +limited by ' "$TMP/out"
# names of two lengths: every row's layer count ends under the header's "layers"
check "batch table: the columns line up" awk 'NR == 1 { e = index($0, "layers") + 5 }
  NR > 1 && (substr($0, e, 1) !~ /[0-9]/ || substr($0, e + 1, 1) != " ") { bad = 1 } END { exit bad }' "$TMP/out"

run "$TMP/out" "$TMP/err" batch "$M/mlp.onnx" "${HW[@]}" --format markdown
check "batch markdown" grep -q '^| .*mlp.onnx | 4 | 19.3 kFLOP | ' "$TMP/out"
check "batch markdown: the forecast and its likely range beside the speed of light" grep -qF '| speed of light | forecast | likely | limited by |' "$TMP/out"
check "batch markdown: a profile without a track record says so, no invented range" grep -qE '^\| .*mlp.onnx \|.*\| no track record for this stack \|' "$TMP/out"

# A file name cannot mention, link or start math in batch's Markdown: the
# core's escaping (rl_markdown_text), as in the diff's comment.
mkdir -p "$TMP/names"
cp "$M/mlp.onnx" "$TMP/names/@team \$x\$ www.evil.com.onnx"
run "$TMP/out" "$TMP/err" batch "$TMP/names" "${HW[@]}" --format markdown
check "batch markdown: the row is there" grep -q 'evil' "$TMP/out"
check "batch markdown: no bare mention" sh -c '! grep -q "/@team" "$1"' _ "$TMP/out"
check "batch markdown: no bare www." sh -c '! grep -q "www\.evil" "$1"' _ "$TMP/out"
check "batch markdown: dollars escaped" grep -qF '\$x\$' "$TMP/out"

echo "cli diff/batch: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
