/**
 * The edit projection of `zuno acp` (SF15, refining FT6): how a call of an
 * editing tool (`write`, `apply_patch`) reads in an ACP client — the title
 * `Editing <file names>`, absolute locations, and the add/modify/delete diff
 * the call recorded. Live updates and `session/load` replay use this one
 * policy. Pure: it reads the tool-call row's stored arguments and result.
 */
import { basename, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import type { ToolCallContent, ToolCallLocation } from '@agentclientprotocol/sdk';
import { patchFilePaths } from '../../core/tools/apply-patch.js';

/** The tools whose calls are projected as edits. */
export const EDIT_TOOLS: ReadonlySet<string> = new Set(['write', 'apply_patch', 'edit']);

/** Most file names a title lists (SF15). */
export const TITLE_MAX_FILES = 3;
/** Most Unicode characters (code points) of a title (SF15). */
export const TITLE_MAX_CHARS = 160;

/**
 * `Editing a.ts, b.ts, c.ts (+2 more)`: at most {@link TITLE_MAX_FILES} file
 * names, at most {@link TITLE_MAX_CHARS} code points, `Editing files` while
 * no target is known (SF15). Pure.
 */
export function editTitle(paths: readonly string[]): string {
  if (paths.length === 0) return 'Editing files';
  const names = paths.slice(0, TITLE_MAX_FILES).map((p) => basename(p));
  const more = paths.length - names.length;
  const tail = more > 0 ? ` (+${more} more)` : '';
  const head = `Editing ${names.join(', ')}`;
  const room = TITLE_MAX_CHARS - [...tail].length;
  const chars = [...head];
  return (chars.length > room ? `${chars.slice(0, room - 1).join('')}…` : head) + tail;
}

/**
 * Absolute locations of `paths`, resolved against the session's workspace
 * (the root the tools resolve against) — never the adapter's cwd (SF15).
 * Paths that cannot be made absolute that way are left out. Pure.
 */
export function editLocations(workspace: string, paths: readonly string[]): ToolCallLocation[] {
  if (!isAbsolute(workspace)) return [];
  return paths.map((p) => ({ path: isAbsolute(p) ? p : resolve(workspace, p) }));
}

const argsSchema = z.object({ path: z.string().optional(), patch: z.string().optional() });

/** The targets an edit call's arguments name (the patch headers, or `path`), as written; [] while unknown. */
export function expectedTargets(tool: string, argsJson: string): string[] {
  let raw: unknown;
  try {
    raw = JSON.parse(argsJson);
  } catch {
    return [];
  }
  const args = argsSchema.safeParse(raw).data;
  if (!args) return [];
  if (tool === 'apply_patch') return args.patch ? patchFilePaths(args.patch) : [];
  return args.path ? [args.path] : [];
}

const resultSchema = z.object({
  changes: z
    .array(z.object({ path: z.string(), op: z.string().optional(), diff: z.string() }))
    .optional()
    .catch(undefined),
  path: z.string().optional().catch(undefined),
  diff: z.string().nullable().optional().catch(undefined),
  uncertain: z
    .object({ changedPaths: z.array(z.string()).optional(), paths: z.array(z.string()).optional() })
    .optional()
    .catch(undefined),
});

/** One recorded change: its path (workspace-relative as stored) and unified diff. */
interface RecordedDiff {
  path: string;
  diff: string;
}

/** The changes an edit call's result records (apply_patch `changes[]`, write `diff`), in order. */
function recordedDiffs(result: Record<string, unknown> | null | undefined, fallbackPath?: string): RecordedDiff[] {
  const r = resultSchema.safeParse(result ?? {}).data;
  if (!r) return [];
  const out = (r.changes ?? []).map((c) => ({ path: c.path, diff: c.diff }));
  const path = r.path ?? fallbackPath;
  if (r.diff && path) out.push({ path, diff: r.diff });
  return out;
}

/**
 * The paths an edit call actually modified, as its result records them
 * (preferred on completion, SF15), or the paths an uncertain record may have
 * changed; [] when the result names none.
 */
export function actualTargets(result: Record<string, unknown> | null | undefined, fallbackPath?: string): string[] {
  const done = recordedDiffs(result, fallbackPath).map((d) => d.path);
  if (done.length > 0) return [...new Set(done)];
  const u = resultSchema.safeParse(result ?? {}).data?.uncertain;
  return u?.changedPaths ?? u?.paths ?? [];
}

/**
 * The ACP diff content of an edit call's recorded changes: one `diff` block
 * per file with an absolute path. Zuno keeps unified diffs, not whole files,
 * so `oldText`/`newText` hold each hunk's lines with their context (removed
 * and context lines old, added and context lines new; hunks joined by a
 * line `…`); an added file has no `oldText`, a deleted one an empty `newText`.
 * Pure.
 */
export function diffContent(
  workspace: string,
  result: Record<string, unknown> | null | undefined,
  fallbackPath?: string,
): ToolCallContent[] {
  return recordedDiffs(result, fallbackPath)
    .filter((d) => d.diff !== '')
    .map((d) => {
      const { oldText, newText, added } = sidesOf(d.diff);
      const path = isAbsolute(d.path) ? d.path : resolve(workspace, d.path);
      return added ? { type: 'diff', path, newText } : { type: 'diff', path, oldText, newText };
    });
}

/** The two sides of a unified diff's hunks; `added` when the old side is `/dev/null`. Pure. */
export function sidesOf(diff: string): { oldText: string; newText: string; added: boolean } {
  const oldLines: string[] = [];
  const newLines: string[] = [];
  let added = false;
  let inHunk = false;
  for (const line of diff.split('\n')) {
    if (!inHunk && line.startsWith('--- ')) {
      added = line.slice(4).trim() === '/dev/null';
      continue;
    }
    if (!inHunk && line.startsWith('+++ ')) continue;
    if (line.startsWith('@@')) {
      if (inHunk) {
        oldLines.push('…');
        newLines.push('…');
      }
      inHunk = true;
      continue;
    }
    if (!inHunk || line.startsWith('\\')) continue;
    if (line.startsWith('-')) oldLines.push(line.slice(1));
    else if (line.startsWith('+')) newLines.push(line.slice(1));
    else if (line.startsWith(' ')) {
      oldLines.push(line.slice(1));
      newLines.push(line.slice(1));
    }
  }
  return { oldText: joinLines(oldLines), newText: joinLines(newLines), added };
}

function joinLines(lines: string[]): string {
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
