import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_URL } from '../projection/harness.js';
import { spawnWorker, waitFor, type WorkerProcess } from '../helpers/worker-process.js';
import {
  expectTypedFailure,
  makeWorkspace,
  parseNdjson,
  runZuno,
  tempDir,
  useTestTemporal,
  writeJson,
} from '../cli/helpers.js';

/**
 * Issue 33: two hosts on one machine — two host ids, two homes, one external
 * Temporal server (the suite's dev server), one PostgreSQL database (a schema
 * of its own) — joined by one shared deployment file.
 */
const t = useTestTemporal();
const schema = `zuno_2h_${randomBytes(5).toString('hex')}`;
const queue = `zuno-2h-${randomBytes(4).toString('hex')}`;
const workers: WorkerProcess[] = [];
let projectionUrl: string;
let projectionId: string;
let root: string;

/** A home joined to the shared deployment file as `host`. */
function joinedHome(name: string, host: string): string {
  const home = join(root, name);
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'deployment.yaml'), `extends: ../shared/deployment.yaml\nhost: ${host}\n`);
  return home;
}

/** Starts `zuno worker` in `home` and waits until it polls (or fails the test with its stderr). */
async function startWorker(home: string, env: NodeJS.ProcessEnv = {}, args: string[] = []): Promise<WorkerProcess> {
  const w = spawnWorker(home, { DATABASE_URL: '', ZUNO_HOST_ID: '', ...env }, args);
  workers.push(w);
  await waitFor(
    async () => {
      if (w.child.exitCode !== null) throw new Error(`worker in ${home} exited: ${w.stderr()}`);
      return /polling task queue/.test(w.stderr());
    },
    60_000,
    `the worker of ${home}`,
  );
  return w;
}

/** A scripted session in `ws` from `home` whose one tool call prints where it ran; returns its session id. */
async function runOn(home: string, ws: string): Promise<string> {
  const script = writeJson(ws, 'script.json', {
    replies: [
      { toolCalls: [{ name: 'shell', arguments: { command: 'echo "host=$ZUNO_HOST_ID" > where.txt' } }] },
      { text: 'ran here' },
    ],
  });
  const r = await runZuno(['run', 'where am I', '--dir', ws, '--script', script, '--json'], {
    home,
    env: { ZUNO_WORKER: 'service' },
  });
  expect(r.code, r.stderr).toBe(0);
  const last = parseNdjson(r.stdout).at(-1)!;
  expect(last).toMatchObject({ type: 'session.completed', text: 'ran here' });
  return last.sessionId as string;
}

/** The identities of the workers that started the activities of a session's workflow. */
async function activityIdentities(sessionId: string): Promise<Map<string, string[]>> {
  const history = await t.client.workflow.getHandle(`session/${sessionId}`).fetchHistory();
  const scheduled = new Map<string, string>();
  const byType = new Map<string, string[]>();
  for (const e of history.events ?? []) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(String(e.eventId), `${s.activityType?.name}@${s.taskQueue?.name}`);
    const st = e.activityTaskStartedEventAttributes;
    if (st) {
      const what = scheduled.get(String(st.scheduledEventId))!;
      byType.set(what, [...(byType.get(what) ?? []), st.identity ?? '']);
    }
  }
  return byType;
}

beforeAll(async () => {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  await c.query(`CREATE SCHEMA "${schema}"`);
  await c.end();
  const u = new URL(PG_URL);
  u.searchParams.set('schema', schema);
  projectionUrl = u.toString();
  projectionId = `postgresql://${u.hostname}:${u.port || '5432'}${u.pathname}?schema=${schema}`;
  root = tempDir('zuno-2h-');
  mkdirSync(join(root, 'shared'));
  writeFileSync(
    join(root, 'shared', 'deployment.yaml'),
    [
      'name: two-hosts',
      'temporal:',
      `  address: ${t.address}`,
      `  taskQueue: ${queue}`,
      `projection: ${projectionUrl}`,
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await c.end();
});

describe('two hosts, one deployment (issue 33)', () => {
  let homeA: string;
  let homeB: string;
  let workerA: WorkerProcess;

  it('the first worker records the projection and binds its host; zuno doctor says the host is ready', async () => {
    homeA = joinedHome('a', 'host-a');
    homeB = joinedHome('b', 'host-b');
    workerA = await startWorker(homeA, { ZUNO_HOST_RENEW_MS: '300' });
    expect(workerA.stderr()).toContain(`recorded projection ${projectionId} for task queue ${queue}`);
    expect(workerA.stderr()).toContain('host host-a is now bound to this machine and home');
    const b = await startWorker(homeB);
    expect(b.stderr()).not.toContain('recorded projection');
    const doctor = await runZuno(['doctor'], { home: homeA });
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    expect(doctor.stdout).toContain(`host id         host-a  (${join(homeA, 'deployment.yaml')})`);
    expect(doctor.stdout).toContain(`projection      ${projectionId}  (${join(root, 'shared', 'deployment.yaml')})`);
    expect(doctor.stdout).toMatch(
      /ok {4}deployment record {2}the deployment's projection is .*recorded by host host-a/,
    );
    expect(doctor.stdout).toMatch(
      /ok {4}host worker {8}running .* on the resolved target; build \S+, the current version/,
    );
    expect(doctor.stdout).toContain('this host is ready');
    const json = JSON.parse((await runZuno(['doctor', '--json'], { home: homeB })).stdout) as {
      ok: boolean;
      resolved: { host: { value: string } };
    };
    expect(json).toMatchObject({ ok: true, resolved: { host: { value: 'host-b' } } });
  });

  it("a worker whose projection is not the deployment's refuses to start, naming both", async () => {
    const homeC = tempDir('zuno-2h-c-');
    writeFileSync(
      join(homeC, 'temporal.yaml'),
      `server:\n  mode: external\n  address: ${t.address}\ntaskQueue: ${queue}\n`,
    );
    const r = await runZuno(['worker'], { home: homeC, env: { ZUNO_HOST_ID: 'host-c' } });
    const msg = expectTypedFailure(r, 'projection_mismatch');
    expect(msg).toContain(`records projection ${projectionId}`);
    expect(msg).toContain(`would use sqlite://`);
    expect(msg).toContain(join(homeC, 'zuno.db'));
    expect(existsSync(join(homeC, 'zuno.db'))).toBe(false);
    const ws = makeWorkspace();
    const script = writeJson(ws, 's.json', { replies: [{ text: 'x' }] });
    const run = await runZuno(['run', 'hi', '--dir', ws, '--script', script], {
      home: homeC,
      env: { ZUNO_HOST_ID: 'host-c' },
    });
    expect(expectTypedFailure(run, 'projection_mismatch')).toContain(`records projection ${projectionId}`);
    expect(existsSync(join(homeC, 'zuno.db'))).toBe(false);
    const doctor = await runZuno(['doctor'], { home: homeC, env: { ZUNO_HOST_ID: 'host-c' } });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/FAIL {2}deployment record {2}the deployment's projection is postgresql:/);
    expect(doctor.stdout).toContain('this host is not ready');
  });

  it('a second home claiming host-a is refused; an environment that contradicts the file is refused', async () => {
    const homeD = joinedHome('d', 'host-a');
    const r = await runZuno(['worker'], { home: homeD });
    const msg = expectTypedFailure(r, 'host_claimed');
    expect(msg).toContain(`host host-a is bound to machine`);
    expect(msg).toContain(`home ${homeA}`);
    expect(msg).toContain(`home ${homeD}`);
    expect(msg).toContain('zuno worker --take-over-host host-a');
    const run = await runZuno(
      ['run', 'hi', '--dir', makeWorkspace(), '--script', writeJson(homeD, 's.json', { replies: [{ text: 'x' }] })],
      {
        home: homeD,
      },
    );
    expect(expectTypedFailure(run, 'host_claimed')).toContain(`home ${homeA}`);
    const conflict = await runZuno(['run', 'hi', '--dir', makeWorkspace()], {
      home: homeA,
      env: { ZUNO_HOST_ID: 'host-b' },
    });
    expect(expectTypedFailure(conflict, 'deployment_conflict')).toContain(
      `ZUNO_HOST_ID=host-b in this environment, but the deployment file ${join(homeA, 'deployment.yaml')} says host-a`,
    );
  });

  it('sessions of both hosts run on their own hosts and are listed with their host from both', async () => {
    const wsA = makeWorkspace();
    const wsB = makeWorkspace();
    const [a, b] = await Promise.all([runOn(homeA, wsA), runOn(homeB, wsB)]);
    expect(readFileSync(join(wsA, 'where.txt'), 'utf8')).toBe('host=host-a\n');
    expect(readFileSync(join(wsB, 'where.txt'), 'utf8')).toBe('host=host-b\n');
    for (const [id, host] of [
      [a, 'host-a'],
      [b, 'host-b'],
    ] as const) {
      const ids = await activityIdentities(id);
      const shell = [...ids].filter(([k]) => k.startsWith('tool_shell@'));
      expect(shell.map(([k]) => k)).toEqual([`tool_shell@${queue}/host/${host}`]);
      for (const [, who] of ids) for (const w of who) expect(w).toMatch(new RegExp(`@${host}$`));
    }
    for (const home of [homeA, homeB]) {
      const table = (await runZuno(['session', 'list'], { home })).stdout.split('\n');
      expect(table[0]).toMatch(/^ID\s+STATUS\s+LAST ACTIVITY\s+MODEL\s+HOST\s+WORKSPACE/);
      expect(table.find((l) => l.startsWith(a))).toMatch(new RegExp(`\\shost-a\\s+${wsA}\\s`));
      expect(table.find((l) => l.startsWith(b))).toMatch(new RegExp(`\\shost-b\\s+${wsB}\\s`));
      const list = JSON.parse((await runZuno(['session', 'list', '--json'], { home })).stdout) as {
        id: string;
        host: string;
      }[];
      expect(
        list
          .filter((s) => s.id === a || s.id === b)
          .map((s) => [s.id, s.host])
          .sort(),
      ).toEqual(
        [
          [a, 'host-a'],
          [b, 'host-b'],
        ].sort(),
      );
    }
    // Each home continues its own session through the deployment's projection.
    const again = writeJson(wsA, 'again.json', { replies: [{ text: 'again here' }] });
    const cont = await runZuno(['run', 'and again', '--session', a, '--script', again], { home: homeA });
    expect({ code: cont.code, out: cont.stdout }, cont.stderr).toEqual({ code: 0, out: 'again here\n' });
  });

  it('a workspace gone from its host pauses the session workspace_unavailable; both hosts see it; resume finishes', async () => {
    const ws = tempDir('zuno-2h-ws-');
    writeFileSync(join(ws, 'a.txt'), 'alpha\n');
    writeFileSync(join(ws, 'zuno.json'), JSON.stringify({ sandbox: { mode: 'danger-full-access' } }));
    // The model's first command takes the directory away (an unmount, a deleted checkout), then it reads.
    const script = writeJson(root, 'gone.json', {
      replies: [
        {
          toolCalls: [
            { name: 'shell', arguments: { command: 'mv "$PWD" "$PWD.gone"' } },
            { name: 'read', arguments: { path: 'a.txt' } },
          ],
        },
      ],
    });
    const run = await runZuno(['run', 'read a.txt', '--script', script], {
      home: homeB,
      cwd: ws,
      env: { ZUNO_WORKER: 'service' },
    });
    expect(run.code, run.stderr).toBe(1);
    const id = /session (ses_[0-9a-z]+) paused/.exec(run.stderr)?.[1];
    expect(run.stderr).toContain(
      `zuno: workspace_unavailable: session ${id} paused: the workspace ${ws} does not exist on host host-b`,
    );
    for (const home of [homeA, homeB]) {
      const list = JSON.parse((await runZuno(['session', 'list', '--json'], { home })).stdout) as {
        id: string;
        status: string;
        host: string;
      }[];
      expect(list.find((s) => s.id === id)).toMatchObject({ status: 'paused', host: 'host-b' });
    }
    renameSync(`${ws}.gone`, ws);
    const after = writeJson(root, 'after.json', { replies: [{ text: 'It says alpha.' }] });
    const resumed = await runZuno(['session', 'resume', id!, '--script', after], {
      home: homeB,
      cwd: ws,
      env: { ZUNO_WORKER: 'service' },
    });
    expect({ code: resumed.code, out: resumed.stdout }, resumed.stderr).toEqual({ code: 0, out: 'It says alpha.\n' });
  });

  it("without a deployment file, a command whose host id is not the running worker's says so", async () => {
    const home = tempDir('zuno-2h-plain-');
    const q = `${queue}-plain`;
    writeFileSync(join(home, 'temporal.yaml'), `server:\n  mode: external\n  address: ${t.address}\ntaskQueue: ${q}\n`);
    await startWorker(home, { ZUNO_HOST_ID: 'host-x' });
    const ws = makeWorkspace();
    const script = writeJson(ws, 's.json', { replies: [{ text: 'done' }] });
    const r = await runZuno(['run', 'hi', '--dir', ws, '--script', script], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /note: this home's host worker serves host host-x, but this command is host \S+; .*ZUNO_HOST_ID=host-x/,
    );
  });

  it('zuno worker --take-over-host moves host-a here, recorded; the old worker stops', async () => {
    const homeE = joinedHome('e', 'host-a');
    const e = await startWorker(homeE, {}, ['--take-over-host', 'host-a']);
    expect(e.stderr()).toContain(`took host host-a over from`);
    expect(e.stderr()).toContain(`(home ${homeA})`);
    await waitFor(async () => workerA.child.exitCode !== null, 60_000, 'the taken-over worker to stop');
    expect(workerA.stderr()).toContain('host host-a was taken over by');
    const doctor = await runZuno(['doctor'], { home: homeA });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(
      /FAIL {2}host binding {7}host host-a was taken over from this home by .*\(home .*\/e\)/,
    );
  });
});
