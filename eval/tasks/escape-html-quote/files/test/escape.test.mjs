// The eval's own test for escape-html (the package ships none): ' becomes &#39; and ( stays as it is.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';

const escapeHtml = createRequire(import.meta.url)('../index.js');

test('a single quote is escaped, a parenthesis is not', () => assert.equal(escapeHtml("it's (x)"), 'it&#39;s (x)'));
test('the other four characters', () =>
  assert.equal(escapeHtml('<a href="x">&</a>'), '&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;'));
