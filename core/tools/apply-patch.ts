/**
 * Declaration of the `apply_patch` tool (FT3, TD1). Deterministic: zod + pure
 * code only, imported by the session workflow to validate arguments (TD8).
 * The engine is activities/tools/apply-patch/.
 */
import { z } from 'zod';
import type { ToolDeclaration } from './types.js';
import { SUMMARY_MAX, summaryLine } from './summary.js';
import { tempFilePattern } from './temp-files.js';

/** Arguments of `apply_patch`. */
export const applyPatchArgs = z.strictObject({
  patch: z
    .string()
    .min(1)
    .describe(
      "The whole patch, from '*** Begin Patch' to '*** End Patch', with '*** Add File:', '*** Delete File:' and '*** Update File:' sections.",
    ),
});

/** Parsed arguments of `apply_patch`. */
export type ApplyPatchArgs = z.infer<typeof applyPatchArgs>;

const FILE_HEADER = /^\s*\*\*\* (?:Add|Delete|Update) File:(.*)$/;

/**
 * The file paths a patch names in its Add/Delete/Update headers, in order,
 * each once (no parsing beyond the headers; used for summaries and titles).
 */
export function patchFilePaths(patch: string): string[] {
  const seen = new Set<string>();
  for (const line of patch.split('\n')) {
    const m = FILE_HEADER.exec(line);
    const p = m?.[1]?.trim();
    if (p) seen.add(p);
  }
  return [...seen];
}

const SECTION_HEADER = /^\s*\*\*\* (Add File|Delete File|Update File|Move to):(.*)$/;

/**
 * The files a patch may write (publish new content to, through a temp file),
 * in order, each once: every Add File, every Update File without a Move, and
 * every Move target. Header parsing only, like {@link patchFilePaths}.
 */
export function patchWrittenPaths(patch: string): string[] {
  const written = new Set<string>();
  let update: string | undefined;
  const flush = () => {
    if (update !== undefined) written.add(update);
    update = undefined;
  };
  for (const line of patch.split('\n')) {
    const m = SECTION_HEADER.exec(line);
    if (!m) continue;
    const p = m[2]!.trim();
    if (m[1] === 'Move to') {
      if (update !== undefined && p) written.add(p);
      update = undefined;
      continue;
    }
    flush();
    if (!p) continue;
    if (m[1] === 'Add File') written.add(p);
    else if (m[1] === 'Update File') update = p;
  }
  flush();
  return [...written];
}

/**
 * The paths an uncertain `apply_patch` record lists (GP9, FT3 `Uncertain`):
 * the files the headers name ({@link patchFilePaths}), then Move targets,
 * then the temp-file pattern (`src/.a.ts.*.zuno-tmp`, core/tools/temp-files.ts)
 * of every file it may write ({@link patchWrittenPaths}): a worker killed
 * between the temp write and its rename leaves such a file. Deterministic.
 */
export function patchAffectedPaths(patch: string): string[] {
  const written = patchWrittenPaths(patch);
  return [...new Set([...patchFilePaths(patch), ...written, ...written.map(tempFilePattern)])];
}

/**
 * `apply_patch` declaration: SideEffecting, replay Never, Exclusive (TD1,
 * TD3, TD5). Summary: `apply_patch: src/a.ts (+2 more)`.
 */
export const applyPatchDeclaration: ToolDeclaration<ApplyPatchArgs> = {
  name: 'apply_patch',
  effect: 'SideEffecting',
  replay: 'Never',
  concurrency: 'Exclusive',
  args: applyPatchArgs,
  subjectOf: (args) => ({ kind: 'patch', patch: args.patch }),
  summarize(args) {
    const paths = patchFilePaths(args.patch);
    if (paths.length === 0) return summaryLine('apply_patch: (no files)');
    const more = paths.length > 1 ? ` (+${paths.length - 1} more)` : '';
    return `${summaryLine(`apply_patch: ${paths[0]}`, SUMMARY_MAX - more.length)}${more}`;
  },
  affectedPaths: (args) => patchAffectedPaths(args.patch),
  changeArgs: { patch: 'patch' },
};
