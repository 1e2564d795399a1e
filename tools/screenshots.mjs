#!/usr/bin/env node
// Screenshots of every view of the page, at 1440 and 390 px wide, for
// docs/guide.md (and for looking at the page as a user would), taken from
// the built site (tools/build-site.sh) in headless Debian Chromium via
// playwright-core. It also prints the figures the page shows in them, so the
// guide quotes only numbers the page shows.
//
//   node tools/screenshots.mjs [--out docs/img] [--site build/site] [--example resnet50] [--hw jetson-agx-orin]
//                              [--widths 1440,390] [--only NAME,...]
//
// Views (file guide-NAME.png at 1440 px, guide-NAME-390.png at 390 px):
//   empty, summary, time-roofline, energy-roofline, time-based, layers, graph, modules,
//   power-modes, batch-sweep, compare, compare-models, measured, llm,
//   profile-editor, dims-needed, confirm-url, load-error. The example must be
//   one of the site's samples (compare-models, measured and llm use their own
//   models: two test fixtures, a fixture with its ONNX Runtime profile, and
//   the Llama-shaped example on an H100).
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT, SITE, FIXTURES, serve, chromiumPath, CHROMIUM_ARGS, openPage } from '../tests/web/helpers.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 && args[i + 1] ? args[i + 1] : dflt; };
const OUT = resolve(opt('out', join(ROOT, 'docs/img')));
const SITE_DIR = resolve(opt('site', SITE));
const EXAMPLE = opt('example', 'resnet50');
const HW = opt('hw', 'jetson-agx-orin');
const WIDTHS = opt('widths', '1440,390').split(',').map(Number);
const ONLY = opt('only', '') ? new Set(opt('only', '').split(',')) : null;
const LIMIT = 200 * 1024; // bytes per image, to keep the repository small

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
const models = await serve(join(FIXTURES, 'models'), { cors: true });
const browser = await chromium.launch({ executablePath: exe, args: CHROMIUM_ARGS });
const problems = [];
const figures = {};
const base = `example=${EXAMPLE}&hw=${HW}`;

async function open(width, hash, waitModel = true) {
  const page = await openPage(browser, `${site.url}${hash ? '#' + hash : ''}`, { viewport: { width, height: 900 } });
  page.on('pageerror', (e) => problems.push(e.message));
  if (waitModel) await page.waitForSelector('[data-testid=summary][data-time-s]', { timeout: 60000 });
  return page;
}
async function settle(page, testid) {
  await page.waitForFunction((t) => ['done', 'error', 'empty'].includes(document.querySelector(`[data-testid=${t}]`).dataset.state),
    testid, { timeout: 60000 });
}
async function shot(target, name, width) {
  const file = `guide-${name}${width === 1440 ? '' : `-${width}`}.png`;
  const path = join(OUT, file);
  await target.screenshot({ path });
  const size = statSync(path).size;
  console.log(`[screenshots] ${file}: ${(size / 1024).toFixed(0)} KiB${size > LIMIT ? '  (over 200 KiB!)' : ''}`);
}
const text = (page, sel) => page.locator(sel).innerText();
const want = (name) => !ONLY || ONLY.has(name);

const VIEWS = {
  async empty(w) {
    const page = await open(w, '', false);
    await shot(page, 'empty', w);
    await page.context().close();
  },
  async summary(w) {
    const page = await open(w, base);
    if (await page.locator('[data-testid=summary] details.warnings').count()) await page.click('[data-testid=summary] details.warnings summary');
    if (w === 1440) {
      figures.summary = await text(page, '[data-testid=summary]');
      figures.warnings = await page.locator('[data-testid=summary] details.warnings').innerText().catch(() => '');
    }
    await shot(page.locator('[data-testid=summary]'), 'summary', w);
    await page.context().close();
  },
  async charts(w) {
    const page = await open(w, base);
    for (const [id, name] of [['chart-time-roofline', 'time-roofline'], ['chart-energy-roofline', 'energy-roofline'], ['chart-time-based', 'time-based']]) {
      await shot(page.locator(`[data-testid=${id}]`), name, w);
    }
    if (w === 1440) {
      figures.ceilings = await page.evaluate(() => globalThis.Chart.getChart(document.querySelector('[data-testid=chart-time-roofline] canvas'))
        .data.datasets.filter((d) => d.rlMemory).map((d) => d.label));
    }
    await page.context().close();
  },
  async layers(w) {
    const page = await open(w, base);
    await page.evaluate(() => { document.querySelector('#table-scroll').style.height = `${26 * 12 + 60}px`; });
    await page.waitForTimeout(200);
    await shot(page.locator('section.layers'), 'layers', w);
    if (w === 1440) {
      figures.topLayers = await page.$$eval('[data-testid=layer-table] tbody tr[data-index]', (trs) =>
        trs.slice(0, 10).map((tr) => [...tr.cells].map((c) => c.textContent).join(' | ')));
      figures.totals = await text(page, '[data-testid=layer-table] tfoot');
    }
    await page.context().close();
  },
  async graph(w) {
    const page = await open(w, base);
    await page.waitForSelector('[data-testid=graph-view] [data-box]', { timeout: 60000 });
    await page.waitForTimeout(200);
    await shot(page.locator('#graph-box'), 'graph', w);
    await shot(page.locator('#module-box'), 'modules', w);
    if (w === 1440) figures.graph = { status: await text(page, '[data-testid=graph-status]'), modules: await text(page, '[data-testid=module-status]') };
    await page.context().close();
  },
  async power(w) {
    const page = await open(w, `${base}&view=power`);
    await settle(page, 'power-advisor');
    if (w === 1440) figures.power = { recommended: await text(page, '[data-testid=power-recommended]'), reason: await text(page, '[data-testid=power-reason]'), table: await text(page, '[data-testid=power-table]') };
    await shot(page.locator('[data-testid=power-advisor]'), 'power-modes', w);
    await page.context().close();
  },
  async sweep(w) {
    const page = await open(w, `${base}&view=sweep`);
    await settle(page, 'sweep-view');
    if (w === 1440) figures.sweep = { critical: await text(page, '[data-testid=critical-batch]'), note: await text(page, '#sweep-note'), table: await text(page, '[data-testid=sweep-table]') };
    await shot(page.locator('[data-testid=sweep-view]'), 'batch-sweep', w);
    await page.context().close();
  },
  async compare(w) {
    const page = await open(w, `${base}&view=compare`);
    await settle(page, 'compare-view');
    if (w === 1440) figures.compare = await text(page, '[data-testid=compare-table]');
    await shot(page.locator('[data-testid=compare-view]'), 'compare', w);
    await page.context().close();
  },
  async models(w) {
    const page = await open(w, `hw=${HW}`, false);
    await page.setInputFiles('[data-testid=file-input]', join(FIXTURES, 'models/diff_old.onnx'));
    await page.waitForSelector('[data-testid=summary][data-time-s]', { timeout: 60000 });
    await page.setInputFiles('[data-testid=diff-file-input]', join(FIXTURES, 'models/diff_new.onnx'));
    await page.waitForSelector('[data-testid=diff-models][data-state=ready]', { timeout: 60000 });
    if (w === 1440) figures.compareModels = { title: await text(page, '[data-testid=diff-title]'), summary: await text(page, '[data-testid=diff-summary]'), layers: await text(page, '[data-testid=diff-layers]') };
    await shot(page.locator('[data-testid=diff-models]'), 'compare-models', w);
    await page.context().close();
  },
  async measured(w) {
    const page = await open(w, `hw=${HW}`, false);
    await page.setInputFiles('[data-testid=file-input]', join(FIXTURES, 'measured/small_cnn.onnx'));
    await page.waitForSelector('[data-testid=summary][data-time-s]', { timeout: 60000 });
    await page.setInputFiles('[data-testid=measured-input]', join(FIXTURES, 'measured/ort_small_cnn_all.json'));
    await page.waitForSelector('[data-testid=measured][data-attached="1"]', { timeout: 60000 });
    if (w === 1440) figures.measured = { summary: await text(page, '[data-testid=measured-summary]'), lost: await text(page, '[data-testid=measured-lost]') };
    await shot(page.locator('[data-testid=measured]'), 'measured', w);
    await page.context().close();
  },
  async llm(w) {
    const page = await open(w, 'example=llama3_8b_int4&hw=h100-sxm');
    await page.waitForFunction(() => ['done', 'error'].includes(document.querySelector('[data-testid=llm-panel]').dataset.state), null, { timeout: 60000 });
    if (w === 1440) figures.llm = await text(page, '[data-testid=llm-panel]');
    await shot(page.locator('[data-testid=llm-panel]'), 'llm', w);
    await page.context().close();
  },
  async editor(w) {
    const page = await open(w, base);
    await page.click('#custom-hw summary');
    await page.waitForSelector('[data-testid=profile-form] input[data-path]');
    const field = page.locator('[data-testid="pf-memory.0.bandwidth_Bps.value"]');
    await field.fill('fast');
    await field.press('Tab');
    await page.evaluate(() => { document.querySelector('.profile-form').style.maxHeight = '22rem'; });
    await shot(page.locator('[data-testid=profile-editor]'), 'profile-editor', w);
    await page.context().close();
  },
  async dims(w) {
    const page = await open(w, '', false);
    await page.setInputFiles('[data-testid=file-input]', join(FIXTURES, 'models/transformer_block.onnx'));
    await page.waitForSelector('[data-testid=dims-needed]', { state: 'visible' });
    await shot(page.locator('body'), 'dims-needed', w);
    await page.context().close();
  },
  async confirm(w) {
    const page = await open(w, `model=${encodeURIComponent(models.url.replace('127.0.0.1', 'localhost') + 'conv_net.onnx')}&hw=${HW}`, false);
    await page.waitForSelector('[data-testid=confirm-url]', { state: 'visible' });
    await shot(page.locator('body'), 'confirm-url', w);
    await page.context().close();
  },
  async error(w) {
    const page = await open(w, base);
    await page.setInputFiles('[data-testid=file-input]', join(FIXTURES, 'bad/not_onnx.onnx'));
    await page.waitForSelector('[data-testid=error]', { state: 'visible' });
    // The analysis before stays under the message: the view is the top of the page, not all of it.
    await shot(page, 'load-error', w);
    await page.context().close();
  },
};

try {
  for (const w of WIDTHS) for (const [name, fn] of Object.entries(VIEWS)) if (want(name)) await fn(w);
} finally {
  await browser.close();
  await site.close();
  await models.close();
}
console.log(JSON.stringify(figures, null, 1));
if (problems.length) die(`page errors: ${problems.join('; ')}`);
