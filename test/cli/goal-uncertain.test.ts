/**
 * A goal whose call's outcome is unknown (GL27, GL33): a shell call cut off
 * by a hard interrupt pauses the goal `uncertain_side_effect`; `goal
 * resume` off a terminal without `--choice` is refused (nothing is chosen
 * for the person), Keep paused leaves it as it was, Resume goal goes on —
 * served by the resuming process with a new script — and never runs the
 * uncertain call again. And Ctrl-C on `goal start`: the goal pauses, the
 * running turn is interrupted, exit 130.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { interruptSession } from '../../client/session-start.js';
import { expectTypedFailure, makeHome, runZuno, tempDir, useTestTemporal, writeJson, goalOf } from './helpers.js';

const temporal = useTestTemporal();

/** The session whose shell call has started, from the home's projection (polled). */
async function sessionWithRunningShell(home: string): Promise<string> {
  let id: string | undefined;
  await vi.waitFor(
    () => {
      const file = join(home, 'zuno.db');
      if (!existsSync(file)) throw new Error('no projection yet');
      const db = new Database(file, { readonly: true, fileMustExist: true });
      try {
        const row = db.prepare(`SELECT "sessionId" FROM "events" WHERE "type" = 'tool.started' LIMIT 1`).get() as
          { sessionId: string } | undefined;
        if (!row) throw new Error('no shell call started yet');
        id = row.sessionId;
      } finally {
        db.close();
      }
    },
    { timeout: 60_000, interval: 200 },
  );
  return id!;
}

async function goalJson(home: string, id: string) {
  const r = await runZuno(['goal', 'show', id, '--json'], { home });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).goal as { revision: number; state: { status: string; reason?: string } };
}

const SLOW_SHELL = (marker: string) => ({
  replies: [
    { toolCalls: [{ name: 'shell', arguments: { command: `echo ran >> ${marker}; sleep 60` } }] },
    { text: 'unused' },
  ],
});

describe('an unknown outcome under a goal', () => {
  it('pauses uncertain_side_effect; resume needs --choice; Keep paused changes nothing; Resume goal goes on without re-running the call', async () => {
    const { home } = makeHome({ address: temporal.address });
    const ws = tempDir('zuno-goal-unc-ws-');
    const scripts = tempDir('zuno-goal-unc-scripts-');
    const marker = join(ws, 'marker.txt');
    const slow = writeJson(scripts, 'slow.json', SLOW_SHELL(marker));
    const answers = writeJson(scripts, 'answers.json', {
      replies: [{ text: 'Checked: it ran once.' }, { text: 'Nothing to do.' }, { text: 'Still nothing.' }],
    });

    const started = runZuno(['goal', 'start', 'Run the slow job', '--dir', ws, '--script', slow], {
      home,
      timeoutMs: 120_000,
    });
    const sessionId = await sessionWithRunningShell(home);
    // The command has written its line (a loaded machine may take seconds from a running row to the command itself).
    await vi.waitFor(() => expect(existsSync(marker)).toBe(true), { timeout: 60_000, interval: 100 });
    await interruptSession(temporal.client, sessionId, 'test', 30_000);
    const start = await started;
    expect({ code: start.code, timedOut: start.timedOut }, start.stderr).toEqual({ code: 1, timedOut: false });
    const id = goalOf(start);
    expect(start.stderr).toContain('? shell uncertain');
    expect(start.stderr).toContain(`zuno: uncertain_side_effect: goal ${id} paused: the outcome of shell`);
    expect(start.stderr).toContain(`--choice resume (Resume goal) or --choice keep-paused (Keep paused)`);
    const paused = await goalJson(home, id);
    expect(paused.state).toMatchObject({ status: 'paused', reason: 'uncertain_side_effect' });

    // Off a terminal, no --choice: refused before anything is sent.
    const noChoice = await runZuno(['goal', 'resume', id, '--script', answers], { home });
    expect(expectTypedFailure(noChoice, 'usage_error')).toContain(
      `goal ${id} is paused because a call's outcome is unknown: choose explicitly with --choice resume (Resume goal) or --choice keep-paused (Keep paused)`,
    );
    expect(await goalJson(home, id)).toMatchObject({ revision: paused.revision, state: paused.state });

    // Keep paused: nothing runs, nothing changes.
    const keep = await runZuno(['goal', 'resume', id, '--choice', 'keep-paused'], { home });
    expect({ code: keep.code, out: keep.stdout }, keep.stderr).toEqual({
      code: 0,
      out: `goal ${id}: the goal stays paused; nothing was run\n`,
    });
    expect(await goalJson(home, id)).toMatchObject({ revision: paused.revision, state: paused.state });

    // Resume goal: served by this new process with a new script; the goal goes on until it stops again.
    const resumed = await runZuno(['goal', 'resume', id, '--choice', 'resume', '--script', answers], {
      home,
      timeoutMs: 120_000,
    });
    expect({ code: resumed.code, timedOut: resumed.timedOut }, resumed.stderr).toEqual({ code: 1, timedOut: false });
    expect(resumed.stderr).toContain(`goal ${id}: the goal is active again`);
    expect(resumed.stdout).toBe('Checked: it ran once.\nNothing to do.\nStill nothing.\n');
    expect(resumed.stderr).toContain(`zuno: no_progress: goal ${id} paused`);
    // The uncertain shell call ran once, before the interrupt; nothing ran it again.
    expect(readFileSync(marker, 'utf8')).toBe('ran\n');
    expect((await goalJson(home, id)).state).toMatchObject({ status: 'paused', reason: 'no_progress' });
    expect((await runZuno(['goal', 'cancel', id], { home })).code).toBe(0);
  }, 300_000);

  it('Ctrl-C on goal start pauses the goal and interrupts its running turn: exit 130', async () => {
    const { home } = makeHome({ address: temporal.address });
    const ws = tempDir('zuno-goal-int-ws-');
    const slow = writeJson(tempDir('zuno-goal-int-'), 'slow.json', SLOW_SHELL(join(ws, 'marker.txt')));
    let child: ChildProcess | undefined;
    const started = runZuno(['goal', 'start', 'Run the slow job', '--dir', ws, '--script', slow], {
      home,
      timeoutMs: 120_000,
      onSpawn: (c) => (child = c),
    });
    await sessionWithRunningShell(home);
    child!.kill('SIGINT');
    const r = await started;
    expect({ code: r.code, timedOut: r.timedOut }, r.stderr).toEqual({ code: 130, timedOut: false });
    const id = goalOf(r);
    expect(r.stderr).toContain(`zuno: pausing goal ${id} and interrupting its running turn`);
    expect(r.stderr).toContain('session interrupted (turn 1)');
    expect(r.stderr).toContain(
      `zuno: interrupted: goal ${id} is paused (user_interrupt); resume it with \`zuno goal resume ${id} --script FILE\``,
    );
    expect((await goalJson(home, id)).state).toMatchObject({ status: 'paused', reason: 'user_interrupt' });
    expect((await runZuno(['goal', 'cancel', id], { home })).code).toBe(0);
  }, 180_000);
});
