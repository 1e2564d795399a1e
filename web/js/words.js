// The words for rooflens's concepts, from the core's one list (rl_words():
// "overhead" -> "launch floor", "fused_prefetched" -> "fused and
// prefetched", the glossary's meanings). The controller sets the list once
// the worker is ready; every view names a bound, a speed-of-light model, a
// granularity or a concept through here, never with a list of its own.

let byKey = new Map();
let terms = [];

/** @param {{kind: string, id: string, name: string, meaning: string, color?: string}[]} list the core's rl_words() */
export function setWords(list) {
  byKey = new Map((list || []).map((w) => [`${w.kind}/${w.id}`, w]));
  // the concepts, then the granularities ("kernel by kernel"), which the summary names
  terms = [...(list || []).filter((w) => w.kind === 'term'), ...(list || []).filter((w) => w.kind === 'granularity')];
}

/** What a user reads for the value `id` of `kind` ('bound', 'sol',
 * 'granularity', 'term'); the value itself when the list has none. */
export function wordName(kind, id) {
  if (id === null || id === undefined) return '–';
  return byKey.get(`${kind}/${id}`)?.name ?? String(id);
}

/** wordName as a heading or label starts: its first letter upper-case. */
export function wordTitle(kind, id) {
  const w = wordName(kind, id);
  return w.charAt(0).toUpperCase() + w.slice(1);
}

/** The one- or two-sentence meaning of a value or concept ('' when unknown). */
export function wordMeaning(kind, id) {
  return byKey.get(`${kind}/${id}`)?.meaning ?? '';
}

/** The glossary: the concepts the page's figures rest on, in the core's order. */
export function glossary() { return terms; }

/** The colour of bound `id` (the core's table of bounds, its only spelling):
 * every surface that colours a bound (graph, modules, charts, Compare) asks
 * here. A bound the list lacks takes the colour of "unknown". */
export function boundColor(id) {
  return byKey.get(`bound/${id}`)?.color ?? byKey.get('bound/unknown')?.color ?? 'gray';
}

/** `id` when the core's table of bounds has it, else the id of its
 * "unknown" bound: what a box of no known bound is filed under. */
export function knownBound(id) { return byKey.has(`bound/${id}`) ? id : 'unknown'; }

/** The bounds in the core's order, [{id, name, meaning, color}], for legends. */
export function bounds() { return [...byKey.values()].filter((w) => w.kind === 'bound'); }
