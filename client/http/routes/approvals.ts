/**
 * The approval routes of `zuno serve` (issue 29, SF6; TD2, PM6): list the
 * approvals waiting for a decision (as `zuno approvals list --json`), and
 * decide one with a command id (idempotency) and the revision the client
 * saw: another revision is refused `approval_stale_revision` (409) before
 * anything is sent, and the workflow checks it again. The call then runs
 * once, or is refused with the message the model sees.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { ApprovalRow } from '../../../activities/projection/index.js';
import { globMatch } from '../../../core/permission/glob.js';
import { ZunoError } from '../../../core/errors.js';
import { decideApproval, findApproval } from '../../approvals.js';
import { canGrantSession } from '../../approval-words.js';
import { liveApprovals } from '../../live-approvals.js';
import { SessionAncestry } from '../../session-ancestry.js';
import type { HttpDeps } from '../deps.js';
import { ApprovalParams, DecisionResultSchema, DecisionSchema, PendingQuery, StoredSchema } from '../schemas.js';
import { failures, jsonBody, jsonContent } from './common.js';

const list = createRoute({
  method: 'get',
  path: '/approvals',
  summary: 'The approvals waiting for a decision, oldest first (as zuno approvals list --json)',
  request: { query: PendingQuery },
  responses: { 200: jsonContent(StoredSchema.array(), 'the pending approval rows'), ...failures(400) },
});

const decide = createRoute({
  method: 'post',
  path: '/approvals/{id}/decision',
  summary: 'Approve or deny a waiting call',
  request: { params: ApprovalParams, body: jsonBody(DecisionSchema) },
  responses: {
    200: jsonContent(DecisionResultSchema, "the workflow's answer"),
    ...failures(400, 404, 409, 413, 503),
  },
});

/** The pending rows (only live ones when Temporal answers), within `session` when given, with their links. */
async function pendingApprovals(deps: HttpDeps, session: string | undefined) {
  const { store, temporal } = deps.host;
  const stored = await store.listApprovals({ status: 'pending', limit: 1000 });
  const pending = stored.length > 0 ? await liveApprovals(store, temporal.client, stored) : stored;
  const tree = new SessionAncestry(store);
  const out: Record<string, unknown>[] = [];
  for (const r of pending) {
    if (session !== undefined && !(await tree.within(r.sessionId, session))) continue;
    const l = await tree.link(r.sessionId);
    out.push({ ...r, agent: l.agent, parentSessionId: l.parentSessionId, rootSessionId: l.rootSessionId });
  }
  return out;
}

/**
 * The same decision sent again once applied (same command id): its stored
 * outcome, or null when the row was decided by another command.
 */
async function alreadyApplied(deps: HttpDeps, id: string, sessionId: string | undefined, commandId: string) {
  const rows = await deps.host.store.listApprovals({ limit: 1000 });
  const row = rows.find(
    (r) => r.id === id && (sessionId === undefined || r.sessionId === sessionId) && r.commandId === commandId,
  );
  if (!row || (row.decision !== 'approve_once' && row.decision !== 'approve_session' && row.decision !== 'deny'))
    return null;
  return {
    sessionId: row.sessionId,
    approvalId: row.id,
    decision: row.decision,
    revision: row.revision,
    duplicate: true,
  };
}

/** Refuses a decision the CLI would refuse too (the same words as `zuno approvals approve|deny`). */
function checkDecision(row: ApprovalRow, b: { decision: string; message?: string; pattern?: string }): void {
  if (b.message !== undefined && b.decision !== 'deny')
    throw new ZunoError('request_invalid', 'message applies to deny only (the model sees it)');
  if (b.pattern !== undefined && b.decision !== 'approve_session')
    throw new ZunoError('request_invalid', 'pattern applies to approve_session only');
  if (b.decision === 'approve_session' && !canGrantSession(row))
    throw new ZunoError(
      'request_invalid',
      `${row.id} is too large to keep in the session's workflow: approve_once or deny`,
    );
  if (b.pattern !== undefined && row.grantScope !== 'call')
    throw new ZunoError(
      'request_invalid',
      `${row.id} was asked before typed patterns existed: approve it without pattern`,
    );
  if (b.pattern !== undefined && !globMatch(b.pattern, row.subjectText))
    throw new ZunoError(
      'request_invalid',
      'the pattern does not cover the command it would approve: nothing was decided',
    );
}

/** Registers the approval routes on `app`. */
export function approvalRoutes(app: OpenAPIHono, deps: HttpDeps): void {
  app.openapi(list, async (c) => c.json(await pendingApprovals(deps, c.req.valid('query').session), 200));
  app.openapi(decide, async (c) => {
    const { id } = c.req.valid('param');
    const b = c.req.valid('json');
    let row: ApprovalRow;
    try {
      row = await findApproval(deps.host.store, id, b.sessionId);
    } catch (err) {
      const again =
        err instanceof ZunoError && err.code === 'approval_already_decided'
          ? await alreadyApplied(deps, id, b.sessionId, b.commandId)
          : null;
      if (again) return c.json(DecisionResultSchema.parse(again), 200);
      throw err;
    }
    if (row.revision !== b.expectedRevision)
      throw new ZunoError(
        'approval_stale_revision',
        `approval ${row.id} is at revision ${row.revision}, not ${b.expectedRevision}: list it again before deciding`,
      );
    checkDecision(row, b);
    const result = await decideApproval(deps.host.temporal.client, row, {
      decision: b.decision,
      commandId: b.commandId,
      ...(b.message !== undefined ? { message: b.message } : {}),
      ...(b.pattern !== undefined ? { pattern: b.pattern } : {}),
    });
    return c.json(DecisionResultSchema.parse({ sessionId: row.sessionId, ...result }), 200);
  });
}
