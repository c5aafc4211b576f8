/**
 * The subject of one call for the permission gate (core/permission,
 * docs/permissions.md), computed where the filesystem and the shell parser
 * are: the modelStep activity. What a tool's subject is made of is its
 * declaration's `subjectOf`; this file only normalizes it.
 */
import type { CallSubject } from '../../core/permission/types.js';
import { patchFilePaths, patchWrittenPaths } from '../../core/tools/apply-patch.js';
import { toolDeclarations } from '../../core/tools/registry.js';
import { urlSubjectText } from '../../core/permission/url.js';
import type { SubjectSource } from '../../core/tools/types.js';
import { parsePatch } from '../tools/apply-patch/parse.js';
import { shellSubject } from './commands.js';
import { subjectPath } from './paths.js';
import { writePaths } from './write-paths.js';

/**
 * Every file a patch touches, as written: each Add/Delete/Update path and
 * each Move target. Text the patch parser refuses (the tool will refuse it
 * too) falls back to reading the section headers, LF or CRLF.
 */
export function patchSubjectPaths(patch: string): string[] {
  try {
    const paths = parsePatch(patch).operations.flatMap((op) =>
      op.kind === 'update' && op.moveTo !== undefined ? [op.path, op.moveTo] : [op.path],
    );
    return [...new Set(paths)];
  } catch {
    const lf = patch.replace(/\r\n/g, '\n');
    return [...new Set([...patchFilePaths(lf), ...patchWrittenPaths(lf)])];
  }
}

async function normalize(source: SubjectSource, workspace: string): Promise<CallSubject> {
  switch (source.kind) {
    case 'paths':
    case 'patch': {
      const raw = source.kind === 'paths' ? source.paths : patchSubjectPaths(source.patch);
      const paths = await Promise.all(raw.map((p) => subjectPath(workspace, p)));
      return { kind: 'paths', paths: [...new Set(paths)] };
    }
    case 'url':
      return { kind: 'url', url: urlSubjectText(source.url) };
    case 'command': {
      const { commands, unwrapped, writes, dynamic } = await shellSubject(source.command);
      const paths = await writePaths(workspace, source.workdir, writes);
      return {
        kind: 'commands',
        commands,
        ...(unwrapped.length > 0 ? { unwrapped } : {}),
        ...(paths.length > 0 ? { writes: paths } : {}),
        ...(dynamic.length > 0 ? { dynamic } : {}),
      };
    }
  }
}

/**
 * The subject of a call of `toolName` with `args`.
 *
 * @param toolName the tool name as the model sent it.
 * @param args the call's arguments (parsed JSON; validated again here with the
 *   tool's schema, so defaults apply).
 * @param workspace the session's workspace root.
 * @returns `paths` for the file tools (read, write, glob/grep `path` — default
 *   `.` — and every file of an apply_patch, Move targets included), normalized
 *   by paths.ts `subjectPath`; `commands` for shell (commands.ts
 *   `shellSubject`; its writes normalized by write-paths.ts relative to the
 *   call's `workdir`); `url` for webfetch (the URL without its query,
 *   core/permission/url.ts); `none` for a tool without `subjectOf`, a tool Zuno
 *   does not declare, or arguments its schema refuses (the call is blocked
 *   `invalid_arguments` anyway). Never throws.
 */
export async function callSubject(toolName: string, args: unknown, workspace: string): Promise<CallSubject> {
  const decl = Object.prototype.hasOwnProperty.call(toolDeclarations, toolName)
    ? toolDeclarations[toolName]
    : undefined;
  if (!decl?.subjectOf) return { kind: 'none' };
  const parsed = decl.args.safeParse(args);
  if (!parsed.success) return { kind: 'none' };
  return normalize(decl.subjectOf(parsed.data), workspace);
}
