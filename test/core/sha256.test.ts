import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../core/sha256.js';

/** The workflow's pure SHA-256 (issue 26 item 1) agrees with Node's on every kind of input. */
describe('sha256Hex', () => {
  const node = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

  it('matches the FIPS 180-4 examples', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('matches node:crypto for block boundaries, multi-byte text, lone surrogates and long text', () => {
    const cases = [
      'echo hello > note.txt && ls',
      "cat <<'EOF' > a.txt\nline one\n\tline two\nEOF",
      'x'.repeat(55),
      'x'.repeat(56),
      'x'.repeat(63),
      'x'.repeat(64),
      'x'.repeat(119),
      'é中😀 \u0000\u001b[2J\u202e',
      'lone \ud800 high and \udc00 low',
      'y'.repeat(100_000),
    ];
    for (const c of cases) expect(sha256Hex(c), JSON.stringify(c.slice(0, 20))).toBe(node(c));
  });
});
