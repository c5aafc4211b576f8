import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, asErrorCode, isErrorCode } from '../../core/error-codes.js';
import { ZunoError } from '../../core/errors.js';

const root = join(import.meta.dirname, '..', '..');

describe('the error-code catalogue (core/error-codes.ts)', () => {
  it('spells every code once in its source (no key repeated, even where a later one would win)', () => {
    const src = readFileSync(join(root, 'core', 'error-codes.ts'), 'utf8');
    const body = src.slice(src.indexOf('export const ERROR_CODES = {'), src.indexOf('} as const satisfies'));
    const keys = [...body.matchAll(/^ {2}([A-Za-z_0-9]+):/gm)].map((m) => m[1]!);
    expect(keys.length).toBe(Object.keys(ERROR_CODES).length);
    const seen = new Set<string>();
    const repeated = keys.filter((k) => (seen.has(k) ? true : (seen.add(k), false)));
    expect(repeated).toEqual([]);
  });

  it('gives every code a one-line meaning', () => {
    const bad = Object.entries(ERROR_CODES).filter(
      ([, meaning]) => meaning.trim().length < 10 || meaning.includes('\n') || meaning.length > 200,
    );
    expect(bad).toEqual([]);
  });

  it('names codes in snake_case, except the apply_patch conflict kinds', () => {
    const odd = Object.keys(ERROR_CODES).filter((c) => !/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(c));
    expect(odd.sort()).toEqual(['ContextMismatch', 'IdenticalReplay', 'ReadRequired', 'StaleRead']);
  });

  it('reads a code back from text only when it is catalogued', () => {
    expect(isErrorCode('rg_missing')).toBe(true);
    expect(asErrorCode('session_not_paused')).toBe('session_not_paused');
    expect(asErrorCode('ZunoError')).toBeUndefined();
    expect(asErrorCode('toString')).toBeUndefined();
    expect(asErrorCode(undefined)).toBeUndefined();
  });

  it('keeps the code on the wire as given (JSON of a ZunoError is unchanged)', () => {
    const e = new ZunoError('config_invalid', 'bad key x');
    expect(JSON.parse(JSON.stringify({ code: e.code }))).toEqual({ code: 'config_invalid' });
  });

  it('catalogues every error code the docs name (codes ending _not_found, _invalid, _failed, …)', () => {
    const docs = [
      join(root, 'README.md'),
      join(root, 'ARCHITECTURE.md'),
      ...readdirSync(join(root, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => join(root, 'docs', f)),
    ];
    const shaped =
      /`([a-z][a-z0-9]*(?:_[a-z0-9]+)*_(?:not_found|invalid|unavailable|missing|failed|refused|mismatch|ambiguous|exhausted|unreachable|conflict|timeout|too_old|unwritable|exists))`/g;
    const named = new Set(docs.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(shaped)].map((m) => m[1]!)));
    expect(named.size).toBeGreaterThan(10);
    expect([...named].filter((c) => !isErrorCode(c))).toEqual([]);
  });
});
