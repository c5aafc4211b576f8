import { createInterface } from 'node:readline/promises';
import type { Client } from '@temporalio/client';
import type { ApprovalRow, EventRow, ProjectionStore } from '../activities/projection/index.js';
import { ZunoError } from '../core/errors.js';
import { inertText } from '../core/terminal-text.js';
import { decideApproval, type Decision } from './approvals.js';
import { canGrantSession, exactNoun, grantWords, partsLine, subjectBlock } from './approval-words.js';
import type { Sink } from './sink.js';

/** How often an open prompt checks whether the approval was decided elsewhere, in ms. */
const ELSEWHERE_POLL_MS = 500;

/** What {@link promptApproval} needs. */
export interface ApprovalPromptDeps {
  client: Client;
  store: ProjectionStore;
  sink: Sink;
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
}

/**
 * Asks the person at the terminal about an `approval.requested` event
 * (issue 11): it shows the call's full text as the model sent it (a heredoc
 * as its lines, issue 26), its parsed parts and why it asks; `y` approves
 * once, `a` approves this exact command for the session (the confirmation
 * says so in those words), `n` denies and asks for an optional reason the
 * model sees. The decision carries the digest of the text shown. Anything else asks again: an empty line decides nothing
 * (PM6). When the approval is decided elsewhere while the prompt is open
 * (`zuno approvals approve …` from another terminal), the prompt closes and
 * says so. Returns once the approval is decided (here or elsewhere).
 */
export async function promptApproval(e: EventRow, deps: ApprovalPromptDeps): Promise<void> {
  const data = e.data as { approvalId: string };
  const row = await deps.store.getApproval(e.sessionId, data.approvalId);
  if (!row || row.status !== 'pending') return;
  await askAbout(row, deps, 'Zuno');
}

/**
 * The same prompt for a pending approval of another session — a child the
 * followed session delegated to (issue 12: a child's approval reaches the
 * person at the same terminal) — introduced by `who` (`Child session ses_…
 * (deep, delegated by ses_…)`). After a decision made here it says so in one
 * line (the child's `approval.decided` is not in the followed stream).
 * Returns once the approval is decided (here or elsewhere).
 */
export async function promptApprovalOf(row: ApprovalRow, who: string, deps: ApprovalPromptDeps): Promise<void> {
  const decided = await askAbout(row, deps, who);
  if (decided && decided.decision !== 'approve_session')
    deps.sink.err(`${row.id} of ${row.sessionId}: ${DECIDED_HERE[decided.decision]}\n`);
}

/** How a decision made at this prompt reads. */
const DECIDED_HERE: Record<Decision['decision'], string> = {
  approve_once: 'approved once',
  approve_session: 'approved for that session',
  deny: 'denied',
};

/** The prompt itself; the decision made here, or null when it was decided elsewhere. */
async function askAbout(row: ApprovalRow, deps: ApprovalPromptDeps, who: string): Promise<Decision | null> {
  const rl = createInterface({ input: deps.input ?? process.stdin, output: deps.output ?? process.stdout });
  const abort = new AbortController();
  const watcher = setInterval(() => {
    void deps.store.getApproval(row.sessionId, row.id).then((r) => {
      if (r && r.status !== 'pending') abort.abort();
    });
  }, ELSEWHERE_POLL_MS);
  try {
    const parts = partsLine(row);
    deps.sink.err(
      `\n${subjectBlock(`${who} wants to run ${row.tool}`, row)}\n${parts ? `  ${parts}\n` : ''}  (${inertText(row.reason)})\n`,
    );
    const session = canGrantSession(row);
    const choices = session
      ? `[y] yes, once · [a] yes, and ${exactNoun(row)} for the rest of the session · [n] no`
      : '[y] yes, once · [n] no';
    let decision: Decision | null = null;
    while (!decision) {
      const answer = (await rl.question(`Allow? ${choices}: `, { signal: abort.signal })).trim().toLowerCase();
      if (answer === 'y' || answer === 'yes') decision = { decision: 'approve_once' };
      else if (session && (answer === 'a' || answer === 'always')) decision = { decision: 'approve_session' };
      else if (answer === 'n' || answer === 'no') {
        const why = (await rl.question('Reason for the model (optional): ', { signal: abort.signal })).trim();
        decision = { decision: 'deny', ...(why ? { message: why.slice(0, 2000) } : {}) };
      }
    }
    const sent = await decideApproval(deps.client, row, decision).then(
      (result) => {
        if (decision.decision === 'approve_session')
          deps.sink.err(
            `${row.id} of ${row.sessionId}: approved; for the rest of that session it no longer asks for ${grantWords(row, result.grant)}\n`,
          );
        return true;
      },
      (err: unknown) => {
        if (err instanceof ZunoError && err.code === 'approval_already_decided') return false; // decided elsewhere meanwhile
        throw err;
      },
    );
    return sent ? decision : null;
  } catch (err) {
    if (!abort.signal.aborted) throw err;
    const now = await deps.store.getApproval(row.sessionId, row.id);
    deps.sink.err(`\n${row.id} was decided elsewhere (${now?.decision ?? now?.status ?? 'decided'})\n`);
    return null;
  } finally {
    clearInterval(watcher);
    rl.close();
  }
}
