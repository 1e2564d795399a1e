#!/usr/bin/env node
// Measures the two layout libraries the graph view could use, elkjs (layered)
// and @dagrejs/dagre, on the graphs the page lays out: each model's graph as
// it opens (collapsed to web/js/graph-model.js's OPEN_BUDGET boxes) and fully
// expanded where that is feasible. Prints medians of RUNS in Node (the same
// JavaScript engine as the page's worker) and asserts nothing.
//
//   node tools/bench/graph-layout.mjs [--runs N] [--full-limit N]
// Needs build-wasm (tools/build-site.sh) and the models of tools/bench/browser.mjs
// in build/bench/ (it makes them when missing).
import { existsSync, readFileSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import ELK from 'elkjs/lib/elk.bundled.js';
import { ROOT, loadNodeCore } from '../../tests/web/helpers.mjs';
import { GraphModel } from '../../web/js/graph-model.js';
import { layoutDagre } from '../../web/js/layout.js';
import { writeHugeModel } from '../make-models/huge-model.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? Number(args[i + 1]) : dflt; };
const runs = opt('runs', 3);
const fullLimit = opt('full-limit', 3000);   // fully expanded layouts above this many boxes are skipped (minutes)
const BENCH = join(ROOT, 'build/bench');
mkdirSync(BENCH, { recursive: true });
function model(name, extra) {
  const p = join(BENCH, `graph-${name}.onnx`);   // the graph only: weights external, not written
  if (!existsSync(p)) {
    if (name === 'nodes100k') writeHugeModel(p, { bytes: 50000 * 16, hidden: 2 });
    else execFileSync('/usr/bin/python3', [join(ROOT, 'tools/make-models/big_model.py'), '--external', '--no-data', p, ...extra], { stdio: 'inherit' });
  }
  return p;
}
const MODELS = [
  ['ResNet-50', () => model('resnet50', ['--arch', 'resnet50'])],
  ['BERT-Large', () => model('bert_large', [])],
  ['Swin-T-sized transformer', () => model('swin_like', ['--layers', '130', '--hidden', '96', '--heads', '3', '--ff', '384', '--vocab', '1000', '--max-pos', '64', '--seq', '49'])],
  ['100,000-node chain', () => model('nodes100k')],
];
const profile = readFileSync(join(ROOT, 'hw/h100-sxm.json'), 'utf8');
const core = await loadNodeCore();
const elk = new ELK();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

async function timeIt(fn) {
  const t = [];
  for (let r = 0; r < runs; r++) { const t0 = performance.now(); await fn(); t.push(performance.now() - t0); }
  return median(t);
}

function elkLayout(boxes, edges) {
  return elk.layout({
    id: 'g', layoutOptions: { 'elk.algorithm': 'layered', 'elk.direction': 'DOWN' },
    children: boxes.map((b, i) => ({ id: String(i), width: b.w, height: b.h })),
    edges: edges.map(([a, b], i) => ({ id: `e${i}`, sources: [String(a)], targets: [String(b)] })),
  });
}

console.log(`graph layout, median of ${runs} runs; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log('| model | layers | view | boxes | edges | dagre | elkjs |\n| --- | ---: | --- | ---: | ---: | ---: | ---: |');
for (const [name, path] of MODELS) {
  const bytes = readFileSync(path());
  const { model: m } = core.readAll(new Uint8Array(bytes));
  const res = JSON.parse(core.analyze(m, JSON.stringify({ hardware: JSON.parse(profile), graph: true })));
  core.freeModel(m);
  if (!res.ok) throw new Error(`${name}: ${res.error.message}`);
  const gm = new GraphModel(res.graph, res.layers);
  const views = [['opened', gm.initialExpanded()], ['expanded', new Set(gm.nodes.keys())]];
  for (const [view, open] of views) {
    const v = gm.visible(open);
    const boxes = v.boxes.map(() => ({ w: 150, h: 40 }));
    const edges = v.edges.map((e) => [e.from, e.to]);
    if (boxes.length > fullLimit) {
      console.log(`| ${name} | ${res.layers.length} | ${view} | ${boxes.length} | ${edges.length} | skipped | skipped |`);
      continue;
    }
    const d = await timeIt(() => layoutDagre(boxes, edges));
    const e = await timeIt(() => elkLayout(boxes, edges));
    console.log(`| ${name} | ${res.layers.length} | ${view} | ${boxes.length} | ${edges.length} | ${d.toFixed(0)} ms | ${e.toFixed(0)} ms |`);
  }
}
