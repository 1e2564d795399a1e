// Keyboard and touch (issue 27, item 6): a skip link to the layer table;
// each chart legend is one Tab stop with the arrow keys inside it; the
// layer table is reached in few Tab presses. (Targets of at least 24 px and
// axe-core's WCAG 2.2 AA rules: usability.test.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserPrerequisites, openPage, browserSession } from './helpers.mjs';

const { chromium, exe, skip } = await browserPrerequisites();
let site, browser;
browserSession({ chromium, exe, skip }, (s, b) => { site = s; browser = b; });
const ready = (page) => page.waitForSelector('[data-testid=chart-time-based][data-state=drawn]', { timeout: 30000 });
const active = (page) => page.evaluate(() => {
  const a = document.activeElement;
  return { tag: a.tagName, key: a.dataset.key ?? null, legend: a.closest('.legend')?.parentElement?.id ?? null, layers: !!a.closest('section.layers'), testid: a.dataset.testid ?? null };
});

test('a skip link takes the keyboard to the layer table', { skip }, async () => {
  const page = await openPage(browser, `${site.url}#example=bert_base&hw=h100-sxm`);
  await ready(page);
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  assert.equal((await active(page)).testid, 'skip-to-layers');
  assert.ok(await page.evaluate(() => document.activeElement.getBoundingClientRect().top >= 0), 'the focused skip link is shown');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'layers');
  assert.match(page.url(), /example=bert_base/, 'the link keeps the page state');
  await page.keyboard.press('Tab');
  assert.equal((await active(page)).layers, true);
  await page.context().close();
});

test('each legend is one Tab stop; the arrow keys move inside it, Enter toggles', { skip }, async () => {
  const page = await openPage(browser, `${site.url}#example=bert_base&hw=h100-sxm`);
  await ready(page);
  const stops = await page.$$eval('.charts .legend', (ls) => ls.map((l) => [...l.querySelectorAll('button.legend-item')].filter((b) => b.tabIndex === 0).length));
  assert.deepEqual(stops, [1, 1, 1]);
  const first = await page.getAttribute('#chart-time .legend button.legend-item[tabindex="0"]', 'data-key');
  await page.focus('#chart-time .legend button.legend-item[tabindex="0"]');
  await page.keyboard.press('ArrowRight');
  const second = await active(page);
  assert.equal(second.legend, 'chart-time');
  assert.notEqual(second.key, first);
  await page.keyboard.press('ArrowLeft');
  assert.equal((await active(page)).key, first);
  await page.keyboard.press('End');
  const last = (await active(page)).key;
  await page.keyboard.press('Enter');   // toggles, and the stop stays on it
  await page.waitForFunction((k) => document.querySelector(`#chart-time .legend button[data-key="${k}"]`)?.getAttribute('aria-pressed') === 'false', last);
  assert.equal(await page.getAttribute(`#chart-time .legend button[data-key="${last}"]`, 'tabindex'), '0');
  // Tab leaves the legend's buttons at once (to its "other precisions" fold, then on)
  await page.keyboard.press('Tab');
  assert.notEqual(await page.evaluate(() => document.activeElement.className), 'legend-item');
  await page.context().close();
});

test('the layer table is reached in few Tab presses from the top', { skip }, async () => {
  const page = await openPage(browser, `${site.url}#example=bert_base&hw=h100-sxm`);
  await ready(page);
  let n = 0;
  const stopsIn = { legend: 0, graph: 0, icicle: 0 };
  for (; n < 200; n++) {
    await page.keyboard.press('Tab');
    const where = await page.evaluate(() => {
      const a = document.activeElement;
      return a.closest('#layer-table') ? 'table' : a.closest('.legend') && a.tagName === 'BUTTON' ? 'legend'
        : a.closest('[data-testid=graph-view]') ? 'graph' : a.closest('[data-testid=module-view]') ? 'icicle' : '';
    });
    if (where === 'table') break;
    if (where) stopsIn[where]++;
  }
  console.log(`Tab presses from the top to the layer table (BERT-base, H100): ${n + 1}`);
  // 58 before, 29 of them legend buttons: each legend is one stop now, and the graph and the module icicle are one stop each, arrows
  // inside. 43 with the charts alone; the graph views and the many-devices
  // panel add their own controls (13 stops).
  const legends = await page.$$eval('.legend', (l) => l.filter((x) => x.querySelector('button')).length);
  assert.ok(stopsIn.legend <= legends && stopsIn.graph <= 1 && stopsIn.icicle <= 1, `${JSON.stringify(stopsIn)}, ${legends} legends`);
  assert.ok(n + 1 <= 60, `${n + 1} Tab presses to the layer table`);
  await page.context().close();
});
