// Chart.js (npm's chart.js, bundled by tools/build-site.sh into a chunk of
// its own), loaded once the page is interactive: charts are drawn only for
// an analysed model, so its 200 KB of script stay off the page's start.
// Views take the class from chartClass(); main.js awaits loadChartLibrary()
// beside the first analysis, so every view that draws has it by then.

let ChartClass = null;
let loading = null;

/** Starts loading Chart.js (once). Resolves to the Chart class; rejects
 * when the chunk cannot be fetched. */
export function loadChartLibrary() {
  loading ??= import('chart.js/auto').then((m) => {
    ChartClass = m.Chart;
    // As the library's own script build does: a console (and the browser
    // tests) reach a chart with Chart.getChart(canvas).
    globalThis.Chart = ChartClass;
    return ChartClass;
  });
  return loading;
}

/** The Chart class, or null until loadChartLibrary() has resolved. */
export function chartClass() {
  return ChartClass;
}
