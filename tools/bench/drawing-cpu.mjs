#!/usr/bin/env node
// Main-thread CPU of a BERT-Large drop's charts (from the page's
// rooflens-table mark to its rooflens-charts mark), sampled by Chromium's
// profiler every 200 us, dropped 2.5 s after the page is ready: the wall
// time of that window swings with the machine's load, its CPU much less.
// Prints, per run, the window's wall time and its sampled CPU; then the
// mean per run of the functions with the most CPU (self and with callees;
// names are readable in a site built without --minify).
//
//   node tools/bench/drawing-cpu.mjs [--site DIR] [--runs N]
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { SITE, serve, chromiumPath, CHROMIUM_ARGS } from '../../tests/web/helpers.mjs';
import { BENCH_MODELS } from './models.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 && args[i + 1] ? args[i + 1] : dflt; };
const SITE_DIR = resolve(opt('site', SITE));
const runs = Math.max(1, Number(opt('runs', 4)) || 1);
const SAMPLE_US = 200;
if (!existsSync(`${SITE_DIR}/index.html`)) { console.error(`bench-drawing-cpu: ${SITE_DIR} has no site: run tools/build-site.sh`); process.exit(1); }
const { chromium } = await import('playwright-core');

const frameKey = (f) => `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;

/** Adds the window's samples of one profile to self/total (ms); returns the window's CPU in ms. */
function addWindow(profile, from, to, self, total) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  let t = profile.startTime, cpu = 0;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i];
    const name = byId.get(id).callFrame.functionName;
    if (t < from || t > to || name === '(idle)' || name === '(program)') return;
    cpu += SAMPLE_US / 1000;
    const k = frameKey(byId.get(id).callFrame);
    self.set(k, (self.get(k) || 0) + SAMPLE_US / 1000);
    const seen = new Set();
    for (let x = id; x; x = parent.get(x)) {
      const kk = frameKey(byId.get(x).callFrame);
      if (kk.startsWith('(root)') || seen.has(kk)) continue;
      seen.add(kk);
      total.set(kk, (total.get(kk) || 0) + SAMPLE_US / 1000);
    }
  });
  return cpu;
}

console.log(`site ${SITE_DIR}, ${runs} runs; load average before: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
const site = await serve(SITE_DIR);
const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
const self = new Map(), total = new Map();
for (let r = 0; r < runs; r++) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(site.url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  await page.waitForTimeout(2500);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: SAMPLE_US });
  // The profile spans exactly the window: the page's two marks start and
  // stop it (console.profile runs synchronously inside the mark's task).
  await page.evaluate(() => {
    const mark = performance.mark.bind(performance);
    performance.mark = (name, ...rest) => {
      if (name === 'rooflens-charts') console.profileEnd('charts');
      const m = mark(name, ...rest);
      if (name === 'rooflens-table') console.profile('charts');
      return m;
    };
  });
  const finished = new Promise((ok) => cdp.once('Profiler.consoleProfileFinished', ok));
  await page.setInputFiles('[data-testid=file-input]', BENCH_MODELS.bert_large.path());
  const { profile } = await finished;
  const m = await page.evaluate(() => ({ a: performance.getEntriesByName('rooflens-table').pop().startTime,
    b: performance.getEntriesByName('rooflens-charts').pop().startTime }));
  const cpu = addWindow(profile, -Infinity, Infinity, self, total);
  console.log(`run ${r + 1}: the three charts ${(m.b - m.a).toFixed(0)} ms wall, ${cpu.toFixed(1)} ms sampled CPU`);
  await context.close();
}
const top = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `  ${(v / runs).toFixed(1).padStart(6)} ms  ${k}`).join('\n');
console.log(`mean per run, self:\n${top(self, 8)}\nmean per run, with callees:\n${top(total, 12)}`);
console.log(`load average after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
await browser.close();
await site.close();
