import type { PlannedToolCall } from '../core/session/tool-calls.js';
import type { SessionRoute } from '../core/session/meta.js';
import type { TurnOutcome } from '../core/session/outcome.js';
import { markdownLiteral as md } from '../core/ui-text.js';

/**
 * The Temporal UI's "current details" of a session, one plain line (the UI
 * renders Markdown: every piece of text that comes from a prompt, a model
 * or a provider is made literal with core/ui-text.ts) (turns
 * and steps 1-based, times UTC), e.g. `turn 3 · shell: npm test · since
 * 06:41:05 UTC`. Pure; `nowMs` is workflow time.
 */
export const statusLine = {
  /** A model step is running. */
  model(turn: number, step: number, model: string, nowMs: number): string {
    return `turn ${turn + 1} · step ${step + 1} · asking ${md(model)} · since ${clock(nowMs)}`;
  },
  /** A compaction runs before the next request (CP6); `recovery` of `max` in this turn, 0 for a manual one. */
  compacting(turn: number, recovery: number, max: number, nowMs: number): string {
    const which = recovery > 0 ? ` (${recovery} of ${max})` : ' (asked by a person)';
    return `turn ${turn + 1} · compacting${which} · since ${clock(nowMs)}`;
  },
  /** Tool calls of one step are running; `summaries` are their one-line summaries in call order. */
  tools(turn: number, calls: Pick<PlannedToolCall, 'name' | 'summary'>[], nowMs: number): string {
    const first = calls[0]?.summary ?? calls[0]?.name ?? 'tools';
    const more = calls.length > 1 ? ` (+${calls.length - 1} more)` : '';
    return `turn ${turn + 1} · ${md(first)}${more} · since ${clock(nowMs)}`;
  },
  /** A hard interrupt is settling the turn. */
  interrupting(turn: number, nowMs: number): string {
    return `turn ${turn + 1} · interrupting: waiting for running calls to stop · since ${clock(nowMs)}`;
  },
  /** Between turns. `taskIds`: background tasks still running; `labels`: what each one runs (`remote observer · sh ci/run`). */
  idle(
    turns: number,
    last: TurnOutcome | null,
    taskIds: string[],
    nowMs: number,
    labels: Readonly<Record<string, string>> = {},
  ): string {
    const after = last ? ` · last turn: ${md(describeOutcome(last))}` : '';
    if (taskIds.length > 0) {
      const named = (id: string) => (labels[id] ? `${id}: ${md(labels[id].slice(0, 80))}` : id);
      const ids = taskIds.slice(0, 3).map(named).join(', ') + (taskIds.length > 3 ? ', …' : '');
      return `waiting for ${taskIds.length} background task${taskIds.length === 1 ? '' : 's'} (${ids})${after} · since ${clock(nowMs)}`;
    }
    return `idle after ${turns} turn${turns === 1 ? '' : 's'}${after} · since ${clock(nowMs)}`;
  },
  /** No worker of the session's route has taken its next activity (see workflows/route.ts). */
  waitingForWorker(route: SessionRoute, workspace: string, sinceMs: number): string {
    const who =
      route.servedBy === 'worker'
        ? `a \`zuno worker\` on host ${md(route.host)}`
        : `the \`zuno\` command driving it on host ${md(route.host)} (\`zuno session resume\` there)`;
    return `waiting for a worker: no worker serves task queue ${md(route.taskQueue)} (workspace ${md(workspace)}); start ${who} · since ${clock(sinceMs)}`;
  },
  /** The session is paused until `zuno session resume` (its cause fixed). */
  paused(turns: number, last: TurnOutcome | null, sessionId: string): string {
    const why = last ? md(describeOutcome(last)) : 'paused';
    return `${why} · fix the cause, then \`zuno session resume ${md(sessionId)}\` (after ${turns} turn${turns === 1 ? '' : 's'})`;
  },
  /** The session ended. */
  closed(turns: number, last: TurnOutcome | null): string {
    return `ended after ${turns} turn${turns === 1 ? '' : 's'}${last ? `: ${md(describeOutcome(last))}` : ''}`;
  },
};

/** A turn outcome in plain words (`final answer`, `failed (provider_bad_request): [local]: HTTP 400 …`), the code said once. */
export function describeOutcome(o: TurnOutcome): string {
  switch (o.kind) {
    case 'final_answer':
      return 'final answer';
    case 'failed':
      return `failed (${o.code}): ${withoutCode(o.message, o.code)}`;
    case 'paused':
      return `paused (${o.reason}): ${withoutCode(o.message, o.reason)}`;
    case 'blocked':
      return `blocked (${o.code}): ${withoutCode(o.message, o.code)}`;
    case 'interrupted':
      return 'interrupted';
    case 'limit':
      return `stopped by a limit: ${oneLine(o.message)}`;
  }
}

/** One line of `message` without a leading repeat of `code` (provider errors start with their code). */
function withoutCode(message: string, code: string): string {
  const m = message.trimStart();
  return oneLine(m.startsWith(code) ? m.slice(code.length).replace(/^[\s:]+/, '') || m : m);
}

function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length <= 160 ? flat : `${flat.slice(0, 159)}…`;
}

function clock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}
