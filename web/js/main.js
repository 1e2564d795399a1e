// Page controller: wires the reading layer (CoreClient -> worker + WASM),
// the state (state.js, mirrored in the URL) and the views (summary, table,
// charts). All strings from models and profiles are shown with textContent.
import { CoreClient } from './reader.js';
import { HardwareCatalog } from './hardware.js';
import { defaultState, fromLocation, toHash, buildRequest, modelUrlProblem } from './state.js';
import { LayerTable } from './table.js';
import { Charts } from './charts.js';
import { eng, exact, count } from './format.js';
import { toCSV, toMarkdown, download, downloadDataUrl, copyText } from './export.js';
import { headline, solRows, BOUND_WORDS } from './headline.js';
import { WhatIfViews } from './whatif.js';
import { ProfileEditor } from './profile-editor.js';
import { LlmPanel } from './llm.js';
import { MeasuredView } from './measured.js';
import { CompareView } from './compare.js';

const $ = (id) => document.getElementById(id);
const el = (tag, text, attrs = {}) => {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
};

const app = {
  state: defaultState(),
  client: null,
  catalog: new HardwareCatalog(),
  examples: [],
  info: null,          // rl_model_info of the open model
  res: null,           // last successful analysis
  openId: null,        // id of the open in flight
  seq: 0,              // analysis sequence (stale replies are dropped)
  writtenHash: null,
  restoring: false,
};

// ------------------------------------------------------------------ messages
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
  box.hidden = false;
}

function notice(text) {
  const n = $('notice');
  n.textContent = text || '';
  n.hidden = !text;
}

// ---------------------------------------------------------------- controls
function fillHardware() {
  const sel = $('hw-select');
  sel.textContent = '';
  for (const g of app.catalog.groups()) {
    const og = el('optgroup', null, { label: g.label });
    for (const p of g.profiles) {
      const o = el('option', p.name, { value: p.id });
      if (p.power_modes?.length) o.textContent = `${p.name} (${p.power_modes.length} power modes)`;
      og.appendChild(o);
    }
    sel.appendChild(og);
  }
  const og = el('optgroup', null, { label: 'Custom' });
  og.appendChild(el('option', 'Edited profile', { value: 'custom', id: 'hw-custom-option' }));
  sel.appendChild(og);
}

function fillPowerModes() {
  const st = app.state;
  const modes = st.hw === 'custom' ? (st.custom?.power_modes || []) : (app.catalog.byId.get(st.hw)?.power_modes || []);
  const sel = $('pm-select');
  sel.textContent = '';
  $('pm-label').hidden = modes.length === 0;
  if (!modes.length) st.powerMode = null;
  for (const m of modes) sel.appendChild(el('option', `${m.name || m.id}${m.default ? ' (default)' : ''}`, { value: m.id }));
  if (modes.length) {
    const def = modes.find((m) => m.default) || modes[0];
    if (st.powerMode && !modes.some((m) => m.id === st.powerMode)) st.powerMode = null;
    sel.value = st.powerMode || def.id;
  }
}

function fillDims() {
  const box = $('dims');
  box.textContent = '';
  const dims = app.info?.symbolic_dims || [];
  const used = app.res?.model?.dims || {};
  for (const d of dims) {
    const label = el('label', `${d.name} `, { title: `symbolic dimension of input ${d.input}, axis ${d.axis}` });
    const input = el('input', null, { type: 'number', min: '0', step: '1', 'data-dim': d.name, 'data-testid': `dim-${d.name}` });
    if (app.state.dims[d.name] !== undefined) input.value = String(app.state.dims[d.name]);
    if (used[d.name]) input.placeholder = `${used[d.name].value} (${used[d.name].source})`;
    input.addEventListener('change', () => {
      const v = input.value.trim();
      if (v === '') delete app.state.dims[d.name];
      else if (/^\d+$/.test(v) && Number(v) <= 1e12) app.state.dims[d.name] = Number(v);
      else { showError({ code: 'bad_input', message: `${d.name} must be a whole number`, where: d.name }); return; }
      analyze();
    });
    label.appendChild(input);
    box.appendChild(label);
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
  t.refresh();
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

async function openModel(source, { label, kind }) {
  if (app.openId !== null) app.client.cancel(app.openId);
  showError(null);
  if (!app.restoring) notice('');
  const st = app.state;
  st.modelUrl = kind === 'url' ? source : null;
  st.example = kind === 'example' ? label : null;
  st.localFile = kind === 'file' ? label : null;
  if (!app.restoring) st.selected = null;
  app.info = null;
  app.measured.detach(false); // a profile belongs to the model it was recorded with
  const { id, promise } = app.client.open(kind === 'example' ? exampleUrl(label) : source, (m) => setProgress(m, label));
  app.openId = id;
  setProgress({ offset: 0, total: source.size ?? -1, skipped: 0 }, label);
  let info, read;
  try {
    ({ info, read } = await promise);
  } catch (e) {
    if (app.openId !== id) return; // superseded by a newer open
    app.openId = null;
    $('progress').hidden = true;
    clearView(e.cancelled ? 'Cancelled.' : 'The model could not be read.');
    if (e.cancelled) notice(`Reading ${label} was cancelled.`);
    else showError(e, `Could not read ${label}`);
    await writeUrl();
    return;
  }
  if (app.openId !== id) return;
  app.openId = null;
  $('progress').hidden = true;
  app.info = info;
  app.read = read;
  app.llm.setModel(info); // the LLM panel shows when the core found a KV cache
  // Keep only dims this model has (a link may carry them for it).
  const names = new Set((info.symbolic_dims || []).map((d) => d.name));
  for (const k of Object.keys(st.dims)) if (!names.has(k)) delete st.dims[k];
  app.modelLabel = label;
  fillDims();
  await analyze();
  app.restoring = false;
}

function exampleUrl(id) {
  const ex = app.examples.find((e) => e.id === id);
  return new URL(`samples/${ex ? ex.file : encodeURIComponent(id) + '.onnx'}`, document.baseURI).toString();
}

function clearView(text) {
  app.res = null;
  const s = $('summary');
  s.textContent = '';
  s.appendChild(el('p', text, { class: 'placeholder' }));
  delete s.dataset.layers;
  delete s.dataset.timeS;
  app.table.setData([]);
  for (const b of ['copy-md', 'dl-csv', 'dl-json']) $(b).disabled = true;
  app.whatif?.clear();
  app.llm?.setModel(null);
  app.measured?.render(null);
  app.compare?.refresh();
}

// ---------------------------------------------------------------- analysis
async function currentProfile() {
  const st = app.state;
  if (st.hw === 'custom') return st.custom;
  return app.catalog.profile(st.hw);
}

async function analyze() {
  if (!app.info) { await writeUrl(); return; }
  const seq = ++app.seq;
  let res;
  try {
    const profile = await currentProfile();
    res = await app.client.analyze(app.measured.decorate(buildRequest(app.state, profile)));
  } catch (e) {
    if (seq !== app.seq) return;
    showError(e, 'Analysis failed');
    return;
  }
  if (seq !== app.seq) return;
  if (!res.ok) {
    showError(res.error, 'Analysis failed');
    await writeUrl();
    return;
  }
  showError(null);
  render(res);
  app.whatif.refresh();
  app.llm.refresh();
  app.compare.refresh();
  await writeUrl();
}

function render(res) {
  app.res = res;
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
  t.setData(res.layers);
  updateCount();
  app.measured.render(res);   // before the charts: they draw its achieved points
  app.charts.selected = app.state.selected;
  app.charts.update(res);
  if (app.state.selected !== null) t.select(app.state.selected);
  fillDims();
  for (const b of ['copy-md', 'dl-csv', 'dl-json']) $(b).disabled = false;
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
  const shown = app.table.visibleLayers().length;
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

function renderSummary(res) {
  const s = $('summary');
  const m = res.model, t = res.totals, hw = res.hardware, h = headline(res);
  s.textContent = '';
  s.dataset.layers = String(res.layers.length);
  s.dataset.timeS = String(h.time_s);
  s.dataset.energyJ = String(h.energy_j);
  s.dataset.hw = hw.id;
  s.dataset.precision = res.options.precision;
  s.appendChild(el('h2', `${m.name || app.modelLabel || 'model'} on ${hw.name}${hw.power_mode ? ' — ' + (hw.power_mode_name || hw.power_mode) : ''}`));
  const dl = el('dl');
  dd(dl, 'Layers', count(t.layers), `${h.kernels} kernels in the ${h.model} model`);
  dd(dl, 'Parameters', eng(m.params), exact(m.params));
  dd(dl, 'FLOPs', eng(t.flops, 'FLOP'), `${exact(t.flops, 'FLOP')} (matrix ${exact(t.matrix_flops)}, vector ${exact(t.vector_flops)})`);
  dd(dl, 'Bytes moved', eng(h.bytes, 'B'), `${exact(h.bytes, 'B')} in the ${h.model} model (every tensor: ${exact(t.bytes, 'B')}; weights ${exact(t.weight_bytes, 'B')})`);
  dd(dl, 'Arithmetic intensity', eng(h.intensity, 'FLOP/B'), `${exact(h.intensity)}; time balance ${exact(res.roofline.time_balance)} FLOP/B`);
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

  const tbl = el('table');
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
  s.appendChild(tbl);

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
  if (from !== 'table') app.table.select(index); else { app.table.selected = index; app.table.lastRange = null; app.table.render(); }
  app.charts.select(index);
  writeUrl();
}

// ---------------------------------------------------------------- wiring
function wire() {
  const st = () => app.state;
  $('file-input').addEventListener('change', (ev) => {
    const f = ev.target.files[0];
    if (f) openModel(f, { label: f.name, kind: 'file' });
    ev.target.value = '';
  });
  $('url-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const u = $('url-input').value.trim();
    const why = modelUrlProblem(u);   // the same rule as for a model URL in a link
    if (why) { showError({ code: 'bad_url', message: `cannot open this URL: ${why}`, where: 'URL' }); return; }
    openModel(u, { label: u, kind: 'url' });
  });
  $('example-select').addEventListener('change', (ev) => {
    const id = ev.target.value;
    if (id) openModel(id, { label: id, kind: 'example' });
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
    const modes = st().hw === 'custom' ? (st().custom?.power_modes || []) : (app.catalog.byId.get(st().hw)?.power_modes || []);
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
    const md = toMarkdown(app.res, app.state.localFile ? null : url);
    const ok = await copyText(md);
    $('share-link').textContent = ok ? 'Summary copied as Markdown.' : md;
  });
  $('dl-csv').addEventListener('click', () => { if (app.res) download(`${baseName()}.csv`, toCSV(app.table.sortedLayers()), 'text/csv'); });
  $('dl-json').addEventListener('click', () => { if (app.res) download(`${baseName()}.json`, JSON.stringify(app.res, null, 1), 'application/json'); });
  for (const b of document.querySelectorAll('button.png')) {
    b.addEventListener('click', () => {
      const data = app.charts.png(b.dataset.chart);
      if (data) downloadDataUrl(`${baseName()}-${b.dataset.chart}.png`, data);
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
  const n = (app.res?.model?.name || app.modelLabel || 'model').replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60);
  return `rooflens-${n}-${app.res?.hardware?.id || 'hw'}`;
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
    { checkProfile: (obj) => app.editor.check(obj), precisions: (app.client.precisions || []).map((p) => p.name) });
  const prev = app.state;
  app.state = state;
  if (problems.length) notice(`Parts of the link could not be used and were ignored (${problems.join('; ')}); the rest of the view is restored.`);
  else notice('');
  syncControls();
  app.whatif.sync();
  app.llm.sync();
  const measuredNote = app.measured.restored(state); // said after the other notices
  if (state.hw === 'custom') { $('hw-select').value = 'custom'; app.editor.prefill(); }
  const sameModel = app.info && ((state.modelUrl && state.modelUrl === prev.modelUrl) || (state.example && state.example === prev.example));
  if (sameModel) { await analyze(); app.measured.addNotice(measuredNote); return; }
  app.restoring = true;
  if (state.modelUrl) await openModel(state.modelUrl, { label: state.modelUrl, kind: 'url' });
  else if (state.example) await openModel(state.example, { label: state.example, kind: 'example' });
  else {
    app.restoring = false;
    if (state.localFile) {
      notice(`This link was made with the local file “${state.localFile}”: its settings are restored; drop the file again (or open it) to see the analysis.` +
        (problems.length ? ` Parts of the link could not be used and were ignored (${problems.join('; ')}).` : ''));
      app.state.localFile = state.localFile;
    }
    if (app.info) await analyze(); else await writeUrl();
  }
  app.measured.addNotice(measuredNote);
}

async function main() {
  app.table = new LayerTable($('table-scroll'), $('layer-table'), {
    onSelect: (i) => select(i, 'table'),
    onSort: (sort) => { app.state.sort = sort; writeUrl(); },
  });
  app.charts = new Charts({ time: $('chart-time'), energy: $('chart-energy'), timeBased: $('chart-time-based') },
    { onSelect: (i) => select(i, 'chart') });
  app.client = new CoreClient();
  app.client.ready.then((v) => { $('version').textContent = `core ${v}`; fillPrecisions(); },
    (e) => showError({ code: 'wasm_failed', message: e.message }));
  try {
    await app.catalog.load();
  } catch (e) {
    showError(e, 'Could not load the hardware profiles');
    return;
  }
  fillHardware();
  try {
    const r = await fetch(new URL('samples/index.json', document.baseURI));
    if (r.ok) app.examples = (await r.json()).examples || [];
  } catch { /* no examples */ }
  const exSel = $('example-select');
  for (const ex of app.examples) exSel.appendChild(el('option', ex.name, { value: ex.id, title: ex.description || '' }));
  app.whatif = new WhatIfViews($('whatif'), {
    client: app.client, catalog: app.catalog, state: () => app.state, hasModel: () => !!app.info,
    ownProfile: currentProfile, request: async () => buildRequest(app.state, await currentProfile()),
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
    mainLabel: () => app.modelLabel || 'model', examples: () => app.examples, exampleUrl,
    onChange: () => writeUrl(),
  });
  app.compare.fillExamples();
  app.editor = new ProfileEditor($('custom-hw'), {
    client: app.client, catalog: app.catalog, state: () => app.state, onApply: applyCustomProfile, onError: showError,
  });
  wire();
  // Controls work from here on (a model named in the link may still be loading).
  document.body.dataset.interactive = '1';
  performance.mark('rooflens-interactive');
  await restore();
  document.body.dataset.ready = '1';
  performance.mark('rooflens-ready');
}

main();
