/**
 * Who serves the work a command starts (issue 25 item 1). By default the
 * host worker service (`host-service.ts`): the command is a client that
 * starts work, follows it and renders it, and ending it — Ctrl-C, a closed
 * terminal, `kill -9` — leaves the work running. `--in-process` (or
 * `ZUNO_WORKER=in-process`) keeps the older shape, a worker inside the
 * command on a route of its own, for tests and debugging; the host worker
 * adopts such a route when its command dies (`route-adoption.ts`).
 * `--no-worker` starts none and relies on a worker already running.
 */
import { resolveDeployment } from './deployment/resolve.js';
import { refuseClaimedHost } from './deployment/host-claim.js';
import type { McpSessionConfig } from '../core/mcp/types.js';
import type { ProviderConfig } from '../core/provider-config.js';
import type { SessionRoute } from '../core/session/meta.js';
import { ZunoError } from '../core/errors.js';
import type { ProjectionStore } from '../activities/projection/index.js';
import { readCredentials, storeCredential } from '../activities/infra/index.js';
import type { Notify, TemporalContext, ZunoPaths } from './context.js';
import { ensureHostService, liveWorker } from './host-service.js';
import { mcpTemplateVariables } from './mcp-config.js';
import { hostId, routeFor } from './routing.js';
import { serveInProcess, standaloneServes } from './serve.js';
import { liveWorkersOfHome, readWorker, standaloneWorkerRunning, type WorkerTarget } from './worker-registry.js';
import { pidAlive } from '../worker/process-info.js';

/** How a command's work is served: the host worker service, a worker inside the command, or a worker already running. */
export type WorkerMode = 'service' | 'in-process' | 'none';

/**
 * The worker mode of a command: `--no-worker` → `none`; `--in-process` or
 * `ZUNO_WORKER=in-process` → `in-process`; otherwise `service`.
 * @throws ZunoError `config_invalid` for another ZUNO_WORKER value.
 */
export function workerMode(opts: { worker?: boolean; inProcess?: boolean } = {}): WorkerMode {
  if (opts.worker === false) return 'none';
  if (opts.inProcess === true) return 'in-process';
  const env = process.env.ZUNO_WORKER;
  if (env === undefined || env === '' || env === 'service') return 'service';
  if (env === 'in-process') return 'in-process';
  throw new ZunoError('config_invalid', `ZUNO_WORKER "${env.slice(0, 40)}" must be "service" or "in-process"`);
}

/** How one command's work is served. */
export interface Serving {
  /** The route its activities run on. */
  route: SessionRoute;
  /** true when a worker inside this command serves it (it stops with the command). */
  servedHere: boolean;
  /** Stops what this command started for it (nothing for the service, which keeps running). */
  stop(): Promise<void>;
}

/**
 * Serves the work `id` (a session id, a Council run id) that this command
 * starts or resumes, as {@link workerMode} says: the host worker service is
 * started when it is not running (its route `<base>/host/<host>`), and the
 * provider's key, when set in this command's environment, is stored for it
 * (`activities/infra/credentials.ts`), with the variables the session's MCP templates
 * reference ({@link shareMcpVariables}); in-process, a worker of this command serves a
 * route of its own unless a live worker of this host already serves the
 * host's route; with no worker, the host's route is used and `notify` says
 * when nothing serves it yet.
 * @throws ZunoError `host_claimed` when this host id is bound to another machine or home; what starting the
 *   service or the in-process worker throws.
 */
export async function serveWork(opts: {
  paths: ZunoPaths;
  temporal: TemporalContext;
  store: ProjectionStore;
  baseQueue: string;
  id: string;
  /** What the work is, in plain words (default `session <id>`). */
  label?: string;
  command: string;
  mode: WorkerMode;
  provider: ProviderConfig;
  /** The session's MCP config: the variables its templates reference are handed to the service too. */
  mcp?: McpSessionConfig;
  notify: Notify;
}): Promise<Serving> {
  const none = async () => undefined;
  const target = {
    address: opts.temporal.address,
    namespace: opts.temporal.namespace,
    taskQueue: opts.baseQueue,
    host: hostId(),
  };
  await refuseClaimedHost(opts.store, opts.paths.home, target.host);
  sayOtherHostWorker(opts.paths.stateDir, target, opts.notify);
  if (opts.mode === 'service') {
    shareProviderKey(opts.paths.stateDir, opts.provider);
    shareMcpVariables(opts.paths.stateDir, opts.mcp);
    await ensureHostService({ paths: opts.paths, target, notify: opts.notify });
    return { route: routeFor(opts.baseQueue, opts.id, true), servedHere: false, stop: none };
  }
  const standalone = standaloneServes(opts.paths, opts.temporal, opts.baseQueue);
  const route = routeFor(opts.baseQueue, opts.id, standalone || opts.mode === 'none');
  if (opts.mode === 'in-process' && !standalone) {
    const stop = await serveInProcess({ ...opts, route });
    return { route, servedHere: true, stop };
  }
  if (opts.mode === 'none' && !standalone) {
    opts.notify?.(
      `--no-worker: ${opts.label ?? `session ${opts.id}`} waits for a \`zuno worker\` on host ${route.host} (task queue ${route.taskQueue}) at ${opts.temporal.address}`,
    );
  }
  return { route, servedHere: false, stop: none };
}

/**
 * Issue 33: a command whose host id is not the one this home's running host
 * worker serves says so once (e.g. a shell without the `ZUNO_HOST_ID` the
 * worker was started with) — its work would otherwise silently go to a second
 * worker under another host id. Only when no worker of its own host runs here.
 */
function sayOtherHostWorker(stateDir: string, target: WorkerTarget, notify: Notify): void {
  if (liveWorker(stateDir, target.host)) return;
  const others = liveWorkersOfHome(stateDir).filter(
    (r) => r.host !== undefined && r.host !== target.host && r.taskQueue === target.taskQueue,
  );
  if (others.length === 0) return;
  const names = others.map((r) => r.host).join(', ');
  notify?.(
    `note: this home's host worker serves host ${names}, but this command is host ${target.host}; its work goes to a worker for ${target.host} — set ZUNO_HOST_ID=${others[0]!.host} (or host: in $ZUNO_HOME/deployment.yaml) to use the running one`,
  );
}

/**
 * Serves work that is already open on `route` (a running session this
 * command sends input to or resumes): the service is started when it is not
 * running (it serves the host's route, and adopts a per-process route whose
 * command is gone); in process, this command serves the route when it is a
 * per-process route of this host (a `zuno run` that ended left it); with no
 * worker, nothing. `route` undefined: a session from before routing.
 * @throws what starting the service or the in-process worker throws.
 */
export async function serveOpenWork(opts: {
  paths: ZunoPaths;
  temporal: TemporalContext;
  store: ProjectionStore;
  baseQueue: string;
  command: string;
  mode: WorkerMode;
  /** The provider it will call (its key is handed to the service); absent for a command that only follows. */
  provider?: ProviderConfig;
  /** The session's MCP config (its template variables are handed to the service). */
  mcp?: McpSessionConfig;
  notify: Notify;
  route: SessionRoute | undefined;
}): Promise<Omit<Serving, 'route'> & { route: SessionRoute | undefined }> {
  const none = async () => undefined;
  const { route } = opts;
  if (opts.mode === 'service') {
    if (opts.provider) shareProviderKey(opts.paths.stateDir, opts.provider);
    shareMcpVariables(opts.paths.stateDir, opts.mcp);
    const target = {
      address: opts.temporal.address,
      namespace: opts.temporal.namespace,
      taskQueue: opts.baseQueue,
      host: hostId(),
    };
    if (!route || route.host === target.host)
      await ensureHostService({ paths: opts.paths, target, notify: opts.notify });
    return { route, servedHere: false, stop: none };
  }
  if (opts.mode === 'in-process' && route && route.servedBy === 'run' && route.host === hostId()) {
    const stop = await serveInProcess({ ...opts, route });
    return { route, servedHere: true, stop };
  }
  return { route, servedHere: false, stop: none };
}

/** Stores the provider's key from this command's environment for the host worker service, when it is set here. */
export function shareProviderKey(stateDir: string, provider: ProviderConfig): void {
  const name = provider.apiKeyEnv;
  const value = name ? process.env[name] : undefined;
  if (name && value && value.trim() !== '') storeCredential(stateDir, name, value);
}

/**
 * Variables a template may reference but that are never copied to the
 * service: they describe this command's own process (its PATH, home,
 * shell, Node and loader settings, Zuno's and Temporal's own settings), and
 * the service keeps its own.
 */
const NEVER_SHARED =
  /^(PATH|HOME|USER|LOGNAME|SHELL|PWD|OLDPWD|TMPDIR|TEMP|TMP|LANG|TERM|DATABASE_URL|(ZUNO|TEMPORAL|NODE|NPM|LD|DYLD|LC)_.*)$/i;

/**
 * Issue 30: stores, for the host worker service, every variable the
 * session's MCP `env`/`headers` templates reference (`${NAME}`) that is set
 * in this command's environment — as {@link shareProviderKey} stores the
 * provider's key — so a server started by the long-lived service sees the
 * token the command was given. Values never reach workflow history; names
 * of this process's own settings ({@link NEVER_SHARED}) are skipped.
 */
export function shareMcpVariables(stateDir: string, mcp: McpSessionConfig | undefined): void {
  for (const name of mcpTemplateVariables(mcp)) {
    const value = process.env[name];
    if (!NEVER_SHARED.test(name) && value !== undefined && value.trim() !== '') storeCredential(stateDir, name, value);
  }
}

/**
 * Whether the worker that will serve a new piece of work can have the
 * provider's key `keyEnv`, judged offline before anything starts: set in
 * this command's environment; or, for the service, stored in the home or
 * set in the running service's environment (its record names it); or, in
 * process, set where a live standalone worker of this host runs. With no
 * worker (`none`) a worker elsewhere may have it: true.
 */
export function keyAvailable(paths: ZunoPaths, keyEnv: string, mode: WorkerMode): boolean {
  if (mode === 'none') return true;
  const here = process.env[keyEnv];
  if (here !== undefined && here.trim() !== '') return true;
  if (mode === 'in-process') return standaloneExpected(paths);
  if (readCredentials(paths.stateDir)[keyEnv] !== undefined) return true;
  return liveWorker(paths.stateDir, hostId())?.keyNames?.includes(keyEnv) === true;
}

/**
 * Whether this home's standalone worker would serve a new session, judged
 * without contacting Temporal: the address Zuno would use (TEMPORAL_ADDRESS,
 * an external server, or the dev server's configured port).
 */
export function standaloneExpected(paths: ZunoPaths): boolean {
  const d = resolveDeployment(paths);
  const address = d.address?.value ?? `${d.cfg.dev.ip}:${d.cfg.dev.port}`;
  return standaloneWorkerRunning(paths.stateDir, address, d.namespace.value, d.taskQueue.value, d.host.value);
}

/** How often a follower checks that the host worker it relies on still runs, in ms. */
export const WORKER_CHECK_EVERY_MS = 5_000;

/**
 * A check a following command runs while it waits (issue 25 item 1: a
 * worker that died is restarted by the next command that needs it — a
 * follower needs it): at most every {@link WORKER_CHECK_EVERY_MS}, when this
 * host's worker record names a process that is gone, the service is started
 * again (`ensureHostService` says so through `notify`). A worker stopped on
 * purpose (`zuno worker stop` removes the record) is left stopped. A failed
 * restart is said once per failure and tried again at the next check.
 */
export function hostWorkerGuard(opts: {
  paths: ZunoPaths;
  temporal: TemporalContext;
  baseQueue: string;
  notify: Notify;
}): () => Promise<void> {
  let lastMs = 0;
  return async () => {
    if (Date.now() - lastMs < WORKER_CHECK_EVERY_MS) return;
    lastMs = Date.now();
    const host = hostId();
    const rec = readWorker(opts.paths.stateDir, host);
    if (!rec || pidAlive(rec.pid)) return;
    const target = {
      address: opts.temporal.address,
      namespace: opts.temporal.namespace,
      taskQueue: opts.baseQueue,
      host,
    };
    try {
      await ensureHostService({ paths: opts.paths, target, notify: opts.notify });
    } catch (err) {
      opts.notify?.(`could not start the host worker again: ${(err as Error).message.split('\n')[0]}`);
    }
  };
}
