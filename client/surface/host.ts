/**
 * What a long-lived surface process (`zuno acp`, `zuno serve`) holds for its
 * whole life (SF1): one Temporal connection, one projection store, the
 * worker mode, and a guard that starts this host's worker service again when
 * it died. Sessions themselves are served by the host worker service, never
 * by the surface: killing the surface strands nothing (SF9).
 */
import type { ProjectionStore } from '../../activities/projection/index.js';
import {
  connectTemporal,
  openStore,
  resolvePaths,
  type Notify,
  type TemporalContext,
  type ZunoPaths,
} from '../context.js';
import { hostId } from '../routing.js';
import { hostWorkerGuard, serveWork, type Serving, workerMode, type WorkerMode } from '../serving.js';
import type { McpSessionConfig } from '../../core/mcp/types.js';
import type { ProviderConfig } from '../../core/provider-config.js';

/** One surface process's connections (open until {@link SurfaceHost.close}). */
export interface SurfaceHost {
  paths: ZunoPaths;
  temporal: TemporalContext;
  store: ProjectionStore;
  /** `service` (the default: the host worker service serves every session) or `in-process`/`none` (tests, debugging). */
  mode: WorkerMode;
  /** The command named in worker notes (`zuno acp`, `zuno serve`). */
  command: string;
  /** Where plain notes go (stderr for `zuno acp`, the log for `zuno serve`); null: nowhere. */
  notify: Notify;
  /** Starts this host's worker service again when its process died (at most every 5 s; a no-op otherwise). */
  guardWorker(): Promise<void>;
  /** Keeps a worker this process started (mode `in-process`) until {@link SurfaceHost.close} stops it. */
  keepServing(stop: () => Promise<void>): void;
  /** Stops the workers this process started, closes the projection and the Temporal connection; the work goes on. */
  close(): Promise<void>;
}

/**
 * Opens a surface's connections: the home (`ZUNO_HOME`), Temporal (the home's
 * dev server unless configured) and the projection (`DATABASE_URL` or the
 * home's SQLite). A malformed `ZUNO_HOST_ID` or `ZUNO_WORKER` is refused first.
 * @throws ZunoError `config_invalid`, `temporal_unreachable`, `temporal_binary_missing`,
 *   `dev_server_*`, `home_lock_timeout` (connectTemporal), and what opening the store throws.
 */
export async function openSurfaceHost(opts: { command: string; notify: Notify }): Promise<SurfaceHost> {
  const paths = resolvePaths();
  hostId();
  const mode = workerMode();
  const temporal = await connectTemporal(paths, opts.notify);
  let store: ProjectionStore;
  try {
    store = await openStore(paths);
  } catch (err) {
    await temporal.connection.close();
    throw err;
  }
  const stops: (() => Promise<void>)[] = [];
  const guard = hostWorkerGuard({ paths, temporal, baseQueue: temporal.baseQueue, notify: opts.notify });
  return {
    paths,
    temporal,
    store,
    mode,
    command: opts.command,
    notify: opts.notify,
    guardWorker: async () => {
      if (mode === 'service') await guard();
    },
    keepServing: (stop) => void stops.push(stop),
    close: async () => {
      for (const stop of stops.splice(0)) await stop().catch(() => undefined);
      await store.close().catch(() => undefined);
      await temporal.connection.close().catch(() => undefined);
    },
  };
}

/** The options every serve call of a surface shares (client/serving.ts `serveWork`, `serveOpenWork`). */
export function serveOptionsOf(host: SurfaceHost) {
  return {
    paths: host.paths,
    temporal: host.temporal,
    store: host.store,
    baseQueue: host.temporal.baseQueue,
    command: host.command,
    mode: host.mode,
    notify: host.notify,
  };
}

/**
 * Has the work `id` (a session, or a Council run) served for this surface
 * (client/serving.ts `serveWork`): by the host worker service, or — mode
 * `in-process` — by a worker in this process, kept until the surface closes.
 * @returns the route its activities take.
 * @throws what starting the service or the in-process worker throws.
 */
export async function serveForSurface(
  host: SurfaceHost,
  work: { id: string; provider: ProviderConfig; label?: string; mcp?: McpSessionConfig },
): Promise<Serving> {
  const serving = await serveWork({ ...serveOptionsOf(host), ...work });
  if (serving.servedHere) host.keepServing(serving.stop);
  return serving;
}
