// The review-comment export (Copy summary as Markdown) with hostile strings:
// whatever a file, device, layer or warning holds, the comment keeps its
// structure; and what it must say (file, device, dims, headline with bounds,
// the ten slowest layers, warnings, the link) is there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, CLI, FIXTURES, NODE_WASM, cliJson, loadNodeCore } from './helpers.mjs';

const skip = existsSync(CLI) ? false : 'missing: build/rooflens (cmake --build build)';
const skipWasm = skip || (existsSync(NODE_WASM) ? false : 'missing: build-wasm (tools/build-site.sh)');
const model = join(FIXTURES, 'models', 'transformer_block.onnx');

/** The page's Markdown with the core's escaping (the worker's, here the same
 * binding in Node) and the core's words, as the page has them; and that
 * escaping of one string. */
let core = null;
async function markdown(res, where) {
  if (!core) {
    core = await loadNodeCore();
    const { setWords } = await import(join(ROOT, 'web/js/words.js'));
    setWords(JSON.parse(core.words()));
  }
  const { toMarkdown } = await import(join(ROOT, 'web/js/export.js'));
  return toMarkdown(res, where, async (texts) => core.markdownText(texts));
}
const esc = (s) => core.markdownText([s])[0];

test('Markdown summary: what a review needs, from the response', { skip: skipWasm }, async () => {
  const res = cliJson(model, ['--hw', 'jetson-agx-orin', '--dim', 'seq=32', '--dim', 'batch=2']);
  const md = await markdown(res, { file: 'block.onnx', link: 'https://rooflens.example/#example=x' });
  assert.match(md, /^## rooflens: block\.onnx on NVIDIA Jetson AGX Orin .*, power mode MAXN/);
  assert.match(md, /\*\*Dims:\*\* batch=2 \(set\), seq=32 \(set\)/);
  assert.ok(md.includes(`(range of the speed of light `), md); // the words table's name, as the diff's Markdown and the CLI
  const top = md.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| layer') && !l.startsWith('| ---'));
  assert.equal(top.length, 10);
  const slowest = res.layers.slice().sort((a, b) => b.t - a.t || b.bytes - a.bytes || a.index - b.index)[0];
  assert.ok(top[0].startsWith(`| ${esc(slowest.name)} |`), top[0]);
  // the forecast beside the speed of light: the response's figures, and what they rest on
  const { eng, times } = await import(join(ROOT, 'web/js/format.js'));
  const { wordName } = await import(join(ROOT, 'web/js/words.js'));
  const f = res.forecast;
  assert.ok(md.includes(`- **Forecast:** ${eng(f.time_s, 's')}, ${times(f.headroom)} the speed of light; ${esc(`${wordName('basis', f.basis)}: ${f.stack}`)}; energy ${eng(f.energy_j, 'J')}`), md);
  assert.equal(top[0].split(' | ')[4], eng(slowest.forecast_s, 's'), top[0]);
  // the Orin's stack has no track record: no band, and the Markdown says so in the core's words
  assert.equal(f.low_s, null);
  assert.equal(f.band, null);
  assert.equal(f.track_record, 'no track record for this stack');
  assert.ok(md.split('\n')[2].startsWith(`About ${eng(f.time_s, 's')} per inference on NVIDIA Jetson AGX Orin`) &&
    md.split('\n')[2].includes('The forecast has no track record for this stack: no likely range.'), md);
  assert.ok(md.includes('- **Likely range:** no track record for this stack\n'), md);
  assert.match(md, new RegExp(`Warnings \\(${res.warnings.length}\\)`));
  assert.match(md, /\[Open in rooflens\]\(<https:\/\/rooflens\.example\/#example=x>\)\n$/);
  const local = await markdown(res, { file: 'block.onnx', link: 'https://rooflens.example/#file=block.onnx', localFile: true });
  assert.match(local, /the link needs block\.onnx dropped on the page again/);
});

test("Markdown summary: the forecast's band and track record are the response's (a profile with a band)", { skip: skipWasm }, async () => {
  const { eng } = await import(join(ROOT, 'web/js/format.js'));
  const res = cliJson(model, ['--hw', 'h100-sxm', '--dim', 'seq=32', '--dim', 'batch=2']);
  const f = res.forecast;
  assert.ok(f.low_s > 0 && f.high_s >= f.time_s && f.low_s <= f.time_s && f.low_s >= f.floor_s, JSON.stringify(f));
  const md = await markdown(res, { file: 'block.onnx', link: 'https://rooflens.example/#example=x' });
  const likely = `likely ${eng(f.low_s, 's')} to ${eng(f.high_s, 's')}`;
  assert.ok(md.split('\n')[2].startsWith(`About ${eng(f.time_s, 's')} per inference (${likely}) on NVIDIA H100`), md);
  assert.ok(md.includes(`- **Likely range:** ${likely}; ${esc(f.track_record)} (${esc(f.band.source)})`), md);
  assert.match(f.track_record, new RegExp(`^checked against ${f.band.runs} published runs, median error`));
  // the CLI's headline and batch row say the same
  const text = execFileSync(CLI, [model, '--hw', 'h100-sxm', '--dim', 'seq=32', '--dim', 'batch=2', '--explain'], { encoding: 'utf8' });
  assert.match(text, new RegExp(`^forecast .*, likely .* to .*\\(`, 'm'), text);
  assert.ok(text.includes(`track record: ${f.track_record} (published results)`), text);
  assert.ok(text.includes(f.band.source), text);
  const csv = execFileSync(CLI, ['batch', '--format', 'csv', '--hw', 'h100-sxm', '--dim', 'seq=32', '--dim', 'batch=2', model], { encoding: 'utf8' }).trim().split('\n');
  const head = csv[0].split(','), row = csv[1].match(/("[^"]*"|[^,]*)(,|$)/g).map((c) => c.replace(/,$/, '').replace(/^"|"$/g, ''));
  assert.equal(Number(row[head.indexOf('forecast_low_s')]), f.low_s);
  assert.equal(Number(row[head.indexOf('forecast_high_s')]), f.high_s);
  assert.equal(row[head.indexOf('forecast_track_record')], f.track_record);
});

test('Markdown summary: line breaks and Markdown syntax in strings stay inside their line or cell', { skip: skipWasm }, async () => {
  const res = cliJson(join(FIXTURES, 'models', 'mlp.onnx'));
  const clean = await markdown(res, { file: 'mlp.onnx', link: '' });
  res.hardware.name = 'GPU\n\n[click](javascript:alert(1))';
  res.totals.unsupported_ops = ['x\n| y |'];
  res.layers[0].name = 'net\n## Approved\r\n| fake | row |\u2028# also';
  res.warnings.push({ code: 'x', message: 'a\n## heading', node: '| n |' });
  const md = await markdown(res, { file: 'evil\n# name.onnx', link: '' });
  const lines = md.split('\n');
  // One more line for the unsupported ops and one for the warning, none made by a string.
  const extra = (res.warnings.length === 1 ? 4 : 1) + 1;   // a first warning adds its heading, a blank and a line
  assert.equal(lines.length, clean.split('\n').length + extra, md);
  const Z = '\u200b';   // the zero-width space that breaks an issue reference
  assert.ok(lines[0].startsWith(`## rooflens: evil \\#${Z} name.onnx on GPU  \\[click\\](javascript:alert(1))`), lines[0]);
  assert.ok(!lines.some((l) => /^#|^\| fake/.test(l) && !l.startsWith('## rooflens')), md);
  assert.ok(lines.some((l) => l.startsWith(`| net \\#${Z}\\#${Z} Approved  \\| fake \\| row \\| \\#${Z} also |`)), md);
  assert.ok(lines.some((l) => l === '- **Unsupported ops:** x \\| y \\|'), md);
  assert.ok(lines.some((l) => l === `- \\| n \\|: a \\#${Z}\\#${Z} heading (x)`), md);
});

test('Markdown summary: every input with its dtype and shape, a fixed-shape model too', { skip: skipWasm }, async () => {
  const res = cliJson(join(FIXTURES, 'models', 'conv_net.onnx'));
  const md = await markdown(res, { file: 'conv_net.onnx', link: '' });
  assert.match(md, /\*\*Dims:\*\* none \(all shapes fixed\)/);
  const want = res.model.inputs.map((i) => esc(`${i.name} ${i.dtype}[${i.shape.join(',')}]`)).join('; ');
  assert.ok(md.includes(`- **Inputs:** ${want}`), md);
});

// The page's Download CSV asks the core (export.js csvRequest/csvOfAnswer
// through the worker); so does `rooflens --format csv`: the two are one text.
test('CSV: the page\'s is the CLI\'s, and a filtered, sorted table says so on its first line', { skip: skipWasm }, async () => {
  const { csvRequest, csvOfAnswer } = await import(join(ROOT, 'web/js/export.js'));
  const core = await loadNodeCore();
  const file = join(FIXTURES, 'models', 'conv_net.onnx');
  const { model } = core.readAll(new Uint8Array(readFileSync(file)));
  const hardware = JSON.parse(readFileSync(join(ROOT, 'hw', 'h100-sxm.json'), 'utf8'));
  const res = cliJson(file);
  const page = csvOfAnswer(core.analyzeBytes(model, JSON.stringify(csvRequest({ hardware }, res.layers))));
  const cli = execFileSync(CLI, [file, '--hw', 'h100-sxm', '--format', 'csv'], { encoding: 'utf8' });
  assert.equal(page, cli);
  const lines = cli.trim().split('\n');
  assert.equal(lines.length, res.layers.length + 1);
  const convs = res.layers.filter((l) => l.op === 'Conv').sort((a, b) => b.t - a.t || a.index - b.index);
  const some = csvOfAnswer(core.analyzeBytes(model, JSON.stringify(csvRequest({ hardware }, convs, 'op Conv')))).trim().split('\n');
  assert.equal(some[0], `# ${convs.length} of ${res.layers.length} layers: only those the table's filter shows (op Conv)`);
  assert.equal(some[1], lines[0]);
  assert.deepEqual(some.slice(2), convs.map((l) => lines[l.index + 1]));
  assert.throws(() => csvOfAnswer(core.analyzeBytes(model, JSON.stringify(csvRequest({ hardware }, [{ index: 999 }])))), /layer 999/);
  core.freeModel(model);
});

test("the LLM view's forecast carries the band of each phase, never below its floor; none without a track record", { skip }, async () => {
  const llama = join(ROOT, 'tests/fixtures/models/torch/llama_1b_kv.onnx');
  const args = ['--llm', '--prompt', '64', '--generate', '8', '--format', 'json'];
  const L = JSON.parse(execFileSync(CLI, [llama, '--hw', 'h100-sxm', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 })).llm;
  const F = L.forecast, G = L.generated_tokens, B = L.batch;
  assert.ok(L.floor.ttft_s <= F.ttft_low_s && F.ttft_low_s <= F.ttft_s && F.ttft_s <= F.ttft_high_s, JSON.stringify(F));
  assert.ok(L.floor.tpot_s <= F.tpot_low_s * (1 + 1e-12) && F.tpot_low_s <= F.tpot_s && F.tpot_s <= F.tpot_high_s, JSON.stringify(F));
  const close = (a, b) => Math.abs(a - b) <= 1e-12 * Math.abs(b);
  assert.ok(close(F.tokens_per_s_low, B / F.tpot_high_s) && close(F.tokens_per_s_high, B / F.tpot_low_s), JSON.stringify(F));
  assert.equal(F.band.runs, 29);
  const none = JSON.parse(execFileSync(CLI, [llama, '--hw', 'tpu-v5e', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 })).llm.forecast;
  assert.ok([none.ttft_low_s, none.ttft_high_s, none.tpot_low_s, none.tpot_high_s, none.tokens_per_s_low, none.band].every((v) => v === null), JSON.stringify(none));
  assert.equal(none.track_record, 'no track record for this stack');
});

test("Markdown of a decoder: the LLM view's answer leads, with time to first token and per output token; the KV cache is one line with its count", { skip: skipWasm }, async () => {
  const { eng } = await import(join(ROOT, 'web/js/format.js'));
  const llama = join(ROOT, 'tests/fixtures/models/torch/llama_1b_kv.onnx');
  const dims = ['--dim', 'sequence_length=64', '--dim', 'past_sequence_length=0', '--dim', 'total_sequence_length=64'];
  const res = cliJson(llama, ['--hw', 'h100-sxm', ...dims]);
  const L = JSON.parse(execFileSync(CLI, [llama, '--hw', 'h100-sxm', '--llm', '--prompt', '64', '--generate', '8', '--format', 'json'],
    { encoding: 'utf8', maxBuffer: 1 << 28 })).llm;
  const names = L.roles.kv_input_names;
  assert.equal(names.length, L.roles.kv_inputs);
  assert.ok(names.length >= 2, 'a cache of several inputs');
  const md = await markdown(res, { file: 'llama.onnx', link: '', llm: L });
  const lines = md.split('\n');
  assert.ok(lines[2].startsWith(`Time to first token about ${eng(L.ttft_s, 's')}, then ${eng(L.tpot_s, 's')} per output token`), lines[2]);
  const kv = lines.filter((l) => l.startsWith('- **KV cache:**'));
  assert.equal(kv.length, 1, md);
  assert.ok(kv[0].startsWith(`- **KV cache:** ${names.length} inputs (${esc(names[0])} … ${esc(names[names.length - 1])})`), kv[0]);
  const inputs = lines.find((l) => l.startsWith('- **Inputs:**'));
  for (const n of names) assert.ok(!inputs.includes(esc(n)), `${n} is in the cache's line, not among the inputs`);
  const llm = lines.find((l) => l.startsWith('- **LLM'));
  assert.ok(llm.includes(`time to first token ${eng(L.ttft_s, 's')} (floor ${eng(L.floor.ttft_s, 's')})`), llm);
  assert.ok(llm.includes(`time per output token ${eng(L.tpot_s, 's')} (floor ${eng(L.floor.tpot_s, 's')})`), llm);
  // without the LLM view (an encoder, or before it answers) the Markdown is as before
  assert.ok(!(await markdown(res, { file: 'llama.onnx', link: '' })).includes('**KV cache:**'));
});
