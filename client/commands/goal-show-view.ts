import { formatDuration, type GoalBudgets } from '../../core/goal/budgets.js';
import type { GoalSnapshot, GoalTransition } from '../../core/goal/contract.js';
import { TERMINAL_GOAL_STATUSES } from '../../core/goal/status.js';
import type { SessionRow } from '../../activities/projection/index.js';
import type { GoalLive } from './goal-live.js';
import { statusWithReason } from './goal-list.js';
import { waitingWatchLine, watchLines } from './goal-watch-view.js';

/** Everything `zuno goal show` prints. */
export interface GoalView {
  goal: GoalSnapshot;
  session: SessionRow | null;
  /** What Temporal says now; null for a Goal that has ended (nothing is asked). */
  live: GoalLive | null;
  /** The Plan/Todo section (goal-work-state.ts), or null when there is none to show. */
  workState: string | null;
}

const n = (v: number) => v.toLocaleString('en-US');

/** `2024-05-01 14:03:10 UTC` */
function when(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** White space (newlines included) collapsed. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Wall time the Goal has run (the unit of its time budget): until now, or until it ended. */
export function goalElapsedMs(s: GoalSnapshot, nowMs: number): number {
  return (TERMINAL_GOAL_STATUSES.has(s.state.status) ? s.updatedAtMs : nowMs) - s.createdAtMs;
}

/**
 * The budget lines: each budget with what is spent and what is left
 * (`tokens 1,234 of 5,000 (3,766 left)`), the counters without a budget as
 * spent so far. Pure.
 */
export function budgetLines(b: GoalBudgets, s: GoalSnapshot, nowMs: number): string[] {
  const left = (limit: number, used: number) => `${n(Math.max(0, limit - used))} left`;
  const elapsed = goalElapsedMs(s, nowMs);
  const unmeasured =
    s.spent.unmeasuredRequests > 0
      ? `; ${s.spent.unmeasuredRequests} request${s.spent.unmeasuredRequests === 1 ? '' : 's'} reported no usage`
      : '';
  return [
    b.tokens
      ? `tokens      ${n(s.spent.tokens)} of ${n(b.tokens.limit)} (${left(b.tokens.limit, s.spent.tokens)}${b.tokens.source === 'host_default' ? '; the host default' : ''}${unmeasured})`
      : `tokens      ${n(s.spent.tokens)} so far (no budget${unmeasured})`,
    ...(b.turnTokens !== undefined
      ? [`per turn    at most ${n(b.turnTokens)} tokens (a turn that reaches it pauses the goal)`]
      : []),
    b.toolCalls !== undefined
      ? `tool calls  ${n(s.spent.toolCalls)} of ${n(b.toolCalls)} (${left(b.toolCalls, s.spent.toolCalls)})`
      : `tool calls  ${n(s.spent.toolCalls)} so far (no budget)`,
    b.timeMs !== undefined
      ? `time        ${formatDuration(elapsed)} of ${formatDuration(b.timeMs)} (${elapsed >= b.timeMs ? 'none' : formatDuration(b.timeMs - elapsed)} left)`
      : `time        ${formatDuration(elapsed)} so far (no budget)`,
  ];
}

/** How the Goal stands, in one line: `paused (no_progress): 3 turns in a row changed nothing…`. */
function statusLine(s: GoalSnapshot, nowMs: number): string {
  const st = s.state;
  switch (st.status) {
    case 'backoff':
      return `backoff: retrying after ${st.cause} at ${when(st.untilMs)} (attempt ${st.attempt})`;
    case 'waiting_watch':
      return waitingWatchLine(s, nowMs);
    case 'waiting_background':
      return `waiting for remote observer${st.taskIds.length === 1 ? '' : 's'} ${st.taskIds.join(', ')}`;
    case 'cancelled':
      return `cancelled by ${st.by}`;
    case 'paused':
    case 'blocked':
    case 'budget_limited':
      return `${statusWithReason(s)}: ${oneLine(st.message)}`;
    default:
      return st.status;
  }
}

/** A waiting watch's line as the workflow shows it now (its next check is exact there); null otherwise. */
function liveWatchLine(v: GoalView): string | null {
  const d = v.live?.currentDetails;
  return v.goal.state.status === 'waiting_watch' && d?.startsWith('waiting for ') ? d : null;
}

/** What was spent at a transition, against the budgets then: `tokens 1,200 of 5,000 · tool calls 3 · turns 2`. */
function spentThen(t: GoalTransition): string {
  const b = t.budgets;
  return [
    `tokens ${n(t.spent.tokens)}${b.tokens ? ` of ${n(b.tokens.limit)}` : ''}`,
    `tool calls ${n(t.spent.toolCalls)}${b.toolCalls !== undefined ? ` of ${n(b.toolCalls)}` : ''}`,
    `turns ${n(t.spent.turns)}`,
    ...(b.timeMs !== undefined ? [`time budget ${formatDuration(b.timeMs)}`] : []),
  ].join(' · ');
}

/**
 * The audit trail (issue 26 item 7), one transition per line, oldest first:
 * `r3  2025-05-01 12:01:00 UTC  active → paused (required_input)  by the
 * model: goal_request_input (call c1) — "Which branch?"`, then the receipts
 * cited and what was spent at that point on an indented line. Pure.
 */
export function transitionLines(ts: GoalTransition[]): string[] {
  const out: string[] = [];
  for (const t of ts) {
    const to = `${t.to}${t.reason ? ` (${oneLine(t.reason)})` : ''}`;
    const why = t.message ? ` — ${JSON.stringify(oneLine(t.message))}` : '';
    out.push(`  r${t.revision}  ${when(t.atMs)}  ${t.from ?? 'start'} → ${to}  by ${oneLine(t.by)}${why}`);
    const evidence = t.evidence && t.evidence.length > 0 ? `evidence ${t.evidence.join(', ')} · ` : '';
    out.push(`        ${evidence}${spentThen(t)}`);
  }
  return out;
}

/**
 * The human view of one Goal: objective, status with its reason, revision,
 * session, turns, budgets used and left, criteria with the receipts that
 * settled them, the open question or unknown outcomes, the last refused
 * audit, every status transition (the audit trail), the work state when there is one, and — for a Goal not ended — what
 * Temporal's current details say now. Pure.
 */
export function renderGoal(v: GoalView, nowMs: number): string {
  const s = v.goal;
  const out: string[] = [];
  out.push(`goal ${s.goalId} · ${statusWithReason(s)} · revision ${s.revision}`);
  out.push(`objective   ${s.objective.split('\n').join('\n            ')}`);
  out.push(`status      ${liveWatchLine(v) ?? statusLine(s, nowMs)}`, ...watchLines(s));
  const sess = v.session;
  out.push(
    `session     ${s.sessionId}${sess ? ` · workspace ${sess.workspace} · model ${sess.provider}/${sess.model}` : ''} (zuno session show ${s.sessionId})`,
  );
  out.push(`turns       ${s.spent.turns}`);
  out.push(`started     ${when(s.createdAtMs)} · last change ${when(s.updatedAtMs)}`);
  out.push('', 'budgets', ...budgetLines(s.budgets, s, nowMs).map((l) => `  ${l}`));
  out.push('', s.criteria.length === 0 ? 'criteria    none (the goal may complete without a checklist)' : 'criteria');
  for (const c of s.criteria) {
    const need = c.watch
      ? ' (owned by the release watch: only its report settles it)'
      : c.check
        ? ` (owned by the check \`${oneLine(c.check)}\`)`
        : c.needsEvidence
          ? ' (needs an authoritative receipt)'
          : '';
    const evidence = c.evidence ? ` — evidence ${c.evidence.receiptId} (call ${c.evidence.callId})` : '';
    out.push(`  ${c.id}  ${c.status.padEnd(9)}  ${oneLine(c.text)}${need}${evidence}`);
  }
  if (s.question)
    out.push('', `question    ${oneLine(s.question.text)} (${s.question.requestId}; zuno goal answer ${s.goalId} "…")`);
  if (s.uncertain && s.uncertain.length > 0) {
    out.push('', 'unknown outcomes');
    for (const u of s.uncertain) out.push(`  ${u.tool} ${u.callId} (${u.cause})`);
  }
  if (s.lastAudit && !s.lastAudit.ok) {
    out.push('', `last audit  refused at ${when(s.lastAudit.atMs)}: ${s.lastAudit.problems.map(oneLine).join('; ')}`);
  }
  const trail = s.transitions ?? [];
  out.push(
    '',
    trail.length === 0
      ? 'transitions none recorded (a goal recorded before issue 26 has no audit trail)'
      : `transitions (${trail.length}, oldest first)`,
    ...transitionLines(trail),
  );
  if (v.workState) out.push('', v.workState.trimEnd());
  if (v.live) {
    const l = v.live;
    const details = l.currentDetails ?? `unknown: ${l.note ?? 'no worker answered'}`;
    out.push(
      '',
      `temporal    goal/${s.goalId}${l.execution ? ` · ${l.execution.toLowerCase()}` : ''} · ${l.execution === null ? (l.note ?? 'not reachable') : details}`,
    );
  }
  return `${out.join('\n')}\n`;
}
