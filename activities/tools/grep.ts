/**
 * `grep` tool implementation (SR1–SR5): searches file contents with
 * `rg --json`.
 *
 * JSON records are used (not `--null` text) because they carry the path
 * either as `text` (valid UTF-8) or `bytes` (not UTF-8), which is exactly the
 * SR3 distinction, and they keep a name containing a newline intact.
 * Records are parsed as a stream: a record over 1 MiB is skipped without being
 * buffered (SR4), total output over 64 MiB kills rg and rejects the call
 * (SR2). Matches are sorted by path then line, so the order is stable even
 * though rg searches in parallel.
 *
 * The search path is authorized by the FT4 path authority (paths.ts →
 * path-authority.ts: no intermediate symlink, a final symlink followed once
 * and kept inside the workspace). rg runs with its working directory set
 * through a held descriptor (`/proc/self/fd/{fd}`): the authorized directory
 * itself, or for a file its authorized parent directory with the file's name
 * as the only path. rg does not follow symlinks it meets while walking; it
 * does follow one given as a path, so for a file the name is checked again
 * after the search (same file, not a symlink) and the results are discarded
 * if it was swapped.
 */
import { constants, lstatSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import {
  GREP_MAX_LINE_UNITS,
  GREP_MAX_MATCHES,
  GREP_MAX_RECORD_BYTES,
  RG_MAX_OUTPUT_BYTES,
  grepDeclaration,
  type GrepArgs,
} from '../../core/tools/grep.js';
import type { ToolResult } from '../../core/tools/types.js';
import {
  OUTPUT_MAX_BYTES,
  QUOTED_PATHS_NOTE,
  capUnits,
  displayPath,
  errorResult,
  joinRel,
  utf8Bytes,
} from './common.js';
import { openAuthorizedDirectory, withAuthorityScope } from './path-authority.js';
import type { AuthorityScope, AuthorizedExisting } from './path-authority.js';
import { authorizeForReading } from './paths.js';
import { searchWithRg, type RgFatalField, type RgSearchContext, type RgSearchHooks } from './rg-search.js';
import { NO_FILES_FOUND } from './glob.js';
import type { ToolBody } from './tool-body.js';
import { runTool } from './wrapper.js';

/** Room kept for notices at the end of the output, in bytes. */
const FOOTER_RESERVE = 1536;

interface Match {
  path: string;
  line: number;
  text: string;
  cut: boolean;
}

type RgText = { text: string } | { bytes: string };

interface RgMatchRecord {
  type: 'match';
  data: { path: RgText; lines: RgText; line_number: number | null };
}

/**
 * Splits a byte stream into newline-terminated records, skipping (without
 * buffering) any record longer than `maxRecord` bytes.
 */
class RecordSplitter {
  private parts: Buffer[] = [];
  private len = 0;
  private skipping = false;
  skipped = 0;

  constructor(
    private readonly maxRecord: number,
    private readonly onRecord: (rec: Buffer) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (!this.skipping) {
        if (this.len + piece.length > this.maxRecord) {
          this.skipping = true;
          this.parts = [];
          this.len = 0;
        } else if (piece.length > 0) {
          this.parts.push(piece);
          this.len += piece.length;
        }
      }
      if (nl === -1) break;
      this.finish();
      start = nl + 1;
    }
  }

  /** Ends the current record (at a newline, or at end of stream). */
  finish(): void {
    if (this.skipping) this.skipped++;
    else if (this.len > 0)
      this.onRecord(this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.len));
    this.parts = [];
    this.len = 0;
    this.skipping = false;
  }
}

/** Test observation points of {@link runGrep} (`beforeSearch`: after the path is authorized and opened, just before rg starts). */
export type GrepHooks = RgSearchHooks;

/** What `runGrep` needs: a ToolContext, plus test hooks. */
export type GrepContext = RgSearchContext;

const errno = (err: unknown) => (err as NodeJS.ErrnoException).code ?? String(err);

/** Where rg runs: its cwd through a held descriptor, and the path arguments. */
type SearchRoot =
  { ok: true; cwdFd: number; relDir: string; pathArgs: string[]; file?: Stats } | { ok: false; code: string };

/**
 * Opens the authorized target the way rg will need it. A directory is
 * opened and held (rg's cwd). A file is opened once through its held parent
 * (`O_NOFOLLOW | O_NONBLOCK`, so a FIFO cannot block the worker) to prove it
 * is a readable regular file and to record its identity; a FIFO, socket or
 * device is refused as `not_a_file` (rg would block on a pipe forever or read
 * a device endlessly). rg then runs in the parent with the name as its only
 * path.
 */
async function openSearchRoot(scope: AuthorityScope, target: AuthorizedExisting): Promise<SearchRoot> {
  if (target.stat.isDirectory()) {
    try {
      return { ok: true, cwdFd: openAuthorizedDirectory(scope, target), relDir: target.rel, pathArgs: [] };
    } catch (err) {
      return { ok: false, code: errno(err) };
    }
  }
  if (!target.stat.isFile()) return { ok: false, code: 'not_a_file' };
  let file: Stats;
  try {
    const fh = await open(target.target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      file = await fh.stat();
    } finally {
      await fh.close();
    }
  } catch (err) {
    return { ok: false, code: errno(err) };
  }
  if (!file.isFile()) return { ok: false, code: 'not_a_file' };
  const slash = target.rel.lastIndexOf('/');
  return {
    ok: true,
    cwdFd: target.parentFd,
    relDir: slash === -1 ? '.' : target.rel.slice(0, slash),
    pathArgs: [`./${target.name}`],
    file,
  };
}

/** Whether the searched file's name still names the file that was opened (and is not a symlink). */
function sameFile(target: AuthorizedExisting, file: Stats): boolean {
  try {
    const now = lstatSync(target.target);
    return !now.isSymbolicLink() && now.dev === file.dev && now.ino === file.ino;
  } catch {
    return false;
  }
}

/**
 * Runs `grep`.
 *
 * @param args `{ pattern, path?, include? }` (see core/tools/grep.ts); the
 *   include glob is matched relative to the searched directory (for a file
 *   path: its parent directory).
 * @returns matches grouped by workspace-relative path, sorted by path then
 *   line, at most 100 matches and ~50 KiB; or `No files found`. `data`:
 *   `{ matches, files, returned, truncated, linesCut, recordsSkipped,
 *   excludedNonUtf8 }`. Error codes: `invalid_arguments` (bad regex / regex
 *   over rg's size limit → `data.field: 'pattern'`; bad include glob →
 *   `data.field: 'include'`; the output quotes rg's own message),
 *   `path_outside_workspace`, `symlink_in_path` (a directory on the way to
 *   `path` is a symlink; `data.segment` names it), `too_many_symlinks`,
 *   `not_found` and `cannot_read` (an explicit path rg cannot read is a
 *   rejected call, not "no matches"; also a searched file swapped during the
 *   search), `workspace_unavailable`, `rg_missing`,
 *   `rg_too_old`, `rg_probe_failed`, `output_too_large` (> 64 MiB),
 *   `rg_failed`, `cancelled`.
 * @param ctx a {@link ToolContext}; `hooks` only in tests.
 */
async function grep(args: GrepArgs, ctx: GrepContext): Promise<ToolResult> {
  // The scope closes after rg has exited: its cwd was taken through a held descriptor.
  return withAuthorityScope((scope) => grepIn(args, ctx, scope));
}

async function grepIn(args: GrepArgs, ctx: GrepContext, scope: AuthorityScope): Promise<ToolResult> {
  const resolved = await authorizeForReading(ctx.workspace, args.path ?? '.', scope);
  if (!resolved.ok) return resolved.result;
  const target = resolved.path;
  // A directory is searched with cwd = that directory (so `include` is relative to it);
  // a file with cwd = its parent and the file name as the only path.
  const root = await openSearchRoot(scope, target);
  if (!root.ok) return rootRefused(args, target, root.code);

  const found = new MatchCollector(root.relDir);
  const failed = await searchWithRg({
    tool: 'grep',
    ctx,
    cwdFd: root.cwdFd,
    args: [
      '--json',
      '--hidden',
      '--no-messages', // SR5: per-path diagnostics suppressed
      '--regexp',
      args.pattern,
      ...(args.include !== undefined ? ['--glob', args.include] : []),
      '--glob',
      '!.git',
      '--',
      ...root.pathArgs,
    ],
    onStdout: (c) => found.push(c),
    tooLarge: `rg produced more than ${RG_MAX_OUTPUT_BYTES / (1024 * 1024)} MiB of output for ${JSON.stringify(args.pattern)}; no stable order can be given for part of a parallel search, so the call is rejected. Narrow the pattern, the path or the include glob.`,
    invalidArgument: (field, stderr) => invalidArgument(args, field, stderr),
  });
  if (failed) return failed;
  found.finish();
  if (root.file && !sameFile(target, root.file)) {
    // rg follows a symlink given as a path: a name swapped during the search may have led it anywhere.
    return errorResult(
      'cannot_read',
      `${target.rel} was replaced while grep searched it, so its results were discarded. Run grep again.`,
      { path: target.rel },
    );
  }
  return report(found);
}

/** The error result for a search root that cannot be opened (`not_a_file`: a FIFO, socket or device). */
function rootRefused(args: GrepArgs, target: AuthorizedExisting, code: string): ToolResult {
  if (code === 'not_a_file') {
    return errorResult(
      'not_a_file',
      `grep searches regular files and directories; ${JSON.stringify(args.path ?? '.')} is a FIFO, socket or device. Nothing was searched.`,
      { path: target.rel },
    );
  }
  return errorResult(
    'cannot_read',
    `grep cannot read ${JSON.stringify(args.path ?? '.')} (${code}); this is a rejected call, not "no matches".`,
    { path: target.rel, code },
  );
}

/** The `invalid_arguments` result for an rg fatal error about the include glob or the regex. */
function invalidArgument(args: GrepArgs, field: RgFatalField, stderr: string): ToolResult {
  if (field === 'include') {
    return errorResult(
      'invalid_arguments',
      `Invalid include glob ${JSON.stringify(args.include)}; ripgrep rejected it:\n${stderr}`,
      {
        field,
        rgError: stderr,
      },
    );
  }
  return errorResult('invalid_arguments', `Invalid regex pattern; ripgrep rejected it:\n${stderr}`, {
    field,
    rgError: stderr,
  });
}

/** The matches of an `rg --json` stream (paths relative to `relDir`), with what was cut or left out. */
class MatchCollector {
  readonly matches: Match[] = [];
  linesCut = 0;
  excludedNonUtf8 = 0;
  private badRecords = 0;
  private readonly splitter = new RecordSplitter(GREP_MAX_RECORD_BYTES, (rec) => this.record(rec));

  constructor(private readonly relDir: string) {}

  push(chunk: Buffer): void {
    this.splitter.push(chunk);
  }

  /** Ends the stream (its last record need not end with a newline). */
  finish(): void {
    this.splitter.finish();
  }

  /** Records over 1 MiB (SR4) and records that are not JSON. */
  get recordsSkipped(): number {
    return this.splitter.skipped + this.badRecords;
  }

  private record(rec: Buffer): void {
    let r: RgMatchRecord;
    try {
      r = JSON.parse(rec.toString('utf8')) as RgMatchRecord;
    } catch {
      this.badRecords++;
      return;
    }
    if (r.type !== 'match') return;
    if (!('text' in r.data.path)) {
      this.excludedNonUtf8++; // SR3: the name is not valid UTF-8, so it cannot be named
      return;
    }
    let name = r.data.path.text;
    if (name.startsWith('./')) name = name.slice(2);
    const raw = 'text' in r.data.lines ? r.data.lines.text : Buffer.from(r.data.lines.bytes, 'base64').toString('utf8');
    const line = raw.replace(/\r?\n$/, '');
    const capped = capUnits(line, GREP_MAX_LINE_UNITS);
    if (capped.cut) this.linesCut++;
    this.matches.push({
      path: joinRel(this.relDir, name),
      line: r.data.line_number ?? 0,
      text: capped.text,
      cut: capped.cut,
    });
  }
}

/** The model-facing report: matches sorted by path then line, grouped by path, within the budgets, with notes. */
function report(found: MatchCollector): ToolResult {
  const { matches, linesCut, excludedNonUtf8, recordsSkipped } = found;
  matches.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
  const files = new Set(matches.map((m) => m.path)).size;
  const { out, returned, quoted } = renderMatches(matches);
  const truncated = returned < matches.length || linesCut > 0 || recordsSkipped > 0 || excludedNonUtf8 > 0;
  const notes = reportNotes(found, returned, quoted);
  const head =
    matches.length > 0
      ? `Found ${matches.length} match${matches.length === 1 ? '' : 'es'} in ${files} file${files === 1 ? '' : 's'}\n`
      : '';
  const body = out.length > 0 ? `${head}${out.join('\n')}` : NO_FILES_FOUND;
  return {
    output: notes.length > 0 ? `${body}\n\n${notes.join('\n')}` : body,
    isError: false,
    data: { matches: matches.length, files, returned, truncated, linesCut, recordsSkipped, excludedNonUtf8 },
  };
}

/** Output lines of sorted matches: at most GREP_MAX_MATCHES and the output budget. */
function renderMatches(matches: readonly Match[]): { out: string[]; returned: number; quoted: boolean } {
  const out: string[] = [];
  let bytes = 0;
  let returned = 0;
  let quoted = false;
  let current: string | undefined;
  for (const m of matches) {
    if (returned >= GREP_MAX_MATCHES) break;
    const lines: string[] = [];
    if (m.path !== current) {
      const d = displayPath(m.path);
      quoted ||= d.quoted;
      lines.push(`${current === undefined ? '' : '\n'}${d.text}:`);
    }
    lines.push(`  ${m.line}: ${m.text}${m.cut ? ` … [line cut at ${GREP_MAX_LINE_UNITS} characters]` : ''}`);
    const size = lines.reduce((n, l) => n + utf8Bytes(l) + 1, 0);
    if (bytes + size > OUTPUT_MAX_BYTES - FOOTER_RESERVE) break;
    bytes += size;
    out.push(...lines);
    current = m.path;
    returned++;
  }
  return { out, returned, quoted };
}

function reportNotes(found: MatchCollector, returned: number, quoted: boolean): string[] {
  const { matches, linesCut, excludedNonUtf8, recordsSkipped } = found;
  const notes: string[] = [];
  if (returned < matches.length) {
    notes.push(
      `(Results truncated: showing the first ${returned} of ${matches.length} matches, sorted by path and line. Narrow the pattern, path or include to see the rest.)`,
    );
  }
  if (linesCut > 0)
    notes.push(
      `(Output truncated: ${linesCut} match line${linesCut === 1 ? ' was' : 's were'} longer than ${GREP_MAX_LINE_UNITS} characters and cut; use read with offset to see a whole line.)`,
    );
  if (recordsSkipped > 0)
    notes.push(
      `(Results truncated: ${recordsSkipped} ripgrep record${recordsSkipped === 1 ? ' was' : 's were'} larger than 1 MiB and skipped.)`,
    );
  if (excludedNonUtf8 > 0)
    notes.push(
      `(Results truncated: ${excludedNonUtf8} match${excludedNonUtf8 === 1 ? '' : 'es'} in files whose names are not valid UTF-8 ${excludedNonUtf8 === 1 ? 'was' : 'were'} left out.)`,
    );
  if (quoted) notes.push(`(${QUOTED_PATHS_NOTE})`);
  return notes;
}

/** The `grep` tool's body (activities/tools/index.ts wraps it: validation, TD9 caps). */
export const grepTool: ToolBody<GrepArgs> = { run: grep };

/**
 * Runs one `grep` call through the shared wrapper (activities/tools/wrapper.ts):
 * `rawArgs` is validated against the declaration (an `invalid_arguments`
 * result when it does not match), then the TD9 caps apply.
 */
export function runGrep(rawArgs: unknown, ctx: GrepContext): Promise<ToolResult> {
  return runTool(grepDeclaration, { ...grepTool, run: grep }, rawArgs, ctx);
}
