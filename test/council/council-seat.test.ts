import { describe, expect, it } from 'vitest';
import { NO_USAGE, type SeatAttempt, type SeatRecord } from '../../core/council/contract.js';
import type { SessionMeta } from '../../core/session/meta.js';
import { reportQuery, seatRetries, seatStatusOf, settleAttempt } from '../../workflows/council-seat.js';

/** CouncilMachine's seat transitions (workflows/council-seat.ts, DC25, DC26) without a server. */

const seatOf = (): SeatRecord => ({
  index: 1,
  of: 3,
  agent: 'correctness-review',
  childSessionIds: ['ses_a1'],
  status: 'running',
  validity: 'missing',
  usage: NO_USAGE,
  attempts: [],
});
const attemptOf = (seat: SeatRecord, n = 1): SeatAttempt => {
  const a: SeatAttempt = {
    attempt: n,
    childSessionId: `ses_a${n}`,
    status: 'running',
    validity: 'missing',
    usage: NO_USAGE,
    startedAtMs: 0,
  };
  seat.attempts.push(a);
  return a;
};
const usage = { requests: 2, inputTokens: 100, outputTokens: 10 };

describe('a seat attempt settles (DC25)', () => {
  it("maps the child's end onto the seat's status", () => {
    expect(seatStatusOf({ status: 'completed' })).toBe('completed');
    expect(seatStatusOf({ status: 'failed' })).toBe('failed');
    expect(seatStatusOf({ status: 'blocked' })).toBe('failed');
    expect(seatStatusOf({ status: 'interrupted' })).toBe('cancelled');
    expect(seatStatusOf({ status: 'paused' } as never)).toBe('uncertain');
  });

  it("records the report's validity, usage and findings; the seat's usage sums every attempt", () => {
    const seat = seatOf();
    const first = attemptOf(seat, 1);
    settleAttempt(seat, first, { status: 'completed' }, { validity: 'invalid', problem: 'no verdict', usage }, 5);
    expect(first).toMatchObject({ status: 'completed', validity: 'invalid', problem: 'no verdict', settledAtMs: 5 });
    const second = attemptOf(seat, 2);
    settleAttempt(seat, second, { status: 'completed' }, { validity: 'valid', usage, findings: 4 }, 9);
    expect(seat.usage).toEqual({ requests: 4, inputTokens: 200, outputTokens: 20 });
    expect(seat.findings).toBe(4);
    expect(seat.cancelRequested).toBeUndefined();
  });

  it("a failed child's code and message stand when the report has no problem; a timed-out one is asked to cancel", () => {
    const seat = seatOf();
    const a = attemptOf(seat);
    settleAttempt(
      seat,
      a,
      { status: 'failed', code: 'provider_auth', message: 'no key' },
      { validity: 'missing', usage },
      1,
    );
    expect(a).toMatchObject({ status: 'failed', code: 'provider_auth', problem: 'no key' });
    const late = seatOf();
    const b = attemptOf(late);
    settleAttempt(late, b, 'timed_out', { validity: 'missing', usage: NO_USAGE }, 2);
    expect(b.status).toBe('timed_out');
    expect(late.cancelRequested).toBe(true);
  });
});

describe('a seat retries (DC25, DC26)', () => {
  const base = {
    end: { status: 'completed' as const },
    read: { validity: 'invalid' as const, usage },
    attempt: 1,
    maxAttempts: 2,
    deadlinePassed: false,
    nowMs: 10,
    seatDeadlineMs: 100,
  };

  it('only a natively completed child with an invalid report, with an attempt left, before the deadline', () => {
    expect(seatRetries(base)).toBe(true);
    expect(seatRetries({ ...base, read: { validity: 'valid', usage } })).toBe(false);
    expect(seatRetries({ ...base, read: { validity: 'missing', usage } })).toBe(false);
    expect(seatRetries({ ...base, end: { status: 'failed' } as never })).toBe(false);
    expect(seatRetries({ ...base, end: 'timed_out' })).toBe(false);
    expect(seatRetries({ ...base, attempt: 2 })).toBe(false);
    expect(seatRetries({ ...base, deadlinePassed: true })).toBe(false);
    expect(seatRetries({ ...base, nowMs: 100 })).toBe(false);
  });

  it("asks readSeatReport for the attempt's child, as its seat's delegation says", () => {
    const meta = {
      delegation: { parentSessionId: 'ses_p', rootSessionId: 'ses_r', depth: 2 },
    } as unknown as SessionMeta;
    expect(reportQuery(seatOf(), meta, 'ses_a1', true)).toEqual({
      childSessionId: 'ses_a1',
      completed: true,
      seat: { agent: 'correctness-review', parentSessionId: 'ses_p', rootSessionId: 'ses_r', depth: 2 },
    });
  });
});
