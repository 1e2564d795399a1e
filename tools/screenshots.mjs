#!/usr/bin/env node
// Screenshots of the page for docs/guide.md, taken from the built site
// (tools/build-site.sh) in headless Debian Chromium via playwright-core, and
// the figures the page shows in them (printed, so the guide quotes only
// numbers the page shows).
//
//   node tools/screenshots.mjs [--out docs/img] [--site build/site] [--example resnet50] [--hw jetson-agx-orin]
//
// The example must be one of the site's samples (build/site/samples/index.json);
// without the ResNet-50 sample the tool says so and stops.
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT, SITE, serve, chromiumPath, CHROMIUM_ARGS } from '../tests/web/helpers.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 && args[i + 1] ? args[i + 1] : dflt; };
const OUT = resolve(opt('out', join(ROOT, 'docs/img')));
const SITE_DIR = resolve(opt('site', SITE));
const EXAMPLE = opt('example', 'resnet50');
const HW = opt('hw', 'jetson-agx-orin');
const LIMIT = 150 * 1024; // bytes per image, to keep the repository small

function die(msg) { console.error(`[screenshots] ${msg}`); process.exit(1); }

if (!existsSync(join(SITE_DIR, 'index.html'))) die(`${SITE_DIR} has no site: run tools/build-site.sh first`);
const samples = JSON.parse(readFileSync(join(SITE_DIR, 'samples/index.json'), 'utf8')).examples.map((e) => e.id);
if (!samples.includes(EXAMPLE)) die(`the site has no example '${EXAMPLE}' (it has ${samples.join(', ')})`);
const exe = chromiumPath();
if (!exe) die('chromium not found (apt-get install chromium)');
let chromium;
try { ({ chromium } = await import('playwright-core')); } catch { die('playwright-core is not installed (npm ci)'); }

mkdirSync(OUT, { recursive: true });
const site = await serve(SITE_DIR);
const browser = await chromium.launch({ executablePath: exe, args: CHROMIUM_ARGS });
const problems = [];

async function open(hash) {
  const page = await browser.newPage({ viewport: { width: 1240, height: 900 }, deviceScaleFactor: 1 });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${site.url}#${hash}`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  await page.waitForSelector('[data-testid=summary][data-time-s]', { timeout: 60000 });
  return page;
}

async function settle(page, testid) {
  await page.waitForFunction((t) => ['done', 'error', 'empty'].includes(document.querySelector(`[data-testid=${t}]`).dataset.state),
    testid, { timeout: 60000 });
}

async function shot(locator, name, clip) {
  const path = join(OUT, name);
  await locator.screenshot({ path, ...(clip ? { clip } : {}) });
  const size = statSync(path).size;
  console.log(`[screenshots] ${name}: ${(size / 1024).toFixed(0)} KiB${size > LIMIT ? '  (over 150 KiB!)' : ''}`);
  return size;
}

const text = (page, sel) => page.locator(sel).innerText();
const figures = {};
const base = `example=${EXAMPLE}&hw=${HW}`;

try {
  // 1. The main view: summary, time roofline, the slowest layers.
  let page = await open(base);
  if (await page.locator('[data-testid=summary] details.warnings').count()) await page.click('[data-testid=summary] details.warnings summary');
  figures.summary = await text(page, '[data-testid=summary] dl');
  figures.warnings = await page.locator('[data-testid=summary] details.warnings').innerText().catch(() => '');
  await shot(page.locator('[data-testid=summary]'), 'guide-summary.png');
  await page.setViewportSize({ width: 900, height: 900 });   // one chart per row: the legend fits
  await page.waitForTimeout(300);
  await shot(page.locator('[data-testid=chart-time-roofline]'), 'guide-time-roofline.png');
  await page.setViewportSize({ width: 1240, height: 900 });
  await page.waitForTimeout(300);
  // The layer table is wider than a screenshot: keep the columns that
  // answer "what bounds it" (the guide says the others are hidden).
  const keep = ['index', 'name', 'op', 't', 'share', 'bound', 'flops', 'bytes', 'intensity', 't_compute', 't_memory'];
  // (the table renders only the rows in view: resize first, then hide)
  await page.evaluate(() => { document.querySelector('#table-scroll').style.height = `${26 * 12 + 32}px`; });
  await page.waitForTimeout(300);
  await page.evaluate((cols) => {
    const heads = [...document.querySelectorAll('[data-testid=layer-table] thead th')];
    const hide = heads.map((th) => !cols.includes(th.querySelector('button')?.dataset.key));
    for (const tr of document.querySelectorAll('[data-testid=layer-table] tr')) {
      [...tr.cells].forEach((c, i) => { if (hide[i] && tr.cells.length === heads.length) c.style.display = 'none'; });
    }
  }, keep);
  await shot(page.locator('#table-scroll'), 'guide-layers.png');
  figures.topLayers = await page.$$eval('[data-testid=layer-table] tbody tr[data-index]', (trs) =>
    trs.slice(0, 10).map((tr) => [...tr.cells].map((c) => c.textContent).join(' | ')));
  figures.bounds = await page.evaluate(() => {
    const ch = globalThis.Chart.getChart(document.querySelector('[data-testid=chart-time-roofline] canvas'));
    return ch ? ch.data.datasets.filter((d) => d.rlMemory).map((d) => d.label) : [];
  });
  await page.close();

  // 2. Power modes at the default 5 % slowdown.
  page = await open(`${base}&view=power`);
  await settle(page, 'power-advisor');
  figures.power = { recommended: await text(page, '[data-testid=power-recommended]'), reason: await text(page, '[data-testid=power-reason]'),
    table: await text(page, '[data-testid=power-table]') };
  await shot(page.locator('[data-testid=power-advisor]'), 'guide-power-modes.png');
  await page.close();

  // 3. Batch sweep 1…1024.
  page = await open(`${base}&view=sweep`);
  await settle(page, 'sweep-view');
  figures.sweep = { critical: await text(page, '[data-testid=critical-batch]'), note: await text(page, '#sweep-note'),
    table: await text(page, '[data-testid=sweep-table]') };
  await shot(page.locator('[data-testid=sweep-view] .whatif-charts'), 'guide-batch-sweep.png');
  await page.close();

  // 4. Compare with the defaults of the view.
  page = await open(`${base}&view=compare`);
  await settle(page, 'compare-view');
  figures.compare = await text(page, '[data-testid=compare-table]');
  await shot(page.locator('[data-testid=compare-view] .whatif-charts'), 'guide-compare.png');
  await page.close();
} finally {
  await browser.close();
  await site.close();
}
console.log(JSON.stringify(figures, null, 1));
if (problems.length) die(`page errors: ${problems.join('; ')}`);
