import assert from 'node:assert/strict';
import { test } from 'node:test';
import { columnWidths, padCall } from '../src/columns.js';

test('columnWidths finds the widest cell of each column', () => {
  assert.deepEqual(
    columnWidths([
      ['id', 'name'],
      [12345, 'ab'],
    ]),
    [5, 4],
  );
});

test('padCall builds a left-pad-lite 2 call: the text and an options object', () => {
  assert.deepEqual(padCall(42, 5), ['42', { width: 5, fill: ' ' }]);
});
