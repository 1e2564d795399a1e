// How a comparison of two models looks in the graph and module views: each
// box's change (the core's words, diff.graph), its colour (the core's table
// of kinds) at a strength set by the core's scale, the figures in its title
// (the diff's own: diff.matched, added, removed and graph.modules, the
// figures the Compare table and the Markdown show) and the legend. It
// computes no figure.
import { eng, signedPct } from './format.js';
import { el } from './dom.js';

/** A mark beside each change, so that no box says its change by colour alone. */
const MARK = { slower: '▲', faster: '▼', added: '+', removed: '−', same: '=', unknown: '?' };
/** The strengths of the scale's steps (under the first step, to the second, beyond). */
const lightest = 0.3;

/** `color` (#rrggbb) at strength a over white, and a text colour that reads on it (WCAG luminance). */
export function mixOverWhite(color, a) {
  const n = parseInt(color.slice(1), 16);
  const mix = (c) => Math.round(255 - (255 - c) * a);
  const rgb = [mix(n >> 16), mix((n >> 8) & 255), mix(n & 255)];
  const lin = rgb.map((c) => { const s = c / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; });
  const lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  return { fill: `rgb(${rgb.join(', ')})`, text: (1.05 / (lum + 0.05)) > ((lum + 0.05) / 0.05) ? '#ffffff' : '#111111' };
}

export class DiffLook {
  /** d: the core's diff object (with its graph); figure: an id of d.graph.figures. */
  constructor(d, figure) {
    this.d = d;
    this.g = d.graph;
    this.kinds = new Map(this.g.kinds.map((k) => [k.id, k]));
    this.figure = this.g.figures.find((f) => f.id === figure) || this.g.figures[0];
    this.modulePaths = new Map(this.g.modules.path.map((p, i) => [p, i]));
  }

  kindName(kind) { return this.kinds.get(kind)?.name ?? kind; }

  /** Layer `row` of side 'old' or 'new': {kind, old, new, ratio, name}. */
  layer(side, row) {
    const s = this.g[side], f = this.figure.id;
    const kind = s.change[f][row], at = s.at[row];
    if (kind === 'added') { const L = this.d.added[at]; return { kind, old: null, new: L?.[f] ?? null, ratio: null, name: L?.name }; }
    if (kind === 'removed') { const L = this.d.removed[at]; return { kind, old: L?.[f] ?? null, new: null, ratio: null, name: L?.name }; }
    const L = this.d.matched[at], v = L?.[f] || {};
    return { kind, old: v.old ?? null, new: v.new ?? null, ratio: v.ratio ?? null, name: L?.name };
  }

  /** The module of `path` (the new model's modules; one only the old model has is removed). */
  module(path) {
    const m = this.modulePaths.get(path);
    if (m === undefined) return { kind: 'removed', old: null, new: null, ratio: null };
    const v = this.g.modules[this.figure.id];
    return { kind: v.change[m], old: v.old[m], new: v.new[m], ratio: v.ratio[m] };
  }

  /** Several layers' changes as one box's (a run of modules, a box with folded layers). */
  static merge(changes) {
    const order = ['added', 'removed', 'slower', 'faster', 'unknown'];
    for (const k of order) { const c = changes.find((x) => x.kind === k); if (c) return c; }
    return changes[0] || { kind: 'same', old: null, new: null, ratio: null };
  }

  /** The step of the scale a relative change reaches (0: under the first; a change from zero: the last). */
  step(ratio) {
    const steps = this.g.scale.steps;
    if (!Number.isFinite(ratio)) return steps.length;
    return steps.filter((s) => Math.abs(ratio) >= s).length;
  }

  /** The fill of a box of change c: the kind's colour at the strength of its step. */
  paint(c) {
    const color = this.kinds.get(c.kind)?.color || '#ffffff';
    if (c.kind === 'slower' || c.kind === 'faster') {
      const n = this.g.scale.steps.length;
      return { ...mixOverWhite(color, lightest + (1 - lightest) * this.step(c.ratio) / n), stroke: color };
    }
    if (c.kind === 'same') return { fill: color, text: '#111111', stroke: '#8a8a8a' };
    return { ...mixOverWhite(color, 0.25), stroke: color };
  }

  /** A short line for a box: "▲ 12.3 µs (+41.2 %)". */
  short(c) {
    const unit = this.figure.unit;
    if (c.kind === 'added') return `${MARK.added} ${eng(c.new, unit)}`;
    if (c.kind === 'removed') return `${MARK.removed} ${eng(c.old, unit)}`;
    if (c.kind === 'same') return `${MARK.same} ${eng(c.new, unit)}`;
    return `${MARK[c.kind] || ''} ${eng(c.new, unit)}${Number.isFinite(c.ratio) ? ` (${signedPct(c.ratio)})` : ''}`;
  }

  /** The title's sentence: "costs more: time at the forecast 10.1 µs → 14.3 µs (+41.2 %)". */
  sentence(c) {
    const { name, unit } = this.figure;
    const ratio = Number.isFinite(c.ratio) ? ` (${signedPct(c.ratio)})` : '';
    if (c.kind === 'added') return `${this.kindName('added')}: ${name} ${eng(c.new, unit)}`;
    if (c.kind === 'removed') return `${this.kindName('removed')}: ${name} ${eng(c.old, unit)}`;
    return `${this.kindName(c.kind)}: ${name} ${eng(c.old, unit)} → ${eng(c.new, unit)}${ratio}`;
  }

  /** The legend: each kind in use, the strengths of the scale, a changed shape. */
  legend(ul, used, { edges = false } = {}) {
    ul.textContent = '';
    const steps = this.g.scale.steps.map((s) => signedPct(s).replace('+', ''));
    const item = (label, fill, attrs = {}, stroke) => {
      const li = el('li', null, attrs);
      const sw = el('span', null, { class: 'bound-swatch', 'aria-hidden': 'true' });
      sw.style.background = fill;
      if (stroke) sw.style.outline = `2px solid ${stroke}`;
      li.append(sw, label);
      ul.appendChild(li);
    };
    const bands = [`under ${steps[0]}`, ...steps.slice(1).map((s, i) => `${steps[i]} to ${s}`), `${steps[steps.length - 1]} or more`];
    for (const kind of ['slower', 'faster']) {
      if (!used.has(kind)) continue;
      bands.forEach((band, i) => {
        const p = this.paint({ kind, ratio: i < this.g.scale.steps.length ? (this.g.scale.steps[i] + (this.g.scale.steps[i - 1] || 0)) / 2 : Infinity });
        item(`${MARK[kind]} ${this.kindName(kind)}, ${band}`, p.fill, { 'data-change': kind, title: this.kinds.get(kind).meaning });
      });
    }
    for (const kind of ['added', 'removed', 'same', 'unknown']) {
      if (!used.has(kind)) continue;
      const p = this.paint({ kind });
      item(`${MARK[kind]} ${this.kindName(kind)}`, p.fill, { 'data-change': kind, title: this.kinds.get(kind).meaning }, p.stroke);
    }
    if (edges) item('a tensor that changed shape (its edge)', this.kinds.get('slower').color, { 'data-change': 'shape' });
    ul.appendChild(el('li', `Colour: the change in ${this.figure.name}, from the old model to the new.`, { class: 'hint' }));
  }
}
