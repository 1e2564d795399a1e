#!/usr/bin/env bash
# The GitHub Action (action.yml) exercised without GitHub: a fixture git
# repository in a temp dir gets a base branch and a pull request that widens
# a model's layers (and swaps an op for an unsupported one), adds a model,
# deletes one and renames one; tools/ci/run_action.py runs the Action's own
# steps on it, with the comment written to a file, and this script checks
# the comment body, the outputs and the gate. It then posts the comment
# twice through a stand-in GitHub API and checks that the second run updates
# the one comment instead of adding another.
#   tools/ci/test-action.sh [path/to/rooflens]     (default build/rooflens)
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CLI="$(realpath "${1:-$ROOT/build/rooflens}")"
PY=/usr/bin/python3
[[ -x "$CLI" ]] || { echo "test-action: no rooflens at $CLI (cmake --build build)" >&2; exit 1; }
"$PY" -c 'import yaml' 2>/dev/null || { echo "test-action: Debian's python3-yaml is needed (tools/install-deps.sh)" >&2; exit 1; }
command -v git >/dev/null || { echo "test-action: git is needed" >&2; exit 1; }
TMP="$(mktemp -d)"
MOCK_PID=
# ROOFLENS_KEEP_TMP=1 keeps the repository and the comments to look at
trap '[[ -n "$MOCK_PID" ]] && kill "$MOCK_PID" 2>/dev/null; [[ -n "${ROOFLENS_KEEP_TMP:-}" ]] && echo "kept $TMP" || rm -rf "$TMP"' EXIT
M="$ROOT/tests/fixtures/models"
pass=0 fails=0
check() { local what="$1"; shift; if "$@"; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $what" >&2; fi; }
has() { grep -qF -- "$2" "$1"; }

# ---- the fixture repository
R="$TMP/repo"
mkdir -p "$R/models"
git -C "$R" init -q -b main
git -C "$R" config user.email test@example.com
git -C "$R" config user.name "rooflens test"
git -C "$R" config commit.gpgsign false
cp "$M/diff_old.onnx" "$R/models/classifier.onnx"
cp "$M/mlp.onnx" "$R/models/mlp.onnx"
cp "$M/conv_net.onnx" "$R/models/to_delete.onnx"
mkdir -p "$R/hw" && cp "$ROOT/tests/hw/unit.json" "$R/hw/unit.json"   # a profile file in the repository
echo "models" >"$R/README.md"
git -C "$R" add -A && git -C "$R" commit -qm base
git -C "$R" checkout -q -b pr
cp "$M/diff_new.onnx" "$R/models/classifier.onnx"
cp "$M/einsum.onnx" "$R/models/new_head.onnx"
git -C "$R" rm -q models/to_delete.onnx
mkdir -p "$R/models/renamed" && git -C "$R" mv models/mlp.onnx models/renamed/mlp.onnx
cp "$M/diff_new.onnx" "$R/models/added_unsup.onnx"   # new, with an unsupported op
# a path over 500 bytes, of 2-byte characters: its label is cut, never refused
E60="$(printf 'é%.0s' $(seq 60))"
DEEP="models/$E60/$E60/$E60/$E60/deep.onnx"
mkdir -p "$R/$(dirname "$DEEP")" && cp "$M/einsum.onnx" "$R/$DEEP"
HOSTILE='models/@octocat $x$ www.evil.example https://evil.example/x.onnx'
mkdir -p "$R/$(dirname "$HOSTILE")" && cp "$M/diff_old.onnx" "$R/$HOSTILE"
echo "changed" >>"$R/README.md"
git -C "$R" add -A && git -C "$R" commit -qm "pr: widen the classifier"
PR1="$(git -C "$R" rev-parse HEAD)"
head -c 400 "$M/conv_net.onnx" >"$R/models/new_head.onnx"
git -C "$R" add -A && git -C "$R" commit -qm "pr: a broken model"
PR2="$(git -C "$R" rev-parse HEAD)"
git -C "$R" checkout -q main
echo "main moved on" >>"$R/README.md"
git -C "$R" commit -qam "main: docs"
MAIN="$(git -C "$R" rev-parse HEAD)"
git -C "$R" checkout -q pr

event() { # event HEAD_SHA -> path of a pull_request event payload
  printf '{"pull_request": {"number": 7, "base": {"sha": "%s", "ref": "main"}, "head": {"sha": "%s", "ref": "pr"}}}\n' \
    "$MAIN" "$1" >"$TMP/event.json"
  echo "$TMP/event.json"
}
run_action() { # run_action HEAD_SHA OUTFILE [--input k=v | --env k=v]...
  local head="$1" log="$2"; shift 2
  "$PY" "$ROOT/tools/ci/run_action.py" --workspace "$R" --event "$(event "$head")" \
    --input "rooflens=$CLI" --input "hw=$ROOT/tests/hw/unit.json" "$@" >"$log" 2>&1
  rc=$?
}

# ---- 1. thresholds crossed: the comment, the outputs, a failed job
C="$TMP/comment.md"
run_action "$PR1" "$TMP/log1" --input "fail-if=time>+5%,unsupported>0" --env "ROOFLENS_COMMENT_FILE=$C"
Z=$'\xe2\x80\x8b'   # the zero-width space that breaks @-mentions and links
check "crossed thresholds fail the job (rc $rc)" test "$rc" -eq 1
check "the gate step is what failed" has "$TMP/log1" "step failed (1): Apply the gate"
check "outputs: 7 changed models" has "$TMP/log1" "steps.diff.outputs.changed=7"
check "outputs: gate failed" has "$TMP/log1" "steps.diff.outputs.gate=failed"
check "the build was skipped (a binary was given)" has "$TMP/log1" "skip: Build rooflens"
check "the comment was written" test -s "$C"
check "comment: the hidden marker first" test "$(head -1 "$C")" = "<!-- rooflens-diff -->"
check "comment: headline" has "$C" "## rooflens: 7 ONNX models changed"
check "comment: gate verdict" has "$C" "**Gate: failed**: 2 of 7 changed models crossed a threshold (time>+5%,unsupported>0)"
base_short="$(git -C "$R" rev-parse --short "$(git -C "$R" merge-base "$MAIN" "$PR1")")"
pr1_short="$(git -C "$R" rev-parse --short "$PR1")"
check "comment: diffed against the merge base, not main's tip" has "$C" "### rooflens: models/classifier.onnx@$Z$base_short → models/classifier.onnx@$Z$pr1_short"
check "comment: the widened layer's deltas" has "$C" "| fc1 | Gemm | 338 ns → 666 ns | +328 ns (+97.0%) | +66 kFLOP (+100%) | +35.3 kB (+97.2%) | memory bandwidth |"
check "comment: the added layer" has "$C" "| fc\\_extra *(added)* | Gemm |"
check "comment: the swapped op" has "$C" "| act | Relu → MyOp |"
check "comment: newly unsupported" has "$C" "**Newly unsupported** (rooflens counts zero FLOPs for an operator it does not know): act (com.example.MyOp)"
check "comment: new warning" has "$C" "- unsupported\\_op: operator com.example.MyOp"
check "comment: the crossed thresholds" has "$C" '- `unsupported>0`: unsupported 1 exceeds 0'
check "comment: the added model, as new" has "$C" "### rooflens: models/new\\_head.onnx@$Z$pr1_short (new model)"
check "comment: the added model's figures" has "$C" "| FLOPs | 20.7 kFLOP |"
check "comment: an added model is judged (unsupported>0 twice: changed + added)" test "$(grep -c '^- `unsupported>0`: unsupported 1 exceeds 0' "$C")" -eq 2
check "comment: a change threshold is not judged on a new model" has "$C" '- `time>+5%`: not judged'
check "comment: every section the core wrote is whole (6 verdicts, 1 removed)" test "$(grep -c '^<!-- rooflens-gate: ' "$C")" -eq 6
check "comment: the deleted model" has "$C" "### rooflens: models/to\\_delete.onnx (removed)"
check "comment: the renamed model diffed across the rename" has "$C" "models/mlp.onnx@$Z$base_short → models/renamed/mlp.onnx@"
check "comment: an unchanged model says so" has "$C" "No layer changed its work"
check "comment: a path over 500 bytes is cut, not refused" grep -qF "### rooflens: models/${E60:0:100}" "$C"
check "comment: ... and its section is whole" grep -q "^### rooflens: models/é.*… (new model)" "$C"
check "comment: a hostile file name cannot mention, link or start math" bash -c "! grep -qE '@octocat|www\\.evil|://|(^|[^\\\\])\\\$x' '$C'"
check "comment: ... and is still shown" has "$C" "@${Z}octocat \\\$x\\\$ www${Z}.evil.example"
check "comment: valid UTF-8" "$PY" -c "open('$C', encoding='utf-8').read()"
check "comment: no temp paths leak" bash -c "! grep -q '/tmp/' '$C'"
check "comment: within GitHub's limit" test "$(wc -c <"$C")" -lt 65536
check "the job summary has the body too" has "$TMP/log1" "run: Post or update the pull-request comment"

# ---- 2. thresholds that hold: the job passes
run_action "$PR1" "$TMP/log2" --input "fail-if=time>+500%,unsupported>5" --env "ROOFLENS_COMMENT_FILE=$C"
check "thresholds that hold pass (rc $rc)" test "$rc" -eq 0
check "gate passed" has "$TMP/log2" "steps.diff.outputs.gate=passed"
check "comment: gate passed" has "$C" '**Gate: passed** (every threshold judged holds (time>+500%,unsupported>5))'

# ---- 3. a model the pull request breaks fails the gate even without thresholds
run_action "$PR2" "$TMP/log3" --env "ROOFLENS_COMMENT_FILE=$C"
check "an unreadable model fails the job (rc $rc)" test "$rc" -eq 1
check "comment: the broken model is reported" grep -qE "^\*\*Could not be analysed\*\*: rooflens: models/new\\\\_head.onnx: .*truncated" "$C"
check "comment: the other models are still diffed" has "$C" "### rooflens: models/classifier.onnx@"

# ---- 4. a bad threshold is a clear error, not a silent pass
run_action "$PR1" "$TMP/log4" --input "fail-if=time>>5%" --env "ROOFLENS_COMMENT_FILE=$C"
check "a bad --fail-if fails the job (rc $rc)" test "$rc" -ne 0
check "and says what is wrong" has "$TMP/log4" "expected a number after 'time>'"

# ---- 5. a pull request without model changes: no comment
run_action "$(git -C "$R" rev-parse main)" "$TMP/log5" --input "fail-if=time>+5%"
check "no model changed: the job passes (rc $rc)" test "$rc" -eq 0
check "no model changed: no comment" has "$TMP/log5" "skip: Post or update the pull-request comment"

# ---- 7. the documented configurations: a profile file in the repository, a
# relative rooflens: path, --top; then --strict. An added model's section is
# never empty.
mkdir -p "$R/bin" && cp "$CLI" "$R/bin/rooflens"
run_action "$PR1" "$TMP/log7a" --input "rooflens=bin/rooflens" --input "hw=hw/unit.json" --input "options=--top 3" \
  --input "fail-if=unsupported>0" --env "ROOFLENS_COMMENT_FILE=$C"
check "repository profile, relative binary, --top: the added models judged (rc $rc)" test "$rc" -eq 1
check "... 6 whole sections" test "$(grep -c '^<!-- rooflens-gate: ' "$C")" -eq 6
check "... the added model with an unsupported op crossed" has "$C" "2 of 7 changed models crossed a threshold (unsupported>0)"
run_action "$PR1" "$TMP/log7b" --input "options=--strict" --input "fail-if=time>+500%" --env "ROOFLENS_COMMENT_FILE=$C"
check "--strict: an incomplete model fails the job (rc $rc)" test "$rc" -eq 1
check "--strict: the sections are whole" test "$(grep -c '^<!-- rooflens-gate: ' "$C")" -eq 6
check "--strict: and say why" test "$(grep -c '^\*\*Incomplete\*\* (`--strict`)' "$C")" -eq 2

# ---- 8. a deleted model and an added one: shown as such, never "passed" on nothing
git -C "$R" checkout -q -b pr3 "$(git -C "$R" merge-base "$MAIN" "$PR1")"
git -C "$R" rm -q models/mlp.onnx && cp "$M/diff_new.onnx" "$R/models/mlp_v2.onnx"
git -C "$R" add -A && git -C "$R" commit -qm "pr3: mlp replaced by mlp_v2"
PR3="$(git -C "$R" rev-parse HEAD)"
git -C "$R" checkout -q pr
run_action "$PR3" "$TMP/log8" --input "fail-if=time>+5%" --env "ROOFLENS_COMMENT_FILE=$C"
check "delete + add, a change threshold: the job passes (rc $rc)" test "$rc" -eq 0
check "... but the gate is not 'passed'" has "$TMP/log8" "steps.diff.outputs.gate=none"
check "... and says nothing was judged" has "$C" "**Gate: not judged**: no threshold could be judged: 1 new and 1 removed models"
check "... the removed model" has "$C" "### rooflens: models/mlp.onnx (removed)"
check "... the new model" has "$C" "models/mlp\\_v2.onnx@$Z$(git -C "$R" rev-parse --short "$PR3") (new model)"
run_action "$PR3" "$TMP/log8b" --input "fail-if=time>+5%,unsupported>0" --env "ROOFLENS_COMMENT_FILE=$C"
check "delete + add with unsupported>0: the new model's op fails the job (rc $rc)" test "$rc" -eq 1

# ---- 9. a section that could not be produced fails the gate and says why
printf '#!/bin/bash\n[[ "$1" == diff ]] && { echo "### half a section"; exit 0; }\nexec "%s" "$@"\n' "$CLI" >"$TMP/half-rooflens"
chmod +x "$TMP/half-rooflens"
run_action "$PR3" "$TMP/log9" --input "rooflens=$TMP/half-rooflens" --env "ROOFLENS_COMMENT_FILE=$C"
check "an incomplete section fails the job (rc $rc)" test "$rc" -eq 1
check "... and gives the reason" has "$C" "**Could not be produced**: rooflens ended (exit 0) without a complete section."

# ---- 10. 140 models with long paths: the whole body within GitHub's limit
git -C "$R" checkout -q -b pr4 "$(git -C "$R" merge-base "$MAIN" "$PR1")"
LONG="models/$(printf 'a_rather_long_directory_name_%.0s' $(seq 6))"
mkdir -p "$R/$LONG"
for i in $(seq 140); do cp "$M/mlp.onnx" "$R/$LONG/model_$i.onnx"; done
git -C "$R" add -A && git -C "$R" commit -qm "pr4: 140 models"
PR4="$(git -C "$R" rev-parse HEAD)"
git -C "$R" checkout -q pr
run_action "$PR4" "$TMP/log10" --env "ROOFLENS_COMMENT_FILE=$C"
check "140 models: the job passes (rc $rc)" test "$rc" -eq 0
check "140 models: the body is within GitHub's 65,536 characters" "$PY" -c "
import sys; n = len(open('$C', encoding='utf-8').read()); print('body of 140 models:', n, 'characters'); sys.exit(n >= 65536)"
check "140 models: says how many are left out" grep -qE "^[0-9]+ more models are left out .*… and [0-9]+ more\. Run" "$C"

# ---- 6. the comment through a stand-in GitHub API: posted once, then updated
PORT_FILE="$TMP/port"
"$PY" - "$TMP/api.json" "$PORT_FILE" <<'PY' &
import json, sys, http.server
state_file, port_file = sys.argv[1], sys.argv[2]
comments = [{"id": 1, "body": "LGTM, unrelated", "user": {"login": "someone"}},
            {"id": 2, "body": "<!-- rooflens-diff -->\nplanted: Gate passed", "user": {"login": "mallory"}}]
log = []
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def reply(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data))); self.end_headers(); self.wfile.write(data)
        with open(state_file, "w") as f: json.dump({"comments": comments, "log": log}, f)
    def body(self): return json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
    def do_GET(self):
        log.append(["GET", self.path, self.headers.get("Authorization")])
        if self.path == "/user":  # the job's token may not read it
            return self.reply(403, {"message": "Resource not accessible by integration"})
        import urllib.parse
        page = int(urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query).get("page", ["1"])[0])
        self.reply(200, comments[(page - 1) * 100: page * 100] if self.path.startswith("/repos/local/fixture/issues/7/comments") else [])
    def do_POST(self):
        b = self.body(); log.append(["POST", self.path])
        c = {"id": 100 + len(comments), "body": b["body"], "user": {"login": "github-actions[bot]"}}
        comments.append(c); self.reply(201, c)
    def do_PATCH(self):
        b = self.body(); log.append(["PATCH", self.path])
        cid = int(self.path.rsplit("/", 1)[1])
        for c in comments:
            if c["id"] == cid: c["body"] = b["body"]
        self.reply(200, {"id": cid})
srv = http.server.HTTPServer(("127.0.0.1", 0), H)
open(port_file, "w").write(str(srv.server_address[1]))
srv.serve_forever()
PY
MOCK_PID=$!
for _ in $(seq 50); do [[ -s "$PORT_FILE" ]] && break; sleep 0.1; done
API="http://127.0.0.1:$(cat "$PORT_FILE")"
run_action "$PR1" "$TMP/log6" --input "fail-if=time>+500%" --env "GITHUB_API_URL=$API"
check "first run posts, ignoring the planted marker (rc $rc)" has "$TMP/log6" "[rooflens] posted comment 102 on #7"
run_action "$PR2" "$TMP/log7" --input "fail-if=time>+500%" --env "GITHUB_API_URL=$API"
check "second run updates our comment" has "$TMP/log7" "[rooflens] updated comment 102 on #7"
check "one rooflens comment of ours, the others untouched" "$PY" -c "
import json, sys
s = json.load(open('$TMP/api.json'))
ours = [c for c in s['comments'] if c['user']['login'] == 'github-actions[bot]']
assert len(ours) == 1 and len(s['comments']) == 3, s['comments']
assert ours[0]['body'].startswith('<!-- rooflens-diff -->') and 'could not be analysed' in ours[0]['body'], 'the update carries the second run'
assert s['comments'][0]['body'] == 'LGTM, unrelated'
assert s['comments'][1]['body'] == '<!-- rooflens-diff -->\\nplanted: Gate passed', s['comments'][1]
assert [l[0] for l in s['log']] == ['GET', 'GET', 'POST', 'GET', 'GET', 'PATCH'], s['log']
assert s['log'][0][2] == 'Bearer local-test-token', s['log'][0]
assert all(l[1].endswith('/comments/102') for l in s['log'] if l[0] == 'PATCH'), s['log']
"

echo "action: $pass passed, $fails failed"
[[ "$fails" -eq 0 ]]
