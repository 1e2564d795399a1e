#!/usr/bin/env bash
# The GitHub Action (action.yml) exercised without GitHub: a fixture git
# repository in a temp dir gets a base branch and a pull request that widens
# a model's layers (and swaps an op for an unsupported one), adds a model,
# deletes one and renames one; tools/ci/run-action.py runs the Action's own
# steps on it, with the comment written to a file, and this script checks
# the comment body, the outputs and the gate. It then posts the comment
# twice through a stand-in GitHub API and checks that the second run updates
# the one comment instead of adding another.
#   tools/test-action.sh [path/to/rooflens]     (default build/rooflens)
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
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
echo "models" >"$R/README.md"
git -C "$R" add -A && git -C "$R" commit -qm base
git -C "$R" checkout -q -b pr
cp "$M/diff_new.onnx" "$R/models/classifier.onnx"
cp "$M/einsum.onnx" "$R/models/new_head.onnx"
git -C "$R" rm -q models/to_delete.onnx
mkdir -p "$R/models/renamed" && git -C "$R" mv models/mlp.onnx models/renamed/mlp.onnx
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
  "$PY" "$ROOT/tools/ci/run-action.py" --workspace "$R" --event "$(event "$head")" \
    --input "rooflens=$CLI" --input "hw=$ROOT/tests/hw/unit.json" "$@" >"$log" 2>&1
  rc=$?
}

# ---- 1. thresholds crossed: the comment, the outputs, a failed job
C="$TMP/comment.md"
run_action "$PR1" "$TMP/log1" --input "fail-if=time>+5%,unsupported>0" --env "ROOFLENS_COMMENT_FILE=$C"
check "crossed thresholds fail the job (rc $rc)" test "$rc" -eq 1
check "the gate step is what failed" has "$TMP/log1" "step failed (1): Apply the gate"
check "outputs: 4 changed models" has "$TMP/log1" "steps.diff.outputs.changed=4"
check "outputs: gate failed" has "$TMP/log1" "steps.diff.outputs.gate=failed"
check "the build was skipped (a binary was given)" has "$TMP/log1" "skip: Build rooflens"
check "the comment was written" test -s "$C"
check "comment: the hidden marker first" test "$(head -1 "$C")" = "<!-- rooflens-diff -->"
check "comment: headline" has "$C" "## rooflens: 4 ONNX models changed"
check "comment: gate verdict" has "$C" "**Gate: failed**: 1 of 4 changed models crossed a threshold (time>+5%,unsupported>0)"
base_short="$(git -C "$R" rev-parse --short "$(git -C "$R" merge-base "$MAIN" "$PR1")")"
check "comment: diffed against the merge base, not main's tip" has "$C" "### rooflens: models/classifier.onnx@$base_short → models/classifier.onnx@$(git -C "$R" rev-parse --short "$PR1")"
check "comment: the widened layer's deltas" has "$C" "| fc1 | Gemm | 338 ns → 666 ns | +328 ns (+97.0%) | +66 kFLOP (+100%) | +35.3 kB (+97.2%) | memory |"
check "comment: the added layer" has "$C" "| fc\\_extra *(added)* | Gemm |"
check "comment: the swapped op" has "$C" "| act | Relu → MyOp |"
check "comment: newly unsupported" has "$C" "**Newly unsupported** (rooflens counts zero FLOPs for an operator it does not know): act (com.example.MyOp)"
check "comment: new warning" has "$C" "- unsupported\\_op: operator com.example.MyOp"
check "comment: the crossed thresholds" has "$C" '- `unsupported>0`: unsupported 1 exceeds 0'
check "comment: the added model" has "$C" "### rooflens: models/new\\_head.onnx (new in this pull request)"
check "comment: the added model's row" grep -qF "| models/new\\_head.onnx | 2 | 20.7 kFLOP |" "$C"
check "comment: the deleted model" has "$C" "### rooflens: models/to\\_delete.onnx"
check "comment: the renamed model diffed across the rename" has "$C" "models/mlp.onnx@$base_short → models/renamed/mlp.onnx@"
check "comment: an unchanged model says so" has "$C" "No layer changed its work"
check "comment: no temp paths leak" bash -c "! grep -q '/tmp/' '$C'"
check "comment: within GitHub's limit" test "$(wc -c <"$C")" -lt 65536
check "the job summary has the body too" has "$TMP/log1" "run: Post or update the pull-request comment"

# ---- 2. thresholds that hold: the job passes
run_action "$PR1" "$TMP/log2" --input "fail-if=time>+500%,unsupported>5" --env "ROOFLENS_COMMENT_FILE=$C"
check "thresholds that hold pass (rc $rc)" test "$rc" -eq 0
check "gate passed" has "$TMP/log2" "steps.diff.outputs.gate=passed"
check "comment: gate passed" has "$C" '**Gate: passed** (time>+500%,unsupported>5)'

# ---- 3. a model the pull request breaks fails the gate even without thresholds
run_action "$PR2" "$TMP/log3" --env "ROOFLENS_COMMENT_FILE=$C"
check "an unreadable model fails the job (rc $rc)" test "$rc" -eq 1
check "comment: the broken model is reported" grep -qE "models/new\\\\_head.onnx \| could not be analysed: .*(truncated|end of the file)" "$C"
check "comment: the other models are still diffed" has "$C" "### rooflens: models/classifier.onnx@"

# ---- 4. a bad threshold is a clear error, not a silent pass
run_action "$PR1" "$TMP/log4" --input "fail-if=time>>5%" --env "ROOFLENS_COMMENT_FILE=$C"
check "a bad --fail-if fails the job (rc $rc)" test "$rc" -ne 0
check "and says what is wrong" has "$TMP/log4" "expected a number after 'time>'"

# ---- 5. a pull request without model changes: no comment
run_action "$(git -C "$R" rev-parse main)" "$TMP/log5" --input "fail-if=time>+5%"
check "no model changed: the job passes (rc $rc)" test "$rc" -eq 0
check "no model changed: no comment" has "$TMP/log5" "skip: Post or update the pull-request comment"

# ---- 6. the comment through a stand-in GitHub API: posted once, then updated
PORT_FILE="$TMP/port"
"$PY" - "$TMP/api.json" "$PORT_FILE" <<'PY' &
import json, sys, http.server
state_file, port_file = sys.argv[1], sys.argv[2]
comments = [{"id": 1, "body": "LGTM, unrelated", "user": {"login": "someone"}}]
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
check "first run posts (rc $rc)" has "$TMP/log6" "[rooflens] posted comment 101 on #7"
run_action "$PR2" "$TMP/log7" --input "fail-if=time>+500%" --env "GITHUB_API_URL=$API"
check "second run updates the same comment" has "$TMP/log7" "[rooflens] updated comment 101 on #7"
check "one rooflens comment, the unrelated one untouched" "$PY" -c "
import json, sys
s = json.load(open('$TMP/api.json'))
ours = [c for c in s['comments'] if '<!-- rooflens-diff -->' in c['body']]
assert len(ours) == 1 and len(s['comments']) == 2, s['comments']
assert 'could not be analysed' in ours[0]['body'], 'the update carries the second run'
assert s['comments'][0]['body'] == 'LGTM, unrelated'
assert [l[0] for l in s['log']] == ['GET', 'POST', 'GET', 'PATCH'], s['log']
assert s['log'][0][2] == 'Bearer local-test-token', s['log'][0]
"

echo "action: $pass passed, $fails failed"
[[ "$fails" -eq 0 ]]
