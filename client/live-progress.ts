/**
 * Live progress of long tool calls while `zuno run` follows a session (human
 * mode only; `--json` is never touched).
 *
 * The follower learns from the event stream that a call started
 * (`tool.started`) and ended (`tool.completed`); what it is doing in between
 * comes from the heartbeat details each running tool activity sends
 * (activities/tools/progress.ts: `{outputBytes, elapsedMs, lastLine}`), read
 * from the Temporal server with `describe()` — about once a second, and only
 * while a call is running.
 *
 * On a terminal (stderr is a TTY) a call that runs longer than 2 s gets one
 * status line redrawn in place, `⠋ shell: npm test · 1m23s · <newest output
 * line>`, cleared before any other output. Anywhere else a plain line is
 * printed now and then (`… shell still running (30s): <newest line>` after
 * 30 s, then every 60 s): no carriage return, no escape sequence.
 */
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { toolActivityName } from '../core/session/tool-activity.js';
import { isMcpToolName } from '../core/mcp/naming.js';
import { guardTerminalOutput as guard, plainTerminalLine } from '../core/terminal-text.js';
import type { Sink } from './sink.js';

/** What a running tool activity last heartbeated, as far as it could be read. */
export interface ToolHeartbeat {
  outputBytes?: number;
  elapsedMs?: number;
  /** Newest output line (bounded, redacted and without escape sequences; cleaned again before it is shown). */
  lastLine?: string;
}

/** One pending activity of the session workflow, as the Temporal server describes it. */
export interface PendingActivity {
  /** Activity type, e.g. `tool_shell`. */
  activityType: string;
  attempt: number;
  /** Start of the current attempt (server clock), ms since the epoch; absent while it is only scheduled. */
  startedAtMs?: number;
  heartbeat?: ToolHeartbeat;
}

/** Reads the pending activities of the followed workflow. */
export type PendingActivitiesReader = () => Promise<PendingActivity[]>;

/** When progress shows, in ms. */
export interface ProgressTiming {
  /** A call running this long gets the terminal status line (default 2000). */
  showAfterMs: number;
  /** Heartbeat details are read at most this often (default 1000). */
  pollEveryMs: number;
  /** First plain "still running" line after this long (default 30000, or `ZUNO_PROGRESS_FIRST_MS`). */
  firstPlainMs: number;
  /** Then one plain line every this long (default 60000). */
  everyPlainMs: number;
  /** Redraw interval of the status line (default 125); plain mode checks every 250 ms. */
  frameMs: number;
}

/** The defaults; `ZUNO_PROGRESS_FIRST_MS` (a whole number of ms) moves the first plain line. */
export function defaultProgressTiming(env: NodeJS.ProcessEnv = process.env): ProgressTiming {
  const first = env.ZUNO_PROGRESS_FIRST_MS;
  return {
    showAfterMs: 2_000,
    pollEveryMs: 1_000,
    firstPlainMs: first !== undefined && /^\d+$/.test(first.trim()) ? Number(first.trim()) : 30_000,
    everyPlainMs: 60_000,
    frameMs: 125,
  };
}

/** Longest wait for one `describe()`, in ms: a slow server delays a plain line by this much at most. */
const READ_TIMEOUT_MS = 2_000;
/** Spinner frames of the status line. */
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * Reads the pending activities of `workflowId` with `describe()`; heartbeat
 * details are decoded with the default payload converter (Zuno's clients use
 * no other). A detail that does not decode is left out, never thrown.
 */
export function pendingActivitiesOf(client: Client, workflowId: string): PendingActivitiesReader {
  return async () => {
    const d = await client.workflow.getHandle(workflowId).describe();
    return (d.raw.pendingActivities ?? []).map((a) => {
      const startedAtMs = timestampMs(a.lastStartedTime);
      const heartbeat = decodeHeartbeat(a.heartbeatDetails?.payloads?.[0]);
      return {
        activityType: a.activityType?.name ?? '',
        attempt: a.attempt ?? 1,
        ...(startedAtMs !== undefined ? { startedAtMs } : {}),
        ...(heartbeat ? { heartbeat } : {}),
      };
    });
  };
}

/** ms since the epoch of a protobuf Timestamp (seconds may be a Long), or undefined. */
function timestampMs(
  ts: { seconds?: number | { toNumber(): number } | null; nanos?: number | null } | null | undefined,
): number | undefined {
  if (!ts || ts.seconds === undefined || ts.seconds === null) return undefined;
  const seconds = typeof ts.seconds === 'number' ? ts.seconds : ts.seconds.toNumber();
  const ms = seconds * 1000 + Math.floor((ts.nanos ?? 0) / 1e6);
  return ms > 0 ? ms : undefined;
}

function decodeHeartbeat(payload: Parameters<typeof defaultPayloadConverter.fromPayload>[0] | undefined) {
  if (!payload) return undefined;
  let v: unknown;
  try {
    v = defaultPayloadConverter.fromPayload(payload);
  } catch {
    return undefined;
  }
  if (v === null || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const hb: ToolHeartbeat = {};
  if (typeof o.outputBytes === 'number') hb.outputBytes = o.outputBytes;
  if (typeof o.elapsedMs === 'number') hb.elapsedMs = o.elapsedMs;
  if (typeof o.lastLine === 'string') hb.lastLine = o.lastLine;
  return hb;
}

/** Elapsed time for people: `7s`, `1m23s`, `2h05m` (whole seconds, rounded down). */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]+$/u;
const WIDE =
  /^[\p{Emoji_Presentation}\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]/u;

/** Terminal columns one grapheme takes: 0 (combining marks), 2 (CJK, emoji) or 1. */
function graphemeWidth(g: string): number {
  if (ZERO_WIDTH.test(g)) return 0;
  return WIDE.test(g) ? 2 : 1;
}

/** Terminal columns `text` takes (graphemes; CJK and emoji count 2). Pure. */
export function displayWidth(text: string): number {
  let w = 0;
  for (const { segment } of segmenter.segment(text)) w += graphemeWidth(segment);
  return w;
}

/**
 * `text` cut to at most `width` terminal columns, ending in `…` when cut.
 * Cuts between graphemes only: never inside a multi-byte character, a
 * surrogate pair, or a character and its combining marks. Pure.
 */
export function cutToWidth(text: string, width: number): string {
  if (width <= 0) return '';
  if (displayWidth(text) <= width) return text;
  let out = '';
  let w = 0;
  for (const { segment } of segmenter.segment(text)) {
    const gw = graphemeWidth(segment);
    if (w + gw > width - 1) break;
    out += segment;
    w += gw;
  }
  return `${out}…`;
}

/** What one progress line says about the call shown. */
export interface ProgressView {
  /** The call's one-line summary (`shell: npm test`), or its tool name. */
  summary: string;
  elapsedMs: number;
  /** Newest output line, raw (cleaned here). */
  lastLine?: string;
  /** Other calls running at the same time. */
  more: number;
}

/**
 * The terminal status line: `⠋ shell: npm test · 1m23s · <newest line>`,
 * at most `columns − 1` columns (the last column would wrap on some
 * terminals): the summary takes at most half, the output line what is left.
 * Pure.
 */
export function statusLine(view: ProgressView, frame: string, columns: number): string {
  const width = Math.max(10, columns - 1);
  const summary = cutToWidth(plainTerminalLine(view.summary), Math.max(12, Math.floor(width / 2)));
  const head = `${frame} ${summary} · ${formatElapsed(view.elapsedMs)}${view.more > 0 ? ` (+${view.more} more)` : ''}`;
  const line = view.lastLine !== undefined ? plainTerminalLine(view.lastLine) : '';
  const room = width - displayWidth(head) - 3;
  const full = line !== '' && room >= 4 ? `${head} · ${cutToWidth(line, room)}` : head;
  return cutToWidth(full, width);
}

/** Longest output line in a plain progress line, in columns. */
const PLAIN_LINE_MAX = 160;

/** The plain progress line: `… shell still running (1m30s): <newest line>`. Pure. */
export function stillRunningLine(tool: string, elapsedMs: number, lastLine?: string): string {
  const line = lastLine !== undefined ? cutToWidth(plainTerminalLine(lastLine), PLAIN_LINE_MAX) : '';
  return `… ${tool} still running (${formatElapsed(elapsedMs)})${line ? `: ${line}` : ''}`;
}

/** Options of {@link LiveProgress}. */
export interface LiveProgressOptions {
  /** Prints one plain line (with its newline added by the callee). */
  line(text: string): void;
  /** Present on a terminal: shows the status line in place (null clears it). */
  status?: (text: string | null) => void;
  /** Terminal width in columns (default 80). */
  columns?: () => number;
  /** Where heartbeat details come from; without it lines show the elapsed time only. */
  pendingActivities?: PendingActivitiesReader;
  timing?: Partial<ProgressTiming>;
  /** Clock (default Date.now). */
  now?: () => number;
  /** true: no timer; the caller drives {@link LiveProgress.tick} (tests). */
  manual?: boolean;
}

interface RunningCall {
  tool: string;
  summary: string;
  attempt: number;
  /** When the event says the attempt started (worker clock). */
  atMs: number;
  /** When this follower saw it start (local clock): elapsed is measured from here, immune to clock skew. */
  seenAtMs: number;
  /** Next plain line due (local clock). */
  nextPlainAtMs: number;
}

/**
 * Tracks the running tool calls of a followed session and shows their
 * progress: the status line on a terminal, plain lines elsewhere. The
 * renderer reports starts and ends; this reads heartbeat details while
 * something runs, and stops its timer when nothing does.
 */
export class LiveProgress {
  private readonly running = new Map<string, RunningCall>();
  private readonly timing: ProgressTiming;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private pending: PendingActivity[] = [];
  /** When `pending` was read (local clock). */
  private pendingAtMs = 0;
  private reading: Promise<void> | undefined;
  private lastReadAtMs = -Infinity;
  private drawn = false;
  private frame = 0;

  constructor(private readonly opts: LiveProgressOptions) {
    this.timing = { ...defaultProgressTiming(), ...opts.timing };
    this.now = opts.now ?? Date.now;
  }

  /** A call's attempt started (`tool.started`): `atMs` is the event's time. */
  started(rowId: string, tool: string, summary: string, attempt: number, atMs: number): void {
    const now = this.now();
    this.running.set(rowId, {
      tool,
      summary: summary || tool,
      attempt,
      atMs,
      seenAtMs: now,
      nextPlainAtMs: now + this.timing.firstPlainMs,
    });
    if (!this.timer && !this.opts.manual) {
      const every = this.opts.status ? this.timing.frameMs : 250;
      this.timer = setInterval(() => void this.tick(), every);
      this.timer.unref();
    }
  }

  /** A call ended (or never ran): its progress goes away; the status line is cleared. */
  ended(rowId: string): void {
    if (!this.running.delete(rowId)) return;
    this.clear();
    if (this.running.size === 0) this.stopTimer();
  }

  /** The session's turn ended: forget every call, clear the status line, stop reading. */
  stop(): void {
    this.running.clear();
    this.clear();
    this.stopTimer();
  }

  /**
   * One step of the display: reads heartbeat details when due, then redraws
   * the status line (terminal) or prints the plain lines that are due.
   * Called by the timer; public so tests can drive it with their own clock.
   */
  async tick(): Promise<void> {
    const shown = this.oldest();
    if (!shown) return;
    const now = this.now();
    if (this.opts.status) {
      const age = now - shown[1].seenAtMs;
      if (age >= this.timing.showAfterMs - this.timing.pollEveryMs) void this.read(now);
      if (age >= this.timing.showAfterMs) {
        const view = this.view(shown[1], now);
        const frame = FRAMES[this.frame++ % FRAMES.length]!;
        this.opts.status(statusLine(view, frame, this.opts.columns?.() ?? 80));
        this.drawn = true;
      }
      return;
    }
    const due = [...this.running.values()].filter((c) => now >= c.nextPlainAtMs);
    if (due.length === 0) return;
    for (const c of due) c.nextPlainAtMs = Math.max(c.nextPlainAtMs + this.timing.everyPlainMs, now + 1);
    await this.read(now);
    for (const c of due) {
      // A call that ended while its details were being read says nothing more.
      if (![...this.running.values()].includes(c)) continue;
      const hb = this.heartbeatOf(c);
      this.opts.line(stillRunningLine(c.tool, this.elapsed(c, hb, this.now()), hb?.lastLine));
    }
  }

  /** The call started first (the one the status line shows). */
  private oldest(): [string, RunningCall] | undefined {
    let best: [string, RunningCall] | undefined;
    for (const entry of this.running) if (!best || entry[1].seenAtMs < best[1].seenAtMs) best = entry;
    return best;
  }

  private view(c: RunningCall, now: number): ProgressView {
    const hb = this.heartbeatOf(c);
    const lastLine = hb?.lastLine;
    return {
      summary: c.summary,
      elapsedMs: this.elapsed(c, hb, now),
      more: this.running.size - 1,
      ...(lastLine !== undefined ? { lastLine } : {}),
    };
  }

  /**
   * How long the call has run: since this follower saw it start, or — when
   * larger, as when the follower saw it late — the heartbeat's own elapsed
   * time plus the time since it was read (a lower bound either way: neither
   * compares clocks of different machines).
   */
  private elapsed(c: RunningCall, hb: ToolHeartbeat | undefined, now: number): number {
    const seen = now - c.seenAtMs;
    return hb?.elapsedMs !== undefined ? Math.max(seen, hb.elapsedMs + (now - this.pendingAtMs)) : seen;
  }

  /**
   * The heartbeat of the pending activity that is this call: same activity
   * type, the same attempt preferred, then the start closest to the event's.
   */
  private heartbeatOf(c: RunningCall): ToolHeartbeat | undefined {
    const type = toolActivityName(c.tool, isMcpToolName(c.tool));
    const candidates = this.pending.filter((p) => p.activityType === type);
    const sameAttempt = candidates.filter((p) => p.attempt === c.attempt);
    const pool = sameAttempt.length > 0 ? sameAttempt : candidates;
    let best: PendingActivity | undefined;
    for (const p of pool) {
      const d = Math.abs((p.startedAtMs ?? c.atMs) - c.atMs);
      if (!best || d < Math.abs((best.startedAtMs ?? c.atMs) - c.atMs)) best = p;
    }
    return best?.heartbeat;
  }

  /** Reads the pending activities unless read within `pollEveryMs`; never rejects, gives up after 2 s. */
  private read(now: number): Promise<void> {
    const reader = this.opts.pendingActivities;
    if (!reader) return Promise.resolve();
    if (this.reading) return this.reading;
    if (now - this.lastReadAtMs < this.timing.pollEveryMs) return Promise.resolve();
    this.lastReadAtMs = now;
    let timeout: NodeJS.Timeout | undefined;
    const giveUp = new Promise<void>((resolve) => {
      timeout = setTimeout(resolve, READ_TIMEOUT_MS);
      timeout.unref();
    });
    const done = reader().then(
      (list) => {
        this.pending = list;
        this.pendingAtMs = this.now();
      },
      () => undefined, // the server or connection is gone: keep what was known
    );
    this.reading = Promise.race([done, giveUp]).finally(() => {
      clearTimeout(timeout);
      this.reading = undefined;
    });
    return this.reading;
  }

  private clear(): void {
    if (!this.drawn) return;
    this.drawn = false;
    this.opts.status?.(null);
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.pending = [];
  }
}

/** Clears the whole terminal line and returns to its start. */
const CLEAR_LINE = '\r\x1b[2K';

/**
 * A {@link Sink} on two process streams. When `err` is a terminal it also
 * offers `status`: one line at the bottom redrawn in place, cleared before
 * anything else is written to `err` (or to `out` when that is a terminal
 * too), and cleared when the process exits. A status line is only drawn
 * while the cursor is at the start of a line, so it never overwrites text
 * that is still being streamed. Without a terminal there is no `status`, and
 * nothing but the written text reaches the streams. Every write passes
 * core/terminal-text.ts `guardTerminalOutput` first (issue 26 item 8): no
 * control character but line feed and tab reaches either stream (and Zuno's
 * own colour sequences, on a terminal), whatever text a model or a tool put
 * into a view.
 */
export function streamSink(out: NodeJS.WriteStream, err: NodeJS.WriteStream): Sink {
  const outColours = out.isTTY === true && !process.env.NO_COLOR;
  if (!err.isTTY) return { out: (t) => void out.write(guard(t, outColours)), err: (t) => void err.write(guard(t)) };
  let shown = false;
  let atLineStart = true;
  let exitHook = false;
  const clear = () => {
    if (!shown) return;
    shown = false;
    err.write(CLEAR_LINE);
  };
  const track = (t: string) => {
    if (t !== '') atLineStart = t.endsWith('\n');
  };
  return {
    out(t) {
      if (out.isTTY) {
        clear();
        track(t);
      }
      out.write(guard(t, outColours));
    },
    err(t) {
      clear();
      track(t);
      err.write(guard(t, true));
    },
    status(text) {
      if (text === null) return clear();
      if (!atLineStart) return;
      if (!exitHook) {
        exitHook = true;
        process.once('exit', clear);
      }
      err.write(`${CLEAR_LINE}${guard(text, true)}`);
      shown = true;
    },
    columns: () => (err.columns && err.columns > 0 ? err.columns : 80),
  };
}
