/**
 * Work routed to the workspace's host (DESIGN.md §1): two `zuno run`s at once
 * — in two workspaces, and twice in one workspace — against one ZUNO_HOME and
 * the global setup's Temporal server. Each run's in-process worker serves
 * only its own session's route; stopping one run (Ctrl-C) never touches the
 * other's long shell call, and the Temporal history shows every activity of a
 * session scheduled on its own route and started by its own run's worker.
 */
import type { ChildProcess } from 'node:child_process';
import { activityRuns } from '../helpers/history.js';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { openProjectionStore } from '../../activities/projection/open.js';
import { waitFor } from '../helpers/worker-process.js';
import { makeHome, makeWorkspace, runZuno, tempDir, writeJson, type ZunoResult, useTestTemporal } from './helpers.js';

const temporal = useTestTemporal();

/** A script whose one shell call runs `command`, then answers `answer`. */
function shellScript(command: string, answer: string): string {
  return writeJson(tempDir('zuno-route-script-'), 's.json', {
    replies: [{ toolCalls: [{ name: 'shell', arguments: { command } }] }, { text: answer }],
  });
}

/** One `zuno run` started in the background; `child` is set once spawned. */
function startRun(home: string, ws: string, script: string, prompt: string) {
  let child: ChildProcess | undefined;
  const done = runZuno(['run', prompt, '--dir', ws, '--script', script], {
    home,
    timeoutMs: 90_000,
    onSpawn: (c) => (child = c),
  });
  return { done, child: () => child! };
}

/** The session id a finished run printed (`session ses_… started`). */
function sessionOf(r: ZunoResult): string {
  const m = /session (ses_[0-9a-z]+) started/.exec(r.stderr);
  if (!m) throw new Error(`no session id in: ${r.stderr}`);
  return m[1]!;
}

/** Every activity of the session's workflow: the task queue it was scheduled on and the worker identity that started it. */
async function activitiesOf(sessionId: string): Promise<{ type: string; taskQueue: string; identity: string }[]> {
  const history = await temporal.client.workflow.getHandle(`session/${sessionId}`).fetchHistory();
  const scheduled = new Map<string, { type: string; taskQueue: string }>();
  const out: { type: string; taskQueue: string; identity: string }[] = [];
  for (const e of history.events ?? []) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(String(e.eventId), { type: s.activityType!.name!, taskQueue: s.taskQueue!.name! });
    const st = e.activityTaskStartedEventAttributes;
    if (st) out.push({ ...scheduled.get(String(st.scheduledEventId))!, identity: st.identity! });
  }
  return out;
}

/** Waits until the session's shell call is recorded running in the projection. */
async function shellRunning(home: string, prompt: string): Promise<void> {
  await waitFor(
    async () => {
      const store = await openProjectionStore({ zunoDir: home });
      try {
        const [row] = (await store.listSessions()).filter((s) => s.title === prompt);
        if (!row) return false;
        const t = await store.loadTranscript(row.id);
        return t?.toolCalls.some((c) => c.tool === 'shell' && c.status === 'running');
      } finally {
        await store.close();
      }
    },
    30_000,
    `the shell call of "${prompt}" to run`,
  );
}

describe.each([
  ['two workspaces', false],
  ['one workspace, twice', true],
])('two zuno runs at once: %s', (_name, sameWorkspace) => {
  it("stopping one run leaves the other's long shell call alone; each session's activities ran on its own run's worker", async () => {
    const { home, taskQueue } = makeHome({ address: temporal.address });
    const wsA = makeWorkspace();
    const wsB = sameWorkspace ? wsA : makeWorkspace();
    const longA = startRun(home, wsA, shellScript('sleep 6; echo A-done', 'A finished'), 'run A');
    const longB = startRun(home, wsB, shellScript('sleep 40; echo B-done', 'B finished'), 'run B');
    await shellRunning(home, 'run A');
    await shellRunning(home, 'run B');
    // Ctrl-C on B: B's own turn is interrupted, and B's process ends (its in-process worker with it).
    longB.child().kill('SIGINT');
    const b = await longB.done;
    expect(b.code, b.stderr).toBe(130);
    const a = await longA.done;
    expect({ code: a.code, out: a.stdout.trim() }, a.stderr).toEqual({ code: 0, out: 'A finished' });
    expect(a.stderr).toMatch(/✓ shell ok/);

    const idA = sessionOf(a);
    const idB = sessionOf(b);
    const store = await openProjectionStore({ zunoDir: home });
    try {
      const shellA = (await store.loadTranscript(idA))!.toolCalls.find((c) => c.tool === 'shell')!;
      expect({ outcome: shellA.outcome, output: shellA.output }).toMatchObject({ outcome: 'ok' });
      expect(shellA.output).toContain('A-done');
      const shellB = (await store.loadTranscript(idB))!.toolCalls.find((c) => c.tool === 'shell')!;
      expect(shellB.outcome).not.toBe('ok');
    } finally {
      await store.close();
    }

    const host = (process.env.ZUNO_HOST_ID ?? hostname()).replace(/[^A-Za-z0-9._-]/g, '-');
    for (const id of [idA, idB]) {
      const acts = await activitiesOf(id);
      // A fast turn's finishTurn runs as a local activity in the worker running the workflow task — when that
      // worker serves the session's route; the other run's worker refuses it and the regular one follows.
      const locals = (await activityRuns(temporal.client, `session/${id}`)).filter((r) => r.local && !r.failed);
      expect([...acts, ...locals].map((x) => x.type)).toEqual(
        expect.arrayContaining(['modelStep', 'tool_shell', 'finishTurn']),
      );
      const pid = /zuno run (\d+)@/.exec(acts[0]!.identity)?.[1];
      expect(pid, JSON.stringify(acts)).toBeDefined();
      for (const act of acts) {
        expect(act.taskQueue).toBe(`${taskQueue}/host/${host}/session/${id}`);
        expect(act.identity).toBe(`zuno run ${pid}@${host}`);
      }
      for (const local of locals) expect(local.ranBy, local.type).toBe(`zuno run ${pid}@${host}`);
      // The other run's worker never started one of this session's activities.
      const other = id === idA ? idB : idA;
      const otherPid = /zuno run (\d+)@/.exec((await activitiesOf(other))[0]!.identity)?.[1];
      expect(otherPid).not.toBe(pid);
    }
  }, 120_000);
});
