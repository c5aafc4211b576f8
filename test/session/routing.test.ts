import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { SessionState } from '../../core/session/state.js';
import { createHarness, startRouteWorker, type Harness } from '../helpers/harness.js';

/**
 * A routed session whose host has no worker (DESIGN.md §1): its activities
 * wait on the route's task queue — none runs on the harness's worker, which
 * polls only the workflow queue's own activities — and after the notice
 * period the Temporal current details and the `state` query name the
 * missing host, workspace and task queue. A worker that starts on the route
 * picks the work up, and the notice goes.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
});
afterAll(async () => {
  await h?.close();
});

async function currentDetails(workflowId: string): Promise<string> {
  const md = await h.client.workflow
    .getHandle(workflowId)
    .query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  return md.currentDetails ?? '';
}

describe('a session whose host has no worker', () => {
  it('waits, says which host, workspace and task queue it waits for, and runs once a worker of that route starts', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'zuno-route-ws-'));
    writeFileSync(join(workspace, 'a.txt'), 'alpha\n');
    const route = { host: 'build-box-7', taskQueue: `${h.taskQueue}/host/build-box-7`, servedBy: 'worker' as const };
    const run = await h.startScripted({
      workspace,
      prompt: 'read a.txt',
      route,
      script: {
        replies: [{ toolCalls: [{ name: 'read', arguments: { path: 'a.txt' } }] }, { text: 'It says alpha.' }],
      },
    });
    const handle = h.client.workflow.getHandle(run.workflowId);
    await vi.waitFor(async () => expect(await currentDetails(run.workflowId)).toMatch(/^waiting for a worker/), {
      timeout: 30_000,
      interval: 250,
    });
    const line = await currentDetails(run.workflowId);
    expect(line).toContain('start a `zuno worker` on host build-box-7');
    expect(line).toContain(`task queue ${route.taskQueue} (workspace ${workspace})`);
    const state = await handle.query<SessionState>('state');
    expect(state.waitingForWorker).toMatchObject({ host: 'build-box-7', taskQueue: route.taskQueue });
    // Nothing of the session ran on the harness's own worker.
    const hist = await handle.fetchHistory();
    expect(hist.events!.some((e) => e.activityTaskStartedEventAttributes)).toBe(false);

    const w = await startRouteWorker(h, route.taskQueue);
    try {
      expect(await run.result()).toMatchObject({ status: 'completed' });
      expect((await handle.query<SessionState>('state').catch(() => null))?.waitingForWorker).toBeUndefined();
      const events = (await handle.fetchHistory()).events!;
      const queues = events
        .map((e) => e.activityTaskScheduledEventAttributes?.taskQueue?.name)
        .filter((q): q is string => typeof q === 'string');
      expect(new Set(queues)).toEqual(new Set([route.taskQueue]));
    } finally {
      await w.stop();
      await run.closeProvider();
    }
  }, 90_000);
});
