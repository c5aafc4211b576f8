import { formatDuration } from '../../core/goal/budgets.js';
import { utcMinute } from '../utc-minute.js';
import type { GoalSnapshot } from '../../core/goal/contract.js';
import { watchConditionText } from '../../core/goal/watch.js';
import { urlShown } from '../../core/url-text.js';

/**
 * The status line of a Goal waiting on its release watch (issue 31), from
 * its stored row: `waiting for https://registry/pkg (next check 14:05 UTC)`;
 * when the row's next check has passed (checks that saw nothing new are not
 * stored), `(a check every 5m)`. Pure.
 */
export function waitingWatchLine(s: GoalSnapshot, nowMs: number): string {
  const w = s.watch;
  if (!w) return 'waiting for its watch';
  const next =
    w.nextCheckAtMs !== undefined && w.nextCheckAtMs > nowMs
      ? ` (next check ${utcMinute(w.nextCheckAtMs)})`
      : ` (a check every ${formatDuration(w.spec.everyMs)})`;
  return `waiting for ${urlShown(w.spec.url)}${next}`;
}

/**
 * The `watch` lines of `zuno goal show` (issue 31): what is watched, how the
 * checks went, and the report once there is one. Empty for a Goal without a
 * watch. Pure.
 */
export function watchLines(s: GoalSnapshot): string[] {
  const w = s.watch;
  if (!w) return [];
  const out = [
    `watch       ${urlShown(w.spec.url)} until ${watchConditionText(w.spec.until)} · every ${formatDuration(w.spec.everyMs)} · gives up after ${formatDuration(w.spec.timeoutMs)}`,
  ];
  // The row is written when a check sees something new, not at every check: its count is "as of" that write.
  const last = w.last
    ? ` as of ${utcMinute(w.last.atMs)} (last seen: ${w.last.error ?? `status ${w.last.status ?? '?'}`})`
    : '';
  out.push(`            ${w.attempts} check${w.attempts === 1 ? '' : 's'}${last}`);
  const r = w.report;
  if (r) {
    const value = r.value !== undefined ? ` (value ${r.value})` : '';
    out.push(
      `            report ${r.reportId}: ${r.outcome === 'matched' ? `matched${value}` : 'timed out'} at ${utcMinute(r.atMs)} · session ${w.sessionStarted ? 'started' : 'not started yet'}`,
    );
  }
  return out;
}

/** What a follower says when a Goal starts waiting on its watch: `waiting for https://… until json … (a check every 5m)`. Pure. */
export function watchingLine(s: GoalSnapshot): string {
  const w = s.watch;
  if (!w) return 'waiting for its release watch';
  return `waiting for ${urlShown(w.spec.url)} until ${watchConditionText(w.spec.until)} (a check every ${formatDuration(w.spec.everyMs)})`;
}
