import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { DEFAULT_ACTIVITY_DEFAULTS } from '../../core/activity-defaults.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { createProcessHarness, resultWithin, useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';

const cleanups = useCleanups();

describe('side-effecting tools in sessions (TD3, TD4, GP9)', () => {
  it('greps, reads, patches with its read credential, and verifies through shell', async () => {
    const h: Harness = await createHarness({ address: inject('temporalAddress') });
    cleanups.push(() => h.close());
    const ws = mkdtempSync(join(tmpdir(), 'zuno-fx-ws-'));
    writeFileSync(join(ws, 'sum.sh'), 'add() { echo $(( $1 - $2 )); }\n[ "$(add 2 3)" = 5 ]\n');
    const patch = [
      '*** Begin Patch',
      '*** Update File: sum.sh',
      '-add() { echo $(( $1 - $2 )); }',
      '+add() { echo $(( $1 + $2 )); }',
      '*** End Patch',
    ].join('\n');
    const run = await h.runSession({
      workspace: ws,
      prompt: 'fix add',
      script: {
        replies: [
          { toolCalls: [{ name: 'shell', arguments: { command: 'bash sum.sh' } }] },
          // Patching before reading is refused with ReadRequired and writes nothing.
          { toolCalls: [{ name: 'apply_patch', arguments: { patch } }] },
          { toolCalls: [{ name: 'read', arguments: { path: 'sum.sh' } }] },
          { toolCalls: [{ name: 'apply_patch', arguments: { patch } }] },
          { toolCalls: [{ name: 'shell', arguments: { command: 'bash sum.sh' } }] },
          { text: 'Fixed add; bash sum.sh passes.' },
        ],
      },
    });
    expect(run.result.status).toBe('completed');
    expect(readFileSync(join(ws, 'sum.sh'), 'utf8')).toContain('$(( $1 + $2 ))');
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.toolCalls.map((c) => [c.tool, c.outcome, c.errorCode ?? null])).toEqual([
      ['shell', 'ok', null],
      ['apply_patch', 'error', 'ReadRequired'],
      ['read', 'ok', null],
      ['apply_patch', 'ok', null],
      ['shell', 'ok', null],
    ]);
    const receipts = t.toolCalls
      .filter((c) => c.tool === 'shell')
      .map((c) => (c.result as { receipt: { id: string; verdict: string; exitCode: number } }).receipt);
    expect(receipts.map((r) => [r.verdict, r.exitCode])).toEqual([
      ['failed', 1],
      ['passed', 0],
    ]);
    for (const r of receipts) expect(r.id).toMatch(/^rcp_[0-9a-f]{16}$/);
  });

  it('a replay-Never shell call whose worker dies mid-command is recorded uncertain and never re-run', async () => {
    const { h, workers, spawnWorker } = await createProcessHarness('zuno-never', cleanups);
    const ws = mkdtempSync(join(tmpdir(), 'zuno-never-ws-'));
    spawnWorker();
    const run = await h.startScripted({
      workspace: ws,
      prompt: 'append a line',
      activityDefaults: {
        ...DEFAULT_ACTIVITY_DEFAULTS,
        tool: { startToCloseTimeoutMs: 120_000, heartbeatTimeoutMs: 2_000 },
      },
      script: {
        replies: [
          { toolCalls: [{ name: 'shell', arguments: { command: 'echo appended >> log.txt; sleep 30' } }] },
          { text: 'The append may or may not have happened; I will inspect log.txt before doing anything else.' },
        ],
      },
    });
    cleanups.push(() => run.closeProvider());
    await waitFor(async () => existsSync(join(ws, 'log.txt')), 60_000, 'the command to append its line');
    await workers[0]!.crash();
    const result = await resultWithin(run, spawnWorker(), 90_000);
    expect(result.status).toBe('completed');
    expect(readFileSync(join(ws, 'log.txt'), 'utf8')).toBe('appended\n');
    const [call] = (await h.store.loadTranscript(run.sessionId))!.toolCalls;
    expect(call!.outcome).toBe('uncertain');
    expect((call!.result as { uncertain: { cause: string; tool: string; callId: string } }).uncertain).toMatchObject({
      tool: 'shell',
      callId: call!.callId,
      cause: 'lost_outcome',
    });
    // The next model request carried the notice built from that record.
    const second = run.providerRequests[1] as { messages: { role: string; content: string }[] };
    expect(second.messages.find((m) => m.role === 'tool')!.content).toContain('Outcome uncertain');
    // Temporal ran the Never activity exactly once.
    const history = await h.client.workflow.getHandle(run.workflowId).fetchHistory();
    const shellStarts = (history.events ?? []).filter(
      (e) =>
        e.activityTaskStartedEventAttributes &&
        history.events!.find(
          (s) => Number(s.eventId) === Number(e.activityTaskStartedEventAttributes!.scheduledEventId),
        )?.activityTaskScheduledEventAttributes?.activityType?.name === 'tool_shell',
    );
    expect(shellStarts.map((e) => e.activityTaskStartedEventAttributes!.attempt)).toEqual([1]);
    // And nothing re-runs it later.
    await new Promise((r) => setTimeout(r, 3000));
    expect(readFileSync(join(ws, 'log.txt'), 'utf8')).toBe('appended\n');
  }, 180_000);

  it('a worker shut down gracefully mid-command records nothing itself: the Never call is settled uncertain, not "cancelled"', async () => {
    const { h, workers, spawnWorker } = await createProcessHarness('zuno-shutdown', cleanups);
    const ws = mkdtempSync(join(tmpdir(), 'zuno-shutdown-ws-'));
    spawnWorker();
    const run = await h.startScripted({
      workspace: ws,
      prompt: 'long job',
      script: {
        replies: [
          { toolCalls: [{ name: 'shell', arguments: { command: 'echo started > s.txt; sleep 30' } }] },
          { text: 'The job may or may not have finished; checking first.' },
        ],
      },
    });
    cleanups.push(() => run.closeProvider());
    await waitFor(async () => existsSync(join(ws, 's.txt')), 60_000, 'the command to start');
    await workers[0]!.stop(); // SIGTERM: the worker shuts down and cancels what it runs
    const result = await resultWithin(run, spawnWorker(), 90_000);
    expect(result.status).toBe('completed');
    const [call] = (await h.store.loadTranscript(run.sessionId))!.toolCalls;
    expect(call!.outcome).toBe('uncertain');
    expect((call!.result as { uncertain: { cause: string } }).uncertain.cause).toBe('lost_outcome');
    expect(call!.output).not.toMatch(/cancelled by|was cancelled/i);
    const events = await h.store.listEvents(run.sessionId, 0, 1000);
    expect(events.filter((e) => e.type === 'tool.completed' && e.data.outcome !== 'uncertain')).toHaveLength(0);
  }, 180_000);
});
