import { rmSync } from 'node:fs';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { newCouncilRunId } from '../../client/council-start.js';
import { startLocalProvider } from '../../local-provider/server.js';
import { newSessionId } from '../../client/session-start.js';
import { type CouncilResult, type CouncilWorkflowInput, councilWorkflowId } from '../../core/council/contract.js';
import type { SessionWorkflowInput } from '../../core/session/meta.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { TEST_WORKFLOWS_PATH } from '../helpers/time-skipping.js';
import { renderCouncil } from '../../client/commands/council-view.js';
import type { SeatRecord } from '../../core/council/contract.js';
import { waitFor } from '../helpers/worker-process.js';
import {
  gitWorkspace,
  NEVER_FINISHES,
  scriptedBase,
  seatThread,
  startScriptedCouncil,
  synthesisThread,
  validReport,
} from './helpers.js';

/**
 * `startCouncilChild` (workflows/council-start.ts), as the session workflow
 * will use it for a `council_run` call: a parent workflow (fixture
 * `councilParentWorkflow`) starts the Council as its child; the Council and
 * its seats carry the parent's tree in their search attributes and links,
 * and the parent sees the typed failure with every seat in its details.
 */
let h: Harness;
let ws: string;
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress'), workflowsPath: TEST_WORKFLOWS_PATH });
  ws = gitWorkspace();
});
afterAll(async () => {
  await h?.close();
  rmSync(ws, { recursive: true, force: true });
});

async function runAsChild(threads: { match: string; replies: unknown[] }[]) {
  const provider = await startLocalProvider({ script: { replies: [], threads } as never });
  try {
    const parentSessionId = newSessionId();
    const runId = newCouncilRunId();
    const input: CouncilWorkflowInput = {
      runId,
      question: 'Is it right?',
      diffRange: 'HEAD~1..HEAD',
      preset: 'balanced-review',
      base: { ...scriptedBase(runId, ws, provider.url), sessionId: parentSessionId },
      parent: { sessionId: parentSessionId, rootSessionId: 'ses_root0000', depth: 1 },
    };
    const out = await h.client.workflow.execute('councilParentWorkflow', {
      workflowId: `parent-${parentSessionId}`,
      taskQueue: h.taskQueue,
      args: [input],
    });
    return { ...(out as { result: CouncilResult; code?: string }), runId, parentSessionId };
  } finally {
    await provider.close();
  }
}

it('a Council started by a parent carries ZunoKind=council, the parent and the root; its seats are depth 2 under the parent', async () => {
  const r = await runAsChild([
    synthesisThread('Agreed: src/range.js:3.'),
    seatThread('correctness-review', 1, [validReport('src/range.js', 3, 'off by one')]),
    seatThread('security-review', 1, [validReport('src/range.js', 1, 'unbounded n')]),
    seatThread('tests-review', 1, [validReport('src/range.js', 1, 'untested')]),
  ]);
  expect(r.code).toBeUndefined();
  expect(r.result.status).toBe('succeeded');
  const council = await h.client.workflow.getHandle(councilWorkflowId(r.runId)).describe();
  expect(council.searchAttributes).toMatchObject({
    ZunoKind: ['council'],
    ZunoCouncilStatus: ['succeeded'],
    ZunoParentSession: [r.parentSessionId],
    ZunoRootSession: ['ses_root0000'],
  });
  expect(council.parentExecution?.workflowId).toBe(`parent-${r.parentSessionId}`);
  const seat = h.client.workflow.getHandle(`session/${r.result.seats[1]!.childSessionIds[0]}`);
  const seatDescribed = await seat.describe();
  expect(seatDescribed.searchAttributes).toMatchObject({
    ZunoKind: ['session'],
    ZunoAgent: ['security-review'],
    ZunoParentSession: [r.parentSessionId],
    ZunoRootSession: ['ses_root0000'],
  });
  const started = (await seat.fetchHistory()).events![0]!.workflowExecutionStartedEventAttributes!;
  const seatInput = defaultPayloadConverter.fromPayload<SessionWorkflowInput>(started.input!.payloads![0]!);
  expect(seatInput.meta.delegation).toEqual({
    parentSessionId: r.parentSessionId,
    rootSessionId: 'ses_root0000',
    depth: 2,
    // Issue 32: the preset's attempts and the seats' hard deadline, for the seat's runtime.task_context.
    seat: { runId: r.runId, index: 2, of: 3, attempt: 1, maxAttempts: 2, deadlineMs: r.result.seatDeadlineMs },
  });
  // A reviewer's read tools, tool_search among them (offered only while MCP schemas are deferred, MC6).
  expect(seatInput.meta.tools).toEqual(['read', 'glob', 'grep', 'tool_search']);
  expect(seatInput.meta.provider.reasoningReplay).toBe('off');
  expect((await h.store.getCouncil(r.runId))?.parentSessionId).toBe(r.parentSessionId);
  // The seat's session row names its role and its place in the tree.
  expect(await h.store.getSession(r.result.seats[1]!.childSessionIds[0]!)).toMatchObject({
    agent: 'security-review',
    parentSessionId: r.parentSessionId,
    rootSessionId: 'ses_root0000',
    depth: 2,
    status: 'completed',
  });
}, 60_000);

it('the parent sees a failed seat and a failed provider as council_quorum_missed with every seat in the details', async () => {
  const r = await runAsChild([
    synthesisThread('never asked'),
    seatThread('correctness-review', 1, [validReport('src/range.js', 3, 'off by one')]),
    seatThread('security-review', 1, [{ fault: { status: 400, times: 10 } }]),
    seatThread('tests-review', 1, [{ text: 'no report here' }]),
    seatThread('tests-review', 2, [{ text: 'still no report' }]),
  ]);
  expect(r.code).toBe('council_quorum_missed');
  expect(r.result.seats.map((s) => [s.status, s.validity, s.attempts.length])).toEqual([
    ['completed', 'valid', 1],
    ['failed', 'missing', 1],
    ['completed', 'invalid', 2],
  ]);
  expect(r.result.quorum).toEqual({ needed: 2, valid: 1 });
  // council show (issue 25 item 7.2): every attempt of the retried seat, the failed seat's code in the table.
  const row = (await h.store.getCouncil(r.runId))!;
  const [one, two, three] = row.seats as SeatRecord[];
  const table = renderCouncil(row);
  expect(table).toMatch(/\nSEAT +AGENT +ATTEMPT +STATUS +REPORT +CODE +REQUESTS +TOKENS IN\/OUT +CHILD SESSION\n/);
  expect(table).toMatch(
    new RegExp(`\\n1/3 +correctness-review +1 +completed +valid +- .* ${one!.childSessionIds[0]}\\n`),
  );
  expect(table).toMatch(
    new RegExp(`\\n2/3 +security-review +1 +failed +missing +provider_bad_request .* ${two!.childSessionIds[0]}\\n`),
  );
  expect(table).toMatch(
    new RegExp(`\\n3/3 +tests-review +1 +completed +invalid +- .* ${three!.childSessionIds[0]}\\n`),
  );
  expect(table).toMatch(
    new RegExp(`\\n3/3 +tests-review +2 +completed +invalid +- .* ${three!.childSessionIds[1]}\\n`),
  );
}, 60_000);

it('council show shows running seats truly: each seat’s attempt and child session as soon as it starts', async () => {
  const c = await startScriptedCouncil(h.client, h.taskQueue, {
    workspace: ws,
    script: {
      replies: [],
      threads: [
        seatThread('correctness-review', 1, NEVER_FINISHES),
        seatThread('security-review', 1, NEVER_FINISHES),
        seatThread('tests-review', 1, NEVER_FINISHES),
      ],
    } as never,
  });
  try {
    // No seat settles (each waits, paused, for a resume that never comes): only the start records show them.
    const row = await waitFor(
      async () => {
        const r = await h.store.getCouncil(c.runId);
        const seats = (r?.seats ?? []) as SeatRecord[];
        return seats.length === 3 && seats.every((s) => s.attempts.length === 1) ? r : null;
      },
      60_000,
      'every seat’s first attempt in the councils row',
    );
    const seats = row.seats as SeatRecord[];
    expect(seats.map((s) => [s.status, s.attempts[0]!.status, s.attempts[0]!.attempt])).toEqual([
      ['running', 'running', 1],
      ['running', 'running', 1],
      ['running', 'running', 1],
    ]);
    const table = renderCouncil(row);
    for (const s of seats)
      expect(table).toMatch(
        new RegExp(`\\n${s.index}/3 +${s.agent} +1 +running +missing +- .* ${s.attempts[0]!.childSessionId}\\n`),
      );
  } finally {
    await c.handle.terminate('test over').catch(() => undefined);
    await c.closeProvider();
  }
}, 90_000);
