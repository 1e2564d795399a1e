#!/usr/bin/env node
// rooflens and Netron's browser build side by side (issues 27 and 28), timed
// the same way from outside each page, in headless Chromium on localhost, a
// fresh page each time: the page is loaded, and 2 s after it is ready the
// model is set on its file input; the clock runs from that call to the first
// check (Playwright polls each frame) that sees:
//   rooflens, table + charts: the summary's layer count, a table row and the
//     three charts drawn (data-state="drawn");
//   rooflens, graph: the graph view's boxes;
//   Netron, graph: its graph shown (body.default) with its nodes drawn.
// Prints medians of RUNS and Netron's time over rooflens's, with the load
// average; asserts nothing.
//
//   node tools/bench/netron.mjs --netron DIR [--runs N] [--only NAME,...] [--timeout S]
// DIR: Netron's source/ folder, which serves as a static page, e.g.
//   git --git-dir=NETRON.git archive HEAD source | tar -x -C /tmp/netron
//   (then DIR is /tmp/netron/source). Netron blocks eval: its page is polled
//   with selectors only. Its cookie notice is accepted before the page loads
//   (the cookie it sets when the notice is accepted).
// NAME: resnet50, bert_large, swin_like, swin_t, nodes100k (tools/bench/models.mjs).
// Needs build/site (tools/build-site.sh).
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { SITE, serve, chromiumPath, CHROMIUM_ARGS } from '../../tests/web/helpers.mjs';
import { BENCH_MODELS } from './models.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 && args[i + 1] ? args[i + 1] : dflt; };
const runs = Math.max(1, Number(opt('runs', 3)) || 1);
const only = String(opt('only', 'resnet50,bert_large,swin_like')).split(',');
const timeoutMs = Number(opt('timeout', 120)) * 1000;
const NETRON = opt('netron', '');
const die = (m) => { console.error(`bench-netron: ${m}`); process.exit(1); };
if (!NETRON || !existsSync(join(NETRON, 'index.html'))) die('--netron DIR: Netron\'s source/ folder (see the header of this file)');
if (!existsSync(join(SITE, 'index.html'))) die('build/site is missing: run tools/build-site.sh');
for (const n of only) if (!BENCH_MODELS[n]) die(`unknown model ${n}`);
const { chromium } = await import('playwright-core').catch(() => die('playwright-core missing (npm ci)'));

const PERSON_DELAY_MS = 2000;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

const ours = await serve(SITE);
const theirs = await serve(NETRON);
const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });

/** A fresh page of `url`, ready (`readySel`) and left alone for 2 s. */
async function freshPage(url, readySel, cookies = []) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  if (cookies.length) await context.addCookies(cookies);
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForSelector(readySel, { state: 'attached', timeout: 30000 });
  await page.waitForTimeout(PERSON_DELAY_MS);
  return page;
}

/** ms from setting the file to each selector in `marks` ({name: selector}) being seen. */
async function timeDrop(page, input, model, marks) {
  const t0 = performance.now();
  const seen = {};
  const waits = Object.entries(marks).map(([name, sel]) =>
    page.waitForSelector(sel, { state: 'attached', timeout: timeoutMs }).then(() => { seen[name] = performance.now() - t0; }, () => { seen[name] = null; }));
  await page.setInputFiles(input, model);
  await Promise.all(waits);
  return seen;
}

const OURS = {
  table: '[data-testid=summary][data-layers] ~ .charts [data-testid=chart-time-based][data-state=drawn]',
  graph: '#graph-box [data-box]',
};
const rows = [];
console.log(`headless Chromium, ${runs} runs each, a drop 2 s after the page is ready; load average before: ${load()}\n`);
for (const name of only) {
  const model = BENCH_MODELS[name].path();
  const r = { table: [], graph: [], netron: [] };
  for (let i = 0; i < runs; i++) {
    let page = await freshPage(ours.url, 'body[data-warm="1"]');
    const t = await timeDrop(page, '[data-testid=file-input]', model, {
      ...OURS, row: '[data-testid=layer-table] tbody tr[data-index]',
      charts: '[data-testid=chart-time-roofline][data-state=drawn]',
      energy: '[data-testid=chart-energy-roofline][data-state=drawn]' });
    r.table.push(Math.max(t.table, t.row, t.charts, t.energy));
    r.graph.push(t.graph);
    await page.context().close();
    const url = new URL(theirs.url);
    page = await freshPage(theirs.url, 'body.welcome:not(.spinner)', [{ name: 'consent', value: String(Date.now()), domain: url.hostname, path: '/' }]);
    const n = await timeDrop(page, '#open-file-dialog', model, { netron: 'body.default #target svg g.node' });
    r.netron.push(n.netron);
    await page.context().close();
  }
  const m = (xs) => (xs.some((x) => x === null) ? null : median(xs));
  const f = (x) => (x === null ? `over ${timeoutMs / 1000} s` : `${(x / 1000).toFixed(2)} s`);
  const row = { name: BENCH_MODELS[name].title, table: m(r.table), graph: m(r.graph), netron: m(r.netron) };
  rows.push(row);
  console.log(`${row.name.padEnd(14)} rooflens table + charts ${f(row.table)}, graph ${f(row.graph)}; Netron's graph ${f(row.netron)}` +
    (row.netron && row.graph ? `: ${(row.netron / row.graph).toFixed(1)}x rooflens's graph, ${(row.netron / row.table).toFixed(1)}x its table + charts` : '') +
    `   (runs: ${r.table.map((x) => x?.toFixed(0)).join(', ')} | ${r.graph.map((x) => x?.toFixed(0)).join(', ')} | ${r.netron.map((x) => x?.toFixed(0)).join(', ')} ms)`);
}
console.log(`\nload average after: ${load()}`);
await browser.close();
await ours.close();
await theirs.close();
