// Browser tests of the LLM panel (web/js/llm.js) in headless Debian Chromium:
// it appears for a decoder with a KV cache and not for other models, its
// figures are the WebAssembly core's answer to the same request (Node build),
// prompt and generated tokens travel in the share link, and the prefill and
// decode points sit on the time roofline.
// Run: tools/build-site.sh && node --test tests/web/llm.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SITE, NODE_WASM, browserPrerequisites, pageAndCoreSession, openAt, coreModel, coreAnswer,
  llmPanelDone as panelDone, dataValue as value } from './helpers.mjs';

const SAMPLE = join(SITE, 'samples', 'llama3_8b_int4.onnx');
const prerequisites = await browserPrerequisites([[NODE_WASM, 'build-wasm (tools/build-site.sh)'],
  [SAMPLE, 'the llama3_8b_int4 example (tools/build-site.sh)']]);
const { skip } = prerequisites;
const session = pageAndCoreSession(prerequisites);
let model = null;

/** The core's answer to the request the panel sends (the page's defaults). */
function coreLlm(hwId, llm) {
  model ??= coreModel(session.core, SAMPLE);
  return coreAnswer(session.core, model, hwId, { llm }).llm;
}

const openPage = (hash) => openAt(session, hash);

test('LLM panel: the core\'s TTFT, TPOT, tokens/s and fit; link; roofline points', { skip }, async () => {
  const page = await openPage('example=llama3_8b_int4&hw=h100-sxm&lp=256&lg=64');
  await panelDone(page);
  assert.equal(await page.isVisible('[data-testid=llm-panel]'), true);
  let want = coreLlm('h100-sxm', { prompt: 256, generate: 64 });
  assert.equal(await value(page, 'llm-ttft'), want.ttft_s);
  assert.equal(await value(page, 'llm-tpot'), want.tpot_s);
  assert.equal(await value(page, 'llm-tokens-per-s'), want.tokens_per_s);
  // the answer is the forecast; the floor beside it, named, never above it
  assert.equal(await value(page, 'llm-tpot'), want.forecast.tpot_s);
  assert.equal(await value(page, 'llm-e2e'), want.forecast.e2e_s);
  assert.equal(await value(page, 'llm-floor-ttft'), want.floor.ttft_s);
  assert.equal(await value(page, 'llm-floor-tpot'), want.floor.tpot_s);
  assert.equal(await value(page, 'llm-floor-tokens-per-s'), want.floor.tokens_per_s);
  assert.ok(want.floor.tpot_s <= want.tpot_s && want.floor.ttft_s <= want.ttft_s);
  assert.match(await page.getAttribute('[data-testid=llm-tpot]', 'title'), /analytic estimate: TensorRT/);
  assert.match(await page.locator('[data-testid=llm-floor-tpot]').evaluate((e) => e.previousSibling.textContent), /^Floor: /);
  assert.equal(await value(page, 'llm-fits'), want.fits);
  assert.equal(want.fits, true);
  assert.equal(await value(page, 'llm-devices'), want.devices_needed); // fits one H100: 1
  assert.equal(want.devices_needed, 1);
  assert.match(await page.locator('[data-testid=llm-tpot]').textContent(), /ms$/);
  assert.equal(await page.inputValue('[data-testid=llm-prompt]'), '256');
  assert.equal(await page.inputValue('[data-testid=llm-generate]'), '64');
  // the batch sweep table: one row per batch, the memory limit marked
  assert.equal(await page.locator('[data-testid=llm-batch-table] tbody tr').count(), want.batch_sweep.rows.length);
  assert.match(await page.locator('[data-testid=llm-notes]').textContent(), /captured graph/);
  // prefill and decode on the time roofline, at the core's points
  const pts = await page.evaluate(() => {
    const c = globalThis.Chart.getChart(document.querySelector('[data-testid=chart-time-roofline] canvas'));
    return c.data.datasets.filter((d) => d.rl === 'extra').map((d) => d.data[0]);
  });
  assert.deepEqual(pts.map((p) => [p.x, p.y]), want.points.map((p) => [p.intensity, p.flops_per_s]));
  // both sweep charts drawn
  for (const id of ['Time per output token and tokens per second at the speed of light against batch size',
    'Time per output token and tokens per second at the speed of light against context length']) {
    assert.ok(await page.evaluate((label) => !!globalThis.Chart.getChart(document.querySelector(`canvas[aria-label="${label}"]`)), id), id);
  }
  // the context chart ends where the model does: at its positions, when they, not the memory, limit the context
  assert.equal(want.max_context_limit, 'positions', 'the 8B example encodes fewer positions than an H100 holds');
  const ctxLimit = await page.evaluate((label) => globalThis.Chart.getChart(document.querySelector(`canvas[aria-label="${label}"]`))
    .options.plugins.rlLimit, 'Time per output token and tokens per second at the speed of light against context length');
  assert.equal(ctxLimit.x, want.max_positions);
  assert.match(ctxLimit.label, /positions \(memory: /);
  // the sweeps are the core's at the speed of light, beside the panel's forecast: their table says so
  const sweepHeads = await page.$$eval('[data-testid=llm-panel] table thead th', (ths) => ths.map((th) => th.textContent));
  assert.ok(sweepHeads.includes('TPOT (floor)') && sweepHeads.includes('tokens/s (floor)'), sweepHeads.join(' | '));

  // a new prompt length and KV bits: recomputed, and in the share link
  const ms = await page.getAttribute('[data-testid=llm-panel]', 'data-ms');
  await page.fill('[data-testid=llm-prompt]', '2048');
  await page.dispatchEvent('[data-testid=llm-prompt]', 'change');
  await panelDone(page, ms);
  const ms2 = await page.getAttribute('[data-testid=llm-panel]', 'data-ms');
  await page.selectOption('[data-testid=llm-kv-bits]', '8');
  await panelDone(page, ms2);
  want = coreLlm('h100-sxm', { prompt: 2048, generate: 64, kv_bits: 8 });
  assert.equal(await value(page, 'llm-ttft'), want.ttft_s);
  assert.equal(await value(page, 'llm-tpot'), want.tpot_s);
  assert.equal(await value(page, 'llm-kv'), want.kv_cache_bytes);
  assert.match(page.url(), /lp=2048/);
  assert.match(page.url(), /lg=64/);
  assert.match(page.url(), /lk=8/);
  console.log(`LLM panel (8B int4, H100): ${await page.getAttribute('[data-testid=llm-panel]', 'data-ms')} ms from request to drawn`);

  // the link restores the panel as it was
  const restored = await openPage(page.url().split('#')[1]);
  await panelDone(restored);
  assert.equal(await value(restored, 'llm-tpot'), want.tpot_s);
  assert.equal(await restored.inputValue('[data-testid=llm-kv-bits]'), '8');
  assert.deepEqual([...page.problems, ...restored.problems], []);
  await restored.context().close();
  await page.context().close();
});

test('LLM panel: hidden for a model without a KV cache; a bad link value is named', { skip }, async () => {
  const page = await openPage('example=conv_net&hw=h100-sxm&lp=0');
  await page.waitForSelector('[data-testid=summary] dl');
  assert.equal(await page.isVisible('[data-testid=llm-panel]'), false);
  assert.match(await page.locator('[data-testid=notice]').textContent(), /lp: must be a whole number/);
  const pts = await page.evaluate(() => {
    const c = globalThis.Chart.getChart(document.querySelector('[data-testid=chart-time-roofline] canvas'));
    return c.data.datasets.filter((d) => d.rl === 'extra').length;
  });
  assert.equal(pts, 0);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
