// The page from its URL: a link's settings, its model (after the user's yes
// for a URL from anywhere) and the model it is compared with; and the
// warm-up analysis while no model is open.
import { app, notice, writeUrl, currentProfile, exampleUrl } from './app.js';
import { syncControls } from './controls.js';
import { analyze, clearModel } from './analysis.js';
import { openModel, askToOpen, hideConfirm } from './opening.js';
import { fromLocation, buildRequest } from './state.js';
import { needsConfirmation } from './url-policy.js';
import { $ } from './dom.js';

/** Applies the URL to the page: settings, the model, then the model it is
 * compared with (compare.js). */
export async function restore() {
  await restoreMain();
  await app.compare.restore();
}

async function restoreMain() {
  // The core judges a custom profile from the link before it is used.
  // The precisions a link may name are the core's: wait for it (a failed
  // module is reported by main()).
  await app.client.ready.catch(() => {});
  const { state, problems } = await fromLocation(location.hash, location.search, app.catalog.ids(),
    { checkProfile: (obj) => app.editor.check(obj), pageLocal: app.pageLocal,
      precisions: (app.client.precisions || []).map((p) => p.name) });
  const prev = app.state;
  app.state = state;
  app.linkState = true;
  const ignored = problems.length ? `Parts of the link could not be used and were ignored (${problems.join('; ')}); the rest of the view is restored.` : '';
  notice(ignored);
  syncControls();
  app.whatif.sync();
  app.llm.sync();
  const measuredNote = app.measured.restored(state); // said after the other notices
  if (state.hw === 'custom') { $('hw-select').value = 'custom'; app.editor.prefill(); }
  const sameModel = app.info && ((state.modelUrl && state.modelUrl === prev.modelUrl) || (state.example && state.example === prev.example));
  if (sameModel) { await analyze(); app.measured.addNotice(measuredNote); return; }
  hideConfirm();
  if (state.modelUrl && needsConfirmation(state.modelUrl)) {
    // A link from anywhere must not make the page fetch from anywhere: ask.
    clearModel();
    askToOpen(state.modelUrl);
    await writeUrl();
    return;
  }
  app.restoring = true;
  if (state.modelUrl) await openModel(state.modelUrl, { label: state.modelUrl, kind: 'url' });
  else if (state.example) await openModel(state.example, { label: state.example, kind: 'example' });
  else {
    app.restoring = false;
    // A link made with a local file names a model this tab may not have:
    // another model open here is put away, not shown under the link's name
    // (the same file, still open, stays).
    const sameFile = !!state.localFile && !!app.info && !prev.modelUrl && !prev.example && prev.localFile === state.localFile;
    if (state.localFile && app.info && !sameFile) clearModel();
    if (state.localFile) {
      notice(`This link was made with the local file “${state.localFile}”: its settings are restored; drop the file again (or open it) to see the analysis.` +
        (problems.length ? ` ${ignored}` : ''));
      app.state.localFile = state.localFile;
    }
    if (app.info) await analyze(); else await writeUrl();
  }
  app.measured.addNotice(measuredNote);
}

/** While no model is open, the worker analyses the site's warm-up example
 * on the chosen device (whose profile this also fetches): the first real
 * analysis then runs code the engine has already optimised. */
export async function warmUp() {
  const ex = app.examples.find((e) => e.id === app.warmUpExample);
  if (ex && !app.info && app.openId === null) {
    try {
      await app.client.warmUp(exampleUrl(ex.id), buildRequest({ ...app.state, dims: { ...ex.dims } }, await currentProfile(), { batchDefault: 1 }));
    } catch { /* the page works cold */ }
  }
  // The page has settled: tools/bench/browser.mjs times drops from here.
  document.body.dataset.warm = '1';
  performance.mark('rooflens-warm');
}

