/**
 * Sessions people can live in: one ZUNO_HOME seen from any directory —
 * `zuno run` from directory A, then `session list`, `session show`,
 * `run --continue` and `run --session` from directory B; a session paused
 * by a missing API key resumes in place once the key is set; and the bad
 * inputs of these commands are typed one-line errors that write nothing.
 * Real launcher, real Temporal (global setup), real local provider over HTTP.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startLocalProvider } from '../../local-provider/server.js';
import { spawnWorker, waitFor } from '../helpers/worker-process.js';
import {
  expectTypedFailure,
  makeHome,
  runZuno,
  tempDir,
  writeJson,
  writeTree,
  type ZunoResult,
  useTestTemporal,
} from './helpers.js';

const temporal = useTestTemporal();

const PATCH = '*** Begin Patch\n*** Update File: notes.txt\n@@\n-draft one\n+final one\n*** End Patch';

function sessionOf(r: ZunoResult): string {
  const m = /(ses_[0-9a-z]+)/.exec(r.stderr);
  if (!m) throw new Error(`no session id in: ${r.stderr}`);
  return m[1]!;
}

describe('one home, any directory: run → list → show → continue → --session', () => {
  it("continues a session from another directory; turn 2's apply_patch uses the read credential of turn 1", async () => {
    const { home } = makeHome({ address: temporal.address });
    const dirA = tempDir('zuno-life-a-');
    const dirB = tempDir('zuno-life-b-');
    writeTree(dirA, { 'notes.txt': 'draft one\n' });
    const scripts = tempDir('zuno-life-scripts-');
    const readScript = writeJson(scripts, 'read.json', {
      replies: [{ toolCalls: [{ name: 'read', arguments: { path: 'notes.txt' } }] }, { text: 'It says draft one.' }],
    });
    const askScript = writeJson(scripts, 'ask.json', { replies: [{ text: 'You asked about notes.txt.' }] });
    const patchScript = writeJson(scripts, 'patch.json', {
      replies: [{ toolCalls: [{ name: 'apply_patch', arguments: { patch: PATCH } }] }, { text: 'Done: final one.' }],
    });

    const first = await runZuno(['run', 'What does notes.txt say?', '--script', readScript], { home, cwd: dirA });
    expect({ code: first.code, out: first.stdout }, first.stderr).toEqual({ code: 0, out: 'It says draft one.\n' });
    const id = sessionOf(first);

    // From B: the same home lists and shows the session started in A.
    const list = await runZuno(['session', 'list'], { home, cwd: dirB });
    expect(list.code, list.stderr).toBe(0);
    const line = list.stdout.split('\n').find((l) => l.startsWith(id))!;
    expect(line).toMatch(/completed/);
    expect(line).toContain(dirA);
    expect(line).toContain('What does notes.txt say?');
    const json = JSON.parse((await runZuno(['session', 'list', '--json', '--dir', dirA], { home, cwd: dirB })).stdout);
    expect(json).toEqual([expect.objectContaining({ id, status: 'completed', workspace: dirA })]);
    const show = await runZuno(['session', 'show', id], { home, cwd: dirB });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('draft one');

    // --continue picks the newest session of the named workspace.
    const cont = await runZuno(['run', '--continue', '--dir', dirA, 'And what did I ask?', '--script', askScript], {
      home,
      cwd: dirB,
    });
    expect({ code: cont.code, out: cont.stdout }, cont.stderr).toEqual({
      code: 0,
      out: 'You asked about notes.txt.\n',
    });
    expect(cont.stderr).toContain(`continuing session ${id}`);

    // --session from B: the patch on the file read two turns ago is applied (the read credential carried on).
    const patched = await runZuno(['run', '--session', id, 'Make it final.', '--script', patchScript], {
      home,
      cwd: dirB,
    });
    expect({ code: patched.code, out: patched.stdout }, patched.stderr).toEqual({ code: 0, out: 'Done: final one.\n' });
    expect(patched.stderr).toMatch(/✓ apply_patch ok/);
    expect(readFileSync(join(dirA, 'notes.txt'), 'utf8')).toBe('final one\n');

    const after = JSON.parse((await runZuno(['session', 'show', id, '--json'], { home, cwd: dirB })).stdout);
    expect(after.session.id).toBe(id);
    expect(after.inputs.map((i: { text: string }) => i.text)).toEqual([
      'What does notes.txt say?',
      'And what did I ask?',
      'Make it final.',
    ]);
    expect(new Set(after.messages.map((m: { turn: number }) => m.turn))).toEqual(new Set([0, 1, 2]));
    // One session id; each continuation is a new run of the same workflow id.
    const runs = [];
    for await (const w of temporal.client.workflow.list({ query: `WorkflowId = 'session/${id}'` }))
      runs.push(w.status.name);
    expect(runs).toHaveLength(3);
  }, 120_000);
});

describe('a paused session resumes in place', () => {
  it('a missing API key pauses the session; after the key is set, session resume completes it in the same workflow run', async () => {
    const { home } = makeHome({ address: temporal.address });
    const ws = tempDir('zuno-resume-ws-');
    const provider = await startLocalProvider({ script: { replies: [{ text: 'Resumed and answered.' }] } });
    try {
      writeFileSync(
        join(ws, 'zuno.json'),
        JSON.stringify({
          model: 'keyed/test-model',
          providers: { keyed: { base_url: provider.url, transport: 'openai', api_key_env: 'ZUNO_TEST_RESUME_KEY' } },
        }),
      );
      // A standalone worker without the key serves the session: the model step fails auth and the turn pauses.
      const worker = spawnWorker(home, { ZUNO_TEST_RESUME_KEY: '' });
      let paused: ZunoResult;
      try {
        await waitFor(async () => readWorkerRecord(home), 30_000, 'the standalone worker to register');
        paused = await runZuno(['run', 'Say something.'], { home, cwd: ws });
      } finally {
        // Killed (SIGKILL) while the session waits paused: the wait is the workflow's, not the worker's.
        await worker.crash();
      }
      expect(paused.code, paused.stderr).toBe(1);
      const id = sessionOf(paused);
      expect(paused.stderr).toMatch(/zuno: provider_auth: session ses_[0-9a-z]+ paused: .*ZUNO_TEST_RESUME_KEY/);
      expect(paused.stderr).toContain(`zuno session resume ${id}`);
      expect(provider.requests).toHaveLength(0);
      const listed = JSON.parse((await runZuno(['session', 'list', '--json', '--status', 'paused'], { home })).stdout);
      expect(listed.map((s: { id: string }) => s.id)).toEqual([id]);

      // New input is refused while it is paused, and the session stays as it was.
      expectTypedFailure(
        await runZuno(['run', '--session', id, 'more'], { home, cwd: ws, env: { ZUNO_TEST_RESUME_KEY: 'k' } }),
        'session_paused',
      );
      expect(JSON.parse((await runZuno(['session', 'list', '--json'], { home })).stdout)[0].status).toBe('paused');
      // Still missing: a typed error, nothing resumed.
      expectTypedFailure(await runZuno(['session', 'resume', id], { home, cwd: ws }), 'api_key_missing');

      const resumed = await runZuno(['session', 'resume', id], {
        home,
        cwd: ws,
        env: { ZUNO_TEST_RESUME_KEY: 'k-123' },
      });
      expect({ code: resumed.code, out: resumed.stdout }, resumed.stderr).toEqual({
        code: 0,
        out: 'Resumed and answered.\n',
      });
      expect(provider.requests).toHaveLength(1);
      const runs = [];
      for await (const w of temporal.client.workflow.list({ query: `WorkflowId = 'session/${id}'` }))
        runs.push(w.status.name);
      expect(runs).toEqual(['COMPLETED']);
      const show = JSON.parse((await runZuno(['session', 'show', id, '--json'], { home })).stdout);
      expect(show.session.status).toBe('completed');
      expect(show.inputs.map((i: { state: string }) => i.state)).toEqual(['completed']);

      // Resuming it again: it is completed, not paused.
      const again = expectTypedFailure(
        await runZuno(['session', 'resume', id], { home, cwd: ws }),
        'session_not_paused',
      );
      expect(again).toContain('completed');
    } finally {
      await provider.close();
    }
  }, 120_000);
});

function readWorkerRecord(home: string): boolean {
  try {
    return JSON.parse(readFileSync(join(home, 'worker.json'), 'utf8')).pid > 0;
  } catch {
    return false;
  }
}

describe('--no-worker with nobody serving the session', () => {
  it('waits and says so (session show names the host and task queue); Ctrl-C leaves it waiting; a worker started later serves it, scripted model included', async () => {
    const { home, taskQueue } = makeHome({ address: temporal.address });
    const ws = tempDir('zuno-noworker-ws-');
    const script = writeJson(tempDir('zuno-noworker-s-'), 's.json', { replies: [{ text: 'served later' }] });
    let child: import('node:child_process').ChildProcess | undefined;
    const running = runZuno(['run', '--no-worker', 'wait for me', '--script', script], {
      home,
      cwd: ws,
      onSpawn: (c) => (child = c),
    });
    const id = await waitFor(
      async () => {
        const r = await runZuno(['session', 'list', '--json'], { home });
        return r.code === 0 ? (JSON.parse(r.stdout)[0]?.id as string | undefined) : undefined;
      },
      30_000,
      'the session to be listed',
    );
    await new Promise((r) => setTimeout(r, 11_000));
    const show = await runZuno(['session', 'show', id], { home });
    expect(show.stdout).toMatch(
      new RegExp(
        `waiting for a worker: no worker has run the session's workflow for \\d+ s \\(task queue ${taskQueue}\\)`,
      ),
    );
    expect(show.stdout).toContain('start it with `zuno worker start` on');
    // It is running (waiting), not paused: nothing to resume.
    const resume = expectTypedFailure(await runZuno(['session', 'resume', id], { home }), 'session_not_paused');
    expect(resume).toContain('running');
    child!.kill('SIGINT');
    const r = await running;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toContain(`--no-worker: session ${id} waits for a \`zuno worker\` on host`);
    expect(r.stderr).toContain(`zuno session follow ${id}`);
    // Nothing ended it: its script lives in the home, so the host worker a later command starts serves it to an
    // honest end (completed, or interrupted when the Ctrl-C's interrupt reaches it first) — never left running.
    const service = { ZUNO_WORKER: 'service' };
    try {
      const follow = await runZuno(['session', 'follow', id], { home, env: service, timeoutMs: 120_000 });
      expect([0, 130], follow.stderr).toContain(follow.code);
      if (follow.code === 0) expect(follow.stdout).toContain('served later');
      expect((await temporal.client.workflow.getHandle(`session/${id}`).describe()).status.name).not.toBe('RUNNING');
    } finally {
      await runZuno(['worker', 'stop'], { home, env: service, timeoutMs: 60_000 });
    }
  }, 240_000);
});

describe('bad input to the session commands: one typed line, nothing written', () => {
  it('--session unknown or malformed, --continue with no session here, both at once', async () => {
    const { home } = makeHome({ address: temporal.address });
    const ws = tempDir('zuno-bad-ws-');
    const script = writeJson(tempDir('zuno-bad-s-'), 's.json', { replies: [{ text: 'x' }] });
    const malformed = expectTypedFailure(
      await runZuno(['run', '--session', 'nope', 'hi', '--script', script], { home, cwd: ws }),
      'session_id_invalid',
    );
    expect(malformed).toContain('nope');
    const unknown = expectTypedFailure(
      await runZuno(['run', '--session', 'ses_doesnotexist', 'hi', '--script', script], { home, cwd: ws }),
      'session_not_found',
    );
    expect(unknown).toContain('ses_doesnotexist');
    const none = expectTypedFailure(
      await runZuno(['run', '--continue', 'hi', '--script', script], { home, cwd: ws }),
      'session_not_found',
    );
    expect(none).toContain(ws);
    expectTypedFailure(
      await runZuno(['run', '--continue', '--session', 'ses_x', 'hi', '--script', script], { home, cwd: ws }),
      'options_conflict',
    );
    expectTypedFailure(
      await runZuno(['session', 'resume', 'ses_doesnotexist'], { home, cwd: ws }),
      'session_not_found',
    );
    expectTypedFailure(await runZuno(['session', 'list', '--status', 'sleeping'], { home }), 'input_rejected');
    // Nothing was started: no session anywhere.
    expect(JSON.parse((await runZuno(['session', 'list', '--json'], { home })).stdout)).toEqual([]);
  }, 60_000);

  it('a ZUNO_HOME that cannot be written is named', async () => {
    const parentFile = join(tempDir('zuno-bad-home-'), 'a-file');
    writeFileSync(parentFile, 'not a directory');
    const r = await runZuno(['session', 'list'], {
      home: tempDir('zuno-cwd-'),
      env: { ZUNO_HOME: join(parentFile, 'home') },
    });
    const message = expectTypedFailure(r, 'zuno_home_unwritable');
    expect(message).toContain(join(parentFile, 'home'));
    // Under /proc every mkdir answers ENOENT (Node's recursive mkdir would spin there forever).
    const proc = await runZuno(['session', 'list'], {
      home: tempDir('zuno-cwd-'),
      env: { ZUNO_HOME: '/proc/zuno-home' },
      timeoutMs: 20_000,
    });
    expect(proc.timedOut).toBe(false);
    expect(expectTypedFailure(proc, 'zuno_home_unwritable')).toContain('/proc/zuno-home');
  });
});
