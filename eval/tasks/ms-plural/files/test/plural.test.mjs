// The eval's own test for ms (the package ships none): long format pluralizes from 1.5 units on.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';

const ms = createRequire(import.meta.url)('../index.js');

test('a day and a half is "2 days"', () => assert.equal(ms(1.5 * 86400000, { long: true }), '2 days'));
test('a minute and a half is "2 minutes"', () => assert.equal(ms(90000, { long: true }), '2 minutes'));
test('one day is "1 day"', () => assert.equal(ms(86400000, { long: true }), '1 day'));
