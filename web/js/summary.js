// The summary panel of an analysis: the title lines every surface shares
// (page, PNG, Markdown), the headline figures (from figures.js only), the
// table of speed-of-light models and the warnings.
import { app, prefillDims } from './app.js';
import { llmDefaultState } from './llm-state.js';
import { eng, exact, count, times } from './format.js';
import { dimsText, batchNote } from './export.js';
import { headline, headlineSentence, llmHeadlineSentence, solRows, forecastFigures, forecastBasisPhrase, trackRecordHref } from './figures.js';
import { wordName, wordTitle, wordMeaning, glossary } from './words.js';
import { $, el, stackOnNarrow } from './dom.js';

// How much of the file was read and how big the WASM heap got: figures for
// the huge-model benchmark and tests (tools/bench/huge.mjs), as data attributes.
export function markReadFigures() {
  const d = $('summary').dataset;
  if (app.read) {
    d.bytesRead = String(app.read.bytes_read);
    d.bytesSkipped = String(app.read.bytes_skipped);
    if (Number.isFinite(app.read.read_ms)) d.readMs = String(app.read.read_ms); // the figure as the worker timed it
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
    `precision ${prec}, ${o.mode}, speed of light ${wordName('sol', h.model ?? o.sol)} (${wordName('granularity', h.granularity ?? o.granularity)}); dims: ${dimsText(res)}${batchNote(res)}`];
}

/** The time of each speed-of-light model, the chosen one marked. */
function solTable(res, h) {
  const wrap = el('div', null, { class: 'sol-wrap', tabindex: '0', role: 'region', 'aria-label': 'Time of each speed-of-light model' });
  const tbl = el('table');
  tbl.appendChild(el('caption', 'Time of each speed-of-light model', { class: 'visually-hidden' }));
  const head = tbl.createTHead().insertRow();
  for (const c of ['speed-of-light model', 'time', 'bounds', 'kernels', 'limited by']) head.appendChild(el('th', c));
  const body = tbl.createTBody();
  for (const r of solRows(res)) {
    const tr = body.insertRow();
    if (r.model === h.model) tr.className = 'chosen';
    tr.appendChild(el('td', wordName('sol', r.model), { title: wordMeaning('sol', r.model) }));
    tr.appendChild(el('td', eng(r.time_s, 's'), { title: exact(r.time_s, 's') }));
    tr.appendChild(el('td', `${eng(r.lower_bound_s, 's')} … ${eng(r.upper_bound_s, 's')}`));
    tr.appendChild(el('td', String(r.kernels), { title: `launch floor ${exact(r.launch_floor_s, 's')}` }));
    tr.appendChild(el('td', wordName('bound', r.bound), { title: wordMeaning('bound', r.bound) }));
  }
  stackOnNarrow(tbl);   // a phone shows each model's time and bounds in a card, not past the edge
  wrap.appendChild(tbl);
  return wrap;
}

/** The concepts the figures rest on, each in a sentence (the core's words);
 * each entry can be opened from where its word is used (termButton). */
function glossaryBox() {
  const det = el('details', null, { class: 'glossary', id: 'glossary', 'data-testid': 'glossary' });
  det.appendChild(el('summary', 'What do these words mean?'));
  const dl = el('dl');
  for (const w of glossary()) {
    const d = el('div');
    d.appendChild(el('dt', w.name, { id: `glossary-${w.kind}-${w.id}`, tabindex: '-1' }));
    d.appendChild(el('dd', w.meaning));
    dl.appendChild(d);
  }
  det.appendChild(dl);
  return det;
}

/** A word a user may not know, where it is used: a button that opens its
 * glossary entry (its meaning, the core's, is the button's tooltip too). */
export function termButton(kind, id, text = wordName(kind, id)) {
  return el('button', text, { type: 'button', class: 'term', 'data-term': `${kind}-${id}`, title: wordMeaning(kind, id),
    'aria-label': `${text}: what it means` });
}

/** Opens the glossary at the entry a term button names (one listener for the page). */
export function wireTerms() {
  document.addEventListener('click', (ev) => {
    const b = ev.target.closest?.('button[data-term]');
    if (!b) return;
    const box = $('glossary');
    const entry = document.getElementById(`glossary-${b.dataset.term}`);
    if (!box || !entry) return;
    box.open = true;
    entry.focus({ preventScroll: true });
    entry.scrollIntoView({ block: 'nearest' });
  });
}

/** The core's warnings (the first 200), folded. */
function warningsBox(warnings) {
  const det = el('details', null, { class: 'warnings' });
  det.appendChild(el('summary', `${warnings.length} warning${warnings.length > 1 ? 's' : ''}`));
  const ul = el('ul');
  // The code stays out of the text (an engine identifier), in data-code for tools.
  for (const w of warnings.slice(0, 200)) ul.appendChild(el('li', `${w.node ? w.node + ': ' : ''}${w.message}`, { 'data-code': w.code }));
  det.appendChild(ul);
  return det;
}

/** The forecast's track record under its band: "checked against 29
 * published runs, median error 13 %, worst 129 %", linked to the table of
 * those runs; or "no track record for this stack". */
function trackRecordLine(f) {
  const line = el('span', null, { class: 'track-record', 'data-testid': 'track-record' });
  const href = trackRecordHref(f);
  line.appendChild(href ? el('a', f.track_record, { href, target: '_blank', rel: 'noopener' }) : document.createTextNode(f.track_record));
  return line;
}

/** A decoder's headline: the LLM view's time to first token, time per
 * output token, tokens/s and fit (null: keep the analysis's own). */
export function showLlmHeadline(L, res) {
  const h = $('summary').querySelector('[data-testid=headline]');
  if (!h || !L) return;
  h.textContent = llmHeadlineSentence(L, res);
  h.dataset.llm = '1';
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
  const prefill = Object.entries(prefillDims());
  // a decoder's headline is the LLM view's answer (showLlmHeadline); until
  // it comes, the prefill this analysis is of
  const prompt = count((app.state.llm || llmDefaultState()).prompt);
  s.appendChild(el('p', prefill.length ? `Prefill of the ${prompt}-token prompt: ${headlineSentence(res)}` : headlineSentence(res),
    { class: 'headline', 'data-testid': 'headline' }));
  if (prefill.length) {
    s.appendChild(el('p', `A decoder with a KV cache: analysed at the prefill of the LLM panel's ${count((app.state.llm || llmDefaultState()).prompt)}-token prompt ` +
      `(${prefill.map(([k, v]) => `${k} ${count(v)}`).join(', ')}; the batch from the Batch control). Change the prompt in the LLM panel, ` +
      'or type the sizes above to analyse another step.', { class: 'note', 'data-testid': 'prefill-note' }));
  }
  s.appendChild(el('p', `${sub}${m.name && m.name !== app.fileName ? `; graph “${m.name}”` : ''}`, { class: 'subtitle' }));
  const dl = el('dl');
  dd(dl, 'Layers', count(t.layers), `${h.kernels} kernels in the ${wordName('sol', h.model)} model`);
  dd(dl, 'Parameters', eng(m.params), exact(m.params));
  dd(dl, 'FLOPs', eng(t.flops, 'FLOP'), `${exact(t.flops, 'FLOP')} (matrix ${exact(t.matrix_flops)}, vector ${exact(t.vector_flops)})`);
  const sol = wordName('sol', h.model);
  dd(dl, `Bytes moved (${sol})`, eng(h.bytes, 'B'), `${exact(h.bytes, 'B')} in the ${sol} model (every tensor: ${exact(t.bytes, 'B')}; weights ${exact(t.weight_bytes, 'B')})`);
  dd(dl, `Arithmetic intensity (${sol})`, eng(h.intensity, 'FLOP/B'), `${exact(h.intensity)}; time balance ${exact(res.roofline.time_balance)} FLOP/B`);
  const v = dd(dl, `Speed of light (${sol}, `, eng(h.time_s, 's'), exact(h.time_s, 's'));
  v.previousSibling.append(termButton('granularity', h.granularity), ')');   // "kernel by kernel", explained
  v.dataset.testid = 'predicted-time';
  // what these bounds bound: the floor, not the forecast (issue 38)
  const range = dd(dl, wordTitle('term', 'floor_range'), `${eng(h.lower_bound_s, 's')} … ${eng(h.upper_bound_s, 's')}`,
    `${wordMeaning('term', 'floor_range')} ${sol}: lower ${exact(h.lower_bound_s, 's')}, upper ${exact(h.upper_bound_s, 's')}`);
  range.dataset.testid = 'floor-range';
  if (h.energy_j !== null) {
    const e = dd(dl, 'Energy at the speed of light', eng(h.energy_j, 'J'), `${exact(h.energy_j, 'J')}; average power ${exact(h.avg_power_w, 'W')}` +
      (h.power_budget_w ? ` (budget ${exact(h.power_budget_w, 'W')})` : ''));
    e.dataset.testid = 'predicted-energy';
  }
  // the forecast beside the floor, and what it rests on (the core's figures)
  const f = forecastFigures(res);
  if (f) {
    const fv = dd(dl, `Forecast (${wordName('basis', f.basis)})`, eng(f.time_s, 's'), `${exact(f.time_s, 's')}: ${times(f.headroom)} the speed of light; ` +
      `${forecastBasisPhrase(f)}${f.clamped ? ' (held at the speed of light: its kernels alone came out shorter)' : ''}`);
    fv.dataset.testid = 'forecast-time';
    // its headroom over the floor, the word the table's column uses, explained where it is shown
    const hr = dd(dl, '', times(f.headroom), `${exact(f.headroom)}: the forecast over the speed of light`);
    hr.previousSibling.append(termButton('term', 'headroom', wordTitle('term', 'headroom')));
    hr.dataset.testid = 'forecast-headroom';
    const band = dd(dl, wordTitle('term', 'forecast_band'), f.low_s !== null ? `${eng(f.low_s, 's')} … ${eng(f.high_s, 's')}` : '–',
      f.low_s !== null ? `${exact(f.low_s, 's')} to ${exact(f.high_s, 's')}: ${wordMeaning('term', 'forecast_band')}` : wordMeaning('term', 'no_track_record'));
    band.dataset.testid = 'forecast-band';
    band.appendChild(el('br'));
    band.appendChild(trackRecordLine(f));
    if (f.energy_j !== null) {
      const fe = dd(dl, 'Energy at the forecast', eng(f.energy_j, 'J'),
        `${exact(f.energy_j, 'J')}: the work's energy plus static power over the forecast time`);
      fe.dataset.testid = 'forecast-energy';
    }
  }
  dd(dl, 'Limited by', wordName('bound', h.bound), `${wordMeaning('bound', h.bound)} Launch floor ${exact(h.launch_floor_s, 's')} (${h.kernels} kernels)`);
  const unsup = t.unsupported_ops || [];
  dd(dl, 'Unsupported ops', unsup.length ? `${unsup.length}: ${unsup.join(', ')}` : '0',
    t.unknown_layers ? `${t.unknown_layers} layers with unknown shapes` : '');
  if (res.options.mode === 'training' && t.training) dd(dl, 'Training step (fwd+bwd)', eng(t.training.time_s, 's'), t.training.method);
  s.appendChild(dl);

  s.appendChild(solTable(res, h));
  s.appendChild(glossaryBox());
  if (res.warnings?.length) s.appendChild(warningsBox(res.warnings));
}
