import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { decideApproval } from '../../client/approvals.js';
import { APPROVALS_QUERY, type ApprovalsView } from '../../core/approval-contract.js';
import { startTestDevServer } from '../helpers/dev-server.js';
import { createProcessHarness, useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';

/**
 * Issue 11 Must show: an approval pending while its worker is SIGKILLed and
 * the dev server restarted on the same db is still pending afterwards;
 * approving it runs the call exactly once. The wait is the workflow's — no
 * process holds it.
 */
const cleanups = useCleanups();

it('a pending approval survives a worker SIGKILL and a dev-server restart; approved, the call runs exactly once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'zuno-approval-crash-'));
  const server = await startTestDevServer(join(dir, 'temporal.db'));
  cleanups.push(async () => {
    await server.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  const { h, spawnWorker } = await createProcessHarness('zuno-approval-crash', cleanups, { address: server.address });
  const ws = mkdtempSync(join(tmpdir(), 'zuno-approval-crash-ws-'));
  const first = spawnWorker();
  const run = await h.startScripted({
    workspace: ws,
    prompt: 'deploy',
    permission: { mode: 'strict', rules: [] },
    script: {
      replies: [
        { toolCalls: [{ id: 'call_deploy', name: 'shell', arguments: { command: 'echo deployed >> deploys.txt' } }] },
        { text: 'Deployed once.' },
      ],
    },
  });
  cleanups.push(() => run.closeProvider());
  const handle = h.client.workflow.getHandle(`session/${run.sessionId}`);
  const pending = await waitFor(
    async () => (await h.store.listApprovals({ sessionId: run.sessionId, status: 'pending' }))[0],
    60_000,
    'the approval to be asked',
  );

  await first.crash();
  await server.kill();
  await new Promise((r) => setTimeout(r, 1_000));
  await server.start();
  const second = spawnWorker();
  cleanups.push(() => second.stop());

  // Still pending, in the workflow and in the projection; nothing ran.
  const view = await waitFor(
    async () => handle.query<ApprovalsView>(APPROVALS_QUERY).catch(() => null),
    60_000,
    'the session to answer again',
  );
  expect(view.pending.map((p) => p.approvalId)).toEqual([pending.id]);
  expect(await h.store.getApproval(run.sessionId, pending.id)).toMatchObject({ status: 'pending' });
  expect(existsSync(join(ws, 'deploys.txt'))).toBe(false);

  await decideApproval(h.client, pending, { decision: 'approve_once' });
  expect(await run.result()).toMatchObject({ status: 'completed' });
  expect(readFileSync(join(ws, 'deploys.txt'), 'utf8')).toBe('deployed\n');
  const history = (await handle.fetchHistory()).events ?? [];
  const shellStarts = history.filter((e) => {
    const scheduledId = Number(e.activityTaskStartedEventAttributes?.scheduledEventId ?? -1);
    const scheduled = history.find((s) => Number(s.eventId) === scheduledId);
    return scheduled?.activityTaskScheduledEventAttributes?.activityType?.name === 'tool_shell';
  });
  expect(shellStarts).toHaveLength(1);
}, 120_000);
