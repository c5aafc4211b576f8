import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { defaultPayloadConverter } from '@temporalio/common';
import type { ToolActivityResult } from '../../core/session/tool-activity.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';

const cleanups = useCleanups();

/** Heartbeat details of a running command's activity (activities/tools/progress.ts). */
interface Beat {
  outputBytes: number;
  elapsedMs: number;
  lastLine?: string;
}

/** The decoded results of every completed `tool_<name>` activity in a workflow's history, in order. */
async function toolResults(h: Harness, workflowId: string, tool: string): Promise<ToolActivityResult[]> {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const typeOf = (scheduledId: unknown) =>
    events.find((e) => Number(e.eventId) === Number(scheduledId))?.activityTaskScheduledEventAttributes?.activityType
      ?.name;
  return events
    .filter((e) => e.activityTaskCompletedEventAttributes)
    .filter((e) => typeOf(e.activityTaskCompletedEventAttributes!.scheduledEventId) === `tool_${tool}`)
    .map((e) =>
      defaultPayloadConverter.fromPayload<ToolActivityResult>(
        e.activityTaskCompletedEventAttributes!.result!.payloads![0]!,
      ),
    );
}

describe('tool activities tell the truth in Temporal (results, heartbeats)', () => {
  it("a failed shell command's activity result carries its exit code, verdict and a failed status", async () => {
    const h: Harness = await createHarness({ address: inject('temporalAddress') });
    cleanups.push(() => h.close());
    const ws = mkdtempSync(join(tmpdir(), 'zuno-truth-'));
    const run = await h.runSession({
      workspace: ws,
      prompt: 'check',
      script: {
        replies: [
          { toolCalls: [{ name: 'shell', arguments: { command: 'echo nope; exit 3' } }] },
          { toolCalls: [{ name: 'shell', arguments: { command: 'echo fine' } }] },
          { text: 'done' },
        ],
      },
    });
    expect(run.result.status).toBe('completed');
    const [failed, passed] = await toolResults(h, run.workflowId, 'shell');
    // TD8: the activity completed; its result says the command failed and why.
    expect(failed).toMatchObject({
      outcome: 'ok',
      status: 'failed',
      facts: { exitCode: 3, verdict: 'failed', failed: true },
    });
    expect(passed).toMatchObject({ outcome: 'ok', status: 'ok', facts: { exitCode: 0, verdict: 'passed' } });
    // Small: never the output itself.
    expect(JSON.stringify(failed)).not.toContain('nope');
  }, 120_000);

  /** Waits for the pending activity `type` to heartbeat details with output and returns them. */
  async function heartbeatOf(h: Harness, workflowId: string, type: string): Promise<Beat> {
    const handle = h.client.workflow.getHandle(workflowId);
    let details: Beat | undefined;
    await waitFor(
      async () => {
        const d = await handle.describe();
        const pending = (d.raw.pendingActivities ?? []).find((a) => a.activityType?.name === type);
        const payload = pending?.heartbeatDetails?.payloads?.[0];
        if (!payload) return false;
        details = defaultPayloadConverter.fromPayload<Beat>(payload);
        return details.outputBytes > 0 && (details.lastLine ?? '') !== '';
      },
      60_000,
      `${type} heartbeat details with output`,
    );
    return details!;
  }

  const command = 'for i in 1 2 3 4 5 6 7 8; do echo "step $i token=abcdefgh12345"; sleep 1; done; echo finished';

  it.each([
    ['tool_shell', false],
    ['bgCommand', true],
  ] as const)(
    "a running command's %s heartbeat details show output bytes, elapsed time and its last line (redacted)",
    async (type, background) => {
      const h: Harness = await createHarness({ address: inject('temporalAddress') });
      cleanups.push(() => h.close());
      const ws = mkdtempSync(join(tmpdir(), 'zuno-beat-'));
      const run = await h.startScripted({
        workspace: ws,
        prompt: 'long',
        script: {
          replies: [
            { toolCalls: [{ name: 'shell', arguments: { command, ...(background ? { background } : {}) } }] },
            { text: 'done' },
            { text: 'reported' },
          ],
        },
      });
      cleanups.push(() => run.closeProvider());
      const details = await heartbeatOf(h, run.workflowId, type);
      expect(details.outputBytes).toBeGreaterThan(0);
      expect(details.elapsedMs).toBeGreaterThan(0);
      expect(details.lastLine).toMatch(/^step \d token=\[redacted\]$/);
      expect(details.lastLine!.length).toBeLessThanOrEqual(200);
      expect((await run.result()).status).toBe('completed');
    },
    120_000,
  );
});
