// The browser benchmarks' models, made on first use in build/bench/ (one
// list for tools/bench/browser.mjs and tools/bench/netron.mjs):
// ResNet-50 and BERT-Large with their weights inline, and a transformer of
// Swin-T's size in layers (tools/make-models/big_model.py, Debian's python3-onnx);
// the 100,000-node MatMul+Relu chain (tools/make-models/huge-model.mjs).
import { existsSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../tests/web/helpers.mjs';
import { writeHugeModel } from '../make-models/huge-model.mjs';

export const BENCH = join(ROOT, 'build/bench');

function bigModel(name, extra) {
  mkdirSync(BENCH, { recursive: true });
  const path = join(BENCH, `${name}.onnx`);
  if (!existsSync(path)) {
    console.log(`making ${path} ...`);
    execFileSync('/usr/bin/python3', [join(ROOT, 'tools/make-models/big_model.py'), path, ...extra], { stdio: 'inherit' });
  }
  return path;
}

/** name -> {title, path()}: path() makes the model when it is missing. */
export const BENCH_MODELS = {
  resnet50: { title: 'ResNet-50', path: () => bigModel('resnet50', ['--arch', 'resnet50']) },
  bert_large: { title: 'BERT-Large', path: () => bigModel('bert_large', []) },
  // 130 encoder blocks of the BERT graph at hidden 96 make about 6,500
  // nodes (Swin-T's export has 6,532).
  swin_like: { title: 'Swin-T-sized', path: () => bigModel('swin_like', ['--layers', '130', '--hidden', '96', '--heads', '3', '--ff', '384',
    '--vocab', '1000', '--max-pos', '64', '--seq', '49']) },
  // the real Swin-T (torchvision's, random weights), exported with Debian's
  // python3-torch and python3-torchvision when they are installed
  swin_t: { title: 'Swin-T', path: () => {
    mkdirSync(BENCH, { recursive: true });
    const p = join(BENCH, 'swin_t.onnx');
    if (!existsSync(p)) execFileSync('/usr/bin/python3', [join(ROOT, 'tools/make-models/torch_models.py'), '--out', BENCH, '--opset', '17', 'swin_t'], { stdio: 'inherit' });
    return p;
  } },
  nodes100k: { title: '100,000 nodes', path: () => {
    mkdirSync(BENCH, { recursive: true });
    const p = join(BENCH, 'nodes100k.onnx');
    if (!existsSync(p)) writeHugeModel(p, { bytes: 50000 * 16, hidden: 2 }); // MatMul + Relu per 2x2 weight
    return p;
  } },
};
