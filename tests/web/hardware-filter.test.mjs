// The hardware list with 45+ profiles (issue 40): grouped by class and
// vendor, narrowed by typing in its filter, and usable from the keyboard
// (Enter picks the first match, the arrow key moves to the menu, Escape
// clears). The list comes from the site's hw/index.json, built from hw/*.json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserPrerequisites, openPage, browserSession } from './helpers.mjs';

const { chromium, exe, skip } = await browserPrerequisites();
let site, browser;
browserSession({ chromium, exe, skip }, (s, b) => { site = s; browser = b; });
const ready = (page) => page.waitForSelector('[data-testid=chart-time-based][data-state=drawn]', { timeout: 60000 });
const menu = (page) => page.$$eval('#hw-select option', (os) => os.map((o) => o.value).filter((v) => v !== 'custom'));
const groups = (page) => page.$$eval('#hw-select optgroup', (gs) => gs.map((g) => ({
  label: g.label, ids: [...g.querySelectorAll('option')].map((o) => o.value) })));

test('every profile is listed once, in groups of one class and one vendor', { skip }, async () => {
  const page = await openPage(browser, `${site.url}#example=conv_net&hw=h100-sxm`);
  await ready(page);
  const index = await page.evaluate(async () => (await (await fetch('hw/index.json')).json()).profiles);
  assert.ok(index.length >= 45, `${index.length} profiles`);
  const listed = await menu(page);
  assert.deepEqual([...listed].sort(), index.map((p) => p.id).sort());
  const byId = new Map(index.map((p) => [p.id, p]));
  for (const g of (await groups(page)).filter((x) => x.label !== 'Custom')) {
    const vendors = new Set(g.ids.map((id) => byId.get(id).vendor));
    const cats = new Set(g.ids.map((id) => byId.get(id).category));
    assert.equal(vendors.size, 1, `${g.label}: one vendor`);
    assert.equal(cats.size, 1, `${g.label}: one class`);
    assert.ok(g.label.endsWith(`· ${[...vendors][0]}`), `${g.label} names its vendor`);
  }
  assert.match(await page.textContent('[data-testid=hw-filter-count]'), new RegExp(`^${index.length} profiles$`));
  await page.context().close();
});

test('typing narrows the list; Enter picks the first match and analyses on it', { skip }, async () => {
  const page = await openPage(browser, `${site.url}#example=conv_net&hw=h100-sxm`);
  await ready(page);
  await page.fill('[data-testid=hw-filter]', 'mi35');
  // the profile in use stays in the menu, so typing never changes the analysis
  assert.deepEqual((await menu(page)).sort(), ['amd-mi350x', 'amd-mi355x', 'h100-sxm']);
  assert.equal(await page.inputValue('[data-testid=hw-select]'), 'h100-sxm');
  assert.match(await page.textContent('[data-testid=hw-filter-count]'), /^2 of \d+ match$/);
  await page.fill('[data-testid=hw-filter]', 'nvidia edge');   // every word must match: vendor and class
  const edge = await menu(page);
  assert.ok(edge.includes('jetson-agx-thor') && edge.includes('jetson-agx-orin-datasheet'), edge.join());
  assert.ok(!edge.includes('amd-mi355x') && !edge.includes('b200'), edge.join());
  await page.fill('[data-testid=hw-filter]', 'mi35');
  await page.press('[data-testid=hw-filter]', 'Enter');
  await page.waitForFunction(() => /hw=amd-mi350x/.test(location.hash));
  assert.equal(await page.inputValue('[data-testid=hw-select]'), 'amd-mi350x');
  await page.waitForSelector('[data-testid=summary][data-hw=amd-mi350x]', { timeout: 60000 });   // analysed on it
  await page.context().close();
});

test('from the keyboard: the arrow key goes to the menu, Escape clears, no match changes nothing', { skip }, async () => {
  const page = await openPage(browser, `${site.url}#example=conv_net&hw=h100-sxm`);
  await ready(page);
  const all = (await menu(page)).length;
  await page.focus('[data-testid=hw-filter]');
  await page.keyboard.type('zzzz-no-device');
  assert.deepEqual(await menu(page), ['h100-sxm']);
  assert.match(await page.textContent('[data-testid=hw-filter-count]'), /^0 of \d+ match$/);
  await page.keyboard.press('Enter');
  assert.equal(await page.inputValue('[data-testid=hw-select]'), 'h100-sxm');
  assert.match(page.url(), /hw=h100-sxm/);
  await page.keyboard.press('Escape');
  assert.equal(await page.inputValue('[data-testid=hw-filter]'), '');
  assert.equal((await menu(page)).length, all);
  await page.keyboard.type('thor');
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'hw-select');
  // Tab from the menu comes back to the filter: the two are neighbours
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'hw-filter');
  await page.context().close();
});
