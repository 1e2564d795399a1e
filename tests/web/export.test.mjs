// The review-comment export (Copy summary as Markdown) with hostile model
// strings: whatever a name holds, the comment keeps its structure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, CLI, FIXTURES, cliJson } from './helpers.mjs';

const skip = existsSync(CLI) ? false : 'missing: build/rooflens (cmake --build build)';

test('Markdown summary: line breaks and Markdown syntax in model strings stay inside their cell', { skip }, async () => {
  const { toMarkdown } = await import(join(ROOT, 'web/js/export.js'));
  const res = cliJson(join(FIXTURES, 'models', 'mlp.onnx'));
  const clean = toMarkdown(res, '');
  res.model.name = 'net\n## Approved\r\n| fake | row |\u2028# also';
  res.hardware.name = 'GPU\n\n[click](javascript:alert(1))';
  res.totals.unsupported_ops = ['x\n| y |'];
  const md = toMarkdown(res, '');
  const lines = md.split('\n');
  // One more line at most (the unsupported-ops row), no line made by a name.
  assert.equal(lines.length, clean.split('\n').length + 1);
  assert.ok(lines[0].startsWith('## rooflens: net ') && lines[0].includes('\\#\\# Approved') && lines[0].includes('\\| fake \\| row \\|'), lines[0]);
  assert.ok(!lines.slice(1).some((l) => /Approved|fake|click/.test(l) && !l.startsWith('| unsupported')), md);
  assert.ok(lines[0].includes('\\[click\\](javascript:alert(1))'), lines[0]);
  const unsup = lines.find((l) => l.startsWith('| unsupported ops |'));
  assert.equal(unsup, '| unsupported ops | x \\| y \\| |');
});
