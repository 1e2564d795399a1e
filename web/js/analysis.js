// One analysis of the open model: the request from the state, the core's
// answer drawn by every view (summary, table, charts, side views), or the
// page cleared of a model's figures. Stale answers are dropped by sequence.
import { app, showError, writeUrl, unsetDims, request } from './app.js';
import { fillDims, updateCount } from './controls.js';
import { renderSummary, markReadFigures } from './summary.js';
import { loadChartLibrary } from './chart-lib.js';
import { $, el } from './dom.js';

const EXPORT_BUTTONS = ['copy-md', 'dl-csv', 'dl-json'];

/** The export buttons are usable only while figures are shown. */
function disableExports() {
  for (const b of EXPORT_BUTTONS) $(b).disabled = true;
  for (const b of document.querySelectorAll('button.png')) b.disabled = true;
}

function enableExports() {
  for (const b of EXPORT_BUTTONS) $(b).disabled = false;
  for (const b of document.querySelectorAll('button.png[data-chart]')) b.disabled = !app.charts.charts[b.dataset.chart];
  for (const b of document.querySelectorAll('button.png[data-whatif-chart]')) b.disabled = false;   // their views draw on demand
}

function resetOpFilter() {
  const fo = $('filter-op');
  fo.textContent = '';
  fo.appendChild(el('option', 'all', { value: '' }));
  return fo;
}

/** Removes every trace of the open model: info, figures, table, charts,
 * what-if results, dims, op filter and exports. */
export function clearModel() {
  app.seq++;               // an analysis still under way is dropped
  app.info = null;
  app.res = null;
  app.read = null;
  app.fileName = null;
  const s = $('summary');
  s.textContent = '';
  s.hidden = true;
  for (const k of Object.keys(s.dataset)) if (k !== 'testid') delete s.dataset[k];
  delete document.body.dataset.hasModel;
  $('empty').hidden = false;
  $('dims-needed').hidden = true;
  $('dims').textContent = '';
  resetOpFilter();
  app.table.setData([]);
  $('table-count').textContent = '';
  app.charts.clear();
  app.graph.clear();
  app.modules.update(null);
  disableExports();
  app.whatif?.clear();
  app.llm?.setModel(null);
  app.measured?.render(null);
  app.parallel?.update(null);
  app.compare?.refresh();
  document.title = 'rooflens — where the time and energy of an ONNX model go';
}

export async function analyze() {
  if (!app.info) { await writeUrl(); return; }
  const seq = ++app.seq;
  if (unsetDims().length) {
    // No invented value: until the user sets the open sizes, no figures.
    hideResults();
    fillDims();
    await writeUrl();
    return;
  }
  let res;
  try {
    // Chart.js loads beside the first analysis (chart-lib.js); if it cannot, the charts say so.
    const answered = Promise.all([app.client.analyze(app.measured.decorate(await request())), loadChartLibrary().catch(() => null)]);
    await writeUrl();   // while the worker analyses: the link to what is being analysed
    [res] = await answered;
  } catch (e) {
    if (seq !== app.seq) return;
    showError(e, 'Analysis failed');
    return;
  }
  if (seq !== app.seq) return;
  performance.mark('rooflens-analyzed');
  if (!res.ok) {
    hideResults();
    showError(res.error, 'Analysis failed');
    await writeUrl();
    return;
  }
  showError(null);
  render(res);
  performance.mark('rooflens-rendered');
  app.whatif.refresh();
  app.llm.refresh();
  app.compare.refresh();
  await writeUrl();
}

/** No figures for the open model (its dims are not set, or the analysis failed). */
function hideResults() {
  app.res = null;
  $('summary').hidden = true;
  delete document.body.dataset.hasModel;
  $('empty').hidden = true;
  disableExports();
}

/** The op filter's menu: the ops of this answer (a filter on an op it lacks is dropped). */
function fillOpFilter(res) {
  const ops = [...new Set(res.layers.map((l) => l.op))].sort();
  const fo = resetOpFilter();
  for (const op of ops) fo.appendChild(el('option', op, { value: op }));
  if (app.state.filterOp && !ops.includes(app.state.filterOp)) app.state.filterOp = '';
  fo.value = app.state.filterOp;
}

function render(res) {
  app.res = res;
  $('empty').hidden = true;
  $('dims-needed').hidden = true;
  document.body.dataset.hasModel = '1';
  renderSummary(res);
  markReadFigures();
  performance.mark('rooflens-summary');
  fillOpFilter(res);
  const t = app.table;
  t.sort = app.state.sort;
  t.filterOp = app.state.filterOp;
  t.filterName = app.state.filterName;
  t.group = app.state.group;
  t.selected = app.state.selected;
  // the totals row: the core's totals, and the model's forecast beside its floor
  t.setData(res.layers, { ...res.totals, forecast_s: res.forecast?.time_s, headroom: res.forecast?.headroom });
  updateCount();
  performance.mark('rooflens-table');
  app.measured.render(res);   // before the charts: they draw its achieved points
  app.charts.selected = app.state.selected;
  app.charts.update(res, { staggered: true });   // the time roofline now, the other two after this frame
  performance.mark('rooflens-charts');
  app.parallel?.update(res);
  if (app.state.selected !== null) t.select(app.state.selected);
  // The graph and module views build their tree after the frame that shows the
  // summary, table and charts (a 100,000-layer tree takes a few hundred ms).
  requestAnimationFrame(() => setTimeout(() => {
    if (app.res !== res) return;
    app.graph.selected = app.state.selected;
    app.graph.update(res);
    app.modules.update(res);
  }, 0));
  fillDims();
  enableExports();
  document.title = `${app.fileName} on ${res.hardware.name} — rooflens`;
}

/** A layer picked in one view (table, chart, measured) is picked in all. */
export function select(index, from) {
  app.state.selected = index;
  if (from !== 'table') app.table.select(index);
  else { app.table.selected = index; app.table.lastRange = null; app.table.render(); }
  app.charts.select(index);
  if (from !== 'graph') app.graph.select(index);
  writeUrl();
}
