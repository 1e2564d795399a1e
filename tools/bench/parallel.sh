#!/usr/bin/env bash
# Prints how long an analysis over several devices takes natively: 8B-shaped
# decoders with 32 layers (int4 GenAI and fp16 Hugging Face layouts) with
# --parallel tp=2, the plain analysis beside it, and the LLM view with it.
# Target (issue 23): an 8B decoder with tp=2 analysed in under 0.3 s.
#   tools/bench/parallel.sh [RUNS]        (default 5 runs; the best and the median)
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

printf "%-24s %-40s %10s %10s\n" "model (--hw h100-sxm)" "options" "best s" "median s"
for m in llama-3-8b_genai_int4 llama-3-8b_hf_fp16; do
  for opts in "" "--parallel tp=2" "--parallel tp=2,pp=4 --micro-batches 8" "--llm" "--llm --parallel tp=2"; do
    times=()
    for ((i = 0; i < runs; i++)); do
      # shellcheck disable=SC2086
      t=$( { /usr/bin/time -f "%e" build/rooflens "$dir/$m.onnx" --hw h100-sxm $opts --format json >/dev/null; } 2>&1 | tail -1)
      times+=("$t")
    done
    best=$(printf "%s\n" "${times[@]}" | sort -g | head -1)
    median=$(printf "%s\n" "${times[@]}" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
    printf "%-24s %-40s %10s %10s\n" "$m" "${opts:-(one device)}" "$best" "$median"
  done
done
