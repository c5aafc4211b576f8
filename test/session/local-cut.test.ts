import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Context } from '@temporalio/activity';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { recordPlanned } from '../../activities/session/tool-records.js';
import { toolImplementations } from '../../activities/tools/index.js';
import type { ToolActivityInput, ToolActivityResult } from '../../core/session/tool-activity.js';
import { newSessionId } from '../../client/session-start.js';
import { activityRuns } from '../helpers/history.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { TEST_WORKFLOWS_PATH } from '../helpers/time-skipping.js';

/**
 * Issue 25 item 7: a short read's local attempt (issue 13) that is cut —
 * by its 0.5 s budget, or by a cancellation of the attempt (the worker
 * cancels a run's local activities when it evicts the run) — leaves no
 * record: the attempt that follows runs the tool and records its real
 * result. The cut is made deterministic by holding the local attempt's
 * grep until its cancellation signal fires (the real grep then runs and
 * answers `cancelled`, as a grep killed mid-search does); a regular attempt
 * runs the real grep at once.
 */
let h: Harness;
let workspace: string;
const grep = toolImplementations.grep!;
const realRun = grep.run.bind(grep);
let localStarted: () => void = () => undefined;

beforeAll(async () => {
  grep.run = async (args, ctx) => {
    if (Context.current().info.isLocal) {
      localStarted();
      await new Promise<void>((resolve) => {
        if (ctx.signal?.aborted) resolve();
        else ctx.signal?.addEventListener('abort', () => resolve(), { once: true });
      });
    }
    return realRun(args, ctx);
  };
  h = await createHarness({ address: inject('temporalAddress'), workflowsPath: TEST_WORKFLOWS_PATH });
  workspace = mkdtempSync(join(tmpdir(), 'zuno-local-cut-'));
  writeFileSync(join(workspace, 'a.txt'), 'needle in a haystack\n');
});
afterAll(async () => {
  grep.run = realRun;
  await h?.close();
  rmSync(workspace, { recursive: true, force: true });
});

/** What the projection holds for one call: its row and its `tool.completed` events. */
async function recordOf(sessionId: string, rowId: string) {
  const events = await h.store.listEvents(sessionId, 0, 1000);
  return {
    row: (await h.store.getToolCall(sessionId, rowId))!,
    completed: events.filter((e) => e.type === 'tool.completed' && e.data.rowId === rowId),
  };
}

describe('a local read that is cut', () => {
  it('past its budget: the regular activity runs and records the real result', async () => {
    const run = await h.runSession({
      workspace,
      prompt: 'find the needle',
      script: { replies: [{ toolCalls: [{ name: 'grep', arguments: { pattern: 'needle' } }] }, { text: 'Found.' }] },
    });
    expect(run.result.status).toBe('completed');
    const runs = (await activityRuns(h.client, run.workflowId)).filter((r) => r.type === 'tool_grep');
    expect(runs.map((r) => ({ local: r.local, failed: r.failed }))).toEqual([
      { local: true, failed: true },
      { local: false, failed: false },
    ]);
    const { row, completed } = await recordOf(run.sessionId, 'tc_0_0_1');
    const t = (await h.store.loadTranscript(run.sessionId))!;
    const part = t.parts.find((p) => p.kind === 'tool_result' && p.toolCallId === row.id);
    expect(row).toMatchObject({ status: 'completed', outcome: 'ok', errorCode: null });
    expect(row.output).toContain('needle in a haystack');
    expect(part?.text).toContain('needle in a haystack');
    expect(completed.map((e) => e.data.outcome)).toEqual(['ok']);
  });

  it('by a cancellation of the attempt: the next attempt runs and records the real result', async () => {
    const sessionId = newSessionId();
    const rowId = 'tc_0_0_0';
    await recordPlanned(
      h.store,
      {
        id: rowId,
        sessionId,
        turn: 0,
        step: 0,
        position: 0,
        callId: 'call_0',
        tool: 'grep',
        argsJson: JSON.stringify({ pattern: 'needle' }),
      },
      { messageId: 'msg_0_0_assistant', atMs: Date.now() },
    );
    const input: ToolActivityInput = {
      sessionId,
      workspace,
      turn: 0,
      step: 0,
      call: { rowId, position: 0, index: 0, callId: 'call_0', name: 'grep', args: { pattern: 'needle' } },
    };
    const started = new Promise<void>((resolve) => (localStarted = resolve));
    const handle = await h.client.workflow.start('localCutWorkflow', {
      workflowId: `local-cut-${sessionId}`,
      taskQueue: h.taskQueue,
      args: ['tool_grep', input],
    });
    await started;
    // Reaches the workflow at its next workflow task (the one holding the local attempt is heartbeated).
    await handle.signal('cutLocal');
    const result = await handle.result();
    expect(result).toMatchObject({ outcome: 'ok' } satisfies Partial<ToolActivityResult>);
    const { row, completed } = await recordOf(sessionId, rowId);
    expect(row).toMatchObject({ status: 'completed', outcome: 'ok', errorCode: null });
    expect(row.output).toContain('needle in a haystack');
    expect(completed.map((e) => e.data.outcome)).toEqual(['ok']);
  });
});
