import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createHarness, type Harness, type StartedRun } from '../helpers/harness.js';
import { useCleanups } from '../helpers/session.js';
import type { Script } from '../../local-provider/script.js';

/**
 * The `task` tool (issue 12 items 2–4; DC1–DC4, DC15): a valid call starts
 * a child `session` workflow, foreground or background; a background job's
 * report reaches the parent's inbox once; `job cancel` cancels the child
 * workflow. Real dev server, real worker, one local provider serving the
 * parent and its children (script threads matched on the child's objective).
 */
const cleanups = useCleanups();
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
  cleanups.push(() => h.close());
});

function workspace(): string {
  const ws = mkdtempSync(join(tmpdir(), 'zuno-task-'));
  writeFileSync(join(ws, 'config.ts'), 'export function parseConfig(text: string) {\n  return JSON.parse(text);\n}\n');
  return ws;
}

const taskCall = (id: string, objective: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: 'task',
  arguments: {
    agent: 'explore',
    objective,
    deliverable: 'file and line',
    instructions: 'read only',
    success_evidence: 'a file:line that exists',
    ...extra,
  },
});

async function start(script: Script, prompt = 'find the config parser'): Promise<StartedRun> {
  const run = await h.startScripted({ workspace: workspace(), prompt, script });
  cleanups.push(() => run.closeProvider());
  return run;
}

async function childrenOf(parentSessionId: string) {
  const list = [];
  for await (const w of h.client.workflow.list({ query: `ZunoParentSession = "${parentSessionId}"` })) list.push(w);
  return list;
}

describe('a foreground task (DC3)', () => {
  it('starts a child session workflow linked to its parent and returns the child report as the call result', async () => {
    const run = await start({
      replies: [
        { toolCalls: [taskCall('call_t', 'Find where the config is parsed')] },
        { text: 'The parser is in config.ts.' },
      ],
      threads: [
        {
          match: 'Find where the config is parsed',
          replies: [
            { toolCalls: [{ id: 'c_read', name: 'read', arguments: { path: 'config.ts' } }] },
            { text: 'parseConfig is at config.ts:1.' },
          ],
        },
      ],
    });
    expect(await run.result()).toMatchObject({ status: 'completed' });
    const t = (await h.store.loadTranscript(run.sessionId))!;
    const call = t.toolCalls.find((c) => c.tool === 'task')!;
    expect(call).toMatchObject({ status: 'completed', outcome: 'ok' });
    expect(call.output).toMatch(/^<task_result agent="explore" session="ses_[0-9a-f]{32}" status="completed">/);
    expect(call.output).toContain('parseConfig is at config.ts:1.');
    const [d] = await h.store.listDelegations(run.sessionId);
    expect(d).toMatchObject({ mode: 'foreground', status: 'completed', agent: 'explore', depth: 1, jobId: null });
    const child = await h.store.getSession(d!.childSessionId);
    expect(child).toMatchObject({
      agent: 'explore',
      parentSessionId: run.sessionId,
      rootSessionId: run.sessionId,
      depth: 1,
    });
    // The child is a child workflow in Temporal's sense, and its search attributes link it to the parent and root.
    const desc = await h.client.workflow.getHandle(`session/${d!.childSessionId}`).describe();
    expect(desc.parentExecution?.workflowId).toBe(`session/${run.sessionId}`);
    expect(desc.status.name).toBe('COMPLETED');
    const sa = desc.searchAttributes as Record<string, unknown[]>;
    expect(sa.ZunoParentSession?.[0]).toBe(run.sessionId);
    expect(sa.ZunoRootSession?.[0]).toBe(run.sessionId);
    expect(sa.ZunoAgent?.[0]).toBe('explore');
    expect((await childrenOf(run.sessionId)).map((w) => w.workflowId)).toEqual([`session/${d!.childSessionId}`]);
    // The child was offered its role's catalog only: no write, no shell, no task, no question (DC2, DC20).
    const childRequest = JSON.stringify(
      run.providerRequests.find((r) => JSON.stringify(r).includes('Objective: Find where')),
    );
    expect(childRequest).toContain('"read"');
    for (const tool of ['"write"', '"shell"', '"task"', '"question"', '"apply_patch"'])
      expect(childRequest).not.toContain(`"name":${tool}`);
  }, 90_000);

  it('a child that fails returns its status and its progress, and is not re-run (DC13)', async () => {
    const run = await start({
      replies: [
        { toolCalls: [taskCall('call_t', 'Fail after reading')] },
        { text: 'The child failed; I will do it myself.' },
      ],
      threads: [
        {
          match: 'Fail after reading',
          replies: [
            { toolCalls: [{ id: 'c_read', name: 'read', arguments: { path: 'config.ts' } }] },
            { fault: { status: 400, message: 'bad request from the scripted provider' } },
          ],
        },
      ],
    });
    expect(await run.result()).toMatchObject({ status: 'completed' });
    const call = (await h.store.loadTranscript(run.sessionId))!.toolCalls.find((c) => c.tool === 'task')!;
    expect(call.outcome).toBe('error');
    expect(call.output).toContain('status="failed"');
    expect(call.output).toContain('provider_bad_request');
    expect(call.output).toContain('It is not re-run automatically');
    expect(call.output).toMatch(/<execution_progress>\nmodel requests answered: 1\ntool calls: 1 ok \(read ×1\)/);
    const [d] = await h.store.listDelegations(run.sessionId);
    expect(d).toMatchObject({ status: 'failed', errorCode: 'provider_bad_request' });
    expect(await childrenOf(run.sessionId)).toHaveLength(1);
  }, 90_000);
});

describe('a background task (DC3, DC4, DC16)', () => {
  it('returns a job id at once; the settled report reaches the parent inbox exactly once and wakes it', async () => {
    const run = await start({
      replies: [
        { toolCalls: [taskCall('call_t', 'Explore in the background', { background: true })] },
        { text: 'Started the exploration; I will report when it is back.' },
        { text: 'The background exploration found parseConfig.' },
      ],
      threads: [
        {
          match: 'Explore in the background',
          replies: [{ fault: { delayMs: 1500 }, text: 'parseConfig at config.ts:1.' }],
        },
      ],
    });
    expect(await run.result()).toMatchObject({ status: 'completed' });
    const t = (await h.store.loadTranscript(run.sessionId))!;
    const call = t.toolCalls.find((c) => c.tool === 'task')!;
    expect(call.output).toContain('Started background job job_0_0_0');
    const reports = t.inputs.filter((i) => i.text.includes('<background_report taskID="job_0_0_0">'));
    expect(reports).toHaveLength(1);
    expect(reports[0]!.text).toContain('<task_result agent="explore"');
    expect(reports[0]!.text).toContain('parseConfig at config.ts:1.');
    const [d] = await h.store.listDelegations(run.sessionId);
    expect(d).toMatchObject({ mode: 'background', jobId: 'job_0_0_0', status: 'completed' });
  }, 90_000);

  it('job cancel cancels the child workflow and records its outcome; the report is consumed by the read', async () => {
    const run = await start({
      replies: [
        { toolCalls: [taskCall('call_t', 'Explore forever', { background: true })] },
        { toolCalls: [{ id: 'call_c', name: 'job', arguments: { action: 'cancel', job_id: 'job_0_0_0' } }] },
        { text: 'Cancelled the job.' },
      ],
      threads: [{ match: 'Explore forever', replies: [{ fault: { delayMs: 120_000 }, text: 'never seen' }] }],
    });
    expect(await run.result()).toMatchObject({ status: 'completed' });
    const [d] = await h.store.listDelegations(run.sessionId);
    expect(d).toMatchObject({ status: 'cancelled', jobId: 'job_0_0_0' });
    const desc = await h.client.workflow.getHandle(`session/${d!.childSessionId}`).describe();
    expect(desc.status.name).toBe('CANCELLED');
    const t = (await h.store.loadTranscript(run.sessionId))!;
    const cancel = t.toolCalls.find((c) => c.tool === 'job')!;
    expect(cancel.output).toContain('job job_0_0_0: cancelled');
    // The job read consumed the report: no report turn followed.
    expect(t.inputs.filter((i) => i.text.includes('<background_report'))).toHaveLength(0);
    expect((await h.store.getSession(d!.childSessionId))!.status).not.toBe('running');
  }, 90_000);
});

describe('delegation depth (DC22)', () => {
  it('a session at the depth limit cannot start a child: the call is blocked, nothing starts', async () => {
    const deep = (id: string, objective: string) => taskCall(id, objective, { agent: 'deep' });
    const run = await start({
      replies: [{ toolCalls: [deep('call_1', 'Level one work')] }, { text: 'done at the root' }],
      threads: [
        {
          match: 'Level one work',
          replies: [{ toolCalls: [deep('call_2', 'Level two work')] }, { text: 'level one done' }],
        },
        {
          match: 'Level two work',
          replies: [{ toolCalls: [deep('call_3', 'Level three work')] }, { text: 'level two done' }],
        },
        { match: 'Level three work', replies: [{ text: 'must never run' }] },
      ],
    });
    expect(await run.result()).toMatchObject({ status: 'completed' });
    const [one] = await h.store.listDelegations(run.sessionId);
    const [two] = await h.store.listDelegations(one!.childSessionId);
    expect(two).toMatchObject({ depth: 2, status: 'completed' });
    expect(await h.store.listDelegations(two!.childSessionId)).toEqual([]);
    // At the limit the delegation tools are still offered (issue 25 item 7.3); a call of one is refused
    // blocked with delegation_depth, naming the depth — never "Tool \"task\" is not available".
    const blocked = (await h.store.loadTranscript(two!.childSessionId))!.toolCalls.find((c) => c.tool === 'task')!;
    expect(blocked).toMatchObject({ outcome: 'blocked', blockedCategory: 'denied' });
    expect(blocked.output).toContain('delegation depth limit: this session is at depth 2 of at most 2');
    expect(blocked.output).not.toContain('is not available');
    expect(blocked.errorCode).toBe('delegation_depth');
    const levelTwo = JSON.stringify(
      run.providerRequests.find((r) => JSON.stringify(r).includes('Objective: Level two work')),
    );
    expect(levelTwo).toContain('"name":"task"');
    expect(levelTwo).toContain('"name":"council_run"');
    expect(await childrenOf(two!.childSessionId)).toHaveLength(0);
    expect(JSON.stringify(run.providerRequests)).not.toContain('Objective: Level three work');
  }, 120_000);
});
