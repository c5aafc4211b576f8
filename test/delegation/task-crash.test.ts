import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createProcessHarness, useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';

/**
 * A foreground child's worker is SIGKILLed while the child's `shell` call
 * (replay Never) runs: the call is settled uncertain and not re-run, the
 * child goes on and reports, the parent gets the report — the same worker
 * served both, and both continue on the next worker. Worker processes, real
 * dev server, real shell.
 */
const cleanups = useCleanups();

it('a child whose worker dies mid-shell settles the call uncertain, never re-runs it, and still reports', async () => {
  const { h, spawnWorker } = await createProcessHarness('zuno-task-crash', cleanups);
  const ws = mkdtempSync(join(tmpdir(), 'zuno-task-crash-ws-'));
  const first = spawnWorker();
  const run = await h.startScripted({
    workspace: ws,
    prompt: 'delegate a deploy',
    script: {
      replies: [
        {
          toolCalls: [
            {
              id: 'call_t',
              name: 'task',
              arguments: {
                agent: 'build',
                objective: 'Deploy once',
                deliverable: 'a deploy',
                instructions: 'run the deploy command',
                success_evidence: 'its output',
              },
            },
          ],
        },
        { text: 'The child reported.' },
      ],
      threads: [
        {
          match: 'Deploy once',
          replies: [
            {
              toolCalls: [
                {
                  id: 'c_sh',
                  name: 'shell',
                  arguments: { command: 'echo start >> runs.txt; sleep 4; echo end >> runs.txt' },
                },
              ],
            },
            { text: 'The deploy outcome is unknown; inspect before retrying.' },
          ],
        },
      ],
    },
  });
  cleanups.push(() => run.closeProvider());
  await waitFor(async () => existsSync(join(ws, 'runs.txt')), 60_000, 'the shell call to start');
  await first.crash();
  const second = spawnWorker();
  cleanups.push(() => second.stop());
  expect(await run.result()).toMatchObject({ status: 'completed' });
  expect(readFileSync(join(ws, 'runs.txt'), 'utf8')).toBe('start\n'); // started once, never re-run
  const [d] = await h.store.listDelegations(run.sessionId);
  expect(d).toMatchObject({ status: 'completed' });
  const shell = (await h.store.loadTranscript(d!.childSessionId))!.toolCalls.find((c) => c.tool === 'shell')!;
  expect(shell.outcome).toBe('uncertain');
  const task = (await h.store.loadTranscript(run.sessionId))!.toolCalls.find((c) => c.tool === 'task')!;
  expect(task.output).toContain('The deploy outcome is unknown');
}, 120_000);
