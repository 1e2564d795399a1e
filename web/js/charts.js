// Chart views (Chart.js, served from vendor/chart.umd.js as a global):
// time roofline, energy roofline and time-based roofline. Log-log axes with
// labelled units; layers coloured by op type, sized by their share of time.
import { eng, shapes } from './format.js';

const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f',
  '#bcbd22', '#17becf', '#393b79', '#637939', '#8c6d31', '#843c39', '#7b4173', '#3182bd'];
const MEM_COLORS = ['#000', '#8c564b', '#17becf', '#7f7f7f'];

export const whiteBackground = {
  id: 'rlBackground',
  beforeDraw(chart) {
    const { ctx } = chart;
    ctx.save();
    ctx.globalCompositeOperation = 'destination-over';
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, chart.width, chart.height);
    ctx.restore();
  },
};

function decadeTick(unit) {
  return (v) => {
    const l = Math.log10(v);
    return Math.abs(l - Math.round(l)) < 1e-6 ? eng(v, unit, 2) : '';
  };
}

export function logAxis(title, unit, min, max) {
  return {
    type: 'logarithmic', min, max,
    title: { display: true, text: title },
    ticks: { callback: decadeTick(unit), autoSkip: true, maxRotation: 0 },
    grid: { color: '#eee' },
  };
}

function range(values, padLo = 3, padHi = 3) {
  const v = values.filter((x) => Number.isFinite(x) && x > 0);
  if (!v.length) return [1e-3, 1e3];
  let lo = Math.min(...v) / padLo, hi = Math.max(...v) * padHi;
  if (hi / lo < 100) { const m = Math.sqrt(hi * lo); lo = m / 10; hi = m * 10; }
  return [10 ** Math.floor(Math.log10(lo)), 10 ** Math.ceil(Math.log10(hi))];
}

function logspace(lo, hi, n) {
  const a = Math.log10(lo), b = Math.log10(hi);
  return Array.from({ length: n }, (_, i) => 10 ** (a + (b - a) * i / (n - 1)));
}

export function line(label, data, color, extra = {}) {
  return { type: 'line', label, data, borderColor: color, backgroundColor: color, borderWidth: 1.5,
    pointRadius: 0, pointHitRadius: 0, fill: false, tension: 0, order: 10, rl: 'ceiling', ...extra };
}

function minMaxPositive(arr) {
  let lo = Infinity, hi = -Infinity;
  for (const x of arr) if (x > 0 && Number.isFinite(x)) { if (x < lo) lo = x; if (x > hi) hi = x; }
  return [lo, hi];
}

export class Charts {
  /** @param {{time: HTMLElement, energy: HTMLElement, timeBased: HTMLElement}} boxes */
  constructor(boxes, hooks) {
    this.boxes = boxes;
    this.hooks = hooks;
    this.charts = {};
    this.res = null;
    this.selected = null;
    this.precColour = {};   // precision name -> colour, from the core's table (setPrecisions)
    this.extra = [];  // marked points of other views on the time roofline (the LLM panel's phases)
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

  colorOf(op) { return this.opColor.get(op) || '#999'; }

  prepare(res) {
    this.res = res;
    const layers = res.layers || [];
    const tot = layers.reduce((s, l) => s + (l.t || 0), 0) || 1;
    const opTime = new Map();
    for (const l of layers) opTime.set(l.op, (opTime.get(l.op) || 0) + (l.t || 0));
    const ops = [...opTime.keys()].sort((a, b) => opTime.get(b) - opTime.get(a));
    this.opColor = new Map(ops.map((op, i) => [op, PALETTE[i % PALETTE.length]]));
    this.ops = ops;
    this.radius = (l) => 2.5 + 14 * Math.sqrt((l.t || 0) / tot);
    this.byIndex = new Map(layers.map((l) => [l.index, l]));
  }

  /** Scatter datasets, one per op type, from point(l) -> {x, y} | null. */
  layerSets(point) {
    const per = new Map();
    for (const l of this.res.layers || []) {
      const p = point(l);
      if (!p || !(p.x > 0) || !(p.y > 0) || !Number.isFinite(p.x) || !Number.isFinite(p.y)) continue;
      if (!per.has(l.op)) per.set(l.op, []);
      per.get(l.op).push({ x: p.x, y: p.y, li: l.index, r: this.radius(l) });
    }
    return this.ops.filter((op) => per.has(op)).map((op) => ({
      type: 'scatter', label: op, data: per.get(op), rl: 'layers',
      backgroundColor: this.colorOf(op) + 'b0', borderColor: this.colorOf(op), borderWidth: 0.5,
      pointRadius: (ctx) => ctx.raw?.r ?? 3, pointHoverRadius: (ctx) => (ctx.raw?.r ?? 3) + 2, order: 1,
    }));
  }

  tooltip(unitsFor) {
    return {
      callbacks: {
        title: (items) => {
          const it = items[0];
          const raw = it?.raw;
          if (raw && raw.li !== undefined) return this.byIndex.get(raw.li)?.name ?? '';
          return it?.dataset?.label ?? '';
        },
        label: (it) => {
          const raw = it.raw;
          if (raw && raw.li !== undefined) {
            const l = this.byIndex.get(raw.li);
            return [
              `op: ${l.op}${l.domain ? ' (' + l.domain + ')' : ''}`,
              `in: ${shapes(l.inputs)}`.slice(0, 160),
              `out: ${shapes(l.outputs)}`.slice(0, 160),
              `FLOPs: ${eng(l.flops, 'FLOP')}   bytes: ${eng(l.bytes, 'B')}`,
              `time: ${eng(l.t, 's')} (${l.bound})` + (l.energy_j !== undefined ? `   energy: ${eng(l.energy_j, 'J')}` : ''),
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

  options(x, y, tooltipExtra) {
    return {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      parsing: false,
      normalized: true,
      interaction: { mode: 'nearest', intersect: true },
      scales: { x, y },
      plugins: {
        legend: { position: 'right', labels: { boxWidth: 12, font: { size: 11 },
          filter: (item, data) => !data.datasets[item.datasetIndex].rlNoLegend } },
        tooltip: this.tooltip(tooltipExtra),
      },
      onClick: (_ev, els, chart) => {
        for (const e of els) {
          const raw = chart.data.datasets[e.datasetIndex].data[e.index];
          if (raw && raw.li !== undefined) { this.hooks.onSelect?.(raw.li); return; }
        }
      },
      onHover: (ev, els) => {
        const t = ev.native?.target;
        if (t) t.style.cursor = els.length ? 'pointer' : 'default';
      },
    };
  }

  markerSet(point, label = 'selected') {
    const l = this.selected !== null ? this.byIndex.get(this.selected) : null;
    const p = l ? point(l) : null;
    const ok = p && p.x > 0 && p.y > 0 && Number.isFinite(p.x) && Number.isFinite(p.y);
    return { type: 'scatter', label, rl: 'selected', rlNoLegend: true, order: 0,
      data: ok ? [{ x: p.x, y: p.y, li: l.index }] : [],
      pointStyle: 'circle', pointRadius: l ? this.radius(l) + 5 : 0, borderColor: '#000', borderWidth: 2.5,
      backgroundColor: 'rgba(0,0,0,0)' };
  }

  draw(key, config) {
    const box = this.boxes[key];
    let canvas = box.querySelector('canvas');
    if (this.charts[key]) { this.charts[key].destroy(); delete this.charts[key]; }
    const msg = box.querySelector('.chart-msg');
    if (!config) { canvas.hidden = true; return; }
    canvas.hidden = false;
    if (msg) msg.textContent = '';
    config.plugins = [whiteBackground];
    this.charts[key] = new globalThis.Chart(canvas, config);
  }

  message(key, text) {
    const box = this.boxes[key];
    const msg = box.querySelector('.chart-msg');
    if (msg) msg.textContent = text;
  }

  update(res) {
    if (typeof globalThis.Chart !== 'function') { for (const k of Object.keys(this.boxes)) this.message(k, 'Chart.js did not load.'); return; }
    this.prepare(res);
    this.drawTime();
    this.drawEnergy();
    this.drawTimeBased();
  }

  timePoint = (l) => ({ x: l.intensity, y: l.t > 0 ? l.flops / l.t : 0 });

  drawTime() {
    const res = this.res, ro = res.roofline;
    const mems = ro.ceilings.memory.filter((m) => m.bandwidth_Bps > 0);
    const comps = ro.ceilings.compute.filter((c) => c.flops > 0);
    const used = new Set((res.layers || []).map((l) => l.precision));
    used.add(ro.precision);
    const layers = res.layers || [];
    const [xlo, xhi] = range([...layers.map((l) => l.intensity), ro.time_balance, ro.ridge_vector,
      ro.model_point?.intensity, ...this.extra.map((p) => p.intensity)], 10, 10);
    const peakMax = Math.max(...comps.map((c) => c.flops));
    const extra = this.extraTimeSets?.() || []; // measured points (measured.js), drawn beside the predicted ones
    const ys = [...layers.map((l) => (l.t > 0 ? l.flops / l.t : 0)), ...this.extra.map((p) => p.flops_per_s),
      ...extra.flatMap((d) => d.data.map((p) => p.y))];
    const [ylo0] = minMaxPositive([...ys, ...comps.map((c) => c.flops), mems[0] ? mems[0].bandwidth_Bps * xlo : 0]);
    const [ylo, yhi] = [10 ** Math.floor(Math.log10(Math.max(ylo0 / 3, peakMax * 1e-9))), 10 ** Math.ceil(Math.log10(peakMax * 3))];
    const sets = [];
    for (const c of comps) {
      const main = c.precision === ro.precision;
      sets.push(line(`${c.precision} ${c.unit} ${eng(c.flops, 'FLOP/s')}`, [{ x: xlo, y: c.flops }, { x: xhi, y: c.flops }],
        this.precColour[c.precision] || '#444', { borderDash: c.unit === 'vector' ? [5, 4] : [], borderWidth: main ? 2.5 : 1.2,
          hidden: !used.has(c.precision) }));
    }
    // Memory ceilings meet the highest compute ceiling shown (the used
    // precisions), not a precision the model never runs in.
    const shownPeaks = comps.filter((c) => used.has(c.precision)).map((c) => c.flops);
    const peakShown = shownPeaks.length ? Math.max(...shownPeaks) : peakMax;
    // One ceiling per memory level: the first is the level the model's
    // traffic is charged to; faster levels show how much a layer whose data
    // stayed there could gain. Each ends where it meets the highest peak.
    mems.forEach((m, i) => {
      const xEnd = Math.min(xhi, peakShown / m.bandwidth_Bps);
      const cap = m.capacity_bytes > 0 ? ` (${eng(m.capacity_bytes, 'B')})` : '';
      sets.push(line(`${m.name} ${eng(m.bandwidth_Bps, 'B/s')}${cap}`, [{ x: xlo, y: m.bandwidth_Bps * xlo }, { x: xEnd, y: m.bandwidth_Bps * xEnd }],
        MEM_COLORS[i % MEM_COLORS.length], { borderWidth: i === 0 ? 2.5 : 1.2, borderDash: i === 0 ? [] : [2, 3],
          rlMemory: m.name, rlBandwidth: m.bandwidth_Bps, order: 5 })); // listed before the compute ceilings
    });
    sets.push(...this.layerSets(this.timePoint));
    const mp = ro.model_point;
    sets.push({ type: 'scatter', label: 'whole model', rl: 'model', order: 0,
      data: mp && mp.intensity > 0 && mp.flops_per_s > 0 ? [{ x: mp.intensity, y: mp.flops_per_s, note: `whole model: ${eng(mp.intensity, 'FLOP/B')}, ${eng(mp.flops_per_s, 'FLOP/s')}` }] : [],
      pointStyle: 'star', pointRadius: 12, borderColor: '#000', backgroundColor: '#ffd700', borderWidth: 2 });
    this.extra.forEach((p, i) => sets.push({ type: 'scatter', label: p.label, rl: 'extra', order: 0,
      data: p.intensity > 0 && p.flops_per_s > 0 ? [{ x: p.intensity, y: p.flops_per_s, note: p.note }] : [],
      pointStyle: i ? 'triangle' : 'rectRot', pointRadius: 10, borderColor: '#000', borderWidth: 1.5,
      backgroundColor: i ? '#2ca02c' : '#d62728' }));
    sets.push(...extra);
    sets.push(this.markerSet(this.timePoint));
    this.draw('time', {
      data: { datasets: sets },
      options: this.options(logAxis('Arithmetic intensity (FLOP/B)', '', xlo, xhi),
        logAxis('Attainable performance (FLOP/s)', 'FLOP/s', ylo, yhi),
        (raw) => [`intensity: ${eng(raw.x, 'FLOP/B')}   perf: ${eng(raw.y, 'FLOP/s')}`]),
    });
  }

  energyPoint = (l) => ({ x: l.intensity, y: l.energy_j > 0 ? l.flops / l.energy_j : 0 });

  drawEnergy() {
    const res = this.res, ro = res.roofline;
    if (!(ro.flop_j > 0)) {
      this.draw('energy', null);
      this.message('energy', 'This hardware profile has no energy figures (flop_j, byte_j, static_w).');
      return;
    }
    const layers = res.layers || [];
    const bw = res.hardware.bandwidth_Bps, peak = ro.peak_matrix_flops;
    const eF = ro.flop_j, eB = ro.byte_j, sW = ro.static_w || 0;
    const [xlo, xhi] = range([...layers.map((l) => l.intensity), ro.time_balance, ro.energy_balance,
      ro.energy_balance_no_static], 10, 10);
    const xs = logspace(xlo, xhi, 80);
    const withStatic = xs.map((x) => ({ x, y: 1 / (eF + eB / x + sW * Math.max(1 / peak, 1 / (bw * x))) }));
    const noStatic = xs.map((x) => ({ x, y: 1 / (eF + eB / x) }));
    const ys = layers.map((l) => (l.energy_j > 0 ? l.flops / l.energy_j : 0));
    const [ylo0] = minMaxPositive([...ys, withStatic[0].y]);
    const top = ro.peak_flop_per_j_no_static;
    const ylo = 10 ** Math.floor(Math.log10(Math.max(ylo0 / 3, top * 1e-9)));
    const yhi = 10 ** Math.ceil(Math.log10(top * 3));
    const vline = (label, x, color, dash) => line(label, [{ x, y: ylo }, { x, y: yhi }], color, { borderDash: dash, borderWidth: 1.2 });
    const sets = [
      line(`energy roof with static power (peak ${eng(ro.peak_flop_per_j, 'FLOP/J')})`, withStatic, '#000', { borderWidth: 2.5 }),
      line(`energy roof without static power (peak ${eng(top, 'FLOP/J')})`, noStatic, '#666', { borderDash: [6, 4] }),
      vline(`time balance ${eng(ro.time_balance, 'FLOP/B')}`, ro.time_balance, '#1f77b4', [2, 3]),
      vline(`energy balance ${eng(ro.energy_balance, 'FLOP/B')}`, ro.energy_balance, '#d62728', [2, 3]),
      vline(`energy balance, no static ${eng(ro.energy_balance_no_static, 'FLOP/B')}`, ro.energy_balance_no_static, '#ff7f0e', [2, 3]),
      ...this.layerSets(this.energyPoint),
    ];
    const mp = ro.model_point;
    sets.push({ type: 'scatter', label: 'whole model', rl: 'model', order: 0,
      data: mp && mp.intensity > 0 && mp.flop_per_j > 0 ? [{ x: mp.intensity, y: mp.flop_per_j, note: `whole model: ${eng(mp.flop_per_j, 'FLOP/J')}` }] : [],
      pointStyle: 'star', pointRadius: 12, borderColor: '#000', backgroundColor: '#ffd700', borderWidth: 2 });
    sets.push(this.markerSet(this.energyPoint));
    this.draw('energy', {
      data: { datasets: sets },
      options: this.options(logAxis('Arithmetic intensity (FLOP/B)', '', xlo, xhi),
        logAxis('Energy efficiency (FLOP/J)', 'FLOP/J', ylo, yhi),
        (raw) => [`efficiency W/E: ${eng(raw.y, 'FLOP/J')}`]),
    });
  }

  drawTimeBased() {
    const res = this.res;
    const layers = res.layers || [];
    const launch = res.hardware.launch_overhead_s || 0;
    const [lo0, hi0] = minMaxPositive([...layers.map((l) => l.t_compute), ...layers.map((l) => l.t_memory), launch]);
    if (!Number.isFinite(lo0)) { this.draw('timeBased', null); this.message('timeBased', 'No layer has a compute or memory time.'); return; }
    const floor = lo0 / 3;
    const lo = 10 ** Math.floor(Math.log10(floor)), hi = 10 ** Math.ceil(Math.log10(hi0 * 3));
    const pt = (l) => ((l.t_compute > 0 || l.t_memory > 0) ? { x: Math.max(l.t_compute, floor), y: Math.max(l.t_memory, floor) } : null);
    this.timeBasedPoint = pt;
    const sets = [line('t compute = t memory (balance)', [{ x: lo, y: lo }, { x: hi, y: hi }], '#000', { borderWidth: 2 })];
    for (let e = Math.ceil(Math.log10(lo)) + 1; e <= Math.floor(Math.log10(hi)); e++) {
      const T = 10 ** e;
      sets.push(line(`isochrone ${eng(T, 's', 1)}`, [{ x: lo, y: T }, { x: T, y: T }, { x: T, y: lo }], '#bbb',
        { borderDash: [3, 3], borderWidth: 1, rlNoLegend: e !== Math.floor(Math.log10(hi)) }));
    }
    if (launch > 0) {
      sets.push(line(`launch overhead ${eng(launch, 's')}`, [{ x: lo, y: launch }, { x: launch, y: launch }, { x: launch, y: lo }, { x: lo, y: lo }],
        '#d62728', { fill: true, backgroundColor: 'rgba(214,39,40,0.10)', borderWidth: 1.5 }));
    }
    sets.push(...this.layerSets(pt));
    sets.push(this.markerSet(pt));
    this.draw('timeBased', {
      data: { datasets: sets },
      options: this.options(logAxis('Compute time t_compute (s)', 's', lo, hi), logAxis('Memory time t_memory (s)', 's', lo, hi),
        (raw) => [`t_compute: ${eng(this.byIndex.get(raw.li).t_compute, 's')}   t_memory: ${eng(this.byIndex.get(raw.li).t_memory, 's')}`]),
    });
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

  png(key) { return this.charts[key]?.toBase64Image('image/png', 1) ?? null; }
}
