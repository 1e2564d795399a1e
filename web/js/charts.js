// Chart views (Chart.js, loaded by chart-lib.js): time roofline, energy
// roofline and time-based roofline, all three of the chosen model's kernels
// (a fused group is one point, on its first layer; the core's kernel_*
// figures), and a point's tooltip gives that kernel's figures, never its first
// layer's beside them. Log-log axes clamped to the data and the
// ceilings in view; layers coloured by op type, sized by
// their share of time. Layers that land on the same spot (a transformer's
// repeated blocks) are one point marked ×N. Each chart has an HTML legend
// (full names; click to show or hide, kept in the link) and its data as a
// table for screen readers. Every figure drawn is a field of the core's
// response: nothing is computed here but positions on the page.
import { eng, shapes } from './format.js';
import { el } from './dom.js';
import { headline, boundPhrase } from './figures.js';
import { chartClass } from './chart-lib.js';
import { wordName } from './words.js';
import { whiteBackground, pointLabels, logAxis, logRange, line, finitePos, chartPng, markSwatch, zoomOptions, resetOnDoubleClick, wrapLine } from './chart-kit.js';

// The ops that take the most time get one distinct colour each; the rest
// share one grey series, "other ops" (Swin-T's ~30 op types would otherwise
// repeat colours).
const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#bcbd22',
  '#17becf', '#393b79'];
const OTHER_OPS = '\u0000other';   // the key of the folded series (no op has this name)
const OTHER_COLOR = '#a0a0a0';
const MEM_COLORS = ['#000', '#8c564b', '#17becf', '#7f7f7f'];
// the forecast's achievable ceilings, one per op class the model runs
const ACHIEVABLE_COLORS = ['#6a3d9a', '#b15928', '#33a02c', '#e31a1c', '#1f78b4', '#ff7f00'];
const TOOLTIP_NAMES = 5;      // layer names listed in a merged point's tooltip
const MEMBER_LIST_MAX = 500;  // layers listed under a chart for a clicked merged point

/** The figures of the kernel a layer starts (the core's kernel_* fields);
 * a layer's own where an answer has none (one layer, one kernel); null for
 * a layer fused into another's kernel (drawn at that kernel's point). */
function kernelFigures(l) {
  if (typeof l.fused_into === 'number') return null;
  const has = typeof l.kernel_flops === 'number';
  return {
    flops: has ? l.kernel_flops : l.flops, bytes: has ? l.kernel_bytes : l.bytes, t: has ? l.kernel_t : l.t,
    tc: has ? l.kernel_t_compute : l.t_compute, tm: has ? l.kernel_t_memory : l.t_memory,
  };
}

export class Charts {
  /**
   * @param {{time: HTMLElement, energy: HTMLElement, timeBased: HTMLElement}} boxes the <figure>s
   * @param {object} host the page's host (host.js): state(), changed(), select(index, from), measuredTimeSets()
   */
  constructor(boxes, host) {
    this.boxes = boxes;
    this.host = host;
    this.charts = {};
    this.res = null;
    this.selected = null;
    this.toggled = new Set();   // legend keys switched from their default visibility
    this.legends = {};          // chart key -> [{key, label, color, dash, point, hidden, datasetIndex}]
    this.precColour = {};       // precision name -> colour, from the core's table (setPrecisions)
    this.extra = [];            // marked points of other views on the time roofline (the LLM panel's phases)
    this.drawing = 0;           // counts update() and clear(): a staggered chart draws only for the latest
    for (const [key, box] of Object.entries(boxes)) {
      box.querySelector('.chart-data')?.addEventListener('toggle', (ev) => { if (ev.target.open) this.fillDataTable(key); });
    }
  }

  /** @param {{name: string, colour: string}[]} list the core's rl_precisions() */
  setPrecisions(list) {
    this.precColour = Object.fromEntries(list.map((p) => [p.name, p.colour]));
    if (this.res) this.update(this.res);
  }

  /** Extra marked points on the time roofline: [{label, intensity, flops_per_s, note}] or null. */
  setExtra(points) {
    this.extra = points || [];
    if (this.res && this.charts.time) this.drawTime();
  }

  colorOf(op) { return this.opColor.get(op) || OTHER_COLOR; }

  /** The series a layer's op is drawn in: its own, or "other ops". */
  seriesOf(op) { return this.opColor.has(op) ? op : OTHER_OPS; }

  prepare(res) {
    this.res = res;
    const layers = res.layers || [];
    let tot = 0;
    const opTime = new Map();
    // Layers with the same figures draw at the same spot in every chart:
    // group them once (a 100,000-layer graph of repeated blocks has a few
    // hundred groups), and let each chart place the groups.
    // The figures themselves are the keys, one map level each (a string
    // key per layer cost 8 number-to-text conversions a layer).
    const root = new Map();
    this.groups = [];
    for (const l of layers) {
      const t = l.t || 0;
      tot += t;
      opTime.set(l.op, (opTime.get(l.op) || 0) + t);
      let m = root;
      for (const k of [l.op, l.precision, l.flops, l.kernel_intensity, l.kernel_flops_per_s, l.kernel_flop_per_j, l.kernel_t_compute, l.kernel_t_memory, l.kernel_flops]) {
        let next = m.get(k);
        if (!next) m.set(k, (next = new Map()));
        m = next;
      }
      if (m.group) { m.group.members.push(l.index); m.group.t += t; } else {
        m.group = { l, members: [l.index], t };
        this.groups.push(m.group);
      }
    }
    tot = tot || 1;
    const ops = [...opTime.keys()].sort((a, b) => opTime.get(b) - opTime.get(a));
    // The top ops by time, each its colour; the rest fold into "other ops".
    const top = ops.length > PALETTE.length ? ops.slice(0, PALETTE.length - 1) : ops;
    this.opColor = new Map(top.map((op, i) => [op, PALETTE[i]]));
    this.otherOps = ops.slice(top.length);
    this.ops = [...top, ...(this.otherOps.length ? [OTHER_OPS] : [])];
    this.tot = tot;
    this.radiusOf = (t) => 2.5 + 14 * Math.sqrt((t || 0) / tot);
    // How many layers each kernel's first layer carries fused (for its tooltip).
    this.fusedInto = new Map();
    for (const l of layers) if (typeof l.fused_into === 'number') this.fusedInto.set(l.fused_into, (this.fusedInto.get(l.fused_into) || 0) + 1);
    // Layers come in index order 0…n-1: an array is the map.
    this.byIndex = layers.every((l, i) => l.index === i) ? { get: (i) => layers[i] } : new Map(layers.map((l) => [l.index, l]));
  }

  /** Whether a legend entry is shown: its default, unless the user switched it. */
  shown(key, byDefault = true) { return this.toggled.has(key) ? !byDefault : byDefault; }

  /** Scatter datasets, one per op type, from point(l) -> {x, y} | null.
   * Layers of one op at the same spot are merged into one point. */
  layerSets(point) {
    // op -> x -> y -> point: identical layers give bit-identical figures, so
    // the numbers themselves are the keys (no strings made per layer).
    const per = new Map();
    for (const g of this.groups) {
      const l = g.l;
      const p = point(l);
      if (!finitePos(p)) continue;
      const series = this.seriesOf(l.op);
      let byX = per.get(series);
      if (!byX) per.set(series, (byX = { xs: new Map(), list: [] }));
      let byY = byX.xs.get(p.x);
      if (!byY) byX.xs.set(p.x, (byY = new Map()));
      const pt = byY.get(p.y);
      if (pt) { for (const m of g.members) pt.members.push(m); pt.t += g.t; } else {
        const q = { x: p.x, y: p.y, li: l.index, members: g.members.slice(), t: g.t };
        byY.set(p.y, q);
        byX.list.push(q);
      }
    }
    return this.ops.filter((op) => per.has(op)).map((op) => {
      const data = per.get(op).list;
      for (const d of data) d.r = this.radiusOf(d.t);
      const other = op === OTHER_OPS;
      const key = other ? 'op:other' : `op:${op}`;
      const label = other ? `other ops (${this.otherOps.length} types: ${this.otherOps.slice(0, 4).join(', ')}${this.otherOps.length > 4 ? ', …' : ''})` : op;
      return {
        type: 'scatter', label, data, rl: 'layers', rlKey: key, hidden: !this.shown(key),
        backgroundColor: this.colorOf(op) + 'b0', borderColor: this.colorOf(op), borderWidth: 0.5,
        pointRadius: (ctx) => ctx.raw?.r ?? 3, pointHoverRadius: (ctx) => (ctx.raw?.r ?? 3) + 2, order: 1,
      };
    });
  }

  /** "×N" labels of the merged points in view. */
  countLabels(sets) {
    const out = [];
    for (const s of sets) {
      if (s.rl !== 'layers' || s.hidden) continue;
      for (const d of s.data) if (d.members.length > 1) out.push({ x: d.x, y: d.y, r: d.r, text: `×${d.members.length}`, color: '#222' });
    }
    return out.sort((a, b) => b.text.length - a.text.length || b.r - a.r);
  }

  tooltip(unitsFor) {
    return {
      filter: (_it, i) => i === 0,   // one point's tooltip, not a stack of them
      callbacks: {
        title: (items) => {
          const raw = items[0]?.raw;
          if (raw?.members?.length > 1) return `${raw.members.length} identical ${this.byIndex.get(raw.li)?.op} layers`;
          if (raw && raw.li !== undefined) return this.byIndex.get(raw.li)?.name ?? '';
          return items[0]?.dataset?.label ?? '';
        },
        label: (it) => {
          const raw = it.raw;
          if (raw && raw.li !== undefined) {
            const l = this.byIndex.get(raw.li);
            const n = raw.members?.length || 1;
            const names = n > 1 ? [...raw.members.slice(0, TOOLTIP_NAMES).flatMap((i) => wrapLine(`• ${this.byIndex.get(i)?.name}`)),
              ...(n > TOOLTIP_NAMES ? [`+${n - TOOLTIP_NAMES} more (click to list them all)`] : [])] : [];
            // the point is a kernel: its figures, a fused group's (the core's kernel_*)
            const fused = this.fusedInto.get(l.index) || 0;
            const k = kernelFigures(l) || l;
            return [
              ...names,
              `op: ${l.op}${l.domain ? ' (' + l.domain + ')' : ''}${fused ? ` and ${fused} fused layer${fused > 1 ? 's' : ''} after it, one kernel` : ''}${n > 1 ? ', each:' : ''}`,
              ...wrapLine(`${fused ? 'first layer ' : ''}in: ${shapes(l.inputs)}`),
              ...wrapLine(`${fused ? 'first layer ' : ''}out: ${shapes(l.outputs)}`),
              `${fused ? 'kernel ' : ''}FLOPs: ${eng(k.flops, 'FLOP')}   bytes: ${eng(k.bytes, 'B')}`,
              `${fused ? 'kernel ' : ''}time: ${eng(k.t, 's')} (limited by ${boundPhrase(l.bound)})` + (!fused && l.energy_j !== undefined ? `   energy: ${eng(l.energy_j, 'J')}` : ''),
              ...unitsFor(raw),
              ...(raw.lines || []),   // extra lines of a point (measured.js)
            ];
          }
          if (raw && raw.note) return raw.note;
          return `${it.dataset.label}: (${eng(it.parsed.x)}, ${eng(it.parsed.y)})`;
        },
      },
    };
  }

  options(key, x, y, tooltipExtra) {
    return {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      parsing: false,
      normalized: true,
      interaction: { mode: 'nearest', intersect: true },
      scales: { x, y },
      plugins: {
        legend: { display: false },   // the HTML legend under the chart
        tooltip: this.tooltip(tooltipExtra),
        zoom: zoomOptions(),   // Ctrl + wheel or pinch, drag to pan, double-click to reset
      },
      onClick: (_ev, els, chart) => {
        for (const e of els) {
          const raw = chart.data.datasets[e.datasetIndex].data[e.index];
          if (raw && raw.li !== undefined) {
            this.showMembers(key, raw.members?.length > 1 ? raw.members : null);
            this.host.select(raw.li, 'chart');
            return;
          }
        }
      },
      onHover: (ev, els) => {
        const t = ev.native?.target;
        if (t) t.style.cursor = els.length ? 'pointer' : 'default';
      },
    };
  }

  /** Under a chart, the layers of a clicked merged point, each selectable. */
  showMembers(key, members) {
    const box = this.boxes[key].querySelector('.point-members');
    if (!box) return;
    box.textContent = '';
    box.hidden = !members;
    if (!members) return;
    const first = this.byIndex.get(members[0]);
    box.appendChild(el('p', `This point is ${members.length} ${first?.op} layers with the same figures. Select one:`));
    const ul = el('ul');
    for (const i of members.slice(0, MEMBER_LIST_MAX)) {
      const li = el('li');
      const b = el('button', this.byIndex.get(i)?.name || `#${i}`, { type: 'button', 'data-layer': String(i) });
      b.addEventListener('click', () => this.host.select(i, 'chart'));
      li.appendChild(b);
      ul.appendChild(li);
    }
    box.appendChild(ul);
    if (members.length > MEMBER_LIST_MAX) box.appendChild(el('p', `…and ${members.length - MEMBER_LIST_MAX} more: filter the table by op type to see them all.`));
    const close = el('button', 'Close the list', { type: 'button', class: 'link' });
    close.addEventListener('click', () => this.showMembers(key, null));
    box.appendChild(close);
  }

  markerSet(point, label = 'selected') {
    const l = this.selected !== null ? this.byIndex.get(this.selected) : null;
    let p = l ? point(l) : null;
    // a layer fused into another's kernel is marked at that kernel's point
    if (l && !finitePos(p) && typeof l.fused_into === 'number') p = point(this.byIndex.get(l.fused_into));
    const ok = finitePos(p);
    return { type: 'scatter', label, rl: 'selected', order: 0,
      data: ok ? [{ x: p.x, y: p.y, li: l.index }] : [],
      pointStyle: 'circle', pointRadius: l ? this.radiusOf(l.t) + 5 : 0, borderColor: '#000', borderWidth: 2.5,
      backgroundColor: 'rgba(0,0,0,0)' };
  }

  /** The whole-model star. */
  starSet(x, y, note) {
    return { type: 'scatter', label: 'whole model', rl: 'model', rlKey: 'model:star', hidden: !this.shown('model:star'), order: 0,
      data: x > 0 && y > 0 ? [{ x, y, note }] : [],
      pointStyle: 'star', pointRadius: 12, borderColor: '#000', backgroundColor: '#ffd700', borderWidth: 2 };
  }

  draw(key, config) {
    const box = this.boxes[key];
    const canvas = box.querySelector('canvas');
    const msg = box.querySelector('.chart-msg');
    this.showMembers(key, null);
    const data = box.querySelector('.chart-data');
    if (data) { data.open = false; data.querySelector('table')?.replaceChildren(); }
    if (!config) {
      if (this.charts[key]) { this.charts[key].destroy(); delete this.charts[key]; }
      canvas.hidden = true; this.renderLegend(key, []); box.dataset.state = 'empty';
      const png = box.querySelector('button.png');
      if (png) png.disabled = true;
      return;
    }
    canvas.hidden = false;
    if (msg) msg.textContent = '';
    // Every kind of mark has its legend entry (the LLM phases, a measured
    // profile's kernels…), which shows or hides it like any other series.
    for (const s of config.data.datasets) {
      if (s.rlKey || s.rl === 'selected' || s.rlNoLegend) continue;
      s.rlKey = `mark:${s.label}`;
      s.hidden = !this.shown(s.rlKey);
    }
    config.options.plugins.rlLabels = this.countLabels(config.data.datasets);
    const ch = this.charts[key];
    if (ch) {
      // Re-use the chart (a new one costs its layout and listeners again):
      // a hardware or precision switch only swaps data and scales.
      ch.data = config.data;
      ch.options = config.options;
      ch.update('none');
    } else {
      config.plugins = [whiteBackground, pointLabels];
      this.charts[key] = new (chartClass())(canvas, config);
      resetOnDoubleClick(canvas, () => this.charts[key]);
    }
    this.renderLegend(key, config.data.datasets);
    box.dataset.state = 'drawn';
    const png = box.querySelector('button.png');
    if (png) png.disabled = false;   // drawn after the page enabled its exports (a staggered chart)
  }

  /** The HTML legend of a chart: one toggle button per named dataset. */
  renderLegend(key, sets) {
    const box = this.boxes[key].querySelector('.legend');
    if (!box) return;
    box.textContent = '';
    this.legends[key] = [];
    // Ceilings of precisions the model does not use are tucked under "more".
    const moreSets = sets.filter((s) => s.rlKey && s.rlMore);
    let more = null;
    if (moreSets.length) {
      more = el('details', null, { class: 'legend-more' });
      more.appendChild(el('summary', `Ceilings of other precisions (${moreSets.length})`));
      more.open = moreSets.some((s) => !s.hidden);
    }
    const seen = new Set();
    sets.forEach((s, i) => {
      if (!s.rlKey || seen.has(s.rlKey)) return;   // series drawn as several datasets (isochrones): one entry
      seen.add(s.rlKey);
      const point = s.type === 'scatter';
      const entry = { key: s.rlKey, label: s.label, color: s.borderColor, fill: s.backgroundColor, dash: s.borderDash, point,
        pointStyle: s.pointStyle || 'circle', radius: point && typeof s.pointRadius === 'number' ? s.pointRadius : 5,
        borderWidth: s.borderWidth ?? 1, width: s.borderWidth, area: !!s.fill, hidden: !!s.hidden, datasetIndex: i };
      if (!(s.rlMore && s.hidden)) this.legends[key].push(entry);   // the PNG lists what is drawn
      const b = el('button', null, { type: 'button', class: 'legend-item', 'aria-pressed': String(!s.hidden), 'data-key': s.rlKey,
        title: s.hidden ? 'hidden: click to show' : 'click to hide' });
      b.appendChild(markSwatch(entry));
      b.appendChild(el('span', s.label, { class: 'legend-label' }));
      b.addEventListener('click', () => {
        (this.legendStop ??= {})[key] = s.rlKey;   // the legend's Tab stop stays on the button used
        if (this.toggled.has(s.rlKey)) this.toggled.delete(s.rlKey); else this.toggled.add(s.rlKey);
        this.host.state().legend = [...this.toggled];
        this.host.changed();
        if (this.res) this.update(this.res);
        this.boxes[key].querySelector(`.legend button[data-key="${CSS.escape(s.rlKey)}"]`)?.focus();
      });
      (s.rlMore ? more : box).appendChild(b);
    });
    if (more) box.appendChild(more);
    this.rovingLegend(key, box);
  }

  /** A legend is one Tab stop: the arrow keys (and Home, End) move between
   * its buttons, the one last used keeps the stop. */
  rovingLegend(key, box) {
    const buttons = () => [...box.querySelectorAll('button.legend-item')].filter((b) => b.offsetParent !== null || b === document.activeElement);
    const all = [...box.querySelectorAll('button.legend-item')];
    const keep = all.find((b) => b.dataset.key === this.legendStop?.[key]) || all[0];
    for (const b of all) b.tabIndex = b === keep ? 0 : -1;
    if (box.dataset.roving) return;   // the key handler is wired once per legend box
    box.dataset.roving = '1';
    box.addEventListener('keydown', (ev) => {
      const list = buttons();
      const i = list.indexOf(document.activeElement);
      if (i < 0) return;
      const to = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1, Home: 0, End: list.length - 1 }[ev.key];
      if (to === undefined) return;
      ev.preventDefault();
      const next = list[(to + list.length) % list.length];
      for (const b of box.querySelectorAll('button.legend-item')) b.tabIndex = b === next ? 0 : -1;
      (this.legendStop ??= {})[key] = next.dataset.key;
      next.focus();
    });
  }

  message(key, text) {
    const msg = this.boxes[key].querySelector('.chart-msg');
    if (msg) msg.textContent = text;
  }

  clear() {
    this.drawing++;   // the charts still to be drawn of the last answer are not drawn
    for (const key of Object.keys(this.boxes)) this.draw(key, null);
    this.res = null;
  }

  /** Draws the three charts of an answer. `staggered` (a new answer, while
   * the user waits for it): the time roofline at once, with the summary and
   * the table, and the energy and time-based rooflines once that frame is
   * painted (drawing all three took about 200 ms of a Swin-T drop). Their
   * boxes say data-state="pending" until then. */
  update(res, { staggered = false } = {}) {
    if (!chartClass()) { for (const k of Object.keys(this.boxes)) this.message(k, 'The chart library (Chart.js) could not be loaded: reload the page to draw the charts.'); return; }
    this.prepare(res);
    const run = ++this.drawing;
    this.drawTime();
    const rest = () => { this.drawEnergy(); this.drawTimeBased(); };
    if (!staggered) { rest(); return; }
    for (const key of ['energy', 'timeBased']) this.boxes[key].dataset.state = 'pending';
    requestAnimationFrame(() => setTimeout(() => {
      if (run !== this.drawing || this.res !== res) return;   // a newer answer, or none, since
      rest();
      performance.mark('rooflens-charts-rest');
    }, 0));
  }

  // A point of the roofline charts is a kernel of the chosen model, as the
  // core places it (kernel_*: a fused group's FLOPs, bytes, time and energy on
  // its first layer); a layer fused into another's kernel is drawn there.
  timePoint = (l) => ({ x: l.kernel_intensity, y: l.kernel_flops_per_s });

  drawTime() {
    const res = this.res, ro = res.roofline;
    const mems = ro.ceilings.memory.filter((m) => m.bandwidth_Bps > 0);
    const comps = ro.ceilings.compute.filter((c) => c.flops > 0);
    const used = new Set(this.groups.map((g) => g.l.precision));
    used.add(ro.precision);
    const sets = [];
    for (const c of comps) {
      const key = `peak:${c.precision}-${c.unit}`;
      // a peak the profile gives at one of two rates says which (GeForce FP16 with FP32 accumulate: half the FP16-accumulate rate)
      const acc = c.accumulate ? `, ${c.accumulate.toUpperCase()} accumulate` : '';
      sets.push(line(`${c.precision} ${c.unit} peak ${eng(c.flops, 'FLOP/s')}${acc}`, [], this.precColour[c.precision] || '#444',
        { borderDash: c.unit === 'vector' ? [5, 4] : [], borderWidth: c.precision === ro.precision ? 2.5 : 1.2,
          rlKey: key, hidden: !this.shown(key, used.has(c.precision)), rlPeak: c.flops, rlMore: !used.has(c.precision) }));
    }
    mems.forEach((m, i) => {
      const key = `mem:${i}`;
      const cap = m.capacity_bytes > 0 ? ` (${eng(m.capacity_bytes, 'B')})` : '';
      sets.push(line(`${m.name} ${eng(m.bandwidth_Bps, 'B/s')}${cap}`, [], MEM_COLORS[i % MEM_COLORS.length],
        { borderWidth: i === 0 ? 2.5 : 1.2, borderDash: i === 0 ? [] : [2, 3], rlKey: key, hidden: !this.shown(key),
          rlMemory: m.name, rlBandwidth: m.bandwidth_Bps, order: 5 }));
    });
    const layerSets = this.layerSets(this.timePoint);
    const mp = ro.model_point, hl = headline(res);
    const star = this.starSet(mp?.intensity, mp?.flops_per_s,
      `whole model: ${eng(mp?.intensity, 'FLOP/B')}, ${eng(mp?.flops_per_s, 'FLOP/s')}; speed of light ${eng(hl.time_s, 's')}`);
    // Points of other views: the LLM panel's phases, a measured profile's kernels (measured.js).
    const extraSets = this.extra.map((p, i) => ({ type: 'scatter', label: p.label, rl: 'extra', order: 0,
      data: p.intensity > 0 && p.flops_per_s > 0 ? [{ x: p.intensity, y: p.flops_per_s, note: p.note }] : [],
      pointStyle: i ? 'triangle' : 'rectRot', pointRadius: 10, borderColor: '#000', borderWidth: 1.5,
      backgroundColor: i ? '#2ca02c' : '#d62728' }));
    extraSets.push(...this.host.measuredTimeSets());
    // Axes: the points and the ridge points of the ceilings in view.
    const pts = [...layerSets, star, ...extraSets].filter((s) => !s.hidden).flatMap((s) => s.data);
    const peaks = sets.filter((s) => s.rlPeak && !s.hidden).map((s) => s.rlPeak);
    const bws = sets.filter((s) => s.rlBandwidth && !s.hidden).map((s) => s.rlBandwidth);
    const peakTop = peaks.length ? Math.max(...peaks) : Math.max(...comps.map((c) => c.flops), 1);
    const [xlo, xhi] = logRange([...pts.map((p) => p.x), ...bws.map((b) => peakTop / b)], { pad: 2, minDecades: 2, maxDecades: 9 });
    const [ylo, yhi] = logRange([...pts.map((p) => p.y), ...peaks, ...bws.map((b) => Math.min(peakTop, b * xlo))],
      { pad: 1.6, minDecades: 1, maxDecades: 9 });
    for (const s of sets) {
      if (s.rlPeak) s.data = [{ x: xlo, y: s.rlPeak }, { x: xhi, y: s.rlPeak }];
      else { const xEnd = Math.min(xhi, peakTop / s.rlBandwidth); s.data = [{ x: xlo, y: s.rlBandwidth * xlo }, { x: xEnd, y: s.rlBandwidth * xEnd }]; }
    }
    sets.push(...this.achievableSets(xlo, xhi));
    // Memory ceilings first in the legend, then the peaks.
    sets.sort((a, b) => (b.rlMemory ? 1 : 0) - (a.rlMemory ? 1 : 0));
    this.draw('time', {
      data: { datasets: [...sets, ...layerSets, star, ...extraSets, this.markerSet(this.timePoint)] },
      options: this.options('time', logAxis('Arithmetic intensity (FLOP/B)', '', xlo, xhi),
        logAxis('Performance (FLOP/s)', 'FLOP/s', ylo, yhi),
        (raw) => [`intensity: ${eng(raw.x, 'FLOP/B')}   perf: ${eng(raw.y, 'FLOP/s')}`]),
    });
  }

  /** The forecast's achievable ceilings (docs/model.md, the forecast): for
   * each op class the model runs, min(peak x its compute fraction, bandwidth x
   * its memory fraction x intensity), dashed under the peaks, as Nsight
   * Compute and Advisor draw theirs. The core gives both figures per class
   * (forecast.by_class); this only draws the two segments. */
  achievableSets(xlo, xhi) {
    const f = this.res.forecast;
    if (!f?.by_class) return [];
    // classes with the same two figures share one roof: drawn apart, one
    // would lie under the other, in the legend but nowhere to be seen
    const roofs = [];
    for (const c of f.by_class.filter((k) => k.kernels > 0 && k.peak_flops_per_s > 0 && k.bandwidth_Bps > 0)) {
      const same = roofs.find((r) => r.peak === c.peak_flops_per_s && r.bw === c.bandwidth_Bps);
      if (same) same.classes.push(c.class);
      else roofs.push({ peak: c.peak_flops_per_s, bw: c.bandwidth_Bps, classes: [c.class] });
    }
    return roofs.map((r, i) => {
      const key = `achievable:${r.classes[0]}`, ridge = r.peak / r.bw;
      const at = (x) => ({ x, y: Math.min(r.peak, r.bw * x) });
      const data = [at(xlo), ...(ridge > xlo && ridge < xhi ? [at(ridge)] : []), at(xhi)];
      const names = r.classes.map((c) => wordName('op_class', c)).join(' and ');
      return line(`${names}, achievable with ${f.stack}: ${eng(r.peak, 'FLOP/s')}, ${eng(r.bw, 'B/s')}`,
        data, ACHIEVABLE_COLORS[i % ACHIEVABLE_COLORS.length],
        { borderDash: [8, 4], borderWidth: 1.4, rlKey: key, hidden: !this.shown(key), order: 6 });
    });
  }

  energyPoint = (l) => ({ x: l.kernel_intensity, y: l.kernel_flop_per_j });

  drawEnergy() {
    const res = this.res, ro = res.roofline;
    if (!(ro.flop_j > 0)) {
      this.draw('energy', null);
      this.message('energy', 'This hardware profile has no energy figures (flop_j, byte_j, static_w).');
      return;
    }
    const layerSets = this.layerSets(this.energyPoint);
    const mp = ro.model_point, hl = headline(res);
    const star = this.starSet(mp?.intensity, mp?.flop_per_j, `whole model: ${eng(mp?.flop_per_j, 'FLOP/J')}; energy ${eng(hl.energy_j, 'J')}`);
    const pts = [...layerSets, star].filter((s) => !s.hidden).flatMap((s) => s.data);
    const top = ro.peak_flop_per_j_no_static;
    const balances = [['time', `time balance ${eng(ro.time_balance, 'FLOP/B')}`, ro.time_balance, '#1f77b4'],
      ['energy', `energy balance ${eng(ro.energy_balance, 'FLOP/B')}`, ro.energy_balance, '#d62728'],
      ['energy-nostatic', `energy balance without static power ${eng(ro.energy_balance_no_static, 'FLOP/B')}`, ro.energy_balance_no_static, '#ff7f0e']]
      .filter(([, , x]) => x > 0);
    const [xlo, xhi] = logRange([...pts.map((p) => p.x), ...balances.map((b) => b[2])], { pad: 2, minDecades: 2, maxDecades: 9 });
    // The roof of docs/model.md, as the core samples it (roofline.energy_roof).
    const roof = (ro.energy_roof || []).filter((p) => p.intensity >= xlo / 1.4 && p.intensity <= xhi * 1.4);
    const withStatic = roof.map((p) => ({ x: p.intensity, y: p.flop_per_j }));
    const noStatic = roof.map((p) => ({ x: p.intensity, y: p.flop_per_j_no_static }));
    const [ylo, yhi] = logRange([...pts.map((p) => p.y), top, ...(withStatic.length ? [withStatic[0].y] : [])], { pad: 1.6, minDecades: 1, maxDecades: 9 });
    const sets = [
      line(`energy roof with static power (peak ${eng(ro.peak_flop_per_j, 'FLOP/J')})`, withStatic, '#000', { borderWidth: 2.5, rlKey: 'roof:static', hidden: !this.shown('roof:static') }),
      line(`energy roof without static power (peak ${eng(top, 'FLOP/J')})`, noStatic, '#666', { borderDash: [6, 4], rlKey: 'roof:nostatic', hidden: !this.shown('roof:nostatic') }),
      ...balances.map(([k, label, x, color]) => line(label, [{ x, y: ylo }, { x, y: yhi }], color,
        { borderDash: [2, 3], borderWidth: 1.2, rlKey: `balance:${k}`, hidden: !this.shown(`balance:${k}`) })),
    ];
    this.draw('energy', {
      data: { datasets: [...sets, ...layerSets, star, this.markerSet(this.energyPoint)] },
      options: this.options('energy', logAxis('Arithmetic intensity (FLOP/B)', '', xlo, xhi),
        logAxis('Energy efficiency (FLOP/J)', 'FLOP/J', ylo, yhi),
        (raw) => [`efficiency W/E: ${eng(raw.y, 'FLOP/J')}`]),
    });
  }

  drawTimeBased() {
    const res = this.res;
    const launch = res.hardware.launch_overhead_s || 0;
    const vals = [];
    // the kernels the time roofline draws (a layer fused into another's kernel is drawn there)
    for (const { l } of this.groups) { const k = kernelFigures(l); if (k?.tc > 0) vals.push(k.tc); if (k?.tm > 0) vals.push(k.tm); }
    if (!vals.length) { this.draw('timeBased', null); this.message('timeBased', 'No kernel has a compute or memory time.'); return; }
    // Both axes share one range: the layers' times and the launch overhead,
    // at most 6 decades below the largest (smaller times sit on the edge).
    const [lo, hi] = logRange([...vals, launch], { pad: 1.6, minDecades: 2, maxDecades: 6 });
    const edge = lo * 1.15;
    const pt = (l) => { const k = kernelFigures(l); return k && (k.tc > 0 || k.tm > 0) ? { x: Math.max(k.tc, edge), y: Math.max(k.tm, edge) } : null; };
    this.timeBasedPoint = pt;
    const sets = [line('t compute = t memory (balance)', [{ x: lo, y: lo }, { x: hi, y: hi }], '#000', { borderWidth: 2, rlKey: 'tb:balance', hidden: !this.shown('tb:balance') })];
    const iso = [];
    for (let e = Math.ceil(Math.log10(lo)); e <= Math.floor(Math.log10(hi)); e++) iso.push(10 ** e);
    // One dataset per isochrone: the chart assumes each line's points run
    // left to right, so a single dataset with gaps drew only the first one.
    const isoLabel = iso.length ? `isochrones (${eng(iso[0], 's', 1)} … ${eng(iso.at(-1), 's', 1)}, a decade apart)` : '';
    for (const T of iso) {
      sets.push(line(isoLabel, [{ x: lo, y: T }, { x: T, y: T }, { x: T, y: lo }], '#bbb',
        { borderDash: [3, 3], borderWidth: 1, rlKey: 'tb:iso', rlIso: T, hidden: !this.shown('tb:iso') }));
    }
    if (launch > 0) {
      sets.push(line(`launch cost per kernel ${eng(launch, 's')}`, [{ x: lo, y: launch }, { x: launch, y: launch }, { x: launch, y: lo }, { x: lo, y: lo }],
        '#d62728', { fill: true, backgroundColor: 'rgba(214,39,40,0.10)', borderWidth: 1.5, rlKey: 'tb:launch', hidden: !this.shown('tb:launch') }));
    }
    this.draw('timeBased', {
      data: { datasets: [...sets, ...this.layerSets(pt), this.markerSet(pt)] },
      options: this.options('timeBased', logAxis('Compute time t_compute (s)', 's', lo, hi), logAxis('Memory time t_memory (s)', 's', lo, hi),
        (raw) => { const k = kernelFigures(this.byIndex.get(raw.li)); return k ? [`t_compute: ${eng(k.tc, 's')}   t_memory: ${eng(k.tm, 's')}`] : []; }),
    });
  }

  /** The chart's data as a table (its text alternative), built when opened. */
  fillDataTable(key) {
    const ch = this.charts[key];
    const table = this.boxes[key].querySelector('.chart-data table');
    if (!table) return;
    table.textContent = '';
    if (!ch) return;
    const [xt, yt] = [ch.options.scales.x.title.text, ch.options.scales.y.title.text];
    table.appendChild(el('caption', `${this.boxes[key].querySelector('figcaption .title')?.textContent || ''}: every point and line of the chart`));
    const hr = table.createTHead().insertRow();
    for (const h of ['Series', 'Layers', xt, yt]) hr.appendChild(el('th', h, { scope: 'col' }));
    const body = table.createTBody();
    for (const s of ch.data.datasets) {
      if (s.rl === 'selected' || !s.data.length) continue;
      if (s.rl === 'ceiling') {
        const tr = body.insertRow();
        tr.appendChild(el('th', s.label + (s.hidden ? ' (hidden)' : ''), { scope: 'row' }));
        tr.appendChild(el('td', 'line'));
        tr.appendChild(el('td', `${eng(s.data[0].x)} … ${eng(s.data.at(-1).x)}`));
        tr.appendChild(el('td', `${eng(s.data[0].y)} … ${eng(s.data.at(-1).y)}`));
        continue;
      }
      for (const d of s.data) {
        const tr = body.insertRow();
        tr.appendChild(el('th', s.label + (s.hidden ? ' (hidden)' : ''), { scope: 'row' }));
        const n = d.members?.length || 1;
        tr.appendChild(el('td', d.li === undefined ? 'whole model' : n > 1 ? `${n} layers (${this.byIndex.get(d.li)?.name} …)` : this.byIndex.get(d.li)?.name));
        tr.appendChild(el('td', eng(d.x)));
        tr.appendChild(el('td', eng(d.y)));
      }
    }
  }

  /** Marks a layer in every chart. */
  select(index) {
    this.selected = index;
    if (!this.res) return;
    const pts = { time: this.timePoint, energy: this.energyPoint, timeBased: this.timeBasedPoint };
    for (const [k, ch] of Object.entries(this.charts)) {
      const i = ch.data.datasets.findIndex((d) => d.rl === 'selected');
      if (i < 0 || !pts[k]) continue;
      ch.data.datasets[i] = this.markerSet(pts[k]);
      ch.update('none');
    }
  }

  /** PNG of a chart at 2x with a title block and its legend. */
  png(key, lines) {
    const ch = this.charts[key];
    return ch ? chartPng(ch, { lines, legend: this.legends[key] || [] }) : null;
  }
}
