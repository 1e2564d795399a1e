// The chart library (chart-bundle.js: Chart.js and its zoom plugin, bundled
// by tools/build-site.sh into a chunk of its own), loaded once the page is
// interactive: charts are drawn only for an analysed model, so its script
// stays off the page's start. Views take the class from chartClass();
// main.js awaits loadChartLibrary() beside the first analysis, so every view
// that draws has it by then.

let ChartClass = null;
let pointDrawer = null;
let loading = null;

/** Starts loading the chart library (once). Resolves to the Chart class;
 * rejects when the chunk cannot be fetched. */
export function loadChartLibrary() {
  loading ??= import('./chart-bundle.js').then((m) => {
    ChartClass = m.Chart;
    pointDrawer = m.drawPoint;
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

/** Chart.js's drawPoint(ctx, {pointStyle, radius, rotation, borderWidth}, x, y),
 * or null until loaded: a legend draws its marks with it. */
export function chartDrawPoint() {
  return pointDrawer;
}
