import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterAll(async () => h?.close());

describe('PR5 header deadline through the whole stack', () => {
  it('response headers that never arrive end the turn with a typed provider_timeout, not a hang', async () => {
    h = await createHarness({ address: inject('temporalAddress') });
    const run = await h.runSession({
      workspace: mkdtempSync(join(tmpdir(), 'zuno-hdr-timeout-')),
      prompt: 'hi',
      provider: (p) => ({
        ...p,
        headerTimeoutMs: 500,
        retry: { ...p.retry, maxAttempts: 2, initialDelayMs: 100 },
      }),
      // The server holds every answer's headers for 10 minutes.
      script: {
        replies: [
          { text: 'never', fault: { delayMs: 600_000 } },
          { text: 'never either', fault: { delayMs: 600_000 } },
        ],
      },
    });
    expect(run.result.status).toBe('failed');
    expect(run.result.error?.code).toBe('provider_timeout');
    expect(run.result.error?.message).toContain('after 2 attempts');
    // Two 0.5 s deadlines and one short backoff, not ten minutes: the test's own 60 s limit bounds it.
    expect(run.providerRequests).toHaveLength(2);
  }, 60_000);
});
