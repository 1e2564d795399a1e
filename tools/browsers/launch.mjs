// One small page interface over the three browsers the page is checked in,
// so that tools/screenshots.mjs and tools/browsers/smoke.mjs say each step
// once: Debian's Chromium (playwright-core, the CI browser), Firefox ESR
// (puppeteer-core over WebDriver BiDi, headless) and WebKitGTK's MiniBrowser
// (selenium-webdriver against WebKitWebDriver, on a virtual X display from
// xvfb-run). tools/install-deps.sh --browsers installs all three.
//
//   const browser = await launchBrowser('firefox');
//   const page = await browser.open(url, { width: 390, height: 900 });
//   await page.waitFor(() => document.title !== '');
//   await page.shot('[data-testid=summary]', 'out.png');
//   await page.close(); await browser.close();
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { PNG } from 'pngjs';
import { CHROMIUM_ARGS, chromiumPath } from '../../tests/web/helpers.mjs';

export const BROWSERS = ['chromium', 'firefox', 'webkit'];

const FIREFOX = ['/usr/bin/firefox-esr', '/usr/bin/firefox'];
const WEBKIT_DRIVER = '/usr/bin/WebKitWebDriver';
const MINIBROWSER = ['/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser', '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.0/MiniBrowser',
  '/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser'];
const INSTALL = 'run tools/install-deps.sh --browsers';

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
const firstExisting = (paths) => paths.find((p) => p && existsSync(p)) || null;

async function importOrExplain(name) {
  try { return await import(name); } catch { throw new Error(`${name} is not installed: ${INSTALL} (or npm ci)`); }
}

/** Records errors the page throws where the driver cannot report them (WebDriver classic). */
function collectErrorsInPage() {
  if (window.__problems) return;
  window.__problems = [];
  window.addEventListener('error', (e) => window.__problems.push(`pageerror: ${e.message}`));
  window.addEventListener('unhandledrejection', (e) => window.__problems.push(`pageerror: ${e.reason?.message || e.reason}`));
}

/** The steps every driver shares, built on its evaluate(). */
function commonSteps(page) {
  page.text = (sel) => page.evaluate((s) => document.querySelector(s)?.innerText ?? null, sel);
  page.count = (sel) => page.evaluate((s) => document.querySelectorAll(s).length, sel);
  /** Polls `fn(arg)` in the page until it returns something truthy; fails with `what` after `timeout` ms. */
  page.waitFor = async (fn, arg = null, { timeout = 60000, what = String(fn) } = {}) => {
    const end = Date.now() + timeout;
    for (;;) {
      const v = await page.evaluate(fn, arg).catch(() => null);
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out after ${timeout / 1000} s waiting for ${what}`);
      await sleep(150);
    }
  };
  page.waitForSelector = (sel, opts = {}) =>
    page.waitFor((s) => { const e = document.querySelector(s); return !!e && e.getClientRects().length > 0; }, sel, { what: sel, ...opts });
  return page;
}

async function launchChromium() {
  const exe = chromiumPath();
  if (!exe) throw new Error(`chromium not found: ${INSTALL}`);
  const { chromium } = await importOrExplain('playwright-core');
  const browser = await chromium.launch({ executablePath: exe, args: CHROMIUM_ARGS });
  return {
    name: 'chromium', version: `Chromium ${browser.version()}`,
    async open(url, { width, height }) {
      const context = await browser.newContext({ viewport: { width, height } });
      const pw = await context.newPage();
      const page = commonSteps({ problems: [], raw: pw });
      pw.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
      pw.on('console', (m) => { if (m.type() === 'error') page.problems.push(`console: ${m.text()}`); });
      page.evaluate = (fn, arg) => pw.evaluate(fn, arg);
      page.click = (sel) => pw.click(sel);
      page.setFiles = (sel, path) => pw.setInputFiles(sel, path);
      page.type = async (sel, text) => { await pw.fill(sel, text); await pw.press(sel, 'Tab'); };
      page.shot = (sel, path) => (sel ? pw.locator(sel) : pw).screenshot({ path });
      page.close = () => context.close();
      await pw.goto(url);
      return page;
    },
    close: () => browser.close(),
  };
}

async function launchFirefox() {
  const exe = firstExisting([process.env.FIREFOX_PATH, ...FIREFOX]);
  if (!exe) throw new Error(`firefox-esr not found: ${INSTALL}`);
  const { default: puppeteer } = await importOrExplain('puppeteer-core');
  // puppeteer talks WebDriver BiDi to Firefox (its only protocol there since v23).
  const browser = await puppeteer.launch({ browser: 'firefox', executablePath: exe, headless: true });
  return {
    name: 'firefox', version: `Firefox ${(await browser.version()).replace(/^firefox\//, '')}`,
    async open(url, { width, height }) {
      const context = await browser.createBrowserContext();
      const pp = await context.newPage();
      const page = commonSteps({ problems: [], raw: pp });
      pp.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
      pp.on('console', (m) => { if (m.type() === 'error') page.problems.push(`console: ${m.text()}`); });
      await pp.setViewport({ width, height });
      page.evaluate = (fn, arg) => pp.evaluate(fn, arg);
      page.click = (sel) => pp.click(sel);
      page.setFiles = async (sel, path) => (await pp.$(sel)).uploadFile(path);
      page.type = async (sel, text) => {
        await pp.$eval(sel, (e) => { e.value = ''; });
        await pp.type(sel, text);
        await pp.keyboard.press('Tab');
      };
      page.shot = async (sel, path) => (sel ? await pp.$(sel) : pp).screenshot({ path });
      page.close = () => context.close();
      await pp.goto(url);
      return page;
    },
    close: () => browser.close(),
  };
}

async function freePort() {
  const srv = createServer();
  await new Promise((ok) => srv.listen(0, '127.0.0.1', ok));
  const { port } = srv.address();
  await new Promise((ok) => srv.close(ok));
  return port;
}

/** WebKitWebDriver in its own process group under xvfb-run, so that closing ends the X server, the driver and MiniBrowser together. */
async function startWebKitDriver() {
  if (!existsSync(WEBKIT_DRIVER)) throw new Error(`WebKitWebDriver not found: ${INSTALL}`);
  const port = await freePort();
  const style = narrowToolbarStyle();
  const stop = () => { stopGroup(proc); rmSync(style, { recursive: true, force: true }); };
  const proc = spawn('xvfb-run', ['-a', '-s', '-screen 0 1920x2600x24', WEBKIT_DRIVER, `--port=${port}`],
    { detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, XDG_CONFIG_HOME: style } });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  const spawnError = new Promise((_, fail) => proc.on('error', (e) => fail(new Error(`xvfb-run: ${e.message} (${INSTALL})`))));
  const url = `http://127.0.0.1:${port}`;
  const ready = (async () => {
    for (let i = 0; i < 100; i++) {
      if (proc.exitCode !== null) throw new Error(`WebKitWebDriver exited (${proc.exitCode}): ${stderr.trim()}`);
      try { if ((await fetch(`${url}/status`)).ok) return; } catch { /* not listening yet */ }
      await sleep(200);
    }
    throw new Error(`WebKitWebDriver did not answer on ${url} in 20 s: ${stderr.trim()}`);
  })();
  try { await Promise.race([ready, spawnError]); } catch (e) { stop(); throw e; }
  return { url, stop };
}

/**
 * MiniBrowser's toolbar keeps its window at least about 450 px wide, wider
 * than a phone. A GTK style that shrinks the toolbar's widgets to nothing
 * lets the window (and so the page) be 390 px wide. It is meant for the
 * browser's own widgets: WebKitGTK draws the page's form controls itself, and
 * the page looks the same with and without it.
 * Returns the XDG config folder that holds it.
 */
function narrowToolbarStyle() {
  const dir = mkdtempSync(join(tmpdir(), 'rooflens-webkit-'));
  mkdirSync(join(dir, 'gtk-3.0'));
  writeFileSync(join(dir, 'gtk-3.0/gtk.css'), '* { font-size: 1px; padding: 0; margin: 0; min-width: 0; min-height: 0; border-width: 0; }\n');
  return dir;
}

function stopGroup(proc) {
  try { process.kill(-proc.pid, 'SIGTERM'); } catch { /* already gone */ }
}

async function launchWebKit() {
  const mini = firstExisting([process.env.MINIBROWSER_PATH, ...MINIBROWSER]);
  if (!mini) throw new Error(`WebKitGTK's MiniBrowser not found: ${INSTALL}`);
  const { Builder, By } = await importOrExplain('selenium-webdriver');
  const server = await startWebKitDriver();
  let driver;
  try {
    driver = await new Builder().usingServer(server.url).forBrowser('MiniBrowser')
      .withCapabilities({ browserName: 'MiniBrowser', 'webkitgtk:browserOptions': { binary: mini, args: ['--automation'] } }).build();
  } catch (e) { server.stop(); throw e; }
  const caps = await driver.getCapabilities();
  return {
    name: 'webkit', version: `WebKitGTK ${caps.get('browserVersion')} (MiniBrowser)`,
    open: (url, size) => openWebKitPage(driver, By, url, size),
    async close() { await driver.quit().catch(() => {}); server.stop(); },
  };
}

/** Sizes MiniBrowser's window so that the page gets `width` × `height`: the window's size counts the toolbar, and X resizes it a moment later. */
async function setViewport(driver, width, height) {
  const inner = async () => {
    let last = null;
    for (let i = 0; i < 20; i++) {
      const now = await driver.executeScript('return [innerWidth, innerHeight]');
      if (last && now[0] === last[0] && now[1] === last[1]) return now;
      last = now;
      await sleep(50);
    }
    return last;
  };
  let outer = height;
  let w, h;
  for (let i = 0; i < 5; i++) {
    await driver.manage().window().setRect({ width, height: outer });
    [w, h] = await inner();
    if (w === width && h === height) return;
    outer += height - h;
  }
  throw new Error(`MiniBrowser's page is ${w}×${h} px, not ${width}×${height}: is its toolbar wider than the GTK style in tools/browsers/launch.mjs allows?`);
}

/**
 * Saves the element as a PNG. WebKitWebDriver's element screenshot is blank
 * or shifted once the page is scrolled, so: make the window at least as tall
 * as the element, scroll it to the top, take the window and cut the element out.
 */
async function webkitElementShot(driver, element, { width, height }, path) {
  const rect = () => driver.executeScript('const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.width, r.height]', element);
  const tall = Math.ceil((await rect())[3]);
  if (tall > height) await setViewport(driver, width, tall);
  await driver.executeScript('arguments[0].scrollIntoView({ block: "start" })', element);
  await sleep(100); // a frame for the scroll to be drawn
  const [x, y, w, h] = (await rect()).map(Math.round);
  const win = PNG.sync.read(Buffer.from(await driver.takeScreenshot(), 'base64'));
  const left = Math.max(0, x), top = Math.max(0, y);
  const cut = new PNG({ width: Math.min(w, win.width - left), height: Math.min(h, win.height - top) });
  PNG.bitblt(win, cut, left, top, cut.width, cut.height, 0, 0);
  writeFileSync(path, PNG.sync.write(cut));
  if (tall > height) await setViewport(driver, width, height);
}

/** One page at a time in MiniBrowser's one window. */
async function openWebKitPage(driver, By, url, size) {
  await driver.get('about:blank');
  await setViewport(driver, size.width, size.height);
  await driver.get(url);
  const page = commonSteps({ problems: [], raw: driver });
  page.evaluate = (fn, arg) => driver.executeScript(`return (${fn}).apply(null, arguments)`, arg);
  const find = (sel) => driver.findElement(By.css(sel));
  page.click = async (sel) => (await find(sel)).click();
  page.setFiles = async (sel, path) => (await find(sel)).sendKeys(path);
  page.type = async (sel, text) => { const e = await find(sel); await e.clear(); await e.sendKeys(text, '\uE004'); };
  page.shot = async (sel, path) => {
    if (sel) await webkitElementShot(driver, await find(sel), size, path);
    else writeFileSync(path, Buffer.from(await driver.takeScreenshot(), 'base64'));
  };
  page.close = async () => {};
  // WebDriver classic cannot report page errors: the page records its own once it has a document.
  await page.waitFor(() => document.readyState !== 'loading', null, { what: 'the document' });
  await page.evaluate(collectErrorsInPage);
  page.pageProblems = () => page.evaluate(() => window.__problems || []);
  return page;
}

/** Starts `name` (one of BROWSERS); the error says what to install when it is missing. */
export async function launchBrowser(name) {
  if (name === 'chromium') return launchChromium();
  if (name === 'firefox') return launchFirefox();
  if (name === 'webkit') return launchWebKit();
  throw new Error(`unknown browser '${name}' (one of ${BROWSERS.join(', ')})`);
}

/** Visible form controls whose right edge is past the window's, as "tag[name] ends at X px of W";
 * controls inside a box that scrolls or clips sideways (the wide tables) are meant to be there. */
export function controlsPastTheEdge() {
  const width = document.documentElement.clientWidth;
  const inScroller = (e) => {
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) if (getComputedStyle(a).overflowX !== 'visible') return true;
    return false;
  };
  return [...document.querySelectorAll('input, select, button, textarea')]
    .filter((e) => e.getClientRects().length && e.type !== 'file' && !inScroller(e))
    .map((e) => [e, e.getBoundingClientRect()])
    .filter(([, r]) => r.right > width + 0.5)
    .map(([e, r]) => `${e.tagName.toLowerCase()}[${e.dataset.testid || e.id || e.textContent.trim() || e.placeholder}] ends at ${Math.round(r.right)} px of ${width}`);
}

/** Every problem a page reported: the driver's events, and for WebKit what the page recorded itself. */
export async function pageProblems(page) {
  return [...page.problems, ...(page.pageProblems ? await page.pageProblems() : [])];
}
