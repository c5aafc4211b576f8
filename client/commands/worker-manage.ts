import { createReadStream, existsSync, statSync, watch } from 'node:fs';
import { join } from 'node:path';
import { INSTALL_ROOT } from '../../activities/infra/index.js';
import { pidAlive } from '../../worker/process-info.js';
import { connectTemporal, resolvePaths } from '../context.js';
import { ensureHostService, logTail, serviceLogPath, stopHostService } from '../host-service.js';
import { processSink } from '../render.js';
import type { Sink } from '../sink.js';
import { hostId } from '../routing.js';
import { readWorker, type WorkerRecord } from '../worker-registry.js';
import { liveStanding, versionStatusLine } from '../worker-version.js';

/**
 * `zuno worker start`: starts this host's worker service in the background
 * when it is not running (commands do the same when they need it) and
 * prints its status. Resolves to 0.
 * @throws what connecting to Temporal or starting the service throws.
 */
export async function workerStartCommand(
  opts: { json?: boolean; takeOverHost?: string },
  sink: Sink = processSink,
): Promise<number> {
  const paths = resolvePaths();
  const notify = opts.json ? null : (line: string) => sink.err(`${line}\n`);
  const temporal = await connectTemporal(paths, notify);
  try {
    const target = {
      address: temporal.address,
      namespace: temporal.namespace,
      taskQueue: temporal.baseQueue,
      host: hostId(),
    };
    const svc = await ensureHostService({
      paths,
      target,
      notify,
      ...(opts.takeOverHost !== undefined ? { takeOverHost: opts.takeOverHost } : {}),
    });
    if (!svc.started) notify?.(`the host worker is already running (pid ${svc.record.pid})`);
    return await printStatus(readWorker(paths.stateDir, target.host) ?? svc.record, opts, sink);
  } finally {
    await temporal.connection.close();
  }
}

/**
 * `zuno worker stop`: stops this host's worker of this home (SIGTERM; its
 * running activities get up to 30 s, then SIGKILL). Work it served waits in
 * Temporal and goes on when a worker runs again (the next command starts one).
 * Resolves to 0 (stopped, or none was running).
 */
export async function workerStopCommand(opts: { json?: boolean }, sink: Sink = processSink): Promise<number> {
  const paths = resolvePaths();
  const rec = await stopHostService(paths.stateDir, hostId());
  if (opts.json) sink.out(`${JSON.stringify({ stopped: rec !== null, pid: rec?.pid ?? null })}\n`);
  else
    sink.out(
      rec
        ? `stopped the host worker (pid ${rec.pid}); its work waits in Temporal until a worker runs again\n`
        : 'no host worker was running\n',
    );
  return 0;
}

/**
 * `zuno worker status`: this host's worker of this home from its record —
 * pid, since, version, Temporal target, queues (adopted ones too),
 * projection, its build and whether the server routes workflow tasks to that
 * build (the deployment's current version; unknown when the server does not
 * answer), sessions served, key variables it has, last warning or error, log.
 * Resolves to 0 when it runs, 3 when it does not (as `systemctl status` does).
 */
export async function workerStatusCommand(opts: { json?: boolean }, sink: Sink = processSink): Promise<number> {
  const paths = resolvePaths();
  const rec = readWorker(paths.stateDir, hostId());
  if (!rec || !pidAlive(rec.pid)) {
    if (opts.json)
      sink.out(`${JSON.stringify({ running: false, host: hostId(), lastRecord: rec ?? null }, null, 2)}\n`);
    else
      sink.out(
        `the host worker of ${hostId()} is not running${rec ? ` (pid ${rec.pid} was recorded; it has stopped${rec.lastError ? ` — last logged: ${rec.lastError.line}` : ''})` : ''}; the next command that needs it starts it (or: zuno worker start)\n`,
      );
    return 3;
  }
  return printStatus(rec, opts, sink);
}

async function printStatus(rec: WorkerRecord, opts: { json?: boolean }, sink: Sink): Promise<number> {
  const live = await liveStanding(rec);
  if (opts.json) {
    const version = { buildId: rec.buildId ?? null, deploymentName: rec.deploymentName ?? null, ...live };
    sink.out(`${JSON.stringify({ running: true, ...rec, currentVersion: version }, null, 2)}\n`);
    return 0;
  }
  const since = new Date(rec.startedAtMs).toISOString().replace('T', ' ').slice(0, 19);
  const lines = [
    `host worker of ${rec.host ?? hostId()}: ${rec.readyAtMs !== undefined || !rec.service ? 'running' : 'starting'} (pid ${rec.pid}${rec.service ? ', service' : ', in the foreground'}) since ${since} UTC (${ago(rec.startedAtMs)})`,
    `  version ${rec.version ?? '?'} · Temporal ${rec.address} (namespace ${rec.namespace}) · projection ${rec.projection ?? '?'}`,
    versionStatusLine(rec, live),
    `  queues: ${rec.taskQueue} (workflows), ${rec.activityTaskQueue ?? '?'} (this host's activities)${rec.adoptedQueues?.length ? `; serving for ended commands: ${rec.adoptedQueues.join(', ')}` : ''}`,
    `  sessions served: ${rec.sessionsServed ?? 0} · provider keys: ${rec.keyNames?.length ? rec.keyNames.join(', ') : 'none in its environment'} (and those stored by commands)`,
    `  last warning or error: ${rec.lastError ? `${rec.lastError.line} (${ago(rec.lastError.atMs)})` : 'none'}`,
    ...(rec.logPath ? [`  log: ${rec.logPath} (zuno worker logs)`] : []),
  ];
  sink.out(`${lines.join('\n')}\n`);
  return 0;
}

/** `3 min ago`-style age of a time in ms. */
function ago(atMs: number): string {
  const s = Math.max(0, Math.round((Date.now() - atMs) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  return `${(s / 3600).toFixed(1)} h ago`;
}

/**
 * `zuno worker logs [-n N] [-f]`: the last N lines (default 50) of the host
 * worker service's log; with `--follow`, keeps printing what it appends
 * until Ctrl-C. Resolves to 0, or 1 when there is no log yet.
 */
export async function workerLogsCommand(
  opts: { lines?: number; follow?: boolean },
  sink: Sink = processSink,
): Promise<number> {
  const paths = resolvePaths();
  const path = serviceLogPath(paths.stateDir);
  if (!existsSync(path)) {
    sink.err(`no worker log yet (${path}): the host worker service has not run in this home\n`);
    return 1;
  }
  const tail = logTail(path, opts.lines ?? 50);
  if (tail !== '') sink.out(`${tail}\n`);
  if (!opts.follow) return 0;
  let offset = statSync(path).size;
  await new Promise<void>((resolve) => {
    const watcher = watch(path, () => {
      const size = statSync(path).size;
      if (size < offset) offset = 0; // rotated
      if (size === offset) return;
      createReadStream(path, { start: offset, end: size - 1, encoding: 'utf8' }).on('data', (d) => sink.out(String(d)));
      offset = size;
    });
    process.once('SIGINT', () => {
      watcher.close();
      resolve();
    });
  });
  return 0;
}

/**
 * `zuno worker unit`: prints a systemd user unit that runs this home's host
 * worker at login (and at boot with `loginctl enable-linger`), restarting
 * it when it fails. The unit runs the worker in the foreground; commands
 * find it through its record as they find the service they start.
 */
export function workerUnitCommand(sink: Sink = processSink): number {
  const paths = resolvePaths();
  const bin = join(INSTALL_ROOT, 'bin', 'zuno.mjs');
  const env = [
    'ZUNO_HOME',
    'ZUNO_HOST_ID',
    'TEMPORAL_ADDRESS',
    'TEMPORAL_NAMESPACE',
    'DATABASE_URL',
    'ZUNO_TEMPORAL_CONFIG',
    'ZUNO_DEPLOYMENT',
  ]
    .filter((k) => k === 'ZUNO_HOME' || process.env[k])
    .map((k) => `Environment=${k}=${k === 'ZUNO_HOME' ? paths.home : process.env[k]}`);
  sink.out(
    [
      '# ~/.config/systemd/user/zuno-worker.service — then:',
      '#   systemctl --user daemon-reload && systemctl --user enable --now zuno-worker',
      '#   loginctl enable-linger "$USER"   # keep it running without a login session (reboots too)',
      '# Provider keys: commands store the keys they are given in $ZUNO_HOME/credentials.json (mode 0600),',
      '# which the worker reads before each model call; or add them with EnvironmentFile=%h/.config/zuno/keys.env',
      "# A deployment file's ${NAME} (e.g. the database password in projection:) must be in that file too.",
      '[Unit]',
      `Description=Zuno host worker (home ${paths.home})`,
      'After=network-online.target',
      '',
      '[Service]',
      'Type=simple',
      ...env,
      `ExecStart=${process.execPath} ${bin} worker run`,
      'Restart=on-failure',
      'RestartSec=5',
      'KillSignal=SIGTERM',
      'TimeoutStopSec=40',
      '',
      '[Install]',
      'WantedBy=default.target',
      '',
    ].join('\n'),
  );
  return 0;
}
