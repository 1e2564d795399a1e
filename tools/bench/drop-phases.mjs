#!/usr/bin/env node
// Where a drop's wait goes, phase by phase, and two builds of the site side
// by side: for each run, each site (a fresh server and browser context per
// drop, dropped 2 s after the page is ready, as tools/bench/browser.mjs
// --only outside drops), each model: the page's own marks, as medians:
//   warm     ready -> the worker's warm-up done (rooflens-warm)
//   open     setInputFiles -> the model read (rooflens-opened)
//   analyse  read -> the answer on the page (rooflens-analyzed)
//   table    answer -> the summary and the table drawn (rooflens-table)
//   chart    table -> the time roofline drawn (rooflens-charts)
//   total    setInputFiles -> rooflens-charts
// The sites alternate within each run, so a slow minute of the shared
// machine slows them alike. Prints figures, asserts nothing.
//
//   node tools/bench/drop-phases.mjs [--sites DIR[,DIR...]] [--models swin_t,bert_large] [--runs 5]
//
// DIR: a built site (tools/build-site.sh; default build/site), e.g. a copy of
// an older tree's. The models: tools/bench/models.mjs.
import { resolve, basename } from 'node:path';
import { loadavg } from 'node:os';
import { SITE, serve, chromiumPath, CHROMIUM_ARGS } from '../../tests/web/helpers.mjs';
import { BENCH_MODELS } from './models.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 && args[i + 1] ? args[i + 1] : dflt; };
const sites = opt('sites', SITE).split(',').map((d) => resolve(d));
const models = opt('models', 'swin_t,bert_large').split(',');
const runs = Math.max(1, Number(opt('runs', 5)) || 1);
for (const m of models) if (!BENCH_MODELS[m]) { console.error(`drop-phases: no model '${m}' (${Object.keys(BENCH_MODELS).join(', ')})`); process.exit(1); }
const { chromium } = await import('playwright-core');
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

console.log(`${runs} drops of each model on each site; load average before: ${load()}`);
const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
const phases = {};
for (let run = 0; run < runs; run++) {
  for (const dir of sites) {
    const site = await serve(dir);
    for (const m of models) {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      const page = await context.newPage();
      await page.goto(site.url);
      await page.waitForSelector('body[data-ready="1"]');
      await page.waitForTimeout(2000);
      await page.evaluate(() => performance.mark('drop-phases'));
      await page.setInputFiles('[data-testid=file-input]', BENCH_MODELS[m].path());
      await page.waitForFunction(() => performance.getEntriesByName('rooflens-charts').length > 0, null, { timeout: 120000 });
      const at = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark').map((e) => [e.name, e.startTime])));
      const span = (a, b) => at[b] - at[a];
      const row = {
        warm: span('rooflens-ready', 'rooflens-warm'), open: span('drop-phases', 'rooflens-opened'),
        analyse: span('rooflens-opened', 'rooflens-analyzed'), table: span('rooflens-analyzed', 'rooflens-table'),
        chart: span('rooflens-table', 'rooflens-charts'), total: span('drop-phases', 'rooflens-charts'),
      };
      const key = `${basename(dir)}  ${BENCH_MODELS[m].title}`;
      phases[key] ??= {};
      for (const [p, v] of Object.entries(row)) (phases[key][p] ??= []).push(v);
      await context.close();
    }
    await site.close();
  }
}
await browser.close();
for (const [key, ps] of Object.entries(phases))
  console.log(`${key.padEnd(30)} ${Object.entries(ps).map(([p, xs]) => `${p} ${Number.isFinite(median(xs)) ? median(xs).toFixed(0) : '?'} ms`).join('   ')}`);
console.log(`load average after: ${load()}`);
