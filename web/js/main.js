// Page controller: wires the worker client (client.js -> worker + WASM),
// the state (state.js, mirrored in the URL) and the views (summary, table,
// charts, what-if). All strings from models and profiles are shown with
// textContent (dom.js). Headline figures come from figures.js only.
import { CoreClient } from './client.js';
import { HardwareCatalog } from './hardware.js';
import { defaultState, fromLocation, toHash, buildRequest, modelUrlProblem } from './state.js';
import { pageIsLocal, needsConfirmation } from './url-policy.js';
import { LayerTable } from './table.js';
import { Charts } from './charts.js';
import { eng, exact, count } from './format.js';
import { toCSV, toMarkdown, dimsText, batchNote, download, downloadDataUrl, copyText } from './export.js';
import { WhatIfViews } from './whatif.js';
import { ProfileEditor } from './profile-editor.js';
import { headline, boundLabel, solRows, BOUND_WORDS } from './figures.js';
import { $, el } from './dom.js';
import { LlmPanel } from './llm.js';
import { MeasuredView } from './measured.js';
import { CompareView } from './compare.js';
import { loadChartLibrary } from './chart-lib.js';

const app = {
  state: defaultState(),
  client: null,
  catalog: new HardwareCatalog(),
  examples: [],
  warmUpExample: null, // samples/index.json's warm_up: the example the worker analyses while idle
  info: null,          // rl_model_info of the open model
  res: null,           // last successful analysis
  fileName: null,      // the model's file name: the title everywhere
  openId: null,        // id of the open in flight
  seq: 0,              // analysis sequence (stale replies are dropped)
  writtenHash: null,
  restoring: false,
  pageLocal: pageIsLocal(),
};

// ------------------------------------------------------------------ messages
// What a failed load means to the user, by the error's code.
const NOT_ONNX = new Set(['bad_protobuf', 'no_graph', 'no_opset', 'empty_graph']);
function loadContext(code, label) {
  if (NOT_ONNX.has(code)) return `${label} could not be opened as an ONNX model`; // the core says why
  if (/^limit_/.test(code) || code === 'out_of_memory') return `${label} is too large for the page (the command-line tool takes higher limits)`;
  if (code === 'unreachable') return `${label} could not be reached`;
  if (code === 'cors_refused') return `${label} was refused by its server (CORS)`;
  if (code === 'http_error') return `${label} could not be downloaded`;
  if (code === 'read_failed') return `${label} could not be read`;
  return `${label} could not be analysed`;
}

function showError(err, context = '') {
  const box = $('error');
  box.textContent = '';
  if (!err) { box.hidden = true; return; }
  const e = err.core || err;
  const parts = [];
  if (context) parts.push(context + ': ');
  parts.push(e.message || String(e));
  if (e.code) parts.push(` [${e.code}]`);
  if (e.where) parts.push(` at ${e.where}`);
  box.textContent = parts.join('');
  box.dataset.code = e.code || '';
  box.hidden = false;
}

function notice(text) {
  const n = $('notice');
  n.textContent = text || '';
  n.hidden = !text;
}

// ---------------------------------------------------------------- controls
const modesOf = (st) => (st.hw === 'custom' ? (st.custom?.power_modes || []) : (app.catalog.byId.get(st.hw)?.power_modes || []));
// A mode's name may already say it is the default ("MAXN (default; …)").
const modeLabel = (m) => `${m.name || m.id}${m.default && !/default/i.test(m.name || '') ? ' (default)' : ''}`;

function fillHardware() {
  const sel = $('hw-select');
  sel.textContent = '';
  for (const g of app.catalog.groups()) {
    const og = el('optgroup', null, { label: g.label });
    for (const p of g.profiles) og.appendChild(el('option', p.power_modes?.length ? `${p.name} (${p.power_modes.length} power modes)` : p.name, { value: p.id }));
    sel.appendChild(og);
  }
  const og = el('optgroup', null, { label: 'Custom' });
  og.appendChild(el('option', 'Edited profile', { value: 'custom', id: 'hw-custom-option' }));
  sel.appendChild(og);
}

function fillPowerModes() {
  const st = app.state;
  const modes = modesOf(st);
  const sel = $('pm-select');
  sel.textContent = '';
  $('pm-label').hidden = modes.length === 0;
  if (!modes.length) st.powerMode = null;
  for (const m of modes) sel.appendChild(el('option', modeLabel(m), { value: m.id }));
  if (modes.length) {
    const def = modes.find((m) => m.default) || modes[0];
    if (st.powerMode && !modes.some((m) => m.id === st.powerMode)) st.powerMode = null;
    sel.value = st.powerMode || def.id;
  }
}

/** The model's symbolic dims, split: those at axis 0 follow the one batch
 * control; the others must be set by the user before an analysis. */
function modelDims() {
  const all = app.info?.symbolic_dims || [];
  return { batch: all.filter((d) => d.axis === 0), other: all.filter((d) => d.axis !== 0) };
}
const unsetDims = () => modelDims().other.filter((d) => app.state.dims[d.name] === undefined);

function dimInput(d, where) {
  const label = el('label', `${d.name} `, { title: `symbolic dimension of input ${d.input}, axis ${d.axis}` });
  const input = el('input', null, { type: 'number', min: '0', step: '1', inputmode: 'numeric', 'data-dim': d.name, 'data-testid': `${where}dim-${d.name}` });
  const v = app.state.dims[d.name];
  if (v !== undefined) input.value = String(v);
  else { input.placeholder = 'not set'; input.classList.add('unset'); input.setAttribute('aria-invalid', 'true'); }
  input.addEventListener('change', () => {
    const s = input.value.trim();
    if (s === '') delete app.state.dims[d.name];
    else if (/^\d+$/.test(s) && Number(s) <= 1e12) app.state.dims[d.name] = Number(s);
    else { showError({ code: 'bad_input', message: `${d.name} must be a whole number`, where: d.name }); return; }
    fillDims();
    analyze();
  });
  label.appendChild(input);
  return label;
}

function fillDims() {
  const { batch, other } = modelDims();
  const box = $('dims');
  box.textContent = '';
  for (const d of other) box.appendChild(dimInput(d, ''));
  const bi = $('batch-input');
  bi.placeholder = batch.length ? '1' : "model's";
  bi.title = batch.length ? `sets the model's symbolic batch (${batch.map((d) => d.name).join(', ')}); 1 when empty`
    : 'scales the model to this batch; empty: the model as it is';
  const unset = unsetDims();
  const need = $('dims-needed');
  need.hidden = !unset.length;
  const fields = $('dims-needed-fields');
  fields.textContent = '';
  if (unset.length) {
    $('dims-needed-text').textContent = `${app.fileName} has ${unset.length === 1 ? 'a size' : 'sizes'} the file leaves open ` +
      `(${unset.map((d) => d.name).join(', ')}). The page does not guess ${unset.length === 1 ? 'it' : 'them'}: type the value${unset.length > 1 ? 's' : ''} you run the model with` +
      ' (a sequence length, an image size…) and the analysis starts.';
    for (const d of other) fields.appendChild(dimInput(d, 'need-'));
  }
}

/** The precision menu and the chart colours from the core's precision table. */
function fillPrecisions() {
  const list = app.client.precisions || [];
  const sel = $('precision-select');
  for (const o of [...sel.options]) if (o.value !== 'model') o.remove();
  for (const p of list) sel.appendChild(el('option', p.name, { value: p.name, title: `stored as ${p.dtype}` }));
  sel.value = app.state.precision;
  app.charts.setPrecisions(list);
}

function syncControls() {
  const st = app.state;
  const hwSel = $('hw-select');
  hwSel.value = st.hw;
  if (hwSel.value !== st.hw) { st.hw = app.catalog.list[0]?.id; hwSel.value = st.hw; }
  fillPowerModes();
  $('precision-select').value = st.precision;
  $('batch-input').value = st.batch ? String(st.batch) : '';
  $('mode-select').value = st.mode;
  $('sol-select').value = st.sol;
  $('gran-select').value = st.granularity;
  $('filter-name').value = st.filterName;
  $('group-op').checked = st.group;
  const t = app.table;
  Object.assign(t, { sort: st.sort, filterOp: st.filterOp, filterName: st.filterName, group: st.group, selected: st.selected });
  t.setColumns(st.cols);
  t.renderPicker($('col-picker'));
  app.charts.toggled = new Set(st.legend);
  fillDims();
}

// ------------------------------------------------------------------ the URL
async function writeUrl() {
  const hash = await toHash(app.state);
  app.writtenHash = '#' + hash;
  const url = new URL(location.href);
  url.hash = hash;
  if (url.searchParams.has('model')) url.searchParams.delete('model'); // the hash carries it now
  history.replaceState(null, '', url);
  $('share-link').textContent = '';
  return url.toString();
}

// ----------------------------------------------------------------- opening
function setProgress(msg, label) {
  const p = $('progress');
  p.hidden = false;
  const bar = $('progress-bar');
  if (msg.total > 0) { bar.max = msg.total; bar.value = Math.min(msg.offset, msg.total); }
  else bar.removeAttribute('value');
  const pct = msg.total > 0 ? ` (${Math.floor(100 * Math.min(msg.offset, msg.total) / msg.total)} %)` : '';
  $('progress-text').textContent = `${label}: ${eng(msg.offset, 'B')}${msg.total > 0 ? ' of ' + eng(msg.total, 'B') : ''}${pct}` +
    (msg.skipped ? `, ${eng(msg.skipped, 'B')} of weights skipped` : '');
}

/** The file name a user knows the model by. */
function fileNameOf(source, kind, label) {
  if (kind === 'file') return label;
  if (kind === 'example') return app.examples.find((e) => e.id === label)?.file || `${label}.onnx`;
  try {
    const u = new URL(source);
    return decodeURIComponent(u.pathname.split('/').filter(Boolean).pop() || u.hostname).slice(0, 200);
  } catch { return String(label).slice(0, 200); }
}

async function openModel(source, { label, kind }) {
  if (app.openId !== null) app.client.cancel(app.openId);
  hideConfirm();
  showError(null);
  if (!app.restoring) notice('');
  const st = app.state;
  st.modelUrl = kind === 'url' ? source : null;
  st.example = kind === 'example' ? label : null;
  st.localFile = kind === 'file' ? label : null;
  // A model replacing another starts afresh; the first model after a link
  // keeps the link's dims, selection and filter (a local file dropped again).
  if (!app.restoring && !app.linkState) { st.selected = null; st.dims = {}; st.filterOp = ''; }
  app.linkState = false;
  const name = fileNameOf(source, kind, label);
  clearModel();                       // nothing of the previous model stays on screen
  app.measured.detach(false);         // a profile belongs to the model it was recorded with
  app.fileName = name;
  const { id, promise } = app.client.open(kind === 'example' ? exampleUrl(label) : source, (m) => setProgress(m, name));
  app.openId = id;
  setProgress({ offset: 0, total: source.size ?? -1, skipped: 0 }, name);
  let info, read;
  try {
    ({ info, read } = await promise);
  } catch (e) {
    if (app.openId !== id) return; // superseded by a newer open
    app.openId = null;
    $('progress').hidden = true;
    clearModel();
    if (e.cancelled) notice(`Reading ${name} was cancelled.`);
    else showError(e, loadContext((e.core || e).code, name));
    app.restoring = false;
    await writeUrl();
    return;
  }
  if (app.openId !== id) return;
  app.openId = null;
  $('progress').hidden = true;
  performance.mark('rooflens-opened');
  app.info = info;
  app.read = read;
  app.llm.setModel(info); // the LLM panel shows when the core found a KV cache
  adoptDims(kind === 'example' ? app.examples.find((e) => e.id === label) : null);
  fillDims();
  await analyze();
  app.restoring = false;
}

/** Keeps the link's dims this model has, takes an example's own dims for
 * the rest, and moves a value for the batch dim to the batch control. */
function adoptDims(example) {
  const st = app.state;
  const { batch, other } = modelDims();
  const names = new Set(other.map((d) => d.name));
  for (const d of batch) {
    if (st.dims[d.name] !== undefined && !st.batch && st.dims[d.name] >= 1) st.batch = st.dims[d.name];
    delete st.dims[d.name];
  }
  for (const k of Object.keys(st.dims)) if (!names.has(k)) delete st.dims[k];
  for (const [k, v] of Object.entries(example?.dims || {})) if (names.has(k) && st.dims[k] === undefined) st.dims[k] = v;
  $('batch-input').value = st.batch ? String(st.batch) : '';
}

function exampleUrl(id) {
  const ex = app.examples.find((e) => e.id === id);
  return new URL(`samples/${ex ? ex.file : encodeURIComponent(id) + '.onnx'}`, document.baseURI).toString();
}

/** Removes every trace of the open model: info, figures, table, charts,
 * what-if results, dims, op filter and exports. */
function clearModel() {
  app.seq++;               // an analysis still under way is dropped
  app.info = null;
  app.res = null;
  app.read = null;
  app.fileName = null;
  const s = $('summary');
  s.textContent = '';
  s.hidden = true;
  for (const k of Object.keys(s.dataset)) if (k !== 'testid') delete s.dataset[k];
  delete document.body.dataset.hasModel;
  $('empty').hidden = false;
  $('dims-needed').hidden = true;
  $('dims').textContent = '';
  const fo = $('filter-op');
  fo.textContent = '';
  fo.appendChild(el('option', 'all', { value: '' }));
  app.table.setData([]);
  $('table-count').textContent = '';
  app.charts.clear();
  for (const b of ['copy-md', 'dl-csv', 'dl-json']) $(b).disabled = true;
  for (const b of document.querySelectorAll('button.png')) b.disabled = true;
  app.whatif?.clear();
  app.llm?.setModel(null);
  app.measured?.render(null);
  app.compare?.refresh();
  document.title = 'rooflens — where the time and energy of an ONNX model go';
}

// ---------------------------------------------------------------- analysis
async function currentProfile() {
  const st = app.state;
  if (st.hw === 'custom') return st.custom;
  return app.catalog.profile(st.hw);
}

async function request() {
  return buildRequest(app.state, await currentProfile(), { batchDefault: modelDims().batch.length ? 1 : null });
}

async function analyze() {
  if (!app.info) { await writeUrl(); return; }
  const seq = ++app.seq;
  if (unsetDims().length) {
    // No invented value: until the user sets the open sizes, no figures.
    hideResults();
    fillDims();
    await writeUrl();
    return;
  }
  let res;
  try {
    // Chart.js loads beside the first analysis (chart-lib.js); if it cannot, the charts say so.
    [res] = await Promise.all([app.client.analyze(app.measured.decorate(await request())), loadChartLibrary().catch(() => null)]);
  } catch (e) {
    if (seq !== app.seq) return;
    showError(e, 'Analysis failed');
    return;
  }
  if (seq !== app.seq) return;
  performance.mark('rooflens-analyzed');
  if (!res.ok) {
    hideResults();
    showError(res.error, 'Analysis failed');
    await writeUrl();
    return;
  }
  showError(null);
  render(res);
  performance.mark('rooflens-rendered');
  app.whatif.refresh();
  app.llm.refresh();
  app.compare.refresh();
  await writeUrl();
}

/** No figures for the open model (its dims are not set, or the analysis failed). */
function hideResults() {
  app.res = null;
  $('summary').hidden = true;
  delete document.body.dataset.hasModel;
  $('empty').hidden = true;
  for (const b of ['copy-md', 'dl-csv', 'dl-json']) $(b).disabled = true;
  for (const b of document.querySelectorAll('button.png')) b.disabled = true;
}

function render(res) {
  app.res = res;
  $('empty').hidden = true;
  $('dims-needed').hidden = true;
  document.body.dataset.hasModel = '1';
  renderSummary(res);
  markReadFigures();
  const ops = [...new Set(res.layers.map((l) => l.op))].sort();
  const fo = $('filter-op');
  fo.textContent = '';
  fo.appendChild(el('option', 'all', { value: '' }));
  for (const op of ops) fo.appendChild(el('option', op, { value: op }));
  if (app.state.filterOp && !ops.includes(app.state.filterOp)) app.state.filterOp = '';
  fo.value = app.state.filterOp;
  const t = app.table;
  t.sort = app.state.sort;
  t.filterOp = app.state.filterOp;
  t.filterName = app.state.filterName;
  t.group = app.state.group;
  t.selected = app.state.selected;
  t.setData(res.layers, res.totals);
  updateCount();
  app.measured.render(res);   // before the charts: they draw its achieved points
  app.charts.selected = app.state.selected;
  app.charts.update(res);
  if (app.state.selected !== null) t.select(app.state.selected);
  fillDims();
  for (const b of ['copy-md', 'dl-csv', 'dl-json']) $(b).disabled = false;
  for (const b of document.querySelectorAll('button.png[data-chart]')) b.disabled = !app.charts.charts[b.dataset.chart];
  for (const b of document.querySelectorAll('button.png[data-whatif-chart]')) b.disabled = false;   // their views draw on demand
  document.title = `${app.fileName} on ${res.hardware.name} — rooflens`;
}

// How much of the file was read and how big the WASM heap got: figures for
// the huge-model benchmark and tests (tools/bench-huge.mjs), as data attributes.
function markReadFigures() {
  const d = $('summary').dataset;
  if (app.read) {
    d.bytesRead = String(app.read.bytes_read);
    d.bytesSkipped = String(app.read.bytes_skipped);
  }
  const mem = app.client.memory;
  if (mem) { d.wasmHeap = String(mem.heap); d.wasmPeak = String(mem.peak); }
}

function updateCount() {
  const shown = app.table.rows?.length ?? 0;
  $('table-count').textContent = `${count(shown)} of ${count(app.table.layers.length)} layers`;
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
function titleLines(res) {
  const hw = res.hardware, h = headline(res), o = res.options;
  const mode = hw.power_mode ? ` — ${hw.power_mode_name || hw.power_mode}` : '';
  const prec = h.requested_precision && h.requested_precision !== h.precision ? `${h.precision} (asked ${h.requested_precision})` : h.precision;
  return [`${app.fileName} on ${hw.name}${mode}`,
    `precision ${prec}, ${o.mode}, ${h.model ?? o.sol} SOL; dims: ${dimsText(res)}${batchNote(res)}`];
}

function renderSummary(res) {
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
  s.appendChild(wrap);

  if (res.warnings?.length) {
    const det = el('details', null, { class: 'warnings' });
    det.appendChild(el('summary', `${res.warnings.length} warning${res.warnings.length > 1 ? 's' : ''}`));
    const ul = el('ul');
    for (const w of res.warnings.slice(0, 200)) ul.appendChild(el('li', `${w.node ? w.node + ': ' : ''}${w.message} [${w.code}]`));
    det.appendChild(ul);
    s.appendChild(det);
  }
}

// --------------------------------------------------------------- selection
function select(index, from) {
  app.state.selected = index;
  if (from !== 'table') app.table.select(index);
  else { app.table.selected = index; app.table.lastRange = null; app.table.render(); }
  app.charts.select(index);
  writeUrl();
}

// ------------------------------------------------- a model URL from a link
function askToOpen(url) {
  const u = new URL(url);
  $('confirm-url-host').textContent = u.host;
  $('confirm-url-full').textContent = url;
  $('confirm-url').hidden = false;
  app.pendingUrl = url;
  $('confirm-url-open').focus();
}
function hideConfirm() { $('confirm-url').hidden = true; app.pendingUrl = null; }

// ---------------------------------------------------------------- wiring
function wire() {
  const st = () => app.state;
  $('open-file').addEventListener('click', () => $('file-input').click());
  $('file-input').addEventListener('change', (ev) => {
    const f = ev.target.files[0];
    if (f) openModel(f, { label: f.name, kind: 'file' });
    ev.target.value = '';
  });
  $('url-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const u = $('url-input').value.trim();
    const why = modelUrlProblem(u, { pageLocal: app.pageLocal });   // the same rule as for a link
    if (why) { showError({ code: 'bad_url', message: `cannot open this URL: ${why}`, where: 'URL' }); return; }
    openModel(u, { label: u, kind: 'url' });   // typed by the user: no confirmation
  });
  $('confirm-url-open').addEventListener('click', () => {
    const u = app.pendingUrl;
    hideConfirm();
    if (u) { app.restoring = true; openModel(u, { label: u, kind: 'url' }); }
  });
  $('confirm-url-cancel').addEventListener('click', () => {
    const u = app.pendingUrl;
    hideConfirm();
    app.state.modelUrl = null;
    notice(`The model at ${u ? new URL(u).host : 'the link'} was not opened. The link's other settings are in place: open a model to use them.`);
    writeUrl();
  });
  const openExample = (id) => openModel(id, { label: id, kind: 'example' });
  $('example-select').addEventListener('change', (ev) => {
    const id = ev.target.value;
    if (id) openExample(id);
    ev.target.value = '';
  });
  $('cancel').addEventListener('click', () => { if (app.openId !== null) app.client.cancel(app.openId); });

  $('hw-select').addEventListener('change', (ev) => {
    const v = ev.target.value;
    if (v === 'custom' && !st().custom) {
      $('custom-hw').open = true;
      prefillCustom().then(() => { ev.target.value = st().hw; });
      return;
    }
    st().hw = v;
    st().powerMode = null;
    fillPowerModes();
    if ($('custom-hw').open) prefillCustom();
    analyze();
  });
  $('pm-select').addEventListener('change', (ev) => {
    const modes = modesOf(st());
    const def = modes.find((m) => m.default) || modes[0];
    st().powerMode = def && ev.target.value === def.id ? null : ev.target.value;
    analyze();
  });
  $('precision-select').addEventListener('change', (ev) => { st().precision = ev.target.value; analyze(); });
  $('mode-select').addEventListener('change', (ev) => { st().mode = ev.target.value; analyze(); });
  $('sol-select').addEventListener('change', (ev) => { st().sol = ev.target.value; analyze(); });
  $('gran-select').addEventListener('change', (ev) => { st().granularity = ev.target.value; analyze(); });
  $('batch-input').addEventListener('change', (ev) => {
    const v = ev.target.value.trim();
    if (v === '') st().batch = null;
    else if (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 1e9) st().batch = Number(v);
    else { showError({ code: 'bad_input', message: 'batch must be a whole number from 1 to 10^9', where: 'batch' }); return; }
    analyze();
  });

  $('filter-op').addEventListener('change', (ev) => { st().filterOp = ev.target.value; app.table.setFilter(st().filterOp, st().filterName); updateCount(); writeUrl(); });
  $('filter-name').addEventListener('input', (ev) => { st().filterName = ev.target.value; app.table.setFilter(st().filterOp, st().filterName); updateCount(); writeUrl(); });
  $('group-op').addEventListener('change', (ev) => { st().group = ev.target.checked; app.table.setGroup(st().group); writeUrl(); });

  $('copy-link').addEventListener('click', async () => {
    const url = await writeUrl();
    const out = $('share-link');
    out.textContent = url;
    out.dataset.link = url;
    $('copy-link').dataset.link = url;
    if (await copyText(url)) out.textContent = `Copied: ${url}`;
  });
  $('copy-md').addEventListener('click', async () => {
    if (!app.res) return;
    const url = await writeUrl();
    const md = toMarkdown(app.res, { file: app.fileName, link: url, localFile: !!app.state.localFile });
    $('copy-md').dataset.markdown = md;
    const ok = await copyText(md);
    $('share-link').textContent = ok ? 'Summary copied as Markdown.' : md;
  });
  $('dl-csv').addEventListener('click', () => { if (app.res) download(`${baseName()}.csv`, toCSV(app.table.sortedLayers()), 'text/csv'); });
  $('dl-json').addEventListener('click', () => { if (app.res) download(`${baseName()}.json`, JSON.stringify(app.res, null, 1), 'application/json'); });
  for (const b of document.querySelectorAll('button.png')) {
    b.addEventListener('click', () => {
      if (!app.res) return;
      const caption = b.closest('figure').querySelector('.title').textContent;
      const lines = [...titleLines(app.res), `rooflens · ${caption}`];
      const key = b.dataset.chart || b.dataset.whatifChart;
      const data = b.dataset.chart ? app.charts.png(key, lines) : app.whatif.png(key, lines);
      if (data) downloadDataUrl(`${baseName()}-${key}.png`, data);
    });
  }

  // Drag and drop anywhere.
  let depth = 0;
  const overlay = $('drop-overlay');
  const hasFiles = (ev) => [...(ev.dataTransfer?.types || [])].includes('Files');
  document.addEventListener('dragenter', (ev) => { if (hasFiles(ev)) { depth++; overlay.hidden = false; ev.preventDefault(); } });
  document.addEventListener('dragover', (ev) => { if (hasFiles(ev)) { ev.preventDefault(); ev.dataTransfer.dropEffect = 'copy'; } });
  document.addEventListener('dragleave', () => { if (--depth <= 0) { depth = 0; overlay.hidden = true; } });
  document.addEventListener('drop', (ev) => {
    depth = 0;
    overlay.hidden = true;
    if (!hasFiles(ev)) return;
    ev.preventDefault();
    const f = ev.dataTransfer.files[0];
    if (f && app.measured.accepts(f)) app.measured.attach(f);
    else if (f) openModel(f, { label: f.name, kind: 'file' });
  });

  window.addEventListener('hashchange', () => { if (location.hash !== app.writtenHash) restore(); });
}

function baseName() {
  const n = String(app.fileName || 'model').replace(/\.onnx$/i, '').replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60);
  return `rooflens-${n}-${app.res?.hardware?.id || 'hw'}`;
}

function fillExamples() {
  const exSel = $('example-select');
  const list = $('empty-examples');
  list.textContent = '';
  for (const ex of app.examples) {
    exSel.appendChild(el('option', ex.name, { value: ex.id, title: ex.description || '' }));
    const li = el('li');
    const b = el('button', null, { type: 'button', 'data-example': ex.id });
    b.appendChild(el('span', ex.name));
    if (ex.description) b.appendChild(el('span', ex.description, { class: 'ex-desc' }));
    b.addEventListener('click', () => openModel(ex.id, { label: ex.id, kind: 'example' }));
    li.appendChild(b);
    list.appendChild(li);
  }
}

// The profile editor (profile-editor.js) owns the form and the JSON text.
function prefillCustom() { return app.editor.prefill(); }

/** An edited profile the core accepted becomes the custom hardware. */
function applyCustomProfile(obj) {
  const st = app.state;
  st.custom = obj;
  st.hw = 'custom';
  if (!(obj.power_modes || []).some((m) => m.id === st.powerMode)) st.powerMode = null;
  $('hw-select').value = 'custom';
  fillPowerModes();
  app.whatif.fillPicker();
  analyze();
}

/** Applies the URL to the page: settings, the model, then the model it is
 * compared with (compare.js). */
async function restore() {
  await restoreMain();
  await app.compare.restore();
}

async function restoreMain() {
  // The core judges a custom profile from the link before it is used.
  // The precisions a link may name are the core's: wait for it (a failed
  // module is reported by main()).
  await app.client.ready.catch(() => {});
  const { state, problems } = await fromLocation(location.hash, location.search, app.catalog.ids(),
    { checkProfile: (obj) => app.editor.check(obj), pageLocal: app.pageLocal,
      precisions: (app.client.precisions || []).map((p) => p.name) });
  const prev = app.state;
  app.state = state;
  app.linkState = true;
  const ignored = problems.length ? `Parts of the link could not be used and were ignored (${problems.join('; ')}); the rest of the view is restored.` : '';
  notice(ignored);
  syncControls();
  app.whatif.sync();
  app.llm.sync();
  const measuredNote = app.measured.restored(state); // said after the other notices
  if (state.hw === 'custom') { $('hw-select').value = 'custom'; app.editor.prefill(); }
  const sameModel = app.info && ((state.modelUrl && state.modelUrl === prev.modelUrl) || (state.example && state.example === prev.example));
  if (sameModel) { await analyze(); app.measured.addNotice(measuredNote); return; }
  hideConfirm();
  if (state.modelUrl && needsConfirmation(state.modelUrl)) {
    // A link from anywhere must not make the page fetch from anywhere: ask.
    clearModel();
    askToOpen(state.modelUrl);
    await writeUrl();
    return;
  }
  app.restoring = true;
  if (state.modelUrl) await openModel(state.modelUrl, { label: state.modelUrl, kind: 'url' });
  else if (state.example) await openModel(state.example, { label: state.example, kind: 'example' });
  else {
    app.restoring = false;
    if (state.localFile) {
      notice(`This link was made with the local file “${state.localFile}”: its settings are restored; drop the file again (or open it) to see the analysis.` +
        (problems.length ? ` ${ignored}` : ''));
      app.state.localFile = state.localFile;
    }
    if (app.info) await analyze(); else await writeUrl();
  }
  app.measured.addNotice(measuredNote);
}

/** While no model is open, the worker analyses the site's warm-up example
 * on the chosen device (whose profile this also fetches): the first real
 * analysis then runs code the engine has already optimised. */
async function warmUp() {
  const ex = app.examples.find((e) => e.id === app.warmUpExample);
  if (ex && !app.info && app.openId === null) {
    try {
      await app.client.warmUp(exampleUrl(ex.id), buildRequest({ ...app.state, dims: { ...ex.dims } }, await currentProfile(), { batchDefault: 1 }));
    } catch { /* the page works cold */ }
  }
  // The page has settled: tools/bench-browser.mjs times drops from here.
  document.body.dataset.warm = '1';
  performance.mark('rooflens-warm');
}

/** In a frame, another site could dress the page up and catch clicks: refuse. */
function refuseFramed() {
  document.body.textContent = '';
  const box = el('div', null, { class: 'framed', role: 'alert' });
  box.appendChild(el('h1', 'rooflens does not run inside a frame'));
  box.appendChild(el('p', 'Another page has embedded rooflens. To protect what you do with it, the page runs only on its own.'));
  const a = el('a', 'Open rooflens on its own', { href: location.href, target: '_blank', rel: 'noopener noreferrer' });
  box.appendChild(a);
  document.body.appendChild(box);
  document.body.dataset.framed = '1';
}

async function main() {
  let framed = true;
  try { framed = window.top !== window.self; } catch { framed = true; }
  if (framed) { refuseFramed(); return; }
  app.table = new LayerTable($('table-scroll'), $('layer-table'), {
    onSelect: (i) => select(i, 'table'),
    onSort: (sort) => { app.state.sort = sort; writeUrl(); },
    onColumns: (cols) => { app.state.cols = cols.join() === app.table.defaultCols ? null : cols; writeUrl(); },
  });
  app.table.defaultCols = app.table.cols.join();
  app.charts = new Charts({ time: $('chart-time'), energy: $('chart-energy'), timeBased: $('chart-time-based') },
    { onSelect: (i) => select(i, 'chart'), onLegend: (keys) => { app.state.legend = keys; writeUrl(); } });
  app.client = new CoreClient();
  app.client.ready.then((v) => { $('version').textContent = `core ${v}`; fillPrecisions(); }, (e) => showError({ code: 'wasm_failed', message: e.message }));
  // The two lists load side by side.
  const examples = fetch(new URL('samples/index.json', document.baseURI))
    .then((r) => (r.ok ? r.json() : {}), () => ({})).then((j) => { app.warmUpExample = j.warm_up; return j.examples || []; }, () => []);
  try {
    await app.catalog.load();
  } catch (e) {
    showError(e, 'Could not load the hardware profiles');
    return;
  }
  fillHardware();
  app.examples = await examples;
  fillExamples();
  app.whatif = new WhatIfViews($('whatif'), {
    client: app.client, catalog: app.catalog, state: () => app.state, hasModel: () => !!app.res,
    ownProfile: currentProfile, request,
    onChange: () => writeUrl(),
    usePowerMode: (id) => { app.state.powerMode = id; fillPowerModes(); analyze(); },
  });
  app.llm = new LlmPanel($('llm-panel'), {
    client: app.client, state: () => app.state, request: async () => buildRequest(app.state, await currentProfile()),
    onChange: () => writeUrl(), onPoints: (points) => app.charts.setExtra(points),
  });
  app.measured = new MeasuredView($('measured'), {
    client: app.client, hasModel: () => !!app.info, result: () => app.res, state: () => app.state,
    request: async () => buildRequest(app.state, await currentProfile()), reanalyze: analyze,
    select: (i) => select(i, 'measured'), showError, notice, writeUrl, baseName,
  });
  app.charts.extraTimeSets = () => app.measured.timeSets();
  app.compare = new CompareView($('diff-models'), {
    client: app.client, state: () => app.state, hasModel: () => !!app.info,
    request: async () => buildRequest(app.state, await currentProfile()),
    mainLabel: () => app.fileName || 'model', examples: () => app.examples, exampleUrl, pageLocal: () => app.pageLocal,
    onChange: () => writeUrl(),
  });
  app.compare.fillExamples();
  app.editor = new ProfileEditor($('custom-hw'), {
    client: app.client, catalog: app.catalog, state: () => app.state, onApply: applyCustomProfile, onError: showError,
  });
  wire();
  clearModel();
  // Controls work from here on (a model named in the link may still be loading).
  document.body.dataset.interactive = '1';
  performance.mark('rooflens-interactive');
  loadChartLibrary().catch(() => {});   // the charts' library, off the page's start
  await restore();
  warmUp();
  document.body.dataset.ready = '1';
  performance.mark('rooflens-ready');
}

main();
