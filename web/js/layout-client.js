// The main-thread side of the layout worker (layout-worker.js): one worker,
// started on first use, and the layouts it made kept per graph (the key
// names the model and the open groups), so going back to a view of the
// same model costs nothing. The page's CSP requires Trusted Types for
// script URLs: this policy vouches for the layout worker's URL only.
const LAYOUT_URL = new URL('./layout-worker.js', import.meta.url).href;
const layoutPolicy = globalThis.trustedTypes?.createPolicy?.('rooflens-layout', {
  createScriptURL: (u) => {
    if (u !== LAYOUT_URL) throw new TypeError(`refusing to start a worker from ${u}`);
    return u;
  },
});
const CACHE_SIZE = 64;

export class LayoutClient {
  constructor() {
    this.worker = null;
    this.nextId = 1;
    this.pending = new Map();
    this.cache = new Map();   // key -> layout, oldest first
  }

  start() {
    this.worker = new Worker(layoutPolicy ? layoutPolicy.createScriptURL(LAYOUT_URL) : LAYOUT_URL, { type: 'module', name: 'rooflens-layout' });
    this.worker.onmessage = (ev) => {
      const p = this.pending.get(ev.data.id);
      if (!p) return;
      this.pending.delete(ev.data.id);
      if (ev.data.ok) p.resolve(ev.data); else p.reject(new Error(ev.data.message));
    };
    this.worker.onerror = (ev) => {
      ev.preventDefault?.();
      for (const p of this.pending.values()) p.reject(new Error(`the layout worker failed: ${ev.message || 'unknown error'}`));
      this.pending.clear();
      this.worker.terminate();
      this.worker = null;
    };
  }

  /** The layout of boxes [{w, h}] and edges [[from, to]], from the cache when
   * `key` was laid out before or is being laid out (a prefetch on hover). */
  layout(key, boxes, edges) {
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    if (!this.worker) this.start();
    const id = this.nextId++;
    const result = new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, boxes, edges });
    });
    this.cache.set(key, result);
    result.catch(() => { if (this.cache.get(key) === result) this.cache.delete(key); });   // a failure is not kept
    if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value);
    return result;
  }
}
