#!/usr/bin/env node
// Screenshots of every view of the page, at 1440 and 390 px wide, for
// docs/guide.md (and for looking at the page as a user would), taken from
// the built site (tools/build-site.sh) in headless Debian Chromium via
// playwright-core, or in Firefox ESR or WebKitGTK (tools/browsers/launch.mjs; install
// them with tools/install-deps.sh --browsers). It also prints the figures the
// page shows in them, so the guide quotes only numbers the page shows, and
// the figures of one browser can be compared with another's.
//
//   node tools/screenshots.mjs [--browser chromium|firefox|webkit] [--out DIR] [--site build/site]
//                              [--example resnet50] [--hw jetson-agx-orin] [--widths 1440,390] [--only NAME,...]
//
// --out defaults to docs/img for Chromium (the guide's images) and to
// build/screenshots/BROWSER for the others.
// Views (file guide-NAME.png at 1440 px, guide-NAME-390.png at 390 px):
//   empty, summary, time-roofline, energy-roofline, time-based, layers, graph, modules,
//   power-modes, batch-sweep, compare, devices, compare-models, diff-graph, diff-modules (--only diffview),
//   measured, llm,
//   profile-editor, dims-needed, confirm-url, load-error. The example must be
//   one of the site's samples (compare-models, measured and llm use their own
//   models: two test fixtures, a fixture with its ONNX Runtime profile, and
//   the Llama-shaped example on an H100).
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT, SITE, FIXTURES, serve } from '../tests/web/helpers.mjs';
import { BROWSERS, launchBrowser, pageProblems, controlsPastTheEdge } from './browsers/launch.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 && args[i + 1] ? args[i + 1] : dflt; };
const BROWSER = opt('browser', 'chromium');
const OUT = resolve(opt('out', BROWSER === 'chromium' ? join(ROOT, 'docs/img') : join(ROOT, 'build/screenshots', BROWSER)));
const SITE_DIR = resolve(opt('site', SITE));
const EXAMPLE = opt('example', 'resnet50');
const HW = opt('hw', 'jetson-agx-orin');
const WIDTHS = opt('widths', '1440,390').split(',').map(Number);
const ONLY = opt('only', '') ? new Set(opt('only', '').split(',')) : null;
const LIMIT = 200 * 1024; // bytes per image, to keep the repository small

function die(msg) { console.error(`[screenshots] ${msg}`); process.exit(1); }

if (!BROWSERS.includes(BROWSER)) die(`unknown --browser '${BROWSER}' (one of ${BROWSERS.join(', ')})`);
if (!existsSync(join(SITE_DIR, 'index.html'))) die(`${SITE_DIR} has no site: run tools/build-site.sh first`);
const samples = JSON.parse(readFileSync(join(SITE_DIR, 'samples/index.json'), 'utf8')).examples.map((e) => e.id);
if (!samples.includes(EXAMPLE)) die(`the site has no example '${EXAMPLE}' (it has ${samples.join(', ')})`);
let browser;
try { browser = await launchBrowser(BROWSER); } catch (e) { die(e.message); }
console.log(`[screenshots] ${browser.version}`);

mkdirSync(OUT, { recursive: true });
const site = await serve(SITE_DIR);
const models = await serve(join(FIXTURES, 'models'), { cors: true });
const problems = [];
const figures = { browser: browser.version };
const base = `example=${EXAMPLE}&hw=${HW}`;
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

async function open(width, hash, waitModel = true) {
  const page = await browser.open(`${site.url}${hash ? '#' + hash : ''}`, { width, height: 900 });
  await page.waitFor(() => document.body.dataset.ready === '1', null, { timeout: 30000, what: 'the page to be ready' });
  if (waitModel) await page.waitForSelector('[data-testid=summary][data-time-s]');
  page.width = width;
  return page;
}
/** Closes a view's page; what it reported, and any control past the window's edge, is a problem. */
async function close(page) {
  for (const p of await pageProblems(page)) problems.push(p);
  for (const p of await page.evaluate(controlsPastTheEdge)) problems.push(`at ${page.width} px: ${p}`);
  await page.close();
}
async function settle(page, testid) {
  await page.waitFor((t) => ['done', 'error', 'empty'].includes(document.querySelector(`[data-testid=${t}]`).dataset.state),
    testid, { what: `${testid} to settle` });
}
/** Saves the element `sel` (the whole window when null) as guide-NAME[-WIDTH].png. */
async function shot(page, sel, name, width) {
  const file = `guide-${name}${width === 1440 ? '' : `-${width}`}.png`;
  const path = join(OUT, file);
  await page.shot(sel, path);
  const size = statSync(path).size;
  console.log(`[screenshots] ${file}: ${(size / 1024).toFixed(0)} KiB${size > LIMIT ? '  (over 200 KiB!)' : ''}`);
}
const want = (name) => !ONLY || ONLY.has(name);

const VIEWS = {
  async empty(w) {
    const page = await open(w, '', false);
    await shot(page, null, 'empty', w);
    await close(page);
  },
  async summary(w) {
    const page = await open(w, base);
    if (await page.count('[data-testid=summary] details.warnings')) await page.click('[data-testid=summary] details.warnings summary');
    if (w === 1440) {
      figures.summary = await page.text('[data-testid=summary]');
      figures.warnings = (await page.text('[data-testid=summary] details.warnings')) ?? '';
    }
    await shot(page, '[data-testid=summary]', 'summary', w);
    await close(page);
  },
  async charts(w) {
    const page = await open(w, base);
    for (const [id, name] of [['chart-time-roofline', 'time-roofline'], ['chart-energy-roofline', 'energy-roofline'], ['chart-time-based', 'time-based']]) {
      await shot(page, `[data-testid=${id}]`, name, w);
    }
    if (w === 1440) {
      figures.ceilings = await page.evaluate(() => globalThis.Chart.getChart(document.querySelector('[data-testid=chart-time-roofline] canvas'))
        .data.datasets.filter((d) => d.rlMemory).map((d) => d.label));
    }
    await close(page);
  },
  async layers(w) {
    const page = await open(w, base);
    await page.evaluate(() => { document.querySelector('#table-scroll').style.height = `${26 * 12 + 60}px`; });
    // the third row selected, so the picture shows how a selection looks
    await page.evaluate(() => document.querySelectorAll('[data-testid=layer-table] tbody tr[data-index]')[2]?.click());
    await sleep(200);
    await shot(page, 'section.layers', 'layers', w);
    if (w === 1440) {
      figures.topLayers = await page.evaluate(() => [...document.querySelectorAll('[data-testid=layer-table] tbody tr[data-index]')]
        .slice(0, 10).map((tr) => [...tr.cells].map((c) => c.textContent).join(' | ')));
      figures.totals = await page.text('[data-testid=layer-table] tfoot');
    }
    await close(page);
  },
  async graph(w) {
    const page = await open(w, base);
    await page.waitForSelector('[data-testid=graph-view] [data-box]');
    await sleep(200);
    await shot(page, '#graph-box', 'graph', w);
    await shot(page, '#module-box', 'modules', w);
    if (w === 1440) figures.graph = { status: await page.text('[data-testid=graph-status]'), modules: await page.text('[data-testid=module-status]') };
    await close(page);
  },
  async power(w) {
    const page = await open(w, `${base}&view=power`);
    await settle(page, 'power-advisor');
    if (w === 1440) figures.power = { recommended: await page.text('[data-testid=power-recommended]'), reason: await page.text('[data-testid=power-reason]'), table: await page.text('[data-testid=power-table]') };
    await shot(page, '[data-testid=power-advisor]', 'power-modes', w);
    await close(page);
  },
  async sweep(w) {
    const page = await open(w, `${base}&view=sweep`);
    await settle(page, 'sweep-view');
    if (w === 1440) figures.sweep = { critical: await page.text('[data-testid=critical-batch]'), note: await page.text('#sweep-note'), table: await page.text('[data-testid=sweep-table]') };
    await shot(page, '[data-testid=sweep-view]', 'batch-sweep', w);
    await close(page);
  },
  async compare(w) {
    const page = await open(w, `${base}&view=compare`);
    await settle(page, 'compare-view');
    if (w === 1440) figures.compare = await page.text('[data-testid=compare-table]');
    await shot(page, '[data-testid=compare-view]', 'compare', w);
    await close(page);
  },
  async devices(w) {
    // several H100s (the Jetson has no chip-to-chip links): the groups and a plan of two
    const page = await open(w, `example=${EXAMPLE}&hw=h100-sxm&view=devices&tp=2`);
    await settle(page, 'devices-view');
    if (w === 1440) figures.devices = await page.text('[data-testid=devices-table]');
    await shot(page, '[data-testid=devices-view]', 'devices', w);
    await close(page);
  },
  async models(w) {
    const page = await open(w, `hw=${HW}`, false);
    await page.setFiles('[data-testid=file-input]', join(FIXTURES, 'models/diff_old.onnx'));
    await page.waitForSelector('[data-testid=summary][data-time-s]');
    await page.setFiles('[data-testid=diff-file-input]', join(FIXTURES, 'models/diff_new.onnx'));
    await page.waitForSelector('[data-testid=diff-models][data-state=ready]');
    if (w === 1440) figures.compareModels = { title: await page.text('[data-testid=diff-title]'), summary: await page.text('[data-testid=diff-summary]'), layers: await page.text('[data-testid=diff-layers]') };
    await shot(page, '[data-testid=diff-models]', 'compare-models', w);
    await close(page);
  },
  // the graph and module views of a comparison: one layer widened (tests/fixtures/models/widen_*.onnx)
  async diffview(w) {
    const page = await open(w, `hw=${HW}&dview=change`, false);
    await page.setFiles('[data-testid=file-input]', join(FIXTURES, 'models/widen_old.onnx'));
    await page.waitForSelector('[data-testid=summary][data-time-s]');
    await page.setFiles('[data-testid=diff-file-input]', join(FIXTURES, 'models/widen_new.onnx'));
    await page.waitForSelector('#graph-box[data-diff-view=change] .graph-box[data-change]');
    await sleep(200);
    if (w === 1440) figures.diffView = { graph: await page.text('[data-testid=graph-status]'), modules: await page.text('[data-testid=module-status]') };
    await shot(page, '#graph-box', 'diff-graph', w);
    await shot(page, '#module-box', 'diff-modules', w);
    await close(page);
  },
  async measured(w) {
    const page = await open(w, `hw=${HW}`, false);
    await page.setFiles('[data-testid=file-input]', join(FIXTURES, 'measured/small_cnn.onnx'));
    await page.waitForSelector('[data-testid=summary][data-time-s]');
    await page.setFiles('[data-testid=measured-input]', join(FIXTURES, 'measured/ort_small_cnn_all.json'));
    await page.waitForSelector('[data-testid=measured][data-attached="1"]');
    if (w === 1440) figures.measured = { summary: await page.text('[data-testid=measured-summary]'), lost: await page.text('[data-testid=measured-lost]') };
    await shot(page, '[data-testid=measured]', 'measured', w);
    await close(page);
  },
  async llm(w) {
    const page = await open(w, 'example=llama3_8b_int4&hw=h100-sxm');
    await page.waitFor(() => ['done', 'error'].includes(document.querySelector('[data-testid=llm-panel]').dataset.state), null, { what: 'the LLM panel' });
    if (w === 1440) figures.llm = await page.text('[data-testid=llm-panel]');
    await shot(page, '[data-testid=llm-panel]', 'llm', w);
    await close(page);
  },
  async editor(w) {
    const page = await open(w, base);
    await page.click('#custom-hw summary');
    await page.waitForSelector('[data-testid=profile-form] input[data-path]');
    await page.type('[data-testid="pf-memory.0.bandwidth_Bps.value"]', 'fast');
    await page.evaluate(() => { document.querySelector('.profile-form').style.maxHeight = '22rem'; });
    await shot(page, '[data-testid=profile-editor]', 'profile-editor', w);
    await close(page);
  },
  async dims(w) {
    const page = await open(w, '', false);
    await page.setFiles('[data-testid=file-input]', join(FIXTURES, 'models/transformer_block.onnx'));
    await page.waitForSelector('[data-testid=dims-needed]');
    await shot(page, 'body', 'dims-needed', w);
    await close(page);
  },
  async confirm(w) {
    const page = await open(w, `model=${encodeURIComponent(models.url.replace('127.0.0.1', 'localhost') + 'conv_net.onnx')}&hw=${HW}`, false);
    await page.waitForSelector('[data-testid=confirm-url]');
    await shot(page, 'body', 'confirm-url', w);
    await close(page);
  },
  async error(w) {
    const page = await open(w, base);
    await page.setFiles('[data-testid=file-input]', join(FIXTURES, 'bad/not_onnx.onnx'));
    await page.waitForSelector('[data-testid=error]');
    // The analysis before stays under the message: the view is the top of the page, not all of it.
    await shot(page, null, 'load-error', w);
    await close(page);
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
