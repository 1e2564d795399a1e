#!/usr/bin/env node
// Cross-browser smoke test of the built page: in Chromium, Firefox ESR and
// WebKitGTK (tools/browsers/launch.mjs), an example model is opened and the page
// must show what a user needs: the layer table has rows, the summary's
// predicted time is the CLI's own figure (the same C core, run natively), the
// time and energy rooflines are drawn (their canvases hold ink), and at a
// phone's 390 px no form control sticks out past the window's right edge
// (the comparison with a second model open: its controls are the widest).
// Chromium is the CI browser (npm test); this is the check of the other two.
//
//   tools/browsers/smoke.sh            installs, builds what is missing, runs this
//   node tools/browsers/smoke.mjs [--browsers chromium,firefox,webkit] [--example resnet50] [--hw jetson-agx-orin]
//
// Prints one line per check and browser; exits 1 when any fails.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, SITE, CLI, cliJson, serve } from '../../tests/web/helpers.mjs';
import { BROWSERS, launchBrowser, pageProblems, controlsPastTheEdge } from './launch.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 && args[i + 1] ? args[i + 1] : dflt; };
const WANT = opt('browsers', BROWSERS.join(',')).split(',');
const EXAMPLE = opt('example', 'resnet50');
const HW = opt('hw', 'jetson-agx-orin');
const SECOND = 'conv_net'; // the example compared with, for the 390 px check
const CHARTS = ['chart-time-roofline', 'chart-energy-roofline'];
// A drawn roofline inks about 9 % of its canvas (axes, grid, roofs, points);
// an empty canvas inks nothing.
const MIN_INK = 0.01;
const LIMIT_S = 300; // per browser; a run takes 5 to 15 s

function die(msg) { console.error(`[smoke] ${msg}`); process.exit(2); }
for (const b of WANT) if (!BROWSERS.includes(b)) die(`unknown browser '${b}' (one of ${BROWSERS.join(', ')})`);
if (!existsSync(join(SITE, 'index.html'))) die('build/site is missing: run tools/build-site.sh (tools/browsers/smoke.sh does)');
if (!existsSync(CLI)) die('build/rooflens is missing: cmake --build build (tools/browsers/smoke.sh does)');
const examples = JSON.parse(readFileSync(join(SITE, 'samples/index.json'), 'utf8')).examples;
const example = examples.find((e) => e.id === EXAMPLE) || die(`the site has no example '${EXAMPLE}'`);
if (Object.keys(example.dims).length) die(`example '${EXAMPLE}' sets sizes of its own: pick one without (resnet50, conv_net)`);
const { eng } = await import(pathToFileURL(join(ROOT, 'web/js/format.js')).href);

// The CLI's answer for the same file, hardware and (default) options.
const cli = cliJson(join(SITE, 'samples', example.file), ['--hw', HW]);
if (!cli.sol) die(`the CLI could not analyse ${example.file}: ${JSON.stringify(cli.error)}`);
const want = { time: cli.sol.chosen.time_s, layers: cli.layers.length };

/** Share of a chart canvas's pixels that are drawn (not transparent, not white); 0 below `min` or without a canvas. */
function ink({ testid, min }) {
  const c = document.querySelector(`[data-testid=${testid}] canvas`);
  if (!c || !c.width || !c.height) return 0;
  const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let drawn = 0;
  for (let i = 0; i < px.length; i += 4) if (px[i + 3] > 0 && (px[i] < 240 || px[i + 1] < 240 || px[i + 2] < 240)) drawn++;
  const share = drawn / (px.length / 4);
  return share >= min ? share : 0;
}

async function checkWide(page, check) {
  await page.waitForSelector('[data-testid=summary][data-time-s]', { what: 'the analysis' });
  const got = await page.evaluate(() => ({
    time: document.querySelector('[data-testid=summary]').dataset.timeS,
    layers: document.querySelector('[data-testid=summary]').dataset.layers,
    shown: document.querySelector('[data-testid=predicted-time]')?.textContent,
    rows: document.querySelectorAll('[data-testid=layer-table] tbody tr[data-index]').length,
  }));
  check('the layer table has rows', got.rows > 0 && Number(got.layers) === want.layers, `${got.rows} rows drawn, ${got.layers} layers (CLI: ${want.layers})`);
  check("the summary's time is the CLI's", Number(got.time) === want.time && got.shown === eng(want.time, 's'),
    `page ${got.time} s shown as "${got.shown}", CLI ${want.time} s ("${eng(want.time, 's')}")`);
  for (const id of CHARTS) {
    // The chart library loads once the page is interactive: give it the time to draw.
    const share = await page.waitFor(ink, { testid: id, min: MIN_INK }, { timeout: 30000, what: id })
      .catch(() => page.evaluate(ink, { testid: id, min: 0 }));
    check(`${id} is drawn`, share >= MIN_INK, `${(100 * share).toFixed(1)} % of its pixels drawn`);
  }
}

async function checkNarrow(page, check) {
  await page.waitForSelector('[data-testid=diff-models][data-state=ready]', { what: 'the comparison with a second model' });
  const past = await page.evaluate(controlsPastTheEdge);
  check('at 390 px no control sticks out', past.length === 0, past.length ? past.join('; ') : 'every control within the window');
}

async function smoke(name, site) {
  const results = [];
  const started = Date.now();
  let browser;
  const check = (what, ok, detail) => {
    results.push(ok);
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${name.padEnd(8)} ${what}: ${detail}`);
  };
  // A driver that stops answering must not hang the run: past the limit the browser fails and is closed.
  let timer;
  const limit = new Promise((_, fail) => { timer = setTimeout(() => fail(new Error(`no answer in ${LIMIT_S} s`)), LIMIT_S * 1000); });
  try {
    await Promise.race([limit, run(name, site, check, (b) => { browser = b; })]);
  } catch (e) {
    check('runs', false, e.message.split('\n')[0]);
  } finally {
    clearTimeout(timer);
    await browser?.close();
  }
  console.log(`[smoke] ${name}: ${results.filter(Boolean).length}/${results.length} checks passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return results.length > 0 && results.every(Boolean);
}

/** Opens the example at 1440 px and, compared with a second one, at 390 px; `started` gets the browser to close. */
async function run(name, site, check, started) {
  const browser = await launchBrowser(name);
  started(browser);
  console.log(`[smoke] ${browser.version}`);
  const runs = [[1440, `example=${EXAMPLE}&hw=${HW}`, checkWide], [390, `example=${EXAMPLE}&hw=${HW}&vsex=${SECOND}`, checkNarrow]];
  for (const [width, hash, fn] of runs) {
    const page = await browser.open(`${site.url}#${hash}`, { width, height: 900 });
    await fn(page, check);
    const problems = await pageProblems(page);
    check(`no page errors at ${width} px`, problems.length === 0, problems.join('; ') || 'none');
    await page.close();
  }
}

const site = await serve(SITE);
let allOk = true;
try {
  for (const name of WANT) allOk = (await smoke(name, site)) && allOk;
} finally {
  await site.close();
}
process.exit(allOk ? 0 : 1);
