// The page's export buttons: the share link, the summary as Markdown, the
// layers as CSV, the whole answer as JSON, and each chart as a PNG titled
// like the summary. The formats themselves are export.js's.
import { app, writeUrl, baseName } from './app.js';
import { titleLines } from './summary.js';
import { toCSV, toMarkdown, download, downloadDataUrl, copyText } from './export.js';
import { $ } from './dom.js';

async function copyLink() {
  const url = await writeUrl();
  const out = $('share-link');
  out.textContent = url;
  out.dataset.link = url;
  $('copy-link').dataset.link = url;
  if (await copyText(url)) out.textContent = `Copied: ${url}`;
}

async function copyMarkdown() {
  if (!app.res) return;
  const url = await writeUrl();
  const md = toMarkdown(app.res, { file: app.fileName, link: url, localFile: !!app.state.localFile });
  $('copy-md').dataset.markdown = md;
  const ok = await copyText(md);
  $('share-link').textContent = ok ? 'Summary copied as Markdown.' : md;
}

/** A chart (of the Charts view or of a what-if view) as a PNG with the title lines. */
function downloadPng(button) {
  if (!app.res) return;
  const caption = button.closest('figure').querySelector('.title').textContent;
  const lines = [...titleLines(app.res), `rooflens · ${caption}`];
  const key = button.dataset.chart || button.dataset.whatifChart;
  const data = button.dataset.chart ? app.charts.png(key, lines) : app.whatif.png(key, lines);
  if (data) downloadDataUrl(`${baseName()}-${key}.png`, data);
}

export function wireExports() {
  $('copy-link').addEventListener('click', copyLink);
  $('copy-md').addEventListener('click', copyMarkdown);
  $('dl-csv').addEventListener('click', () => { if (app.res) download(`${baseName()}.csv`, toCSV(app.table.sortedLayers()), 'text/csv'); });
  $('dl-json').addEventListener('click', () => { if (app.res) download(`${baseName()}.json`, JSON.stringify(app.res, null, 1), 'application/json'); });
  for (const b of document.querySelectorAll('button.png')) b.addEventListener('click', () => downloadPng(b));
}
