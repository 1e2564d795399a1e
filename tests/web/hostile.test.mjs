// Hostile and huge inputs in headless Chromium (build/site):
//  - a model whose every string is an HTML/script/URL injection attempt
//    (tests/fixtures/hostile/, from make_hostile.py): nothing runs, nothing is
//    fetched, no element is created from it, the strings are shown literally,
//    and the CSV/JSON/Markdown exports carry them literally or escaped;
//  - corrupted and hostile share links: the valid parts are used, the rest is
//    named in the notice;
//  - the Content-Security-Policy: no inline script, no eval but WebAssembly's,
//    and no violation while a model is analysed;
//  - a model over 2 GB (sparse file, weights inline; then the same with its
//    weights in an external file) read through the file input with the
//    WebAssembly heap under 64 MiB. It takes about a second (the weights are
//    skipped, never read), so it is a test; tools/bench/huge.mjs prints the
//    figures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, mkdtempSync, rmSync, statfsSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { SITE, CLI, FIXTURES, serve, cliJson, CHROMIUM_ARGS, browserPrerequisites, openPage as open, browserSession } from './helpers.mjs';
import { writeHugeModel } from '../../tools/make-models/huge-model.mjs';

const cli = process.env.ROOFLENS_CLI || CLI;
const { chromium, exe, skip } = await browserPrerequisites([[cli, 'build/rooflens (cmake --build build)']]);

const HOSTILE = join(FIXTURES, 'hostile');
const PAYLOADS = JSON.parse(readFileSync(join(HOSTILE, 'payloads.json'), 'utf8'));
const P = Object.values(PAYLOADS);
let site, browser;

browserSession({ chromium, exe, skip }, (s, b) => { site = s; browser = b; });

/** A fresh page that records dialogs, requests, errors and CSP violations. */
const openPage = (url = site.url) => open(browser, url, { clipboard: true });

const summary = (page) => page.locator('[data-testid=summary]');

/** Every request went to the site's own files: nothing external, nothing a
 * model string names (an <img src=x> would ask for /x). */
function assertOwnRequests(page) {
  const root = resolve(SITE);
  for (const u of page.requests) {
    if (u.startsWith('blob:') || u.startsWith('data:')) continue;
    assert.ok(u.startsWith(site.url), `request outside the site: ${u}`);
    const file = resolve(root, '.' + decodeURIComponent(new URL(u).pathname).replace(/\/$/, '/index.html'));
    assert.ok(file.startsWith(root + sep) && existsSync(file), `request for something the site does not have: ${u}`);
  }
}

/** No element or handler was made from a model string. */
async function assertNothingInjected(page) {
  const found = await page.evaluate(() => {
    const out = [];
    // (the graph and module views draw in SVGs of their own; what they hold is checked below like every element)
    for (const e of document.querySelectorAll('img, svg:not(.graph-svg):not(.module-svg), iframe, object, embed, frame, base, form[action], meta[http-equiv=refresh]')) out.push(e.outerHTML.slice(0, 80));
    for (const s of document.querySelectorAll('script')) if (s.parentElement !== document.head) out.push(s.outerHTML.slice(0, 80));
    for (const e of document.querySelectorAll('*')) {
      for (const a of e.attributes) {
        if (/^on/i.test(a.name)) out.push(`${e.tagName} ${a.name}`);
        if (/^(href|src|action|formaction|xlink:href)$/i.test(a.name) && /^\s*javascript:/i.test(a.value)) out.push(`${e.tagName} ${a.name}=${a.value}`);
      }
    }
    return { out, headScripts: document.head.querySelectorAll('script').length, fired: window.__fired || null };
  });
  assert.deepEqual(found.out, [], 'elements or handlers created from model strings');
  assert.equal(found.headScripts, 1, 'the page has exactly its own script');
}

async function download(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const chunks = [];
  for await (const c of await dl.createReadStream()) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

/** RFC 4180 fields of a CSV text. */
function parseCSV(text) {
  const rows = [];
  let row = [], f = '', q = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (q) {
      if (c === '"' && text[i + 1] === '"') { f += '"'; i++; } else if (c === '"') q = false; else f += c;
    } else if (c === '"') q = true;
    else if (c === ',') { row.push(f); f = ''; } else if (c === '\n') { row.push(f); rows.push(row); row = []; f = ''; } else f += c;
  }
  if (f || row.length) { row.push(f); rows.push(row); }
  return rows;
}

test('hostile model strings: nothing runs, nothing is fetched, all shown literally, exports escaped', { skip }, async () => {
  const page = await openPage();
  const cliRes = cliJson(join(HOSTILE, 'strings.onnx'));
  assert.equal(cliRes.ok, true);
  // The file name itself is hostile too (it travels to the URL and notices).
  await page.setInputFiles('[data-testid=file-input]',
    { name: `${PAYLOADS.img}.onnx`, mimeType: 'application/octet-stream', buffer: readFileSync(join(HOSTILE, 'strings.onnx')) });
  await page.waitForFunction((n) => document.querySelector('[data-testid=summary]').dataset.layers === String(n), cliRes.layers.length, { timeout: 20000 });

  // Shown literally: the graph name heads the summary, the custom op type is
  // in the unsupported list, every node name and op type is in the table.
  const sumText = await summary(page).textContent();
  assert.ok(sumText.includes(PAYLOADS.svg), `graph name not in the summary: ${sumText.slice(0, 200)}`);
  assert.ok(sumText.includes(PAYLOADS.img), 'unsupported op type not in the summary');
  const tableText = await page.locator('[data-testid=layer-table] tbody').textContent();
  for (const l of cliRes.layers) {
    assert.ok(tableText.includes(l.name), `node name ${l.name} not shown`);
    assert.ok(tableText.includes(l.op), `op ${l.op} not shown`);
  }
  // long names get a tooltip with the exact string
  const titles = await page.locator('[data-testid=layer-table] tbody td[title]').evaluateAll((tds) => tds.map((t) => t.title));
  assert.ok(titles.includes(PAYLOADS.script), 'no tooltip with the literal long name');
  // the op filter lists the hostile op type as an option's text
  const opts = await page.locator('[data-testid=filter-op] option').evaluateAll((os) => os.map((o) => o.textContent));
  assert.ok(opts.includes(PAYLOADS.img));
  // the symbolic batch dimension named by a payload is named (as text) by the batch control
  assert.ok((await page.getAttribute('[data-testid=batch-input]', 'title')).includes(PAYLOADS.svg));
  // use the hostile values in the page's own controls too
  await page.selectOption('[data-testid=filter-op]', PAYLOADS.img);
  await page.fill('[data-testid=filter-name]', PAYLOADS.script);
  await page.fill('[data-testid=filter-name]', '');
  await page.selectOption('[data-testid=filter-op]', '');

  // Exports. CSV: fields quoted per RFC 4180, the formula defused with a '.
  const csv = parseCSV(await download(page, '[data-testid=download-csv]'));
  const col = csv[0].indexOf('name');
  const names = csv.slice(1).map((r) => r[col]);
  assert.equal(names.length, cliRes.layers.length);
  for (const l of cliRes.layers) {
    const want = /^[=+\-@]/.test(l.name) ? "'" + l.name : l.name;
    assert.ok(names.includes(want), `CSV lacks ${want}: ${names.join(' | ')}`);
  }
  // JSON: the strings exactly as in the model.
  const json = JSON.parse(await download(page, '[data-testid=download-json]'));
  assert.deepEqual(json.layers.map((l) => l.name).sort(), cliRes.layers.map((l) => l.name).sort());
  assert.equal(json.model.producer, PAYLOADS.img);
  // Markdown: every < > escaped, so a renderer shows the text, not HTML.
  await page.click('[data-testid=copy-md]');
  await page.waitForFunction(() => document.querySelector('[data-testid=share-link]').textContent.length > 0);
  let md = await page.evaluate(() => navigator.clipboard.readText().catch(() => ''));
  if (!md.startsWith('## ')) md = await page.locator('[data-testid=share-link]').textContent();
  assert.match(md, /^## rooflens: /);
  // (the share link's own angle brackets aside: the URL writer encodes any < in it)
  assert.doesNotMatch(md.replace(/\]\(<[^<>\s]*>\)/g, '](link)'), /(^|[^\\])</m, `unescaped < in the Markdown:\n${md}`);
  assert.ok(md.includes('">\\<svg onload=alert(4)>'), `graph name not escaped in the Markdown (the core's rl_markdown_text):\n${md}`);

  await page.waitForTimeout(300); // an onerror/onload would fire by now
  assert.deepEqual(page.dialogs, [], 'a dialog was opened');
  await assertNothingInjected(page);
  assertOwnRequests(page);
  assert.deepEqual(await page.evaluate(() => window.__csp), []);
  assert.deepEqual(page.problems, []);

  // The share link carries the hostile file name and dim: a new page shows
  // them as text.
  await page.click('[data-testid=copy-link]');
  await page.waitForSelector('[data-testid=copy-link][data-link]');
  const link = await page.getAttribute('[data-testid=copy-link]', 'data-link');
  assert.ok(link.startsWith(site.url));
  await page.context().close();
  const page2 = await openPage(link);
  assert.ok((await page2.locator('[data-testid=notice]').textContent()).includes(`${PAYLOADS.img}.onnx`), 'file name not in the notice');
  await page2.waitForTimeout(300);
  assert.deepEqual(page2.dialogs, []);
  await assertNothingInjected(page2);
  assertOwnRequests(page2);
  assert.deepEqual(page2.problems, []);
  await page2.context().close();
});

test('hostile names in an error message are shown as text', { skip }, async () => {
  const page = await openPage();
  const want = cliJson(join(HOSTILE, 'dangling.onnx')).error;
  assert.equal(want.code, 'dangling_input');
  await page.setInputFiles('[data-testid=file-input]', join(HOSTILE, 'dangling.onnx'));
  const err = page.locator('[data-testid=error]');
  await err.waitFor({ state: 'visible', timeout: 20000 });
  const text = await err.textContent();
  assert.ok(text.includes(want.message), `error box: ${text}`);
  assert.ok(text.includes(PAYLOADS.img) && text.includes(PAYLOADS.svg));
  await page.waitForTimeout(300);
  assert.deepEqual(page.dialogs, []);
  await assertNothingInjected(page);
  assertOwnRequests(page);
  await page.context().close();
});

test('CSP: no inline script, no eval beyond WebAssembly, no violation while analysing', { skip }, async () => {
  const html = readFileSync(join(SITE, 'index.html'), 'utf8');
  const metas = [...html.matchAll(/<meta http-equiv="Content-Security-Policy" content="([^"]*)"/g)].map((m) => m[1]);
  assert.equal(metas.length, 1, 'one CSP meta');
  const dirs = Object.fromEntries(metas[0].split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([k, ...v]) => [k, v]));
  assert.deepEqual(dirs['script-src'], ["'self'", "'wasm-unsafe-eval'"]);
  assert.deepEqual(dirs['default-src'], ["'self'"]);
  assert.deepEqual(dirs['object-src'], ["'none'"]);
  assert.deepEqual(dirs['base-uri'], ["'none'"]);
  // Trusted Types: no string reaches an HTML or script sink (innerHTML,
  // script text...); the script URLs are the two workers', each via its policy.
  assert.deepEqual(dirs['require-trusted-types-for'], ["'script'"]);
  assert.deepEqual(dirs['trusted-types'], ['rooflens-worker', 'rooflens-layout']);
  for (const [k, v] of Object.entries(dirs)) {
    for (const bad of ["'unsafe-inline'", "'unsafe-eval'", "'unsafe-hashes'", '*', 'data:', 'blob:']) {
      if (bad === 'data:' || bad === 'blob:') { if (['script-src', 'default-src', 'worker-src', 'object-src'].includes(k)) assert.ok(!v.includes(bad), `${k} allows ${bad}`); } else assert.ok(!v.includes(bad), `${k} allows ${bad}`);
    }
  }
  // No inline script or handler in the page itself (the CSP would block it).
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/i, 'an inline <script>');
  assert.doesNotMatch(html, /\son[a-z]+\s*=/i, 'an inline event handler');

  const page = await openPage(site.url + '#example=conv_net&hw=t4');
  const cliRes = cliJson(join(FIXTURES, 'models/conv_net.onnx'), ['--hw', 't4']);
  await page.waitForFunction((n) => document.querySelector('[data-testid=summary]').dataset.layers === String(n), cliRes.layers.length, { timeout: 20000 });
  // exercise the views: charts, a sort, a switch of hardware
  await page.click('[data-testid=layer-table] thead button[data-key=flops]');
  await page.selectOption('[data-testid=hw-select]', 'a100-sxm-80gb');
  await page.waitForFunction(() => document.querySelector('[data-testid=summary]').dataset.hw === 'a100-sxm-80gb');
  assert.deepEqual(await page.evaluate(() => window.__csp), [], 'the page itself violates its CSP');
  assert.deepEqual(page.problems, []);
  // The policy is in force: an inline script injected now is refused, and
  // so is any HTML string handed to innerHTML.
  const ran = await page.evaluate(() => new Promise((ok) => {
    window.__inline = false;
    const s = document.createElement('script');
    // Trusted Types refuse the string at once; a text node gets as far as
    // the document, where the CSP must stop it.
    try { s.textContent = 'window.__inline = true'; } catch { s.appendChild(document.createTextNode('window.__inline = true')); }
    document.body.appendChild(s);
    s.remove();
    setTimeout(() => ok(window.__inline), 50);
  }));
  assert.equal(ran, false, 'an inline script ran: the CSP is not in force');
  const htmlSink = await page.evaluate(() => {
    const d = document.createElement('div');
    try { d.innerHTML = '<img src=x>'; return 'accepted'; } catch (e) { return e.name; }
  });
  assert.equal(htmlSink, 'TypeError', 'innerHTML took a plain string');
  // A string timer is eval by another name; the CSP must refuse it.
  const evalRan = await page.evaluate(() => new Promise((ok) => {
    window.__evalRan = false;
    try { setTimeout('window.__evalRan = true', 0); } catch { /* refused by Trusted Types already */ }
    setTimeout(() => ok(window.__evalRan), 50);
  }));
  assert.equal(evalRan, false, 'a string timer (eval) ran');
  // the attempts just made were reported as violations, and nothing else
  const violations = await page.evaluate(() => window.__csp);
  assert.ok(violations.length >= 2, violations.join('; '));
  assert.ok(violations.every((v) => /^(script-src|require-trusted-types-for)/.test(v)), violations.join('; '));
  await page.context().close();
});

test('models over 2 GB (weights inline, or external) open through the file input with the WASM heap under 64 MiB', { skip }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rooflens-hostile-'));
  try {
    const fs = statfsSync(dir);
    assert.ok(fs.bavail * fs.bsize > 64 << 20, `no room in ${tmpdir()} even for a sparse file`);
    // Sparse: the weights are a hole, so this costs a few KB of disk and no time.
    const m = writeHugeModel(join(dir, 'huge.onnx'), { bytes: 2.2e9 });
    assert.ok(statSync(m.path).size > 2 ** 31, 'the model is over 2 GiB');
    const want = cliJson(m.path);
    assert.equal(want.ok, true);
    const page = await openPage();
    await page.setInputFiles('[data-testid=file-input]', m.path);
    await page.waitForFunction((n) => document.querySelector('[data-testid=summary]').dataset.layers === String(n), want.layers.length, { timeout: 60000 });
    const d = await summary(page).evaluate((s) => ({ ...s.dataset }));
    assert.equal(Number(d.timeS), want.sol.chosen.time_s, 'page and CLI disagree on the huge model');
    const heap = Number(d.wasmHeap);
    assert.ok(heap > 0 && heap < 64 * 2 ** 20, `WASM heap ${heap} bytes`);
    // Nearly all of the file is skipped, not read.
    assert.ok(Number(d.bytesSkipped) > m.weightBytes * 0.95, `skipped only ${d.bytesSkipped} of ${m.weightBytes}`);
    assert.ok(Number(d.bytesRead) < 32 << 20, `read ${d.bytesRead} bytes`);
    assert.equal(Number(d.bytesRead) + Number(d.bytesSkipped), m.size);

    // The same weights stored externally: only the small .onnx is chosen and
    // read; the 2.2 GB data file next to it is never needed.
    const ext = writeHugeModel(join(dir, 'huge_ext.onnx'), { bytes: 2.2e9, external: true });
    assert.ok(ext.dataSize > 2 ** 31 && ext.size < 64 << 10);
    const wantExt = cliJson(ext.path);
    await page.setInputFiles('[data-testid=file-input]', ext.path);
    await page.waitForFunction((t) => document.querySelector('[data-testid=summary]').dataset.timeS === String(t) &&
      document.querySelector('[data-testid=summary]').dataset.bytesSkipped === '0', wantExt.sol.chosen.time_s, { timeout: 60000 });
    const e = await summary(page).evaluate((s) => ({ ...s.dataset }));
    assert.equal(Number(e.bytesRead), ext.size);
    assert.ok(Number(e.wasmHeap) < 64 * 2 ** 20);
    assert.equal(wantExt.model.weight_bytes, want.model.weight_bytes, 'inline and external weights count the same');

    // A file changed on disk after it was chosen: a clear read error, and the
    // worker goes on to the next file.
    // The page may finish reading the file before the truncation lands (a
    // race this test cannot close from outside): then the read succeeded on
    // the whole file and there is no error to see. Such a try is made again
    // on a new file; the change must be caught on one of them.
    const err = page.locator('[data-testid=error]');
    for (let attempt = 0; ; attempt++) {
      const f = attempt ? writeHugeModel(join(dir, 'huge.onnx'), { bytes: 2.2e9 }).path : m.path;
      await page.setInputFiles('[data-testid=file-input]', f);
      truncateSync(f, 1000);
      try { await err.waitFor({ state: 'visible', timeout: 20000 }); break; } catch (e) { if (attempt === 2) throw e; }
    }
    assert.match(await err.textContent(), /could not read huge\.onnx at byte \d+: .*changed or moved/);
  assert.equal(await err.getAttribute('data-code'), 'read_failed');
    await page.setInputFiles('[data-testid=file-input]', ext.path);
    await page.waitForFunction(() => document.querySelector('[data-testid=summary]').dataset.layers, null, { timeout: 60000 });
    assert.equal(await err.isVisible(), false);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ------------------------------------------------------------ share links
const deflateRaw = async (s) => (await import('node:zlib')).deflateRawSync(Buffer.from(s));
const b64url = (buf) => Buffer.from(buf).toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const H100 = () => JSON.parse(readFileSync(join(resolve(FIXTURES, '../..'), 'hw/h100-sxm.json'), 'utf8'));

/** Opens a link; returns the page and its notice text. */
async function openLink(suffix) {
  const page = await openPage(site.url + suffix);
  const n = page.locator('[data-testid=notice]');
  const text = (await n.isVisible()) ? await n.textContent() : '';
  return { page, text };
}

async function finish(page) {
  await page.waitForTimeout(200);
  assert.deepEqual(page.dialogs, [], 'a dialog was opened');
  assertOwnRequests(page);
  await assertNothingInjected(page);
  assert.deepEqual(page.problems, []);
  await page.context().close();
}

test('share links: invalid parts are ignored and named, valid parts kept', { skip }, async () => {
  // wrong values, absurd numbers, unknown and repeated keys (a repeated one is used in neither value); hw and sort are valid
  const { page, text } = await openLink('#hw=a100-sxm-80gb&prec=fp13&batch=-4&sort=flops:asc&evil=1&__proto__=x' +
    '&sel=1e999&dims=batch%3D1e400;__proto__%3D5;seq%3D128&sweep=0-99999999&slow=1e308&q=' + 'x'.repeat(300) +
    '&mode=training&mode=inference');
  assert.match(text, /link could not be used/);
  for (const k of ['prec', 'mode: given more than once, so it was not used', 'batch', 'evil', '__proto__', 'sel', 'dims', 'sweep', 'slow', 'q']) {
    assert.ok(text.includes(k), `notice does not name ${k}: ${text}`);
  }
  assert.equal(await page.inputValue('[data-testid=hw-select]'), 'a100-sxm-80gb');
  assert.equal(await page.inputValue('[data-testid=precision-select]'), 'model');
  assert.equal(await page.inputValue('[data-testid=batch-input]'), '');
  assert.equal(await page.getAttribute('[data-testid=layer-table] thead th:has(button[data-key=flops])', 'aria-sort'), 'ascending');
  // the URL now holds only what was used: no unknown key survives a rewrite
  await page.click('[data-testid=copy-link]');
  await page.waitForSelector('[data-testid=copy-link][data-link]');
  const link = await page.getAttribute('[data-testid=copy-link]', 'data-link');
  assert.doesNotMatch(link, /evil|__proto__|fp13|1e999/);
  assert.match(link, /dims=seq%3D128/);
  await finish(page);
});

test('share links: script and data URLs as the model are refused, nothing is fetched', { skip }, async () => {
  for (const [suffix, why] of [
    ['#model=javascript:alert(3)&example=conv_net', /model: only https:\/\/ URLs can be opened, not javascript:/],
    [`?model=${encodeURIComponent('data:text/html,<script>alert(1)</script>')}#example=conv_net`, /model: only https:\/\/ URLs can be opened, not data:/],
    [`#model=${encodeURIComponent('data:application/octet-stream;base64,CAg=')}&example=conv_net`, /not data:/],
    ['#model=http%3A%2F%2Fexample.com%2Fm.onnx&example=conv_net', /not http:/],
    ['#model=https%3A%2F%2Fuser%3Apw%40example.com%2Fm.onnx&example=conv_net', /user name or password/],
    ['#model=' + 'https%3A%2F%2Fexample.com%2F' + 'a'.repeat(5000) + '&example=conv_net', /longer than 4096/],
  ]) {
    const { page, text } = await openLink(suffix);
    assert.match(text, why, suffix.slice(0, 80));
    // the valid part (the example) is opened
    await page.waitForFunction(() => document.querySelector('[data-testid=summary]').dataset.layers, null, { timeout: 20000 });
    assert.ok(!page.requests.some((u) => /example\.com/.test(u)));
    await finish(page);
  }
  // The URL box applies the same rule (what is not a URL at all the
  // browser's own type=url check stops before the page sees it).
  const page = await openPage();
  for (const [u, why] of [['javascript:alert(3)', /not javascript:/], ['http://example.com/m.onnx', /not http:/],
    ['data:,x', /not data:/], ['https://u:p@example.com/m.onnx', /user name or password/]]) {
    await page.fill('[data-testid=url-input]', u);
    await page.press('[data-testid=url-input]', 'Enter');
    await page.waitForFunction((w) => new RegExp(w).test(document.querySelector('[data-testid=error]').textContent), why.source);
    assert.match(await page.locator('[data-testid=error]').textContent(), /cannot open this URL/);
  }
  assert.ok(!page.requests.some((u) => /example\.com/.test(u)));
  await finish(page);
});

test('share links: a corrupt, oversized or tampered custom profile is refused with a notice', { skip }, async () => {
  const bomb = 'z' + b64url(await deflateRaw(' '.repeat(1 << 20)));          // 1 MB of spaces in ~1 KB
  const tampered = H100();
  tampered.memory[0].bandwidth_Bps.value = -5;                                  // the core refuses this
  const hostileName = { ...H100(), id: 'h100-custom', name: PAYLOADS.img };     // valid, but a hostile name
  const cases = [
    ['#hw=custom&profile=z!!not-base64!!', /profile: the custom hardware profile could not be decoded: it is not valid base64url/],
    ['#hw=custom&profile=zAAAA', /profile: the custom hardware profile could not be decoded: its compressed data is corrupt/],
    ['#hw=custom&profile=' + bomb, /inflates to more than 256 KB/],
    ['#hw=custom&profile=q' + b64url('{}'), /unknown encoding/],
    ['#hw=custom&profile=j' + b64url('[1,2]'), /not a JSON object/],
    ['#hw=custom&profile=j' + b64url('{"a":'), /not valid JSON/],
    ['#hw=custom&profile=j' + 'A'.repeat(20000), /longer than 16 KB/],
    ['#hw=custom&profile=z' + b64url(await deflateRaw(JSON.stringify(tampered))), /profile: the custom hardware profile is invalid: .*bandwidth/i],
    ['#hw=custom', /custom hardware without a profile/],
  ];
  assert.ok(bomb.length < 4096, `bomb token ${bomb.length} chars`);
  for (const [suffix, why] of cases) {
    const { page, text } = await openLink(suffix + '&prec=fp16');
    assert.match(text, why, suffix.slice(0, 60));
    assert.equal(await page.inputValue('[data-testid=hw-select]'), 'h100-sxm', suffix.slice(0, 60));
    assert.equal(await page.inputValue('[data-testid=precision-select]'), 'fp16');
    await finish(page);
  }
  // A valid profile with a hostile name is used, and its name shown as text.
  const { page, text } = await openLink('#example=conv_net&hw=custom&profile=z' + b64url(await deflateRaw(JSON.stringify(hostileName))));
  assert.equal(text, '');
  await page.waitForFunction(() => document.querySelector('[data-testid=summary]').dataset.hw === 'h100-custom', null, { timeout: 20000 });
  assert.ok((await summary(page).textContent()).includes(PAYLOADS.img));
  await finish(page);
});

test('share links: a link over 64 K characters is not used at all', { skip }, async () => {
  const { page, text } = await openLink('#hw=t4&q=' + 'y'.repeat(70000));
  assert.match(text, /link: longer than 64 K characters/);
  assert.equal(await page.inputValue('[data-testid=hw-select]'), 'h100-sxm');
  await finish(page);
});
