import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { useCleanups } from '../helpers/session.js';
import { gitWorkspace, seatThread, synthesisThread, validReport } from '../council/helpers.js';

/**
 * The `council_run` tool (issue 12 item 5, DC27): a session's call starts a
 * `council/<runId>` child workflow whose seats are its children; the
 * Council's result — each seat's status, report validity and usage, then
 * the synthesis — is the call's result. Real dev server, real worker, one
 * local provider serving the session, the seats and the synthesis.
 */
const cleanups = useCleanups();
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
  cleanups.push(() => h.close());
});

describe('council_run from a session', () => {
  it('runs the Council as a child workflow and returns its seats and synthesis', async () => {
    const run = await h.startScripted({
      workspace: gitWorkspace(),
      prompt: 'review the last commit',
      script: {
        replies: [
          {
            toolCalls: [
              { id: 'call_c', name: 'council_run', arguments: { question: 'Is range() right?', diff: 'HEAD~1..HEAD' } },
            ],
          },
          { text: 'The Council found the off-by-one.' },
        ],
        threads: [
          seatThread('correctness-review', 1, [validReport('src/range.js', 3, 'i <= n yields n + 1 items')]),
          seatThread('security-review', 1, [validReport('src/range.js', 1, 'no input validation on n')]),
          seatThread('tests-review', 1, [validReport('src/range.js', 1, 'no test covers range')]),
          synthesisThread('Agreed: range() is off by one at src/range.js:3.'),
        ],
      },
    });
    cleanups.push(() => run.closeProvider());
    expect(await run.result()).toMatchObject({ status: 'completed' });
    const call = (await h.store.loadTranscript(run.sessionId))!.toolCalls.find((c) => c.tool === 'council_run')!;
    expect(call).toMatchObject({ outcome: 'ok', status: 'completed' });
    expect(call.output).toMatch(/^council cr_[0-9a-z]+: succeeded \(ok\) · 3 valid reports, quorum 2/);
    expect(call.output).toContain('seat 2/3 security-review: completed, report valid');
    expect(call.output).toContain('Agreed: range() is off by one at src/range.js:3.');
    const runId = /council (cr_[0-9a-z]+)/.exec(call.output!)![1]!;
    const council = await h.client.workflow.getHandle(`council/${runId}`).describe();
    expect(council.parentExecution?.workflowId).toBe(`session/${run.sessionId}`);
    const sa = council.searchAttributes as Record<string, unknown[]>;
    expect(sa.ZunoKind?.[0]).toBe('council');
    expect(sa.ZunoParentSession?.[0]).toBe(run.sessionId);
    // The seats are the Council's children, two levels below the session (depth 1).
    const seats = [];
    for await (const w of h.client.workflow.list({
      query: `ZunoRootSession = "${run.sessionId}" AND ZunoKind = "session"`,
    }))
      seats.push(w.workflowId);
    expect(seats).toHaveLength(3);
    const seat = await h.client.workflow.getHandle(seats[0]!).describe();
    expect(seat.parentExecution?.workflowId).toBe(`council/${runId}`);
    expect((await h.store.getCouncil(runId))!.parentSessionId).toBe(run.sessionId);
  }, 120_000);
});
