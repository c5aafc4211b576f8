/**
 * `readSeatReport` (DC25): one seat attempt's two facts from the projection
 * — its report's validity (only a natively completed child has a terminal
 * report: its session's final text, validated by core/council/report.ts) and
 * the usage its provider requests recorded (`session.usage`, PR11), which a
 * timed-out or failed seat keeps too. Also tags the seat's session row with
 * its role, parent, root and depth. Idempotent; safe to retry.
 */
import type { CouncilUsage, ReadSeatReportInput, ReadSeatReportResult } from '../../core/council/contract.js';
import { NO_USAGE } from '../../core/council/contract.js';
import { parseSeatReport } from '../../core/council/report.js';
import { EV, parseEventData } from '../../core/events.js';
import type { ProjectionStore } from '../projection/types.js';

/** The cumulative usage of a session's provider requests, from its newest `session.usage` event. */
export async function sessionUsage(store: ProjectionStore, sessionId: string): Promise<CouncilUsage> {
  const last = await store.lastEvent(sessionId, EV.usage);
  if (!last) return NO_USAGE;
  const c = parseEventData(EV.usage, last.data)?.cumulative;
  if (!c) return NO_USAGE;
  const t = c.tokens;
  return {
    requests: c.requests,
    inputTokens: (t.uncachedInput ?? 0) + (t.cacheRead ?? 0) + (t.cacheWrite ?? 0),
    outputTokens: t.output ?? 0,
  };
}

/** The final text a child session ended with, or null. */
export async function finalTextOf(store: ProjectionStore, sessionId: string): Promise<string | null> {
  return (await store.getSession(sessionId))?.finalText ?? null;
}

/** Builds the activity. */
export function createReadSeatReport(store: ProjectionStore) {
  return async function readSeatReport(input: ReadSeatReportInput): Promise<ReadSeatReportResult> {
    if (input.seat) {
      // The seat's session row (written by its first model step) learns its role and its place in the tree.
      const row = await store.getSession(input.childSessionId);
      if (row) await store.upsertSession({ ...row, ...input.seat });
    }
    const usage = await sessionUsage(store, input.childSessionId);
    if (!input.completed) return { validity: 'missing', problem: 'the seat did not complete', usage };
    const parsed = parseSeatReport(await finalTextOf(store, input.childSessionId));
    return parsed.validity === 'valid'
      ? { validity: 'valid', findings: parsed.report.findings.length, usage }
      : { validity: parsed.validity, problem: parsed.problem, usage };
  };
}
