/** Shared helpers of the provider tests (no mocks: real HTTP on loopback). */
import { inspect } from 'node:util';
import { expect } from 'vitest';
import type { ProviderConfig } from '../../activities/providers/types.js';

/** Env var holding the test API key; the key must never leak into errors (PR6). */
export const KEY_ENV = 'ZUNO_TEST_PROVIDER_KEY';
export const TEST_KEY = 'sk-test-SECRETKEY-0123456789abcdefXYZ';

export function useTestKey(): void {
  process.env[KEY_ENV] = TEST_KEY;
}

/** A provider config pointing at `baseUrl`, with short timeouts suitable for tests. */
export function providerConfig(baseUrl: string, over: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    id: 'local',
    transport: 'chat-completions',
    baseUrl,
    apiKeyEnv: KEY_ENV,
    retry: { maxAttempts: 3, initialDelayMs: 2000, maxDelayMs: 30000, recoveryWindowMs: 180000 },
    headerTimeoutMs: 5000,
    chunkTimeoutMs: 5000,
    ...over,
  };
}

/** Await a promise that must reject; returns the rejection. */
export async function rejectionOf(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject');
}

/** PR6: every rendering of the error is free of the key, the Authorization header and query strings. */
export function expectNoSecrets(err: unknown, extraSecrets: string[] = []): void {
  const e = err as Error & Record<string, unknown>;
  const renderings = [
    String(e.message),
    String(e.stack),
    JSON.stringify({ ...e, message: e.message }),
    inspect(e, { depth: 10, showHidden: true }),
  ];
  for (const r of renderings) {
    expect(r).not.toContain(TEST_KEY);
    expect(r).not.toContain(TEST_KEY.slice(8));
    expect(r.toLowerCase()).not.toMatch(/authorization:\s*bearer\s+\S{6,}/);
    for (const s of extraSecrets) expect(r).not.toContain(s);
  }
}
