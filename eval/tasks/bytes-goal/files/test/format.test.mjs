// The eval's own test for bytes: a whole kilobyte formats as 1KB.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';

const bytes = createRequire(import.meta.url)('../index.js');

test('1024 bytes is 1KB', () => assert.equal(bytes(1024), '1KB'));
test('1023 bytes stay bytes', () => assert.equal(bytes(1023), '1023B'));
test('a megabyte', () => assert.equal(bytes(1048576), '1MB'));
