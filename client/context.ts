import { ensureZunoGitignore, makeDirs, zunoHome } from '../activities/home/index.js';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import { ZunoError } from '../core/errors.js';
import { openProjectionStore, type ProjectionStore } from '../activities/projection/index.js';
import { rememberTemporalAddress } from './temporal-outage.js';
import { ensureDevServer } from '../worker/dev-server.js';
import type { TemporalConfig } from '../worker/temporal-config.js';
import { resolveDeployment, type ResolvedDeployment } from './deployment/resolve.js';
import { checkProjection, type DeploymentRecord } from './deployment/record.js';
import { findBinary, INSTALL_ROOT } from '../activities/infra/index.js';

/** Root of the Zuno installation (where package.json, .tools/ and the default temporal.yaml live). */
export const PACKAGE_ROOT = INSTALL_ROOT;

/**
 * Where Zuno keeps its own state: one user-level directory, the same from any
 * working directory — `$ZUNO_HOME`, default `~/.zuno`. It holds the SQLite
 * projection (`zuno.db`), the dev server's state, log and database, the
 * workflow bundle cache, the standalone worker's record and the user-level
 * `AGENTS.md`. Workspaces keep only their own `.zuno/{artifacts,bg,reports}`.
 * `stateDir` is the home itself (kept as a name for the code that writes into it).
 */
export interface ZunoPaths {
  home: string;
  stateDir: string;
  temporalYaml: string;
}

/**
 * Resolves the home and which temporal.yaml applies: `$ZUNO_TEMPORAL_CONFIG`,
 * else `<home>/temporal.yaml` when present, else the installation's own.
 * Relative paths inside temporal.yaml (`dev.dbFile`) resolve against the home.
 */
export function resolvePaths(): ZunoPaths {
  const home = zunoHome();
  ensureWritableHome(home);
  const local = join(home, 'temporal.yaml');
  const temporalYaml = process.env.ZUNO_TEMPORAL_CONFIG
    ? resolve(process.env.ZUNO_TEMPORAL_CONFIG)
    : existsSync(local)
      ? local
      : join(PACKAGE_ROOT, 'temporal.yaml');
  return { home, stateDir: home, temporalYaml };
}

/**
 * Creates the home when missing and proves it writable (a probe file is
 * written and removed: permission bits alone lie for root and read-only mounts).
 * @throws ZunoError `zuno_home_unwritable` naming the directory and the fix; nothing is written elsewhere.
 */
export function ensureWritableHome(home: string): void {
  const probe = join(home, `.probe-${process.pid}`);
  try {
    makeDirs(home);
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ZunoError(
      'zuno_home_unwritable',
      `Zuno's home ${home} is not a writable directory (${code}): set ZUNO_HOME to a directory you can write, or unset it to use ~/.zuno`,
    );
  }
}

/** A connected Temporal target. */
export interface TemporalContext {
  cfg: TemporalConfig;
  address: string;
  namespace: string;
  client: Client;
  connection: Connection;
  /** The task queue of Zuno's workflows: `temporal.yaml`'s `taskQueue`, else {@link DEFAULT_TASK_QUEUE}. */
  baseQueue: string;
  /** What this process resolved (client/deployment/resolve.ts). */
  deployment: ResolvedDeployment;
  /** The projection the deployment recorded in the namespace (issue 33); null: none recorded. */
  recorded: DeploymentRecord | null;
  /** Set when the embedded dev server is in use. */
  devServer?: { uiUrl: string; started: boolean };
}

/** Progress lines for the user (stderr); silent when null. */
export type Notify = ((line: string) => void) | null;

/**
 * Connects to Temporal as configured (DESIGN.md §1): the resolved external
 * address (`TEMPORAL_ADDRESS`, the deployment file, or temporal.yaml
 * `server.mode: external`) is used as is; otherwise the embedded dev server
 * is started (or reused) and its Web UI URL reported. Registers the
 * configured search attributes that are missing. Checks this process's
 * projection against the one the deployment recorded in the namespace
 * (issue 33), so no command or worker writes where other readers do not look.
 * @throws ZunoError `config_invalid`, `temporal_unreachable`, `temporal_binary_missing`, `dev_server_*`,
 *   `home_lock_timeout` (see ensureDevServer), `deployment_conflict`, `projection_mismatch`, `deployment_unrecorded`.
 */
export async function connectTemporal(paths: ZunoPaths, notify: Notify): Promise<TemporalContext> {
  const deployment = resolveDeployment(paths);
  const { cfg } = deployment;
  const namespace = deployment.namespace.value;
  let address: string;
  let devServer: TemporalContext['devServer'];
  if (deployment.address) {
    address = deployment.address.value;
  } else {
    const bin = findBinary('temporal', { projectRoot: PACKAGE_ROOT });
    if (!bin) {
      throw new ZunoError(
        'temporal_binary_missing',
        'the Temporal CLI is not installed: run `node scripts/setup-tools.mjs` (or set ZUNO_TEMPORAL_BIN), ' +
          'or point Zuno at a server with TEMPORAL_ADDRESS.',
      );
    }
    const dev = await ensureDevServer({ cfg, stateDir: paths.stateDir, root: paths.home, temporalBin: bin });
    address = dev.address;
    devServer = { uiUrl: dev.uiUrl, started: dev.started };
    notify?.(`${dev.started ? 'started' : 'using'} Temporal dev server ${address} — Web UI ${dev.uiUrl}`);
  }
  // Temporal's client (gRPC, protobufs: ~150 ms to load) is imported here,
  // not at the top, so commands that only read the projection (session show)
  // never load it.
  const { connectClient, ensureSearchAttributes } = await import('../worker/connection.js');
  const { client, connection } = await connectClient({
    address,
    namespace,
    connectTimeoutMs: cfg.server.connectTimeoutMs,
  });
  rememberTemporalAddress(address);
  const added = await ensureSearchAttributes(connection, namespace, cfg.searchAttributes);
  if (added.length > 0) notify?.(`registered search attributes: ${added.join(', ')}`);
  const baseQueue = deployment.taskQueue.value;
  const recorded = await checkProjection(connection, deployment).catch(async (err: unknown) => {
    await connection.close();
    throw err;
  });
  return {
    cfg,
    address,
    namespace,
    client,
    connection,
    baseQueue,
    deployment,
    recorded,
    ...(devServer ? { devServer } : {}),
  };
}

/**
 * Opens the projection store: the resolved projection (`DATABASE_URL`, else
 * the deployment file's `projection`), else SQLite in the state dir. The state dir gets a `.gitignore` of `*` (a ZUNO_HOME that is a
 * git checkout stays clean).
 */
export async function openStore(paths: ZunoPaths): Promise<ProjectionStore> {
  const d = resolveDeployment(paths);
  const databaseUrl = d.projection.value;
  if (!databaseUrl && !existsSync(join(paths.stateDir, 'zuno.db'))) await refuseNewSqliteOutsideDeployment(d);
  const store = await openProjectionStore({ zunoDir: paths.stateDir, ...(databaseUrl ? { databaseUrl } : {}) });
  if (existsSync(paths.stateDir)) ensureZunoGitignore(paths.stateDir);
  return store;
}

/**
 * Before the home's SQLite file is created, on an external Temporal server:
 * when that server records a deployment on this task queue, its projection
 * is not this new file (issue 33) — refused before the file exists, so a
 * misconfigured home is left as it was. A server that does not answer
 * passes (the command's own connect reports it).
 * @throws ZunoError `projection_mismatch`.
 */
async function refuseNewSqliteOutsideDeployment(d: ResolvedDeployment): Promise<void> {
  if (!d.address) return;
  const { connectClient } = await import('../worker/connection.js');
  let connection: Connection;
  try {
    ({ connection } = await connectClient({
      address: d.address.value,
      namespace: d.namespace.value,
      connectTimeoutMs: d.cfg.server.connectTimeoutMs,
    }));
  } catch {
    return;
  }
  try {
    await checkProjection(connection, d);
  } finally {
    await connection.close();
  }
}
