// Layer table view: every field of the core's layer rows, sortable by any
// column, filtered by op type and name, optionally grouped by op type with
// subtotals. Rows are rendered virtually (only those in view), so 20,000
// layers scroll smoothly. Model strings are set with textContent only.
import { eng, exact, shapes, pct } from './format.js';

const ROW_H = 26;      // px; must match .layer-table tbody tr height in style.css
const OVERSCAN = 12;

const num = (key, label, unit, title) => ({ key, label, unit, type: 'num', title });
export const COLUMNS = [
  { key: 'index', label: '#', type: 'int' },
  { key: 'name', label: 'Name', type: 'str' },
  { key: 'op', label: 'Op', type: 'str' },
  { key: 'domain', label: 'Domain', type: 'str' },
  { key: 'inputs', label: 'Inputs', type: 'shapes' },
  { key: 'outputs', label: 'Outputs', type: 'shapes' },
  num('t', 'Time', 's', 'predicted time of the layer (max of compute and memory time, at least the launch overhead)'),
  { key: 'share', label: 'Share', type: 'pct', title: 'share of the summed layer time' },
  // with a measured profile attached (measured.js): the node's share of its kernel's time
  num('measured_s', 'Measured', 's', 'measured time of the kernel that ran the layer, shared by the speed of light of its nodes'),
  { key: 'efficiency', label: 'Efficiency', type: 'pct', title: 'speed of light / measured time of its kernel' },
  num('recoverable_s', 'Gap', 's', 'measured - speed of light: the time an ideal kernel would save'),
  { key: 'bound', label: 'Bound', type: 'str' },
  num('flops', 'FLOPs', 'FLOP'),
  num('matrix_flops', 'Matrix FLOPs', 'FLOP'),
  num('vector_flops', 'Vector FLOPs', 'FLOP'),
  num('macs', 'MACs', 'MAC'),
  num('bytes', 'Bytes', 'B'),
  num('input_bytes', 'In bytes', 'B'),
  num('weight_bytes', 'Weight bytes', 'B'),
  num('output_bytes', 'Out bytes', 'B'),
  num('fused_bytes', 'Fused bytes', 'B'),
  num('intensity', 'Intensity', 'FLOP/B'),
  num('t_compute', 't compute', 's'),
  num('t_memory', 't memory', 's'),
  num('energy_j', 'Energy', 'J'),
  { key: 'energy_bound', label: 'Energy bound', type: 'str' },
  { key: 'precision', label: 'Precision', type: 'str' },
  num('bwd_flops', 'Bwd FLOPs', 'FLOP'),
  num('bwd_bytes', 'Bwd bytes', 'B'),
  { key: 'known', label: 'Known', type: 'bool', title: 'all shapes known' },
  { key: 'supported', label: 'Supported', type: 'bool', title: 'operator in the cost table' },
  { key: 'note', label: 'Note', type: 'str' },
];
const SUM_KEYS = ['t', 'share', 'measured_s', 'recoverable_s', 'flops', 'matrix_flops', 'vector_flops', 'macs', 'bytes', 'input_bytes',
  'weight_bytes', 'output_bytes', 'fused_bytes', 't_compute', 't_memory', 'energy_j', 'bwd_flops', 'bwd_bytes'];

function value(layer, key) {
  if (key === 'inputs' || key === 'outputs') return shapes(layer[key]);
  return layer[key];
}

function cell(td, col, v) {
  let text = '', title = '';
  if (v === undefined || v === null) text = '';
  else if (col.type === 'num') { text = eng(v, col.unit); title = exact(v, col.unit); }
  else if (col.type === 'pct') { text = pct(v); title = String(v); }
  else if (col.type === 'bool') text = v ? 'yes' : 'no';
  else if (col.type === 'int') text = String(v);
  else { text = String(v); title = text.length > 24 ? text : ''; }
  td.textContent = text;
  if (title) td.title = title;
  if (col.type === 'num' || col.type === 'pct' || col.type === 'int') td.className = 'n';
}

function compare(a, b, key) {
  const va = value(a, key), vb = value(b, key);
  if (va === vb) return 0;
  if (va === undefined || va === null) return 1;
  if (vb === undefined || vb === null) return -1;
  if (typeof va === 'number' && typeof vb === 'number') return va - vb;
  if (typeof va === 'boolean') return (va ? 1 : 0) - (vb ? 1 : 0);
  return String(va).localeCompare(String(vb), 'en', { numeric: true });
}

export class LayerTable {
  /**
   * @param {HTMLElement} scroller  the scrolling container
   * @param {HTMLTableElement} table
   * @param {{onSelect(index), onSort(sort)}} hooks
   */
  constructor(scroller, table, hooks) {
    this.scroller = scroller;
    this.table = table;
    this.hooks = hooks;
    this.layers = [];
    this.items = [];            // display items: {layer} or {group}
    this.sort = { key: 't', dir: 'desc' };
    this.filterOp = '';
    this.filterName = '';
    this.group = false;
    this.collapsed = new Set();
    this.selected = null;
    this.buildHead();
    this.tbody = table.tBodies[0] || table.appendChild(document.createElement('tbody'));
    this.scroller.addEventListener('scroll', () => this.schedule(), { passive: true });
    new ResizeObserver(() => this.schedule()).observe(this.scroller);
    this.tbody.addEventListener('click', (ev) => {
      const tr = ev.target.closest('tr');
      if (!tr) return;
      if (tr.dataset.group !== undefined) {
        const g = tr.dataset.group;
        if (this.collapsed.has(g)) this.collapsed.delete(g); else this.collapsed.add(g);
        this.refresh();
      } else if (tr.dataset.index !== undefined) this.hooks.onSelect?.(Number(tr.dataset.index));
    });
  }

  buildHead() {
    const thead = this.table.tHead || this.table.createTHead();
    thead.textContent = '';
    const tr = thead.insertRow();
    for (const col of COLUMNS) {
      const th = document.createElement('th');
      th.scope = 'col';
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = col.label;
      b.dataset.key = col.key;
      if (col.title) b.title = col.title;
      b.addEventListener('click', () => {
        const dir = this.sort.key === col.key && this.sort.dir === 'desc' ? 'asc' : 'desc';
        this.setSort({ key: col.key, dir });
        this.hooks.onSort?.(this.sort);
      });
      th.appendChild(b);
      if (col.type === 'num' || col.type === 'pct' || col.type === 'int') th.className = 'n';
      tr.appendChild(th);
    }
    this.ths = [...tr.children];
  }

  setData(layers) {
    const total = layers.reduce((s, l) => s + (l.t || 0), 0);
    this.layers = layers.map((l) => ({ ...l, share: total > 0 ? (l.t || 0) / total : 0 }));
    this.refresh();
  }

  setSort(sort) { this.sort = sort; this.refresh(); }
  setFilter(op, name) { this.filterOp = op; this.filterName = name; this.refresh(); }
  setGroup(on) { this.group = on; this.refresh(); }

  /** Layers after filtering (in index order). */
  visibleLayers() {
    const q = this.filterName.toLowerCase();
    return this.layers.filter((l) => (!this.filterOp || l.op === this.filterOp) &&
      (!q || String(l.name).toLowerCase().includes(q)));
  }

  /** Sorted, filtered (and grouped) layers: what CSV export and the view show. */
  sortedLayers() {
    const sign = this.sort.dir === 'asc' ? 1 : -1;
    const key = this.sort.key;
    return this.visibleLayers().sort((a, b) => sign * compare(a, b, key) || a.index - b.index);
  }

  refresh() {
    const rows = this.sortedLayers();
    if (!this.group) this.items = rows.map((layer) => ({ layer }));
    else {
      const groups = new Map();
      for (const l of rows) {
        if (!groups.has(l.op)) groups.set(l.op, { op: l.op, count: 0, members: [] });
        const g = groups.get(l.op);
        g.count++;
        g.members.push(l);
        for (const k of SUM_KEYS) if (typeof l[k] === 'number') g[k] = (g[k] || 0) + l[k];
      }
      const key = SUM_KEYS.includes(this.sort.key) ? this.sort.key : 't';
      const sign = this.sort.dir === 'asc' ? 1 : -1;
      const list = [...groups.values()].sort((a, b) =>
        (this.sort.key === 'op' ? sign * a.op.localeCompare(b.op) : sign * ((a[key] || 0) - (b[key] || 0))) ||
        a.op.localeCompare(b.op));
      this.items = [];
      for (const g of list) {
        this.items.push({ group: g });
        if (!this.collapsed.has(g.op)) for (const layer of g.members) this.items.push({ layer });
      }
    }
    this.ths.forEach((th, i) => {
      const col = COLUMNS[i];
      th.setAttribute('aria-sort', col.key === this.sort.key ? (this.sort.dir === 'asc' ? 'ascending' : 'descending') : 'none');
    });
    this.table.dataset.rows = String(rows.length);
    this.lastRange = null;
    this.render();
  }

  schedule() {
    if (this.raf) return;
    this.raf = requestAnimationFrame(() => { this.raf = 0; this.render(); });
  }

  render() {
    const n = this.items.length;
    const headH = this.table.tHead ? this.table.tHead.offsetHeight : 0;
    const top = Math.max(0, this.scroller.scrollTop - headH);
    const h = this.scroller.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / ROW_H) - OVERSCAN);
    const last = Math.min(n, Math.ceil((top + h) / ROW_H) + OVERSCAN);
    const key = `${first}:${last}:${n}:${this.selected}`;
    if (this.lastRange === key) return;
    this.lastRange = key;
    const frag = document.createDocumentFragment();
    const spacer = (px) => {
      const tr = document.createElement('tr');
      tr.className = 'spacer';
      tr.setAttribute('aria-hidden', 'true');
      const td = document.createElement('td');
      td.colSpan = COLUMNS.length;
      td.style.height = `${px}px`;
      tr.appendChild(td);
      return tr;
    };
    if (first > 0) frag.appendChild(spacer(first * ROW_H));
    for (let i = first; i < last; i++) frag.appendChild(this.rowFor(this.items[i]));
    if (last < n) frag.appendChild(spacer((n - last) * ROW_H));
    if (n === 0) {
      const tr = document.createElement('tr');
      const td = document.createElement('td');
      td.colSpan = COLUMNS.length;
      td.className = 'empty';
      td.textContent = this.layers.length ? 'No layer matches the filters.' : 'No layers.';
      tr.appendChild(td);
      frag.appendChild(tr);
    }
    this.tbody.replaceChildren(frag);
  }

  rowFor(item) {
    const tr = document.createElement('tr');
    if (item.group) {
      const g = item.group;
      tr.className = 'group';
      tr.dataset.group = g.op;
      for (const col of COLUMNS) {
        const td = tr.insertCell();
        if (col.key === 'name') td.textContent = `${this.collapsed.has(g.op) ? '▸' : '▾'} ${g.count} × ${g.op}`;
        else if (col.key === 'op') td.textContent = g.op;
        else if (SUM_KEYS.includes(col.key)) cell(td, col, g[col.key]);
      }
      return tr;
    }
    const l = item.layer;
    tr.dataset.index = String(l.index);
    if (l.index === this.selected) tr.className = 'selected';
    if (!l.supported) tr.classList.add('unsupported');
    for (const col of COLUMNS) cell(tr.insertCell(), col, value(l, col.key));
    return tr;
  }

  /** Selects a layer row and scrolls it into view. */
  select(index, scroll = true) {
    this.selected = index;
    if (scroll && index !== null) {
      let pos = this.items.findIndex((it) => it.layer && it.layer.index === index);
      if (pos < 0 && this.group) {
        const l = this.layers.find((x) => x.index === index);
        if (l && this.collapsed.delete(l.op)) { this.refresh(); pos = this.items.findIndex((it) => it.layer && it.layer.index === index); }
      }
      if (pos >= 0) {
        const headH = this.table.tHead ? this.table.tHead.offsetHeight : 0;
        const y = pos * ROW_H + headH;
        const h = this.scroller.clientHeight;
        if (y < this.scroller.scrollTop + headH || y + ROW_H > this.scroller.scrollTop + h) {
          this.scroller.scrollTop = Math.max(0, y - h / 2);
        }
      }
    }
    this.lastRange = null;
    this.render();
  }
}
