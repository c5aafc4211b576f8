/**
 * One tool call as `zuno session show` prints it for people: a heading with
 * the tool's summary and how the call ended (never `ok` beside a failed
 * receipt), readable arguments, what its stored result says (receipt,
 * uncertainty, settlement), the change it made as a diff, and its output.
 * No internal ids (row ids, provider call ids). Pure.
 */
import type { ToolCallRow } from '../../activities/projection/index.js';
import { argumentLines, callSummary } from './show-args.js';
import { changeLines, recordedChange } from './show-diff.js';
import { blockLines, LIMITS, type ShowView } from './show-text.js';
import { outcomeWord, toolRecordFacts } from './tool-record-view.js';

const BLOCKED: Record<string, string> = {
  invalid_arguments: 'invalid arguments',
  unavailable: 'no such tool',
  denied: 'denied',
};

const STATUS: Record<string, string> = { pending: 'not run yet', running: 'running' };

/**
 * How the call ended, in words: `ok`, `failed (exit 1)`, `error (code
 * ReadRequired)`, `blocked (invalid arguments)`, `uncertain`, `running`…
 */
function endedAs(c: ToolCallRow): string {
  // A call that ran but did not do what it was asked (a shell exit ≠ 0) never reads `ok`.
  const word = c.outcome ? outcomeWord(c.outcome, c.result) : (STATUS[c.status] ?? c.status);
  const extra = [
    c.blockedCategory ? (BLOCKED[c.blockedCategory] ?? c.blockedCategory) : '',
    c.errorCode && !c.blockedCategory ? `code ${c.errorCode}` : '',
    c.attempts && c.attempts > 1 ? `${c.attempts} attempts` : '',
  ].filter(Boolean);
  return `${word}${extra.length ? ` (${extra.join(', ')})` : ''}`;
}

/**
 * The lines of one tool call: `tool <summary> → <how it ended>`, then,
 * indented by two spaces, its arguments, result facts, recorded diff and
 * output (`| ` before each output line). Long parts are cut unless `view.full`.
 */
export function renderToolCall(c: ToolCallRow, view: ShowView): string[] {
  const change = recordedChange(c.result);
  const lines = [`tool ${callSummary(c.tool, c.argsJson)} → ${endedAs(c)}`];
  lines.push(...argumentLines(c.tool, c.argsJson, view, '  ', { changeShown: change.diffs.length > 0 }));
  lines.push(...toolRecordFacts(c.result).map((l) => `  ${l}`));
  lines.push(...changeLines(change, view, '  '));
  if (c.output) {
    lines.push(
      ...blockLines(c.output, view, {
        lines: LIMITS.outputLines,
        chars: LIMITS.outputChars,
        prefix: '  | ',
        noteIndent: '  ',
      }),
    );
  }
  return lines;
}
