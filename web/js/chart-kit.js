// The chart toolkit every chart view shares (charts.js, whatif.js, llm.js,
// compare.js): log axes and ranges, ceiling lines, point labels placed where
// they do not overlap, a white background, and the PNG export with a title
// block and legend, legend marks drawn as the chart draws them, and zoom and
// pan. It draws; it computes no figure.
import { eng } from './format.js';
import { chartDrawPoint, loadChartLibrary } from './chart-lib.js';

/** A legend mark of a line through its points: a short line with the
 * series' dashes and width and, across it, one of its dots (a canvas, which
 * Chart.js draws as it is). `dataset.dash` names the dashes drawn. */
function lineWithDot(set) {
  const c = document.createElement('canvas');
  c.width = 18; c.height = 12; /* the legend's box width: wider, it runs into the label */
  const ctx = c.getContext('2d');
  const dash = set.borderDash || [];
  ctx.strokeStyle = set.borderColor || '#000';
  ctx.lineWidth = set.borderWidth ?? 2;
  ctx.setLineDash(dash);
  ctx.beginPath(); ctx.moveTo(0, 6); ctx.lineTo(18, 6); ctx.stroke();
  ctx.setLineDash([]);
  ctx.fillStyle = set.backgroundColor || set.borderColor || '#000';
  ctx.beginPath(); ctx.arc(9, 6, Math.min(set.pointRadius, 4), 0, 2 * Math.PI); ctx.fill();
  c.dataset.dash = dash.join(',');
  return c;
}

/** A legend that draws each series as the chart draws it: a line series
 * (a roof, a curve) as a short line with its dashes and width, with one of
 * its dots across it when it draws its points; a scatter series as its
 * point. Chart.js's own labels, with usePointStyle on, take a line series'
 * style from its first point, which has no dashes: a dotted curve was
 * listed with a solid line, a dashed roof and the power modes' Pareto front
 * (a line through dots) with a dot. */
export function seriesLegend(position = 'top') {
  return {
    position,
    labels: {
      boxWidth: 18, font: { size: 11 }, usePointStyle: true,
      generateLabels(chart) {
        return chart.constructor.defaults.plugins.legend.labels.generateLabels(chart).map((item) => {
          const set = chart.data.datasets[item.datasetIndex] || {};
          const type = set.type || chart.config.type;
          if (type === 'scatter' && !set.showLine || set.showLine === false) return item;
          const lineDash = set.borderDash || [], lineWidth = set.borderWidth ?? 2;
          return { ...item, pointStyle: set.pointRadius > 0 ? lineWithDot(set) : 'line', lineDash, lineWidth };
        });
      },
    },
  };
}

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

/** Where labels may go on a chart: inside the plot, over no box already
 * taken (the boxes of other plugins' labels, chart.$rlTaken, then whatever
 * the caller adds). */
export function labelRoom(chart) {
  const a = chart.chartArea;
  const taken = [...(chart.$rlTaken || [])];
  const overlaps = (r, o) => r.x < o.x + o.w && o.x < r.x + r.w && r.y < o.y + o.h && o.y < r.y + r.h;
  const free = (r) => r.x >= a.left && r.x + r.w <= a.right && r.y >= a.top && r.y + r.h <= a.bottom &&
    !taken.some((o) => overlaps(r, o));
  return { taken, free };
}

/** The nearest free w×h box around a point at (px, py) of radius r: rings
 * of growing distance (12 px apart), 16 directions each, right of the point
 * first; `lead` says it sits off the first ring (draw a leader line). null
 * when no ring has room. */
export function labelSpot(px, py, r, w, h, free, rings) {
  for (let ring = 0; ring < rings; ring++) {
    const d = r + 3 + ring * 12;
    for (let k = 0; k < 16; k++) {
      const ang = (k % 2 ? -1 : 1) * Math.ceil(k / 2) * (Math.PI / 8);
      const ux = Math.cos(ang), uy = Math.sin(ang);
      // The box's centre lies further out in the same direction, so its side facing the point touches the ring.
      const box = { x: px + ux * d + (ux - 1) * w / 2, y: py + uy * d + (uy - 1) * h / 2, w, h };
      if (free(box)) return { ...box, lead: ring > 0 };
    }
  }
  return null;
}

/** Draws text labels at data points without overlap (the "×N" counts of
 * merged points): each label takes the nearest free spot next to its point
 * (labelSpot's first ring, else its second with a leader line). Where a
 * crowded chart has no room for one, the
 * label is left out and counted in chart.$rlUnlabelled; the tooltip and the
 * chart's data table still give every count. options.plugins.rlLabels =
 * [{x, y, text, color, yAxisID, r}]. The boxes drawn are kept in
 * chart.$rlLabelBoxes (for tests). */
export const pointLabels = {
  id: 'rlLabels',
  afterDatasetsDraw(chart) {
    // Read from the raw options: Chart.js would wrap every label in a resolver.
    const list = chart.config.options?.plugins?.rlLabels;
    chart.$rlLabelBoxes = [];
    chart.$rlUnlabelled = [];
    if (!Array.isArray(list) || !list.length) return;
    const { ctx, scales } = chart;
    ctx.save();
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    const { taken, free } = labelRoom(chart);
    // Every point the chart draws is taken first, so a label covers no
    // point (not even the one of another label).
    chart.data.datasets.forEach((d, i) => {
      const meta = chart.getDatasetMeta(i);
      if (meta.hidden || d.rl === 'ceiling' || d.pointRadius === 0) return;
      for (const e of meta.data) {
        const r = Math.max(2, (e.options?.radius ?? 3) + (e.options?.borderWidth ?? 1) / 2);   // as drawn, border included
        if (Number.isFinite(e.x) && Number.isFinite(e.y)) taken.push({ x: e.x - r, y: e.y - r, w: 2 * r, h: 2 * r });
      }
    });
    for (const t of list) {
      const px = scales.x.getPixelForValue(t.x), py = scales[t.yAxisID || 'y'].getPixelForValue(t.y);
      if (!Number.isFinite(px) || !Number.isFinite(py)) continue;
      const w = ctx.measureText(t.text).width + 2, h = 13;
      // Off the point's own ring when it is crowded (points drawn on one
      // another, the whole-model star), with a leader line to its point.
      const spot = labelSpot(px, py, t.r || 4, w, h, free, 2);
      if (!spot) { chart.$rlUnlabelled.push(t.text); continue; }
      taken.push(spot);
      chart.$rlLabelBoxes.push({ x: spot.x, y: spot.y, w, h, text: t.text });
      if (spot.lead) {
        ctx.strokeStyle = '#666';
        ctx.lineWidth = 0.8;
        ctx.beginPath();
        ctx.moveTo(px, py);
        ctx.lineTo(Math.max(spot.x, Math.min(px, spot.x + w)), Math.max(spot.y, Math.min(py, spot.y + h)));
        ctx.stroke();
      }
      ctx.fillStyle = 'rgba(255,255,255,0.8)';
      ctx.fillRect(spot.x, spot.y, w, h);
      ctx.fillStyle = t.color || '#222';
      ctx.textAlign = 'left';
      ctx.fillText(t.text, spot.x + 1, spot.y + h / 2);
    }
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

/** A linear axis with the log axis's title, ticks and grid. */
export function linearAxis(title, unit, min, max) {
  return { type: 'linear', min, max, title: { display: true, text: title },
    ticks: { callback: (v) => eng(v, unit, 3) }, grid: { color: '#eee' } };
}

/** A log range around the positive values: padded by `pad`, at least
 * `minDecades` wide, never wider than `maxDecades` below the top; with
 * `whole`, widened out to whole decades. `none` when no value is positive. */
export function logRange(values, { pad = 1.6, minDecades = 1, maxDecades = 8, whole = false, none = [1e-3, 1e3] } = {}) {
  let lo = Infinity, hi = -Infinity;
  for (const x of values) if (Number.isFinite(x) && x > 0) { if (x < lo) lo = x; if (x > hi) hi = x; }
  if (!(hi > 0)) return none;
  lo /= pad; hi *= pad;
  if (hi / lo < 10 ** minDecades) { const m = Math.sqrt(hi * lo), f = 10 ** (minDecades / 2); lo = m / f; hi = m * f; }
  lo = Math.max(lo, hi / 10 ** maxDecades);
  return whole ? [10 ** Math.floor(Math.log10(lo)), 10 ** Math.ceil(Math.log10(hi))] : [lo, hi];
}

export function line(label, data, color, extra = {}) {
  return { type: 'line', label, data, borderColor: color, backgroundColor: color, borderWidth: 1.5,
    pointRadius: 0, pointHitRadius: 0, fill: false, tension: 0, order: 10, rl: 'ceiling', ...extra };
}

/** Draws a legend entry's mark as its chart draws it, centred at (x, y),
 * `scale` times its size on screen: a point in its style, size and colours
 * (Chart.js's own drawPoint), an area's outline over its fill, or a line
 * with its dash and width. Entry: {point, pointStyle, radius, color, fill,
 * borderWidth, area, dash, width}. */
export function drawMark(ctx, m, x, y, scale = 1) {
  ctx.save();
  ctx.strokeStyle = m.color;
  ctx.fillStyle = m.fill || m.color;
  ctx.lineWidth = (m.point ? m.borderWidth ?? 1 : m.width ?? 2) * scale;
  if (m.point) {
    const opts = { pointStyle: m.pointStyle || 'circle', radius: (m.radius || 4) * scale, rotation: 0, borderWidth: (m.borderWidth ?? 1) * scale };
    const draw = chartDrawPoint();
    if (draw) draw(ctx, opts, x, y);
    else { ctx.beginPath(); ctx.arc(x, y, opts.radius, 0, 2 * Math.PI); ctx.fill(); ctx.stroke(); }
  } else if (m.area) {
    const w = 16 * scale, h = 10 * scale;
    ctx.fillRect(x - w / 2, y - h / 2, w, h);
    ctx.strokeRect(x - w / 2, y - h / 2, w, h);
  } else {
    ctx.setLineDash((m.dash || []).map((d) => d * scale));
    ctx.beginPath(); ctx.moveTo(x - 9 * scale, y); ctx.lineTo(x + 9 * scale, y); ctx.stroke();
  }
  ctx.restore();
}

/** Zoom and pan for a chart's options.plugins.zoom (chartjs-plugin-zoom):
 * Ctrl + wheel or a pinch zooms (a plain wheel still scrolls the page), a
 * drag pans, on both axes; resetOnDoubleClick puts the view back. */
export function zoomOptions() {
  return {
    zoom: { wheel: { enabled: true, modifierKey: 'ctrl' }, pinch: { enabled: true }, mode: 'xy' },
    pan: { enabled: true, mode: 'xy', threshold: 6 },
  };
}

/** A double-click on a canvas undoes the zoom and pan of the chart it
 * holds now (`current()`). One listener per canvas: a canvas outlives its
 * charts (a new model draws a new one on it), and a listener per chart
 * would reset destroyed ones too, which throws. */
const resettable = new WeakSet();
export function resetOnDoubleClick(canvas, current) {
  if (resettable.has(canvas)) return;
  resettable.add(canvas);
  canvas.addEventListener('dblclick', () => current()?.resetZoom?.());
}

/** A long tooltip line as lines of at most `width` characters, broken
 * after a comma or a space (a tooltip wider than the chart is cut). */
export function wrapLine(text, width = 60) {
  const out = [];
  let rest = String(text);
  while (rest.length > width) {
    let cut = Math.max(rest.lastIndexOf(', ', width), rest.lastIndexOf(' ', width));
    if (cut < width / 3) cut = width;
    out.push(rest.slice(0, cut + (rest[cut] === ',' ? 1 : 0)).trimEnd());
    rest = '  ' + rest.slice(cut + (rest[cut] === ',' ? 1 : 0)).trimStart();
  }
  out.push(rest);
  return out;
}

// A legend's marks repeat (the three charts share their op series; every
// redraw writes the legends again): each distinct mark is drawn and encoded
// once, keyed by everything drawMark reads.
const swatchCache = new Map();
const SWATCH_CACHE_MAX = 512;
let swatchCanvas = null;

function swatchImage(m) {
  const dpr = Math.max(1, globalThis.devicePixelRatio || 1);
  const radius = Math.min(m.radius || 4, 6.5);
  const key = JSON.stringify([dpr, !!chartDrawPoint(), m.point, m.pointStyle, radius, m.color, m.fill, m.borderWidth, m.area, m.dash, m.width]);
  let url = swatchCache.get(key);
  if (url) return url;
  // one canvas for every swatch: a new canvas's context cost more than its drawing
  swatchCanvas ??= document.createElement('canvas');
  const c = swatchCanvas;
  c.width = 22 * dpr; c.height = 16 * dpr;   // (clears it, and resets its context)
  drawMark(c.getContext('2d'), { ...m, radius }, 11 * dpr, 8 * dpr, dpr);
  url = c.toDataURL('image/png');
  if (swatchCache.size >= SWATCH_CACHE_MAX) swatchCache.clear();
  swatchCache.set(key, url);
  return url;
}

/** A legend swatch: the entry's mark, drawn as on the chart, as the
 * background of a span (no canvas in the figure but the chart's, and no
 * image element the page's hostile-string checks would have to tell apart). */
export function markSwatch(m) {
  const sw = document.createElement('span');
  sw.className = 'swatch';
  sw.setAttribute('aria-hidden', 'true');
  sw.dataset.mark = swatchImage(m);   // what is drawn (tests read it back)
  sw.style.backgroundImage = `url("${sw.dataset.mark}")`;
  return sw;
}

/** A point both axes of a log chart can show. */
export const finitePos = (p) => p && p.x > 0 && p.y > 0 && Number.isFinite(p.x) && Number.isFinite(p.y);

/**
 * A chart as a PNG data URL at twice its size on screen, with a title block
 * (lines[0] bold) above and the legend below: a picture that says what it
 * shows when pasted elsewhere.
 * @param {object} chart a Chart.js chart
 * @param {{lines: string[], legend?: {label, color, dash?, point?}[]}} info (legend: drawMark's entries)
 */
export function chartPng(chart, { lines = [], legend = [] }) {
  const S = 2;
  const before = chart.options.devicePixelRatio;
  chart.options.devicePixelRatio = S;
  chart.resize();
  try {
    const src = chart.canvas;
    const W = src.width, pad = 10 * S;
    const out = document.createElement('canvas');
    const ctx = out.getContext('2d');
    const font = (px, bold) => `${bold ? '600 ' : ''}${px * S}px system-ui, sans-serif`;
    // Title lines, wrapped to the width.
    const wrap = (text, f) => {
      ctx.font = f;
      const words = String(text).split(' '), rows = [];
      let cur = '';
      for (const w of words) {
        const next = cur ? `${cur} ${w}` : w;
        if (ctx.measureText(next).width > W - 2 * pad && cur) { rows.push(cur); cur = w; } else cur = next;
      }
      if (cur) rows.push(cur);
      return rows;
    };
    const head = lines.flatMap((t, i) => wrap(t, font(i ? 12 : 15, !i)).map((r) => ({ r, f: font(i ? 12 : 15, !i), h: (i ? 16 : 20) * S })));
    const headH = pad + head.reduce((s, x) => s + x.h, 0) + (head.length ? 4 * S : 0);
    // Legend items laid out in rows.
    ctx.font = font(11);
    const items = [];
    let x = pad, y = 0;
    for (const it of legend) {
      const w = 22 * S + ctx.measureText(it.label).width + 14 * S;
      if (x + w > W - pad && x > pad) { x = pad; y += 16 * S; }
      items.push({ ...it, x, y });
      x += w;
    }
    const legH = legend.length ? y + 16 * S + pad : 0;
    out.width = W;
    out.height = headH + src.height + legH;
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, out.width, out.height);
    ctx.fillStyle = '#111';
    ctx.textBaseline = 'top';
    let ty = pad;
    for (const h of head) { ctx.font = h.f; ctx.fillText(h.r, pad, ty); ty += h.h; }
    ctx.drawImage(src, 0, headH);
    ctx.font = font(11);
    ctx.textBaseline = 'middle';
    for (const it of items) {
      const cy = headH + src.height + it.y + 8 * S;
      drawMark(ctx, { ...it, radius: Math.min(it.radius || 4, 6.5) }, it.x + 9 * S, cy, S);
      ctx.fillStyle = it.hidden ? '#999' : '#222';
      ctx.fillText(it.label + (it.hidden ? ' (hidden)' : ''), it.x + 22 * S, cy);
    }
    return out.toDataURL('image/png');
  } finally {
    chart.options.devicePixelRatio = before;
    chart.resize();
  }
}

// The first chart a page creates pays Chart.js's one-time costs: its
// controllers, scales and plugins resolved and their code compiled (about
// 110 ms of a BERT-Large drop's drawing, docs/benchmarks.md). warmCharts()
// pays them while the page waits for a file: one small chart of each kind
// the page draws, created and destroyed in a single task on a canvas off the
// screen, so nothing of it is ever painted or seen by another script.
const WARM_POINTS = [{ x: 1, y: 10 }, { x: 30, y: 300 }, { x: 300, y: 1000 }];
const WARM_CONFIGS = [
  { type: 'scatter', log: true, data: { datasets: [
    line('ceiling', [{ x: 0.1, y: 1 }, { x: 1000, y: 1000 }], '#000', { borderDash: [5, 4] }),
    { type: 'scatter', label: 'points', data: WARM_POINTS, pointStyle: 'circle', pointRadius: [3, 5, 8], backgroundColor: '#1f77b4' },
    { type: 'scatter', label: 'star', data: [WARM_POINTS[1]], pointStyle: 'star', pointRadius: 12, backgroundColor: '#ffd700' }] },
  labels: [{ x: 30, y: 300, r: 5, text: '\u00d72', color: '#222' }] },
  { type: 'line', log: true, data: { datasets: [line('sweep', WARM_POINTS, '#1f77b4', { pointRadius: 3 })] } },
  { type: 'bar', log: false, data: { labels: ['a', 'b'], datasets: [{ label: 'bars', data: [1, 2], backgroundColor: '#1f77b4' }] } },
];

function warmOnce(Chart, host, { type, log, data, labels = [] }) {
  const canvas = document.createElement('canvas');
  host.replaceChildren(canvas);
  const scales = log ? { x: logAxis('x', '', 0.1, 1000), y: logAxis('y', 'FLOP/s', 1, 1000) } : {};
  const chart = new Chart(canvas, {
    type, data, plugins: [whiteBackground, pointLabels],
    options: { animation: false, responsive: true, maintainAspectRatio: false, parsing: !log, normalized: true,
      scales, plugins: { legend: { display: false }, zoom: zoomOptions(), rlLabels: labels } },
  });
  chart.destroy();
}

/** Pays Chart.js's first-chart costs once, when the page is idle (see above).
 * Resolves when done; a failure only leaves the first chart cold. */
export function warmCharts() {
  return loadChartLibrary().then((Chart) => new Promise((resolve) => {
    const idle = globalThis.requestIdleCallback || ((f) => setTimeout(f, 0));
    idle(() => {
      const host = document.createElement('div');
      host.setAttribute('aria-hidden', 'true');
      host.style.cssText = 'position:fixed;left:-10000px;top:0;width:480px;height:360px;visibility:hidden';
      document.body.appendChild(host);
      try { for (const c of WARM_CONFIGS) warmOnce(Chart, host, c); } finally { host.remove(); }
      performance.mark('rooflens-charts-warm');
      resolve();
    }, { timeout: 1000 });
  })).catch(() => {});
}
