// Measured against the speed of light and the forecast, in the WebAssembly core and on the page
// (web/js/measured.js): the same answer as the CLI for the same profile, the
// "where the time is lost" view, achieved points on the time roofline, the
// Netron attachment download, a bad profile refused, and a share link that
// says measurements were attached locally without carrying them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { SITE, CLI, FIXTURES, ROOT, NODE_WASM, serve, cliJson, loadNodeCore, CHROMIUM_ARGS, browserPrerequisites, browserSession } from './helpers.mjs';

const M = (n) => join(FIXTURES, 'measured', n);
const MODEL = M('small_cnn.onnx');
const PROFILE = M('ort_small_cnn_all.json');
const coreSkip = existsSync(NODE_WASM) && existsSync(CLI) ? false : 'missing: build-wasm (tools/build-site.sh) or build/rooflens';

// The browser's prerequisites are awaited before the first test is
// defined: a test defined before a top-level await can finish first, and
// the file's after() hooks then close the server under the tests after it.
const { chromium, exe, skip } = await browserPrerequisites([[CLI, 'build/rooflens (cmake --build build)']]);
let site, browser;
browserSession({ chromium, exe, skip }, (s, b) => { site = s; browser = b; });

test('WASM core: a measured profile gives the CLI\'s answer, and the same Netron attachment', { skip: coreSkip }, async () => {
  const core = await loadNodeCore();
  const { model } = core.readAll(new Uint8Array(readFileSync(MODEL)));
  const hw = JSON.parse(readFileSync(join(FIXTURES, '..', 'hw', 'unit.json'), 'utf8'));
  const req = { hardware: hw, layers: true, measured: { text: readFileSync(PROFILE, 'utf8'), format: 'auto' } };
  const res = JSON.parse(core.analyze(model, JSON.stringify(req)));
  assert.equal(res.ok, true);
  const cli = cliJson(MODEL, ['--hw', join(FIXTURES, '..', 'hw', 'unit.json'), '--measured', PROFILE]);
  assert.deepEqual(res.measured, cli.measured);
  assert.deepEqual(res.layers.map((l) => [l.measured_s, l.efficiency]), cli.layers.map((l) => [l.measured_s, l.efficiency]));
  assert.ok(res.layers.some((l) => l.measured_s > 0));
  const att = JSON.parse(core.netron(JSON.stringify(res)));
  const cliAtt = JSON.parse(execFileSync(CLI, [MODEL, '--hw', join(FIXTURES, '..', 'hw', 'unit.json'), '--measured', PROFILE,
    '--format', 'netron'], { encoding: 'utf8' }));
  assert.equal(att.signature, 'netron:attachment');
  assert.deepEqual(att, cliAtt);
  // a bad profile is an error; the module goes on working
  const bad = JSON.parse(core.analyze(model, JSON.stringify({ ...req, measured: { text: 'name,time_s\nx,slow\n' } })));
  assert.equal(bad.ok, false);
  assert.equal(bad.error.code, 'bad_measured');
  const foreign = JSON.parse(core.analyze(model, JSON.stringify({ ...req, measured: { text: readFileSync(M('ort_small_mlp_all.json'), 'utf8') } })));
  assert.equal(foreign.error?.code, 'bad_measured', 'a profile of another model is refused');
  assert.match(foreign.error.message, /another model/);
  assert.equal(JSON.parse(core.analyze(model, JSON.stringify(req))).ok, true);
  core.freeModel(model);
});


async function openPage(url = site.url) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, acceptDownloads: true });
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push(`console: ${m.text()}`); });
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  return page;
}

test('page: a profile dropped onto the model shows measured time, the time lost and achieved points', { skip }, async () => {
  const page = await openPage();
  const cli = cliJson(MODEL, ['--measured', PROFILE]);
  await page.setInputFiles('[data-testid=file-input]', MODEL);
  await page.waitForFunction((n) => document.querySelector('[data-testid=summary]').dataset.layers === String(n), cli.layers.length);
  assert.equal(await page.getAttribute('[data-testid=measured]', 'data-attached'), '0');
  await page.setInputFiles('[data-testid=measured-input]', PROFILE);
  await page.waitForSelector('[data-testid=measured][data-attached="1"]', { timeout: 20000 });

  // the ranked table: the CLI's first groups, in its order
  const rows = page.locator('[data-testid=measured-lost] tbody tr');
  assert.equal(await rows.count(), Math.min(20, cli.measured.groups.length));
  assert.equal(await rows.nth(0).locator('td').nth(0).textContent(), cli.measured.groups[0].kernels[0]);
  assert.match(await page.textContent('[data-testid=measured-summary]'), /Measured .* in 8 kernels \(ONNX Runtime profile/);
  // how the runs were pooled is the core's word (the mean over this profile's two kept runs)
  assert.equal(cli.measured.statistic, 'mean');
  assert.match(await page.textContent('[data-testid=measured-summary]'), new RegExp(`each kernel's mean over ${cli.measured.runs} runs`));
  assert.match(await page.textContent('[data-testid=measured-unmatched] summary'), /2 kernels name no layer/);
  // the run against the floor and the forecast: the core's ratios, as the CLI prints them
  const { eng, times } = await import(join(ROOT, 'web/js/format.js'));
  const ms = cli.measured;
  assert.ok(ms.forecast_s === cli.forecast.time_s && ms.measured_over_forecast > 0, JSON.stringify(ms));
  assert.ok((await page.textContent('[data-testid=measured-summary]')).includes(
    `${times(ms.measured_over_predicted)} the speed of light of ${eng(ms.predicted_s, 's')} and ${times(ms.measured_over_forecast)} the forecast of ${eng(ms.forecast_s, 's')}.`));

  // the layer table's measured column, and a row of the ranked table selects its layer
  const measuredCells = await page.$$eval('[data-testid=layer-table] tbody tr[data-index]', (trs) => {
    const th = [...document.querySelectorAll('[data-testid=layer-table] thead button')].map((b) => b.dataset.key);
    const col = th.indexOf('measured_s');
    return trs.map((tr) => tr.children[col].textContent).filter((t) => t !== '');
  });
  assert.equal(measuredCells.length, cli.layers.filter((l) => l.measured_s !== undefined).length);
  await rows.nth(0).click();
  const first = cli.measured.groups[0].nodes[0];
  await page.waitForSelector(`[data-testid=layer-table] tbody tr.selected[data-index="${first}"]`);

  // achieved points on the time roofline, one per measured kernel group with work
  const achieved = await page.evaluate(() => {
    const ch = globalThis.Chart.getChart(document.querySelector('[data-testid=chart-time-roofline] canvas'));
    const d = ch.data.datasets.find((s) => s.rl === 'measured');
    return d ? d.data.length : -1;
  });
  assert.equal(achieved, cli.measured.groups.filter((g) => g.intensity > 0 && g.achieved_flops_per_s > 0).length);

  // the Netron attachment, as the CLI writes it
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=download-netron]')]);
  assert.match(dl.suggestedFilename(), /\.netron\.json$/);
  const att = JSON.parse(readFileSync(await dl.path(), 'utf8'));
  assert.equal(att.signature, 'netron:attachment');
  assert.deepEqual(att, JSON.parse(execFileSync(CLI, [MODEL, '--measured', PROFILE, '--format', 'netron'], { encoding: 'utf8' })));

  // the link names the profile, never its contents
  await page.click('[data-testid=copy-link]');
  await page.waitForSelector('[data-testid=copy-link][data-link]');
  const link = await page.getAttribute('[data-testid=copy-link]', 'data-link');
  assert.match(link, /measured=ort_small_cnn_all\.json/);
  assert.ok(!link.includes('kernel_time') && link.length < 2000, link);
  assert.deepEqual(page.problems, []);
  await page.context().close();

  const page2 = await openPage(link);
  await page2.waitForSelector('[data-testid=notice]:not([hidden])');
  assert.match(await page2.textContent('[data-testid=notice]'), /measurements attached locally .*ort_small_cnn_all\.json/);
  await page2.context().close();
});

test('page: a profile the core refuses is not attached; removing one restores the plain analysis', { skip }, async () => {
  const page = await openPage();
  await page.setInputFiles('[data-testid=file-input]', MODEL);
  await page.waitForSelector('[data-testid=summary][data-layers]');
  await page.setInputFiles('[data-testid=measured-input]', { name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('name,time_s\n/conv1/Conv,fast\n') });
  const err = page.locator('[data-testid=error]');
  await err.waitFor({ state: 'visible' });
  assert.match(await err.textContent(), /bad\.csv.*line 2/);
  assert.equal(await err.getAttribute('data-code'), 'bad_measured');
  assert.equal(await page.getAttribute('[data-testid=measured]', 'data-attached'), '0');
  // a profile of another model matches none of this model's kernels: refused, never "8.00x the speed of light"
  await page.setInputFiles('[data-testid=measured-input]', M('ort_small_mlp_all.json'));
  await page.waitForFunction(() => document.querySelector('[data-testid=error]')?.dataset.code === 'bad_measured' && /another model/.test(document.querySelector('[data-testid=error]').textContent));
  assert.match(await err.textContent(), /ort_small_mlp_all\.json.*another model/);
  assert.equal(await page.getAttribute('[data-testid=measured]', 'data-attached'), '0');
  await page.setInputFiles('[data-testid=measured-input]', M('csv_small_cnn.csv'));
  await page.waitForSelector('[data-testid=measured][data-attached="1"]');
  await page.click('[data-testid=measured-remove]');
  await page.waitForSelector('[data-testid=measured][data-attached="0"]');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
