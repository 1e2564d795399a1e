// The page's entry: builds the views, each with the page's one host (host.js).
// The controller is split by job: app.js (shared state, messages, the URL,
// the request), controls.js (settings and filters), opening.js (files, URLs,
// examples), analysis.js (one analysis drawn everywhere), summary.js,
// export-buttons.js and restore.js (the page from its URL). All strings from
// models and profiles are shown with textContent (dom.js). Headline figures
// come from figures.js only.
import { app, showError } from './app.js';
import { fillHardware, fillPrecisions, fillWords, wireControls } from './controls.js';
import { analyze, clearModel } from './analysis.js';
import { fillExamples, wireOpening } from './opening.js';
import { wireExports } from './export-buttons.js';
import { restore, warmUp } from './restore.js';
import { host } from './host.js';
import { CoreClient } from './client.js';
import { LayerTable } from './table.js';
import { Charts } from './charts.js';
import { WhatIfViews } from './whatif.js';
import { ProfileEditor } from './profile-editor.js';
import { LlmPanel } from './llm.js';
import { wireTerms } from './summary.js';
import { MeasuredView } from './measured.js';
import { CompareView } from './compare.js';
import { ParallelView } from './parallel.js';
import { GraphView } from './graph-view.js';
import { ModuleView } from './module-view.js';
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

/** The layer table, the charts and the graph views, which exist before any
 * list has loaded. Every view gets the page's one host (host.js). */
function buildMainViews() {
  app.table = new LayerTable($('table-scroll'), $('layer-table'), host);
  // the graph and module views (issue 28), laid out by the layout worker
  host.startLayout();
  app.graph = new GraphView($('graph-box'), host);
  app.modules = new ModuleView($('module-box'), host);
  app.charts = new Charts({ time: $('chart-time'), energy: $('chart-energy'), timeBased: $('chart-time-based') }, host);
}

/** The side views: several devices, what-if, LLM, measured, compare and the profile editor. */
function buildSideViews() {
  app.parallel = new ParallelView($('devices-body'), host);
  app.whatif = new WhatIfViews($('whatif'), host);
  app.llm = new LlmPanel($('llm-panel'), host);
  app.measured = new MeasuredView($('measured'), host);
  app.compare = new CompareView($('diff-models'), host);
  app.compare.fillExamples();
  app.editor = new ProfileEditor($('custom-hw'), host);
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
