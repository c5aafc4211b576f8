/**
 * `applyPatch`: the apply_patch engine's entry point (FT3). Takes the mutation
 * lock, pre-checks the whole patch, and publishes only when nothing conflicts.
 * No Temporal, no projection: the caller supplies the credentials the session
 * holds and records what comes back.
 */
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { AuthorityScope } from '../path-authority.js';
import { workspaceMutationLock, type MutationLock } from './lock.js';
import type { ParsedPatch } from './parse.js';
import { precheck } from './precheck.js';
import { publish, type PublishHooks } from './publish.js';
import type { ApplyPatchResult, PatchCredential } from './result.js';

/** What `applyPatch` needs besides the patch. */
export interface ApplyPatchContext {
  /** Workspace root; patch paths are relative to it (absolute paths must lie inside it). */
  workspace: string;
  /**
   * The newest credential the session holds for a canonical workspace-relative
   * path (`/`-separated, symlinks resolved, as `read` reports it), or undefined.
   */
  credentials: (relPath: string) => PatchCredential | undefined;
  /** The lock to pre-check and publish under; default: the process-wide lock of the workspace. */
  lock?: MutationLock;
  /** Test observation points around publishing (see PublishHooks). */
  hooks?: PublishHooks;
}

/**
 * Applies a parsed patch to the workspace.
 *
 * Under one mutation lock: resolves every path (FT4 containment, see
 * paths.ts), reads every touched file, checks credentials, matches every hunk
 * and computes every new content; only then writes (temp file + rename per
 * file, parents created for adds and moves, removals last).
 *
 * @returns never throws for expected outcomes:
 *   - `{ status: 'applied', changes }` — one FileChange per file section, in patch order;
 *   - `{ status: 'conflict', conflict, resource, operationDigest, currentDigest, requiredAction, hunk?, message, others }`
 *     — `ReadRequired` | `StaleRead` | `ContextMismatch` | `IdenticalReplay`; zero writes;
 *   - `{ status: 'failed', code, path?, message }` — e.g. `path_outside_workspace`,
 *     `not_found`, `not_a_file`, `binary_file`, `write_failed`; zero writes;
 *   - `{ status: 'uncertain', uncertain: { changedPaths, cause }, message }` — I/O failure after publishing began (TD4).
 */
export async function applyPatch(parsed: ParsedPatch, ctx: ApplyPatchContext): Promise<ApplyPatchResult> {
  let root: string;
  try {
    root = await realpath(resolve(ctx.workspace));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    return {
      status: 'failed',
      code: 'workspace_unavailable',
      message: `The workspace root ${ctx.workspace} cannot be resolved (${code}).`,
    };
  }
  const lock = ctx.lock ?? workspaceMutationLock(root);
  return lock.runExclusive(async (): Promise<ApplyPatchResult> => {
    const scope = new AuthorityScope();
    try {
      let checked;
      try {
        checked = await precheck(parsed, root, ctx.workspace, ctx.credentials, scope);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? String(err);
        return {
          status: 'failed',
          code: 'cannot_read',
          message: `The pre-check failed (${code}); nothing was changed.`,
        };
      }
      if (!checked.ok) return checked.result;
      return await publish(checked.plan, ctx.hooks);
    } finally {
      scope.close();
    }
  });
}
