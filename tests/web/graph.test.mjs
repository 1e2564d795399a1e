// The graph view and the module view (issue 28): the node <-> row mapping
// for every fixture (through the WebAssembly build and web/js/graph-model.js),
// then in the page: boxes are layer rows, modules open and close, a click
// selects the row in the table and the selection survives the share link,
// the keyboard moves and selects, the module view filters the table, and
// axe-core finds nothing serious on the views.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, FIXTURES, NODE_WASM, CLI, cliJson, loadNodeCore, browserPrerequisites, openPage, browserSession, waitLayers } from './helpers.mjs';
import { GraphModel, OPEN_BUDGET } from '../../web/js/graph-model.js';

const AXE = join(ROOT, 'node_modules/axe-core/axe.min.js');
const nodeSkip = existsSync(NODE_WASM) ? false : 'missing: build-wasm (tools/build-site.sh)';
const hw = JSON.parse(readFileSync(join(ROOT, 'hw/h100-sxm.json'), 'utf8'));

// The browser's prerequisites are awaited before the first test is
// defined: a test defined before a top-level await can finish first, and
// the file's after() hooks then close the server under the tests after it.
const { chromium, exe, skip } = await browserPrerequisites([[AXE, 'axe-core (npm ci)'], [CLI, 'build/rooflens (cmake --build build)']]);
let site, browser;
browserSession({ chromium, exe, skip }, (s, b) => { site = s; browser = b; });

test('every fixture: each layer row is one box of the graph, open or closed, and every edge joins the boxes of its rows', { skip: nodeSkip }, async () => {
  const core = await loadNodeCore();
  let models = 0, withModules = 0;
  for (const dir of ['models', 'models/torch', 'ops']) {
    for (const f of readdirSync(join(FIXTURES, dir)).filter((x) => x.endsWith('.onnx')).sort()) {
      const r = core.readAll(new Uint8Array(readFileSync(join(FIXTURES, dir, f))));
      if (!r.model) continue;
      const res = JSON.parse(core.analyze(r.model, JSON.stringify({ hardware: hw, graph: true, dims: { seq: 8, batch: 1 } })));
      core.freeModel(r.model);
      if (!res.ok) continue;
      const gm = new GraphModel(res.graph, res.layers);
      const all = gm.visible(new Set(gm.nodes.keys()));
      // a layer of no work is drawn where the core folds it (graph.fold_into): in another's box or the constants box
      const fold = res.graph.fold_into;
      const drawn = fold.filter((x) => x === -1).length + (fold.includes(-2) ? 1 : 0);
      assert.equal(all.boxes.length, drawn, `${f}: all open, one box per layer the core does not fold, and the constants box`);
      all.boxes.forEach((b, i) => { if (b.kind === 'layer') assert.equal(all.rep[b.row], i, `${f}: box ${i} is row ${b.row}`); });
      fold.forEach((x, row) => assert.equal(all.rep[row], x === -1 ? all.rep[row] : x === -2 ? all.boxes.findIndex((b) => b.kind === 'constants') : all.rep[x],
        `${f}: row ${row} is drawn where it folds (${x})`));
      const open = gm.visible(gm.initialExpanded());
      assert.ok(open.boxes.length <= Math.max(OPEN_BUDGET, gm.root.children.length), `${f}: opens with ${open.boxes.length} boxes`);
      const seen = new Array(res.layers.length).fill(0);
      open.boxes.forEach((b, i) => { for (const row of gm.rowsOf(b)) { seen[row]++; assert.equal(open.rep[row], i, `${f}: row ${row} is in box ${i}`); } });
      assert.ok(seen.every((n) => n === 1), `${f}: each row in exactly one box`);
      const e = res.graph.edges;
      for (const ed of open.edges) assert.ok(ed.from !== ed.to && ed.from < open.boxes.length && ed.to < open.boxes.length, `${f}: an edge joins two boxes`);
      for (let k = 0; k < e.count; k++) {
        const a = open.rep[e.from[k]], b = open.rep[e.to[k]];
        // the constants box's outputs are drawn as weights are, with no edge
        if (a !== b && fold[e.from[k]] !== -2) assert.ok(open.edges.some((x) => x.from === a && x.to === b), `${f}: edge ${k} is drawn`);
      }
      models++;
      if (res.graph.modules.count) withModules++;
    }
  }
  assert.ok(models > 40 && withModules >= 4, `${models} models, ${withModules} with modules`);
});


async function openGraph(example, extra = '', viewport) {
  const page = await openPage(browser, `${site.url}#example=${example}&hw=h100-sxm${extra}`, viewport ? { viewport } : {});
  await page.waitForSelector('[data-testid=summary][data-layers]', { timeout: 30000 });
  await page.waitForSelector('[data-testid=graph-view] [data-box]', { timeout: 30000 });
  return page;
}

const boxCount = (page) => page.locator('[data-testid=graph-view] [data-box]').count();

test('the graph: boxes are the layer rows, a click selects the row in the table, and the selection survives the share link', { skip }, async () => {
  const page = await openGraph('conv_net');
  const layers = await page.evaluate(() => Number(document.querySelector('[data-testid=summary]').dataset.layers));
  const rows = await page.locator('[data-testid=graph-view] [data-layer]').evaluateAll((els) => els.map((e) => [Number(e.dataset.layer), e.querySelector('title').textContent]));
  const cli = cliJson(join(FIXTURES, 'models/conv_net.onnx'));
  // a layer of no work with one consumer is drawn in that consumer's box ("Op +N")
  const folded = cli.layers.filter((l) => l.bound === 'none').length;
  assert.ok(folded >= 1, 'conv_net has a layer of no work');
  assert.equal(rows.length, layers - folded, 'a small model opens with every layer but those folded');
  for (const [row, label] of rows) assert.match(label, new RegExp(`^${cli.layers[row].op}( \\+\\d+)? — ${cli.layers[row].name}:`), `box ${row} is the CLI's row ${row}: ${label}`);
  // each edge names its tensor and shape on hover (its title), as the CLI's rows give them
  const shapes = new Map(cli.layers.flatMap((l) => l.outputs.map((t) => [t.name, `[${(t.shape || []).map((d) => (d === null ? '?' : d)).join(', ')}]`])));
  const titles = await page.locator('[data-testid=graph-view] .graph-edge > title').allTextContents();
  assert.ok(titles.length >= layers - folded - 1, `${titles.length} edges`);
  for (const t of titles) {
    const [name, ...rest] = t.split(' ');
    assert.equal(rest.join(' '), shapes.get(name), `edge ${t}`);
  }
  // each fused kernel of the CLI's answer is one outline around its layers' boxes
  const kernels = new Map();
  cli.layers.forEach((l, i) => { const k = l.fused_into ?? i; kernels.set(k, [...(kernels.get(k) || []), i]); });
  const want = [...kernels.values()].filter((g) => g.length > 1).map((g) => g.join(' ')).sort();
  const got = (await page.locator('[data-testid=graph-view] .graph-fused').evaluateAll((els) => els.map((e) => e.dataset.fused))).sort();
  assert.ok(want.length >= 2);
  assert.deepEqual(got, want, 'fused kernels outlined');
  const pick = rows[Math.floor(rows.length / 2)][0];
  await page.click(`[data-testid=graph-view] [data-layer="${pick}"]`);
  await page.waitForSelector(`[data-testid=layer-table] tr[data-index="${pick}"][aria-selected=true]`, { timeout: 5000 });
  assert.equal(await page.getAttribute(`[data-testid=graph-view] [data-layer="${pick}"]`, 'aria-current'), 'true');
  const link = page.url();
  assert.match(link, /sel=/);
  const again = await openPage(browser, link);
  await again.waitForSelector(`[data-testid=graph-view] [data-layer="${pick}"][aria-current=true]`, { timeout: 30000 });
  await again.context().close();
  // the reverse: a row picked in the table is marked in the graph
  const other = rows[0][0];
  await page.click(`[data-testid=layer-table] tr[data-index="${other}"]`);
  await page.waitForSelector(`[data-testid=graph-view] [data-layer="${other}"][aria-current=true]`, { timeout: 5000 });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('modules open and close; a layer selected inside a closed module opens it', { skip }, async () => {
  const page = await openGraph('bert_base');
  const before = await boxCount(page);
  assert.ok(before <= 80, `BERT opens legible (${before} boxes)`);
  const closed = page.locator('[data-testid=graph-view] .graph-box[data-module][aria-expanded=false]').first();
  const path = await closed.getAttribute('data-module');
  await closed.click();
  const open = page.locator(`[data-testid=graph-view] [data-module="${path}"][aria-expanded=true]`);
  await open.waitFor({ timeout: 10000 });
  const after = await boxCount(page);
  assert.ok(after > before, `opening ${path}: ${before} -> ${after} boxes`);
  await open.locator('text').click();
  await page.waitForSelector(`[data-testid=graph-view] .graph-box[data-module="${path}"][aria-expanded=false]`, { timeout: 10000 });
  assert.equal(await boxCount(page), before, 'closing it gives the first view back');
  // a row inside a closed module, picked in the table, opens what hides it
  const hidden = await page.evaluate(() => {
    const shown = new Set([...document.querySelectorAll('[data-testid=graph-view] [data-layer]')].map((e) => e.dataset.layer));
    return [...document.querySelectorAll('[data-testid=layer-table] tr[data-index]')].map((r) => r.dataset.index).find((i) => !shown.has(i));
  });
  assert.ok(hidden !== undefined);
  await page.click(`[data-testid=layer-table] tr[data-index="${hidden}"]`);
  await page.waitForSelector(`[data-testid=graph-view] [data-layer="${hidden}"][aria-current=true]`, { timeout: 10000 });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('a module the pointer rests on is laid out before the click, and the click uses that layout', { skip }, async () => {
  const page = await openPage(browser, 'about:blank', { wait: null });
  // count the layouts asked of the layout worker
  await page.addInitScript(() => {
    window.__layouts = 0;
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (msg, ...rest) { if (msg && msg.boxes) window.__layouts++; return post.call(this, msg, ...rest); };
  });
  await page.goto(`${site.url}#example=bert_base&hw=h100-sxm`);
  await page.waitForSelector('[data-testid=graph-view] [data-box]', { timeout: 30000 });
  const closed = page.locator('[data-testid=graph-view] .graph-box[data-module][aria-expanded=false]').nth(1);
  const path = await closed.getAttribute('data-module');
  const before = await page.evaluate(() => window.__layouts);
  await closed.hover();
  await page.waitForFunction((n) => window.__layouts === n + 1, before, { timeout: 5000 });
  await closed.click();
  await page.waitForSelector(`[data-testid=graph-view] [data-module="${path}"][aria-expanded=true]`, { timeout: 10000 });
  assert.equal(await page.evaluate(() => window.__layouts), before + 1, 'the click laid nothing out again');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('keyboard: arrows move between boxes along the edges, Enter selects a layer', { skip }, async () => {
  const page = await openGraph('conv_net');
  await page.focus('[data-testid=graph-view]');
  await page.keyboard.press('ArrowDown');
  const first = await page.evaluate(() => document.activeElement?.dataset.box);
  assert.ok(first !== undefined, 'an arrow puts the focus on a box');
  await page.keyboard.press('ArrowDown');
  const second = await page.evaluate(() => document.activeElement?.dataset.box);
  assert.notEqual(second, first, 'ArrowDown moves to the next box');
  await page.keyboard.press('ArrowUp');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.box), first, 'ArrowUp comes back');
  await page.keyboard.press('ArrowDown');
  const row = await page.evaluate(() => document.activeElement?.dataset.layer);
  await page.keyboard.press('Enter');
  await page.waitForSelector(`[data-testid=layer-table] tr[data-index="${row}"][aria-selected=true]`, { timeout: 5000 });
  await page.context().close();
});

test('the module view: a click zooms into a module and filters the table to its layers; the whole model zooms out', { skip }, async () => {
  const page = await openGraph('bert_base');
  const bar = page.locator('[data-testid=module-view] g[data-module][data-depth="1"]').first();
  const path = await bar.getAttribute('data-module');
  await bar.click();
  await page.waitForFunction((p) => document.getElementById('filter-name').value === p + '/', path);
  const names = await page.locator('[data-testid=layer-table] tbody tr[data-index] td.name, [data-testid=layer-table] tbody tr[data-index] td:nth-child(2)').allTextContents();
  assert.ok(names.length > 0);
  assert.match(page.url(), /q=/);
  await page.locator('[data-testid=module-view] g[data-module=""]').click();
  await page.waitForFunction(() => document.getElementById('filter-name').value === '');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

// The flat 100,000-node chain (tools/make-models/huge-model.mjs, as the graph
// benchmark makes it): 50,000 sibling modules, each a 50,000th of the width.
test('the module view of a flat 100,000-node model: thin siblings gather in cells that spread out when clicked, down to readable modules', { skip }, async () => {
  const { writeHugeModel } = await import('../../tools/make-models/huge-model.mjs');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'rooflens-flat-'));
  try {
    const model = writeHugeModel(join(dir, 'flat.onnx'), { bytes: 50000 * 16, hidden: 2 });
    assert.equal(model.layers, 50000);
    const page = await openPage(browser, `${site.url}#hw=h100-sxm`);
    await page.setInputFiles('[data-testid=file-input]', model.path);
    await waitLayers(page, 100000, 90000);
    await page.waitForSelector('[data-testid=module-view] g[data-group]', { timeout: 30000 });
    // what the icicle draws: every cell at least a few pixels wide, and the
    // cells of the first level hold the 50,000 modules between them
    const view = () => page.evaluate(() => {
      const cells = [...document.querySelectorAll('[data-testid=module-view] g[data-depth]')].map((g) => ({
        depth: Number(g.dataset.depth), module: g.dataset.module, group: g.dataset.group, count: Number(g.dataset.count || 1),
        current: g.getAttribute('aria-current') === 'true', width: g.querySelector('rect').getBoundingClientRect().width,
        label: g.querySelector('text')?.textContent || '', title: g.querySelector('title').textContent }));
      return { cells, status: document.querySelector('[data-testid=module-status]').textContent };
    });
    let v = await view();
    assert.ok(v.cells.length < 400, `${v.cells.length} elements drawn`);
    const first = v.cells.filter((c) => c.depth === 1);
    assert.equal(first.reduce((a, c) => a + c.count, 0), 50000, 'the cells of the first level hold every module');
    assert.ok(first.length >= 20, `${first.length} cells`);
    for (const c of first) assert.ok(c.width >= 3, `a cell of ${c.count} modules is ${c.width.toFixed(2)} px wide`);
    for (const c of first.filter((x) => x.group)) {
      assert.match(c.title, /^[\d,]+ modules, layer\d+ to layer\d+, /, 'a cell names its modules on hover');
      if (c.width >= 46) assert.equal(c.label.replace(/ modules$/, '').replace(/,/g, ''), String(c.count), 'and shows how many it holds');
    }
    assert.doesNotMatch(v.status, /left out/);
    // spreading out cells until modules are drawn one by one, readable
    let spreads = 0;
    while (!v.cells.some((c) => c.depth > 0 && /^layer\d+$/.test(c.module || '') && c.width >= 20)) {
      assert.ok(++spreads <= 4, 'a few clicks reach single modules');
      const group = page.locator('[data-testid=module-view] g[data-group]:not([aria-current=true])').first();
      const want = Number(await group.getAttribute('data-count'));
      await group.click();
      await page.waitForSelector(`[data-testid=module-view] g[data-group][aria-current=true][data-count="${want}"]`, { timeout: 10000 });
      v = await view();
      const below = v.cells.filter((c) => c.depth === 2);
      assert.equal(below.reduce((a, c) => a + c.count, 0), want, 'the spread-out cell shows all of its members');
    }
    assert.ok(spreads >= 1);
    // the spread-out cell on top goes back to the whole model's level
    await page.locator('[data-testid=module-view] g[data-group][aria-current=true]').click();
    await page.waitForFunction(() => !document.querySelector('[data-testid=module-view] g[data-group][aria-current=true]'));
    v = await view();
    assert.equal(v.cells.filter((c) => c.depth === 1).reduce((a, c) => a + c.count, 0), 50000);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('axe-core finds nothing serious on the graph and module views (1440 and 390 px)', { skip }, async () => {
  for (const viewport of [{ width: 1440, height: 900 }, { width: 390, height: 844 }]) {
    const context = await browser.newContext({ viewport, bypassCSP: true });
    const page = await context.newPage();
    await page.goto(`${site.url}#example=resnet50&hw=h100-sxm`);
    await page.waitForSelector('[data-testid=graph-view] [data-box]', { timeout: 30000 });
    await page.evaluate(readFileSync(AXE, 'utf8'));
    const r = await page.evaluate(() => globalThis.axe.run({ include: [['#graph-views']] }, { resultTypes: ['violations'] }));
    const bad = r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
    assert.deepEqual(bad, [], `at ${viewport.width} px`);
    await context.close();
  }
});

test('Save SVG and Save PNG export the graph as drawn', { skip }, async () => {
  const page = await openGraph('conv_net');
  const boxes = await boxCount(page);
  const [svg] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=graph-svg]')]);
  assert.match(svg.suggestedFilename(), /^rooflens-conv_net-h100-sxm-graph\.svg$/);
  const text = readFileSync(await svg.path(), 'utf8');
  assert.match(text, /^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.equal((text.match(/data-box="/g) || []).length, boxes, 'every box is in the SVG');
  const [png] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=graph-png]')]);
  const bytes = readFileSync(await png.path());
  assert.equal(bytes.subarray(1, 4).toString(), 'PNG');
  assert.ok(bytes.readUInt32BE(16) > 200 && bytes.readUInt32BE(20) > 200, 'a PNG of the whole graph');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('a layout that arrives after the model was cleared draws nothing and throws nothing', { skip: skip || nodeSkip }, async () => {
  const core = await loadNodeCore();
  const r = core.readAll(new Uint8Array(readFileSync(join(FIXTURES, 'models/conv_net.onnx'))));
  const res = JSON.parse(core.analyze(r.model, JSON.stringify({ hardware: hw, graph: true })));
  core.freeModel(r.model);
  assert.ok(res.ok && res.graph);
  const page = await openGraph('conv_net');
  // the site bundles its modules; the view's own module is served from the source
  await page.route(/\/src-js\/[\w-]+\.js$/, (route) => route.fulfill({ path: join(ROOT, 'web/js', new URL(route.request().url()).pathname.split('/').pop()), contentType: 'text/javascript' }));
  const out = await page.evaluate(async (res) => {
    const { GraphView } = await import('./src-js/graph-view.js');
    // a second view with a layout the test releases by hand
    let release;
    const box = document.createElement('section');
    document.body.appendChild(box);
    const view = new GraphView(box, { layout: (key, boxes) => new Promise((ok) => { release = () => ok(boxes.map((b, i) => ({ x: 0, y: i * 50, ...b }))); }),
      select: () => {}, fileName: () => 'x', baseName: () => 'x' });
    const drawn = view.update(res);
    view.clear();                  // a new file failed to load while the layout ran
    release();
    let error = null;
    try { await drawn; } catch (e) { error = e.message; }
    const r = { error, boxes: box.querySelectorAll('[data-box]').length, hidden: box.hidden };
    box.remove();
    return r;
  }, res);
  assert.deepEqual(out, { error: null, boxes: 0, hidden: true });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
