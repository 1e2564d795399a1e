#!/usr/bin/env node
// Browser benchmark of the graph view (issue 28), timed from outside the page
// as a user sees it, in headless Chromium on localhost: a model is dropped on
// the page, and the clock runs from the frame the summary shows its layers to
// the frame the graph view has drawn its boxes. Then a closed module is
// opened: from the click to the frame it is drawn open; and another, the
// pointer resting on it 150 ms before the click (the view lays it out then). Medians of RUNS;
// prints figures and asserts nothing (the load average is printed with them).
// Targets: the graph within 1 s of the summary (ResNet-50, Swin-T-sized
// collapsed, BERT-Large), an expand under 200 ms, the 100,000-node graph
// collapsed within 2 s of its summary.
//
//   node tools/bench/graph.mjs [--runs N] [--only NAME,...]
// Needs build/site (tools/build-site.sh); makes its models in build/bench/
// (graph only: weights external and not written).
import { existsSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ROOT, SITE, serve, chromiumPath, CHROMIUM_ARGS } from '../../tests/web/helpers.mjs';
import { writeHugeModel } from '../make-models/huge-model.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 && args[i + 1] ? args[i + 1] : dflt; };
const runs = Math.max(1, Number(opt('runs', 3)) || 1);
const only = new Set(String(opt('only', 'resnet50,swin_like,bert_large,nodes100k')).split(','));
const BENCH = join(ROOT, 'build/bench');
mkdirSync(BENCH, { recursive: true });
function model(name, extra) {
  const p = join(BENCH, `graph-${name}.onnx`);
  if (!existsSync(p)) {
    if (name === 'nodes100k') writeHugeModel(p, { bytes: 50000 * 16, hidden: 2 });
    else execFileSync('/usr/bin/python3', [join(ROOT, 'tools/make-models/big_model.py'), '--external', '--no-data', p, ...extra], { stdio: 'inherit' });
  }
  return p;
}
const MODELS = {
  resnet50: ['ResNet-50', 1000, () => model('resnet50', ['--arch', 'resnet50'])],
  swin_like: ['Swin-T-sized transformer (6,525 layers), collapsed', 1000, () => model('swin_like', ['--layers', '130', '--hidden', '96', '--heads', '3', '--ff', '384', '--vocab', '1000', '--max-pos', '64', '--seq', '49'])],
  bert_large: ['BERT-Large (1,225 layers)', 1000, () => model('bert_large', [])],
  nodes100k: ['100,000-node chain, collapsed', 2000, () => model('nodes100k')],
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const site = await serve(SITE);
const { chromium } = await import('playwright-core');
const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
console.log(`headless Chromium, ${runs} runs each; load average before: ${load()}`);

/** In the page: ms from the summary showing its layers to the graph's boxes drawn. */
const armGraph = (page) => page.evaluate(() => new Promise((resolve) => {
  let tSummary = null;
  const poll = () => {
    const s = document.querySelector('[data-testid=summary]');
    if (tSummary === null && s && !s.hidden && s.dataset.layers) tSummary = performance.now();
    const g = document.getElementById('graph-box');
    if (tSummary !== null && g.dataset.boxes && g.querySelector('[data-box]')) {
      requestAnimationFrame(() => resolve({ graph: performance.now() - tSummary, boxes: Number(g.dataset.boxes) }));
    } else requestAnimationFrame(poll);
  };
  poll();
}));

// Opens the `nth` closed module; with `dwell` ms, the pointer rests on it that
// long before the click (the page lays the open view out meanwhile).
const expandOne = (page, nth, dwell) => page.evaluate(({ nth, dwell }) => new Promise((resolve) => {
  const closed = document.querySelectorAll('#graph-box .graph-box[data-module][aria-expanded=false], #graph-box .graph-box[data-run][aria-expanded=false]')[nth];
  if (!closed) { resolve(null); return; }
  const key = closed.dataset.module ? `[data-module="${CSS.escape(closed.dataset.module)}"]` : `[data-run="${CSS.escape(closed.dataset.run)}"]`;
  const click = () => {
    const t0 = performance.now();
    closed.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    const poll = () => {
      if (document.querySelector(`#graph-box .graph-open${key}[aria-expanded=true]`)) requestAnimationFrame(() => resolve(performance.now() - t0));
      else requestAnimationFrame(poll);
    };
    poll();
  };
  if (dwell) closed.dispatchEvent(new PointerEvent('pointerenter'));
  setTimeout(click, dwell);
}), { nth, dwell });

// how long the pointer rests on a box before a person's click, at the least
const DWELL_MS = 150;

for (const [id, [what, target, path]] of Object.entries(MODELS)) {
  if (!only.has(id)) continue;
  const file = path();
  const graph = [], expand = [], dwelt = [];
  let boxes = 0;
  for (let r = 0; r < runs; r++) {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await page.goto(site.url);
    await page.waitForSelector('body[data-ready="1"]');
    await page.waitForSelector('body[data-warm="1"]', { timeout: 15000 }).catch(() => {});
    await page.waitForTimeout(1500);
    const armed = armGraph(page);
    await page.setInputFiles('[data-testid=file-input]', file);
    const g = await armed;
    graph.push(g.graph); boxes = g.boxes;
    const e = await expandOne(page, 0, 0);
    if (e !== null) expand.push(e);
    // another module (its layout is not cached), the pointer resting on it first
    const d = await expandOne(page, 1, DWELL_MS);
    if (d !== null) dwelt.push(d);
    await context.close();
  }
  const m = median(graph);
  console.log(`${what.padEnd(56)} graph after summary ${m.toFixed(0).padStart(5)} ms (${boxes} boxes; min ${Math.min(...graph).toFixed(0)}, max ${Math.max(...graph).toFixed(0)}; target < ${target} ms${m < target ? '' : ', MISSED'})`);
  if (expand.length) {
    const x = median(expand);
    console.log(`${''.padEnd(56)} open a module        ${x.toFixed(0).padStart(5)} ms (min ${Math.min(...expand).toFixed(0)}, max ${Math.max(...expand).toFixed(0)}; target < 200 ms${x < 200 ? '' : ', MISSED'})`);
  }
  if (dwelt.length) {
    const x = median(dwelt);
    console.log(`${''.padEnd(56)} ... after ${DWELL_MS} ms on it ${x.toFixed(0).padStart(5)} ms (min ${Math.min(...dwelt).toFixed(0)}, max ${Math.max(...dwelt).toFixed(0)})`);
  }
}
console.log(`load average after: ${load()}`);
await browser.close();
await site.close();
