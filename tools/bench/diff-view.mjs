#!/usr/bin/env node
// Browser benchmark of the graph view of a comparison (issue 42), timed from
// outside the page as a user sees it, in headless Chromium on localhost: a
// BERT-Large-sized model is dropped on the page, then a second one (its
// feed-forward widened from 4096 to 4352) into "Compare with another
// model", with the graph set to show the change. The clock runs from the
// frame the comparison's summary is shown (the second summary) to the frame
// the graph of the change has drawn its boxes (the two models aligned,
// both analysed with their graphs, laid out and drawn), and, beside it, from
// the drop of the second file. Medians of RUNS; prints figures and asserts
// nothing (the load average is printed with them). Target: within 2 s of the
// second summary.
//
//   node tools/bench/diff-view.mjs [--runs N]
// Needs build/site (tools/build-site.sh); makes its models in build/bench/
// (graph only: weights external and not written).
import { existsSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ROOT, SITE, serve, chromiumPath, CHROMIUM_ARGS } from '../../tests/web/helpers.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 && args[i + 1] ? args[i + 1] : dflt; };
const runs = Math.max(1, Number(opt('runs', 3)) || 1);
const BENCH = join(ROOT, 'build/bench');
mkdirSync(BENCH, { recursive: true });
function model(name, extra) {
  const p = join(BENCH, `diff-${name}.onnx`);
  if (!existsSync(p)) execFileSync('/usr/bin/python3', [join(ROOT, 'tools/make-models/big_model.py'), '--external', '--no-data', p, ...extra], { stdio: 'inherit' });
  return p;
}
const oldFile = model('bert_large', []);
const newFile = model('bert_large_ff4352', ['--ff', '4352']);
const TARGET_MS = 2000;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const site = await serve(SITE);
const { chromium } = await import('playwright-core');
const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
console.log(`headless Chromium, ${runs} runs; load average before: ${load()}`);

/** In the page: ms from the drop (t0, set by the caller) and from the
 * comparison's summary to the graph of the change drawn. */
const arm = (page) => page.evaluate(() => new Promise((resolve) => {
  let tSummary = null;
  const t0 = performance.now();
  const poll = () => {
    const c = document.querySelector('[data-testid=diff-models]');
    if (tSummary === null && c?.dataset.state === 'ready') tSummary = performance.now();
    const g = document.getElementById('graph-box');
    if (tSummary !== null && g.dataset.diffView === 'change' && g.querySelector('.graph-box[data-change]')) {
      requestAnimationFrame(() => resolve({ fromSummary: performance.now() - tSummary, fromDrop: performance.now() - t0,
        boxes: Number(g.dataset.boxes), layers: document.querySelector('[data-testid=diff-layers]')?.dataset }));
    } else requestAnimationFrame(poll);
  };
  poll();
}));

const fromSummary = [], fromDrop = [];
let last = null;
for (let r = 0; r < runs; r++) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${site.url}#dview=change`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.waitForSelector('body[data-warm="1"]', { timeout: 15000 }).catch(() => {});
  await page.setInputFiles('[data-testid=file-input]', oldFile);
  await page.waitForSelector('[data-testid=summary][data-layers]', { timeout: 60000 });
  await page.waitForSelector('#graph-box [data-box]', { timeout: 60000 });
  await page.waitForTimeout(1000);
  const armed = arm(page);
  await page.setInputFiles('[data-testid=diff-file-input]', newFile);
  last = await armed;
  fromSummary.push(last.fromSummary);
  fromDrop.push(last.fromDrop);
  await context.close();
}
const m = median(fromSummary);
console.log(`BERT-Large against BERT-Large with FF 4352: ${last.layers?.matched} layers matched, ${last.layers?.changed} changed, ${last.boxes} boxes drawn`);
console.log(`graph of the change after the second summary ${m.toFixed(0).padStart(5)} ms (min ${Math.min(...fromSummary).toFixed(0)}, max ${Math.max(...fromSummary).toFixed(0)}; target < ${TARGET_MS} ms${m < TARGET_MS ? '' : ', MISSED'})`);
console.log(`... after the second file's drop               ${median(fromDrop).toFixed(0).padStart(5)} ms (min ${Math.min(...fromDrop).toFixed(0)}, max ${Math.max(...fromDrop).toFixed(0)})`);
console.log(`load average after: ${load()}`);
await browser.close();
await site.close();
