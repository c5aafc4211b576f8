/**
 * `settleCouncilCall` (issue 12 item 5): a `council_run` call's Council has
 * ended (its workflow's result, or its failure); writes the parent
 * session's tool-call result through the one writer of tool-call records
 * (`recordCompleted`, activities/session/tool-records.ts) and returns the
 * call's small activity result. The model reads: the Council's status and
 * code, each seat's status, report validity and usage, the quorum, then the
 * synthesis text (from the councils row). Idempotent: a second run finds the
 * committed result and leaves it.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { CouncilResult, SettleCouncilCallInput } from '../../core/council/contract.js';
import type { ToolActivityResult } from '../../core/session/tool-activity.js';
import type { ProjectionStore } from '../projection/types.js';
import { recordDelegatedCall } from '../delegation/record-call.js';

/** The seats and quorum of a result as plain lines. */
export function councilResultLines(r: CouncilResult): string[] {
  return [
    `council ${r.runId}: ${r.status} (${r.code}) · ${r.quorum.valid} valid report${r.quorum.valid === 1 ? '' : 's'}, quorum ${r.quorum.needed}`,
    ...r.seats.map(
      (s) =>
        `seat ${s.index}/${s.of} ${s.agent}: ${s.status}${s.cancelRequested ? ' (cancel requested)' : ''}, report ${s.validity}` +
        `, ${s.attempts.length} attempt${s.attempts.length === 1 ? '' : 's'}, ${s.usage.requests} requests, ${s.usage.inputTokens} in / ${s.usage.outputTokens} out tokens`,
    ),
  ];
}

/** Builds the activity. */
export function createSettleCouncilCall(store: ProjectionStore) {
  return async function settleCouncilCall(input: SettleCouncilCallInput): Promise<ToolActivityResult> {
    const row = await store.getToolCall(input.sessionId, input.rowId);
    if (!row)
      throw ApplicationFailure.nonRetryable(`no tool call ${input.rowId} in ${input.sessionId}`, 'corrupt_state');
    const council = await store.getCouncil(input.runId);
    const r = input.result;
    const ok = r?.status === 'succeeded';
    const output = r
      ? [...councilResultLines(r), '', ok ? (council?.synthesis ?? '') : (r.message ?? '')].join('\n').trim()
      : `council ${input.runId} failed: ${input.failure?.code ?? 'council_failed'}: ${input.failure?.message ?? ''}`.trim();
    const errorCode = ok ? null : (r?.code ?? input.failure?.code ?? 'council_failed');
    const now = Date.now();
    return recordDelegatedCall(store, input.sessionId, input.rowId, {
      outcome: ok ? 'ok' : 'error',
      output,
      errorCode,
      data: { runId: input.runId, ...(r ? { council: { code: r.code, quorum: r.quorum, seats: r.seats } } : {}) },
      attempt: Context.current().info.attempt,
      startedAtMs: row.startedAtMs ?? now,
      endedAtMs: now,
      facts: {
        council: {
          runId: input.runId,
          status: r?.status ?? 'failed',
          valid: r?.quorum.valid ?? 0,
          needed: r?.quorum.needed ?? 0,
        },
        ...(ok ? {} : { failed: true }),
      },
    });
  };
}
