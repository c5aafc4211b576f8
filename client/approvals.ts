import { createHash, randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import {
  APPROVAL_ERRORS,
  DECIDE_APPROVAL_UPDATE,
  decisionFingerprint,
  type ApprovalDecisionKind,
  type ApprovalDecisionRequest,
  type ApprovalDecisionResult,
} from '../core/approval-contract.js';
import type { ApprovalRow, ProjectionStore } from '../activities/projection/index.js';
import { findPending } from './pending-lookup.js';
import { sendSessionUpdate } from './session-update.js';
import { SessionAncestry } from './session-ancestry.js';
import { ZunoError } from '../core/errors.js';

/**
 * The approval a person names: by id, in `sessionId` when given — or, when
 * that session has none, in the one session below it (a child it delegated
 * to, issue 12) that has it pending — else the only pending approval with
 * that id in Zuno's home.
 * @throws ZunoError `usage_error` (malformed id), `approval_not_found`,
 *   `approval_ambiguous` (several sessions have one: names them), and
 *   `approval_already_decided` (names how it ended).
 */
export async function findApproval(store: ProjectionStore, id: string, sessionId?: string): Promise<ApprovalRow> {
  try {
    return await findOwnApproval(store, id, sessionId);
  } catch (err) {
    if (sessionId === undefined || !(err instanceof ZunoError) || err.code !== APPROVAL_ERRORS.notFound) throw err;
    const tree = new SessionAncestry(store);
    const below: ApprovalRow[] = [];
    for (const r of await store.listApprovals({ status: 'pending', limit: 1000 }))
      if (r.id === id && r.sessionId !== sessionId && (await tree.within(r.sessionId, sessionId))) below.push(r);
    if (below.length === 1) return below[0]!;
    if (below.length > 1)
      throw new ZunoError(
        'approval_ambiguous',
        `sessions ${below.map((r) => r.sessionId).join(', ')} below ${sessionId} each have a pending ${id}: name one with --session`,
      );
    throw err;
  }
}

function findOwnApproval(store: ProjectionStore, id: string, sessionId?: string): Promise<ApprovalRow> {
  return findPending<ApprovalRow>(
    {
      noun: 'approval',
      idPattern: /^ap_\d+_\d+_\d+$/,
      idShape: 'ap_<n>_<n>_<n>',
      listCommand: 'zuno approvals list',
      notFoundCode: APPROVAL_ERRORS.notFound,
      doneCode: APPROVAL_ERRORS.alreadyDecided,
      doneWords: (r) => `already ${r.status}${r.decision ? ` (${r.decision})` : ''}`,
      get: (s, i) => store.getApproval(s, i),
      list: (f) => store.listApprovals(f),
    },
    id,
    sessionId,
  );
}

/** A person's decision on one approval. */
export interface Decision {
  decision: ApprovalDecisionKind;
  message?: string;
  /** With `approve_session`: the pattern the person typed, instead of the exact text (see {@link ApprovalDecisionRequest.pattern}). */
  pattern?: string;
  /** Default: a new random id (one decision per command invocation). */
  commandId?: string;
}

/**
 * sha256 (lowercase hex) of the text a person was shown for an approval —
 * what a decision carries so the workflow can refuse one made on another
 * text (issue 26 item 1). Equal to the workflow's `subjectDigest`.
 */
export function subjectDigestOf(subjectText: string): string {
  return createHash('sha256').update(subjectText, 'utf8').digest('hex');
}

/**
 * Sends a decision to the session workflow (the `decideApproval` Update),
 * bound to the approval's revision as stored and to the text it was shown
 * with: `row.subjectText` is what the person saw, and its sha256 travels
 * with the decision (`subjectDigest`), so a decision on another text is
 * refused `approval_subject_mismatch` and nothing runs.
 * @returns the workflow's result (`duplicate` when the same command was applied before).
 * @throws ZunoError with the workflow's typed refusal (`approval_stale_revision`,
 *   `approval_already_decided`, `approval_command_conflict`, `approval_invalid`,
 *   `approval_not_found`, `approval_subject_mismatch`), or `session_not_running`
 *   when the session's workflow has ended.
 */
export async function decideApproval(
  client: Client,
  row: Pick<ApprovalRow, 'sessionId' | 'id' | 'revision' | 'subjectText'>,
  d: Decision,
  opts: { waitMs?: number; notify?: (line: string) => void } = {},
): Promise<ApprovalDecisionResult> {
  const req: ApprovalDecisionRequest = {
    approvalId: row.id,
    commandId: d.commandId ?? randomUUID(),
    expectedRevision: row.revision,
    decision: d.decision,
    ...(d.message !== undefined ? { message: d.message } : {}),
    subjectDigest: subjectDigestOf(row.subjectText),
    ...(d.pattern !== undefined ? { pattern: d.pattern } : {}),
  };
  return sendSessionUpdate<ApprovalDecisionResult, ApprovalDecisionRequest>(client, {
    sessionId: row.sessionId,
    about: `the decision on ${row.id}`,
    update: DECIDE_APPROVAL_UPDATE,
    args: req,
    // The same command with the same content is one Update (Temporal answers it again); the same command
    // with other content is another Update, which the workflow refuses (approval_command_conflict).
    updateId: `approval:${req.commandId}:${digest(req)}`,
    invalidCode: APPROVAL_ERRORS.invalid,
    endedHint: `approval ${row.id} can no longer be decided`,
    ...opts,
  });
}

function digest(req: ApprovalDecisionRequest): string {
  return createHash('sha256').update(decisionFingerprint(req)).digest('hex').slice(0, 16);
}
