// Opening a model: from a file (picker or drop), a typed URL, a link's URL
// (after the user's yes) or an example; the progress while the worker reads
// it; then its first analysis. A profile dropped on the page goes to the
// measured view instead.
import { app, showError, notice, loadContext, writeUrl, modelDims, exampleUrl } from './app.js';
import { fillDims } from './controls.js';
import { analyze, clearModel } from './analysis.js';
import { modelUrlProblem } from './state.js';
import { eng, progressPct } from './format.js';
import { $, el, confirmChoice } from './dom.js';

function setProgress(msg, label) {
  const p = $('progress');
  p.hidden = false;
  const bar = $('progress-bar');
  if (msg.total > 0) { bar.max = msg.total; bar.value = Math.min(msg.offset, msg.total); }
  else bar.removeAttribute('value');
  const pct = msg.total > 0 ? ` (${progressPct(msg.offset, msg.total)})` : '';
  $('progress-text').textContent = `${label}: ${eng(msg.offset, 'B')}${msg.total > 0 ? ' of ' + eng(msg.total, 'B') : ''}${pct}` +
    (msg.skipped ? `, ${eng(msg.skipped, 'B')} of weights skipped` : '');
}

/** The file name a user knows the model by. */
function fileNameOf(source, kind, label) {
  if (kind === 'file') return label;
  if (kind === 'example') return app.examples.find((e) => e.id === label)?.file || `${label}.onnx`;
  try {
    const u = new URL(source);
    return decodeURIComponent(u.pathname.split('/').filter(Boolean).pop() || u.hostname).slice(0, 200);
  } catch { return String(label).slice(0, 200); }
}

/** The state names where the model comes from; a model replacing another
 * starts afresh (no sizes, selection or filters of the old one), but the
 * first model after a link keeps the link's dims, selection and filters (a
 * local file dropped again). */
function noteSource(source, label, kind) {
  const st = app.state;
  st.modelUrl = kind === 'url' ? source : null;
  st.example = kind === 'example' ? label : null;
  st.localFile = kind === 'file' ? label : null;
  if (!app.restoring && !app.linkState) {
    Object.assign(st, { selected: null, dims: {}, filterOp: '', filterName: '', group: false });
    $('filter-name').value = '';
    $('group-op').checked = false;
  }
  app.linkState = false;
}

/** A failed or cancelled read: the model shown before (if any) stays, with
 * its own title, and the message names the file that failed. */
async function openFailed(e, name) {
  app.openId = null;
  $('progress').hidden = true;
  const kept = app.fileName ? ` The analysis of ${app.fileName} is still shown.` : '';
  if (e.cancelled) notice(`Reading ${name} was cancelled.${kept}`);
  else {
    showError(e, loadContext((e.core || e).code, name));
    if (kept) notice(kept.trim());
  }
  app.restoring = false;
  await writeUrl();
}

export async function openModel(source, { label, kind }) {
  if (app.openId !== null) app.client.cancel(app.openId);
  hideConfirm();
  showError(null);
  if (!app.restoring) notice('');
  const name = fileNameOf(source, kind, label);
  // The previous model stays on screen, and usable, until this one is read.
  const { id, promise } = app.client.open(kind === 'example' ? exampleUrl(label) : source, (m) => setProgress(m, name));
  app.openId = id;
  setProgress({ offset: 0, total: source.size ?? -1, skipped: 0 }, name);
  let info, read;
  try {
    ({ info, read } = await promise);
  } catch (e) {
    if (app.openId === id) await openFailed(e, name); // else superseded by a newer open
    return;
  }
  if (app.openId !== id) return;
  app.openId = null;
  $('progress').hidden = true;
  performance.mark('rooflens-opened');
  noteSource(source, label, kind);
  clearModel();                       // nothing of the previous model stays on screen
  app.measured.detach(false);         // a profile belongs to the model it was recorded with
  app.fileName = name;
  app.info = info;
  app.read = read;
  app.llm.setModel(info); // the LLM panel shows when the core found a KV cache
  adoptDims(kind === 'example' ? app.examples.find((e) => e.id === label) : null);
  fillDims();
  await analyze();
  app.restoring = false;
}

/** Keeps the link's dims this model has, takes an example's own dims for
 * the rest, and moves a value for the batch dim to the batch control. */
function adoptDims(example) {
  const st = app.state;
  const { batch, other } = modelDims();
  const names = new Set(other.map((d) => d.name));
  for (const d of batch) {
    if (st.dims[d.name] !== undefined && !st.batch && st.dims[d.name] >= 1) st.batch = st.dims[d.name];
    delete st.dims[d.name];
  }
  for (const k of Object.keys(st.dims)) if (!names.has(k)) delete st.dims[k];
  for (const [k, v] of Object.entries(example?.dims || {})) if (names.has(k) && st.dims[k] === undefined) st.dims[k] = v;
  $('batch-input').value = st.batch ? String(st.batch) : '';
}

/** The examples in the menu and on the empty page. */
export function fillExamples() {
  const exSel = $('example-select');
  const list = $('empty-examples');
  list.textContent = '';
  for (const ex of app.examples) {
    exSel.appendChild(el('option', ex.name, { value: ex.id, title: ex.description || '' }));
    const li = el('li');
    const b = el('button', null, { type: 'button', 'data-example': ex.id });
    b.appendChild(el('span', ex.name));
    if (ex.description) b.appendChild(el('span', ex.description, { class: 'ex-desc' }));
    b.addEventListener('click', () => openModel(ex.id, { label: ex.id, kind: 'example' }));
    li.appendChild(b);
    list.appendChild(li);
  }
}

// ------------------------------------------------- a model URL from a link
export function askToOpen(url) {
  const u = new URL(url);
  $('confirm-url-host').textContent = u.host;
  $('confirm-url-full').textContent = url;
  $('confirm-url').hidden = false;
  app.pendingUrl = url;
  $('confirm-url-open').focus();
}
export function hideConfirm() { $('confirm-url').hidden = true; app.pendingUrl = null; }

function wireUrls() {
  $('url-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const u = $('url-input').value.trim();
    const why = modelUrlProblem(u, { pageLocal: app.pageLocal });   // the same rule as for a link
    if (why) { showError({ code: 'bad_url', message: `cannot open this URL: ${why}`, where: 'URL' }); return; }
    openModel(u, { label: u, kind: 'url' });   // typed by the user: no confirmation
  });
  $('confirm-url-open').addEventListener('click', () => {
    const u = app.pendingUrl;
    hideConfirm();
    if (u) { app.restoring = true; openModel(u, { label: u, kind: 'url' }); }
  });
  $('confirm-url-cancel').addEventListener('click', () => {
    const u = app.pendingUrl;
    hideConfirm();
    app.state.modelUrl = null;
    notice(`The model at ${u ? new URL(u).host : 'the link'} was not opened. The link's other settings are in place: open a model to use them.`);
    writeUrl();
  });
}

/** Several files at once, or a .safetensors file, are a Hugging Face
 * checkpoint (docs/checkpoints.md): config.json, its shards and index,
 * read together; the core tells which file is which. */
const isCheckpoint = (files) => files.length > 1 || /\.safetensors$/i.test(files[0]?.name || '');

/** The name a checkpoint is known by: its folder when the files came from
 * one, else what was given. */
function checkpointLabel(files) {
  const folder = files[0]?.webkitRelativePath?.split('/')[0];
  if (folder) return folder;
  const shards = files.filter((f) => /\.safetensors$/i.test(f.name)).length;
  return `checkpoint (${shards} .safetensors file${shards === 1 ? '' : 's'})`;
}

/** Dropped or chosen files: one model file, a checkpoint's files, or a
 * recorded profile for the open model. */
function openFiles(list) {
  const files = [...(list || [])];
  if (!files.length) return;
  if (isCheckpoint(files)) openModel(files, { label: checkpointLabel(files), kind: 'file' });
  else if (app.measured.accepts(files[0])) app.measured.attach(files[0]);
  else openModel(files[0], { label: files[0].name, kind: 'file' });
}

/** Drag and drop anywhere: a model opens, a recorded profile is attached. */
function wireDrop() {
  let depth = 0;
  const overlay = $('drop-overlay');
  const hasFiles = (ev) => [...(ev.dataTransfer?.types || [])].includes('Files');
  document.addEventListener('dragenter', (ev) => { if (hasFiles(ev)) { depth++; overlay.hidden = false; ev.preventDefault(); } });
  document.addEventListener('dragover', (ev) => { if (hasFiles(ev)) { ev.preventDefault(); ev.dataTransfer.dropEffect = 'copy'; } });
  document.addEventListener('dragleave', () => { if (--depth <= 0) { depth = 0; overlay.hidden = true; } });
  document.addEventListener('drop', (ev) => {
    depth = 0;
    overlay.hidden = true;
    if (!hasFiles(ev)) return;
    ev.preventDefault();
    openFiles(ev.dataTransfer.files);
  });
}

export function wireOpening() {
  $('open-file').addEventListener('click', () => $('file-input').click());
  $('file-input').addEventListener('change', (ev) => {
    const files = [...ev.target.files];
    if (isCheckpoint(files)) openModel(files, { label: checkpointLabel(files), kind: 'file' });
    else if (files[0]) openModel(files[0], { label: files[0].name, kind: 'file' });
    ev.target.value = '';
  });
  // "Try an example": choosing with the keyboard only chooses; Enter or Open example opens
  confirmChoice($('example-select'), $('example-open'), (id) => openModel(id, { label: id, kind: 'example' }));
  $('cancel').addEventListener('click', () => { if (app.openId !== null) app.client.cancel(app.openId); });
  wireUrls();
  wireDrop();
}
