// The LLM panel: a decoder with a KV cache in its two phases, the prefill of
// the prompt and the decode of each generated token (docs/llm.md). The panel
// appears when the core found a KV cache among the model's inputs
// (rl_model_info's "llm" roles), sends the page's own request with an "llm"
// object, and only draws what comes back: every figure is computed in C
// (rl_model_analyze, docs/api.md "LLM inference"), as the CLI's --llm prints it.
// It owns its part of the share link (lp, lg, lw, lk) and hands the prefill
// and decode points to the time roofline.
import { eng, exact, count } from './format.js';
import { whiteBackground, logAxis, seriesLegend } from './chart-kit.js';
import { el } from './dom.js';
import { wordName, wordMeaning } from './words.js';
import { boundPhrase, forecastFigures, forecastBasisPhrase, bandPhrase } from './figures.js';
import { chartClass } from './chart-lib.js';
import { llmDefaultState, llmRequestMember, MAX_TOKENS, BITS, KV_TYPES } from './llm-state.js';

/** Vertical limit lines over a chart: options.plugins.rlLimit = {x, label}. */
const limitLine = {
  id: 'rlLimit',
  afterDatasetsDraw(chart, _args, opts) {
    if (!opts || !(opts.x > 0)) return;
    const { ctx, chartArea: a, scales } = chart;
    const px = scales.x.getPixelForValue(opts.x);
    if (!(px >= a.left - 0.5 && px <= a.right + 0.5)) return;
    ctx.save();
    ctx.strokeStyle = '#d62728';
    ctx.lineWidth = 1.5;
    ctx.setLineDash([6, 4]);
    ctx.beginPath(); ctx.moveTo(px, a.top); ctx.lineTo(px, a.bottom); ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = '#d62728';
    ctx.font = '12px system-ui, sans-serif';
    // beside the line on the side that holds it; where neither side holds it
    // in one line (a phone's narrow chart), on the wider side in as many lines
    const w = ctx.measureText(opts.label).width;
    const roomRight = a.right - px - 4, roomLeft = px - 4 - a.left;
    const right = w <= roomRight || (w > roomLeft && roomRight > roomLeft);
    const room = right ? roomRight : roomLeft;
    const lines = [];
    for (const word of opts.label.split(' ')) {
      const last = lines.length ? `${lines[lines.length - 1]} ${word}` : word;
      if (lines.length && ctx.measureText(last).width <= room) lines[lines.length - 1] = last;
      else lines.push(word);
    }
    ctx.textAlign = right ? 'left' : 'right';
    lines.forEach((line, i) => ctx.fillText(line, right ? px + 4 : px - 4, a.top + 14 + 14 * i));
    ctx.restore();
  },
};

function decades(values, pad = 1.5) {
  const v = values.filter((x) => Number.isFinite(x) && x > 0);
  if (!v.length) return [undefined, undefined];
  return [10 ** Math.floor(Math.log10(Math.min(...v) / pad)), 10 ** Math.ceil(Math.log10(Math.max(...v) * pad))];
}


export class LlmPanel {
  /**
   * @param {HTMLElement} root the (empty) LLM section of the page
   * @param {object} host the page's host (host.js): client, state() (its .llm holds the
   *   panel's settings), request() (the page's own request), changed() (state
   *   changed: write the URL), llmPoints(points|null) (the time roofline's
   *   prefill and decode points), llmAnswer(L, res), promptChanged()
   */
  constructor(root, host) {
    this.root = root;
    this.h = host;
    this.charts = {};
    this.seq = 0;
    this.roles = null;
    this.build();
  }

  // -------------------------------------------------------------- the DOM
  build() {
    const r = this.root;
    r.textContent = '';
    const head = el('h2', 'LLM inference: prefill and decode');
    r.appendChild(head);
    this.rolesLine = r.appendChild(el('p', '', { class: 'muted', 'data-testid': 'llm-roles' }));
    const tools = r.appendChild(el('div', null, { class: 'whatif-tools' }));
    const number = (label, id) => {
      const l = tools.appendChild(el('label', `${label} `));
      return l.appendChild(el('input', null, { id, 'data-testid': id, type: 'number', min: '1', max: String(MAX_TOKENS), step: '1' }));
    };
    const bits = (label, id, none) => {
      const l = tools.appendChild(el('label', `${label} `));
      const s = l.appendChild(el('select', null, { id, 'data-testid': id }));
      s.appendChild(el('option', none, { value: '' }));
      for (const b of BITS) s.appendChild(el('option', `${b} bits`, { value: String(b) }));
      return s;
    };
    this.prompt = number('Prompt tokens', 'llm-prompt');
    this.generate = number('Generated tokens', 'llm-generate');
    this.weightBits = bits('Weights', 'llm-weight-bits', 'as stored');
    this.kvBits = bits('KV cache', 'llm-kv-bits', 'as the activations');
    // llama.cpp's cache types (--cache-type-k/-v), their block scales
    // included; one sizes the cache or the bits do, never both
    const tl = tools.appendChild(el('label', 'KV type '));
    this.kvType = tl.appendChild(el('select', null, { id: 'llm-kv-type', 'data-testid': 'llm-kv-type',
      title: "llama.cpp's KV cache types: f16, or q8_0 and q4_0 in blocks of 32 values with a 16-bit scale each" }));
    this.kvType.appendChild(el('option', 'none (the KV bits apply)', { value: '' }));
    for (const t of KV_TYPES) this.kvType.appendChild(el('option', t, { value: t }));
    this.noKv = r.appendChild(el('p', '', { class: 'note', 'data-testid': 'llm-no-kv', hidden: '' }));
    this.msg = r.appendChild(el('p', '', { class: 'whatif-msg', hidden: '' }));
    this.summary = r.appendChild(el('div', null, { class: 'summary' }));
    const charts = r.appendChild(el('div', null, { class: 'whatif-charts' }));
    const figure = (caption, label) => {
      // Hidden until there is data to draw (drawCharts), so no empty frames.
      const f = charts.appendChild(el('figure', null, { class: 'chart', hidden: '' }));
      f.appendChild(el('figcaption', caption));
      const box = f.appendChild(el('div', null, { class: 'chart-box' }));
      return box.appendChild(el('canvas', null, { role: 'img', 'aria-label': label }));
    };
    this.batchCanvas = figure('Decode at the speed of light: TPOT and tokens/s against batch', 'Time per output token and tokens per second at the speed of light against batch size');
    this.contextCanvas = figure('Decode at the speed of light: TPOT and tokens/s against context', 'Time per output token and tokens per second at the speed of light against context length');
    const wrap = r.appendChild(el('div', null, { class: 'whatif-table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Decode against batch' }));
    this.table = wrap.appendChild(el('table', null, { class: 'whatif-table', 'data-testid': 'llm-batch-table' }));
    const det = r.appendChild(el('details'));
    det.appendChild(el('summary', 'Assumptions and notes'));
    this.notes = det.appendChild(el('ul', null, { 'data-testid': 'llm-notes' }));

    // the KV cache's two sizes: one clears the other (the core takes one)
    const changedBoth = (fields) => {
      const st = this.h.state();
      st.llm = { ...(st.llm || llmDefaultState()), ...fields };
      this.h.changed();
      this.refresh();
    };
    const changed = (field, value) => {
      const st = this.h.state();
      st.llm = { ...(st.llm || llmDefaultState()), [field]: value };
      this.h.changed();
      // The main analysis runs at the prompt's prefill: it re-analyses and
      // refreshes this panel after it; otherwise the panel alone.
      if (!(field === 'prompt' && this.h.promptChanged?.())) this.refresh();
    };
    const tokens = (input, field) => input.addEventListener('change', () => {
      const v = input.value.trim();
      const n = /^\d{1,9}$/.test(v) ? Number(v) : NaN;
      if (!(n >= 1 && n <= MAX_TOKENS)) { this.message(`${field === 'prompt' ? 'Prompt' : 'Generated'} tokens must be a whole number from 1 to ${MAX_TOKENS}.`, true); return; }
      changed(field, n);
    });
    tokens(this.prompt, 'prompt');
    tokens(this.generate, 'generate');
    this.weightBits.addEventListener('change', () => changed('weightBits', this.weightBits.value ? Number(this.weightBits.value) : null));
    this.kvBits.addEventListener('change', () => {
      if (this.kvBits.value) this.kvType.value = '';
      changedBoth({ kvBits: this.kvBits.value ? Number(this.kvBits.value) : null, kvType: this.kvBits.value ? null : this.kvType.value || null });
    });
    this.kvType.addEventListener('change', () => {
      if (this.kvType.value) this.kvBits.value = '';
      changedBoth({ kvType: this.kvType.value || null, kvBits: this.kvType.value ? null : (this.kvBits.value ? Number(this.kvBits.value) : null) });
    });
  }

  message(text, isError = false) {
    this.msg.textContent = text || '';
    this.msg.hidden = !text;
    this.msg.classList.toggle('error', !!isError);
  }

  /** State -> controls. */
  sync() {
    const llm = this.h.state().llm || llmDefaultState();
    this.prompt.value = String(llm.prompt);
    this.generate.value = String(llm.generate);
    this.weightBits.value = llm.weightBits ? String(llm.weightBits) : '';
    this.kvBits.value = llm.kvBits ? String(llm.kvBits) : '';
    this.kvType.value = llm.kvType || '';
    // each type's word and meaning from the core's list of them (rl_words, kind kv_type), as --kv-type's help gives it
    for (const o of this.kvType.options) {
      if (!o.value) continue;
      o.textContent = wordName('kv_type', o.value);
      o.title = wordMeaning('kv_type', o.value);
    }
  }

  /** The open model's roles (rl_model_info's "llm"): the panel shows for a KV cache. */
  setModel(info) {
    this.roles = info?.llm && info.llm.kv_cache ? info.llm : null;
    // a decoder without a KV cache: the section says why there is no LLM
    // view and what export gives one (the core's words), and nothing else
    const why = !this.roles && info?.llm?.no_kv_cache;
    this.root.hidden = !this.roles && !why;
    for (const c of this.root.children) if (c !== this.noKv && c.tagName !== 'H2') c.hidden = !!why || (c === this.msg && !this.msg.textContent);
    this.noKv.hidden = !why;
    this.noKv.textContent = why ? `No LLM view: ${why}.` : '';
    if (!this.roles) { this.clear(); return; }
    const r = this.roles;
    this.rolesLine.textContent = `KV cache found: ${r.kv_inputs} cache inputs; batch '${r.batch ?? '–'}', sequence '${r.seq}', ` +
      `past '${r.past}'${r.total ? `, total '${r.total}'` : ''}. Every figure below is computed by the core from the graph, ` +
      'with the serving assumptions listed under the charts.';
    this.sync();
  }

  clear() {
    this.seq++;
    this.answer = null;
    for (const k of Object.keys(this.charts)) { this.charts[k].destroy(); delete this.charts[k]; }
    this.showChart(this.batchCanvas, false);
    this.showChart(this.contextCanvas, false);
    this.summary.textContent = '';
    this.table.textContent = '';
    this.notes.textContent = '';
    this.root.dataset.state = 'empty';
    this.h.llmPoints(null);
  }

  /** Recomputes the panel (after an analysis of the main view or a control change). */
  async refresh() {
    if (!this.roles) return;
    const seq = ++this.seq;
    this.root.dataset.state = 'busy';
    const llm = this.h.state().llm || llmDefaultState();
    let res;
    const t0 = performance.now();
    try {
      res = await this.h.client.analyze({ ...(await this.h.request()), layers: false, llm: llmRequestMember(llm) });
    } catch (e) {
      if (seq !== this.seq) return;
      const err = e.core || e;
      this.fail(`The LLM view failed: ${err.message || e}`);
      return;
    }
    if (seq !== this.seq) return; // a newer request is under way
    if (!res.ok) {
      this.fail(`The LLM view failed: ${res.error.message}${res.error.where ? ' at ' + res.error.where : ''}`);
      return;
    }
    if (!res.llm) { this.fail('This version of the core has no LLM view.'); return; }
    this.message('');
    this.draw(res.llm, res);
    this.root.dataset.ms = String(Math.round(performance.now() - t0));
    this.root.dataset.state = 'done';
  }

  fail(text) {
    this.answer = null;
    this.message(text, true);
    this.showChart(this.batchCanvas, false);
    this.showChart(this.contextCanvas, false);
    this.root.dataset.state = 'error';
    this.h.llmPoints(null);
  }

  // ------------------------------------------------------------ drawing
  draw(L, res) {
    this.answer = L;   // the summary's Markdown quotes it (export.js)
    this.h.llmAnswer(L, res);
    this.drawSummary(L, res);
    this.drawCharts(L);
    this.drawTable(L);
    this.notes.textContent = '';
    for (const s of [...(L.assumptions || []), ...(L.notes || [])]) this.notes.appendChild(el('li', s));
    const kv = L.kv_cache_bytes_per_token;
    this.h.llmPoints((L.points || []).map((p) => ({
      label: p.phase === 'prefill' ? `prefill of ${count(L.prompt_tokens)} tokens` : 'decode step (mean)',
      intensity: p.intensity, flops_per_s: p.flops_per_s,
      note: `${p.phase}: ${eng(p.flops, 'FLOP')}, ${eng(p.bytes, 'B')} in ${eng(p.time_s, 's')}` +
        (p.phase === 'decode' && kv ? ` (KV ${eng(kv, 'B')} per token)` : ''),
    })));
  }

  drawSummary(L, res) {
    const s = this.summary;
    s.textContent = '';
    s.appendChild(el('h2', `Batch ${count(L.batch)}, prompt ${count(L.prompt_tokens)} tokens, ${count(L.generated_tokens)} generated ` +
      `on ${res.hardware.name} (${res.roofline.precision}, ${L.sol} speed-of-light model)`));
    const dl = s.appendChild(el('dl'));
    const item = (label, value, title, testid, raw) => {
      const d = dl.appendChild(el('div'));
      d.appendChild(el('dt', label));
      const v = d.appendChild(el('dd', value));
      if (title) v.title = title;
      if (testid) v.dataset.testid = testid;
      if (raw !== undefined && raw !== null) v.dataset.value = String(raw);
    };
    const d = L.decode, F = L.forecast || {}, FL = L.floor || {};
    // the answer: the forecast of the passes on the profile's stack (over the
    // plan's devices); the floor's figures beside, named as the floor
    const on = forecastBasisPhrase(forecastFigures(res)) + (F.devices > 1 ? `, over ${count(F.devices)} devices` : '');
    item('Time to first token', eng(L.ttft_s, 's'), `forecast, ${on}: ${exact(L.ttft_s, 's')}; prefill of ${exact(L.prompt_tokens)} tokens, ` +
      `limited by ${boundPhrase(L.prefill.bound)}`, 'llm-ttft', L.ttft_s);
    item('Time per output token', eng(L.tpot_s, 's'), d ? `forecast, ${on}: ${exact(L.tpot_s, 's')}; floor: mean of ${exact(L.generated_tokens)} ` +
      `decode steps (${d.method}), first ${eng(d.first_time_per_token_s, 's')}, last ${eng(d.last_time_per_token_s, 's')} on one device; ` +
      `limited by ${boundPhrase(d.bound)}; launch floor ${eng(d.launch_floor_s, 's')} if not captured` : '',
    'llm-tpot', L.tpot_s);
    item('Tokens/s', eng(L.tokens_per_s), `forecast: batch × generated tokens ÷ decode time, ${on}`, 'llm-tokens-per-s', L.tokens_per_s);
    item('End to end', eng(L.e2e_s, 's'), `forecast: time to first token + decode, ${on}`, 'llm-e2e', L.e2e_s);
    // how far off they may be: the core's bands of each figure, from the stack's track record
    const rec = F.track_record || '';
    item('Likely range', Number.isFinite(F.ttft_low_s)
      ? `first token ${bandPhrase(F.ttft_low_s, F.ttft_high_s, 's')}; per output token ${bandPhrase(F.tpot_low_s, F.tpot_high_s, 's')}`
      : bandPhrase(null, null, 's', rec),
    Number.isFinite(F.tokens_per_s_low) ? `${bandPhrase(F.tokens_per_s_low, F.tokens_per_s_high, '')} tokens/s; ${rec}` : rec,
    'llm-forecast-band', F.ttft_low_s);
    const floorNote = 'the speed of light: the same passes with every ceiling reached, no run beats it';
    item('Floor: time to first token', eng(FL.ttft_s, 's'), `${exact(FL.ttft_s, 's')}, ${floorNote}`, 'llm-floor-ttft', FL.ttft_s);
    if (d) {
      item('Floor: time per output token', eng(FL.tpot_s, 's'), `${exact(FL.tpot_s, 's')}, ${floorNote}`, 'llm-floor-tpot', FL.tpot_s);
      item('Floor: tokens/s', eng(FL.tokens_per_s), `${exact(FL.tokens_per_s)}, ${floorNote}`, 'llm-floor-tokens-per-s', FL.tokens_per_s);
    }
    if (L.energy_per_token_j !== null) {
      item('Energy per token', eng(L.energy_per_token_j, 'J'), F.devices > 1
        ? `(prefill + decode energy of all ${count(F.devices)} devices) ÷ the tokens they generate, at the forecast's pace`
        : '(prefill + decode energy) ÷ generated tokens, at the forecast\'s pace', 'llm-energy', L.energy_per_token_j);
    }
    const windows = (L.kv_cache_windows || []).map((w) => `${exact(w.caches)} caches keep only their window of ${exact(w.tokens)} tokens (${exact(w.bytes_per_token, 'B')} per token)`);
    item('KV cache', `${eng(L.kv_cache_bytes, 'B')}`, `${exact(L.kv_cache_bytes_per_token, 'B')} per token × ${exact(L.prompt_tokens + L.generated_tokens)} tokens × batch ${exact(L.batch)}` +
      (windows.length ? `, except that ${windows.join('; ')}` : '') + (L.quantization?.kv_type ? `; stored as llama.cpp's ${L.quantization.kv_type}` : ''),
    'llm-kv', L.kv_cache_bytes);
    item('Weights', eng(L.weight_bytes, 'B'), exact(L.weight_bytes, 'B'), 'llm-weights', L.weight_bytes);
    const fits = L.fits === null ? 'unknown' : L.fits ? 'fits' : 'does not fit';
    item('Memory', `${eng(L.memory_required_bytes, 'B')} of ${L.device_memory_bytes ? eng(L.device_memory_bytes, 'B') : '?'}: ${fits}`,
      `weights + KV cache + activations (${eng(L.activation_bytes, 'B')}); largest batch that fits: ${L.max_batch ?? 'unknown'}; ` +
      `longest context at this batch: ${L.max_context ?? 'unknown'} tokens`, 'llm-fits', L.fits);
    item('Largest batch / context', `${L.max_batch === null ? '?' : count(L.max_batch)} / ${L.max_context === null ? '?' : count(L.max_context)} tokens`,
      `memory limits at ${exact(L.prompt_tokens + L.generated_tokens)} tokens per sequence / at batch ${exact(L.batch)}` +
      (L.max_context_limit === 'positions' ? `; the context is the model's ${exact(L.max_positions)} positions (the memory would hold ` +
        `${exact(L.max_context_memory)} tokens)` : L.max_positions ? `; the model encodes ${exact(L.max_positions)} positions` :
        '; the model states no maximum positions: the memory\'s limit alone'), 'llm-max', L.max_batch);
    const P = L.parallel;
    if (P && P.devices > 1) {
      const pfits = P.fits === null ? 'unknown' : P.fits ? 'fits' : 'does not fit';
      item('Devices', `${count(P.devices)} (tp=${P.tp}, pp=${P.pp}, dp=${P.dp}): ${pfits}`,
        `the Many devices panel's plan: ${eng(P.memory_required_bytes_per_device, 'B')} per device (weights ` +
        `${eng(P.weight_bytes_per_device, 'B')}, KV cache ${eng(P.kv_cache_bytes_per_device, 'B')}); the times above are over the ` +
        `devices, collectives ${eng(P.forecast_decode_t_comms_s, 's')} a token; ${count(L.devices_needed)} would hold it split evenly`,
      'llm-devices', P.devices);
    } else if (L.devices_needed !== null && L.devices_needed !== undefined) {
      item('Devices needed', count(L.devices_needed), 'the fewest of these devices (a power of two) whose memory holds weights, KV cache ' +
        'and activations split evenly; the Many devices panel plans the split', 'llm-devices', L.devices_needed);
    }
  }

  chart(key, canvas, config) {
    if (this.charts[key]) { this.charts[key].destroy(); delete this.charts[key]; }
    const Chart = chartClass();
    if (!Chart) return;
    config.plugins = [whiteBackground, limitLine];
    this.charts[key] = new Chart(canvas, config);
  }

  /** TPOT (left) and tokens/s (right) against x, the memory limit drawn at `limit`. */
  sweepChart(key, canvas, rows, xKey, xTitle, limit, limitLabel) {
    const pts = (f) => rows.filter((r) => r[f] > 0).map((r) => ({ x: r[xKey], y: r[f] }));
    const tpot = pts('tpot_s'), tps = pts('tokens_per_s');
    const [xlo, xhi] = decades([...rows.map((r) => r[xKey]), limit > 0 ? limit : NaN], 1.2);
    const [ylo, yhi] = decades(tpot.map((p) => p.y));
    const [y1lo, y1hi] = decades(tps.map((p) => p.y));
    this.chart(key, canvas, {
      type: 'line',
      data: { datasets: [
        { label: 'time per output token (floor)', data: tpot, borderColor: '#1f77b4', backgroundColor: '#1f77b4', yAxisID: 'y', pointRadius: 3 },
        { label: 'tokens/s (floor)', data: tps, borderColor: '#2ca02c', backgroundColor: '#2ca02c', yAxisID: 'y1', pointRadius: 3, borderDash: [4, 3] },
      ] },
      options: {
        animation: false, responsive: true, maintainAspectRatio: false, parsing: false,
        scales: {
          x: logAxis(xTitle, '', xlo, xhi),
          y: logAxis('Time per output token (s)', 's', ylo, yhi),
          y1: { ...logAxis('Tokens/s', '', y1lo, y1hi), position: 'right', grid: { drawOnChartArea: false } },
        },
        plugins: {
          legend: seriesLegend(),
          tooltip: { callbacks: { label: (it) => `${it.dataset.label}: ${eng(it.parsed.y, it.dataset.yAxisID === 'y' ? 's' : '')} at ${eng(it.parsed.x)}` } },
          rlLimit: limit > 0 ? { x: limit, label: limitLabel } : null,
        },
      },
    });
  }

  /** Shows a chart's figure only while it has data. */
  showChart(canvas, shown) { canvas.closest('figure').hidden = !shown; }

  drawCharts(L) {
    const bs = L.batch_sweep, cs = L.context_sweep;
    this.showChart(this.batchCanvas, !!bs?.rows?.length);
    this.showChart(this.contextCanvas, !!cs?.rows?.length);
    if (bs) this.sweepChart('batch', this.batchCanvas, bs.rows, 'batch', 'Batch size', bs.max_batch,
      `memory limit: batch ${count(bs.max_batch)}`);
    // the model reads no more than its positions: that line, not the memory's far beyond it, ends the context
    const byPositions = L.max_context_limit === 'positions' && L.max_positions > 0;
    if (cs) this.sweepChart('context', this.contextCanvas, cs.rows, 'context', 'Context (tokens in the cache)',
      byPositions ? L.max_positions : cs.max_context,
      byPositions ? `the model's ${count(L.max_positions)} positions (memory: ${eng(cs.max_context)} tokens)`
        : `memory limit: ${eng(cs.max_context)} tokens`);
  }

  drawTable(L) {
    const t = this.table;
    t.textContent = '';
    const bs = L.batch_sweep;
    if (!bs) return;
    const head = t.createTHead().insertRow();
    for (const h of ['batch', 'TPOT (floor)', 'tokens/s (floor)', 'bound', 'memory', 'fits']) head.appendChild(el('th', h));
    const body = t.createTBody();
    for (const r of bs.rows) {
      const tr = body.insertRow();
      if (r.batch === L.batch) tr.className = 'chosen';
      const cell = (text, cls, title) => { const td = tr.appendChild(el('td', text)); if (cls) td.className = cls; if (title) td.title = title; };
      cell(count(r.batch), 'n');
      cell(eng(r.tpot_s, 's'), 'n', exact(r.tpot_s, 's'));
      cell(eng(r.tokens_per_s), 'n', exact(r.tokens_per_s));
      cell(wordName('bound', r.bound));
      cell(eng(r.memory_required_bytes, 'B'), 'n', exact(r.memory_required_bytes, 'B'));
      cell(r.fits === null ? '?' : r.fits ? 'yes' : 'no', r.fits === false ? 'bad' : '');
    }
    const cap = t.createCaption();
    cap.textContent = bs.compute_bound_batch !== null ? `Decode turns compute-bound at batch ${count(bs.compute_bound_batch)}.`
      : 'Decode stays memory-bound over these batches.';
  }
}
