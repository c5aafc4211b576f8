import { PROJECTION_RECORD_OPTIONS } from '../core/activity-policy.js';
import { CancellationScope, condition, proxyActivities } from '@temporalio/workflow';
import type { PendingApproval, RecordApprovalInput } from '../core/approval-contract.js';
import { callEffect } from '../core/permission/effect.js';
import { evaluatePermission } from '../core/permission/evaluate.js';
import { exactPattern } from '../core/permission/glob.js';
import { hasWorkdir, shownSubject, type ShownSubject } from '../core/permission/shown.js';
import { sha256Hex } from '../core/sha256.js';
import { inertText } from '../core/terminal-text.js';
import type { PermissionDecision } from '../core/permission/types.js';
import type { PlannedToolCall, SettledOutcome } from '../core/session/tool-calls.js';
import type { SessionActivities } from '../core/session/activities.js';
import type { ApprovalBook, ApprovalVerdict } from './approvals.js';
import type { SessionGeneration } from './generation.js';
import { onRoute, type RouteHost } from './route.js';
import { markdownLiteral as md } from '../core/ui-text.js';
import { settleDenied, settleNotRun } from './settle.js';

export { EXACT_SUBJECT_PATCH, WORKDIR_SUBJECT_PATCH } from './generation.js';

/** What the permission gate needs from the session workflow. */
export interface GateHost extends RouteHost {
  readonly approvals: ApprovalBook;
  /** The session run's generation: which approval subject it shows ({@link SessionGeneration}). */
  readonly generation: Pick<SessionGeneration, 'exactApprovalSubject' | 'workdirInApprovalSubject'>;
  /** Called when the set of pending approvals changed (ZunoStatus, current details). */
  approvalsChanged(): void;
}

/** What the gate lets happen to one call. */
export type GateResult = { run: true } | { run: false; settled: SettledOutcome };

/**
 * The permission gate in the workflow path (TD2, TD7, TD8, PM1–PM6): decides
 * a planned call on the session's policy before anything is scheduled.
 * - no policy (sessions started before permissions existed) or `allow` → run;
 * - `deny` → a `blocked` result with category `denied`; nothing is scheduled;
 * - `ask` → an approval: recorded in the projection (`approval.requested`),
 *   shown in ZunoStatus and the current details, and waited for — as long as
 *   it takes, across worker and server restarts — until a person decides by
 *   Update. Approved → run; denied → `blocked` `denied` with the person's
 *   message; a hard interrupt meanwhile → `not_run`.
 * Only this call waits: the other calls of its batch go on.
 *
 * @param interrupted true once the turn was interrupted (TD10).
 */
export async function admitCall(
  host: GateHost,
  call: PlannedToolCall,
  where: { turn: number; step: number },
  interrupted: () => boolean,
): Promise<GateResult> {
  const decided = decide(host, call);
  if (decided.kind === 'result') return decided.result;
  const verdict = await waitForDecision(host, call, where, decided, interrupted);
  if (verdict.kind === 'approved') return { run: true };
  if (verdict.kind === 'not_run') return { run: false, settled: settleNotRun(call, Date.now()) };
  const said = verdict.message ? `: ${verdict.message}` : '';
  return { run: false, settled: settleDenied(call, `the user denied this call${said}`, Date.now()) };
}

/**
 * The gate's decision when no person needs to be asked (no policy, `allow`,
 * `deny`), else null: then {@link admitCall} asks and waits. Synchronous, so a
 * fast turn (issue 13) awaits nothing for the calls the policy decides. Pure
 * but for `Date.now()` (workflow time) in a denial.
 */
export function decideCall(host: GateHost, call: PlannedToolCall): GateResult | null {
  const decided = decide(host, call);
  return decided.kind === 'result' ? decided.result : null;
}

function decide(
  host: GateHost,
  call: PlannedToolCall,
): { kind: 'result'; result: GateResult } | { kind: 'ask'; decision: PermissionDecision; shown: ShownSubject } {
  const policy = host.meta.permission;
  if (!policy) return { kind: 'result', result: { run: true } };
  // An MCP call's effect comes from its server's annotations (MC9), classified by modelStep.
  const effect = call.mcp?.effect ?? callEffect(call.name, call.args);
  const subject = call.subject ?? { kind: 'none' as const };
  const shown = shownOf(host, call, subject);
  const decision = evaluatePermission(
    policy,
    // A command held in the projection has no text here: no `call` grant covers it, so it always asks.
    {
      tool: call.name,
      effect,
      subject,
      ...(call.mcp ? { declared: true } : {}),
      ...(shown.inProjection ? {} : { text: shown.text }),
    },
    host.approvals.grants(),
  );
  if (decision.action === 'allow') return { kind: 'result', result: { run: true } };
  if (decision.action === 'deny') {
    const settled = settleDenied(call, `permission denied (${decision.reason})`, Date.now());
    return { kind: 'result', result: { run: false, settled } };
  }
  return { kind: 'ask', decision, shown };
}

/** What the gate shows of a call: see {@link shownSubject}; for a command whose arguments stayed in the projection, a stand-in text and the digest modelStep computed. */
type GateShown = ShownSubject & { inProjection?: { digest: string } };

function shownOf(host: GateHost, call: PlannedToolCall, subject: NonNullable<PlannedToolCall['subject']>): GateShown {
  const ignoreWorkdir = hasWorkdir(call.name, call.args) && !host.generation.workdirInApprovalSubject;
  const shown = shownSubject(call.name, call.args, subject, { ignoreWorkdir });
  if (!call.argsInProjection || call.shown?.kind !== 'command') return shown;
  return { kind: 'command', text: standInText(call), parts: shown.parts, inProjection: { digest: call.shown.digest } };
}

/**
 * The text a pending approval holds for a command whose arguments stayed in
 * the projection (the workflow never sees it): the call's summary without its
 * leading `<tool>: ` label (every surface names the tool itself), then the
 * command's length and where its full text is, e.g.
 * `echo AAA… (a command of 100012 characters: its full text is recorded with the approval — zuno approvals list)`.
 * Pure.
 */
export function standInText(call: Pick<PlannedToolCall, 'name' | 'summary' | 'shown'>): string {
  const summary = call.summary ?? '';
  const label = `${call.name}: `;
  const what = summary.startsWith(label) ? summary.slice(label.length) : summary || call.name;
  const chars = call.shown?.chars ?? 0;
  return `${what} (a command of ${chars} characters: its full text is recorded with the approval — zuno approvals list)`;
}

async function waitForDecision(
  host: GateHost,
  call: PlannedToolCall,
  where: { turn: number; step: number },
  asked: { decision: PermissionDecision; shown: GateShown },
  interrupted: () => boolean,
): Promise<ApprovalVerdict> {
  const book = host.approvals;
  const { decision, shown } = asked;
  const subject = host.generation.exactApprovalSubject
    ? shown.inProjection
      ? // Approved once only: the workflow cannot hold the text a grant would cover (recordApproval writes it).
        {
          subjectText: shown.text,
          subjectKind: shown.kind,
          subjectParts: shown.parts,
          subjectDigest: shown.inProjection.digest,
          textInProjection: true as const,
        }
      : {
          subjectText: shown.text,
          subjectKind: shown.kind,
          subjectParts: shown.parts,
          subjectDigest: sha256Hex(shown.text),
          grantPatterns: [exactPattern(shown.text)],
          grantScope: 'call' as const,
        }
    : {
        subjectText: decision.subjectText,
        ...(decision.grantPatterns?.length ? { grantPatterns: decision.grantPatterns } : {}),
      };
  const approval = book.ask({
    approvalId: `ap_${call.rowId.replace(/^tc_/, '')}`,
    rowId: call.rowId,
    callId: call.callId,
    tool: call.name,
    ...subject,
    reason: decision.reason,
    turn: where.turn,
    step: where.step,
    requestedAtMs: Date.now(),
  });
  // Recording, waiting and settling run to their end: an interrupt only ends the wait.
  return CancellationScope.nonCancellable(async () => {
    await record(host, { sessionId: host.meta.sessionId, approval });
    host.approvalsChanged();
    await condition(() => book.verdict(approval.approvalId) !== undefined || interrupted());
    if (book.verdict(approval.approvalId) === undefined) book.abandon(approval.approvalId);
    const verdict = book.verdict(approval.approvalId)!;
    host.approvalsChanged();
    await record(host, {
      sessionId: host.meta.sessionId,
      approval,
      decided: decidedOf(verdict),
    });
    return verdict;
  });
}

function decidedOf(v: ApprovalVerdict): NonNullable<RecordApprovalInput['decided']> {
  const atMs = Date.now();
  if (v.kind === 'not_run') return { decision: 'not_run', atMs };
  if (v.kind === 'denied')
    return { decision: 'deny', commandId: v.commandId, ...(v.message ? { message: v.message } : {}), atMs };
  return { decision: v.decision, commandId: v.commandId, ...(v.grant ? { grant: v.grant } : {}), atMs };
}

function record(host: RouteHost, input: RecordApprovalInput): Promise<void> {
  return onRoute(host, (o) =>
    proxyActivities<SessionActivities>({
      ...PROJECTION_RECORD_OPTIONS,
      ...o,
      summary: `approval ${input.approval.approvalId}: ${input.approval.tool}`,
    }).recordApproval(input),
  );
}

/** Longest subject text the current details show, in characters (the rest is named by its length). */
export const APPROVAL_LINE_TEXT_MAX = 4000;

/** Longest parts text the current details show, in characters (a longer one is cut there with its length named). */
export const APPROVAL_LINE_PARTS_MAX = 400;

/** `text` up to `max` characters; a longer one cut there and marked `… (N characters)`. */
function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

/**
 * The Temporal current-details line of the oldest pending approval: the full
 * subject text on one line (control characters and line feeds as visible
 * escapes, `\n`; Markdown-literal), then its parsed parts when they say
 * something the text does not, e.g.
 * `turn 1 · waiting for approval ap_0_0_1: shell: echo hello > note.txt && ls · parts: echo hello; ls · since 16:32:31 UTC · zuno approvals approve|deny ap_0_0_1`.
 * A text longer than {@link APPROVAL_LINE_TEXT_MAX} is cut there with its length named; so are parts longer
 * than {@link APPROVAL_LINE_PARTS_MAX} (`… (N characters)`).
 */
export function approvalLine(pending: PendingApproval[]): string | null {
  const first = pending[0];
  if (!first) return null;
  const more = pending.length > 1 ? ` (+${pending.length - 1} more)` : '';
  const since = new Date(first.requestedAtMs).toISOString().slice(11, 19);
  const text = inertText(first.subjectText);
  const shown =
    text.length > APPROVAL_LINE_TEXT_MAX
      ? `${text.slice(0, APPROVAL_LINE_TEXT_MAX)}… (${text.length} characters: zuno approvals list --json)`
      : text;
  const parts = first.subjectParts ?? [];
  const partsWords =
    parts.length > 0 && !(parts.length === 1 && parts[0] === first.subjectText)
      ? ` · parts: ${md(cut(inertText(parts.join('; ')), APPROVAL_LINE_PARTS_MAX))}`
      : '';
  return (
    `turn ${first.turn + 1} · waiting for approval ${first.approvalId}: ${first.tool}: ${md(shown)}${partsWords}${more}` +
    ` · since ${since} UTC · zuno approvals approve|deny ${first.approvalId}`
  );
}
