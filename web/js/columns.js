// The layer table's columns: the one list the table, the column picker and
// the link's sort/cols parameters read (the CSV's columns are the core's:
// core/src/layer_csv.c). A column is a field
// of the core's layer rows (docs/api.md), or `share` (the layer's share of
// the summed layer time).

const num = (key, label, unit, title) => ({ key, label, unit, type: 'num', title });
export const COLUMNS = [
  { key: 'index', label: '#', type: 'int', title: 'position of the node in the graph' },
  { key: 'name', label: 'Name', type: 'str' },
  { key: 'op', label: 'Op', type: 'str' },
  { key: 'domain', label: 'Domain', type: 'str' },
  { key: 'inputs', label: 'Inputs', type: 'shapes' },
  { key: 'outputs', label: 'Outputs', type: 'shapes' },
  num('flops', 'FLOPs', 'FLOP'),
  num('bytes', 'Bytes', 'B', 'bytes the layer moves (inputs, weights and outputs)'),
  num('intensity', 'Intensity', 'FLOP/B', 'arithmetic intensity: FLOPs per byte moved'),
  num('t', 'Speed of light', 's', 'the layer\'s speed-of-light time: its share of the chosen speed-of-light model\'s'),
  num('forecast_s', 'Forecast', 's', 'what the layer is expected to take on the profile\'s software stack (its share of the forecast)'),
  { key: 'headroom', label: 'Headroom', type: 'times', title: 'forecast / speed of light: how far the stack is from the floor on this layer' },
  { key: 'bound', label: 'Limited by', type: 'word', kind: 'bound', title: 'what sets the layer\'s time: compute, memory bandwidth, the launch floor or the power floor' },
  { key: 'share', label: 'Share', type: 'pct', title: 'share of the summed layer time' },
  // with a measured profile attached (measured.js): the node's share of its kernel's time
  num('measured_s', 'Measured', 's', 'measured time of the kernel that ran the layer, shared by the speed of light of its nodes'),
  { key: 'efficiency', label: 'Efficiency', type: 'pct', title: 'speed of light / measured time of its kernel' },
  num('recoverable_s', 'Gap', 's', 'measured - speed of light: the time an ideal kernel would save'),
  num('matrix_flops', 'Matrix FLOPs', 'FLOP'),
  num('vector_flops', 'Vector FLOPs', 'FLOP'),
  num('macs', 'MACs', 'MAC'),
  num('input_bytes', 'In bytes', 'B'),
  num('weight_bytes', 'Weight bytes', 'B'),
  num('output_bytes', 'Out bytes', 'B'),
  num('fused_bytes', 'Fused bytes', 'B'),
  num('t_compute', 't compute', 's'),
  num('t_memory', 't memory', 's'),
  num('energy_j', 'Energy', 'J'),
  { key: 'energy_bound', label: 'Energy bound', type: 'str' },
  { key: 'precision', label: 'Precision', type: 'str' },
  num('bwd_flops', 'Bwd FLOPs', 'FLOP'),
  num('bwd_bytes', 'Bwd bytes', 'B'),
  { key: 'known', label: 'Known', type: 'bool', title: 'all shapes known' },
  { key: 'supported', label: 'Supported', type: 'bool', title: 'operator in the cost table' },
  { key: 'note', label: 'Note', type: 'str' },
];
export const COLUMN_KEYS = COLUMNS.map((c) => c.key);
export const COLUMN_BY_KEY = new Map(COLUMNS.map((c) => [c.key, c]));

/** Shown when the link names none: what answers "where does the time go". */
export const DEFAULT_COLUMNS = ['name', 'op', 'flops', 'bytes', 'intensity', 't', 'forecast_s', 'headroom', 'bound', 'share'];
/** The same columns on a phone: what a layer takes and what limits it come first, in the width a phone
 * shows without scrolling the table sideways; the rest follow. */
export const PHONE_COLUMNS = ['name', 't', 'bound', 'forecast_s', 'headroom', 'op', 'flops', 'bytes', 'intensity', 'share'];
/** The page is as narrow as a phone (the width style.css lays the table out for). */
export const PHONE_QUERY = '(max-width: 600px)';

/** Summed over layers for group and totals rows. */
export const SUM_KEYS = new Set(['t', 'forecast_s', 'share', 'measured_s', 'recoverable_s', 'flops', 'matrix_flops', 'vector_flops', 'macs', 'bytes', 'input_bytes',
  'weight_bytes', 'output_bytes', 'fused_bytes', 't_compute', 't_memory', 'energy_j', 'bwd_flops', 'bwd_bytes']);
