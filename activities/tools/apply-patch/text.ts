/**
 * The logical-line model of a text file (FT3 "matching is by logical lines
 * and keeps BOM, LF/CRLF style and final-newline state").
 *
 * FT3 notes — how the formatting of the original bytes survives an edit:
 * - **BOM**: a file-level fact, never part of the first line; encoding writes
 *   it exactly once (see ./bom.ts for patch lines that carry it).
 * - **Line endings are kept per line.** Every line break that is `\r\n` is a
 *   CRLF ending, every other `\n` an LF ending; a lone `\r` stays inside its
 *   line. Lines are matched without their endings, so a mixed CRLF/LF file
 *   matches exactly.
 *   - A context line keeps its own ending.
 *   - A replaced line (the k-th `+` line of a run of `-`/`+` lines between two
 *     context lines, paired with that run's k-th `-` line) keeps the ending of
 *     the line it replaces.
 *   - An added line (a `+` line with no `-` line left to pair with) takes the
 *     ending of the line it follows in the new file; an added line at the top
 *     of the file takes the ending of the line it precedes; in a file with no
 *     other line, the file's style ({@link TextFile.eol}).
 *   - The last line of a file without a final newline has no ending; it keeps
 *     a latent one (that of the line before it, else the file's style), used
 *     when a line is appended after it.
 * - **Final newline**: kept as it was: the last line of the new content ends
 *   with a line break exactly when the original's did (an empty file counts
 *   as ending with one).
 */

import { PACE_BYTES, PACE_MASK, Pacer } from './pace.js';

/** A line break. */
export type Eol = '\n' | '\r\n';

/** A UTF-8 text file as logical lines plus the formatting facts to restore. */
export interface TextFile {
  /** The file started with a UTF-8 BOM (EF BB BF). */
  bom: boolean;
  /** The file's style: `\r\n` when every line break of the file is CRLF, else `\n`; the ending of lines with no neighbour to take one from. */
  eol: Eol;
  /** The last line ends with a line break. */
  finalNewline: boolean;
  /** The lines, without their line breaks. An empty file has no lines. */
  lines: string[];
  /**
   * The line break after each line (same length as `lines`; the last entry
   * is latent when `finalNewline` is false). Absent: every line ends with `eol`.
   */
  endings?: Eol[];
}

/** Why bytes are not a text file `apply_patch` can edit. */
export type NotText = 'binary' | 'not_utf8';

/** Formatting of a file created from nothing: no BOM, LF, final newline. */
export const NEW_FILE_STYLE: Omit<TextFile, 'lines' | 'endings'> = { bom: false, eol: '\n', finalNewline: true };

/**
 * Decodes file bytes into logical lines with their endings. Works in slices
 * of {@link PACE_BYTES} bytes / `PACE_EVERY` lines paced by `pace`
 * (./pace.ts), so a big file leaves the event loop free.
 *
 * @returns the TextFile (with `endings`), or `'binary'` (a NUL byte) /
 *   `'not_utf8'` (invalid UTF-8).
 */
export async function decodeText(bytes: Uint8Array, pace: Pacer = new Pacer()): Promise<TextFile | NotText> {
  if (bytes.includes(0)) return 'binary';
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const lines: string[] = [];
  const endings: Eol[] = [];
  let crlfs = 0;
  const take = (piece: string) => {
    const crlf = piece.endsWith('\r');
    lines.push(crlf ? piece.slice(0, -1) : piece);
    endings.push(crlf ? '\r\n' : '\n');
    if (crlf) crlfs++;
  };
  let bom = false;
  /** The text after the last line break seen so far. */
  let carry = '';
  for (let at = 0; at < bytes.length; at += PACE_BYTES) {
    if (at > 0) await pace.tick();
    const end = Math.min(bytes.length, at + PACE_BYTES);
    let text: string;
    try {
      text = decoder.decode(bytes.subarray(at, end), { stream: end < bytes.length });
    } catch {
      return 'not_utf8';
    }
    if (at === 0 && text.startsWith('\uFEFF')) {
      bom = true;
      text = text.slice(1);
    }
    if (!text.includes('\n')) {
      carry += text; // a line longer than a slice: no re-scan of what came before
      continue;
    }
    const pieces = text.split('\n');
    pieces[0] = carry + pieces[0]!;
    for (let i = 0; i < pieces.length - 1; i++) {
      if ((i & PACE_MASK) === PACE_MASK) await pace.tick();
      take(pieces[i]!);
    }
    carry = pieces[pieces.length - 1]!;
  }
  const breaks = lines.length;
  if (breaks === 0 && carry === '') return { bom, eol: '\n', finalNewline: false, lines: [], endings: [] };
  const eol: Eol = breaks > 0 && crlfs === breaks ? '\r\n' : '\n';
  const finalNewline = carry === '';
  if (!finalNewline) {
    lines.push(carry);
    endings.push(endings[endings.length - 1] ?? eol); // latent
  }
  return { bom, eol, finalNewline, lines, endings };
}

/**
 * Encodes logical lines back to bytes with the file's BOM, per-line endings
 * and final-newline state; in blocks of `PACE_EVERY` lines paced by
 * `pace` (./pace.ts).
 */
export async function encodeText(file: TextFile, pace: Pacer = new Pacer()): Promise<Buffer> {
  const blocks: Buffer[] = [];
  let parts: string[] = file.bom ? ['\uFEFF'] : [];
  const last = file.lines.length - 1;
  for (let i = 0; i <= last; i++) {
    if (i > 0 && (i & PACE_MASK) === 0) {
      blocks.push(Buffer.from(parts.join(''), 'utf8'));
      parts = [];
      await pace.tick();
    }
    parts.push(file.lines[i]!);
    if (i < last || file.finalNewline) parts.push(file.endings?.[i] ?? file.eol);
  }
  blocks.push(Buffer.from(parts.join(''), 'utf8'));
  return blocks.length === 1 ? blocks[0]! : Buffer.concat(blocks);
}

/**
 * The formatting new content of a file takes: the file's own when it has
 * lines; an empty file has no final-newline state to keep, so content written
 * into it ends with a line break.
 */
export function styleFor(file: TextFile | undefined): Omit<TextFile, 'lines' | 'endings'> {
  if (!file) return NEW_FILE_STYLE;
  return { bom: file.bom, eol: file.eol, finalNewline: file.lines.length === 0 ? true : file.finalNewline };
}

/**
 * Resolves the endings of an edited file: `carried[i]` is the ending line `i`
 * keeps (a context or replaced line), undefined for an added line, which
 * takes the ending of the line before it, else of the first line after it
 * with one, else `eol` (see the FT3 notes above).
 */
export async function resolveEndings(
  carried: Array<Eol | undefined>,
  eol: Eol,
  pace: Pacer = new Pacer(),
): Promise<Eol[]> {
  const firstKnown = carried.find((e) => e !== undefined) ?? eol;
  const out: Eol[] = [];
  for (let i = 0; i < carried.length; i++) {
    if ((i & PACE_MASK) === PACE_MASK) await pace.tick();
    out.push(carried[i] ?? out[out.length - 1] ?? firstKnown);
  }
  return out;
}
