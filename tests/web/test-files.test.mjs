// The test files themselves: no top-level await after a file's first test or
// hook. node:test runs a file's root after() hooks once the tests defined so
// far have finished; a test that finishes while the module still awaits lets
// them run early, and they closed the page server under the tests defined
// after the await (a CI failure: ERR_CONNECTION_REFUSED in diff.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = dirname(fileURLToPath(import.meta.url));
const FIRST = /^(test|before|after|beforeEach|afterEach|browserSession)\(/;
const TOP_AWAIT = /^(?:(?:const|let|var)\s[^=]*=\s*)?await\b/;

/** The line numbers of top-level awaits after the first test or hook. */
export function lateAwaits(text) {
  const lines = text.split('\n');
  const first = lines.findIndex((l) => FIRST.test(l));
  return first < 0 ? [] : lines.map((l, i) => (i > first && TOP_AWAIT.test(l) ? i + 1 : 0)).filter(Boolean);
}

test('the check finds a top-level await after the first test, and only there', () => {
  assert.deepEqual(lateAwaits("const a = await x();\ntest('t', async () => {\n  const b = await y();\n});\nconst c = await z();\n"), [5]);
  assert.deepEqual(lateAwaits("await x();\nbefore(() => {});\ntest('t', () => {});\n"), []);
});

test('no test file awaits at its top level after its first test or hook', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.test.mjs'));
  assert.ok(files.length > 10, `${files.length} test files`);
  for (const f of files) assert.deepEqual(lateAwaits(readFileSync(join(DIR, f), 'utf8')), [], `${f}: await it before the first test`);
});
