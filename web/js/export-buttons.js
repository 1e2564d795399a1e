// The page's export buttons: the share link, the summary as Markdown, the
// layers as CSV, the whole answer as JSON, and each chart as a PNG titled
// like the summary. The formats themselves are export.js's.
import { app, writeUrl, baseName, request } from './app.js';
import { titleLines } from './summary.js';
import { csvRequest, csvOfAnswer, toMarkdown, download, downloadDataUrl, copyText } from './export.js';
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
  let md;
  try {
    // a decoder's Markdown gives its LLM view's answer, as the headline does
    md = await toMarkdown(app.res, { file: app.fileName, link: url, localFile: !!app.state.localFile, llm: app.llm?.answer || null },
      (texts) => app.client.markdownText(texts));
  } catch (e) {
    $('share-link').textContent = `Could not write the Markdown: ${e.message || e}`;
    return;
  }
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

/** What the table's filter keeps, in words ('' when it keeps every row). */
function filterWords() {
  const st = app.state, parts = [];
  if (st.filterOp) parts.push(`op ${st.filterOp}`);
  if (st.filterName) parts.push(`name contains "${st.filterName}"`);
  return parts.join(', ');
}

/** The rows the table shows, in its order, as the core writes them (the
 * command line's CSV); a filtered set says so in its file name and first
 * line. */
async function downloadCsv() {
  if (!app.res) return;
  const rows = app.table.sortedLayers(), what = filterWords();
  try {
    const { promise } = app.client.send({ type: 'analyze', request: JSON.stringify(csvRequest(app.measured.decorate(await request()), rows, what)) });
    download(`${baseName()}${what ? '-filtered' : ''}.csv`, csvOfAnswer((await promise).bytes), 'text/csv');
  } catch (e) {
    $('share-link').textContent = `Could not write the CSV: ${e.message || e}`;
  }
}

export function wireExports() {
  $('copy-link').addEventListener('click', copyLink);
  $('copy-md').addEventListener('click', copyMarkdown);
  $('dl-csv').addEventListener('click', downloadCsv);
  $('dl-json').addEventListener('click', () => { if (app.res) download(`${baseName()}.json`, JSON.stringify(app.res, null, 1), 'application/json'); });
  for (const b of document.querySelectorAll('button.png')) b.addEventListener('click', () => downloadPng(b));
}
