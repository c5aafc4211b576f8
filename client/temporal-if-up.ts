import type { Client } from '@temporalio/client';
import { ZunoError } from '../core/errors.js';
import { pidAlive, portOpen, readDevServerState } from '../worker/dev-server.js';
import { resolveDeployment } from './deployment/resolve.js';
import type { ZunoPaths } from './context.js';

/** A Temporal client a read-only command borrows; `close()` ends its connection. */
export interface BorrowedTemporal {
  client: Client;
  close(): Promise<void>;
}

/**
 * Connects to the Temporal server Zuno is configured for only when it is
 * already up, for commands that read the projection and check it against
 * Temporal (`session list|show`, `approvals list`): the resolved external
 * address (client/deployment/resolve.ts) is tried once (bounded by
 * `server.connectTimeoutMs`); the embedded dev server is used only when this
 * home's dev server is alive and listening — it is never started here.
 * Registers no search attributes.
 * @returns the client, or null when no server answers (the caller then shows the projection as stored).
 * @throws ZunoError `config_invalid` for a broken temporal.yaml or deployment file, `deployment_conflict`; nothing else.
 */
export async function temporalIfUp(paths: ZunoPaths): Promise<BorrowedTemporal | null> {
  const { cfg, ...d } = resolveDeployment(paths);
  const namespace = d.namespace.value;
  let address: string;
  if (d.address) address = d.address.value;
  else {
    const dev = readDevServerState(paths.stateDir);
    if (!dev || !pidAlive(dev.pid) || !(await portOpen(cfg.dev.ip, cfg.dev.port))) return null;
    address = dev.address;
  }
  const { connectClient } = await import('../worker/connection.js');
  try {
    const { client, connection } = await connectClient({
      address,
      namespace,
      connectTimeoutMs: cfg.server.connectTimeoutMs,
    });
    return { client, close: () => connection.close() };
  } catch (err) {
    if (err instanceof ZunoError && err.code === 'temporal_unreachable') return null;
    throw err;
  }
}
