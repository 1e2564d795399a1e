// Hardware profiles served by the site: hw/index.json lists them (built by
// tools/build-site.sh from hw/*.json); each profile is fetched when chosen.

export const CATEGORY_LABELS = {
  'datacenter-gpu': 'Datacenter GPUs',
  'consumer-gpu': 'Consumer GPUs',
  edge: 'Edge devices',
  tpu: 'TPUs',
  apple: 'Apple silicon',
  cpu: 'CPUs',
};
const CATEGORY_ORDER = Object.keys(CATEGORY_LABELS);

export class HardwareCatalog {
  constructor(base = new URL('../hw/', import.meta.url)) {
    this.base = base;
    this.list = [];
    this.byId = new Map();
    this.cache = new Map();
  }

  async load() {
    const res = await fetch(new URL('index.json', this.base));
    if (!res.ok) throw new Error(`hardware list: HTTP ${res.status}`);
    this.list = (await res.json()).profiles;
    this.byId = new Map(this.list.map((p) => [p.id, p]));
    return this;
  }

  ids() { return new Set(this.byId.keys()); }

  /** [{category, label, profiles[]}] in display order. */
  groups() {
    const m = new Map();
    for (const p of this.list) {
      if (!m.has(p.category)) m.set(p.category, []);
      m.get(p.category).push(p);
    }
    const cats = [...m.keys()].sort((a, b) => {
      const ia = CATEGORY_ORDER.indexOf(a), ib = CATEGORY_ORDER.indexOf(b);
      return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
    });
    return cats.map((c) => ({ category: c, label: CATEGORY_LABELS[c] || c, profiles: m.get(c) }));
  }

  async profile(id) {
    if (!this.byId.has(id)) throw new Error(`unknown hardware profile '${id}'`);
    if (!this.cache.has(id)) {
      const res = await fetch(new URL(`${encodeURIComponent(id)}.json`, this.base));
      if (!res.ok) throw new Error(`hardware profile ${id}: HTTP ${res.status}`);
      this.cache.set(id, await res.json());
    }
    return this.cache.get(id);
  }
}
