// Hugging Face checkpoints on the page and in the WebAssembly core
// (docs/checkpoints.md), in headless Debian Chromium: the WASM core reads
// tests/make_safetensors.py's checkpoints, given each file's header as the
// worker gives it, with the native core's figures (expected.json); the
// files of a 2-shard checkpoint chosen together open as one model whose LLM
// panel is the core's answer, and the page says what it read ("2 shards,
// ... of BF16 weights, headers only") having read the headers only; a
// hostile checkpoint gives its error and the page keeps working.
// Run: ctest -R safetensors_models && tools/build-site.sh && node --test tests/web/checkpoint.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync, openSync, readSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, NODE_WASM, browserPrerequisites, pageAndCoreSession, openAt, coreAnswer, llmPanelDone,
  dataValue } from './helpers.mjs';

const MODELS = join(ROOT, 'build', 'safetensors-models');
const HOSTILE = join(ROOT, 'build', 'safetensors-hostile');
const EXPECTED = join(MODELS, 'expected.json');
const prerequisites = await browserPrerequisites([[NODE_WASM, 'build-wasm (tools/build-site.sh)'],
  [EXPECTED, 'the checkpoints (ctest -R safetensors_models)']]);
const { skip } = prerequisites;
const session = pageAndCoreSession(prerequisites);

function head(path, n) {
  const fd = openSync(path, 'r');
  const b = Buffer.alloc(n);
  const got = readSync(fd, b, 0, n, 0);
  closeSync(fd);
  return new Uint8Array(b.subarray(0, got));
}

/** A folder's files through the core as the worker gives them. */
function readFolder(dir) {
  const core = session.core;
  const c = core.newCheckpoint();
  let read = 0;
  try {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name), size = statSync(path).size;
      const need = core.checkpointNeed(name, size, head(path, 8));
      if (!need) continue;
      const bytes = head(path, need);
      read += bytes.length;
      core.checkpointAdd(c, name, size, bytes);
    }
    return { ...core.checkpointFinish(c), read };
  } finally { core.freeCheckpoint(c); }
}

const analyze = (model, llm) => coreAnswer(session.core, model, 'h100-sxm', { precision: 'fp16', llm });

test('the WebAssembly core reads every test checkpoint with the figures of its headers', { skip }, () => {
  const expected = JSON.parse(readFileSync(EXPECTED, 'utf8'));
  for (const [name, e] of Object.entries(expected)) {
    const r = readFolder(join(MODELS, name));
    assert.ok(r.model, `${name}: ${r.error}`);
    const res = analyze(r.model, { prompt: 64, generate: 8, batches: [1], contexts: [128] });
    session.core.freeModel(r.model);
    assert.equal(res.model.weight_bytes, e.weight_bytes, `${name}: weight bytes`);
    assert.equal(res.model.params, e.parameters, `${name}: parameters`);
    assert.equal(res.llm.kv_cache_bytes_per_token, e.kv_bytes_per_token, `${name}: KV bytes per token`);
    assert.ok(res.model.producer_version.includes(e.storage), `${name}: ${res.model.producer_version}`);
  }
  const errors = JSON.parse(readFileSync(join(HOSTILE, 'expected.json'), 'utf8'));
  for (const [name, code] of Object.entries(errors)) {
    const r = readFolder(join(HOSTILE, name));
    assert.ok(!r.model, `${name}: read as a model`);
    assert.equal(JSON.parse(r.error).error.code, code, `${name}: ${r.error}`);
  }
});

test('a 2-shard checkpoint chosen together opens from its headers, and the page says what it read', { skip }, async () => {
  const dir = join(MODELS, 'bf16_sharded');
  const files = readdirSync(dir).sort().map((n) => join(dir, n));
  const total = files.reduce((s, f) => s + statSync(f).size, 0);
  const page = await openAt(session, 'hw=h100-sxm');
  await page.setInputFiles('[data-testid=file-input]', files);
  await page.waitForSelector('[data-testid=summary][data-layers]', { timeout: 60000 });
  await llmPanelDone(page);
  const r = readFolder(dir);
  assert.ok(r.model, r.error);
  const want = coreAnswer(session.core, r.model, 'h100-sxm', { llm: { prompt: 512, generate: 128 } });
  session.core.freeModel(r.model);
  assert.match(want.model.name, /2 shards, .* of BF16 weights, headers only/);
  assert.equal(await dataValue(page, 'llm-tpot'), want.llm.tpot_s);
  assert.match(await page.textContent('body'), /2 shards, .* of BF16 weights, headers only/);
  const read = Number(await page.getAttribute('[data-testid=summary]', 'data-bytes-read'));
  assert.equal(read, r.read, 'the page read what the core asked for');
  assert.ok(read < total / 4, `read ${read} of ${total} bytes`);
  assert.deepEqual(page.problems, []);
  // a broken checkpoint next: its error, and the page keeps the model it had
  const bad = join(HOSTILE, 'missing_shard');
  await page.setInputFiles('[data-testid=file-input]', readdirSync(bad).sort().map((n) => join(bad, n)));
  await page.waitForFunction(() => /was not given/.test(document.body.textContent), null, { timeout: 30000 });
  assert.match(await page.textContent('body'), /2 shards, .* of BF16 weights, headers only/);
  await page.context().close();
});

test('a 2-shard checkpoint dropped on the page opens as the files chosen together do', { skip }, async () => {
  const dir = join(MODELS, 'bf16_sharded');
  const files = readdirSync(dir).sort().map((name) => ({ name, bytes: [...readFileSync(join(dir, name))] }));
  const page = await openAt(session, 'hw=h100-sxm');
  const transfer = await page.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const f of list) dt.items.add(new File([new Uint8Array(f.bytes)], f.name));
    return dt;
  }, files);
  await page.dispatchEvent('body', 'dragenter', { dataTransfer: transfer });
  await page.dispatchEvent('body', 'drop', { dataTransfer: transfer });
  await page.waitForSelector('[data-testid=summary][data-layers]', { timeout: 60000 });
  await llmPanelDone(page);
  assert.match(await page.textContent('body'), /qwen2 safetensors checkpoint \(2 shards, .* of BF16 weights, headers only\)/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
