// Hardware profiles served by the site: hw/index.json lists them (built by
// tools/build-site.sh from hw/*.json); each profile is fetched when chosen.

export const CATEGORY_LABELS = {
  'datacenter-gpu': 'Datacenter GPUs and accelerators',
  tpu: 'TPUs and systolic accelerators',
  cpu: 'Server CPUs',
  workstation: 'Workstations',
  'consumer-gpu': 'Desktop GPUs',
  client: 'Client SoCs (laptop GPUs and NPUs)',
  apple: 'Apple silicon',
  edge: 'Edge devices',
};
const CATEGORY_ORDER = Object.keys(CATEGORY_LABELS);

/** The words a typed filter is matched against: the name, id, vendor and the
 * class the list shows the profile under. */
const searchText = (p) => `${p.name} ${p.id} ${p.vendor || ''} ${CATEGORY_LABELS[p.category] || p.category}`.toLowerCase();

/** Whether every word of `query` is in the profile's words ("mi35", "nvidia edge", "thor"). */
export function matchesQuery(p, query) {
  const words = String(query || '').toLowerCase().split(/\s+/).filter(Boolean);
  const text = searchText(p);
  return words.every((w) => text.includes(w));
}

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

  /** [{category, vendor, label, profiles[]}] in display order: by class, then
   * vendor, then name; only the profiles matching `query` (all without one),
   * and always `keep` (the profile in use) so a filter never changes it. */
  groups(query = '', keep = null) {
    const m = new Map();
    for (const p of this.list) {
      if (!(p.id === keep || matchesQuery(p, query))) continue;
      const key = `${p.category}\u0000${p.vendor || ''}`;
      if (!m.has(key)) m.set(key, { category: p.category, vendor: p.vendor || '', profiles: [] });
      m.get(key).profiles.push(p);
    }
    const rank = (c) => { const i = CATEGORY_ORDER.indexOf(c); return i < 0 ? 99 : i; };
    const groups = [...m.values()].sort((a, b) => rank(a.category) - rank(b.category) ||
      a.category.localeCompare(b.category) || a.vendor.localeCompare(b.vendor));
    for (const g of groups) {
      g.profiles.sort((a, b) => a.name.localeCompare(b.name));
      g.label = `${CATEGORY_LABELS[g.category] || g.category} · ${g.vendor || 'other'}`;
    }
    return groups;
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
