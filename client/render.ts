import type { EventRow } from '../activities/projection/types.js';

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

  /** Renders one event. */
  render(e: EventRow): void {
    const d = e.data as Record<string, unknown>;
    switch (e.type) {
      case 'message.part.delta':
        if (this.streamText) {
          this.sink.out(String(d.text ?? ''));
          this.midLine = !String(d.text ?? '').endsWith('\n');
        }
        break;
      case 'provider.retry':
        if (d.willRetry === true)
          this.line(`(${String(d.code)}: retrying the model request in ${(Number(d.delayMs) / 1000).toFixed(1)} s)`);
        break;
      case 'message.step.rollback':
        this.line(`(model request attempt ${String(d.attempt)}: the earlier attempt's partial output was discarded)`);
        break;
      case 'tool.started':
        this.line(`→ ${String(d.summary ?? d.tool)}${Number(d.attempt) > 1 ? ` (attempt ${d.attempt})` : ''}`);
        break;
      case 'tool.completed':
        this.line(
          `${d.outcome === 'ok' ? '✓' : d.outcome === 'uncertain' ? '?' : '✗'} ${d.tool} ${d.outcome}` +
            `${d.cause ? ` (${String(d.cause)})` : ''}` +
            `${d.errorCode ? ` (${d.errorCode})` : ''}${d.outputBytes !== undefined ? `, ${d.outputBytes} bytes` : ''}` +
            `${d.durationMs !== undefined ? `, ${d.durationMs} ms` : ''}`,
        );
        break;
      case 'tool.dispatch.blocked':
        this.line(`✗ ${d.tool} blocked (${d.category}): ${d.message}`);
        break;
      case 'session.completed': {
        if (this.midLine) this.sink.out('\n');
        this.midLine = false;
        if (!this.streamText) this.sink.out(`${String(d.text ?? '')}\n`);
        const waiting = Array.isArray(d.background) ? (d.background as string[]) : [];
        if (waiting.length > 0) {
          this.line(
            `(waiting for background task${waiting.length > 1 ? 's' : ''} ${waiting.join(', ')}: a completion report starts a new turn; Ctrl-C stops ${waiting.length > 1 ? 'them' : 'it'})`,
          );
        }
        break;
      }
      case 'bg.completed':
        this.line(
          `${d.outcome === 'ok' ? '✓' : '?'} background ${String(d.taskID)} ${String(d.state)}` +
            `${d.exitCode !== null && d.exitCode !== undefined ? ` exit ${String(d.exitCode)}` : ''}, ${String(d.totalWritten)} bytes`,
        );
        break;
      case 'session.failed':
      case 'session.paused':
      case 'session.blocked': {
        const err = d.error as { code?: string; message?: string } | null;
        this.line(`session ${e.type.slice(8)}: ${err?.code ?? 'error'}: ${err?.message ?? ''}`);
        break;
      }
      case 'session.interrupted':
        this.line(`session interrupted (turn ${String(d.turn)})`);
        break;
      case 'tool.late_result':
        this.line(
          `(${String(d.tool)} reported ${String(d.outcome)} after it was recorded uncertain; the record stands)`,
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
  return (
    type === 'session.completed' ||
    type === 'session.failed' ||
    type === 'session.paused' ||
    type === 'session.blocked' ||
    type === 'session.interrupted'
  );
}
