import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { decideApproval, findApproval, subjectDigestOf } from '../../client/approvals.js';
import { interruptSession, newSessionId } from '../../client/session-start.js';
import {
  APPROVALS_QUERY,
  DECIDE_APPROVAL_UPDATE,
  type ApprovalDecisionRequest,
  type ApprovalDecisionResult,
  type ApprovalsView,
} from '../../core/approval-contract.js';
import { EV } from '../../core/events.js';
import type { PermissionPolicy } from '../../core/permission/types.js';
import type { ApprovalRow } from '../../activities/projection/types.js';
import { createHarness, type Harness, type StartedRun } from '../helpers/harness.js';
import { useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';

/**
 * Approvals as durable waits (issue 11; TD2, PM6): a call the policy asks
 * about waits in the session workflow until a person decides by Update —
 * approve once, approve for the session, deny with a message — and nothing
 * else decides it. Real dev server, real worker, real shell.
 */
const cleanups = useCleanups();
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
  cleanups.push(() => h.close());
});

const ASK_SHELL: PermissionPolicy = { mode: 'standard', rules: [{ tool: 'shell', action: 'ask' }] };

function workspace(): string {
  return mkdtempSync(join(tmpdir(), 'zuno-approvals-'));
}

/** A shell call that appends a line to runs.txt: how often it ran is how many lines there are. */
const appendRun = (id: string, line = 'ran') => ({
  id,
  name: 'shell',
  arguments: { command: `echo ${line} >> runs.txt` },
});

function runsOf(ws: string): string[] {
  const f = join(ws, 'runs.txt');
  return existsSync(f) ? readFileSync(f, 'utf8').trim().split('\n') : [];
}

/** The pending approvals of a session, once there are `n`. */
async function pendingOf(run: StartedRun, n = 1): Promise<ApprovalRow[]> {
  return waitFor(
    async () => {
      const rows = await h.store.listApprovals({ sessionId: run.sessionId, status: 'pending' });
      return rows.length >= n ? rows : null;
    },
    30_000,
    `${n} pending approval(s)`,
  );
}

/**
 * Starts a session whose shell calls ask (ASK_SHELL): one call appending `ran` to runs.txt, then `answer`;
 * returns the run, its workspace and its first pending approval.
 */
async function askingRun(answer: string): Promise<{ run: StartedRun; ws: string; row: ApprovalRow }> {
  const ws = workspace();
  const run = await h.startScripted({
    workspace: ws,
    prompt: 'record a run',
    permission: ASK_SHELL,
    script: { replies: [{ toolCalls: [appendRun('call_1')] }, { text: answer }] },
  });
  cleanups.push(() => run.closeProvider());
  const [row] = await pendingOf(run);
  return { run, ws, row: row! };
}

async function searchAttribute(run: StartedRun, key: string): Promise<unknown> {
  const d = await h.client.workflow.getHandle(`session/${run.sessionId}`).describe();
  return (d.searchAttributes as Record<string, unknown[]>)[key]?.[0];
}

describe('a call the policy asks about waits for a person (PM6)', () => {
  it('waits, visible in the projection, the approvals query, ZunoStatus and the current details; approved once it runs once', async () => {
    const { run, ws, row } = await askingRun('Recorded.');
    expect(row).toMatchObject({
      id: expect.stringMatching(/^ap_0_0_\d+$/),
      tool: 'shell',
      status: 'pending',
      callId: 'call_1',
    });
    expect(row.subjectText).toContain('echo ran');
    expect(runsOf(ws)).toEqual([]); // nothing ran while it waits
    const view = await h.client.workflow.getHandle(`session/${run.sessionId}`).query<ApprovalsView>(APPROVALS_QUERY);
    expect(view.pending.map((p) => p.approvalId)).toEqual([row.id]);
    await waitFor(
      async () => (await searchAttribute(run, 'ZunoStatus')) === 'waiting_approval',
      45_000,
      'ZunoStatus=waiting_approval',
    );
    const meta = await h.client.workflow
      .getHandle(`session/${run.sessionId}`)
      .query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(meta.currentDetails).toContain(`waiting for approval ${row.id}: shell: echo ran`);

    const result = await decideApproval(h.client, row, { decision: 'approve_once' });
    expect(result).toMatchObject({ approvalId: row.id, decision: 'approve_once', duplicate: false });
    expect(await run.result()).toMatchObject({ status: 'completed' });
    expect(runsOf(ws)).toEqual(['ran']);
    expect(await h.store.getApproval(run.sessionId, row.id)).toMatchObject({
      status: 'approved',
      decision: 'approve_once',
    });
    const types = (await h.store.listEvents(run.sessionId, 0, 1000)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining([EV.approvalRequested, EV.approvalDecided]));
  }, 60_000);

  it('denied with a message: a blocked `denied` result the model sees; nothing ran', async () => {
    const { run, ws, row } = await askingRun('Understood, not recording.');
    await decideApproval(h.client, row, { decision: 'deny', message: 'not on this branch' });
    expect(await run.result()).toMatchObject({ status: 'completed' });
    expect(runsOf(ws)).toEqual([]);
    const call = (await h.store.loadTranscript(run.sessionId))!.toolCalls[0]!;
    expect(call).toMatchObject({ outcome: 'blocked', blockedCategory: 'denied' });
    expect(JSON.stringify(run.providerRequests[1])).toContain('not on this branch');
  }, 60_000);

  it('the same command twice is one decision; a stale revision and a second decision are typed refusals', async () => {
    const { run, ws, row } = await askingRun('Recorded.');
    await expect(
      decideApproval(h.client, { ...row, revision: row.revision + 5 }, { decision: 'approve_once' }),
    ).rejects.toMatchObject({ code: 'approval_stale_revision' });
    const first = await decideApproval(h.client, row, { decision: 'approve_once', commandId: 'cmd-1' });
    // Resent by the same client: Temporal answers the same Update id with the first result.
    expect(await decideApproval(h.client, row, { decision: 'approve_once', commandId: 'cmd-1' })).toEqual(first);
    // Resent under another Update id (another client, a retry after a lost reply): the workflow knows the command.
    const again = await h.client.workflow
      .getHandle(`session/${run.sessionId}`)
      .executeUpdate<ApprovalDecisionResult, [ApprovalDecisionRequest]>(DECIDE_APPROVAL_UPDATE, {
        args: [
          {
            approvalId: row.id,
            commandId: 'cmd-1',
            expectedRevision: row.revision,
            decision: 'approve_once',
            subjectDigest: subjectDigestOf(row.subjectText),
          },
        ],
        updateId: 'another-client',
      });
    expect(again).toEqual({ ...first, duplicate: true });
    await expect(decideApproval(h.client, row, { decision: 'deny', commandId: 'cmd-1' })).rejects.toMatchObject({
      code: 'approval_command_conflict',
    });
    await expect(decideApproval(h.client, row, { decision: 'deny', commandId: 'cmd-2' })).rejects.toMatchObject({
      code: 'approval_already_decided',
    });
    expect(await run.result()).toMatchObject({ status: 'completed' });
    expect(runsOf(ws)).toEqual(['ran']);
    // The session has ended: a decision now is a typed error, not a hang.
    await expect(decideApproval(h.client, row, { decision: 'approve_once' })).rejects.toMatchObject({
      code: 'session_not_running',
    });
  }, 60_000);

  it('an interrupt while it waits settles the call not_run; nothing ran', async () => {
    const { run, ws, row } = await askingRun('unused');
    await interruptSession(h.client, run.sessionId, 'test');
    expect((await run.result()).status).toBe('interrupted');
    expect(runsOf(ws)).toEqual([]);
    expect(await h.store.getApproval(run.sessionId, row.id)).toMatchObject({ status: 'not_run' });
    await expect(decideApproval(h.client, row, { decision: 'approve_once' })).rejects.toMatchObject({
      code: expect.stringMatching(/^(approval_already_decided|session_not_running)$/),
    });
  }, 60_000);
});

describe('strict mode and rules (TD2, PM3)', () => {
  it('strict: every SideEffecting call asks, no ReadOnly call asks; approve for the session stops asking for the same tool and pattern only', async () => {
    const ws = workspace();
    const run = await h.startScripted({
      workspace: ws,
      prompt: 'record runs',
      permission: { mode: 'strict', rules: [] },
      script: {
        replies: [
          // A read (ReadOnly) and a shell call (SideEffecting) in one step: only the shell call asks.
          { toolCalls: [{ id: 'call_read', name: 'read', arguments: { path: '.' } }, appendRun('call_a', 'a')] },
          // The same command again: granted for the session, it runs without asking; another command asks.
          { toolCalls: [appendRun('call_a2', 'a')] },
          { toolCalls: [appendRun('call_b', 'b')] },
          { text: 'Done.' },
        ],
      },
    });
    cleanups.push(() => run.closeProvider());
    const [first] = await pendingOf(run);
    expect(first).toMatchObject({ callId: 'call_a', tool: 'shell' });
    await decideApproval(h.client, first!, { decision: 'approve_session' });
    const second = await waitFor(
      async () =>
        (await h.store.listApprovals({ sessionId: run.sessionId, status: 'pending' })).find(
          (a) => a.callId !== 'call_a',
        ),
      30_000,
      'the approval of the other command',
    );
    expect(second).toMatchObject({ callId: 'call_b' });
    expect(runsOf(ws)).toEqual(['a', 'a']);
    await decideApproval(h.client, second!, { decision: 'approve_once' });
    expect(await run.result()).toMatchObject({ status: 'completed' });
    expect(runsOf(ws)).toEqual(['a', 'a', 'b']);
    const asked = (await h.store.listApprovals({ sessionId: run.sessionId })).map((a) => a.callId);
    expect(asked).toEqual(['call_a', 'call_b']);
    const view = await h.client.workflow.getHandle(`session/${run.sessionId}`).query<ApprovalsView>(APPROVALS_QUERY);
    // The grant covers exactly the command shown, redirection included (issue 26 item 3).
    expect(view.grants).toEqual([{ tool: 'shell', pattern: 'echo a >> runs.txt', scope: 'call' }]);
  }, 60_000);

  it('a deny rule refuses the call before anything is scheduled: blocked denied, no tool activity', async () => {
    const ws = workspace();
    const run = await h.startScripted({
      workspace: ws,
      prompt: 'clean up',
      permission: {
        mode: 'standard',
        rules: [
          { tool: 'shell', pattern: '*', action: 'allow' },
          { tool: 'shell', pattern: 'rm -rf*', action: 'deny' },
        ],
      },
      script: {
        replies: [
          { toolCalls: [{ id: 'call_rm', name: 'shell', arguments: { command: 'bash -c "rm -rf build"' } }] },
          { text: 'Refused, as it should be.' },
        ],
      },
    });
    cleanups.push(() => run.closeProvider());
    expect(await run.result()).toMatchObject({ status: 'completed' });
    const call = (await h.store.loadTranscript(run.sessionId))!.toolCalls[0]!;
    expect(call).toMatchObject({ outcome: 'blocked', blockedCategory: 'denied' });
    expect(call.output).toContain('rm -rf');
    const history = await h.client.workflow.getHandle(`session/${run.sessionId}`).fetchHistory();
    const scheduled = (history.events ?? []).map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name);
    expect(scheduled).not.toContain('tool_shell');
    expect(await h.store.listApprovals({ sessionId: run.sessionId })).toEqual([]);
  }, 60_000);
});

describe('deciding from the CLI side', () => {
  it('a decision no worker takes ends in a typed no_worker error after the bounded wait, naming what to start', async () => {
    const sessionId = newSessionId();
    const handle = await h.client.workflow.start('sessionWorkflow', {
      workflowId: `session/${sessionId}`,
      taskQueue: `nobody-serves-${sessionId}`,
      args: [{}],
    });
    cleanups.push(() => handle.terminate('test over'));
    const notices: string[] = [];
    await expect(
      decideApproval(
        h.client,
        { sessionId, id: 'ap_0_0_1', revision: 1, subjectText: 'echo hi' },
        { decision: 'approve_once' },
        { waitMs: 4_000, notify: (l) => notices.push(l) },
      ),
    ).rejects.toMatchObject({ code: 'no_worker', message: expect.stringContaining('zuno worker') });
    expect(notices).toEqual([`waiting for a worker of session ${sessionId} to take it…`]);
  }, 30_000);

  it('an id already decided, named without --session, is approval_already_decided, not "not found"', async () => {
    const { run, row } = await askingRun('Recorded.');
    await decideApproval(h.client, row, { decision: 'approve_once' });
    expect(await run.result()).toMatchObject({ status: 'completed' });
    await waitFor(
      async () => (await h.store.getApproval(run.sessionId, row.id))?.status === 'approved',
      45_000,
      'the decision to be recorded',
    );
    // Every approval with this id in the home is decided (ids repeat across sessions): the lookup says so.
    await waitFor(
      async () => (await h.store.listApprovals({ status: 'pending' })).every((r) => r.id !== row.id),
      45_000,
      'no other session to have this id pending',
    );
    await expect(findApproval(h.store, row.id)).rejects.toMatchObject({
      code: 'approval_already_decided',
      message: expect.stringContaining(`in session ${run.sessionId} it is already approved (approve_once)`),
    });
    await expect(findApproval(h.store, row.id, run.sessionId)).rejects.toMatchObject({
      code: 'approval_already_decided',
    });
  }, 60_000);
});
