// Measured against the speed of light and the forecast, on the page: a profile of the loaded model's
// real kernel times (ONNX Runtime profiling JSON, trtexec --exportProfile JSON
// or a name,time_s CSV) attached to the analysis. The core reads and matches
// it (core/src/measured.c, the same code as `rooflens --measured`); this
// module only shows what the core answers:
//   - a summary and the "where the time is lost" table (kernels ranked by
//     measured - speed of light), rows selecting their layers;
//   - achieved points on the time roofline beside the speed-of-light ones, with
//     the gap of the worst kernels drawn as a line (as Nsight Compute does);
//   - the Netron attachment download (rl_netron_attachment).
// The profile's text never leaves the browser: it is read here and handed
// to the worker with each analysis; the share link carries only its file
// name, to say that measurements were attached locally.
import { eng, exact, count, pct as share, times } from './format.js';
import { download } from './export.js';
import { el } from './dom.js';
import { wordName } from './words.js';

const MAX_PROFILE_BYTES = 256 << 20;
const LOST_ROWS = 20;      // rows of the "where the time is lost" table
const GAP_LINES = 10;      // kernels whose gap is drawn on the roofline

const pct = (x) => share(x, 0);   // whole per cent: the figures are measured, not exact

export class MeasuredView {
  /**
   * @param {HTMLElement} section  the #measured section
   * @param {object} host the page's host (host.js): client, hasModel(), request(), analyze(),
   *   select(index, from), showError(e, context), notice(text), state(), baseName(), result(),
   *   exampleProfile() (the open example's measured profile: {url, file, about} or null)
   */
  constructor(section, host) {
    this.section = section;
    this.host = host;
    this.profile = null;   // {name, text}
    this.res = null;
    this.body = section.querySelector('#measured-body');
    this.input = section.querySelector('#measured-input');
    this.remove = section.querySelector('#measured-remove');
    this.input.addEventListener('change', (ev) => {
      const f = ev.target.files[0];
      if (f) this.attach(f);
      ev.target.value = '';
    });
    this.remove.addEventListener('click', () => this.detach(true));
    document.getElementById('dl-netron')?.addEventListener('click', () => this.downloadNetron());
    this.render(null);
  }

  /** A dropped file is a profile (not a model) when a model is open and the
   * name says JSON or CSV. */
  accepts(file) {
    // a Hugging Face config.json is a model of its own (docs/gguf.md), not a profile
    return this.host.hasModel() && /\.(json|csv|txt)$/i.test(file.name) && !/^config\.json$/i.test(file.name);
  }

  /** Reads the file, checks it with the core, and attaches it. */
  async attach(file) {
    if (!this.host.hasModel()) {
      this.host.showError({ code: 'no_model', message: 'open the model first, then attach a profile of it', where: file.name });
      return;
    }
    if (file.size > MAX_PROFILE_BYTES) {
      this.host.showError({ code: 'bad_measured', message: `the profile is larger than ${MAX_PROFILE_BYTES >> 20} MB`, where: file.name });
      return;
    }
    let text;
    try { text = await file.text(); } catch (e) {
      this.host.showError({ code: 'read_failed', message: `could not read ${file.name}: ${e.message}`, where: file.name });
      return;
    }
    // the core judges the profile before it becomes part of every analysis
    const req = await this.host.request();
    req.measured = { text, format: 'auto' };
    let res;
    try { res = await this.host.client.analyze(req); } catch (e) { this.host.showError(e, `Could not use ${file.name}`); return; }
    if (!res.ok) { this.host.showError(res.error, `Could not use the profile ${file.name}`); return; }
    this.profile = { name: file.name, text };
    this.host.state().measuredFile = file.name;
    this.host.notice('');
    await this.host.analyze();
  }

  detach(reanalyze) {
    const had = this.profile !== null;
    this.profile = null;
    this.host.state().measuredFile = null;
    if (had && reanalyze) this.host.analyze();
    else this.render(this.host.result());
  }

  /** The analysis request with the attached profile, if any. */
  decorate(req) {
    if (this.profile) req.measured = { text: this.profile.text, format: 'auto' };
    return req;
  }

  /** A link is being restored: measurements named in it stayed in the
   * browser that made it. Drops the name until a profile is attached and
   * returns what to tell the user (addNotice), or null. */
  restored(state) {
    const name = state.measuredFile;
    state.measuredFile = this.profile ? this.profile.name : null;
    if (!name || this.profile) return null;
    return `This link was made with measurements attached locally (“${name}”); they never left that browser. ` +
      'Attach the profile again to compare it with the speed of light and the forecast.';
  }

  /** Adds text to the page's notice, after what is there. */
  addNotice(text) {
    if (!text) return;
    const current = document.getElementById('notice')?.textContent || '';
    this.host.notice(current ? `${current} ${text}` : text);
  }

  // ------------------------------------------------------------- view
  render(res) {
    this.res = res;
    const ms = res?.measured;
    this.body.textContent = '';
    this.remove.hidden = !this.profile;
    this.section.dataset.attached = ms ? '1' : '0';
    const nb = document.getElementById('dl-netron');
    if (nb) nb.disabled = !res;
    if (!ms) {
      this.body.appendChild(el('p', res ? 'No profile attached. Attach ONNX Runtime profiling JSON (enableProfiling), ' +
        'trtexec --exportProfile JSON or a name,time_s CSV of this model to see measured time, efficiency and the time ' +
        'lost per kernel.' : 'Open a model first.', { class: 'muted' }));
      if (res) this.offerExample();
      return;
    }
    this.body.appendChild(this.summary(ms));
    this.body.appendChild(this.lostTable(res, ms));
    if (ms.unmatched.length) this.body.appendChild(this.unmatchedList(ms));
    if (ms.unmeasured.length) {
      const det = el('details');
      det.appendChild(el('summary', `${count(ms.unmeasured.length)} layers with work but no measured kernel`));
      det.appendChild(el('p', ms.unmeasured.map((i) => res.layers[i]?.name).join(', ')));
      this.body.appendChild(det);
    }
  }

  /** An example that comes with a profile measured of it: offered here, with what it is and where it ran. */
  offerExample() {
    const ex = this.host.exampleProfile();
    if (!ex) return;
    const box = this.body.appendChild(el('p', null, { class: 'measured-example', 'data-testid': 'measured-example' }));
    const b = box.appendChild(el('button', 'Attach the example\'s measured profile', { type: 'button', 'data-testid': 'measured-example-attach' }));
    box.append(` ${ex.about}`);
    b.addEventListener('click', async () => {
      b.disabled = true;
      try {
        const r = await fetch(ex.url);
        if (!r.ok) throw new Error(`HTTP ${r.status}`);
        await this.attach(new File([await r.text()], ex.file, { type: 'application/json' }));
      } catch (e) {
        this.host.showError({ code: 'fetch_failed', message: `could not load the example's profile: ${e.message || e}`, where: ex.file });
      } finally { b.disabled = false; }
    });
  }

  summary(ms) {
    const p = el('p', null, { 'data-testid': 'measured-summary' });
    const runs = `each kernel's ${ms.statistic} over ${ms.runs} run${ms.runs === 1 ? '' : 's'}${ms.warmup_excluded ? ', warm-up left out' : ''}`;
    p.appendChild(el('strong', `Measured ${eng(ms.total_s, 's')}`, { title: exact(ms.total_s, 's') }));
    p.append(` in ${count(ms.kernels)} kernels (${wordName('measured_format', ms.format)} “${this.profile?.name ?? ''}”, ${runs})` +
      `${ms.run_wall_s ? `, ${eng(ms.run_wall_s, 's')} a run by the wall clock (${ms.statistic})` : ''}: ` +
      `${times(ms.measured_over_predicted)} the speed of light of ${eng(ms.predicted_s, 's')}` +
      `${Number.isFinite(ms.measured_over_forecast) ? ` and ${times(ms.measured_over_forecast)} the forecast of ${eng(ms.forecast_s, 's')}` : ''}. ${count(ms.matched)} kernels matched to layers (${pct(ms.matched_s / ms.total_s)} of the ` +
      `time); ${count(ms.nodes_measured)} layers measured, ${count(ms.nodes_inferred)} of them placed in a fused kernel ` +
      `by inference. The matched kernels run at ${pct(ms.efficiency)} of their speed of light (efficiency), ` +
      `${eng(ms.recoverable_s, 's')} lost against it; their speed of light is at most the measured time for ` +
      `${pct(ms.sol_bound_share)} of it.`);
    // one speed-of-light figure in the paragraph (the model's); the matched kernels' own, in the tooltip
    p.title = `speed of light of the matched kernels: ${exact(ms.sol_s, 's')}`;
    return p;
  }

  lostTable(res, ms) {
    const wrap = el('div', null, { class: 'whatif-table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Where the time is lost' });
    wrap.appendChild(el('h3', 'Where the time is lost'));
    const t = el('table', null, { class: 'whatif-table', 'data-testid': 'measured-lost' });
    const head = t.createTHead().insertRow();
    for (const h of ['kernel', 'op', 'layers', 'measured', 'speed of light', 'efficiency', 'gap', 'share'])
      head.appendChild(el('th', h));
    const body = t.createTBody();
    for (const g of ms.groups.slice(0, LOST_ROWS)) {
      const tr = body.insertRow();
      tr.dataset.index = String(g.nodes[0]);
      tr.tabIndex = 0;
      const name = g.kernels[0] + (g.kernels.length > 1 ? ` (+${g.kernels.length - 1})` : '');
      tr.appendChild(el('td', name, { title: g.kernels.join('\n') }));
      tr.appendChild(el('td', g.op));
      tr.appendChild(el('td', g.nodes.length, { title: g.nodes.map((i) => res.layers[i]?.name).join('\n') + `\n(${g.how})` }));
      tr.appendChild(el('td', eng(g.measured_s, 's'), { title: exact(g.measured_s, 's'), class: 'n' }));
      tr.appendChild(el('td', eng(g.sol_s, 's'), { title: exact(g.sol_s, 's'), class: 'n' }));
      tr.appendChild(el('td', pct(g.efficiency), { class: 'n' }));
      tr.appendChild(el('td', eng(g.recoverable_s, 's'), { title: exact(g.recoverable_s, 's'), class: 'n' }));
      tr.appendChild(el('td', pct(g.measured_s / ms.total_s), { class: 'n' }));
      const go = () => this.host.select(g.nodes[0], 'measured');
      tr.addEventListener('click', go);
      tr.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') go(); });
    }
    wrap.appendChild(t);
    if (ms.groups.length > LOST_ROWS) wrap.appendChild(el('p', `${count(ms.groups.length - LOST_ROWS)} more kernels in the JSON download.`, { class: 'muted' }));
    return wrap;
  }

  unmatchedList(ms) {
    const det = el('details', null, { 'data-testid': 'measured-unmatched' });
    const one = ms.unmatched.length === 1;
    det.appendChild(el('summary', `${count(ms.unmatched.length)} kernel${one ? ' names' : 's name'} no layer of this model ` +
      `(${pct(ms.unmatched_s / ms.total_s)} of the measured time)`));
    const ul = el('ul');
    for (const u of ms.unmatched.slice(0, 500)) ul.appendChild(el('li', `${u.name}${u.op ? ' (' + u.op + ')' : ''}: ${eng(u.time_s, 's')}, ${u.why}`));
    det.appendChild(ul);
    return det;
  }

  /** Datasets for the time roofline (charts.js calls it): achieved points of
   * the measured kernels, and the gap from the speed of light to achieved of the
   * kernels that lose the most time. */
  timeSets() {
    const ms = this.res?.measured;
    if (!ms) return [];
    const pts = [];
    for (const g of ms.groups) {
      if (!(g.intensity > 0 && g.achieved_flops_per_s > 0)) continue;
      pts.push({ x: g.intensity, y: g.achieved_flops_per_s, li: g.nodes[0],
        lines: [`measured kernel ${g.kernels[0]}`.slice(0, 160), `measured ${eng(g.measured_s, 's')}, speed of light ` +
          `${eng(g.sol_s, 's')}, efficiency ${pct(g.efficiency)}`, `achieved ${eng(g.achieved_flops_per_s, 'FLOP/s')}`] });
    }
    const sets = [{ type: 'scatter', label: 'measured (achieved)', rl: 'measured', data: pts, order: 0,
      pointStyle: 'triangle', pointRadius: 5, pointHoverRadius: 7, borderColor: '#7a0000', backgroundColor: '#d62728b0', borderWidth: 1 }];
    for (const g of ms.groups.slice(0, GAP_LINES)) {
      if (!(g.intensity > 0 && g.achieved_flops_per_s > 0 && g.sol_s > 0)) continue;
      sets.push({ type: 'line', label: 'gap to the speed of light', rl: 'measured-gap', rlNoLegend: true, order: 2,
        data: [{ x: g.intensity, y: g.flops / g.sol_s }, { x: g.intensity, y: g.achieved_flops_per_s }],
        borderColor: '#d62728', borderDash: [3, 3], borderWidth: 1, pointRadius: 0, pointHitRadius: 0 });
    }
    return sets;
  }

  async downloadNetron() {
    const res = this.host.result();
    if (!res) return;
    try {
      const json = await this.host.client.netron(res);
      const parsed = JSON.parse(json);
      if (parsed.ok === false) { this.host.showError(parsed.error, 'Netron attachment'); return; }
      download(`${this.host.baseName()}.netron.json`, json, 'application/json');
    } catch (e) { this.host.showError(e, 'Netron attachment'); }
  }
}
