// WASM half of tools/bench/scale.sh: reads and analyses each model given on
// the command line with the Node build of the WebAssembly core (the same
// module the page's worker runs), and prints the time and the module's
// memory high-water mark.
//   node tools/bench/scale-wasm.mjs MODEL.onnx...
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadNodeCore } from '../../tests/web/helpers.mjs';

const request = JSON.stringify({
  hardware: {
    id: 'bench', name: 'bench', launch_overhead_s: 1e-6,
    compute: { fp32: { matrix: 1e12, vector: 1e11 } }, memory: [{ bandwidth_Bps: 1e11 }],
  },
});

for (const file of process.argv.slice(2)) {
  const core = await loadNodeCore(); // a fresh module per model: its own memory figures
  const bytes = new Uint8Array(readFileSync(file));
  const t0 = performance.now();
  const r = core.readAll(bytes, 1 << 20);
  const t1 = performance.now();
  if (!r.model) { console.log(`${basename(file)}: read failed ${r.error}`); process.exitCode = 1; continue; }
  const out = core.analyze(r.model, request);
  const t2 = performance.now();
  const res = JSON.parse(out);
  core.freeModel(r.model);
  const mem = core.memory();
  console.log(`wasm  ${basename(file).padEnd(24)} read ${((t1 - t0) / 1e3).toFixed(3)} s  analyse ${((t2 - t1) / 1e3).toFixed(3)} s  ` +
    `total ${((t2 - t0) / 1e3).toFixed(3)} s  layers ${res.ok ? res.layers.length : res.error.code}  ` +
    `response ${(out.length / 1e6).toFixed(1)} MB  heap ${(mem.heap / 2 ** 20).toFixed(0)} MB (malloc peak ${(mem.peak / 2 ** 20).toFixed(0)} MB)`);
  if (!res.ok) process.exitCode = 1;
}
