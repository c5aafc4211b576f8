/**
 * `zuno session compact` (issue 28 item 4): a person compacts a live
 * session whatever `compaction.auto` says; the command waits for the
 * summary and prints its figures; a malformed, unknown or ended session is
 * refused in one typed line. Real dev server, real worker (the harness's,
 * on the CLI's home), real SQLite projection, the scripted provider.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMPACTION_DEFAULTS } from '../../core/compaction/contract.js';
import { EV } from '../../core/events.js';
import { type Harness } from '../helpers/harness.js';
import { homeHarness } from './home-harness.js';
import { useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';
import { runZuno } from './helpers.js';

const cleanups = useCleanups();
let h: Harness;
let home: string;
beforeAll(async () => {
  ({ h, home } = await homeHarness(cleanups));
});

async function session(exitWhenIdle: boolean) {
  const workspace = mkdtempSync(join(tmpdir(), 'zuno-compact-cli-'));
  writeFileSync(join(workspace, 'notes.txt'), 'the retry policy lives in core/activity-policy.ts\n'.repeat(40));
  const run = await h.startScripted({
    workspace,
    prompt: 'Where is the retry policy?',
    tools: ['read'],
    exitWhenIdle,
    compaction: { ...COMPACTION_DEFAULTS, auto: false, retainedTokens: 50 },
    script: {
      replies: [
        { toolCalls: [{ name: 'read', arguments: { path: 'notes.txt' } }] },
        { text: 'In core/activity-policy.ts.' },
      ],
      threads: [
        {
          match: 'Compaction request',
          replies: [
            { text: 'The person asked where the retry policy is.' },
            { text: 'Asked and answered: core/activity-policy.ts.' },
          ],
        },
      ],
    },
  });
  cleanups.push(async () => {
    await h.client.workflow
      .getHandle(run.workflowId)
      .terminate('test over')
      .catch(() => undefined);
    await run.closeProvider();
  });
  await waitFor(
    async () => (await h.store.listEvents(run.sessionId, 0, 500)).find((e) => e.type === EV.completed),
    60_000,
    'the first turn to end',
  );
  return run;
}

describe('zuno session compact', () => {
  it('compacts a live idle session with compaction.auto false and prints the figures; --json prints the receipt', async () => {
    const run = await session(false);
    const r = await runZuno(['session', 'compact', run.sessionId], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`compacting session ${run.sessionId}…`);
    expect(r.stdout).toMatch(
      new RegExp(
        `^session ${run.sessionId} compacted \\(cmp_1_0_[0-9a-f]{8}\\): the earlier conversation took ≈\\d+ tokens, now ≈\\d+ \\(o200k_base\\); the summary stands for everything through turn 1 step 1, summary [0-9a-f]{16}\\n$`,
      ),
    );
    const published = (await h.store.listEvents(run.sessionId, 0, 500)).filter((e) => e.type === EV.compactionSummary);
    expect(published.map((e) => e.data.trigger)).toEqual(['manual']);
    // The second summarizes the step the first kept verbatim; --json prints the receipt whole.
    const json = await runZuno(['session', 'compact', run.sessionId, '--json'], { home });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      sessionId: run.sessionId,
      boundary: { turn: 0, step: 1 },
      estimator: 'o200k_base',
      waitedForTurn: false,
    });
    // A third has nothing left to summarize: refused typed; the second summary stands.
    const again = await runZuno(['session', 'compact', run.sessionId], { home });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^zuno: compaction_failed: .*nothing left to compact/m);
    const all = (await h.store.listEvents(run.sessionId, 0, 500)).filter((e) => e.type === EV.compactionSummary);
    expect(all).toHaveLength(2);
  });

  it('refuses a malformed id, an unknown session and one whose workflow has ended, each in one typed line', async () => {
    const bad = await runZuno(['session', 'compact', 'not-a-session'], { home });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/session_id_invalid|usage_error/);
    const unknown = await runZuno(['session', 'compact', 'ses_mx0000000000'], { home });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^zuno: session_not_found: /m);
    const ended = await session(true);
    await ended.result();
    const r = await runZuno(['session', 'compact', ended.sessionId], { home });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^zuno: session_not_running: session ses_\w+ is not running: .*a compaction runs inside a live session/m,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
