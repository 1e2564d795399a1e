#!/usr/bin/env node
// Where a drop's time goes, seen with Chromium's own performance tools: one
// drop of a benchmark model (tools/bench/models.mjs) made as
// tools/bench/browser.mjs --only outside makes it (2 s after the page is
// ready, setInputFiles on the file input), traced from just before
// setInputFiles until the summary, the table's first row and a painted
// time-roofline canvas are shown (the user's wait), then on until the graph
// view has drawn its boxes. Prints, for the page's main thread and each
// worker, the busy time in each window, the trace's events by self time and
// the JavaScript functions by sampled self time (V8's CPU profiler), and the
// page's own marks (rooflens-*) on the same clock.
//
//   node tools/bench/trace-drop.mjs [--model swin_t] [--site build/site] [--out trace.json] [--top 15]
//
// --out keeps the raw trace (open it in Chromium's DevTools, Performance tab).
// Needs build/site (tools/build-site.sh).
import { existsSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { SITE, serve, chromiumPath, CHROMIUM_ARGS } from '../../tests/web/helpers.mjs';
import { BENCH_MODELS } from './models.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 && args[i + 1] ? args[i + 1] : dflt; };
const die = (m) => { console.error(`trace-drop: ${m}`); process.exit(1); };
const SITE_DIR = resolve(opt('site', SITE));
const NAME = opt('model', 'swin_t');
const TOP = Number(opt('top', 15));
if (!existsSync(join(SITE_DIR, 'index.html'))) die(`${SITE_DIR} has no site: run tools/build-site.sh`);
const model = (BENCH_MODELS[NAME] || die(`no model '${NAME}' (${Object.keys(BENCH_MODELS).join(', ')})`)).path();
const exe = chromiumPath() || die('chromium not found (apt-get install chromium)');
const { chromium } = await import('playwright-core').catch(() => die('playwright-core missing (npm ci)'));

const CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'disabled-by-default-devtools.timeline.frame',
  'v8.execute', 'blink.user_timing', 'disabled-by-default-v8.cpu_profiler', 'loading'];

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
console.log(`trace of one drop of ${model}; load average before: ${load()}`);
const site = await serve(SITE_DIR);
const browser = await chromium.launch({ executablePath: exe, args: CHROMIUM_ARGS });
const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
const page = await context.newPage();
await page.goto(site.url);
await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
await page.waitForSelector('body[data-warm="1"]', { timeout: 10000 }).catch(() => {});
await page.waitForTimeout(2000);

await browser.startTracing(page, { categories: CATEGORIES });
await page.evaluate(() => performance.mark('trace-drop'));
await page.setInputFiles('[data-testid=file-input]', model);
await page.waitForFunction(() => {
  const s = document.querySelector('[data-testid=summary]');
  if (!s || s.hidden || !s.dataset.layers) return false;
  if (!document.querySelector('[data-testid=layer-table] tbody tr[data-index]')) return false;
  const c = document.querySelector('[data-testid=chart-time-roofline] canvas');
  const box = c?.getBoundingClientRect();
  if (!c || !c.width || !box || box.width === 0 || box.height === 0) return false;
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  for (let i = 3; i < d.length; i += 4 * 97) if (d[i]) { performance.mark('trace-shown'); return true; }
  return false;
}, null, { polling: 'raf', timeout: 120000 });
await page.waitForSelector('[data-testid=graph-view] [data-box]', { state: 'attached', timeout: 120000 });
await page.evaluate(() => performance.mark('trace-graph'));
await page.waitForTimeout(100);
const raw = await browser.stopTracing();
await browser.close();
await site.close();
console.log(`load average after: ${load()}\n`);
if (opt('out', '')) writeFileSync(opt('out', ''), raw);

const events = JSON.parse(raw.toString()).traceEvents;
const threadName = new Map();
for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') threadName.set(`${e.pid}:${e.tid}`, e.args.name);

// The page's marks (user timing) on the trace clock: its renderer and main thread.
const marks = events.filter((e) => e.cat?.includes('blink.user_timing') && /^(rooflens-|trace-)/.test(e.name));
const t0 = marks.find((e) => e.name === 'trace-drop') || die('the trace has no trace-drop mark');
const shown = marks.find((e) => e.name === 'trace-shown') || die('the trace has no trace-shown mark');
const graph = marks.find((e) => e.name === 'trace-graph');
const ms = (us) => `${(us / 1000).toFixed(1)} ms`;
console.log('marks (from just before setInputFiles):');
for (const m of marks.filter((e) => e.ts >= t0.ts).sort((a, b) => a.ts - b.ts)) console.log(`  ${ms(m.ts - t0.ts).padStart(10)}  ${m.name}`);

/** Self time of the complete events of one thread in [from, to), by name. */
function selfTimes(list, from, to) {
  const xs = list.filter((e) => e.ph === 'X' && e.dur !== undefined && e.ts < to && e.ts + e.dur > from).sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const self = new Map(), stack = [];
  let busy = 0;
  const clip = (e) => Math.max(0, Math.min(e.ts + e.dur, to) - Math.max(e.ts, from));
  for (const e of xs) {
    while (stack.length && stack.at(-1).ts + stack.at(-1).dur <= e.ts) stack.pop();
    const parent = stack.at(-1);
    if (parent) self.set(parent.label, (self.get(parent.label) || 0) - clip(e));
    else busy += clip(e);
    const what = e.args?.data?.url ? `${e.name} ${String(e.args.data.url).replace(/^.*\//, '')}` : e.name;
    e.label = what;
    self.set(what, (self.get(what) || 0) + clip(e));
    stack.push(e);
  }
  return { busy, self: [...self].filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]) };
}

/** JavaScript (and WebAssembly) functions by sampled self time in [from, to), from V8's profile chunks.
 * A thread's profile is its 'Profile' event; its chunks are written by V8's
 * profiler thread (v8:ProfEvntProc) of the same process, under that id. */
function jsSelf(list, from, to) {
  const out = new Map();
  for (const profile of list.filter((x) => x.name === 'Profile')) {
    const nodes = new Map();
    let t = profile.args?.data?.startTime ?? profile.ts;
    const chunks = events.filter((x) => x.name === 'ProfileChunk' && x.pid === profile.pid && x.id === profile.id)
      .sort((a, b) => a.ts - b.ts);
    for (const e of chunks) {
      const d = e.args?.data;
      for (const n of d?.cpuProfile?.nodes || []) nodes.set(n.id, n);
      const samples = d?.cpuProfile?.samples || [], deltas = d?.timeDeltas || [];
      samples.forEach((id, i) => {
        t += deltas[i] || 0;
        if (t < from || t >= to || i + 1 >= deltas.length) return;
        const f = nodes.get(id)?.callFrame;
        const name = f ? `${f.functionName || '(anonymous)'} ${String(f.url || '').replace(/^.*\//, '')}${f.lineNumber >= 0 ? ':' + (f.lineNumber + 1) : ''}` : '?';
        out.set(name, (out.get(name) || 0) + (deltas[i + 1] || 0));
      });
    }
  }
  return [...out].sort((a, b) => b[1] - a[1]);
}

const byThread = new Map();
for (const e of events) {
  const k = `${e.pid}:${e.tid}`;
  if (!byThread.has(k)) byThread.set(k, []);
  byThread.get(k).push(e);
}
const windows = [['the wait (setInputFiles -> summary, row, chart)', t0.ts, shown.ts]];
if (graph) windows.push(['then until the graph view is drawn', shown.ts, graph.ts]);
for (const [k, list] of byThread) {
  const name = threadName.get(k) || k;
  if (!/CrRendererMain|DedicatedWorker|ThreadPoolForegroundWorker|Compositor|CrBrowserMain/.test(name)) continue;
  for (const [what, from, to] of windows) {
    const { busy, self } = selfTimes(list, from, to);
    if (busy < 2000) continue;
    console.log(`\n${name} (${k}), ${what}: busy ${ms(busy)} of ${ms(to - from)}`);
    for (const [n, v] of self.slice(0, TOP)) console.log(`  ${ms(v).padStart(10)}  ${n}`);
    const js = jsSelf(list, from, to);
    if (js.length) console.log(`  JavaScript and WebAssembly by sampled self time:`);
    for (const [n, v] of js.slice(0, TOP)) console.log(`  ${ms(v).padStart(10)}  ${n}`);
  }
}
