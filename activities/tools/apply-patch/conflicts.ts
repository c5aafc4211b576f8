/**
 * Builders of the four FT3 conflicts, with the recovery the seed prescribes
 * for each (tools.zh.md, "apply_patch 冲突恢复"):
 * - ReadRequired: read the named resource first, then build the change.
 * - StaleRead: re-read the current file and rebuild the operation on it.
 * - ContextMismatch: read around the named hunk, send a smaller patch with
 *   fresh, unique context.
 * - IdenticalReplay: do not resend unchanged; change the operation, or wait
 *   until the file really changes and read it again.
 */
import type { HunkMismatch } from './hunks.js';
import type { ConflictDetail, HunkRef } from './result.js';

/** Facts every conflict carries. */
export interface ConflictBase {
  resource: string;
  operationDigest: string;
  currentDigest: string | null;
}

const short = (d: string | null | undefined) => (d ? d.slice(0, 12) : 'none');

/** No credential for an existing file the patch updates, deletes, moves, moves onto or overwrites. */
export function readRequired(b: ConflictBase, role: string): ConflictDetail {
  return {
    conflict: 'ReadRequired',
    ...b,
    requiredAction: `Read ${b.resource} with the read tool, then build the patch from what you read.`,
    message: `${b.resource} exists and the patch ${role} it, but it has not been read in this session; nothing was changed.`,
  };
}

/** The credential's digest differs from the file's current content. */
export function staleRead(b: ConflictBase, credentialDigest: string): ConflictDetail {
  return {
    conflict: 'StaleRead',
    ...b,
    requiredAction: `Read ${b.resource} again and rebuild the operation from its current content.`,
    message: `${b.resource} changed since it was read (read sha256 ${short(credentialDigest)}…, now ${short(b.currentDigest)}…); nothing was changed.`,
  };
}

function describeHunk(h: HunkRef): string {
  return `hunk #${h.index}${h.header !== undefined ? ` (@@ ${h.header.trim()})` : ''} at patch line ${h.patchLine}`;
}

/** A hunk does not match the file's current lines (not found, ambiguous, overlapping). */
export function contextMismatch(b: ConflictBase, m: HunkMismatch): ConflictDetail {
  const hunk: HunkRef = { ...m };
  const where = describeHunk(hunk);
  let why: string;
  let action: string;
  switch (m.reason) {
    case 'ambiguous':
      why = `its lines match at several places (file lines ${m.candidates!.join(', ')})`;
      action = `Read ${b.resource} near those lines and resend a smaller patch whose context (more lines, or an @@ header line) is unique.`;
      break;
    case 'header_not_found':
      why = `its @@ header line was not found after the previous hunk`;
      action = `Read ${b.resource} near the intended place and resend a smaller patch with a header and context copied from the current file.`;
      break;
    case 'overlap':
      why = 'it overlaps the region of another hunk';
      action = `Merge the overlapping hunks or resend a smaller patch with fresh context from ${b.resource}.`;
      break;
    default:
      why = 'its context and removed lines were not found (in order, after the previous hunk)';
      action = `Read ${b.resource} near the intended place and resend a smaller patch with fresh context copied from the current file.`;
  }
  return {
    conflict: 'ContextMismatch',
    ...b,
    hunk,
    requiredAction: action,
    message: `In ${b.resource}, ${where} does not match the current lines: ${why}; nothing was changed.`,
  };
}

/**
 * The operation was already applied: its digest is stamped on the current
 * content's credential, or applying it would produce the current content
 * (an Add with identical content, hunks found already applied).
 */
export function identicalReplay(b: ConflictBase, evidence: string): ConflictDetail {
  return {
    conflict: 'IdenticalReplay',
    ...b,
    requiredAction: `Do not resend this operation unchanged. Change the operation, or wait until ${b.resource} really changes and read it again.`,
    message: `${b.resource} already holds the result of this operation (${evidence}); nothing was changed.`,
  };
}
