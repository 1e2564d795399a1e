#!/usr/bin/env bash
# The header read of a big GGUF file, natively: a sparse Llama-3-70B-shaped
# Q4_K file of about 40 GiB (tests/make_gguf.py --big; the disk holds only
# its header) read N times through the public reader by tools/bench/gguf.c,
# which prints the median time and the peak resident memory. Beside it, the
# same program on the smallest GGUF of the test suite, for the memory a
# read needs whatever the file's size.
#   tools/bench/gguf.sh [--gib 40] [--runs 10]
set -euo pipefail
cd "$(dirname "$0")/../.."
gib=40 runs=10
while (($#)); do
  case "$1" in
    --gib) gib="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -f build/librooflens_core.a ]] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null; cmake --build build -j2 >/dev/null; }
B=build/bench-gguf
mkdir -p "$B"
LIBS="$(pkg-config --libs libcjson libprotobuf-c 2>/dev/null || echo -lcjson -lprotobuf-c) -lm"
cc -O2 -std=c11 -Icore/include tools/bench/gguf.c build/librooflens_core.a $LIBS -o "$B/bench_gguf"
big="$B/big-${gib}g.gguf"
[[ -f $big ]] || /usr/bin/python3 tests/make_gguf.py --big "$big" --gib "$gib"
/usr/bin/python3 tests/make_gguf.py --suite "$B/suite" >/dev/null
echo "$(du -h --apparent-size "$big" | cut -f1) apparent, $(du -h "$big" | cut -f1) on disk: $big"
"$B/bench_gguf" "$big" "$runs"
echo "small file ($(stat -c %s "$B/suite/tiny_q4_0.gguf") bytes):"
"$B/bench_gguf" "$B/suite/tiny_q4_0.gguf" "$runs"
