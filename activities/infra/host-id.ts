import { HOST_ID_PATTERN } from '../../core/host-id.js';
import { hostname } from 'node:os';

/**
 * This machine's hostname as a host id: characters outside `[A-Za-z0-9._-]`
 * become `-`, at most 100 (`localhost` when empty). The one rule: the CLI's
 * host id (client/deployment/resolve.ts) uses it too.
 */
export function machineHostId(): string {
  return (
    hostname()
      .replace(/[^A-Za-z0-9._-]/g, '-')
      .slice(0, 100) || 'localhost'
  );
}

/**
 * The host this process runs as (issue 33): `ZUNO_HOST_ID` when set and
 * well-formed, else {@link machineHostId}. Used by activities of a session
 * recorded before routing (no route host to name); never throws (the CLI's
 * `hostId()` refuses a malformed value before any worker starts).
 */
export function processHostId(env: NodeJS.ProcessEnv = process.env): string {
  const id = env.ZUNO_HOST_ID;
  return id !== undefined && HOST_ID_PATTERN.test(id) ? id : machineHostId();
}
