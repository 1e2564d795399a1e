#!/usr/bin/env bash
# The GitHub Action's work (action.yml): diff every ONNX model a pull request
# changes against the base branch with `rooflens diff`, and write one comment
# body of Markdown with a hidden marker (tools/ci/pr_comment.py finds the
# comment by it). Reads the commits from git, not from the working tree, so
# it works whatever is checked out.
#
# Environment (all but BASE_SHA optional):
#   ROOFLENS          the rooflens binary (default: rooflens on PATH)
#   BASE_SHA          the base branch's commit; the models are compared with
#                     the merge base of BASE_SHA and HEAD_SHA, as GitHub shows
#   HEAD_SHA          the pull request's commit (default HEAD)
#   ROOFLENS_HW       hardware profile id or file (default h100-sxm)
#   ROOFLENS_OPTIONS  more rooflens options, split on spaces
#   ROOFLENS_FAIL_IF  thresholds (docs/ci.md); a crossed one makes gate=failed
#   ROOFLENS_PATHS    git pathspecs of the models (default '*.onnx')
#   ROOFLENS_BODY     where to write the comment (default rooflens-comment.md)
#   ROOFLENS_PAGE_URL the rooflens page (https://...): each changed model's
#                     section links to the page's graph of the change
#   ROOFLENS_MODEL_URL where the page fetches a model from, {repo} {sha}
#                     {path} filled in (default: raw.githubusercontent.com,
#                     which serves a public repository's files with CORS)
# Outputs (to $GITHUB_OUTPUT when set, else printed): changed, gate
# (passed | failed | none), message, body. The body also goes to
# $GITHUB_STEP_SUMMARY. Exit 0 whatever the gate says (the Action applies it
# after the comment is posted); 2 when the inputs are wrong (a bad --fail-if,
# an unknown commit).
set -uo pipefail
MARKER='<!-- rooflens-diff -->'
MAX_SECTIONS=56000  # GitHub refuses comments over 65,536 characters: room for the rest
MAX_LEFT_OUT=2000   # bytes of the list of models left out
MAX_SHOWN=200       # characters of a file name, an option list or a threshold list shown
# characters, not bytes, in ${s:0:N}: a cut never splits one
export LC_ALL=C.UTF-8

ROOFLENS="${ROOFLENS:-rooflens}"
HEAD_SHA="${HEAD_SHA:-HEAD}"
HW="${ROOFLENS_HW:-h100-sxm}"
BODY="${ROOFLENS_BODY:-rooflens-comment.md}"
read -r -a OPTIONS <<<"${ROOFLENS_OPTIONS:-}"
read -r -a PATHSPECS <<<"${ROOFLENS_PATHS:-*.onnx}"
FAIL_ARGS=()
[[ -n "${ROOFLENS_FAIL_IF:-}" ]] && FAIL_ARGS=(--fail-if "$ROOFLENS_FAIL_IF")

out() { # out NAME VALUE: a step output
  if [[ -n "${GITHUB_OUTPUT:-}" ]]; then printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"; else printf '%s=%s\n' "$1" "$2"; fi
}
die() { echo "::error title=rooflens::$*" >&2; out gate failed; out changed 0; out message "$*"; exit 2; }

# A relative `rooflens:` path is the workspace's; resolve it once, so it
# holds whatever directory a command runs in.
if [[ "$ROOFLENS" == */* ]]; then ROOFLENS="$(realpath -- "$ROOFLENS" 2>/dev/null || echo "$ROOFLENS")"; fi
"$ROOFLENS" --version >/dev/null 2>&1 || die "no working rooflens at '$ROOFLENS' (the rooflens input, or the build step)"
[[ -n "${BASE_SHA:-}" ]] || die "no base commit: run on a pull_request event, or set BASE_SHA"
for c in "$BASE_SHA" "$HEAD_SHA"; do
  git cat-file -e "$c^{commit}" 2>/dev/null || git fetch --quiet --no-tags origin "$c" 2>/dev/null ||
    die "commit $c is not in the checkout: use actions/checkout with fetch-depth: 0"
done
BASE="$(git merge-base "$BASE_SHA" "$HEAD_SHA" 2>/dev/null || echo "$BASE_SHA")"
short() { git rev-parse --short "$1"; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# A model from a commit; a Git LFS pointer is smudged into its content.
extract() { # extract COMMIT PATH DEST
  git show "$1:$2" >"$3" 2>/dev/null || return 1
  if head -c 100 "$3" | grep -q '^version https://git-lfs'; then
    git lfs version >/dev/null 2>&1 || { echo "stored with Git LFS, and git-lfs is not installed" >"$3.why"; return 1; }
    git lfs smudge -- "$2" <"$3" >"$3.lfs" 2>"$3.why" && mv "$3.lfs" "$3" || return 1
  fi
}

# Markdown text from a file name or a message, cut at MAX_SHOWN characters:
# line breaks become spaces, the characters Markdown acts on are escaped,
# and @-mentions, bare links (://, www.), issue references (#) and math ($)
# are broken as the core breaks them in model strings (core/src/diff_md.c:
# a zero-width space after @, # and the colon of ://, inside www.; \$). A
# pull request chooses its file names; they must not write the comment.
ZWSP=$'\xe2\x80\x8b'
md() { # md TEXT [MAX_CHARACTERS]
  local s="${1//[$'\r\n\t']/ }" max="${2:-$MAX_SHOWN}"
  (( ${#s} > max )) && s="${s:0:max}…"
  printf '%s' "$s" | sed -e 's/[][\\`*_<#|!~&$]/\\&/g' -e "s/[@#]/&$ZWSP/g" -e "s|://|:$ZWSP//|g" -e "s/\([Ww][Ww][Ww]\)\./\1$ZWSP./g"
}

sections="$WORK/sections.md"
: >"$sections"
changed=0 crossed=0 broken=0 judged=0 removed=0 left_out=() not_judged=()
add_section() { # add_section FILE NAME: a model's section, unless the body would get too long
  if (( $(wc -c <"$sections") + $(wc -c <"$1") > MAX_SECTIONS )); then left_out+=("$(md "$2")"); return; fi
  { cat "$1"; printf '\n---\n\n'; } >>"$sections"
}
# What a command said, with the temp files named as the models they hold.
why() { # why FILE...
  local text
  text="$(cat -- "$@" 2>/dev/null | head -c 2000)"
  text="${text//"$WORK/new.onnx"/"${new_path:-new}"}"
  text="${text//"$WORK/old.onnx"/"${old_path:-old}"}"
  printf '%s' "${text//"$WORK/"/}"
}

# One model through `rooflens diff` (OLD /dev/null: a new model, judged
# without a base). The section is the core's Markdown, which ends with its
# verdict line; a section without one was not produced, and says why.
run_diff() { # run_diff OLD NEW NAME [diff options]...
  local old="$1" new="$2" name="$3"; shift 3
  "$ROOFLENS" diff "$old" "$new" --hw "$HW" "${OPTIONS[@]}" "${FAIL_ARGS[@]}" "$@" --format markdown >"$sec" 2>"$WORK/err"
  local rc=$? verdict
  verdict="$(grep -o '^<!-- rooflens-gate: [a-z-]* -->$' "$sec" | tail -1 | cut -d' ' -f3)"
  case $rc in
    2) die "rooflens refused the options: $(why "$WORK/err" | tr '\n' ' ')" ;;
    0|4|5) if [[ -z "$verdict" ]]; then
        printf '### rooflens: %s\n\n**Could not be produced**: rooflens ended (exit %d) without a complete section. %s\n' \
          "$(md "$name")" "$rc" "$(md "$(why "$WORK/err")" 600)" >"$sec"
        broken=$((broken + 1)); return
      fi ;;
    *) printf '### rooflens: %s\n\n**Could not be analysed**: %s\n' "$(md "$name")" "$(md "$(why "$WORK/err")" 600)" >"$sec"
       broken=$((broken + 1)); return ;;
  esac
  # --strict: the section is whole, and the model is incompletely analysed
  (( rc == 4 )) && { printf '\n**Incomplete** (`--strict`): %s\n' "$(md "$(why "$WORK/err")" 600)" >>"$sec"; broken=$((broken + 1)); }
  case "$verdict" in
    failed) crossed=$((crossed + 1)) ;;
    passed) judged=$((judged + 1)) ;;
    not-judged) not_judged+=("$(md "$name")") ;;
  esac
}

# A path in a URL: every byte but A-Z a-z 0-9 . _ ~ / - percent-encoded.
url_path() { # url_path PATH
  local LC_ALL=C s="$1" i c out=""  # bytes, not characters
  for (( i = 0; i < ${#s}; i++ )); do
    c="${s:i:1}"
    case "$c" in [A-Za-z0-9._~/-]) out+="$c" ;; *) out+="$(printf '%%%02X' "'$c")" ;; esac
  done
  printf '%s' "$out"
}
# The page's link to the graph of the change: both models by URL (docs/ci.md).
model_url() { # model_url SHA PATH
  local raw='https://raw.githubusercontent.com/{repo}/{sha}/{path}'
  local t="${ROOFLENS_MODEL_URL:-$raw}"
  t="${t//\{repo\}/${GITHUB_REPOSITORY:-}}"; t="${t//\{sha\}/$1}"
  printf '%s' "${t//\{path\}/$(url_path "$2")}"
}

# -z: file names exactly as stored, whatever characters they hold
while IFS= read -r -d '' status; do
  IFS= read -r -d '' a || break
  b="$a"
  [[ "$status" == R* || "$status" == C* ]] && { IFS= read -r -d '' b || break; }
  changed=$((changed + 1))
  old_path="$a" new_path="$b"
  sec="$WORK/section.md"
  rm -f "$WORK"/*.why
  LINK_ARGS=()
  [[ -n "${ROOFLENS_PAGE_URL:-}" ]] && LINK_ARGS=(--page-url "$ROOFLENS_PAGE_URL"
    --old-url "$(model_url "$(git rev-parse "$BASE")" "$old_path")" --new-url "$(model_url "$(git rev-parse "$HEAD_SHA")" "$new_path")")
  case "$status" in
    D)
      removed=$((removed + 1))
      printf '### rooflens: %s (removed)\n\nRemoved in this pull request: nothing to judge.\n' "$(md "$old_path")" >"$sec" ;;
    A)
      if extract "$HEAD_SHA" "$new_path" "$WORK/new.onnx"; then
        run_diff /dev/null "$WORK/new.onnx" "$new_path" --label-new "$new_path@$(short "$HEAD_SHA")"
      else
        printf '### rooflens: %s\n\n**Could not be read** from %s: %s\n' "$(md "$new_path")" "$(short "$HEAD_SHA")" \
          "$(md "$(why "$WORK/new.onnx.why")" 600)" >"$sec"
        broken=$((broken + 1))
      fi ;;
    *)
      if ! extract "$BASE" "$old_path" "$WORK/old.onnx" || ! extract "$HEAD_SHA" "$new_path" "$WORK/new.onnx"; then
        printf '### rooflens: %s\n\n**Could not be read** from git: %s\n' "$(md "$new_path")" "$(md "$(why "$WORK"/*.why)" 600)" >"$sec"
        broken=$((broken + 1))
      else
        run_diff "$WORK/old.onnx" "$WORK/new.onnx" "$new_path" \
          --label-old "$old_path@$(short "$BASE")" --label-new "$new_path@$(short "$HEAD_SHA")" "${LINK_ARGS[@]}"
      fi ;;
  esac
  add_section "$sec" "$new_path"
done < <(git diff -z --name-status --find-renames "$BASE" "$HEAD_SHA" -- "${PATHSPECS[@]}")

# The verdict over every model: failed when one crossed a threshold or could
# not be analysed; passed only when a threshold was judged somewhere; a pull
# request of new and removed models only, with thresholds that need a base,
# is "none" and says so, never "passed".
if (( changed == 0 )); then gate=none; message="no ONNX model changed"
elif (( crossed + broken > 0 )); then
  gate=failed message=""
  (( crossed )) && message="$crossed of $changed changed models crossed a threshold (${ROOFLENS_FAIL_IF:-})"
  (( broken )) && message="${message:+$message; }$broken of $changed could not be analysed"
elif [[ -z "${ROOFLENS_FAIL_IF:-}" ]]; then gate=none; message="no thresholds set"
elif (( judged == 0 )); then
  gate=none
  message="no threshold could be judged: ${#not_judged[@]} new and $removed removed models, and ${ROOFLENS_FAIL_IF} needs a base"
else gate=passed; message="every threshold judged holds (${ROOFLENS_FAIL_IF})"
fi
(( ${#not_judged[@]} )) && [[ "$gate" != none ]] && message="$message; not judged on ${#not_judged[@]} new models (no base)"

# The list of left-out models, capped like every list of the comment.
left_out_text() {
  local text="" n=0
  for name in "${left_out[@]}"; do
    (( ${#text} + ${#name} > MAX_LEFT_OUT )) && break
    text+="${text:+, }$name"; n=$((n + 1))
  done
  (( n < ${#left_out[@]} )) && text+=", … and $(( ${#left_out[@]} - n )) more"
  printf '%s' "$text"
}

{
  echo "$MARKER"
  printf '## rooflens: %d ONNX model%s changed\n\n' "$changed" "$([[ $changed == 1 ]] || echo s)"
  printf 'Hardware %s' "$(md "$(basename -- "$HW" .json)")"
  (( ${#OPTIONS[@]} )) && printf ', options %s' "$(md "${OPTIONS[*]}")"
  printf ', base %s, head %s. ' "$(short "$BASE")" "$(short "$HEAD_SHA")"
  case "$gate" in
    passed) printf '**Gate: passed** (%s).\n\n' "$(md "$message")" ;;
    failed) printf '**Gate: failed**: %s.\n\n' "$(md "$message")" ;;
    *) if [[ -n "${ROOFLENS_FAIL_IF:-}" ]]; then printf '**Gate: not judged**: %s.\n\n' "$(md "$message")"; else printf '\n\n'; fi ;;
  esac
  cat "$sections"
  if (( ${#left_out[@]} )); then
    printf '%d more models are left out to keep this comment within GitHub'"'"'s size limit: %s. Run `rooflens diff` on them.\n\n' \
      "${#left_out[@]}" "$(left_out_text)"
  fi
  echo "<sub>rooflens $("$ROOFLENS" --version | cut -d' ' -f2): predicted by the roofline model, not measured.</sub>"
} >"$BODY"

[[ -n "${GITHUB_STEP_SUMMARY:-}" ]] && cat "$BODY" >>"$GITHUB_STEP_SUMMARY"
out changed "$changed"
out gate "$gate"
out message "$message"
out body "$BODY"
echo "[rooflens] $changed changed models: gate $gate ($message)"
