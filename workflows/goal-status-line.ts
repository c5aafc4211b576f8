import type { GoalSnapshot } from '../core/goal/contract.js';
import { markdownLiteral as md } from '../core/ui-text.js';
import { urlShown } from '../core/url-text.js';

/** `06:41:05 UTC` */
function clock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}

/**
 * The Temporal UI's current details of a Goal, one plain line, e.g.
 * `active · turn 7 · waiting for CI (remote observer bg_3)` or
 * `paused (uncertain_side_effect) · turn 4 · the outcome of shell tc_… is unknown`.
 * Text that came from a model or a person is made literal. Pure.
 */
export function goalStatusLine(s: GoalSnapshot, at: { turnRunning: boolean; nowMs: number }): string {
  const st = s.state;
  const turns = `turn ${s.spent.turns + (at.turnRunning ? 1 : 0)}`;
  switch (st.status) {
    case 'active':
      return `active · ${turns} · ${at.turnRunning ? 'working' : 'starting the next turn'} · since ${clock(at.nowMs)}`;
    case 'backoff':
      return `backoff · ${turns} · ${md(st.cause)}: retry ${st.attempt} at ${clock(st.untilMs)}`;
    case 'waiting_background':
      return `active · ${turns} · waiting for CI (remote observer ${st.taskIds.join(', ')}) · since ${clock(at.nowMs)}`;
    case 'waiting_watch':
      return watchLine(s);
    case 'paused':
      return `paused (${st.reason}) · ${turns} · ${md(st.message.slice(0, 200))}`;
    case 'blocked':
      return `blocked (${st.code}) · ${turns} · ${md(st.message.slice(0, 200))}`;
    case 'budget_limited':
      return `budget_limited (${st.kind}) · ${turns} · ${md(st.message.slice(0, 200))}`;
    case 'completed':
      return `completed after ${s.spent.turns} turn${s.spent.turns === 1 ? '' : 's'} · ${s.spent.toolCalls} tool calls`;
    case 'cancelled':
      return `cancelled by ${md(st.by)} after ${s.spent.turns} turn${s.spent.turns === 1 ? '' : 's'}`;
  }
}

/** `waiting for https://host/path (next check 14:05 UTC) · 3 checks · last: 404` — a watched Goal before its first turn. */
function watchLine(s: GoalSnapshot): string {
  const w = s.watch;
  if (!w) return 'waiting for its watch';
  // Minutes suffice for checks minutes apart; a watch checking every few seconds shows the seconds.
  const at = (ms: number) => (w.spec.everyMs < 60_000 ? clock(ms) : clock(ms).replace(/:\d\d UTC$/, ' UTC'));
  const next = w.nextCheckAtMs !== undefined ? ` (next check ${at(w.nextCheckAtMs)})` : '';
  const last = w.last ? ` · last: ${w.last.error ? md(w.last.error.slice(0, 120)) : `status ${w.last.status}`}` : '';
  return `waiting for ${md(urlShown(w.spec.url))}${next} · ${w.attempts} check${w.attempts === 1 ? '' : 's'}${last}`;
}
