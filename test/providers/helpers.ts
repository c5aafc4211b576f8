/** Shared helpers of the provider tests (no mocks: real HTTP on loopback). */
import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { ProviderError } from '../../activities/providers/errors.js';
import type { ProviderConfig } from '../../activities/providers/types.js';
import { startLocalProvider, type LocalProvider } from '../../local-provider/server.js';
import type { Script } from '../../local-provider/script.js';

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

/** What {@link useLocalProviders} hands a test file (or `describe` block). */
export interface LocalProviderHarness {
  /**
   * Start a local provider serving `script`; it is closed after the test.
   * Replies go out in arrival order (`replyBy: "arrival"`) unless the script
   * says otherwise: these tests repeat one fixed request, whose conversation
   * position never moves.
   */
  serve(script: Script): Promise<LocalProvider>;
  /** Await a promise that must reject with a {@link ProviderError}; the error is checked for secrets after all tests (PR6). */
  failureOf(p: Promise<unknown>): Promise<ProviderError>;
}

/**
 * Registers the hooks of a provider test file (or of the `describe` block it
 * is called in): the test key is set before all tests (unless `testKey` is
 * false), every local provider started by `serve` is closed after each test,
 * and every error `failureOf` saw is checked for secrets after all tests
 * ({@link expectNoSecrets}), first asserting that more than
 * `moreErrorsThan` were seen when given.
 */
export function useLocalProviders(opts: { testKey?: boolean; moreErrorsThan?: number } = {}): LocalProviderHarness {
  const open: LocalProvider[] = [];
  const seenErrors: unknown[] = [];
  if (opts.testKey !== false) beforeAll(() => useTestKey());
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  afterAll(() => {
    if (opts.moreErrorsThan !== undefined) expect(seenErrors.length).toBeGreaterThan(opts.moreErrorsThan);
    for (const e of seenErrors) expectNoSecrets(e);
  });
  return {
    async serve(script) {
      // Wire tests send one fixed request over and over and expect the script's replies in turn.
      const s = await startLocalProvider({ script: { replyBy: 'arrival', ...script } });
      open.push(s);
      return s;
    },
    async failureOf(p) {
      const err = await rejectionOf(p);
      seenErrors.push(err);
      expect(err).toBeInstanceOf(ProviderError);
      return err as ProviderError;
    },
  };
}
