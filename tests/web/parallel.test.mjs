// The "Many devices" settings and panel (web/js/parallel-state.js,
// web/js/parallel.js): the share link and the request member without a
// browser; with one, the panel shows the core's plan (the CLI's figures for
// the same request) and its settings come back from the link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ROOT, SITE, CLI, FIXTURES, cliJson, browserPrerequisites, browserSession, openPage as open, waitLayers } from './helpers.mjs';

const { fromLocation, toHash, buildRequest, defaultState } = await import(join(ROOT, 'web/js/state.js'));

test('link: tp, pp, dp and mb come back; one device asks for no plan; bad values are named and ignored', async () => {
  const { state, problems } = await fromLocation('#hw=h100-sxm&tp=4&pp=2&mb=8', '', null);
  assert.deepEqual(problems, []);
  assert.deepEqual(state.parallel, { tp: 4, pp: 2, dp: 1, mb: 8 });
  assert.match(await toHash(state), /(^|&)tp=4&pp=2&mb=8(&|$)/);
  assert.deepEqual(buildRequest(state, {}).parallel, { tp: 4, pp: 2, dp: 1, micro_batches: 8 });
  assert.equal(buildRequest(defaultState(), {}).parallel, undefined);
  assert.doesNotMatch(await toHash(defaultState()), /tp=|pp=|dp=|mb=/);
  const bad = await fromLocation('#hw=h100-sxm&tp=0&dp=2.5&pp=99999', '', null);
  assert.deepEqual(bad.state.parallel, { tp: 1, pp: 1, dp: 1, mb: 1 });
  assert.equal(bad.problems.length, 3);
  assert.match(bad.problems.join('\n'), /tp: must be a whole number from 1 to 1024/);
});

const { chromium, exe, skip } = await browserPrerequisites([[CLI, 'build/rooflens (cmake --build build)'],
  [join(SITE, 'index.html'), 'the site (tools/build-site.sh)']]);
let site, browser;
browserSession({ chromium, exe, skip }, (s, b) => { site = s; browser = b; });

test('panel: the plan the CLI gives for the same request; the link keeps the settings', { skip }, async () => {
  const model = join(FIXTURES, 'models', 'mlp.onnx');
  const cli = cliJson(model, ['--hw', 'h100-sxm', '--batch', '1', '--parallel', 'tp=2']);
  const page = await open(browser, `${site.url}#hw=h100-sxm&batch=1&tp=2`);
  await page.setInputFiles('[data-testid=file-input]', model);
  await waitLayers(page, cli.layers.length);
  const summary = page.locator('[data-testid=parallel-summary]');
  await page.waitForFunction(() => document.querySelector('[data-testid=parallel-summary]')?.dataset.timeS);
  assert.equal(Number(await summary.getAttribute('data-time-s')), cli.parallel.time_s);
  assert.equal(await page.inputValue('[data-testid=parallel-tp]'), '2');
  assert.equal(await page.locator('[data-testid=parallel-table] tbody tr').count(), cli.parallel.sharding.length);
  const box = await page.locator('[data-testid=parallel-chart]').boundingBox();
  assert.ok(box && box.width > 100 && box.height > 50);
  // four devices: the panel's control, then the figures of tp=4
  const four = cliJson(model, ['--hw', 'h100-sxm', '--batch', '1', '--parallel', 'tp=4']);
  await page.fill('[data-testid=parallel-tp]', '4');
  await page.press('[data-testid=parallel-tp]', 'Enter');
  await page.dispatchEvent('[data-testid=parallel-tp]', 'change');
  await page.waitForFunction((t) => document.querySelector('[data-testid=parallel-summary]')?.dataset.timeS === String(t),
    four.parallel.time_s);
  assert.match(page.url(), /[#&]tp=4(&|$)/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
