import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EV } from '../../core/events.js';
import { createProcessHarness, type ProcessHarness, useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';

/**
 * Issue 12 Must show: a background task's report reaches the parent's inbox
 * exactly once when the parent's worker is SIGKILLed around the delivery —
 * while the child runs, the moment the child has ended, once the
 * delegation is settled in the projection, and once the report turn
 * started. The delivery is the parent workflow's own state (the child's
 * completion is an event of its history), so a new worker replays it
 * instead of delivering it again. Worker processes, real dev server.
 */
const cleanups = useCleanups();
let ph: ProcessHarness;
beforeAll(async () => {
  ph = await createProcessHarness('zuno-job-crash', cleanups);
});

type Point = 'child running' | 'child ended' | 'delegation settled' | 'report turn started';

describe('a background report is delivered once across a parent worker SIGKILL', () => {
  it.each<Point>(['child running', 'child ended', 'delegation settled', 'report turn started'])(
    'killed when the %s',
    async (point) => {
      const { h } = ph;
      const ws = mkdtempSync(join(tmpdir(), 'zuno-job-crash-ws-'));
      writeFileSync(join(ws, 'notes.txt'), 'the answer is 42\n');
      const first = ph.spawnWorker();
      const objective = `Read the notes (${point})`;
      const run = await h.startScripted({
        workspace: ws,
        prompt: 'look up the answer',
        script: {
          replies: [
            {
              toolCalls: [
                {
                  id: 'call_t',
                  name: 'task',
                  arguments: {
                    agent: 'explore',
                    objective,
                    deliverable: 'the answer',
                    instructions: 'read notes.txt',
                    success_evidence: 'the line it is on',
                    background: true,
                  },
                },
              ],
            },
            { text: 'The job runs; its report will follow.' },
            { fault: { delayMs: point === 'report turn started' ? 3_000 : 0 }, text: 'The answer is 42.' },
          ],
          threads: [
            {
              match: objective,
              replies: [
                { toolCalls: [{ id: 'c_read', name: 'read', arguments: { path: 'notes.txt' } }] },
                { fault: { delayMs: 2_000 }, text: 'notes.txt:1 says the answer is 42.' },
              ],
            },
          ],
        },
      });
      cleanups.push(() => run.closeProvider());
      const delegation = () => h.store.listDelegations(run.sessionId).then((l) => l[0]);
      const d = await waitFor(delegation, 60_000, 'the delegation to open');
      if (point === 'child ended')
        await waitFor(
          async () => (await h.store.getSession(d.childSessionId))?.status === 'completed',
          60_000,
          'the child to end',
        );
      if (point === 'delegation settled')
        await waitFor(async () => (await delegation())?.settledAtMs !== null, 60_000, 'the delegation to settle');
      if (point === 'report turn started')
        await waitFor(
          async () =>
            (await h.store.loadTranscript(run.sessionId))?.inputs.some((i) => i.text.includes('<background_report')),
          60_000,
          'the report turn to start',
        );
      await first.crash();
      const second = ph.spawnWorker();
      cleanups.push(() => second.stop());
      expect(await run.result()).toMatchObject({ status: 'completed' });

      const t = (await h.store.loadTranscript(run.sessionId))!;
      const reports = t.inputs.filter((i) => i.text.includes('<background_report taskID="job_0_0_0">'));
      expect(reports).toHaveLength(1);
      expect(reports[0]!.text).toContain('notes.txt:1 says the answer is 42.');
      expect(await delegation()).toMatchObject({ status: 'completed' });
      const events = await h.store.listEvents(run.sessionId, 0, 10_000);
      expect(events.filter((e) => e.type === EV.delegationSettled)).toHaveLength(1);
      expect(events.filter((e) => e.type === EV.delegationStarted)).toHaveLength(1);
      // One child workflow, started once.
      const children = [];
      for await (const w of h.client.workflow.list({ query: `ZunoParentSession = "${run.sessionId}"` }))
        children.push(w.workflowId);
      expect(children).toEqual([`session/${d.childSessionId}`]);
      // The parent answered the report once: exactly one final answer after it.
      expect(t.messages.filter((m) => m.role === 'assistant').length).toBeGreaterThanOrEqual(3);
      expect(t.parts.filter((p) => p.text === 'The answer is 42.')).toHaveLength(1);
    },
    150_000,
  );
});
