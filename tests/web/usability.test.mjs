// The page for people (issue "readable charts, a usable table, phones,
// keyboards"): no page overflow at 390 px, axe-core clean, legends not
// truncated, merged points, a failed load keeping the previous model, keyboard
// selection, the review Markdown, the empty state, PNGs at 2x with a title.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, SITE, CLI, FIXTURES, serve, cliJson, CHROMIUM_ARGS, browserPrerequisites, openPage, waitLayers, browserSession } from './helpers.mjs';

const AXE = join(ROOT, 'node_modules/axe-core/axe.min.js');
const { chromium, exe, skip } = await browserPrerequisites([[CLI, 'build/rooflens (cmake --build build)'], [AXE, 'axe-core (npm ci)']]);
const MODEL = (n) => join(FIXTURES, 'models', n);
const PHONE = { width: 390, height: 844 };
let site, browser;

browserSession({ chromium, exe, skip }, (s, b) => { site = s; browser = b; });

const ready = (page) => page.waitForSelector('[data-testid=summary][data-layers]', { timeout: 30000 });

/** The page has no horizontal scroll; what is wider scrolls in its own box. */
async function assertNoOverflow(page, what) {
  const o = await page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll('body *')].filter((e) => {
      if (!e.offsetParent && getComputedStyle(e).position !== 'fixed') return false;
      const r = e.getBoundingClientRect();
      // inside a box that scrolls itself is fine
      for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
        const s = getComputedStyle(p);
        if (/(auto|scroll)/.test(s.overflowX) || /(auto|scroll)/.test(s.overflow)) return false;
      }
      return r.right > vw + 1;
    }).slice(0, 5).map((e) => `${e.tagName}#${e.id}.${e.className} right=${Math.round(e.getBoundingClientRect().right)}`);
    return { scroll: document.documentElement.scrollWidth, vw, wide };
  });
  assert.ok(o.scroll <= o.vw, `${what}: the page is ${o.scroll} px wide at ${o.vw} px: ${o.wide.join('; ')}`);
  assert.deepEqual(o.wide, [], what);
}

test('at 390 px nothing makes the page scroll sideways; the table scrolls in its own box; charts stack', { skip }, async () => {
  const page = await openPage(browser, `${site.url}#example=bert_base&hw=jetson-agx-orin`, { viewport: PHONE });
  await ready(page);
  await assertNoOverflow(page, 'bert_base');
  const t = await page.evaluate(() => { const s = document.getElementById('table-scroll'); return [s.scrollWidth, s.clientWidth]; });
  assert.ok(t[0] > t[1], 'the table fits or is cut, instead of scrolling in its box');
  // a phone shows each layer's name, time and bound without scrolling the table sideways
  const heads = await page.$$eval('#table-scroll thead th', (ths) => ths.map((th) => ({ key: th.dataset.key, right: th.getBoundingClientRect().right })));
  const edge = await page.evaluate(() => document.getElementById('table-scroll').getBoundingClientRect().right);
  assert.deepEqual(heads.slice(0, 3).map((h) => h.key), ['name', 't', 'bound']);
  for (const h of heads.slice(0, 3)) assert.ok(h.right <= edge + 0.5, `column ${h.key} ends at ${h.right} px, past the table's box (${edge} px)`);
  const boxes = await page.$$eval('.charts .chart', (fs) => fs.map((f) => f.getBoundingClientRect()).map((r) => [Math.round(r.left), Math.round(r.top)]));
  assert.equal(new Set(boxes.map((b) => b[0])).size, 1, `charts not stacked: ${JSON.stringify(boxes)}`);
  // every what-if view and the profile editor too
  for (const view of ['compare', 'devices', 'sweep', 'power']) {
    await page.click(`[data-testid=tab-${view}]`);
    await page.waitForFunction((v) => ['done', 'error', 'empty'].includes(document.getElementById(`${v}-panel`).dataset.state), view, { timeout: 30000 });
    await assertNoOverflow(page, view);
  }
  await page.click('#custom-hw summary');
  await page.waitForSelector('[data-testid=profile-form] input[data-path]');
  await assertNoOverflow(page, 'profile editor');
  assert.deepEqual(page.problems, []);
  await page.context().close();
  // and the empty page
  const empty = await openPage(browser, site.url, { viewport: PHONE });
  await assertNoOverflow(empty, 'empty page');
  await empty.context().close();
});

/** The cells `selector` finds that are not wholly on the screen: past its
 * edge, or cut by a box that scrolls them away (cells only a sideways scroll
 * would show). */
function cellsOffScreen(page, selector) {
  return page.$$eval(selector, (cells) => {
    const vw = document.documentElement.clientWidth;
    return cells.filter((c) => {
      const r = c.getBoundingClientRect();
      if (r.width === 0 || r.left < -0.5 || r.right > vw + 0.5) return true;
      for (let p = c.parentElement; p && p !== document.body; p = p.parentElement) {
        if (!/(auto|scroll|hidden)/.test(getComputedStyle(p).overflowX)) continue;
        const b = p.getBoundingClientRect();
        if (r.left < b.left - 0.5 || r.right > b.right + 0.5) return true;
      }
      return false;
    }).map((c) => `${c.closest('table').dataset.testid || c.closest('table').parentElement.className} ` +
      `row ${c.parentElement.rowIndex} "${c.textContent}" at ${Math.round(c.getBoundingClientRect().left)}–${Math.round(c.getBoundingClientRect().right)} px of ${vw}`);
  });
}

/** What Chromium's accessibility tree makes of the table `selector` finds:
 * its role, its column headers' names and its count of cells (by CDP). */
async function tableRoles(page, selector) {
  const cdp = await page.context().newCDPSession(page);
  const { root } = await cdp.send('DOM.getDocument');
  const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector });
  const { node } = await cdp.send('DOM.describeNode', { nodeId });
  const { backendNodeId } = node;
  const [self] = (await cdp.send('Accessibility.getPartialAXTree', { backendNodeId, fetchRelatives: false })).nodes;
  const query = async (role) => (await cdp.send('Accessibility.queryAXTree', { backendNodeId, role })).nodes;
  const out = { table: self?.role?.value, headers: (await query('columnheader')).map((n) => n.name?.value ?? ''), cells: (await query('cell')).length };
  await cdp.detach();
  return out;
}

test('at 390 px the speed-of-light table and the device groups\' table show each row\'s key figures on the screen, without a sideways scroll, and keep their table roles', { skip }, async () => {
  const page = await openPage(browser, `${site.url}#example=resnet50&hw=h100-sxm&view=devices`, { viewport: PHONE });
  await ready(page);
  await page.waitForFunction(() => document.querySelector('[data-testid=devices-view]').dataset.state === 'done' &&
    document.querySelectorAll('[data-testid=devices-table] tbody tr').length >= 2, null, { timeout: 60000 });
  // every speed-of-light model's name, time and bounds; every group's name, time, forecast, communication and speed-up
  const sol = await page.$$eval('.sol-wrap tbody tr', (rows) => rows.length);
  assert.ok(sol >= 2, `${sol} speed-of-light rows`);
  assert.deepEqual(await cellsOffScreen(page, '.sol-wrap tbody td:nth-child(-n+3)'), []);
  const keys = ['group', 'devices_time_s', 'devices_forecast_s', 't_comms_s', 'speedup'];
  assert.deepEqual(await cellsOffScreen(page, keys.map((k) => `[data-testid=devices-table] tbody td[data-key=${k}]`).join(',')), []);
  await assertNoOverflow(page, 'the two tables as cards');
  // a screen reader still meets tables, their column headers and cells
  for (const [sel, head] of [['.sol-wrap table', 'bounds'], ['[data-testid=devices-table]', 'Speed-up']]) {
    const roles = await tableRoles(page, sel);
    assert.equal(roles.table, 'table', `${sel} is a table for a screen reader`);
    assert.ok(roles.headers.includes(head), `${sel}'s headers: ${roles.headers.join(', ')}`);
    assert.ok(roles.cells >= 6, `${sel}: ${roles.cells} cells`);
  }
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

async function axeViolations(page) {
  await page.evaluate(readFileSync(AXE, 'utf8'));
  // The WCAG 2.2 AA rules (target size included) and axe's best practices.
  const r = await page.evaluate(() => globalThis.axe.run(document, { resultTypes: ['violations'],
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } }));
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

test('no size field cuts its placeholder (the Llama example\'s derived total, at 1440 and 390 px)', { skip }, async () => {
  for (const viewport of [{ width: 1440, height: 900 }, PHONE]) {
    const page = await openPage(browser, `${site.url}#example=llama3_8b_int4&hw=h100-sxm`, { viewport });
    await ready(page);
    const cut = await page.$$eval('input[data-dim]', (inputs) => {
      const ctx = document.createElement('canvas').getContext('2d');
      return inputs.filter((i) => i.placeholder).map((i) => {
        const cs = getComputedStyle(i);
        ctx.font = `${cs.fontSize} ${cs.fontFamily}`;
        const room = i.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
        return { text: i.placeholder, need: ctx.measureText(i.placeholder).width, room };
      }).filter((f) => f.need > f.room + 1);
    });
    assert.ok((await page.$$eval('input[data-dim]', (i) => i.filter((x) => /past \+ sequence/.test(x.placeholder)).length)) > 0,
      'the example shows a derived total');
    assert.deepEqual(cut, [], `${viewport.width} px: placeholders cut`);
    await assertNoOverflow(page, `llama at ${viewport.width}`);
    await page.context().close();
  }
});

test('axe-core finds no serious or critical violation (empty page, a model, what-if views, profile editor; 1440 and 390 px)', { skip }, async () => {
  for (const viewport of [{ width: 1440, height: 900 }, PHONE]) {
    // axe injects its script: the page's own CSP would refuse it.
    const context = await browser.newContext({ viewport, bypassCSP: true });
    const page = await context.newPage();
    await page.goto(site.url);
    await page.waitForSelector('body[data-ready="1"]');
    assert.deepEqual(await axeViolations(page), [], `empty page at ${viewport.width}`);
    await page.goto(`${site.url}#example=transformer_block&hw=jetson-agx-orin&view=power`);
    await page.reload();
    await ready(page);
    await page.waitForFunction(() => document.getElementById('power-panel').dataset.state === 'done', null, { timeout: 30000 });
    await page.click('[data-testid=chart-time-roofline] .chart-data summary');
    await page.click('#custom-hw summary');
    await page.waitForSelector('[data-testid=profile-form] input[data-path]');
    await page.click('[data-testid=col-picker] summary');
    assert.deepEqual(await axeViolations(page), [], `model at ${viewport.width}`);
    await context.close();
  }
});

/** Opens the views merged after the first pass (the LLM panel, compare
 * with another model, measured against predicted) in a page that lets axe
 * in; calls check(page, what) on each. */
async function laterViews(viewport, check) {
  const context = await browser.newContext({ viewport, bypassCSP: true });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${site.url}#example=llama3_8b_int4&hw=h100-sxm`);
  await ready(page);
  await page.waitForFunction(() => document.querySelector('[data-testid=llm-panel]').dataset.state === 'done', null, { timeout: 60000 });
  await page.click('[data-testid=llm-panel] details summary');
  await check(page, `LLM panel at ${viewport.width}`);
  await page.goto(`${site.url}#hw=jetson-agx-orin`);
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await page.setInputFiles('[data-testid=file-input]', MODEL('diff_old.onnx'));
  await ready(page);
  await page.setInputFiles('[data-testid=diff-file-input]', MODEL('diff_new.onnx'));
  await page.waitForSelector('[data-testid=diff-models][data-state=ready]', { timeout: 30000 });
  await page.click('[data-testid=diff-models] details.diff-md summary');
  await check(page, `compare with another model at ${viewport.width}`);
  await page.setInputFiles('[data-testid=file-input]', join(FIXTURES, 'measured/small_cnn.onnx'));
  await page.waitForFunction(() => /small_cnn/.test(document.querySelector('[data-testid=summary]').textContent), null, { timeout: 30000 });
  await page.setInputFiles('[data-testid=measured-input]', join(FIXTURES, 'measured/ort_small_cnn_all.json'));
  await page.waitForSelector('[data-testid=measured][data-attached="1"]', { timeout: 30000 });
  await check(page, `measured view at ${viewport.width}`);
  assert.deepEqual(problems, []);
  await context.close();
}

test('LLM panel, compare with another model, measured view: axe-clean at 1440 and 390 px, no sideways scroll at 390', { skip }, async () => {
  for (const viewport of [{ width: 1440, height: 900 }, PHONE]) {
    await laterViews(viewport, async (page, what) => {
      assert.deepEqual(await axeViolations(page), [], what);
      if (viewport.width === PHONE.width) await assertNoOverflow(page, what);
    });
  }
});

test('legends: full names, not cut; a click hides a series and the link keeps it', { skip }, async () => {
  const page = await openPage(browser, `${site.url}#example=bert_base&hw=h100-sxm`, { viewport: { width: 1440, height: 900 } });
  await ready(page);
  for (const id of ['chart-time-roofline', 'chart-energy-roofline', 'chart-time-based']) {
    const items = await page.$$eval(`[data-testid=${id}] .legend-label`, (ls) => ls.map((l) => ({ text: l.textContent, sw: l.scrollWidth, cw: l.clientWidth, h: l.scrollHeight, ch: l.clientHeight })));
    assert.ok(items.length >= 3, id);
    for (const it of items) assert.ok(it.sw <= it.cw + 1 && it.h <= it.ch + 1, `${id}: legend "${it.text}" is cut`);
    // the names are the datasets' full labels
    // (one entry per series: the isochrones are several datasets of one series)
    const labels = await page.evaluate((i) => [...new Map(globalThis.Chart.getChart(document.querySelector(`[data-testid=${i}] canvas`)).data.datasets
      .filter((d) => d.rlKey).map((d) => [d.rlKey, d.label])).values()], id);
    assert.deepEqual(items.map((i) => i.text).sort(), labels.sort(), id);
  }
  assert.ok(await page.locator('[data-testid=chart-time-roofline] .legend-label', { hasText: /^HBM3 3\.35 TB\/s \(\d/ }).count() === 1);
  // hide MatMul: gone from the chart, kept in the link, restored from it
  await page.click('[data-testid=chart-time-roofline] .legend button[data-key="op:MatMul"]');
  await page.waitForFunction(() => /legend=op%3AMatMul/.test(location.hash));
  const hidden = await page.evaluate(() => globalThis.Chart.getChart(document.querySelector('[data-testid=chart-time-roofline] canvas'))
    .data.datasets.find((d) => d.rlKey === 'op:MatMul').hidden);
  assert.equal(hidden, true);
  assert.equal(await page.getAttribute('[data-testid=chart-energy-roofline] .legend button[data-key="op:MatMul"]', 'aria-pressed'), 'false');
  const link = page.url();
  await page.context().close();
  const page2 = await openPage(browser, link);
  await ready(page2);
  assert.equal(await page2.getAttribute('[data-testid=chart-time-roofline] .legend button[data-key="op:MatMul"]', 'aria-pressed'), 'false');
  await page2.context().close();
});

test('identical layers are one point marked ×N; the tooltip lists 5 then "+N more"; every merged layer can be selected', { skip }, async () => {
  const page = await openPage(browser, `${site.url}#example=bert_base&hw=h100-sxm`, { viewport: { width: 1440, height: 900 } });
  await ready(page);
  const info = await page.evaluate(() => {
    const ch = globalThis.Chart.getChart(document.querySelector('[data-testid=chart-time-roofline] canvas'));
    const pts = ch.data.datasets.filter((d) => d.rl === 'layers').flatMap((d, di) => d.data.map((p, i) => ({ n: p.members.length, ds: ch.data.datasets.indexOf(d), i })));
    return { points: pts.length, layers: pts.reduce((s, p) => s + p.n, 0), biggest: pts.sort((a, b) => b.n - a.n)[0], labels: ch.$rlLabelBoxes.map((b) => b.text) };
  });
  assert.ok(info.points < info.layers / 5, `${info.points} points for ${info.layers} layers: not merged`);
  assert.ok(info.biggest.n >= 12, `largest point holds ${info.biggest.n}`);
  assert.ok(info.labels.includes(`×${info.biggest.n}`), `no ×${info.biggest.n} label among ${info.labels}`);
  // The labels drawn do not overlap.
  const boxes = await page.evaluate(() => globalThis.Chart.getChart(document.querySelector('[data-testid=chart-time-roofline] canvas')).$rlLabelBoxes);
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const [a, b] = [boxes[i], boxes[j]];
    assert.ok(!(a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h), `labels ${a.text} and ${b.text} overlap`);
  }
  // Hover: one tooltip, 5 names then "+N more".
  const canvas = page.locator('[data-testid=chart-time-roofline] canvas');
  await canvas.scrollIntoViewIfNeeded();
  const px = await page.evaluate(({ ds, i }) => {
    const ch = globalThis.Chart.getChart(document.querySelector('[data-testid=chart-time-roofline] canvas'));
    const e = ch.getDatasetMeta(ds).data[i];
    return { x: e.x, y: e.y };
  }, info.biggest);
  const box = await canvas.boundingBox();
  await page.mouse.move(box.x + px.x, box.y + px.y);
  const lines = await page.evaluate(() => {
    const t = globalThis.Chart.getChart(document.querySelector('[data-testid=chart-time-roofline] canvas')).tooltip;
    return { title: t.title, body: t.body.flatMap((b) => b.lines) };
  });
  assert.match(lines.title.join(' '), new RegExp(`^${info.biggest.n} identical `));
  assert.equal(lines.body.filter((l) => l.startsWith('• ')).length, 5);
  assert.ok(lines.body.includes(`+${info.biggest.n - 5} more (click to list them all)`), lines.body.join('\n'));
  // Click: the list of its layers; each one selects its row.
  await page.mouse.click(box.x + px.x, box.y + px.y);
  const list = page.locator('[data-testid=chart-time-roofline] .point-members button[data-layer]');
  await list.first().waitFor();
  assert.equal(await list.count(), info.biggest.n);
  const third = await list.nth(2).getAttribute('data-layer');
  await list.nth(2).click();
  await page.waitForFunction((i) => location.hash.includes(`sel=${i}`), third);
  assert.equal(await page.getAttribute('[data-testid=layer-table] tbody tr.selected', 'data-index'), third);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('a failed load keeps the previous analysis, titled with its own file; the error names the file that failed', { skip }, async () => {
  const page = await openPage(browser, site.url);
  const cli = cliJson(MODEL('conv_net.onnx'));
  await page.setInputFiles('[data-testid=file-input]', MODEL('conv_net.onnx'));
  await waitLayers(page, cli.layers.length);
  await page.selectOption('[data-testid=filter-op]', 'Conv');
  const before = await page.evaluate(() => document.querySelector('[data-testid=layer-table] tbody').innerText);
  await page.setInputFiles('[data-testid=file-input]', join(FIXTURES, 'bad/not_onnx.onnx'));
  const err = page.locator('[data-testid=error]');
  await err.waitFor({ state: 'visible', timeout: 20000 });
  assert.match(await err.textContent(), /^not_onnx\.onnx could not be opened as an ONNX model: /);
  assert.equal(await err.getAttribute('data-code'), 'bad_protobuf');
  assert.match(await page.textContent('[data-testid=notice]'), /The analysis of conv_net\.onnx is still shown/);
  const left = await page.evaluate(() => ({
    summary: document.querySelector('[data-testid=summary]').hidden,
    layers: document.querySelector('[data-testid=summary]').dataset.layers ?? null,
    file: document.querySelector('[data-testid=summary]').dataset.file ?? null,
    table: document.querySelector('[data-testid=layer-table] tbody').innerText,
    charts: [...document.querySelectorAll('.charts .chart')].map((c) => c.offsetParent !== null),
    empty: document.querySelector('[data-testid=empty-state]').hidden,
    title: document.title,
  }));
  assert.deepEqual(left, { summary: false, layers: String(cli.layers.length), file: 'conv_net.onnx', table: before,
    charts: [true, true, true], empty: true, title: `conv_net.onnx on ${cli.hardware.name} — rooflens` });
  assert.match(await page.textContent('[data-testid=summary-title]'), /^conv_net\.onnx on /);
  assert.match(page.url(), /op=Conv/);
  // a new model that opens resets the filters: they belonged to the old one
  await page.fill('[data-testid=filter-name]', 'conv');
  await page.setInputFiles('[data-testid=file-input]', MODEL('mlp.onnx'));
  await waitLayers(page, cliJson(MODEL('mlp.onnx')).layers.length);
  assert.equal(await page.inputValue('[data-testid=filter-op]'), '');
  assert.equal(await page.inputValue('[data-testid=filter-name]'), '');
  assert.doesNotMatch(page.url(), /op=Conv|q=conv/);
  await page.context().close();
});

test('keyboard: a skip link first, tabs with arrow keys, rows reached and selected, one sort header in the tab order', { skip }, async () => {
  const page = await openPage(browser, `${site.url}#example=conv_net&hw=h100-sxm`);
  await ready(page);
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.className), 'skip-link');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.testid), 'skip-to-layers');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'open-file');
  assert.notEqual(await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle), 'none', 'no focus ring');
  // sort headers: one in the tab order; arrows move between them
  assert.equal(await page.locator('[data-testid=layer-table] thead button[tabindex="0"]').count(), 1);
  await page.focus('[data-testid=layer-table] thead button[tabindex="0"]');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.key), 't');   // the sorted column
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.key), 'forecast_s');
  // Tab from the header lands on a row; arrows and Enter select
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.tagName), 'TR');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  const want = await page.evaluate(() => document.activeElement.dataset.index);
  await page.keyboard.press('Enter');
  await page.waitForFunction((i) => location.hash.includes(`sel=${i}`), want);
  assert.equal(await page.getAttribute('[data-testid=layer-table] tbody tr.selected', 'data-index'), want);
  assert.equal(await page.getAttribute('[data-testid=layer-table] tbody tr.selected', 'aria-selected'), 'true');
  // power modes say "default" once each
  await page.selectOption('[data-testid=hw-select]', 'jetson-agx-orin');
  const modes = await page.$$eval('[data-testid=pm-select] option', (os) => os.map((o) => o.textContent));
  assert.ok(modes.length > 3 && modes.every((m) => (m.match(/default/gi) || []).length <= 1), modes.join(' | '));
  assert.equal(modes.filter((m) => /default/i.test(m)).length, 1);
  // what-if tabs: arrows move and open
  await page.focus('[data-testid=tab-compare]');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.testid), 'tab-devices');
  await page.waitForFunction(() => /view=devices/.test(location.hash));
  assert.equal(await page.getAttribute('[data-testid=tab-devices]', 'aria-selected'), 'true');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('Markdown for a review: file, device, precision, dims, headline with bounds, top 10 layers, warnings, link', { skip }, async () => {
  const page = await openPage(browser, `${site.url}#example=bert_base&hw=jetson-agx-orin`, { clipboard: true });
  await ready(page);
  await page.click('[data-testid=copy-md]');
  await page.waitForSelector('[data-testid=copy-md][data-markdown]');
  const md = await page.getAttribute('[data-testid=copy-md]', 'data-markdown');
  const res = await page.evaluate(() => document.querySelector('[data-testid=summary]').dataset);
  assert.match(md, /^## rooflens: bert\\_base\.onnx on NVIDIA Jetson AGX Orin .*, power mode MAXN/);
  assert.match(md, /\*\*Precision:\*\* fp32/);
  assert.match(md, /\*\*Dims:\*\* batch=1 \(batch\), seq=128 \(set\)/);
  assert.match(md, /\*\*Speed of light:\*\* [\d.]+ [mµ]s \(range of the speed of light [\d.]+ [mµ]?s … [\d.]+ [mµ]?s\)/);
  // the answer in one sentence, and the forecast beside the floor, with what it rests on
  assert.match(md, /\n\nAbout [\d.]+ [mµ]s per inference on NVIDIA Jetson AGX Orin .* its fused speed of light is [\d.]+ [mµ]s/);
  assert.match(md, /\*\*Forecast:\*\* [\d.]+ [mµ]s, [\d.]+× the speed of light; analytic estimate: TensorRT/);
  const rows = md.split('\n').filter((l) => /^\| \/layers|^\| \//.test(l));
  assert.equal(rows.length, 10, md);
  // each row's bound in the core's words ("power floor"), never its id ("power")
  for (const r of rows) assert.match(r.split(' | ')[5], /^(compute|memory bandwidth|launch floor|power floor|communication)$/, r);
  // each row: a speed of light, its share, then its forecast, both times
  for (const r of rows) {
    const [, , sol, , fc] = r.split(' | ');
    assert.ok([sol, fc].every((x) => /^[\d.]+ [nµm]?s$/.test(x)), r);
  }
  assert.match(md, /Slowest 10 of \d+ layers at the speed of light/);
  assert.match(md, /Warnings \(\d+\):\n\n- /);
  assert.match(md, /\[Open in rooflens\]\(<http:\/\/127\.0\.0\.1:\d+\/#example=bert_base&hw=jetson-agx-orin/);
  assert.ok(res.file === 'bert_base.onnx');
  await page.context().close();
  // a local file: the link needs the file
  const p2 = await openPage(browser, `${site.url}#dims=seq%3D4`);
  await p2.setInputFiles('[data-testid=file-input]', MODEL('transformer_block.onnx'));
  await ready(p2);
  await p2.click('[data-testid=copy-md]');
  await p2.waitForSelector('[data-testid=copy-md][data-markdown]');
  const md2 = await p2.getAttribute('[data-testid=copy-md]', 'data-markdown');
  assert.match(md2, /seq=4 \(set\)/);
  assert.match(md2, /the model was a local file: the link needs transformer\\_block\.onnx dropped on the page again/);
  await p2.context().close();
});

test('empty state: it explains the page and offers the examples; no chart, no enabled Save PNG', { skip }, async () => {
  const page = await openPage(browser, site.url);
  assert.equal(await page.locator('[data-testid=empty-state]').isVisible(), true);
  assert.match(await page.textContent('[data-testid=empty-state]'), /roofline/);
  assert.equal(await page.locator('.charts').isVisible(), false);
  assert.equal(await page.locator('button.png:not([disabled])').count(), 0);
  const examples = page.locator('[data-testid=empty-examples] button');
  assert.ok(await examples.count() >= 3);
  await page.click('[data-testid=empty-examples] button[data-example=conv_net]');
  await ready(page);
  assert.equal(await page.locator('[data-testid=empty-state]').isVisible(), false);
  await page.context().close();
});

test('Save PNG: twice the size on screen, with a title block and the legend; the what-if charts too', { skip }, async () => {
  const page = await openPage(browser, `${site.url}#example=conv_net&hw=jetson-agx-orin&view=power`);
  await ready(page);
  await page.waitForFunction(() => document.getElementById('power-panel').dataset.state === 'done', null, { timeout: 30000 });
  const size = (buf) => ({ w: buf.readUInt32BE(16), h: buf.readUInt32BE(20) });
  for (const [sel, canvasSel] of [['[data-testid=chart-time-roofline] button.png', '[data-testid=chart-time-roofline] canvas'],
    ['button[data-whatif-chart=power]', '#power-chart']]) {
    const css = await page.locator(canvasSel).boundingBox();
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click(sel)]);
    const chunks = [];
    for await (const c of await dl.createReadStream()) chunks.push(c);
    const buf = Buffer.concat(chunks);
    assert.equal(buf.subarray(1, 4).toString(), 'PNG');
    const { w, h } = size(buf);
    assert.ok(Math.abs(w - 2 * css.width) <= 2, `${sel}: ${w} px wide for ${css.width} on screen`);
    assert.ok(h > 2 * css.height + 40, `${sel}: no room for a title (${h} px for ${css.height})`);
    assert.match(dl.suggestedFilename(), /^rooflens-conv_net-jetson-agx-orin-/);
  }
  // the chart on screen is back at its own resolution
  const dpr = await page.evaluate(() => globalThis.Chart.getChart(document.querySelector('[data-testid=chart-time-roofline] canvas')).currentDevicePixelRatio);
  assert.equal(dpr, 1);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('the table: 10 default columns (the forecast and its headroom beside the floor), a column picker kept in the link, a totals row, only the rows in view rendered', { skip }, async () => {
  const page = await openPage(browser, `${site.url}#example=conv_net&hw=h100-sxm`);
  await ready(page);
  const heads = await page.$$eval('[data-testid=layer-table] thead button', (bs) => bs.map((b) => b.dataset.key));
  assert.deepEqual(heads, ['name', 'op', 'flops', 'bytes', 'intensity', 't', 'forecast_s', 'headroom', 'bound', 'share']);
  const cli = cliJson(MODEL('conv_net.onnx'));
  const total = await page.$$eval('[data-testid=layer-table] tfoot tr > *', (cs) => cs.map((c) => c.title || c.textContent));
  assert.match(total[0], new RegExp(`Total, ${cli.layers.length} layers`));
  assert.equal(total[2], `${cli.totals.flops.toLocaleString('en-US')} FLOP`);
  // the forecast's total is the core's forecast.time_s (6 digits in the title), as the CLI gives it
  const fc = Number(total[6].split(' ')[0]);
  assert.ok(Math.abs(fc / cli.forecast.time_s - 1) < 1e-5, `${total[6]} vs ${cli.forecast.time_s}`);
  await page.click('[data-testid=col-picker] summary');
  await page.check('#col-picker input[data-col=energy_j]');
  await page.uncheck('#col-picker input[data-col=share]');
  await page.waitForFunction(() => /cols=/.test(location.hash));
  const link = page.url();
  await page.context().close();
  const p2 = await openPage(browser, link);
  await ready(p2);
  const heads2 = await p2.$$eval('[data-testid=layer-table] thead button', (bs) => bs.map((b) => b.dataset.key));
  assert.deepEqual(heads2, ['name', 'op', 'flops', 'bytes', 'intensity', 't', 'forecast_s', 'headroom', 'bound', 'energy_j']);
  await p2.context().close();
  // BERT-base's 425 layers: only those in view (and a margin) are in the DOM
  const p3 = await openPage(browser, `${site.url}#example=bert_base&hw=h100-sxm`);
  await ready(p3);
  const inDom = await p3.locator('[data-testid=layer-table] tbody tr[data-index]').count();
  assert.ok(inDom > 10 && inDom < 80, `${inDom} rows in the DOM`);
  await p3.locator('#table-scroll').evaluate((s) => { s.scrollTop = 26 * 400; });
  await p3.waitForFunction(() => [...document.querySelectorAll('[data-testid=layer-table] tbody tr[data-pos]')].some((r) => Number(r.dataset.pos) >= 410));
  await p3.context().close();
});
