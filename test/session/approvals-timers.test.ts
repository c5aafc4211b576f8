import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { decideApproval } from '../../client/approvals.js';
import { APPROVALS_QUERY, type ApprovalsView } from '../../core/approval-contract.js';
import { startTimeSkippingServer } from '../helpers/time-skipping.js';
import { waitFor } from '../helpers/worker-process.js';

/**
 * Issue 11 Must show: an approval pending for 3 days is still answerable
 * (PM6: no timeout decides it). On the time-skipping test server: while the
 * call waits no activity is in flight, so the 3 days pass in seconds.
 */
const DAY = 24 * 60 * 60 * 1000;
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

it('an approval pending for 3 days is still pending and answerable; approved, the call runs', async () => {
  const ts = await startTimeSkippingServer();
  cleanups.push(() => ts.teardown());
  const stateDir = mkdtempSync(join(tmpdir(), 'zuno-approval-days-state-'));
  const ws = mkdtempSync(join(tmpdir(), 'zuno-approval-days-'));
  cleanups.push(async () => rmSync(stateDir, { recursive: true, force: true }));
  cleanups.push(async () => rmSync(ws, { recursive: true, force: true }));
  const h = await ts.harness({ stateDir });
  cleanups.push(() => h.close());
  const run = await h.startScripted({
    workspace: ws,
    prompt: 'release',
    permission: { mode: 'standard', rules: [{ tool: 'shell', action: 'ask' }] },
    script: {
      replies: [
        { toolCalls: [{ id: 'call_release', name: 'shell', arguments: { command: 'echo released >> out.txt' } }] },
        { text: 'Released.' },
      ],
    },
  });
  cleanups.push(() => run.closeProvider());
  const pending = await waitFor(
    async () => (await h.store.listApprovals({ sessionId: run.sessionId, status: 'pending' }))[0],
    30_000,
    'the approval to be asked',
  );
  const handle = ts.client.workflow.getHandle(`session/${run.sessionId}`);
  // Let the projection write that recorded it finish: then nothing is in flight.
  await waitFor(
    async () => ((await handle.describe()).raw.pendingActivities ?? []).length === 0,
    30_000,
    'no activity in flight',
  );
  const from = await ts.env.currentTimeMs();
  await ts.env.sleep(3 * DAY);
  expect((await ts.env.currentTimeMs()) - from).toBeGreaterThanOrEqual(3 * DAY);

  const view = await handle.query<ApprovalsView>(APPROVALS_QUERY);
  expect(view.pending.map((p) => p.approvalId)).toEqual([pending.id]);
  expect(existsSync(join(ws, 'out.txt'))).toBe(false);
  await decideApproval(ts.client, pending, { decision: 'approve_once' });
  expect(await run.result()).toMatchObject({ status: 'completed' });
  expect(readFileSync(join(ws, 'out.txt'), 'utf8')).toBe('released\n');
}, 90_000);
