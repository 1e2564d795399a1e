// The "Many devices" settings and panel (web/js/parallel-state.js,
// web/js/parallel.js): the share link and the request member without a
// browser; with one, the panel shows the core's plan (the CLI's figures for
// the same request) and its settings come back from the link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { ROOT, SITE, CLI, FIXTURES, cliJson, browserPrerequisites, browserSession, openPage as open, waitLayers } from './helpers.mjs';

const { fromLocation, toHash, buildRequest, defaultState } = await import(join(ROOT, 'web/js/state.js'));

// The browser's prerequisites are awaited before the first test is
// defined: a test defined before a top-level await can finish first, and
// the file's after() hooks then close the server under the tests after it.
const { chromium, exe, skip } = await browserPrerequisites([[CLI, 'build/rooflens (cmake --build build)'],
  [join(SITE, 'index.html'), 'the site (tools/build-site.sh)']]);
let site, browser;
browserSession({ chromium, exe, skip }, (s, b) => { site = s; browser = b; });

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
  // a count given twice is used in neither value, as the core and the CLI refuse it (issue 43)
  const twice = await fromLocation('#hw=h100-sxm&tp=2&pp=2&tp=4', '', null);
  assert.deepEqual(twice.state.parallel, { tp: 1, pp: 2, dp: 1, mb: 1 });
  assert.deepEqual(twice.problems, ['tp: given more than once, so it was not used']);
});

test('link: compared groups of devices (cmp=ID@tp=T, the CLI\'s --compare syntax) come back; a bad count is named', async () => {
  const { state, problems } = await fromLocation('#hw=h100-sxm&view=compare&cmp=h100-sxm,h100-sxm@tp=8,h100-sxm:x@tp=2%2Bpp=2', '', null);
  assert.deepEqual(problems, []);
  assert.deepEqual(state.compare, ['h100-sxm', 'h100-sxm@tp=8', 'h100-sxm:x@tp=2+pp=2']);
  const back = await fromLocation(`#${await toHash(state)}`, '', null);
  assert.deepEqual(back.state.compare, state.compare);
  for (const wrong of ['h100-sxm@tp=0', 'h100-sxm@tp=2+tp=4', 'h100-sxm@xp=2', 'h100-sxm@tp=1025']) {
    const bad = await fromLocation(`#hw=h100-sxm&cmp=${encodeURIComponent(wrong)}`, '', null);
    assert.deepEqual(bad.state.compare, [], wrong);
    assert.match(bad.problems.join('\n'), /cmp:/, wrong);
  }
});


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

test('compare: 1× against 8× H100 shows the figures the CLI gives for the same request; the link keeps the group', { skip }, async () => {
  const model = join(FIXTURES, 'models', 'torch', 'llama_1b_kv.onnx');
  // the page analyses a decoder with a KV cache at the LLM panel's prompt (512 tokens): the CLI is given the same dims
  const args = ['--hw', 'h100-sxm', '--batch', '8', '--dim', 'sequence_length=512', '--dim', 'past_sequence_length=0',
    '--dim', 'total_sequence_length=512'];
  const n = cliJson(model, args).layers.length;
  const cli = cliJson(model, [...args, '--compare', 'h100-sxm,h100-sxm@tp=8']).study.rows;
  assert.equal(cli[1].parallel.devices, 8);
  const page = await open(browser, `${site.url}#hw=h100-sxm&batch=8&view=compare&cmp=h100-sxm`);
  await page.setInputFiles('[data-testid=file-input]', model);
  await waitLayers(page, n);
  const rowsOf = () => page.$$eval('[data-testid=compare-table] tbody tr', (trs) => trs.map((t) => t.dataset.hw));
  const values = (key) => page.$$eval(`[data-testid=compare-table] tbody td[data-key=${key}]`,
    (tds) => tds.map((td) => (td.dataset.value === undefined ? null : td.dataset.value)));
  const done = () => page.waitForFunction(() => document.querySelector('[data-testid=compare-view]').dataset.state === 'done' &&
    document.querySelectorAll('[data-testid=compare-table] td[data-key=devices]').length === 2, null, { timeout: 30000 });
  // 8x of the page's device, beside the one
  await page.check('[data-testid=compare-devices-8]');
  await done();
  assert.deepEqual(await rowsOf(), ['h100-sxm', 'h100-sxm@tp=8']);
  const check = async () => {
    assert.deepEqual((await values('devices')).map(Number), [1, 8]);
    assert.deepEqual((await values('devices_time_s')).map(Number), [cli[0].chosen_time_s, cli[1].parallel.time_s]);
    assert.deepEqual((await values('t_comms_s')).map(Number), [cli[1].parallel.t_comms_s]);
    assert.deepEqual((await values('speedup')).map(Number), [cli[1].parallel.speedup]);
    assert.deepEqual((await values('memory_bytes_per_device')).map(Number), [cli[1].parallel.memory_bytes_per_device]);
    assert.deepEqual(await values('devices_bound'), [cli[0].bound, cli[1].parallel.bound]);
    assert.deepEqual((await values('chosen_time_s')).map(Number), [cli[0].chosen_time_s, cli[1].chosen_time_s]);
  };
  await check();
  assert.ok(cli[1].parallel.t_comms_s > 0, 'communication appears over eight devices');
  // a group's own figures come first in its row, and the chart draws it as one bar
  const heads = await page.$$eval('[data-testid=compare-table] thead th', (ths) => ths.map((th) => th.textContent));
  assert.deepEqual(heads.slice(1, 4), ['Devices', 'Time over the devices', 'Communication'], heads.join(' | '));
  const bars = await page.evaluate(() => {
    const ch = globalThis.Chart.getChart(document.querySelector('#compare-time'));
    return { labels: ch.data.labels.map((l) => [].concat(l).slice(0, -1).join(' ')), perRow: ch.data.labels.map((_, i) => ch.data.datasets.filter((d) => d.data[i] !== null).length) };
  });
  assert.deepEqual(bars.perRow, [4, 1], 'one device: its three floors and its forecast; the group: one bar');
  assert.deepEqual(bars.labels, ['NVIDIA H100 SXM5 80GB', '8 × NVIDIA H100 SXM5 80GB'], 'display names, never ids');
  const link = page.url();
  assert.deepEqual(new URLSearchParams(new URL(link).hash.slice(1)).get('cmp'), 'h100-sxm,h100-sxm@tp=8');
  assert.deepEqual(page.problems, []);
  await page.context().close();
  // the link brings the group back, the box ticked
  const again = await open(browser, link);
  await again.setInputFiles('[data-testid=file-input]', model);
  await waitLayers(again, n);
  const page2 = again;
  await page2.waitForFunction(() => document.querySelector('[data-testid=compare-view]').dataset.state === 'done' &&
    document.querySelectorAll('[data-testid=compare-table] td[data-key=devices]').length === 2, null, { timeout: 30000 });
  assert.equal(await page2.isChecked('[data-testid=compare-devices-8]'), true);
  assert.deepEqual((await page2.$$eval('[data-testid=compare-table] tbody td[data-key=devices_time_s]', (t) => t.map((x) => Number(x.dataset.value)))),
    [cli[0].chosen_time_s, cli[1].parallel.time_s]);
  assert.deepEqual(page2.problems, []);
  await page2.context().close();
});

test('compare: a device without chip-to-chip links (topology "none") is offered no 2×/4×/8×, and says why', { skip }, async () => {
  const index = JSON.parse(readFileSync(join(SITE, 'hw/index.json'), 'utf8')).profiles;
  for (const p of index) {
    const ic = JSON.parse(readFileSync(join(ROOT, 'hw', `${p.id}.json`), 'utf8')).interconnect;
    assert.equal(p.links, !!ic && ic.topology !== 'none', `${p.id}: links in the site's index`);
  }
  const page = await open(browser, `${site.url}#example=conv_net&hw=jetson-agx-orin&view=compare&cmp=h100-sxm`);
  await page.waitForFunction(() => document.querySelector('[data-testid=compare-view]').dataset.state === 'done', null, { timeout: 30000 });
  for (const n of [2, 4, 8]) assert.equal(await page.isDisabled(`[data-testid=compare-devices-${n}]`), true, `${n}x offered for the Jetson`);
  assert.match(await page.locator('#compare-devices-note').textContent(), /no chip-to-chip links/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
