// The view state: one plain object, serialisable to and from the page URL
// (hash). Parsing validates every field; a link is untrusted input, so what
// is invalid is ignored (the valid parts are kept) and named in a notice.
import { llmDefaultState, llmToParams, llmFromParams, LLM_PARAM_KEYS } from './llm-state.js';
import { parallelDefaultState, parallelToParams, parallelFromParams, parallelRequestMember, PARALLEL_PARAM_KEYS, parseDevices,
  groupsDefaultState, groupsToParams, groupsFromParams, GROUP_PARAM } from './parallel-state.js';
import { COLUMN_KEYS } from './columns.js';
import { modelUrlProblem } from './url-policy.js';

// Which model URLs a link may name: url-policy.js (the URL box uses the same rule).
export { modelUrlProblem };

export const MODES = ['inference', 'training'];
export const SOLS = ['unfused', 'fused', 'fused_prefetched'];
export const GRANULARITIES = ['intended', 'per_op', 'whole_graph'];
export const SORT_KEYS = COLUMN_KEYS;
export const DEFAULT_HW = 'h100-sxm';

export function defaultState() {
  return {
    hw: DEFAULT_HW,        // profile id, or 'custom'
    powerMode: null,       // power mode id of the profile, null = its default
    custom: null,          // edited profile object when hw === 'custom'
    precision: 'model',
    batch: null,           // null = the model's own
    dims: {},              // {dim_param: value}
    mode: 'inference',
    sol: 'fused',
    granularity: 'intended',
    modelUrl: null,        // model opened from a URL (restorable)
    example: null,         // example id (restorable)
    localFile: null,       // name of a dropped file (not restorable)
    measuredFile: null,    // name of a measured profile attached locally (measured.js; never in the link itself)
    selected: null,        // selected layer index
    sort: { key: 't', dir: 'desc' },
    cols: null,            // table columns shown, null = the default set (table.js)
    legend: [],            // legend entries switched from their default visibility (charts.js)
    filterOp: '',
    filterName: '',
    group: false,
    // What-if views (whatif.js)
    view: null,            // open view: one of VIEWS, null = none
    compare: [],           // compared profiles: 'id', 'id:mode' or 'custom', each optionally '@tp=T' (several of it)
    sweep: [1, 1024],      // batch sweep range (powers of two between, ends included)
    maxSlowdown: 0.05,     // power-mode advisor: allowed slowdown over the fastest mode
    llm: llmDefaultState(), // LLM panel (llm.js): prompt, generated tokens, weight and KV bits
    parallel: parallelDefaultState(), // Several devices (parallel.js): the plan, tp, pp, dp, micro-batches
    groups: groupsDefaultState(),     // and the groups shown beside one device (2, 4, 8)
    ...defaultCompareState(),
  };
}

export const VIEWS = ['compare', 'devices', 'sweep', 'power'];
export const MAX_COMPARE = 24;
export const MAX_SWEEP_BATCH = 65536;

const MAX_LEGEND = 64;
const LEGEND_RE = /^[a-z]+:[^,]{1,96}$/;
const ID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const DIM_RE = /^[^=;]{1,128}$/;
const MAX_DIM = 1e12;

function b64urlEncode(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
function b64urlDecode(str) {
  if (!/^[A-Za-z0-9_-]*$/.test(str)) throw new Error('bad base64');
  const s = atob(str.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((str.length + 3) % 4));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

async function pipe(bytes, stream) {
  const out = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

// A link is pasted from anywhere: bound what it can make the page do. A real
// profile is a few KB of JSON (~1.5 KB deflated); a deflate bomb in the link
// must not inflate without limit.
export const MAX_HASH_CHARS = 64 << 10;
export const MAX_PROFILE_TOKEN = 16 << 10;
export const MAX_PROFILE_JSON = 256 << 10;
const MAX_PROBLEMS = 12;

/** Inflates deflate-raw bytes, failing once more than `limit` bytes come out. */
async function inflateCapped(bytes, limit) {
  const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader();
  const parts = [];
  let n = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    n += value.length;
    if (n > limit) { reader.cancel().catch(() => {}); throw new Error(`it inflates to more than ${limit >> 10} KB`); }
    parts.push(value);
  }
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

/** A custom profile as a compact URL token (deflate-raw + base64url). */
export async function encodeProfile(obj) {
  const raw = new TextEncoder().encode(JSON.stringify(obj));
  if (typeof CompressionStream === 'function') return 'z' + b64urlEncode(await pipe(raw, new CompressionStream('deflate-raw')));
  return 'j' + b64urlEncode(raw);
}

export async function decodeProfile(token) {
  if (token.length > MAX_PROFILE_TOKEN) throw new Error(`it is longer than ${MAX_PROFILE_TOKEN >> 10} KB`);
  let body;
  try { body = b64urlDecode(token.slice(1)); } catch { throw new Error('it is not valid base64url'); }
  let raw;
  if (token[0] === 'z') {
    try { raw = await inflateCapped(body, MAX_PROFILE_JSON); } catch (e) {
      throw new Error(/inflates/.test(e.message) ? e.message : 'its compressed data is corrupt');
    }
  } else if (token[0] === 'j') raw = body;
  else throw new Error('unknown encoding (not z… or j…)');
  if (raw.length > MAX_PROFILE_JSON) throw new Error(`it is larger than ${MAX_PROFILE_JSON >> 10} KB`);
  let obj;
  try { obj = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw)); } catch { throw new Error('it is not valid JSON'); }
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw new Error('it is not a JSON object');
  return obj;
}

function wholeNumber(s, min, max) {
  if (!/^\d{1,13}$/.test(s)) return null;
  const n = Number(s);
  return n >= min && n <= max ? n : null;
}

/** State -> URL hash (without '#'). */
export async function toHash(st) {
  const d = defaultState();
  const p = new URLSearchParams();
  if (st.modelUrl) p.set('model', st.modelUrl);
  else if (st.example) p.set('example', st.example);
  else if (st.localFile) p.set('file', st.localFile);
  p.set('hw', st.hw);
  if (st.hw === 'custom' && st.custom) p.set('profile', await encodeProfile(st.custom));
  if (st.powerMode) p.set('pm', st.powerMode);
  if (st.precision !== d.precision) p.set('prec', st.precision);
  if (st.batch) p.set('batch', String(st.batch));
  const dims = Object.entries(st.dims).map(([k, v]) => `${k}=${v}`).join(';');
  if (dims) p.set('dims', dims);
  if (st.mode !== d.mode) p.set('mode', st.mode);
  if (st.sol !== d.sol) p.set('sol', st.sol);
  if (st.granularity !== d.granularity) p.set('gran', st.granularity);
  if (st.selected !== null) p.set('sel', String(st.selected));
  if (st.sort.key !== d.sort.key || st.sort.dir !== d.sort.dir) p.set('sort', `${st.sort.key}:${st.sort.dir}`);
  if (st.filterOp) p.set('op', st.filterOp);
  if (st.filterName) p.set('q', st.filterName);
  if (st.group) p.set('group', '1');
  if (st.measuredFile) p.set('measured', st.measuredFile); // the name only: the profile stays in the browser
  if (st.cols) p.set('cols', st.cols.join(','));
  if (st.legend.length) p.set('legend', st.legend.join(','));
  whatIfToParams(st, p);
  llmToParams(st.llm, p);
  parallelToParams(st.parallel, p);
  groupsToParams(st.groups, p);
  compareToParams(st, p);
  return p.toString();
}

const KNOWN = new Set(['model', 'example', 'file', 'hw', 'profile', 'pm', 'prec', 'batch', 'dims', 'mode', 'sol',
  'gran', 'sel', 'sort', 'op', 'q', 'group', 'cols', 'legend', 'view', 'cmp', 'sweep', 'slow', 'measured',
  ...LLM_PARAM_KEYS, ...PARALLEL_PARAM_KEYS, GROUP_PARAM, ...compareParams()]);

/** URL hash (and ?model= query) -> {state, problems[]}: the state has the
 * valid parts of the link, problems[] says what was ignored and why (at most
 * MAX_PROBLEMS entries). opts.checkProfile(obj) -> null | {message}: the core's
 * verdict on a custom profile (a profile the core refuses is dropped);
 * opts.pageLocal: the page runs on this machine (url-policy.js);
 * opts.precisions: the precision names of the core (rl_precisions); without
 * them a link's precision other than 'model' is ignored. */
export async function fromLocation(hash, search, knownHw, opts = {}) {
  const st = defaultState();
  const problems = [];
  const bad = (name, why) => {
    if (problems.length < MAX_PROBLEMS) problems.push(`${String(name).slice(0, 32)}: ${why}`);
    else if (problems.length === MAX_PROBLEMS) problems.push('…and more');
  };
  if (hash.length > MAX_HASH_CHARS || search.length > MAX_HASH_CHARS) {
    bad('link', `longer than ${MAX_HASH_CHARS >> 10} K characters, so none of it was used`);
    return { state: st, problems };
  }
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const q = new URLSearchParams(search.replace(/^\?/, ''));

  for (const k of new Set(p.keys())) if (!KNOWN.has(k)) bad(k, 'unknown parameter');
  // a key given twice (tp=2&tp=4) is used in neither value, as the core and
  // the CLI refuse it: readers disagree on which one counts
  for (const k of new Set(p.keys())) {
    if (KNOWN.has(k) && p.getAll(k).length > 1) {
      bad(k, 'given more than once, so it was not used');
      p.delete(k);
    }
  }
  const model = p.get('model') ?? q.get('model');
  if (model !== null) {
    const why = modelUrlProblem(model, { pageLocal: !!opts.pageLocal });
    if (why) bad('model', why); else st.modelUrl = model;
  }
  if (p.has('example')) {
    const e = p.get('example');
    if (ID_RE.test(e)) st.example = e; else bad('example', 'not a valid example id');
  }
  if (p.has('file')) {
    const f = p.get('file');
    if (f.length > 0 && f.length <= 512) st.localFile = f; else bad('file', 'bad file name');
  }
  if (p.has('hw')) {
    const hw = p.get('hw');
    if (hw === 'custom') {
      if (!p.has('profile')) bad('hw', 'custom hardware without a profile');
      else {
        let obj = null;
        try { obj = await decodeProfile(p.get('profile')); } catch (e) { bad('profile', `the custom hardware profile could not be decoded: ${e.message}`); }
        const refused = obj && opts.checkProfile ? await opts.checkProfile(obj).catch((e) => ({ message: e.message })) : null;
        if (refused) bad('profile', `the custom hardware profile is invalid: ${String(refused.message).slice(0, 200)}`);
        else if (obj) { st.custom = obj; st.hw = 'custom'; }
      }
    } else if (ID_RE.test(hw) && (!knownHw || knownHw.has(hw))) st.hw = hw;
    else bad('hw', `unknown hardware profile '${hw.slice(0, 64)}'`);
  }
  if (p.has('pm')) {
    const pm = p.get('pm');
    if (ID_RE.test(pm)) st.powerMode = pm; else bad('pm', 'not a valid power mode id');
  }
  const enumParam = (name, list, field) => {
    if (!p.has(name)) return;
    const v = p.get(name);
    if (list.includes(v)) st[field] = v; else bad(name, `must be one of ${list.join(', ')}`);
  };
  enumParam('prec', ['model', ...(opts.precisions || [])], 'precision');
  enumParam('mode', MODES, 'mode');
  enumParam('sol', SOLS, 'sol');
  enumParam('gran', GRANULARITIES, 'granularity');
  if (p.has('batch')) {
    const b = wholeNumber(p.get('batch'), 1, 1e9);
    if (b === null) bad('batch', 'must be a whole number from 1 to 10^9'); else st.batch = b;
  }
  if (p.has('dims')) {
    for (const part of p.get('dims').split(';')) {
      const eq = part.lastIndexOf('=');
      const name = part.slice(0, eq), v = wholeNumber(part.slice(eq + 1), 0, MAX_DIM);
      if (eq <= 0 || !DIM_RE.test(name) || name === '__proto__' || v === null) { bad('dims', `bad entry '${part.slice(0, 64)}'`); continue; }
      st.dims[name] = v;
    }
  }
  if (p.has('sel')) {
    const s = wholeNumber(p.get('sel'), 0, 1e9);
    if (s === null) bad('sel', 'must be a layer index'); else st.selected = s;
  }
  if (p.has('sort')) {
    const [key, dir] = p.get('sort').split(':');
    if (SORT_KEYS.includes(key) && (dir === 'asc' || dir === 'desc')) st.sort = { key, dir };
    else bad('sort', 'bad sort column or direction');
  }
  if (p.has('op')) {
    const op = p.get('op');
    if (op.length <= 128) st.filterOp = op; else bad('op', 'too long');
  }
  if (p.has('q')) {
    const s = p.get('q');
    if (s.length <= 256) st.filterName = s; else bad('q', 'too long');
  }
  if (p.has('group')) {
    const g = p.get('group');
    if (g === '1' || g === '0') st.group = g === '1'; else bad('group', 'must be 0 or 1');
  }
  if (p.has('measured')) {
    const f = p.get('measured');
    if (f.length > 0 && f.length <= 512) st.measuredFile = f; else bad('measured', 'bad file name');
  }
  if (p.has('cols')) {
    const cols = p.get('cols').split(',').filter((c) => c !== '');
    if (cols.length && cols.length <= SORT_KEYS.length && cols.every((c) => SORT_KEYS.includes(c))) st.cols = [...new Set(cols)];
    else bad('cols', 'unknown table column');
  }
  if (p.has('legend')) {
    const keys = p.get('legend').split(',').filter((k) => k !== '');
    if (keys.length <= MAX_LEGEND && keys.every((k) => LEGEND_RE.test(k))) st.legend = [...new Set(keys)];
    else bad('legend', 'bad legend entry');
  }
  whatIfFromParams(p, st, bad, knownHw);
  llmFromParams(p, st.llm, bad);
  parallelFromParams(p, st.parallel, bad);
  groupsFromParams(p, st, bad);
  compareFromParams(p, st, bad, opts);
  return { state: st, problems };
}

/** The JSON request for rl_model_analyze built from the state. */
export function buildRequest(st, profile, { batchDefault = null } = {}) {
  const req = {
    hardware: profile,
    precision: st.precision,
    mode: st.mode,
    sol: st.sol,
    granularity: st.granularity,
    dims: { ...st.dims },
    // the same figures as arrays per field, with numbers, codes and list
    // ends as doubles after the text: several times smaller and faster than
    // rows on a big graph (layer-columns.js turns them back into rows)
    layers: 'packed',
  };
  if (st.powerMode) req.power_mode = st.powerMode;
  // The one batch control: the user's batch, else 1 for a model whose
  // batch is symbolic (shown as such beside the control), never a silent default.
  const batch = st.batch || batchDefault;
  if (batch) req.batch = batch;
  const parallel = parallelRequestMember(st.parallel);
  if (parallel) req.parallel = parallel;
  return req;
}

// ------------------------------------------------------- what-if view state
function whatIfToParams(st, p) {
  const d = defaultState();
  if (st.view) p.set('view', st.view);
  if (st.compare.length) p.set('cmp', st.compare.join(','));
  if (st.sweep[0] !== d.sweep[0] || st.sweep[1] !== d.sweep[1]) p.set('sweep', `${st.sweep[0]}-${st.sweep[1]}`);
  if (st.maxSlowdown !== d.maxSlowdown) p.set('slow', String(st.maxSlowdown));
}

/** A compared entry, 'ID[:MODE][@tp=T[+pp=P][+dp=D]]' (ID a profile id or
 * 'custom', the edited profile): {id, mode, devices} (mode and devices null
 * when not given), or null when it is not of that form. */
export function parseCompareEntry(e) {
  const at = e.indexOf('@');
  const devices = at < 0 ? null : parseDevices(e.slice(at + 1));
  if (at >= 0 && !devices) return null;
  const [id, mode, extra] = (at < 0 ? e : e.slice(0, at)).split(':');
  if (extra !== undefined || !ID_RE.test(id) || (mode !== undefined && (id === 'custom' || !ID_RE.test(mode)))) return null;
  return { id, mode: mode ?? null, devices };
}

/** Whether a compared entry is well formed and names a known profile (or 'custom'). */
export function validCompareEntry(e, knownHw) {
  const c = parseCompareEntry(e);
  return !!c && (c.id === 'custom' || !knownHw || knownHw.has(c.id));
}

function whatIfFromParams(p, st, bad, knownHw) {
  if (p.has('view')) {
    const v = p.get('view');
    if (VIEWS.includes(v)) st.view = v; else bad('view', `must be one of ${VIEWS.join(', ')}`);
  }
  if (p.has('cmp')) {
    const list = p.get('cmp').split(',').filter((e) => e !== '');
    const wrong = list.find((e) => !validCompareEntry(e, knownHw));
    if (wrong !== undefined) bad('cmp', `unknown hardware profile '${wrong.slice(0, 64)}'`);
    else if (list.length > MAX_COMPARE) bad('cmp', `at most ${MAX_COMPARE} profiles`);
    else st.compare = [...new Set(list)];
  }
  if (p.has('sweep')) {
    const m = /^(\d{1,6})-(\d{1,6})$/.exec(p.get('sweep'));
    const lo = m ? Number(m[1]) : 0, hi = m ? Number(m[2]) : 0;
    if (m && lo >= 1 && lo <= hi && hi <= MAX_SWEEP_BATCH) st.sweep = [lo, hi];
    else bad('sweep', `must be FROM-TO with 1 ≤ FROM ≤ TO ≤ ${MAX_SWEEP_BATCH}`);
  }
  if (p.has('slow')) {
    const s = p.get('slow');
    const x = /^\d{1,3}(\.\d{1,6})?$/.test(s) ? Number(s) : NaN;
    if (x >= 0 && x <= 10) st.maxSlowdown = x; else bad('slow', 'must be a fraction from 0 to 10 (0.05 = 5 %)');
  }
}

/** The batch sizes of a sweep range: the ends and the powers of two between. */
export function sweepBatches([lo, hi]) {
  const out = [lo];
  for (let b = 1; b < hi; b *= 2) if (b > lo) out.push(b);
  if (hi !== lo) out.push(hi);
  return out;
}

// ------------------------------------------ compare with another model state
// (compare.js). The second model is restorable from a link when it came from
// a URL or an example, like the first.
export const MAX_FAIL_IF = 512;
function compareParams() { return ['vs', 'vsex', 'vsfile', 'vsold', 'gate', 'dview', 'dfig']; }
/** The graph and module views of a comparison (graph-view.js): which
 * model's graph, or the new one coloured by the change; and the figure
 * whose change colours it (the core's diff.graph.figures). */
export const DIFF_VIEWS = ['old', 'new', 'change'];
export const DIFF_FIGURES = ['forecast_s', 't', 'energy_j', 'bytes'];

function defaultCompareState() {
  return {
    compareUrl: null,      // the other model's URL (restorable)
    compareExample: null,  // or its example id (restorable)
    compareFile: null,     // or the name of a dropped file (not restorable)
    compareIsOld: false,   // the other model is the old one (default: the page's model is old)
    failIf: '',            // --fail-if thresholds judged by the core on the diff
    diffView: null,        // the graph and module views show the comparison: 'old', 'new' or 'change'; null: the page's model
    diffFigure: 'forecast_s', // the figure whose change colours them
  };
}

function compareToParams(st, p) {
  if (st.compareUrl) p.set('vs', st.compareUrl);
  else if (st.compareExample) p.set('vsex', st.compareExample);
  else if (st.compareFile) p.set('vsfile', st.compareFile);
  if (st.compareIsOld) p.set('vsold', '1');
  if (st.failIf) p.set('gate', st.failIf);
  if (st.diffView) p.set('dview', st.diffView);
  if (st.diffFigure !== 'forecast_s') p.set('dfig', st.diffFigure);
}

function compareFromParams(p, st, bad, opts = {}) {
  if (p.has('vs')) {
    const why = modelUrlProblem(p.get('vs'), { pageLocal: !!opts?.pageLocal });
    if (why) bad('vs', why); else st.compareUrl = p.get('vs');
  }
  if (p.has('vsex')) {
    const e = p.get('vsex');
    if (ID_RE.test(e)) st.compareExample = e; else bad('vsex', 'not a valid example id');
  }
  if (p.has('vsfile')) {
    const f = p.get('vsfile');
    if (f.length > 0 && f.length <= 512) st.compareFile = f; else bad('vsfile', 'bad file name');
  }
  if (p.has('vsold')) {
    const v = p.get('vsold');
    if (v === '1' || v === '0') st.compareIsOld = v === '1'; else bad('vsold', 'must be 0 or 1');
  }
  if (p.has('gate')) {
    const g = p.get('gate');
    // the core judges the grammar; the link only bounds the length
    if (g.length <= MAX_FAIL_IF) st.failIf = g; else bad('gate', `longer than ${MAX_FAIL_IF} characters`);
  }
  if (p.has('dview')) {
    const v = p.get('dview');
    if (DIFF_VIEWS.includes(v)) st.diffView = v; else bad('dview', `must be one of ${DIFF_VIEWS.join(', ')}`);
  }
  if (p.has('dfig')) {
    const v = p.get('dfig');
    if (DIFF_FIGURES.includes(v)) st.diffFigure = v; else bad('dfig', `must be one of ${DIFF_FIGURES.join(', ')}`);
  }
}
