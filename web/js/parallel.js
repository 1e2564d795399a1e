// The "Several devices" view (a what-if tab): the model over several devices
// of the chosen profile, linked by its interconnect (docs/parallel.md). One
// view for every question about many chips:
//  - the groups 2×, 4× and 8× (tensor parallel), ticked as a user likes, and
//    the user's own plan (T × P × D with M micro-batches), which the page's
//    headline and LLM panel use too (the request member "parallel");
//  - one table, a row per group (one device first), and one chart, a bar
//    per group: the core's figures for each plan (a compare study with
//    study.parallel, whose rows carry the totals --parallel gives);
//  - the plan's detail from the page's own answer (res.parallel): its memory,
//    its communication roofline (seed 003) and the layers it splits.
// This module computes no figure; whatif.js runs the study and hands the rows
// back here (devicesStudy / devicesDraw).
import { eng, exact, pct, times } from './format.js';
import { wordName, wordTitle, boundColor } from './words.js';
import { whiteBackground, logAxis, linearAxis, logRange, line, finitePos } from './chart-kit.js';
import { boundPhrase } from './figures.js';
import { el, stackOnNarrow } from './dom.js';
import { chartClass } from './chart-lib.js';
import { parallelDefaultState, devicesOf, PARALLEL_MAX, GROUP_SIZES } from './parallel-state.js';

const FIELDS = [
  ['tp', 'Tensor parallel (T)', 'devices that split each layer (Megatron: column, then row + all-reduce)'],
  ['pp', 'Pipeline stages (P)', 'devices that each run a stage of the layers'],
  ['dp', 'Replicas (D)', 'copies of the model, each with its own batch'],
  ['mb', 'Micro-batches (M)', 'pieces of the batch in flight through the pipeline'],
];

/** The core's plan object of the user's settings ({tp, pp, dp, micro_batches}), or null for one device. */
function planSpec(par) {
  if (!par || devicesOf(par) === 1) return null;
  return { tp: par.tp, pp: par.pp, dp: par.dp, micro_batches: par.mb };
}
const sameSpec = (a, b) => ['tp', 'pp', 'dp', 'micro_batches'].every((k) => (a[k] ?? 1) === (b[k] ?? 1));

/** "T 2 × P 2 × D 1" of a plan (the micro-batches when the pipeline has them). */
function splitText(P) {
  return `T ${P.tp} × P ${P.pp} × D ${P.dp}` + (P.pp > 1 ? `, ${P.micro_batches} micro-batches` : '');
}

/** A cell {text, value, title, key, cls} of a time, a count or a word; '–' when the figure is not there. */
const timeCell = (v, key) => (typeof v === 'number' ? { text: eng(v, 's'), value: v, title: exact(v, 's'), key, cls: 'n' } : { text: '–', key });
const energyCell = (v) => (typeof v === 'number' ? { text: eng(v, 'J'), value: v, title: exact(v, 'J'), key: 'devices_energy_j', cls: 'n' }
  : { text: '–', title: 'the profile has no energy figures', key: 'devices_energy_j' });
const plainCell = (text, value, key, cls) => ({ text, value, key, cls });

export class ParallelView {
  /**
   * @param {HTMLElement} root the view's body (inside the what-if tab "Several devices")
   * @param {object} host the page's host (host.js): state() (.parallel the plan, .groups the
   *   ticked group sizes), deviceName(), hasLinks() (chip-to-chip links), profile() (a promise),
   *   analyze() (the plan changed), changed() and refreshStudy() (the groups changed)
   */
  constructor(root, host) {
    this.root = root;
    this.h = host;
    this.chart = null;
    this.build();
  }

  build() {
    const r = this.root;
    r.textContent = '';
    r.appendChild(el('p', 'The loaded model over several of the chosen device, linked by its interconnect (NVLink, PCIe, ICI…). ' +
      'Each group is planned by the core: its time over the devices (the speed of light plus the communication), the forecast ' +
      'over them, what it sends, the speed-up over one device and the memory each device holds. One device comes first.',
    { class: 'muted' }));
    const groups = r.appendChild(el('fieldset', null, { class: 'compare-devices', 'data-testid': 'devices-groups' }));
    this.groupsLegend = groups.appendChild(el('legend', 'Groups of the chosen device, split tensor-parallel'));
    this.groupBoxes = GROUP_SIZES.map((n) => {
      const l = groups.appendChild(el('label', null, { class: 'pick' }));
      const box = l.appendChild(el('input', null, { type: 'checkbox', value: String(n), 'data-testid': `devices-group-${n}` }));
      l.appendChild(document.createTextNode(` ${n}×`));
      box.addEventListener('change', () => this.groupsChanged());
      return box;
    });
    this.linksNote = groups.appendChild(el('span', '', { class: 'muted', 'data-testid': 'devices-links-note' }));
    const plan = r.appendChild(el('fieldset', null, { class: 'whatif-tools parallel-plan', 'data-testid': 'parallel-plan' }));
    plan.appendChild(el('legend', 'Your plan (devices = T × P × D); the headline and the LLM view use it'));
    this.inputs = {};
    for (const [k, label, title] of FIELDS) {
      const l = plan.appendChild(el('label', `${label} `, { title }));
      this.inputs[k] = l.appendChild(el('input', null, {
        id: `parallel-${k}`, 'data-testid': `parallel-${k}`, type: 'number', min: '1', max: String(PARALLEL_MAX[k]), step: '1',
      }));
      this.inputs[k].addEventListener('change', () => this.changed(k));
    }
    this.msg = r.appendChild(el('p', '', { class: 'whatif-msg', hidden: '' }));
    const charts = r.appendChild(el('div', null, { class: 'whatif-charts one' }));
    const fig = charts.appendChild(el('figure', null, { class: 'chart' }));
    const cap = fig.appendChild(el('figcaption'));
    cap.appendChild(el('span', 'Time over the devices, one bar per group', { class: 'title' }));
    cap.appendChild(document.createTextNode(' '));
    cap.appendChild(el('button', 'Save PNG', { type: 'button', class: 'png', 'data-whatif-chart': 'devicesTime' }));
    this.timeBox = fig.appendChild(el('div', null, { class: 'chart-box' }));
    this.timeCanvas = this.timeBox.appendChild(el('canvas', null, {
      id: 'devices-time', role: 'img', 'data-testid': 'devices-chart',
      'aria-label': 'Time over the devices of each group, one bar per group; the table below gives every figure',
    }));
    this.notes = r.appendChild(el('p', '', { class: 'muted', 'data-testid': 'devices-notes' }));
    const wrap = r.appendChild(el('div', null, { class: 'whatif-table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Figures of each group of devices' }));
    this.groupTable = wrap.appendChild(el('table', null, { class: 'whatif-table', 'data-testid': 'devices-table' }));
    this.plan = r.appendChild(el('div', null, { class: 'parallel-detail', 'data-testid': 'parallel-panel' }));
    this.sync();
  }

  message(text, isError = false) {
    this.msg.textContent = text || '';
    this.msg.hidden = !text;
    this.msg.classList.toggle('error', !!isError);
  }

  /** State -> controls (the plan's counts, the ticked groups, whether the device has links). */
  sync() {
    const st = this.h.state();
    const par = st.parallel || parallelDefaultState();
    for (const [k] of FIELDS) this.inputs[k].value = String(par[k]);
    const links = this.h.hasLinks();
    const chosen = new Set(st.groups);
    for (const box of this.groupBoxes) {
      box.checked = chosen.has(Number(box.value));
      box.disabled = !links;
    }
    this.groupsLegend.textContent = `Groups of ${this.h.deviceName()}, split tensor-parallel over its chip-to-chip links`;
    this.linksNote.textContent = links ? '' : 'this device has no chip-to-chip links in its profile: one device only';
  }

  changed(k) {
    const v = this.inputs[k].value.trim();
    const n = /^\d{1,6}$/.test(v) ? Number(v) : NaN;
    if (!(n >= 1 && n <= PARALLEL_MAX[k])) {
      this.message(`${FIELDS.find((f) => f[0] === k)[1]} must be a whole number from 1 to ${PARALLEL_MAX[k]}.`, true);
      return;
    }
    this.message('');
    const st = this.h.state();
    st.parallel = { ...(st.parallel || parallelDefaultState()), [k]: n };
    this.h.analyze();
  }

  groupsChanged() {
    this.h.state().groups = this.groupBoxes.filter((b) => b.checked).map((b) => Number(b.value));
    this.h.changed();
    this.h.refreshStudy();
  }

  // ------------------------------------------------------------ the study
  /** The plans of the table's rows: one device, the ticked groups, the user's plan (once). */
  plans() {
    const st = this.h.state();
    const links = this.h.hasLinks();
    const rows = [{ spec: null, what: 'one' }];
    const mine = links ? planSpec(st.parallel) : null;
    for (const n of links ? st.groups : []) {
      const spec = { tp: n };
      if (!mine || !sameSpec(spec, mine)) rows.push({ spec, what: 'group' });
    }
    if (mine) rows.push({ spec: mine, what: 'plan' });
    // by their number of devices, the plan after a group of as many
    const count = (r) => (r.spec ? (r.spec.tp ?? 1) * (r.spec.pp ?? 1) * (r.spec.dp ?? 1) : 1);
    return rows.sort((a, b) => count(a) - count(b) || (a.what === 'plan') - (b.what === 'plan'));
  }

  /** The compare study of the chosen device at each plan (whatif.js sends it with the page's request). */
  async study() {
    this.sync();
    const st = this.h.state();
    this.rows = this.plans();
    const profile = await this.h.profile();
    return {
      kind: 'compare',
      hardware: this.rows.map(() => profile),
      power_modes: this.rows.map(() => (st.hw === 'custom' ? null : st.powerMode || null)),
      parallel: this.rows.map((r) => r.spec),
    };
  }

  /** A row's name: "8 × NVIDIA H100 SXM5 80GB", "Your plan: 4 × … (T 2 × P 2 × D 1)". */
  rowLabel(r, i) {
    const mode = r.hardware?.power_mode_label ? `, ${r.hardware.power_mode_label}` : '';
    const name = `${r.hardware?.name || this.h.deviceName()}${mode}`;
    const P = r.parallel;
    if (!P) return `1 × ${name}`;
    return this.rows[i].what === 'plan' ? `Your plan: ${P.devices} × ${name} (${splitText(P)})` : `${P.devices} × ${name}`;
  }

  /** The study's rows into the chart and the table; chart(key, canvas, config) draws with the what-if views' plugins. */
  drawGroups(study, chart) {
    const rows = study.rows || [];
    const ok = rows.map((r, i) => ({ r, i })).filter(({ r }) => !r.error);
    // over the devices: a group's plan, one device its own chosen time and forecast (all the core's)
    const floorOf = (r) => (r.parallel ? r.parallel.time_s : r.chosen_time_s);
    const forecastOf = (r) => (r.parallel ? r.parallel.forecast_s : r.forecast_s);
    const boundOf = (r) => (r.parallel ? r.parallel.bound : r.bound);
    const labels = ok.map(({ r, i }) => this.rowLabel(r, i));
    this.timeBox.style.height = `${Math.max(220, 90 + 46 * ok.length)}px`;
    chart('devicesTime', this.timeCanvas, {
      type: 'bar',
      data: {
        // a phone's narrow chart gets shorter lines, so that no name is cut at the edge
        labels: labels.map((l) => wrapWords(l, this.timeBox.clientWidth < 480 ? 14 : 26)),
        datasets: [{
          label: 'time over the devices (speed of light + communication), coloured by what limits it',
          data: ok.map(({ r }) => floorOf(r)),
          backgroundColor: ok.map(({ r }) => boundColor(boundOf(r))),
        }],
      },
      options: {
        indexAxis: 'y', animation: false, responsive: true, maintainAspectRatio: false,
        // a bar's length is its time: the axis starts at zero, so 0.97× looks like 0.97×
        scales: { x: linearAxis('Time per inference (s)', 's', 0, undefined), y: { type: 'category', ticks: { autoSkip: false, font: { size: 11 } } } },
        plugins: {
          legend: { position: 'top', labels: { boxWidth: 12, font: { size: 11 }, generateLabels: () =>
            [...new Set(ok.map(({ r }) => boundOf(r)))].map((b) => ({ text: `limited by ${boundPhrase(b)}`, fillStyle: boundColor(b), strokeStyle: boundColor(b), lineWidth: 0 })) },
          onClick: () => {} },
          tooltip: { callbacks: { label: (it) => {
            const r = ok[it.dataIndex].r;
            return `${eng(floorOf(r), 's')} at the speed of light, forecast ${eng(forecastOf(r), 's')} (limited by ${boundPhrase(boundOf(r))})`;
          } } },
        },
      },
    });
    this.writeGroupTable(rows);
    const notes = [];
    const failed = rows.map((r, i) => ({ r, i })).filter(({ r }) => r.error);
    for (const { r, i } of failed) notes.push(`${this.rows[i].what === 'plan' ? 'Your plan' : `${this.rows[i].spec?.tp ?? 1}×`}: ${r.error.message}`);
    if (!this.h.hasLinks()) notes.push('The chosen device has no chip-to-chip links in its profile: only one device is shown.');
    this.notes.textContent = notes.join(' ');
  }

  writeGroupTable(rows) {
    const t = this.groupTable;
    t.textContent = '';
    const heads = ['Group', 'Devices', 'Split', 'Time over the devices (speed of light)', `${wordTitle('term', 'forecast')} over the devices`,
      'Communication', 'Limited by', 'Speed-up', 'Forecast speed-up', 'Pipeline bubble', 'Sent per device', 'Memory per device', 'Fits',
      'Energy of all the devices (speed of light)'];
    const head = t.createTHead().insertRow();
    for (const h of heads) head.appendChild(el('th', h));
    const body = t.createTBody();
    rows.forEach((r, i) => {
      const tr = body.insertRow();
      tr.dataset.plan = this.rows[i].what;
      if (r.error) {
        tr.appendChild(el('td', this.rows[i].what === 'plan' ? 'Your plan' : `${this.rows[i].spec?.tp ?? 1}×`));
        tr.appendChild(el('td', `error: ${r.error.message}`, { class: 'bad', colspan: String(heads.length - 1) }));
        return;
      }
      const P = r.parallel;
      const fits = P ? P.fits : null;
      const cells = [
        plainCell(this.rowLabel(r, i), undefined, 'group'),
        plainCell(String(P ? P.devices : 1), P ? P.devices : 1, 'devices', 'n'),
        plainCell(P ? splitText(P) : '–', undefined, 'split'),
        timeCell(P ? P.time_s : r.chosen_time_s, 'devices_time_s'),
        timeCell(P ? P.forecast_s : r.forecast_s, 'devices_forecast_s'),
        P ? timeCell(P.t_comms_s, 't_comms_s') : plainCell('–', undefined, 't_comms_s'),
        plainCell(wordName('bound', P ? P.bound : r.bound), P ? P.bound : r.bound, 'devices_bound'),
        P ? plainCell(times(P.speedup), P.speedup, 'speedup', 'n') : plainCell('–', undefined, 'speedup'),
        P ? plainCell(times(P.forecast_speedup), P.forecast_speedup, 'forecast_speedup', 'n') : plainCell('–', undefined, 'forecast_speedup'),
        P && P.pp > 1 ? plainCell(pct(P.bubble), P.bubble, 'bubble', 'n') : plainCell('–', undefined, 'bubble'),
        P ? plainCell(eng(P.comm_bytes, 'B'), P.comm_bytes, 'comm_bytes', 'n') : plainCell('–', undefined, 'comm_bytes'),
        P ? plainCell(eng(P.memory_bytes_per_device, 'B'), P.memory_bytes_per_device, 'memory_bytes_per_device', 'n') : plainCell('–', undefined, 'memory_bytes_per_device'),
        plainCell(fits === null || fits === undefined ? (P ? 'memory unknown' : '–') : fits ? 'yes' : 'NO', fits ?? undefined, 'fits'),
        // every device's energy over the group's time (the core's plan); null: the profile has no energy figures
        energyCell(P ? P.energy_j : r.energy_j),
      ];
      for (const c of cells) {
        const td = tr.appendChild(el('td', c.text));
        if (c.value !== undefined && c.value !== null) td.dataset.value = String(c.value);
        if (c.title) td.title = c.title;
        if (c.key) td.dataset.key = c.key;
        if (c.cls) td.className = c.cls;
      }
    });
    stackOnNarrow(t);   // a phone shows each group's figures in a card, not past the edge
  }

  clearStudy() {
    this.groupTable.textContent = '';
    this.notes.textContent = '';
  }

  // ------------------------------------------------------------ the plan's detail (res.parallel)
  clear() {
    this.plan.textContent = '';
    delete this.plan.dataset.timeS;
    if (this.chart) { this.chart.destroy(); this.chart = null; }
  }

  /** The page's answer (null: no model): the user's plan in detail, when there is one. */
  update(res) {
    this.sync();
    this.clear();
    const P = res?.parallel;
    if (!P) return;
    this.writeSummary(P);
    this.drawRoofline(P);
    this.writeTable(P);
  }

  writeSummary(P) {
    const ic = P.interconnect;
    this.plan.dataset.timeS = String(P.time_s); // the exact figure, for a test to compare with the CLI
    this.plan.appendChild(el('h3', `Your plan in detail: ${P.devices} × ${ic.name === 'none' ? 'device' : ic.name} ` +
      `(tensor ${P.tp} × pipeline ${P.pp} × data ${P.dp})`));
    const box = this.plan.appendChild(el('div', null, { class: 'summary', 'data-testid': 'parallel-summary' }));
    box.dataset.timeS = String(P.time_s);
    const dl = box.appendChild(el('dl'));
    const item = (label, value, title) => {
      const d = dl.appendChild(el('div'));
      d.appendChild(el('dt', label));
      const v = d.appendChild(el('dd', value));
      if (title) v.title = title;
    };
    item('Devices', `${P.devices} (T ${P.tp} × P ${P.pp} × D ${P.dp})`,
      `${ic.name}, ${ic.topology}: ${eng(ic.tp_bandwidth_Bps, 'B/s')} per device for a collective, ${eng(ic.latency_s, 's')} per step`);
    item('Time', eng(P.time_s, 's'), `math ${eng(P.t_math_s, 's')} + communication ${eng(P.t_comms_s, 's')}; ` +
      `bounds ${eng(P.lower_bound_s, 's')} (all overlapped) to ${eng(P.upper_bound_s, 's')}`);
    item('Forecast', eng(P.forecast_s, 's'), `communication ${eng(P.forecast_t_comms_s, 's')}; ${times(P.forecast_speedup)} one device's forecast (${eng(P.single_device_forecast_s, 's')})`);
    item('Limited by', wordName('bound', P.bound), `${times(P.speedup)} one device (${eng(P.single_device_s, 's')})`);
    item('Sent per device', eng(P.comm_bytes, 'B'), ic.critical_intensity
      ? `communication binds below ${eng(ic.critical_intensity)} FLOPs per byte sent` : '');
    if (P.pp > 1) item('Pipeline bubble', pct(P.bubble), `(P − 1) / (M + P − 1) with ${P.micro_batches} micro-batches`);
    const fits = P.fits === null ? 'memory unknown' : P.fits ? 'fits' : 'does NOT fit';
    item('Memory per device', `${eng(P.memory_bytes_per_device, 'B')}: ${fits}`,
      `weights ${eng(P.weight_bytes_per_device, 'B')} + largest layer's activations ${eng(P.activation_bytes_per_device, 'B')}` +
      (P.memory_capacity_bytes ? ` of ${eng(P.memory_capacity_bytes, 'B')}` : ''));
  }

  writeTable(P) {
    const n = P.sharded_layers;
    const det = this.plan.appendChild(el('details', null, { 'data-testid': 'parallel-layers' }));
    det.appendChild(el('summary', `Layers split over the devices: ${n.column} column, ${n.row} row, ${n.vocab} vocabulary ` +
      `(and ${n.slice} working on split values)`));
    const wrap = det.appendChild(el('div', null, { class: 'whatif-table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Layers split over the devices' }));
    const t = wrap.appendChild(el('table', null, { class: 'whatif-table', 'data-testid': 'parallel-table' }));
    const head = t.appendChild(el('thead')).appendChild(el('tr'));
    for (const h of ['Layer', 'Split', 'Collective', 'Sent', 'Comms', 'Math', 'FLOPs per byte sent']) head.appendChild(el('th', h));
    const body = t.appendChild(el('tbody'));
    for (const s of P.sharding) {
      const tr = body.appendChild(el('tr'));
      for (const v of [s.name, s.split, s.collective, eng(s.comm_bytes, 'B'), eng(s.t_comms_s, 's'), eng(s.t_math_s, 's'),
        s.comm_intensity === null ? '–' : eng(s.comm_intensity)]) tr.appendChild(el('td', v));
    }
  }

  /** The communication roofline: one point per layer that sends, under the network roof
   * min(peak, intensity × link bandwidth). Drawn only when some layer sends: no empty chart. */
  drawRoofline(P) {
    const Chart = chartClass();
    const ic = P.interconnect;
    const pts = P.sharding.map((s) => ({ x: s.comm_intensity, y: s.flops_per_s, name: s.name })).filter(finitePos);
    if (!pts.length || !(ic.tp_bandwidth_Bps > 0) || !(ic.peak_flops_per_s > 0)) {
      this.plan.appendChild(el('p', 'No layer of this plan sends over the links (no tensor-parallel split): no communication roofline to draw.',
        { class: 'muted', 'data-testid': 'parallel-no-chart' }));
      return;
    }
    const f = this.plan.appendChild(el('figure', null, { class: 'chart' }));
    f.appendChild(el('figcaption', 'Communication roofline: FLOPs per byte sent against FLOP/s attained'));
    const box = f.appendChild(el('div', null, { class: 'chart-box' }));
    const canvas = box.appendChild(el('canvas', null, {
      role: 'img', 'data-testid': 'parallel-chart',
      'aria-label': 'One point per layer that sends, under the network roof; the table below gives every figure',
    }));
    if (!Chart) return;
    const [xlo, xhi] = logRange([...pts.map((p) => p.x), ic.critical_intensity], { minDecades: 2 });
    const [ylo, yhi] = logRange([...pts.map((p) => p.y), ic.peak_flops_per_s], { minDecades: 2 });
    // the network roof from the core's peak and bandwidth: a slope up to the balance point, then flat
    const roof = [xlo, ic.critical_intensity, xhi].filter((x) => x >= xlo && x <= xhi)
      .map((x) => ({ x, y: Math.min(ic.peak_flops_per_s, x * ic.tp_bandwidth_Bps) }));
    this.chart = new Chart(canvas, {
      type: 'scatter',
      data: { datasets: [
        { label: 'layers that send', data: pts, backgroundColor: '#1f77b4', pointRadius: 4 },
        line(`network roof (${eng(ic.tp_bandwidth_Bps, 'B/s')}; balance ${eng(ic.critical_intensity)} FLOP/B)`, roof, '#d62728'),
      ] },
      options: {
        animation: false, responsive: true, maintainAspectRatio: false,
        scales: { x: logAxis('FLOPs per byte sent', '', xlo, xhi), y: logAxis('Attained FLOP/s', 'FLOP/s', ylo, yhi) },
        plugins: { tooltip: { callbacks: { label: (c) => `${c.raw.name || c.dataset.label}: ${eng(c.raw.x)} FLOP/B, ${eng(c.raw.y, 'FLOP/s')}` } } },
      },
      plugins: [whiteBackground],
    });
  }
}

/** A long label as lines of a few words, drawn level (a phone's width too). */
function wrapWords(text, width = 26) {
  return text.split(' ').reduce((acc, w) => {
    if (acc.length && (acc[acc.length - 1] + ' ' + w).length <= width) acc[acc.length - 1] += ' ' + w; else acc.push(w);
    return acc;
  }, []);
}
