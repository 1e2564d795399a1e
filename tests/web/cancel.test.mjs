// Cancel in headless Chromium: a model URL whose server sends the first part
// of the file and then stalls (a slow or hung download). The progress bar
// shows the bytes read, Cancel stops the read at once, the page says so, and
// the same worker then analyzes the next file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { SITE, CLI, FIXTURES, serve, cliJson, CHROMIUM_ARGS, browserPrerequisites, openPage, confirmModelUrl } from './helpers.mjs';

const { chromium, exe, skip } = await browserPrerequisites([[CLI, 'build/rooflens (cmake --build build)']]);

const GOOD = join(FIXTURES, 'models', 'conv_net.onnx');
const STALLED = join(FIXTURES, 'models', 'transformer_block.onnx');
let site, stall, browser;
const stalled = [];   // open responses, ended in after()

before(async () => {
  if (skip) return;
  site = await serve(SITE);
  // Sends a third of the model, announces the full length, then waits.
  const bytes = readFileSync(STALLED);
  stall = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(bytes.length),
      'Access-Control-Allow-Origin': '*', 'Cache-Control': 'no-store' });
    res.write(bytes.subarray(0, Math.floor(bytes.length / 3)));
    stalled.push(res);
    req.on('close', () => { stall.aborted = (stall.aborted || 0) + 1; });
  });
  await new Promise((ok) => stall.listen(0, '127.0.0.1', ok));
  browser = await chromium.launch({ executablePath: exe, args: CHROMIUM_ARGS });
});
after(async () => {
  await browser?.close();
  for (const r of stalled) r.destroy();
  await new Promise((ok) => (stall ? stall.close(ok) : ok()));
  await site?.close();
});

test('Cancel stops a stalled download, and the next file works', { skip }, async () => {
  const modelUrl = `http://127.0.0.1:${stall.address().port}/stalled.onnx`;
  const page = await openPage(browser, `${site.url}?model=${encodeURIComponent(modelUrl)}`, { wait: 'interactive' });
  const context = page.context();
  await confirmModelUrl(page);   // another origin: the page asks first

  // Reading is under way: the progress bar shows bytes and a percentage.
  const progress = page.locator('[data-testid=progress]');
  await progress.waitFor({ state: 'visible', timeout: 10000 });
  await page.waitForFunction(() => /%/.test(document.getElementById('progress-text').textContent), null, { timeout: 10000 });
  assert.match(await page.textContent('#progress-text'), /B of .*B \(\d+ %\)/);

  const t0 = Date.now();
  await page.click('[data-testid=cancel]');
  await page.waitForFunction(() => /cancelled/i.test(document.querySelector('[data-testid=notice]').textContent), null, { timeout: 5000 });
  const cancelMs = Date.now() - t0;
  assert.ok(cancelMs < 5000, `cancel took ${cancelMs} ms`);
  assert.equal(await progress.isVisible(), false);
  assert.equal(await page.locator('[data-testid=error]').isVisible(), false);
  // The download itself was aborted, not left hanging in the worker.
  await new Promise((ok) => setTimeout(ok, 300));
  assert.ok(stall.aborted >= 1, 'the stalled request was not aborted');

  // The same worker reads the next model.
  const cli = cliJson(GOOD);
  await page.setInputFiles('[data-testid=file-input]', GOOD);
  await page.waitForFunction((want) => document.querySelector('[data-testid=summary]').dataset.layers === String(want),
    cli.layers.length, { timeout: 20000 });
  assert.equal(Number(await page.getAttribute('[data-testid=summary]', 'data-time-s')), cli.sol.chosen.time_s);
  assert.deepEqual(page.problems.filter((p) => p.startsWith('pageerror')), []);
  await context.close();
});

test('Cancel stops reading a big local file at once (the worker reads a file synchronously, and lets the cancel through)', { skip }, async () => {
  const { writeHugeModel } = await import('../../tools/make-models/huge-model.mjs');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'rooflens-cancel-'));
  try {
    // 2 GB of 16 KB weights, read through rather than skipped one by one (a sparse file: no disk)
    const model = writeHugeModel(join(dir, 'many-small.onnx'), { bytes: 2e9, hidden: 64 });
    const page = await openPage(browser, site.url);
    await page.setInputFiles('[data-testid=file-input]', model.path);
    await page.waitForFunction(() => /%/.test(document.getElementById('progress-text').textContent), null, { timeout: 10000 });
    const t0 = Date.now();
    await page.click('[data-testid=cancel]');
    await page.waitForFunction(() => /cancelled/i.test(document.querySelector('[data-testid=notice]').textContent), null, { timeout: 20000 });
    const cancelMs = Date.now() - t0;
    assert.ok(cancelMs < 2500, `cancel took ${cancelMs} ms`);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Cancel keeps the analysis shown before, usable, titled with its own file', { skip }, async () => {
  const page = await openPage(browser, site.url);
  const cli = cliJson(GOOD);
  await page.setInputFiles('[data-testid=file-input]', GOOD);
  await page.waitForFunction((want) => document.querySelector('[data-testid=summary]').dataset.layers === String(want),
    cli.layers.length, { timeout: 20000 });
  // a stalled download of another model, typed by the user, then cancelled
  await page.fill('[data-testid=url-input]', `http://127.0.0.1:${stall.address().port}/stalled.onnx`);
  await page.press('[data-testid=url-input]', 'Enter');
  await page.waitForFunction(() => /%/.test(document.getElementById('progress-text').textContent), null, { timeout: 10000 });
  // while it reads, the previous analysis is still on the page
  assert.equal(await page.getAttribute('[data-testid=summary]', 'data-file'), 'conv_net.onnx');
  await page.click('[data-testid=cancel]');
  await page.waitForFunction(() => /cancelled/i.test(document.querySelector('[data-testid=notice]').textContent), null, { timeout: 5000 });
  assert.match(await page.textContent('[data-testid=notice]'), /Reading stalled\.onnx was cancelled\. The analysis of conv_net\.onnx is still shown\./);
  assert.equal(await page.isVisible('[data-testid=summary]'), true);
  assert.match(await page.textContent('[data-testid=summary-title]'), /^conv_net\.onnx on /);
  assert.equal(await page.locator('[data-testid=layer-table] tbody tr[data-index]').count() > 0, true);
  assert.match(page.url(), /#/);
  assert.doesNotMatch(page.url(), /stalled/);
  // and it still answers: the worker kept the model
  const fp16 = cliJson(GOOD, ['--hw', 'h100-sxm', '--precision', 'fp16']);
  await page.selectOption('[data-testid=precision-select]', 'fp16');
  await page.waitForFunction((t) => Number(document.querySelector('[data-testid=summary]').dataset.timeS) === t, fp16.sol.chosen.time_s, { timeout: 20000 });
  assert.deepEqual(page.problems.filter((p) => p.startsWith('pageerror')), []);
  await page.context().close();
});
