import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slugify } from '../src/slugify.js';

test('joins words with single hyphens and drops punctuation', () => {
  assert.equal(slugify('Hello, World!'), 'hello-world');
  assert.equal(slugify('  Many   spaces -- and dashes  '), 'many-spaces-and-dashes');
});

test('drops accents', () => {
  assert.equal(slugify('Crème brûlée à la carte'), 'creme-brulee-a-la-carte');
});

test('cuts a long slug to exactly maxLength characters', () => {
  assert.equal(slugify('abcdefgh', 5), 'abcde');
  assert.equal(slugify('release notes for version two', 13), 'release-notes');
});

test('a cut never ends in a hyphen', () => {
  assert.equal(slugify('release notes', 8), 'release');
});
