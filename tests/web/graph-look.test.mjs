// The graph and module views and the charts as a performance engineer reads
// them (issue 38, "The second look", §5 and §8): a graph opens on its work
// (no box of a layer of no work at the top, as the core folds them), Fit
// shows the whole graph at any size, a narrow screen shows boxes, the search
// box finds and centres a node whose side panel gives its attributes, tensors
// and figures, one colour per bound on every surface (the core's table, a
// launch-bound model included), a chart's tooltip gives its point's figures,
// the time-based roofline plots the time roofline's kernels, and every series
// of the batch sweep's legend can be seen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FIXTURES, NODE_WASM, browserPrerequisites, openPage, browserSession, waitLayers, loadNodeCore } from './helpers.mjs';

const { chromium, exe, skip } = await browserPrerequisites([[NODE_WASM, 'build-wasm (tools/build-site.sh)']]);
let site, browser;
browserSession({ chromium, exe, skip }, (s, b) => { site = s; browser = b; });

/** The core's colour of each bound (rl_words: its one table of bounds). */
async function boundColours() {
  const core = await loadNodeCore();
  return Object.fromEntries(JSON.parse(core.words()).filter((w) => w.kind === 'bound').map((w) => [w.id, w.color]));
}

/** '#rrggbb' of a CSS colour as the browser computes it ('rgb(r, g, b)'). */
const hex = (css) => {
  const m = /rgba?\((\d+), (\d+), (\d+)/.exec(css || '');
  return m ? '#' + m.slice(1, 4).map((v) => Number(v).toString(16).padStart(2, '0')).join('') : String(css).toLowerCase();
};

async function dropModel(file, n, viewport) {
  const page = await openPage(browser, `${site.url}#hw=h100-sxm`, viewport ? { viewport } : {});
  await page.setInputFiles('[data-testid=file-input]', join(FIXTURES, file));
  await waitLayers(page, n);
  await page.waitForSelector('[data-testid=graph-view] [data-box]', { timeout: 30000 });
  return page;
}

async function openExample(example, viewport) {
  const page = await openPage(browser, `${site.url}#example=${example}&hw=h100-sxm`, viewport ? { viewport } : {});
  await page.waitForSelector('[data-testid=summary][data-layers]', { timeout: 30000 });
  await page.waitForSelector('[data-testid=graph-view] [data-box]', { timeout: 30000 });
  return page;
}

/** Every drawn box: its kind, bound, stroke colour and place on screen. */
const boxes = (page) => page.$$eval('[data-testid=graph-view] [data-box]', (els) => els.map((g) => {
  const r = g.querySelector('rect').getBoundingClientRect();
  return { layer: g.dataset.layer, module: g.dataset.module, constants: g.dataset.constants, bound: g.dataset.bound,
    stroke: g.querySelector('rect').getAttribute('stroke'), x: r.x, y: r.y, w: r.width, h: r.height };
}));
const viewportRect = (page) => page.$eval('[data-testid=graph-view]', (v) => { const r = v.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; });

// torchvision's ViT-B/16, exported as Swin-T is (tools/make-models/torch_models.py
// --dynamic): 411 Constant nodes, 12 of them read by several layers, and a
// row of them at the top level, named /Constant, /Constant_1...
test('a Swin-like export opens on its work: no box of a layer of no work at the top level, one constants box at most', { skip }, async () => {
  const page = await dropModel('models/torch/vit_b_16.onnx', 1370);
  const all = await boxes(page);
  const noWork = all.filter((b) => b.bound === 'none' && b.constants === undefined);
  assert.deepEqual(noWork, [], 'no box of a layer of no work');
  assert.ok(all.filter((b) => b.constants !== undefined).length <= 1, 'one constants box at most');
  const status = await page.textContent('[data-testid=graph-status]');
  assert.match(status, /(\d+) layers of no work are folded/, status);
  assert.ok(Number(/(\d+) layers of no work are folded/.exec(status)[1]) >= 411, status);
  // the first boxes from the top are work, not constants
  const top = [...all].sort((a, b) => a.y - b.y).slice(0, 3);
  for (const b of top) assert.notEqual(b.bound, 'none', `a top box is work: ${JSON.stringify(b)}`);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('Fit shows the whole graph, however big; a phone shows boxes a finger can find', { skip }, async () => {
  const page = await openExample('bert_base');
  // open every group the view allows, so the graph is taller than the viewport
  for (let k = 0; k < 3; k++) {
    const closed = page.locator('[data-testid=graph-view] .graph-box[data-module][aria-expanded=false]').first();
    if (!(await closed.count())) break;
    const n = (await boxes(page)).length;
    await closed.click();
    await page.waitForFunction((before) => document.querySelectorAll('[data-testid=graph-view] [data-box]').length > before, n, { timeout: 10000 });
  }
  await page.click('[data-testid=graph-fit]');
  const vp = await viewportRect(page);
  const all = await boxes(page);
  assert.ok(all.length > 30, `${all.length} boxes`);
  for (const b of all) {
    assert.ok(b.x >= vp.x - 1 && b.y >= vp.y - 1 && b.x + b.w <= vp.x + vp.w + 1 && b.y + b.h <= vp.y + vp.h + 1,
      `every box inside the viewport after Fit: ${JSON.stringify(b)} in ${JSON.stringify(vp)}`);
  }
  await page.context().close();
  for (const example of ['resnet50', 'bert_base']) {
    const phone = await openExample(example, { width: 390, height: 844 });
    const pv = await viewportRect(phone);
    const inView = (await boxes(phone)).filter((b) => b.x + b.w > pv.x && b.x < pv.x + pv.w && b.y + b.h > pv.y && b.y < pv.y + pv.h);
    assert.ok(inView.length >= 3, `${example} at 390 px: ${inView.length} boxes in view`);
    for (const b of inView) assert.ok(b.w >= 60, `${example} at 390 px: a box ${b.w.toFixed(1)} px wide`);
    assert.deepEqual(phone.problems, []);
    await phone.context().close();
  }
});

test('the search box finds a node by name or op and centres it; the side panel gives its attributes, tensors and figures', { skip }, async () => {
  const page = await openExample('bert_base');
  const target = await page.evaluate(() => {
    const shown = new Set([...document.querySelectorAll('[data-testid=graph-view] [data-layer]')].map((e) => e.dataset.layer));
    const rows = [...document.querySelectorAll('[data-testid=layer-table] tr[data-index]')];
    const r = rows.find((tr) => !shown.has(tr.dataset.index) && /MatMul|Gemm/.test(tr.textContent));
    return r ? { row: r.dataset.index, name: r.querySelector('td:nth-child(2)')?.textContent } : null;
  });
  assert.ok(target, 'a MatMul hidden in a closed module');
  await page.fill('[data-testid=graph-search]', target.name);
  await page.waitForSelector(`[data-testid=graph-found] button[data-row="${target.row}"]`, { timeout: 5000 });
  await page.click(`[data-testid=graph-found] button[data-row="${target.row}"]`);
  const box = page.locator(`[data-testid=graph-view] [data-layer="${target.row}"][aria-current=true]`);
  await box.waitFor({ timeout: 10000 });
  await page.waitForSelector(`[data-testid=layer-table] tr[data-index="${target.row}"][aria-selected=true]`, { timeout: 5000 });
  const vp = await viewportRect(page);
  const r = await box.locator('rect').boundingBox();
  assert.ok(Math.abs(r.x + r.width / 2 - (vp.x + vp.w / 2)) < 4 && Math.abs(r.y + r.height / 2 - (vp.y + vp.h / 2)) < 4,
    `the found box is centred: ${JSON.stringify(r)} in ${JSON.stringify(vp)}`);
  // the side panel: the row's op, name, tensors with shapes, and figures
  const panel = page.locator('[data-testid=graph-panel]');
  assert.equal(await panel.getAttribute('data-row'), target.row);
  const text = await panel.textContent();
  assert.ok(text.includes(target.name), 'the panel names the node');
  assert.match(text, /Inputs/);
  assert.match(await panel.locator('[data-testid=graph-panel-inputs]').textContent(), /\[\d+(, \d+)*\]/, 'inputs with shapes');
  assert.match(await panel.locator('[data-testid=graph-panel-outputs]').textContent(), /\[\d+(, \d+)*\]/, 'outputs with shapes');
  assert.match(text, /Speed of light/);
  assert.match(text, /FLOPs/);
  assert.match(text, /Limited by/);
  // by op: the first Conv of ResNet-50 has its attributes in the panel
  await page.context().close();
  const resnet = await openExample('resnet50');
  await resnet.fill('[data-testid=graph-search]', 'conv');
  await resnet.press('[data-testid=graph-search]', 'Enter');
  await resnet.waitForFunction(() => document.querySelector('[data-testid=graph-panel]')?.dataset.row !== undefined, null, { timeout: 10000 });
  const attrs = await resnet.locator('[data-testid=graph-panel-attributes]').textContent();
  assert.match(attrs, /kernel_shape\[\d+, \d+\]/, attrs);
  assert.deepEqual(resnet.problems, []);
  await resnet.context().close();
});

test('one colour per bound on every surface: the graph, the module view and its legend, Compare; a launch-bound model in the launch floor\'s', { skip }, async () => {
  const colours = await boundColours();
  assert.ok(colours.compute && colours.memory && colours.overhead && colours.none && colours.unknown);
  assert.equal(new Set(Object.values(colours)).size, Object.keys(colours).length, 'a colour each');
  const page = await openExample('bert_base');
  for (const b of await boxes(page)) assert.equal(b.stroke, colours[b.bound], `graph box ${b.layer ?? b.module} (${b.bound})`);
  const bars = await page.$$eval('[data-testid=module-view] g[data-bound] rect', (rs) => rs.map((r) => [r.parentNode.dataset.bound, r.getAttribute('fill')]));
  assert.ok(bars.length > 3);
  for (const [bound, fill] of bars) assert.equal(fill, colours[bound], `module bar (${bound})`);
  // the module view's legend: one entry per bound drawn, in its colour
  const legend = await page.$$eval('[data-testid=module-legend] li[data-bound]', (lis) => lis.filter((li) => li.dataset.bound)
    .map((li) => [li.dataset.bound, getComputedStyle(li.querySelector('.bound-swatch')).backgroundColor, li.textContent]));
  assert.deepEqual(legend.map(([b]) => b).sort(), [...new Set(bars.map(([b]) => b))].sort(), 'a legend entry per bound drawn');
  for (const [bound, bg, label] of legend) {
    assert.equal(hex(bg), colours[bound], `legend swatch of ${bound}`);
    assert.ok(label.length > 2, `legend names ${bound}`);
  }
  await page.context().close();
  // Compare: each energy bar in its row's bound's colour
  const cmp = await openPage(browser, `${site.url}#example=conv_net&hw=h100-sxm&view=compare&cmp=h100-sxm,l4,jetson-agx-orin`);
  await cmp.waitForFunction(() => document.querySelector('[data-testid=compare-view]')?.dataset.state === 'done', null, { timeout: 30000 });
  const bounds = await cmp.$$eval('[data-testid=compare-table] tbody tr', (trs) => trs.map((tr) => tr.querySelector('td[data-key=bound]')?.dataset.value ?? null));
  const fills = await cmp.$eval('#compare-energy', (c) => Chart.getChart(c).data.datasets[0].backgroundColor);
  assert.equal(fills.length, 3);
  fills.forEach((f, i) => { if (bounds[i]) assert.equal(f, colours[bounds[i]], `compare bar ${i} (${bounds[i]})`); });
  await cmp.context().close();
  // the launch-bound mlp: every box in the launch floor's colour, none in the unknown's
  const mlp = await dropModel('models/mlp.onnx', 4);
  const mb = await boxes(mlp);
  assert.ok(mb.length === 4 && mb.every((b) => b.bound === 'overhead' && b.stroke === colours.overhead), JSON.stringify(mb));
  const graphLegend = await mlp.$$eval('[data-testid=graph-legend] li[data-bound]', (lis) => lis.map((li) => li.dataset.bound));
  assert.deepEqual(graphLegend, ['overhead']);
  assert.deepEqual(mlp.problems, []);
  await mlp.context().close();
});

/** '1.23 MFLOP' -> 1.23e6 (the page's engineering notation). */
function engValue(text) {
  const m = /^(-?[\d.]+)\s*([a-zA-Zµ]*)/.exec(text.trim());
  if (!m) return NaN;
  const prefix = { p: 1e-12, n: 1e-9, 'µ': 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15 };
  const unit = m[2];
  const scale = unit.length > 1 && prefix[unit[0]] !== undefined && /^(FLOP|B|s|J)/.test(unit.slice(1)) ? prefix[unit[0]] : 1;
  return Number(m[1]) * scale;
}

test('the charts agree: a tooltip gives its point\'s figures, the time-based roofline plots the time roofline\'s kernels', { skip }, async () => {
  const page = await openExample('bert_base');
  await page.waitForSelector('[data-testid=chart-time-based][data-state=drawn]', { timeout: 30000 });
  const got = await page.evaluate(() => {
    const chart = (id) => Chart.getChart(document.querySelector(`[data-testid=${id}] canvas`));
    const points = (ch) => ch.data.datasets.filter((d) => d.rl === 'layers').flatMap((d) => d.data.flatMap((p) => p.members));
    const time = chart('chart-time-roofline'), tb = chart('chart-time-based');
    // every point's tooltip on the time roofline: its FLOPs, bytes and the point's intensity and FLOP/s
    const tips = [];
    for (const d of time.data.datasets.filter((s) => s.rl === 'layers')) {
      for (const raw of d.data) {
        const lines = time.options.plugins.tooltip.callbacks.label({ raw, dataset: d, parsed: { x: raw.x, y: raw.y } });
        tips.push({ x: raw.x, y: raw.y, lines });
      }
    }
    // the FLOPs line of each time-based point's tooltip, by row
    const tbFlops = {};
    for (const d of tb.data.datasets.filter((x) => x.rl === 'layers')) {
      for (const raw of d.data) {
        const lines = tb.options.plugins.tooltip.callbacks.label({ raw, dataset: d, parsed: { x: raw.x, y: raw.y } });
        for (const m of raw.members) tbFlops[m] = lines.find((l) => /FLOPs: /.test(l));
      }
    }
    return { time: points(time).sort((a, b) => a - b), timeBased: points(tb).sort((a, b) => a - b), tips, tbFlops };
  });
  assert.ok(got.time.length > 10);
  // the same kernels: the time roofline's, and those its log intensity axis cannot place (no FLOPs, or no bytes)
  const time = new Set(got.time);
  assert.deepEqual(got.time.filter((i) => !got.timeBased.includes(i)), [], 'every kernel of the time roofline is on the time-based one');
  const extra = got.timeBased.filter((i) => !time.has(i));
  assert.deepEqual(extra.filter((i) => !/FLOPs: 0 |bytes: 0 B$/.test(got.tbFlops[i])).map((i) => got.tbFlops[i]), [],
    'and no other, but kernels of no FLOPs or no bytes (an intensity of 0 or none)');
  let fused = 0;
  for (const t of got.tips) {
    const fl = t.lines.find((l) => /FLOPs: /.test(l));
    const m = /FLOPs: (.+?)\s{3}bytes: (.+)$/.exec(fl);
    assert.ok(m, fl);
    const flops = engValue(m[1]), bytes = engValue(m[2]);
    // eng() keeps 3 significant digits: the ratio agrees to about 1 %
    if (bytes > 0 && t.x > 0) assert.ok(Math.abs(flops / bytes / t.x - 1) < 0.02, `tooltip ${fl} at intensity ${t.x}: ${t.lines.join(' | ')}`);
    if (t.y > 0) assert.ok(flops > 0, `a point at ${t.y} FLOP/s has FLOPs: ${t.lines.join(' | ')}`);
    if (/kernel FLOPs/.test(fl)) fused++;
  }
  assert.ok(fused > 5, `${fused} fused kernels say their figures are the kernel's`);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('the batch sweep: every series of a legend can be seen (its colour shows in the plot)', { skip }, async () => {
  const page = await openPage(browser, `${site.url}#example=resnet50&hw=h100-sxm&view=sweep&sweep=1-256`);
  await page.waitForFunction(() => document.querySelector('[data-testid=sweep-view]')?.dataset.state === 'done', null, { timeout: 60000 });
  for (const id of ['#sweep-perf', '#sweep-intensity']) {
    const seen = await page.$eval(id, (c) => {
      const ch = Chart.getChart(c);
      const a = ch.chartArea, dpr = devicePixelRatio;
      const px = c.getContext('2d').getImageData(Math.ceil(a.left * dpr), Math.ceil(a.top * dpr),
        Math.floor((a.right - a.left) * dpr), Math.floor((a.bottom - a.top) * dpr)).data;
      // a series' colour as drawn over the white plot ('#rrggbb' or 'rgba(r, g, b, a)')
      const overWhite = (css) => {
        const m = /rgba?\((\d+),\s*(\d+),\s*(\d+)(?:,\s*([\d.]+))?/.exec(css);
        const h = css.length === 4 ? `#${css[1]}${css[1]}${css[2]}${css[2]}${css[3]}${css[3]}` : css;   // #rgb
        const rgb = m ? [m[1], m[2], m[3]].map(Number) : [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
        const al = m && m[4] !== undefined ? Number(m[4]) : 1;
        return rgb.map((v) => Math.round(v * al + 255 * (1 - al)));
      };
      return ch.data.datasets.map((d) => {
        const [r, g, b] = overWhite(d.borderColor);
        let n = 0;
        for (let k = 0; k < px.length; k += 4) if (Math.abs(px[k] - r) < 12 && Math.abs(px[k + 1] - g) < 12 && Math.abs(px[k + 2] - b) < 12) n++;
        return [d.label, n];
      });
    });
    for (const [label, n] of seen) assert.ok(n >= 150, `${id}: "${label}" shows in ${n} pixels of the plot`);
  }
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
