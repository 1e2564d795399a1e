#!/usr/bin/env node
// Browser benchmark of the rooflens page in headless Chromium on localhost.
// Prints:
//   - time from navigation to an interactive page (controls wired, hardware
//     list loaded, WASM worker started), and to a first analysis-ready page;
//   - time from dropping a model on the file input to its table and its three
//     charts drawn, for ResNet-50 with inline weights (~100 MB) and a BERT-Large
//     export (~1.3 GB), median of RUNS;
//   - the gzip size (level 9) of every file the page loads.
// Targets (the web analyzer's issue): interactive < 1 s, ResNet-50 < 1 s,
// BERT-Large < 2 s, site < 400 KB gzip. This prints figures; it asserts nothing.
//
//   node tools/bench-browser.mjs [--runs N] [MODEL.onnx ...]
// Without models it makes build/bench/resnet50.onnx and uses
// build/models/bert_large.onnx (tools/make_big_model.py, Debian's python3-onnx).
// Needs build/site (tools/build-site.sh) and build/rooflens.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { join, basename } from 'node:path';
import { ROOT, SITE, CLI, serve, chromiumPath, CHROMIUM_ARGS } from '../tests/web/helpers.mjs';

const args = process.argv.slice(2);
let runs = 5;
const models = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--runs') runs = Math.max(1, Number(args[++i]) || 1);
  else models.push(args[i]);
}

const die = (m) => { console.error(`bench-browser: ${m}`); process.exit(1); };
if (!existsSync(join(SITE, 'index.html'))) die('build/site is missing: run tools/build-site.sh');
if (!existsSync(CLI)) die('build/rooflens is missing: cmake -S . -B build && cmake --build build');
const exe = chromiumPath() || die('chromium not found (apt-get install chromium)');
const { chromium } = await import('playwright-core').catch(() => die('playwright-core missing (npm ci)'));

function make(path, extra) {
  if (existsSync(path)) return path;
  mkdirSync(join(path, '..'), { recursive: true });
  console.log(`making ${path} ...`);
  execFileSync('/usr/bin/python3', [join(ROOT, 'tools/make_big_model.py'), path, ...extra], { stdio: 'inherit' });
  return path;
}
if (!models.length) {
  models.push(make(join(ROOT, 'build/bench/resnet50.onnx'), ['--arch', 'resnet50']));
  models.push(make(join(ROOT, 'build/models/bert_large.onnx'), []));
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };
const fmt = (ms) => `${ms.toFixed(0)} ms`;

const site = await serve(SITE);
const browser = await chromium.launch({ executablePath: exe, args: CHROMIUM_ARGS });

async function freshPage() {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(e.message));
  return page;
}

// 1. navigation -> interactive, and the bytes the page loads
const nav = [], ready = [];
let transfer = null;
for (let r = 0; r < runs; r++) {
  const page = await freshPage();
  const bodies = [];
  page.on('response', async (res) => {
    try { bodies.push({ url: res.url(), body: await res.body() }); } catch { /* redirects have no body */ }
  });
  await page.goto(site.url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  const t = await page.evaluate(() => ({
    interactive: performance.getEntriesByName('rooflens-interactive')[0]?.startTime,
    ready: performance.getEntriesByName('rooflens-ready')[0]?.startTime,
  }));
  nav.push(t.interactive); ready.push(t.ready);
  if (r === 0) {
    await page.waitForTimeout(500); // let late responses (worker, wasm) finish
    const seen = new Set();
    transfer = bodies.filter(({ url }) => !seen.has(url) && seen.add(url))
      .map(({ url, body }) => ({ url: url.replace(site.url, '') || 'index.html', raw: body.length, gz: gzipSync(body, { level: 9 }).length }));
  }
  await page.context().close();
}

console.log(`\nheadless Chromium (${exe}), ${runs} runs each, median\n`);
console.log(`navigation -> interactive page         ${fmt(median(nav))}   (target < 1000 ms)`);
console.log(`navigation -> ready (no model in link)  ${fmt(median(ready))}`);

// 2. drop a model -> table and charts drawn
const CHARTS = ['chart-time-roofline', 'chart-energy-roofline', 'chart-time-based'];
for (const model of models) {
  const nodes = JSON.parse(execFileSync(CLI, [model, '--format', 'json', '--hw', 'h100-sxm'], { maxBuffer: 1 << 28 })).layers.length;
  const times = [];
  for (let r = 0; r < runs; r++) {
    const page = await freshPage();
    await page.goto(site.url);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
    // In the page: from the file input's change event to the frame after the
    // summary shows the model's layer count, the table has rows and every
    // chart canvas has non-blank pixels.
    const done = page.evaluate(({ want, charts }) => new Promise((resolve) => {
      const input = document.querySelector('[data-testid=file-input]');
      let t0 = null;
      input.addEventListener('change', () => { t0 = performance.now(); }, { capture: true, once: true });
      const drawn = (id) => {
        const c = document.querySelector(`[data-testid=${id}] canvas`);
        if (!c || !c.width) return false;
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        for (let i = 3; i < d.length; i += 4 * 97) if (d[i]) return true;
        return false;
      };
      const poll = () => {
        const s = document.querySelector('[data-testid=summary]');
        if (t0 !== null && s.dataset.layers === String(want) &&
            document.querySelector('[data-testid=layer-table] tbody tr') && charts.every(drawn)) {
          requestAnimationFrame(() => resolve(performance.now() - t0));
        } else requestAnimationFrame(poll);
      };
      poll();
    }), { want: nodes, charts: CHARTS });
    await page.setInputFiles('[data-testid=file-input]', model);
    times.push(await done);
    if (page.problems.length) console.log(`  page errors: ${page.problems.join('; ')}`);
    await page.context().close();
  }
  const mb = statSync(model).size / 1e6;
  console.log(`drop ${basename(model)} (${mb.toFixed(1)} MB, ${nodes} nodes) -> table and charts drawn   ` +
    `${fmt(median(times))}   (min ${fmt(Math.min(...times))}, max ${fmt(Math.max(...times))})`);
}

// 3. what the page loads
const raw = transfer.reduce((a, f) => a + f.raw, 0), gz = transfer.reduce((a, f) => a + f.gz, 0);
console.log(`\nfiles the page loads: ${transfer.length}, ${(raw / 1024).toFixed(0)} KiB raw, ${(gz / 1024).toFixed(0)} KiB gzip -9   (target < 400 KB)`);
for (const f of transfer.sort((a, b) => b.gz - a.gz)) console.log(`  ${f.url.padEnd(40)} ${(f.raw / 1024).toFixed(1).padStart(8)} KiB  ${(f.gz / 1024).toFixed(1).padStart(7)} KiB gz`);

await browser.close();
await site.close();
