/**
 * The apply_patch engine (FT3; path containment toward FT4): parse the patch
 * format of the seeds, pre-check every file under one mutation lock against
 * the session's read credentials, publish by rename, report typed conflicts,
 * failures or an uncertain outcome. No Temporal, no projection.
 *
 * Typical use by the tool activity:
 * ```ts
 * let parsed;
 * try { parsed = parsePatch(args.patch); }
 * catch (e) { if (e instanceof PatchSyntaxError) return renderPatchSyntaxError(e); throw e; }
 * const result = await applyPatch(parsed, { workspace, credentials: (p) => session.newestCredential(p) });
 * return renderApplyPatchResult(result);
 * ```
 */
export { parsePatch, type ParsedPatch, type FileOperation, type PatchChunk } from './parse.js';
export { PatchSyntaxError } from './errors.js';
export { applyPatch, type ApplyPatchContext } from './apply.js';
export { createMutationLock, workspaceMutationLock, type MutationLock } from './lock.js';
export type { PublishHooks } from './publish.js';
export { renderApplyPatchResult, renderPatchSyntaxError } from './render.js';
export { operationDigest, sha256Hex } from './digest.js';
export type {
  ApplyPatchResult,
  ConflictDetail,
  ConflictKind,
  FailureCode,
  FileChange,
  HunkRef,
  PatchApplied,
  PatchConflictResult,
  PatchCredential,
  PatchFailed,
  PatchUncertain,
} from './result.js';
