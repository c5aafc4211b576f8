import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { decideApproval } from '../../client/approvals.js';
import type { Script, ScriptToolCall } from '../../local-provider/script.js';
import type { PermissionPolicy } from '../../core/permission/types.js';
import { createHarness, type Harness, type RunSessionOptions, type StartedRun } from '../helpers/harness.js';
import { useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';

/**
 * Issue 12 Must show, permission inheritance (DC2, DC9): a child cannot
 * run a tool or subject its parent may not — a deny rule of the parent, a
 * read-only role, a tool missing from the parent's catalog — and a
 * child's approval request reaches the same surfaces as its parent's (the
 * approvals table people list, the `decideApproval` Update). Real dev
 * server, real worker, real shell.
 */
const cleanups = useCleanups();
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
  cleanups.push(() => h.close());
});

function workspace(): string {
  const ws = mkdtempSync(join(tmpdir(), 'zuno-inherit-'));
  writeFileSync(join(ws, 'notes.txt'), 'keep me\n');
  return ws;
}

const task = (agent: string, objective: string) => ({
  id: 'call_t',
  name: 'task',
  arguments: { agent, objective, deliverable: 'a report', instructions: 'as told', success_evidence: 'the result' },
});

/** A parent that delegates `objective` to `agent`, whose child makes `childCall` then reports. */
function delegating(agent: string, objective: string, childCall: ScriptToolCall): Script {
  return {
    replies: [{ toolCalls: [task(agent, objective)] }, { text: 'Parent done.' }],
    threads: [{ match: objective, replies: [{ toolCalls: [childCall] }, { text: `${objective}: child report.` }] }],
  };
}

async function start(
  o: Omit<RunSessionOptions, 'workspace' | 'prompt'> & { ws?: string },
): Promise<StartedRun & { ws: string }> {
  const ws = o.ws ?? workspace();
  const run = await h.startScripted({ ...o, workspace: ws, prompt: 'delegate it' });
  cleanups.push(() => run.closeProvider());
  return { ...run, ws };
}

async function childCall(run: StartedRun) {
  const [d] = await h.store.listDelegations(run.sessionId);
  const t = (await h.store.loadTranscript(d!.childSessionId))!;
  return { d: d!, call: t.toolCalls[0]! };
}

describe('a child never gets more than its parent (DC2, DC9)', () => {
  it("the parent's deny rule holds in the child: its call is blocked denied and nothing runs", async () => {
    const permission: PermissionPolicy = {
      mode: 'standard',
      rules: [{ tool: 'shell', pattern: 'rm *', action: 'deny' }],
    };
    const run = await start({
      permission,
      script: delegating('build', 'Clean the notes', {
        id: 'c_rm',
        name: 'shell',
        arguments: { command: 'rm notes.txt' },
      }),
    });
    expect(await run.result()).toMatchObject({ status: 'completed' });
    const { call } = await childCall(run);
    expect(call).toMatchObject({ tool: 'shell', outcome: 'blocked', blockedCategory: 'denied' });
    expect(existsSync(join(run.ws, 'notes.txt'))).toBe(true);
  }, 90_000);

  it('a read-only role has no write tool: the call is blocked unavailable and no file appears', async () => {
    const run = await start({
      script: delegating('explore', 'Write a file', {
        id: 'c_w',
        name: 'write',
        arguments: { path: 'new.txt', content: 'x' },
      }),
    });
    expect(await run.result()).toMatchObject({ status: 'completed' });
    const { call } = await childCall(run);
    expect(call).toMatchObject({ tool: 'write', outcome: 'blocked', blockedCategory: 'unavailable' });
    expect(existsSync(join(run.ws, 'new.txt'))).toBe(false);
  }, 90_000);

  it("a tool missing from the parent's catalog is missing from a build child's too", async () => {
    const run = await start({
      tools: ['read', 'glob', 'grep', 'task'],
      script: delegating('build', 'Run a command', {
        id: 'c_sh',
        name: 'shell',
        arguments: { command: 'echo hi > hi.txt' },
      }),
    });
    expect(await run.result()).toMatchObject({ status: 'completed' });
    const { call } = await childCall(run);
    expect(call).toMatchObject({ tool: 'shell', outcome: 'blocked', blockedCategory: 'unavailable' });
    expect(existsSync(join(run.ws, 'hi.txt'))).toBe(false);
    const child = JSON.stringify(
      run.providerRequests.find((r) => JSON.stringify(r).includes('Objective: Run a command')),
    );
    expect(child).not.toContain('"name":"shell"');
    expect(child).toContain('"name":"read"');
  }, 90_000);
});

describe("a child's approval reaches the parent's surfaces (DC20, PM6)", () => {
  it('the child asks under the inherited rule; the approval is listed like any other and decided by Update', async () => {
    const permission: PermissionPolicy = { mode: 'standard', rules: [{ tool: 'shell', action: 'ask' }] };
    const run = await start({
      permission,
      script: delegating('build', 'Record a run', {
        id: 'c_sh',
        name: 'shell',
        arguments: { command: 'echo ran > ran.txt' },
      }),
    });
    const pending = await waitFor(
      async () => (await h.store.listApprovals({ status: 'pending' })).find((a) => a.callId === 'c_sh'),
      60_000,
      "the child's approval",
    );
    const [d] = await h.store.listDelegations(run.sessionId);
    expect(pending.sessionId).toBe(d!.childSessionId);
    expect(existsSync(join(run.ws, 'ran.txt'))).toBe(false);
    await decideApproval(h.client, pending, { decision: 'approve_once' });
    expect(await run.result()).toMatchObject({ status: 'completed' });
    expect(existsSync(join(run.ws, 'ran.txt'))).toBe(true);
    const { call } = await childCall(run);
    expect(call).toMatchObject({ tool: 'shell', outcome: 'ok' });
  }, 90_000);
});
