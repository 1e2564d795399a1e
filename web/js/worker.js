// Module Web Worker: owns the WebAssembly core and the parsed model.
// Protocol (every message carries an `id`; replies echo it):
//   main -> worker
//     {id, type: 'open-file', file, chunk}    stream a File (File.slice), skipping payloads
//     {id, type: 'open-url', url, chunk}      fetch and stream a URL (CORS)
//     {id, type: 'open-bytes', bytes, name}   read an ArrayBuffer
//     {id, type: 'open-files', files}         a Hugging Face checkpoint: config.json, its .safetensors
//                                            shards and index (docs/checkpoints.md); of each shard
//                                            only its header is read (File.slice)
//     {id, type: 'cancel', target}            cancel the open with id `target`
//     {id, type: 'analyze', request, hardware, slot}  request: JSON text (a `study` in it passes straight
//                                            through); hardware: the profile's JSON text, apart from the
//                                            request (read once and held while the text is the same);
//                                            slot 'other': the second model's analysis
//     open-* with slot: 'other'              read a second model to compare with (compare.js); the
//                                            page's model stays open
//     {id, type: 'diff', request, hardware, old}  rl_models_diff of the two open models; old: 'main' or
//                                            'other' (which one is the old model); replies 'analyzed'
//     {id, type: 'close-other'}              free the second model; replies 'closed'
//     {id, type: 'check-hardware', profile}   profile: JSON text; replies {id, type: 'checked', json}
//     {id, type: 'netron', analysis}          analysis: response JSON text; replies {id, type: 'netron', json}
//     {id, type: 'markdown-text', texts}      texts: strings; replies {id, type: 'markdown-text', texts}, each
//                                            made safe for a Markdown comment by the core (rl_markdown_text)
//     {id, type: 'warm-up', url, request, hardware}  read and analyse a small model, then drop it: the
//                                            engine optimises the code that ran, so the user's first
//                                            analysis is not run by WebAssembly's baseline tier, and the
//                                            profile is held for it; replies 'warm'
//   worker -> main
//     {type: 'ready', version, precisions, words} once (precisions: the core's rl_precisions() table; words: rl_words(), the names of its concepts); {type: 'fatal', message} if the module cannot load
//     {id, type: 'progress', offset, total, skipped}
//     {id, type: 'opened', info, read, memory} info: rl_model_info JSON object;
//                                             read: {bytes_read, bytes_skipped, total, read_ms}
//     {id, type: 'analyzed', bytes, memory}   bytes: the response, its JSON as UTF-8 then, for "layers": "packed",
//                                            a NUL and the packed doubles (a Uint8Array, transferred)
//     {id, type: 'analyzed', json, memory}    json: response JSON text (diff)
//       memory: {heap, inUse, peak} of the WASM module in bytes (core.js memory())
//     {id, type: 'error', error: {code, message, where}}
//     {id, type: 'cancelled'}
import createRooflens from '../wasm/rooflens.mjs';
import { RooflensCore } from './core.js';

let core = null;      // RooflensCore
let model = 0;        // current model handle
let other = 0;        // the second model, compared with the first (compare.js); 0 = none
const cancelled = new Set();
// A stalled download must not hold a cancel hostage: cancelling aborts it.
const aborters = new Map();   // open id -> AbortController of its fetch

async function boot() {
  core = new RooflensCore(await createRooflens());
}

const ready = boot().then(
  () => postMessage({ type: 'ready', version: core.version(), precisions: JSON.parse(core.precisions()), words: JSON.parse(core.words()) }),
  (e) => postMessage({ type: 'fatal', message: 'could not load the WebAssembly module: ' + (e && e.message || e) }));

function errorOf(code, message, where = '') { return { code, message, where }; }

function dropModel(slot) {
  if (slot === 'other') {
    if (other && core) core.freeModel(other);
    other = 0;
    return;
  }
  if (model && core) core.freeModel(model);
  model = 0;
}

// A WebAssembly trap leaves the module in an unknown state: start afresh.
async function recover() {
  model = 0;
  other = 0;
  core = null;
  await boot();
}

class Cancelled extends Error {}

// Resolves in a task of its own, after the messages already queued (a
// MessageChannel, not setTimeout: no 4 ms clamp when called in a loop).
const tick = new MessageChannel();
const waiting = [];
tick.port1.onmessage = () => waiting.shift()?.();
const nextTask = () => new Promise((resolve) => { waiting.push(resolve); tick.port2.postMessage(0); });

const AFTER_SKIP_CHUNK = 16 << 10;
const RECYCLE_HEAP_BYTES = 256 << 20;

/** Streams chunks from `next(offset)` into a reader. `source.read(off, len)`
 * gives a Uint8Array (empty at end); `source.seekable` says whether skips
 * may be jumped over. `report`: post the page 'progress' messages (the
 * warm-up's reads, which nobody waits on, post none). */
async function stream(id, source, total, chunk, report = true) {
  const r = core.newReader();
  const t0 = performance.now(); // the read alone, for the huge-file figures (read_ms)
  let off = 0, skipped = 0, lastPost = 0;
  // After a skip the next bytes are often a short header before another
  // payload: read a small piece first and grow back, so that a file of big
  // weights costs a few KB per weight rather than a whole chunk.
  let want = chunk;
  try {
    for (;;) {
      if (cancelled.has(id)) throw new Cancelled();
      const bytes = await source.read(off, want);
      if (cancelled.has(id)) throw new Cancelled();
      if (!bytes.length) break;
      const skip = core.feed(r, bytes);
      off += bytes.length;
      if (skip < 0) break; // the error is reported by finish
      want = Math.min(chunk, want * 4);
      if (skip > 0 && source.seekable) {
        const n = total >= 0 ? Math.min(skip, total - off) : skip;
        if (n > 0 && core.skip(r, n) === 0) { off += n; skipped += n; want = AFTER_SKIP_CHUNK; }
      }
      const now = Date.now();
      if (now - lastPost > 50) {
        lastPost = now;
        if (report) postMessage({ id, type: 'progress', offset: off, total, skipped });
        // A file is read synchronously (fileSource): let a cancel, or a newer
        // open, through between reads.
        await nextTask();
      }
      if (total >= 0 && off >= total) break;
    }
    if (report) postMessage({ id, type: 'progress', offset: off, total, skipped });
    const res = core.finish(r);
    if (res.error) {
      const e = JSON.parse(res.error);
      return { error: e.error || errorOf('bad_model', 'the model could not be read') };
    }
    return { model: res.model, read: { bytes_read: off - skipped, bytes_skipped: skipped, total, read_ms: performance.now() - t0 } };
  } finally {
    core.freeReader(r);
  }
}

// Each File.slice read is a round trip to the browser process, measured in
// Chromium on this project's machine at about 2-3 ms for up to 16 KB, and
// far cheaper per byte in big reads: 60 MB took 520 ms in 8 MB reads and
// 230 ms in 32 MB ones. Reads are served from the last block when they fall
// inside it; a miss reads a new block whose size follows the file: after a
// long skip (a big weight) a 16 KB block holds the next header (and the
// small bias or norm weights that usually follow it); reading on, or after a
// short skip (a small weight, cheaper to read through than to jump over),
// the block grows fourfold up to 32 MB, so a file of many small weights is
// read in a few big reads.
const BLOCK_MIN = 16 << 10, BLOCK_MAX = 32 << 20, SHORT_SKIP = 256 << 10;

// A worker may read a Blob synchronously: FileReaderSync skips the promise
// and the task that Blob.arrayBuffer() waits for on every read. Reading that
// way never yields to the worker's messages: stream() does, every 50 ms.
const syncReader = typeof FileReaderSync === 'function' ? new FileReaderSync() : null;
const readBlob = (blob) => (syncReader ? syncReader.readAsArrayBuffer(blob) : blob.arrayBuffer());

function fileSource(file) {
  let block = new Uint8Array(0), start = 0, size = 256 << 10; // the header and the start of the graph
  return {
    seekable: true,
    async read(off, len) {
      const end = start + block.length;
      if (off >= start && off < end) return block.subarray(off - start, Math.min(end, off + len) - start);
      if (block.length) size = off - end < SHORT_SKIP ? Math.min(4 * size, BLOCK_MAX) : BLOCK_MIN;
      try {
        block = new Uint8Array(await readBlob(file.slice(off, off + size))); // the policy's size, not the caller's
      } catch (e) {
        // The browser refuses to read on (the file was moved, changed or
        // deleted since it was chosen): say so rather than "analysis failed".
        const why = String(e && e.message || e).replace(/\.+$/, '');
        throw loadError('read_failed', `could not read ${file.name} at byte ${off}: ${why}. Was the file changed or moved? Open it again.`);
      }
      start = off;
      return block.subarray(0, len);
    },
  };
}

function bytesSource(buf) {
  const all = new Uint8Array(buf);
  return { seekable: true, async read(off, len) { return all.subarray(off, off + len); } };
}

// Load errors the page explains by their code (app.js loadContext).
const LOAD_ERRORS = new Set(['unreachable', 'cors_refused', 'http_error', 'read_failed']);
const loadError = (code, message) => Object.assign(new Error(message), { code });

async function urlSource(id, url) {
  const host = new URL(url).host;
  let res;
  const ctrl = new AbortController();
  aborters.set(id, ctrl);
  if (cancelled.has(id)) ctrl.abort();
  try {
    res = await fetch(url, { mode: 'cors', credentials: 'omit', signal: ctrl.signal });
  } catch (e) {
    if (cancelled.has(id)) throw new Cancelled();
    // A failed CORS fetch and an unreachable host look the same; a no-cors
    // request (whose answer the page cannot read) tells them apart: it
    // succeeds when the server answered.
    const answered = await fetch(url, { mode: 'no-cors', credentials: 'omit', signal: ctrl.signal, method: 'HEAD' }).then(() => true, () => false);
    if (cancelled.has(id)) throw new Cancelled();
    if (answered) {
      throw loadError('cors_refused', `${host} answered but does not let other sites read the file (its response has no Access-Control-Allow-Origin header). Download the file and drop it here instead.`);
    }
    throw loadError('unreachable', `could not reach ${host}: the host is down, unknown or unreachable from your network, or the address is wrong.`);
  }
  if (!res.ok) throw loadError('http_error', `${host} answered HTTP ${res.status}${res.statusText ? ' ' + res.statusText : ''} for ${url}`);
  const len = Number(res.headers.get('content-length'));
  const reader = res.body.getReader();
  let pending = new Uint8Array(0);
  let done = false;
  return {
    total: Number.isFinite(len) && len > 0 && !res.headers.get('content-encoding') ? len : -1,
    seekable: false, // a fetch stream is fed whole (the reader ignores payloads itself)
    async read(_off, want) {
      // Hand on what has arrived rather than waiting for a full chunk, so a
      // slow download still shows progress.
      while (!done && pending.length === 0) {
        let chunk;
        try { chunk = await reader.read(); } catch (e) { if (cancelled.has(id)) throw new Cancelled(); throw e; }
        const { value, done: d } = chunk;
        if (d) { done = true; break; }
        if (cancelled.has(id)) { reader.cancel().catch(() => {}); return new Uint8Array(0); }
        const merged = new Uint8Array(pending.length + value.length);
        merged.set(pending); merged.set(value, pending.length);
        pending = merged;
      }
      const out = pending.subarray(0, want);
      pending = pending.subarray(out.length);
      return out;
    },
  };
}

async function open(msg) {
  const { id } = msg;
  const chunk = Math.max(4096, Math.min(msg.chunk || (4 << 20), 64 << 20));
  await ready;
  if (!core) await recover();
  // The slot's model stays until the new one is read: a cancelled or
  // failed open leaves the page's analysis working. WebAssembly memory
  // never shrinks: after a model with very many layers the module may hold
  // up to 2 GB; then the next model starts in a fresh one (unless the other
  // slot's model is open: recycling would lose it), and the old one goes.
  if (core.heapSize() > RECYCLE_HEAP_BYTES && !(msg.slot === 'other' ? model : other)) {
    dropModel(msg.slot);
    await recover();
  }
  let source, total;
  let res;
  if (msg.type === 'open-files') res = await readCheckpoint(id, msg.files);
  else {
    if (msg.type === 'open-file') { source = fileSource(msg.file); total = msg.file.size; }
    else if (msg.type === 'open-bytes') { source = bytesSource(msg.bytes); total = msg.bytes.byteLength; }
    else { source = await urlSource(id, msg.url); total = source.total; }
    res = await stream(id, source, total, chunk);
  }
  if (res.error) return postMessage({ id, type: 'error', error: res.error });
  const info = JSON.parse(core.info(res.model));
  if (!info.ok) {
    core.freeModel(res.model);
    return postMessage({ id, type: 'error', error: info.error });
  }
  dropModel(msg.slot);
  if (msg.slot === 'other') other = res.model; else model = res.model;
  postMessage({ id, type: 'opened', info, read: res.read, memory: core.memory() });
}

/** A checkpoint's files: of each, its first 8 bytes, then the bytes the
 * core asks for (a shard's header, a JSON file whole); never the weights. */
async function readCheckpoint(id, files) {
  const c = core.newCheckpoint();
  let read = 0, total = 0;
  try {
    for (const f of files) {
      if (cancelled.has(id)) throw new Cancelled();
      total += f.size;
      const first = new Uint8Array(await readBlob(f.slice(0, 8)));
      const need = core.checkpointNeed(f.name, f.size, first);
      if (!need) continue;
      const bytes = need <= first.length ? first.subarray(0, need) : new Uint8Array(await readBlob(f.slice(0, need)));
      read += bytes.length;
      if (core.checkpointAdd(c, f.name, f.size, bytes) < 0) break; // the error is reported by finish
      postMessage({ id, type: 'progress', offset: read, total: -1, skipped: 0 });
      await nextTask();
    }
    const res = core.checkpointFinish(c);
    if (res.error) {
      const e = JSON.parse(res.error);
      return { error: e.error || errorOf('bad_model', 'the checkpoint could not be read') };
    }
    return { model: res.model, read: { bytes_read: read, bytes_skipped: total - read, total } };
  } finally {
    core.freeCheckpoint(c);
  }
}

// A first drop runs the reader and the analysis in WebAssembly's baseline
// tier: the engine optimises a function only once it has run for a while.
// So, while no model is open, the worker reads and analyses the site's
// warm-up example again and again, as a drop would. In Chromium on this
// project's machine, drops 2 s after the page was ready, medians of 7
// (docs/benchmarks.md): 4 runs of the analysis alone left a Swin-T drop's
// analysis at about 125 ms; 100 runs of reading and analysing (about
// 0.5 s of the worker's time) brought it to about 85 ms, and BERT-Large's
// from about 50 to 25 ms. The runs stop as soon as a message is waiting
// (a model dropped meanwhile is not kept waiting for them), and after
// WARM_UP_BUDGET_MS on a slow machine.
const WARM_UP_RUNS = 100;
const WARM_UP_BUDGET_MS = 1000;
let waitingMessages = 0;   // handled or waiting in `queue`

async function warmUp(msg) {
  if (model || other) return postMessage({ id: msg.id, type: 'warm' });   // a model came first: nothing to gain
  try {
    const res = await fetch(msg.url);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const buf = await res.arrayBuffer();
    const t0 = performance.now();
    for (let run = 0; run < WARM_UP_RUNS && performance.now() - t0 < WARM_UP_BUDGET_MS; run++) {
      if (run > 0) { await nextTask(); if (waitingMessages > 1) break; }
      const opened = await stream(msg.id, bytesSource(buf), buf.byteLength, 4 << 20, false);
      if (!opened.model) break;
      try { core.analyzeBytes(opened.model, ...onHardware(msg)); } finally { core.freeModel(opened.model); }
    }
  } catch { /* a page without its examples simply starts cold */ }
  postMessage({ id: msg.id, type: 'warm' });
}

/** A message's request and hardware handle: the profile text it carries
 * apart is read once and held by the module (core.holdHardware) while the
 * page sends the same text. A profile the core refuses goes back into the
 * request, whose analysis then reports the error as it always has. */
function onHardware(msg) {
  if (typeof msg.hardware !== 'string') return [msg.request, 0];
  const hw = core.holdHardware(msg.hardware);
  if (hw) return [msg.request, hw];
  return [JSON.stringify({ ...JSON.parse(msg.request), hardware: JSON.parse(msg.hardware) }), 0];
}

function analyze(msg) {
  // slot 'other': the model compared with (its graph for the views of a comparison)
  const m = msg.slot === 'other' ? other : model;
  if (!m) return postMessage({ id: msg.id, type: 'error', error: errorOf('no_model', 'no model is open') });
  const bytes = core.analyzeBytes(m, ...onHardware(msg));
  postMessage({ id: msg.id, type: 'analyzed', bytes, memory: core.memory() }, [bytes.buffer]);
}

function diff(msg) {
  if (!model || !other) {
    return postMessage({ id: msg.id, type: 'error',
      error: errorOf('no_model', model ? 'the model to compare with is no longer open: open it again' : 'no model is open') });
  }
  const [a, b] = msg.old === 'other' ? [other, model] : [model, other];
  const [request, hw] = onHardware(msg);
  const json = core.diff(a, b, request, hw);
  postMessage({ id: msg.id, type: 'analyzed', json, memory: core.memory() });
}

// Messages are handled one at a time (an open awaits its chunks, and
// cancels must get through meanwhile, so opens are not serialised with them).
let queue = Promise.resolve();

self.onmessage = (ev) => {
  const msg = ev.data || {};
  if (msg.type === 'cancel') { cancelled.add(msg.target); aborters.get(msg.target)?.abort(); return; }
  waitingMessages++;
  queue = queue.then(async () => {
    try {
      await ready;
      if (!core) await recover();
      if (msg.type === 'analyze') analyze(msg);
      else if (msg.type === 'diff') diff(msg);
      else if (msg.type === 'close-other') { dropModel('other'); postMessage({ id: msg.id, type: 'closed' }); }
      else if (msg.type === 'check-hardware') postMessage({ id: msg.id, type: 'checked', json: core.checkHardware(msg.profile) });
      else if (msg.type === 'warm-up') await warmUp(msg);
      else if (msg.type === 'netron') postMessage({ id: msg.id, type: 'netron', json: core.netron(msg.analysis) });
      else if (msg.type === 'markdown-text') postMessage({ id: msg.id, type: 'markdown-text', texts: core.markdownText(msg.texts || []) });
      else if (msg.type?.startsWith('open-')) {
        if (cancelled.has(msg.id)) throw new Cancelled();
        await open(msg);
      } else postMessage({ id: msg.id, type: 'error', error: errorOf('bad_message', `unknown message ${msg.type}`) });
    } catch (e) {
      // A cancelled or failed read leaves the slot's model as it was.
      if (e instanceof Cancelled) {
        postMessage({ id: msg.id, type: 'cancelled' });
      } else if (e && LOAD_ERRORS.has(e.code)) {
        postMessage({ id: msg.id, type: 'error', error: errorOf(e.code, e.message, msg.url || msg.file?.name || msg.files?.[0]?.name || '') });
      } else {
        // A trap (out of memory, abort) or a bug: report it and rebuild the module.
        postMessage({ id: msg.id, type: 'error', error: errorOf('internal', 'the analysis failed: ' + (e && e.message || e)) });
        try { await recover(); } catch (e2) { postMessage({ type: 'fatal', message: String(e2 && e2.message || e2) }); }
      }
    } finally {
      cancelled.delete(msg.id);
      aborters.delete(msg.id);
      waitingMessages--;
    }
  });
};
