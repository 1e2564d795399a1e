// The page's hardware groups (CATEGORY_LABELS in web/js/hardware.js) are
// the core's profile categories, no more and no fewer. The one list is the
// `categories` array of core/src/hw.c (its validator's message is built
// from it); this test reads that array and checks the page's list against
// it, then that the built core accepts each category and refuses another.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT, CLI } from './helpers.mjs';
import { CATEGORY_LABELS } from '../../web/js/hardware.js';

/** The strings of hw.c's `categories` array, in order. */
function coreCategories() {
  const src = readFileSync(join(ROOT, 'core/src/hw.c'), 'utf8');
  const m = /static const char \*const categories\[\] = \{([^}]*)\}/.exec(src);
  assert.ok(m, 'core/src/hw.c defines the array `categories`');
  return [...m[1].matchAll(/"([^"]*)"/g)].map((x) => x[1]);
}

test('the page labels exactly the categories of the core\'s list', () => {
  const core = coreCategories();
  assert.ok(core.length >= 2, `categories read from hw.c: ${core}`);
  assert.deepEqual(Object.keys(CATEGORY_LABELS).sort(), [...core].sort());
});

test('the built core accepts each category of its list and names them when refusing another',
  { skip: existsSync(CLI) ? false : 'build/rooflens missing' }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'rooflens-cat-'));
    try {
      const profile = JSON.parse(readFileSync(join(ROOT, 'hw', 'h100-sxm.json'), 'utf8'));
      const check = (category) => {
        const file = join(dir, 'h100-sxm.json');
        writeFileSync(file, JSON.stringify({ ...profile, category }));
        return spawnSync(CLI, ['--check-hw', '--shipped', file], { encoding: 'utf8' });
      };
      const core = coreCategories();
      for (const c of core) assert.equal(check(c).status, 0, `the core accepts ${c}`);
      const bad = check('no-such-category');
      assert.notEqual(bad.status, 0);
      assert.ok((bad.stdout + bad.stderr).includes(`category must be one of ${core.join(', ')}`), bad.stdout + bad.stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
