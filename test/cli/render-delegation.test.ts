/**
 * How `zuno run` shows a delegated call (issue 12): its start by the call's
 * summary, its return by the child's fact — how a foreground child ended, or
 * the job a background one runs as. The human renderer fed stored-event rows
 * (no session, no terminal).
 */
import { describe, expect, it } from 'vitest';
import type { EventRow } from '../../activities/projection/types.js';
import { EV } from '../../core/events.js';
import { toolDeclarations } from '../../core/tools/registry.js';
import { HumanRenderer } from '../../client/render.js';
import type { Sink } from '../../client/sink.js';

let seq = 0;
function row(type: string, data: Record<string, unknown>): EventRow {
  seq += 1;
  return { seq, id: `e${seq}`, sessionId: 'ses_parent', type, data, atMs: 1_000 };
}

/** The stderr lines the renderer prints for `rows`. */
function render(rows: EventRow[]): string[] {
  const err: string[] = [];
  const sink: Sink = { out: () => undefined, err: (t) => void err.push(t) };
  const r = new HumanRenderer(sink, false);
  for (const e of rows) r.render(e);
  return err.join('').split('\n').filter(Boolean);
}

const ids = { rowId: 'tc_0_0_0', callId: 'call_0_0', tool: 'task' };
const args = {
  agent: 'explore',
  objective: 'Find where the config file is parsed',
  deliverable: 'file:line',
  instructions: 'read only',
  success_evidence: 'references that exist',
};

describe('zuno run shows a task call', () => {
  it('starts as `task explore: <objective>` and returns with how its child ended', () => {
    const summary = toolDeclarations.task!.summarize(args);
    expect(
      render([
        row(EV.toolStarted, { ...ids, attempt: 1, summary }),
        row(EV.toolCompleted, {
          ...ids,
          outcome: 'ok',
          durationMs: 42_300,
          facts: { child: { sessionId: 'ses_child', agent: 'explore', status: 'completed' } },
        }),
      ]),
    ).toEqual([
      '→ task explore: Find where the config file is parsed',
      '✓ task explore: child ses_child completed, 42s',
    ]);
  });

  it('a child that failed, or whose end is uncertain, says so with its code', () => {
    const end = (status: string, errorCode: string | null) =>
      row(EV.toolCompleted, {
        ...ids,
        outcome: 'error',
        errorCode,
        facts: { failed: true, child: { sessionId: 'ses_child', agent: 'deep', status } },
      });
    expect(render([end('failed', 'provider_bad_request'), end('uncertain', 'TerminatedFailure')])).toEqual([
      '✗ task deep: child ses_child failed (provider_bad_request)',
      '? task deep: child ses_child uncertain (TerminatedFailure)',
    ]);
  });

  it('a background task returns the job it runs as', () => {
    const summary = toolDeclarations.task!.summarize({ ...args, agent: 'deep', background: true });
    expect(
      render([
        row(EV.toolStarted, { ...ids, attempt: 1, summary }),
        row(EV.toolCompleted, {
          ...ids,
          outcome: 'ok',
          facts: { child: { sessionId: 'ses_bg', agent: 'deep', status: 'running', jobId: 'job_0_0_0' } },
        }),
      ]),
    ).toEqual([
      '→ task deep (background): Find where the config file is parsed',
      '✓ task deep (background): job job_0_0_0 started, child ses_bg',
    ]);
  });

  it('a council_run returns its Council: status, valid reports against the quorum, where to see the seats', () => {
    const council = (status: string, valid: number) =>
      row(EV.toolCompleted, {
        rowId: 'tc_0_0_1',
        callId: 'call_c',
        tool: 'council_run',
        outcome: status === 'succeeded' ? 'ok' : 'error',
        durationMs: 41_000,
        facts: { council: { runId: 'cr_abc12345', status, valid, needed: 2 } },
      });
    expect(render([council('succeeded', 3), council('failed', 1)])).toEqual([
      '✓ council_run: council cr_abc12345 succeeded, 3 valid reports (quorum 2), 41s · zuno council show cr_abc12345',
      '✗ council_run: council cr_abc12345 failed, 1 valid report (quorum 2), 41s · zuno council show cr_abc12345',
    ]);
  });
});
