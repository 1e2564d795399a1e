// The graph view's side panel: the selected layer as Netron's node
// properties show it — its op and name, its attributes (the core's
// graph.attributes), its input and output tensors with their shapes, and its
// figures, each from the core's layer row (speed of light, forecast, FLOPs,
// bytes, intensity, what limits it, energy). The layers of no work folded
// into its box are listed too. It computes no figure.
import { eng, times } from './format.js';
import { el } from './dom.js';
import { shapeText } from './graph-model.js';
import { boundColor, bounds, wordName, wordTitle } from './words.js';

/** The figures of a row the panel lists, in order: [key, label, unit]. */
const FIGURES = [
  ['t', () => wordTitle('term', 'speed_of_light'), 's'],
  ['forecast_s', () => wordTitle('term', 'forecast'), 's'],
  ['flops', () => 'FLOPs', 'FLOP'],
  ['bytes', () => 'Bytes moved', 'B'],
  ['weight_bytes', () => 'Weight bytes', 'B'],
  ['intensity', () => 'Intensity', 'FLOP/B'],
  ['t_compute', () => 'Compute time', 's'],
  ['t_memory', () => 'Memory time', 's'],
  ['energy_j', () => 'Energy', 'J'],
];

export class LayerPanel {
  constructor() {
    this.box = el('aside', null, { class: 'graph-panel', 'data-testid': 'graph-panel', 'aria-label': 'Selected node', 'aria-live': 'polite' });
    this.res = null;
    this.empty();
  }

  empty() {
    this.box.textContent = '';
    this.box.appendChild(el('p', 'Select a box, or find a node above, to see its attributes, tensors and figures here.', { class: 'hint' }));
  }

  update(res, model) {
    this.res = res;
    this.model = model;
    this.row = null;
    this.empty();
  }

  /** The side panel for layer `row` (a folded one shows its own row). */
  show(row) {
    const l = this.res?.layers?.[row];
    if (!l) { this.empty(); return; }
    this.row = row;
    this.box.textContent = '';
    this.box.dataset.row = row;
    this.box.appendChild(el('h3', l.op));
    this.box.appendChild(el('p', l.name, { class: 'graph-panel-name' }));
    const host = this.model?.host?.[row];
    if (host === -2) this.box.appendChild(el('p', 'A layer of no work, drawn in the constants box.', { class: 'hint' }));
    else if (host !== undefined && host !== row) this.box.appendChild(el('p', `A layer of no work, drawn in the box of ${this.res.layers[host].name}.`, { class: 'hint' }));
    this.figures(l);
    this.pairs('Attributes', (this.res.graph?.attributes?.[row] || []).map(([k, v]) => [k, v]), 'none');
    this.pairs('Inputs', (l.inputs || []).map((t) => [t.name, `${t.dtype ?? ''} ${shapeText(t.shape)}`.trim()]), 'none');
    this.pairs('Outputs', (l.outputs || []).map((t) => [t.name, `${t.dtype ?? ''} ${shapeText(t.shape)}`.trim()]), 'none');
    const folded = this.model?.nodes.get(`L${row}`)?.folded || [];
    if (folded.length) this.list(`Folded into this box (${folded.length})`, folded);
  }

  /** The constants box: the layers it holds. */
  showConstants(rows) {
    this.row = null;
    this.box.textContent = '';
    delete this.box.dataset.row;
    this.box.appendChild(el('h3', 'constants'));
    this.box.appendChild(el('p', `${rows.length} layers of no work, each read by several layers: their outputs are drawn as weights are, with no edge.`, { class: 'hint' }));
    this.list('Layers', rows);
  }

  figures(l) {
    const dl = el('dl', null, { class: 'graph-panel-figures' });
    const add = (label, text, title) => { dl.appendChild(el('dt', label)); dl.appendChild(el('dd', text, title ? { title } : {})); };
    const bound = el('dd');
    const swatch = el('span', null, { class: 'bound-swatch', 'aria-hidden': 'true' });
    swatch.style.background = boundColor(l.bound);
    bound.append(swatch, wordName('bound', l.bound));
    dl.appendChild(el('dt', 'Limited by'));
    dl.appendChild(bound);
    for (const [key, label, unit] of FIGURES) if (typeof l[key] === 'number') add(label(), eng(l[key], unit));
    if (typeof l.headroom === 'number') add('Headroom', times(l.headroom), 'forecast / speed of light');
    if (l.op_class) add('Kind of work', wordName('op_class', l.op_class));
    if (l.fused_into !== null && l.fused_into !== undefined && this.res.layers[l.fused_into]) add('Fused into', this.res.layers[l.fused_into].name);
    if (l.note) add('Note', l.note);
    this.box.append(el('h4', 'Figures'), dl);
  }

  pairs(title, rows, none) {
    this.box.appendChild(el('h4', title));
    if (!rows.length) { this.box.appendChild(el('p', none, { class: 'hint' })); return; }
    // a tensor's name can be long: its type and shape go under it
    const stacked = title !== 'Attributes';
    const dl = el('dl', null, { class: `graph-panel-pairs${stacked ? ' stacked' : ''}`, 'data-testid': `graph-panel-${title.toLowerCase()}` });
    for (const [k, v] of rows) { dl.appendChild(el('dt', k)); dl.appendChild(el('dd', v)); }
    this.box.appendChild(dl);
  }

  list(title, rows) {
    this.box.appendChild(el('h4', title));
    const ul = el('ul', null, { class: 'graph-panel-list' });
    for (const r of rows.slice(0, 50)) ul.appendChild(el('li', `${this.res.layers[r].op} · ${this.res.layers[r].name}`));
    if (rows.length > 50) ul.appendChild(el('li', `and ${rows.length - 50} more`));
    this.box.appendChild(ul);
  }
}

/** Fills `ul` with the legend of the bounds in `used` (ids), in the core's
 * order, each a swatch of its colour and its name (its meaning on hover);
 * `extras`: [[label, colour]] after them. */
export function boundLegend(ul, used, extras = []) {
  ul.textContent = '';
  const item = (label, color, attrs) => {
    const li = el('li', null, attrs);
    const sw = el('span', null, { class: 'bound-swatch', 'aria-hidden': 'true' });
    sw.style.background = color;
    li.append(sw, label);
    ul.appendChild(li);
  };
  for (const b of bounds()) if (used.has(b.id)) item(b.name, b.color, { 'data-bound': b.id, title: b.meaning });
  for (const [label, color] of extras) item(label, color, { 'data-bound': '' });
}
