#!/usr/bin/env node
// Browser benchmark of the rooflens page in headless Chromium on localhost.
// Prints medians of RUNS for the page's speed targets (the page issue):
//   interactive page (navigation -> controls wired)                 < 0.5 s
//   drop ResNet-50, weights inline (~100 MB) -> table + charts        < 0.5 s
//   drop BERT-Large, weights inline (1.3 GB) -> table + charts        < 0.7 s
//   drop a Swin-T-sized graph (~6.5k layers) -> table + charts        < 1 s
//   drop a 100k-node graph -> table + charts                          < 2 s
//   hardware switch and precision switch on BERT-Large -> redrawn     < 150 ms
//   tensor-parallel degree changed on the 8B decoder example -> redrawn < 150 ms
//   from outside (--only outside): setInputFiles -> summary, row, chart < 400 ms, graph 1 s after
// and the gzip size (level 9) of every file the page loads. It prints
// figures and asserts nothing: a busy machine gives slower figures, so it
// also prints the load average before and after.
//
//   node tools/bench/browser.mjs [--runs N] [--only NAME[,NAME]] [--site DIR]
// NAME: interactive, resnet50, bert_large, swin_like, swin_t, nodes100k, switch, parallel, outside
// (ResNet-50, Swin-T and BERT-Large timed from outside the page, as a user waits;
// --outside-models NAME,... to choose).
// The models are made on first use in build/bench/ (tools/bench/models.mjs:
// tools/make-models/big_model.py and huge-model.mjs). Needs build/site
// (tools/build-site.sh) and build/rooflens.
import { existsSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { loadavg } from 'node:os';
import { join, basename, resolve } from 'node:path';
import { SITE, CLI, serve, chromiumPath, CHROMIUM_ARGS } from '../../tests/web/helpers.mjs';
import { BENCH_MODELS } from './models.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 && args[i + 1] ? args[i + 1] : dflt; };
const runs = Math.max(1, Number(opt('runs', 5)) || 1);
// e.g. an older build, to compare under the same load; absolute, as the server compares paths
const SITE_DIR = resolve(opt('site', SITE));
const only = new Set(String(opt('only', 'interactive,resnet50,bert_large,swin_like,nodes100k,switch,parallel')).split(','));

const die = (m) => { console.error(`bench-browser: ${m}`); process.exit(1); };
if (!existsSync(join(SITE_DIR, 'index.html'))) die(`${SITE_DIR} has no site: run tools/build-site.sh`);
if (!existsSync(CLI)) die('build/rooflens is missing: cmake -S . -B build && cmake --build build');
const exe = chromiumPath() || die('chromium not found (apt-get install chromium)');
const { chromium } = await import('playwright-core').catch(() => die('playwright-core missing (npm ci)'));

// issue 27's targets for a drop 2 s after ready (a drop as soon as ready: under twice these)
const TARGETS = { resnet50: 300, bert_large: 400, swin_like: 600, swin_t: 600, nodes100k: 2000 };
const MODELS = Object.fromEntries(Object.entries(BENCH_MODELS).map(([k, m]) => [k, { ...m, target: TARGETS[k] }]));

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };
const fmt = (ms) => `${ms.toFixed(0)} ms`;
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const rows = [];
function report(what, times, target) {
  const m = median(times);
  rows.push({ what, median: m, target });
  console.log(`${what.padEnd(62)} ${fmt(m).padStart(8)}   (min ${fmt(Math.min(...times))}, max ${fmt(Math.max(...times))}; target < ${target} ms${m < target ? '' : ', MISSED'})`);
}

console.log(`headless Chromium (${exe}), ${runs} runs each; load average before: ${load()}\n`);
const site = await serve(SITE_DIR);
const browser = await chromium.launch({ executablePath: exe, args: CHROMIUM_ARGS });

// A drop is timed as a person makes it: 2 s after the page is ready, by
// when the worker has finished its warm-up analysis (body[data-warm], about
// 0.3 s after ready) and the engine has compiled the code that warm-up ran
// (on this 2-core machine that compiling slows a drop made within the first
// second by 40-100 %). `early` drops the moment the page is ready instead,
// while the warm-up still runs; it is printed apart, with no target.
const PERSON_DELAY_MS = 2000;
async function freshPage({ early = false } = {}) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(e.message));
  await page.goto(site.url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  if (!early) {
    // (an older build, --site, has no data-warm: it gets the delay alone)
    await page.waitForSelector('body[data-warm="1"]', { timeout: 10000 }).catch(() => {});
    await page.waitForFunction((ms) => performance.now() - performance.getEntriesByName('rooflens-ready')[0].startTime > ms,
      PERSON_DELAY_MS, { polling: 50 });
  }
  return page;
}

// In the page: resolves with the ms from the trigger event to the end of
// the first frame that shows `want` in the summary, a table row and every
// chart canvas with non-blank pixels (the frame that paints them).
const CHARTS = ['chart-time-roofline', 'chart-energy-roofline', 'chart-time-based'];
function armDrawn(page, trigger, want) {
  return page.evaluate(({ trigger, want, charts }) => new Promise((resolve) => {
    let t0 = null;
    const [sel, ev] = trigger;
    document.querySelector(sel).addEventListener(ev, () => { t0 = performance.now(); }, { capture: true, once: true });
    const drawn = (id) => {
      const c = document.querySelector(`[data-testid=${id}] canvas`);
      if (!c || !c.width || c.hidden) return false;
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      for (let i = 3; i < d.length; i += 4 * 97) if (d[i]) return true;
      return false;
    };
    const ready = () => {
      const s = document.querySelector('[data-testid=summary]').dataset;
      return Object.entries(want).every(([k, v]) => s[k] === String(v)) &&
        document.querySelector('[data-testid=layer-table] tbody tr[data-index]') && charts.every(drawn);
    };
    // The page's own marks after the trigger: where the time went.
    const phase = (name) => {
      const m = performance.getEntriesByName(name).filter((e) => e.startTime >= t0).pop();
      return m ? m.startTime - t0 : null;
    };
    // poll() runs in each frame's animation callbacks; the first frame that
    // finds everything drawn paints it right after them, and a task queued
    // from there runs once that frame is painted (before the tasks the page
    // queued after it, such as building the graph views).
    const poll = () => {
      if (t0 !== null && ready()) {
        setTimeout(() => {
          const total = performance.now() - t0;
          resolve({ total, opened: phase('rooflens-opened'), analyzed: phase('rooflens-analyzed'), rendered: phase('rooflens-rendered'),
            table: phase('rooflens-table'), charts: phase('rooflens-charts') });
        }, 0);
      } else requestAnimationFrame(poll);
    };
    poll();
  }), { trigger, want, charts: CHARTS });
}

// 1. navigation -> interactive, and the bytes the page loads
let transfer = null;
if (only.has('interactive')) {
  const nav = [];
  for (let r = 0; r < runs; r++) {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const bodies = [];
    if (r === 0) page.on('response', async (res) => { try { bodies.push({ url: res.url(), body: await res.body() }); } catch { /* no body */ } });
    await page.goto(site.url);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
    nav.push(await page.evaluate(() => performance.getEntriesByName('rooflens-interactive')[0]?.startTime));
    if (r === 0) {
      await page.waitForTimeout(500); // late responses (worker, wasm)
      const seen = new Set();
      transfer = bodies.filter(({ url }) => !seen.has(url) && seen.add(url))
        .map(({ url, body }) => ({ url: url.replace(site.url, '') || 'index.html', raw: body.length, gz: gzipSync(body, { level: 9 }).length }));
    }
    await context.close();
  }
  report('navigation -> interactive page', nav, 500);
}

// 2. drop a model -> table and charts drawn
const layersOf = (model) => JSON.parse(execFileSync(CLI, [model, '--format', 'json', '--hw', 'h100-sxm'], { maxBuffer: 1 << 30 })).layers.length;
const drops = Object.entries(MODELS).filter(([name]) => only.has(name)).map(([name, m]) => [name, m, false]);
// the same drops made the moment the page is ready (issue 27: under twice the target)
for (const name of ['resnet50', 'bert_large', 'swin_t']) if (only.has(name)) drops.push([name, MODELS[name], true]);
for (const [, m, early] of drops) {
  const model = m.path();
  const layers = layersOf(model);
  const times = [], phases = [];
  for (let r = 0; r < runs; r++) {
    const page = await freshPage({ early });
    const done = armDrawn(page, ['[data-testid=file-input]', 'change'], { layers });
    await page.setInputFiles('[data-testid=file-input]', model);
    const r = await done;
    times.push(r.total);
    phases.push(r);
    if (page.problems.length) console.log(`  page errors: ${page.problems.join('; ')}`);
    await page.context().close();
  }
  const what = `drop ${basename(model)} (${(statSync(model).size / 1e6).toFixed(1)} MB, ${layers} layers) -> table + charts`;
  if (early) report(`${basename(model)} dropped as soon as the page is ready`, times, 2 * m.target);
  else report(what, times, m.target);
  // the run with the median total, split by the page's marks
  const mid = phases.sort((a, b) => a.total - b.total)[Math.floor((phases.length - 1) / 2)];
  if (mid.opened !== null && mid.analyzed !== null && mid.rendered !== null) {
    console.log(`${''.padEnd(4)}read ${fmt(mid.opened)}, analyse and hand over ${fmt(mid.analyzed - mid.opened)}, ` +
      `table and charts ${fmt(mid.rendered - mid.analyzed)}, to the end of the frame that paints them ${fmt(mid.total - mid.rendered)}`);
  }
  // the charts' part of the drawing in every run (rooflens-table -> rooflens-charts)
  const charts = phases.filter((p) => p.table !== null && p.charts !== null).map((p) => p.charts - p.table);
  if (charts.length) console.log(`${''.padEnd(4)}the three charts: median ${fmt(median(charts))} (${charts.map(fmt).join(', ')})`);
}

// 3. switching hardware and precision with BERT-Large open
if (only.has('switch')) {
  const model = MODELS.bert_large.path();
  const layers = layersOf(model);
  const page = await freshPage();
  const first = armDrawn(page, ['[data-testid=file-input]', 'change'], { layers });
  await page.setInputFiles('[data-testid=file-input]', model);
  await first;
  const hw = [], prec = [];
  const devices = ['a100-sxm-80gb', 'h100-sxm'];
  const precisions = ['fp16', 'model'];
  for (let r = 0; r < runs; r++) {
    const dev = devices[r % 2];
    let done = armDrawn(page, ['[data-testid=hw-select]', 'change'], { layers, hw: dev });
    await page.selectOption('[data-testid=hw-select]', dev);
    hw.push((await done).total);
    const p = precisions[r % 2];
    done = armDrawn(page, ['[data-testid=precision-select]', 'change'], { layers, precision: p });
    await page.selectOption('[data-testid=precision-select]', p);
    prec.push((await done).total);
  }
  if (page.problems.length) console.log(`  page errors: ${page.problems.join('; ')}`);
  await page.context().close();
  report('hardware switch on BERT-Large -> summary, table and charts redrawn', hw, 150);
  report('precision switch on BERT-Large -> summary, table and charts redrawn', prec, 150);
}

// 4. the tensor-parallel degree changed (the Several devices view) with the
// 8B decoder example open: from the input's change to the frame after the
// panel shows the new plan and the main charts are drawn.
if (only.has('parallel')) {
  const page = await freshPage();
  await page.goto(`${site.url}#example=llama3_8b_int4&hw=h100-sxm&tp=2&view=devices`);
  await page.waitForFunction(() => document.querySelector('[data-testid=parallel-summary]')?.dataset.timeS, null, { timeout: 60000 });
  const times = [];
  for (let r = 0; r < runs; r++) {
    const tp = r % 2 ? 2 : 4;
    const before = await page.getAttribute('[data-testid=parallel-summary]', 'data-time-s');
    const done = page.evaluate(({ before, charts }) => new Promise((resolve) => {
      let t0 = null;
      document.querySelector('[data-testid=parallel-tp]').addEventListener('change', () => { t0 = performance.now(); }, { capture: true, once: true });
      const drawn = (id) => { const c = document.querySelector(`[data-testid=${id}] canvas`); return c && c.width && !c.hidden; };
      const poll = () => {
        const now = document.querySelector('[data-testid=parallel-summary]')?.dataset.timeS;
        if (t0 !== null && now && now !== before && charts.every(drawn)) requestAnimationFrame(() => resolve(performance.now() - t0));
        else requestAnimationFrame(poll);
      };
      poll();
    }), { before, charts: CHARTS });
    await page.fill('[data-testid=parallel-tp]', String(tp));
    await page.dispatchEvent('[data-testid=parallel-tp]', 'change');
    times.push(await done);
  }
  if (page.problems.length) console.log(`  page errors: ${page.problems.join('; ')}`);
  await page.context().close();
  report('tp changed on the 8B decoder example -> plan, summary and charts redrawn', times, 150);
}

// 5. the same drops timed from outside the page, as a user waits: the
// benchmark's clock from just before setInputFiles to the moment the page
// shows the summary, the table's first row and a visible, painted chart
// canvas (polled every frame from here, so the figure includes the file's
// hand-over and the page's event loop); then how much later the graph view
// has drawn its boxes. The in-page figure (from the input's change event,
// armDrawn) is printed beside it.
if (only.has('outside')) {
  const names = String(opt('outside-models', 'resnet50,swin_t,bert_large')).split(',');
  for (const name of names) {
    const m = MODELS[name] || die(`no model '${name}' (${Object.keys(MODELS).join(', ')})`);
    const model = m.path();
    const layers = layersOf(model);
    const outside = [], inside = [], graph = [], rest = [];
    for (let r = 0; r < runs; r++) {
      const page = await freshPage();
      const inPage = armDrawn(page, ['[data-testid=file-input]', 'change'], { layers });
      const t0 = performance.now();
      await page.setInputFiles('[data-testid=file-input]', model);
      await page.waitForFunction((want) => {
        const s = document.querySelector('[data-testid=summary]');
        if (!s || s.hidden || s.dataset.layers !== String(want)) return false;
        if (!document.querySelector('[data-testid=layer-table] tbody tr[data-index]')) return false;
        const c = document.querySelector('[data-testid=chart-time-roofline] canvas');
        const box = c?.getBoundingClientRect();
        if (!c || !c.width || !box || box.width === 0 || box.height === 0) return false;
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        for (let i = 3; i < d.length; i += 4 * 97) if (d[i]) return true;
        return false;
      }, layers, { polling: 'raf', timeout: 120000 });
      const t1 = performance.now();
      outside.push(t1 - t0);
      // the energy and time-based rooflines, drawn once the first frame is painted
      await page.waitForFunction(() => ['chart-energy-roofline', 'chart-time-based']
        .every((id) => ['drawn', 'empty'].includes(document.querySelector(`[data-testid=${id}]`).dataset.state)), null, { polling: 'raf', timeout: 120000 });
      rest.push(performance.now() - t1);
      inside.push((await inPage).total);
      await page.waitForSelector('[data-testid=graph-view] [data-box]', { state: 'attached', timeout: 120000 });
      graph.push(performance.now() - t1);
      if (page.problems.length) console.log(`  page errors: ${page.problems.join('; ')}`);
      await page.context().close();
    }
    report(`${m.title} from outside: setInputFiles -> summary, first row, chart`, outside, 400);
    console.log(`${''.padEnd(4)}in-page (from the input's change event to all three charts): median ${fmt(median(inside))}; ` +
      `the other two charts drawn ${fmt(median(rest))} after, the graph view ${fmt(median(graph))} after (target < 1000 ms)`);
    console.log(`${''.padEnd(4)}every run from outside: ${outside.map(fmt).join(', ')}`);
  }
}

console.log(`\nload average after: ${load()}`);
if (transfer) {
  const raw = transfer.reduce((a, f) => a + f.raw, 0), gz = transfer.reduce((a, f) => a + f.gz, 0);
  console.log(`files the page loads: ${transfer.length}, ${(raw / 1024).toFixed(0)} KiB raw, ${(gz / 1024).toFixed(0)} KiB gzip -9   (target < 400 KB)`);
  for (const f of transfer.sort((a, b) => b.gz - a.gz).slice(0, 8)) console.log(`  ${f.url.padEnd(40)} ${(f.raw / 1024).toFixed(1).padStart(8)} KiB  ${(f.gz / 1024).toFixed(1).padStart(7)} KiB gz`);
}

await browser.close();
await site.close();
