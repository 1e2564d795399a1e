#!/usr/bin/env node
// Benchmark: models over 2 GB opened in the web page (headless Chromium),
// through the page's own file input, as a user would.
//
//   node tools/bench/huge.mjs [--bytes N] [--dense] [--runs R] [--nodes M]
//
// Two models are generated in a temporary folder (deleted afterwards) by
// tools/make-models/huge-model.mjs:
//   inline    weights stored in the .onnx itself (N bytes, default 2.4 GB);
//             a sparse file unless --dense writes real zeros to disk;
//   external  a small .onnx referencing an N-byte .onnx.data never read;
//   many layers  M nodes (default 100,000) with tiny weights: here memory
//             grows with the graph, not the weights, so its heap is printed
//             as a figure, not held to the 64 MiB target.
// For each it prints the file size, the time from choosing the file to the
// layer table drawn (median of R runs), the bytes the page read and skipped,
// and the WASM heap: linear memory size (its high-water mark; it never
// shrinks) and malloc's peak. The page's result is checked against the
// native CLI when build/rooflens (or $ROOFLENS_CLI) exists.
// Needs build/site (tools/build-site.sh), chromium and playwright-core.
import { mkdtempSync, rmSync, existsSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SITE, CLI, serve, cliJson, chromiumPath, CHROMIUM_ARGS, FIXTURES } from '../../tests/web/helpers.mjs';
import { writeHugeModel } from '../make-models/huge-model.mjs';

const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? Number(args[i + 1]) : def; };
const BYTES = opt('--bytes', 2.4e9);
const RUNS = Math.max(1, opt('--runs', 3));
const DENSE = args.includes('--dense');
const NODES = opt('--nodes', 100000);
const cli = process.env.ROOFLENS_CLI || CLI;

const MB = (n) => `${(n / 2 ** 20).toFixed(1)} MiB`;
const GB = (n) => (n >= 1e8 ? `${(n / 1e9).toFixed(2)} GB` : n >= 1e5 ? `${(n / 1e6).toFixed(2)} MB` : `${(n / 1e3).toFixed(1)} kB`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function die(msg) { console.error(`bench-huge: ${msg}`); process.exit(1); }

const { chromium } = await import('playwright-core').catch(() => die('playwright-core is not installed (npm install)'));
const exe = chromiumPath() || die('chromium not found (apt-get install chromium)');
if (!existsSync(join(SITE, 'index.html'))) die('build/site is missing (tools/build-site.sh)');

const dir = mkdtempSync(join(tmpdir(), 'rooflens-huge-'));
const fs = statfsSync(dir);
const free = fs.bavail * fs.bsize;
// A sparse file takes a few KB of disk, a dense one its whole size.
if (DENSE && free < BYTES * 1.2) die(`only ${GB(free)} free in ${tmpdir()}; --dense needs ${GB(BYTES * 1.2)}`);

let site, browser;
try {
  const t0 = Date.now();
  const models = [
    { kind: DENSE ? 'inline (dense zeros)' : 'inline (sparse)', ...writeHugeModel(join(dir, 'huge_inline.onnx'), { bytes: BYTES, dense: DENSE }) },
    { kind: 'external data', ...writeHugeModel(join(dir, 'huge_external.onnx'), { bytes: BYTES, external: true }) },
    // two nodes (MatMul, Relu) per 2x2 weight of 16 bytes
    { kind: `${NODES} nodes`, graphOnly: true, ...writeHugeModel(join(dir, 'many_nodes.onnx'), { bytes: (NODES / 2) * 16, hidden: 2 }) },
  ];
  console.log(`generated in ${((Date.now() - t0) / 1000).toFixed(1)} s in ${dir}`);

  site = await serve(SITE);
  browser = await chromium.launch({ executablePath: exe, args: CHROMIUM_ARGS });

  /** Opens `path` through the file input of a fresh page; returns the figures. */
  async function openInPage(path, layers) {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(site.url);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
    const start = Date.now();
    await page.setInputFiles('[data-testid=file-input]', path);
    await page.waitForFunction((n) => document.querySelector('[data-testid=summary]').dataset.layers === String(n) &&
      document.querySelectorAll('[data-testid=layer-table] tbody tr[data-index]').length > 0, layers, { timeout: 300000 });
    const ms = Date.now() - start;
    const d = await page.locator('[data-testid=summary]').evaluate((s) => ({ ...s.dataset }));
    await context.close();
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    return { ms, read: Number(d.bytesRead), skipped: Number(d.bytesSkipped), heap: Number(d.wasmHeap),
      peak: Number(d.wasmPeak), timeS: Number(d.timeS) };
  }

  // Baseline: a small model, to show what the heap is without a huge one.
  const small = await openInPage(join(FIXTURES, 'models/mlp.onnx'), 4);
  console.log(`baseline (mlp.onnx, 38 kB): WASM heap ${MB(small.heap)}, malloc peak ${MB(small.peak)}`);
  console.log('');
  console.log('model                 .onnx size   weights     table drawn (median of %d)  read        skipped     WASM heap   malloc peak  matches CLI', RUNS);
  let worstHeap = 0;
  for (const m of models) {
    const want = existsSync(cli) ? cliJson(m.path) : null;
    const layers = want ? want.layers.length : m.layers * 2;
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await openInPage(m.path, layers));
    const last = runs[runs.length - 1];
    if (!m.graphOnly) worstHeap = Math.max(worstHeap, ...runs.map((r) => r.heap));
    const ok = want ? (last.timeS === want.sol.chosen.time_s ? 'yes' : `NO (page ${last.timeS}, CLI ${want.sol.chosen.time_s})`) : 'no CLI';
    console.log(`${m.kind.padEnd(22)}${GB(m.size).padStart(10)}  ${GB(m.weightBytes).padStart(9)}  ` +
      `${(median(runs.map((r) => r.ms)) / 1000).toFixed(2).padStart(8)} s (${runs.map((r) => r.ms).join(', ')} ms)`.padEnd(34) +
      `${GB(last.read).padStart(10)}  ${GB(last.skipped).padStart(9)}  ${MB(last.heap).padStart(10)}  ${MB(last.peak).padStart(10)}  ${ok}`);
  }
  console.log('');
  console.log(`largest WASM heap for the >2 GB models: ${MB(worstHeap)} (${worstHeap < 64 * 2 ** 20 ? 'under' : 'OVER'} the 64 MiB target)`);
} finally {
  await browser?.close();
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
}
