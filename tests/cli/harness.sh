# The small harness the CLI's shell tests share (sourced, not run):
#   check "what" condition...   counts a pass, or prints FAIL: what
#   run OUT ERR args...          runs $CLI with args, stdout to OUT, stderr to
#                                ERR, no stdin; sets rc (a hang is killed
#                                after $RUN_TIMEOUT s, default 20: rc 124)
#   has FILE TEXT                FILE holds TEXT
# It makes $TMP, removed on exit, and counts $pass and $fails.
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
fails=0
pass=0
check() { # check "what" condition...
  local what="$1"; shift
  if "$@"; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $what" >&2; fi
}
run() { # run OUTFILE ERRFILE args... ; sets rc
  local out="$1" err="$2"; shift 2
  timeout "${RUN_TIMEOUT:-20}" "$CLI" "$@" >"$out" 2>"$err" </dev/null
  rc=$?
}
has() { grep -qF -- "$2" "$1"; }
