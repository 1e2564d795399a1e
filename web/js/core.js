// Thin JS binding of the rooflens WebAssembly module (wasm/api.c).
// Used by the Web Worker (web/js/worker.js) and by the Node tests, so both
// exercise exactly the same calls. No analysis logic here: strings in,
// JSON strings out.

export class RooflensCore {
  /** @param {object} mod an instantiated Emscripten module (createRooflens()) */
  constructor(mod) {
    this.m = mod;
    this.buf = 0;       // scratch heap buffer for chunks
    this.bufLen = 0;
  }

  version() { return this.m.UTF8ToString(this.m._rlw_version()); }

  /** Takes ownership of a returned `char *` JSON string. A NULL (the
   * module could not allocate even an error message) becomes an
   * out_of_memory error, so callers always get JSON. */
  takeString(ptr) {
    if (!ptr) {
      return JSON.stringify({ schema: 1, ok: false, error: { code: 'out_of_memory',
        message: 'the WebAssembly module ran out of memory: use the rooflens command-line tool for this model', where: '' } });
    }
    try { return this.m.UTF8ToString(ptr); } finally { this.m._rlw_free(ptr); }
  }

  /** Calls fn(ptr) with a NUL-terminated UTF-8 copy of str on the heap. */
  withString(str, fn) {
    const n = this.m.lengthBytesUTF8(str) + 1;
    const p = this.m._malloc(n);
    if (!p) throw new Error('out of memory');
    try {
      this.m.stringToUTF8(str, p, n);
      return fn(p);
    } finally { this.m._free(p); }
  }

  newReader() {
    const r = this.m._rlw_reader_new();
    if (!r) throw new Error('out of memory creating a reader');
    return r;
  }

  /** Feeds bytes (Uint8Array); returns the count of following bytes the
   * reader ignores (0 when none) or -1 on error. */
  feed(reader, bytes) {
    if (bytes.length > this.bufLen) {
      if (this.buf) this.m._free(this.buf);
      this.bufLen = Math.max(bytes.length, 1 << 16);
      this.buf = this.m._malloc(this.bufLen);
      if (!this.buf) { this.bufLen = 0; throw new Error('out of memory'); }
    }
    // HEAPU8 is replaced when memory grows: read it from the module each time.
    this.m.HEAPU8.set(bytes, this.buf);
    return this.m._rlw_reader_feed(reader, this.buf, bytes.length);
  }

  skip(reader, n) { return this.m._rlw_reader_skip(reader, n); }
  offset(reader) { return this.m._rlw_reader_offset(reader); }

  /** Returns {model} or {error: JSON string}. The reader is still to be freed. */
  finish(reader) {
    const model = this.m._rlw_reader_finish(reader);
    if (model) return { model };
    const e = this.m._rlw_reader_error(reader);
    return { error: e ? this.m.UTF8ToString(e)
      : '{"ok":false,"error":{"code":"internal","message":"reading failed","where":""}}' };
  }

  freeReader(reader) { this.m._rlw_reader_free(reader); }

  /** Calls fn(ptr) with a copy of bytes (Uint8Array) on the heap. */
  withBytes(bytes, fn) {
    const p = this.m._malloc(Math.max(1, bytes.length));
    if (!p) throw new Error('out of memory');
    try {
      this.m.HEAPU8.set(bytes, p);
      return fn(p);
    } finally { this.m._free(p); }
  }

  // A Hugging Face checkpoint (rl_checkpoint_*, docs/checkpoints.md): for
  // each file its first 8 bytes tell the core how many it needs (a shard's
  // header, a JSON file whole, 0 for a file the model does not use).
  newCheckpoint() {
    const c = this.m._rlw_checkpoint_new();
    if (!c) throw new Error('out of memory creating a checkpoint');
    return c;
  }

  checkpointNeed(name, size, first) {
    return this.withString(name, (p) => this.withBytes(first, (b) => this.m._rlw_checkpoint_need(p, size, b, first.length)));
  }

  /** 0, or -1 when the core refused the file (finish reports why). */
  checkpointAdd(c, name, size, bytes) {
    return this.withString(name, (p) => this.withBytes(bytes, (b) => this.m._rlw_checkpoint_add(c, p, size, b, bytes.length)));
  }

  /** Returns {model} or {error: JSON string}. The checkpoint is still to be freed. */
  checkpointFinish(c) {
    const model = this.m._rlw_checkpoint_finish(c);
    if (model) return { model };
    const e = this.m._rlw_checkpoint_error(c);
    return { error: e ? this.m.UTF8ToString(e)
      : '{"ok":false,"error":{"code":"out_of_memory","message":"reading the checkpoint ran out of memory","where":""}}' };
  }

  freeCheckpoint(c) { this.m._rlw_checkpoint_free(c); }

  /** Reads a whole in-memory file (Uint8Array) honouring skips. */
  readAll(bytes, chunk = 1 << 20) {
    const r = this.newReader();
    try {
      let off = 0;
      while (off < bytes.length) {
        const end = Math.min(bytes.length, off + chunk);
        const skip = this.feed(r, bytes.subarray(off, end));
        off = end;
        if (skip < 0) break;
        if (skip > 0) {
          const n = Math.min(skip, bytes.length - off);
          if (this.skip(r, n) !== 0) break;
          off += n;
        }
      }
      return this.finish(r);
    } finally { this.freeReader(r); }
  }

  analyze(model, requestJson) {
    return this.withString(requestJson, (p) => this.takeString(this.m._rlw_analyze(model, p)));
  }

  /** The handle of a hardware profile (its JSON text) for analyzeBytes and
   * diff: the module holds the last profile read and reads a text again only
   * when it differs (rlw_hw_hold). 0 when the core refuses the profile: then
   * the request must carry it, so that the analysis reports the error. */
  holdHardware(profileJson) {
    return this.withString(profileJson, (p) => this.m._rlw_hw_hold(p));
  }

  /** The same answer as bytes in an ArrayBuffer of its own: its UTF-8
   * text and, for "layers": "packed", the NUL and the doubles that follow it
   * (rl_model_analyze_hw; hw: a handle from holdHardware, or 0 for the
   * request's own profile). The worker hands it to the page without
   * copying (postMessage transfer); the page decodes the text once and reads
   * the doubles where they lie (client.js, layer-columns.js). */
  analyzeBytes(model, requestJson, hw = 0) {
    return this.withString(requestJson, (p) => {
      const ptr = this.m._rlw_analyze_hw(model, hw, p);
      if (!ptr) return new TextEncoder().encode(this.takeString(0));
      try {
        return this.m.HEAPU8.slice(ptr, ptr + this.m._rlw_answer_size());
      } finally { this.m._rlw_free(ptr); }
    });
  }

  /** rl_models_diff of two open models under one request (JSON text), on
   * the hardware handle hw (holdHardware) or, when 0, the request's own. */
  diff(oldModel, newModel, requestJson, hw = 0) {
    return this.withString(requestJson, (p) => this.takeString(this.m._rlw_models_diff_hw(oldModel, newModel, hw, p)));
  }

  summary(model, requestJson) {
    return this.withString(requestJson, (p) => this.takeString(this.m._rlw_model_summary(model, p)));
  }

  info(model) { return this.takeString(this.m._rlw_info(model)); }

  checkHardware(profileJson) {
    return this.withString(profileJson, (p) => this.takeString(this.m._rlw_check_hardware(p)));
  }

  operatorTable() { return this.takeString(this.m._rlw_operator_table()); }

  /** The core's precision table (rl_precisions): [{name, dtype, computes, fallback, colour}]. */
  precisions() { return this.takeString(this.m._rlw_precisions()); }
  /** The core's words for its concepts (rl_words): [{kind, id, name, meaning}]. */
  words() { return this.takeString(this.m._rlw_words()); }
  /** The Netron attachment (JSON text) of an analysis response (JSON text). */
  netron(analysisJson) {
    return this.withString(analysisJson, (p) => this.takeString(this.m._rlw_netron(p)));
  }

  /** rl_markdown_text of each string: the core's one Markdown escaping (the
   * diff's comment uses it too). Throws when the module is out of memory. */
  markdownText(texts) {
    return texts.map((t) => this.withString(String(t), (p) => {
      const ptr = this.m._rlw_markdown_text(p);
      if (!ptr) throw new Error('out of memory');
      try { return this.m.UTF8ToString(ptr); } finally { this.m._rlw_free(ptr); }
    }));
  }

  freeModel(model) { if (model) this.m._rlw_free_model(model); }

  /** Memory of the module in bytes: heap = linear memory size (it never
   * shrinks, so it is the high-water mark), inUse = malloc'd now, peak = the
   * most malloc ever took. */
  memory() {
    return { heap: this.heapSize(), inUse: this.m._rlw_heap_in_use(), peak: this.m._rlw_heap_peak() };
  }

  /** The linear memory's size alone (memory() also walks malloc's heap). */
  heapSize() { return this.m._rlw_heap_size(); }
}
