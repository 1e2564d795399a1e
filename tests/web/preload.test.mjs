// The page preloads every module main.js imports (index.html's
// <link rel="modulepreload"> list), so the browser fetches them at once
// instead of discovering them one import level at a time. The list must
// stay equal to the import graph: a module missing from it loads late, a
// stale entry is fetched for nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers.mjs';

const JS = join(ROOT, 'web/js');

function importGraph(entry) {
  const seen = new Set();
  const queue = [entry];
  while (queue.length) {
    const f = queue.shift();
    if (seen.has(f)) continue;
    seen.add(f);
    const src = readFileSync(join(JS, f), 'utf8');
    for (const m of src.matchAll(/^import\s[^;]*?from\s+'\.\/([\w-]+\.js)'/gm)) queue.push(m[1]);
  }
  seen.delete(entry);
  return [...seen].sort();
}

test('index.html preloads exactly the modules main.js imports', () => {
  const html = readFileSync(join(ROOT, 'web/index.html'), 'utf8');
  const preloaded = [...html.matchAll(/<link rel="modulepreload" href="js\/([\w-]+\.js)">/g)].map((m) => m[1]).sort();
  const graph = importGraph('main.js');
  assert.ok(graph.length > 10, `the import graph was read (${graph.length} modules)`);
  assert.deepEqual(preloaded, graph);
});
