// What the page fetches before it is interactive: its modules as one
// bundled script (tools/build-site.sh), the two lists main() reads, and not
// Chart.js, which loads once the controls work (web/js/chart-lib.js) and is
// there by the time the first model's charts are drawn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserPrerequisites, browserSession, openPage } from './helpers.mjs';

const pre = await browserPrerequisites();
let site, browser;
browserSession(pre, (s, b) => { site = s; browser = b; });

test('before it is interactive the page loads one script and no chart library; the charts draw once a model is open', { skip: pre.skip }, async () => {
  const page = await openPage(browser, site.url, { wait: 'interactive' });
  try {
    const early = await page.evaluate(() => {
      const t = performance.getEntriesByName('rooflens-interactive')[0].startTime;
      return performance.getEntriesByType('resource').filter((e) => e.startTime < t)
        .map((e) => new URL(e.name).pathname.replace(/^\//, ''));
    });
    // The page's one script (the worker's, which main() starts, may be on its way too).
    assert.deepEqual(early.filter((p) => p.endsWith('.js') && p !== 'js/worker.js'), ['js/main.js'], `fetched before interactive: ${early.join(', ')}`);
    assert.ok(early.includes('hw/index.json') && early.includes('samples/index.json'), early.join(', '));
    // Then Chart.js arrives on its own, as js/chart-bundle.js.
    await page.waitForFunction(() => typeof globalThis.Chart === 'function', null, { timeout: 20000 });
    const chunk = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.includes('/js/chart-bundle')));
    assert.equal(chunk.length, 1, chunk.join(', '));
    await page.waitForSelector('body[data-ready="1"]');
    await page.selectOption('[data-testid=example-select]', 'conv_net');
    await page.click('[data-testid=example-open]');   // a choice opens once confirmed
    await page.waitForFunction(() => document.body.dataset.hasModel === '1', null, { timeout: 20000 });
    const drawn = await page.evaluate(() => [...document.querySelectorAll('[data-testid^=chart-] canvas')]
      .filter((c) => globalThis.Chart.getChart(c)).length);
    assert.ok(drawn >= 3, `${drawn} charts drawn`);
    assert.deepEqual(page.problems, []);
  } finally {
    await page.context().close();
  }
});
