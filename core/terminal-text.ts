/**
 * Command output shown on one line of someone's terminal or the Temporal UI:
 * what a program wrote for its own terminal (colours, cursor moves, window
 * titles, progress bars redrawn with carriage returns) reduced to the text a
 * reader would have seen. Deterministic: pure string code only.
 */

// CSI (ESC [ … final byte, or the 8-bit CSI), OSC (ESC ] … BEL or ST), the other two-byte ESC sequences.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\^_]/g;
// C0/C1 controls and DEL; line and paragraph separators (U+2028/9, line breaks to some terminals and editors);
// bidi overrides and zero-width characters, which would rearrange a terminal line.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/**
 * One output line as plain text: escape sequences removed; of a line
 * rewritten with carriage returns (a progress bar) the last non-empty
 * rewrite kept; every other control character a space; white space
 * collapsed and trimmed. Idempotent. Pure.
 */
export function plainTerminalLine(text: string): string {
  const rewrites = text
    .replace(ESCAPES, '')
    .split('\r')
    .filter((s) => s.trim() !== '');
  return (rewrites.at(-1) ?? '').replace(CONTROLS, ' ').replace(/\s+/g, ' ').trim();
}

/** The visible escape of one control character (see {@link inertText}). */
function escapeControl(c: string): string {
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  if (c === '\t') return '\\t';
  if (c === '\x1b') return '\\e';
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * Text from a model or a tool made inert for a terminal, kept whole and
 * readable (issue 26 item 8): every C0/C1 control character, DEL, line and
 * paragraph separator (U+2028, U+2029), bidi override and zero-width character is written as a visible escape — `\n`,
 * `\r`, `\t`, `\e` for ESC, `\uNNNN` for the rest (the form JSON reads back
 * as the same character, so a guarded JSON document stays valid and equal) —
 * and a backslash stays a single backslash (the output is for reading, not
 * for parsing back). Nothing is dropped, so a command shown for approval is
 * the command that runs, character for character. Pure.
 */
export function inertText(text: string): string {
  return text.replace(CONTROLS, escapeControl);
}

/**
 * Text from a model or a tool made inert but kept as a block of lines (a
 * final answer, a report, a diff): like {@link inertText}, except that line
 * feeds and tabs stay as they are and a CR LF pair is one line feed. Pure.
 */
export function inertBlock(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(CONTROLS, (c) => (c === '\n' || c === '\t' ? c : escapeControl(c)));
}

/** The colour sequences Zuno's own views write (client/commands/show-diff.ts paints diffs with them); no other escape sequence is ever Zuno's. */
export const COLOURS = {
  red: '\x1b[31m',
  green: '\x1b[32m',
  cyan: '\x1b[36m',
  bold: '\x1b[1m',
  dim: '\x1b[2m',
  reset: '\x1b[0m',
} as const;

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const OWN_COLOURS = /\x1b\[(?:31|32|36|1|2|0)m/g;

/**
 * What reaches a person's terminal (client/live-progress.ts `streamSink`
 * applies it to every write; issue 26 item 8): {@link inertBlock} — only
 * line feeds and tabs stay raw — except, with `colours`, the sequences of
 * {@link COLOURS}, which can neither move the cursor, clear the screen, hide
 * text nor set a window title. The last line of defence: renderers make
 * model and tool text inert themselves. JSON written by `JSON.stringify`
 * passes unchanged in meaning (it has no raw C0 controls; the rest become
 * `\uNNNN`). Pure.
 *
 * @param colours true when the stream is a terminal Zuno may colour.
 */
export function guardTerminalOutput(text: string, colours = false): string {
  if (!colours) return inertBlock(text);
  let out = '';
  let at = 0;
  for (const m of text.matchAll(OWN_COLOURS)) {
    out += inertBlock(text.slice(at, m.index)) + m[0];
    at = m.index + m[0].length;
  }
  return out + inertBlock(text.slice(at));
}

/**
 * Text from a model or a tool as one inert line of at most `max` characters
 * (a title, a table cell): {@link inertText} with each run of white space
 * (newlines included) read as one space first, trimmed, cut with `…`. Pure.
 */
export function inertLine(text: string, max = Number.POSITIVE_INFINITY): string {
  const line = inertText(text.replace(/[\n\r\t ]+/g, ' ').trim());
  return line.length > max ? `${line.slice(0, Math.max(0, max - 1))}…` : line;
}

/** True when `text` has at least one printable character (not white space, not a control). Pure. */
export function hasPrintable(text: string): boolean {
  return text.replace(CONTROLS, '').trim() !== '';
}

/**
 * Text put between `<tag …>` and `</tag>` for the model, made unable to close
 * the wrapper early (issue 26 item 8): every `</tag` (any case, white space
 * allowed after `</`) becomes `<\/tag`, which the model still reads as the
 * same words. Used for a person's answer (`question_answer`), a child's
 * report (`task_result`) and a background report. Pure.
 */
export function escapeClosingTag(text: string, tag: string): string {
  return text.replace(new RegExp(`<(\\s*)/(\\s*${tag})`, 'gi'), '<$1\\/$2');
}
