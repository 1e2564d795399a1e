# Convenience targets over the scripts in tools/ (they do the real work).
#   make          native build: the C core, the CLI (build/rooflens) and the tests
#   make site     the deployable static site in build/site/ (WASM, page, samples)
#   make serve    build the site and serve it on http://localhost:8000/
#   make test     every test (same as tools/test.sh, which CI runs)
#   make bench    the benchmarks (native, then browser)
.PHONY: all native site serve test bench clean

all: native

native:
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
	cmake --build build -j$$(nproc)

site:
	tools/build-site.sh

serve:
	tools/serve.sh

test:
	tools/test.sh

bench: native site
	tools/bench/native.sh
	node tools/bench/browser.mjs

clean:
	rm -rf build build-wasm
