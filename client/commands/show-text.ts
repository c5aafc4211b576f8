/**
 * How much of a long text `zuno session show` prints. By default a long text
 * is cut at a sentence or line boundary (never inside a word, unless it has
 * no white space at all) and a plain note says how much was left out and
 * that `--full` shows it; with `--full` nothing is cut. Pure.
 */

/** How the human view of one session is printed. */
export interface ShowView {
  /** The session shown (named in the `--full` note). */
  sessionId: string;
  /** `--full`: print every text, output and diff whole. */
  full: boolean;
  /** ANSI colours (only when stdout is a terminal). */
  color: boolean;
}

/** Default limits of the human view: characters (Unicode code points) and lines. */
export const LIMITS = {
  /** User, assistant and final text. */
  prose: 800,
  /** Model reasoning. */
  reasoning: 300,
  /** A multi-line argument value (a command, a file's content, a patch). */
  blockChars: 1200,
  blockLines: 20,
  /** A tool call's output. */
  outputChars: 1000,
  outputLines: 16,
  /** The diff shown per tool call. */
  diffLines: 80,
  diffChars: 8000,
} as const;

/** A text cut for display: what is shown and how much was left out (0 = nothing). */
export interface Cut {
  shown: string;
  /** Code points left out (white space at the cut not counted). */
  omittedChars: number;
}

const SENTENCE_END = /[.!?…]+["'’”)\]]*(?=\s)/g;

/** Number of Unicode code points of `s`. */
function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** The UTF-16 length of the first `max` code points of `s`. */
function prefixLength(s: string, max: number): number {
  let n = 0;
  let len = 0;
  for (const c of s) {
    if (n++ === max) break;
    len += c.length;
  }
  return len;
}

/**
 * Where to cut `text` so at most `head` UTF-16 units are shown: the last
 * line break or sentence end in the second half of the head, else the last
 * white space (a word boundary), else `head` (a text without white space).
 */
function boundary(text: string, head: number): number {
  let best = -1;
  const window = text.slice(0, head + 1);
  for (const m of window.matchAll(SENTENCE_END)) {
    const end = m.index + m[0].length;
    if (end <= head) best = Math.max(best, end);
  }
  best = Math.max(best, text.lastIndexOf('\n', head));
  if (best >= head / 2) return best;
  const space = window.search(/\s\S*$/);
  return space > 0 ? space : head;
}

/**
 * Cuts prose to at most `max` code points at a sentence or line boundary.
 * @param text any text; `max` in code points. A text within the limit is returned whole.
 */
export function cutProse(text: string, max: number): Cut {
  const head = prefixLength(text, max);
  if (head >= text.length) return { shown: text, omittedChars: 0 };
  const at = boundary(text, head);
  const rest = text.slice(at).trim();
  if (rest === '') return { shown: text, omittedChars: 0 };
  return { shown: text.slice(0, at).trimEnd(), omittedChars: codePoints(rest) };
}

/** Lines cut for display: the lines shown and what was left out. */
export interface LineCut {
  shown: string[];
  omittedLines: number;
  /** Code points left out, counting a line break as one. */
  omittedChars: number;
}

/**
 * Keeps whole lines from the start while at most `maxLines` lines and `maxChars`
 * code points are shown (a first line longer than `maxChars` is cut by
 * {@link cutProse}).
 */
export function cutLines(lines: readonly string[], maxLines: number, maxChars: number): LineCut {
  const shown: string[] = [];
  let used = 0;
  for (const line of lines) {
    const len = codePoints(line) + (shown.length > 0 ? 1 : 0);
    if (shown.length === maxLines || used + len > maxChars) break;
    shown.push(line);
    used += len;
  }
  if (shown.length === 0 && lines.length > 0) {
    const first = cutProse(lines[0]!, maxChars);
    shown.push(first.shown);
    used = codePoints(first.shown);
  }
  if (shown.length === lines.length && shown.at(-1) === lines.at(-1))
    return { shown, omittedLines: 0, omittedChars: 0 };
  const total = codePoints(lines.join('\n'));
  const omittedLines = lines.length - shown.length + (shown.at(-1) === lines[shown.length - 1] ? 0 : 1);
  return { shown, omittedLines, omittedChars: total - used };
}

const count = (n: number, one: string) => `${n.toLocaleString('en-US')} ${one}${n === 1 ? '' : 's'}`;

/**
 * The note printed where text was left out, e.g.
 * `… (2,345 more characters; zuno session show ses_x --full shows everything)`;
 * with `lines`, `… (12 more lines, 2,345 characters; …)`.
 */
export function omissionNote(view: ShowView, chars: number, lines?: number): string {
  const what = lines ? `${count(lines, 'more line')}, ${count(chars, 'character')}` : count(chars, 'more character');
  return `… (${what}; zuno session show ${view.sessionId} --full shows everything)`;
}

/**
 * Prose as lines: `label: first line`, further lines indented by two spaces,
 * then the omission note when the text was cut (never with `view.full`).
 * @param max the limit in code points (default {@link LIMITS.prose}).
 */
export function proseLines(label: string, text: string, view: ShowView, max: number = LIMITS.prose): string[] {
  const cut = view.full ? { shown: text, omittedChars: 0 } : cutProse(text, max);
  const [first = '', ...more] = cut.shown.split('\n');
  const lines = [`${label}: ${first}`, ...more.map((l) => (l ? `  ${l}` : l))];
  if (cut.omittedChars > 0) lines.push(`  ${omissionNote(view, cut.omittedChars)}`);
  return lines;
}

/** How {@link blockLines} lays out a block. */
export interface BlockLayout {
  /** Limits of the default view. */
  lines: number;
  chars: number;
  /** Put before every line (e.g. `  | `). */
  prefix: string;
  /** Put before the omission note. */
  noteIndent: string;
  /** Decorates one shown line (colours); the limits count the plain text. */
  paint?: (line: string) => string;
}

/**
 * A block of verbatim lines (an output, a multi-line argument, a diff), one
 * final line break not counting as a line of its own, cut by
 * {@link cutLines} unless `view.full`; the omission note follows.
 */
export function blockLines(text: string, view: ShowView, layout: BlockLayout): string[] {
  const all = text.replace(/\n$/, '').split('\n');
  const cut = view.full ? { shown: all, omittedLines: 0, omittedChars: 0 } : cutLines(all, layout.lines, layout.chars);
  const paint = layout.paint ?? ((l: string) => l);
  const out = cut.shown.map((l) => `${layout.prefix}${paint(l)}`);
  if (cut.omittedChars > 0) out.push(`${layout.noteIndent}${omissionNote(view, cut.omittedChars, cut.omittedLines)}`);
  return out;
}
