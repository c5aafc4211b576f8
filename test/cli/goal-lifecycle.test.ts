/**
 * Goals from the command line, end to end: `zuno goal start` with a scripted
 * model that only answers — three turns that change nothing pause the goal
 * `no_progress` (exit 1, the resume hint; `--json` ends with goal.paused);
 * `goal list` and `goal show` read it from the projection; `goal resume
 * --script` serves it again from a new process; `goal cancel` ends it (its
 * workflows close) and a resume of the cancelled goal is `goal_closed`; a
 * retryable provider failure backs the goal off, said in one plain line.
 * Real launcher, real Temporal (global setup), real local provider.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  expectTypedFailure,
  makeHome,
  parseNdjson,
  runZuno,
  tempDir,
  useTestTemporal,
  writeJson,
  goalOf,
} from './helpers.js';

const temporal = useTestTemporal();

const ANSWERS = { replies: [{ text: 'Looking at it.' }, { text: 'Still looking.' }, { text: 'Nothing changed.' }] };

async function workflowStatus(id: string): Promise<string> {
  return (await temporal.client.workflow.getHandle(id).describe()).status.name;
}

describe('zuno goal start → list → show → resume → cancel', () => {
  it('pauses no_progress after three answers that change nothing, and is controlled from new processes', async () => {
    const { home } = makeHome({ address: temporal.address });
    const ws = tempDir('zuno-goal-ws-');
    writeFileSync(join(ws, 'zuno.json'), JSON.stringify({ goal: { default_token_budget: 900000 } }));
    const script = writeJson(tempDir('zuno-goal-script-'), 'answers.json', ANSWERS);

    const start = await runZuno(
      ['goal', 'start', 'Keep the build green', '--dir', ws, '--script', script, '--tool-call-budget', '40'],
      { home, timeoutMs: 120_000 },
    );
    expect({ code: start.code, timedOut: start.timedOut }, start.stderr).toEqual({ code: 1, timedOut: false });
    const id = goalOf(start);
    expect(start.stdout).toBe('Looking at it.\nStill looking.\nNothing changed.\n');
    expect(start.stderr).toMatch(new RegExp(`^goal ${id} started \\(session ses_[0-9a-z]+\\)$`, 'm'));
    expect(start.stderr).toContain('(turn 2: the goal continues on its own)');
    expect(start.stderr).toContain(
      `zuno: no_progress: goal ${id} paused: 3 turns in a row changed nothing and left the same work state\n`,
    );
    expect(start.stderr).toContain(`zuno goal resume ${id} --script FILE`);

    // list, from the projection: newest first, status with its reason.
    const list = await runZuno(['goal', 'list'], { home });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout.split('\n')[1]).toMatch(
      new RegExp(`^${id}\\s+paused \\(no_progress\\)\\s+3\\s+just now\\s+Keep the build green$`),
    );
    const listed = JSON.parse((await runZuno(['goal', 'list', '--json', '--status', 'paused'], { home })).stdout);
    expect(listed).toEqual([expect.objectContaining({ id, status: 'paused', reason: 'no_progress', turns: 3 })]);
    expect(JSON.parse((await runZuno(['goal', 'list', '--json', '--status', 'completed'], { home })).stdout)).toEqual(
      [],
    );

    // show: the budgets (the host default, the tool-call budget), the session, Temporal's view.
    const show = await runZuno(['goal', 'show', id], { home });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`goal ${id} · paused (no_progress) · revision`);
    expect(show.stdout).toContain('objective   Keep the build green');
    expect(show.stdout).toMatch(/tokens {6}[\d,]+ of 900,000 \([\d,]+ left; the host default\)/);
    expect(show.stdout).toContain('tool calls  0 of 40 (40 left)');
    expect(show.stdout).toMatch(/temporal {4}goal\/goal_[0-9a-z]+ · running · /);
    const shown = JSON.parse((await runZuno(['goal', 'show', id, '--json'], { home })).stdout);
    expect(shown.goal).toMatchObject({
      goalId: id,
      state: { status: 'paused', reason: 'no_progress' },
      budgets: { tokens: { limit: 900000, source: 'host_default' }, toolCalls: 40 },
      spent: { turns: 3, toolCalls: 0 },
    });
    expect(shown.session).toMatchObject({ id: shown.goal.sessionId, workspace: expect.any(String) });
    expect(shown.workState).toBeNull();
    // The session says which goal drives it.
    const session = await runZuno(['session', 'show', shown.goal.sessionId], { home });
    expect(session.stdout).toContain(`driven by goal ${id} (paused, no_progress): zuno goal show ${id}\n`);

    // A resume from a new process serves the goal again (the start process has ended): three more turns.
    const resumed = await runZuno(['goal', 'resume', id, '--script', script, '--json'], { home, timeoutMs: 120_000 });
    expect({ code: resumed.code, timedOut: resumed.timedOut }, resumed.stderr).toEqual({ code: 1, timedOut: false });
    const events = parseNdjson(resumed.stdout);
    expect(events.at(-1)).toEqual({
      type: 'goal.paused',
      goalId: id,
      sessionId: shown.goal.sessionId,
      status: 'paused',
      reason: 'no_progress',
      message: '3 turns in a row changed nothing and left the same work state',
      revision: expect.any(Number),
      spent: expect.objectContaining({ turns: 6, toolCalls: 0 }),
    });
    expect(events.filter((e) => e.type === 'session.completed')).toHaveLength(3);
    expect(events.some((e) => e.type === 'goal.status' && e.status === 'active')).toBe(true);

    // A paused goal cannot be paused again: the workflow's typed refusal, said once.
    expect(expectTypedFailure(await runZuno(['goal', 'pause', id], { home }), 'goal_not_active')).toContain(
      `goal ${id} is already paused (no_progress)`,
    );

    // cancel: the goal ends, its workflow and its session's close; nothing is left waiting.
    const cancel = await runZuno(['goal', 'cancel', id], { home });
    expect({ code: cancel.code, out: cancel.stdout }, cancel.stderr).toEqual({
      code: 0,
      out: expect.stringMatching(new RegExp(`^goal ${id}: the goal is cancelled \\(revision \\d+\\)\n$`)),
    });
    expect(await workflowStatus(`goal/${id}`)).toBe('COMPLETED');
    expect(await workflowStatus(`session/${shown.goal.sessionId}`)).toBe('COMPLETED');
    const after = JSON.parse((await runZuno(['goal', 'list', '--json'], { home })).stdout);
    expect(after).toEqual([expect.objectContaining({ id, status: 'cancelled', reason: 'user' })]);

    // A cancelled goal: refused from the projection, before anything is contacted.
    for (const args of [
      ['goal', 'resume', id, '--script', script],
      ['goal', 'cancel', id],
      ['goal', 'pause', id],
    ]) {
      const r = await runZuno(args, { home, env: { TEMPORAL_ADDRESS: '127.0.0.1:1' } });
      expect(expectTypedFailure(r, 'goal_closed')).toContain(`goal ${id} is cancelled`);
    }
  }, 300_000);

  it('--json streams the session events and ends with goal.paused', async () => {
    const { home } = makeHome({ address: temporal.address });
    const ws = tempDir('zuno-goal-ws-');
    const script = writeJson(tempDir('zuno-goal-script-'), 'answers.json', ANSWERS);
    const r = await runZuno(['goal', 'start', 'Keep the build green', '--dir', ws, '--script', script, '--json'], {
      home,
      timeoutMs: 120_000,
    });
    expect({ code: r.code, timedOut: r.timedOut }, r.stderr).toEqual({ code: 1, timedOut: false });
    const events = parseNdjson(r.stdout);
    const last = events.at(-1)!;
    expect(last).toMatchObject({
      type: 'goal.paused',
      goalId: expect.stringMatching(/^goal_/),
      sessionId: expect.stringMatching(/^ses_/),
      status: 'paused',
      reason: 'no_progress',
      revision: expect.any(Number),
      spent: expect.objectContaining({ turns: 3 }),
    });
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === 'session.turn.started.1')).toHaveLength(3);
    expect(types).toContain('goal.status');
    // Every other line is a stored event of the goal's session, in seq order.
    const stored = events.slice(0, -1);
    for (const e of stored) expect(e.sessionId).toBe(last.sessionId);
    const seqs = stored.map((e) => e.seq as number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect((await runZuno(['goal', 'cancel', last.goalId as string], { home })).code).toBe(0);
  }, 180_000);

  it('says when the goal backs off after a retryable failure, then goes on by itself', async () => {
    const { home } = makeHome({ address: temporal.address });
    const ws = tempDir('zuno-goal-ws-');
    // Three 503s use up the model step's attempts: the turn fails provider_unavailable and the goal backs off.
    const script = writeJson(tempDir('zuno-goal-script-'), 'flaky.json', {
      replies: [
        { text: 'Recovered.', fault: { status: 503, times: 3 } },
        { text: 'Nothing.' },
        { text: 'Nothing again.' },
      ],
    });
    const r = await runZuno(['goal', 'start', 'Survive a flaky provider', '--dir', ws, '--script', script], {
      home,
      timeoutMs: 150_000,
    });
    expect({ code: r.code, timedOut: r.timedOut }, r.stderr).toEqual({ code: 1, timedOut: false });
    expect(r.stderr).toMatch(/^retrying after provider_unavailable at \d\d:\d\d:\d\d UTC \(attempt 1\)$/m);
    expect(r.stdout).toBe('Recovered.\nNothing.\nNothing again.\n');
    expect(r.stderr).toContain(`zuno: no_progress: goal ${goalOf(r)} paused`);
    expect((await runZuno(['goal', 'cancel', goalOf(r)], { home })).code).toBe(0);
  }, 200_000);

  it('a spent budget stops the goal (goal.budget_limited); resume is refused until goal budgets raises it', async () => {
    const { home } = makeHome({ address: temporal.address });
    const ws = tempDir('zuno-goal-ws-');
    writeFileSync(join(ws, 'notes.txt'), 'one\n');
    const scripts = tempDir('zuno-goal-script-');
    const reads = writeJson(scripts, 'read.json', {
      replies: [{ toolCalls: [{ name: 'read', arguments: { path: 'notes.txt' } }] }, { text: 'It says one.' }],
    });
    const answers = writeJson(scripts, 'answers.json', ANSWERS);
    const start = await runZuno(
      ['goal', 'start', 'Read the notes', '--dir', ws, '--script', reads, '--tool-call-budget', '1', '--json'],
      { home, timeoutMs: 120_000 },
    );
    expect({ code: start.code, timedOut: start.timedOut }, start.stderr).toEqual({ code: 1, timedOut: false });
    const events = parseNdjson(start.stdout);
    const last = events.at(-1)!;
    expect(last).toMatchObject({
      type: 'goal.budget_limited',
      status: 'budget_limited',
      reason: 'tool_call_budget',
      message: 'the Goal made 1 of its 1 tool calls',
      spent: expect.objectContaining({ toolCalls: 1, turns: 1 }),
    });
    expect(events).toContainEqual(expect.objectContaining({ type: 'notice', code: 'budget.tool_call_budget' }));
    const id = last.goalId as string;
    expect(start.stderr).toContain(
      `zuno: tool_call_budget: goal ${id} stopped by its budget: the Goal made 1 of its 1 tool calls`,
    );
    expect(start.stderr).toContain(`zuno goal budgets ${id} --tool-call-budget N`);

    // Still spent: the goal refuses to resume, with its validator's code.
    const refused = await runZuno(['goal', 'resume', id, '--script', answers], { home, timeoutMs: 60_000 });
    const why = expectTypedFailure(refused, 'budget_exhausted');
    expect(why).toContain(`goal ${id} has spent its`);
    expect(why).toContain(`zuno goal budgets ${id}`);

    const raised = await runZuno(['goal', 'budgets', id, '--tool-call-budget', '10'], { home });
    expect(raised.code, raised.stderr).toBe(0);
    expect(raised.stdout).toMatch(new RegExp(`^goal ${id}: the budgets are set \\(revision \\d+\\)$`, 'm'));
    expect(raised.stdout).toContain('tool calls  1 of 10 (9 left)');
    expect(raised.stdout).toContain(`resume it: zuno goal resume ${id}`);

    const resumed = await runZuno(['goal', 'resume', id, '--script', answers], { home, timeoutMs: 120_000 });
    expect({ code: resumed.code, timedOut: resumed.timedOut }, resumed.stderr).toEqual({ code: 1, timedOut: false });
    expect(resumed.stderr).toContain(`zuno: no_progress: goal ${id} paused`);
    expect((await runZuno(['goal', 'cancel', id], { home })).code).toBe(0);
  }, 300_000);

  it('says when the goal waits for a remote observer, and goes on when it reports', async () => {
    const { home } = makeHome({ address: temporal.address });
    const ws = tempDir('zuno-goal-ws-');
    const script = writeJson(tempDir('zuno-goal-script-'), 'ci.json', {
      replies: [
        {
          toolCalls: [
            {
              name: 'shell',
              arguments: { command: 'sleep 2; echo green', background: true, backgroundPurpose: 'remoteObserver' },
            },
          ],
        },
        { text: 'CI started.' },
        { text: 'CI is green.' },
        { text: 'Nothing.' },
        { text: 'Nothing again.' },
        { text: 'Still nothing.' },
      ],
    });
    const r = await runZuno(['goal', 'start', 'Watch CI', '--dir', ws, '--script', script], {
      home,
      timeoutMs: 150_000,
    });
    expect({ code: r.code, timedOut: r.timedOut }, r.stderr).toEqual({ code: 1, timedOut: false });
    const lines = r.stderr.split('\n');
    const waiting = lines.findIndex((l) => /^waiting for CI: remote observer bg_\S+ is running$/.test(l));
    const reported = lines.findIndex((l) => /^✓ background bg_\S+ exited exit 0/.test(l));
    expect(waiting, r.stderr).toBeGreaterThan(0);
    expect(reported, r.stderr).toBeGreaterThan(waiting);
    expect(r.stderr).toMatch(/^\(background task bg_\S+ keeps running: its completion report reaches the goal\)$/m);
    expect(r.stdout.split('\n').slice(0, 2)).toEqual(['CI started.', 'CI is green.']);
    expect((await runZuno(['goal', 'cancel', goalOf(r)], { home })).code).toBe(0);
  }, 200_000);
});
