// A decoder's answer first (issue 38 §1), in headless Debian Chromium: the
// headline states the LLM view's time to first token, time per output
// token, tokens/s and whether it fits (not a time "per inference"); the
// Llama example opens on the same phase as the same file dropped; tensor
// parallelism changes the LLM panel (devices, time per token and the
// energy per token of every device: the core's plan); a decoder exported without its KV cache says why it has no LLM
// view and what export would give one.
// Run: tools/build-site.sh && node --test tests/web/llm-answer.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ROOT, SITE, NODE_WASM, browserPrerequisites, pageAndCoreSession, openAt, coreModel, coreAnswer,
  llmPanelDone as panelDone, dataValue as value } from './helpers.mjs';

const SAMPLE = join(SITE, 'samples', 'llama3_8b_int4.onnx');
const NO_KV = join(ROOT, 'build', 'llm-models', 'tiny_nokv.onnx');
const prerequisites = await browserPrerequisites([[NODE_WASM, 'build-wasm (tools/build-site.sh)'],
  [SAMPLE, 'the llama3_8b_int4 example (tools/build-site.sh)'],
  [NO_KV, 'the LLM test decoders (ctest -R llm_models)']]);
const { skip } = prerequisites;
const session = pageAndCoreSession(prerequisites);
let model = null;

/** The core's LLM answer to the panel's request (the page's defaults), with `extra` merged in. */
function coreLlm(hwId, llm, extra = {}) {
  model ??= coreModel(session.core, SAMPLE);
  return coreAnswer(session.core, model, hwId, { llm, ...extra }).llm;
}

const openPage = (hash) => openAt(session, hash);
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
  // the energy per token is the four devices' (the core's), and says so
  assert.equal(await value(page, 'llm-energy'), four.energy_per_token_j);
  assert.notEqual(four.energy_per_token_j, one.energy_per_token_j);
  assert.match(await page.getAttribute('[data-testid=llm-energy]', 'title'), /of all 4 devices/);
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
