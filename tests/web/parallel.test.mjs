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


test('link: the groups of the several-devices view (grp) come back; all three are the default; a bad list is named', async () => {
  assert.deepEqual(defaultState().groups, [2, 4, 8]);
  assert.doesNotMatch(await toHash(defaultState()), /grp=/);
  const { state, problems } = await fromLocation('#hw=h100-sxm&view=devices&grp=8,2', '', null);
  assert.deepEqual(problems, []);
  assert.equal(state.view, 'devices');
  assert.deepEqual(state.groups, [2, 8]);
  assert.match(await toHash(state), /(^|&)grp=2%2C8(&|$)/);
  assert.deepEqual((await fromLocation('#grp=none', '', null)).state.groups, []);
  const bad = await fromLocation('#grp=3', '', null);
  assert.deepEqual(bad.state.groups, [2, 4, 8]);
  assert.match(bad.problems.join('\n'), /grp: must be some of 2, 4, 8/);
});

test('one view for several devices: the plan the CLI gives for the same request; the link keeps the settings', { skip }, async () => {
  const model = join(FIXTURES, 'models', 'mlp.onnx');
  const cli = cliJson(model, ['--hw', 'h100-sxm', '--batch', '1', '--parallel', 'tp=2']);
  const page = await open(browser, `${site.url}#hw=h100-sxm&batch=1&tp=2&view=devices`);
  await page.setInputFiles('[data-testid=file-input]', model);
  await waitLayers(page, cli.layers.length);
  assert.equal(await page.locator('[data-testid=parallel-panel]').count(), 1, 'the plan lives in the one view');
  assert.equal(await page.locator('#parallel-panel').count(), 0, 'no second multi-device section');
  const summary = page.locator('[data-testid=parallel-summary]');
  await page.waitForFunction(() => document.querySelector('[data-testid=parallel-summary]')?.dataset.timeS);
  assert.equal(Number(await summary.getAttribute('data-time-s')), cli.parallel.time_s);
  assert.equal(await page.inputValue('[data-testid=parallel-tp]'), '2');
  assert.equal(await page.locator('[data-testid=parallel-table] tbody tr').count(), cli.parallel.sharding.length);
  const box = await page.locator('[data-testid=parallel-chart]').boundingBox();
  assert.ok(box && box.width > 100 && box.height > 50);
  // the plan is a row of the groups' table, with the CLI's figures
  await page.waitForFunction(() => document.querySelector('[data-testid=devices-view]').dataset.state === 'done', null, { timeout: 30000 });
  const planTime = await page.$eval('[data-testid=devices-table] tr[data-plan=plan] td[data-key=devices_time_s]', (td) => Number(td.dataset.value));
  assert.equal(planTime, cli.parallel.time_s);
  // four devices: the view's control, then the figures of tp=4
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

test('one view for several devices: no plan, no empty chart', { skip }, async () => {
  const page = await open(browser, `${site.url}#example=conv_net&hw=h100-sxm&view=devices`);
  await page.waitForFunction(() => document.querySelector('[data-testid=devices-view]').dataset.state === 'done', null, { timeout: 30000 });
  assert.equal(await page.locator('[data-testid=parallel-chart]').count(), 0, 'no communication roofline without a plan');
  const box = await page.locator('[data-testid=devices-chart]').boundingBox();
  assert.ok(box && box.height > 100, 'the groups\' chart is drawn');
  const drawn = await page.evaluate(() => globalThis.Chart.getChart(document.querySelector('#devices-time')).data.datasets[0].data.filter((v) => v > 0).length);
  assert.equal(drawn, 4, 'one device and three groups, each a bar');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('one view for several devices: 1× against 2×, 4× and 8× H100 and a plan, each row the CLI\'s --parallel figures, one bar per group', { skip }, async () => {
  const model = join(FIXTURES, 'models', 'torch', 'llama_1b_kv.onnx');
  // the page analyses a decoder with a KV cache at the LLM panel's prompt (512 tokens): the CLI is given the same dims
  const args = ['--hw', 'h100-sxm', '--batch', '8', '--dim', 'sequence_length=512', '--dim', 'past_sequence_length=0',
    '--dim', 'total_sequence_length=512'];
  const n = cliJson(model, args).layers.length;
  const plans = ['tp=2', 'tp=8', 'tp=2,pp=2'];
  const byPlan = plans.map((p) => cliJson(model, [...args, '--parallel', p, ...(p.includes('pp') ? ['--micro-batches', '4'] : [])]).parallel);
  // the rows by their number of devices: 2, the plan's 4, 8
  const cli = [byPlan[0], byPlan[2], byPlan[1]];
  const one = cliJson(model, args);
  const page = await open(browser, `${site.url}#hw=h100-sxm&batch=8&view=devices&grp=2,8&tp=2&pp=2&mb=4`);
  await page.setInputFiles('[data-testid=file-input]', model);
  await waitLayers(page, n);
  const values = (key) => page.$$eval(`[data-testid=devices-table] tbody td[data-key=${key}]`,
    (tds) => tds.map((td) => (td.dataset.value === undefined ? null : Number(td.dataset.value))));
  await page.waitForFunction(() => document.querySelector('[data-testid=devices-view]').dataset.state === 'done' &&
    document.querySelectorAll('[data-testid=devices-table] tbody tr').length === 4, null, { timeout: 60000 });
  assert.deepEqual(await page.$$eval('[data-testid=devices-table] tbody tr', (t) => t.map((r) => r.dataset.plan)), ['one', 'group', 'plan', 'group']);
  assert.deepEqual(await values('devices'), [1, 2, 4, 8]);
  assert.deepEqual(await values('devices_time_s'), [one.sol.chosen.time_s, ...cli.map((p) => p.time_s)]);
  assert.deepEqual(await values('devices_forecast_s'), [one.forecast.time_s, ...cli.map((p) => p.forecast_s)]);
  assert.deepEqual((await values('t_comms_s')).slice(1), cli.map((p) => p.t_comms_s));
  assert.deepEqual((await values('speedup')).slice(1), cli.map((p) => p.speedup));
  assert.deepEqual((await values('memory_bytes_per_device')).slice(1), cli.map((p) => p.memory_bytes_per_device));
  assert.deepEqual((await values('bubble'))[2], cli[1].bubble);
  // the energy of every device of each group, the core's (one device's own on the first row)
  assert.deepEqual(await values('devices_energy_j'), [one.sol.chosen.energy_j, ...cli.map((p) => p.energy_j)]);
  assert.ok(cli.every((p) => p.energy_j > 0));
  assert.doesNotMatch(await page.locator('[data-testid=devices-view]').textContent(), /Energy is given for one device only/);
  assert.ok(cli[2].t_comms_s > 0, 'communication appears over eight devices');
  // the group's own figures first; the chart one bar per group, by display name
  const heads = await page.$$eval('[data-testid=devices-table] thead th', (ths) => ths.map((th) => th.textContent));
  assert.deepEqual(heads.slice(0, 4), ['Group', 'Devices', 'Split', 'Time over the devices (speed of light)'], heads.join(' | '));
  const bars = await page.evaluate(() => {
    const ch = globalThis.Chart.getChart(document.querySelector('#devices-time'));
    return { labels: ch.data.labels.map((l) => [].concat(l).join(' ')), sets: ch.data.datasets.length, data: ch.data.datasets[0].data };
  });
  assert.equal(bars.sets, 1, 'one bar per group');
  assert.deepEqual(bars.data, [one.sol.chosen.time_s, ...cli.map((p) => p.time_s)]);
  assert.deepEqual([bars.labels[0], bars.labels[1], bars.labels[3]], ['1 × NVIDIA H100 SXM5 80GB', '2 × NVIDIA H100 SXM5 80GB', '8 × NVIDIA H100 SXM5 80GB'], 'display names, never ids');
  assert.match(bars.labels[2], /^Your plan: 4 × NVIDIA H100 SXM5 80GB \(T 2 × P 2 × D 1, 4 micro-batches\)$/);
  assert.doesNotMatch(bars.labels.join(' '), /h100-sxm/);
  // the compare view offers no second way to the same groups
  assert.equal(await page.locator('[data-testid=compare-devices-8]').count(), 0);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('one view for several devices: a device without chip-to-chip links (topology "none") is offered no groups, and says why', { skip }, async () => {
  const index = JSON.parse(readFileSync(join(SITE, 'hw/index.json'), 'utf8')).profiles;
  for (const p of index) {
    const ic = JSON.parse(readFileSync(join(ROOT, 'hw', `${p.id}.json`), 'utf8')).interconnect;
    assert.equal(p.links, !!ic && ic.topology !== 'none', `${p.id}: links in the site's index`);
  }
  const page = await open(browser, `${site.url}#example=conv_net&hw=jetson-agx-orin&view=devices`);
  await page.waitForFunction(() => document.querySelector('[data-testid=devices-view]').dataset.state === 'done', null, { timeout: 30000 });
  for (const n of [2, 4, 8]) assert.equal(await page.isDisabled(`[data-testid=devices-group-${n}]`), true, `${n}x offered for the Jetson`);
  assert.match(await page.locator('[data-testid=devices-links-note]').textContent(), /no chip-to-chip links/);
  assert.equal(await page.locator('[data-testid=devices-table] tbody tr').count(), 1, 'one device');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
