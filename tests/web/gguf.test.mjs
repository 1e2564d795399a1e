// GGUF files on the page and in the WebAssembly core (docs/gguf.md), in
// headless Debian Chromium: the WASM core reads tests/make_gguf.py's files
// with the native core's figures (weight bytes, parameters, KV bytes per
// token: expected.json); a dropped .gguf opens with its LLM panel, whose time
// per output token is the core's; a sparse 5 GB GGUF opens having read its
// header and none of its data (File.slice); a dropped config.json opens as the model sized
// from it and says that no weights were read. When the npm package @huggingface/gguf is
// installed, its parser reads the same files and agrees on every tensor's
// type and shape and on the architecture (a maintained parser as a
// cross-check of the test files' writer); without it that test skips.
// Run: ctest -R gguf_models && tools/build-site.sh && node --test tests/web/gguf.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, NODE_WASM, browserPrerequisites, pageAndCoreSession, openAt, coreModel, coreAnswer,
  llmPanelDone as panelDone, dataValue } from './helpers.mjs';

const MODELS = join(ROOT, 'build', 'gguf-models');
const EXPECTED = join(MODELS, 'expected.json');
const prerequisites = await browserPrerequisites([[NODE_WASM, 'build-wasm (tools/build-site.sh)'],
  [EXPECTED, 'the GGUF test files (ctest -R gguf_models)']]);
const { skip } = prerequisites;
const session = pageAndCoreSession(prerequisites);

const analyze = (model, llm) => coreAnswer(session.core, model, 'h100-sxm', { llm });
const openPage = (hash) => openAt(session, hash);

test('the WebAssembly core reads every test GGUF with the figures worked out by hand', { skip }, () => {
  const expected = JSON.parse(readFileSync(EXPECTED, 'utf8'));
  for (const [name, e] of Object.entries(expected)) {
    const res = analyze(coreModel(session.core, join(MODELS, `${name}.gguf`)), { prompt: 64, generate: 8, batches: [1], contexts: [128] });
    assert.equal(res.model.weight_bytes, e.weight_bytes, `${name}: weight bytes`);
    assert.equal(res.model.params, e.parameters, `${name}: parameters`);
    assert.equal(res.llm.kv_cache_bytes_per_token, e.kv_bytes_per_token, `${name}: KV bytes per token`);
  }
});

test('a dropped .gguf opens with its LLM panel, the core\'s answer', { skip }, async () => {
  const file = join(MODELS, 'qwen3moe.gguf');
  const page = await openPage('hw=h100-sxm');
  await page.setInputFiles('[data-testid=file-input]', file);
  await page.waitForSelector('[data-testid=summary][data-layers]', { timeout: 60000 });
  await panelDone(page);
  const want = analyze(coreModel(session.core, file), { prompt: 512, generate: 128 }).llm;
  assert.equal(await dataValue(page, 'llm-tpot'), want.tpot_s);
  assert.match(await page.textContent('[data-testid=headline]'), /^Time to first token about /);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('a dropped config.json opens as the model sized from it, and says no weights were read', { skip }, async () => {
  const file = join(MODELS, 'qwen3.config.json');
  const page = await openPage('hw=h100-sxm');
  await page.setInputFiles('[data-testid=file-input]', file);
  await page.waitForSelector('[data-testid=summary][data-layers]', { timeout: 60000 });
  await panelDone(page);
  const want = analyze(coreModel(session.core, file), { prompt: 512, generate: 128 });
  assert.match(want.model.name, /from config\.json \(no weights read: sized at bfloat16\)/);
  assert.equal(await dataValue(page, 'llm-tpot'), want.llm.tpot_s);
  assert.match(await page.textContent('body'), /no weights read: sized at bfloat16/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('a sparse 5 GB GGUF opens from its header: the page reads the header, not the data', { skip }, async () => {
  const dir = join(ROOT, 'build', 'gguf-big');
  mkdirSync(dir, { recursive: true });
  // ROOFLENS_GGUF_BIG: another file to open (tools/bench/gguf.sh's 40 GB one, for its figures)
  const big = process.env.ROOFLENS_GGUF_BIG || join(dir, 'sparse-5g.gguf');
  if (!existsSync(big)) execFileSync('/usr/bin/python3', [join(ROOT, 'tests', 'make_gguf.py'), '--big', big, '--gib', '4']);
  const page = await openPage('hw=h100-sxm');
  const t0 = Date.now();
  await page.setInputFiles('[data-testid=file-input]', big);
  await page.waitForSelector('[data-testid=summary][data-layers]', { timeout: 60000 });
  const ms = Date.now() - t0;
  const read = Number(await page.getAttribute('[data-testid=summary]', 'data-bytes-read'));
  const skipped = Number(await page.getAttribute('[data-testid=summary]', 'data-bytes-skipped'));
  // the header read alone (File.slice reads, the core's reader and the decoder's graph), in the worker
  const readMs = Number(await page.getAttribute('[data-testid=summary]', 'data-read-ms'));
  assert.ok(readMs > 0, `read time ${readMs} ms`);
  // the header holds the tokenizer's 128,256 strings (about 2 MB); the worker
  // reads through short skips in blocks, so a few MB, never the 4 GiB of data
  assert.ok(read < 16 * 2 ** 20, `read ${read} bytes`);
  assert.ok(skipped > statSync(big).size - 16 * 2 ** 20, `skipped ${skipped} bytes`);
  console.log(`${big}: ${read} bytes read, ${skipped} skipped, header read in ${readMs} ms, first answer after ${ms} ms`);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('the KV type control: llama.cpp\'s cache types from the keyboard, the core\'s bytes, in the link', { skip }, async () => {
  const file = join(MODELS, 'llama.gguf');
  const page = await openPage('hw=h100-sxm');
  await page.setInputFiles('[data-testid=file-input]', file);
  await page.waitForSelector('[data-testid=summary][data-layers]', { timeout: 60000 });
  await panelDone(page);
  const model = coreModel(session.core, file);
  // a change sets the panel busy at once; it is done when the new answer is drawn
  // bits first: the type then replaces them (the core takes one size of the cache)
  await page.selectOption('[data-testid=llm-kv-bits]', '8');
  await panelDone(page);
  await page.focus('[data-testid=llm-kv-type]');
  await page.keyboard.press('ArrowDown'); // f16
  await page.keyboard.press('ArrowDown'); // q8_0
  await panelDone(page);
  assert.equal(await page.inputValue('[data-testid=llm-kv-type]'), 'q8_0');
  assert.equal(await page.inputValue('[data-testid=llm-kv-bits]'), '');
  const want = analyze(model, { prompt: 512, generate: 128, kv_type: 'q8_0' }).llm;
  assert.equal(await dataValue(page, 'llm-kv'), want.kv_cache_bytes);
  // 34 bytes a block of 32 against f16's 64
  const f16 = analyze(model, { prompt: 512, generate: 128, kv_type: 'f16' }).llm;
  assert.equal(want.kv_cache_bytes, f16.kv_cache_bytes * 34 / 64);
  assert.match(page.url(), /lt=q8_0/);
  // the options say what each type is in the core's words (rl_words, kind kv_type)
  assert.match(await page.getAttribute('[data-testid=llm-kv-type] option[value=q8_0]', 'title'), /34 bytes/);
  assert.doesNotMatch(page.url(), /lk=/);
  assert.match(await page.getAttribute('[data-testid=llm-kv]', 'title'), /llama\.cpp's q8_0/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

let ggufParser = null;
try {
  ggufParser = await import('@huggingface/gguf');
} catch {
  ggufParser = null;
}

test('@huggingface/gguf reads the test files as rooflens does', {
  skip: !existsSync(EXPECTED) ? 'the GGUF test files (ctest -R gguf_models)'
    : !ggufParser ? 'npm package @huggingface/gguf not installed (npm install --save-dev @huggingface/gguf to run this cross-check)' : false,
}, async () => {
  const expected = JSON.parse(readFileSync(EXPECTED, 'utf8'));
  for (const [name, e] of Object.entries(expected)) {
    const { metadata, tensorInfos } = await ggufParser.gguf(join(MODELS, `${name}.gguf`), { allowLocalFile: true });
    assert.equal(metadata['general.architecture'], e.arch, name);
    assert.equal(tensorInfos.length, e.tensors, `${name}: tensors`);
    let elements = 0n;
    for (const t of tensorInfos) elements += t.shape.reduce((a, b) => a * BigInt(b), 1n);
    assert.equal(Number(elements), e.parameters, `${name}: elements`);
  }
});
