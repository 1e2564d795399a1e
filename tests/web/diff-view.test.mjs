// The graph and module views of a comparison (issue 42): two models opened
// by URL, the graph of the new one coloured by the change. The boxes'
// figures are the core's diff figures (the CLI's diff JSON, the Compare
// table and the Markdown); a model against itself shows no change anywhere;
// a copy with one layer widened (tests/fixtures/models/widen_*.onnx) shows
// that layer, its consumers and their modules and nothing else; a share
// link restores the view; the controls answer the keyboard.
// Run: tools/build-site.sh && node --test tests/web/diff-view.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, SITE, CLI, FIXTURES, serve, CHROMIUM_ARGS, browserPrerequisites, confirmModelUrl } from './helpers.mjs';

const { eng, signedPct } = await import(join(ROOT, 'web/js/format.js'));
const OLD = join(FIXTURES, 'models/widen_old.onnx');
const NEW = join(FIXTURES, 'models/widen_new.onnx');
const CHANGED = ['/block1/fc1/MatMul', '/block1/act/Relu', '/block1/fc2/MatMul'];
const CHANGED_MODULES = ['/block1', '/block1/fc1', '/block1/act', '/block1/fc2'];

const { chromium, exe, skip } = await browserPrerequisites([[CLI, 'build/rooflens (cmake --build build)']]);
let site, files, browser;

before(async () => {
  if (skip) return;
  site = await serve(SITE);
  files = await serve(FIXTURES, { cors: true });
  browser = await chromium.launch({ executablePath: exe, args: CHROMIUM_ARGS });
});
after(async () => {
  await browser?.close();
  await site?.close();
  await files?.close();
});

/** The CLI's diff of the two files (JSON): the core's figures. */
function cliDiff(a, b) {
  return JSON.parse(execFileSync(CLI, ['diff', a, b, '--hw', 'jetson-agx-orin', '--format', 'json'], { encoding: 'utf8' })).diff;
}

async function newPage(hash, viewport = { width: 1400, height: 1000 }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push(`console: ${m.text()}`); });
  await page.goto(site.url + hash);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  return page;
}

/** Opens the link naming both models, says yes to both URLs, waits for the view. */
async function openComparison(oldName, newName, extra = '') {
  const hash = `#model=${encodeURIComponent(files.url + 'models/' + oldName)}&hw=jetson-agx-orin` +
    `&vs=${encodeURIComponent(files.url + 'models/' + newName)}&dview=change${extra}`;
  const page = await newPage(hash);
  await confirmModelUrl(page);
  await page.click('[data-testid=diff-confirm-url]');
  await page.waitForSelector('[data-testid=diff-models][data-state=ready]', { timeout: 30000 });
  await page.waitForFunction(() => document.querySelector('#graph-box')?.dataset.diffView === 'change' &&
    document.querySelectorAll('#graph-box .graph-box[data-change]').length > 0, null, { timeout: 30000 });
  return page;
}

/** Every layer box: its name (from its title), change and figures. */
function boxes(page) {
  return page.$$eval('#graph-box .graph-box[data-layer]', (gs) => gs.map((g) => ({
    title: g.querySelector('title').textContent, change: g.dataset.change,
    old: g.dataset.old === undefined ? null : Number(g.dataset.old), new: g.dataset.new === undefined ? null : Number(g.dataset.new),
  })));
}
const nameOf = (b) => /— (.*?):/.exec(b.title)[1];

test('a copy with one layer widened: that layer, its consumers and their modules change, nothing else; the figures are the core\'s', { skip }, async () => {
  const page = await openComparison('widen_old.onnx', 'widen_new.onnx');
  const d = cliDiff(OLD, NEW);
  const byName = new Map(d.matched.map((l) => [l.name, l]));
  // time at the forecast (the default figure)
  let got = await boxes(page);
  assert.equal(got.length, 8);
  assert.deepEqual(got.filter((b) => b.change !== 'same').map(nameOf).sort(), [...CHANGED].sort());
  for (const b of got) {
    const f = byName.get(nameOf(b)).forecast_s;
    assert.equal(b.old, f.old, `${nameOf(b)}: old forecast`);
    assert.equal(b.new, f.new, `${nameOf(b)}: new forecast`);
    if (b.change !== 'same') assert.ok(b.title.includes(`${eng(f.old, 's')} → ${eng(f.new, 's')} (${signedPct(f.ratio)})`), b.title);
  }
  // the changed shapes: the two tensors that grew
  const shapes = await page.$$eval('#graph-box .graph-edge[data-edge-change=shape] title', (ts) => ts.map((t) => t.textContent));
  assert.equal(shapes.length, 2, shapes.join('\n'));
  assert.ok(shapes.every((t) => t.includes('[4, 32] in the old model, [4, 64] in the new')), shapes.join('\n'));
  // the module view: the new model's modules, coloured by their change
  // (a module too narrow to draw alone, the Relu's, is gathered into a cell: every one drawn says its change)
  const mods = await page.$$eval('[data-testid=module-view] g[data-change]', (gs) => gs.map((g) => [g.dataset.module, g.dataset.change]));
  assert.ok(mods.length >= 6, `the modules drawn: ${mods.length}`);
  for (const [m, c] of mods) assert.equal(c !== 'same', CHANGED_MODULES.includes(m), `${m}: ${c}`);
  assert.ok(mods.some(([m, c]) => m === '/block1' && c === 'slower'), 'the widened block costs more');
  // the legend says what the colours mean
  const legend = await page.locator('[data-testid=graph-legend]').innerText();
  assert.match(legend, /costs more, under 10/);
  assert.match(legend, /changed shape/);
  // the floor: the same figures as the Compare table and the Markdown
  await page.selectOption('[data-testid=graph-diff-figure]', 't');
  await page.waitForFunction(() => /speed of light/.test(document.querySelector('[data-testid=graph-status]').textContent));
  got = await boxes(page);
  const md = await page.locator('[data-testid=diff-markdown]').inputValue();
  for (const b of got) {
    const t = byName.get(nameOf(b)).t;
    assert.equal(b.old, t.old);
    assert.equal(b.new, t.new);
    const row = page.locator('[data-testid=diff-table] tbody tr', { hasText: nameOf(b) }).first();
    const cells = await row.locator('td').allInnerTexts();
    assert.equal(cells[3], eng(t.old, 's'), `${nameOf(b)}: the table's old time`);
    assert.equal(cells[4], eng(t.new, 's'), `${nameOf(b)}: the table's new time`);
    if (CHANGED.includes(nameOf(b))) {
      assert.ok(b.title.includes(`${eng(t.old, 's')} → ${eng(t.new, 's')}`), b.title);
      assert.ok(md.includes(`${eng(t.old, 's')} → ${eng(t.new, 's')}`), `the Markdown lists ${nameOf(b)} as the box does`);
    }
  }
  // bytes
  await page.selectOption('[data-testid=graph-diff-figure]', 'bytes');
  await page.waitForFunction(() => /bytes moved/.test(document.querySelector('[data-testid=graph-status]').textContent));
  got = await boxes(page);
  assert.deepEqual(got.filter((b) => b.change !== 'same').map(nameOf).sort(), [...CHANGED].sort());
  for (const b of got) assert.equal(b.new, byName.get(nameOf(b)).bytes.new);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('a model against itself: no change anywhere', { skip }, async () => {
  const page = await openComparison('widen_old.onnx', 'widen_old.onnx');
  const got = await boxes(page);
  assert.equal(got.length, 8);
  assert.deepEqual(got.filter((b) => b.change !== 'same'), []);
  assert.equal(await page.locator('#graph-box .graph-edge[data-edge-change]').count(), 0);
  const mods = await page.$$eval('[data-testid=module-view] g[data-change]', (gs) => gs.map((g) => g.dataset.change));
  assert.ok(mods.length > 0 && mods.every((c) => c === 'same'), mods.join());
  assert.match(await page.locator('[data-testid=graph-status]').innerText(), /0 cost more, 0 less, 0 added, 0 removed/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('a share link restores the comparison\'s graph view; the keyboard reaches its controls', { skip }, async () => {
  const page = await openComparison('widen_old.onnx', 'widen_new.onnx', '&dfig=bytes');
  assert.equal(await page.locator('[data-testid=graph-diff-figure]').inputValue(), 'bytes');
  assert.ok(await page.locator('[data-testid=graph-diff-change]').isChecked());
  // the keyboard: the old model's graph, its changed boxes outlined
  await page.focus('[data-testid=graph-diff-change]');
  await page.keyboard.press('ArrowLeft');   // a radio group: the arrows pick the next choice
  await page.waitForFunction(() => document.querySelector('#graph-box').dataset.diffView === 'new');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => document.querySelector('#graph-box').dataset.diffView === 'old');
  const old = await boxes(page);
  assert.deepEqual(old.filter((b) => b.change !== 'same').map(nameOf).sort(), [...CHANGED].sort());
  await page.click('[data-testid=copy-link]');
  await page.waitForSelector('[data-testid=copy-link][data-link]');
  const link = await page.getAttribute('[data-testid=copy-link]', 'data-link');
  assert.match(link, /dview=old/);
  assert.match(link, /dfig=bytes/);
  await page.context().close();

  const again = await newPage(new URL(link).hash);
  await confirmModelUrl(again);
  await again.click('[data-testid=diff-confirm-url]');
  await again.waitForFunction(() => document.querySelector('#graph-box')?.dataset.diffView === 'old' &&
    document.querySelectorAll('#graph-box .graph-box[data-change]').length === 8, null, { timeout: 30000 });
  assert.ok(await again.locator('[data-testid=graph-diff-old]').isChecked());
  assert.deepEqual((await boxes(again)).map((b) => b.change), old.map((b) => b.change));
  // back to the page's model alone
  await again.check('[data-testid=graph-diff-off]');
  await again.waitForFunction(() => document.querySelector('#graph-box').dataset.diffView === '');
  assert.equal(await again.locator('#graph-box .graph-box[data-change]').count(), 0);
  assert.deepEqual(again.problems, []);
  await again.context().close();
});

test('the review Markdown links to the page\'s graph of the change, a link the page reads whole', { skip: !existsSync(CLI) && 'build/rooflens not built' }, async () => {
  const page = 'https://example.github.io/rooflens/';
  const oldUrl = 'https://models.example/widen_old.onnx', newUrl = 'https://models.example/widen_new.onnx';
  const args = ['diff', OLD, NEW, '--hw', 'jetson-agx-orin', '--precision', 'fp16', '--page-url', page, '--old-url', oldUrl, '--new-url', newUrl];
  const d = JSON.parse(execFileSync(CLI, [...args, '--format', 'json'], { encoding: 'utf8' })).diff;
  assert.ok(d.page_link.startsWith(page + '#'), d.page_link);
  const md = execFileSync(CLI, [...args, '--format', 'markdown'], { encoding: 'utf8' });
  assert.ok(md.includes(`[See what changed in the graph](${d.page_link})`), md);
  const { fromLocation } = await import(join(ROOT, 'web/js/state.js'));
  const { state, problems } = await fromLocation(new URL(d.page_link).hash, '', new Set(['jetson-agx-orin']), { precisions: ['fp16'] });
  assert.deepEqual(problems, []);
  assert.equal(state.modelUrl, oldUrl);
  assert.equal(state.compareUrl, newUrl);
  assert.equal(state.hw, 'jetson-agx-orin');
  assert.equal(state.precision, 'fp16');
  assert.equal(state.diffView, 'change');
});

test('an added layer is marked in the new graph, and a removed one in the old graph after a swap', { skip }, async () => {
  const page = await openComparison('diff_old.onnx', 'diff_new.onnx');
  const added = (await boxes(page)).filter((b) => b.change === 'added').map(nameOf);
  assert.deepEqual(added, ['fc_extra']);
  assert.match(await page.locator('[data-testid=graph-legend]').innerText(), /\+ added/);
  // swapped, the page's model is the new one: fc_extra is only the old model's
  await page.click('[data-testid=diff-swap]');
  await page.check('[data-testid=graph-diff-old]');
  await page.waitForFunction(() => document.querySelector('#graph-box').dataset.diffView === 'old' &&
    [...document.querySelectorAll('#graph-box .graph-box[data-change=removed]')].length === 1, null, { timeout: 30000 });
  const removed = (await boxes(page)).filter((b) => b.change === 'removed');
  assert.deepEqual(removed.map(nameOf), ['fc_extra']);
  assert.match(removed[0].title, /removed: time at the forecast/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
