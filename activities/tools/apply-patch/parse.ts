/**
 * Parser of the patch format of the seeds (tools.zh.md, apply_patch), which is
 * the Codex apply-patch format:
 *
 * ```
 * *** Begin Patch
 * *** Add File: <path>          followed by `+` lines (the whole new file)
 * *** Delete File: <path>
 * *** Update File: <path>
 * *** Move to: <path>           optional, right after Update File
 * @@ [<context line>]            a hunk; optional before the first hunk of a file
 *  <context>  -<removed>  +<added>
 * *** End of File               optional: the hunk ends at the end of the file
 * *** End Patch
 * ```
 *
 * Leniency follows Codex: whitespace around the Begin/End markers and the file
 * headers is ignored, blank lines before and after the patch are ignored, a
 * `<<'EOF'` … `EOF` heredoc wrapper is stripped, blank lines between hunks are
 * skipped and an empty line inside a hunk is an empty context line. Beyond
 * Codex: a unified-diff hunk header `@@ -1,3 +1,4 @@ [ctx]` is accepted (the
 * numbers are ignored, the trailing text is the context header), `\ No newline
 * at end of file` lines are skipped, and an Update with a Move and no hunks is
 * a pure rename (Codex rejects any Update without hunks).
 */
import { PatchSyntaxError } from './errors.js';

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File:';
const DELETE = '*** Delete File:';
const UPDATE = '*** Update File:';
const MOVE = '*** Move to:';
const EOF_MARKER = '*** End of File';
const FILE_HEADERS = "'*** Add File: <path>', '*** Delete File: <path>' or '*** Update File: <path>'";
const HUNK_LINE = "a hunk line starting with ' ' (context), '-' (removed) or '+' (added)";
const UNIFIED_HEADER = /^-\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)$/;

/** One `@@` hunk of an Update File section. */
export interface PatchChunk {
  /** The text after `@@ ` (a line that must occur before the hunk), if any. */
  header?: string;
  /** Lines the hunk expects in the file, in order (context and removed lines). */
  oldLines: string[];
  /** Lines that replace them (context and added lines). */
  newLines: string[];
  /** For each entry of `newLines`: the index in `oldLines` of the same context line, or -1 for an added line. */
  contextOf: number[];
  /** `*** End of File` followed the hunk: `oldLines` must end the file. */
  endOfFile: boolean;
  /** `oldLines` must start the file (never set by the parser; see bom.ts). */
  startOfFile?: boolean;
  /** 1-based line of the patch text where the hunk starts. */
  line: number;
}

/** One file section of a patch. Paths are as written (trimmed), not yet resolved. */
export type FileOperation =
  | { kind: 'add'; path: string; lines: string[]; line: number }
  | { kind: 'delete'; path: string; line: number }
  | { kind: 'update'; path: string; moveTo?: string; chunks: PatchChunk[]; line: number };

/** A parsed patch: its file sections in order (never empty). */
export interface ParsedPatch {
  operations: FileOperation[];
}

/** Parser state: the text's lines (CR of a CRLF stripped) and the body window [pos, end). */
interface Cursor {
  lines: string[];
  pos: number;
  end: number;
}

function stripHeader(trimmed: string, marker: string, lineNo: number): string {
  const path = trimmed.slice(marker.length).trim();
  if (path === '') throw new PatchSyntaxError(lineNo, trimmed, `a path after '${marker} '`, 'the path is missing');
  return path;
}

/**
 * Parses patch text into file operations.
 *
 * @param text the whole patch, `*** Begin Patch` … `*** End Patch`; LF or CRLF.
 * @returns the operations in patch order.
 * @throws PatchSyntaxError (`code: 'invalid_arguments'`, FT3/TD8) naming the
 *   1-based line, what was found and what was expected: missing Begin/End
 *   markers, an unknown file header, a path missing after a header, an Update
 *   without hunks (and without a Move), a hunk without lines, a line inside a
 *   hunk that is not ` `/`-`/`+`, a patch with no file operations.
 */
export function parsePatch(text: string): ParsedPatch {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  let first = 0;
  let last = lines.length - 1;
  const skipBlank = () => {
    while (first <= last && lines[first]!.trim() === '') first++;
    while (last >= first && lines[last]!.trim() === '') last--;
  };
  skipBlank();
  if (first > last) throw new PatchSyntaxError(1, '', `'${BEGIN}' as the first line`, 'the patch is empty');
  const heredoc = /^<<(EOF|'EOF'|"EOF")$/.test(lines[first]!.trim());
  if (heredoc && last - first + 1 >= 4 && lines[last]!.trim().endsWith('EOF')) {
    first++;
    last--;
    skipBlank();
  }
  if (lines[first]!.trim() !== BEGIN) {
    throw new PatchSyntaxError(first + 1, lines[first]!, `'${BEGIN}' as the first line`);
  }
  if (last === first || lines[last]!.trim() !== END) {
    throw new PatchSyntaxError(last + 1, last === first ? '' : lines[last]!, `'${END}' as the last line`);
  }
  const cur: Cursor = { lines, pos: first + 1, end: last };
  const operations: FileOperation[] = [];
  while (cur.pos < cur.end) {
    const raw = lines[cur.pos]!;
    const t = raw.trim();
    const lineNo = cur.pos + 1;
    if (t === '') {
      cur.pos++;
    } else if (t.startsWith(ADD)) {
      const path = stripHeader(t, ADD, lineNo);
      cur.pos++;
      const added: string[] = [];
      while (cur.pos < cur.end && lines[cur.pos]!.startsWith('+')) added.push(lines[cur.pos++]!.slice(1));
      operations.push({ kind: 'add', path, lines: added, line: lineNo });
    } else if (t.startsWith(DELETE)) {
      operations.push({ kind: 'delete', path: stripHeader(t, DELETE, lineNo), line: lineNo });
      cur.pos++;
    } else if (t.startsWith(UPDATE)) {
      operations.push(parseUpdate(cur, stripHeader(t, UPDATE, lineNo)));
    } else if (t === END) {
      throw new PatchSyntaxError(lineNo, raw, `'${END}' only as the last line`, `'${END}' appears before the end`);
    } else {
      throw new PatchSyntaxError(lineNo, raw, FILE_HEADERS);
    }
  }
  if (operations.length === 0) {
    throw new PatchSyntaxError(last + 1, lines[last]!, `at least one ${FILE_HEADERS} section before it`);
  }
  return { operations };
}

function parseUpdate(cur: Cursor, path: string): FileOperation {
  const { lines } = cur;
  const line = cur.pos + 1;
  cur.pos++;
  let moveTo: string | undefined;
  if (cur.pos < cur.end && lines[cur.pos]!.trim().startsWith(MOVE)) {
    moveTo = stripHeader(lines[cur.pos]!.trim(), MOVE, cur.pos + 1);
    cur.pos++;
  }
  const chunks: PatchChunk[] = [];
  while (cur.pos < cur.end) {
    const l = lines[cur.pos]!;
    if (l.trim() === '') {
      cur.pos++;
      continue;
    }
    if (l.startsWith('*')) break;
    chunks.push(parseChunk(cur, chunks.length === 0));
  }
  if (chunks.length === 0 && moveTo === undefined) {
    throw new PatchSyntaxError(
      line,
      lines[line - 1]!,
      "at least one hunk ('@@' followed by ' ', '-' or '+' lines) after it",
      `the Update File section for ${JSON.stringify(path)} has no hunks`,
    );
  }
  return moveTo === undefined ? { kind: 'update', path, chunks, line } : { kind: 'update', path, moveTo, chunks, line };
}

function parseChunk(cur: Cursor, headerOptional: boolean): PatchChunk {
  const { lines } = cur;
  const start = cur.pos;
  const first = lines[start]!;
  let header: string | undefined;
  if (first.trim() === '@@') {
    cur.pos++;
  } else if (first.startsWith('@@ ')) {
    const rest = first.slice(3);
    const unified = UNIFIED_HEADER.exec(rest.trim());
    const text = unified ? unified[1]! : rest;
    if (text.trim() !== '') header = text;
    cur.pos++;
  } else if (!headerOptional) {
    throw new PatchSyntaxError(start + 1, first, "'@@' or '@@ <context line>' to start the next hunk");
  }
  const chunk: PatchChunk = { oldLines: [], newLines: [], contextOf: [], endOfFile: false, line: start + 1 };
  if (header !== undefined) chunk.header = header;
  let parsed = 0;
  while (cur.pos < cur.end) {
    const l = lines[cur.pos]!;
    if (l.trimEnd() === EOF_MARKER) {
      if (parsed === 0) throw new PatchSyntaxError(cur.pos + 1, l, HUNK_LINE, 'the hunk has no lines');
      chunk.endOfFile = true;
      cur.pos++;
      break;
    }
    if (l.startsWith('\\ ')) {
      cur.pos++; // "\ No newline at end of file" from unified diffs: final-newline state is kept anyway
      continue;
    }
    const c = l.length === 0 ? ' ' : l[0];
    const body = l.slice(1);
    if (c === ' ') {
      chunk.contextOf.push(chunk.oldLines.length);
      chunk.oldLines.push(body);
      chunk.newLines.push(body);
    } else if (c === '-') {
      chunk.oldLines.push(body);
    } else if (c === '+') {
      chunk.contextOf.push(-1);
      chunk.newLines.push(body);
    } else {
      if (parsed === 0) throw new PatchSyntaxError(cur.pos + 1, l, HUNK_LINE);
      break; // the next hunk or file section starts here
    }
    parsed++;
    cur.pos++;
  }
  if (parsed === 0) throw new PatchSyntaxError(cur.pos + 1, lines[cur.pos] ?? '', HUNK_LINE, 'the hunk has no lines');
  return chunk;
}
