// Browser tests of the web page (build/site) in headless Debian Chromium via
// playwright-core. Run: tools/build-site.sh && npm test
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SITE, CLI, FIXTURES, ROOT, serve, cliJson, CHROMIUM_ARGS, browserPrerequisites, loadNodeCore, openPage as open, waitLayers, confirmModelUrl, browserSession } from './helpers.mjs';

const { chromium, exe, skip } = await browserPrerequisites([[CLI, 'build/rooflens (cmake --build build)']]);

const MODEL = (n) => join(FIXTURES, 'models', n);
let site, browser;

browserSession({ chromium, exe, skip }, (s, b) => { site = s; browser = b; });

const openPage = (url = site.url) => open(browser, url);

const summary = (page) => page.locator('[data-testid=summary]');

async function loadFile(page, path) {
  await page.setInputFiles('[data-testid=file-input]', path);
}

/** Clicks Copy link and returns the link once written (the handler is async). */
async function copyLink(page, mustMatch) {
  await page.evaluate(() => document.querySelector('[data-testid=copy-link]').removeAttribute('data-link'));
  await page.click('[data-testid=copy-link]');
  await page.waitForSelector('[data-testid=copy-link][data-link]');
  const link = await page.getAttribute('[data-testid=copy-link]', 'data-link');
  assert.match(link, mustMatch);
  return link;
}

test('a fixture model: its open sizes are asked for first; then the summary equals the CLI, table and charts render', { skip }, async () => {
  const page = await openPage();
  const cli = cliJson(MODEL('transformer_block.onnx'), ['--hw', 'h100-sxm', '--dim', 'seq=16', '--batch', '1']);
  await loadFile(page, MODEL('transformer_block.onnx'));
  // seq is symbolic and not set: the page asks, marks it not set, shows no figures
  const need = page.locator('[data-testid=dims-needed]');
  await need.waitFor({ state: 'visible', timeout: 20000 });
  assert.match(await need.textContent(), /transformer_block\.onnx .*\(seq\)/);
  assert.equal(await page.getAttribute('[data-testid=need-dim-seq]', 'placeholder'), 'not set');
  assert.equal(await page.getAttribute('[data-testid=need-dim-seq]', 'aria-invalid'), 'true');
  assert.equal(await summary(page).isVisible(), false);
  assert.equal(await page.locator('[data-testid=chart-time-roofline]').isVisible(), false);
  // batch is the one batch control (not a second field), shown as 1
  assert.equal(await page.locator('[data-testid=dim-batch], [data-testid=need-dim-batch]').count(), 0);
  assert.equal(await page.getAttribute('[data-testid=batch-input]', 'placeholder'), '1');
  await page.fill('[data-testid=need-dim-seq]', '16');
  await page.press('[data-testid=need-dim-seq]', 'Enter');
  await waitLayers(page, cli.layers.length);
  assert.equal(await need.isVisible(), false);
  assert.match(await page.textContent('[data-testid=summary-title]'), /^transformer_block\.onnx on /);
  assert.equal(Number(await summary(page).getAttribute('data-time-s')), cli.sol.chosen.time_s);
  assert.ok((await page.locator('[data-testid=layer-table] tbody tr[data-index]').count()) > 10);
  for (const id of ['chart-time-roofline', 'chart-energy-roofline', 'chart-time-based']) {
    const canvas = page.locator(`[data-testid=${id}] canvas`);
    assert.equal(await canvas.isVisible(), true, id);
    const box = await canvas.boundingBox();
    assert.ok(box.width > 100 && box.height > 100, id);
  }
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('one answer: the summary, both stars, the layer times and the Markdown carry the chosen model\'s time and energy', { skip }, async () => {
  const { eng, times } = await import(join(ROOT, 'web/js/format.js'));
  const page = await openPage();
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  const cli = cliJson(MODEL('transformer_block.onnx'), ['--hw', 'h100-sxm', '--dim', 'seq=16', '--batch', '1']);
  const ch = cli.sol.chosen;
  await loadFile(page, MODEL('transformer_block.onnx'));
  await page.locator('[data-testid=need-dim-seq]').waitFor({ state: 'visible', timeout: 20000 });
  await page.fill('[data-testid=need-dim-seq]', '16');
  await page.press('[data-testid=need-dim-seq]', 'Enter');
  await waitLayers(page, cli.layers.length);
  assert.equal(Number(await summary(page).getAttribute('data-time-s')), ch.time_s);
  assert.equal(Number(await summary(page).getAttribute('data-energy-j')), ch.energy_j);
  assert.equal(await page.locator('[data-testid=predicted-time]').textContent(), eng(ch.time_s, 's'));
  assert.equal(await page.locator('[data-testid=predicted-energy]').textContent(), eng(ch.energy_j, 'J'));
  // the whole-model stars: FLOPs over the chosen time, bytes and energy
  const stars = await page.evaluate(() => ['chart-time-roofline', 'chart-energy-roofline'].map((id) => {
    const chart = globalThis.Chart.getChart(document.querySelector(`[data-testid=${id}] canvas`));
    return chart.data.datasets.find((d) => d.rl === 'model').data[0];
  }));
  const close = (a, b) => Math.abs(a - b) <= 1e-12 * Math.abs(b);
  assert.ok(close(stars[0].x, ch.flops / ch.bytes) && close(stars[0].y, ch.flops / ch.time_s), JSON.stringify(stars[0]));
  assert.ok(close(stars[1].y, ch.flops / ch.energy_j), JSON.stringify(stars[1]));
  // the layer table's times and energies are shares of the chosen model's
  const sum = (k) => cli.layers.reduce((a, l) => a + l[k], 0);
  assert.ok(close(sum('t'), ch.time_s) && close(sum('energy_j'), ch.energy_j));
  await page.click('[data-testid=copy-md]');
  await page.waitForFunction(() => document.querySelector('[data-testid=share-link]').textContent.length > 0);
  let md = await page.evaluate(() => navigator.clipboard.readText().catch(() => ''));
  if (!md.startsWith('## ')) md = await page.locator('[data-testid=share-link]').textContent();
  assert.ok(md.includes(`**Speed of light:** ${eng(ch.time_s, 's')} (range of the speed of light ${eng(ch.lower_bound_s, 's')} … ${eng(ch.upper_bound_s, 's')})`) &&
    md.includes(`energy ${eng(ch.energy_j, 'J')}`), md);
  // the forecast beside it, the CLI's figures, on the summary and in the review
  const fc = cli.forecast;
  assert.equal(await page.locator('[data-testid=forecast-time]').textContent(), eng(fc.time_s, 's'));
  assert.equal(await page.locator('[data-testid=forecast-energy]').textContent(), eng(fc.energy_j, 'J'));
  assert.ok(md.includes(`**Forecast:** ${eng(fc.time_s, 's')}, ${times(fc.headroom)} the speed of light; analytic estimate: `) &&
    md.includes(`; energy ${eng(fc.energy_j, 'J')}`), md);
  // its band and track record, the CLI's, on the card (linked to the runs' table), the headline and the review;
  // the floor's bounds are named as the speed of light's range
  const band = page.locator('[data-testid=forecast-band]');
  assert.ok((await band.textContent()).startsWith(`${eng(fc.low_s, 's')} … ${eng(fc.high_s, 's')}`), await band.textContent());
  assert.equal(await page.locator('[data-testid=track-record]').textContent(), fc.track_record);
  assert.equal(await page.locator('[data-testid=track-record] a').getAttribute('href'),
    `validation.html${fc.band.source.slice(fc.band.source.indexOf('#'))}`);
  assert.ok((await page.locator('[data-testid=headline]').textContent()).includes(`(likely ${eng(fc.low_s, 's')} to ${eng(fc.high_s, 's')})`));
  assert.ok(md.includes(`**Likely range:** likely ${eng(fc.low_s, 's')} to ${eng(fc.high_s, 's')}; ${fc.track_record}`), md);
  assert.equal(await page.locator('[data-testid=floor-range]').textContent(), `${eng(ch.lower_bound_s, 's')} … ${eng(ch.upper_bound_s, 's')}`);
  assert.equal(await page.locator('dt', { hasText: /^Range of the speed of light$/ }).count(), 1);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('changing the hardware re-analyses: data-time-s changes', { skip }, async () => {
  const page = await openPage();
  const cli = cliJson(MODEL('conv_net.onnx'));
  await loadFile(page, MODEL('conv_net.onnx'));
  await waitLayers(page, cli.layers.length);
  const e0 = await summary(page).getAttribute('data-energy-j');
  await page.selectOption('[data-testid=hw-select]', 'jetson-orin-nano');
  await page.waitForFunction(() => document.querySelector('[data-testid=summary]').dataset.hw === 'jetson-orin-nano');
  const t1 = await summary(page).getAttribute('data-time-s');
  // at batch 1 this CNN takes its launch floor on both devices; the energy differs
  assert.notEqual(await summary(page).getAttribute('data-energy-j'), e0);
  assert.equal(Number(t1), cliJson(MODEL('conv_net.onnx'), ['--hw', 'jetson-orin-nano']).sol.chosen.time_s);
  // a power mode and a precision, compared with the CLI again
  await page.selectOption('[data-testid=pm-select]', '7w');
  await page.selectOption('[data-testid=precision-select]', 'fp16');
  const want = cliJson(MODEL('conv_net.onnx'), ['--hw', 'jetson-orin-nano', '--power-mode', '7w', '--precision', 'fp16']).sol.chosen.time_s;
  await page.waitForFunction((w) => document.querySelector('[data-testid=summary]').dataset.timeS === String(w), want);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('a bad file shows the error box; the next good file works', { skip }, async () => {
  const page = await openPage();
  await loadFile(page, join(FIXTURES, 'bad/not_onnx.onnx'));
  const err = page.locator('[data-testid=error]');
  await err.waitFor({ state: 'visible', timeout: 20000 });
  const text = await err.textContent();
  const cliErr = cliJson(join(FIXTURES, 'bad/not_onnx.onnx')).error;
  assert.ok(text.includes(cliErr.message), `error box: ${text}`);
  const cli = cliJson(MODEL('mlp.onnx'));
  await loadFile(page, MODEL('mlp.onnx'));
  await waitLayers(page, cli.layers.length);
  assert.equal(await err.isVisible(), false);
  await page.context().close();
});

test('share link round trip restores hardware, precision and sort; local file asks to drop again', { skip }, async () => {
  const page = await openPage();
  const cli = cliJson(MODEL('conv_net.onnx'));
  await loadFile(page, MODEL('conv_net.onnx'));
  await waitLayers(page, cli.layers.length);
  await page.selectOption('[data-testid=hw-select]', 'a100-sxm-80gb');
  await page.selectOption('[data-testid=precision-select]', 'bf16');
  await page.waitForFunction(() => document.querySelector('[data-testid=summary]').dataset.precision === 'bf16');
  await page.click('[data-testid=layer-table] thead button[data-key=flops]');
  const link = await copyLink(page, /hw=a100-sxm-80gb/);
  await page.context().close();

  const page2 = await openPage(link);
  assert.equal(await page2.inputValue('[data-testid=hw-select]'), 'a100-sxm-80gb');
  assert.equal(await page2.inputValue('[data-testid=precision-select]'), 'bf16');
  assert.equal(await page2.getAttribute('[data-testid=layer-table] thead th:has(button[data-key=flops])', 'aria-sort'), 'descending');
  assert.match(await page2.locator('[data-testid=notice]').textContent(), /drop the file again/);
  // dropping the file again analyses with the restored settings
  await loadFile(page2, MODEL('conv_net.onnx'));
  await waitLayers(page2, cli.layers.length);
  assert.equal(await summary(page2).getAttribute('data-precision'), 'bf16');
  await page2.context().close();
});

test('a corrupted share link opens the default view with a notice', { skip }, async () => {
  const page = await openPage(site.url + '#hw=no-such-device&prec=fp13&batch=-4');
  assert.equal(await page.inputValue('[data-testid=hw-select]'), 'h100-sxm');
  assert.equal(await page.inputValue('[data-testid=precision-select]'), 'model');
  assert.match(await page.locator('[data-testid=notice]').textContent(), /link could not be used/);
  await page.context().close();
});

test('examples and ?model= URLs (with and without CORS)', { skip }, async () => {
  const page = await openPage(site.url + '#example=conv_net&hw=t4');
  const cli = cliJson(MODEL('conv_net.onnx'), ['--hw', 't4']);
  await waitLayers(page, cli.layers.length);
  assert.equal(Number(await summary(page).getAttribute('data-time-s')), cli.sol.chosen.time_s);
  await page.context().close();

  const cors = await serve(join(FIXTURES, 'models'), { cors: true });
  const nocors = await serve(join(FIXTURES, 'models'));
  try {
    const p2 = await openPage(`${site.url}?model=${encodeURIComponent(cors.url + 'mlp.onnx')}`);
    await confirmModelUrl(p2);
    await waitLayers(p2, cliJson(MODEL('mlp.onnx')).layers.length);
    assert.match(p2.url(), /model=/);
    await p2.context().close();
    const p3 = await openPage(`${site.url}?model=${encodeURIComponent(nocors.url + 'mlp.onnx')}`);
    await confirmModelUrl(p3);
    const err = p3.locator('[data-testid=error]');
    await err.waitFor({ state: 'visible', timeout: 20000 });
    assert.match(await err.textContent(), /refused by its server \(CORS\).*Access-Control-Allow-Origin/);
    assert.equal(await err.getAttribute('data-code'), 'cors_refused');
    // and the page still works afterwards
    await loadFile(p3, MODEL('mlp.onnx'));
    await waitLayers(p3, cliJson(MODEL('mlp.onnx')).layers.length);
    await p3.context().close();
  } finally {
    await cors.close();
    await nocors.close();
  }
});

test('table: filter by op, group by op, click a row selects it in the URL', { skip }, async () => {
  const page = await openPage(site.url + '#dims=seq%3D8');
  const cli = cliJson(MODEL('transformer_block.onnx'), ['--hw', 'h100-sxm', '--dim', 'seq=8']);
  await loadFile(page, MODEL('transformer_block.onnx'));
  await waitLayers(page, cli.layers.length);
  const matmuls = cli.layers.filter((l) => l.op === 'MatMul').length;
  await page.selectOption('[data-testid=filter-op]', 'MatMul');
  assert.equal(await page.locator('[data-testid=layer-table] tbody tr[data-index]').count(), matmuls);
  await page.check('[data-testid=group-op]');
  assert.equal(await page.locator('[data-testid=layer-table] tbody tr.group').count(), 1);
  await page.locator('[data-testid=layer-table] tbody tr[data-index]').first().click();
  await page.waitForFunction(() => /sel=\d+/.test(location.hash));
  assert.equal(await page.locator('[data-testid=layer-table] tbody tr.selected').count(), 1);
  // clicking a point in the time roofline selects its row
  await page.selectOption('[data-testid=filter-op]', '');
  await page.uncheck('[data-testid=group-op]');
  const pt = await page.evaluate(() => {
    const ch = globalThis.Chart.getChart(document.querySelector('[data-testid=chart-time-roofline] canvas'));
    // a kernel's point (layers fused into another's kernel are drawn at its point)
    const ds = ch.data.datasets.findIndex((d) => d.rl === 'layers' && !d.hidden && d.data.length);
    const e = ch.getDatasetMeta(ds).data[0];
    return { x: e.x, y: e.y, li: ch.data.datasets[ds].data[0].li };
  });
  await page.locator('[data-testid=chart-time-roofline] canvas').scrollIntoViewIfNeeded();
  const box = await page.locator('[data-testid=chart-time-roofline] canvas').boundingBox();
  await page.mouse.click(box.x + pt.x, box.y + pt.y);
  await page.waitForFunction((li) => location.hash.includes(`sel=${li}`), pt.li);
  assert.equal(await page.getAttribute('[data-testid=layer-table] tbody tr.selected', 'data-index'), String(pt.li));
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('model strings are shown as text, never parsed as HTML', { skip }, async () => {
  const page = await openPage();
  await loadFile(page, MODEL('unsupported_op.onnx'));
  await page.waitForSelector('[data-testid=summary][data-layers]');
  assert.equal(await page.locator('[data-testid=summary] script, [data-testid=layer-table] script').count(), 0);
  assert.match(await summary(page).textContent(), /com\.example\.MyOp/);
  await page.context().close();
});

test('exports (CSV, JSON, PNG) and an edited hardware profile survive a share link', { skip }, async () => {
  const page = await openPage();
  const cli = cliJson(MODEL('conv_net.onnx'));
  await loadFile(page, MODEL('conv_net.onnx'));
  await waitLayers(page, cli.layers.length);
  const get = async (sel) => {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click(sel)]);
    const chunks = [];
    for await (const c of await dl.createReadStream()) chunks.push(c);
    return { name: dl.suggestedFilename(), body: Buffer.concat(chunks) };
  };
  const csv = await get('[data-testid=download-csv]');
  assert.equal(csv.body.toString().trim().split('\n').length, cli.layers.length + 1);
  assert.doesNotMatch(csv.name, /filtered/);
  // a filtered table: the CSV says so in its name and first line, and the button too
  await page.selectOption('[data-testid=filter-op]', 'Conv');
  const convs = cli.layers.filter((l) => l.op === 'Conv').length;
  assert.equal(await page.textContent('[data-testid=download-csv]'), `Download CSV (${convs} of ${cli.layers.length} layers, filtered)`);
  const part = await get('[data-testid=download-csv]');
  assert.match(part.name, /-filtered\.csv$/);
  const lines = part.body.toString().trim().split('\n');
  assert.equal(lines[0], `# ${convs} of ${cli.layers.length} layers: only those the table's filter shows (op Conv)`);
  assert.equal(lines.length, convs + 2);
  await page.selectOption('[data-testid=filter-op]', '');
  const json = JSON.parse((await get('[data-testid=download-json]')).body.toString());
  assert.equal(json.sol.chosen.time_s, cli.sol.chosen.time_s);
  const png = await get('[data-testid=chart-time-roofline] button.png');
  assert.equal(png.body.subarray(1, 4).toString(), 'PNG');

  // edit the profile: a tenth of the launch overhead (at batch 1 this CNN takes its launch floor)
  await page.click('#custom-hw summary');
  await page.waitForFunction(() => document.querySelector('[data-testid=custom-json]').value.length > 100);
  const edited = JSON.parse(await page.inputValue('[data-testid=custom-json]'));
  edited.launch_overhead_s.value /= 10;
  await page.fill('[data-testid=custom-json]', JSON.stringify(edited));
  await page.click('[data-testid=custom-apply]');
  await page.waitForFunction(() => document.querySelector('[data-testid=summary]').dataset.hw.endsWith('-custom'));
  const t = await summary(page).getAttribute('data-time-s');
  assert.notEqual(Number(t), cli.sol.chosen.time_s);
  const link = await copyLink(page, /hw=custom&profile=/);
  await page.context().close();
  const page2 = await openPage(link);
  assert.equal(await page2.inputValue('[data-testid=hw-select]'), 'custom');
  await loadFile(page2, MODEL('conv_net.onnx'));
  await waitLayers(page2, cli.layers.length);
  assert.equal(await summary(page2).getAttribute('data-time-s'), t);
  await page2.context().close();
});

test('the operator reference and conformance report are linked and rendered', { skip }, async () => {
  const page = await openPage();
  await page.click('[data-testid=operators-link]');
  await page.waitForSelector('body.doc table tbody tr');
  const rows = await page.locator('body.doc table tbody tr').count();
  assert.ok(rows >= 200, `only ${rows} operator rows`);
  assert.match(await page.textContent('body.doc table tbody'), /ai\.onnx\.ml/);
  await page.goto(site.url + 'conformance.html');
  assert.match(await page.textContent('body.doc'), /1802 models/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('the precision menu is the core\'s precision table (rl_precisions), with the model option first', { skip }, async () => {
  const page = await openPage(site.url + '#prec=int4');
  const options = await page.$$eval('[data-testid=precision-select] option', (os) => os.map((o) => o.value));
  const core = await loadNodeCore();
  const names = JSON.parse(core.precisions()).map((p) => p.name);
  assert.deepEqual(options, ['model', ...names]);
  // a link may name any of them, including those the old hand-written menu lacked
  assert.equal(await page.inputValue('[data-testid=precision-select]'), 'int4');
  assert.deepEqual(page.problems, []);
});
