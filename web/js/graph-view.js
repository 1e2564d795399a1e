// The graph view: the model's dataflow top to bottom, each box a layer or a
// collapsed module, coloured by its bound (the core's table of bounds) and
// shaded by its share of the time (or energy, or bytes). Fused kernels are
// outlined as one group; an edge names its tensor and shape on hover. A big
// model opens collapsed (graph-model.js) and a module opens on click. Layers
// of no work are folded as the core says (graph.fold_into). A search box
// finds a node by name or op and centres it; a side panel shows the selected
// layer's attributes, tensors and figures (the core's layer row).
// Laid out off the main thread by the layout worker the controller hands in
// (`layout`); drawn as SVG with a bounded number of elements. It computes no
// figure: every number is the core's (the layer rows, graph.modules).
import { GraphModel, shapeText } from './graph-model.js';
import { eng, pct } from './format.js';
import { el } from './dom.js';
import { download } from './export.js';
import { boundColor, knownBound, wordName } from './words.js';
import { LayerPanel, boundLegend } from './graph-panel.js';
import { DiffLook } from './diff-look.js';

const SVG = 'http://www.w3.org/2000/svg';
/** The most boxes the view draws at once; an expand past it is refused. */
export const MAX_BOXES = 800;
const BOX = { layer: [156, 38], constants: [156, 38], module: [172, 46], run: [172, 46] };
/** The zoom a big graph opens at, its text legible, and the least it opens
 * at on a narrow screen; Fit shows the whole graph at any scale. */
const OPEN_ZOOM = 0.8;
const OPEN_MIN_ZOOM = 0.45;
const SHADES = { t: ['time', 's'], energy_j: ['energy', 'J'], bytes: ['bytes', 'B'] };

function svgEl(tag, attrs = {}, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

/** `color` (#rrggbb) at strength a in [0, 1] over white, and a text colour that reads on it. */
function shade(color, a) {
  const n = parseInt(color.slice(1), 16);
  const mix = (c) => Math.round(255 - (255 - c) * a);
  const rgb = [mix(n >> 16), mix((n >> 8) & 255), mix(n & 255)];
  // WCAG relative luminance: white text only where it reads better than black
  const lin = rgb.map((c) => { const s = c / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; });
  const lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  return { fill: `rgb(${rgb.join(', ')})`, text: (1.05 / (lum + 0.05)) > ((lum + 0.05) / 0.05) ? '#ffffff' : '#111111' };
}

const cut = (s, n) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

export class GraphView {
  /** box: the view's section; host: the page's host (host.js): layout(key, boxes, edges), select(row, from),
   * fileName(), baseName(), setDiffView(view, figure). */
  constructor(box, host) {
    this.box = box;
    this.host = host;
    this.model = null;
    this.expanded = new Set();
    this.shadeKey = 't';
    this.selected = null;
    this.active = null;        // box index with the keyboard focus
    this.view = { x: 0, y: 0, k: 1 };
    this.seq = 0;
    this.ownRes = null;        // the page's model's answer
    this.comparison = null;    // a comparison: {d, old, new} (the diff and both models' answers), or null
    this.diff = null;          // the comparison drawn: {look, view, model ('old' | 'new'), res}, or null
    this.build();
  }

  build() {
    const head = el('div', null, { class: 'graph-head' });
    head.appendChild(el('h2', 'Graph', { id: 'graph-title' }));
    const label = el('label', 'Shade by ');
    this.shadeSelect = el('select', null, { 'data-testid': 'graph-shade' });
    for (const [k, [name]] of Object.entries(SHADES)) this.shadeSelect.appendChild(el('option', name, { value: k }));
    this.shadeSelect.addEventListener('change', () => { this.shadeKey = this.shadeSelect.value; this.draw(); });
    label.appendChild(this.shadeSelect);
    head.appendChild(label);
    const button = (text, testid, fn) => { const b = el('button', text, { type: 'button', 'data-testid': testid }); b.addEventListener('click', fn); head.appendChild(b); return b; };
    this.buildDiffBar(head);
    button('Collapse all', 'graph-collapse-all', () => this.setExpanded(new Set(['root'])));
    button('Fit', 'graph-fit', () => { this.fit(true); });
    button('Save SVG', 'graph-svg', () => this.saveSvg());
    button('Save PNG', 'graph-png', () => this.savePng());
    this.status = el('p', '', { class: 'graph-status', 'data-testid': 'graph-status', 'aria-live': 'polite' });
    this.buildSearch(head);
    this.viewport = el('div', null, { class: 'graph-viewport', 'data-testid': 'graph-view', role: 'group', 'aria-labelledby': 'graph-title',
      'aria-describedby': 'graph-help' });
    this.svg = svgEl('svg', { class: 'graph-svg', role: 'group', 'aria-label': 'Dataflow graph' });
    this.viewport.appendChild(this.svg);
    this.minimap = el('canvas', null, { class: 'graph-minimap', width: 160, height: 120, 'aria-hidden': 'true', hidden: '' });
    this.viewport.appendChild(this.minimap);
    const help = el('p', 'Click a box to select its layer or open its module; drag to pan, Ctrl + wheel to zoom. Keyboard: arrow keys move between boxes, Enter selects or opens.',
      { id: 'graph-help', class: 'hint' });
    this.legend = el('ul', null, { class: 'bound-legend', 'data-testid': 'graph-legend', 'aria-label': 'Colours: what limits each box' });
    this.panel = new LayerPanel();
    const body = el('div', null, { class: 'graph-body' });
    body.append(this.viewport, this.panel.box);
    this.box.append(head, this.status, this.legend, body, help);
    this.wirePanZoom();
    this.wireKeys();
  }

  /** The comparison's controls, shown while another model is compared
   * (compare.js): which graph (the page's model alone, the old, the new,
   * or the new coloured by the change) and the figure whose change colours
   * the boxes. Radio buttons and a menu: the keyboard reaches both. */
  buildDiffBar(head) {
    this.diffBar = el('fieldset', null, { class: 'graph-diff', 'data-testid': 'graph-diff-bar', hidden: '' });
    this.diffBar.appendChild(el('legend', 'Comparison'));
    this.diffRadios = {};
    for (const [v, text] of [['', 'this model'], ['old', 'old'], ['new', 'new'], ['change', 'change']]) {
      const label = el('label', null, { class: 'graph-diff-choice' });
      const r = el('input', null, { type: 'radio', name: 'graph-diff-view', value: v, 'data-testid': `graph-diff-${v || 'off'}` });
      r.addEventListener('change', () => { if (r.checked) this.host.setDiffView(v || null, this.diffFigure.value); });
      label.append(r, ` ${text}`);
      this.diffRadios[v] = r;
      this.diffBar.appendChild(label);
    }
    const fl = el('label', ' colour by the change in ');
    this.diffFigure = el('select', null, { 'data-testid': 'graph-diff-figure' });
    this.diffFigure.addEventListener('change', () => this.host.setDiffView(this.diff?.view || 'change', this.diffFigure.value));
    fl.appendChild(this.diffFigure);
    this.diffBar.appendChild(fl);
    head.appendChild(this.diffBar);
  }

  /** A comparison of two models (or none): c = {d, old, new}, d the core's
   * diff with its graph, old and new the two models' answers with their
   * graph sections; view: 'old', 'new', 'change' or null (the page's model
   * alone); figure: an id of d.graph.figures. */
  setComparison(c, view, figure) {
    const ok = c && c.d?.graph && c.old?.graph && c.new?.graph &&
      c.d.graph.old.layers === c.old.layers.length && c.d.graph.new.layers === c.new.layers.length;
    this.comparison = ok ? c : null;
    this.diffBar.hidden = !ok;
    if (ok) {
      this.diffFigure.textContent = '';
      for (const f of c.d.graph.figures) this.diffFigure.appendChild(el('option', f.name, { value: f.id }));
      this.diffFigure.value = figure;
      this.diffFigure.disabled = !view;
    }
    for (const [v, r] of Object.entries(this.diffRadios)) r.checked = v === ((ok && view) || '');
    const model = view === 'old' ? 'old' : 'new';
    this.diff = ok && view ? { look: new DiffLook(c.d, figure), view, model, res: c[model] } : null;
    this.shadeSelect.disabled = this.diff?.view === 'change';   // the change colours the boxes then
    return this.show();
  }

  /** The search box: a layer's name or op, its matches listed; picking one
   * selects it and centres its box (opening the modules that hide it). */
  buildSearch(head) {
    const wrap = el('div', null, { class: 'graph-search' });
    this.search = el('input', null, { type: 'search', 'data-testid': 'graph-search', placeholder: 'Find a node (name or op)',
      'aria-label': 'Find a node by name or op', 'aria-controls': 'graph-found', autocomplete: 'off' });
    this.found = el('ul', null, { id: 'graph-found', class: 'graph-found', 'data-testid': 'graph-found', 'aria-label': 'Nodes found', hidden: '' });
    const list = () => {
      this.found.textContent = '';
      const hits = this.model ? this.model.find(this.search.value) : [];
      this.found.hidden = !this.search.value.trim();
      if (!this.search.value.trim()) return hits;
      if (!hits.length) this.found.appendChild(el('li', 'No node has that in its name or op.', { class: 'hint' }));
      for (const h of hits) {
        const b = el('button', `${h.op} · ${h.name}`, { type: 'button', 'data-row': h.row, title: h.name });
        b.addEventListener('click', () => this.pick(h.row));
        this.found.appendChild(el('li')).appendChild(b);
      }
      return hits;
    };
    this.search.addEventListener('input', list);
    this.search.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') { ev.preventDefault(); const hits = list(); if (hits.length) this.pick(hits[0].row); }
      else if (ev.key === 'Escape') { this.search.value = ''; list(); }
    });
    wrap.append(this.search, this.found);
    head.appendChild(wrap);
  }

  /** A found node: selected everywhere, its box centred. */
  async pick(row) {
    this.found.hidden = true;
    this.host.select(row, 'graph');
    await this.select(row);
    this.reveal(row, false);
  }

  /** A new analysis: same model and graph keep what is open; a new one opens collapsed. */
  update(res) {
    this.ownRes = res;
    return this.show();
  }

  /** Draws the page's model, or the comparison's when one is chosen. */
  show() {
    const res = this.diff ? this.diff.res : this.ownRes;
    if (!res?.graph) { this.clear(); return; }
    const who = this.diff ? `comparison:${this.diff.model}` : this.host.fileName();
    const key = `${who}|${res.layers.length}|${res.graph.edges.count}|${res.graph.modules.count}`;
    const same = this.model && this.modelKey === key;
    this.model = new GraphModel(res.graph, res.layers);
    this.totals = res.totals;
    this.panel.update(res, this.model);
    if (this.selected !== null) this.panel.show(this.selected);
    if (!same) { this.modelKey = key; this.expanded = this.model.initialExpanded(); this.placed = null; delete this.box.dataset.boxes; }
    this.box.hidden = false;
    return this.relayout(!same);
  }

  clear() {
    this.seq++;                // a layout still under way is dropped when it arrives
    this.model = null;
    this.modelKey = null;
    this.placed = null;
    this.svg.textContent = '';
    this.status.textContent = '';
    this.panel.update(null, null);
    this.box.hidden = true;
  }

  setExpanded(open) {
    this.expanded = open;
    return this.relayout(false);
  }

  /** Opens or closes group `key`; refuses an open that would pass MAX_BOXES. */
  toggle(key) {
    const open = new Set(this.expanded);
    if (open.has(key)) {
      for (const k of [...open]) if (this.isInside(k, key)) open.delete(k);
      open.delete(key);
    } else {
      const n = this.model.nodes.get(key);
      if (this.boxes.length - 1 + n.children.length > MAX_BOXES) {
        this.status.textContent = `Opening ${this.model.label(n).title} would draw more than ${MAX_BOXES} boxes: open one of its parts from the module view instead.`;
        return Promise.resolve();
      }
      open.add(key);
    }
    return this.setExpanded(open);
  }

  isInside(key, outer) {
    for (let n = this.model.nodes.get(key)?.parent; n; n = n.parent) if (n.key === outer) return true;
    return false;
  }

  /** The view with the groups in `expanded` open, and what its layout is asked with. */
  viewOf(expanded) {
    // the comparison's edges are the new graph's, in its order (diff.graph.edges)
    const ge = this.diff?.model === 'new' ? this.diff.look.g.edges : null;
    const mark = ge ? (k) => (ge.change[k] === 'shape' ? { old: ge.old_shape[k], new: ge.new_shape[k] } : null) : null;
    const v = this.model.visible(expanded, mark);
    const boxes = v.boxes.map((n) => { const [w, h] = BOX[n.kind]; return { w, h }; });
    const edges = v.edges.map((e) => [e.from, e.to]);
    // the constants box is laid out under the work (edges for the layout
    // only, from the boxes nothing reads, after the drawn ones): the graph
    // opens on its work, not on its constants
    const c = v.boxes.findIndex((n) => n.kind === 'constants');
    if (c >= 0) {
      const read = new Set(v.edges.map((e) => e.from));
      for (let i = 0; i < v.boxes.length; i++) if (i !== c && !read.has(i)) edges.push([i, c]);
    }
    return { v, boxes, edges, key: `${this.modelKey}|${[...expanded].sort().join(',')}` };
  }

  /** The pointer (or the keyboard focus) rests on closed group box i: its
   * open view is laid out now, so that a click finds it ready (a big model's
   * layout takes 100-200 ms in the layout worker). */
  prefetch(i) {
    const n = this.boxes?.[i];
    if (!n || !n.children || this.expanded.has(n.key) || this.boxes.length - 1 + n.children.length > MAX_BOXES) return;
    const { boxes, edges, key } = this.viewOf(new Set([...this.expanded, n.key]));
    this.host.layout(key, boxes, edges).catch(() => {});   // a failure shows on the click
  }

  async relayout(fit) {
    if (!this.model) return;
    const seq = ++this.seq;
    const { v, boxes, edges, key } = this.viewOf(this.expanded);
    this.status.textContent = 'Laying out the graph…';
    let placed;
    try {
      placed = await this.host.layout(key, boxes, edges);
    } catch (e) {
      if (seq === this.seq) this.status.textContent = e.message;
      return;
    }
    if (seq !== this.seq) return;
    Object.assign(this, { boxes: v.boxes, edges: v.edges, rep: v.rep, placed, sizes: boxes });
    this.draw();
    if (fit || !this.fitted) { this.fit(false); this.fitted = true; }
    if (this.selected !== null) this.reveal(this.selected, false);
    this.box.dataset.boxes = String(v.boxes.length);
    this.box.dataset.diffView = this.diff ? this.diff.view : '';
    performance.mark(this.diff ? 'rooflens-diff-graph-drawn' : 'rooflens-graph-drawn');
  }

  /** The figure the boxes are shaded by, as a share of the whole model's. */
  share(node) {
    const total = this.totals?.[this.shadeKey];
    const v = this.model.figure(node, this.shadeKey);
    return total > 0 ? Math.min(1, v / total) : 0;
  }

  draw() {
    if (!this.placed) return;
    const svg = this.svg;
    svg.textContent = '';
    const [name, unit] = SHADES[this.shadeKey];
    svg.appendChild(svgEl('title', {}, `Dataflow graph of ${this.boxes.length} boxes, shaded by ${name}`));
    this.layer = svgEl('g', { class: 'graph-canvas' });
    svg.appendChild(this.layer);
    this.drawGroups();
    this.drawEdges();
    const most = Math.max(1e-300, ...this.boxes.map((n) => this.share(n)));
    this.changes = this.diff ? this.boxes.map((n) => this.changeOf(n)) : null;
    this.boxEls = this.boxes.map((n, i) => this.drawBox(n, i, most, name, unit));
    if (this.diff?.view === 'change') {
      this.diff.look.legend(this.legend, new Set(this.changes.map((c) => c.kind)), { edges: this.edges.some((e) => e.mark) });
    } else boundLegend(this.legend, new Set(this.boxes.map((n) => knownBound(this.model.bound(n)))));
    this.applyView();
    this.drawMinimap();
    const hidden = this.model.layers.length - this.boxes.reduce((a, n) => a + (n.children ? 0 : this.model.rowsOf(n).length), 0);
    const folded = this.model.folded;
    this.status.textContent = `${this.boxes.length} boxes for ${this.model.layers.length} layers` +
      `${hidden ? ` (${hidden} inside closed modules)` : ''}${folded ? `; ${folded === 1 ? 'one layer of no work is folded into the box it feeds or reads' : `${folded} layers of no work are folded into the boxes they feed or read`}, or the constants box` : ''}` +
      (this.diff ? this.diffStatus() : `, shaded by ${name}.`);
    if (this.selected !== null) this.mark(this.selected);
  }

  /** A box's change in the comparison: a layer's (or, when it is the same,
   * that of a layer folded into it), a module's, a run's or the constants'
   * (several layers' changes merged: added and removed first). */
  changeOf(n) {
    const look = this.diff.look, side = this.diff.model;
    if (n.kind === 'layer') return DiffLook.merge([n.row, ...n.folded].map((r) => look.layer(side, r)).filter((c, i) => i === 0 || c.kind !== 'same'));
    if (n.kind === 'module') return look.module(n.path);
    return DiffLook.merge(this.model.rowsOf(n).map((r) => look.layer(side, r)));
  }

  /** The status line's end in a comparison: what is drawn and how many boxes changed. */
  diffStatus() {
    const { look, view } = this.diff;
    const count = (k) => this.changes.filter((c) => c.kind === k).length;
    const which = view === 'change' ? 'the new model, coloured by the change' : `the ${view} model, the boxes that changed outlined`;
    const removed = view === 'change' && look.d.removed.length ? `; ${look.d.removed.length} removed layers are drawn in the old model's graph` : '';
    return `: ${which} in ${look.figure.name} (${count('slower')} cost more, ${count('faster')} less, ${count('added')} added, ${count('removed')} removed, ${count('same')} the same)${removed}.`;
  }

  /** Open modules as dashed outlines with a close handle; fused kernels as one outline. */
  drawGroups() {
    const { x, y } = this.placed;
    const bounds = (idx) => {
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (const i of idx) {
        const { w, h } = this.sizes[i];
        x0 = Math.min(x0, x[i] - w / 2); x1 = Math.max(x1, x[i] + w / 2);
        y0 = Math.min(y0, y[i] - h / 2); y1 = Math.max(y1, y[i] + h / 2);
      }
      return { x0, y0, x1, y1 };
    };
    const under = new Map();
    this.boxes.forEach((n, i) => { for (let p = n.parent; p && p.kind !== 'root'; p = p.parent) { if (!under.has(p)) under.set(p, []); under.get(p).push(i); } });
    for (const [group, idx] of under) {
      if (!this.expanded.has(group.key)) continue;
      // an outer module's outline lies a label's height outside its inner ones
      const b = bounds(idx), pad = 6 + 15 * this.depthOf(group);
      const g = svgEl('g', { class: 'graph-open', ...this.groupAttrs(group, true) });
      g.appendChild(svgEl('title', {}, `Close ${this.model.label(group).title}`));
      g.appendChild(svgEl('rect', { x: b.x0 - pad, y: b.y0 - pad - 14, width: b.x1 - b.x0 + 2 * pad, height: b.y1 - b.y0 + 2 * pad + 14,
        fill: 'none', stroke: '#8a8a8a', 'stroke-dasharray': '4 3', rx: 6 }));
      g.appendChild(svgEl('text', { x: b.x0 - pad + 6, y: b.y0 - pad - 3, 'font-size': 11, fill: '#333333' }, `▾ ${cut(this.model.label(group).title, 40)}`));
      this.layer.appendChild(g);
    }
    const kernels = new Map();
    this.boxes.forEach((n, i) => {
      if (n.kind !== 'layer') return;
      const f = this.model.layers[n.row].fused_into;
      const k = f === null || f === undefined ? n.row : f;
      if (!kernels.has(k)) kernels.set(k, []);
      kernels.get(k).push(i);
    });
    for (const idx of kernels.values()) {
      if (idx.length < 2) continue;
      const b = bounds(idx);
      this.layer.appendChild(svgEl('rect', { class: 'graph-fused', x: b.x0 - 4, y: b.y0 - 4, width: b.x1 - b.x0 + 8, height: b.y1 - b.y0 + 8,
        fill: 'none', stroke: '#222222', 'stroke-width': 1.5, rx: 8, 'data-fused': idx.map((i) => this.boxes[i].row).join(' ') },
      ));
    }
  }

  /** How many open groups lie inside group n around the same boxes (0 for the innermost), at most 3. */
  depthOf(n) {
    let below = 0;
    const walk = (g, d) => { for (const c of g.children || []) if (this.expanded.has(c.key)) { below = Math.max(below, d + 1); if (d < 3) walk(c, d + 1); } };
    walk(n, 0);
    return Math.min(3, below);
  }

  groupAttrs(node, open) {
    const label = this.model.label(node).title;
    const attrs = { role: 'button', tabindex: '-1', 'aria-expanded': String(open) };
    if (node.kind === 'module') attrs['data-module'] = node.path;
    else attrs['data-run'] = node.key;
    return attrs;
  }

  drawEdges() {
    const { points } = this.placed;
    this.edges.forEach((e, k) => {
      const p = points[k];
      if (!p || p.length < 4) return;
      let d = `M${p[0]},${p[1]}`;
      for (let i = 2; i < p.length; i += 2) d += ` L${p[i]},${p[i + 1]}`;
      const g = svgEl('g', { class: 'graph-edge', 'data-edge-change': e.mark ? 'shape' : null });
      const text = `${e.tensor} ${shapeText(e.shape)}${e.count > 1 ? ` and ${e.count - 1} more tensors` : ''}` +
        (e.mark ? `; its shape changed: ${e.mark.old} in the old model, ${e.mark.new} in the new` : '');
      g.appendChild(svgEl('title', {}, text));
      const marked = e.mark ? { stroke: this.diff.look.kinds.get('slower').color, 'stroke-width': 2.6, 'stroke-dasharray': '6 3' }
        : { stroke: '#7a7a7a', 'stroke-width': 1.2 };
      g.appendChild(svgEl('path', { d, fill: 'none', ...marked, 'marker-end': 'url(#graph-arrow)' }));
      g.appendChild(svgEl('path', { d, fill: 'none', stroke: 'transparent', 'stroke-width': 10, 'data-edge': `${e.from}-${e.to}`, 'data-shape': shapeText(e.shape) }));
      this.layer.appendChild(g);
    });
    const defs = svgEl('defs');
    const marker = svgEl('marker', { id: 'graph-arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto' });
    marker.appendChild(svgEl('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#7a7a7a' }));
    defs.appendChild(marker);
    this.svg.insertBefore(defs, this.svg.firstChild);
  }

  drawBox(n, i, most, name, unit) {
    const { w, h } = this.sizes[i];
    const x = this.placed.x[i] - w / 2, y = this.placed.y[i] - h / 2;
    const bound = knownBound(this.model.bound(n));
    const s = this.share(n);
    let { fill, text } = shade(boundColor(bound), 0.12 + 0.88 * Math.sqrt(s / most));
    let stroke = boundColor(bound);
    const lab = this.model.label(n);
    const figure = eng(this.model.figure(n, this.shadeKey), unit);
    const c = this.changes?.[i];
    let line = cut(`${figure} · ${pct(s)}`, 26), said = '';
    if (c) {
      const look = this.diff.look, p = look.paint(c);
      if (this.diff.view === 'change') ({ fill, text } = p), line = cut(look.short(c), 26);
      stroke = c.kind === 'same' && this.diff.view !== 'change' ? stroke : p.stroke;
      said = `; ${look.sentence(c)}`;
    }
    const attrs = n.kind === 'layer' ? { 'data-layer': n.row, role: 'button', tabindex: '-1' }
      : n.kind === 'constants' ? { 'data-constants': n.rows.length, role: 'button', tabindex: '-1' }
        : this.groupAttrs(n, false);
    const g = svgEl('g', { class: `graph-box graph-${n.kind}`, 'data-box': i, 'data-bound': bound, 'data-change': c?.kind,
      'data-old': c?.old, 'data-new': c?.new, 'data-ratio': c?.ratio, ...attrs });
    // the title is the box's accessible name and its tooltip
    const leaf = !n.children;
    const verb = leaf ? '' : 'Open ';
    g.appendChild(svgEl('title', {}, `${verb}${lab.title} — ${lab.sub}: ${figure} (${pct(s)} of ${name}), bound: ${wordName('bound', bound)}${said}`));
    const changed = c && c.kind !== 'same';
    const width = changed ? 3 : leaf ? 1 : 2.5;
    g.appendChild(svgEl('rect', { x, y, width: w, height: h, rx: leaf ? 4 : 8, fill, stroke,
      'stroke-width': width, 'data-width': width, 'stroke-dasharray': c?.kind === 'removed' ? '5 3' : null }));
    g.appendChild(svgEl('text', { x: x + 8, y: y + 15, 'font-size': 12, 'font-weight': 600, fill: text }, `${leaf ? '' : '▸ '}${cut(lab.title, 20)}`));
    g.appendChild(svgEl('text', { x: x + 8, y: y + 30, 'font-size': 10, fill: text }, line));
    g.addEventListener('click', (ev) => { ev.stopPropagation(); this.activate(i); });
    if (!leaf) g.addEventListener('pointerenter', () => this.prefetch(i));
    this.layer.appendChild(g);
    return g;
  }

  /** A click or Enter on box i: a layer is selected, a group opens. */
  activate(i) {
    const n = this.boxes[i];
    this.active = i;
    if (n.kind === 'layer') { this.select(n.row); this.host.select(n.row, 'graph'); return Promise.resolve(); }
    if (n.kind === 'constants') { this.panel.showConstants(n.rows); return Promise.resolve(); }
    return this.toggle(n.key);
  }

  /** The open-module outlines close on click too. */
  wireGroupClicks() {
    this.svg.addEventListener('click', (ev) => {
      const g = ev.target.closest?.('.graph-open');
      if (!g) return;
      const key = g.dataset.module ? [...this.model.nodes.values()].find((n) => n.path === g.dataset.module)?.key : g.dataset.run;
      if (key) this.toggle(key);
    });
  }

  /** Layer `row` selected elsewhere (table, charts, link): shown, opening what hides it. */
  async select(row) {
    this.selected = row;
    if (!this.model || row === null || row === undefined || row >= this.model.layers.length) return;
    this.panel.show(row);
    const hidden = this.model.ancestors(row).filter((n) => !this.expanded.has(n.key));
    if (hidden.length) {
      const open = new Set(this.expanded);
      for (const n of hidden) open.add(n.key);
      await this.setExpanded(open);
    } else {
      this.mark(row);
      this.reveal(row, true);
    }
  }

  mark(row) {
    for (const e of this.svg.querySelectorAll('.graph-box[aria-current]')) { e.removeAttribute('aria-current'); const r = e.querySelector('rect'); r.setAttribute('stroke-width', r.dataset.width); }
    const i = this.rep?.[row];
    const g = this.boxEls?.[i];
    if (!g) return;
    g.setAttribute('aria-current', 'true');
    g.querySelector('rect').setAttribute('stroke-width', 4);
  }

  /** Centres the box of layer `row` in the viewport. */
  reveal(row, smooth) {
    const i = this.rep?.[row];
    if (i === undefined || !this.placed) return;
    this.mark(row);
    const { width, height } = this.viewport.getBoundingClientRect();
    this.view.x = width / 2 - this.placed.x[i] * this.view.k;
    this.view.y = height / 2 - this.placed.y[i] * this.view.k;
    // the page itself stays where it is: a layer picked on a chart or in
    // the table is shown here without scrolling what was clicked away
    this.applyView(smooth);
  }

  /** whole: the whole graph in the viewport, however small that makes it
   * (the Fit button); else the view a graph opens with: whole when that
   * keeps its text legible (OPEN_ZOOM), else its top at the largest scale
   * from OPEN_MIN_ZOOM to OPEN_ZOOM that shows its whole width, or, on a
   * screen too narrow even for that (a phone), at OPEN_MIN_ZOOM centred on
   * its first box: boxes, not the edges between them. */
  fit(whole) {
    if (!this.placed) return;
    const { width, height } = this.viewport.getBoundingClientRect();
    if (!(width > 0 && height > 0)) return;
    const { width: gw, height: gh, x: bx, y: by } = this.placed;
    const k = Math.min(1.2, width / (gw + 32), height / (gh + 32));
    if (whole || k >= OPEN_ZOOM) {
      this.view = { k, x: (width - gw * k) / 2, y: (height - gh * k) / 2 };
    } else {
      const kk = Math.min(OPEN_ZOOM, Math.max(OPEN_MIN_ZOOM, width / (gw + 32)));
      let top = 0;
      for (let i = 1; i < this.boxes.length; i++) if (by[i] < by[top] || (by[i] === by[top] && bx[i] < bx[top])) top = i;
      const x = kk * (gw + 32) <= width + 0.5 ? (width - gw * kk) / 2 : width / 2 - bx[top] * kk;
      this.view = { k: kk, x, y: 16 - 8 * kk };
    }
    this.applyView();
  }

  applyView() {
    this.layer?.setAttribute('transform', `translate(${this.view.x},${this.view.y}) scale(${this.view.k})`);
    this.drawMinimapFrame();
  }

  wirePanZoom() {
    let drag = null;
    this.viewport.addEventListener('pointerdown', (ev) => {
      if (ev.target.closest?.('.graph-box, .graph-open')) return;
      drag = { x: ev.clientX - this.view.x, y: ev.clientY - this.view.y };
      this.viewport.setPointerCapture?.(ev.pointerId);
    });
    this.viewport.addEventListener('pointermove', (ev) => {
      if (!drag) return;
      this.view.x = ev.clientX - drag.x; this.view.y = ev.clientY - drag.y;
      this.applyView();
    });
    const stop = () => { drag = null; };
    this.viewport.addEventListener('pointerup', stop);
    this.viewport.addEventListener('pointercancel', stop);
    // Ctrl + wheel (a pinch comes as one) zooms, as on the charts; a plain
    // wheel scrolls the page past the graph.
    this.viewport.addEventListener('wheel', (ev) => {
      if (!ev.ctrlKey) return;
      ev.preventDefault();
      const r = this.viewport.getBoundingClientRect();
      const px = ev.clientX - r.left, py = ev.clientY - r.top;
      const k = Math.min(4, Math.max(0.03, this.view.k * Math.exp(-ev.deltaY * 0.0015)));
      this.view.x = px - (px - this.view.x) * (k / this.view.k);
      this.view.y = py - (py - this.view.y) * (k / this.view.k);
      this.view.k = k;
      this.applyView();
    }, { passive: false });
    this.minimap.addEventListener('click', (ev) => {
      if (!this.placed) return;
      const r = this.minimap.getBoundingClientRect();
      const s = this.miniScale;
      const gx = (ev.clientX - r.left) / s, gy = (ev.clientY - r.top) / s;
      const vp = this.viewport.getBoundingClientRect();
      this.view.x = vp.width / 2 - gx * this.view.k; this.view.y = vp.height / 2 - gy * this.view.k;
      this.applyView();
    });
    this.wireGroupClicks();
  }

  /** Arrows move between boxes along the edges (up, down) and across a rank
   * (left, right); Enter selects a layer or opens a group. */
  wireKeys() {
    this.viewport.tabIndex = 0;
    this.viewport.addEventListener('keydown', (ev) => {
      if (!this.boxes?.length) return;
      const moves = { ArrowDown: 'down', ArrowUp: 'up', ArrowLeft: 'left', ArrowRight: 'right' };
      if (moves[ev.key]) {
        ev.preventDefault();
        this.focusBox(this.active === null ? this.firstBox() : this.neighbour(this.active, moves[ev.key]));
      } else if (ev.key === 'Enter' || ev.key === ' ') {
        if (this.active === null) return;
        ev.preventDefault();
        const n = this.boxes[this.active];
        this.activate(this.active).then(() => { if (n.children) this.focusBox(this.boxes.findIndex((b) => b.first >= n.first)); });
      }
    });
  }

  firstBox() {
    if (this.selected !== null && this.rep) return this.rep[this.selected];
    let best = 0;
    for (let i = 1; i < this.boxes.length; i++) if (this.placed.y[i] < this.placed.y[best]) best = i;
    return best;
  }

  neighbour(i, dir) {
    const { x, y } = this.placed;
    if (dir === 'down' || dir === 'up') {
      const next = this.edges.filter((e) => (dir === 'down' ? e.from === i : e.to === i)).map((e) => (dir === 'down' ? e.to : e.from));
      if (!next.length) return i;
      return next.reduce((a, b) => (Math.abs(x[b] - x[i]) < Math.abs(x[a] - x[i]) ? b : a));
    }
    let best = i, gap = Infinity;
    for (let j = 0; j < this.boxes.length; j++) {
      const dx = x[j] - x[i];
      if (Math.abs(y[j] - y[i]) > 30 || (dir === 'right' ? dx <= 0 : dx >= 0)) continue;
      if (Math.abs(dx) < gap) { gap = Math.abs(dx); best = j; }
    }
    return best;
  }

  focusBox(i) {
    if (i === undefined || i < 0 || !this.boxEls?.[i]) return;
    if (this.active !== null && this.boxEls[this.active]) this.boxEls[this.active].setAttribute('tabindex', '-1');
    this.active = i;
    const g = this.boxEls[i];
    g.setAttribute('tabindex', '0');
    g.focus({ preventScroll: true });
    this.prefetch(i);
    const r = this.viewport.getBoundingClientRect();
    const sx = this.placed.x[i] * this.view.k + this.view.x, sy = this.placed.y[i] * this.view.k + this.view.y;
    if (sx < 40 || sx > r.width - 40 || sy < 30 || sy > r.height - 30) {
      this.view.x = r.width / 2 - this.placed.x[i] * this.view.k; this.view.y = r.height / 2 - this.placed.y[i] * this.view.k;
      this.applyView();
    }
  }

  /** The minimap: every box as a dot, for graphs bigger than the viewport. */
  drawMinimap() {
    const big = this.boxes.length > 40;
    this.minimap.hidden = !big;
    if (!big) return;
    const c = this.minimap.getContext('2d');
    const s = this.miniScale = Math.min(this.minimap.width / this.placed.width, this.minimap.height / this.placed.height);
    c.fillStyle = '#ffffff'; c.fillRect(0, 0, this.minimap.width, this.minimap.height);
    this.boxes.forEach((n, i) => {
      c.fillStyle = boundColor(this.model.bound(n));
      const { w, h } = this.sizes[i];
      c.fillRect((this.placed.x[i] - w / 2) * s, (this.placed.y[i] - h / 2) * s, Math.max(1, w * s), Math.max(1, h * s));
    });
    this.miniImage = c.getImageData(0, 0, this.minimap.width, this.minimap.height);
    this.drawMinimapFrame();
  }

  drawMinimapFrame() {
    if (this.minimap.hidden || !this.miniImage) return;
    const c = this.minimap.getContext('2d');
    c.putImageData(this.miniImage, 0, 0);
    const r = this.viewport.getBoundingClientRect(), s = this.miniScale;
    c.strokeStyle = '#d00000'; c.lineWidth = 1.5;
    c.strokeRect(-this.view.x / this.view.k * s, -this.view.y / this.view.k * s, r.width / this.view.k * s, r.height / this.view.k * s);
  }

  /** The whole graph as a standalone SVG document (every style inline). */
  svgText() {
    const copy = this.svg.cloneNode(true);
    const w = Math.ceil(this.placed.width + 40), h = Math.ceil(this.placed.height + 40);
    copy.setAttribute('xmlns', SVG);
    copy.setAttribute('width', w); copy.setAttribute('height', h);
    copy.setAttribute('viewBox', `0 0 ${w} ${h}`);
    copy.setAttribute('font-family', 'system-ui, sans-serif');
    copy.querySelector('.graph-canvas').setAttribute('transform', 'translate(20,20)');
    copy.insertBefore(svgEl('rect', { width: w, height: h, fill: '#ffffff' }), copy.firstChild);
    return { text: new XMLSerializer().serializeToString(copy), w, h };
  }

  saveSvg() {
    if (!this.placed) return;
    download(`${this.host.baseName()}-graph.svg`, this.svgText().text, 'image/svg+xml');
  }

  async savePng() {
    if (!this.placed) return;
    const { text, w, h } = this.svgText();
    const scale = Math.min(2, 16000 / Math.max(w, h));
    const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
    try {
      const img = new Image();
      await new Promise((ok, fail) => { img.onload = ok; img.onerror = () => fail(new Error('the graph could not be drawn as PNG')); img.src = url; });
      const canvas = document.createElement('canvas');
      canvas.width = Math.ceil(w * scale); canvas.height = Math.ceil(h * scale);
      const c = canvas.getContext('2d');
      c.scale(scale, scale);
      c.drawImage(img, 0, 0);
      const blob = await new Promise((ok) => canvas.toBlob(ok, 'image/png'));
      download(`${this.host.baseName()}-graph.png`, blob, 'image/png');
    } catch (e) {
      this.status.textContent = e.message;
    } finally {
      URL.revokeObjectURL(url);
    }
  }
}
