/**
 * Result shapes of `applyPatch` (FT3, TD3, TD4). Every expected outcome is a
 * value of {@link ApplyPatchResult}, never an exception: `applied`, a typed
 * model-correctable `conflict` (zero writes), an ordinary pre-write `failed`
 * (zero writes), or `uncertain` when an I/O failure happened after publishing
 * began.
 */
import type { ReadCredential } from '../../../core/tools/read.js';
import type { Fuzz } from './match.js';

/**
 * A credential as apply_patch consumes it: the read credential of FT1
 * (`{ path, sha256, bytes, mtimeMs }` from `read`'s `data.credential`),
 * optionally stamped with the digest of the apply_patch operation whose write
 * produced that content. The stamp is what detects `IdenticalReplay` by the
 * seed's rule ("the same operation digest acting again on the same file
 * content"): a session that records the `credential` of each applied change
 * as the newest credential for its path gets replays refused.
 */
export interface PatchCredential extends ReadCredential {
  /** Digest of the operation that wrote this content (set on credentials apply_patch issues). */
  operationDigest?: string;
}

/** The four typed conflicts of FT3. */
export type ConflictKind = 'ReadRequired' | 'StaleRead' | 'ContextMismatch' | 'IdenticalReplay';

/** The hunk a `ContextMismatch` is about. */
export interface HunkRef {
  /** 1-based number of the hunk within its Update File section. */
  index: number;
  /** The `@@` header text, when the hunk had one. */
  header?: string;
  /** 1-based line of the patch text where the hunk starts. */
  patchLine: number;
  reason: 'context_not_found' | 'header_not_found' | 'ambiguous' | 'overlap';
  /** For `ambiguous`: 1-based file lines where the hunk's lines match (at most 5). */
  candidates?: number[];
}

/** One conflict: what, on which resource, and what the model must do (FT3). */
export interface ConflictDetail {
  conflict: ConflictKind;
  /** Canonical workspace-relative path of the file. */
  resource: string;
  /** Digest of the file operation that conflicted (see `operationDigest` in digest.ts). */
  operationDigest: string;
  /** SHA-256 of the file's current bytes; null when it does not exist. */
  currentDigest: string | null;
  /** The recovery the model must perform, in one or two sentences. */
  requiredAction: string;
  hunk?: HunkRef;
  /** Model-facing explanation. */
  message: string;
}

/** A refused patch: nothing was written. `others` lists further credential conflicts found in the same pre-check. */
export interface PatchConflictResult extends ConflictDetail {
  status: 'conflict';
  others: ConflictDetail[];
}

/** One applied file operation, in patch order. */
export interface FileChange {
  /** Canonical workspace-relative path (for a move: the destination). */
  path: string;
  op: 'add' | 'update' | 'delete' | 'move';
  /** For a move: the source path. */
  from?: string;
  /** Unified diff of this operation (`--- a/…` / `+++ b/…`, `/dev/null` for add/delete). */
  diff: string;
  /** SHA-256 of the content this operation produced; absent for a delete. */
  newSha256?: string;
  operationDigest: string;
  /** Loosest matching level the hunks needed (0 exact … 3 punctuation normalized). */
  fuzz: Fuzz;
  /**
   * Credential for the file's content after the whole patch, on the last
   * change that touched the path (absent for deletes). The session may record
   * it as its newest credential for the path.
   */
  credential?: PatchCredential;
}

/** The patch was applied; `changes` in patch order. */
export interface PatchApplied {
  status: 'applied';
  changes: FileChange[];
}

/** Codes of an ordinary failure before any write. */
export type FailureCode =
  | 'workspace_unavailable'
  | 'path_outside_workspace'
  | 'invalid_path'
  | 'not_a_directory'
  | 'cannot_access'
  | 'symlink_in_path'
  | 'too_many_symlinks'
  | 'not_found'
  | 'not_a_file'
  | 'binary_file'
  | 'not_utf8'
  | 'cannot_read'
  | 'write_failed';

/** An ordinary failure: nothing was changed (temp files and directories created for it were removed). */
export interface PatchFailed {
  status: 'failed';
  code: FailureCode;
  /** The patch path (as written) or workspace-relative path concerned, when there is one. */
  path?: string;
  message: string;
}

/**
 * An I/O failure after publishing began (TD4, FT3 `Uncertain`): some files may
 * have changed. `changedPaths` are the paths observed to differ from their
 * pre-check state after the failure; never re-run the patch mechanically.
 */
export interface PatchUncertain {
  status: 'uncertain';
  uncertain: { changedPaths: string[]; cause: string };
  message: string;
}

/** Outcome of `applyPatch`. */
export type ApplyPatchResult = PatchApplied | PatchConflictResult | PatchFailed | PatchUncertain;
