/**
 * Approvals and questions of an ACP session, asked through
 * `session/request_permission` and decided through the same durable Updates
 * as `zuno approvals` and `zuno questions` (PM6, QU1, SF1):
 *
 * - a pending approval (strict mode, an `ask` rule) of the session or of a
 *   session below it shows its exact `subjectText` with the options allow
 *   once / allow for the session / reject → `decideApproval` with
 *   `approve_once` / `approve_session` / `deny`;
 * - a pending question (ACP v1 has no question method) is asked item by
 *   item, each a permission request whose options are the item's answer
 *   choices plus "answer later"; when every item got a choice the answers go
 *   to `answerQuestion`. An item without choices (free text) is not asked:
 *   the person answers with `zuno questions answer` or in the next prompt.
 *
 * The bridge reads the projection's pending rows (not the events), so a
 * client that connects later (`session/load`) is asked too. A request the
 * client cancels leaves the row pending; a row decided elsewhere meanwhile
 * withdraws the request (`$/cancel_request`).
 */
import type { AgentContext, PermissionOption, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { ApprovalRow, ProjectionStore, QuestionRow } from '../../activities/projection/index.js';
import type { ApprovalDecisionKind } from '../../core/approval-contract.js';
import type { QuestionItem } from '../../core/question-contract.js';
import { decideApproval } from '../approvals.js';
import { answerQuestion } from '../questions.js';
import { SessionAncestry } from '../session-ancestry.js';
import type { SurfaceHost } from '../surface/index.js';
import { textContent, toolKind } from './tool-updates.js';

/** The three answers to an approval; each option id is the decision it sends. */
export const APPROVAL_OPTIONS: PermissionOption[] = [
  { optionId: 'approve_once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'approve_session', name: 'Allow for this session', kind: 'allow_always' },
  { optionId: 'deny', name: 'Reject', kind: 'reject_once' },
];

/** The option that leaves a question's item for later. */
export const ANSWER_LATER: PermissionOption = { optionId: 'later', name: 'Answer later', kind: 'reject_once' };

const DECISIONS: ReadonlySet<string> = new Set<ApprovalDecisionKind>(['approve_once', 'approve_session', 'deny']);

/** The decision a permission response names, or null (cancelled, or an option this bridge did not offer). */
export function decisionOf(r: RequestPermissionResponse): ApprovalDecisionKind | null {
  if (r.outcome.outcome !== 'selected') return null;
  return DECISIONS.has(r.outcome.optionId) ? (r.outcome.optionId as ApprovalDecisionKind) : null;
}

/** The options of one question item: its choices (`answer:<index>`) and "answer later". */
export function questionOptions(item: QuestionItem): PermissionOption[] {
  return [
    ...(item.options ?? []).map((o, i) => ({ optionId: `answer:${i}`, name: o, kind: 'allow_once' as const })),
    ANSWER_LATER,
  ];
}

/** The choice a response picked for `item`, or null (later, cancelled, unknown option). */
export function answerOf(item: QuestionItem, r: RequestPermissionResponse): string | null {
  if (r.outcome.outcome !== 'selected') return null;
  const m = /^answer:(\d+)$/.exec(r.outcome.optionId);
  return m ? (item.options?.[Number(m[1])] ?? null) : null;
}

/** Asks one ACP session's pending approvals and questions, each once per connection. */
export class PermissionBridge {
  private readonly asked = new Map<string, AbortController>();
  private readonly tree: SessionAncestry;

  constructor(
    private readonly host: SurfaceHost,
    private readonly client: AgentContext,
    private readonly sessionId: string,
  ) {
    this.tree = new SessionAncestry(host.store);
  }

  /**
   * Looks for pending approvals and questions not asked yet and asks each
   * (without waiting for the answer); withdraws requests whose row was
   * decided elsewhere.
   * @throws what the store throws.
   */
  async poll(): Promise<void> {
    const store: ProjectionStore = this.host.store;
    const approvals = await this.pendingApprovals();
    const questions = await store.listQuestions({ sessionId: this.sessionId, status: 'pending', limit: 1000 });
    const live = new Set([...approvals.map(approvalKey), ...questions.map((q) => `q:${q.sessionId}/${q.id}`)]);
    for (const [key, ctl] of this.asked) if (!live.has(key) && !ctl.signal.aborted) ctl.abort();
    for (const a of approvals) this.once(approvalKey(a), (signal) => this.askApproval(a, signal));
    for (const q of questions) this.once(`q:${q.sessionId}/${q.id}`, (signal) => this.askQuestion(q, signal));
  }

  /** Stops asking: outstanding requests are withdrawn (the rows stay pending). */
  close(): void {
    for (const ctl of this.asked.values()) ctl.abort();
  }

  private once(key: string, ask: (signal: AbortSignal) => Promise<void>): void {
    if (this.asked.has(key)) return;
    const ctl = new AbortController();
    this.asked.set(key, ctl);
    ask(ctl.signal).catch((err: unknown) => {
      if (!ctl.signal.aborted) this.host.notify?.(`could not ask or decide ${key}: ${(err as Error).message}`);
    });
  }

  /** Pending approvals of this session and of the sessions below it (delegated children), oldest first. */
  private async pendingApprovals(): Promise<ApprovalRow[]> {
    const out: ApprovalRow[] = [];
    for (const r of await this.host.store.listApprovals({ status: 'pending', limit: 1000 }))
      if (r.sessionId === this.sessionId || (await this.tree.within(r.sessionId, this.sessionId))) out.push(r);
    return out;
  }

  private async askApproval(a: ApprovalRow, signal: AbortSignal): Promise<void> {
    const child = a.sessionId !== this.sessionId;
    const res = await this.client.request(
      'session/request_permission',
      {
        sessionId: this.sessionId,
        toolCall: {
          toolCallId: child ? `${a.sessionId}/${a.rowId}` : a.rowId,
          title: a.subjectText,
          kind: toolKind(a.tool),
          status: 'pending',
          rawInput: { tool: a.tool, subject: a.subjectText, approvalId: a.id, sessionId: a.sessionId },
          content: [
            textContent(`${a.tool}${child ? ` in child session ${a.sessionId}` : ''} waits for approval: ${a.reason}`),
          ],
        },
        options: APPROVAL_OPTIONS,
      },
      { cancellationSignal: signal },
    );
    const decision = decisionOf(res);
    if (decision === null && res.outcome.outcome === 'selected')
      this.host.notify?.(
        `approval ${a.id}: the client picked "${res.outcome.optionId.slice(0, 60)}", which is not an offered option; nothing was decided (it stays pending)`,
      );
    if (decision === null || signal.aborted) return;
    await decideApproval(this.host.temporal.client, a, { decision });
  }

  private async askQuestion(q: QuestionRow, signal: AbortSignal): Promise<void> {
    const open = q.view.items.filter((i) => q.view.answers[i.itemId] === undefined);
    if (open.some((i) => !i.options?.length)) {
      this.host.notify?.(
        `question ${q.id} has a free-text item: answer it with \`zuno questions answer ${q.id}\` or in the next prompt`,
      );
      return;
    }
    const answers: Record<string, string> = {};
    for (const item of open) {
      const res = await this.client.request(
        'session/request_permission',
        {
          sessionId: this.sessionId,
          toolCall: {
            toolCallId: q.view.rowId,
            title: q.view.header ? `${q.view.header}: ${item.question}` : item.question,
            kind: 'other',
            status: 'pending',
            rawInput: { questionId: q.id, itemId: item.itemId, question: item.question, options: item.options ?? [] },
          },
          options: questionOptions(item),
        },
        { cancellationSignal: signal },
      );
      const answer = answerOf(item, res);
      if (answer === null || signal.aborted) return;
      answers[item.itemId] = answer;
    }
    await answerQuestion(this.host.temporal.client, q, answers);
  }
}

function approvalKey(a: ApprovalRow): string {
  return `a:${a.sessionId}/${a.id}`;
}
