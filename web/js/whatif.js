// What-if views: compare hardware, sweep the batch, advise a power mode.
// Each view sends the page's own request plus a `study` object to the core
// (rl_model_analyze in the worker) and only draws what comes back: every
// number on these views is computed in C (see docs/api.md, "Studies").
// A view computes only while it is open, and again after every analysis of
// the main view (model, hardware or options changed).
import { eng, exact, pct, times as timesText } from './format.js';
import { whiteBackground, linearAxis, logAxis, logRange, pointLabels, chartPng, labelRoom, labelSpot, seriesLegend } from './chart-kit.js';
import { el } from './dom.js';
import { boundColor, wordName, wordTitle } from './words.js';
import { boundPhrase } from './figures.js';
import { chartClass } from './chart-lib.js';
import { VIEWS, MAX_COMPARE, MAX_SWEEP_BATCH, sweepBatches, validCompareEntry, parseCompareEntry } from './state.js';
import { devicesSpec } from './parallel-state.js';

const SOL_COLORS = { unfused: '#9ecae1', fused: '#3182bd', fused_prefetched: '#08519c' };
const DEVICES_COLOR = '#31a354';   // the compare bar of a row over its devices
const FORECAST_COLOR = '#756bb1';  // the compare bar of a device's forecast, apart from the floors' blues
/** The forecast beside a study row's floor: the core's forecast_s (the profile's stack), never below the floor. */
const forecastHead = () => wordTitle('term', 'forecast');
const solHead = () => wordTitle('term', 'speed_of_light');
const forecastCell = (r) => ({ text: eng(r.forecast_s, 's'), value: r.forecast_s, title: `${exact(r.forecast_s, 's')}: what the profile's software stack is forecast to take`,
  key: 'forecast_s', cls: 'n' });
/** An energy of a study row (`key`), or 'no figures' where the profile has none. */
const energyCell = (r, key, what = '') => (r[key] === null || r[key] === undefined ? { text: 'no figures', key, cls: 'n' }
  : { text: eng(r[key], 'J'), value: r[key], title: `${exact(r[key], 'J')}${what}`, key, cls: 'n' });
// the energy at the forecast's pace: the work's, plus static power over the forecast time (the core's row)
const forecastEnergyCell = (r) => energyCell(r, 'forecast_energy_j', ': the energy at the forecast\'s pace');
// Suggested when the compare view is first opened: one device of each kind.
const DEFAULT_COMPARE = ['h100-sxm', 'a100-sxm-80gb', 'l4', 'jetson-agx-orin', 'tpu-v5e'];

/** Vertical marker lines drawn over a chart (Chart.js has no annotation
 * plugin in its core build): plugins.rlMarkers = {lines: [{x, label, color}]}.
 * Their labels' boxes go to chart.$rlTaken, so that point labels
 * (chart-kit.js pointLabels) keep clear of them. */
const markers = {
  id: 'rlMarkers',
  afterDatasetsDraw(chart, _args, opts) {
    const { ctx, chartArea: a, scales } = chart;
    chart.$rlTaken = [];
    ctx.save();
    ctx.font = '12px system-ui, sans-serif';
    for (const m of opts?.lines || []) {
      const px = scales.x.getPixelForValue(m.x);
      if (!(px >= a.left - 0.5 && px <= a.right + 0.5)) continue;
      ctx.strokeStyle = m.color || '#d62728';
      ctx.lineWidth = 1.5;
      ctx.setLineDash([6, 4]);
      ctx.beginPath(); ctx.moveTo(px, a.top); ctx.lineTo(px, a.bottom); ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = m.color || '#d62728';
      const w = ctx.measureText(m.label).width;
      const right = px + 4 + w <= a.right;
      ctx.textAlign = right ? 'left' : 'right';
      ctx.fillText(m.label, right ? px + 4 : px - 4, a.top + 14);
      chart.$rlTaken.push({ x: right ? px + 4 : px - 4 - w, y: a.top + 2, w, h: 14 });
    }
    ctx.restore();
  },
};

/** Labels of a few points that may sit close together (the power modes):
 * each label goes to the nearest free spot around its point, further out
 * with a leader line when the near spots are taken, and never over another
 * label, a point or a marker's label. A label with no free spot anywhere
 * is not drawn but handed to opts.onUnplaced, so the page can say so.
 * plugins.rlModeLabels = {labels: [{x, y, text, r}], onUnplaced(texts)}.
 * Boxes drawn go to chart.$rlLabelBoxes (as chart-kit.js pointLabels). */
const modeLabels = {
  id: 'rlModeLabels',
  afterDatasetsDraw(chart) {
    // Read from the raw options: Chart.js would wrap the callback in a resolver.
    const opts = chart.config.options?.plugins?.rlModeLabels;
    chart.$rlLabelBoxes = [];
    const list = opts?.labels || [];
    if (!list.length) return;
    const { ctx, scales } = chart;
    ctx.save();
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    const { taken, free } = labelRoom(chart);
    const at = list.map((t) => ({ t, px: scales.x.getPixelForValue(t.x), py: scales.y.getPixelForValue(t.y) }))
      .filter(({ px, py }) => Number.isFinite(px) && Number.isFinite(py));
    for (const { t, px, py } of at) {
      const r = (t.r || 5) + 1;
      taken.push({ x: px - r, y: py - r, w: 2 * r, h: 2 * r });
    }
    // The most crowded points choose first: they have the fewest free spots.
    const crowd = ({ px, py }) => at.filter((o) => Math.hypot(o.px - px, o.py - py) < 60).length;
    at.sort((p, q) => crowd(q) - crowd(p));
    const unplaced = [];
    const H = 13;
    for (const { t, px, py } of at) {
      const w = ctx.measureText(t.text).width + 2;
      // Further out, with a leader line, when the near spots are taken.
      const spot = labelSpot(px, py, t.r || 5, w, H, free, 8);
      if (!spot) { unplaced.push(t.text); continue; }
      taken.push(spot);
      chart.$rlLabelBoxes.push({ x: spot.x, y: spot.y, w: spot.w, h: spot.h, text: t.text });
      if (spot.lead) {
        // A leader from the point's rim to the nearest point of the box.
        const cx = Math.max(spot.x, Math.min(px, spot.x + spot.w)), cy = Math.max(spot.y, Math.min(py, spot.y + spot.h));
        const len = Math.hypot(cx - px, cy - py), rr = (t.r || 5) + 1;
        if (len > rr) {
          ctx.strokeStyle = '#888';
          ctx.lineWidth = 1;
          ctx.beginPath();
          ctx.moveTo(px + (cx - px) / len * rr, py + (cy - py) / len * rr);
          ctx.lineTo(cx, cy);
          ctx.stroke();
        }
      }
      ctx.fillStyle = 'rgba(255,255,255,0.85)';
      ctx.fillRect(spot.x, spot.y, w, H);
      ctx.fillStyle = '#222';
      ctx.textAlign = 'left';
      ctx.fillText(t.text, spot.x + 1, spot.y + H / 2);
    }
    ctx.restore();
    chart.$rlUnlabelled = unplaced;
    opts.onUnplaced?.(unplaced);
  },
};

function axis(type, title, unit, min, max) {
  return type === 'logarithmic' ? logAxis(title, unit, min, max) : linearAxis(title, unit, min, max);
}

/** Log axis limits padded to whole decades around the positive values
 * (chart-kit's range; Chart.js picks its own when none is positive). */
function decades(values) {
  return logRange(values, { pad: 1.5, minDecades: 0, maxDecades: Infinity, whole: true, none: [undefined, undefined] });
}

function baseOptions(x, y, extra = {}) {
  return {
    animation: false, responsive: true, maintainAspectRatio: false,
    scales: { x, y },
    plugins: { legend: { position: 'top', labels: { boxWidth: 12, font: { size: 11 } } }, ...extra },
  };
}

/** A small table: heads [label], rows [[{text, value?, title?, cls?}]]. */
/** A compare row's cells over its devices (its "parallel" plan, or one device). */
function devicesCells(r) {
  const P = r.parallel;
  const t = P ? P.time_s : r.chosen_time_s;
  const none = { text: '–' };
  return [
    { text: String(P ? P.devices : 1), value: P ? P.devices : 1, key: 'devices', cls: 'n' },
    { text: eng(t, 's'), value: t, title: exact(t, 's'), key: 'devices_time_s', cls: 'n' },
    P ? { text: eng(P.t_comms_s, 's'), value: P.t_comms_s, title: exact(P.t_comms_s, 's'), key: 't_comms_s', cls: 'n' } : none,
    P ? { text: wordName('bound', P.bound), value: P.bound, key: 'devices_bound' } : { text: wordName('bound', r.bound), value: r.bound, key: 'devices_bound' },
    P ? { text: timesText(P.speedup), value: P.speedup, key: 'speedup', cls: 'n' } : none,
    P ? { text: eng(P.memory_bytes_per_device, 'B'), value: P.memory_bytes_per_device, key: 'memory_bytes_per_device', cls: 'n' } : none,
  ];
}

function fillTable(table, heads, rows) {
  table.textContent = '';
  const tr = table.createTHead().insertRow();
  for (const h of heads) tr.appendChild(el('th', h));
  const body = table.createTBody();
  for (const r of rows) {
    const row = body.insertRow();
    if (r.attrs) for (const [k, v] of Object.entries(r.attrs)) row.setAttribute(k, v);
    for (const c of r.cells) {
      const td = el('td', c.text);
      if (c.value !== undefined && c.value !== null) td.dataset.value = String(c.value);
      if (c.title) td.title = c.title;
      if (c.key) td.dataset.key = c.key;
      if (c.cls) td.className = c.cls;
      row.appendChild(td);
    }
  }
}

export class WhatIfViews {
  /**
   * @param {HTMLElement} root the what-if section of the page
   * @param {object} host the page's host (host.js): client, catalog, state(), hasAnswer(), analysisRequest(),
   *   profile(), changed() (state changed: write the URL), usePowerMode(id), devicesView()
   */
  constructor(root, host) {
    this.root = root;
    this.h = host;
    this.charts = {};
    this.seq = { compare: 0, devices: 0, sweep: 0, power: 0 };
    this.q = (sel) => root.querySelector(sel);
    this.wire();
  }

  // ------------------------------------------------------------ controls
  wire() {
    const tabs = [...this.root.querySelectorAll('[role=tab]')];
    this.root.querySelector('[role=tablist]').addEventListener('keydown', (ev) => {
      const i = tabs.indexOf(document.activeElement);
      if (i < 0) return;
      const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[ev.key];
      if (to === undefined) return;
      ev.preventDefault();
      const t = tabs[(to + tabs.length) % tabs.length];
      t.focus();
      if (this.h.state().view !== t.dataset.view) t.click();   // a tab opens when it gets focus
    });
    for (const b of this.root.querySelectorAll('[data-view]')) {
      b.addEventListener('click', () => {
        const st = this.h.state();
        st.view = st.view === b.dataset.view ? null : b.dataset.view;
        if (st.view === 'compare' && !st.compare.length) st.compare = this.defaultCompare();
        this.sync();
        this.h.changed();
        this.refresh();
      });
    }
    this.q('#compare-picker').addEventListener('change', (ev) => {
      const box = ev.target;
      if (!box.matches('input[type=checkbox]')) return;
      const st = this.h.state();
      const set = new Set(st.compare);
      if (box.checked) set.add(box.value); else set.delete(box.value);
      if (set.size > MAX_COMPARE) { box.checked = false; this.message('compare', `At most ${MAX_COMPARE} profiles can be compared at once.`, true); return; }
      st.compare = [...set];
      this.h.changed();
      this.refresh();
    });
    const range = () => {
      const lo = Number(this.q('#sweep-from').value), hi = Number(this.q('#sweep-to').value);
      if (!(Number.isInteger(lo) && Number.isInteger(hi) && lo >= 1 && lo <= hi && hi <= MAX_SWEEP_BATCH)) {
        this.message('sweep', `The batch range must be whole numbers with 1 ≤ from ≤ to ≤ ${MAX_SWEEP_BATCH}.`, true);
        return;
      }
      this.h.state().sweep = [lo, hi];
      this.h.changed();
      this.refresh();
    };
    this.q('#sweep-from').addEventListener('change', range);
    this.q('#sweep-to').addEventListener('change', range);
    this.q('#max-slowdown-input').addEventListener('change', (ev) => {
      const v = Number(ev.target.value);
      if (!(ev.target.value.trim() !== '' && v >= 0 && v <= 1000)) {
        this.message('power', 'The allowed slowdown must be a percentage from 0 to 1000.', true);
        return;
      }
      this.h.state().maxSlowdown = Math.round(v * 1e4) / 1e6;
      this.h.changed();
      this.refresh();
    });
    this.q('#power-use').addEventListener('click', () => {
      const id = this.q('#power-use').dataset.mode;
      if (id) this.h.usePowerMode(id);
    });
  }

  /** The compare entry of the page's own device: 'id', 'id:mode' or 'custom'. */
  chosenEntry() {
    const st = this.h.state();
    return st.hw === 'custom' ? 'custom' : (st.powerMode ? `${st.hw}:${st.powerMode}` : st.hw);
  }

  defaultCompare() {
    const known = this.h.catalog.ids();
    return [...new Set([this.chosenEntry(), ...DEFAULT_COMPARE.filter((id) => known.has(id))])];
  }

  /** State -> controls (tabs, picker, inputs). */
  sync() {
    const st = this.h.state();
    if (st.view === 'compare' && !st.compare.length) st.compare = this.defaultCompare();
    const tabs = [...this.root.querySelectorAll('[data-view]')];
    for (const b of tabs) {
      b.setAttribute('aria-selected', String(st.view === b.dataset.view));
      b.tabIndex = st.view === b.dataset.view || (!st.view && b === tabs[0]) ? 0 : -1;
    }
    for (const v of VIEWS) this.q(`#${v}-panel`).hidden = st.view !== v;
    this.fillPicker();
    this.q('#sweep-from').value = String(st.sweep[0]);
    this.q('#sweep-to').value = String(st.sweep[1]);
    this.q('#max-slowdown-input').value = String(Math.round(st.maxSlowdown * 1e6) / 1e4);
  }

  fillPicker() {
    const st = this.h.state();
    const box = this.q('#compare-picker');
    box.textContent = '';
    const chosen = new Set(st.compare);
    const check = (value, label, title) => {
      const l = el('label', null, { class: 'pick' });
      const c = el('input', null, { type: 'checkbox', value, 'data-hw': value });
      c.checked = chosen.has(value);
      l.appendChild(c);
      l.appendChild(document.createTextNode(' ' + label));
      if (title) l.title = title;
      return l;
    };
    for (const g of this.h.catalog.groups()) {
      const fs = el('fieldset');
      fs.appendChild(el('legend', g.label));
      for (const p of g.profiles) {
        const row = el('div', null, { class: 'pick-row' });
        row.appendChild(check(p.id, p.name, p.id));
        if (p.power_modes?.length) {
          const modes = el('div', null, { class: 'pick-modes' });
          modes.appendChild(el('span', 'power modes:', { class: 'muted' }));
          for (const m of p.power_modes) {
            if (m.default) continue; // the plain entry is the default mode
            modes.appendChild(check(`${p.id}:${m.id}`, m.id, m.name));
          }
          row.appendChild(modes);
        }
        fs.appendChild(row);
      }
      box.appendChild(fs);
    }
    if (st.custom) {
      const fs = el('fieldset');
      fs.appendChild(el('legend', 'Custom'));
      fs.appendChild(check('custom', `Edited profile (${st.custom.name || st.custom.id || 'unnamed'})`));
      box.appendChild(fs);
    }
    this.q('#compare-count').textContent = String(st.compare.length);
  }

  message(view, text, isError = false) {
    const m = this.q(`#${view}-msg`);
    m.textContent = text || '';
    m.hidden = !text;
    m.classList.toggle('error', !!isError);
  }

  clearChart(key) {
    if (this.charts[key]) { this.charts[key].destroy(); delete this.charts[key]; }
  }

  chart(key, canvas, config) {
    this.clearChart(key);
    const Chart = chartClass();
    if (!Chart) return;
    config.plugins = [whiteBackground, markers, pointLabels, modeLabels];
    this.charts[key] = new Chart(canvas, config);
  }

  /** Drops every drawn result (no model any more). */
  clear() {
    for (const k of Object.keys(this.charts)) this.clearChart(k);
    for (const v of VIEWS) {
      this.seq[v]++;
      this.q(`#${v}-panel`).dataset.state = 'empty';
      this.message(v, 'Open a model to see this view.');
    }
  }

  /** Recomputes the open view (after an analysis or a control change). */
  async refresh() {
    const view = this.h.state().view;
    if (!view) return;
    if (!this.h.hasAnswer()) { this.clear(); return; }
    const panel = this.q(`#${view}-panel`);
    const seq = ++this.seq[view];
    panel.dataset.state = 'busy';
    let res;
    try {
      const study = await this[`${view}Study`]();
      if (!study) { panel.dataset.state = 'empty'; return; }
      res = await this.h.client.analyze({ ...(await this.h.analysisRequest()), layers: false, study });
    } catch (e) {
      if (seq !== this.seq[view]) return;
      const err = e.core || e;
      this.message(view, `The study failed: ${err.message || e}`, true);
      panel.dataset.state = 'error';
      return;
    }
    if (seq !== this.seq[view]) return; // a newer request is under way
    if (!res.ok) {
      this.message(view, `The study failed: ${res.error.message}${res.error.where ? ' at ' + res.error.where : ''}`, true);
      panel.dataset.state = 'error';
      return;
    }
    if (!res.study || res.study.kind !== this.kindOf(view)) {
      this.message(view, 'This version of the core does not run what-if studies.', true);
      panel.dataset.state = 'error';
      return;
    }
    this.message(view, '');
    this[`${view}Draw`](res.study, res);
    panel.dataset.state = 'done';
  }

  kindOf(view) { return { compare: 'compare', devices: 'compare', sweep: 'batch_sweep', power: 'power_modes' }[view]; }

  // ------------------------------------------------------------ several devices (parallel.js lays it out)
  devicesStudy() { return this.h.devicesView().study(); }
  devicesDraw(study) { this.h.devicesView().drawGroups(study, (key, canvas, config) => this.chart(key, canvas, config)); }

  // ------------------------------------------------------------ compare
  async compareStudy() {
    const st = this.h.state();
    const known = this.h.catalog.ids();
    const entries = st.compare.filter((e) => validCompareEntry(e, known) && (parseCompareEntry(e).id !== 'custom' || st.custom));
    if (!entries.length) {
      for (const k of ['compareTime', 'compareEnergy']) this.clearChart(k);
      fillTable(this.q('#compare-table'), [], []);
      this.message('compare', 'Tick one or more hardware profiles to compare.');
      return null;
    }
    this.compareEntries = entries;
    const parsed = entries.map(parseCompareEntry);
    const hardware = await Promise.all(parsed.map((c) => (c.id === 'custom' ? st.custom : this.h.catalog.profile(c.id))));
    const power_modes = parsed.map((c) => c.mode);
    // the core plans a row over its devices (study.parallel, docs/api.md); null: one device
    const parallel = parsed.some((c) => c.devices) ? parsed.map((c) => c.devices) : undefined;
    return { kind: 'compare', hardware, power_modes, parallel };
  }

  compareDraw(study, res) {
    const st = this.h.state();
    // A row's precision is the one its device ran (the core's fallback when
    // the device has no peak for the requested one): said, not hidden.
    const asked = res?.roofline?.requested_precision;
    const fellBack = (r) => !!asked && !!r.precision && r.precision !== asked;
    const rows = study.rows || [];
    const entries = this.compareEntries;
    // The picker's entry names the bar ('id' or 'id:mode'); an edited profile
    // by its own id; a group of devices by their number, the core's.
    const parsed = entries.map(parseCompareEntry);
    // Named as a user knows them: the profile's display name and the mode's vendor name, never ids.
    const label = (r, i) => {
      const name = r.hardware?.name || entries[i].split('@')[0];
      const base = (parsed[i].id === 'custom' ? `${name} (edited)` : name) +
        (r.hardware?.power_mode_label ? `, ${r.hardware.power_mode_label}` : '');
      if (!parsed[i].devices) return base;
      return r.parallel ? `${r.parallel.devices} × ${base}` : `${base}@${devicesSpec(parsed[i].devices)}`;
    };
    const ok = rows.map((r, i) => ({ r, i })).filter(({ r }) => !r.error);
    const several = ok.some(({ r }) => r.parallel);
    // over its devices: a group's plan, a single device its own chosen time (both the core's)
    const overDevices = (r) => (r.parallel ? r.parallel.time_s : r.chosen_time_s);
    // Display names are long ("NVIDIA Jetson AGX Orin Developer Kit (…)"): each label is lines of a few
    // words, drawn level, so that no name runs diagonally across its neighbours.
    const lines = (text, width = 22) => text.split(' ').reduce((acc, w) => {
      if (acc.length && (acc[acc.length - 1] + ' ' + w).length <= width) acc[acc.length - 1] += ' ' + w; else acc.push(w);
      return acc;
    }, []);
    const labels = ok.map(({ r, i }) => [...lines(label(r, i)), ...lines(`limited by ${boundPhrase(r.parallel ? r.parallel.bound : r.bound)}`)]);
    // each device's rows of text get their room: the boxes grow with the devices and their names
    const boxHeight = `${Math.max(300, 110 + labels.reduce((h, l) => h + Math.max(14 * l.length + 8, 44), 0))}px`;
    for (const id of ['#compare-time', '#compare-energy']) this.q(id).parentElement.style.height = boxHeight;
    const sols = ['unfused', 'fused', 'fused_prefetched'];
    const times = ok.flatMap(({ r }) => [...sols.map((s) => r.sol?.[s]), overDevices(r), r.forecast_s]);
    const [tlo, thi] = decades(times);
    this.chart('compareTime', this.q('#compare-time'), {
      type: 'bar',
      data: {
        labels,
        // a group of devices is one bar, its own time over the devices; a single device its floors and forecast
        datasets: [...sols.map((s) => ({
          label: wordName('sol', s) + (s === st.sol ? ' (chosen)' : ''),
          data: ok.map(({ r }) => (r.parallel ? null : r.sol?.[s] ?? null)),
          backgroundColor: SOL_COLORS[s],
          borderColor: s === st.sol ? '#000' : SOL_COLORS[s], borderWidth: s === st.sol ? 1.5 : 0,
        })), {
          // what the profile's software stack is forecast to take: above the floors (one device's)
          label: wordName('term', 'forecast'),
          data: ok.map(({ r }) => (r.parallel ? null : r.forecast_s ?? null)),
          backgroundColor: FORECAST_COLOR,
        }, ...(several ? [{
          label: 'a group: over its devices (speed of light + communication)',
          data: ok.map(({ r }) => (r.parallel ? overDevices(r) : null)),
          backgroundColor: DEVICES_COLOR,
        }] : [])],
      },
      // bars across, devices down: a device's name reads level however long it is, on a phone too
      options: { ...baseOptions(axis('logarithmic', 'Time per inference (s)', 's', tlo, thi),
        { type: 'category', ticks: { autoSkip: false, font: { size: 11 } } },
        { tooltip: { callbacks: { label: (it) => `${it.dataset.label}: ${eng(it.raw, 's')}` } } }),
        indexAxis: 'y',
        // a group's one bar takes the whole slot: no room kept for the single device's bars it has not
        datasets: { bar: { skipNull: true } } },
    });
    // energy is one device's (the core gives none for a group): a group gets no energy bar
    const energies = ok.map(({ r }) => (r.parallel ? null : r.energy_j));
    const [elo, ehi] = decades(energies);
    this.chart('compareEnergy', this.q('#compare-energy'), {
      type: 'bar',
      data: {
        labels,
        datasets: [{
          label: 'energy per inference (J), coloured by bound',
          data: energies.map((e) => (e > 0 ? e : null)),
          backgroundColor: ok.map(({ r }) => boundColor(r.bound)),   // the core's table of bounds
        }],
      },
      options: { indexAxis: 'y', ...baseOptions(axis('logarithmic', 'Energy per inference (J)', 'J', elo, ehi),
        { type: 'category', ticks: { autoSkip: false, font: { size: 11 } } },
        // the colours' legend: one entry per bound that a bar shows
        { legend: { display: true, labels: { boxWidth: 12, font: { size: 11 }, generateLabels: () =>
            [...new Set(ok.filter(({ r }) => !r.parallel && r.energy_j > 0).map(({ r }) => r.bound))]
              .map((b) => ({ text: `limited by ${boundPhrase(b)}`, fillStyle: boundColor(b), strokeStyle: boundColor(b), lineWidth: 0 })) },
            onClick: () => {} },
          tooltip: { callbacks: { label: (it) => `energy: ${eng(it.raw, 'J')} (limited by ${boundPhrase(ok[it.dataIndex].r.bound)})` } } }) },
    });
    const missing = ok.filter(({ r }) => !r.parallel).filter(({ r }) => r.energy_j === null || r.energy_j === undefined).map(({ r, i }) => label(r, i));
    const failed = rows.map((r, i) => ({ r, i })).filter(({ r }) => r.error);
    const notes = [];
    if (missing.length) notes.push(`No energy figures in the profile of ${missing.join(', ')}: no energy bar.`);
    if (several) notes.push('A group of devices is planned by the core over its chip-to-chip links (tensor parallel): its own figures (time over the devices, communication, speed-up, memory per device) come first in its row and make its one bar. Its other figures, energy included, are those of one device: no energy bar for a group.');
    const fell = ok.filter(({ r }) => fellBack(r));
    for (const { r, i } of fell) notes.push(`${label(r, i)} has no ${asked} peak in its profile: its ${asked} work is timed at its ${r.precision} peak.`);
    for (const { r, i } of failed) notes.push(`${entries[i]}: ${r.error.message}`);
    this.q('#compare-notes').textContent = notes.join(' ');
    fillTable(this.q('#compare-table'),
      ['Device', ...(several ? ['Devices', 'Time over the devices', 'Communication', 'Limited by (devices)', 'Speed-up', 'Memory per device'] : []),
        'Power mode', 'Precision used', ...sols.map((s) => `${wordName('sol', s)}${several ? ', one device' : ''}`), `Chosen (${wordName('sol', st.sol)})`, forecastHead(), 'Energy (speed of light)', 'Energy (forecast)', 'Limited by', wordName('term', 'launch_floor')],
      rows.map((r, i) => ({
        attrs: { 'data-hw': entries[i] },
        cells: r.error ? [{ text: entries[i] }, { text: `error: ${r.error.message}`, cls: 'bad' }] : [
          { text: r.parallel ? `${r.parallel.devices} × ${r.hardware.name}` : r.hardware.name, title: r.hardware.id },
          ...(several ? devicesCells(r) : []),
          { text: r.hardware.power_mode_label || '–', title: r.hardware.power_mode || '' },
          fellBack(r) ? { text: `${r.precision} (no ${asked} peak)`, value: r.precision, key: 'precision', title: `${asked} requested; this device has no ${asked} peak, so its ${r.precision} peak is used` }
            : { text: r.precision, value: r.precision, key: 'precision' },
          ...sols.map((s) => ({ text: eng(r.sol[s], 's'), value: r.sol[s], title: exact(r.sol[s], 's'), key: s, cls: 'n' })),
          { text: eng(r.chosen_time_s, 's'), value: r.chosen_time_s, title: exact(r.chosen_time_s, 's'), key: 'chosen_time_s', cls: 'n' },
          forecastCell(r),
          energyCell(r, 'energy_j'),
          forecastEnergyCell(r),
          { text: wordName('bound', r.bound), value: r.bound, key: 'bound' },
          { text: eng(r.launch_floor_s, 's'), value: r.launch_floor_s, title: exact(r.launch_floor_s, 's'), cls: 'n' },
        ],
      })));
  }

  // --------------------------------------------------------- batch sweep
  async sweepStudy() {
    return { kind: 'batch_sweep', batches: sweepBatches(this.h.state().sweep) };
  }

  sweepDraw(study, res) {
    const all = study.rows || [];
    const rows = all.filter((r) => !r.error && r.batch > 0);
    const crit = study.critical_batch;
    const balance = study.time_balance;
    const lines = crit ? [{ x: crit, label: `critical batch ${crit}`, color: '#d62728' }] : [];
    const batches = rows.map((r) => r.batch);
    const blo = Math.min(...batches) / 1.25, bhi = Math.max(...batches) * 1.25;
    // Ticks at the swept batches (a log axis would put them at 1-9 × 10^n).
    const xAxis = () => ({ ...logAxis('Batch size', '', blo, bhi),
      afterBuildTicks: (ax) => { ax.ticks = batches.map((value) => ({ value })); },
      ticks: { callback: (v) => String(v), autoSkip: true, maxRotation: 0 } });
    const [ilo, ihi] = decades([...rows.map((r) => r.intensity), balance]);
    this.chart('sweepIntensity', this.q('#sweep-intensity'), {
      type: 'line',
      data: {
        datasets: [
          { label: 'arithmetic intensity of the model (FLOP/B)', data: rows.map((r) => ({ x: r.batch, y: r.intensity })),
            borderColor: '#1f77b4', backgroundColor: '#1f77b4', pointRadius: 3 },
          { label: `time balance ${eng(balance, 'FLOP/B')}`, data: [{ x: blo, y: balance }, { x: bhi, y: balance }],
            borderColor: '#000', borderDash: [6, 4], pointRadius: 0, borderWidth: 1.5 },
        ],
      },
      options: { ...baseOptions(xAxis(), logAxis('Arithmetic intensity (FLOP/B)', '', ilo, ihi)),
        parsing: true, plugins: { legend: seriesLegend(), rlMarkers: { lines } } },
    });
    const [flo, fhi] = decades(rows.flatMap((r) => [r.attainable_flops_per_s, r.predicted_flops_per_s]));
    const [slo, shi] = decades(rows.map((r) => r.time_per_sample_s));
    const y2 = { ...logAxis('Time per sample (s)', 's', slo, shi), position: 'right', grid: { drawOnChartArea: false } };
    this.chart('sweepPerf', this.q('#sweep-perf'), {
      type: 'line',
      data: {
        datasets: [
          // Where no floor binds, the speed of light runs at the roofline: the
          // roofline is a wide pale band under it, so both stay in sight.
          { label: 'roofline FLOP/s (ceiling at the intensity)', data: rows.map((r) => ({ x: r.batch, y: r.attainable_flops_per_s })),
            borderColor: 'rgba(44, 160, 44, 0.45)', backgroundColor: 'rgba(44, 160, 44, 0.45)', borderWidth: 9, pointRadius: 0, yAxisID: 'y', order: 2 },
          { label: 'FLOP/s at the speed of light', data: rows.map((r) => ({ x: r.batch, y: r.predicted_flops_per_s })),
            borderColor: '#1f77b4', backgroundColor: '#1f77b4', borderWidth: 2, pointRadius: 3, yAxisID: 'y', order: 1 },
          { label: 'speed-of-light time per sample', data: rows.map((r) => ({ x: r.batch, y: r.time_per_sample_s })),
            borderColor: '#9467bd', backgroundColor: '#9467bd', pointRadius: 3, borderDash: [4, 3], yAxisID: 'y2' },
        ],
      },
      options: { animation: false, responsive: true, maintainAspectRatio: false,
        scales: { x: xAxis(), y: logAxis('Performance (FLOP/s)', '', flo, fhi), y2 },
        plugins: { legend: seriesLegend(), rlMarkers: { lines },
          tooltip: { callbacks: { label: (it) => `${it.dataset.label}: ${eng(it.raw.y, it.dataset.yAxisID === 'y' ? 'FLOP/s' : 's')} at batch ${it.raw.x}` } } } },
    });
    // A model the power budget holds back never turns compute-bound: say what binds instead.
    const capped = crit ? null : rows.find((r) => r.power_capped);
    const cb = this.q('#critical-batch');
    cb.dataset.value = crit === null || crit === undefined ? '' : String(crit);
    cb.textContent = crit
      ? `Critical batch: ${crit}. From this batch on the whole model is compute-bound on ${res.hardware.name} (its compute time reaches its memory time and outlasts its launches; for matrix work alone that is the time balance of ${eng(balance, 'FLOP/B')}).`
      : `No batch in ${rows[0]?.batch ?? '?'}…${rows.at(-1)?.batch ?? '?'} makes the whole model compute-bound on ${res.hardware.name} (time balance ${eng(balance, 'FLOP/B')}).` +
        (capped ? ` From batch ${capped.batch} on its power budget${res.hardware.power_budget_w ? ` of ${eng(res.hardware.power_budget_w, 'W')}` : ''} sets the time ` +
          `first (limited by ${boundPhrase(capped.bound)}): at the full compute rate the device would draw more than that.` : '');
    const failed = all.filter((r) => r.error).map((r) => `batch ${r.batch}: ${r.error.message}`);
    this.q('#sweep-note').textContent = [study.note || '', ...failed].join(' ');
    fillTable(this.q('#sweep-table'),
      ['Batch', 'FLOPs', 'Bytes', 'Intensity (FLOP/B)', 'Roofline FLOP/s', 'FLOP/s at the speed of light', solHead(), forecastHead(), 'Speed-of-light time per sample', 'Energy per sample', 'Bound'],
      rows.map((r) => ({
        attrs: { 'data-batch': String(r.batch), class: r.batch === crit ? 'chosen' : '' },
        cells: [
          { text: String(r.batch), value: r.batch, cls: 'n' },
          { text: eng(r.flops, 'FLOP'), value: r.flops, title: exact(r.flops), cls: 'n' },
          { text: eng(r.bytes, 'B'), value: r.bytes, title: exact(r.bytes), cls: 'n' },
          { text: eng(r.intensity), value: r.intensity, title: exact(r.intensity), key: 'intensity', cls: 'n' },
          { text: eng(r.attainable_flops_per_s, 'FLOP/s'), value: r.attainable_flops_per_s, key: 'attainable_flops_per_s', cls: 'n' },
          { text: eng(r.predicted_flops_per_s, 'FLOP/s'), value: r.predicted_flops_per_s, key: 'predicted_flops_per_s', cls: 'n' },
          { text: eng(r.time_s, 's'), value: r.time_s, title: exact(r.time_s, 's'), cls: 'n' },
          forecastCell(r),
          { text: eng(r.time_per_sample_s, 's'), value: r.time_per_sample_s, title: exact(r.time_per_sample_s, 's'), key: 'time_per_sample_s', cls: 'n' },
          { text: r.energy_per_sample_j === null || r.energy_per_sample_j === undefined ? '–' : eng(r.energy_per_sample_j, 'J'), value: r.energy_per_sample_j, cls: 'n' },
          { text: wordName('bound', r.bound), value: r.bound, key: 'bound' },
        ],
      })));
  }

  // ------------------------------------------------------ power advisor
  async powerStudy() {
    const profile = await this.h.profile();
    const modes = profile?.power_modes || [];
    const use = this.q('#power-use');
    this.q('#max-slowdown-input').disabled = !modes.length;
    if (!modes.length) {
      for (const k of ['power']) this.clearChart(k);
      fillTable(this.q('#power-table'), [], []);
      this.q('#power-reason').textContent = '';
      this.q('#power-recommended').textContent = '';
      this.q('#power-recommended').dataset.mode = '';
      use.hidden = true;
      this.q('#power-body').hidden = true;
      const with_ = this.h.catalog.list.filter((p) => p.power_modes?.length).map((p) => p.name);
      this.message('power', `${profile?.name || 'This hardware profile'} has no power modes, so there is nothing to choose. ` +
        `Profiles with power modes: ${with_.join('; ') || 'none'}.`);
      return null;
    }
    this.q('#power-body').hidden = false;
    return { kind: 'power_modes', max_slowdown: this.h.state().maxSlowdown };
  }

  powerDraw(study, res) {
    const rows = study.rows || [];
    const rec = rows.find((r) => r.mode === study.recommended);
    const fastest = rows.find((r) => r.mode === study.fastest);
    const pareto = rows.filter((r) => r.pareto).sort((a, b) => a.time_s - b.time_s);
    const others = rows.filter((r) => !r.pareto);
    // The core ranks the modes by the forecast (study.ranked_by): the chart, the limit and the texts show
    // what ranks them; the table keeps the speed of light beside it.
    const pt = (r) => ({ x: r.forecast_s, y: r.forecast_energy_j, mode: r.mode });
    const ts = rows.map((r) => r.forecast_s), es = rows.map((r) => r.forecast_energy_j);
    const spread = (v) => Math.max(...v) / Math.min(...v);
    // Log axes when the modes span more than a decade, else linear with room.
    const scale = (v, title, unit) => {
      if (spread(v) > 10) { const [lo, hi] = decades(v); return axis('logarithmic', title, unit, lo, hi); }
      return { ...axis('linear', title, unit), grace: '10%' };
    };
    const limit = fastest ? fastest.forecast_s * (1 + study.max_slowdown) : null;
    const sets = [
      { type: 'line', label: 'Pareto front (no mode is both faster and more frugal)', data: pareto.map(pt),
        borderColor: '#2ca02c', backgroundColor: '#2ca02c', pointRadius: 5, borderWidth: 2 },
      { type: 'scatter', label: 'other modes', data: others.map(pt), backgroundColor: '#999', borderColor: '#666', pointRadius: 5 },
    ];
    // A filled diamond: Chart.js draws a star as lines only, so its fill (and a legend box) never matched it.
    if (rec) sets.unshift({ type: 'scatter', label: `recommended: ${rec.label}`, data: [pt(rec)], pointStyle: 'rectRot',
      pointRadius: 11, borderColor: '#000', backgroundColor: '#ffd700', borderWidth: 2 });
    const lines = limit ? [{ x: limit, label: `fastest + ${pct(study.max_slowdown)}`, color: '#d62728' }] : [];
    this.chart('power', this.q('#power-chart'), {
      type: 'scatter',
      data: { datasets: sets },
      options: { ...baseOptions(scale(ts, 'Forecast time per inference (s)', 's'), scale(es, 'Energy per inference at the forecast (J)', 'J')),
        // each legend entry is drawn as its mark: the diamond, the dots, the front as a line through dots
        plugins: { legend: seriesLegend(),
          rlMarkers: { lines },
          rlModeLabels: { labels: rows.map((r) => ({ x: r.forecast_s, y: r.forecast_energy_j, text: r.label, r: r.mode === study.recommended ? 14 : 5 })),
            onUnplaced: (texts) => {
              const n = this.q('#power-unlabelled');
              n.textContent = texts.length ? `Not labelled in the chart for lack of room: ${texts.join(', ')} (the table lists every mode).` : '';
              n.hidden = !texts.length;
            } },
          tooltip: { callbacks: { label: (it) => {
            const r = rows.find((x) => x.mode === it.raw.mode);
            return r ? `${r.name}: forecast ${eng(r.forecast_s, 's')}, ${eng(r.forecast_energy_j, 'J')} (speed of light ${eng(r.time_s, 's')}, ${eng(r.energy_j, 'J')})` : '';
          } } } } },
    });
    const recEl = this.q('#power-recommended');
    recEl.dataset.mode = study.recommended || '';
    recEl.textContent = rec
      ? `Recommended mode: ${rec.name} — forecast ${eng(rec.forecast_energy_j, 'J')} and ${eng(rec.forecast_s, 's')} per inference (${pct(rec.slowdown)} slower than the fastest mode by the forecast, ${fastest?.label}).`
      : 'No mode is recommended.';
    if (rec && rec === fastest) recEl.textContent = `Recommended mode: ${rec.name} — the fastest mode by the forecast, ${eng(rec.forecast_energy_j, 'J')} and ${eng(rec.forecast_s, 's')} per inference.`;
    this.q('#power-reason').textContent = study.reason || '';
    const use = this.q('#power-use');
    use.hidden = !rec || rec.mode === (res.hardware.power_mode || null);
    use.dataset.mode = rec?.mode || '';
    use.textContent = rec ? `Analyse in ${rec.label}` : '';
    fillTable(this.q('#power-table'),
      ['Mode', solHead(), forecastHead(), 'Slowdown (forecast)', 'Energy (speed of light)', 'Energy (forecast)', 'Average power', 'Time in compute-bound layers', 'Pareto'],
      rows.map((r) => ({
        attrs: { 'data-mode': r.mode, class: r.mode === study.recommended ? 'chosen' : '' },
        cells: [
          { text: r.name, title: r.mode },
          { text: eng(r.time_s, 's'), value: r.time_s, title: exact(r.time_s, 's'), key: 'time_s', cls: 'n' },
          forecastCell(r),
          { text: pct(r.slowdown), value: r.slowdown, cls: 'n' },
          energyCell(r, 'energy_j'),
          forecastEnergyCell(r),
          { text: eng(r.avg_power_w, 'W'), value: r.avg_power_w, cls: 'n' },
          { text: pct(r.compute_bound_time_share), value: r.compute_bound_time_share, cls: 'n' },
          { text: r.pareto ? 'yes' : '', value: r.pareto },
        ],
      })));
  }

  /** PNG of a view's chart at 2x with a title block (lines). */
  png(key, lines) { return this.charts[key] ? chartPng(this.charts[key], { lines }) : null; }
}
