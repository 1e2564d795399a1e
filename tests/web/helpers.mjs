// Shared helpers for the web tests (node --test tests/web/).
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync, existsSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { join, dirname, extname, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const SITE = join(ROOT, 'build/site');
export const CLI = join(ROOT, 'build/rooflens');
export const NODE_WASM = join(ROOT, 'build-wasm/wasm/rooflens-node.mjs');
export const FIXTURES = join(ROOT, 'tests/fixtures');

/** Loads the node-environment WASM build wrapped in web/js/core.js. */
export async function loadNodeCore() {
  // Emscripten 3.1.6's ES6 glue for Node uses require and __dirname, which
  // ES modules lack: provide them, and hand it the wasm bytes directly.
  globalThis.require ??= createRequire(import.meta.url);
  globalThis.__dirname ??= dirname(NODE_WASM);
  const { default: createRooflens } = await import(pathToFileURL(NODE_WASM).href);
  const wasmBinary = readFileSync(NODE_WASM.replace(/\.mjs$/, '.wasm'));
  const mod = await createRooflens({ wasmBinary });
  const { RooflensCore } = await import(pathToFileURL(join(ROOT, 'web/js/core.js')).href);
  return new RooflensCore(mod);
}

/** Runs the native CLI and returns its parsed JSON output. */
export function cliJson(model, args = ['--hw', 'h100-sxm']) {
  let out;
  try {
    out = execFileSync(CLI, [model, ...args, '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  } catch (e) {
    out = e.stdout; // exit 3 on a bad model still prints JSON
  }
  return JSON.parse(out);
}

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.css': 'text/css', '.json': 'application/json', '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream', '.svg': 'image/svg+xml', '.png': 'image/png',
};

/** A static file server for `root` on a free localhost port. Extra options:
 * cors (send Access-Control-Allow-Origin). Returns {url, close}. */
export async function serve(root = SITE, { cors = false } = {}) {
  const server = createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    let p = decodeURIComponent(u.pathname);
    if (p.endsWith('/')) p += 'index.html';
    const file = resolve(root, '.' + p);
    if (!(file === root || file.startsWith(root + sep)) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, cors ? { 'Access-Control-Allow-Origin': '*' } : {}); res.end('not found'); return;
    }
    const headers = { 'Content-Type': TYPES[extname(file)] || 'application/octet-stream', 'Cache-Control': 'no-store' };
    if (cors) headers['Access-Control-Allow-Origin'] = '*';
    res.writeHead(200, headers);
    res.end(readFileSync(file));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((ok) => server.close(ok)), server };
}

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-dev-shm-usage'];

export function chromiumPath() {
  for (const p of [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']) {
    if (p && existsSync(p)) return p;
  }
  return null;
}

/** What the browser tests need, checked once per file: playwright-core,
 * Debian's chromium and the built site, plus `also` ([path, how to make it]
 * pairs). Returns {chromium, exe, skip}: `skip` is node:test's skip option
 * (false, or what is missing). */
export async function browserPrerequisites(also = []) {
  let chromium = null;
  try { ({ chromium } = await import('playwright-core')); } catch { /* reported by skip */ }
  const exe = chromiumPath();
  const missing = [];
  if (!chromium) missing.push('playwright-core (npm install)');
  if (!exe) missing.push('chromium (apt-get install chromium)');
  if (!existsSync(join(SITE, 'index.html'))) missing.push('build/site (tools/build-site.sh)');
  for (const [path, how] of also) if (!existsSync(path)) missing.push(how);
  return { chromium, exe, skip: missing.length ? `missing: ${missing.join(', ')}` : false };
}

/**
 * The one page set-up of the browser tests: a fresh context and page that
 * records page errors, console errors and CSP violations (page.problems),
 * dialogs (page.dialogs, dismissed) and requests (page.requests), opened at
 * `url` and waited on until the page is ready (body[data-ready]).
 * opts: viewport ({width, height}), wait ('ready' | 'interactive' | null),
 * clipboard (grant clipboard access), downloads.
 */
/** The site's server and one Chromium for a browser test file, started in
 * a node:test before() hook and closed in after(); `use(site, browser)`
 * hands them to the file once started (nothing is started when `skip`). */
export function browserSession({ chromium, exe, skip }, use) {
  let site = null, browser = null;
  before(async () => {
    if (skip) return;
    site = await serve(SITE);
    browser = await chromium.launch({ executablePath: exe, args: CHROMIUM_ARGS });
    use(site, browser);
  });
  after(async () => {
    await browser?.close();
    await site?.close();
  });
}

export async function openPage(browser, url, { viewport = { width: 1400, height: 1000 }, wait = 'ready', clipboard = false } = {}) {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  if (clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
  const page = await context.newPage();
  page.problems = [];
  page.dialogs = [];
  page.requests = [];
  page.on('dialog', (d) => { page.dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  context.on('request', (r) => page.requests.push(r.url()));
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error' || /Content.Security.Policy/i.test(m.text())) page.problems.push(`console: ${m.text()}`); });
  await page.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(url);
  if (wait) await page.waitForSelector(`body[data-${wait}="1"]`, { timeout: 30000 });
  return page;
}

/** The site, one Chromium and the WebAssembly core (Node build) for a file
 * that checks the page against the core: browserSession's, plus the core
 * loaded in a before() hook. Returns a holder whose `site`, `browser` and
 * `core` are set once started (nothing is started when `skip`). */
export function pageAndCoreSession(prerequisites) {
  const session = { site: null, browser: null, core: null };
  browserSession(prerequisites, (site, browser) => Object.assign(session, { site, browser }));
  before(async () => {
    if (!prerequisites.skip) session.core = await loadNodeCore();
  });
  return session;
}

/** openPage on the session's site at `hash` (or a whole URL). */
export function openAt(session, hash, opts) {
  return openPage(session.browser, hash.startsWith('http') ? hash : `${session.site.url}#${hash}`, opts);
}

/** A shipped hardware profile (hw/ID.json), as the page sends it. */
export const profile = (id) => JSON.parse(readFileSync(join(ROOT, 'hw', `${id}.json`), 'utf8'));

/** The request the page sends for its default options (precision model,
 * inference, fused, intended granularity; no layer rows) on profile `hwId`,
 * with `extra` merged in. */
export function pageRequest(hwId, extra = {}) {
  return { hardware: profile(hwId), precision: 'model', mode: 'inference', sol: 'fused', granularity: 'intended',
    dims: {}, layers: false, ...extra };
}

/** A file read by the WebAssembly core into a model handle (asserted). */
export function coreModel(core, path) {
  const r = core.readAll(new Uint8Array(readFileSync(path)));
  assert.ok(r.model, `read ${path}: ${r.error}`);
  return r.model;
}

/** The core's answer (asserted ok) to the page's request for `model` on `hwId` with `extra`. */
export function coreAnswer(core, model, hwId, extra = {}) {
  const res = JSON.parse(core.analyze(model, JSON.stringify(pageRequest(hwId, extra))));
  assert.equal(res.ok, true, JSON.stringify(res.error));
  return res;
}

/** Waits until the LLM panel has drawn an answer (after `prev`, the
 * data-ms of the answer before, when given) and asserts it is not an error. */
export async function llmPanelDone(page, prev = null, timeout = 60000) {
  await page.waitForFunction((before) => {
    const p = document.querySelector('[data-testid=llm-panel]');
    return ['done', 'error'].includes(p?.dataset.state) && p.dataset.ms !== before;
  }, prev, { timeout });
  assert.equal(await page.getAttribute('[data-testid=llm-panel]', 'data-state'), 'done',
    await page.locator('[data-testid=llm-panel] .whatif-msg').textContent());
}

/** The figure an element shows (its data-value): a number, or true/false. */
export async function dataValue(page, testid) {
  const v = await page.getAttribute(`[data-testid=${testid}]`, 'data-value');
  return v === 'true' ? true : v === 'false' ? false : Number(v);
}

/** Waits until the summary shows `n` layers (an analysis finished). */
export async function waitLayers(page, n, timeout = 30000) {
  await page.waitForFunction((want) => document.querySelector('[data-testid=summary]')?.dataset.layers === String(want), n, { timeout });
}

/** Opens a model URL named by a link: the page asks first; this confirms. */
export async function confirmModelUrl(page) {
  await page.waitForSelector('[data-testid=confirm-url-open]', { state: 'visible', timeout: 20000 });
  await page.click('[data-testid=confirm-url-open]');
}
