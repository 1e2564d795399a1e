// The headline figures of an analysis, read from the core's response in ONE
// place: sol.chosen (the request's speed-of-light model, docs/model.md). The
// summary, the whole-model star, the Markdown review and the PNG titles all
// read them here, so every surface shows the same numbers, and a change of
// the response's layout changes only this file. No figure is computed here:
// each is a field of the response (or null when it has none).

import { eng, count, times } from './format.js';
import { wordName } from './words.js';

const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The chosen model's time, bounds, energy, power, bound and kernels. */
export function headline(res) {
  const ch = res?.sol?.chosen || {}, ro = res?.roofline || {}, o = res?.options || {};
  return {
    model: ch.model ?? null,
    granularity: ch.granularity ?? null,
    time_s: num(ch.time_s),
    lower_bound_s: num(ch.lower_bound_s),
    upper_bound_s: num(ch.upper_bound_s),
    energy_j: num(ch.energy_j),
    avg_power_w: num(ch.avg_power_w),
    power_capped: ch.power_capped === true,
    bound: ch.bound ?? null,
    kernels: num(ch.kernels),
    launch_floor_s: num(ch.launch_floor_s),
    flops: num(ch.flops),
    bytes: num(ch.bytes),
    intensity: ch.bytes > 0 ? ch.flops / ch.bytes : 0,
    power_budget_w: num(res?.hardware?.power_budget_w),
    precision: ro.precision ?? o.precision ?? null,
    requested_precision: ro.requested_precision ?? null,
    batch: o.batch ?? null,
    batch_applied: o.batch_applied ?? null,
  };
}

/** The forecast beside the floor (docs/model.md §12): null when the
 * response has none. `basis` says what it rests on. */
export function forecastFigures(res) {
  const f = res?.forecast;
  if (!f || num(f.time_s) === null) return null;
  return {
    time_s: f.time_s, floor_s: num(f.floor_s), headroom: num(f.headroom), energy_j: num(f.energy_j),
    basis: f.basis ?? null, stack: f.stack || null, clamped: f.clamped === true,
    // its band and the track record it rests on (null: the stack has none)
    low_s: num(f.low_s), high_s: num(f.high_s), track_record: f.track_record || wordName('term', 'no_track_record'),
    band: f.band && typeof f.band === 'object' ? f.band : null,
  };
}

/** The forecast's likely range as every surface writes it: "likely 378 µs
 * to 676 µs", or the core's words when the stack has no track record. */
export function forecastBandPhrase(f) {
  return bandPhrase(f?.low_s, f?.high_s, 's', f?.track_record);
}

/** Any band of the core's (low, high in `unit`): "likely a to b", or the
 * track record's words when there is none. */
export function bandPhrase(low, high, unit, trackRecord) {
  if (num(low) === null || num(high) === null) return trackRecord || wordName('term', 'no_track_record');
  return `likely ${eng(low, unit)} to ${eng(high, unit)}`;
}

/** Where the track record's runs are listed: the site's rendering of
 * docs/validation.md (validation.html#anchor), or null. */
export function trackRecordHref(f) {
  const m = /(?:^|\/)docs\/validation\.md(#[\w-]+)?$/.exec(f?.band?.source || '');
  return m ? `validation.html${m[1] || ''}` : null;
}

/** What a forecast rests on, in the core's words, as every surface writes
 * it: "analytic estimate: TensorRT with CUDA graphs" or "fitted to measured
 * runs: ONNX Runtime …". */
export function forecastBasisPhrase(f) {
  // the core names the basis of every forecast it makes; without one, no word is put in its mouth
  return `${f?.basis ? `${wordName('basis', f.basis)}: ` : ''}${f?.stack || 'a tuned engine'}`;
}

/** The three speed-of-light models, each with its own time, bounds and kernels. */
export function solRows(res) {
  return ['unfused', 'fused', 'fused_prefetched'].filter((m) => res?.sol?.[m]).map((model) => {
    const s = res.sol[model];
    return { model, time_s: s.time_s, lower_bound_s: s.lower_bound_s, upper_bound_s: s.upper_bound_s,
      granularity: s.granularity, kernels: s.kernels, launch_floor_s: s.launch_floor_s, bound: s.bound,
      energy_j: s.energy_j ?? null };
  });
}

/** What limits a time, as a phrase after "limited by": the core's name of
 * the bound, with an article for the floors ("the launch floor"). */
export function boundPhrase(bound) {
  const name = wordName('bound', bound);
  return /floor$/.test(name) ? `the ${name}` : name;
}

/** The answer in one sentence: the forecast when the response has one,
 * else the speed of light; the device, the reason, and how far the faster
 * speed-of-light models could go. Every figure is a field of the response. */
/** The headline of a decoder (the LLM view's answer, docs/llm.md): time to
 * first token, time per output token, tokens/s and whether it fits, the
 * forecast's, with the floor's beside; over the plan's devices when one is
 * asked for. All figures are the core's (res.llm). */
export function llmHeadlineSentence(L, res) {
  const hw = res?.hardware || {}, f = res?.forecast || {}, P = L.parallel, FL = L.floor || {};
  const devices = P && P.devices > 1 ? ` × ${P.devices} (tp=${P.tp}, pp=${P.pp}, dp=${P.dp})` : '';
  const stack = f.stack ? ` with ${f.stack}` : '';
  const run = `batch ${count(L.batch)}, a ${count(L.prompt_tokens)}-token prompt`;
  const mem = (need, cap, fits, per) => fits === null || fits === undefined
    ? 'whether it fits is unknown (the profile gives no memory capacity)'
    : `${fits ? 'it fits' : 'it does NOT fit'}: ${eng(need, 'B')} of ${eng(cap, 'B')}${per}` +
      (!fits && !P && L.devices_needed ? `; ${count(L.devices_needed)} of these devices hold it` : '');
  const fit = P ? mem(P.memory_required_bytes_per_device, L.device_memory_bytes, P.fits, ' per device')
    : mem(L.memory_required_bytes, L.device_memory_bytes, L.fits, '');
  if (!Number.isFinite(L.tpot_s))
    return `Time to first token about ${eng(L.ttft_s, 's')} (${run}) on ${hw.name}${devices}${stack}; ${fit}. ` +
      `Its speed of light: ${eng(FL.ttft_s, 's')}.`;
  return `Time to first token about ${eng(L.ttft_s, 's')}, then ${eng(L.tpot_s, 's')} per output token ` +
    `(${eng(L.tokens_per_s)} tokens/s; ${run}) on ${hw.name}${devices}${stack}; ${fit}. ` +
    `Its speed of light: ${eng(FL.ttft_s, 's')} and ${eng(FL.tpot_s, 's')} per token.`;
}

export function headlineSentence(res) {
  const h = headline(res), hw = res?.hardware || {}, f = res?.forecast;
  // The mode's short name: "MAXN", not its whole description.
  const mode = hw.power_mode ? ` in ${String(hw.power_mode_name || hw.power_mode).replace(/\s*\(.*$/, '')} mode` : '';
  // At a batch above one the figures are the whole batch's: said so, with one sample's share (the core's per_sample)
  const ps = res?.per_sample;
  const per = res?.options?.mode === 'training' ? 'per forward pass' : ps ? `per batch of ${ps.samples}` : 'per inference';
  const aSample = (key) => (ps && num(ps[key]) !== null ? `, ${eng(ps[key], 's')} a sample` : '');
  const sol = wordName('sol', h.model);
  // Only a faster model that reads as faster (not the same time to 3 digits).
  const faster = solRows(res).filter((r) => num(r.time_s) !== null && eng(r.time_s, 's') !== eng(h.time_s, 's') && r.time_s < h.time_s)
    .sort((a, b) => a.time_s - b.time_s)[0];
  const even = faster ? `; even ${wordName('sol', faster.model)}, it could not go below ${eng(faster.time_s, 's')}` : '';
  if (f && num(f.time_s) !== null) {
    const stack = f.stack ? ` with ${f.stack}` : '';
    // the likely range beside the figure; a stack without a track record says so after the sentence,
    // so that the answer reads first
    const ff = forecastFigures(res), banded = ff.low_s !== null && ff.high_s !== null;
    const range = banded ? ` (${forecastBandPhrase(ff)})` : '';
    const after = banded ? '' : ` The forecast has ${ff.track_record}: no likely range.`;
    return `About ${eng(f.time_s, 's')} ${per}${aSample('forecast_s')}${range} on ${hw.name}${mode}${stack}, limited by ${boundPhrase(h.bound)}; ` +
      `its ${sol} speed of light is ${eng(num(f.floor_s) ?? h.time_s, 's')}${even}.${after}${measuredSentence(res)}`;
  }
  return `At best ${eng(h.time_s, 's')} ${per}${aSample('floor_s')} on ${hw.name}${mode}: the ${sol} speed of light, ` +
    `limited by ${boundPhrase(h.bound)}${even}.${measuredSentence(res)}`;
}

/** With a measured profile attached, the headline says what was measured
 * (the core's res.measured): its total against the speed of light above. */
function measuredSentence(res) {
  const ms = res?.measured;
  if (!ms || num(ms.total_s) === null) return '';
  const over = (num(ms.measured_over_predicted) !== null ? `, ${times(ms.measured_over_predicted)} that speed of light` : '') +
    (num(ms.measured_over_forecast) !== null ? ` and ${times(ms.measured_over_forecast)} the forecast` : '');
  return ` Measured: ${eng(ms.total_s, 's')} in the attached profile${over}.`;
}
