// The eval's own test for fast-deep-equal: both builds (index.js and es6/index.js) compare key counts.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';

const require = createRequire(import.meta.url);

for (const build of ['../index.js', '../es6/index.js']) {
  const equal = require(build);
  test(`${build}: an extra key on either side makes objects unequal`, () => {
    assert.equal(equal({ a: 1 }, { a: 1, b: 2 }), false);
    assert.equal(equal({ a: 1, b: 2 }, { a: 1 }), false);
    assert.equal(equal({ a: 1, b: [1] }, { b: [1], a: 1 }), true);
  });
}
