/**
 * Progress of a running tool, as its activity heartbeats it (Temporal UI:
 * pending activity → heartbeat details): output bytes so far, elapsed time
 * and the newest output line, bounded and redacted. Tools report through
 * `ToolContext.onProgress`; the activity adds the elapsed time.
 */
import { open } from 'node:fs/promises';
import { plainTerminalLine } from '../../core/terminal-text.js';
import { redact } from '../infra/redact.js';

/** What a tool reports while it runs. */
export interface ToolProgress {
  /** Output bytes written so far. */
  outputBytes: number;
  /** The newest non-empty output line (raw; bounded and redacted by {@link progressDetails}). */
  lastLine?: string;
}

/** Heartbeat details of a running tool activity. */
export interface ProgressDetails {
  outputBytes: number;
  /** Time since the attempt started, in ms. */
  elapsedMs: number;
  /**
   * ≤ {@link LAST_LINE_MAX_CHARS} characters, plain text (escape sequences and
   * progress-bar rewrites reduced to what a terminal showed), secrets redacted
   * (PR6 `redact`); absent before any output.
   */
  lastLine?: string;
}

/** Longest last line carried in heartbeat details, in characters. */
export const LAST_LINE_MAX_CHARS = 200;
/** How many trailing bytes are searched for the last line. */
const TAIL_BYTES = 1024;

/** The newest non-empty line of a byte tail (UTF-8, lossy), or undefined. */
export function lastLineOf(tail: Uint8Array): string | undefined {
  const lines = Buffer.from(tail).toString('utf8').split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i]!.replace(/\r$/, '');
    if (l.trim() !== '') return l;
  }
  return undefined;
}

/** Heartbeat details from one progress report: plain text, redacted, the line cut to 200 characters. */
export function progressDetails(p: ToolProgress, startedAtMs: number, nowMs: number): ProgressDetails {
  // Escape sequences go before redaction, which would turn their ESC into a space and leave `[32m` behind.
  const line = p.lastLine === undefined ? undefined : redact(plainTerminalLine(p.lastLine)).trim();
  return {
    outputBytes: p.outputBytes,
    elapsedMs: Math.max(0, nowMs - startedAtMs),
    ...(line
      ? { lastLine: line.length > LAST_LINE_MAX_CHARS ? `${line.slice(0, LAST_LINE_MAX_CHARS - 1)}…` : line }
      : {}),
  };
}

/**
 * Reports a growing file's size and newest line every `everyMs` while
 * `work` runs (a missing or unreadable file reports nothing). Returns what
 * `work` returns; the watcher stops before this resolves.
 */
export async function watchFileProgress<T>(
  path: string,
  onProgress: ((p: ToolProgress) => void) | undefined,
  everyMs: number,
  work: Promise<T>,
): Promise<T> {
  if (!onProgress) return work;
  let busy = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      const handle = await open(path, 'r');
      try {
        const { size } = await handle.stat();
        const want = Math.min(TAIL_BYTES, size);
        const buf = Buffer.alloc(want);
        const { bytesRead } = await handle.read(buf, 0, want, size - want);
        const lastLine = lastLineOf(buf.subarray(0, bytesRead));
        onProgress({ outputBytes: size, ...(lastLine !== undefined ? { lastLine } : {}) });
      } finally {
        await handle.close();
      }
    } catch {
      // not there yet, or gone: nothing to report
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), everyMs);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}
