import type { EventRow } from '../activities/projection/types.js';
import { EV, parseEvent, TURN_END_EVENTS } from '../core/events.js';
import { readsFailed } from './commands/tool-record-view.js';
import { notInForceLine } from './commands/rules-view.js';

/** Where rendered output goes; injectable for tests. */
export interface Sink {
  out(text: string): void;
  err(text: string): void;
}

/** The process's stdout/stderr. */
export const processSink: Sink = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

/** One NDJSON line per stored event (SF2 `--json`): `{type, seq, sessionId, atMs, ...data}`. */
export function eventToJsonLine(e: EventRow): string {
  return `${JSON.stringify({ type: e.type, seq: e.seq, sessionId: e.sessionId, atMs: e.atMs, ...e.data })}\n`;
}

/**
 * Human progress renderer for `zuno run`. When `streamText` is true (stdout
 * is a terminal) assistant text streams to stdout as it arrives and the final
 * answer is not printed again; otherwise only the final answer goes to stdout
 * and progress lines go to stderr, so `zuno run … > answer.txt` captures the answer.
 */
export class HumanRenderer {
  private midLine = false;

  constructor(
    private readonly sink: Sink,
    private readonly streamText: boolean,
  ) {}

  /** Renders one event; an event this build's catalogue does not know (or cannot parse) is skipped. */
  render(row: EventRow): void {
    const e = parseEvent(row);
    if (!e) return;
    switch (e.type) {
      case EV.partDelta:
        if (this.streamText) {
          this.sink.out(e.data.text);
          this.midLine = !e.data.text.endsWith('\n');
        }
        break;
      case EV.providerRetry:
        if (e.data.willRetry)
          this.line(`(${e.data.code}: retrying the model request in ${(e.data.delayMs / 1000).toFixed(1)} s)`);
        break;
      case EV.stepRollback:
        this.line(`(model request attempt ${e.data.attempt}: the earlier attempt's partial output was discarded)`);
        break;
      case EV.toolStarted:
        this.line(`→ ${e.data.summary || e.data.tool}${e.data.attempt > 1 ? ` (attempt ${e.data.attempt})` : ''}`);
        break;
      case EV.toolCompleted: {
        const d = e.data;
        // A call that ran but did not do what it was asked (a shell exit ≠ 0) is a failure mark, whatever its outcome.
        const failed = readsFailed(d.outcome, d.facts);
        const mark = d.outcome === 'uncertain' ? '?' : failed ? '✗' : '✓';
        const word = d.outcome === 'ok' && failed ? 'failed' : d.outcome;
        const exit =
          d.facts?.exitCode !== undefined
            ? `, exit ${d.facts.exitCode}`
            : d.facts?.signal
              ? `, killed by ${d.facts.signal}`
              : '';
        this.line(
          `${mark} ${d.tool} ${word}${exit}` +
            `${d.facts?.conflict ? ` (${d.facts.conflict})` : ''}` +
            `${d.cause ? ` (${d.cause})` : ''}` +
            `${d.errorCode ? ` (${d.errorCode})` : ''}${d.outputBytes !== undefined ? `, ${d.outputBytes} bytes` : ''}` +
            `${d.durationMs !== undefined ? `, ${d.durationMs} ms` : ''}`,
        );
        break;
      }
      case EV.toolBlocked:
        this.line(`✗ ${e.data.tool} blocked (${e.data.category}): ${e.data.message}`);
        break;
      case EV.completed: {
        if (this.midLine) this.sink.out('\n');
        this.midLine = false;
        if (!this.streamText) this.sink.out(`${e.data.text ?? ''}\n`);
        const waiting = e.data.background;
        if (waiting.length > 0) {
          this.line(
            `(waiting for background task${waiting.length > 1 ? 's' : ''} ${waiting.join(', ')}: a completion report starts a new turn; Ctrl-C stops ${waiting.length > 1 ? 'them' : 'it'})`,
          );
        }
        break;
      }
      case EV.bgCompleted:
        this.line(
          `${e.data.outcome !== 'ok' ? '?' : e.data.exitCode !== null && e.data.exitCode !== 0 ? '✗' : '✓'} background ${e.data.taskID} ${e.data.state}` +
            `${e.data.exitCode !== null ? ` exit ${e.data.exitCode}` : ''}, ${e.data.totalWritten} bytes`,
        );
        break;
      case EV.failed:
      case EV.paused:
      case EV.blocked:
        this.line(`session ${e.type.slice(8)}: ${e.data.error?.code ?? 'error'}: ${e.data.error?.message ?? ''}`);
        break;
      case EV.interrupted:
        this.line(`session interrupted (turn ${e.data.turn})`);
        break;
      case EV.instructionNotInForce:
        this.line(notInForceLine(e.data));
        break;
      case EV.toolLateResult:
        this.line(`(${e.data.tool} reported ${e.data.outcome} after it was recorded uncertain; the record stands)`);
        break;
      case EV.toolSettlementSuperseded:
        this.line(
          `(${e.data.tool}: the workflow saw ${e.data.workflowSaw.failureType} and settled ${e.data.workflowSaw.outcome}, ` +
            `but the call's own ${e.data.stands} result had already been recorded; that result stands)`,
        );
        break;
      default:
        break;
    }
  }

  private line(text: string): void {
    if (this.midLine) {
      this.sink.out('\n');
      this.midLine = false;
    }
    this.sink.err(`${text}\n`);
  }
}

/** true for the events that end a `zuno run`. */
export function isTerminalEvent(type: string): boolean {
  return TURN_END_EVENTS.has(type);
}
