/**
 * The logical-line model of a text file (FT3): matching is done on lines,
 * while the BOM, the line-ending style (LF or CRLF) and the final-newline
 * state of the original bytes are kept and restored on encoding.
 */

/** A UTF-8 text file as logical lines plus the formatting facts to restore. */
export interface TextFile {
  /** The file started with a UTF-8 BOM (EF BB BF). */
  bom: boolean;
  /** `\r\n` when every line break of the file is CRLF, else `\n` (stray `\r`s then stay inside lines). */
  eol: '\n' | '\r\n';
  /** The last line ends with a line break. */
  finalNewline: boolean;
  /** The lines, without their line breaks. An empty file has no lines. */
  lines: string[];
}

/** Why bytes are not a text file `apply_patch` can edit. */
export type NotText = 'binary' | 'not_utf8';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Formatting of a file created from nothing: no BOM, LF, final newline. */
export const NEW_FILE_STYLE: Omit<TextFile, 'lines'> = { bom: false, eol: '\n', finalNewline: true };

/**
 * Decodes file bytes into logical lines.
 *
 * @returns the TextFile, or `'binary'` (a NUL byte) / `'not_utf8'` (invalid UTF-8).
 */
export function decodeText(bytes: Uint8Array): TextFile | NotText {
  if (bytes.includes(0)) return 'binary';
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return 'not_utf8';
  }
  const bom = text.startsWith('\uFEFF');
  if (bom) text = text.slice(1);
  let lf = 0;
  let crlf = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
    lf++;
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
  }
  const eol = lf > 0 && crlf === lf ? '\r\n' : '\n';
  if (text === '') return { bom, eol, finalNewline: false, lines: [] };
  const lines = text.split(eol);
  const finalNewline = lines[lines.length - 1] === '';
  if (finalNewline) lines.pop();
  return { bom, eol, finalNewline, lines };
}

/** Encodes logical lines back to bytes with the file's BOM, line ending and final-newline state. */
export function encodeText(file: TextFile): Buffer {
  const body = file.lines.join(file.eol) + (file.finalNewline && file.lines.length > 0 ? file.eol : '');
  return Buffer.from((file.bom ? '\uFEFF' : '') + body, 'utf8');
}

/**
 * The formatting new content of a file takes: the file's own when it has
 * lines; an empty file has no final-newline state to keep, so content written
 * into it ends with a line break.
 */
export function styleFor(file: TextFile | undefined): Omit<TextFile, 'lines'> {
  if (!file) return NEW_FILE_STYLE;
  return { bom: file.bom, eol: file.eol, finalNewline: file.lines.length === 0 ? true : file.finalNewline };
}
