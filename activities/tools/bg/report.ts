/**
 * The completion report of a background task: the short model-facing text
 * that arrives when the task is over (≤ 4 KiB): what ran, how it ended, the
 * receipt line, the newest ≤ 2 KiB of output, and how to page the rest.
 */
import { receiptLine } from '../shell/render.js';
import type { VerificationReceipt } from '../shell/types.js';
import { displayText, isContinuationByte } from './window.js';
import type { BgCompletion } from './types.js';

/** Largest report, in UTF-8 bytes. */
export const REPORT_MAX_BYTES = 4096;
/** Largest output tail quoted in a report, in bytes. */
export const REPORT_TAIL_BYTES = 2048;
const COMMAND_MAX = 200;
const LIMITATION_MAX = 300;

/** What {@link buildReport} needs. */
export interface ReportInput {
  taskID: string;
  command: string;
  state: BgCompletion['state'];
  /** One line saying how the run ended (the shell's status line, or a not-started message). */
  statusLine: string;
  receipt: VerificationReceipt;
  totalWritten: number;
  /** How long the run took, in ms; for a lost task, from its start to when the loss was seen. */
  durationMs: number;
  /** A lost task: when it last wrote output, in ms after its start (absent: it wrote none). */
  lastOutputMs?: number;
  /** The newest output bytes (≤ {@link REPORT_TAIL_BYTES} are used), ending at `totalWritten`. */
  tail: Uint8Array;
  remoteObserver: boolean;
}

function cut(text: string, max: number): string {
  const flat = text.replace(/\s*\n\s*/g, ' ⏎ ');
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

const STATE_WORDS: Record<BgCompletion['state'], string> = {
  exited: 'ended',
  cancelled: 'was cancelled',
  timed_out: 'timed out',
  failed: 'failed',
  not_started: 'did not start',
  lost: 'was lost',
};

/** Lines of a quoted tail are cut at most this far in, to start on a line boundary. */
const LINE_ALIGN_MAX = 256;

/**
 * Starts the tail on a boundary: after the first newline within
 * {@link LINE_ALIGN_MAX} bytes when the tail does not start the output,
 * else past any leading UTF-8 continuation bytes.
 */
function alignTail(tail: Uint8Array, from: number): { tail: Uint8Array; from: number } {
  if (from === 0) return { tail, from };
  const nl = tail.subarray(0, LINE_ALIGN_MAX).indexOf(10);
  let skip = nl >= 0 && nl + 1 < tail.length ? nl + 1 : 0;
  if (skip === 0) while (skip < Math.min(3, tail.length) && isContinuationByte(tail[skip]!)) skip++;
  return { tail: tail.subarray(skip), from: from + skip };
}

function outputLines(taskID: string, totalWritten: number, tail: Uint8Array, from: number): string[] {
  if (totalWritten === 0) return ['Output: (no output)'];
  const lines = [
    from === 0
      ? `Output (all ${totalWritten} bytes):`
      : `Output: ${totalWritten} bytes; the last ${tail.length} (from byte ${from}):`,
    displayText(tail),
  ];
  if (from > 0)
    lines.push(
      `Earlier output: bg {"action": "output", "taskID": ${JSON.stringify(taskID)}, "cursor": 0} pages from the start (cursor = byte offset, limit ≤ 51200; follow nextCursor).`,
    );
  return lines;
}

const utf8Length = (s: string): number => Buffer.byteLength(s, 'utf8');

/**
 * Builds the report. Pure. The tail starts on a line (or at least character)
 * boundary and is shown lossily. To stay within
 * {@link REPORT_MAX_BYTES}, limitation lines go first (last ones first), then
 * the oldest tail bytes.
 */
export function buildReport(r: ReportInput): string {
  const seconds = (r.durationMs / 1000).toFixed(1);
  // A lost task's end is unknown: what is known is when the loss was seen and when it last wrote output.
  const when =
    r.state === 'lost'
      ? `(seen lost ${seconds} s after its start; ${
          r.lastOutputMs !== undefined
            ? `last output ${(r.lastOutputMs / 1000).toFixed(1)} s after its start`
            : 'it wrote no output'
        })`
      : `after ${seconds} s`;
  const head = [
    `Background task ${r.taskID} ${STATE_WORDS[r.state]} ${when}: ${cut(r.command, COMMAND_MAX)}`,
    r.statusLine,
    receiptLine(r.receipt),
  ];
  if (r.remoteObserver)
    head.push(
      'This command observed remote work (remoteObserver): its local exit is not the remote state; query the CI, deploy or release for the authoritative state.',
    );
  const limitations = r.receipt.limitations.map((l) =>
    cut(`Limitation (${l.kind}): ${l.note} Remedy: ${l.remedy}`, LIMITATION_MAX),
  );
  const raw = r.tail.subarray(Math.max(0, r.tail.length - REPORT_TAIL_BYTES));
  let { tail, from } = alignTail(raw, r.totalWritten - raw.length);
  const compose = (): string =>
    [...head, ...limitations, '', ...outputLines(r.taskID, r.totalWritten, tail, from)].join('\n');
  const tailShown = Math.min(utf8Length(displayText(tail)), REPORT_TAIL_BYTES);
  while (limitations.length > 0 && utf8Length(compose()) - utf8Length(displayText(tail)) + tailShown > REPORT_MAX_BYTES)
    limitations.pop();
  let text = compose();
  while (utf8Length(text) > REPORT_MAX_BYTES && tail.length > 0) {
    const drop = Math.min(tail.length, utf8Length(text) - REPORT_MAX_BYTES);
    ({ tail, from } = alignTail(tail.subarray(drop), from + drop));
    text = compose();
  }
  return text;
}
