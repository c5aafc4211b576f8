import type { EventRow } from '../activities/projection/index.js';
import { mcpLine } from './render-mcp.js';
import { messageWithoutCode } from '../core/errors.js';
import { inertBlock, inertText, plainTerminalLine } from '../core/terminal-text.js';
import { timedOutWords } from '../core/tools/shell.js';
import { EV, type EventData as DataOf, parseEvent, TURN_END_EVENTS, type TypedEvent } from '../core/events.js';
import { readsFailed } from './commands/tool-record-view.js';
import { notInForceLine } from './commands/rules-view.js';
import { councilEndLine, delegationEndLine } from './render-delegation.js';
import { LiveProgress, streamSink, type PendingActivitiesReader, type ProgressTiming } from './live-progress.js';
import type { Sink } from './sink.js';

/** How an approval ended, in words. */
const DECIDED: Record<string, string> = {
  approve_once: 'approved once',
  approve_session: 'approved for this session',
  deny: 'denied',
  not_run: 'not run (the turn was interrupted)',
};

/** The process's stdout/stderr (with the status line when stderr is a terminal). */
export const processSink: Sink = streamSink(process.stdout, process.stderr);

/** One NDJSON line per stored event (SF2 `--json`): `{type, seq, sessionId, atMs, ...data}`. */
export function eventToJsonLine(e: EventRow): string {
  return `${JSON.stringify({ type: e.type, seq: e.seq, sessionId: e.sessionId, atMs: e.atMs, ...e.data })}\n`;
}

/**
 * Human progress renderer for `zuno run`. When `streamText` is true (stdout
 * is a terminal) assistant text streams to stdout as it arrives and the final
 * answer is not printed again; otherwise only the final answer goes to stdout
 * and progress lines go to stderr, so `zuno run … > answer.txt` captures the answer.
 * Turns and steps are counted from 1 (the stored events count from 0); a
 * tool call that runs long shows its progress (live-progress.ts): a status
 * line when the sink has one (a terminal), else an occasional plain line.
 */
export class HumanRenderer {
  private midLine = false;
  /** Assistant text of the current model request was streamed to stdout (so a retry discards text the user saw). */
  private streamedThisRequest = false;
  /** The newest provider.retry notice, to tell a retry's rollback what was already said. */
  private lastRetry: Extract<TypedEvent, { type: typeof EV.providerRetry }>['data'] | undefined;
  private readonly live: LiveProgress;

  /**
   * The note after an answer that left background tasks running (null: none);
   * `zuno goal` followers replace it — there Ctrl-C pauses the goal.
   */
  backgroundNote: (taskIds: string[]) => string | null = (ids) =>
    `(waiting for background task${ids.length > 1 ? 's' : ''} ${ids.join(', ')}: a completion report starts a new turn; Ctrl-C stops ${ids.length > 1 ? 'them' : 'it'})`;

  /**
   * @param live where running tool calls' heartbeat details come from
   *   (`pendingActivities`), and test hooks for the progress clock.
   */
  constructor(
    private readonly sink: Sink,
    private readonly streamText: boolean,
    live: {
      pendingActivities?: PendingActivitiesReader;
      timing?: Partial<ProgressTiming>;
      now?: () => number;
      manual?: boolean;
    } = {},
  ) {
    this.live = new LiveProgress({
      line: (t) => this.line(t),
      ...(sink.status ? { status: (t: string | null) => sink.status!(t) } : {}),
      ...(sink.columns ? { columns: () => sink.columns!() } : {}),
      ...live,
    });
  }

  /** The live progress of running tool calls (tests drive its clock). */
  get progress(): LiveProgress {
    return this.live;
  }

  /** Renders one event; an event this build's catalogue does not know (or cannot parse) is skipped. */
  render(row: EventRow): void {
    const e = parseEvent(row);
    if (!e) return;
    switch (e.type) {
      case EV.partDelta:
        this.streamed(e.data.text);
        break;
      case EV.providerRequest:
        this.streamedThisRequest = false;
        break;
      case EV.providerRetry:
        this.lastRetry = e.data;
        if (e.data.willRetry) this.line(retryLine(e.data));
        break;
      case EV.stepRollback:
        this.rollback(e.data);
        break;
      case EV.toolStarted:
        this.line(`→ ${e.data.summary || e.data.tool}${e.data.attempt > 1 ? ` (attempt ${e.data.attempt})` : ''}`);
        this.live.started(e.data.rowId, e.data.tool, e.data.summary, e.data.attempt, row.atMs);
        break;
      case EV.toolCompleted:
        this.live.ended(e.data.rowId);
        this.line(toolCompletedLine(e.data));
        break;
      case EV.toolBlocked:
        this.live.ended(e.data.rowId);
        this.line(`✗ ${e.data.tool} blocked (${e.data.category}): ${plainTerminalLine(e.data.message)}`);
        break;
      case EV.completed:
        this.answered(e.data.text ?? '', e.data.background);
        break;
      case EV.approvalRequested:
        this.line(
          `? ${e.data.tool} waits for your approval (${e.data.approvalId}): ${inertText(e.data.subjectText)} — ` +
            `zuno approvals approve|deny ${e.data.approvalId}`,
        );
        break;
      case EV.approvalDecided:
        this.line(
          `${e.data.decision === 'deny' ? '✗' : e.data.decision === 'not_run' ? '·' : '✓'} ${e.data.approvalId} ${DECIDED[e.data.decision]}`,
        );
        break;
      case EV.bgCompleted:
        this.line(bgCompletedLine(e.data));
        break;
      case EV.failed:
      case EV.paused:
      case EV.blocked:
        // Said once, by the `zuno: <code>: …` line that ends the run (sessionEndLine); only end streamed text here.
        this.live.stop();
        this.endLine();
        break;
      case EV.interrupted:
        this.live.stop();
        this.line(`session interrupted (turn ${e.data.turn + 1})`);
        break;
      case EV.instructionNotInForce:
        this.line(notInForceLine(e.data));
        break;
      case EV.contextCompact:
      case EV.compactionSummary:
      case EV.compactionFailed: {
        const line = compactionLine(e);
        if (line) this.line(line);
        break;
      }
      case EV.mcpServerState:
      case EV.mcpToolsExposed:
        this.line(mcpLine(e));
        break;
      case EV.toolLateResult:
      case EV.toolSettlementSuperseded:
      case EV.toolDispatchInterrupted:
        this.line(aftermathLine(e));
        break;
      default:
        break;
    }
  }

  /** Streamed answer text, shown as it arrives when this renderer streams. */
  private streamed(text: string): void {
    if (!this.streamText) return;
    this.sink.out(inertBlock(text));
    this.midLine = !text.endsWith('\n');
    if (text !== '') this.streamedThisRequest = true;
  }

  /** The turn's answer (unless it was streamed), then what keeps running in the background. */
  private answered(text: string, background: string[]): void {
    this.live.stop();
    if (this.midLine) this.sink.out('\n');
    this.midLine = false;
    if (!this.streamText) this.sink.out(`${inertBlock(text)}\n`);
    const note = background.length > 0 ? this.backgroundNote(background) : null;
    if (note) this.line(note);
  }

  /**
   * A model step's next attempt started and rolled back what the earlier one
   * stored. Says that output was discarded only when it was: stored parts
   * (`discardedParts`), or text this terminal showed as it streamed; a
   * retry already announced by its provider.retry notice says nothing more.
   */
  private rollback(d: Extract<TypedEvent, { type: typeof EV.stepRollback }>['data']): void {
    const attempt = attemptOf(d.attempt, d.maxAttempts);
    const parts = d.discardedParts ?? 0;
    const r = this.lastRetry;
    const announced = r?.willRetry === true && r.turn === d.turn && r.step === d.step && r.attempt === d.attempt - 1;
    if (parts > 0) {
      this.line(
        `(retrying the model request (${attempt}): the ${parts} part${parts === 1 ? '' : 's'} the earlier attempt had stored ${parts === 1 ? 'was' : 'were'} discarded)`,
      );
    } else if (this.streamedThisRequest) {
      this.line(
        `(retrying the model request (${attempt}): the text streamed above by the earlier attempt is discarded)`,
      );
    } else if (!announced) {
      this.line(`(retrying the model request (${attempt}) after: the earlier attempt ended without a result)`);
    }
    this.streamedThisRequest = false;
  }

  private endLine(): void {
    if (this.midLine) {
      this.sink.out('\n');
      this.midLine = false;
    }
  }

  /** One progress line on stderr; any control character in it (from a model or a tool) escaped. */
  private line(text: string): void {
    this.endLine();
    this.sink.err(`${inertBlock(text)}\n`);
  }
}

/** `attempt 2 of 3`, or `attempt 2` when the limit is unknown (older rows). */
function attemptOf(attempt: number, max: number | undefined): string {
  return `attempt ${attempt}${max !== undefined ? ` of ${max}` : ''}`;
}

/** White space (newlines included) collapsed: a message always prints as one line. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The one line that ends a `zuno run` whose session did not complete:
 * `zuno: <code>: session <id> <status>: <message>` — the code said once
 * (a message that repeats it, as provider errors recorded by older builds
 * do, loses the repeat), the message on one line.
 */
export function sessionEndLine(
  sessionId: string,
  status: string,
  error: { code: string; message: string } | null | undefined,
): string {
  const code = error?.code ?? 'session_failed';
  const message = oneLine(messageWithoutCode(error?.message ?? '', code));
  return `zuno: ${code}: session ${sessionId} ${status}${message ? `: ${message}` : ''}\n`;
}

/** true for the events that end a `zuno run`. */
export function isTerminalEvent(type: string): boolean {
  return TURN_END_EVENTS.has(type);
}

type EventData<T extends TypedEvent['type']> = Extract<TypedEvent, { type: T }>['data'];

/** `(retrying the model request (attempt 2 of 5) in 1.0 s after: …)` */
function retryLine(d: EventData<typeof EV.providerRetry>): string {
  return (
    `(retrying the model request (${attemptOf(d.attempt + 1, d.maxAttempts)}) in ${(d.delayMs / 1000).toFixed(1)} s after: ` +
    `${oneLine(messageWithoutCode(d.diagnostic.reason, d.code))})`
  );
}

/** What happened to a call after (or instead of) its own report: a late result, a superseded settlement, an interrupt's verdict (SF13). */
function aftermathLine(
  e: Extract<
    TypedEvent,
    { type: typeof EV.toolLateResult | typeof EV.toolSettlementSuperseded | typeof EV.toolDispatchInterrupted }
  >,
): string {
  if (e.type === EV.toolDispatchInterrupted) return `  ${e.data.tool} ${e.data.callId}: ${e.data.verdict}`;
  if (e.type === EV.toolLateResult)
    return `(${e.data.tool} reported ${e.data.outcome} after it was recorded uncertain; the record stands)`;
  return (
    `(${e.data.tool}: the workflow saw ${e.data.workflowSaw.failureType} and settled ${e.data.workflowSaw.outcome}, ` +
    `but the call's own ${e.data.stands} result had already been recorded; that result stands)`
  );
}

/**
 * How a tool call ended, on one line: `✓ read ok, 120 bytes, 4 ms`, `✗ shell failed, exit 1, …`, `? … uncertain`;
 * a delegation's or Council's end in their own words.
 */
function toolCompletedLine(d: EventData<typeof EV.toolCompleted>): string {
  if (d.facts?.child) return delegationEndLine({ ...d, child: d.facts.child });
  if (d.facts?.council) return councilEndLine({ ...d, council: d.facts.council });
  // A call that ran but did not do what it was asked (a shell exit ≠ 0) is a failure mark, whatever its outcome.
  const failed = readsFailed(d.outcome, d.facts);
  const mark = d.outcome === 'uncertain' ? '?' : failed ? '✗' : '✓';
  const word = d.outcome === 'ok' && failed ? 'failed' : d.outcome;
  const exit =
    d.facts?.exitCode !== undefined
      ? `, exit ${d.facts.exitCode}`
      : d.facts?.timeLimitMs !== undefined
        ? `, ${timedOutWords(d.facts.timeLimitMs)}`
        : d.facts?.signal
          ? `, killed by ${d.facts.signal}`
          : '';
  return (
    `${mark} ${d.tool} ${word}${exit}` +
    `${d.facts?.conflict ? ` (${d.facts.conflict})` : ''}` +
    `${d.cause ? ` (${d.cause})` : ''}` +
    `${d.errorCode && d.errorCode !== d.facts?.conflict ? ` (${d.errorCode})` : ''}${d.outputBytes !== undefined ? `, ${d.outputBytes} bytes` : ''}` +
    `${d.durationMs !== undefined ? `, ${d.durationMs} ms` : ''}`
  );
}

/** `✓ background bg_1_0_0 exited exit 0, 12 bytes` */
function bgCompletedLine(d: EventData<typeof EV.bgCompleted>): string {
  const mark = d.outcome !== 'ok' ? '?' : d.exitCode !== null && d.exitCode !== 0 ? '✗' : '✓';
  return (
    `${mark} background ${d.taskID} ${d.state}` +
    `${d.exitCode !== null ? ` exit ${d.exitCode}` : ''}, ${d.totalWritten} bytes`
  );
}

/** Token counts as people read them: exact below 1 000, else `12.3k`; exact both when two rounded ones would read alike. */
export function kTokens(n: number, other?: number): string {
  const k = (v: number) => (v >= 1000 ? `${(v / 1000).toFixed(1)}k` : String(v));
  return other !== undefined && k(n) === k(other) ? n.toLocaleString('en-US') : k(n);
}

/** `⟳ compacting the conversation (2 of 5 this turn): ≈14.2k tokens over the 12.0k threshold` — a `context.compact` marker. */
export function compactingLine(d: DataOf<typeof EV.contextCompact>): string {
  const which = d.recovery > 0 ? ` (${d.recovery} of 5 this turn)` : ' (asked by a person)';
  const figures =
    d.usedTokens !== undefined && d.limitTokens !== undefined
      ? d.trigger === 'context_limit'
        ? `: the provider counted ${kTokens(d.usedTokens, d.limitTokens)} tokens, over its limit of ${kTokens(d.limitTokens, d.usedTokens)}`
        : `: ≈${kTokens(d.usedTokens, d.limitTokens)} tokens, over the ${kTokens(d.limitTokens, d.usedTokens)} threshold`
      : '';
  return `⟳ compacting the conversation${which}${figures}`;
}

/**
 * `✓ compacted: the earlier conversation took ≈9.6k tokens, now ≈2.1k as a summary and the kept steps (cmp_…)` —
 * a published `session.compaction.summary`; its figures are the compacted part's, not the whole request's.
 */
export function compactedLine(d: DataOf<typeof EV.compactionSummary>): string {
  return `✓ compacted: the earlier conversation took ≈${kTokens(d.beforeTokens)} tokens, now ≈${kTokens(d.afterTokens)} as a summary and the kept steps (${d.compactionId})`;
}

/** The progress line of a compaction event (issue 28 item 6), or null (a marker of a retried attempt). */
function compactionLine(e: TypedEvent): string | null {
  switch (e.type) {
    case EV.contextCompact:
      return e.data.attempt === 1 ? compactingLine(e.data) : null;
    case EV.compactionSummary:
      return compactedLine(e.data);
    case EV.compactionFailed:
      return `✗ compaction ${e.data.compactionId} published nothing (${e.data.code}): ${plainTerminalLine(e.data.message)}`;
    default:
      return null;
  }
}
