/**
 * `read` tool implementation (FT1): a file as numbered lines, or a directory
 * as a sorted entry listing, paged by `offset`/`limit`; a file read issues a
 * read credential.
 *
 * The whole file is streamed once: every byte is hashed (SHA-256 for the
 * credential), lines are counted, and only the selected window is decoded and
 * kept, so a huge file costs one pass but bounded memory. Output respects the
 * TD9 caps (51200 bytes, 2000 lines): a window that does not fit is cut at a
 * line boundary and the model is told which `offset` continues it — read is
 * paged, so this is not withholding.
 *
 * The path is authorized by the FT4 path authority (paths.ts →
 * path-authority.ts): no intermediate symlink, a final symlink followed once.
 * The file (or directory) is then opened through the held parent descriptor
 * with `O_NOFOLLOW`, and the bytes hashed for the credential are the bytes
 * read from that descriptor, so a directory swapped for a symlink after
 * authorization cannot redirect the read.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import {
  READ_DEFAULT_LIMIT,
  READ_DEFAULT_OFFSET,
  READ_MAX_LINE_LENGTH,
  readDeclaration,
  type ReadArgs,
  type ReadCredential,
} from '../../core/tools/read.js';
import type { ToolResult } from '../../core/tools/types.js';
import {
  OUTPUT_MAX_BYTES,
  OUTPUT_MAX_LINES,
  QUOTED_PATHS_NOTE,
  cancelledResult,
  capUnits,
  decodeUtf8Strict,
  displayPath,
  errorResult,
  utf8Bytes,
} from './common.js';
import type { ToolContext } from './context.js';
import { heldPath, openAuthorizedDirectory, withAuthorityScope } from './path-authority.js';
import type { AuthorityScope, AuthorizedExisting } from './path-authority.js';
import { authorizeForReading } from './paths.js';
import type { ToolBody } from './tool-body.js';
import { runTool } from './wrapper.js';

/** Bytes examined for a NUL byte to call a file binary. */
export const BINARY_SNIFF_BYTES = 8192;
/** Room kept for the trailing notice, in bytes. */
const FOOTER_RESERVE = 512;
/** Content lines per page: the cap minus a blank line and the notice line. */
const PAGE_MAX_LINES = OUTPUT_MAX_LINES - 2;
const CHUNK = 64 * 1024;
/**
 * How the authorized file is opened through its held parent: never through a
 * symlink, and without blocking if the name now is a FIFO (it is then
 * refused as not a file).
 */
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Test observation points of {@link runRead}. */
export interface ReadHooks {
  /** After the path is authorized, before the target is opened. */
  afterAuthorize?: () => void | Promise<void>;
}

/** What `runRead` needs: a {@link ToolContext}, plus test hooks. */
export interface ReadContext extends ToolContext {
  hooks?: ReadHooks;
}

/** Formats one numbered line like `cat -n`: number right-aligned in 6 columns, a tab, the text. */
function numbered(n: number, text: string): string {
  return `${String(n).padStart(6)}\t${text}`;
}

class Cancelled extends Error {}
class NotAFile extends Error {}

interface FileScan {
  credential: ReadCredential;
  binary: boolean;
  invalidUtf8: boolean;
  totalLines: number;
  shown: string[];
  firstShown: number;
  lastShown: number;
  linesCut: number;
}

/**
 * The numbered lines of one page, fed decoded text in order: lines from
 * `offset`, at most `maxLines` and the output budget, each cut at
 * READ_MAX_LINE_LENGTH characters; counts every line of the file.
 */
class PageCollector {
  readonly shown: string[] = [];
  lastShown: number;
  linesCut = 0;
  /** Number of the line being read (1-based); after {@link finish}, one more than the file's line count. */
  lineNo = 1;
  private shownBytes = 0;
  private stopped = false;
  private cur = '';
  private curCut = false;
  private curHasContent = false;
  private readonly budget = OUTPUT_MAX_BYTES - FOOTER_RESERVE;

  constructor(
    private readonly offset: number,
    private readonly maxLines: number,
  ) {
    this.lastShown = offset - 1;
  }

  feed(text: string): void {
    let i = 0;
    for (;;) {
      const nl = text.indexOf('\n', i);
      const end = nl === -1 ? text.length : nl;
      if (end > i) {
        this.curHasContent = true;
        if (this.collecting() && !this.curCut) {
          const room = READ_MAX_LINE_LENGTH - this.cur.length;
          if (end - i > room) {
            this.cur = capUnits(this.cur + text.slice(i, i + room + 1), READ_MAX_LINE_LENGTH).text;
            this.curCut = true;
          } else {
            this.cur += text.slice(i, end);
          }
        }
      }
      if (nl === -1) return;
      this.endLine();
      i = nl + 1;
    }
  }

  /** Ends the text: a last line without a newline still counts. */
  finish(): void {
    if (this.curHasContent) this.endLine();
  }

  private collecting(): boolean {
    return !this.stopped && this.lineNo >= this.offset && this.lineNo < this.offset + this.maxLines;
  }

  private endLine(): void {
    if (this.collecting()) {
      let text = this.cur;
      if (!this.curCut && text.endsWith('\r')) text = text.slice(0, -1);
      const line = numbered(
        this.lineNo,
        this.curCut ? `${text} … [line cut at ${READ_MAX_LINE_LENGTH} characters]` : text,
      );
      const size = utf8Bytes(line) + 1;
      if (this.shownBytes + size > this.budget && this.shown.length > 0) {
        this.stopped = true;
      } else {
        this.shown.push(line);
        this.shownBytes += size;
        this.lastShown = this.lineNo;
        if (this.curCut) this.linesCut++;
      }
    }
    this.lineNo++;
    this.cur = '';
    this.curCut = false;
    this.curHasContent = false;
  }
}

/** UTF-8 decoding of a byte stream: lossy text for the page, and whether the bytes are valid UTF-8. */
class Utf8Check {
  invalid = false;
  private readonly lossy = new TextDecoder('utf-8');
  private readonly strict = new TextDecoder('utf-8', { fatal: true });

  /** The chunk's text (the end of the stream when `chunk` is absent). */
  decode(chunk?: Buffer): string {
    if (!this.invalid) {
      try {
        if (chunk) this.strict.decode(chunk, { stream: true });
        else this.strict.decode();
      } catch {
        this.invalid = true;
      }
    }
    return chunk ? this.lossy.decode(chunk, { stream: true }) : this.lossy.decode();
  }
}

async function scanFile(
  target: AuthorizedExisting,
  offset: number,
  limit: number,
  signal?: AbortSignal,
): Promise<FileScan> {
  const fh = await open(target.target, FILE_FLAGS);
  try {
    const st = await fh.stat(); // mtime taken BEFORE reading: any later write makes the credential stale
    if (!st.isFile()) throw new NotAFile();
    const hash = createHash('sha256');
    const buf = Buffer.allocUnsafe(CHUNK);
    const utf8 = new Utf8Check();
    const page = new PageCollector(offset, Math.min(limit, PAGE_MAX_LINES));
    let binary = false;
    let total = 0;
    for (;;) {
      if (signal?.aborted) throw new Cancelled();
      const { bytesRead } = await fh.read(buf, 0, CHUNK, null);
      if (bytesRead === 0) break;
      const chunk = buf.subarray(0, bytesRead);
      hash.update(chunk);
      if (!binary && total < BINARY_SNIFF_BYTES) {
        const sniff = chunk.subarray(0, BINARY_SNIFF_BYTES - total);
        if (sniff.includes(0)) binary = true;
      }
      total += bytesRead;
      if (binary) continue; // keep hashing for the credential, stop decoding
      page.feed(utf8.decode(chunk));
    }
    if (!binary) {
      page.feed(utf8.decode());
      page.finish();
    }
    return {
      credential: { path: target.rel, sha256: hash.digest('hex'), bytes: total, mtimeMs: st.mtimeMs },
      binary,
      invalidUtf8: utf8.invalid,
      totalLines: page.lineNo - 1,
      shown: page.shown,
      firstShown: offset,
      lastShown: page.lastShown,
      linesCut: page.linesCut,
    };
  } finally {
    await fh.close();
  }
}

function notAFile(rel: string): ToolResult {
  return errorResult(
    'not_a_file',
    `${rel} is not a regular file or directory (a FIFO, socket or device); read does not open it.`,
    { path: rel },
  );
}

async function readFile(
  target: AuthorizedExisting,
  offset: number,
  limit: number,
  ctx: ToolContext,
): Promise<ToolResult> {
  let scan: FileScan;
  try {
    scan = await scanFile(target, offset, limit, ctx.signal);
  } catch (err) {
    if (err instanceof Cancelled) return cancelledResult('read');
    if (err instanceof NotAFile) return notAFile(target.rel);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') {
      return errorResult(
        'cannot_read',
        `Cannot read ${target.rel}: it was replaced by a symlink after its path was checked. Read it again.`,
        { path: target.rel, code },
      );
    }
    if (code === 'ENOENT') {
      return errorResult(
        'not_found',
        `${target.rel} disappeared after its path was checked. Use glob to find the right path.`,
        { path: target.rel, code },
      );
    }
    return errorResult('cannot_read', `Cannot read ${target.rel}: ${code ?? String(err)}.`, { path: target.rel, code });
  }
  const { credential } = scan;
  if (scan.binary) {
    return errorResult(
      'binary_file',
      `${target.rel} is a binary file (${credential.bytes} bytes, contains NUL bytes); read only shows text. Use shell tools (e.g. \`file\`, \`xxd | head\`) to inspect it.`,
      { kind: 'file', path: target.rel, credential },
    );
  }
  const base = { kind: 'file', path: target.rel, credential, totalLines: scan.totalLines };
  if (scan.totalLines === 0) {
    return {
      output: '(The file is empty.)',
      isError: false,
      data: { ...base, startLine: 0, endLine: 0, hasMore: false },
    };
  }
  if (offset > scan.totalLines) {
    return errorResult(
      'offset_out_of_range',
      `offset ${offset} is past the end of ${target.rel}, which has ${scan.totalLines} line${scan.totalLines === 1 ? '' : 's'}. Use an offset between 1 and ${scan.totalLines}.`,
      base,
    );
  }
  const end = scan.lastShown;
  const hasMore = end < scan.totalLines;
  const notes: string[] = [];
  notes.push(
    hasMore
      ? `Showing lines ${scan.firstShown}-${end} of ${scan.totalLines}. Use offset=${end + 1} to continue.`
      : `Showing lines ${scan.firstShown}-${end} of ${scan.totalLines}; end of file.`,
  );
  if (scan.linesCut > 0)
    notes.push(
      `${scan.linesCut} line${scan.linesCut === 1 ? ' was' : 's were'} longer than ${READ_MAX_LINE_LENGTH} characters and cut.`,
    );
  if (scan.invalidUtf8) notes.push('The file is not valid UTF-8; invalid bytes are shown as U+FFFD.');
  return {
    output: `${scan.shown.join('\n')}\n\n(${notes.join(' ')})`,
    isError: false,
    data: {
      ...base,
      startLine: scan.firstShown,
      endLine: end,
      hasMore,
      linesCut: scan.linesCut,
      invalidUtf8: scan.invalidUtf8,
    },
  };
}

async function readDirectory(
  scope: AuthorityScope,
  target: AuthorizedExisting,
  offset: number,
  limit: number,
): Promise<ToolResult> {
  let dirents;
  try {
    const fd = openAuthorizedDirectory(scope, target);
    dirents = await readdir(heldPath(fd), { withFileTypes: true, encoding: 'buffer' });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return errorResult('cannot_read', `Cannot list ${target.rel}: ${code ?? String(err)}.`, { path: target.rel, code });
  }
  let excludedNonUtf8 = 0;
  const names: string[] = [];
  for (const d of dirents) {
    const name = decodeUtf8Strict(d.name);
    if (name === null) {
      excludedNonUtf8++;
      continue;
    }
    names.push(d.isDirectory() ? `${name}/` : name);
  }
  names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const base = { kind: 'directory', path: target.rel, entries: names.length, excludedNonUtf8 };
  const excludedNote =
    excludedNonUtf8 > 0
      ? ` ${excludedNonUtf8} entr${excludedNonUtf8 === 1 ? 'y' : 'ies'} with a name that is not valid UTF-8 ${excludedNonUtf8 === 1 ? 'was' : 'were'} left out.`
      : '';
  if (names.length === 0) {
    return {
      output: `(The directory is empty.${excludedNote})`,
      isError: false,
      data: { ...base, startEntry: 0, endEntry: 0, hasMore: false },
    };
  }
  if (offset > names.length) {
    return errorResult(
      'offset_out_of_range',
      `offset ${offset} is past the end of directory ${target.rel}, which has ${names.length} entries.`,
      base,
    );
  }
  const maxLines = Math.min(limit, PAGE_MAX_LINES);
  const budget = OUTPUT_MAX_BYTES - FOOTER_RESERVE;
  const lines: string[] = [];
  let bytes = 0;
  let quoted = false;
  let i = offset - 1;
  for (; i < names.length && lines.length < maxLines; i++) {
    const d = displayPath(names[i]!);
    const size = utf8Bytes(d.text) + 1;
    if (bytes + size > budget && lines.length > 0) break;
    bytes += size;
    lines.push(d.text);
    quoted ||= d.quoted;
  }
  const end = i; // 1-based number of the last entry shown
  const hasMore = end < names.length;
  const range = hasMore
    ? `Showing entries ${offset}-${end} of ${names.length}. Use offset=${end + 1} to continue.`
    : `Showing entries ${offset}-${end} of ${names.length}.`;
  const quotedNote = quoted ? ` ${QUOTED_PATHS_NOTE}` : '';
  return {
    output: `${lines.join('\n')}\n\n(${range}${excludedNote}${quotedNote})`,
    isError: false,
    data: { ...base, startEntry: offset, endEntry: end, hasMore },
  };
}

/**
 * Runs `read`.
 *
 * @param args `{ path, offset? (1-based, default 1), limit? (default 2000) }`.
 * @returns for a file: numbered lines (`cat -n` style; lines over 2000
 *   characters cut with a marker) plus a notice naming the range and the
 *   `offset` that continues it; `data`: `{ kind: 'file', path, credential:
 *   ReadCredential, totalLines, startLine, endLine, hasMore, linesCut,
 *   invalidUtf8 }`. For a directory: entries sorted by name, directories
 *   with a trailing `/`; `data`: `{ kind: 'directory', path, entries,
 *   startEntry, endEntry, hasMore, excludedNonUtf8 }`.
 *   The path is authorized by FT4 (see `authorizeForReading` in paths.ts):
 *   a final symlink is followed (`path` and the credential name its target),
 *   a directory on the way that is a symlink is refused.
 *   Error codes: `path_outside_workspace`, `symlink_in_path` (`data.segment`
 *   names the symlinked directory), `too_many_symlinks` (a final chain over
 *   40), `not_found`, `cannot_read`, `not_a_file` (FIFO, socket, device),
 *   `binary_file` (NUL byte in the first 8 KiB; still carries the
 *   credential), `offset_out_of_range`, `invalid_arguments`,
 *   `workspace_unavailable`, `cancelled`. Never throws for these.
 * @param ctx a {@link ToolContext}; `hooks` only in tests.
 */
async function read(args: ReadArgs, ctx: ReadContext): Promise<ToolResult> {
  return withAuthorityScope(async (scope) => {
    const resolved = await authorizeForReading(ctx.workspace, args.path, scope);
    if (!resolved.ok) return resolved.result;
    const target = resolved.path;
    await ctx.hooks?.afterAuthorize?.();
    const offset = args.offset ?? READ_DEFAULT_OFFSET;
    const limit = args.limit ?? READ_DEFAULT_LIMIT;
    if (target.stat.isDirectory()) return await readDirectory(scope, target, offset, limit);
    if (!target.stat.isFile()) return notAFile(target.rel);
    return await readFile(target, offset, limit, ctx);
  });
}

/** The `read` tool's body (activities/tools/index.ts wraps it: validation, TD9 caps). */
export const readTool: ToolBody<ReadArgs> = { run: read };

/**
 * Runs one `read` call through the shared wrapper (activities/tools/wrapper.ts):
 * `rawArgs` is validated against the declaration (an `invalid_arguments`
 * result when it does not match), then the TD9 caps apply.
 */
export function runRead(rawArgs: unknown, ctx: ReadContext): Promise<ToolResult> {
  return runTool(readDeclaration, { ...readTool, run: read }, rawArgs, ctx);
}
