// The LLM panel's settings (prompt and generated tokens, weight and KV-cache
// bits, or the KV cache as one of llama.cpp's cache types): their defaults,
// their part of the share link (lp, lg, lw, lk, lt) and the request's "llm"
// object. State, not view: state.js and the panel (llm.js) both read it.
export const LLM_DEFAULTS = Object.freeze({ prompt: 512, generate: 128, weightBits: null, kvBits: null, kvType: null });
export const LLM_PARAM_KEYS = ['lp', 'lg', 'lw', 'lk', 'lt'];
export const MAX_TOKENS = 1e8;
export const BITS = [16, 8, 4];
// the core's llm.kv_type values (llama.cpp's --cache-type-k/-v names), as
// state.js keeps the sol and granularity ids; their words and meanings come
// from the core's list (rl_words, kind kv_type)
export const KV_TYPES = ['f16', 'q8_0', 'q4_0'];

export function llmDefaultState() { return { ...LLM_DEFAULTS }; }

/** The panel's settings into the share link (only what differs from the defaults). */
export function llmToParams(llm, p) {
  if (!llm) return;
  if (llm.prompt !== LLM_DEFAULTS.prompt) p.set('lp', String(llm.prompt));
  if (llm.generate !== LLM_DEFAULTS.generate) p.set('lg', String(llm.generate));
  if (llm.weightBits) p.set('lw', String(llm.weightBits));
  if (llm.kvBits) p.set('lk', String(llm.kvBits));
  if (llm.kvType) p.set('lt', llm.kvType);
}

/** The link's panel settings into llm; bad(name, why) names what is ignored. */
export function llmFromParams(p, llm, bad) {
  const whole = (key, field, lo, hi) => {
    if (!p.has(key)) return;
    const s = p.get(key);
    const n = /^\d{1,9}$/.test(s) ? Number(s) : NaN;
    if (n >= lo && n <= hi) llm[field] = n; else bad(key, `must be a whole number from ${lo} to ${hi}`);
  };
  whole('lp', 'prompt', 1, MAX_TOKENS);
  whole('lg', 'generate', 1, MAX_TOKENS);
  for (const [key, field] of [['lw', 'weightBits'], ['lk', 'kvBits']]) {
    if (!p.has(key)) continue;
    const n = Number(p.get(key));
    if (BITS.includes(n)) llm[field] = n; else bad(key, 'must be 16, 8 or 4');
  }
  if (p.has('lt')) {
    const t = p.get('lt');
    if (!KV_TYPES.includes(t)) bad('lt', `must be one of ${KV_TYPES.join(', ')}`);
    else if (llm.kvBits) bad('lt', 'the KV cache is sized once: lk (bits) is given too, and kept');
    else llm.kvType = t;
  }
  if (llm.prompt + llm.generate > MAX_TOKENS) {
    bad('lg', `prompt + generated tokens must stay within ${MAX_TOKENS}`);
    llm.generate = LLM_DEFAULTS.generate;
  }
}

/** The request's "llm" object for the panel's settings. */
export function llmRequestMember(llm) {
  const r = { prompt: llm.prompt, generate: llm.generate };
  if (llm.weightBits) r.weight_bits = llm.weightBits;
  if (llm.kvBits) r.kv_bits = llm.kvBits;
  else if (llm.kvType) r.kv_type = llm.kvType;
  return r;
}
