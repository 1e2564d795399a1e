#!/usr/bin/env bash
# How long the CLI takes on 8B-shaped decoders with 32 layers (the int4
# GenAI and the fp16 Hugging Face layouts), natively, under the h100-sxm
# profile; the best and the median wall time of RUNS runs (default 5).
#
#   tools/bench/llm.sh view [RUNS]      the LLM view (--llm: prefill, the decode
#       generation, the batch and context sweeps), with its CPU time and peak
#       memory; then, when build-wasm/ holds the Node build of the core, the
#       same in WebAssembly (the module the page's worker runs). Targets
#       (issue 12): under 0.2 s natively for the int4 model, under 0.5 s for
#       the page's panel.
#   tools/bench/llm.sh parallel [RUNS]  an analysis over several devices
#       (--parallel tp=2, tp=2,pp=4), the plain analysis beside it, and the
#       LLM view with it. Target (issue 23): an 8B decoder with tp=2 analysed
#       in under 0.3 s.
#
# The models are made by tools/make-models/llm_model.py (standard library) into
# build/llm-models/; their weights are external and not written.
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=${1:-}
runs=${2:-5}
[[ $mode == view || $mode == parallel ]] || { sed -n '6,15p' "$0" >&2; exit 2; }
[[ -x build/rooflens ]] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null; cmake --build build -j2 >/dev/null; }
dir=build/llm-models
models=(llama-3-8b_genai_int4 llama-3-8b_hf_fp16)
mkdir -p "$dir"
[[ -f $dir/llama-3-8b_genai_int4.onnx ]] || python3 tools/make-models/llm_model.py --suite "$dir" >/dev/null
[[ -f $dir/llama-3-8b_hf_fp16.onnx ]] || \
  python3 tools/make-models/llm_model.py "$dir/llama-3-8b_hf_fp16.onnx" --layout hf --preset llama-3-8b >/dev/null
answer=$(mktemp)
trap 'rm -f "$answer"' EXIT

# Runs the CLI RUNS times with these arguments, its answer into $answer;
# sets best and median (wall s), cpu (the least user + system s) and rss_mb
# (the largest peak resident memory).
time_cli() {
  local wall user sys kb times=() cpus=() rss_kb=0
  for ((i = 0; i < runs; i++)); do
    read -r wall user sys kb <<<"$( { /usr/bin/time -f "%e %U %S %M" build/rooflens "$@" --format json >"$answer"; } 2>&1 | tail -1)"
    times+=("$wall")
    cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN{print u+s}')")
    ((kb > rss_kb)) && rss_kb=$kb
  done
  best=$(printf "%s\n" "${times[@]}" | sort -g | head -1)
  median=$(printf "%s\n" "${times[@]}" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
  cpu=$(printf "%s\n" "${cpus[@]}" | sort -g | head -1)
  rss_mb=$(awk -v k="$rss_kb" 'BEGIN{printf "%.1f", k/1024}')
}

# The answer's field at this path of keys: answer_field model nodes
answer_field() { python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2:]: v = v[k]
print(v)' "$answer" "$@"; }

if [[ $mode == view ]]; then
  printf "%-34s %7s %6s %10s %10s %10s %8s\n" "model (--llm --hw h100-sxm)" nodes graphs "best s" "median s" "cpu s" "RSS MB"
  for m in "${models[@]}"; do
    time_cli "$dir/$m.onnx" --llm --hw h100-sxm
    printf "%-34s %7s %6s %10s %10s %10s %8s\n" "$m" "$(answer_field model nodes)" \
      "$(answer_field llm graphs_analysed)" "$best" "$median" "$cpu" "$rss_mb"
  done
  if [[ -f build-wasm/wasm/rooflens-node.mjs ]] && command -v node >/dev/null; then
    node tools/bench/llm-wasm.mjs "$runs" "$dir/${models[0]}.onnx" "$dir/${models[1]}.onnx"
  else
    echo "(no build-wasm/wasm/rooflens-node.mjs: run tools/build-site.sh for the WebAssembly figures)"
  fi
else
  printf "%-24s %-40s %10s %10s\n" "model (--hw h100-sxm)" "options" "best s" "median s"
  for m in "${models[@]}"; do
    for opts in "" "--parallel tp=2" "--parallel tp=2,pp=4 --micro-batches 8" "--llm" "--llm --parallel tp=2"; do
      # shellcheck disable=SC2086
      time_cli "$dir/$m.onnx" --hw h100-sxm $opts
      printf "%-24s %-40s %10s %10s\n" "$m" "${opts:-(one device)}" "$best" "$median"
    done
  done
fi
