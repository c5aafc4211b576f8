import type { SessionRoute } from '../core/session/meta.js';
import { zunoHome } from '../activities/home/index.js';
import { hostIdOfHostname, resolveHost } from './deployment/resolve.js';

/**
 * This host's identity for routing (DESIGN.md §1, issue 33): `ZUNO_HOST_ID`
 * when set, else the home deployment file's `host`, else the hostname
 * (client/deployment/resolve.ts). Two machines must not share one: a worker
 * claiming an id bound to another machine is refused (`host_claimed`).
 * @throws ZunoError `config_invalid` for a malformed id, `deployment_conflict` when the variable and the file disagree.
 */
export function hostId(): string {
  return resolveHost(zunoHome()).value;
}

/** This machine's hostname as a host id (what {@link hostId} is without `ZUNO_HOST_ID` or a deployment file). */
export function machineHostId(): string {
  return hostIdOfHostname();
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
