// Exports: CSV of the layer rows, the full JSON response, a Markdown summary,
// PNG of a chart. Pure functions plus a download helper.
import { COLUMNS } from './table.js';
import { eng, shapes } from './format.js';
import { headline, solRows } from './headline.js';

function csvField(v) {
  if (v === undefined || v === null) return '';
  const s = typeof v === 'number' ? String(v) : String(v);
  // Guard against formula injection in spreadsheets and quote when needed.
  const safe = /^[=+\-@\t\r]/.test(s) && typeof v !== 'number' ? "'" + s : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function toCSV(layers) {
  const head = COLUMNS.map((c) => c.key);
  const lines = [head.join(',')];
  for (const l of layers) {
    lines.push(head.map((k) => csvField(k === 'inputs' || k === 'outputs' ? shapes(l[k]) : l[k])).join(','));
  }
  return lines.join('\n') + '\n';
}

// A model's strings go into a review comment: line breaks would let a name
// start a heading or a table row of its own, so they become spaces.
function mdEscape(s) { return String(s).replace(/[\r\n\u2028\u2029]+/g, ' ').replace(/[|\\`*_[\]<>#]/g, (c) => '\\' + c); }

export function toMarkdown(res, link) {
  const m = res.model, t = res.totals, hw = res.hardware, h = headline(res);
  const out = [];
  out.push(`## rooflens: ${mdEscape(m.name || 'model')} on ${mdEscape(hw.name)}${hw.power_mode ? ' (' + mdEscape(hw.power_mode_name || hw.power_mode) + ')' : ''}`);
  out.push('');
  out.push(`Options: precision ${h.precision}${h.precision !== h.requested_precision ? ` (${h.requested_precision} requested)` : ''}, ${res.options.mode}, SOL ${res.options.sol}, granularity ${res.options.granularity}` +
    (h.batch ? `, batch ${h.batch}${h.batch_applied === 'scaled' ? ' (scaled)' : ''}` : ''));
  out.push('');
  out.push('| quantity | value |');
  out.push('| --- | --- |');
  const row = (k, v) => out.push(`| ${k} | ${v} |`);
  row('layers', t.layers);
  row('parameters', eng(m.params));
  row('FLOPs', eng(t.flops, 'FLOP'));
  row('bytes', eng(h.bytes, 'B'));
  row('arithmetic intensity', eng(h.intensity, 'FLOP/B'));
  row(`predicted time (${h.model}, ${h.granularity})`, eng(h.time_s, 's'));
  row('bounds', `${eng(h.lower_bound_s, 's')} … ${eng(h.upper_bound_s, 's')}`);
  row('bound', h.bound);
  row('kernels, launch floor', `${h.kernels}, ${eng(h.launch_floor_s, 's')}`);
  if (h.energy_j !== null) row('energy', `${eng(h.energy_j, 'J')} (average ${eng(h.avg_power_w, 'W')})`);
  row('time balance', eng(res.roofline.time_balance, 'FLOP/B'));
  if (t.unsupported_ops?.length) row('unsupported ops', mdEscape(t.unsupported_ops.map((u) => u.op ?? u).join(', ')));
  out.push('');
  out.push('| SOL model | time | bounds | kernels | bound |');
  out.push('| --- | --- | --- | --- | --- |');
  for (const r of solRows(res)) out.push(`| ${r.model} | ${eng(r.time_s, 's')} | ${eng(r.lower_bound_s, 's')} … ${eng(r.upper_bound_s, 's')} | ${r.kernels} | ${r.bound} |`);
  if (link) { out.push(''); out.push(`[Open in rooflens](${link})`); }
  return out.join('\n') + '\n';
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
