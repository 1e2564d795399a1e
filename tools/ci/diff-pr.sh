#!/usr/bin/env bash
# The GitHub Action's work (action.yml): diff every ONNX model a pull request
# changes against the base branch with `rooflens diff`, and write one comment
# body of Markdown with a hidden marker (tools/ci/pr-comment.py finds the
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
# Outputs (to $GITHUB_OUTPUT when set, else printed): changed, gate
# (passed | failed | none), message, body. The body also goes to
# $GITHUB_STEP_SUMMARY. Exit 0 whatever the gate says (the Action applies it
# after the comment is posted); 2 when the inputs are wrong (a bad --fail-if,
# an unknown commit).
set -uo pipefail
MARKER='<!-- rooflens-diff -->'
MAX_BODY=60000   # GitHub refuses comments over 65,536 characters

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

# Markdown text from a file name or a message: the characters Markdown acts
# on are escaped and line breaks become spaces (a pull request chooses its
# file names; they must not write the comment).
md() { printf '%s' "$1" | tr '\r\n' '  ' | sed 's/[][\\`*_<#|!~&]/\\&/g'; }

sections="$WORK/sections.md"
: >"$sections"
changed=0 crossed=0 broken=0 left_out=()
add_section() { # add_section FILE NAME: a model's section, unless the body would get too long
  if (( $(wc -c <"$sections") + $(wc -c <"$1") > MAX_BODY )); then left_out+=("$(md "$2")"); return; fi
  { cat "$1"; printf '\n---\n\n'; } >>"$sections"
}
why() { sed "s|$WORK/||g" "$@" 2>/dev/null | head -c 600; }

# -z: file names exactly as stored, whatever characters they hold
while IFS= read -r -d '' status; do
  IFS= read -r -d '' a || break
  b="$a"
  [[ "$status" == R* || "$status" == C* ]] && { IFS= read -r -d '' b || break; }
  changed=$((changed + 1))
  old_path="$a" new_path="$b"
  sec="$WORK/section.md"
  rm -f "$WORK"/*.why
  case "$status" in
    D)
      printf '### rooflens: %s\n\nRemoved in this pull request.\n' "$(md "$old_path")" >"$sec" ;;
    A)
      # analysed under its own relative path, so the row names it (escaped by rooflens)
      tree="$WORK/tree"
      rm -rf "$tree" && mkdir -p "$tree/$(dirname -- "$new_path")"
      if extract "$HEAD_SHA" "$new_path" "$tree/$new_path"; then
        { printf '### rooflens: %s (new in this pull request)\n\n' "$(md "$new_path")"
          (cd "$tree" && "$ROOFLENS" batch --hw "$HW" "${OPTIONS[@]}" --format markdown -- "$new_path" 2>/dev/null)
        } >"$sec"
        grep -q 'could not be analysed' "$sec" && broken=$((broken + 1))
      else
        printf '### rooflens: %s\n\nCould not be read from %s: %s\n' "$(md "$new_path")" "$(short "$HEAD_SHA")" \
          "$(md "$(why "$tree/$new_path.why")")" >"$sec"
        broken=$((broken + 1))
      fi ;;
    *)
      if ! extract "$BASE" "$old_path" "$WORK/old.onnx" || ! extract "$HEAD_SHA" "$new_path" "$WORK/new.onnx"; then
        printf '### rooflens: %s\n\nCould not be read from git: %s\n' "$(md "$new_path")" "$(md "$(why "$WORK"/*.why)")" >"$sec"
        broken=$((broken + 1))
      else
        "$ROOFLENS" diff "$WORK/old.onnx" "$WORK/new.onnx" --hw "$HW" "${OPTIONS[@]}" "${FAIL_ARGS[@]}" --format markdown \
          --label-old "$old_path@$(short "$BASE")" --label-new "$new_path@$(short "$HEAD_SHA")" >"$sec" 2>"$WORK/err"
        rc=$?
        case $rc in
          0) ;;
          5) crossed=$((crossed + 1)) ;;
          2) die "rooflens refused the options: $(why "$WORK/err" | tr '\n' ' ')" ;;
          *) printf '### rooflens: %s\n\nCould not be analysed: %s\n' "$(md "$new_path")" "$(md "$(why "$WORK/err")")" >"$sec"
             broken=$((broken + 1)) ;;
        esac
      fi ;;
  esac
  add_section "$sec" "$new_path"
done < <(git diff -z --name-status --find-renames "$BASE" "$HEAD_SHA" -- "${PATHSPECS[@]}")

if (( changed == 0 )); then gate=none; message="no ONNX model changed"
elif (( crossed + broken > 0 )); then
  gate=failed
  message="$crossed of $changed changed models crossed a threshold ($ROOFLENS_FAIL_IF)"
  (( broken )) && message="$message; $broken could not be analysed"
elif [[ -n "${ROOFLENS_FAIL_IF:-}" ]]; then gate=passed; message="every threshold holds ($ROOFLENS_FAIL_IF)"
else gate=none; message="no thresholds set"
fi
[[ "$gate" == failed && $crossed -eq 0 ]] && message="$broken of $changed changed models could not be analysed"

{
  echo "$MARKER"
  printf '## rooflens: %d ONNX model%s changed\n\n' "$changed" "$([[ $changed == 1 ]] || echo s)"
  printf 'Hardware %s' "$(md "$(basename -- "$HW" .json)")"
  (( ${#OPTIONS[@]} )) && printf ', options %s' "$(md "${OPTIONS[*]}")"
  printf ', base %s, head %s. ' "$(short "$BASE")" "$(short "$HEAD_SHA")"
  case "$gate" in
    passed) printf '**Gate: passed** (%s).\n\n' "$(md "$ROOFLENS_FAIL_IF")" ;;
    failed) printf '**Gate: failed**: %s.\n\n' "$(md "$message")" ;;
    *) printf '\n\n' ;;
  esac
  cat "$sections"
  if (( ${#left_out[@]} )); then
    printf '%d more models are left out to keep this comment within GitHub'"'"'s size limit: %s. Run `rooflens diff` on them.\n' \
      "${#left_out[@]}" "${left_out[*]}"
  fi
  echo "<sub>rooflens $("$ROOFLENS" --version | cut -d' ' -f2): predicted by the roofline model, not measured.</sub>"
} >"$BODY"

[[ -n "${GITHUB_STEP_SUMMARY:-}" ]] && cat "$BODY" >>"$GITHUB_STEP_SUMMARY"
out changed "$changed"
out gate "$gate"
out message "$message"
out body "$BODY"
echo "[rooflens] $changed changed models: gate $gate ($message)"
