// The malformed-model corpus through the WebAssembly module (Node build):
// every bad model must give the error code the corpus expects, the same error
// JSON as the native CLI, and must leave the module working: after each one
// the SAME module instance analyses a good model exactly as the CLI does, and
// no memory is left allocated.
//
// The expected codes come from the corpus manifest in tests/fixtures/bad/
// when there is one (manifest.json, or any *.json there listing files and
// codes); otherwise from the table below, which restates the "error it must
// produce" column of tests/fixtures/bad/README.md for the original files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, basename } from 'node:path';
import { ROOT, CLI, NODE_WASM, FIXTURES, loadNodeCore, cliJson } from './helpers.mjs';

const cli = process.env.ROOFLENS_CLI || CLI;
// ROOFLENS_BAD_CORPUS: another folder holding a corpus and its manifest.
const BAD = process.env.ROOFLENS_BAD_CORPUS || join(FIXTURES, 'bad');

const README_CODES = {
  'empty.onnx': ['empty_file'],
  'not_onnx.onnx': ['bad_protobuf'],
  'truncated_varint.onnx': ['truncated'],
  'truncated_string.onnx': ['truncated'],
  'truncated_node.onnx': ['truncated'],
  'truncated_initializer.onnx': ['truncated'],
  'negative_dim.onnx': ['bad_dim'],
  'absurd_dim.onnx': ['dim_overflow'],
  'dangling_input.onnx': ['dangling_input'],
  'cycle.onnx': ['cycle'],
  'no_graph.onnx': ['no_graph'],
  // README: "wire type mismatch ... (or at least: model has no graph)"
  'wrong_wire_type.onnx': ['bad_protobuf', 'no_graph'],
  'invalid_wire_type.onnx': ['bad_protobuf'],
};

/** Reads the entries of a manifest in any of the shapes a list of cases
 * takes: [{file, code}], {cases: [...]}, {file: code}, {file: {code}}.
 * `code` may also be `codes` / `expected` / `error` (string or list).
 * An entry {file, ok: true, warning?} is a model that must be analysed,
 * with that warning code among its warnings. */
function entriesOf(json) {
  const list = Array.isArray(json) ? json
    : Array.isArray(json.cases) ? json.cases
      : Array.isArray(json.models) ? json.models
        : Array.isArray(json.files) ? json.files
          : Object.entries(json).filter(([k]) => k.endsWith('.onnx')).map(([file, v]) => (typeof v === 'object' && !Array.isArray(v) ? { file, ...v } : { file, code: v }));
  const out = [];
  for (const e of list) {
    if (!e || typeof e !== 'object') continue;
    const file = e.file ?? e.path ?? e.name;
    let code = e.code ?? e.codes ?? e.expected_code ?? e.expected ?? e.error;
    if (code && typeof code === 'object' && !Array.isArray(code)) code = code.code;
    if (typeof file !== 'string' || !file.endsWith('.onnx')) continue;
    if (e.ok === true && code === undefined) out.push({ file, ok: true, warning: e.warning ?? null });
    else if (code !== undefined) out.push({ file, codes: [code].flat().map(String) });
  }
  return out;
}

function corpus() {
  const manifests = existsSync(BAD) ? readdirSync(BAD).filter((f) => f.endsWith('.json')).sort() : [];
  const found = [];
  for (const m of manifests) {
    try { found.push(...entriesOf(JSON.parse(readFileSync(join(BAD, m), 'utf8')))); } catch { /* not a manifest */ }
  }
  if (found.length) {
    return { source: manifests.join(', '), cases: found.map((e) => ({ ...e, path: join(BAD, e.file) })) };
  }
  return { source: 'README table', cases: Object.entries(README_CODES).map(([file, codes]) => ({ file, codes, path: join(BAD, file) })) };
}

const missing = [NODE_WASM].filter((p) => !existsSync(p));
const skip = missing.length ? `not built: ${missing.join(', ')} (run tools/build-site.sh)` : false;
const haveCli = existsSync(cli);

function request(hwId) {
  const hardware = JSON.parse(readFileSync(join(ROOT, 'hw', hwId + '.json'), 'utf8'));
  return JSON.stringify({ hardware, dims: {} });
}

/** The CLI's path through the API, in the module: read, info, analyse.
 * Returns the first error object, or the analysis. */
function runModel(core, bytes, chunk) {
  const r = core.readAll(bytes, chunk);
  if (!r.model) return JSON.parse(r.error);
  try {
    const info = JSON.parse(core.info(r.model));
    if (!info.ok) return info;
    return JSON.parse(core.analyze(r.model, request('h100-sxm')));
  } finally { core.freeModel(r.model); }
}

const GOOD = join(FIXTURES, 'models/transformer_block.onnx');

test('corpus: every malformed model gives its expected error, the same as the CLI, and the module keeps working', { skip }, async (t) => {
  const { source, cases } = corpus();
  assert.ok(cases.filter((c) => !c.ok).length >= 13, `corpus from ${source}: only ${cases.length} cases`);
  t.diagnostic(`corpus: ${cases.length} models from ${source}`);
  const core = await loadNodeCore();
  const good = new Uint8Array(readFileSync(GOOD));
  const goodCli = haveCli ? cliJson(GOOD) : null;

  const checkGood = (after) => {
    const res = runModel(core, good, 1 << 20);
    assert.equal(res.ok, true, `good model after ${after}: ${JSON.stringify(res.error)}`);
    if (goodCli) {
      assert.equal(res.layers.length, goodCli.layers.length, `layers after ${after}`);
      assert.equal(res.totals.flops, goodCli.totals.flops, `flops after ${after}`);
      assert.equal(res.totals.bytes, goodCli.totals.bytes, `bytes after ${after}`);
      assert.equal(res.sol.chosen.time_s, goodCli.sol.chosen.time_s, `time after ${after}`);
    } else {
      assert.ok(res.layers.length > 10 && res.totals.flops > 0, `good model after ${after}`);
    }
  };

  // Warm up (the feed buffer stays allocated), then measure what is in use.
  checkGood('start');
  const inUse0 = core.memory().inUse;

  for (const c of cases.filter((x) => x.ok)) {
    await t.test(`${c.file}: analysed${c.warning ? ' with warning ' + c.warning : ''}`, () => {
      assert.ok(existsSync(c.path), `${c.path} is listed but missing`);
      const bytes = new Uint8Array(readFileSync(c.path));
      const res = runModel(core, bytes, 1 << 20);
      assert.equal(res.ok, true, `${c.file}: ${JSON.stringify(res.error)}`);
      if (c.warning) assert.ok(res.warnings.some((w) => w.code === c.warning), `${c.file}: no ${c.warning} warning`);
      if (haveCli) {
        const native = cliJson(c.path);
        assert.equal(res.layers.length, native.layers.length);
        assert.equal(res.sol.chosen.time_s, native.sol.chosen.time_s);
        assert.deepEqual(res.warnings.map((w) => w.code), native.warnings.map((w) => w.code));
      }
      checkGood(c.file);
    });
  }
  for (const c of cases.filter((x) => !x.ok)) {
    await t.test(`${c.file}: ${c.codes.join(' or ')}`, () => {
      assert.ok(existsSync(c.path), `${c.path} is listed but missing`);
      const bytes = new Uint8Array(readFileSync(c.path));
      const whole = runModel(core, bytes, 1 << 20);
      assert.equal(whole.ok, false, `${c.file} was accepted as a valid model`);
      assert.ok(c.codes.includes(whole.error.code), `${c.file}: got ${whole.error.code} (${whole.error.message}), want ${c.codes.join(' or ')}`);
      assert.ok(whole.error.message.length > 10, `${c.file}: the message says nothing: ${whole.error.message}`);
      if (haveCli) {
        const native = cliJson(c.path);
        assert.equal(whole.error.code, native.error.code, `${c.file}: the module and the CLI disagree`);
        // Both clamp a skip to the file's end, so even a file cut inside a
        // payload gets the same error, offset included.
        assert.deepEqual(whole, native, `${c.file}: the module and the CLI disagree`);
      }
      // Streaming in small pieces must not change the verdict.
      for (const chunk of [4096, 7]) {
        if (bytes.length > 4 << 20 && chunk === 7) continue;
        const part = runModel(core, bytes, chunk);
        assert.equal(part.ok, false);
        assert.equal(part.error.code, whole.error.code, `${c.file}: ${chunk}-byte chunks give ${part.error.code}`);
      }
      checkGood(c.file);
    });
  }
  // Errors free what they allocated: the same bytes are in use as before.
  assert.equal(core.memory().inUse, inUse0, 'memory left allocated after the corpus');
});

test('corpus: the corpus covers the README table', { skip }, () => {
  const { cases } = corpus();
  const files = new Set(cases.map((c) => basename(c.path)));
  for (const f of Object.keys(README_CODES)) assert.ok(files.has(f), `${f} is missing from the corpus`);
});

// A small file can still be too big for the browser: 600,000 nodes need more
// than the 2 GB a WebAssembly module may have to print their analysis. The
// answer must be an out_of_memory error, not a NULL or a trap, and the same
// module must then analyse a good model. (About 10 s: it has to fill 2 GB.)
test('a graph too big for the module\'s memory gives out_of_memory, then the module works', { skip }, async (t) => {
  const { writeHugeModel } = await import('../../tools/make-models/huge-model.mjs');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'rooflens-nodes-'));
  try {
    const m = writeHugeModel(join(dir, 'nodes.onnx'), { bytes: 300000 * 16, hidden: 2 });
    const core = await loadNodeCore();
    const res = runModel(core, new Uint8Array(readFileSync(m.path)), 4 << 20);
    if (res.ok) {
      // a leaner core may fit it one day: then the answer must be complete
      assert.equal(res.layers.length, 2 * m.layers);
      t.diagnostic('600,000 nodes now fit in the module\'s memory');
    } else {
      assert.equal(res.error.code, 'out_of_memory', JSON.stringify(res.error));
      assert.match(res.error.message, /command-line tool/);
    }
    const good = runModel(core, new Uint8Array(readFileSync(GOOD)), 1 << 20);
    assert.equal(good.ok, true);
    if (haveCli) assert.equal(good.sol.chosen.time_s, cliJson(GOOD).sol.chosen.time_s);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
