// Decoders in one step (issue 27, item 1): a decoder with a KV cache is
// analysed at once at the prefill of the LLM panel's prompt (batch 1,
// sequence = prompt, past 0, total = prompt), says so, and follows the
// prompt; total = past + sequence is filled in before the core sees it;
// Tab moves between the size fields; the LLM charts show only with data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SITE, CLI, cliJson, browserPrerequisites, openPage, browserSession, waitLayers } from './helpers.mjs';

const SAMPLE = join(SITE, 'samples', 'llama3_8b_int4.onnx');
const { chromium, exe, skip } = await browserPrerequisites([[CLI, 'build/rooflens (cmake --build build)'],
  [SAMPLE, 'the llama3_8b_int4 example (tools/build-site.sh)']]);
let site, browser;
browserSession({ chromium, exe, skip }, (s, b) => { site = s; browser = b; });

const DIMS = { seq: 'sequence_length', past: 'past_sequence_length', total: 'total_sequence_length' };
const cliAt = (seq, past, total) => cliJson(SAMPLE, ['--hw', 'h100-sxm', '--batch', '1', '--dim', `${DIMS.seq}=${seq}`,
  '--dim', `${DIMS.past}=${past}`, '--dim', `${DIMS.total}=${total}`]);
const timeOf = (page) => page.getAttribute('[data-testid=summary]', 'data-time-s').then(Number);

/** Every LLM chart frame is either hidden or has its chart drawn. */
const noEmptyFrames = (page) => page.$$eval('[data-testid=llm-panel] figure', (fs) =>
  fs.every((f) => f.hidden || !!globalThis.Chart?.getChart(f.querySelector('canvas'))));

test('a decoder with a KV cache is analysed at once at the prefill of the prompt, and follows it', { skip }, async () => {
  // The user's own decoder (the example link carries sizes of its own).
  const page = await openPage(browser, `${site.url}#hw=h100-sxm&lp=256`);
  await page.setInputFiles('[data-testid=file-input]', SAMPLE);
  await page.waitForSelector('[data-testid=llm-panel]:not([hidden])', { timeout: 60000 });
  assert.ok(await noEmptyFrames(page), 'an empty LLM chart frame while loading');
  await page.waitForSelector('[data-testid=summary][data-layers]', { timeout: 60000 });
  assert.equal(await page.isVisible('[data-testid=dims-needed]'), false);
  const want = cliAt(256, 0, 256);
  assert.equal(await timeOf(page), want.sol.chosen.time_s);
  assert.match(await page.textContent('[data-testid=prefill-note]'), /prefill of the LLM panel's 256-token prompt \(sequence_length 256, past_sequence_length 0, total_sequence_length 256/);
  // no size is left unset, so the core warns of none
  assert.doesNotMatch(await page.textContent('[data-testid=summary]'), /is not set/);
  assert.equal(want.warnings.filter((w) => w.code === 'unset_dim').length, 0);
  // the bar shows where each size comes from
  assert.equal(await page.getAttribute(`[data-testid=dim-${DIMS.seq}]`, 'placeholder'), '256 (prefill)');
  // a new prompt: the main analysis follows it
  await page.fill('[data-testid=llm-prompt]', '1024');
  await page.dispatchEvent('[data-testid=llm-prompt]', 'change');
  const at1024 = cliAt(1024, 0, 1024).sol.chosen.time_s;
  await page.waitForFunction((t) => Number(document.querySelector('[data-testid=summary]').dataset.timeS) === t, at1024, { timeout: 60000 });
  await page.waitForFunction(() => document.querySelector('[data-testid=llm-panel]').dataset.state === 'done', null, { timeout: 60000 });
  assert.ok(await noEmptyFrames(page), 'an empty LLM chart frame once drawn');
  assert.equal(await page.$$eval('[data-testid=llm-panel] figure:not([hidden])', (f) => f.length), 2);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('sizes typed by hand: total is past + sequence, filled in; Tab goes to the next field', { skip }, async () => {
  const page = await openPage(browser, `${site.url}#hw=h100-sxm`);
  await page.setInputFiles('[data-testid=file-input]', SAMPLE);
  await page.waitForSelector('[data-testid=summary][data-layers]', { timeout: 60000 });
  const seq = page.locator(`[data-testid=dim-${DIMS.seq}]`);
  await seq.fill('100');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.dim), DIMS.past, 'Tab left the size fields');
  await page.keyboard.type('413');
  await page.keyboard.press('Tab');
  // the total is read-only and shows the sum; the core got sizes that add up
  assert.equal(await page.getAttribute(`[data-testid=dim-${DIMS.total}]`, 'readonly'), '');
  const t = cliAt(100, 413, 513).sol.chosen.time_s;
  await page.waitForFunction((want) => Number(document.querySelector('[data-testid=summary]').dataset.timeS) === want, t, { timeout: 60000 });
  assert.equal(await page.getAttribute(`[data-testid=dim-${DIMS.total}]`, 'placeholder'), '513 (past + sequence)');
  assert.equal(await page.isVisible('[data-testid=error]'), false);
  await page.context().close();
});

test('the sizes form of a model with two open sizes is filled from the keyboard', { skip }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rooflens-dims-'));
  const file = join(dir, 'two_dims.onnx');
  execFileSync('/usr/bin/python3', ['-c', `
import onnx, sys
from onnx import helper, TensorProto as T
x = helper.make_tensor_value_info('x', T.FLOAT, [1, 'height', 'width'])
y = helper.make_tensor_value_info('y', T.FLOAT, [1, 'height', 'width'])
g = helper.make_graph([helper.make_node('Relu', ['x'], ['y'], name='relu')], 'g', [x], [y])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)]), sys.argv[1])
`, file]);
  const page = await openPage(browser, site.url);
  await page.setInputFiles('[data-testid=file-input]', file);
  await page.locator('[data-testid=dims-needed]').waitFor({ state: 'visible', timeout: 20000 });
  await page.focus('[data-testid=need-dim-height]');
  await page.keyboard.type('32');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'need-dim-width');
  await page.keyboard.type('64');
  await page.keyboard.press('Enter');
  await waitLayers(page, 1);
  assert.match(await page.textContent('[data-testid=summary] .subtitle'), /height=32 \(set\), width=64 \(set\)/);
  await page.context().close();
});
