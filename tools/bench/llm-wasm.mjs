// WebAssembly half of tools/bench/llm.sh view: the time of one analysis with the
// LLM view (the request the page sends for its LLM panel) in the Node build
// of the core, best and median of RUNS, after one warm-up run.
//   node tools/bench/llm-wasm.mjs RUNS MODEL.onnx...
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadNodeCore, ROOT } from '../../tests/web/helpers.mjs';

const runs = Number(process.argv[2]) || 5;
const hardware = JSON.parse(readFileSync(join(ROOT, 'hw/h100-sxm.json'), 'utf8'));
const request = JSON.stringify({ hardware, layers: false, llm: { prompt: 512, generate: 128 } });
const core = await loadNodeCore();
for (const file of process.argv.slice(3)) {
  const r = core.readAll(new Uint8Array(readFileSync(file)), 1 << 20);
  if (!r.model) { console.log(`${basename(file)}: read failed ${r.error}`); process.exitCode = 1; continue; }
  const times = [];
  let res;
  for (let i = 0; i <= runs; i++) {
    const t0 = performance.now();
    res = JSON.parse(core.analyze(r.model, request));
    if (i > 0) times.push((performance.now() - t0) / 1e3);
  }
  core.freeModel(r.model);
  times.sort((a, b) => a - b);
  if (!res.ok) { console.log(`${basename(file)}: ${res.error.code} ${res.error.message}`); process.exitCode = 1; continue; }
  console.log(`wasm  ${basename(file).padEnd(30)} analyse with llm: best ${times[0].toFixed(3)} s, ` +
    `median ${times[Math.floor((times.length - 1) / 2)].toFixed(3)} s (${res.llm.graphs_analysed} graphs)`);
}
