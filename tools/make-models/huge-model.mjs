#!/usr/bin/env node
// Writes an ONNX model of any size, for the huge-input benchmark and tests:
// a chain of MatMul + Relu layers whose float weights are K x K matrices.
//
//   node tools/make-models/huge-model.mjs OUT.onnx [--bytes N] [--hidden K] [--external] [--dense]
//
// Inline (default): the weights are raw_data inside OUT.onnx, so the file is
// as big as the weights. The bytes of the weights are left as a hole (a
// sparse file: it reads back as zeros and costs no disk) unless --dense, which
// writes real zeros. The protobuf structure is complete and valid either way.
// --external: OUT.onnx holds only the graph and references OUT.onnx.data
// (data_location EXTERNAL), created sparse at its full size and never read
// by rooflens.
//
// Written by hand in protobuf wire format (no onnx package needed, and no
// need to hold gigabytes in memory): the field numbers are onnx.proto's.
import { openSync, writeSync, closeSync, ftruncateSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';

const enc = new TextEncoder();

function varint(n) {
  // n may exceed 2^32 (lengths of multi-gigabyte payloads): use BigInt.
  let v = BigInt(n);
  const out = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return Uint8Array.from(out);
}

// Takes the parts as one array, not spread arguments: a graph of a million
// nodes would overflow the call stack as arguments.
function catAll(parts) {
  const len = parts.reduce((s, p) => s + p.length, 0);
  const out = new Uint8Array(len);
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}
const cat = (...parts) => catAll(parts);

const key = (field, wire) => varint(field * 8 + wire);
const fVarint = (field, n) => cat(key(field, 0), varint(n));
const fBytes = (field, bytes) => cat(key(field, 2), varint(bytes.length), bytes);
const fString = (field, s) => fBytes(field, enc.encode(s));

const FLOAT = 1;

function valueInfo(name, dims) {
  const dimMsgs = dims.map((d) => fBytes(1, typeof d === 'string' ? fString(2, d) : fVarint(1, d)));
  const shape = cat(...dimMsgs);
  const tensorType = cat(fVarint(1, FLOAT), fBytes(2, shape));
  return cat(fString(1, name), fBytes(2, fBytes(1, tensorType)));
}

function node(op, inputs, outputs, name) {
  return cat(...inputs.map((i) => fString(1, i)), ...outputs.map((o) => fString(2, o)), fString(3, name), fString(4, op));
}

/**
 * Writes the model. Returns {path, size, dataPath, dataSize, layers, hidden, weightBytes}.
 * @param {string} path
 * @param {{bytes?: number, hidden?: number, external?: boolean, dense?: boolean}} opts
 *   bytes: weight bytes wanted (rounded up to whole layers); default 2.2e9.
 */
export function writeHugeModel(path, { bytes = 2.2e9, hidden = 8192, external = false, dense = false } = {}) {
  const layerBytes = hidden * hidden * 4;
  const layers = Math.max(1, Math.ceil(bytes / layerBytes));
  const dataPath = external ? path + '.data' : null;

  // Graph pieces in file order: nodes, name, initializers, inputs, outputs.
  const nodes = [];
  let x = 'x';
  for (let i = 0; i < layers; i++) {
    nodes.push(fBytes(1, node('MatMul', [x, `w${i}`], [`mm${i}`], `layer${i}/MatMul`)));
    const y = i === layers - 1 ? 'y' : `h${i}`;
    nodes.push(fBytes(1, node('Relu', [`mm${i}`], [y], `layer${i}/Relu`)));
    x = y;
  }
  // Each initializer: its header (dims, type, name, raw_data key + length)
  // and then a payload of layerBytes (a hole unless dense), or for external
  // weights a complete message pointing into the data file.
  const inits = [];
  for (let i = 0; i < layers; i++) {
    const head = cat(fVarint(1, hidden), fVarint(1, hidden), fVarint(2, FLOAT), fString(8, `w${i}`));
    if (external) {
      const entry = (k, v) => fBytes(13, cat(fString(1, k), fString(2, v)));
      const body = cat(head, entry('location', basename(dataPath)), entry('offset', String(i * layerBytes)),
        entry('length', String(layerBytes)), fVarint(14, 1 /* EXTERNAL */));
      inits.push({ prefix: cat(key(5, 2), varint(body.length), body), hole: 0 });
    } else {
      const rawHead = cat(key(9, 2), varint(layerBytes));
      const msgLen = head.length + rawHead.length + layerBytes;
      inits.push({ prefix: cat(key(5, 2), varint(msgLen), head, rawHead), hole: layerBytes });
    }
  }
  const tail = cat(fBytes(11, valueInfo('x', ['batch', hidden])), fBytes(12, valueInfo('y', ['batch', hidden])));
  const graphHead = catAll([...nodes, fString(2, 'huge_mlp')]);
  const graphLen = graphHead.length + inits.reduce((s, p) => s + p.prefix.length + p.hole, 0) + tail.length;
  const modelHead = cat(fVarint(1, 8), fString(2, 'rooflens huge-model.mjs'),
    fBytes(8, fVarint(2, 13)), key(7, 2), varint(graphLen));

  const fd = openSync(path, 'w');
  let pos = 0;
  const put = (b) => { writeSync(fd, b, 0, b.length, pos); pos += b.length; };
  const zeros = dense ? new Uint8Array(8 << 20) : null;
  try {
    put(modelHead);
    put(graphHead);
    for (const p of inits) {
      put(p.prefix);
      if (dense) {
        for (let left = p.hole; left > 0;) { const n = Math.min(left, zeros.length); put(zeros.subarray(0, n)); left -= n; }
      } else pos += p.hole;   // leave a hole: the next write past it makes the file sparse
    }
    put(tail);
    ftruncateSync(fd, pos);
  } finally { closeSync(fd); }

  let dataSize = 0;
  if (external) {
    dataSize = layers * layerBytes;
    const dfd = openSync(dataPath, 'w');
    try { ftruncateSync(dfd, dataSize); } finally { closeSync(dfd); }
  }
  return { path, size: statSync(path).size, dataPath, dataSize, layers, hidden, weightBytes: layers * layerBytes };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const out = args.find((a) => !a.startsWith('--') && !/^\d/.test(a));
  const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? Number(args[i + 1]) : undefined; };
  if (!out) {
    console.error('usage: node tools/make-models/huge-model.mjs OUT.onnx [--bytes N] [--hidden K] [--external] [--dense]');
    process.exit(2);
  }
  const r = writeHugeModel(out, { bytes: opt('--bytes'), hidden: opt('--hidden'), external: args.includes('--external'),
    dense: args.includes('--dense') });
  console.log(JSON.stringify(r));
}
