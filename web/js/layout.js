// Lays out a graph of boxes top to bottom in layers (the dataflow, as Netron
// draws it) with @dagrejs/dagre, chosen over elkjs by the figures in
// docs/benchmarks.md ("Graph layout"). Used by the layout worker
// (layout-worker.js) and by tools/bench/graph-layout.mjs; pure: boxes and
// edges in, positions out.
import dagre from '@dagrejs/dagre';

/**
 * boxes: [{w, h}], edges: [[from, to]] (box indices).
 * Returns {x: Float64Array, y: Float64Array (box centres), width, height,
 * points: [[x0, y0, x1, y1, ...] per edge]}.
 */
export function layoutDagre(boxes, edges) {
  const g = new dagre.graphlib.Graph({ multigraph: false });
  g.setGraph({ rankdir: 'TB', nodesep: 24, ranksep: 36, edgesep: 8, marginx: 16, marginy: 16 });
  g.setDefaultEdgeLabel(() => ({}));
  for (let i = 0; i < boxes.length; i++) g.setNode(String(i), { width: boxes[i].w, height: boxes[i].h });
  for (const [a, b] of edges) g.setEdge(String(a), String(b));
  dagre.layout(g);
  const x = new Float64Array(boxes.length), y = new Float64Array(boxes.length);
  for (let i = 0; i < boxes.length; i++) { const n = g.node(String(i)); x[i] = n.x; y[i] = n.y; }
  const points = edges.map(([a, b]) => (g.edge(String(a), String(b))?.points || []).flatMap((p) => [p.x, p.y]));
  const { width, height } = g.graph();
  return { x, y, width, height, points };
}
