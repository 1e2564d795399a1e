// The core's "layer_columns" (a response to "layers": "columns", see
// core/src/layer_writer.h and docs/api.md) turned back into the "layers"
// rows the page works with. The columns carry the same keys and values as
// the rows; they are several times smaller and faster to write and parse on
// a graph of 100,000 layers. A layer's inputs and outputs are indices into
// one table of tensors, so a tensor shared by two layers is one object.
//
// Copying 100,000 layers of 30 fields into objects takes most of a second,
// so a row is a small object that reads its fields from the columns (getters
// on a prototype made once per table). A row reads, sorts and filters like
// the core's row; a field the page adds (the table's `share`) is its own;
// JSON.stringify gives exactly the core's row (toJSON).
//
// "layers": "packed" (what the page asks for) is the same, except that in
// both tables a column of numbers is {"f64": k}: its values are doubles
// after the text (rl_model_analyze_sized in core/include/rooflens.h), read
// where they lie rather than parsed from 20 digits of text each; NaN there
// is null. A column of a few distinct strings or booleans (op, bound,
// dtype) is {"enum": [...], "f64": k}: the doubles are indices into the
// list. A column of lists (inputs, outputs, shape) is {"ends": k, "flat":
// [...]}: one flat list, and where each row's items end in it (NaN: null),
// so the answer holds no small array per layer. Layout: docs/api.md.

const ROW = Symbol('row');

/** Row i's list of a {"ends", "flat"} column: flat's items from where the
 * row before ended to ends[i]; null where ends[i] is NaN. */
function listReader(ends, flat) {
  let starts = null;
  return (i) => {
    const end = ends[i];
    if (end !== end) return null;
    if (!starts) {   // once per column: where each row's items start
      starts = new Float64Array(ends.length);
      let at = 0;
      for (let j = 0; j < ends.length; j++) { starts[j] = at; if (ends[j] === ends[j]) at = ends[j]; }
    }
    return flat.slice(starts[i], end);
  };
}

/** A constructor of rows over a {count, columns} table; `map(key, value)`
 * may replace what a field reads; `packed(k)` gives packed column k. */
function rowType({ count, columns }, map, packed) {
  const fields = [];
  class Row { constructor(i) { this[ROW] = i; } }
  const proto = Row.prototype;
  Object.defineProperty(proto, 'toJSON', {
    value() {
      const o = {};
      for (const [key, values, sparse] of fields) if (!sparse || this[ROW] in values) o[key] = this[key];
      for (const key of Object.keys(this)) o[key] = this[key];
      return o;
    },
  });
  for (const [key, col] of Object.entries(columns)) {
    if (col && col.ends !== undefined) {
      const list = listReader(packed(col.ends), col.flat);
      fields.push([key, null, false]);
      const get = map ? function () { return map(key, list(this[ROW])); } : function () { return list(this[ROW]); };
      Object.defineProperty(proto, key, { get, enumerable: true });
      continue;
    }
    if (col && col.f64 !== undefined) {
      const values = packed(col.f64), choices = col.enum;
      fields.push([key, values, false]);
      const get = choices ? function () { return choices[values[this[ROW]]]; }
        : function () { const v = values[this[ROW]]; return v === v ? v : null; };
      Object.defineProperty(proto, key, { get, enumerable: true });
      continue;
    }
    const sparse = !Array.isArray(col);
    let values = col;
    if (sparse) {
      // only the listed rows have the key: a row not listed lacks it
      values = new Array(count);
      for (let j = 0; j < col.rows.length; j++) values[col.rows[j]] = col.values[j];
    }
    fields.push([key, values, sparse]);
    const get = map ? function () { return map(key, values[this[ROW]]); } : function () { return values[this[ROW]]; };
    Object.defineProperty(proto, key, { get, enumerable: true });
  }
  return (i) => new Row(i);
}

/** The layer rows of a "layer_columns" object; `buffer` holds the answer
 * whose text is `textBytes` long (packed layout). */
export function layersFromColumns(lc, buffer, textBytes) {
  // after the text's NUL, at a multiple of 8: the layer table's doubles, then the tensor table's
  const start = (textBytes + 1 + 7) & ~7;
  const end = start + (lc.packed_bytes || 0) + (lc.tensors.packed_bytes || 0);
  const slots = (table, at) => (k) => {
    if (!buffer || end > buffer.byteLength) throw new Error('the answer\'s packed layer figures are missing');
    return new Float64Array(buffer, at + 8 * k * table.count, table.count);
  };
  const tensorRow = rowType(lc.tensors, null, slots(lc.tensors, start + (lc.packed_bytes || 0)));
  const tensors = new Array(lc.tensors.count);
  const tensor = (i) => tensors[i] || (tensors[i] = tensorRow(i));
  const layerRow = rowType(lc, (key, v) => (v && (key === 'inputs' || key === 'outputs') ? v.map(tensor) : v), slots(lc, start));
  const rows = new Array(lc.count);
  for (let i = 0; i < lc.count; i++) rows[i] = layerRow(i);
  return rows;
}

/** A response with "layer_columns" gets "layers" in its place (in place;
 * returned). Packed: `buffer` is the whole answer, its text `textBytes` long. */
export function withLayerRows(res, buffer = null, textBytes = 0) {
  if (res && res.layer_columns) {
    res.layers = layersFromColumns(res.layer_columns, buffer, textBytes);
    delete res.layer_columns;
  }
  return res;
}
