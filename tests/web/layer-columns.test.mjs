// The page asks the core for its layers as packed columns ("layers":
// "packed": columns whose numbers, codes and list ends follow the text as
// doubles) and
// web/js/layer-columns.js turns them back into rows: on the WebAssembly
// build, the rows it makes, from plain or packed columns, equal the core's
// own rows ("layers": true) for every fixture model, with a measured profile
// and in training mode, and the rest of the answer is the same. tests/test_layer_columns.c checks the
// columns themselves on the native build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, FIXTURES, NODE_WASM, loadNodeCore } from './helpers.mjs';
import { withLayerRows } from '../../web/js/layer-columns.js';

const skip = existsSync(NODE_WASM) ? false : 'missing: build-wasm (tools/build-site.sh)';
const hw = (id) => JSON.parse(readFileSync(join(ROOT, 'hw', `${id}.json`), 'utf8'));

function same(core, model, req, what) {
  const rows = JSON.parse(core.analyze(model, JSON.stringify({ ...req, layers: true })));
  const text = core.analyze(model, JSON.stringify({ ...req, layers: 'columns' }));
  // the worker's path: the same answer as UTF-8 bytes, decoded on the page
  assert.equal(new TextDecoder().decode(core.analyzeBytes(model, JSON.stringify({ ...req, layers: 'columns' }))), text, `${what}: bytes`);
  const cols = withLayerRows(JSON.parse(text));
  // a row reads its fields from the columns; written out it is the core's row
  assert.deepEqual(JSON.parse(JSON.stringify(cols)), rows, what);
  // the worker's path: packed bytes, the text up to its NUL, the doubles after it
  const bytes = core.analyzeBytes(model, JSON.stringify({ ...req, layers: 'packed' }));
  const end = bytes.indexOf(0);
  const packed = JSON.parse(new TextDecoder().decode(end < 0 ? bytes : bytes.subarray(0, end)));
  if (rows.ok) {
    const lc = packed.layer_columns;
    assert.ok(end > 0 && bytes.length === ((end + 8) & ~7) + lc.packed_bytes + lc.tensors.packed_bytes, `${what}: packed size`);
    assert.ok(Object.values(lc.columns).filter((c) => c && c.f64 !== undefined).length > 5, `${what}: columns packed`);
    if (rows.layers.length) {
      assert.ok(lc.columns.inputs.ends !== undefined && lc.tensors.columns.shape.ends !== undefined, `${what}: lists packed`);
      assert.ok(lc.tensors.columns.dtype.enum, `${what}: dtypes coded`);
    }
  }
  const fromPacked = withLayerRows(packed, bytes.buffer, end < 0 ? bytes.length : end);
  assert.deepEqual(JSON.parse(JSON.stringify(fromPacked)), rows, `${what}: packed`);
  if (rows.ok) {
    for (let i = 0; i < rows.layers.length; i++) {
      for (const [k, v] of Object.entries(rows.layers[i])) assert.deepEqual(JSON.parse(JSON.stringify(cols.layers[i][k])), v, `${what}: layer ${i} ${k}`);
      for (const k of Object.keys(cols.layers[i].toJSON())) assert.ok(k in rows.layers[i], `${what}: layer ${i} has no ${k} in rows`);
    }
  }
  if (rows.ok && rows.layers.length > 2) assert.ok(text.length < JSON.stringify(rows).length, `${what}: columns are smaller`);
  return rows;
}

test('WASM core: rows rebuilt from layer_columns equal the core\'s rows', { skip }, async () => {
  const core = await loadNodeCore();
  const dir = join(FIXTURES, 'models');
  let n = 0;
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.onnx')).sort()) {
    const r = core.readAll(new Uint8Array(readFileSync(join(dir, f))));
    if (!r.model) continue;
    same(core, r.model, { hardware: hw('h100-sxm') }, f);
    same(core, r.model, { hardware: hw('jetson-agx-orin'), mode: 'training', precision: 'int8', batch: 3 }, `${f} training int8`);
    core.freeModel(r.model);
    n++;
  }
  assert.ok(n >= 20, `${n} models`);
  const { model } = core.readAll(new Uint8Array(readFileSync(join(FIXTURES, 'measured', 'small_cnn.onnx'))));
  const res = same(core, model, { hardware: hw('h100-sxm'),
    measured: { text: readFileSync(join(FIXTURES, 'measured', 'ort_small_cnn_all.json'), 'utf8'), format: 'auto' } }, 'measured');
  assert.ok(res.layers.some((l) => l.measured_s > 0), 'the measured fields are there');
  core.freeModel(model);
});
