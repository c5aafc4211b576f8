/**
 * A session's sandbox policy (SessionMeta.sandbox, SH10) reaches its shell
 * calls through the real workflow and activities: a foreground and a
 * background call of a read-only session are both confined, and their stored
 * receipts say so. Real Temporal, real bubblewrap, real files.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { useCleanups } from '../helpers/session.js';

const cleanups = useCleanups();
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
  cleanups.push(() => h.close());
});

describe('the session sandbox policy (SH10)', () => {
  it('foreground and background shell calls of a read-only session are confined, and their receipts record it', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'zuno-sbx-session-'));
    const run = await h.runSession({
      workspace: ws,
      prompt: 'try to write',
      sandbox: { mode: 'read-only', network: 'allow', writableRoots: [], explicit: true },
      script: {
        replies: [
          { toolCalls: [{ name: 'shell', arguments: { command: 'echo x > fg.txt' } }] },
          { toolCalls: [{ name: 'shell', arguments: { command: 'echo y > bg.txt', background: true } }] },
          { text: 'Both writes were refused.' },
          { text: 'The background write was refused too.' },
        ],
      },
    });
    expect(run.result.status).toBe('completed');
    expect(existsSync(join(ws, 'fg.txt'))).toBe(false);
    expect(existsSync(join(ws, 'bg.txt'))).toBe(false);
    const t = (await h.store.loadTranscript(run.sessionId))!;
    const fg = t.toolCalls[0]!;
    expect(fg.output).toContain('Read-only file system');
    expect(fg.output).toContain('sandbox bubblewrap read-only');
    expect((fg.result as { receipt: { sandbox: unknown } }).receipt.sandbox).toEqual({
      backend: 'bubblewrap',
      mode: 'read-only',
      network: 'allow',
    });
    const report = t.inputs.find((i) => i.text.startsWith('<background_report'));
    expect(report?.text).toContain('sandbox bubblewrap read-only');
    expect(report?.text).toContain('Read-only file system');
  }, 90_000);
});
