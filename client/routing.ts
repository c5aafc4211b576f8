import { hostname } from 'node:os';
import type { SessionRoute } from '../core/session/meta.js';
import { ZunoError } from '../core/errors.js';

/**
 * This host's identity for routing (DESIGN.md §1): `ZUNO_HOST_ID` when set
 * (letters, digits, `.`, `_`, `-`; at most 100), else the hostname. Two
 * machines must not share one: set `ZUNO_HOST_ID` where hostnames repeat
 * (containers). @throws ZunoError `config_invalid` for a malformed ZUNO_HOST_ID.
 */
export function hostId(): string {
  const env = process.env.ZUNO_HOST_ID;
  if (env !== undefined && env !== '') {
    if (!/^[A-Za-z0-9._-]{1,100}$/.test(env)) {
      throw new ZunoError(
        'config_invalid',
        `ZUNO_HOST_ID "${env.slice(0, 60)}" may hold only letters, digits, '.', '_' and '-' (at most 100)`,
      );
    }
    return env;
  }
  return machineHostId();
}

/** This machine's hostname as a host id (what {@link hostId} is without `ZUNO_HOST_ID`). */
export function machineHostId(): string {
  return (
    hostname()
      .replace(/[^A-Za-z0-9._-]/g, '-')
      .slice(0, 100) || 'localhost'
  );
}

/** Task queue of a host's standalone `zuno worker`: `<base>/host/<host>` (every workspace of the host). */
export function hostTaskQueue(base: string, host: string): string {
  return `${base}/host/${host}`;
}

/** Task queue served only by the in-process worker of the command driving one session. */
export function sessionTaskQueue(base: string, host: string, sessionId: string): string {
  return `${hostTaskQueue(base, host)}/session/${sessionId}`;
}

/**
 * The route of a session started or reopened on this host: the host's
 * standalone worker when one runs here (`standalone`), else a queue only
 * this command's in-process worker serves — so one `zuno run` never runs
 * another's calls, and ending it never kills another session's call.
 */
export function routeFor(base: string, sessionId: string, standalone: boolean): SessionRoute {
  const host = hostId();
  return standalone
    ? { host, taskQueue: hostTaskQueue(base, host), servedBy: 'worker' }
    : { host, taskQueue: sessionTaskQueue(base, host, sessionId), servedBy: 'run' };
}
