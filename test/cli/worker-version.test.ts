/**
 * Issue 33 item 4: the host worker's build as a Worker Deployment Version,
 * through the CLI. `zuno worker status` (human and --json) names the build
 * id, the deployment and whether the server routes workflow tasks to it;
 * `zuno worker promote` makes a build current, and refuses, typed, a build no
 * worker runs.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pidAlive } from '../../worker/process-info.js';
import { liveStanding, versionStatusLine } from '../../client/worker-version.js';
import type { WorkerRecord } from '../../client/worker-registry.js';
import { freePort } from '../helpers/dev-server.js';
import { expectNoStackInAnyRun, makeHome, runZuno, useTestTemporal } from './helpers.js';

const temporal = useTestTemporal();
const SERVICE = { ZUNO_WORKER: 'service' };
let home = '';
let taskQueue = '';
beforeAll(() => {
  ({ home, taskQueue } = makeHome({ address: temporal.address, versioned: true }));
});

afterAll(async () => {
  await runZuno(['worker', 'stop'], { home, timeoutMs: 60_000 });
  try {
    const { pid } = JSON.parse(readFileSync(join(home, 'worker.json'), 'utf8')) as { pid: number };
    if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
  } catch {
    // stopped and unrecorded
  }
}, 120_000);

describe('zuno worker status and promote: the build as a deployment version (issue 33 item 4)', () => {
  let buildId = '';

  it('status names the build, its deployment (the task queue) and that it is current', async () => {
    const start = await runZuno(['worker', 'start', '--json'], { home, env: SERVICE, timeoutMs: 120_000 });
    expect(start.code, start.stderr).toBe(0);
    const status = await runZuno(['worker', 'status', '--json'], { home, env: SERVICE });
    expect(status.code, status.stderr).toBe(0);
    const json = JSON.parse(status.stdout) as { buildId: string; currentVersion: Record<string, unknown> };
    buildId = json.buildId;
    expect(buildId).toMatch(/^\d+\.\d+\.\d+\S*-[0-9a-f]{12}$/);
    expect(json.currentVersion).toMatchObject({
      buildId,
      deploymentName: taskQueue,
      current: true,
      currentBuildId: buildId,
    });
    const human = await runZuno(['worker', 'status'], { home, env: SERVICE });
    expect(human.stdout).toContain(`build ${buildId} of deployment ${taskQueue}: the current version`);
  }, 180_000);

  it('promote of the current build says so; promote of a build no worker runs is refused, typed, and changes nothing', async () => {
    const again = await runZuno(['worker', 'promote', '--json'], { home, env: SERVICE });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ buildId, deploymentName: taskQueue, outcome: 'already_current' });
    const other = await runZuno(['worker', 'promote', '--build-id', '0.0.0-000000000000'], { home, env: SERVICE });
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(
      /^zuno: version_not_registered: build 0\.0\.0-000000000000 of deployment \S+ has not registered/,
    );
    const status = await runZuno(['worker', 'status', '--json'], { home, env: SERVICE });
    expect(JSON.parse(status.stdout).currentVersion).toMatchObject({ current: true });
  }, 120_000);

  it('a command that finds the service on another build says how to move it to this one', async () => {
    const file = join(home, 'worker.json');
    const rec = JSON.parse(readFileSync(file, 'utf8')) as WorkerRecord;
    writeFileSync(file, JSON.stringify({ ...rec, buildId: '0.0.9-aaaaaaaaaaaa' }));
    try {
      const ws = mkdtempSync(join(tmpdir(), 'zuno-ver-ws-'));
      writeFileSync(join(ws, 's.json'), JSON.stringify({ replies: [{ text: 'ok' }] }));
      const r = await runZuno(['run', 'hi', '--dir', ws, '--script', join(ws, 's.json')], { home, env: SERVICE });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(
        `note: the host worker (pid ${rec.pid}) runs build 0.0.9-aaaaaaaaaaaa, this command is build ${buildId}: \`zuno worker stop\``,
      );
    } finally {
      writeFileSync(file, JSON.stringify(rec));
    }
  }, 120_000);

  it('the service logged where its build stands', async () => {
    const logs = await runZuno(['worker', 'logs'], { home, env: SERVICE });
    expect(logs.stdout).toContain(
      `build ${buildId} of deployment ${taskQueue} was new to the server and is now the current version`,
    );
  });

  it('status says unknown, with the reason, when the server does not answer', async () => {
    const rec = JSON.parse(readFileSync(join(home, 'worker.json'), 'utf8')) as WorkerRecord;
    const dead = { ...rec, address: `127.0.0.1:${await freePort()}` };
    const live = await liveStanding(dead);
    expect(live).toMatchObject({ current: null, currentBuildId: null });
    expect(live.error).toMatch(/cannot reach the Temporal server/);
    expect(versionStatusLine(dead, live)).toContain(
      `build ${buildId} of deployment ${taskQueue}: current version: unknown (`,
    );
  }, 30_000);

  it('no run printed an unexpected error or a stack', () => {
    expect(expectNoStackInAnyRun()).toBeGreaterThan(4);
  });
});
