// Exports: CSV of the layer rows, the full JSON response, a Markdown summary,
// PNG of a chart. Pure functions plus a download helper.
import { eng, shapes, pct, times } from './format.js';
import { headline, headlineSentence, llmHeadlineSentence, boundPhrase, forecastFigures, forecastBasisPhrase, forecastBandPhrase } from './figures.js';
import { wordName } from './words.js';

/** The request for the layer table as CSV: the shown analysis's request
 * with the core's CSV layout ("layers": "csv", docs/api.md) over the
 * table's rows in its order, and the filter's words when it hides some.
 * The core writes the CSV: `rooflens --format csv` gives the same text. */
export function csvRequest(request, rows, filter = '') {
  const csv = { rows: rows.map((l) => l.index), ...(filter ? { filter } : {}) };
  return { ...request, graph: false, layers: 'csv', layer_io: true, csv };
}

/** The CSV of an answer to csvRequest (its bytes, rl_model_analyze_sized):
 * what follows the text's NUL; the core's error when it has none. */
export function csvOfAnswer(bytes) {
  const end = bytes.indexOf(0);
  if (end < 0) {
    const res = JSON.parse(new TextDecoder().decode(bytes));
    throw new Error(res.error?.message || 'the core wrote no CSV');
  }
  return new TextDecoder().decode(bytes.subarray(end + 1));
}

const TOP_LAYERS = 10;
const MAX_WARNINGS = 20;

/** The dims the analysis used, as "batch=1 (batch), seq=128 (you)". */
export function dimsText(res) {
  const src = { user: 'set', batch: 'batch', default: 'not set' };
  const d = Object.entries(res.model?.dims || {});
  return d.length ? d.map(([k, v]) => `${k}=${v.value}${src[v.source] ? ` (${src[v.source]})` : ''}`).join(', ') : 'none (all shapes fixed)';
}

/** "; batch N (scaled)" when the core applied the batch by scaling a
 * fixed-batch model (a batch that set a symbolic dim is already in dimsText). */
export function batchNote(res) {
  const o = res.options || {};
  if (!o.batch || o.batch_applied !== 'scaled') return '';
  return `; batch ${o.batch} (the fixed-batch model scaled from batch ${o.batch_base ?? 1})`;
}

/**
 * A review comment: what was analysed (file, device and mode, precision,
 * dims), the answer in one sentence, the speed of light with its bounds and
 * the forecast beside it, the ten slowest layers, the warnings
 * and the link.
 *
 * Every string that comes from the model, the profile or the user (names,
 * op types, the device, the forecast's stack, warnings) is escaped by the
 * core's rl_markdown_text, the escaping of the diff's comment: no heading,
 * table row, HTML, link, mention or math, and no control character. The
 * text is written twice: once to collect those strings, then with their
 * escaped forms, so the core is asked once for all of them.
 * @param {object} res the core's response
 * @param {{file: string, link: string|null, localFile: boolean, llm: object|null}} where
 *   link: the share link; localFile: the model was a local file, so the
 *   link opens the settings but needs the file to be dropped again; llm: a
 *   decoder's LLM view (the core's res.llm), whose answer leads.
 * @param {(texts: string[]) => Promise<string[]>} escapeAll the core's
 *   escaping of each string, in order (the worker's 'markdown-text')
 * @returns {Promise<string>}
 */
export async function toMarkdown(res, where, escapeAll) {
  const texts = new Set();
  writeMarkdown(res, where, (s) => { texts.add(String(s)); return ''; });
  const list = [...texts];
  const escaped = await escapeAll(list);
  if (!Array.isArray(escaped) || escaped.length !== list.length) throw new Error('the core did not escape the summary\'s strings');
  const safe = new Map(list.map((s, i) => [s, escaped[i]]));
  return writeMarkdown(res, where, (s) => safe.get(String(s)));
}

/** The review comment, with `esc` for every string that is not the page's own. */
function writeMarkdown(res, { file = 'model', link = null, localFile = false, llm = null } = {}, esc) {
  const m = res.model, t = res.totals, hw = res.hardware, h = headline(res), o = res.options;
  const out = [];
  const mode = hw.power_mode ? `, power mode ${esc(hw.power_mode_name || hw.power_mode)}` : '';
  out.push(`## rooflens: ${esc(file)} on ${esc(hw.name)}${mode}`);
  out.push('');
  // a decoder's answer is its LLM view's (the page's headline): time to first token and per output token
  if (llm) out.push(esc(llmHeadlineSentence(llm, res)), '', `Prefill of the ${llm.prompt_tokens}-token prompt: ${esc(headlineSentence(res))}`);
  else out.push(esc(headlineSentence(res)));
  out.push('');
  const prec = h.requested_precision && h.requested_precision !== h.precision
    ? `${h.precision} (asked for ${h.requested_precision})` : `${h.precision}${o.precision === 'model' ? ' (the model\'s dtypes)' : ''}`;
  out.push(`- **Precision:** ${esc(prec)}; ${esc(o.mode)}; speed-of-light model ${wordName('sol', h.model ?? o.sol)}, ${wordName('granularity', h.granularity ?? o.granularity)}`);
  out.push(`- **Dims:** ${esc(dimsText(res))}${batchNote(res)}`);
  // Every input's name, dtype and shape as analysed (a fixed-shape model too;
  // a shape may name the model's symbolic dims).
  // A decoder's KV cache is one item with its count, not dozens of inputs.
  const kv = new Set(llm?.roles?.kv_input_names || []);
  const inputs = (m.inputs || []).filter((i) => !kv.has(i.name)).map((i) => esc(`${i.name} ${shapes([i])}`));
  if (inputs.length) out.push(`- **Inputs:** ${inputs.join('; ')}`);
  if (kv.size) out.push(`- **KV cache:** ${kvCacheLine(m.inputs || [], kv, esc)}`);
  if (llm) out.push(llmLine(llm, esc));
  out.push(`- **Speed of light:** ${eng(h.time_s, 's')} (${wordName('term', 'floor_range')} ${eng(h.lower_bound_s, 's')} … ${eng(h.upper_bound_s, 's')}), ` +
    `limited by ${boundPhrase(h.bound)}` + (h.energy_j !== null ? `; energy ${eng(h.energy_j, 'J')}` : '; energy: the profile has no energy figures'));
  const f = forecastFigures(res);
  if (f) {
    out.push(`- **Forecast:** ${eng(f.time_s, 's')}, ${times(f.headroom)} the speed of light; ${esc(forecastBasisPhrase(f))}` +
      (f.energy_j !== null ? `; energy ${eng(f.energy_j, 'J')}` : ''));
    // its band and the track record it rests on, with where the runs are listed
    out.push(`- **Likely range:** ${esc(forecastBandPhrase(f))}` +
      (f.band ? `; ${esc(f.track_record)} (${esc(f.band.source)})` : ''));
  }
  out.push(`- **Model:** ${t.layers} layers, ${eng(m.params)} parameters, ${eng(t.flops, 'FLOP')}, ${eng(t.bytes, 'B')} moved, ` +
    `intensity ${eng(t.intensity, 'FLOP/B')} (time balance ${eng(res.roofline.time_balance, 'FLOP/B')})` +
    (h.kernels !== null ? `; ${h.kernels} kernels, launch floor ${eng(h.launch_floor_s, 's')}` : ''));
  if (t.unsupported_ops?.length) out.push(`- **Unsupported ops:** ${esc(t.unsupported_ops.map((u) => u.op ?? u).join(', '))}`);
  out.push('');
  layerRows(out, res.layers || [], esc);
  const warnings = res.warnings || [];
  if (warnings.length) {
    out.push(`Warnings (${warnings.length}):`);
    out.push('');
    for (const w of warnings.slice(0, MAX_WARNINGS)) out.push(`- ${w.node ? esc(w.node) + ': ' : ''}${esc(w.message)} (${esc(w.code)})`);
    if (warnings.length > MAX_WARNINGS) out.push(`- …and ${warnings.length - MAX_WARNINGS} more`);
    out.push('');
  }
  // The link in angle brackets: the URL writer percent-encodes < and >, so
  // nothing in the page's address (a query it was opened with) can end it.
  if (link && localFile) out.push(`[Open these settings in rooflens](<${link}>) — the model was a local file: the link needs ${esc(file)} dropped on the page again.`);
  else if (link) out.push(`[Open in rooflens](<${link}>)`);
  else if (localFile) out.push(`The model was a local file (${esc(file)}): there is no link that opens it.`);
  return out.join('\n') + '\n';
}

/** "64 inputs (past_key_values.0.key … past_key_values.31.value), each float16 [batch, 8, past, 64]". */
function kvCacheLine(inputs, kv, esc) {
  const list = inputs.filter((i) => kv.has(i.name));
  const kinds = [...new Set(list.map((i) => shapes([i])))];
  const span = list.length > 1 ? `${esc(list[0].name)} … ${esc(list[list.length - 1].name)}` : esc(list[0]?.name ?? '');
  return `${list.length} input${list.length === 1 ? '' : 's'} (${span})` + (kinds.length === 1 ? `, each ${esc(kinds[0])}` : '');
}

/** The LLM view's figures (the core's res.llm): the forecast's, with the floor's beside. */
function llmLine(L, esc) {
  const FL = L.floor || {};
  const run = `batch ${L.batch}, ${L.prompt_tokens}-token prompt, ${L.generated_tokens ?? 0} generated tokens`;
  const tpot = Number.isFinite(L.tpot_s) ? `; time per output token ${eng(L.tpot_s, 's')} (floor ${eng(FL.tpot_s, 's')}), ${eng(L.tokens_per_s)} tokens/s` : '';
  return `- **LLM (${esc(run)}):** time to first token ${eng(L.ttft_s, 's')} (floor ${eng(FL.ttft_s, 's')})${tpot}` +
    (Number.isFinite(L.e2e_s) ? `; end to end ${eng(L.e2e_s, 's')}` : '');
}

/** The slowest layers at the speed of light, as a table. */
function layerRows(out, layers, esc) {
  if (!layers.length) return;
  const total = layers.reduce((s, l) => s + (l.t || 0), 0);
  const top = layers.slice().sort((a, b) => (b.t || 0) - (a.t || 0) || (b.bytes || 0) - (a.bytes || 0) || a.index - b.index).slice(0, TOP_LAYERS);
  out.push(`Slowest ${top.length} of ${layers.length} layers at the speed of light:`);
  out.push('');
  out.push('| layer | op | speed of light | share | forecast | bound | FLOPs | bytes | intensity |');
  out.push('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const l of top) {
    const fc = Number.isFinite(l.forecast_s) ? eng(l.forecast_s, 's') : '–';
    out.push(`| ${esc(l.name || `#${l.index}`)} | ${esc(l.op)} | ${eng(l.t, 's')} | ${pct(total > 0 ? l.t / total : 0)} | ${fc} | ${l.bound ? wordName('bound', l.bound) : '–'} | ` +
      `${eng(l.flops, 'FLOP')} | ${eng(l.bytes, 'B')} | ${eng(l.intensity, 'FLOP/B')} |`);
  }
  out.push('');
}

export function download(name, data, type) {
  const blob = data instanceof Blob ? data : new Blob([data], { type });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

export function downloadDataUrl(name, dataUrl) {
  const a = document.createElement('a');
  a.href = dataUrl;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
}

export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
