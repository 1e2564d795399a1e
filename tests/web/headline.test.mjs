// The headline sentence (figures.js headlineSentence): the answer, its unit
// and its reason in plain words, with the core's own names for its concepts
// (rl_words through words.js). A real analysis of a fixture from the Node
// build of the core, then the same answer with a stubbed forecast (the
// forecast object of docs/api.md).
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, NODE_WASM, FIXTURES, loadNodeCore } from './helpers.mjs';

const skip = existsSync(NODE_WASM) ? false : `not built: ${NODE_WASM} (run tools/build-site.sh)`;
const ENGINE_IDS = /\b(per_op|whole_graph|fused_prefetched|overhead_dominated|overhead)\b|\[[a-z_]+\]/;

async function answer(extra = {}) {
  const core = await loadNodeCore();
  const { setWords } = await import(join(ROOT, 'web/js/words.js'));
  setWords(JSON.parse(core.words()));
  const r = core.readAll(new Uint8Array(readFileSync(join(FIXTURES, 'models/mlp.onnx'))));
  const hardware = JSON.parse(readFileSync(join(ROOT, 'hw/h100-sxm.json'), 'utf8'));
  const res = JSON.parse(core.analyze(r.model, JSON.stringify({ hardware, ...extra })));
  core.freeModel(r.model);
  assert.equal(res.ok, true);
  return res;
}

test('without a forecast, the headline states the speed of light, its unit, the device and what limits it', { skip }, async () => {
  const { headlineSentence } = await import(join(ROOT, 'web/js/figures.js'));
  const { eng } = await import(join(ROOT, 'web/js/format.js'));
  const res = await answer();
  delete res.forecast; // the floor alone: what a face shows when the core gives no forecast
  const text = headlineSentence(res);
  const c = res.sol.chosen;
  assert.match(text, new RegExp(`^At best ${eng(c.time_s, 's')} per inference on ${res.hardware.name}: the fused speed of light, limited by `));
  const limit = { compute: 'compute', memory: 'memory bandwidth', overhead: 'the launch floor', power: 'the power floor' }[c.bound];
  assert.ok(text.includes(`limited by ${limit}`), text);
  if (res.sol.fused_prefetched.time_s < c.time_s)
    assert.ok(text.includes(`even fused and prefetched, it could not go below ${eng(res.sol.fused_prefetched.time_s, 's')}`), text);
  assert.doesNotMatch(text, ENGINE_IDS);
  assert.ok(text.endsWith('.'));
});

test('with a forecast, the headline states the forecast first and the speed of light beside it', { skip }, async () => {
  const { headlineSentence } = await import(join(ROOT, 'web/js/figures.js'));
  const { eng } = await import(join(ROOT, 'web/js/format.js'));
  const res = await answer({ sol: 'unfused' });
  const floor = res.sol.chosen.time_s;
  res.forecast = { time_s: floor * 2.5, energy_j: 1e-3, floor_s: floor, headroom: 2.5, basis: 'analytic', stack: 'TensorRT', by_class: [] };
  const text = headlineSentence(res);
  // a forecast without a band says so in the core's words, never a range of its own
  assert.match(text, new RegExp(`^About ${eng(floor * 2.5, 's')} per inference on ${res.hardware.name} with TensorRT, limited by .*\\. The forecast has no track record for this stack: no likely range\\.$`));
  assert.ok(text.includes(`; its unfused speed of light is ${eng(floor, 's')}`), text);
  assert.doesNotMatch(text, ENGINE_IDS);
  // with a band: the core's low_s and high_s, as they are
  Object.assign(res.forecast, { low_s: floor * 2, high_s: floor * 3.5, track_record: 'checked against 9 published runs' });
  assert.match(headlineSentence(res), new RegExp(`^About ${eng(floor * 2.5, 's')} per inference \\(likely ${eng(floor * 2, 's')} to ${eng(floor * 3.5, 's')}\\) on `));
  // A forecast without a time (a partial answer) falls back to the floor.
  res.forecast = { basis: 'analytic' };
  assert.match(headlineSentence(res), /^At best /);
});

test('a bound set by the launch floor reads as the glossary names it', { skip }, async () => {
  const { boundPhrase } = await import(join(ROOT, 'web/js/figures.js'));
  const { glossary } = await import(join(ROOT, 'web/js/words.js'));
  await answer();
  assert.equal(boundPhrase('overhead'), 'the launch floor');
  assert.equal(boundPhrase('power'), 'the power floor');
  assert.deepEqual(glossary().map((w) => w.name),
    ['speed of light', 'fused', 'prefetched', 'granularity', 'launch floor', 'power floor', 'forecast', 'headroom', 'likely range',
      'track record', 'no track record for this stack', 'range of the speed of light', 'intended', 'kernel by kernel', 'whole graph']);
});

test('at a batch above one, the headline says the time is the batch\'s and gives one sample\'s share (the core\'s per_sample)', { skip }, async () => {
  const { headlineSentence } = await import(join(ROOT, 'web/js/figures.js'));
  const { eng } = await import(join(ROOT, 'web/js/format.js'));
  const res = await answer({ batch: 8 });
  assert.equal(res.options.batch, 8);
  const ps = res.per_sample;
  assert.equal(ps.samples, 8);
  assert.ok(Math.abs(ps.forecast_s * 8 - res.forecast.time_s) <= 1e-12 * res.forecast.time_s, JSON.stringify(ps));
  assert.ok(Math.abs(ps.floor_s * 8 - res.sol.chosen.time_s) <= 1e-12 * res.sol.chosen.time_s, JSON.stringify(ps));
  const text = headlineSentence(res);
  assert.ok(text.startsWith(`About ${eng(res.forecast.time_s, 's')} per batch of 8, ${eng(ps.forecast_s, 's')} a sample`), text);
  assert.ok(!text.includes('per inference'), text);
  // at batch 1 there is no per_sample block, and the answer is per inference
  const one = await answer({ batch: 1 });
  assert.equal(one.per_sample, undefined);
  assert.match(headlineSentence(one), /^About .* per inference/);
});
