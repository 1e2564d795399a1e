// The page's hardware groups (CATEGORY_LABELS in web/js/hardware.js) are
// the core's profile categories, no more and no fewer: the core's validator
// (rooflens --check-hw --shipped) is the one list, and its answer to an
// unknown category names them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT, CLI } from './helpers.mjs';
import { CATEGORY_LABELS } from '../../web/js/hardware.js';

test('the page labels exactly the categories the core accepts', { skip: existsSync(CLI) ? false : 'build/rooflens missing' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'rooflens-cat-'));
  try {
    const profile = JSON.parse(readFileSync(join(ROOT, 'hw', 'h100-sxm.json'), 'utf8'));
    const check = (category) => {
      const file = join(dir, 'h100-sxm.json');
      writeFileSync(file, JSON.stringify({ ...profile, category }));
      return spawnSync(CLI, ['--check-hw', '--shipped', file], { encoding: 'utf8' });
    };
    const bad = check('no-such-category');
    assert.notEqual(bad.status, 0);
    const listed = /category must be one of ([a-z0-9, -]+)/.exec(bad.stdout + bad.stderr);
    assert.ok(listed, `the core names its categories: ${bad.stdout}${bad.stderr}`);
    const core = listed[1].split(',').map((s) => s.trim()).filter(Boolean).sort();
    assert.deepEqual(Object.keys(CATEGORY_LABELS).sort(), core);
    for (const c of core) assert.equal(check(c).status, 0, `the core accepts ${c}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
