import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { interruptSession } from '../../client/session-start.js';
import type { Script } from '../../local-provider/script.js';
import { createHarness, type Harness, type StartedRun } from '../helpers/harness.js';
import { useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';

/**
 * Issue 12 Must show, bad input and interrupts: a malformed `task` (a
 * missing, an extra, a nested field; an unknown agent) or a `council_run`
 * that tries to set the frozen preset's budgets is a blocked
 * `invalid_arguments` result the model reads — nothing starts (no
 * delegation row, no child workflow, no council). An interrupt of a parent
 * waiting on a foreground task cancels the child workflow. Real dev server.
 */
const cleanups = useCleanups();
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
  cleanups.push(() => h.close());
});

async function start(script: Script, exitWhenIdle = true): Promise<StartedRun> {
  const ws = mkdtempSync(join(tmpdir(), 'zuno-task-edges-'));
  writeFileSync(join(ws, 'a.txt'), 'alpha\n');
  const run = await h.startScripted({ workspace: ws, prompt: 'delegate', script, exitWhenIdle });
  cleanups.push(() => run.closeProvider());
  return run;
}

async function workflowsUnder(sessionId: string): Promise<string[]> {
  const out: string[] = [];
  for await (const w of h.client.workflow.list({ query: `ZunoParentSession = "${sessionId}"` })) out.push(w.workflowId);
  for await (const w of h.client.workflow.list({ query: `ZunoRootSession = "${sessionId}"` })) out.push(w.workflowId);
  return out;
}

const full = {
  agent: 'explore',
  objective: 'Read a.txt',
  deliverable: 'its first line',
  instructions: 'read only',
  success_evidence: 'a.txt:1',
};

describe('a malformed delegation starts nothing (DC1, DC10, DC23)', () => {
  const cases: [string, string, Record<string, unknown>, RegExp[]][] = [
    [
      'a missing field',
      'task',
      { agent: 'explore', objective: 'x', deliverable: 'y', instructions: 'z' },
      [/success_evidence: success_evidence is required/, /Notes:\n- success_evidence: what proves/],
    ],
    ['an extra field', 'task', { ...full, priority: 'high' }, [/Unrecognized key: "priority"/]],
    [
      'fields nested in a contract object',
      'task',
      { contract: full },
      [/Unrecognized key: "contract"/, /do not nest them inside another object/],
    ],
    ['an unknown agent', 'task', { ...full, agent: 'wizard' }, [/agent: unknown agent; use one of/]],
    [
      'a council_run that sets a budget',
      'council_run',
      { question: 'Is it safe?', deadline_ms: 5_000_000, quorum: 1 },
      [/The balanced-review preset is frozen/],
    ],
  ];
  it.each(cases)(
    '%s',
    async (_what, tool, args, expected) => {
      const run = await start({
        replies: [{ toolCalls: [{ id: 'call_bad', name: tool, arguments: args }] }, { text: 'I will fix the call.' }],
      });
      expect(await run.result()).toMatchObject({ status: 'completed' });
      const call = (await h.store.loadTranscript(run.sessionId))!.toolCalls[0]!;
      expect(call).toMatchObject({ outcome: 'blocked', blockedCategory: 'invalid_arguments' });
      for (const re of expected) expect(call.output).toMatch(re);
      // DC10: notes never copy argument values.
      if (tool === 'task') expect(call.output).not.toContain('wizard"');
      expect(await h.store.listDelegations(run.sessionId)).toEqual([]);
      expect(await workflowsUnder(run.sessionId)).toEqual([]);
    },
    60_000,
  );
});

describe('a delegation too large for the workflow history starts nothing', () => {
  it('a field over its cap is invalid; a brief whose JSON exceeds 64 KiB is blocked by the workflow', async () => {
    const ctl = 'x' + '\u0001'.repeat(7_999); // 8 000 characters, ~48 000 once escaped in JSON (one printable, so the field is valid)
    const run = await start({
      replies: [
        {
          toolCalls: [
            { id: 'call_long', name: 'task', arguments: { ...full, objective: 'x'.repeat(70_000) } },
            {
              id: 'call_huge',
              name: 'task',
              arguments: { ...full, objective: ctl, deliverable: ctl, instructions: ctl },
            },
          ],
        },
        { text: 'I will shorten the brief.' },
      ],
    });
    expect(await run.result()).toMatchObject({ status: 'completed' });
    const calls = (await h.store.loadTranscript(run.sessionId))!.toolCalls;
    const long = calls.find((c) => c.callId === 'call_long')!;
    expect(long).toMatchObject({ outcome: 'blocked', blockedCategory: 'invalid_arguments' });
    expect(long.output).toContain('objective is longer than 8000 characters');
    const huge = calls.find((c) => c.callId === 'call_huge')!;
    expect(huge).toMatchObject({ outcome: 'blocked', blockedCategory: 'denied' });
    expect(huge.output).toContain('larger than 64 KiB');
    expect(await h.store.listDelegations(run.sessionId)).toEqual([]);
    expect(await workflowsUnder(run.sessionId)).toEqual([]);
  }, 60_000);
});

describe('an interrupt of a parent waiting on a foreground task (TD10)', () => {
  it('cancels the child workflow; the delegation is recorded cancelled and the parent interrupted', async () => {
    const run = await start(
      {
        replies: [
          { toolCalls: [{ id: 'call_t', name: 'task', arguments: { ...full, objective: 'Wait a long time' } }] },
        ],
        threads: [{ match: 'Wait a long time', replies: [{ fault: { delayMs: 120_000 }, text: 'never' }] }],
      },
      false,
    );
    const d = await waitFor(async () => (await h.store.listDelegations(run.sessionId))[0], 30_000, 'the delegation');
    await waitFor(
      async () =>
        (await h.client.workflow
          .getHandle(`session/${d.childSessionId}`)
          .describe()
          .catch(() => null)) !== null,
      30_000,
      'the child workflow',
    );
    await interruptSession(h.client, run.sessionId, 'test');
    await waitFor(
      async () => (await h.store.listDelegations(run.sessionId))[0]?.status === 'cancelled',
      30_000,
      'the delegation to be settled cancelled',
    );
    const child = await h.client.workflow.getHandle(`session/${d.childSessionId}`).describe();
    expect(child.status.name).toBe('CANCELLED');
    const call = (await h.store.loadTranscript(run.sessionId))!.toolCalls[0]!;
    expect(call.status).toBe('completed');
    expect(call.output).toContain('status="cancelled"');
  }, 60_000);
});
