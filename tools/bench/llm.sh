#!/usr/bin/env bash
# Prints how long the LLM view takes (rooflens --llm: prefill, the decode
# generation, the batch and context sweeps) for 8B-shaped decoders with 32
# layers, natively and, when build-wasm/ holds the Node build of the core, in
# WebAssembly (the module the page's worker runs). Targets (issue 12): under
# 0.2 s natively for the int4 model, under 0.5 s for the page's panel.
#   tools/bench/llm.sh [RUNS]        (default 5 runs; the best and the median)
# The models are made by tools/make-models/llm_model.py (standard library) into
# build/llm-models/; their weights are external and not written.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-5}
[[ -x build/rooflens ]] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null; cmake --build build -j2 >/dev/null; }
dir=build/llm-models
mkdir -p "$dir"
[[ -f $dir/llama-3-8b_genai_int4.onnx ]] || python3 tools/make-models/llm_model.py --suite "$dir" >/dev/null
[[ -f $dir/llama-3-8b_hf_fp16.onnx ]] || \
  python3 tools/make-models/llm_model.py "$dir/llama-3-8b_hf_fp16.onnx" --layout hf --preset llama-3-8b >/dev/null

printf "%-34s %7s %6s %10s %10s %10s %8s\n" "model (--llm --hw h100-sxm)" nodes graphs "best s" "median s" "cpu s" "RSS MB"
for m in llama-3-8b_genai_int4 llama-3-8b_hf_fp16; do
  f=$dir/$m.onnx
  times=() cpus=() rss=0
  for ((i = 0; i < runs; i++)); do
    out=$( { /usr/bin/time -f "%e %U %S %M" build/rooflens "$f" --llm --hw h100-sxm --format json >/tmp/bench-llm.$$.json; } 2>&1 | tail -1)
    read -r wall user sys kb <<<"$out"
    times+=("$wall")
    cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN{print u+s}')")
    ((kb > rss)) && rss=$kb
  done
  graphs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["llm"]["graphs_analysed"])' /tmp/bench-llm.$$.json)
  nodes=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["model"]["nodes"])' /tmp/bench-llm.$$.json)
  best=$(printf "%s\n" "${times[@]}" | sort -g | head -1)
  median=$(printf "%s\n" "${times[@]}" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
  cpu=$(printf "%s\n" "${cpus[@]}" | sort -g | head -1)
  printf "%-34s %7s %6s %10s %10s %10s %8.1f\n" "$m" "$nodes" "$graphs" "$best" "$median" "$cpu" "$(awk -v k="$rss" 'BEGIN{print k/1024}')"
done
rm -f /tmp/bench-llm.$$.json

if [[ -f build-wasm/wasm/rooflens-node.mjs ]] && command -v node >/dev/null; then
  node tools/bench/llm-wasm.mjs "$runs" "$dir/llama-3-8b_genai_int4.onnx" "$dir/llama-3-8b_hf_fp16.onnx"
else
  echo "(no build-wasm/wasm/rooflens-node.mjs: run tools/build-site.sh for the WebAssembly figures)"
fi
