// The page's one number formatter (web/js/format.js): its outputs, and the
// rule that no other script of the page formats numbers by hand.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers.mjs';

const fmt = await import(join(ROOT, 'web/js/format.js'));

test('format.js: shares, changes, progress, ratios and field values', () => {
  assert.equal(fmt.pct(0.5), '50.0 %');
  assert.equal(fmt.pct(0.05), '5.00 %');
  assert.equal(fmt.pct(0.5, 0), '50 %');
  assert.equal(fmt.pct(0.05, 0), '5.0 %');
  assert.equal(fmt.pct(NaN), '–');
  assert.equal(fmt.signedPct(0.0981), '+9.81 %');
  assert.equal(fmt.signedPct(-0.5), '−50.0 %');
  assert.equal(fmt.signedPct(15), '+1,500 %');       // not '+1.50e+3 %'
  assert.equal(fmt.signedPct(1234.5), '+123,000 %');
  assert.equal(fmt.exact(357.69672681546064, 'W'), '357.697 W');   // no binary noise in a tooltip
  assert.equal(fmt.exact(1234567, 'FLOP'), '1,234,567 FLOP');
  assert.equal(fmt.progressPct(5, 10), '50 %');
  assert.equal(fmt.progressPct(11, 10), '100 %');
  assert.equal(fmt.times(1.2345), '1.23×');
  assert.equal(fmt.times(Infinity), '–×');
  assert.equal(fmt.plain(14.700000000000001), '14.7');
  assert.equal(fmt.eng(1234567, 'FLOP'), '1.23 MFLOP');
});

test('no script of the page but format.js turns a number into text by hand', () => {
  const dir = join(ROOT, 'web/js');
  const offenders = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.js') && n !== 'format.js')) {
    readFileSync(join(dir, f), 'utf8').split('\n').forEach((line, i) => {
      if (/\.(toFixed|toPrecision|toExponential|toLocaleString)\(/.test(line)) offenders.push(`${f}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(offenders, [], 'format numbers with web/js/format.js');
});
