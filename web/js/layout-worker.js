// The layout worker: lays out the graph view's boxes off the main thread
// (layout.js, @dagrejs/dagre), so a big graph never freezes the page.
// Messages: {id, boxes: [{w, h}], edges: [[from, to]]} in,
// {id, ok: true, x, y, width, height, points} or {id, ok: false, message} out.
import { layoutDagre } from './layout.js';

self.onmessage = (ev) => {
  const { id, boxes, edges } = ev.data;
  try {
    const r = layoutDagre(boxes, edges);
    self.postMessage({ id, ok: true, ...r }, [r.x.buffer, r.y.buffer]);
  } catch (e) {
    self.postMessage({ id, ok: false, message: `the graph could not be laid out: ${e.message || e}` });
  }
};
