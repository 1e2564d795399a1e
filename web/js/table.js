// Layer table view: the columns the user picked (columns.js), sortable,
// filtered by op type and name, optionally grouped by op type with
// subtotals, and a totals row. Rows are rendered virtually (only those in
// view), so 100,000 layers scroll smoothly. The table is a keyboard grid:
// one header button and one row are in the tab order; arrow keys move
// between them, Enter or Space selects a row. Model strings are set with
// textContent only.
import { eng, exact, shapes, pct, count, times } from './format.js';
import { COLUMNS, COLUMN_BY_KEY, DEFAULT_COLUMNS, PHONE_COLUMNS, PHONE_QUERY, SUM_KEYS } from './columns.js';

/** The default columns for the page's width when the table is made. */
const defaultColumns = () => (globalThis.matchMedia?.(PHONE_QUERY).matches ? PHONE_COLUMNS : DEFAULT_COLUMNS).slice();

/** The default columns with the measured ones after the speed of light. */
const withMeasured = (cols) => cols.flatMap((k) => (k === 't' ? [k, 'measured_s', 'efficiency', 'recoverable_s'] : [k]));
import { el } from './dom.js';
import { wordName, wordMeaning } from './words.js';

const ROW_H = 26;      // px; must match .layer-table tbody tr height in style.css
const OVERSCAN = 12;

function value(layer, key) {
  if (key === 'inputs' || key === 'outputs') return shapes(layer[key]);
  return layer[key];
}

const numeric = (col) => col.type === 'num' || col.type === 'pct' || col.type === 'int' || col.type === 'times';

/** Totals that sum each layer's own traffic (no fusion). */
const UNFUSED_TOTALS = new Set(['bytes', 'intensity', 'input_bytes', 'output_bytes', 't_memory']);

function cell(td, col, v) {
  let text = '', title = '';
  if (v === undefined || v === null) text = '';
  else if (col.type === 'num') { text = eng(v, col.unit); title = exact(v, col.unit); }
  else if (col.type === 'pct') { text = pct(v); title = String(v); }
  else if (col.type === 'times') { text = times(v); title = String(v); }
  else if (col.type === 'bool') text = v ? 'yes' : 'no';
  else if (col.type === 'int') text = String(v);
  else if (col.type === 'word') { text = wordName(col.kind, v); title = wordMeaning(col.kind, v); }
  else { text = String(v); title = text.length > 24 ? text : ''; }
  td.textContent = text;
  if (title) td.title = title;
  if (numeric(col)) td.className = 'n';
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

// Ties in time are common (at batch 1 many layers sit at the launch
// overhead): a time sort breaks them by bytes moved, then by FLOPs, so the
// layers that would matter first once launches are fused come first.
const TIE_BREAK = { t: ['bytes', 'flops'], share: ['bytes', 'flops'] };

export class LayerTable {
  /**
   * @param {HTMLElement} scroller  the scrolling container
   * @param {HTMLTableElement} table
   * @param {object} host the page's host (host.js): state(), changed(), select(index, from)
   */
  constructor(scroller, table, host) {
    this.scroller = scroller;
    this.table = table;
    this.host = host;
    this.layers = [];
    this.totals = null;         // the core's totals of the whole model
    this.items = [];            // display items: {layer} or {group}
    this.sort = { key: 't', dir: 'desc' };
    this.cols = defaultColumns();
    this.defaultCols = this.cols.join();   // the page's default set, which the link leaves out
    this.filterOp = '';
    this.filterName = '';
    this.group = false;
    this.collapsed = new Set();
    this.selected = null;
    this.active = 0;            // position (in items) of the row in the tab order
    this.table.setAttribute('role', 'grid');
    this.tbody = table.tBodies[0] || table.appendChild(document.createElement('tbody'));
    this.tfoot = table.tFoot || table.createTFoot();
    // The box's size, the header's height and the scroll offset as last
    // seen: render() reads these rather than the layout, so filling the
    // table after a new analysis forces no layout of the whole page (the
    // observers run when layout is done anyway).
    this.view = { top: 0, height: 0, headH: 0 };
    this.buildHead();
    this.scroller.addEventListener('scroll', () => { this.view.top = this.scroller.scrollTop; this.schedule(); }, { passive: true });
    this.resizes = new ResizeObserver(() => {
      this.view.height = this.scroller.clientHeight;
      this.view.headH = this.table.tHead ? this.table.tHead.offsetHeight : 0;
      this.view.top = this.scroller.scrollTop;
      this.lastRange = null;
      this.schedule();
    });
    this.resizes.observe(this.scroller);
    if (this.table.tHead) this.resizes.observe(this.table.tHead);
    this.tbody.addEventListener('click', (ev) => {
      const tr = ev.target.closest('tr');
      if (tr?.dataset.pos !== undefined) this.activate(Number(tr.dataset.pos));
    });
    this.tbody.addEventListener('keydown', (ev) => this.onRowKey(ev));
    this.tbody.addEventListener('focusin', (ev) => {
      const tr = ev.target.closest('tr');
      if (tr?.dataset.pos !== undefined) this.active = Number(tr.dataset.pos);
    });
  }

  columns() { return this.cols.map((k) => COLUMN_BY_KEY.get(k)).filter(Boolean); }

  setColumns(cols) {
    this.userCols = !!(cols && cols.length);
    this.cols = (cols && cols.length ? cols : defaultColumns()).filter((k) => COLUMN_BY_KEY.has(k));
    this.buildHead();
    this.refresh();
  }

  buildHead() {
    const thead = this.table.tHead || this.table.createTHead();
    thead.textContent = '';
    const tr = thead.insertRow();
    tr.setAttribute('aria-rowindex', '1');
    for (const col of this.columns()) {
      const th = el('th', null, { scope: 'col', class: numeric(col) ? 'n' : null, 'data-key': col.key });
      const b = el('button', col.label, { type: 'button', 'data-key': col.key, tabindex: '-1', title: col.title });
      b.addEventListener('click', () => {
        const dir = this.sort.key === col.key && this.sort.dir === 'desc' ? 'asc' : 'desc';
        this.setSort({ key: col.key, dir });
        this.host.state().sort = this.sort;
        this.host.changed();
      });
      th.appendChild(b);
      tr.appendChild(th);
    }
    // One header button in the tab order; arrows move between them.
    tr.addEventListener('keydown', (ev) => {
      const buttons = [...tr.querySelectorAll('button')];
      const i = buttons.indexOf(document.activeElement);
      if (i < 0) return;
      const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: buttons.length - 1 }[ev.key];
      if (to === undefined) return;
      ev.preventDefault();
      const j = Math.max(0, Math.min(buttons.length - 1, to));
      buttons[i].tabIndex = -1;
      buttons[j].tabIndex = 0;
      buttons[j].focus();
    });
    this.ths = [...tr.children];
    this.resizes?.observe(thead);
    this.headButtons();
  }

  /** The sorted column's button (else the first) is the one in the tab order. */
  headButtons() {
    const buttons = this.ths.map((th) => th.firstChild);
    const focused = buttons.includes(document.activeElement);
    if (focused) return;
    const i = Math.max(0, this.ths.findIndex((th) => th.dataset.key === this.sort.key));
    buttons.forEach((b, j) => { b.tabIndex = j === i ? 0 : -1; });
  }

  setData(layers, totals = null) {
    let total = 0;
    for (const l of layers) total += l.t || 0;
    this.layers = layers;
    for (const l of layers) l.share = total > 0 ? (l.t || 0) / total : 0;
    this.totals = totals;
    this.active = 0;
    // A measured profile brings its columns in, unless the user chose the columns.
    const measured = layers.some((l) => l.measured_s !== undefined);
    const wanted = measured ? withMeasured(defaultColumns()) : defaultColumns();
    if (this.userCols !== true && this.cols.join() !== wanted.join()) { this.cols = wanted.slice(); this.buildHead(); }
    this.refresh();
  }

  setSort(sort) { this.sort = sort; this.refresh(); }
  setFilter(op, name) { this.filterOp = op; this.filterName = name; this.refresh(); }
  setGroup(on) { this.group = on; this.refresh(); }

  /** Layers after filtering (in index order). */
  visibleLayers() {
    if (!this.filterOp && !this.filterName) return this.layers.slice();
    const q = this.filterName.toLowerCase();
    return this.layers.filter((l) => (!this.filterOp || l.op === this.filterOp) &&
      (!q || String(l.name).toLowerCase().includes(q)));
  }

  /** Sorted, filtered layers: what CSV export and the view show. */
  sortedLayers() {
    const sign = this.sort.dir === 'asc' ? 1 : -1;
    const keys = [this.sort.key, ...(TIE_BREAK[this.sort.key] || [])];
    const rows = this.visibleLayers();
    // Numeric columns (the common case, and 100k rows): compare typed arrays
    // of the values by position instead of looking each value up per compare.
    if (keys.every((k) => COLUMN_BY_KEY.get(k)?.type === 'num' || k === 'share' || k === 'index')) {
      const n = rows.length;
      const cols = keys.map((k) => {
        const a = new Float64Array(n);
        for (let i = 0; i < n; i++) { const v = rows[i][k]; a[i] = typeof v === 'number' && !Number.isNaN(v) ? v : NaN; }
        return a;
      });
      const order = new Array(n);
      for (let i = 0; i < n; i++) order[i] = i;
      // an indexed loop, not for…of: the comparator runs about n·log2(n)
      // times (some 80,000 for Swin-T's 6,242 layers) before the engine has
      // optimised it; measured on Swin-T drops, the sort took 12-16 ms with
      // for…of and 8-11 ms (one drop 19 ms) with the loop
      const m = cols.length;
      order.sort((i, j) => {
        for (let c = 0; c < m; c++) {
          const a = cols[c], x = a[i], y = a[j];
          if (x !== y) {
            if (x !== x) return 1;       // missing values (NaN) last either way
            if (y !== y) return -1;
            return sign * (x - y);
          }
        }
        return i - j;   // rows are in index order: the layer order breaks the last tie
      });
      for (let i = 0; i < n; i++) order[i] = rows[order[i]];
      return order;
    }
    return rows.sort((a, b) => {
      for (const k of keys) { const c = compare(a, b, k); if (c) return sign * c; }
      return a.index - b.index;
    });
  }

  refresh() {
    const rows = this.sortedLayers();
    this.rows = rows;
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
      const key = SUM_KEYS.has(this.sort.key) ? this.sort.key : 't';
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
    this.ths.forEach((th) => {
      th.setAttribute('aria-sort', th.dataset.key === this.sort.key ? (this.sort.dir === 'asc' ? 'ascending' : 'descending') : 'none');
    });
    this.headButtons();
    this.table.dataset.rows = String(rows.length);
    this.table.setAttribute('aria-rowcount', String(this.items.length + 2));
    this.active = Math.min(this.active, Math.max(0, this.items.length - 1));
    this.renderTotals(rows);
    this.lastRange = null;
    this.render();
  }

  /** The totals row: the core's totals for the whole model; the sums of the
   * shown rows when a filter hides some. */
  renderTotals(rows) {
    const tr = el('tr', null, { class: 'totals', 'aria-rowindex': String(this.items.length + 2) });
    const whole = rows.length === this.layers.length && this.totals;
    const sums = {};
    if (!whole) for (const l of rows) for (const k of SUM_KEYS) if (typeof l[k] === 'number') sums[k] = (sums[k] || 0) + l[k];
    const cols = this.columns();
    cols.forEach((col, i) => {
      const td = el(i === 0 ? 'th' : 'td', null, i === 0 ? { scope: 'row' } : {});
      if (i === 0 && !SUM_KEYS.has(col.key)) {
        td.textContent = whole ? `Total, ${count(rows.length)} layers` : `Total of the ${count(rows.length)} shown`;
      } else if (whole && col.key === 'share') cell(td, col, this.layers.length ? 1 : null);
      else if (whole && (SUM_KEYS.has(col.key) || col.key === 'intensity' || col.key === 'headroom')) {
        cell(td, col, this.totals[col.key]);
        // The layers' own traffic summed: every tensor once per layer that
        // touches it. The summary's bytes and intensity are the chosen
        // model's (fused: fewer bytes); say which this is.
        if (UNFUSED_TOTALS.has(col.key) && td.textContent) {
          td.appendChild(el('span', ' unfused', { class: 'unit-note' }));
          td.title = `${td.title}: every layer's inputs, weights and outputs summed, as if no layer were fused; the summary gives the chosen model's figure`;
        }
      }
      else if (!whole && SUM_KEYS.has(col.key)) cell(td, col, sums[col.key]);
      tr.appendChild(td);
    });
    this.tfoot.replaceChildren(tr);
    this.tfoot.hidden = this.layers.length === 0;
  }

  schedule() {
    if (this.raf) return;
    this.raf = requestAnimationFrame(() => { this.raf = 0; this.render(); });
  }

  render() {
    const n = this.items.length;
    const { headH } = this.view;
    const top = Math.max(0, this.view.top - headH);
    const h = this.view.height || 600;
    const first = Math.max(0, Math.floor(top / ROW_H) - OVERSCAN);
    const last = Math.min(n, Math.ceil((top + h) / ROW_H) + OVERSCAN);
    const key = `${first}:${last}:${n}:${this.selected}:${this.active}`;
    if (this.lastRange === key) return;
    this.lastRange = key;
    const hadFocus = this.tbody.contains(document.activeElement);
    const ncols = this.cols.length;
    const frag = document.createDocumentFragment();
    const spacer = (px) => {
      const tr = el('tr', null, { class: 'spacer', 'aria-hidden': 'true' });
      const td = el('td', null, { colspan: String(ncols) });
      td.style.height = `${px}px`;
      tr.appendChild(td);
      return tr;
    };
    if (first > 0) frag.appendChild(spacer(first * ROW_H));
    // The row in the tab order is always rendered, so Tab can reach the table.
    const act = Math.min(this.active, n - 1);
    if (act >= 0 && act < first) frag.appendChild(this.rowFor(act));
    for (let i = first; i < last; i++) frag.appendChild(this.rowFor(i));
    if (act >= last) frag.appendChild(this.rowFor(act));
    if (last < n) frag.appendChild(spacer((n - last) * ROW_H));
    if (n === 0) {
      const tr = el('tr');
      tr.appendChild(el('td', this.layers.length ? 'No layer matches the filters.' : 'No layers.', { colspan: String(ncols), class: 'empty' }));
      frag.appendChild(tr);
    }
    this.tbody.replaceChildren(frag);
    if (hadFocus) this.tbody.querySelector('tr[tabindex="0"]')?.focus({ preventScroll: true });
  }

  rowFor(pos) {
    const item = this.items[pos];
    const tr = el('tr', null, { 'aria-rowindex': String(pos + 2), tabindex: pos === this.active ? '0' : '-1' });
    tr.dataset.pos = String(pos);
    // An off-screen active row keeps its place in the tab order without
    // taking space (it is scrolled to when it gets focus).
    const cols = this.columns();
    if (item.group) {
      const g = item.group;
      tr.className = 'group';
      tr.dataset.group = g.op;
      tr.setAttribute('aria-expanded', String(!this.collapsed.has(g.op)));
      cols.forEach((col, i) => {
        const td = tr.insertCell();
        if (i === 0) td.textContent = `${this.collapsed.has(g.op) ? '▸' : '▾'} ${g.count} × ${g.op}`;
        else if (col.key === 'op') td.textContent = g.op;
        else if (SUM_KEYS.has(col.key)) cell(td, col, g[col.key]);
      });
      return tr;
    }
    const l = item.layer;
    tr.dataset.index = String(l.index);
    tr.setAttribute('aria-selected', String(l.index === this.selected));
    if (l.index === this.selected) tr.className = 'selected';
    if (!l.supported) tr.classList.add('unsupported');
    for (const col of cols) {
      const td = tr.insertCell();
      cell(td, col, value(l, col.key));
      if (col.key === 'op') td.classList.add('op');
    }
    return tr;
  }

  /** A click or Enter on the row at `pos`: select a layer, fold a group. */
  activate(pos) {
    const item = this.items[pos];
    if (!item) return;
    this.active = pos;
    if (item.group) {
      const g = item.group.op;
      if (this.collapsed.has(g)) this.collapsed.delete(g); else this.collapsed.add(g);
      this.refresh();
      this.focusActive();
    } else this.host.select(item.layer.index, 'table');
  }

  onRowKey(ev) {
    const page = Math.max(1, Math.floor(this.scroller.clientHeight / ROW_H) - 1);
    const n = this.items.length;
    const to = { ArrowDown: this.active + 1, ArrowUp: this.active - 1, PageDown: this.active + page,
      PageUp: this.active - page, Home: 0, End: n - 1 }[ev.key];
    if (to !== undefined) {
      ev.preventDefault();
      this.active = Math.max(0, Math.min(n - 1, to));
      this.scrollToPos(this.active);
      this.lastRange = null;
      this.render();
      this.focusActive();
    } else if (ev.key === 'Enter' || ev.key === ' ') {
      ev.preventDefault();
      this.activate(this.active);
    }
  }

  focusActive() { this.tbody.querySelector(`tr[data-pos="${this.active}"]`)?.focus({ preventScroll: true }); }

  scrollToPos(pos) {
    const headH = this.table.tHead ? this.table.tHead.offsetHeight : 0;
    const footH = this.tfoot.offsetHeight || 0;
    const y = pos * ROW_H;
    const h = this.scroller.clientHeight - headH - footH;
    const top = this.scroller.scrollTop;
    if (y < top) this.scroller.scrollTop = y;
    else if (y + ROW_H > top + h) this.scroller.scrollTop = y + ROW_H - h;
  }

  /** Selects a layer row and scrolls it into view. */
  select(index, scroll = true) {
    this.selected = index;
    if (index !== null) {
      let pos = this.items.findIndex((it) => it.layer && it.layer.index === index);
      if (pos < 0 && this.group) {
        const l = this.layers.find((x) => x.index === index);
        if (l && this.collapsed.delete(l.op)) { this.refresh(); pos = this.items.findIndex((it) => it.layer && it.layer.index === index); }
      }
      if (pos >= 0) {
        this.active = pos;
        if (scroll) this.scrollToPos(pos);
      }
    }
    this.lastRange = null;
    this.render();
  }

  /** The column picker: one checkbox per column, in `box`. */
  renderPicker(box) {
    box.textContent = '';
    for (const col of COLUMNS) {
      const l = el('label', null, { class: 'pick' });
      const c = el('input', null, { type: 'checkbox', value: col.key, 'data-col': col.key });
      c.checked = this.cols.includes(col.key);
      c.addEventListener('change', () => {
        const on = new Set([...box.querySelectorAll('input:checked')].map((x) => x.value));
        if (!on.size) { c.checked = true; return; }   // at least one column
        const cols = COLUMNS.map((x) => x.key).filter((k) => on.has(k));
        this.setColumns(cols);
        this.userCols = true;
        // the link keeps the columns only when they differ from the default set
        this.host.state().cols = cols.join() === this.defaultCols ? null : cols;
        this.host.changed();
      });
      l.appendChild(c);
      l.appendChild(document.createTextNode(` ${col.label}${col.label === col.key ? '' : ''}`));
      if (col.title) l.title = col.title;
      box.appendChild(l);
    }
  }
}
