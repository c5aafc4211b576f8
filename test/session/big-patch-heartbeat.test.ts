import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { DEFAULT_ACTIVITY_DEFAULTS } from '../../core/activity-defaults.js';
import { createHarness } from '../helpers/harness.js';
import { useCleanups } from '../helpers/session.js';
import { bigPatchCase } from '../tools/apply-patch/helpers.js';

const cleanups = useCleanups();

describe('apply_patch on a big file heartbeats while it works (issue 25, item 7)', () => {
  it('a big patch through the real tool activity completes ok under a 3 s heartbeat timeout', async () => {
    const h = await createHarness({ address: inject('temporalAddress') });
    cleanups.push(() => h.close());
    const ws = mkdtempSync(join(tmpdir(), 'zuno-bigpatch-ws-'));
    cleanups.push(async () => rmSync(ws, { recursive: true, force: true }));
    // ~1.2 M short lines and 20 hunks matched at the loosest level: before the fix the tool
    // held the event loop for several seconds at once (well past 3 s even on an idle machine),
    // so no heartbeat left the worker and the call was recorded uncertain.
    const c = bigPatchCase('big.txt', 10, 20, true);
    writeFileSync(join(ws, 'big.txt'), c.content);
    const run = await h.runSession({
      workspace: ws,
      prompt: 'patch the big file',
      activityDefaults: {
        ...DEFAULT_ACTIVITY_DEFAULTS,
        tool: { startToCloseTimeoutMs: 120_000, heartbeatTimeoutMs: 3_000 },
      },
      script: {
        replies: [
          { toolCalls: [{ name: 'read', arguments: { path: 'big.txt', limit: 5 } }] },
          { toolCalls: [{ name: 'apply_patch', arguments: { patch: c.patch } }] },
          { text: 'Patched.' },
        ],
      },
    });
    expect(run.result.status).toBe('completed');
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.toolCalls.map((x) => [x.tool, x.outcome, x.errorCode ?? null])).toEqual([
      ['read', 'ok', null],
      ['apply_patch', 'ok', null],
    ]);
    const after = readFileSync(join(ws, 'big.txt'), 'utf8').split('\n');
    expect(after).toHaveLength(c.lineCount + 1);
    for (const k of c.changed) expect(after[k]).toBe(`l${k} - x changed`);
  }, 120_000);
});
