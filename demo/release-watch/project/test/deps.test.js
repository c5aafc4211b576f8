import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { LEFT_PAD_LITE_MAJOR } from '../src/columns.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

test('package.json depends on the left-pad-lite major the code is written for', () => {
  const range = pkg.dependencies['left-pad-lite'];
  const m = /^\^(\d+)\.\d+\.\d+$/.exec(range);
  assert.ok(m, `expected a caret range like ^2.0.0, got ${range}`);
  assert.equal(Number(m[1]), LEFT_PAD_LITE_MAJOR, `left-pad-lite ${range} is not major ${LEFT_PAD_LITE_MAJOR}`);
});
