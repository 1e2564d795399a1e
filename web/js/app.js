// The page's shared controller state and the few helpers every part of the
// controller uses: messages, the URL, the model's open sizes and the request.
// The controller's parts (controls.js, analysis.js, opening.js, restore.js,
// export-buttons.js, summary.js) import this module; main.js builds the views into `app`.
import { HardwareCatalog } from './hardware.js';
import { defaultState, toHash, buildRequest } from './state.js';
import { llmDefaultState } from './llm-state.js';
import { pageIsLocal } from './url-policy.js';
import { $ } from './dom.js';

export const app = {
  state: defaultState(),
  client: null,
  catalog: new HardwareCatalog(),
  examples: [],
  warmUpExample: null, // samples/index.json's warm_up: the example the worker analyses while idle
  info: null,          // rl_model_info of the open model
  read: null,          // how much of the file was read (bytes read, skipped)
  res: null,           // last successful analysis
  fileName: null,      // the model's file name: the title everywhere
  openId: null,        // id of the open in flight
  seq: 0,              // analysis sequence (stale replies are dropped)
  writtenHash: null,
  restoring: false,
  linkState: false,    // the state came from a link: the first model keeps its dims
  pendingUrl: null,    // a link's model URL waiting for the user's yes
  pageLocal: pageIsLocal(),
  // The views (table, charts, whatif, llm, measured, compare, editor) are set by main.js.
  // analyze() lives in analysis.js, which imports the controls; the controls
  // reach it through this slot (set by main.js) so the imports stay one-way.
  analyze: async () => {},
};

// ------------------------------------------------------------------ messages
// What a failed load means to the user, by the error's code.
const NOT_ONNX = new Set(['bad_protobuf', 'no_graph', 'no_opset', 'empty_graph']);
export function loadContext(code, label) {
  if (NOT_ONNX.has(code)) return `${label} could not be opened as an ONNX model`; // the core says why
  if (/^limit_/.test(code) || code === 'out_of_memory') return `${label} is too large for the page (the command-line tool takes higher limits)`;
  if (code === 'unreachable') return `${label} could not be reached`;
  if (code === 'cors_refused') return `${label} was refused by its server (CORS)`;
  if (code === 'http_error') return `${label} could not be downloaded`;
  if (code === 'read_failed') return `${label} could not be read`;
  return `${label} could not be analysed`;
}

export function showError(err, context = '') {
  const box = $('error');
  box.textContent = '';
  if (!err) { box.hidden = true; return; }
  const e = err.core || err;
  const parts = [];
  if (context) parts.push(context + ': ');
  parts.push(e.message || String(e));
  if (e.where) parts.push(` at ${e.where}`);
  box.textContent = parts.join('');
  box.dataset.code = e.code || '';   // the code stays out of the text: tools and tests read it here
  box.hidden = false;
}

export function notice(text) {
  const n = $('notice');
  n.textContent = text || '';
  n.hidden = !text;
}

// ------------------------------------------------------------------ the URL
export async function writeUrl() {
  const hash = await toHash(app.state);
  app.writtenHash = '#' + hash;
  const url = new URL(location.href);
  url.hash = hash;
  if (url.searchParams.has('model')) url.searchParams.delete('model'); // the hash carries it now
  // replaceState costs 10-30 ms of a drop in Chromium: an analysis writes
  // its URL while the worker works, and again after drawing only if the
  // drawing changed the state (docs/benchmarks.md).
  if (url.href !== location.href) history.replaceState(null, '', url);
  $('share-link').textContent = '';
  return url.toString();
}

/** The stem of every download: "rooflens-<model>-<device>". */
export function baseName() {
  const n = String(app.fileName || 'model').replace(/\.(onnx|gguf)$/i, '').replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60);
  return `rooflens-${n}-${app.res?.hardware?.id || 'hw'}`;
}

// -------------------------------------------------------- the model's sizes
/** The model's symbolic dims, split: those at axis 0 follow the one batch
 * control; the others must be set by the user before an analysis. */
export function modelDims() {
  const all = app.info?.symbolic_dims || [];
  return { batch: all.filter((d) => d.axis === 0), other: all.filter((d) => d.axis !== 0) };
}

/** The LLM roles of the open model's sizes (rl_model_info's "llm"), or null. */
const roles = () => app.info?.llm || null;

/** For a decoder with a KV cache, the sizes the LLM panel gives the main
 * analysis: the prefill of its prompt (sequence = prompt, past 0, total =
 * prompt; the batch control gives the batch). A size the user set wins. */
export function prefillDims() {
  const r = roles();
  if (!r?.kv_cache) return {};
  const prompt = (app.state.llm || llmDefaultState()).prompt;
  const out = {};
  for (const [name, v] of [[r.seq, prompt], [r.past, 0], [r.total, prompt]])
    if (name && app.state.dims[name] === undefined) out[name] = v;
  return out;
}

/** The total length of a decoder with sequence, past and total sizes is
 * past + sequence, filled in here so that the core never sees sizes that
 * do not add up. Its name, or null when the model has no such three. */
export function derivedTotal() {
  const r = roles();
  return r?.total && r.past && r.seq && r.total !== r.past && r.total !== r.seq ? r.total : null;
}

/** The sizes the analysis runs with: the user's, the LLM prefill's for the
 * others, and the total as past + sequence. */
export function effectiveDims() {
  const dims = { ...prefillDims(), ...app.state.dims };
  const total = derivedTotal(), r = roles();
  if (total) {
    delete dims[total];
    if (dims[r.past] !== undefined && dims[r.seq] !== undefined) dims[total] = dims[r.past] + dims[r.seq];
  }
  return dims;
}

export const unsetDims = () => {
  const dims = effectiveDims();
  return modelDims().other.filter((d) => dims[d.name] === undefined);
};

// --------------------------------------------------------------- the request
export async function currentProfile() {
  const st = app.state;
  if (st.hw === 'custom') return st.custom;
  return app.catalog.profile(st.hw);
}

/** The analysis request of the page's state (the batch control's default
 * is 1 when the model has a symbolic batch). */
export async function request() {
  // graph: the edges and modules the graph and module views draw (docs/api.md, "Graph")
  return { ...buildRequest({ ...app.state, dims: effectiveDims() }, await currentProfile(), { batchDefault: modelDims().batch.length ? 1 : null }), graph: true };
}

/** The request the side views (LLM, measured, compare) start from. */
export async function plainRequest() {
  return buildRequest({ ...app.state, dims: effectiveDims() }, await currentProfile());
}

export function exampleUrl(id) {
  const ex = app.examples.find((e) => e.id === id);
  return new URL(`samples/${ex ? ex.file : encodeURIComponent(id) + '.onnx'}`, document.baseURI).toString();
}
