import {
  addUsage,
  NO_USAGE,
  type ReadSeatReportInput,
  type ReadSeatReportResult,
  type SeatAttempt,
  type SeatRecord,
  type SeatStatus,
} from '../core/council/contract.js';
import type { ChildEnd } from '../core/delegation/contract.js';
import type { SessionMeta } from '../core/session/meta.js';

/** How an attempt's child ended: its end, or `timed_out` when the Council's seat deadline cancelled it (DC26). */
export type AttemptEnd = ChildEnd | 'timed_out';

/** How a settled child maps onto a seat's status (DC25): a paused child never settles — its wait times out. Pure. */
export function seatStatusOf(end: ChildEnd): SeatStatus {
  switch (end.status) {
    case 'completed':
      return 'completed';
    case 'failed':
    case 'blocked':
      return 'failed';
    case 'cancelled':
    case 'interrupted':
      return 'cancelled';
    default:
      return 'uncertain';
  }
}

/**
 * An attempt settled (DC25): its status from the child's end, its report's
 * validity and usage, its problem (the report's, else the child's failure),
 * settled at `nowMs`; the seat's usage sums every attempt, its findings are
 * the valid report's, and a timed-out child is marked asked to cancel.
 * Mutates `seat` and `a` (workflow state). Pure otherwise.
 */
export function settleAttempt(
  seat: SeatRecord,
  a: SeatAttempt,
  end: AttemptEnd,
  read: ReadSeatReportResult,
  nowMs: number,
): void {
  a.status = end === 'timed_out' ? 'timed_out' : seatStatusOf(end);
  a.validity = read.validity;
  a.usage = read.usage;
  a.settledAtMs = nowMs;
  if (end !== 'timed_out' && end.code) a.code = end.code;
  const problem = read.problem ?? (end !== 'timed_out' ? end.message : undefined);
  if (problem) a.problem = problem;
  seat.usage = seat.attempts.reduce((u, x) => addUsage(u, x.usage), NO_USAGE);
  if (read.findings !== undefined) seat.findings = read.findings;
  if (end === 'timed_out') seat.cancelRequested = true;
}

/**
 * Whether a seat tries once more (DC25): only a child that completed
 * natively with an invalid report, attempts left, and the seat deadline
 * neither passed nor reached at `nowMs`. Pure.
 */
export function seatRetries(o: {
  end: AttemptEnd;
  read: ReadSeatReportResult;
  attempt: number;
  maxAttempts: number;
  deadlinePassed: boolean;
  nowMs: number;
  seatDeadlineMs: number;
}): boolean {
  const completed = o.end !== 'timed_out' && o.end.status === 'completed';
  return (
    completed &&
    o.read.validity === 'invalid' &&
    o.attempt < o.maxAttempts &&
    !o.deadlinePassed &&
    o.nowMs < o.seatDeadlineMs
  );
}

/** The `readSeatReport` input of an attempt: its child, whether it completed natively, and the seat it answers for. Pure. */
export function reportQuery(
  seat: Pick<SeatRecord, 'agent'>,
  meta: SessionMeta,
  childSessionId: string,
  completed: boolean,
): ReadSeatReportInput {
  const link = meta.delegation!;
  return {
    childSessionId,
    completed,
    seat: {
      agent: seat.agent,
      parentSessionId: link.parentSessionId,
      rootSessionId: link.rootSessionId,
      depth: link.depth,
    },
  };
}
