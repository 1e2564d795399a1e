// The model's graph as the graph and module views walk it: a tree of groups
// (the core's modules, from graph.modules) over the layer rows, and the
// graph that is visible when some groups are collapsed. Built from the
// core's "graph" section (docs/api.md, "Graph"); it computes no figure: a
// module's time, energy, FLOPs, bytes and bound are the core's.
//
// Tree nodes have string keys: `L<row>` a layer, `M<index>` a module of the
// core, `R<parent key>:<first>` a run, `C` the constants box. A layer of no
// work is drawn where the core folds it (graph.fold_into): inside the box of
// the layer it feeds (that box's `folded` rows), or in the one constants box,
// whose outputs are drawn as weights are, with no edge. A run stands for consecutive children
// of one group when a group has more than MAX_CHILDREN (a 100,000-layer chain
// of flat modules would otherwise open as 50,000 boxes); it is only a way to
// fold the drawing and carries no figure of its own.

export const MAX_CHILDREN = 48;
/** How many boxes a graph opens with at most: legible on a laptop screen. */
export const OPEN_BUDGET = 60;

export class GraphModel {
  /** graph: the answer's "graph" section; layers: its layer rows. */
  constructor(graph, layers) {
    this.graph = graph;
    this.layers = layers;
    const mo = graph.modules;
    const fold = graph.fold_into || [];
    this.nodes = new Map();   // key -> {key, kind, row|module, parent, children, first, label}
    this.root = { key: 'root', kind: 'root', children: [], first: 0, parent: null };
    this.nodes.set('root', this.root);
    for (let m = 0; m < mo.count; m++) {
      this.nodes.set(`M${m}`, { key: `M${m}`, kind: 'module', module: m, path: mo.path[m], children: [], first: Infinity, parent: null });
    }
    for (let m = 0; m < mo.count; m++) {
      const parent = mo.parent[m] >= 0 ? this.nodes.get(`M${mo.parent[m]}`) : this.root;
      this.nodes.get(`M${m}`).parent = parent;
      parent.children.push(this.nodes.get(`M${m}`));
    }
    this.host = new Int32Array(layers.length);   // the row whose box draws row i; -2: the constants box
    const constants = [];
    for (let i = 0; i < layers.length; i++) {
      const at = fold[i] ?? -1;
      this.host[i] = at === -1 ? i : at;
      if (at === -2) constants.push(i);
      if (at !== -1) continue;
      const m = graph.layer_module[i];
      const parent = m >= 0 ? this.nodes.get(`M${m}`) : this.root;
      const leaf = { key: `L${i}`, kind: 'layer', row: i, parent, first: i, folded: [] };
      this.nodes.set(leaf.key, leaf);
      parent.children.push(leaf);
    }
    this.folded = constants.length;   // layers drawn in another's box or the constants box
    for (let i = 0; i < layers.length; i++) if (this.host[i] >= 0 && this.host[i] !== i) { this.nodes.get(`L${this.host[i]}`)?.folded.push(i); this.folded++; }
    if (constants.length) {
      this.constants = { key: 'C', kind: 'constants', rows: constants, parent: this.root, first: constants[0] };
      this.nodes.set('C', this.constants);
      this.root.children.push(this.constants);
    }
    this.#orderAndFold(this.root);
    this.#makeRuns(this.root);
  }

  /** Children in row order; a module of one layer and no submodule is that layer. */
  #orderAndFold(root) {
    const post = [];
    const stack = [root];
    while (stack.length) { const n = stack.pop(); post.push(n); if (n.children) stack.push(...n.children); }
    for (let k = post.length - 1; k >= 0; k--) {
      const n = post[k];
      if (!n.children) continue;
      // a module whose layers all fold into other boxes draws nothing
      n.children = n.children.filter((c) => c.kind !== 'module' || c.children.length);
      n.children = n.children.map((c) => (c.kind === 'module' && c.children.length === 1 && c.children[0].kind === 'layer' ? c.children[0] : c));
      for (const c of n.children) c.parent = n;
      let sorted = true;
      for (let i = 1; sorted && i < n.children.length; i++) sorted = n.children[i - 1].first <= n.children[i].first;
      if (!sorted) n.children.sort((a, b) => a.first - b.first);
      if (n.children.length) n.first = Math.min(n.first, n.children[0].first);
    }
  }

  /** Groups of more than MAX_CHILDREN children get runs (nested when needed). */
  #makeRuns(root) {
    const stack = [root];
    while (stack.length) {
      const n = stack.pop();
      if (!n.children) continue;
      while (n.children.length > MAX_CHILDREN) {
        const size = Math.ceil(n.children.length / MAX_CHILDREN);
        const runs = [];
        for (let i = 0; i < n.children.length; i += size) {
          const kids = n.children.slice(i, i + size);
          if (kids.length === 1) { runs.push(kids[0]); continue; }
          const run = { key: `R${n.key}:${kids[0].first}`, kind: 'run', children: kids, first: kids[0].first, parent: n };
          for (const c of kids) c.parent = run;
          this.nodes.set(run.key, run);
          runs.push(run);
        }
        n.children = runs;
      }
      stack.push(...n.children);
    }
  }

  /** The tree leaf that draws layer `row`: its own, its host's, or the constants box. */
  leafOf(row) { return this.host[row] === -2 ? this.constants : this.nodes.get(`L${this.host[row]}`); }

  /** The groups (modules and runs) that hold layer `row`'s box, outermost first. */
  ancestors(row) {
    const out = [];
    for (let n = this.leafOf(row)?.parent; n && n.kind !== 'root'; n = n.parent) out.unshift(n);
    return out;
  }

  /** Every layer row under a tree node, the rows folded into its boxes included. */
  rowsOf(node) {
    if (node.kind === 'layer') return [node.row, ...node.folded];
    if (node.kind === 'constants') return node.rows;
    const rows = [];
    const stack = [node];
    while (stack.length) { const n = stack.pop(); if (n.children) stack.push(...n.children); else rows.push(...this.rowsOf(n)); }
    return rows;
  }

  /** Boxes whose layer's name or op contains `text` (case aside), at most
   * `limit`, in row order: [{row, name, op}]; a folded layer is found too. */
  find(text, limit = 20) {
    const q = text.trim().toLowerCase();
    if (!q) return [];
    const out = [];
    for (let i = 0; i < this.layers.length && out.length < limit; i++) {
      const l = this.layers[i];
      if (String(l.name).toLowerCase().includes(q) || String(l.op).toLowerCase().includes(q)) out.push({ row: i, name: l.name, op: l.op });
    }
    return out;
  }

  /** The groups to open first: the slowest ones while the boxes stay within `budget`. */
  initialExpanded(budget = OPEN_BUDGET) {
    const open = new Set(['root']);
    let shown = this.root.children.length;
    const queue = this.root.children.filter((c) => c.children);
    while (queue.length) {
      // the slowest group next (a linear scan: the queue holds at most a few hundred groups)
      let best = 0;
      for (let i = 1; i < queue.length; i++) if (this.weight(queue[i]) > this.weight(queue[best])) best = i;
      const n = queue.splice(best, 1)[0];
      if (shown - 1 + n.children.length > budget) continue;
      open.add(n.key);
      shown += n.children.length - 1;
      for (const c of n.children) if (c.children) queue.push(c);
    }
    return open;
  }

  /** A node's figure `key` (t, energy_j, flops, bytes) from the core: a
   * layer's row or a module's sums; a run shows its largest member's. */
  figure(node, key) {
    if (node.kind === 'layer') return this.layers[node.row][key] ?? 0;
    if (node.kind === 'constants') return 0;   // layers of no work
    if (node.kind === 'module') return this.graph.modules[key]?.[node.module] ?? 0;
    // a run's is its largest member's, kept: runs nest, and the opening order asks often
    node.most ??= {};
    return (node.most[key] ??= Math.max(0, ...node.children.map((c) => this.figure(c, key))));
  }

  weight(node) { return this.figure(node, 't'); }

  bound(node) {
    if (node.kind === 'layer') return this.layers[node.row].bound;
    if (node.kind === 'constants') return this.layers[node.first].bound;   // the core's bound of its layers
    if (node.kind === 'module') return this.graph.modules.bound[node.module];
    return this.bound(node.children.reduce((a, b) => (this.weight(b) > this.weight(a) ? b : a)));
  }

  label(node) {
    if (node.kind === 'layer') {
      const l = this.layers[node.row];
      return { title: node.folded.length ? `${l.op} +${node.folded.length}` : l.op, sub: l.name };
    }
    if (node.kind === 'constants') return { title: 'constants', sub: `${node.rows.length} layers of no work` };
    if (node.kind === 'module') {
      const p = node.path;
      return { title: p.slice(p.lastIndexOf('/', p.length - 1) + 1) || p, sub: `${this.graph.modules.layers[node.module]} layers` };
    }
    // a run of runs is named by its first and last modules or layers
    const end = (n, last) => { while (n.kind === 'run') n = n.children[last ? n.children.length - 1 : 0]; return n; };
    const name = (n) => (n.kind === 'module' ? this.label(n).title : this.layers[n.row].name);
    return { title: `${name(end(node, false))} … ${name(end(node, true))}`, sub: `${node.children.length} parts` };
  }

  /** The graph shown when the groups in `expanded` are open: its boxes (tree
   * nodes, in row order) and its edges between boxes, each with the first
   * tensor that joins them and how many do. edgeMark(k), when given, marks
   * graph edge k (a comparison: its tensor changed shape); a drawn edge
   * keeps the first mark of the edges it stands for. */
  visible(expanded, edgeMark = null) {
    const boxes = [];
    const rep = new Int32Array(this.layers.length);
    const stack = [this.root];
    while (stack.length) {
      const n = stack.pop();
      if (n.children && (n.kind === 'root' || expanded.has(n.key))) {
        for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
        continue;
      }
      const id = boxes.length;
      boxes.push(n);
      for (const r of this.rowsOf(n)) rep[r] = id;
    }
    const e = this.graph.edges;
    const edges = new Map();
    for (let k = 0; k < e.count; k++) {
      const a = rep[e.from[k]], b = rep[e.to[k]];
      if (a === b || this.host[e.from[k]] === -2) continue;   // inside one box, or out of the constants box
      const key = a * 1048576 + b;
      const have = edges.get(key);
      const mark = edgeMark ? edgeMark(k) : null;
      if (have) { have.count++; have.mark ??= mark; }
      else {
        // the tensor is the producer's output in the layer rows (docs/api.md, "Graph")
        const t = this.layers[e.from[k]].outputs?.[e.output[k]];
        edges.set(key, { from: a, to: b, tensor: t?.name ?? '?', shape: t?.shape ?? null, count: 1, mark });
      }
    }
    return { boxes, edges: [...edges.values()], rep };
  }
}

/** A tensor's shape as text: [1, 64, 56, 56]; "?" for an unknown dim or shape. */
export function shapeText(shape) {
  if (!Array.isArray(shape)) return '?';
  return `[${shape.map((d) => (d === null ? '?' : d)).join(', ')}]`;
}
