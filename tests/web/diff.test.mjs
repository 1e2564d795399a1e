// Compare two models: the WASM core's rl_models_diff gives exactly the
// native CLI's diff (JSON and Markdown), survives bad input, and the page's
// "Compare with another model" view shows the core's figures, draws both
// models on the time roofline and restores both models from a share link.
// Run: tools/build-site.sh && npm test
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, SITE, CLI, NODE_WASM, FIXTURES, loadNodeCore, serve, CHROMIUM_ARGS, browserPrerequisites, confirmModelUrl } from './helpers.mjs';

const OLD = join(FIXTURES, 'models/diff_old.onnx');
const NEW = join(FIXTURES, 'models/diff_new.onnx');
const missing = [CLI, NODE_WASM].filter((p) => !existsSync(p));
const skipNode = missing.length ? `not built: ${missing.join(', ')} (run tools/build-site.sh)` : false;

/** The CLI's diff output (it exits 5 when a threshold is crossed). */
function cliDiff(args) {
  try {
    return execFileSync(CLI, ['diff', OLD, NEW, ...args], { encoding: 'utf8' });
  } catch (e) {
    if (e.status === 5) return e.stdout;
    throw e;
  }
}

function request(hwId, diff) {
  const hardware = JSON.parse(readFileSync(join(ROOT, 'hw', hwId + '.json'), 'utf8'));
  return JSON.stringify({ hardware, dims: {}, diff });
}

const { eng: fmtEng } = await import(join(ROOT, 'web/js/format.js'));

// Every top-level await comes before the first test and hook: a test that
// finishes while the module still awaits lets the file's after() hook run,
// which closed the server under the browser tests defined after the await.
const { chromium, exe, skip } = await browserPrerequisites([[CLI, 'build/rooflens (cmake --build build)']]);
let site, files, browser;

before(async () => {
  if (skip) return;
  site = await serve(SITE);
  files = await serve(FIXTURES, { cors: true });   // models opened by URL
  browser = await chromium.launch({ executablePath: exe, args: CHROMIUM_ARGS });
});
after(async () => {
  await browser?.close();
  await site?.close();
  await files?.close();
});

test('wasm diff equals the CLI diff: JSON and Markdown', { skip: skipNode }, async () => {
  const core = await loadNodeCore();
  const a = core.readAll(new Uint8Array(readFileSync(OLD)));
  const b = core.readAll(new Uint8Array(readFileSync(NEW)));
  assert.ok(a.model && b.model);
  const labels = { old_label: 'old.onnx', new_label: 'new.onnx', fail_if: 'time>+5%,unsupported>0', top: 10 };
  const args = ['--hw', 'jetson-agx-orin', '--label-old', 'old.onnx', '--label-new', 'new.onnx', '--fail-if', 'time>+5%,unsupported>0'];
  const got = JSON.parse(core.diff(a.model, b.model, request('jetson-agx-orin', { ...labels, markdown: false })));
  const want = JSON.parse(cliDiff([...args, '--format', 'json']));
  assert.equal(got.ok, true);
  assert.deepEqual(got, want);
  assert.equal(got.diff.gate.passed, false);
  const md = JSON.parse(core.diff(a.model, b.model, request('jetson-agx-orin', { ...labels, markdown: true }))).diff.markdown;
  assert.equal(md, cliDiff([...args, '--format', 'markdown']));
  // a bad threshold is refused with its place; both models still diff
  const bad = JSON.parse(core.diff(a.model, b.model, request('h100-sxm', { fail_if: 'time>>5%' })));
  assert.equal(bad.ok, false);
  assert.equal(bad.error.code, 'bad_fail_if');
  assert.equal(bad.error.where, 'diff.fail_if:6');
  assert.equal(JSON.parse(core.diff(a.model, b.model, request('h100-sxm', {}))).ok, true);
  assert.equal(JSON.parse(core.diff(a.model, 0, request('h100-sxm', {}))).ok, false);
  const summary = JSON.parse(core.summary(b.model, request('h100-sxm')));
  assert.equal(summary.summary.time_s, JSON.parse(core.analyze(b.model, request('h100-sxm'))).sol.chosen.time_s);
  core.freeModel(a.model);
  core.freeModel(b.model);
});

// ------------------------------------------------------------------ page

async function openPage(hash = '') {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push(`console: ${m.text()}`); });
  await page.goto(site.url + hash);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  return page;
}

const ready = (page) => page.waitForSelector('[data-testid=diff-models][data-state=ready]', { timeout: 20000 });

test('compare view: the deltas, the matched layers and both models on the roofline', { skip }, async () => {
  const page = await openPage('#hw=jetson-agx-orin');
  await page.setInputFiles('[data-testid=file-input]', OLD);
  await page.waitForSelector('[data-testid=summary][data-time-s]');
  await page.setInputFiles('[data-testid=diff-file-input]', NEW);
  await ready(page);
  const want = JSON.parse(cliDiff(['--hw', 'jetson-agx-orin', '--format', 'json'])).diff;
  const sum = page.locator('[data-testid=diff-summary]');
  assert.equal(Number(await sum.getAttribute('data-time-old')), want.totals.time_s.old);
  assert.equal(Number(await sum.getAttribute('data-time-new')), want.totals.time_s.new);
  assert.equal(Number(await sum.getAttribute('data-flops-delta')), 107520);
  assert.equal(Number(await sum.getAttribute('data-params-delta')), 13472);
  // the bytes beside the fused time are the fused model's, not the unfused traffic
  const bytesRow = await page.locator('[data-testid=diff-bytes]').innerText();
  assert.match(bytesRow, new RegExp(`^${fmtEng(want.totals.sol_bytes.old, 'B')} → ${fmtEng(want.totals.sol_bytes.new, 'B')}`));
  assert.notEqual(want.totals.sol_bytes.new, want.totals.bytes.new);
  assert.match(await page.locator('[data-testid=diff-summary]').innerText(), /Bytes moved \(fused\)/);
  // the forecast of both models beside their floors, the core's figures as the Markdown gives them
  assert.match(await page.locator('[data-testid=diff-forecast]').innerText(),
    new RegExp(`^${fmtEng(want.totals.forecast_s.old, 's')} → ${fmtEng(want.totals.forecast_s.new, 's')}`));
  const counts = page.locator('[data-testid=diff-layers]');
  assert.equal(await counts.getAttribute('data-matched'), '6');
  assert.equal(await counts.getAttribute('data-added'), '1');
  // the table: every matched, added and removed layer, the changes first
  const rows = page.locator('[data-testid=diff-table] tbody tr');
  assert.equal(await rows.count(), 7);
  assert.deepEqual(await rows.evaluateAll((trs) => trs.map((tr) => tr.dataset.kind)),
    want.changes.map((c) => c.kind).concat(Array(6 - 4).fill('same')));
  assert.match(await page.locator('[data-testid=diff-table]').innerText(), /act\s+Relu → MyOp\s+by name/);
  // the bound column speaks the words of every other surface (the Markdown's "launch floor"), not the core's ids
  const bounds = await rows.evaluateAll((trs) => trs.map((tr) => tr.lastElementChild.textContent));
  assert.ok(bounds.every((b) => !/\boverhead\b/.test(b)), bounds.join(', '));
  assert.ok(bounds.includes('launch floor'), bounds.join(', '));
  assert.match(await page.locator('[data-testid=diff-notes]').innerText(), /Newly unsupported.*act \(com\.example\.MyOp\)/);
  // both models on the time roofline: old hollow, new filled, arrows where a layer moved
  const chart = page.locator('[data-testid=diff-chart]');
  // a point per kernel, where the core places it (kernel_*; a fused layer is drawn at its kernel)
  const pts = (x, y) => x > 0 && y > 0;
  assert.equal(Number(await chart.getAttribute('data-old-points')),
    want.matched.filter((l) => pts(l.kernel_intensity.old, l.kernel_flops_per_s.old)).length);
  assert.equal(Number(await chart.getAttribute('data-new-points')),
    want.matched.filter((l) => pts(l.kernel_intensity.new, l.kernel_flops_per_s.new)).length +
    want.added.filter((l) => pts(l.kernel_intensity, l.kernel_flops_per_s)).length);
  assert.ok(Number(await chart.getAttribute('data-arrows')) >= 3);
  const styles = await page.evaluate(() => {
    const ch = globalThis.Chart.getChart(document.querySelector('[data-testid=diff-chart]'));
    return ch.data.datasets.filter((d) => d.rl === 'old' || d.rl === 'new').map((d) => ({ rl: d.rl, bg: d.backgroundColor }));
  });
  assert.deepEqual(styles.map((s) => s.rl), ['old', 'new']);
  assert.equal(styles[0].bg, 'rgba(0,0,0,0)', 'old points hollow');
  assert.notEqual(styles[1].bg, 'rgba(0,0,0,0)', 'new points filled');
  // the thresholds: judged by the core; a bad one says where
  await page.fill('[data-testid=diff-fail-if]', 'unsupported>0');
  await page.press('[data-testid=diff-fail-if]', 'Enter');
  await page.waitForSelector('[data-testid=diff-gate][data-verdict=failed]');
  await page.fill('[data-testid=diff-fail-if]', 'time>>5%');
  await page.press('[data-testid=diff-fail-if]', 'Enter');
  await page.waitForSelector('[data-testid=diff-gate][data-verdict=error]');
  assert.match(await page.locator('[data-testid=diff-gate]').innerText(), /at character 6/);
  assert.equal(await rows.count(), 7, 'the diff is still shown');
  // the Markdown is the CLI's
  assert.equal(await page.locator('[data-testid=diff-markdown]').inputValue(),
    cliDiff(['--hw', 'jetson-agx-orin', '--format', 'markdown', '--label-old', 'diff_old.onnx', '--label-new', 'diff_new.onnx']));
  // swap: the page's model becomes the new one
  await page.click('[data-testid=diff-swap]');
  await page.waitForFunction(() => document.querySelector('[data-testid=diff-summary]').dataset.flopsDelta === '-107520');
  // the options above apply: a new hardware re-runs the diff
  await page.selectOption('[data-testid=hw-select]', 'h100-sxm');
  const h100 = JSON.parse(cliDiff(['--hw', 'h100-sxm', '--format', 'json'])).diff;
  await page.waitForFunction((t) => document.querySelector('[data-testid=diff-summary]').dataset.timeNew === String(t), h100.totals.time_s.old);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('compare view: a share link restores both models opened by URL', { skip }, async () => {
  const page = await openPage();
  const oldUrl = `${files.url}models/diff_old.onnx`, newUrl = `${files.url}models/diff_new.onnx`;
  await page.fill('[data-testid=url-input]', oldUrl);
  await page.press('[data-testid=url-input]', 'Enter');
  await page.waitForSelector('[data-testid=summary][data-time-s]');
  await page.fill('[data-testid=diff-url-input]', newUrl);
  await page.press('[data-testid=diff-url-input]', 'Enter');
  await ready(page).catch(async (e) => { throw new Error(`${e.message}\n${await page.textContent('[data-testid=diff-models]')}`); });
  await page.fill('[data-testid=diff-fail-if]', 'flops>+10%');
  await page.press('[data-testid=diff-fail-if]', 'Enter');
  await page.waitForSelector('[data-testid=diff-gate][data-verdict=failed]');
  await page.click('[data-testid=copy-link]');
  await page.waitForSelector('[data-testid=copy-link][data-link]');
  const link = await page.getAttribute('[data-testid=copy-link]', 'data-link');
  assert.ok(link.includes('vs=') && link.includes('gate='), link);
  await page.context().close();

  const again = await openPage(new URL(link).hash);
  await confirmModelUrl(again); // a link's model on another origin is fetched only when the user says so
  await again.click('[data-testid=diff-confirm-url]'); // and so is the model it is compared with
  await ready(again);
  assert.equal(await again.locator('[data-testid=diff-layers]').getAttribute('data-matched'), '6');
  assert.equal(await again.locator('[data-testid=diff-fail-if]').inputValue(), 'flops>+10%');
  assert.equal(await again.locator('[data-testid=diff-gate]').getAttribute('data-verdict'), 'failed');
  // closing the comparison leaves the page's model and drops it from the link
  await again.click('[data-testid=diff-close]');
  await again.waitForSelector('[data-testid=diff-models][data-state=empty]');
  await again.click('[data-testid=copy-link]');
  await again.waitForFunction(() => !/vs=/.test(document.querySelector('[data-testid=copy-link]').dataset.link || 'vs='));
  assert.ok(await again.locator('[data-testid=summary][data-time-s]').count());
  assert.deepEqual(again.problems, []);
  await again.context().close();
});

test('compare view: a corrupt second model is reported, the page model stays', { skip }, async () => {
  const page = await openPage();
  await page.setInputFiles('[data-testid=file-input]', OLD);
  await page.waitForSelector('[data-testid=summary][data-time-s]');
  await page.setInputFiles('[data-testid=diff-file-input]', join(FIXTURES, 'bad/absurd_dim.onnx'));
  await page.waitForSelector('[data-testid=diff-models][data-state=error]');
  assert.match(await page.locator('[data-testid=diff-status]').innerText(), /Could not read absurd_dim\.onnx: .*too large/);
  assert.equal(await page.locator('[data-testid=diff-status]').getAttribute('data-code'), 'dim_overflow');
  // the page's own model is still open and analyses
  await page.selectOption('[data-testid=precision-select]', 'fp16');
  await page.waitForFunction(() => document.querySelector('[data-testid=summary]').dataset.precision === 'fp16');
  await page.setInputFiles('[data-testid=diff-file-input]', NEW);
  await ready(page);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
