// Compare with another model: a second model opened beside the page's own,
// both kept parsed in the worker. Every figure shown here comes from the
// core's rl_models_diff (docs/api.md, "Diff") run on the page's request:
// the deltas, the matched layers, the ranking of changes, the thresholds'
// verdict and the Markdown. This module only lays them out and draws the
// time roofline of both models (old hollow, new filled, an arrow where a
// layer moved).
import { eng, exact, signedPct, progressPct } from './format.js';
import { whiteBackground, logAxis, line, seriesLegend } from './chart-kit.js';
import { modelUrlProblem, MAX_FAIL_IF } from './state.js';
import { needsConfirmation } from './url-policy.js';
import { download, copyText } from './export.js';
import { el, confirmChoice } from './dom.js';
import { wordName, wordTitle } from './words.js';
import { chartClass } from './chart-lib.js';

const MAX_ROWS = 2000;        // table rows drawn (the JSON download has them all)
const OLD_COLOR = '#7f7f7f';
const NEW_COLOR = '#0b5cad';


/** "+1.2 ms (+9.8 %)", "no change", "–". */
function change(d, unit) {
  if (!d || typeof d.delta !== 'number') return '–';
  if (d.delta === 0) return 'no change';
  const sign = d.delta > 0 ? '+' : '−';
  const ratio = typeof d.ratio === 'number' ? ` (${signedPct(d.ratio)})` : ' (from 0)';
  return `${sign}${eng(Math.abs(d.delta), unit)}${ratio}`;
}

/** Arrows from each layer's old point to its new one (Chart.js has none).
 * options.plugins.rlArrows = {moves: [{from: {x, y}, to: {x, y}}], color}. */
const arrows = {
  id: 'rlArrows',
  afterDatasetsDraw(chart, _args, opts) {
    const { ctx, chartArea: a, scales: { x, y } } = chart;
    ctx.save();
    ctx.beginPath();
    ctx.rect(a.left, a.top, a.right - a.left, a.bottom - a.top);
    ctx.clip();
    ctx.strokeStyle = opts?.color || '#333';
    ctx.fillStyle = opts?.color || '#333';
    ctx.lineWidth = 1.3;
    for (const m of opts?.moves || []) {
      const x0 = x.getPixelForValue(m.from.x), y0 = y.getPixelForValue(m.from.y);
      const x1 = x.getPixelForValue(m.to.x), y1 = y.getPixelForValue(m.to.y);
      const len = Math.hypot(x1 - x0, y1 - y0);
      if (!(len > 8)) continue;   // too short to see (or not finite)
      const ux = (x1 - x0) / len, uy = (y1 - y0) / len, r = 5;  // stop at the points' rims
      const sx = x0 + ux * r, sy = y0 + uy * r, ex = x1 - ux * r, ey = y1 - uy * r;
      ctx.beginPath(); ctx.moveTo(sx, sy); ctx.lineTo(ex, ey); ctx.stroke();
      const h = 7, w = 3.5;
      ctx.beginPath();
      ctx.moveTo(ex, ey);
      ctx.lineTo(ex - ux * h - uy * w, ey - uy * h + ux * w);
      ctx.lineTo(ex - ux * h + uy * w, ey - uy * h - ux * w);
      ctx.closePath(); ctx.fill();
    }
    ctx.restore();
  },
};

// A kernel's point as the core places it (kernel_*; null for a layer fused
// into another's kernel, which is drawn there), as on the page's time roofline.
const perfPoint = (intensity, perf) => (intensity > 0 && perf > 0 ? { x: intensity, y: perf } : null);

export class CompareView {
  /**
   * @param {HTMLElement} root  the section to fill
   * @param {object} host the page's host (host.js): client, state(), result(), request(), analysisRequest(),
   *   fileName(), hasModel(), examples(), exampleUrl(id), pageLocal(), changed(), comparisonChanged(c),
   *   setDiffView(view)
   */
  constructor(root, host) {
    this.root = root;
    this.host = host;
    this.info = null;     // rl_model_info of the other model, null when none is open
    this.label = '';
    this.openId = null;
    this.seq = 0;
    this.diff = null;     // the last diff object
    this.chart = null;
    this.build();
  }

  // ---------------------------------------------------------------- layout
  build() {
    const r = this.root;
    r.textContent = '';
    r.appendChild(el('h2', 'Compare with another model'));
    r.appendChild(el('p', 'Open a second model to see what changed from one to the other under the options above: ' +
      'the deltas of time, energy, FLOPs and bytes, the layers matched by name (then by op and position), ' +
      'added and removed layers, and ops that became unsupported.', { class: 'muted' }));
    const bar = el('div', null, { class: 'diff-open' });
    const fileLabel = el('label', 'Open second ONNX file…', { class: 'button', for: 'diff-file' });
    this.file = el('input', null, { id: 'diff-file', type: 'file', accept: '.onnx,.gguf,application/octet-stream',
      class: 'visually-hidden', 'data-testid': 'diff-file-input' });
    const form = el('form', null, { class: 'url-form' });
    this.url = el('input', null, { type: 'url', placeholder: 'https://…/other.onnx (needs CORS)', 'aria-label': 'URL of the model to compare with',
      'data-testid': 'diff-url-input' });
    form.append(this.url, el('button', 'Open URL', { type: 'submit', 'data-testid': 'diff-url-open' }));
    this.example = el('select', null, { 'data-testid': 'diff-example-select', 'aria-label': 'Example model to compare with' });
    this.exampleOpen = el('button', 'Compare', { type: 'button', 'data-testid': 'diff-example-open', 'aria-label': 'Compare with the chosen example' });
    this.swap = el('button', 'Swap old and new', { type: 'button', 'data-testid': 'diff-swap', disabled: '' });
    this.close = el('button', 'Close comparison', { type: 'button', 'data-testid': 'diff-close', disabled: '' });
    bar.append(fileLabel, this.file, form, this.example, this.exampleOpen, this.swap, this.close);
    r.appendChild(bar);
    this.status = el('p', '', { class: 'diff-status', role: 'status', 'data-testid': 'diff-status' });
    r.appendChild(this.status);

    this.body = el('div', null, { class: 'diff-body', hidden: '' });
    this.title = el('p', '', { class: 'diff-title', 'data-testid': 'diff-title' });
    const gateRow = el('div', null, { class: 'diff-gate-row' });
    const gl = el('label', 'Thresholds (--fail-if) ');
    this.failIf = el('input', null, { type: 'text', size: '40', maxlength: String(MAX_FAIL_IF), spellcheck: 'false',
      placeholder: 'time>+5%,flops>+10%,unsupported>0', 'data-testid': 'diff-fail-if' });
    gl.appendChild(this.failIf);
    this.gate = el('span', '', { class: 'diff-gate', 'data-testid': 'diff-gate' });
    gateRow.append(gl, this.gate);
    this.summary = el('dl', null, { class: 'diff-summary', 'data-testid': 'diff-summary' });
    this.counts = el('p', '', { 'data-testid': 'diff-layers' });
    this.notes = el('div', null, { class: 'diff-notes', 'data-testid': 'diff-notes' });
    const tools = el('div', null, { class: 'diff-tools' });
    this.copyMd = el('button', 'Copy diff as Markdown', { type: 'button', 'data-testid': 'diff-copy-md' });
    this.dlJson = el('button', 'Download diff JSON', { type: 'button', 'data-testid': 'diff-download-json' });
    this.copied = el('output', '', { class: 'muted' });
    // the graph and module views of the comparison (graph-view.js, module-view.js)
    this.showGraph = el('button', 'Show the change in the graph', { type: 'button', 'data-testid': 'diff-show-graph' });
    tools.append(this.copyMd, this.dlJson, this.showGraph, this.copied);
    const mdBox = el('details', null, { class: 'diff-md' });
    mdBox.appendChild(el('summary', 'Markdown for a pull-request comment (the same as rooflens diff --format markdown)'));
    this.markdown = el('textarea', null, { rows: '14', readonly: '', spellcheck: 'false', 'aria-label': 'Markdown of the comparison',
      'data-testid': 'diff-markdown' });
    mdBox.appendChild(this.markdown);
    const fig = el('figure', null, { class: 'chart diff-chart' });
    fig.appendChild(el('figcaption', 'Time roofline of both models: old layers hollow, new filled, an arrow where a layer moved'));
    const box = el('div', null, { class: 'chart-box' });
    this.canvas = el('canvas', null, { role: 'img', 'aria-label': 'Time roofline of the old and new model', 'data-testid': 'diff-chart' });
    box.appendChild(this.canvas);
    fig.appendChild(box);
    const wrap = el('div', null, { class: 'whatif-table-wrap diff-table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Layers of both models' });
    this.table = el('table', null, { class: 'whatif-table diff-table', 'data-testid': 'diff-table' });
    wrap.appendChild(this.table);
    this.more = el('p', '', { class: 'muted' });
    this.body.append(this.title, gateRow, this.summary, this.counts, this.notes, tools, mdBox, fig, wrap, this.more);
    r.appendChild(this.body);
    this.wire();
  }

  wire() {
    this.file.addEventListener('change', (ev) => {
      const f = ev.target.files[0];
      if (f) this.open(f, { kind: 'file', label: f.name });
      ev.target.value = '';
    });
    this.url.form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const u = this.url.value.trim();
      const why = modelUrlProblem(u, { pageLocal: !!this.host.pageLocal?.() });
      if (why) { this.say(`Cannot open this URL: ${why}.`, true); return; }
      this.open(u, { kind: 'url', label: u });
    });
    confirmChoice(this.example, this.exampleOpen, (id) => this.open(this.host.exampleUrl(id), { kind: 'example', label: id, id }));
    this.swap.addEventListener('click', () => {
      const st = this.host.state();
      st.compareIsOld = !st.compareIsOld;
      this.refresh().then(() => this.host.changed());
    });
    this.close.addEventListener('click', () => this.closeOther());
    this.failIf.addEventListener('change', () => {
      this.host.state().failIf = this.failIf.value.trim();
      this.refresh().then(() => this.host.changed());
    });
    this.copyMd.addEventListener('click', async () => {
      if (!this.diff) return;
      this.copied.textContent = (await copyText(this.diff.markdown)) ? 'Copied.' : 'Select the Markdown below and copy it.';
    });
    this.showGraph.addEventListener('click', () => this.host.setDiffView('change'));
    this.dlJson.addEventListener('click', () => {
      if (this.diff) download('rooflens-diff.json', JSON.stringify({ diff: this.diff }, null, 1), 'application/json');
    });
  }

  /** Fills the example list (the page's own examples). */
  fillExamples() {
    this.example.textContent = '';
    this.example.appendChild(el('option', 'or an example…', { value: '' }));
    for (const ex of this.host.examples()) this.example.appendChild(el('option', ex.name, { value: ex.id }));
    this.exampleOpen.disabled = true;
  }

  /** code: the core's error code, kept out of the text for tools (data-code). */
  say(text, error = false, code = '') {
    this.status.textContent = text || '';
    this.status.dataset.code = code || '';
    this.status.classList.toggle('error', !!error);
    if (error) this.root.dataset.state = 'error';
  }

  // --------------------------------------------------------------- models
  /** Opens the model to compare with, in the worker's second slot. */
  async open(source, { kind, label, id }) {
    const { client } = this.host;
    if (this.openId !== null) client.cancel(this.openId);
    const st = this.host.state();
    st.compareUrl = kind === 'url' ? source : null;
    st.compareExample = kind === 'example' ? id : null;
    st.compareFile = kind === 'file' ? label : null;
    this.info = null;
    this.root.dataset.state = 'loading';
    this.say(`Reading ${label}…`);
    const { id: openId, promise } = client.open(source, (m) => {
      if (m.total > 0) this.say(`Reading ${label}: ${progressPct(m.offset, m.total)}`);
    }, undefined, 'other');
    this.openId = openId;
    let info;
    try {
      ({ info } = await promise);
    } catch (e) {
      if (this.openId !== openId) return;
      this.openId = null;
      this.showEmpty();
      const err = e.core || e;
      this.say(e.cancelled ? `Reading ${label} was cancelled.` : `Could not read ${label}: ${err.message}`, !e.cancelled, err.code);
      this.host.changed();
      return;
    }
    if (this.openId !== openId) return;
    this.openId = null;
    this.info = info;
    this.label = label;
    await this.refresh();
    this.host.changed();
  }

  async closeOther() {
    const st = this.host.state();
    st.compareUrl = st.compareExample = st.compareFile = null;
    st.compareIsOld = false;
    st.diffView = null;
    this.info = null;
    this.diff = null;
    this.showEmpty();
    this.say('');
    this.host.comparisonChanged(null);
    await this.host.client.closeOther().catch(() => {});
    this.host.changed();
  }

  /** After the page restored a link: open the other model it names. */
  async restore() {
    const st = this.host.state();
    this.failIf.value = st.failIf || '';
    if (st.compareUrl && needsConfirmation(st.compareUrl)) {
      // A link must not make the page fetch from anywhere: the user asks for it (as for the page's model).
      const url = st.compareUrl, host = new URL(url).host;
      this.showEmpty();
      this.say(`This link compares with a model on ${host} (${url}): it is fetched only when you open it.`);
      const b = el('button', `Open the model on ${host}`, { type: 'button', 'data-testid': 'diff-confirm-url' });
      b.addEventListener('click', () => { b.remove(); this.open(url, { kind: 'url', label: url }); });
      this.status.after(b);
    } else if (st.compareUrl) await this.open(st.compareUrl, { kind: 'url', label: st.compareUrl });
    else if (st.compareExample) await this.open(this.host.exampleUrl(st.compareExample), { kind: 'example', label: st.compareExample, id: st.compareExample });
    else if (st.compareFile) {
      this.showEmpty();
      this.say(`This link compared with the local file “${st.compareFile}”: open it again to see the comparison.`);
    } else if (this.info) await this.refresh();
    else this.showEmpty();
  }

  showEmpty() {
    this.host.comparisonChanged(null);
    this.body.hidden = true;
    this.swap.disabled = this.close.disabled = true;
    this.root.dataset.state = 'empty';
    if (this.chart) { this.chart.destroy(); this.chart = null; }
  }

  // ----------------------------------------------------------------- diff
  /** Runs the diff again (the other model opened, or the page's model,
   * hardware or options changed). */
  async refresh() {
    if (!this.info || this.openId !== null) return;
    const seq = ++this.seq;
    if (!this.host.hasModel()) { this.showEmpty(); this.say('Open a model above first: it is compared with this one.'); return; }
    const st = this.host.state();
    const req = await this.host.request();
    const main = (this.host.fileName() || 'model'), other = this.label;
    const [oldLabel, newLabel] = st.compareIsOld ? [other, main] : [main, other];
    req.diff = { markdown: true, top: 10, old_label: oldLabel.slice(0, 500), new_label: newLabel.slice(0, 500) };
    req.graph = true;   // diff.graph: each layer's, edge's and module's change, for the graph and module views
    if (st.failIf) req.diff.fail_if = st.failIf;
    let res;
    try {
      res = await this.host.client.diff(req, st.compareIsOld ? 'other' : 'main');
      // A threshold the core refuses: say where, and still show the diff.
      if (!res.ok && res.error?.code === 'bad_fail_if') {
        const gateError = res.error;
        delete req.diff.fail_if;
        res = await this.host.client.diff(req, st.compareIsOld ? 'other' : 'main');
        if (res.ok) res.gateError = gateError;
      }
    } catch (e) {
      res = { ok: false, error: e.core || { message: e.message } };
    }
    if (seq !== this.seq) return;
    this.swap.disabled = this.close.disabled = false;
    if (!res.ok) {
      this.body.hidden = true;
      this.say(`The comparison failed: ${res.error.message}`, true, res.error.code);
      return;
    }
    this.say('');
    this.root.dataset.state = 'ready';
    this.render(res.diff, res.gateError);
    performance.mark('rooflens-diff-summary');
    await this.graphs(res.diff, seq);
  }

  /** Both models' graphs for the graph and module views of the comparison:
   * the page's model's answer, and the other model's, analysed with the
   * same request (the diff's figures colour them; these give the boxes and
   * edges). */
  async graphs(d, seq) {
    let mine = this.host.result(), theirs;
    try {
      const req = await this.host.analysisRequest();
      theirs = await this.host.client.analyze(req, 'other');
      if (!mine?.graph) mine = await this.host.client.analyze(req, 'main');
    } catch (e) {
      if (seq === this.seq) this.say(`The graphs of the comparison could not be drawn: ${e.message}`, true, e.core?.code);
      return;
    }
    if (seq !== this.seq || !theirs?.ok) return;
    const st = this.host.state();
    this.host.comparisonChanged({ d, old: st.compareIsOld ? theirs : mine, new: st.compareIsOld ? mine : theirs });
  }

  render(d, gateError) {
    this.diff = d;
    this.body.hidden = false;
    this.title.textContent = `${d.old.label} → ${d.new.label} on ${d.hardware.name}${d.hardware.power_mode ? ' (' + d.hardware.power_mode + ')' : ''}`;
    this.renderGate(d.gate, gateError);
    this.renderSummary(d);
    this.renderNotes(d);
    this.markdown.value = d.markdown || '';
    this.renderTable(d);
    this.renderChart(d);
  }

  renderGate(g, gateError) {
    this.gate.className = 'diff-gate';
    if (gateError) {
      this.gate.textContent = `Not understood: ${gateError.message}`;
      this.gate.classList.add('bad');
      this.gate.dataset.verdict = 'error';
    } else if (g) {
      this.gate.textContent = g.passed ? `Passed: ${g.message}` : `Failed: ${g.message}`;
      this.gate.classList.add(g.passed ? 'good' : 'bad');
      this.gate.dataset.verdict = g.passed ? 'passed' : 'failed';
    } else {
      this.gate.textContent = '';
      this.gate.dataset.verdict = 'none';
    }
  }

  renderSummary(d) {
    const t = d.totals, s = this.summary;
    s.textContent = '';
    const row = (label, delta, unit, testid) => {
      if (!delta || (delta.old === null && delta.new === null)) return;
      const div = el('div');
      div.appendChild(el('dt', label));
      const dd = el('dd', null, { title: `old ${exact(delta.old, unit)}, new ${exact(delta.new, unit)}` });
      dd.appendChild(el('span', `${eng(delta.old, unit)} → ${eng(delta.new, unit)}`));
      const c = el('span', change(delta, unit), { class: `delta ${delta.delta > 0 ? 'up' : delta.delta < 0 ? 'down' : 'same'}` });
      dd.appendChild(c);
      if (testid) dd.dataset.testid = testid;
      div.appendChild(dd);
      s.appendChild(div);
    };
    row(`Speed of light (${wordName('sol', d.sol.model)}, ${wordName('granularity', d.sol.granularity)})`, t.time_s, 's', 'diff-time');
    row('Lower bound', t.lower_bound_s, 's');
    row('Upper bound', t.upper_bound_s, 's');
    // what each model is forecast to take on the profile's stack, as the Markdown and the CLI's diff give it
    row(wordTitle('term', 'forecast'), t.forecast_s, 's', 'diff-forecast');
    row('Energy', t.energy_j, 'J', 'diff-energy');
    row('FLOPs', t.flops, 'FLOP', 'diff-flops');
    // the bytes of the model whose time is above (older cores: the unfused ones)
    row(`Bytes moved (${wordName('sol', d.sol.model)})`, t.sol_bytes ?? t.bytes, 'B', 'diff-bytes');
    row('Parameters', t.params, '');
    row('Weight bytes', t.weight_bytes, 'B');
    row('Kernels', t.kernels, '');
    const b = el('div');
    b.appendChild(el('dt', 'Dominant bound'));
    b.appendChild(el('dd', t.bound.changed ? `${wordName('bound', t.bound.old)} → ${wordName('bound', t.bound.new)}` : wordName('bound', t.bound.new)));
    s.appendChild(b);
    if (d.llm) {
      row('LLM time to first token', d.llm.ttft_s, 's');
      row('LLM time per output token', d.llm.tpot_s, 's');
      row('LLM tokens/s', d.llm.tokens_per_s, '');
      row('LLM memory required', d.llm.memory_required_bytes, 'B');
      const f = el('div');
      f.appendChild(el('dt', 'Fits in device memory'));
      const yn = (v) => (v === true ? 'yes' : v === false ? 'no' : '–');
      f.appendChild(el('dd', `${yn(d.llm.fits.old)} → ${yn(d.llm.fits.new)}`));
      s.appendChild(f);
    }
    const ds = s.dataset;
    ds.timeOld = String(t.time_s.old);
    ds.timeNew = String(t.time_s.new);
    ds.flopsDelta = String(t.flops.delta);
    ds.paramsDelta = String(t.params.delta);
    const c = d.layers;
    this.counts.textContent = `Layers: ${c.matched} matched (${c.matched_by_name} by name, ${c.matched_by_op_position} by op and position; ` +
      `${c.changed} changed), ${c.added} added, ${c.removed} removed.`;
    Object.assign(this.counts.dataset, { matched: String(c.matched), added: String(c.added), removed: String(c.removed), changed: String(c.changed) });
  }

  renderNotes(d) {
    const n = this.notes;
    n.textContent = '';
    const list = (title, items) => {
      if (!items.length) return;
      const p = el('p', null, { class: 'diff-note' });
      p.appendChild(el('strong', `${title}: `));
      p.appendChild(document.createTextNode(items.slice(0, 20).join(', ') + (items.length > 20 ? `, … and ${items.length - 20} more` : '')));
      n.appendChild(p);
    };
    const named = (l) => `${l.name || '(unnamed)'} (${l.domain ? l.domain + '.' : ''}${l.op})`;
    list('Newly unsupported (zero FLOPs counted)', d.became_unsupported.map(named));
    list('Cost now unknown', d.became_unknown.map(named));
    list('New warnings', d.warnings.new.map((w) => w.message));
    list('Resolved warnings', d.warnings.resolved.map((w) => w.message));
  }

  /** Matched layers with their deltas, the changes first (the core's
   * ranking), then the layers that did not change. */
  rows(d) {
    const out = [];
    const changedMatched = new Set();
    for (const c of d.changes) {
      const l = d[c.kind][c.at];
      if (c.kind === 'matched') changedMatched.add(c.at);
      out.push({ kind: c.kind, l });
    }
    d.matched.forEach((l, i) => { if (!changedMatched.has(i)) out.push({ kind: 'same', l }); });
    return out;
  }

  renderTable(d) {
    const tb = this.table;
    tb.textContent = '';
    const head = tb.createTHead().insertRow();
    for (const h of ['Layer', 'Op', 'Match', 'Speed of light, old', 'Speed of light, new', 'Δ speed of light', 'Δ FLOPs', 'Δ bytes', 'Bound']) head.appendChild(el('th', h));
    const body = tb.createTBody();
    const rows = this.rows(d);
    const MATCH = { name: 'by name', op_position: 'by op and position' };
    for (const { kind, l } of rows.slice(0, MAX_ROWS)) {
      const tr = body.insertRow();
      tr.dataset.kind = kind;
      tr.className = kind === 'same' ? '' : `changed ${kind}`;
      const cell = (text, cls, title) => { const td = el('td', text, cls ? { class: cls } : {}); if (title) td.title = title; tr.appendChild(td); };
      if (kind === 'added' || kind === 'removed') {
        cell(l.name || '(unnamed)');
        cell(l.op);
        cell(kind);
        cell(kind === 'removed' ? eng(l.t, 's') : '', 'n');
        cell(kind === 'added' ? eng(l.t, 's') : '', 'n');
        const sg = kind === 'added' ? 1 : -1;
        cell(change({ delta: sg * l.t, ratio: null }, 's').replace(' (from 0)', ''), 'n');
        cell(change({ delta: sg * l.flops, ratio: null }, 'FLOP').replace(' (from 0)', ''), 'n');
        cell(change({ delta: sg * l.bytes, ratio: null }, 'B').replace(' (from 0)', ''), 'n');
        cell(wordName('bound', l.bound));
        continue;
      }
      cell(l.name !== l.old_name ? `${l.name || '(unnamed)'} (was ${l.old_name || 'unnamed'})` : l.name || '(unnamed)');
      cell(l.op !== l.old_op ? `${l.old_op} → ${l.op}` : l.op);
      cell(MATCH[l.matched_by] || l.matched_by);
      cell(eng(l.t.old, 's'), 'n', exact(l.t.old, 's'));
      cell(eng(l.t.new, 's'), 'n', exact(l.t.new, 's'));
      cell(change(l.t, 's'), 'n');
      cell(change(l.flops, 'FLOP'), 'n');
      cell(change(l.bytes, 'B'), 'n');
      cell(l.bound.old !== l.bound.new ? `${wordName('bound', l.bound.old)} → ${wordName('bound', l.bound.new)}`
        : wordName('bound', l.bound.new));
    }
    this.more.textContent = rows.length > MAX_ROWS ? `The first ${MAX_ROWS} of ${rows.length} rows are shown; the diff JSON has them all.` : '';
  }

  renderChart(d) {
    if (this.chart) { this.chart.destroy(); this.chart = null; }
    const Chart = chartClass();
    if (!Chart) return;
    const oldPts = [], newPts = [], moves = [];
    const add = (arr, p, name, side) => { if (p) arr.push({ ...p, name, side }); };
    for (const l of d.matched) {
      const a = perfPoint(l.kernel_intensity.old, l.kernel_flops_per_s.old), b = perfPoint(l.kernel_intensity.new, l.kernel_flops_per_s.new);
      add(oldPts, a, l.old_name, 'old');
      add(newPts, b, l.name, 'new');
      if (a && b && (a.x !== b.x || a.y !== b.y)) moves.push({ from: a, to: b });
    }
    for (const l of d.removed) add(oldPts, perfPoint(l.kernel_intensity, l.kernel_flops_per_s), l.name, 'old (removed)');
    for (const l of d.added) add(newPts, perfPoint(l.kernel_intensity, l.kernel_flops_per_s), l.name, 'new (added)');
    const ro = d.roofline || {};
    const mem = (ro.ceilings?.memory || []).find((m) => m.bandwidth_Bps > 0);
    const comps = (ro.ceilings?.compute || []).filter((c) => c.precision === ro.precision && c.flops > 0);
    const xs = [...oldPts, ...newPts].map((p) => p.x).concat([ro.time_balance]).filter((v) => v > 0 && Number.isFinite(v));
    const ys = [...oldPts, ...newPts].map((p) => p.y).concat(comps.map((c) => c.flops)).filter((v) => v > 0 && Number.isFinite(v));
    const dec = (v, f) => 10 ** f(Math.log10(v));
    const xlo = xs.length ? dec(Math.min(...xs) / 3, Math.floor) : 1e-2, xhi = xs.length ? dec(Math.max(...xs) * 3, Math.ceil) : 1e3;
    const ylo = ys.length ? dec(Math.min(...ys) / 3, Math.floor) : 1e6, yhi = ys.length ? dec(Math.max(...ys) * 3, Math.ceil) : 1e15;
    const sets = [];
    for (const c of comps) {
      sets.push(line(`${c.precision} ${c.unit} ${eng(c.flops, 'FLOP/s')}`, [{ x: xlo, y: c.flops }, { x: xhi, y: c.flops }], '#444',
        { borderDash: c.unit === 'vector' ? [5, 4] : [], borderWidth: c.unit === 'vector' ? 1.2 : 2 }));
    }
    if (mem) {
      const peak = comps.length ? Math.max(...comps.map((c) => c.flops)) : yhi;
      const xEnd = Math.min(xhi, peak / mem.bandwidth_Bps);
      sets.push(line(`${mem.name} ${eng(mem.bandwidth_Bps, 'B/s')}`, [{ x: xlo, y: mem.bandwidth_Bps * xlo }, { x: xEnd, y: mem.bandwidth_Bps * xEnd }], '#000', { borderWidth: 2 }));
    }
    sets.push({ type: 'scatter', label: `old: ${d.old.label}`, data: oldPts, rl: 'old', order: 1, pointStyle: 'circle', pointRadius: 5,
      borderColor: OLD_COLOR, borderWidth: 1.5, backgroundColor: 'rgba(0,0,0,0)' });
    sets.push({ type: 'scatter', label: `new: ${d.new.label}`, data: newPts, rl: 'new', order: 0, pointStyle: 'circle', pointRadius: 4.5,
      borderColor: NEW_COLOR, borderWidth: 1, backgroundColor: NEW_COLOR + 'cc' });
    const ds = this.canvas.dataset;
    ds.oldPoints = String(oldPts.length);
    ds.newPoints = String(newPts.length);
    ds.arrows = String(moves.length);
    this.chart = new Chart(this.canvas, {
      data: { datasets: sets },
      options: {
        animation: false, responsive: true, maintainAspectRatio: false, parsing: false, normalized: true,
        interaction: { mode: 'nearest', intersect: true },
        scales: { x: logAxis('Arithmetic intensity (FLOP/B)', '', xlo, xhi), y: logAxis('Performance (FLOP/s)', 'FLOP/s', ylo, yhi) },
        plugins: {
          // Under the chart: at the side it would take half a phone's width and cut the names.
          legend: seriesLegend('bottom'),
          tooltip: { callbacks: {
            title: (items) => items[0]?.raw?.name ?? items[0]?.dataset?.label ?? '',
            label: (it) => (it.raw?.side ? `${it.raw.side}: ${eng(it.raw.x, 'FLOP/B')}, ${eng(it.raw.y, 'FLOP/s')}` : it.dataset.label),
          } },
          rlArrows: { moves, color: '#d62728' },
        },
      },
      plugins: [whiteBackground, arrows],
    });
  }
}
