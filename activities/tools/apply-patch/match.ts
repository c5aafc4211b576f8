/**
 * Locating a hunk's lines in a file (FT3 "matching is by logical lines").
 *
 * The levels are Codex's `seek_sequence`: exact, then trailing whitespace
 * ignored, then leading and trailing whitespace ignored, then typographic
 * punctuation (dashes, quotes, odd spaces) read as ASCII. The first level with
 * any match decides; unlike Codex, every position of that level is reported so
 * the caller can refuse an ambiguous hunk instead of taking the first one.
 */

import { PACE_MASK, Pacer } from './pace.js';

/** Matching level: 0 exact, 1 trailing whitespace ignored, 2 both ends trimmed, 3 punctuation normalized. */
export type Fuzz = 0 | 1 | 2 | 3;

const PUNCT: Record<string, string> = {};
for (const c of '\u2010\u2011\u2012\u2013\u2014\u2015\u2212') PUNCT[c] = '-';
for (const c of '\u2018\u2019\u201A\u201B') PUNCT[c] = "'";
for (const c of '\u201C\u201D\u201E\u201F') PUNCT[c] = '"';
for (const c of '\u00A0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000') PUNCT[c] = ' ';
const PUNCT_RE = new RegExp(`[${Object.keys(PUNCT).join('')}]`, 'g');

const LEVELS: ReadonlyArray<(s: string) => string> = [
  (s) => s,
  (s) => s.trimEnd(),
  (s) => s.trim(),
  (s) => s.trim().replace(PUNCT_RE, (c) => PUNCT[c]!),
];

/** Where a pattern matched, at the first level that matched anywhere. */
export interface SeekResult {
  /** Start indexes (0-based) of every match at `fuzz`, ascending. */
  positions: number[];
  fuzz: Fuzz;
}

/**
 * The lines of one file with their normalized forms per matching level, each
 * computed once on first use (not once per hunk) and paced by `pace`
 * (./pace.ts) so a big file leaves the event loop free.
 */
export class LineIndex {
  private readonly levels: Array<string[] | undefined>;

  /** @param lines the file's logical lines (not copied; do not change them while the index is in use). */
  constructor(
    readonly lines: string[],
    readonly pace: Pacer = new Pacer(),
  ) {
    this.levels = [lines];
  }

  /** The lines normalized for matching level `level`. */
  async level(level: Fuzz): Promise<string[]> {
    const known = this.levels[level];
    if (known) return known;
    const norm = LEVELS[level]!;
    const out: string[] = new Array<string>(this.lines.length);
    for (let i = 0; i < this.lines.length; i++) {
      if ((i & PACE_MASK) === PACE_MASK) await this.pace.tick();
      out[i] = norm(this.lines[i]!);
    }
    this.levels[level] = out;
    return out;
  }
}

/**
 * Finds `pattern` as consecutive lines of the indexed file starting at or after `from`.
 *
 * @param atEnd only the position that ends the file is tried (`*** End of File`).
 * @returns the positions at the strictest level with a match, or undefined.
 *   An empty pattern matches at `from` only.
 */
export async function seekLines(
  index: LineIndex,
  pattern: string[],
  from: number,
  atEnd = false,
): Promise<SeekResult | undefined> {
  if (pattern.length === 0) return { positions: [from], fuzz: 0 };
  const last = index.lines.length - pattern.length;
  if (last < from) return undefined;
  const first = atEnd ? last : from;
  for (let level = 0 as Fuzz; level < LEVELS.length; level = (level + 1) as Fuzz) {
    const want = pattern.map(LEVELS[level]!);
    const have = await index.level(level);
    const positions: number[] = [];
    for (let i = first; i <= last; i++) {
      if (((i - first) & PACE_MASK) === PACE_MASK) await index.pace.tick();
      let ok = true;
      for (let j = 0; j < want.length; j++) {
        if (have[i + j] !== want[j]) {
          ok = false;
          break;
        }
      }
      if (ok) positions.push(i);
    }
    if (positions.length > 0) return { positions, fuzz: level };
  }
  return undefined;
}

/**
 * {@link seekLines} for a hunk anchored at the start of the file: only
 * position 0 is tried (with `atEnd`, the pattern must also end the file).
 *
 * @returns position 0 at the strictest level that matches there, or undefined
 *   (also when `from` is past the start).
 */
export async function seekAtStart(
  index: LineIndex,
  pattern: string[],
  from: number,
  atEnd = false,
): Promise<SeekResult | undefined> {
  const lines = index.lines;
  if (from > 0 || pattern.length > lines.length || (atEnd && pattern.length !== lines.length)) return undefined;
  return seekLines(new LineIndex(lines.slice(0, pattern.length), index.pace), pattern, 0);
}
