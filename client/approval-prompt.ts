import { createInterface } from 'node:readline/promises';
import type { Client } from '@temporalio/client';
import type { EventRow, ProjectionStore } from '../activities/projection/types.js';
import { ZunoError } from '../core/errors.js';
import { decideApproval, type Decision } from './approvals.js';
import type { Sink } from './render.js';

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
 * (issue 11): `y` approves once, `a` approves for the session (the same tool
 * and pattern stop asking), `n` denies and asks for an optional reason the
 * model sees. Anything else asks again: an empty line decides nothing
 * (PM6). When the approval is decided elsewhere while the prompt is open
 * (`zuno approvals approve …` from another terminal), the prompt closes and
 * says so. Returns once the approval is decided (here or elsewhere).
 */
export async function promptApproval(e: EventRow, deps: ApprovalPromptDeps): Promise<void> {
  const data = e.data as { approvalId: string; tool: string; subjectText: string; reason: string };
  const row = await deps.store.getApproval(e.sessionId, data.approvalId);
  if (!row || row.status !== 'pending') return;
  const rl = createInterface({ input: deps.input ?? process.stdin, output: deps.output ?? process.stdout });
  const abort = new AbortController();
  const watcher = setInterval(() => {
    void deps.store.getApproval(e.sessionId, data.approvalId).then((r) => {
      if (r && r.status !== 'pending') abort.abort();
    });
  }, ELSEWHERE_POLL_MS);
  try {
    deps.sink.err(`\nZuno wants to run ${data.tool}: ${data.subjectText}\n  (${data.reason})\n`);
    let decision: Decision | null = null;
    while (!decision) {
      const answer = (
        await rl.question(
          'Allow? [y] yes, once · [a] yes, and this exact call for the rest of the session · [n] no: ',
          {
            signal: abort.signal,
          },
        )
      )
        .trim()
        .toLowerCase();
      if (answer === 'y' || answer === 'yes') decision = { decision: 'approve_once' };
      else if (answer === 'a' || answer === 'always') decision = { decision: 'approve_session' };
      else if (answer === 'n' || answer === 'no') {
        const why = (await rl.question('Reason for the model (optional): ', { signal: abort.signal })).trim();
        decision = { decision: 'deny', ...(why ? { message: why.slice(0, 2000) } : {}) };
      }
    }
    await decideApproval(deps.client, row, decision).catch((err: unknown) => {
      if (err instanceof ZunoError && err.code === 'approval_already_decided') return; // decided elsewhere meanwhile
      throw err;
    });
  } catch (err) {
    if (!abort.signal.aborted) throw err;
    const now = await deps.store.getApproval(e.sessionId, data.approvalId);
    deps.sink.err(`\n${data.approvalId} was decided elsewhere (${now?.decision ?? now?.status ?? 'decided'})\n`);
  } finally {
    clearInterval(watcher);
    rl.close();
  }
}
