#!/usr/bin/env node
// Profiles ONNX models with ONNX Runtime (CPU, onnxruntime-node) and writes
// ORT's profiling JSON: what `rooflens MODEL --measured FILE` reads.
// Used by tools/validate/cpu.sh and tools/validate/forecast.sh;
// onnxruntime-node is not a dependency of rooflens, so its folder is passed
// in (--ort DIR holding node_modules/).
//
//   node tools/validate/ort-profile.mjs --ort DIR --model M.onnx --out P.json
//        [--opt disabled|basic|extended|all] [--runs N] [--threads N]
//        [--dim name=value ...] [--batch B]
//   node tools/validate/ort-profile.mjs --ort DIR --job M.onnx,OPT,P.json,META.json
//        [--job ...] [--runs N] [--threads N] [--dim ...] [--batch B]
//
// One model prints its record (wall times of each run, the load) on
// standard output. Several --job runs every session in turn, one run each
// per round, so that a slow minute of a shared machine slows every model
// alike rather than the one measured then; each job's record goes to its
// META file. Every session's first run is its warm-up.
//
// Inputs are filled with deterministic values: floats in [-1, 1], integers
// in [0, 100) (valid token ids for any vocabulary of 100 or more). Symbolic
// dims take --dim values; a leading dim without one takes --batch.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

function args(argv) {
  const a = { opt: 'all', runs: 6, threads: 1, batch: 1, dims: {}, jobs: [] };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i], v = argv[i + 1];
    if (k === '--dim') { const [n, x] = v.split('='); a.dims[n] = Number(x); i++; }
    else if (k === '--job') {
      const [model, opt, out, meta] = v.split(',');
      if (!model || !opt || !out || !meta) throw new Error(`--job ${v}: want MODEL.onnx,OPT,PROFILE.json,META.json`);
      a.jobs.push({ model, opt, out, meta });
      i++;
    }
    else if (['--ort', '--model', '--out', '--opt'].includes(k)) { a[k.slice(2)] = v; i++; }
    else if (['--runs', '--threads', '--batch'].includes(k)) { a[k.slice(2)] = Number(v); i++; }
    else throw new Error(`unknown argument ${k}`);
  }
  if (!a.ort) throw new Error('--ort is required');
  if (!a.jobs.length) {
    for (const k of ['model', 'out']) if (!a[k]) throw new Error(`--${k} is required`);
    a.jobs.push({ model: a.model, opt: a.opt, out: a.out, meta: null });
  }
  return a;
}

function fill(meta, a) {
  const shape = meta.shape.map((d, i) => {
    if (typeof d === 'number' && d >= 0) return d;
    if (typeof d === 'string' && d in a.dims) return a.dims[d];
    if (i === 0) return a.batch;
    throw new Error(`input ${meta.name}: set dim '${d}' with --dim ${d}=N`);
  });
  const n = shape.reduce((x, y) => x * y, 1);
  let data;
  if (meta.type === 'float32') data = Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.7));
  else if (meta.type === 'int64') data = BigInt64Array.from({ length: n }, (_, i) => BigInt((i * 37) % 100));
  else if (meta.type === 'int32') data = Int32Array.from({ length: n }, (_, i) => (i * 37) % 100);
  else if (meta.type === 'bool') data = Uint8Array.from({ length: n }, () => 1);
  else throw new Error(`input ${meta.name}: type ${meta.type} is not filled by this script`);
  return { data, shape };
}

const a = args(process.argv.slice(2));
const entry = path.resolve(a.ort, 'node_modules/onnxruntime-node/dist/index.js');
const ort = (await import(pathToFileURL(entry).href)).default;

// every session opened first, each profiling to a prefix of its own
const jobs = [];
for (const [k, job] of a.jobs.entries()) {
  const prefix = path.join(os.tmpdir(), `rooflens-ort-${process.pid}-${k}`);
  const session = await ort.InferenceSession.create(job.model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: job.opt,
    intraOpNumThreads: a.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    enableProfiling: true,
    profileFilePrefix: prefix,
    // denormal inputs would make times depend on the random weights
    extra: { session: { set_denormal_as_zero: '1' } },
  });
  const feeds = {};
  for (const meta of session.inputMetadata) {
    const { data, shape } = fill(meta, a);
    feeds[meta.name] = new ort.Tensor(meta.type, data, shape);
  }
  jobs.push({ ...job, prefix, session, feeds, wall: [], load: [os.loadavg()] });
}
// round r runs every session once
for (let r = 0; r < a.runs; r++) {
  for (const j of jobs) {
    const t0 = performance.now();
    await j.session.run(j.feeds);
    j.wall.push((performance.now() - t0) / 1e3);
  }
}
for (const j of jobs) {
  j.load.push(os.loadavg());
  j.session.endProfiling();
  await j.session.release();
  // ORT names the file <prefix>_<date>.json
  const dir = path.dirname(j.prefix), base = path.basename(j.prefix) + '_';
  const made = fs.readdirSync(dir).filter((f) => f.startsWith(base) && f.endsWith('.json'));
  if (made.length !== 1) throw new Error(`expected one profile from ORT for ${j.model}, found ${made.length}`);
  fs.renameSync(path.join(dir, made[0]), j.out);
  const record = JSON.stringify({ model: j.model, opt: j.opt, runs: a.runs, threads: a.threads, wall_s: j.wall,
    loadavg_before: j.load[0], loadavg_after: j.load[1], interleaved_with: jobs.length - 1,
    ort: ort.env.versions?.node ?? null, profile: j.out });
  if (j.meta) fs.writeFileSync(j.meta, record + '\n');
  else console.log(record);
}
