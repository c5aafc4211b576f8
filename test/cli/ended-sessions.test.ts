/**
 * Sessions ended from outside Zuno read right (issue 25 item 7.1, 7.4): a
 * session whose workflow was terminated in Temporal is settled by the next
 * `zuno session show|list` (status `terminated`, its unanswered input
 * cancelled, its pending approval `abandoned`), `zuno session interrupt`
 * says in one line how a session that is not running ended, and `zuno
 * approvals list` lists only approvals their session's workflow is waiting
 * on. Real dev server, real worker (the harness's, on the CLI's home), real
 * shell, real SQLite projection.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { interruptSession } from '../../client/session-start.js';
import type { ApprovalRow } from '../../activities/projection/types.js';
import type { PermissionPolicy } from '../../core/permission/types.js';
import { type Harness, type StartedRun } from '../helpers/harness.js';
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

const ASK_SHELL: PermissionPolicy = { mode: 'standard', rules: [{ tool: 'shell', action: 'ask' }] };

async function start(script: Parameters<Harness['startScripted']>[0]['script'], permission?: PermissionPolicy) {
  const workspace = mkdtempSync(join(tmpdir(), 'zuno-ended-'));
  const run: StartedRun = await h.startScripted({
    workspace,
    prompt: 'do the thing',
    script,
    ...(permission ? { permission } : {}),
  });
  cleanups.push(async () => {
    await h.client.workflow
      .getHandle(run.workflowId)
      .terminate('test over')
      .catch(() => undefined);
    await run.closeProvider();
  });
  return { run, workspace };
}

/** A session whose one shell call asks for approval, waiting on it (its row pending). */
async function asking(): Promise<{ run: StartedRun; row: ApprovalRow }> {
  const { run } = await start(
    {
      replies: [{ toolCalls: [{ id: 'call_1', name: 'shell', arguments: { command: 'echo ran' } }] }, { text: 'ok' }],
    },
    ASK_SHELL,
  );
  const row = await waitFor(
    async () => (await h.store.listApprovals({ sessionId: run.sessionId, status: 'pending' }))[0] ?? null,
    30_000,
    'the pending approval',
  );
  return { run, row };
}

describe('a session terminated in Temporal', () => {
  it('show and list settle its row terminated, its input cancelled; interrupt says it was terminated', async () => {
    const { run, workspace } = await start({
      replies: [{ toolCalls: [{ name: 'shell', arguments: { command: 'touch go; sleep 60' } }] }, { text: 'done' }],
    });
    await waitFor(async () => existsSync(join(workspace, 'go')), 30_000, 'the shell call to start');
    await waitFor(
      async () => (await h.store.getSession(run.sessionId))?.status === 'running',
      30_000,
      'the session row',
    );
    await h.client.workflow.getHandle(run.workflowId).terminate('from the temporal CLI');

    const show = await runZuno(['session', 'show', run.sessionId], { home });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout.split('\n')[0]).toMatch(new RegExp(`^session ${run.sessionId} +terminated `));
    expect(show.stdout).toContain('error terminated in Temporal: the workflow ended without recording it');
    const row = await h.store.getSession(run.sessionId);
    expect(row).toMatchObject({ status: 'terminated' });
    // The input it admitted was never answered: recorded cancelled, never dropped.
    const inputs = await h.store.listInputs(run.sessionId);
    expect(inputs.map((i) => i.state)).toEqual(['cancelled']);

    const list = await runZuno(['session', 'list', '--json'], { home });
    const listed = (JSON.parse(list.stdout) as { id: string; status: string }[]).find((r) => r.id === run.sessionId);
    expect(listed).toMatchObject({ status: 'terminated' });
    const running = await runZuno(['session', 'list', '--status', 'running', '--json'], { home });
    expect((JSON.parse(running.stdout) as { id: string }[]).map((r) => r.id)).not.toContain(run.sessionId);

    const interrupt = await runZuno(['session', 'interrupt', run.sessionId], { home });
    expect(interrupt.code).not.toBe(0);
    expect(interrupt.stderr.trim().split('\n')).toHaveLength(1);
    expect(interrupt.stderr).toContain(
      `session ${run.sessionId} is not running: it was terminated in Temporal; there is nothing to interrupt`,
    );
  }, 120_000);

  it('an interrupted session: interrupt says it was interrupted, not "COMPLETED"', async () => {
    const { run, workspace } = await start({
      replies: [{ toolCalls: [{ name: 'shell', arguments: { command: 'touch go; sleep 60' } }] }, { text: 'done' }],
    });
    await waitFor(async () => existsSync(join(workspace, 'go')), 30_000, 'the shell call to start');
    await interruptSession(h.client, run.sessionId, 'test');
    expect((await run.result()).outcome).toMatchObject({ kind: 'interrupted' });
    const interrupt = await runZuno(['session', 'interrupt', run.sessionId], { home });
    expect(interrupt.code).not.toBe(0);
    expect(interrupt.stderr).toContain(
      `session ${run.sessionId} is not running: it was interrupted; there is nothing to interrupt`,
    );
    expect(interrupt.stderr).not.toContain('COMPLETED');
  }, 120_000);
});

describe('zuno approvals list lists only live approvals', () => {
  it('drops (and settles abandoned) the approval of a terminated session, and a row its open workflow is not waiting on', async () => {
    const live = await asking();
    const dead = await asking();
    // A row whose recordApproval ran but whose workflow never asked it (or already forgot it): stale.
    const stale: ApprovalRow = { ...live.row, id: 'ap_9_9_9', rowId: 'tc_9_9_9', callId: 'call_stale' };
    await h.store.upsertApproval(stale);
    await h.client.workflow.getHandle(dead.run.workflowId).terminate('from the temporal CLI');

    const list = await runZuno(['approvals', 'list', '--json'], { home });
    expect(list.code, list.stderr).toBe(0);
    const ids = (JSON.parse(list.stdout) as ApprovalRow[]).map((r) => `${r.sessionId}/${r.id}`);
    expect(ids).toContain(`${live.run.sessionId}/${live.row.id}`);
    expect(ids).not.toContain(`${live.run.sessionId}/ap_9_9_9`);
    expect(ids).not.toContain(`${dead.run.sessionId}/${dead.row.id}`);
    // --json keeps the machine names: the stored row's status.
    expect((JSON.parse(list.stdout) as ApprovalRow[]).every((r) => r.status === 'pending')).toBe(true);

    const human = await runZuno(['approvals', 'list'], { home });
    expect(human.stdout).toContain(live.run.sessionId);
    expect(human.stdout).not.toContain(dead.run.sessionId);
    expect(human.stdout).not.toContain('ap_9_9_9');

    expect(await h.store.getApproval(dead.run.sessionId, dead.row.id)).toMatchObject({
      status: 'abandoned',
      message: 'its session was terminated in Temporal before a decision',
    });
    // The open workflow's stale row is hidden, not settled: recordApproval may still be about to write it.
    expect(await h.store.getApproval(live.run.sessionId, 'ap_9_9_9')).toMatchObject({ status: 'pending' });
  }, 120_000);
});
