/**
 * Followers ride out a Temporal outage (issue 25): `zuno run`, `zuno session
 * resume`, `zuno goal start/resume/answer` and `zuno council run` keep
 * following when the server stops answering for a while, and go on where
 * they were once it answers again. Loads no Temporal code itself: the
 * probe is given by the caller.
 */
import type { Client } from '@temporalio/client';
import { ZunoError } from '../core/errors.js';
import { reattachHint, type ReattachKind } from './reattach.js';

/**
 * How long a follower keeps retrying an unreachable Temporal before it gives
 * up with `temporal_unreachable` and the command that re-attaches, in ms
 * (5 minutes, counted from the first failed call the follower saw; the
 * Temporal client has itself retried about 15 s before that).
 * `ZUNO_TEMPORAL_OUTAGE_MS` (a whole number of ms) changes it.
 */
export const TEMPORAL_OUTAGE_MAX_MS = 5 * 60_000;

/** First wait between two probes of an unreachable Temporal, in ms; it doubles up to {@link OUTAGE_BACKOFF_MAX_MS}. */
export const OUTAGE_BACKOFF_FIRST_MS = 1_000;

/** Longest wait between two probes of an unreachable Temporal, in ms. */
export const OUTAGE_BACKOFF_MAX_MS = 10_000;

/** Longest wait for one probe (a `GetSystemInfo` call), in ms. */
const PROBE_TIMEOUT_MS = 3_000;

/** gRPC status UNAVAILABLE: the server cannot be reached (refused, reset, not listening). */
const GRPC_UNAVAILABLE = 14;

/** Messages of a failed connection, from grpc-js and Node. */
const UNREACHABLE_TEXT =
  /Channel has been shut down|ECONNREFUSED|ECONNRESET|EHOSTUNREACH|connection refused|No connection established|failed to connect|14 UNAVAILABLE/i;

/** Names of errors that carry a workflow's or an update's outcome (`WorkflowFailedError`, `ApplicationFailure`, …). */
const WORKFLOW_OUTCOME = /^(WorkflowFailedError|WorkflowUpdateFailedError|WorkflowNotFoundError|\w+Failure)$/;

/**
 * Whether `err` says Temporal could not be reached: a gRPC UNAVAILABLE
 * (directly or as the cause of the client's `ServiceError`, e.g. `Failed to
 * get Workflow execution history`), a refused or reset connection, a
 * closed channel (`Channel has been shut down`), or Zuno's own
 * `temporal_unreachable`; never a workflow's or an update's failure (a
 * provider's refused connection is the session's outcome, not an outage).
 * Looks at the error and up to four causes, by name and fields only (no
 * Temporal import). Pure.
 */
export function isTemporalUnreachable(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e !== null && typeof e === 'object'; depth++) {
    const o = e as { name?: unknown; code?: unknown; message?: unknown; cause?: unknown };
    // How a workflow or an update ended is never an outage, even when its failure quotes a refused connection.
    if (typeof o.name === 'string' && WORKFLOW_OUTCOME.test(o.name)) return false;
    if (o.name === 'ZunoError') return o.code === 'temporal_unreachable';
    if (o.code === GRPC_UNAVAILABLE) return true;
    if (typeof o.message === 'string' && UNREACHABLE_TEXT.test(o.message)) return true;
    e = o.cause;
  }
  return false;
}

let addressInUse: string | undefined;

/** Records the Temporal address this process connected to (client/context.ts `connectTemporal`), for error lines. */
export function rememberTemporalAddress(address: string): void {
  addressInUse = address;
}

/** The Temporal address this process connected to last, if any. */
export function temporalAddressInUse(): string | undefined {
  return addressInUse;
}

/** The outage budget: `ZUNO_TEMPORAL_OUTAGE_MS` when it is a whole number of ms, else {@link TEMPORAL_OUTAGE_MAX_MS}. */
export function outageMaxMs(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.ZUNO_TEMPORAL_OUTAGE_MS?.trim();
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : TEMPORAL_OUTAGE_MAX_MS;
}

/** What a follower needs to ride out an outage. */
export interface OutageOptions {
  /** Answers when Temporal is reachable, rejects when not (see {@link probeOf}). */
  probe: () => Promise<unknown>;
  /** Where the lines go (stderr); each is one whole line. */
  say: (line: string) => void;
  /** The Temporal address, for the lines and the final error. */
  address?: string;
  /** What is followed, for the re-attach command of the final error. */
  kind: ReattachKind;
  id: string;
  /** Give up after this long, in ms (default {@link outageMaxMs}). */
  maxMs?: number;
}

/** A probe of `client`'s server: `GetSystemInfo`, bounded by 3 s. */
export function probeOf(client: Client): () => Promise<unknown> {
  return () =>
    client.connection.withDeadline(Date.now() + PROBE_TIMEOUT_MS, () => client.workflowService.getSystemInfo({}));
}

/**
 * One follower's view of Temporal's reachability. {@link TemporalOutage.retry}
 * runs a call, and when it fails because Temporal is unreachable says so once
 * (`zuno: Temporal unreachable, retrying…`), probes with backoff (1 s doubling
 * to 10 s) until the server answers (`zuno: Temporal reachable again`, once)
 * and runs the call again — a workflow's `result()` is obtained anew, since
 * the one in flight rejected. Calls that fail in the same outage share it:
 * one pair of lines, one probe loop. After {@link OutageOptions.maxMs}
 * without an answer every waiting call rejects with ZunoError
 * `temporal_unreachable` naming the address and the re-attach command.
 */
export class TemporalOutage {
  private waiting: Promise<void> | null = null;
  private readonly maxMs: number;

  constructor(private readonly opts: OutageOptions) {
    this.maxMs = opts.maxMs ?? outageMaxMs();
  }

  /**
   * `op()`, run again after each outage it fails in.
   * @throws what `op` throws when it is not an outage; ZunoError `temporal_unreachable` when the outage lasts too long.
   */
  async retry<T>(op: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await op();
      } catch (err) {
        if (!isTemporalUnreachable(err)) throw err;
        this.waiting ??= this.rideOut(err).finally(() => (this.waiting = null));
        await this.waiting;
      }
    }
  }

  private async rideOut(first: unknown): Promise<void> {
    const since = Date.now();
    const at = this.opts.address ? ` at ${this.opts.address}` : '';
    this.opts.say(
      `zuno: Temporal${at} unreachable, retrying… (following goes on when it answers; gives up after ${minutes(this.maxMs)})\n`,
    );
    let delay = OUTAGE_BACKOFF_FIRST_MS;
    for (;;) {
      const left = this.maxMs - (Date.now() - since);
      if (left <= 0) throw this.gaveUp(first);
      await new Promise((r) => setTimeout(r, Math.min(delay, left)));
      delay = Math.min(delay * 2, OUTAGE_BACKOFF_MAX_MS);
      const answered = await this.opts.probe().then(
        () => true,
        () => false,
      );
      if (answered) {
        this.opts.say('zuno: Temporal reachable again\n');
        return;
      }
    }
  }

  private gaveUp(err: unknown): ZunoError {
    const { kind, id, address } = this.opts;
    const cause = String((err as Error)?.message ?? err).split('\n')[0]!;
    return new ZunoError(
      'temporal_unreachable',
      `Temporal${address ? ` at ${address}` : ''} did not answer for ${minutes(this.maxMs)} (${cause}); ` +
        `the ${kind} goes on in Temporal once it is back: start it (or check TEMPORAL_ADDRESS / temporal.yaml), ` +
        `then follow it again with \`${reattachHint(kind, id)}\``,
      { ...(address ? { address } : {}), kind, id },
    );
  }
}

/** `5 min`, `90 s`. */
function minutes(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`;
}
