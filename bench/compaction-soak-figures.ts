/**
 * The figures of bench/compaction-soak.ts, read from what a run left: the
 * projection's events (`session.usage`, `session.provider.request`,
 * `context.compact`, `session.compaction.summary` / `.failed`, the turn
 * ends), the Temporal history of every run of the session workflow, and the
 * requests the scripted provider captured (sized by `requestTokens`).
 */
import type { Client } from '@temporalio/client';
import { EV, parseEventData, type EventType } from '../core/events.js';
import type { ProjectionStore } from '../activities/projection/types.js';
import type { SoakRequest, SoakRun } from './compaction-soak-run.js';

/** One compaction as the events tell it. */
export interface CompactionFigure {
  compactionId: string;
  trigger: string;
  turn: number;
  step: number;
  /** The estimate (or the provider's figure) that triggered it, and the limit it was held against. */
  usedTokens: number | null;
  limitTokens: number | null;
  /** Published: the conversation's estimated tokens before and after; null if it published nothing. */
  beforeTokens: number | null;
  afterTokens: number | null;
  /** Usage tokens per turn, average of the (up to) 3 turns before and the 3 after the compaction's turn. */
  perTurnBefore: number | null;
  perTurnAfter: number | null;
  /** Usage tokens of its summary request (input + output; 0 when unreported or unpublished). */
  summaryTokens: number;
}

/** The session workflow's Temporal history: events summed over its runs, and how many continue-as-new there were. */
export interface HistoryFigure {
  runs: number;
  continueAsNew: number;
  events: number;
  largestRun: number;
}

/** Everything the bench prints about one run. */
export interface RunFigures {
  label: string;
  goalStatus: string;
  endedBy: string | null;
  /** Turns the Goal counted (`spent.turns`), and turn ends by status. */
  turns: number;
  /** Tokens the Goal counted (`spent.tokens`: its budget's measure, summary requests included since issue 28). */
  goalTokens: number;
  turnEnds: Record<string, number>;
  mainRequests: number;
  compactionRequests: number;
  /** Largest main request: BPE tokens of the captured body, and its turn. */
  largestRequest: { tokens: number; turn: number | null };
  /** Largest input the provider reported (the usage event's inputTokens; the local provider estimates chars/4). */
  largestReportedInput: number;
  /** Largest request estimate Zuno recorded (the usage snapshot's `requestEstimate`, its estimator); 0: none recorded. */
  largestRecordedEstimate: number;
  /** Main requests over the usable window (window − reserve) and over the whole window. */
  overUsable: number;
  overWindow: number;
  /** Main requests the scripted provider counts over the window (refused with a context-limit error when it enforces it). */
  providerOverWindow: number;
  compactions: CompactionFigure[];
  compactionFailures: { code: string; message: string }[];
  /** Usage tokens (the four PR11 buckets) by turn, main requests only. */
  tokensByTurn: Map<number, number>;
  /** The turn of the first main request over the bench's stop size (the baseline), else null. */
  overflowTurn: number | null;
  /** Every captured request in order: BPE tokens, `S` marking a summary request (JSON output only). */
  requestSizes: string[];
  history: HistoryFigure;
  goalHistory: HistoryFigure;
  wallMs: number;
}

/** The data of every event of `type` in the session, parsed; rows that do not parse are skipped. */
async function events<T extends EventType>(store: ProjectionStore, sessionId: string, type: T) {
  const rows = await store.eventsOfType(sessionId, type);
  return rows.map((r) => parseEventData(type, r.data)).filter((d) => d !== null);
}

/**
 * The history of every run of workflow `workflowId`, newest first, walked
 * back through `continuedExecutionRunId` from the latest run.
 */
export async function historyFigure(client: Client, workflowId: string): Promise<HistoryFigure> {
  const sizes: number[] = [];
  let runId: string | undefined = undefined;
  for (;;) {
    const history: Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>> =
      await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const evs = history.events ?? [];
    sizes.push(evs.length);
    const prev: string | null | undefined = evs[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!prev) break;
    runId = prev;
  }
  return {
    runs: sizes.length,
    continueAsNew: sizes.length - 1,
    events: sizes.reduce((a, b) => a + b, 0),
    largestRun: Math.max(...sizes),
  };
}

const bucketSum = (b: { uncachedInput?: number; cacheRead?: number; cacheWrite?: number; output?: number }) =>
  (b.uncachedInput ?? 0) + (b.cacheRead ?? 0) + (b.cacheWrite ?? 0) + (b.output ?? 0);

/** Average of `tokensByTurn` over turns `from..to` (inclusive) that have usage; null if none. */
function averageOver(tokensByTurn: Map<number, number>, from: number, to: number): number | null {
  const xs: number[] = [];
  for (let t = from; t <= to; t++) if (tokensByTurn.has(t)) xs.push(tokensByTurn.get(t)!);
  return xs.length === 0 ? null : Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);
}

/** The compactions of the session: markers joined with their summaries, and per-turn usage around each. */
async function compactionFigures(
  store: ProjectionStore,
  sessionId: string,
  tokensByTurn: Map<number, number>,
): Promise<CompactionFigure[]> {
  const markers = await events(store, sessionId, EV.contextCompact);
  const summaries = new Map((await events(store, sessionId, EV.compactionSummary)).map((s) => [s.compactionId, s]));
  const seen = new Set<string>();
  const out: CompactionFigure[] = [];
  for (const m of markers) {
    if (seen.has(m.compactionId)) continue; // a retried attempt writes its marker again
    seen.add(m.compactionId);
    const s = summaries.get(m.compactionId);
    out.push({
      compactionId: m.compactionId,
      trigger: m.trigger,
      turn: m.turn,
      step: m.step,
      usedTokens: m.usedTokens ?? null,
      limitTokens: m.limitTokens ?? null,
      beforeTokens: s?.beforeTokens ?? null,
      afterTokens: s?.afterTokens ?? null,
      perTurnBefore: averageOver(tokensByTurn, m.turn - 3, m.turn - 1),
      perTurnAfter: averageOver(tokensByTurn, m.turn + 1, m.turn + 3),
      summaryTokens: s?.usage ? (s.usage.inputTokens ?? 0) + (s.usage.outputTokens ?? 0) : 0,
    });
  }
  return out;
}

/** The turn ends of the session by status (`completed`, `failed`, …). */
async function turnEnds(store: ProjectionStore, sessionId: string): Promise<Record<string, number>> {
  const ends: Record<string, number> = {};
  for (const [status, type] of [
    ['completed', EV.completed],
    ['failed', EV.failed],
    ['paused', EV.paused],
    ['blocked', EV.blocked],
    ['interrupted', EV.interrupted],
  ] as const) {
    const n = (await store.eventsOfType(sessionId, type)).length;
    if (n > 0) ends[status] = n;
  }
  return ends;
}

/**
 * The figures of one run (see {@link RunFigures}). `windowTokens` and
 * `usableTokens` are what requests are held against.
 */
export async function runFigures(
  store: ProjectionStore,
  client: Client,
  run: SoakRun,
  window: { windowTokens: number; usableTokens: number },
): Promise<RunFigures> {
  const usage = await events(store, run.sessionId, EV.usage);
  const tokensByTurn = new Map<number, number>();
  for (const u of usage) tokensByTurn.set(u.turn, (tokensByTurn.get(u.turn) ?? 0) + bucketSum(u.buckets));
  const failures = await events(store, run.sessionId, EV.compactionFailed);
  const main = run.requests.filter((r) => !r.compaction);
  const largest = main.reduce<SoakRequest | null>((best, r) => (r.tokens > (best?.tokens ?? -1) ? r : best), null);
  return {
    label: run.label,
    goalStatus: run.final.state.status,
    endedBy: run.endedBy,
    turns: run.final.spent.turns,
    goalTokens: run.final.spent.tokens,
    turnEnds: await turnEnds(store, run.sessionId),
    mainRequests: main.length,
    compactionRequests: run.requests.length - main.length,
    largestRequest: { tokens: largest?.tokens ?? 0, turn: largest?.turn ?? null },
    largestReportedInput: Math.max(0, ...usage.map((u) => u.usage?.inputTokens ?? 0)),
    largestRecordedEstimate: Math.max(0, ...usage.map((u) => u.snapshot.requestEstimate ?? 0)),
    overUsable: main.filter((r) => r.tokens > window.usableTokens).length,
    overWindow: main.filter((r) => r.tokens > window.windowTokens).length,
    providerOverWindow: main.filter((r) => r.providerTokens > window.windowTokens).length,
    compactions: await compactionFigures(store, run.sessionId, tokensByTurn),
    compactionFailures: failures.map((f) => ({ code: f.code, message: f.message })),
    tokensByTurn,
    overflowTurn: run.overflowAt === null ? null : (run.requests[run.overflowAt]?.turn ?? null),
    requestSizes: run.requests.map((r) => `${r.compaction ? 'S' : ''}${r.tokens}`),
    history: await historyFigure(client, run.workflowId),
    goalHistory: await historyFigure(client, run.goalWorkflowId),
    wallMs: run.wallMs,
  };
}

/** Usage tokens of turns `< beforeTurn` (main requests, plus the summary requests of compactions in those turns). */
export function tokensBefore(f: RunFigures, beforeTurn: number): number {
  let sum = 0;
  for (const [t, n] of f.tokensByTurn) if (t < beforeTurn) sum += n;
  for (const c of f.compactions) if (c.turn < beforeTurn) sum += c.summaryTokens;
  return sum;
}

/** Usage tokens of the whole run (main requests and summary requests). */
export function totalTokens(f: RunFigures): number {
  return tokensBefore(f, Number.POSITIVE_INFINITY);
}
