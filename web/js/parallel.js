// The "Many devices" panel: the model over tp × pp × dp devices of the chosen
// profile, linked by its interconnect (docs/parallel.md). Its controls set
// the page's request member "parallel" (and their part of the share link:
// tp, pp, dp, mb); it draws what the core answers in "parallel" and computes
// no figure: the headline times, the memory per device, and the
// communication roofline of seed 003 — one point per layer that sends
// (FLOPs per byte sent against FLOP/s attained), under the network roof
// min(peak, intensity × link bandwidth) with its balance point.
import { eng, exact, pct, times } from './format.js';
import { wordName } from './words.js';
import { whiteBackground, logAxis, logRange, line, finitePos } from './chart-kit.js';
import { el } from './dom.js';
import { chartClass } from './chart-lib.js';
import { parallelDefaultState, devicesOf, PARALLEL_MAX } from './parallel-state.js';

const FIELDS = [
  ['tp', 'Tensor parallel (T)', 'devices that split each layer (Megatron: column, then row + all-reduce)'],
  ['pp', 'Pipeline stages (P)', 'devices that each run a stage of the layers'],
  ['dp', 'Replicas (D)', 'copies of the model, each with its own batch'],
  ['mb', 'Micro-batches (M)', 'pieces of the batch in flight through the pipeline'],
];

export class ParallelView {
  /**
   * @param {HTMLElement} root the (empty) section of the page
   * @param {object} hooks {state() (the page state; its .parallel holds the
   *   settings), onChange() (settings changed: analyse again and write the URL)}
   */
  constructor(root, hooks) {
    this.root = root;
    this.h = hooks;
    this.chart = null;
    this.build();
  }

  build() {
    const r = this.root;
    r.textContent = '';
    r.appendChild(el('h2', 'Many devices: the communication roofline'));
    r.appendChild(el('p', 'The model split over several devices of the chosen profile, linked by its interconnect ' +
      '(NVLink, PCIe, ICI...). Devices = T × P × D.', { class: 'muted' }));
    const tools = r.appendChild(el('div', null, { class: 'whatif-tools' }));
    this.inputs = {};
    for (const [k, label, title] of FIELDS) {
      const l = tools.appendChild(el('label', `${label} `, { title }));
      this.inputs[k] = l.appendChild(el('input', null, {
        id: `parallel-${k}`, 'data-testid': `parallel-${k}`, type: 'number', min: '1', max: String(PARALLEL_MAX[k]), step: '1',
      }));
      this.inputs[k].addEventListener('change', () => this.changed(k));
    }
    this.msg = r.appendChild(el('p', '', { class: 'whatif-msg', hidden: '' }));
    this.summary = r.appendChild(el('div', null, { class: 'summary', 'data-testid': 'parallel-summary' }));
    const f = r.appendChild(el('figure', null, { class: 'chart' }));
    f.appendChild(el('figcaption', 'Communication roofline: FLOPs per byte sent against FLOP/s attained'));
    const box = f.appendChild(el('div', null, { class: 'chart-box' }));
    this.canvas = box.appendChild(el('canvas', null, {
      role: 'img', 'data-testid': 'parallel-chart',
      'aria-label': 'One point per layer that sends, under the network roof; the table below gives every figure',
    }));
    const det = r.appendChild(el('details', null, { 'data-testid': 'parallel-layers' }));
    this.tableTitle = det.appendChild(el('summary', 'Layers split over the devices'));
    const wrap = det.appendChild(el('div', null, { class: 'whatif-table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Layers split over the devices' }));
    this.table = wrap.appendChild(el('table', null, { class: 'whatif-table', 'data-testid': 'parallel-table' }));
    this.sync();
  }

  message(text, isError = false) {
    this.msg.textContent = text || '';
    this.msg.hidden = !text;
    this.msg.classList.toggle('error', !!isError);
  }

  /** State -> controls. */
  sync() {
    const par = this.h.state().parallel || parallelDefaultState();
    for (const [k] of FIELDS) this.inputs[k].value = String(par[k]);
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
    this.h.onChange();
  }

  clear() {
    this.summary.textContent = '';
    delete this.summary.dataset.timeS;
    this.table.textContent = '';
    if (this.chart) { this.chart.destroy(); this.chart = null; }
  }

  /** The analysis answer (null: no model). */
  update(res) {
    this.sync();
    this.clear();
    const P = res?.parallel;
    if (!P) {
      const n = devicesOf(this.h.state().parallel);
      this.summary.appendChild(el('p', n > 1 ? '' : 'One device: set T, P or D above 1.', { class: 'muted' }));
      return;
    }
    this.writeSummary(P);
    this.writeTable(P);
    this.draw(P);
  }

  writeSummary(P) {
    const ic = P.interconnect;
    this.summary.dataset.timeS = String(P.time_s); // the exact figure, for a test to compare with the CLI
    this.summary.appendChild(el('h2', `${P.devices} × ${ic.name === 'none' ? 'device' : ic.name} ` +
      `(tensor ${P.tp} × pipeline ${P.pp} × data ${P.dp})`));
    const dl = this.summary.appendChild(el('dl'));
    const item = (label, value, title) => {
      const d = dl.appendChild(el('div'));
      d.appendChild(el('dt', label));
      const v = d.appendChild(el('dd', value));
      if (title) v.title = title;
    };
    item('Devices', `${exact(P.devices)} (T ${P.tp} × P ${P.pp} × D ${P.dp})`,
      `${ic.name}, ${ic.topology}: ${eng(ic.tp_bandwidth_Bps, 'B/s')} per device for a collective, ${eng(ic.latency_s, 's')} per step`);
    item('Time', eng(P.time_s, 's'), `math ${eng(P.t_math_s, 's')} + communication ${eng(P.t_comms_s, 's')}; ` +
      `bounds ${eng(P.lower_bound_s, 's')} (all overlapped) to ${eng(P.upper_bound_s, 's')}`);
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
    const t = this.table;
    const n = P.sharded_layers;
    this.tableTitle.textContent = `Layers split over the devices: ${n.column} column, ${n.row} row, ${n.vocab} vocabulary ` +
      `(and ${n.slice} working on split values)`;
    const head = t.appendChild(el('thead')).appendChild(el('tr'));
    for (const h of ['Layer', 'Split', 'Collective', 'Sent', 'Comms', 'Math', 'FLOPs per byte sent']) head.appendChild(el('th', h));
    const body = t.appendChild(el('tbody'));
    for (const s of P.sharding) {
      const tr = body.appendChild(el('tr'));
      for (const v of [s.name, s.split, s.collective, eng(s.comm_bytes, 'B'), eng(s.t_comms_s, 's'), eng(s.t_math_s, 's'),
        s.comm_intensity === null ? '–' : eng(s.comm_intensity)]) tr.appendChild(el('td', v));
    }
  }

  draw(P) {
    const Chart = chartClass();
    const ic = P.interconnect;
    const pts = P.sharding.map((s) => ({ x: s.comm_intensity, y: s.flops_per_s, name: s.name })).filter(finitePos);
    if (!Chart || !pts.length || !(ic.tp_bandwidth_Bps > 0) || !(ic.peak_flops_per_s > 0)) return;
    const [xlo, xhi] = logRange([...pts.map((p) => p.x), ic.critical_intensity], { minDecades: 2 });
    const [ylo, yhi] = logRange([...pts.map((p) => p.y), ic.peak_flops_per_s], { minDecades: 2 });
    // the network roof from the core's peak and bandwidth: a slope up to the balance point, then flat
    const roof = [xlo, ic.critical_intensity, xhi].filter((x) => x >= xlo && x <= xhi)
      .map((x) => ({ x, y: Math.min(ic.peak_flops_per_s, x * ic.tp_bandwidth_Bps) }));
    this.chart = new Chart(this.canvas, {
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
