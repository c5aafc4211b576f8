/**
 * `glob` tool implementation (SR1–SR5): lists files whose path (relative to
 * the searched directory) matches a glob, by driving `rg --files`.
 *
 * Traversal is ripgrep's own (SR1): hidden files are included, `.git/` is
 * excluded, ignore files (.gitignore, .ignore, .rgignore) are respected,
 * symlinks are not followed. Output is NUL-separated so a name containing a
 * newline stays one path; names that are not valid UTF-8 are excluded (SR3);
 * each path appears once, sorted by path so the order is stable.
 *
 * The search root (`path`) is authorized by the FT4 path authority
 * (paths.ts → path-authority.ts: no intermediate symlink, a final symlink
 * followed once and kept inside the workspace) and rg runs with its working
 * directory set through the held descriptor (`/proc/self/fd/{fd}`), so the
 * directory searched is the one authorized.
 */
import { GLOB_MAX_RESULTS, globDeclaration, type GlobArgs } from '../../core/tools/glob.js';
import { RG_MAX_OUTPUT_BYTES } from '../../core/tools/grep.js';
import type { ToolResult } from '../../core/tools/types.js';
import {
  OUTPUT_MAX_BYTES,
  QUOTED_PATHS_NOTE,
  decodeUtf8Strict,
  displayPath,
  errorResult,
  joinRel,
  utf8Bytes,
} from './common.js';
import { openAuthorizedDirectory, withAuthorityScope, type AuthorityScope } from './path-authority.js';
import { authorizeForReading } from './paths.js';
import { searchWithRg, type RgSearchContext, type RgSearchHooks } from './rg-search.js';
import type { ToolBody } from './tool-body.js';
import { runTool } from './wrapper.js';

/** Text returned when nothing matched (SR5). */
export const NO_FILES_FOUND = 'No files found';

/** Room kept for notices at the end of the listing, in bytes. */
const FOOTER_RESERVE = 1024;

/** Test observation points of {@link runGlob} (`beforeSearch`: after the directory is authorized and opened, just before rg starts). */
export type GlobHooks = RgSearchHooks;

/** What `runGlob` needs: a ToolContext, plus test hooks. */
export type GlobContext = RgSearchContext;

/**
 * Runs `glob`.
 *
 * @param args `{ pattern, path? }` (see core/tools/glob.ts).
 * @returns a listing of workspace-relative paths, one per line (or
 *   `No files found`). `data`: `{ count, returned, truncated, paths,
 *   excludedNonUtf8 }` where `paths` are the raw returned names.
 *   Error codes: `invalid_arguments` (bad glob, quoting rg's message),
 *   `path_outside_workspace`, `symlink_in_path` (a directory on the way to
 *   `path` is a symlink; `data.segment` names it), `too_many_symlinks`,
 *   `not_found`, `not_a_directory` (`path` is a file), `cannot_read`,
 *   `workspace_unavailable`,
 *   `rg_missing`, `rg_too_old`, `rg_probe_failed`, `output_too_large`
 *   (rg printed > 64 MiB), `rg_failed`, `cancelled`. Never throws for these.
 * @param ctx a {@link ToolContext}; `hooks` only in tests.
 */
async function glob(args: GlobArgs, ctx: GlobContext): Promise<ToolResult> {
  // The scope closes after rg has exited: its cwd was taken through a held descriptor.
  return withAuthorityScope((scope) => globIn(args, ctx, scope));
}

async function globIn(args: GlobArgs, ctx: GlobContext, scope: AuthorityScope): Promise<ToolResult> {
  const resolved = await authorizeForReading(ctx.workspace, args.path ?? '.', scope);
  if (!resolved.ok) return resolved.result;
  const dir = resolved.path;
  if (!dir.stat.isDirectory()) {
    return errorResult(
      'not_a_directory',
      `${JSON.stringify(args.path)} is a file, not a directory; glob searches a directory (use read for a file).`,
      {
        path: dir.rel,
      },
    );
  }

  let dirFd: number;
  try {
    dirFd = openAuthorizedDirectory(scope, dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return errorResult('cannot_read', `glob cannot read the directory ${JSON.stringify(args.path)} (${code}).`, {
      path: dir.rel,
      code,
    });
  }

  const chunks: Buffer[] = [];
  const failed = await searchWithRg({
    tool: 'glob',
    ctx,
    cwdFd: dirFd,
    // --no-messages: per-path diagnostics (unreadable subdirectories) are suppressed (SR5).
    args: [
      '--files',
      '--null',
      '--hidden',
      '--no-messages',
      '--glob',
      args.pattern,
      '--glob',
      '!.git',
      '--glob',
      '!.git/**',
    ],
    onStdout: (c) => chunks.push(c),
    tooLarge: `rg listed more than ${RG_MAX_OUTPUT_BYTES / (1024 * 1024)} MiB of paths for ${JSON.stringify(args.pattern)}; no stable order can be given for part of a parallel traversal, so the call is rejected. Narrow the pattern or pass a more specific path.`,
    invalidArgument: (_field, stderr) =>
      errorResult('invalid_arguments', `Invalid glob pattern; ripgrep rejected it:\n${stderr}`, {
        field: 'pattern',
        rgError: stderr,
      }),
  });
  if (failed) return failed;
  return listing(listedPaths(Buffer.concat(chunks), dir.rel));
}

/** The paths rg listed (NUL-separated names relative to `relDir`): workspace-relative, once each, sorted. */
function listedPaths(all: Buffer, relDir: string): { paths: string[]; excludedNonUtf8: number } {
  const seen = new Set<string>();
  let excludedNonUtf8 = 0;
  let start = 0;
  while (start < all.length) {
    let end = all.indexOf(0, start);
    if (end === -1) end = all.length;
    if (end > start) {
      const name = decodeUtf8Strict(all.subarray(start, end));
      if (name === null)
        excludedNonUtf8++; // SR3: a name that is not UTF-8 cannot be named
      else seen.add(joinRel(relDir, name));
    }
    start = end + 1;
  }
  return { paths: [...seen].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), excludedNonUtf8 };
}

/** The model-facing listing of sorted paths: at most GLOB_MAX_RESULTS and the output budget, with its notes. */
function listing({ paths, excludedNonUtf8 }: { paths: string[]; excludedNonUtf8: number }): ToolResult {
  const lines: string[] = [];
  const returned: string[] = [];
  let bytes = 0;
  let quoted = false;
  for (const p of paths) {
    if (returned.length >= GLOB_MAX_RESULTS) break;
    const d = displayPath(p);
    const size = utf8Bytes(d.text) + 1;
    if (bytes + size > OUTPUT_MAX_BYTES - FOOTER_RESERVE) break;
    bytes += size;
    lines.push(d.text);
    returned.push(p);
    quoted ||= d.quoted;
  }
  const truncated = returned.length < paths.length || excludedNonUtf8 > 0;
  const notes = listingNotes(returned.length, paths.length, excludedNonUtf8, quoted);
  const body = lines.length > 0 ? lines.join('\n') : NO_FILES_FOUND;
  return {
    output: notes.length > 0 ? `${body}\n\n${notes.join('\n')}` : body,
    isError: false,
    data: { count: paths.length, returned: returned.length, truncated, paths: returned, excludedNonUtf8 },
  };
}

function listingNotes(returned: number, count: number, excludedNonUtf8: number, quoted: boolean): string[] {
  const notes: string[] = [];
  if (returned < count) {
    notes.push(
      `(Results truncated: showing the first ${returned} of ${count} files, sorted by path. Use a more specific pattern or path to see the rest.)`,
    );
  }
  if (excludedNonUtf8 > 0) {
    notes.push(
      `(Results truncated: ${excludedNonUtf8} file${excludedNonUtf8 === 1 ? '' : 's'} with a name that is not valid UTF-8 ${excludedNonUtf8 === 1 ? 'was' : 'were'} left out; such names cannot be named by these tools.)`,
    );
  }
  if (quoted) notes.push(`(${QUOTED_PATHS_NOTE})`);
  return notes;
}

/** The `glob` tool's body (activities/tools/index.ts wraps it: validation, TD9 caps). */
export const globTool: ToolBody<GlobArgs> = { run: glob };

/**
 * Runs one `glob` call through the shared wrapper (activities/tools/wrapper.ts):
 * `rawArgs` is validated against the declaration (an `invalid_arguments`
 * result when it does not match), then the TD9 caps apply.
 */
export function runGlob(rawArgs: unknown, ctx: GlobContext): Promise<ToolResult> {
  return runTool(globDeclaration, { ...globTool, run: glob }, rawArgs, ctx);
}
