/**
 * The host worker service (issue 25 item 1, DESIGN.md §1): one long-lived
 * `zuno worker` per (host, Zuno home, Temporal target) serves every session,
 * Goal, Council, seat and delegated child of this host. Any command that
 * needs a worker starts it on demand, detached, and leaves it running — the
 * way the embedded dev server is started — so killing or closing the
 * command's terminal never strands its work. Starting takes a lock in the
 * home: any number of concurrent commands end with one service.
 */
import type { ErrorCode } from '../core/error-codes.js';
import { resolveDeployment } from './deployment/resolve.js';
import { workflowBuildId } from '../worker/build-id.js';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ZunoError } from '../core/errors.js';
import { pidAlive } from '../worker/dev-server.js';
import { withHomeLock } from '../worker/home-lock.js';
import { INSTALL_ROOT } from '../activities/infra/index.js';
import type { Notify, ZunoPaths } from './context.js';
import { readWorker, servesTarget, type WorkerRecord, type WorkerTarget } from './worker-registry.js';

/** How long a command waits for a service it started to poll, in ms (a cold start on a loaded 2-core machine took 34 s). */
export const SERVICE_READY_TIMEOUT_MS = 120_000;
/**
 * How often a command reads the record of a service it started until it polls, in ms. A start
 * takes seconds; reading one small file every 50 ms costs nothing, and the command goes on at most
 * 50 ms after the service is ready (the earlier backoff, capped at 250 ms, was up to 250 ms late).
 */
const READY_POLL_MS = 50;
/** A service log larger than this is moved to `worker.log.1` when a new service starts, in bytes. */
const LOG_ROTATE_BYTES = 20 * 1024 * 1024;

/** The service's log file in the home. */
export function serviceLogPath(stateDir: string): string {
  return join(stateDir, 'worker.log');
}

/** The lock taken while a service of `host` starts. */
function startLockPath(stateDir: string, host: string): string {
  return join(stateDir, `worker.${host}.start.lock`);
}

/**
 * Which projection this process writes, as a worker record names it
 * (client/deployment/identity.ts): `sqlite://<hostname><home>/zuno.db` or
 * `postgresql://<host>:<port>/<database>` (no user or password). A service
 * must write where the commands read.
 */
export function projectionId(paths: ZunoPaths): string {
  return resolveDeployment(paths).projection.id;
}

/** A record's projection against ours; a record from before issue 33 says just `sqlite` for the home's file. */
function sameProjection(recorded: string, ours: string): boolean {
  return recorded === ours || (recorded === 'sqlite' && ours.startsWith('sqlite://'));
}

/** What {@link ensureHostService} found or did. */
export interface HostService {
  record: WorkerRecord;
  /** true when this call started it. */
  started: boolean;
  /** The record of a service that had died, when this call replaced it. */
  replaced?: WorkerRecord;
}

/**
 * Issue 33: a live service of another build than this command's (Zuno was
 * upgraded while it ran) keeps serving — stopping it would cut running calls
 * short — and the command says how to move it to this build.
 */
function sayOtherBuild(rec: WorkerRecord, notify: Notify): void {
  if (!rec.service || rec.buildId === undefined) return;
  const mine = workflowBuildId();
  if (rec.buildId === mine) return;
  notify?.(
    `note: the host worker (pid ${rec.pid}) runs build ${rec.buildId}, this command is build ${mine}: ` +
      '`zuno worker stop` when its running calls may stop, and the next command starts this build (docs/versioning.md)',
  );
}

/** A live worker of `target.host` in this home that polls (started, not still starting), or null. */
export function liveWorker(stateDir: string, host: string): WorkerRecord | null {
  const rec = readWorker(stateDir, host);
  if (!rec || !pidAlive(rec.pid)) return null;
  // A `zuno worker` from before the service wrote no readyAtMs: it polls once it is recorded.
  return rec.readyAtMs !== undefined || rec.service !== true ? rec : null;
}

/**
 * Makes sure this host's worker serves `target` from this home: a live one
 * (a service, or a `zuno worker` in a terminal) is used as it is; otherwise
 * a service is started detached (`zuno worker run --service`, inheriting
 * this command's environment, logging to `worker.log`) under the home's
 * start lock, and this call waits until it polls. A service that had died is
 * replaced and `notify` says so.
 * @throws ZunoError `worker_target_mismatch` when the live worker of this host
 *   serves another Temporal target or projection (with the fix),
 *   `worker_failed` when the service exits while starting (with its log's
 *   tail) — or the service's own `host_claimed`, `projection_mismatch`,
 *   `deployment_conflict`, `deployment_unrecorded` — `worker_start_timeout`, `lock_timeout`.
 */
export async function ensureHostService(opts: {
  paths: ZunoPaths;
  target: WorkerTarget;
  notify: Notify;
  readyTimeoutMs?: number;
  /** `zuno worker start --take-over-host <id>`: the service it starts takes the host id over (issue 33). */
  takeOverHost?: string;
}): Promise<HostService> {
  const { paths, target } = opts;
  const found = usable(paths, target);
  if (found) {
    sayOtherBuild(found, opts.notify);
    return { record: found, started: false };
  }
  return withHomeLock(startLockPath(paths.stateDir, target.host), async () => {
    // Another command may have started it while this one waited for the lock.
    const now = usable(paths, target);
    if (now) return { record: now, started: false };
    const before = readWorker(paths.stateDir, target.host);
    const replaced = before && !pidAlive(before.pid) ? before : undefined;
    if (replaced) {
      opts.notify?.(
        `the host worker (pid ${replaced.pid}) had stopped${replaced.lastError ? ` — last logged: ${replaced.lastError.line}` : ''}; starting it again`,
      );
    }
    const record = await startService(
      paths,
      target,
      opts.readyTimeoutMs ?? SERVICE_READY_TIMEOUT_MS,
      opts.takeOverHost,
    );
    opts.notify?.(
      `started the host worker (pid ${record.pid}); it keeps serving this host's work — zuno worker status`,
    );
    return { record, started: true, ...(replaced ? { replaced } : {}) };
  });
}

/** The live, polling worker of the target's host when it serves the target; null when none runs. */
function usable(paths: ZunoPaths, target: WorkerTarget): WorkerRecord | null {
  const rec = liveWorker(paths.stateDir, target.host);
  if (!rec) return null;
  const projection = projectionId(paths);
  if (!servesTarget(rec, target) || (rec.projection !== undefined && !sameProjection(rec.projection, projection))) {
    throw new ZunoError(
      'worker_target_mismatch',
      `the worker of host ${target.host} in this home (pid ${rec.pid}) serves ${rec.address} (${rec.namespace}, task queue ${rec.taskQueue}${rec.projection ? `, projection ${rec.projection}` : ''}), ` +
        `not ${target.address} (${target.namespace}, task queue ${target.taskQueue}, projection ${projection}): stop it with \`zuno worker stop\` (or use another ZUNO_HOME)`,
    );
  }
  return rec;
}

/** Spawns the service detached and waits until its record says it polls. */
async function startService(
  paths: ZunoPaths,
  target: WorkerTarget,
  readyTimeoutMs: number,
  takeOverHost?: string,
): Promise<WorkerRecord> {
  const logPath = serviceLogPath(paths.stateDir);
  rotateLog(logPath);
  const logFd = openSync(logPath, 'a', 0o600);
  const child = spawn(
    process.execPath,
    [
      join(INSTALL_ROOT, 'bin', 'zuno.mjs'),
      'worker',
      'run',
      '--service',
      ...(takeOverHost !== undefined ? ['--take-over-host', takeOverHost] : []),
    ],
    {
      cwd: paths.stateDir,
      env: { ...process.env, ZUNO_HOME: paths.home, ZUNO_HOST_ID: target.host },
      detached: true,
      stdio: ['ignore', logFd, logFd],
    },
  );
  closeSync(logFd);
  let exited: number | null = null;
  child.once('exit', (code, signal) => (exited = code ?? (signal ? 128 : -1)));
  child.unref();
  const deadline = Date.now() + readyTimeoutMs;
  while (Date.now() < deadline && exited === null) {
    const rec = readWorker(paths.stateDir, target.host);
    if (rec !== null && rec.pid === child.pid && rec.readyAtMs !== undefined) return rec;
    await new Promise((r) => setTimeout(r, READY_POLL_MS));
  }
  if (exited === null) child.kill('SIGKILL');
  const refusal = exited !== null ? deploymentRefusal(logTail(logPath, 8)) : null;
  if (refusal) throw refusal;
  throw new ZunoError(
    exited !== null ? 'worker_failed' : 'worker_start_timeout',
    `the host worker ${exited !== null ? `exited with code ${exited} while starting` : `did not start polling within ${Math.round(readyTimeoutMs / 1000)} s`}; its log ${logPath} ends:\n${logTail(logPath, 8)}`,
  );
}

/** The deployment's refusals a service reports as its last word (issue 33): passed on with their own code. */
const DEPLOYMENT_REFUSALS = new Set([
  'host_claimed',
  'projection_mismatch',
  'deployment_conflict',
  'deployment_unrecorded',
]);

/** A deployment refusal in the service's log tail (`… zuno: host_claimed: …`) as the typed error; else null. */
function deploymentRefusal(tail: string): ZunoError | null {
  const lines = tail.split('\n').reverse();
  for (const line of lines) {
    const m = /zuno: ([a-z_]+): (.+)$/.exec(line);
    if (m && DEPLOYMENT_REFUSALS.has(m[1]!)) return new ZunoError(m[1] as ErrorCode, m[2]!);
  }
  return null;
}

/** Moves a large log aside before a new service appends to it. */
function rotateLog(logPath: string): void {
  try {
    if (statSync(logPath).size > LOG_ROTATE_BYTES) renameSync(logPath, `${logPath}.1`);
  } catch {
    // no log yet
  }
}

/** The last `lines` lines of a log file ('' when absent). */
export function logTail(logPath: string, lines: number): string {
  if (!existsSync(logPath)) return '';
  const text = readFileSync(logPath, 'utf8');
  return text
    .split('\n')
    .slice(-lines - 1)
    .join('\n')
    .trimEnd();
}

/**
 * Stops this host's worker of the home (SIGTERM: it finishes or cancels
 * its running activities and records nothing half-done; SIGKILL after
 * `graceMs`, default 30 000). Returns its record, or null when none ran.
 */
export async function stopHostService(stateDir: string, host: string, graceMs = 30_000): Promise<WorkerRecord | null> {
  const rec = readWorker(stateDir, host);
  if (!rec || !pidAlive(rec.pid)) return null;
  process.kill(rec.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && pidAlive(rec.pid)) await new Promise((r) => setTimeout(r, 100));
  if (pidAlive(rec.pid)) process.kill(rec.pid, 'SIGKILL');
  return rec;
}
