#!/usr/bin/env bash
# run.sh of a fuzz bundle (tools/fuzz/fuzz.sh bundle DIR copies this file there):
#
#   DIR/run.sh TARGET SECONDS [JOBS]
#
# fuzzes TARGET (reader, request, hardware, model, study, calibrate, checkpoint) for SECONDS of wall
# time with JOBS parallel workers (libFuzzer's fork mode when JOBS > 1),
# starting from DIR/corpus/TARGET and DIR/regressions/TARGET. The corpus grows
# in place; crashes, timeouts (> 10 s per input) and OOMs (> 2 GB) land in
# DIR/crashes/TARGET/; the log is DIR/logs/TARGET.log. Prints one summary
# line: executions, corpus size, findings. Exit status 1 when there are
# findings. FUZZ_KEEP_GOING=1 keeps fuzzing after a finding.
set -uo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
TARGET="${1:?usage: run.sh TARGET SECONDS [JOBS]}"
SECS="${2:?usage: run.sh TARGET SECONDS [JOBS]}"
JOBS="${3:-1}"
BIN="$DIR/bin/fuzz_$TARGET"
[[ -x $BIN ]] || { echo "no fuzzer $BIN (targets: $(ls "$DIR/bin" | sed 's/fuzz_//' | tr '\n' ' '))"; exit 2; }
export ROOFLENS_SOURCE_DIR="$DIR/src"
mkdir -p "$DIR/corpus/$TARGET" "$DIR/crashes/$TARGET" "$DIR/logs" "$DIR/regressions/$TARGET"
case "$TARGET" in
reader | model) max_len=131072 ;;
*) max_len=16384 ;;
esac
opts=(-max_total_time="$SECS" -max_len=$max_len -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
      -artifact_prefix="$DIR/crashes/$TARGET/")
[[ $JOBS -gt 1 ]] && opts+=(-fork="$JOBS")
[[ "${FUZZ_KEEP_GOING:-0}" == 1 ]] && opts+=(-fork="$JOBS" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
before=$(ls "$DIR/crashes/$TARGET" | wc -l)
start=$(date +%s)
# the regressions join the run read-only (a second corpus directory is only read)
"$BIN" "${opts[@]}" "$DIR/corpus/$TARGET" "$DIR/regressions/$TARGET" >"$DIR/logs/$TARGET.log" 2>&1
status=$?
took=$(($(date +%s) - start))
after=$(ls "$DIR/crashes/$TARGET" | wc -l)
execs=$(grep -Eo '^stat::number_of_executed_units: [0-9]+' "$DIR/logs/$TARGET.log" | awk '{s+=$2} END {print s+0}')
[[ $execs -gt 0 ]] || execs=$(grep -Eo '^#[0-9]+' "$DIR/logs/$TARGET.log" | tail -1 | tr -d '#')
echo "fuzz_$TARGET: ${took} s, $JOBS worker(s), ${execs:-?} executions, corpus $(ls "$DIR/corpus/$TARGET" | wc -l) inputs," \
  "$((after - before)) new findings (crashes/timeouts/OOMs in crashes/$TARGET/), exit $status"
grep -E "ERROR: |SUMMARY: |runtime error" "$DIR/logs/$TARGET.log" | head -5
[[ $status -eq 0 && $after -eq $before ]]
