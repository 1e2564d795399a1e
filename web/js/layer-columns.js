// The core's "layer_columns" (a response to "layers": "columns", see
// core/src/layer_writer.h and docs/api.md) turned back into the "layers"
// rows the page works with. The columns carry the same keys and values as
// the rows; they are several times smaller and faster to write and parse on
// a graph of 100,000 layers. A layer's inputs and outputs are indices into
// one table of tensors, so a tensor shared by two layers is one object.

/** Objects of a {count, columns} table; `map(key, value)` may replace a value. */
function rowsOf({ count, columns }, map) {
  const rows = new Array(count);
  for (let i = 0; i < count; i++) rows[i] = {};
  for (const [key, col] of Object.entries(columns)) {
    if (Array.isArray(col)) {
      if (map) for (let i = 0; i < count; i++) rows[i][key] = map(key, col[i]);
      else for (let i = 0; i < count; i++) rows[i][key] = col[i];
    } else {
      // a sparse column: only the listed rows have the key
      const { rows: at, values } = col;
      for (let j = 0; j < at.length; j++) rows[at[j]][key] = map ? map(key, values[j]) : values[j];
    }
  }
  return rows;
}

/** The layer rows of a "layer_columns" object. */
export function layersFromColumns(lc) {
  const tensors = rowsOf(lc.tensors);
  const tensorList = (key, v) => (key === 'inputs' || key === 'outputs' ? v.map((i) => tensors[i]) : v);
  return rowsOf(lc, tensorList);
}

/** A response with "layer_columns" gets "layers" in its place (in place; returned). */
export function withLayerRows(res) {
  if (res && res.layer_columns) {
    res.layers = layersFromColumns(res.layer_columns);
    delete res.layer_columns;
  }
  return res;
}
