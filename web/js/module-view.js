// The module view: an icicle of the model's modules (the core's
// graph.modules), each as wide as its share of the time (or energy, FLOPs,
// bytes), coloured by the bound its layers spend most time in (the core's
// table of bounds, with a legend of the bounds drawn). Clicking a
// module zooms into it and filters the layer table to its layers; the
// model's bar zooms back out. Siblings too thin to read alone are drawn as
// one "N modules" cell that spreads them out when clicked, so a flat
// 100,000-layer model stays a few hundred elements, each legible. It shows
// no figure of its own: widths are the core's module sums over the core's
// totals (a spread-out cell's over its members' sum, for the width only).
import { eng, pct, count as countText } from './format.js';
import { el } from './dom.js';
import { boundColor, wordName } from './words.js';
import { boundLegend } from './graph-panel.js';
import { DiffLook } from './diff-look.js';

const SVG = 'http://www.w3.org/2000/svg';
const METRICS = { t: ['time', 's'], energy_j: ['energy', 'J'], flops: ['FLOPs', 'FLOP'], bytes: ['bytes', 'B'] };
const ROW = 26;
const MIN_PX = 1;      // narrower than a pixel: not drawn at all
const SMALL_PX = 4;    // narrower than this: too thin to read or click alone
const GROUP_PX = 48;   // a run of thin siblings is drawn as one cell this wide, room for its count
const GROUP_FILL = '#5b6770';

function svgEl(tag, attrs = {}, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

export class ModuleView {
  /** box: the view's section; host: the page's host (host.js): filterByModule(path or null). */
  constructor(box, host) {
    this.box = box;
    this.host = host;
    this.metric = 't';
    this.focus = -1;   // module index at full width; -1 the whole model
    this.span = null;  // [from, to): only those of the focus's children, spread out
    this.ownRes = null;
    this.diff = null;  // a comparison drawn: {look, res} (the new model's answer), or null
    const head = el('div', null, { class: 'graph-head' });
    head.appendChild(el('h2', 'Modules', { id: 'module-title' }));
    const label = el('label', 'Width by ');
    this.select = el('select', null, { 'data-testid': 'module-metric' });
    for (const [k, [name]] of Object.entries(METRICS)) this.select.appendChild(el('option', name, { value: k }));
    this.select.addEventListener('change', () => { this.metric = this.select.value; this.draw(); });
    label.appendChild(this.select);
    head.appendChild(label);
    this.status = el('p', '', { class: 'graph-status', 'data-testid': 'module-status', 'aria-live': 'polite' });
    this.svg = svgEl('svg', { class: 'module-svg', 'data-testid': 'module-view', role: 'group', 'aria-labelledby': 'module-title' });
    this.legend = el('ul', null, { class: 'bound-legend', 'data-testid': 'module-legend', 'aria-label': 'Colours: what limits each module' });
    this.box.append(head, this.status, this.legend, this.svg);
    // One Tab stop for the whole icicle (a roving tabindex): arrows move
    // between the bars Tab used to reach, Enter zooms.
    this.svg.addEventListener('keydown', (ev) => {
      const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[ev.key];
      if (!step) return;
      const bars = [...this.svg.querySelectorAll('g[data-reachable]')];
      const at = bars.indexOf(document.activeElement);
      if (at < 0 || !bars.length) return;
      ev.preventDefault();
      this.rove(bars[Math.min(bars.length - 1, Math.max(0, at + step))], true);
    });
  }

  /** The one bar Tab reaches (tabindex 0); `focus` moves the focus to it. */
  rove(bar, focus = false) {
    for (const g of this.svg.querySelectorAll('g[data-reachable]')) g.setAttribute('tabindex', g === bar ? '0' : '-1');
    if (bar && focus) bar.focus();
  }

  /** A comparison (graph-view.js setComparison's c, view and figure): the
   * new model's modules, as wide as their time at its forecast, coloured by
   * their change in `figure`; null or no view: the page's model. */
  setComparison(c, view, figure) {
    const ok = view && c?.d?.graph && c.new?.graph && c.d.graph.modules.count === c.new.graph.modules.count;
    this.diff = ok ? { look: new DiffLook(c.d, figure), res: c.new } : null;
    this.update(this.ownRes, true);
  }

  update(res, keepOwn = false) {
    if (!keepOwn) this.ownRes = res;
    res = this.diff ? this.diff.res : res;
    this.select.disabled = !!this.diff;
    const g = res?.graph;
    if (!g || !g.modules.count) {
      this.res = null;
      this.svg.textContent = '';
      this.legend.textContent = '';
      this.status.textContent = g ? 'The node names form no modules (names like /layer1/conv1/Conv do).' : '';
      return;
    }
    const keep = this.res && this.res.graph.modules.count === g.modules.count &&
      (this.focus < 0 || this.res.graph.modules.path[this.focus] === g.modules.path[this.focus]);
    this.res = res;
    if (!keep) { this.focus = -1; this.span = null; }
    this.children = Array.from({ length: g.modules.count + 1 }, () => []);
    for (let m = 0; m < g.modules.count; m++) this.children[g.modules.parent[m] + 1].push(m);
    if (!res.graph.modules.energy_j && this.metric === 'energy_j') this.metric = 't';
    this.select.querySelector('option[value=energy_j]').disabled = !res.graph.modules.energy_j;
    this.draw();
  }

  value(m) {
    // a comparison: the new model's time at the forecast (the diff's figures)
    if (this.diff) return (m < 0 ? this.diff.look.d.totals.forecast_s.new : this.diff.look.g.modules.forecast_s.new[m]) ?? 0;
    if (m < 0) return this.res.totals[this.metric] ?? 0;
    return this.res.graph.modules[this.metric]?.[m] ?? 0;
  }

  /** Zooms to module m (-1: the whole model) and tells the controller;
   * span [from, to): only those of m's children, spread over the width. */
  zoom(m, span = null) {
    this.focus = m;
    this.span = span;
    this.draw();
    this.host.filterByModule(m < 0 ? null : this.res.graph.modules.path[m]);
  }

  /** The children of m drawn over [x0, x0 + w0), as cells: a module wide
   * enough to read, or a run of consecutive siblings each narrower than
   * SMALL_PX, drawn as one cell "N modules" (a flat model of 50,000 modules
   * shows a few dozen such cells, not 50,000 invisible slivers). A run grows
   * until it is GROUP_PX wide; a run left narrower than MIN_PX is left out. */
  cells(kids, total, x0, w0) {
    const out = [];
    let x = x0, run = null, left = 0;
    const close = () => {
      if (!run) return;
      if (run.w >= MIN_PX) { out.push(run.to - run.from === 1 ? { m: kids[run.from], x: run.x, w: run.w } : run); x += run.w; }
      else left += run.to - run.from;
      run = null;
    };
    for (let i = 0; i < kids.length; i++) {
      const w = total > 0 ? (w0 * this.value(kids[i])) / total : 0;
      if (w >= SMALL_PX) { close(); out.push({ m: kids[i], x, w }); x += w; continue; }
      run ??= { from: i, to: i, x, w: 0 };
      run.to = i + 1;
      run.w += w;
      if (run.w >= GROUP_PX) close();
    }
    close();
    return { cells: out, left };
  }

  /** m's children in the span [from, to), or all of them. */
  kids(m, span) { const all = this.children[m + 1]; return span ? all.slice(span[0], span[1]) : all; }

  draw() {
    if (!this.res) return;
    const mo = this.res.graph.modules;
    const width = Math.max(320, this.svg.getBoundingClientRect().width || 960);
    this.svg.textContent = '';
    const [name, unit] = this.diff ? ['time at the forecast of the new model', 's'] : METRICS[this.metric];
    // The focused module's ancestors, full width, above it: the way back out.
    const chain = [];
    for (let m = this.focus; m >= 0; m = mo.parent[m]) chain.unshift(m);
    const rows = [[-1, 0, width], ...chain.map((m) => [m, 0, width])];
    let depth = 0;
    this.chainDepth = rows.length - (this.span ? 0 : 1);
    for (const [m, x, w] of rows) this.bar(m, x, w, depth++, name, unit, m === this.focus && !this.span);
    const top = this.kids(this.focus, this.span);
    if (this.span) this.groupBar(this.focus, this.span, 0, width, depth++, true);
    let drawn = rows.length, groups = 0, tooSmall = 0;
    // a span's width is its members' share of one another, not of the parent
    const spanTotal = this.span ? top.reduce((a, c) => a + this.value(c), 0) : this.value(this.focus);
    const stack = [[this.focus, top, spanTotal, 0, width, depth]];
    while (stack.length) {
      const [m, kids, total, x0, w0, d] = stack.pop();
      const { cells, left } = this.cells(kids, total, x0, w0);
      tooSmall += left;
      for (const c of cells) {
        if (c.m === undefined) {
          // span indices are into m's whole list of children
          const base = kids === this.children[m + 1] ? 0 : this.span[0];
          this.groupBar(m, [base + c.from, base + c.to], c.x, c.w, d, false);
          groups++;
          continue;
        }
        this.bar(c.m, c.x, c.w, d, name, unit, false);
        drawn++;
        stack.push([c.m, this.children[c.m + 1], this.value(c.m), c.x, c.w, d + 1]);
      }
    }
    this.drawLegend();
    const maxDepth = Math.max(depth, ...this.svgDepths());
    this.svg.setAttribute('height', (maxDepth + 1) * ROW + 4);
    this.svg.setAttribute('viewBox', `0 0 ${width} ${(maxDepth + 1) * ROW + 4}`);
    this.rove(this.svg.querySelector('g[data-reachable][aria-current=true]') || this.svg.querySelector('g[data-reachable]'));
    this.status.textContent = `${drawn} of ${mo.count + 1} bars, width by ${name}` +
      (this.diff ? `, colour by the change in ${this.diff.look.figure.name}` : '') +
      (groups ? `; ${groups === 1 ? 'one cell gathers' : `${groups} cells each gather`} modules too narrow to draw alone (click ${groups === 1 ? 'it' : 'one'} to spread them out)` : '') +
      (tooSmall ? `; ${tooSmall === 1 ? 'one module' : `${tooSmall} modules`} under a pixel wide ${tooSmall === 1 ? 'is' : 'are'} left out (click a module to zoom in)` : '') + '.';
  }

  /** The colours in use, each with its bound's name (the core's words), in
   * the core's order; the cells that gather thin modules too. */
  drawLegend() {
    if (this.diff) {
      this.diff.look.legend(this.legend, new Set([...this.svg.querySelectorAll('g[data-change]')].map((g) => g.dataset.change)));
      return;
    }
    const used = new Set([...this.svg.querySelectorAll('g[data-bound]')].map((g) => g.dataset.bound));
    boundLegend(this.legend, used, this.svg.querySelector('g[data-group]') ? [['modules too narrow to draw alone', GROUP_FILL]] : []);
  }

  /** One cell for m's children [from, to): too narrow to draw one by one. */
  groupBar(m, [from, to], x, w, depth, focused) {
    const mo = this.res.graph.modules;
    const kids = this.children[m + 1];
    const short = (k) => { const p = mo.path[k]; return p.slice(p.lastIndexOf('/') + 1) || p; };
    const count = to - from;
    const n = countText(count);
    const text = `${n} modules, ${short(kids[from])} to ${short(kids[to - 1])}, ` +
      (focused ? 'spread over the width: click to see all of ' + (m < 0 ? 'the model' : mo.path[m]) : 'each too narrow to draw alone: click to spread them out');
    const reachable = depth <= this.chainDepth + 1;
    const g = svgEl('g', { 'data-group': `${from}-${to}`, 'data-count': count, 'data-depth': depth, role: 'button', tabindex: '-1',
      'data-reachable': reachable ? '' : null, 'aria-current': focused ? 'true' : null });
    g.appendChild(svgEl('title', {}, text));
    g.appendChild(svgEl('rect', { x, y: depth * ROW, width: Math.max(0, w - 1), height: ROW - 2, fill: GROUP_FILL, rx: 2 }));
    this.label(g, x, w, depth, w - 8 >= 7 * (n.length + 8) ? `${n} modules` : n);
    const go = () => (focused ? this.zoom(m) : this.zoom(m, [from, to]));
    g.addEventListener('click', go);
    g.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); go(); } });
    this.svg.appendChild(g);
  }

  /** The bar's name inside it, cut to fit, when the bar is wide enough. */
  label(g, x, w, depth, short, ink = '#ffffff') {
    if (w <= 40) return;
    const chars = Math.floor((w - 8) / 7);
    g.appendChild(svgEl('text', { x: x + 4, y: depth * ROW + 16, 'font-size': 12, fill: ink },
      short.length > chars ? short.slice(0, Math.max(1, chars - 1)) + '…' : short));
  }

  svgDepths() { return [...this.svg.querySelectorAll('g[data-depth]')].map((g) => Number(g.dataset.depth)); }

  bar(m, x, w, depth, name, unit, focused) {
    const mo = this.res.graph.modules;
    const bound = m < 0 ? this.res.sol?.chosen?.bound : mo.bound[m];
    let color = boundColor(bound), ink = '#ffffff', said = `, limited by ${wordName('bound', bound)}`, change = null;
    const label = m < 0 ? 'whole model' : mo.path[m];
    const share = this.value(-1) > 0 ? this.value(m) / this.value(-1) : 0;
    let c = null;
    if (this.diff && m >= 0) {
      c = this.diff.look.module(mo.path[m]);
      const p = this.diff.look.paint(c);
      color = p.fill, ink = p.text, change = c.kind;
      said = `; ${this.diff.look.sentence(c)}`;
    } else if (this.diff) {
      color = GROUP_FILL;
      said = '';
    }
    const text = `${label}: ${eng(this.value(m), unit)} (${pct(share)} of the ${name})${m < 0 ? '' : `, ${mo.layers[m]} layers`}${said}`;
    // Tab reaches the way out and the next level down; deeper bars by click (a
    // big model has hundreds). The title is the bar's accessible name.
    const reachable = depth <= this.chainDepth + 1;
    const g = svgEl('g', { 'data-module': m < 0 ? '' : mo.path[m], 'data-bound': bound, 'data-change': change, 'data-old': c?.old, 'data-new': c?.new, 'data-depth': depth, role: 'button', tabindex: '-1',
      'data-reachable': reachable ? '' : null, 'aria-current': focused ? 'true' : null });
    g.appendChild(svgEl('title', {}, text));
    g.appendChild(svgEl('rect', { x, y: depth * ROW, width: Math.max(0, w - 1), height: ROW - 2, fill: color, rx: 2,
      stroke: change && change !== 'same' ? this.diff.look.paint({ kind: change }).stroke : null }));
    this.label(g, x, w, depth, m < 0 ? label : label.slice(label.lastIndexOf('/') + 1) || label, ink);
    // the focused bar zooms out a level; any other (the focus, when a span of
    // its children is spread out) zooms to itself
    const go = () => this.zoom(m === this.focus && !this.span ? (m < 0 ? -1 : mo.parent[m]) : m);
    g.addEventListener('click', go);
    g.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); go(); } });
    this.svg.appendChild(g);
  }
}
