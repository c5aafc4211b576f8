import type { ApprovalRow, ProjectionStore } from '../activities/projection/index.js';
import { inertText } from '../core/terminal-text.js';
import { childOfWords, SessionAncestry, type SessionLink } from './session-ancestry.js';

/** A pending approval of a session below the followed one, with that session's link. */
export interface DescendantApproval {
  row: ApprovalRow;
  link: SessionLink;
}

/**
 * The pending approvals of the sessions below a followed session (issue
 * 12: the sessions it delegated to, and theirs), found in the projection's
 * `approvals` rows — a child's `approval.requested` is in the child's event
 * stream, which `zuno run` does not follow. Each approval is handed out once
 * per revision.
 */
export class DescendantApprovals {
  private readonly offered = new Set<string>();
  private readonly tree: SessionAncestry;

  constructor(
    private readonly store: Pick<ProjectionStore, 'listApprovals' | 'getSession' | 'getDelegationOfChild'>,
    private readonly followed: string,
  ) {
    this.tree = new SessionAncestry(store);
  }

  /** The pending approvals below the followed session not handed out before, oldest first. */
  async fresh(): Promise<DescendantApproval[]> {
    const out: DescendantApproval[] = [];
    for (const row of await this.store.listApprovals({ status: 'pending', limit: 1000 })) {
      if (row.sessionId === this.followed) continue; // its own come through its events
      const key = `${row.sessionId}/${row.id}/${row.revision}`;
      if (this.offered.has(key) || !(await this.tree.within(row.sessionId, this.followed))) continue;
      this.offered.add(key);
      out.push({ row, link: await this.tree.link(row.sessionId) });
    }
    return out;
  }
}

/** `Child session ses_c (deep, delegated by ses_p)`; deeper down `… by ses_c1, root ses_p)`. */
export function childSessionWords(a: DescendantApproval): string {
  return `Child session ${a.row.sessionId} (${a.link.agent}, delegated by ${childOfWords(a.link)})`;
}

/**
 * The line a follower that cannot prompt prints for a descendant's
 * approval: who asks, what it would run, and the command that decides it.
 */
export function descendantApprovalLine(a: DescendantApproval): string {
  const { row } = a;
  return (
    `? ${childSessionWords(a)}: ${row.tool} waits for your approval (${row.id}): ${inertText(row.subjectText)} — ` +
    `zuno approvals approve|deny ${row.id} --session ${row.sessionId}`
  );
}

/**
 * One look for new descendant approvals while `zuno run` follows a session:
 * each is asked about at the terminal (`ask`, the inline prompt) or, when
 * there is none to ask on, announced with the command that decides it.
 */
export async function offerDescendantApprovals(
  below: DescendantApprovals,
  ask: ((a: DescendantApproval) => Promise<void>) | null,
  err: (text: string) => void,
): Promise<void> {
  for (const a of await below.fresh()) {
    if (ask) await ask(a);
    else err(`${descendantApprovalLine(a)}\n`);
  }
}
