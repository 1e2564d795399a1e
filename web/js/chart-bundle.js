// The chart library, bundled into one chunk by tools/build-site.sh: Chart.js
// with every chart type, the zoom and pan plugin (chartjs-plugin-zoom,
// registered for every chart; a chart turns it on in its options), and
// Chart.js's own point drawing, so a legend draws a mark as the chart does.
import { Chart } from 'chart.js/auto';
import { drawPoint } from 'chart.js/helpers';
import zoomPlugin from 'chartjs-plugin-zoom';

Chart.register(zoomPlugin);

export { Chart, drawPoint };
