import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { workflowBundlePath } from '../../worker/workflow-bundle.js';
import { TEMPORAL_BIN } from '../helpers/dev-server.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/**
 * History replay of delegated sessions (DESIGN.md §4; issue 12 Must show):
 * a parent with a foreground task, a background task, a `job wait` and the
 * job's report turn, and its children, replay on the current code. With
 * ZUNO_RECORD_HISTORY=1 the histories are written as the checked-in
 * fixtures `session-delegation-parent-v1.json` / `session-delegation-child-v1.json`
 * (replayed with every other fixture by test/session/replay.test.ts).
 */
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'histories');
let h: Harness;
let codePath: string;
const stateDir = mkdtempSync(join(tmpdir(), 'zuno-delegation-replay-'));
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
  codePath = await workflowBundlePath(stateDir);
});
afterAll(async () => {
  await h?.close();
  rmSync(stateDir, { recursive: true, force: true });
});

function exported(workflowId: string): string {
  return execFileSync(
    TEMPORAL_BIN,
    ['workflow', 'show', '--workflow-id', workflowId, '--address', h.address, '--output', 'json'],
    { encoding: 'utf8' },
  );
}

it('replays a parent with a foreground task, a background job waited on, and their children', async () => {
  const ws = mkdtempSync(join(tmpdir(), 'zuno-delegation-replay-ws-'));
  writeFileSync(join(ws, 'a.txt'), 'alpha\n');
  const task = (id: string, objective: string, background: boolean) => ({
    id,
    name: 'task',
    arguments: {
      agent: 'explore',
      objective,
      deliverable: 'a line',
      instructions: 'read a.txt',
      success_evidence: 'file:line',
      ...(background ? { background: true } : {}),
    },
  });
  const run = await h.runSession({
    workspace: ws,
    prompt: 'delegate twice',
    script: {
      replies: [
        {
          toolCalls: [
            task('call_fg', 'Foreground read of a.txt', false),
            task('call_bg', 'Background read of a.txt', true),
          ],
        },
        {
          toolCalls: [
            { id: 'call_w', name: 'job', arguments: { action: 'wait', job_id: 'job_0_0_1', timeout_ms: 20_000 } },
          ],
        },
        { text: 'Both children reported.' },
      ],
      threads: [
        {
          match: 'Foreground read of a.txt',
          replies: [
            { toolCalls: [{ id: 'c1', name: 'read', arguments: { path: 'a.txt' } }] },
            { text: 'a.txt:1 alpha' },
          ],
        },
        { match: 'Background read of a.txt', replies: [{ fault: { delayMs: 1_000 }, text: 'a.txt:1 alpha (bg)' }] },
      ],
    },
  });
  expect(run.result.status).toBe('completed');
  const delegations = await h.store.listDelegations(run.sessionId);
  expect(delegations.map((d) => [d.mode, d.status])).toEqual([
    ['foreground', 'completed'],
    ['background', 'completed'],
  ]);
  const wait = (await h.store.loadTranscript(run.sessionId))!.toolCalls.find((c) => c.tool === 'job')!;
  expect(wait.output).toContain('a.txt:1 alpha (bg)');
  const parent = exported(run.workflowId);
  const child = exported(`session/${delegations[0]!.childSessionId}`);
  await Worker.runReplayHistory({ workflowBundle: { codePath } }, JSON.parse(parent), run.workflowId);
  await Worker.runReplayHistory({ workflowBundle: { codePath } }, JSON.parse(child), 'child');
  if (process.env.ZUNO_RECORD_HISTORY === '1') {
    writeFileSync(join(FIXTURES, 'session-delegation-parent-v1.json'), parent);
    writeFileSync(join(FIXTURES, 'session-delegation-child-v1.json'), child);
  }
}, 90_000);
