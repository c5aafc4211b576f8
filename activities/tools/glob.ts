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
  cancelledResult,
  decodeUtf8Strict,
  displayPath,
  errorResult,
  joinRel,
  utf8Bytes,
  zunoErrorResult,
} from './common.js';
import type { ToolContext } from './context.js';
import { heldPath, openAuthorizedDirectory, withAuthorityScope, type AuthorityScope } from './path-authority.js';
import { authorizeForReading } from './paths.js';
import { defaultRgLocator, type RgInfo } from './rg.js';
import { abnormalRgExit, classifyRgFatal, runRg } from './rg-run.js';
import type { ToolBody } from './tool-body.js';
import { runTool } from './wrapper.js';

/** Text returned when nothing matched (SR5). */
export const NO_FILES_FOUND = 'No files found';

/** Room kept for notices at the end of the listing, in bytes. */
const FOOTER_RESERVE = 1024;

/** Test observation points of {@link runGlob}. */
export interface GlobHooks {
  /** After the search directory is authorized and opened, just before rg is started. */
  beforeSearch?: () => void | Promise<void>;
}

/** What `runGlob` needs: a {@link ToolContext}, plus test hooks. */
export interface GlobContext extends ToolContext {
  hooks?: GlobHooks;
}

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

  let rg: RgInfo;
  try {
    rg = await (ctx.rg ?? defaultRgLocator()).resolve();
  } catch (err) {
    return zunoErrorResult(err);
  }
  if (ctx.signal?.aborted) return cancelledResult('glob');

  const chunks: Buffer[] = [];
  await ctx.hooks?.beforeSearch?.();
  const run = await runRg({
    bin: rg.path,
    // rg's working directory is entered through the held descriptor (in the child, before exec).
    cwd: heldPath(dirFd),
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
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    onStdout: (c) => chunks.push(c),
  });
  if (run.aborted) return cancelledResult('glob');
  if (run.spawnError) return errorResult('rg_failed', `Could not start ${rg.path}: ${run.spawnError.message}`);
  if (run.overLimit) {
    return errorResult(
      'output_too_large',
      `rg listed more than ${RG_MAX_OUTPUT_BYTES / (1024 * 1024)} MiB of paths for ${JSON.stringify(args.pattern)}; no stable order can be given for part of a parallel traversal, so the call is rejected. Narrow the pattern or pass a more specific path.`,
      { limitBytes: RG_MAX_OUTPUT_BYTES },
    );
  }
  if (run.exitCode === 2 && run.stderr !== '') {
    const kind = classifyRgFatal(run.stderr);
    if (kind !== null) {
      return errorResult('invalid_arguments', `Invalid glob pattern; ripgrep rejected it:\n${run.stderr}`, {
        field: 'pattern',
        rgError: run.stderr,
      });
    }
    return errorResult('rg_failed', `ripgrep failed:\n${run.stderr}`, { rgError: run.stderr });
  }
  const abnormal = abnormalRgExit(run);
  if (abnormal) return abnormal;
  // Exit 2 with empty stderr: only suppressed per-path errors (unreadable subdirectories) — they contribute nothing (SR5).

  const all = Buffer.concat(chunks);
  const seen = new Set<string>();
  let excludedNonUtf8 = 0;
  let start = 0;
  while (start < all.length) {
    let end = all.indexOf(0, start);
    if (end === -1) end = all.length;
    if (end > start) {
      const name = decodeUtf8Strict(all.subarray(start, end));
      if (name === null) excludedNonUtf8++;
      else seen.add(joinRel(dir.rel, name));
    }
    start = end + 1;
  }
  const paths = [...seen].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

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
  const notes: string[] = [];
  if (returned.length < paths.length) {
    notes.push(
      `(Results truncated: showing the first ${returned.length} of ${paths.length} files, sorted by path. Use a more specific pattern or path to see the rest.)`,
    );
  }
  if (excludedNonUtf8 > 0) {
    notes.push(
      `(Results truncated: ${excludedNonUtf8} file${excludedNonUtf8 === 1 ? '' : 's'} with a name that is not valid UTF-8 ${excludedNonUtf8 === 1 ? 'was' : 'were'} left out; such names cannot be named by these tools.)`,
    );
  }
  if (quoted) notes.push(`(${QUOTED_PATHS_NOTE})`);

  const body = lines.length > 0 ? lines.join('\n') : NO_FILES_FOUND;
  return {
    output: notes.length > 0 ? `${body}\n\n${notes.join('\n')}` : body,
    isError: false,
    data: { count: paths.length, returned: returned.length, truncated, paths: returned, excludedNonUtf8 },
  };
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
