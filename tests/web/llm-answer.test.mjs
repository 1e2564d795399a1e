// A decoder's answer first (issue 38 §1), in headless Debian Chromium: the
// headline states the LLM view's time to first token, time per output
// token, tokens/s and whether it fits (not a time "per inference"); the
// Llama example opens on the same phase as the same file dropped; tensor
// parallelism changes the LLM panel (devices, time per token: the core's
// plan); a decoder exported without its KV cache says why it has no LLM
// view and what export would give one.
// Run: tools/build-site.sh && node --test tests/web/llm-answer.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, SITE, NODE_WASM, serve, CHROMIUM_ARGS, loadNodeCore, browserPrerequisites } from './helpers.mjs';

const SAMPLE = join(SITE, 'samples', 'llama3_8b_int4.onnx');
const NO_KV = join(ROOT, 'build', 'llm-models', 'tiny_nokv.onnx');
const { chromium, exe, skip } = await browserPrerequisites([[NODE_WASM, 'build-wasm (tools/build-site.sh)'],
  [SAMPLE, 'the llama3_8b_int4 example (tools/build-site.sh)'],
  [NO_KV, 'the LLM test decoders (ctest -R llm_models)']]);

let site, browser, core, model;

before(async () => {
  if (skip) return;
  site = await serve(SITE);
  browser = await chromium.launch({ executablePath: exe, args: CHROMIUM_ARGS });
  core = await loadNodeCore();
  const r = core.readAll(new Uint8Array(readFileSync(SAMPLE)));
  assert.ok(r.model, r.error);
  model = r.model;
});
after(async () => {
  await browser?.close();
  await site?.close();
});

const profile = (id) => JSON.parse(readFileSync(join(ROOT, 'hw', `${id}.json`), 'utf8'));

/** The core's LLM answer to the panel's request (the page's defaults), with `extra` merged in. */
function coreLlm(hwId, llm, extra = {}) {
  const req = { hardware: profile(hwId), precision: 'model', mode: 'inference', sol: 'fused', granularity: 'intended',
    dims: {}, layers: false, llm, ...extra };
  const res = JSON.parse(core.analyze(model, JSON.stringify(req)));
  assert.equal(res.ok, true, JSON.stringify(res.error));
  return res.llm;
}

async function openPage(hash) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push(`console: ${m.text()}`); });
  await page.goto(`${site.url}#${hash}`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  return page;
}

const panelDone = (page) => page.waitForFunction(
  () => document.querySelector('[data-testid=llm-panel]')?.dataset.state === 'done', null, { timeout: 60000 });
const value = async (page, id) => Number(await page.getAttribute(`[data-testid=${id}]`, 'data-value'));
const timeOf = (page) => page.getAttribute('[data-testid=summary]', 'data-time-s').then(Number);

test('a decoder\'s headline is the LLM answer; the example opens on the phase a dropped decoder does', { skip }, async () => {
  const page = await openPage('example=llama3_8b_int4&hw=h100-sxm');
  await panelDone(page);
  const headline = await page.textContent('[data-testid=headline]');
  assert.match(headline, /^Time to first token about [\d.]+ [µm]?s, then [\d.]+ [µm]?s per output token \([\d.]+ k? ?tokens\/s; batch 1, a 512-token prompt\) on NVIDIA H100/);
  assert.match(headline, /it fits: [\d.]+ GB of [\d.]+ GB/);
  assert.match(headline, /Its speed of light: /);
  assert.doesNotMatch(headline, /per inference/);
  const want = coreLlm('h100-sxm', { prompt: 512, generate: 128 });
  assert.equal(await value(page, 'llm-tpot'), want.tpot_s);
  assert.equal(want.fits, true);
  const exampleTime = await timeOf(page);

  // the same file dropped: the same phase (the prefill of the panel's prompt), the same answer
  const dropped = await openPage('hw=h100-sxm');
  await dropped.setInputFiles('[data-testid=file-input]', SAMPLE);
  await dropped.waitForSelector('[data-testid=summary][data-layers]', { timeout: 60000 });
  await panelDone(dropped);
  assert.equal(await timeOf(dropped), exampleTime);
  assert.match(await page.textContent('[data-testid=prefill-note]'), /prefill of the LLM panel's 512-token prompt/);
  assert.equal(await dropped.textContent('[data-testid=headline]'), headline);
  assert.deepEqual([...page.problems, ...dropped.problems], []);
  await dropped.context().close();
  await page.context().close();
});

test('tensor parallelism changes the LLM panel: devices and time per token over the plan', { skip }, async () => {
  const page = await openPage('example=llama3_8b_int4&hw=h100-sxm&tp=4');
  await panelDone(page);
  const one = coreLlm('h100-sxm', { prompt: 512, generate: 128 });
  const four = coreLlm('h100-sxm', { prompt: 512, generate: 128 }, { parallel: { tp: 4 } });
  assert.equal(await value(page, 'llm-devices'), 4);
  assert.match(await page.textContent('[data-testid=llm-devices]'), /^4 \(tp=4, pp=1, dp=1\): fits/);
  assert.equal(await value(page, 'llm-tpot'), four.tpot_s);
  assert.ok(four.tpot_s < one.tpot_s, `tp=4 ${four.tpot_s} below one device's ${one.tpot_s}`);
  assert.match(await page.textContent('[data-testid=headline]'), /on NVIDIA H100[^;]* × 4 \(tp=4, pp=1, dp=1\)/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('a decoder without a KV cache says why there is no LLM view and what export gives one', { skip }, async () => {
  const page = await openPage('hw=h100-sxm');
  await page.setInputFiles('[data-testid=file-input]', NO_KV);
  // (its sequence size is open: the page asks for it; the note shows at once)
  await page.waitForSelector('[data-testid=llm-no-kv]:not([hidden])', { timeout: 30000 });
  const why = await page.textContent('[data-testid=llm-no-kv]');
  assert.match(why, /^No LLM view: the model has no KV cache input/);
  assert.match(why, /text-generation-with-past/);
  assert.equal(await page.isVisible('[data-testid=llm-prompt]'), false);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
