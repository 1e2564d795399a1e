// The worker client: main-thread side of the worker protocol (see worker.js): one worker,
// requests with ids, promises for replies, progress callbacks, cancel.
// A worker that dies is replaced transparently for the next request.

// The page's CSP requires Trusted Types for script URLs (see index.html): the
// only script URL the page ever makes is this worker's, and this policy
// vouches for exactly that URL and nothing else.
import { withLayerRows } from './layer-columns.js';

const utf8 = new TextDecoder();

const WORKER_URL = new URL('./worker.js', import.meta.url).href;
const workerPolicy = globalThis.trustedTypes?.createPolicy?.('rooflens-worker', {
  createScriptURL: (u) => {
    if (u !== WORKER_URL) throw new TypeError(`refusing to start a worker from ${u}`);
    return u;
  },
});

/** A request's text with its hardware profile's text apart: the worker
 * reads a profile once and holds it while its text stays the same
 * (worker.js onHardware), instead of the core reading it in every request. */
function apart(request) {
  const { hardware, ...rest } = request;
  if (!hardware || typeof hardware !== 'object' || Array.isArray(hardware)) return { request: JSON.stringify(request) };
  return { request: JSON.stringify(rest), hardware: JSON.stringify(hardware) };
}

export class CoreClient {
  constructor(workerUrl = new URL('./worker.js', import.meta.url)) {
    this.workerUrl = workerUrl;
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject, onProgress}
    this.spawn();
  }

  spawn() {
    this.ready = new Promise((resolve, reject) => { this.readyResolve = resolve; this.readyReject = reject; });
    const url = String(this.workerUrl);
    this.worker = new Worker(workerPolicy ? workerPolicy.createScriptURL(url) : url, { type: 'module', name: 'rooflens-core' });
    this.worker.onmessage = (ev) => this.onMessage(ev.data);
    this.worker.onerror = (ev) => {
      ev.preventDefault?.();
      this.failAll({ code: 'worker_failed', message: 'the analysis worker failed: ' + (ev.message || 'unknown error'), where: '' });
      this.readyReject(new Error(ev.message || 'worker failed'));
      this.worker.terminate();
      this.spawn();
    };
  }

  failAll(error) {
    for (const [, p] of this.pending) p.reject(Object.assign(new Error(error.message), { core: error }));
    this.pending.clear();
  }

  onMessage(msg) {
    if (msg.type === 'ready') {
      this.version = msg.version;
      this.precisions = msg.precisions;   // rl_precisions(): the core's one precision table
      this.words = msg.words;             // rl_words(): the core's one list of names for its concepts
      this.readyResolve(msg.version);
      return;
    }
    if (msg.type === 'fatal') {
      const error = { code: 'wasm_failed', message: msg.message, where: '' };
      this.readyReject(new Error(msg.message));
      this.failAll(error);
      return;
    }
    if (msg.memory) this.memory = msg.memory;   // WASM heap figures of the last reply
    const p = this.pending.get(msg.id);
    if (!p) return; // a reply nobody waits for any more
    if (msg.type === 'progress') { p.onProgress?.(msg); return; }
    this.pending.delete(msg.id);
    if (msg.type === 'error') p.reject(Object.assign(new Error(msg.error.message), { core: msg.error }));
    else if (msg.type === 'cancelled') p.reject(Object.assign(new Error('cancelled'), { cancelled: true }));
    else p.resolve(msg);
  }

  send(msg, onProgress, transfer = []) {
    const id = this.nextId++;
    const promise = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject, onProgress }));
    this.worker.postMessage({ ...msg, id }, transfer);
    return { id, promise };
  }

  /** Opens a model from a File, a URL string, an ArrayBuffer or an array
   * of Files (a Hugging Face checkpoint: config.json and its shards).
   * Returns {id, promise} resolving to {info}; cancel with cancel(id).
   * slot 'other' opens the model to compare with, beside the page's own. */
  open(source, onProgress, chunk = 4 << 20, slot = 'main') {
    if (typeof source === 'string') return this.send({ type: 'open-url', url: source, chunk, slot }, onProgress);
    if (source instanceof ArrayBuffer) return this.send({ type: 'open-bytes', bytes: source, chunk, slot }, onProgress, [source]);
    if (Array.isArray(source)) return this.send({ type: 'open-files', files: source, chunk, slot }, onProgress);
    return this.send({ type: 'open-file', file: source, chunk, slot }, onProgress);
  }

  cancel(id) { this.worker.postMessage({ type: 'cancel', target: id }); }

  /** The Netron attachment of an analysis response (object); resolves to its JSON text. */
  async netron(response) {
    const { promise } = this.send({ type: 'netron', analysis: JSON.stringify(response) });
    return (await promise).json;
  }

  /** The strings made safe for a Markdown comment by the core
   * (rl_markdown_text, the diff's escaping); resolves to them in order. */
  async markdownText(texts) {
    const { promise } = this.send({ type: 'markdown-text', texts });
    return (await promise).texts;
  }

  /** rl_models_diff of the page's model and the other one; old: which of
   * them ('main' or 'other') is the old model. Resolves to the response. */
  async diff(request, old = 'main') {
    const { promise } = this.send({ type: 'diff', ...apart(request), old });
    return JSON.parse((await promise).json);
  }

  /** Lets the worker read and analyse the model at `url` (request: an
   * object) and drop it, while the page waits for the user's model. */
  warmUp(url, request) { return this.send({ type: 'warm-up', url, ...apart(request) }).promise; }

  closeOther() { return this.send({ type: 'close-other' }).promise; }

  /** Analyses the open model (slot 'other': the one compared with);
   * resolves to the parsed response object, with its layers as rows
   * whichever layout the request asked for. */
  async analyze(request, slot = 'main') {
    const { promise } = this.send({ type: 'analyze', ...apart(request), slot });
    const msg = await promise;
    if (!msg.bytes) return withLayerRows(JSON.parse(msg.json));
    // the text ends at its NUL; packed doubles, if any, follow it
    const end = msg.bytes.indexOf(0);
    const text = end < 0 ? msg.bytes : msg.bytes.subarray(0, end);
    return withLayerRows(JSON.parse(utf8.decode(text)), msg.bytes.buffer, text.length);
  }
}
