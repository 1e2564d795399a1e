// The page's "Copy summary as Markdown" with strings GitHub would make live:
// a model whose node names, op type, graph name and symbolic dim are
// mentions, bare links, e-mail addresses, math and issue references (some
// hidden behind ESC or BEL), analysed on a custom profile that arrives in a
// share link with such a name and forecast stack (tests/fixtures/hostile/
// markdown.onnx, from make_hostile.py). Nothing live survives, no control
// character is copied, and every string is the core's escaping of it
// (rl_markdown_text, the diff's comment's), not one of the page's own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { join } from 'node:path';
import { ROOT, FIXTURES, NODE_WASM, browserPrerequisites, browserSession, openPage, waitLayers, loadNodeCore } from './helpers.mjs';

const { chromium, exe, skip } = await browserPrerequisites([[NODE_WASM, 'build-wasm (tools/build-site.sh)']]);
let site, browser;
browserSession({ chromium, exe, skip }, (s, b) => { site = s; browser = b; });

const MODEL = join(FIXTURES, 'hostile', 'markdown.onnx');
const NAMES = JSON.parse(readFileSync(join(FIXTURES, 'hostile', 'markdown.json'), 'utf8'));
const b64url = (buf) => Buffer.from(buf).toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/** H100 renamed and given a stack that would be live in a comment. */
function hostileProfile() {
  const p = JSON.parse(readFileSync(join(ROOT, 'hw', 'h100-sxm.json'), 'utf8'));
  p.id = 'h100-hostile';
  p.name = 'H100 @octocat www.evil.example $$x^2$$ \u001b]0;title\u0007 cc@evil.example';
  p.forecast.stack = 'TensorRT https://evil.example/stack @team \u001b[2J $5$';
  return p;
}

/** What GitHub would turn live, or a terminal act on, in a line of text. */
function liveIn(line) {
  const found = [];
  if (/@[A-Za-z0-9]/.test(line)) found.push('a mention or an e-mail address');
  if (/:\/\//.test(line)) found.push('a bare URL');
  if (/www\./i.test(line)) found.push('a www. link');
  if (/(^|[^\\])\$/.test(line)) found.push('an unescaped $ (math)');
  if (/(^|[^\\])#/.test(line) || /#[0-9]/.test(line)) found.push('an issue reference or a heading');
  if (/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(line)) found.push('a control character');
  return found;
}

test('Copy summary as Markdown: names, the profile\'s name and its stack reach the comment inert, escaped by the core', { skip }, async () => {
  const profile = hostileProfile();
  const link = `${site.url}#hw=custom&profile=z${b64url(deflateRawSync(Buffer.from(JSON.stringify(profile))))}`;
  const page = await openPage(browser, link);
  await page.setInputFiles('[data-testid=file-input]', MODEL);
  await waitLayers(page, 10);
  assert.equal(await page.locator('[data-testid=summary]').getAttribute('data-hw'), 'h100-hostile');
  await page.click('[data-testid=copy-md]');
  await page.waitForSelector('[data-testid=copy-md][data-markdown]');
  const md = await page.getAttribute('[data-testid=copy-md]', 'data-markdown');
  const lines = md.trimEnd().split('\n');

  // The link is the one live thing, and it cannot be ended early.
  // (a local file's: "these settings", and the file to drop again)
  const last = /^\[Open these settings in rooflens\]\(<http:\/\/127\.0\.0\.1:\d+\/[^<>\s]*>\)( — .*)$/.exec(lines.pop());
  assert.ok(last, 'the last line is the link');
  lines.push(last[1]);
  assert.ok(lines[0].startsWith('## rooflens: '), lines[0]);
  for (const [i, line] of lines.entries()) {
    const what = liveIn(i === 0 ? line.slice(3) : line);   // the summary's own heading aside
    assert.deepEqual(what, [], `line ${i + 1} has ${what.join(', ')}: ${JSON.stringify(line)}`);
  }

  // Each string is the core's escaping of it: the same function as the
  // diff's Markdown (here through the Node build of the same module).
  const core = await loadNodeCore();
  const esc = (s) => core.markdownText([s])[0];
  assert.ok(lines[0].includes(` on ${esc(profile.name)}`), lines[0]);
  assert.ok(md.includes(esc(`analytic estimate: ${profile.forecast.stack}`)) || md.includes(esc(`fitted to measured runs: ${profile.forecast.stack}`)),
    `the stack, escaped by the core:\n${md}`);
  for (const key of ['mention', 'www', 'url', 'email', 'math', 'issue', 'controls', 'hidden_www', 'hidden_url']) {
    assert.ok(lines.some((l) => l.startsWith(`| ${esc(NAMES[key])} | Relu |`)), `layer ${key}: no row | ${esc(NAMES[key])} |\n${md}`);
  }
  assert.ok(md.includes(`- **Unsupported ops:** ${esc(`hostile.example.${NAMES.op}`)}`), md);   // domain.op
  assert.ok(md.includes(esc(`${NAMES.dim}=1`)), md);
  // and what was written is still there to read
  for (const word of ['octocat', 'evil.example', 'hidden.example', 'sqrt{2}', 'TensorRT']) assert.ok(md.includes(word), word);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
