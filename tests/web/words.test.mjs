// The answer in plain words on the page (issue 27, item 2): one headline
// sentence with the answer, its unit and its reason; a glossary of the
// concepts from the core's list; one name per concept; no engine
// identifier (per_op, fused_prefetched, overhead, [bad_node]…) in any text
// the page shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FIXTURES, browserPrerequisites, openPage, browserSession } from './helpers.mjs';

const { chromium, exe, skip } = await browserPrerequisites();
let site, browser;
browserSession({ chromium, exe, skip }, (s, b) => { site = s; browser = b; });

const ENGINE_IDS = /\b(per_op|whole_graph|fused_prefetched|overhead_dominated|overhead|power_capped|launch_floor_s)\b|\[[a-z]+_[a-z_]+\]/;
const ready = (page) => page.waitForSelector('[data-testid=summary][data-layers]', { timeout: 30000 });

/** Every text the page shows, with its folded parts (warnings, glossary, chart data) opened. */
async function shownText(page) {
  return page.evaluate(() => {
    for (const d of document.querySelectorAll('details')) d.open = true;
    return document.body.innerText;
  });
}

test('the headline is one sentence: the time, its unit, the device and what limits it, as the summary gives them', { skip }, async () => {
  const page = await openPage(browser, `${site.url}#example=resnet50&hw=h100-sxm`);
  await ready(page);
  const h = await page.$eval('[data-testid=headline]', (e) => e.textContent);
  const shown = await page.$eval('[data-testid=predicted-time]', (e) => e.textContent);
  // The core gives a forecast: the headline states it first with its likely range (the H100's stack has a
  // track record), on the profile's stack, and the floor beside it.
  const band = await page.$eval('[data-testid=forecast-band]', (e) => e.firstChild.textContent.split(' … '));
  assert.ok(h.includes(`(likely ${band[0]} to ${band[1]})`), `${h} / ${band}`);
  assert.match(h, /^About [\d.]+ [µnm]?s per inference \(likely [\d.]+ [µnm]?s to [\d.]+ [µnm]?s\) on NVIDIA H100 SXM[^,]* with TensorRT with CUDA graphs, limited by (compute|memory bandwidth|the launch floor|the power floor)/);
  // (then, where prefetching would lower it, what the fused and prefetched model could reach)
  assert.ok(h.includes(`; its fused speed of light is ${shown}.`) || h.includes(`; its fused speed of light is ${shown}; even fused and prefetched, it could not go below `),
    `${h} vs the summary's ${shown}`);
  // The reason is the summary's own bound, named as in the glossary.
  const limited = await page.$eval('[data-testid=summary] dl', (dl) => [...dl.querySelectorAll('div')].find((d) => d.querySelector('dt').textContent === 'Limited by').querySelector('dd').textContent);
  assert.ok(h.includes(`limited by ${/floor$/.test(limited) ? 'the ' : ''}${limited}`), `${h} / ${limited}`);
  // The glossary explains the concepts, the forecast's likely range and track record among them.
  const terms = await page.$$eval('[data-testid=glossary] dt', (d) => d.map((x) => x.textContent));
  assert.deepEqual(terms, ['speed of light', 'fused', 'prefetched', 'granularity', 'launch floor', 'power floor', 'forecast', 'headroom', 'likely range',
      'track record', 'no track record for this stack', 'range of the speed of light', 'intended', 'kernel by kernel', 'whole graph']);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('no engine identifier in what the page shows, the menus and the layer table included', { skip }, async () => {
  const page = await openPage(browser, `${site.url}#example=bert_base&hw=jetson-agx-orin&sol=fused_prefetched&gran=per_op`);
  await ready(page);
  const text = await shownText(page);
  const m = text.match(ENGINE_IDS);
  assert.equal(m, null, m ? text.slice(Math.max(0, m.index - 80), m.index + 40) : '');
  const options = await page.$$eval('#sol-select option, #gran-select option', (o) => o.map((x) => x.textContent));
  assert.deepEqual(options, ['unfused', 'fused', 'fused and prefetched', 'intended', 'kernel by kernel', 'whole graph']);
  for (const view of ['compare', 'devices', 'sweep', 'power']) {
    await page.click(`[data-testid=tab-${view}]`);
    await page.waitForFunction((v) => ['done', 'error', 'empty'].includes(document.getElementById(`${v}-panel`).dataset.state), view, { timeout: 60000 });
    const t = await page.$eval(`#${view}-panel`, (p) => p.innerText);
    assert.doesNotMatch(t, ENGINE_IDS, `${view}: ${(t.match(ENGINE_IDS) || [])[0]}`);
  }
  await page.context().close();
});

test('a failed load names the problem in words, its code only in data-code', { skip }, async () => {
  const page = await openPage(browser, site.url);
  await page.setInputFiles('[data-testid=file-input]', join(FIXTURES, 'bad/not_onnx.onnx'));
  await page.waitForSelector('[data-testid=error]:not([hidden])', { timeout: 30000 });
  const e = await page.$eval('[data-testid=error]', (x) => ({ text: x.textContent, code: x.dataset.code }));
  assert.ok(e.code, 'the error keeps its code for tools');
  assert.ok(!e.text.includes(`[${e.code}]`), e.text);
  assert.match(e.text, /not_onnx\.onnx/);
  await page.context().close();
});
