import { ZunoError } from '../../core/errors.js';
import { utcMinute } from '../utc-minute.js';
import type { HostBindingRow, HostClaimResult, ProjectionStore } from '../../activities/projection/index.js';
import { machineIdentity, type MachineIdentity } from './identity.js';

/**
 * A worker claims its host id before it polls (issue 33): the id is bound to
 * this machine and home on first use; a binding held by another machine or
 * home refuses the worker unless `takeOver` names this very host id (`zuno
 * worker --take-over-host <id>`: the binding moves here and records whom it
 * was taken from). A command never claims: only a worker runs a host's work.
 * @returns what the projection did (`bound`, `same`, `taken_over`).
 * @throws ZunoError `host_claimed` naming both machines and homes; `input_invalid` when `takeOver` names another id.
 */
export async function claimHost(opts: {
  store: ProjectionStore;
  home: string;
  host: string;
  takeOver?: string;
  nowMs: number;
}): Promise<HostClaimResult> {
  if (opts.takeOver !== undefined && opts.takeOver !== opts.host)
    throw new ZunoError(
      'input_invalid',
      `--take-over-host ${opts.takeOver}, but this worker is host ${opts.host} (ZUNO_HOST_ID or the deployment file's host): take over only your own host id`,
    );
  const me = machineIdentity(opts.home);
  const res = await opts.store.claimHost({ host: opts.host, ...me, atMs: opts.nowMs }, opts.takeOver !== undefined);
  if (res.outcome !== 'refused') return res;
  throw claimedError(opts.host, res.binding, me);
}

/**
 * A command about to start work on this host checks, without claiming, that
 * the host id is not bound to another machine or home (issue 33): otherwise
 * its work would be routed to a queue another machine serves, where this
 * workspace does not exist.
 * @throws ZunoError `host_claimed` (the same words a refused worker prints).
 */
export async function refuseClaimedHost(store: ProjectionStore, home: string, host: string): Promise<void> {
  const b = await store.getHostBinding(host);
  if (!b) return;
  const me = machineIdentity(home);
  if (b.machine === me.machine && b.home === me.home) return;
  throw claimedError(host, b, me);
}

function claimedError(host: string, b: HostBindingRow, me: MachineIdentity): ZunoError {
  return new ZunoError(
    'host_claimed',
    `host ${host} is bound to machine ${b.machineName} (id ${b.machine}, home ${b.home}) since ${utcMinute(b.boundAtMs)}, ` +
      `last seen ${utcMinute(b.lastSeenAtMs)}; this process runs on ${me.machineName} (id ${me.machine}, home ${me.home}). ` +
      `Use another host id, or if host ${host} has really moved here: zuno worker --take-over-host ${host}`,
    { host, boundTo: `${b.machineName}:${b.home}` },
  );
}

/** One line for the worker's log about its claim (null when nothing changed worth saying). */
export function claimNotice(host: string, res: HostClaimResult): string | null {
  if (res.outcome === 'bound') return `zuno worker: host ${host} is now bound to this machine and home`;
  if (res.outcome === 'taken_over')
    return `zuno worker: took host ${host} over from ${res.previous.machineName} (home ${res.previous.home}); recorded in the projection`;
  return null;
}

/** How often a running worker renews its host binding (and learns of a take-over), in ms; `ZUNO_HOST_RENEW_MS` overrides it. */
export const BINDING_RENEW_EVERY_MS = 60_000;

function renewEveryMs(): number {
  const v = Number(process.env.ZUNO_HOST_RENEW_MS);
  return Number.isInteger(v) && v >= 100 ? v : BINDING_RENEW_EVERY_MS;
}

/**
 * Renews a running worker's host binding every {@link BINDING_RENEW_EVERY_MS}
 * (its `lastSeenAtMs`, which `zuno doctor` shows another machine). When the
 * binding was taken over by another machine or home, `onLost` is called once
 * with a plain line: the worker stops, so two machines never serve one host.
 * A projection that does not answer is skipped until the next renewal.
 * @returns a function that stops the renewals.
 */
export function renewHostBinding(opts: {
  store: ProjectionStore;
  home: string;
  host: string;
  onLost: (line: string) => void;
}): () => void {
  let lost = false;
  const timer = setInterval(() => {
    if (lost) return;
    claimHost({ store: opts.store, home: opts.home, host: opts.host, nowMs: Date.now() }).catch((err: unknown) => {
      if (!(err instanceof ZunoError) || err.code !== 'host_claimed') return;
      lost = true;
      const to = (err.details?.boundTo as string | undefined) ?? 'another machine';
      opts.onLost(`zuno worker: stopping — host ${opts.host} was taken over by ${to}; this home no longer serves it`);
    });
  }, renewEveryMs());
  timer.unref();
  return () => clearInterval(timer);
}
