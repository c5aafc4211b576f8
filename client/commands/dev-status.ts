import { PACKAGE_ROOT, resolvePaths, type ZunoPaths } from '../context.js';
import { ZunoError } from '../../core/errors.js';
import { readDevServerState } from '../../worker/dev-server.js';
import { devServerOwnership } from '../../worker/dev-server-probe.js';
import { resolveDeployment } from '../deployment/resolve.js';
import { processSink } from '../render.js';
import type { Sink } from '../sink.js';

/** The external Temporal server this home uses (issue 33), as `dev status` reports it. */
export interface ExternalServerStatus {
  mode: 'external';
  address: string;
  namespace: string;
  /** What chose it (client/deployment/resolve.ts): `env TEMPORAL_ADDRESS`, a deployment file's path, or `temporal.yaml <path>`. */
  source: string;
  /** The temporal.yaml read (the installation's default when the home has none). */
  temporalYaml: string;
  /** Whether a health check answered within temporal.yaml `server.connectTimeoutMs`. */
  answers: boolean;
  /** Why it did not answer (the connect error's message). */
  error?: string;
  /** A dev server this home started earlier that still runs, unused while the external server is configured. */
  staleDevServer?: { pid: number; address: string };
}

/** The home's embedded dev server, as `dev status` reports it. */
export interface DevServerStatus {
  mode: 'dev';
  running: boolean;
  pid?: number;
  address?: string;
  uiUrl?: string;
  dbFile?: string;
  stateDir: string;
  installation: string;
}

/**
 * What `zuno dev status` reports: with `TEMPORAL_ADDRESS` set or temporal.yaml
 * `server.mode: external`, the external server (address, namespace, what set
 * it, whether it answers a short health check); else whether the dev server
 * recorded in the state dir is alive and still that server (its pid runs
 * `start-dev` on the recorded db file, per /proc/<pid>/cmdline where
 * available). Takes no lock and starts nothing.
 * @throws ZunoError `config_invalid` for a broken temporal.yaml or deployment file, `deployment_conflict`.
 */
export async function devStatus(paths: ZunoPaths): Promise<ExternalServerStatus | DevServerStatus> {
  const state = readDevServerState(paths.stateDir);
  const alive = state && ['ours', 'assumed'].includes(devServerOwnership(state.pid, state.dbFile)) ? state : null;
  const d = resolveDeployment(paths);
  if (d.address) {
    const address = d.address.value;
    const namespace = d.namespace.value;
    const probe = await answers(address, namespace, d.cfg.server.connectTimeoutMs);
    return {
      mode: 'external',
      address,
      namespace,
      source: d.address.source,
      temporalYaml: paths.temporalYaml,
      ...probe,
      ...(alive ? { staleDevServer: { pid: alive.pid, address: alive.address } } : {}),
    };
  }
  const base = { mode: 'dev' as const, stateDir: paths.stateDir, installation: PACKAGE_ROOT };
  if (!alive) return { ...base, running: false };
  const { pid, address, uiUrl, dbFile } = alive;
  return { ...base, running: true, pid, address, uiUrl, dbFile };
}

/** One health check of `address` (bounded by `timeoutMs`); the connection is closed at once. */
async function answers(
  address: string,
  namespace: string,
  timeoutMs: number,
): Promise<{ answers: boolean; error?: string }> {
  const { connectClient } = await import('../../worker/connection.js');
  try {
    const { connection } = await connectClient({ address, namespace, connectTimeoutMs: timeoutMs });
    await connection.close();
    return { answers: true };
  } catch (err) {
    if (err instanceof ZunoError && err.code === 'temporal_unreachable') return { answers: false, error: err.message };
    throw err;
  }
}

/**
 * `zuno dev status [--json]`: see {@link devStatus}. People read, for an
 * external server, `Zuno uses the external Temporal server <address>
 * (namespace <ns>; set by …): it answers` (or `it does not answer: <why>`)
 * and that this home manages no dev server; for the dev server, `running
 * pid …` or `not running (state dir …; installation …)`. `--json` prints the
 * status object. Exit 0 when the server Zuno would use is up (the external
 * one answers, the dev server runs), else 1.
 */
export async function devStatusCommand(opts: { json?: boolean } = {}, sink: Sink = processSink): Promise<number> {
  const s = await devStatus(resolvePaths());
  const up = s.mode === 'external' ? s.answers : s.running;
  if (opts.json) sink.out(`${JSON.stringify(s, null, 2)}\n`);
  else sink.out(devStatusText(s));
  return up ? 0 : 1;
}

/** The human lines of {@link devStatusCommand}. Pure. */
export function devStatusText(s: ExternalServerStatus | DevServerStatus): string {
  if (s.mode === 'dev') {
    return s.running
      ? `running pid ${s.pid} at ${s.address}, Web UI ${s.uiUrl}, db ${s.dbFile}\n`
      : `not running (state dir ${s.stateDir}; installation ${s.installation})\n`;
  }
  const by = s.source.startsWith('temporal.yaml ')
    ? `server.mode: external in ${s.temporalYaml}`
    : s.source.startsWith('env ')
      ? `set by ${s.source.slice(4)}`
      : `set by the deployment file ${s.source}`;
  const lines = [
    `Zuno uses the external Temporal server ${s.address} (namespace ${s.namespace}; ${by}): ` +
      (s.answers ? 'it answers' : `it does not answer: ${s.error ?? 'no reply'}`),
    'no dev server is managed by this home (zuno dev up starts none while the external server is configured)',
  ];
  if (s.staleDevServer) {
    lines.push(
      `a dev server this home started earlier still runs (pid ${s.staleDevServer.pid} at ${s.staleDevServer.address}), unused: zuno dev down stops it`,
    );
  }
  return `${lines.join('\n')}\n`;
}
