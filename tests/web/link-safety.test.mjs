// What a share link may make the page do (issue "every failure clean",
// the page's part): a model URL from another origin is fetched only after
// the user confirms, naming the host; private, loopback and link-local hosts
// in any spelling are refused unless the page itself runs on this machine;
// a framed page refuses to run, and tools/serve.sh forbids framing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { ROOT, SITE, FIXTURES, serve, CHROMIUM_ARGS, browserPrerequisites, openPage, waitLayers, confirmModelUrl } from './helpers.mjs';
import { modelUrlProblem, privateHostReason, pageIsLocal, needsConfirmation } from '../../web/js/url-policy.js';

const { chromium, exe, skip } = await browserPrerequisites();
let site, models, browser;

before(async () => {
  if (skip) return;
  site = await serve(SITE);
  models = await serve(join(FIXTURES, 'models'), { cors: true });
  browser = await chromium.launch({ executablePath: exe, args: CHROMIUM_ARGS });
});
after(async () => {
  await browser?.close();
  await site?.close();
  await models?.close();
});

// Every spelling the URL parser accepts for a host that is not on the internet.
const PRIVATE = ['https://127.0.0.1/m.onnx', 'https://2130706433/m.onnx', 'https://0177.0.0.1/m.onnx', 'https://0x7f.0.0.1/m.onnx',
  'https://0x7f000001/m.onnx', 'https://127.1/m.onnx', 'https://017700000001/m.onnx', 'https://[::1]/m.onnx',
  'https://[0:0:0:0:0:0:0:1]/m.onnx', 'https://[::ffff:127.0.0.1]/m.onnx', 'https://[::ffff:7f00:1]/m.onnx',
  'https://localhost/m.onnx', 'https://LocalHost./m.onnx', 'https://api.localhost/m.onnx', 'https://10.0.0.8/m.onnx',
  'https://172.16.5.4/m.onnx', 'https://172.31.255.1/m.onnx', 'https://192.168.1.1/m.onnx', 'https://3232235777/m.onnx',
  'https://169.254.169.254/latest/m.onnx', 'https://[fe80::1]/m.onnx', 'https://[fd12:3456::1]/m.onnx', 'https://0.0.0.0/m.onnx',
  'https://0/m.onnx', 'https://[::]/m.onnx', 'https://100.64.1.1/m.onnx', 'https://printer.local/m.onnx', 'https://intranet/m.onnx',
  'https://[64:ff9b::7f00:1]/m.onnx', 'https://[::ffff:a9fe:a9fe]/m.onnx', 'http://127.0.0.1:8000/m.onnx', 'http://localhost:8000/m.onnx'];
const PUBLIC = ['https://example.com/m.onnx', 'https://8.8.8.8/m.onnx', 'https://[2606:4700::1111]/m.onnx', 'https://172.32.0.1/m.onnx',
  'https://huggingface.co/x/resolve/main/model.onnx'];

test('url policy: private, loopback and link-local hosts are refused in every spelling, unless the page is local', () => {
  for (const u of PRIVATE) {
    const why = modelUrlProblem(u);
    assert.ok(why, `${u} was allowed`);
    assert.match(why, /a link may only name public hosts|not http:/, u);
  }
  for (const u of PUBLIC) assert.equal(modelUrlProblem(u), null, u);
  // A page on this machine (tools/serve.sh) may open models on it, over http
  // only by the names its CSP allows.
  assert.equal(modelUrlProblem('http://127.0.0.1:8000/m.onnx', { pageLocal: true }), null);
  assert.equal(modelUrlProblem('https://192.168.1.1/m.onnx', { pageLocal: true }), null);
  assert.match(modelUrlProblem('http://192.168.1.1/m.onnx', { pageLocal: true }), /not http:/);
  assert.match(modelUrlProblem('http://example.com/m.onnx', { pageLocal: true }), /not http:/);
  assert.equal(privateHostReason('example.com'), null);
  assert.match(privateHostReason('[fe80::1]'), /link-local/);
  assert.equal(pageIsLocal({ hostname: '127.0.0.1' }), true);
  assert.equal(pageIsLocal({ hostname: 'rooflens.example.org' }), false);
  assert.equal(needsConfirmation('https://a.example/m.onnx', { origin: 'https://b.example' }), true);
  assert.equal(needsConfirmation('https://b.example/samples/m.onnx', { origin: 'https://b.example' }), false);
});

test('a model URL from another origin is fetched only after the user confirms its host', { skip }, async () => {
  const url = models.url + 'mlp.onnx';
  const page = await openPage(browser, `${site.url}#model=${encodeURIComponent(url)}&hw=t4`);
  const box = page.locator('[data-testid=confirm-url]');
  await box.waitFor({ state: 'visible' });
  assert.equal(await page.textContent('[data-testid=confirm-url-host]'), new URL(url).host);
  await page.waitForTimeout(300);
  assert.ok(!page.requests.some((r) => r.startsWith(models.url)), 'the model was fetched before the user said yes');
  assert.equal(await page.inputValue('[data-testid=hw-select]'), 't4', 'the rest of the link applies meanwhile');
  // "No": nothing is fetched, the link's model is dropped from the URL.
  await page.click('[data-testid=confirm-url-cancel]');
  assert.equal(await box.isVisible(), false);
  assert.match(await page.textContent('[data-testid=notice]'), /was not opened/);
  assert.ok(!page.requests.some((r) => r.startsWith(models.url)));
  assert.doesNotMatch(page.url(), /model=/);
  await page.context().close();

  // "Yes": the model is read and analysed.
  const page2 = await openPage(browser, `${site.url}#model=${encodeURIComponent(url)}`);
  await confirmModelUrl(page2);
  await waitLayers(page2, 4);
  assert.equal(await page2.getAttribute('[data-testid=summary]', 'data-file'), 'mlp.onnx');
  assert.deepEqual(page2.problems, []);
  await page2.context().close();

  // The page's own examples need no confirmation.
  const page3 = await openPage(browser, `${site.url}#example=conv_net`);
  await page3.waitForSelector('[data-testid=summary][data-layers]');
  assert.equal(await page3.locator('[data-testid=confirm-url]').isVisible(), false);
  await page3.context().close();
});

test('an unreachable host is not reported as a CORS refusal', { skip }, async () => {
  const closed = createServer();
  await new Promise((ok) => closed.listen(0, '127.0.0.1', ok));
  const port = closed.address().port;
  await new Promise((ok) => closed.close(ok));   // nothing listens there now
  const page = await openPage(browser, `${site.url}#model=${encodeURIComponent(`http://127.0.0.1:${port}/m.onnx`)}`);
  await confirmModelUrl(page);
  const err = page.locator('[data-testid=error]');
  await err.waitFor({ state: 'visible', timeout: 20000 });
  assert.match(await err.textContent(), /could not be reached/);
  assert.equal(await err.getAttribute('data-code'), 'unreachable');
  assert.doesNotMatch(await err.textContent(), /CORS/);
  await page.context().close();
});

test('served from a public name, the page refuses links to private hosts and fetches nothing', { skip }, async () => {
  // The test server answers as rooflens.test: the page is not "local" there.
  const port = new URL(site.url).port;
  const b = await chromium.launch({ executablePath: exe, args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP rooflens.test 127.0.0.1'] });
  try {
    const base = `http://rooflens.test:${port}/`;
    for (const u of ['https://2130706433/m.onnx', 'https://0x7f.1/m.onnx', 'https://[::ffff:7f00:1]/m.onnx', 'https://localhost./m.onnx',
      'https://169.254.169.254/m.onnx', 'https://10.1.1.1/m.onnx', 'http://127.0.0.1:9/m.onnx']) {
      const page = await openPage(b, `${base}#model=${encodeURIComponent(u)}&example=conv_net`);
      await page.waitForSelector('[data-testid=summary][data-layers]', { timeout: 20000 });
      assert.match(await page.textContent('[data-testid=notice]'), /model: .*(a link may only name public hosts|not http:)/, u);
      assert.equal(await page.locator('[data-testid=confirm-url]').isVisible(), false, u);
      assert.ok(page.requests.every((r) => r.startsWith(base) || r.startsWith('blob:')), `${u}: ${page.requests.filter((r) => !r.startsWith(base))}`);
      await page.context().close();
    }
  } finally {
    await b.close();
  }
});

test('a framed page refuses to run; tools/serve.sh forbids framing', { skip }, async () => {
  // Another origin frames the page (the test server sends no frame header,
  // so only the page's own check stands).
  const evil = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(`<!doctype html><title>other site</title><iframe id="f" src="${site.url}#example=conv_net" width="900" height="700"></iframe>`);
  });
  await new Promise((ok) => evil.listen(0, '127.0.0.1', ok));
  try {
    const page = await openPage(browser, `http://localhost:${evil.address().port}/`, { wait: null });
    const frame = page.frameLocator('#f');
    await frame.locator('body[data-framed="1"]').waitFor({ timeout: 20000 });
    assert.match(await frame.locator('body').textContent(), /does not run inside a frame/);
    assert.equal(await frame.locator('[data-testid=hw-select]').count(), 0);
    await page.waitForTimeout(300);
    assert.ok(!page.requests.some((r) => /samples\/conv_net/.test(r)), 'the framed page went on to load the model');
    await page.context().close();
  } finally {
    await new Promise((ok) => evil.close(ok));
  }
  // The page's own server sends the headers a host should send.
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(join(ROOT, 'tools/serve.sh'), ['--no-build'], { env: { ...process.env, PORT: String(port) }, stdio: 'ignore' });
  try {
    let res = null;
    for (let i = 0; i < 50 && !res; i++) {
      res = await fetch(`http://127.0.0.1:${port}/`).catch(() => null);
      if (!res) await new Promise((ok) => setTimeout(ok, 100));
    }
    assert.ok(res, 'tools/serve.sh did not start');
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.match(res.headers.get('content-security-policy'), /frame-ancestors 'none'/);
  } finally {
    child.kill();
  }
});
