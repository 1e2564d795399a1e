// The settings bar and the table's filter bar: filling the menus (hardware,
// power modes, precisions, the model's open sizes) from the catalog, the
// core and the state, and turning their changes into state + a new analysis.
import { app, showError, modelDims, unsetDims, writeUrl, prefillDims, derivedTotal, effectiveDims } from './app.js';
import { count } from './format.js';
import { $, el } from './dom.js';
import { setWords, wordName, wordMeaning } from './words.js';
import { matchesQuery } from './hardware.js';

const modesOf = (st) => (st.hw === 'custom' ? (st.custom?.power_modes || []) : (app.catalog.byId.get(st.hw)?.power_modes || []));
// A mode's name may already say it is the default ("MAXN (default; …)").
const modeLabel = (m) => `${m.name || m.id}${m.default && !/default/i.test(m.name || '') ? ' (default)' : ''}`;

/** The hardware menu: the catalog grouped by class and vendor, narrowed to
 * the profiles matching the typed filter (the one in use always stays). */
export function fillHardware(query = $('hw-filter')?.value || '') {
  const sel = $('hw-select');
  const current = app.state?.hw ?? sel.value;
  sel.textContent = '';
  let shown = 0;
  for (const g of app.catalog.groups(query, current)) {
    const og = el('optgroup', null, { label: g.label });
    for (const p of g.profiles) {
      og.appendChild(el('option', p.power_modes?.length ? `${p.name} (${p.power_modes.length} power modes)` : p.name, { value: p.id }));
      if (p.id !== current) shown++;
    }
    sel.appendChild(og);
  }
  const og = el('optgroup', null, { label: 'Custom' });
  og.appendChild(el('option', 'Edited profile', { value: 'custom', id: 'hw-custom-option' }));
  sel.appendChild(og);
  if (current) sel.value = current;
  const total = app.catalog.list.length;
  const matched = query.trim() ? app.catalog.list.filter((p) => matchesQuery(p, query)).length : total;
  $('hw-filter-count').textContent = query.trim() ? `${matched} of ${total} match` : `${total} profiles`;
  return shown;
}

export function fillPowerModes() {
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

function dimInput(d, where) {
  const label = el('label', `${d.name} `, { title: `symbolic dimension of input ${d.input}, axis ${d.axis}` });
  const input = el('input', null, { type: 'number', min: '0', step: '1', inputmode: 'numeric', 'data-dim': d.name, 'data-testid': `${where}dim-${d.name}` });
  input.addEventListener('change', () => {
    const s = input.value.trim();
    if (s === '') delete app.state.dims[d.name];
    else if (/^\d+$/.test(s) && Number(s) <= 1e12) app.state.dims[d.name] = Number(s);
    else { showError({ code: 'bad_input', message: `${d.name} must be a whole number`, where: d.name }); return; }
    // Filled in place, not rebuilt: Tab after typing goes on to the next field.
    fillDims();
    app.analyze();
  });
  label.appendChild(input);
  return label;
}

/** One size field shows the state: the user's value, the LLM prefill's
 * or the derived total as a placeholder that says where it comes from, or
 * "not set". */
function showDim(input) {
  const name = input.dataset.dim, v = app.state.dims[name];
  const prefill = prefillDims(), eff = effectiveDims(), total = derivedTotal() === name;
  input.readOnly = total;
  input.tabIndex = total ? -1 : 0;   // filled in, so Tab goes from the sequence to the past
  if (input !== document.activeElement || total) input.value = v !== undefined && !total ? String(v) : '';
  let hint = 'not set';
  if (total) hint = eff[name] !== undefined ? `${eff[name]} (past + sequence)` : 'past + sequence';
  else if (prefill[name] !== undefined) hint = `${prefill[name]} (prefill)`;
  input.placeholder = hint;
  // The field is as wide as what it says ("512 (past + sequence)" was cut at the width of a number);
  // set through the CSSOM, which the page's CSP allows, and never narrower than style.css's width.
  input.style.minWidth = `min(100%, calc(${hint.length}ch + 2rem))`;
  input.title = total ? 'the total length is the past plus the sequence: filled in from those two'
    : prefill[name] !== undefined ? 'set by the LLM panel: the prefill of its prompt; type a value to analyse another step' : '';
  const unset = eff[name] === undefined;
  input.classList.toggle('unset', unset);
  if (unset) input.setAttribute('aria-invalid', 'true'); else input.removeAttribute('aria-invalid');
}

/** Builds the size fields of `box` when the model's sizes changed, else
 * only refreshes them (so focus and typing survive an analysis). */
function dimFields(box, dims, where) {
  const key = dims.map((d) => d.name).join('\u0000');
  if (box.dataset.dims !== key || box.childElementCount !== dims.length) {
    box.textContent = '';
    box.dataset.dims = key;
    for (const d of dims) box.appendChild(dimInput(d, where));
  }
  for (const input of box.querySelectorAll('input[data-dim]')) showDim(input);
}

/** The open sizes' inputs: in the settings bar, and in the box that asks
 * for them while any is unset. */
export function fillDims() {
  const { batch, other } = modelDims();
  dimFields($('dims'), other, '');
  const bi = $('batch-input');
  bi.placeholder = batch.length ? '1' : "model's";
  bi.title = batch.length ? `sets the model's symbolic batch (${batch.map((d) => d.name).join(', ')}); 1 when empty`
    : 'scales the model to this batch; empty: the model as it is';
  const unset = unsetDims();
  const need = $('dims-needed');
  need.hidden = !unset.length;
  if (unset.length) {
    $('dims-needed-text').textContent = `${app.fileName} has ${unset.length === 1 ? 'a size' : 'sizes'} the file leaves open ` +
      `(${unset.map((d) => d.name).join(', ')}). The page does not guess ${unset.length === 1 ? 'it' : 'them'}: type the value${unset.length > 1 ? 's' : ''} you run the model with` +
      ' (a sequence length, an image size…) and the analysis starts.';
  }
  dimFields($('dims-needed-fields'), unset.length ? other : [], 'need-');
}

/** The precision menu and the chart colours from the core's precision table. */
export function fillPrecisions() {
  const list = app.client.precisions || [];
  const sel = $('precision-select');
  for (const o of [...sel.options]) if (o.value !== 'model') o.remove();
  for (const p of list) sel.appendChild(el('option', p.name, { value: p.name, title: `stored as ${p.dtype}` }));
  sel.value = app.state.precision;
  app.charts.setPrecisions(list);
}

/** The core's words (rl_words) for the page: the speed-of-light model and
 * granularity menus name their options as every other surface does. */
export function fillWords() {
  setWords(app.client.words);
  for (const [id, kind] of [['sol-select', 'sol'], ['gran-select', 'granularity']])
    for (const o of $(id).options) { o.textContent = wordName(kind, o.value); o.title = wordMeaning(kind, o.value); }
}

/** Every control shows the state (after a link was restored). */
export function syncControls() {
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

export function updateCount() {
  const shown = app.table.rows?.length ?? 0;
  const total = app.table.layers.length;
  $('table-count').textContent = `${count(shown)} of ${count(total)} layers`;
  // The CSV holds the rows the table shows: the button says when that is not all of them.
  $('dl-csv').textContent = shown < total ? `Download CSV (${count(shown)} of ${count(total)} layers, filtered)` : 'Download CSV';
}

// The profile editor (profile-editor.js) owns the form and the JSON text.
export function prefillCustom() { return app.editor.prefill(); }

/** An edited profile the core accepted becomes the custom hardware. */
export function applyCustomProfile(obj) {
  const st = app.state;
  st.custom = obj;
  st.hw = 'custom';
  if (!(obj.power_modes || []).some((m) => m.id === st.powerMode)) st.powerMode = null;
  $('hw-select').value = 'custom';
  fillPowerModes();
  app.whatif.fillPicker();
  app.analyze();
}

/** Typing in the hardware filter narrows the menu; Enter (or the arrow
 * down key) picks the first match that is not the profile in use. */
function wireHardwareFilter() {
  const input = $('hw-filter');
  input.addEventListener('input', () => fillHardware(input.value));
  input.addEventListener('keydown', (ev) => {
    const sel = $('hw-select');
    if (ev.key === 'Escape' && input.value) { input.value = ''; fillHardware(''); ev.preventDefault(); return; }
    if (ev.key === 'ArrowDown') { sel.focus(); ev.preventDefault(); return; }
    if (ev.key !== 'Enter') return;
    ev.preventDefault();
    // the menu holds the matches in display order (and the profile in use)
    const first = [...sel.options].find((o) => o.value !== 'custom' && o.value !== app.state.hw);
    if (!first) return;
    sel.value = first.value;
    sel.dispatchEvent(new Event('change'));
  });
}

function wireHardware() {
  const st = () => app.state;
  wireHardwareFilter();
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
    app.analyze();
  });
  $('pm-select').addEventListener('change', (ev) => {
    const modes = modesOf(st());
    const def = modes.find((m) => m.default) || modes[0];
    st().powerMode = def && ev.target.value === def.id ? null : ev.target.value;
    app.analyze();
  });
}

/** The settings bar: each change updates the state and analyses again. */
function wireSettings() {
  const st = () => app.state;
  $('precision-select').addEventListener('change', (ev) => { st().precision = ev.target.value; app.analyze(); });
  $('mode-select').addEventListener('change', (ev) => { st().mode = ev.target.value; app.analyze(); });
  $('sol-select').addEventListener('change', (ev) => { st().sol = ev.target.value; app.analyze(); });
  $('gran-select').addEventListener('change', (ev) => { st().granularity = ev.target.value; app.analyze(); });
  $('batch-input').addEventListener('change', (ev) => {
    const v = ev.target.value.trim();
    if (v === '') st().batch = null;
    else if (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 1e9) st().batch = Number(v);
    else { showError({ code: 'bad_input', message: 'batch must be a whole number from 1 to 10^9', where: 'batch' }); return; }
    app.analyze();
  });
}

/** The table's filter bar: no new analysis, only the rows shown and the URL. */
function wireFilters() {
  const st = () => app.state;
  $('filter-op').addEventListener('change', (ev) => { st().filterOp = ev.target.value; app.table.setFilter(st().filterOp, st().filterName); updateCount(); writeUrl(); });
  $('filter-name').addEventListener('input', (ev) => { st().filterName = ev.target.value; app.table.setFilter(st().filterOp, st().filterName); updateCount(); writeUrl(); });
  $('group-op').addEventListener('change', (ev) => { st().group = ev.target.checked; app.table.setGroup(st().group); writeUrl(); });
}

export function wireControls() {
  wireHardware();
  wireSettings();
  wireFilters();
}
