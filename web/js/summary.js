// The summary panel of an analysis: the title lines every surface shares
// (page, PNG, Markdown), the headline figures (from figures.js only), the
// table of speed-of-light models and the warnings.
import { app } from './app.js';
import { eng, exact, count } from './format.js';
import { dimsText, batchNote } from './export.js';
import { headline, solRows, BOUND_WORDS } from './figures.js';
import { $, el } from './dom.js';

// How much of the file was read and how big the WASM heap got: figures for
// the huge-model benchmark and tests (tools/bench-huge.mjs), as data attributes.
export function markReadFigures() {
  const d = $('summary').dataset;
  if (app.read) {
    d.bytesRead = String(app.read.bytes_read);
    d.bytesSkipped = String(app.read.bytes_skipped);
  }
  const mem = app.client.memory;
  if (mem) { d.wasmHeap = String(mem.heap); d.wasmPeak = String(mem.peak); }
}

function dd(dl, label, value, title) {
  const d = el('div');
  d.appendChild(el('dt', label));
  const v = el('dd', value);
  if (title) v.title = title;
  d.appendChild(v);
  dl.appendChild(d);
  return v;
}

/** "file on device — mode" and the options line: the title of every surface. */
export function titleLines(res) {
  const hw = res.hardware, h = headline(res), o = res.options;
  const mode = hw.power_mode ? ` — ${hw.power_mode_name || hw.power_mode}` : '';
  const prec = h.requested_precision && h.requested_precision !== h.precision ? `${h.precision} (asked ${h.requested_precision})` : h.precision;
  return [`${app.fileName} on ${hw.name}${mode}`,
    `precision ${prec}, ${o.mode}, ${h.model ?? o.sol} SOL; dims: ${dimsText(res)}${batchNote(res)}`];
}

/** Predicted time of each speed-of-light model, the chosen one marked. */
function solTable(res, h) {
  const wrap = el('div', null, { class: 'sol-wrap', tabindex: '0', role: 'region', 'aria-label': 'Predicted time of each speed-of-light model' });
  const tbl = el('table');
  tbl.appendChild(el('caption', 'Predicted time of each speed-of-light model', { class: 'visually-hidden' }));
  const head = tbl.createTHead().insertRow();
  for (const c of ['SOL model', 'time', 'bounds', 'kernels', 'bound']) head.appendChild(el('th', c));
  const body = tbl.createTBody();
  for (const r of solRows(res)) {
    const tr = body.insertRow();
    if (r.model === h.model) tr.className = 'chosen';
    tr.appendChild(el('td', r.model));
    tr.appendChild(el('td', eng(r.time_s, 's'), { title: exact(r.time_s, 's') }));
    tr.appendChild(el('td', `${eng(r.lower_bound_s, 's')} … ${eng(r.upper_bound_s, 's')}`));
    tr.appendChild(el('td', String(r.kernels), { title: `launch floor ${exact(r.launch_floor_s, 's')}` }));
    tr.appendChild(el('td', BOUND_WORDS[r.bound] || r.bound));
  }
  wrap.appendChild(tbl);
  return wrap;
}

/** The core's warnings (the first 200), folded. */
function warningsBox(warnings) {
  const det = el('details', null, { class: 'warnings' });
  det.appendChild(el('summary', `${warnings.length} warning${warnings.length > 1 ? 's' : ''}`));
  const ul = el('ul');
  for (const w of warnings.slice(0, 200)) ul.appendChild(el('li', `${w.node ? w.node + ': ' : ''}${w.message} [${w.code}]`));
  det.appendChild(ul);
  return det;
}

export function renderSummary(res) {
  const s = $('summary');
  const m = res.model, t = res.totals, hw = res.hardware, h = headline(res);
  s.textContent = '';
  s.hidden = false;
  s.dataset.layers = String(res.layers.length);
  s.dataset.timeS = String(h.time_s);
  s.dataset.energyJ = String(h.energy_j);
  s.dataset.hw = hw.id;
  s.dataset.precision = res.options.precision;
  s.dataset.file = app.fileName;
  const [title, sub] = titleLines(res);
  s.appendChild(el('h2', title, { 'data-testid': 'summary-title' }));
  s.appendChild(el('p', `${sub}${m.name && m.name !== app.fileName ? `; graph “${m.name}”` : ''}`, { class: 'subtitle' }));
  const dl = el('dl');
  dd(dl, 'Layers', count(t.layers), `${h.kernels} kernels in the ${h.model} model`);
  dd(dl, 'Parameters', eng(m.params), exact(m.params));
  dd(dl, 'FLOPs', eng(t.flops, 'FLOP'), `${exact(t.flops, 'FLOP')} (matrix ${exact(t.matrix_flops)}, vector ${exact(t.vector_flops)})`);
  dd(dl, `Bytes moved (${h.model})`, eng(h.bytes, 'B'), `${exact(h.bytes, 'B')} in the ${h.model} model (every tensor: ${exact(t.bytes, 'B')}; weights ${exact(t.weight_bytes, 'B')})`);
  dd(dl, `Arithmetic intensity (${h.model})`, eng(h.intensity, 'FLOP/B'), `${exact(h.intensity)}; time balance ${exact(res.roofline.time_balance)} FLOP/B`);
  const v = dd(dl, `Predicted time (${h.model}, ${h.granularity})`, eng(h.time_s, 's'), exact(h.time_s, 's'));
  v.dataset.testid = 'predicted-time';
  dd(dl, 'Bounds', `${eng(h.lower_bound_s, 's')} … ${eng(h.upper_bound_s, 's')}`,
    `bounds of the ${h.model} model: lower ${exact(h.lower_bound_s, 's')}, upper ${exact(h.upper_bound_s, 's')}`);
  if (h.energy_j !== null) {
    const e = dd(dl, 'Energy', eng(h.energy_j, 'J'), `${exact(h.energy_j, 'J')}; average power ${exact(h.avg_power_w, 'W')}` +
      (h.power_budget_w ? ` (budget ${exact(h.power_budget_w, 'W')})` : ''));
    e.dataset.testid = 'predicted-energy';
  }
  dd(dl, 'Dominant bound', BOUND_WORDS[h.bound] || '–', `launch floor ${exact(h.launch_floor_s, 's')} (${h.kernels} kernels)`);
  const unsup = t.unsupported_ops || [];
  dd(dl, 'Unsupported ops', unsup.length ? `${unsup.length}: ${unsup.join(', ')}` : '0',
    t.unknown_layers ? `${t.unknown_layers} layers with unknown shapes` : '');
  if (res.options.mode === 'training' && t.training) dd(dl, 'Training step (fwd+bwd)', eng(t.training.time_s, 's'), t.training.method);
  s.appendChild(dl);

  s.appendChild(solTable(res, h));
  if (res.warnings?.length) s.appendChild(warningsBox(res.warnings));
}
