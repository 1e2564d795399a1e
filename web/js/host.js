// The page's one host, as Netron's View(host): every view is built as
// `new View(root, host)` and asks the host for what the page holds, and tells
// it what happened, instead of taking a bag of callbacks of its own. A view
// never reaches into the controller (app.js) or into another view; what one
// view needs of another goes through a host member named for it.
//
// What a view may ask: the state and the answer, the core's client, the
// catalogue of profiles, the requests, names (file, device, examples).
// What it may tell: a layer picked, the state changed (the URL follows), the
// analysis to run again, a message, and the page-level events below.
import { app, showError, notice, writeUrl, baseName, currentProfile, request, plainRequest, exampleUrl, prefillDims } from './app.js';
import { analyze, select } from './analysis.js';
import { fillPowerModes, applyCustomProfile, updateCount } from './controls.js';
import { showLlmHeadline } from './summary.js';
import { hasChipLinks } from './parallel-state.js';
import { LayoutClient } from './layout-client.js';
import { $ } from './dom.js';

let layoutClient = null;   // its worker starts with the page's views (startLayout), not on import
const chosenProfile = () => (app.state.hw === 'custom' ? null : app.catalog.byId.get(app.state.hw));

export const host = {
  // ------------------------------------------------ what the page holds
  get client() { return app.client; },
  get catalog() { return app.catalog; },
  state: () => app.state,
  /** The page's answer (rl_model_analyze), null while there is none. */
  result: () => app.res,
  /** A model is open (read, maybe not analysed yet). */
  hasModel: () => !!app.info,
  /** The page's analysis has an answer. */
  hasAnswer: () => !!app.res,
  /** The page's request, for a view that adds its own member (a study, the LLM view, a profile). */
  request: () => plainRequest(),
  /** The request of the page's own analysis (the graph, the batch control's default). */
  analysisRequest: () => request(),
  /** The chosen device's profile (the edited one for 'custom'). */
  profile: () => currentProfile(),
  deviceName: () => (app.state.hw === 'custom' ? 'the edited profile' : chosenProfile()?.name || app.state.hw),
  /** The chosen device has chip-to-chip links (several of it can work together). */
  hasLinks: () => (app.state.hw === 'custom' ? hasChipLinks(app.state.custom?.interconnect) : !!chosenProfile()?.links),
  fileName: () => app.fileName || '',
  baseName: () => baseName(),
  examples: () => app.examples,
  exampleUrl: (id) => exampleUrl(id),
  pageLocal: () => app.pageLocal,
  /** The open example's measured profile: {url, file, about}, or null. */
  exampleProfile: () => {
    const m = app.examples?.find((e) => e.id === app.state.example)?.measured;
    return m ? { ...m, url: new URL(`samples/${m.file}`, document.baseURI).href } : null;
  },
  /** The graph's layout, computed off the page (layout-worker.js). */
  layout: (key, boxes, edges) => (layoutClient ??= new LayoutClient()).layout(key, boxes, edges),
  startLayout: () => { layoutClient ??= new LayoutClient(); },

  // ------------------------------------------------ what a view tells it
  /** A layer picked in a view ('table', 'chart', 'graph', 'measured'): picked in all. */
  select: (index, from) => select(index, from),
  /** The view changed the state: the URL follows. */
  changed: () => writeUrl(),
  /** The view changed what the analysis is of: analyse again. */
  analyze: () => analyze(),
  showError: (e, context) => showError(e, context),
  notice: (text) => notice(text),
  /** Run the power mode the advisor recommends. */
  usePowerMode: (id) => { app.state.powerMode = id; fillPowerModes(); analyze(); },
  /** The module view zoomed into `path` (null: the whole model): the table shows its layers. */
  filterByModule: (path) => {
    app.state.filterName = path ? path + '/' : '';
    $('filter-name').value = app.state.filterName;
    app.table.setFilter(app.state.filterOp, app.state.filterName);
    updateCount();
    writeUrl();
  },
  /** The profile editor's profile is to be used. */
  applyProfile: (profile) => applyCustomProfile(profile),
  /** The LLM view's prefill and decode points for the time roofline (null: none). */
  llmPoints: (points) => app.charts.setExtra(points),
  /** The LLM view's answer: a decoder's headline states it. */
  llmAnswer: (L, res) => showLlmHeadline(L, res),
  /** The LLM view's prompt changed: the page analyses that prefill (false when the model has no such dims). */
  promptChanged: () => {
    if (!Object.keys(prefillDims()).length) return false;
    analyze();
    return true;
  },
  /** The open what-if view runs its study again. */
  refreshStudy: () => app.whatif.refresh(),
  /** The several-devices view (parallel.js), which the what-if views run the study of. */
  devicesView: () => app.parallel,
  /** The measured view's datasets for the time roofline. */
  measuredTimeSets: () => app.measured?.timeSets() || [],
  /** The comparison with another model (compare.js hands the diff and both
   * models' answers; null: none): the graph and module views show what the
   * state's diffView and diffFigure say. */
  comparisonChanged: (c) => {
    app.comparison = c;
    showComparison();
  },
  /** The comparison's view chosen (graph-view.js or compare.js's button). */
  setDiffView: (view, figure = app.state.diffFigure) => {
    app.state.diffView = view;
    app.state.diffFigure = figure;
    showComparison();
    writeUrl();
    if (view && !$('graph-box').hidden) $('graph-box').scrollIntoView({ block: 'start' });
  },
};

function showComparison() {
  const st = app.state;
  app.graph.setComparison(app.comparison, st.diffView, st.diffFigure);
  app.modules.setComparison(app.comparison, st.diffView, st.diffFigure);
}
