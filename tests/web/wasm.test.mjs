// The node-environment WASM build must give exactly the native CLI's JSON
// (same core, same request), and must survive bad input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { ROOT, CLI, NODE_WASM, FIXTURES, loadNodeCore, cliJson } from './helpers.mjs';

const missing = [CLI, NODE_WASM].filter((p) => !existsSync(p));
const skip = missing.length ? `not built: ${missing.join(', ')} (run tools/build-site.sh)` : false;

function request(hwId, extra = {}) {
  const hardware = JSON.parse(readFileSync(join(ROOT, 'hw', hwId + '.json'), 'utf8'));
  return JSON.stringify({ ...extra, hardware, dims: extra.dims ?? {} });
}

for (const [model, hw, extra, args] of [
  ['transformer_block.onnx', 'h100-sxm', {}, ['--hw', 'h100-sxm']],
  ['conv_net.onnx', 'jetson-agx-orin', { power_mode: '30w', precision: 'fp16' },
    ['--hw', 'jetson-agx-orin', '--power-mode', '30w', '--precision', 'fp16']],
  ['symbolic.onnx', 'a100-sxm-80gb', { batch: 4, mode: 'training' },
    ['--hw', 'a100-sxm-80gb', '--batch', '4', '--mode', 'training']],
]) {
  test(`wasm JSON equals CLI JSON: ${model} on ${hw}`, { skip }, async () => {
    const core = await loadNodeCore();
    const path = join(FIXTURES, 'models', model);
    const bytes = new Uint8Array(readFileSync(path));
    for (const chunk of [bytes.length, 4096, 7]) {
      const r = core.readAll(bytes, chunk);
      assert.ok(r.model, `read failed: ${r.error}`);
      const got = JSON.parse(core.analyze(r.model, request(hw, extra)));
      core.freeModel(r.model);
      assert.deepEqual(got, cliJson(path, args), `chunk size ${chunk}`);
    }
  });
}

test('wasm: bad file gives the same error as the CLI, next file works', { skip }, async () => {
  const core = await loadNodeCore();
  const bad = join(FIXTURES, 'bad/not_onnx.onnx');
  const r = core.readAll(new Uint8Array(readFileSync(bad)));
  assert.equal(r.model, undefined);
  const err = JSON.parse(r.error);
  assert.equal(err.ok, false);
  assert.deepEqual(err, cliJson(bad));
  const good = core.readAll(new Uint8Array(readFileSync(join(FIXTURES, 'models/mlp.onnx'))));
  assert.ok(good.model);
  const info = JSON.parse(core.info(good.model));
  assert.equal(info.ok, true);
  assert.ok(Array.isArray(info.symbolic_dims));
  const bogus = JSON.parse(core.analyze(good.model, '{"hardware": 3}'));
  assert.equal(bogus.ok, false);
  assert.ok(bogus.error.code);
  core.freeModel(good.model);
});

test('wasm: a size that is no size (NaN, negative, fractional, past 2^53) is refused, not converted, and the reader works on', { skip }, async () => {
  const core = await loadNodeCore();
  const m = core.m;
  const bytes = new Uint8Array(readFileSync(join(FIXTURES, 'models/mlp.onnx')));
  const r = core.newReader();
  try {
    core.feed(r, bytes.subarray(0, 16));
    for (const n of [NaN, -1, 1.5, 2 ** 60, Infinity]) assert.equal(core.skip(r, n), -1, `skip(${n})`);
    core.feed(r, bytes.subarray(16));
    assert.ok(core.finish(r).model, 'the reader still reads the model after the refused skips');
  } finally { core.freeReader(r); }
  const c = core.newCheckpoint();
  try {
    const first = new TextEncoder().encode('{"model_');
    for (const size of [NaN, -1, 0.5, 2 ** 60]) {
      assert.equal(core.checkpointNeed('config.json', size, first), 0, `need(${size})`);
      assert.equal(core.checkpointAdd(c, 'config.json', size, first), -1, `add(${size})`);
    }
  } finally { core.freeCheckpoint(c); }
  assert.ok(m._rlw_version(), 'the module answers after them');
});

test('wasm: the precision table is the core\'s, the same the CLI lists in its usage', { skip }, async () => {
  const core = await loadNodeCore();
  const table = JSON.parse(core.precisions());
  const names = table.map((p) => p.name);
  assert.ok(names.includes('fp16') && names.includes('int4') && names.includes('fp64'), names.join(','));
  for (const p of table) {
    assert.match(p.colour, /^#[0-9a-f]{6}$/);
    for (const f of p.fallback) assert.ok(names.includes(f), `${p.name} falls back to unknown ${f}`);
  }
  const help = execFileSync(CLI, ['--help'], { encoding: 'utf8' });
  assert.ok(help.replace(/\s+/g, ' ').includes(`or one of ${names.join(', ')}:`), 'rooflens --help lists the same precisions');
});

test('wasm: the hardware validator refuses a denormal peak and names the field, as the CLI does', { skip }, async () => {
  const core = await loadNodeCore();
  const profile = readFileSync(join(ROOT, 'tests/hw/denormal_peak.json'), 'utf8');
  const got = JSON.parse(core.checkHardware(profile));
  assert.equal(got.ok, false);
  assert.equal(got.error.code, 'bad_hardware');
  assert.match(got.error.where, /compute\.fp32\.matrix/);
  const cli = spawnSync(CLI, ['--check-hw', join(ROOT, 'tests/hw/denormal_peak.json')], { encoding: 'utf8' });
  assert.equal(cli.status, 3);
  assert.ok(cli.stdout.includes(got.error.message), cli.stdout);
  const orin = JSON.parse(core.checkHardware(readFileSync(join(ROOT, 'hw/jetson-agx-orin.json'), 'utf8')));
  assert.equal(orin.ok, true);
  assert.equal(orin.modes.length, 9);
  assert.ok(orin.modes.every((m) => m.power_budget_w > 0 && m.energy_model), JSON.stringify(orin.modes));
});

test('wasm: a held hardware profile (holdHardware) gives every answer the request with the profile in it gets, byte for byte; the same text is read once', { skip }, async () => {
  const core = await loadNodeCore();
  const text = (id) => readFileSync(join(ROOT, 'hw', id + '.json'), 'utf8');
  const withProfile = (id, extra) => JSON.stringify({ ...extra, hardware: JSON.parse(text(id)) });
  const m = core.readAll(new Uint8Array(readFileSync(join(FIXTURES, 'models', 'conv_net.onnx')))).model;
  const old = core.readAll(new Uint8Array(readFileSync(join(FIXTURES, 'models', 'diff_old.onnx')))).model;
  const neu = core.readAll(new Uint8Array(readFileSync(join(FIXTURES, 'models', 'diff_new.onnx')))).model;
  assert.ok(m && old && neu);
  const orin = core.holdHardware(text('jetson-agx-orin'));
  assert.ok(orin, 'the profile is read');
  assert.equal(core.holdHardware(text('jetson-agx-orin')), orin, 'the same text: the same handle, not read again');
  const inUse = core.memory().inUse;
  const utf8 = new TextDecoder();
  for (const extra of [{}, { power_mode: '30w', precision: 'fp16', layers: 'packed', graph: true }, { power_mode: 'no_such_mode' },
    { study: { kind: 'power_modes', max_slowdown: 0.05 } }, { batch: 4, mode: 'training' }]) {
    const held = core.analyzeBytes(m, JSON.stringify(extra), core.holdHardware(text('jetson-agx-orin')));
    const sent = core.analyzeBytes(m, withProfile('jetson-agx-orin', extra));
    assert.equal(Buffer.compare(Buffer.from(held), Buffer.from(sent)), 0, `${JSON.stringify(extra)}: ${utf8.decode(held.subarray(0, 200))}`);
  }
  const diff = { old_label: 'old.onnx', new_label: 'new.onnx', markdown: true, top: 10 };
  assert.equal(core.diff(old, neu, JSON.stringify({ dims: {}, diff }), core.holdHardware(text('jetson-agx-orin'))),
    core.diff(old, neu, withProfile('jetson-agx-orin', { dims: {}, diff })));
  assert.equal(core.memory().inUse, inUse, 'analysing on the held profile holds no more memory');
  // another text is read in its place; switching back and forth holds one profile at a time
  const h100 = core.holdHardware(text('h100-sxm'));
  assert.ok(h100);
  assert.equal(core.analyzeBytes(m, '{}', h100).length, core.analyzeBytes(m, withProfile('h100-sxm', {})).length);
  const before = core.memory().inUse;
  for (let i = 0; i < 20; i++) { core.holdHardware(text('jetson-agx-orin')); core.holdHardware(text('h100-sxm')); }
  assert.equal(core.memory().inUse, before, 'one profile held at a time');
  // a profile the core refuses gives no handle (the request then carries it, and its analysis says why)
  assert.equal(core.holdHardware('{"id": "x"'), 0);
  assert.equal(core.holdHardware('{"id": "x"}'), 0);
  const refused = JSON.parse(core.analyze(m, JSON.stringify({ hardware: { id: 'x' } })));
  assert.equal(refused.ok, false);
  assert.equal(refused.error.code, 'bad_hardware');
  for (const x of [m, old, neu]) core.freeModel(x);
});
