import { ZunoError } from '../../core/errors.js';
import type { ProjectionStore, Transcript } from '../../activities/projection/index.js';
import { openStore, resolvePaths, type ZunoPaths } from '../context.js';
import { processSink } from '../render.js';
import type { Sink } from '../sink.js';
import { checkSessionId } from '../session-id.js';
import { withTemporalTruth } from '../session-reconcile.js';
import { BUCKETS, type ContextUsageSnapshot, type CumulativeUsage } from '../../core/usage.js';
import { EV, parseEventData, TURN_END_EVENT } from '../../core/events.js';
import { messageWithoutCode } from '../../core/errors.js';
import { goalReason } from '../../core/goal/transitions.js';
import { loadTurnRules, renderTurnRules } from './rules-view.js';
import { printStoredPrompt, storedPrompt } from './show-prompt.js';
import { renderRouteStatus, routeStatus } from './show-route.js';
import { callSummary } from './show-args.js';
import { renderToolCall } from './show-call.js';
import { speakerLabel, untakenInputLines } from './show-inputs.js';
import { LIMITS, proseLines, type ShowView } from './show-text.js';
import { compactionLines, compactionMarks, compactionUsageLine, type CompactionMark } from './show-compactions.js';
import { agentLine, type DelegatedBy, delegatedBy, renderDelegations } from './show-delegations.js';

/**
 * `zuno session show <id> [--json] [--full]`: prints the stored transcript
 * (inputs, assistant text, every tool call with readable arguments, outcome,
 * diff and result) from the projection. Only a row that says the session is
 * open is checked against Temporal, when it is up: a workflow closed from
 * outside Zuno settles the row first (`terminated`, with `error`
 * `terminated in Temporal: …`; client/session-reconcile.ts). The human view
 * numbers turns and steps from 1 and cuts long texts at a boundary unless
 * `--full`; it is coloured only when stdout is a terminal (and NO_COLOR is
 * unset). `--json` prints the rows as stored (0-based turns, ids). A
 * session a Goal drives names it (`goal: {id, status, reason}` in JSON).
 * The agent it runs as, for a child its parent and root, and the
 * delegations it made (`delegations`, `delegatedBy` in JSON: the rows as
 * stored) are shown too (show-delegations.ts).
 * @throws ZunoError `session_not_found`.
 */
export async function sessionShowCommand(
  sessionId: string,
  opts: { json?: boolean; full?: boolean; prompt?: boolean | string },
  sink: Sink = processSink,
) {
  checkSessionId(sessionId);
  if (opts.prompt !== undefined && opts.prompt !== false) {
    const store = await openStore(resolvePaths());
    try {
      const at = typeof opts.prompt === 'string' ? opts.prompt : undefined;
      printStoredPrompt(await storedPrompt(store, sessionId, at), opts.json === true, sink);
    } finally {
      await store.close();
    }
    return;
  }
  const color = sink === processSink && process.stdout.isTTY === true && !process.env.NO_COLOR;
  const view: ShowView = { sessionId, full: opts.full === true, color };
  const paths = resolvePaths();
  const store = await openStore(paths);
  try {
    const d = await sessionShowData(paths, store, sessionId);
    const { t, background, rules, route, goal, started, delegations, compactions, usage } = d;
    sink.out(
      opts.json
        ? `${JSON.stringify(sessionShowJson(d), null, 2)}\n`
        : renderTranscript(t, view, await turnEnds(store, sessionId), delegatedBy(t.session, started), compactions) +
            renderBackground(background, t) +
            renderDelegations(delegations, view) +
            (usage ? renderUsage(usage) : '') +
            compactionUsageLine(compactions),
    );
    if (!opts.json) {
      sink.out(renderTurnRules(rules) + (route ? renderRouteStatus(route, sessionId) : ''));
      if (goal)
        sink.out(
          `driven by goal ${goal.id} (${goal.status}${goal.reason ? `, ${goal.reason}` : ''}): zuno goal show ${goal.id}\n`,
        );
    }
  } finally {
    await store.close();
  }
}

/** What `zuno session show` shows of a session, read from the projection (see {@link sessionShowData}). */
export type SessionShowData = Awaited<ReturnType<typeof sessionShowData>>;

/**
 * Reads what `zuno session show` shows: the transcript (settled against
 * Temporal first when its row says the session is open and Temporal is up),
 * background outcomes, turn rules, route, Goal, delegations, compactions and
 * the last usage — for the CLI and `zuno serve` alike.
 * @throws ZunoError `session_not_found`.
 */
export async function sessionShowData(paths: ZunoPaths, store: ProjectionStore, sessionId: string) {
  let t = await store.loadTranscript(sessionId);
  if (!t) throw new ZunoError('session_not_found', `no session ${sessionId} in the projection`);
  // A row that says the session is open is checked against Temporal (session-reconcile.ts).
  const [checked] = await withTemporalTruth(paths, store, [t.session]);
  if (checked !== t.session) t = (await store.loadTranscript(sessionId)) ?? t;
  const last = await store.lastEvent(sessionId, EV.usage);
  const usage = last ? parseEventData(EV.usage, last.data) : null;
  const background = (await store.eventsOfType(sessionId, EV.bgCompleted)).flatMap((e) => {
    const d = parseEventData(EV.bgCompleted, e.data);
    return d ? [d] : [];
  });
  const rules = await loadTurnRules(store, sessionId);
  const route = await routeStatus(paths, t.session);
  const goalRow = await store.goalOfSession(sessionId);
  const goal = goalRow
    ? { id: goalRow.id, status: goalRow.snapshot.state.status, reason: goalReason(goalRow.snapshot) }
    : null;
  const delegations = await store.listDelegations(sessionId);
  const compactions = await compactionMarks(store, sessionId);
  const started = await store.getDelegationOfChild(sessionId);
  return { t, usage, background, rules, route, goal, delegations, compactions, started };
}

/** The JSON `zuno session show --json` prints (and `GET /sessions/{id}/transcript` answers). Pure. */
export function sessionShowJson(d: SessionShowData) {
  const { t, background, rules, route, goal, started, delegations, compactions, usage } = d;
  return {
    ...t,
    background,
    rules,
    route,
    goal,
    delegatedBy: started,
    delegations,
    compactions,
    usage: usage ? { cumulative: usage.cumulative, snapshot: usage.snapshot } : null,
  };
}

/** How one background task ended (from its `bg.completed` event). */
interface BackgroundOutcome {
  taskID: string;
  /** The tool-call row that started the task. */
  rowId?: string;
  state: string;
  outcome: string;
  exitCode: number | null;
  totalWritten: number;
  durationMs: number;
}

/** Plain words for a background task's end state. */
const BG_STATE: Record<string, string> = {
  exited: 'exited',
  cancelled: 'was cancelled',
  timed_out: 'timed out',
  failed: 'failed to run',
  not_started: 'never started',
  lost: 'was lost',
};

/**
 * Human rendering of background task outcomes (BG6): one line per task,
 * named by the call that started it (its summary, turn and step counted
 * from 1; the task id when that call is not in `t`), e.g.
 * `background shell (background): make (turn 1, step 2) exited, exit 0, 12 bytes of output in 1.5 s`.
 */
export function renderBackground(tasks: BackgroundOutcome[], t?: Transcript): string {
  if (tasks.length === 0) return '';
  const calls = new Map((t?.toolCalls ?? []).map((c) => [c.id, c]));
  const lines = tasks.map((b) => {
    const c = b.rowId !== undefined ? calls.get(b.rowId) : undefined;
    const name = c ? `${callSummary(c.tool, c.argsJson)} (${stepLabel(c.turn, c.step)})` : `task ${b.taskID}`;
    return (
      `background ${name} ${BG_STATE[b.state] ?? b.state}${b.exitCode !== null ? `, exit ${b.exitCode}` : ''}` +
      `${b.outcome !== 'ok' ? `, outcome ${b.outcome}` : ''}, ` +
      `${b.totalWritten.toLocaleString('en-US')} bytes of output in ${(b.durationMs / 1000).toFixed(1)} s`
    );
  });
  return `\n${lines.join('\n')}\n`;
}

/** How a turn ended when it did not answer (from its `session.failed|paused|blocked|interrupted` event). */
export interface TurnEnd {
  turn: number;
  status: 'failed' | 'paused' | 'blocked' | 'interrupted';
  error: { code: string; message: string } | null;
}

/** `turn 2 ended blocked (rule_file_unreadable): AGENTS.md at … is a directory…` — the code said once. */
export function turnEndLine(e: TurnEnd): string {
  const why = e.error
    ? ` (${e.error.code}): ${messageWithoutCode(e.error.message, e.error.code).replace(/\s+/g, ' ')}`
    : '';
  return `turn ${e.turn + 1} ended ${e.status}${why}`;
}

/** The turn ends a session's events record, other than answers. */
async function turnEnds(store: ProjectionStore, sessionId: string): Promise<TurnEnd[]> {
  const out: TurnEnd[] = [];
  for (const status of ['failed', 'paused', 'blocked', 'interrupted'] as const) {
    for (const e of await store.eventsOfType(sessionId, TURN_END_EVENT[status])) {
      const d = parseEventData(TURN_END_EVENT[status], e.data);
      if (d) out.push({ turn: d.turn, status, error: d.error });
    }
  }
  return out;
}

/** A step's place for people: `turn 1, step 1` for the stored 0-based turn 0, step 0. */
export function stepLabel(turn: number, step: number): string {
  return `turn ${turn + 1}, step ${step + 1}`;
}

/** The parts of a `session.usage` event the view prints. */
interface UsageRecord {
  cumulative: CumulativeUsage;
  snapshot: ContextUsageSnapshot;
}

/** Human rendering of usage (PR11): cumulative buckets (unknown shown as such, never 0) and the latest context snapshot. */
export function renderUsage(u: UsageRecord): string {
  const c = u.cumulative;
  const bucket = (k: (typeof BUCKETS)[number], label: string) => {
    const known = c.tokens[k];
    const unknown = c.unknownRequests[k] ?? 0;
    if (known === undefined) return `${label} unknown`;
    return `${label} ${known}${unknown > 0 ? ` (+ unknown in ${unknown} of ${c.requests} requests)` : ''}`;
  };
  const lines = [
    '',
    `usage over ${c.requests} provider request${c.requests === 1 ? '' : 's'}: ` +
      [
        bucket('uncachedInput', 'input'),
        bucket('cacheRead', 'cache read'),
        bucket('cacheWrite', 'cache write'),
        bucket('output', 'output'),
      ].join(', ') +
      (c.reasoning !== undefined ? ` (reasoning ${c.reasoning} of output)` : ''),
    `context ≈ ${u.snapshot.totalTokens} tokens` +
      (u.snapshot.confirmedTokens !== undefined
        ? ` (provider-confirmed ${u.snapshot.confirmedTokens} + estimated ${u.snapshot.estimatedTokens})`
        : ` (estimated; the provider reported no usage)`) +
      (u.snapshot.usableTokens !== undefined
        ? ` of ${u.snapshot.usableTokens} usable (window ${u.snapshot.windowTokens})`
        : ''),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * Human rendering of a transcript: one block per step (`── turn 1, step 1`,
 * counted from 1), the person's and the assistant's text, tool calls with
 * readable arguments, outcome, diff and output, inputs no turn took, and the
 * final answer. Long texts are cut unless `view.full`; `by` names who
 * delegated to a child session (default: read from its row). Pure.
 */
export function renderTranscript(
  t: Transcript,
  view: ShowView = { sessionId: t.session.id, full: false, color: false },
  ends: TurnEnd[] = [],
  by: DelegatedBy | null = delegatedBy(t.session, null),
  compactions: CompactionMark[] = [],
): string {
  const s = t.session;
  const lines = [
    `session ${s.id}  ${s.status}  ${s.provider}/${s.model}`,
    `workspace ${s.workspace}${s.host ? ` on host ${s.host}` : ''}`,
    `workflow ${s.workflowId}`,
    agentLine(s, by),
  ];
  if (s.error) lines.push(`error ${s.error}`);
  const calls = new Map(t.toolCalls.map((c) => [c.id, c]));
  const messages = new Map(t.messages.map((m) => [m.id, m]));
  const inputs = new Map(t.inputs.map((i) => [i.id, i]));
  const parts = [...t.parts].sort((a, b) => a.turn - b.turn || a.step - b.step || a.position - b.position);
  const endOf = new Map(ends.map((e) => [e.turn, e]));
  const flushEnd = (turn: number | null) => {
    const e = turn === null ? undefined : endOf.get(turn);
    if (e) lines.push(turnEndLine(e));
  };
  // CP13: each published compaction is marked after the last step it covers.
  const marks = new Map<string, CompactionMark[]>();
  for (const c of compactions) {
    const key = `${c.boundary.turn}.${c.boundary.step}`;
    marks.set(key, [...(marks.get(key) ?? []), c]);
  }
  const flushMarks = (key: string) => {
    for (const c of marks.get(key) ?? []) lines.push(...compactionLines(c));
    marks.delete(key);
  };
  let last = '';
  let lastTurn: number | null = null;
  for (const p of parts) {
    const here = `${p.turn}.${p.step}`;
    if (here !== last) {
      flushMarks(last);
      if (lastTurn !== null && p.turn !== lastTurn) flushEnd(lastTurn);
      lines.push('', `── ${stepLabel(p.turn, p.step)}`);
      last = here;
      lastTurn = p.turn;
    }
    const m = messages.get(p.messageId);
    if (p.kind === 'text')
      lines.push(...proseLines(m?.role === 'user' ? speakerLabel(m, inputs) : 'assistant', p.text ?? '', view));
    else if (p.kind === 'reasoning') lines.push(...proseLines('reasoning', p.text ?? '', view, LIMITS.reasoning));
    else if (p.kind === 'tool_call' && p.toolCallId) {
      const c = calls.get(p.toolCallId);
      if (c) lines.push(...renderToolCall(c, view));
    }
  }
  flushMarks(last);
  flushEnd(lastTurn);
  for (const key of [...marks.keys()]) flushMarks(key);
  lines.push(...untakenInputLines(t, view));
  if (s.finalText) lines.push('', ...proseLines('final', s.finalText, view));
  return `${lines.join('\n')}\n`;
}
