/**
 * `synthesizeCouncil` (DC25, DC27; SEED-GAP "the synthesis model and
 * prompt", decided in docs/council.md): ONE model request through the
 * provider adapters (`activities/session/provider-call.ts` `adapterFor`) on
 * the Council's own provider and model — system + one user message holding
 * the question and every valid seat report (re-read from the projection),
 * no tools, and never an encrypted reasoning capsule (`reasoningReplay`
 * forced `off`: no `include`, nothing replayed). The text is written to the
 * councils row; the activity returns its length and usage. A provider error
 * is an ApplicationFailure typed by its code, non-retryable unless the
 * provider says it may be retried (the workflow bounds the attempts by the
 * remaining synthesis reserve).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { SynthesizeCouncilInput, SynthesizeCouncilResult } from '../../core/council/contract.js';
import { SYNTHESIS_SYSTEM, synthesisPrompt, type SynthesisSeat } from '../../core/council/prompt.js';
import { parseSeatReport } from '../../core/council/report.js';
import { isProviderError } from '../providers/errors.js';
import type { ProjectionStore } from '../projection/types.js';
import { adapterFor } from '../session/provider-call.js';
import { finalTextOf } from './seat-report.js';

/** Interval between heartbeats while the synthesis streams, in ms. */
const HEARTBEAT_EVERY_MS = 2_000;

/** Builds the activity. */
export function createSynthesizeCouncil(store: ProjectionStore) {
  return async function synthesizeCouncil(input: SynthesizeCouncilInput): Promise<SynthesizeCouncilResult> {
    const ctx = Context.current();
    const stream = adapterFor(input.meta.provider.transport);
    if (!stream)
      throw ApplicationFailure.nonRetryable(
        `provider ${input.meta.provider.id} speaks ${input.meta.provider.transport}, which this build cannot`,
        'provider_config',
      );
    const seats: SynthesisSeat[] = [];
    for (const s of input.seats) {
      const parsed = parseSeatReport(await finalTextOf(store, s.childSessionId));
      // The workflow counted this seat valid from the same stored text: it cannot have changed.
      if (parsed.validity !== 'valid')
        throw ApplicationFailure.nonRetryable(`seat ${s.index} report no longer reads valid`, 'corrupt_state');
      seats.push({ index: s.index, agent: s.agent, report: parsed.report });
    }
    const prompt = synthesisPrompt({
      question: input.question,
      ...(input.diffRange ? { diffRange: input.diffRange } : {}),
      seats,
      missing: input.missing,
    });
    const beat = setInterval(() => ctx.heartbeat(), HEARTBEAT_EVERY_MS);
    let text: string;
    let usage: SynthesizeCouncilResult['usage'];
    try {
      const r = await stream(
        { ...input.meta.provider, reasoningReplay: 'off' },
        {
          model: input.meta.model,
          messages: [
            { role: 'system', text: SYNTHESIS_SYSTEM },
            { role: 'user', text: prompt },
          ],
          tools: [],
        },
        { signal: ctx.cancellationSignal },
      );
      text = r.text;
      usage = {
        requests: 1,
        inputTokens: r.usage?.inputTokens ?? 0,
        outputTokens: r.usage?.outputTokens ?? 0,
      };
    } catch (err) {
      if (isProviderError(err)) {
        const f = ApplicationFailure.create({
          message: err.message,
          type: err.code,
          nonRetryable: !err.retryable,
          ...(err.retryAfterMs !== undefined ? { nextRetryDelay: err.retryAfterMs } : {}),
        });
        throw f;
      }
      throw err;
    } finally {
      clearInterval(beat);
    }
    if (text.trim() === '')
      throw ApplicationFailure.nonRetryable('the synthesis request answered with no text', 'council_synthesis_empty');
    const row = await store.getCouncil(input.runId);
    if (!row) throw ApplicationFailure.nonRetryable(`no council row ${input.runId}`, 'corrupt_state');
    await store.upsertCouncil({ ...row, synthesis: text, updatedAtMs: Date.now() });
    return { chars: text.length, usage };
  };
}
