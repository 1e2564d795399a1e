// The page's entry: builds the views and hands them the controller's parts.
// The controller is split by job: app.js (shared state, messages, the URL,
// the request), controls.js (settings and filters), opening.js (files, URLs,
// examples), analysis.js (one analysis drawn everywhere), summary.js,
// export-buttons.js and restore.js (the page from its URL). All strings from
// models and profiles are shown with textContent (dom.js). Headline figures
// come from figures.js only.
import { app, showError, notice, writeUrl, baseName, currentProfile, request, plainRequest, exampleUrl, prefillDims } from './app.js';
import { fillHardware, fillPowerModes, fillPrecisions, fillWords, wireControls, applyCustomProfile, updateCount } from './controls.js';
import { analyze, clearModel, select } from './analysis.js';
import { fillExamples, wireOpening } from './opening.js';
import { wireExports } from './export-buttons.js';
import { restore, warmUp } from './restore.js';
import { CoreClient } from './client.js';
import { LayerTable } from './table.js';
import { Charts } from './charts.js';
import { WhatIfViews } from './whatif.js';
import { ProfileEditor } from './profile-editor.js';
import { LlmPanel } from './llm.js';
import { showLlmHeadline, wireTerms } from './summary.js';
import { MeasuredView } from './measured.js';
import { CompareView } from './compare.js';
import { ParallelView } from './parallel.js';
import { hasChipLinks } from './parallel-state.js';
import { GraphView } from './graph-view.js';
import { ModuleView } from './module-view.js';
import { LayoutClient } from './layout-client.js';
import { loadChartLibrary } from './chart-lib.js';
import { warmCharts } from './chart-kit.js';
import { $, el } from './dom.js';

/** In a frame, another site could dress the page up and catch clicks: refuse. */
function refuseFramed() {
  document.body.textContent = '';
  const box = el('div', null, { class: 'framed', role: 'alert' });
  box.appendChild(el('h1', 'rooflens does not run inside a frame'));
  box.appendChild(el('p', 'Another page has embedded rooflens. To protect what you do with it, the page runs only on its own.'));
  const a = el('a', 'Open rooflens on its own', { href: location.href, target: '_blank', rel: 'noopener noreferrer' });
  box.appendChild(a);
  document.body.appendChild(box);
  document.body.dataset.framed = '1';
}

function isFramed() {
  try { return window.top !== window.self; } catch { return true; }
}

/** The layer table and the charts, which exist before any list has loaded. */
function buildMainViews() {
  app.table = new LayerTable($('table-scroll'), $('layer-table'), {
    onSelect: (i) => select(i, 'table'),
    onSort: (sort) => { app.state.sort = sort; writeUrl(); },
    onColumns: (cols) => { app.state.cols = cols.join() === app.table.defaultCols ? null : cols; writeUrl(); },
  });
  app.table.defaultCols = app.table.cols.join();
  buildGraphViews();
  app.charts = new Charts({ time: $('chart-time'), energy: $('chart-energy'), timeBased: $('chart-time-based') },
    { onSelect: (i) => select(i, 'chart'), onLegend: (keys) => { app.state.legend = keys; writeUrl(); } });
}

/** The graph and module views (issue 28): laid out by the layout worker;
 * a module picked in the module view filters the table to its layers. */
function buildGraphViews() {
  const layout = new LayoutClient();
  app.graph = new GraphView($('graph-box'), {
    layout: (key, boxes, edges) => layout.layout(key, boxes, edges),
    onSelect: (i) => select(i, 'graph'), fileKey: () => app.fileName || '', baseName,
    onDiffView: setDiffView,
  });
  app.modules = new ModuleView($('module-box'), {
    onZoom: (path) => {
      app.state.filterName = path ? path + '/' : '';
      $('filter-name').value = app.state.filterName;
      app.table.setFilter(app.state.filterOp, app.state.filterName);
      updateCount();
      writeUrl();
    },
  });
}

/** The graph and module views of a comparison (compare.js hands the diff
 * and both models' answers): what the state's diffView and diffFigure say. */
function showComparison() {
  const st = app.state;
  app.graph.setComparison(app.comparison, st.diffView, st.diffFigure);
  app.modules.setComparison(app.comparison, st.diffView, st.diffFigure);
}

/** The comparison's view chosen (graph-view.js or compare.js's button). */
function setDiffView(view, figure = app.state.diffFigure) {
  app.state.diffView = view;
  app.state.diffFigure = figure;
  showComparison();
  writeUrl();
  if (view && !$('graph-box').hidden) $('graph-box').scrollIntoView({ block: 'start' });
}

/** The side views: what-if, LLM, measured, compare and the profile editor. */
function buildSideViews() {
  app.parallel = new ParallelView($('devices-body'), {
    state: () => app.state,
    deviceName: () => (app.state.hw === 'custom' ? 'the edited profile' : app.catalog.byId.get(app.state.hw)?.name || app.state.hw),
    hasLinks: () => (app.state.hw === 'custom' ? hasChipLinks(app.state.custom?.interconnect) : !!app.catalog.byId.get(app.state.hw)?.links),
    profile: currentProfile,
    onPlan: () => analyze(),
    onGroups: () => { writeUrl(); app.whatif.refresh(); },
  });
  app.whatif = new WhatIfViews($('whatif'), {
    client: app.client, catalog: app.catalog, state: () => app.state, hasModel: () => !!app.res,
    ownProfile: currentProfile, request, devices: app.parallel,
    onChange: () => writeUrl(),
    usePowerMode: (id) => { app.state.powerMode = id; fillPowerModes(); analyze(); },
  });
  app.llm = new LlmPanel($('llm-panel'), {
    client: app.client, state: () => app.state, request: plainRequest,
    onChange: () => writeUrl(), onPoints: (points) => app.charts.setExtra(points), onAnswer: showLlmHeadline,
    onPrompt: () => { if (!Object.keys(prefillDims()).length) return false; analyze(); return true; },
  });
  app.measured = new MeasuredView($('measured'), {
    client: app.client, hasModel: () => !!app.info, result: () => app.res, state: () => app.state,
    request: plainRequest, reanalyze: analyze,
    select: (i) => select(i, 'measured'), showError, notice, writeUrl, baseName,
    exampleProfile: () => {
      const m = app.examples.find((e) => e.id === app.state.example)?.measured;
      return m ? { ...m, url: new URL(`samples/${m.file}`, document.baseURI).href } : null;
    },
  });
  app.charts.extraTimeSets = () => app.measured.timeSets();
  app.compare = new CompareView($('diff-models'), {
    client: app.client, state: () => app.state, hasModel: () => !!app.info, request: plainRequest,
    mainLabel: () => app.fileName || 'model', examples: () => app.examples, exampleUrl, pageLocal: () => app.pageLocal,
    onChange: () => writeUrl(),
    result: () => app.res, graphRequest: request,
    onDiff: (c) => { app.comparison = c; showComparison(); },
    onDiffView: setDiffView,
  });
  app.compare.fillExamples();
  app.editor = new ProfileEditor($('custom-hw'), {
    client: app.client, catalog: app.catalog, state: () => app.state, onApply: applyCustomProfile, onError: showError,
  });
}

/** Skip links move the focus to their section without writing the URL's
 * hash, which holds the page's state (a "#layers" there would be read as a
 * link to restore). */
function wireSkipLinks() {
  for (const a of document.querySelectorAll('a.skip-link')) {
    a.addEventListener('click', (ev) => {
      const target = document.getElementById(a.getAttribute('href').slice(1));
      if (!target) return;
      ev.preventDefault();
      target.focus();
      target.scrollIntoView({ block: 'start' });
    });
  }
}

/** The examples' list (samples/index.json); an empty list when there is none. */
function loadExamples() {
  return fetch(new URL('samples/index.json', document.baseURI))
    .then((r) => (r.ok ? r.json() : {}), () => ({})).then((j) => { app.warmUpExample = j.warm_up; return j.examples || []; }, () => []);
}

async function main() {
  if (isFramed()) { refuseFramed(); return; }
  app.analyze = analyze;
  wireSkipLinks();
  wireTerms();
  buildMainViews();
  app.client = new CoreClient();
  app.client.ready.then((v) => { $('version').textContent = `core ${v}`; fillPrecisions(); fillWords(); }, (e) => showError({ code: 'wasm_failed', message: e.message }));
  const examples = loadExamples();   // the two lists load side by side
  try {
    await app.catalog.load();
  } catch (e) {
    showError(e, 'Could not load the hardware profiles');
    return;
  }
  fillHardware();
  app.examples = await examples;
  fillExamples();
  buildSideViews();
  wireOpening();
  wireControls();
  wireExports();
  window.addEventListener('hashchange', () => { if (location.hash !== app.writtenHash) restore(); });
  clearModel();
  // Controls work from here on (a model named in the link may still be loading).
  document.body.dataset.interactive = '1';
  performance.mark('rooflens-interactive');
  loadChartLibrary().catch(() => {});   // the charts' library, off the page's start
  await restore();
  warmUp();
  if (!app.info) warmCharts();   // Chart.js's first-chart costs, paid before a drop
  document.body.dataset.ready = '1';
  performance.mark('rooflens-ready');
}

main();
