/**
 * The model-visible text of `bg` replies: a task line, a window line naming
 * the cursor facts (BG1), notes on clamping, split characters and binary
 * bytes, then the window's bytes as text.
 */
import { BG_MAX_LIMIT } from '../../../core/tools/bg.js';
import { summaryLine } from '../../../core/tools/summary.js';
import type { BgCompletion, BgState, BgWindow } from './types.js';

/** The text shown for an empty window. */
export const EMPTY_WINDOW = '(no bytes in this window)';

/** Words for a task state, with its exit facts when settled. */
export function stateWords(state: BgState, c?: Pick<BgCompletion, 'exitCode' | 'signal'>): string {
  switch (state) {
    case 'running':
      return 'running';
    case 'exited':
      return c?.signal ? `killed by ${c.signal}` : `exited ${c?.exitCode ?? '?'}`;
    case 'timed_out':
      return 'timed out (uncertain)';
    case 'cancelled':
      return 'cancelled (uncertain)';
    case 'failed':
      return 'failed (uncertain)';
    case 'lost':
      return 'lost (uncertain)';
    case 'not_started':
      return 'not started';
  }
}

/** One line naming a task: id, state and the first line of its command. */
export function taskLine(taskID: string, state: BgState, command: string, c?: BgCompletion): string {
  const first = command.split('\n', 1)[0] ?? '';
  return `Task ${taskID} (${stateWords(state, c)}): ${summaryLine(first.trim(), 100)}`;
}

/** The window line and its notes. */
export function windowLines(w: BgWindow, running: boolean): string[] {
  const source = w.fromDisk ? 'from disk' : 'from memory';
  const of = running ? `${w.totalWritten} written so far` : `${w.totalWritten}`;
  const lines = [
    `Window: bytes ${w.windowFrom}–${w.nextCursor} of ${of} (${w.bytes} bytes, ${source}). hasEarlier: ${w.hasEarlier}${
      w.hasEarlier ? ` (windowFrom ${w.windowFrom})` : ''
    }; hasMore: ${w.hasMore}; nextCursor: ${w.nextCursor}.`,
  ];
  if (w.requestedLimit !== undefined)
    lines.push(`Note: limit ${w.requestedLimit} was clamped to ${BG_MAX_LIMIT} bytes (the fixed window maximum).`);
  if (w.startsInsideCharacter)
    lines.push('Note: the window starts inside a multi-byte UTF-8 character; its first bytes show as U+FFFD.');
  if (w.endsInsideCharacter)
    lines.push('Note: the window ends inside a multi-byte UTF-8 character; its last bytes show as U+FFFD.');
  if (w.binary)
    lines.push(
      'Note: the window holds bytes that are not UTF-8 text (invalid sequences or NUL); they show as U+FFFD. Cursors count raw bytes.',
    );
  if (running && !w.hasMore) lines.push('The task is still running; more output may follow.');
  return lines;
}

/** The window's bytes as the reply body. */
export function windowBody(w: BgWindow): string {
  return w.bytes === 0 ? EMPTY_WINDOW : w.text;
}

/** The window's facts for `ToolResult.data` (everything but the text). */
export function windowData(w: BgWindow): Record<string, unknown> {
  const { text: _text, ...facts } = w;
  return facts;
}
