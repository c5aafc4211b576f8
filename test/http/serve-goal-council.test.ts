/**
 * Issue 29 item 2 (HTTP): Goals and Councils over `zuno serve` — start,
 * show, control — with the same checks and steps as `zuno goal start|show|
 * pause|budgets|cancel` and `zuno council run|show`. A Goal on three
 * answers that change nothing pauses `no_progress`; pausing it again is the
 * workflow's typed refusal (409); budgets and cancel apply. The demo Council
 * (demo/council-review) runs to its synthesis and a finished one cannot be
 * cancelled. Real `zuno serve`, Temporal dev server, SQLite, scripted models.
 */
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/dev-server.js';
import { makeHome, tempDir, useTestTemporal, writeJson } from '../cli/helpers.js';
import { waitFor } from '../helpers/worker-process.js';
import { call, json, openStream, startServe, type Served } from './serve-helpers.js';

const temporal = useTestTemporal();
const servers: Served[] = [];
const repos: string[] = [];

afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const r of repos) rmSync(r, { recursive: true, force: true });
}, 60_000);

/** A server on a fresh home with `script` as its model. */
async function serverWith(script: string): Promise<Served> {
  const { home } = makeHome({ address: temporal.address });
  const s = await startServe(home, ['--script', script]);
  servers.push(s);
  return s;
}

const errorCode = async (r: Promise<Response>) => ((await (await r).json()) as { error: { code: string } }).error.code;

describe('zuno serve: Goals', () => {
  it('starts a Goal, shows it, and controls it (pause refused when paused, budgets, cancel)', async () => {
    const script = writeJson(tempDir('zuno-http-goal-'), 'answers.json', {
      replies: [{ text: 'Looking at it.' }, { text: 'Still looking.' }, { text: 'Nothing changed.' }],
    });
    const s = await serverWith(script);
    const ws = tempDir('zuno-http-goal-ws-');
    writeFileSync(join(ws, 'zuno.json'), JSON.stringify({ goal: { default_token_budget: 900000 } }));
    const bad = await call(s, 'POST', '/goals', { objective: 'x', workspace: ws, budgets: { turnBudget: 'lots' } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('input_invalid');

    const { goalId, sessionId } = await json<{ goalId: string; sessionId: string }>(
      call(s, 'POST', '/goals', {
        objective: 'Keep the build green',
        workspace: ws,
        budgets: { toolCallBudget: '40' },
      }),
      201,
    );
    expect(goalId).toMatch(/^goal_/);
    const stream = await openStream(s, `/sessions/${sessionId}/events`);
    // The Goal's own events are stored with its session's: the stream carries them under their stored type.
    const paused = await stream.until(
      (m) => m.event === 'goal.status' && (m.data.data as { status?: string }).status === 'paused',
    );
    stream.close();
    expect(paused.data.data).toMatchObject({ goalId, status: 'paused', reason: 'no_progress' });

    const shown = await json<{ goal: Record<string, unknown>; session: { id: string } }>(
      call(s, 'GET', `/goals/${goalId}`),
      200,
    );
    expect(shown.goal).toMatchObject({
      goalId,
      state: { status: 'paused', reason: 'no_progress' },
      budgets: { tokens: { limit: 900000, source: 'host_default' }, toolCalls: 40 },
    });
    expect(shown.session.id).toBe(sessionId);
    expect(await errorCode(call(s, 'GET', '/goals/goal_nosuchgoal'))).toBe('goal_not_found');

    expect(await errorCode(call(s, 'POST', `/goals/${goalId}/control`, { action: 'pause' }))).toBe('goal_not_active');
    const revision = (shown.goal as { revision: number }).revision;
    expect(
      await errorCode(
        call(s, 'POST', `/goals/${goalId}/control`, { action: 'cancel', expectedRevision: revision + 5 }),
      ),
    ).toBe('stale_revision');
    const budgets = await json<{ revision: number }>(
      call(s, 'POST', `/goals/${goalId}/control`, { action: 'budgets', budgets: { turnBudget: '10' } }),
      200,
    );
    expect(budgets.revision).toBeGreaterThan(revision);
    const cancelled = await json(call(s, 'POST', `/goals/${goalId}/control`, { action: 'cancel' }), 200);
    expect(cancelled).toMatchObject({ goalId, status: 'cancelled' });
    await waitFor(
      async () =>
        (await json<{ goal: { state: { status: string } } }>(call(s, 'GET', `/goals/${goalId}`), 200)).goal.state
          .status === 'cancelled',
      30_000,
      'the cancelled goal recorded',
    );
  }, 240_000);
});

describe('zuno serve: Councils', () => {
  it('runs the demo Council to its synthesis; show reads it back; a finished one cannot be cancelled', async () => {
    const demo = join(ROOT, 'demo', 'council-review');
    const repo = execFileSync(process.execPath, [join(demo, 'prepare.mjs')], { encoding: 'utf8' }).trim();
    repos.push(repo);
    const s = await serverWith(join(demo, 'script.json'));
    expect(await errorCode(call(s, 'POST', '/councils', { question: 'Review', workspace: repo, preset: 'nope' }))).toBe(
      'preset_unknown',
    );
    const { runId } = await json<{ runId: string }>(
      call(s, 'POST', '/councils', { question: 'Review the last commit', workspace: repo, diff: 'HEAD~1..HEAD' }),
      201,
    );
    const row = await waitFor(
      async () => {
        const res = await call(s, 'GET', `/councils/${runId}`);
        if (res.status === 404) return undefined; // its row is written once the Council has prepared
        const r = (await res.json()) as { status: string; synthesis?: string };
        return r.status === 'succeeded' || r.status === 'failed' ? r : undefined;
      },
      150_000,
      'the council to end',
    );
    expect(row).toMatchObject({ id: runId, status: 'succeeded', preset: 'balanced-review', diffRange: 'HEAD~1..HEAD' });
    expect(row.synthesis).toContain('off-by-one in `page()`');
    await waitFor(
      async () => (await temporal.client.workflow.getHandle(`council/${runId}`).describe()).status.name !== 'RUNNING',
      30_000,
      'the council workflow to close',
    );
    expect(await errorCode(call(s, 'POST', `/councils/${runId}/cancel`))).toBe('council_closed');
    expect(await errorCode(call(s, 'GET', '/councils/cr_nosuchrun'))).toBe('council_not_found');
  }, 240_000);
});
