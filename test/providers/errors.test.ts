/** Pure parts of the provider error model: Retry-After, status mapping, redaction (PR2, PR3, PR6). */
import { describe, expect, it } from 'vitest';
import {
  boundedReason,
  codeForHttpStatus,
  extractProviderError,
  isProviderError,
  parseRetryAfter,
  ProviderError,
} from '../../activities/providers/errors.js';
import { redact } from '../../activities/infra/redact.js';
import { RETRYABLE_BY_CODE } from '../../core/provider-error-codes.js';
import { ZunoError } from '../../core/errors.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter(['12'], now)).toBe(12000);
  });
  it('reads an HTTP-date (past dates give 0)', () => {
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
  });
  it('ignores invalid values', () => {
    for (const v of ['', '-1', '1.5', 'soon', '3s', '2026-01-01T00:00:05Z', 'NaN', '1e3', undefined, null]) {
      expect(parseRetryAfter(v as string | undefined, now)).toBeUndefined();
    }
    expect(parseRetryAfter(['1', '2'], now)).toBeUndefined();
  });
});

describe('status mapping', () => {
  it('maps statuses to codes with the documented retry verdicts', () => {
    const cases: Array<[number, string, boolean]> = [
      [400, 'provider_bad_request', false],
      [401, 'provider_auth', false],
      [403, 'provider_auth', false],
      [404, 'provider_bad_request', false],
      [408, 'provider_timeout', true],
      [409, 'provider_unavailable', true],
      [413, 'provider_bad_request', false],
      [422, 'provider_bad_request', false],
      [429, 'provider_rate_limited', true],
      [500, 'provider_unavailable', true],
      [502, 'provider_unavailable', true],
      [503, 'provider_unavailable', true],
      [529, 'provider_unavailable', true],
    ];
    for (const [status, code, retryable] of cases) {
      const c = codeForHttpStatus(status);
      expect([status, c, RETRYABLE_BY_CODE[c]]).toEqual([status, code, retryable]);
    }
    expect(RETRYABLE_BY_CODE.upstream_stream_incomplete).toBe(true);
    expect(RETRYABLE_BY_CODE.provider_connection).toBe(true);
    expect(RETRYABLE_BY_CODE.provider_protocol).toBe(false);
    expect(RETRYABLE_BY_CODE.content_filtered).toBe(false);
  });

  it('extracts message and code from common error bodies', () => {
    expect(extractProviderError({ error: { message: 'm', type: 'invalid_request_error', code: 'bad_param' } })).toEqual(
      {
        message: 'm',
        code: 'bad_param',
      },
    );
    expect(extractProviderError({ error: { message: 'm', type: 'invalid_request_error', code: null } })).toEqual({
      message: 'm',
      code: 'invalid_request_error',
    });
    expect(extractProviderError({ error: { code: 429, message: 'slow down' } })).toEqual({
      message: 'slow down',
      code: '429',
      status: 429,
    });
    expect(extractProviderError({ detail: 'Not Found' })).toEqual({ message: 'Not Found' });
    expect(extractProviderError('plain')).toEqual({});
  });
});

describe('redaction (PR6)', () => {
  it('removes keys, bearer tokens, URL queries and userinfo', () => {
    const key = 'my-very-secret-key-123';
    const text = `key ${key} Authorization: Bearer abc.def-ghi sk-proj-ABCDEFGH12345678 https://user:pw@api.example.com/v1/chat?api_key=zzz&x=1 token=QQQQ`;
    const r = redact(text, [key]);
    expect(r).not.toContain(key);
    expect(r).not.toContain('abc.def-ghi');
    expect(r).not.toContain('ABCDEFGH12345678');
    expect(r).not.toContain('zzz');
    expect(r).not.toContain('user:pw');
    expect(r).not.toContain('QQQQ');
    expect(r).toContain('https://[redacted]@api.example.com/v1/chat?[redacted]');
  });

  it('bounds reasons to 300 chars', () => {
    expect(boundedReason('x'.repeat(1000)).length).toBe(300);
    const err = new ProviderError('provider_unavailable', {
      diagnostic: { reason: 'y'.repeat(5000), code: 'c'.repeat(500) },
    });
    expect(err.diagnostic.reason.length).toBeLessThanOrEqual(300);
    expect(err.diagnostic.code!.length).toBeLessThanOrEqual(80);
  });

  it('is a ZunoError with a stable code, retry verdict and details', () => {
    const err = new ProviderError('provider_rate_limited', {
      diagnostic: { status: 429, reason: 'HTTP 429: slow down, key SECRET-KEY-42' },
      retryAfterMs: 1500,
      providerId: 'openrouter',
      secrets: ['SECRET-KEY-42'],
    });
    expect(err).toBeInstanceOf(ZunoError);
    expect(isProviderError(err)).toBe(true);
    expect(err.code).toBe('provider_rate_limited');
    expect(err.retryable).toBe(true);
    expect(err.retryAfterMs).toBe(1500);
    expect(err.message).toBe('provider openrouter: HTTP 429: slow down, key [redacted]');
    expect(err.details).toMatchObject({ retryable: true, retryAfterMs: 1500, providerId: 'openrouter' });
    expect(JSON.stringify(err)).not.toContain('SECRET-KEY-42');
  });
});
