// Keyboard and pointer (issue 38, section 3):
//  - "Try an example" with the keyboard: the arrow keys only move the
//    choice, so every example can be reached; Enter (or Open example) opens it;
//  - a click on a chart point selects its row without moving the page: the
//    chart stays in the viewport, the row is shown inside the table's box,
//    highlighted so that it stands out;
//  - a double-click resets a chart's zoom without errors after a second
//    model reused its canvas;
//  - a plain wheel over the graph scrolls the page; Ctrl + wheel zooms it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FIXTURES, browserPrerequisites, openPage, browserSession } from './helpers.mjs';

const { chromium, exe, skip } = await browserPrerequisites();
let site, browser;
browserSession({ chromium, exe, skip }, (s, b) => { site = s; browser = b; });

const drawn = (page) => page.waitForSelector('[data-testid=chart-time-based][data-state=drawn]', { timeout: 30000 });
const file = (page) => page.getAttribute('[data-testid=summary]', 'data-file');

test('"Try an example" with the keyboard: the arrow keys only choose, Enter opens; every example is reached', { skip }, async () => {
  const page = await openPage(browser, site.url);
  const examples = await page.evaluate(() => fetch('samples/index.json').then((r) => r.json()).then((j) => j.examples));
  assert.ok(examples.length >= 5, `${examples.length} examples`);
  let shown = null;
  for (const [i, ex] of examples.entries()) {
    await page.focus('[data-testid=example-select]');
    for (let k = 0; k <= i; k++) {
      await page.keyboard.press('ArrowDown');
      await page.waitForTimeout(150);   // an open would have started by now
      assert.equal(await file(page), shown, `ArrowDown ${k + 1} opened a model`);
      assert.equal(await page.locator('[data-testid=progress]').isVisible(), false, `ArrowDown ${k + 1} started a load`);
    }
    assert.equal(await page.inputValue('[data-testid=example-select]'), ex.id, `${i + 1} ArrowDown reach ${ex.name}`);
    assert.equal(await page.isEnabled('[data-testid=example-open]'), true, 'Open example is enabled by a choice');
    await page.keyboard.press('Enter');
    await page.waitForFunction((f) => document.querySelector('[data-testid=summary]')?.dataset.file === f, ex.file, { timeout: 60000 });
    shown = ex.file;
    assert.equal(await page.inputValue('[data-testid=example-select]'), '', 'the menu goes back to "choose…"');
  }
  // the button confirms too
  await page.selectOption('[data-testid=example-select]', examples[3].id);
  await page.waitForTimeout(150);
  assert.equal(await file(page), shown, 'a choice alone opens nothing');
  await page.click('[data-testid=example-open]');
  await page.waitForFunction((f) => document.querySelector('[data-testid=summary]')?.dataset.file === f, examples[3].file, { timeout: 60000 });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

/** Where, in the page, the slowest layer's point of chart `fig` lies, and its layer. */
async function pointAt(page, fig) {
  return page.evaluate((f) => {
    const canvas = document.querySelector(`[data-testid=${f}] canvas`);
    const ch = globalThis.Chart.getChart(canvas);
    const r = canvas.getBoundingClientRect();
    // the slowest layer's point: the one a user clicks first
    let best = null;
    ch.data.datasets.forEach((d, di) => {
      if (d.rl !== 'layers' || d.hidden) return;
      d.data.forEach((p, j) => {
        const el = ch.getDatasetMeta(di).data[j];
        if (p.li === undefined || !el || el.skip) return;
        if (!best || p.t > best.t) best = { t: p.t ?? 0, li: p.li, x: r.left + el.x, y: r.top + el.y, px: el.x, py: el.y };
      });
    });
    if (!best) return null;
    // the layers drawn at that spot (points that overlap, and a merged point's members)
    best.here = [];
    ch.data.datasets.forEach((d, di) => {
      if (d.rl !== 'layers' || d.hidden) return;
      d.data.forEach((p, j) => {
        const el = ch.getDatasetMeta(di).data[j];
        if (el && Math.hypot(el.x - best.px, el.y - best.py) < 6) best.here.push(p.li, ...(p.members || []));
      });
    });
    return best;
  }, fig);
}

test('a click on a chart point selects its row without moving the page; the row is shown in its table, highlighted', { skip }, async () => {
  const page = await openPage(browser, `${site.url}#example=resnet50&hw=h100-sxm`);
  await drawn(page);
  await page.waitForSelector('[data-testid=graph-view] .graph-box', { timeout: 30000 });
  const fig = 'chart-time-roofline';
  await page.locator(`[data-testid=${fig}] canvas`).scrollIntoViewIfNeeded();
  const p = await pointAt(page, fig);
  assert.ok(p, 'a layer point to click');
  const before = await page.evaluate(() => window.scrollY);
  await page.mouse.click(p.x, p.y);
  await page.waitForSelector('#layer-table tbody tr.selected', { timeout: 10000 });
  await page.waitForTimeout(400);   // a smooth scroll would have moved by now
  const after = await page.evaluate((f) => {
    const c = document.querySelector(`[data-testid=${f}] canvas`).getBoundingClientRect();
    return { y: window.scrollY, top: c.top, bottom: c.bottom, vh: window.innerHeight };
  }, fig);
  assert.equal(after.y, before, `the page moved by ${after.y - before} px`);
  assert.ok(after.top >= 0 && after.bottom <= after.vh, `the chart is in the viewport: ${JSON.stringify(after)}`);
  // the selected row is the clicked layer's, inside the table's own box
  const row = await page.evaluate(() => {
    const tr = document.querySelector('#layer-table tbody tr.selected');
    const table = tr.closest('table'), b = table.parentElement.getBoundingClientRect(), r = tr.getBoundingClientRect();
    const head = table.querySelector('thead').getBoundingClientRect().height, foot = table.querySelector('tfoot').getBoundingClientRect().height;
    const td = getComputedStyle(tr.querySelector('td'));
    return { index: Number(tr.dataset.index), inBox: r.top >= b.top + head - 1 && r.bottom <= b.bottom - foot + 1,
      bg: td.backgroundColor, shadow: td.boxShadow, outline: getComputedStyle(tr).outlineStyle };
  });
  assert.ok(p.here.includes(row.index), `the clicked layer's row is selected: row ${row.index}, layers at the point ${p.here}`);
  assert.ok(row.inBox, `the row is shown in the table's box: ${JSON.stringify(row)}`);
  // highlighted so that it stands out: a strong fill and a marked edge, not only a pale tint
  const [r, g, b] = row.bg.match(/\d+/g).map(Number);
  const luminance = (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  assert.ok(luminance < 0.9 && (row.shadow !== 'none' || row.outline !== 'none'), `the selected row stands out: ${JSON.stringify(row)}`);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('a double-click resets each chart\'s zoom after a second model is opened, without errors', { skip }, async () => {
  const page = await openPage(browser, `${site.url}#example=conv_net&hw=h100-sxm`);
  await drawn(page);
  await page.setInputFiles('[data-testid=file-input]', join(FIXTURES, 'models', 'yolo_head.onnx'));
  await page.waitForFunction(() => document.querySelector('[data-testid=summary]')?.dataset.file === 'yolo_head.onnx', null, { timeout: 30000 });
  await drawn(page);
  for (const fig of ['chart-time-roofline', 'chart-energy-roofline', 'chart-time-based']) {
    const canvas = page.locator(`[data-testid=${fig}] canvas`);
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    const range = () => page.evaluate((f) => { const x = globalThis.Chart.getChart(document.querySelector(`[data-testid=${f}] canvas`)).scales.x; return [x.min, x.max]; }, fig);
    const start = await range();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -400);
    await page.keyboard.up('Control');
    await page.waitForFunction(([f, s]) => { const x = globalThis.Chart.getChart(document.querySelector(`[data-testid=${f}] canvas`)).scales.x; return x.max / x.min < s[1] / s[0]; },
      [fig, start], { timeout: 5000 });
    await canvas.dblclick({ position: { x: box.width / 2, y: box.height / 2 } });
    await page.waitForFunction(([f, s]) => { const x = globalThis.Chart.getChart(document.querySelector(`[data-testid=${f}] canvas`)).scales.x; return Math.abs(x.min - s[0]) <= 1e-9 * s[0] && Math.abs(x.max - s[1]) <= 1e-9 * s[1]; },
      [fig, start], { timeout: 5000 });
  }
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('a plain wheel over the graph scrolls the page; Ctrl + wheel zooms the graph', { skip }, async () => {
  const page = await openPage(browser, `${site.url}#example=resnet50&hw=h100-sxm`, { viewport: { width: 1400, height: 800 } });
  await drawn(page);
  await page.waitForSelector('[data-testid=graph-view] .graph-box', { timeout: 30000 });
  const view = page.locator('[data-testid=graph-view]');
  await view.scrollIntoViewIfNeeded();
  await page.evaluate(() => window.scrollBy(0, -200));   // room to scroll either way
  const transform = () => page.getAttribute('[data-testid=graph-view] g.graph-canvas', 'transform');
  const box = await view.boundingBox();
  const t0 = await transform(), y0 = await page.evaluate(() => window.scrollY);
  await page.mouse.move(box.x + box.width / 2, box.y + Math.min(box.height, 400) / 2);
  await page.mouse.wheel(0, 300);
  await page.waitForFunction((y) => window.scrollY !== y, y0, { timeout: 5000 }).catch(() => {});
  assert.ok(await page.evaluate((y) => window.scrollY > y, y0), 'a plain wheel scrolls the page');
  assert.equal(await transform(), t0, 'a plain wheel leaves the graph as it was');
  const b = await view.boundingBox();
  await page.mouse.move(b.x + b.width / 2, b.y + Math.min(b.height, 300) / 2);
  const y1 = await page.evaluate(() => window.scrollY);
  await page.keyboard.down('Control');
  await page.mouse.wheel(0, -300);
  await page.keyboard.up('Control');
  await page.waitForFunction((t) => document.querySelector('[data-testid=graph-view] g.graph-canvas').getAttribute('transform') !== t, t0, { timeout: 5000 });
  assert.equal(await page.evaluate(() => window.scrollY), y1, 'Ctrl + wheel zooms and does not scroll the page');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
