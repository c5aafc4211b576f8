/**
 * The `compactSession` activity (CP6–CP15; docs/compaction.md): summarizes
 * the older part of a session and publishes the summary once.
 *
 * 1. A summary already published under this compaction id is returned
 *    (`alreadyPublished`): a worker killed after publishing sends nothing again.
 * 2. The marker `context.compact` is written — its own write (CP13).
 * 3. The window (window.ts): from the current valid summary's boundary (or
 *    the start) before `input.at`, minus the retained zone.
 * 4. The summary request (summary-request.ts, send.ts) on the session's
 *    provider and model, no tools, bounded by `compaction.timeoutSeconds`.
 * 5. Only a normally finished, non-empty answer within
 *    `compaction.maxSummaryBytes` is published — the summary and its prompt
 *    record in ONE batch (CP11, CP13). Anything else writes
 *    `session.compaction.failed` and fails `compaction_failed`
 *    (non-retryable); the earlier valid summary stays valid.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { COMPACTION_DEFAULTS, type CompactInput, type CompactResult } from '../../../core/compaction/contract.js';
import { retainedTokensOf } from '../../../core/compaction/settings.js';
import { EV, type EventData } from '../../../core/events.js';
import { sha256Hex } from '../../../core/sha256.js';
import type { ProjectionStore, ProjectionWrite } from '../../projection/types.js';
import { compactionSegmentText } from './compacted-head.js';
import { currentSummary, publishedSummary, type ValidSummary } from './current.js';
import { rejectAnswer, sendSummaryRequest, type CompactControl, type Rejection } from './send.js';
import { buildSummaryRequest, type SummaryRequest } from './summary-request.js';
import { ESTIMATOR, estimateTokens } from './tokens.js';
import { planWindow, type WindowPlan } from './window.js';
import type { ModelResponse } from '../../providers/types.js';

export type { CompactControl } from './send.js';

/** Dependencies of the compactSession activity. */
export interface CompactSessionDeps {
  store: ProjectionStore;
}

/**
 * Builds the `compactSession` activity (SessionActivities.compactSession):
 * {@link runCompaction} with Temporal's attempt, cancellation and heartbeat.
 */
export function createCompactSession(deps: CompactSessionDeps) {
  return function compactSession(input: CompactInput): Promise<CompactResult> {
    const ctx = Context.current();
    return runCompaction(deps.store, input, {
      attempt: ctx.info.attempt,
      signal: ctx.cancellationSignal,
      heartbeat: () => ctx.heartbeat(),
    });
  };
}

/** The result of a stored summary event. */
function resultOf(d: EventData<typeof EV.compactionSummary>, alreadyPublished: boolean): CompactResult {
  return {
    compactionId: d.compactionId,
    boundary: d.boundary,
    beforeTokens: d.beforeTokens,
    afterTokens: d.afterTokens,
    summaryHash: d.summaryHash,
    estimator: d.estimator,
    alreadyPublished,
    ...(d.usage ? { usage: d.usage } : {}),
  };
}

/**
 * One compaction (see the module comment), with `ctl` in place of the
 * activity context (tests pass plain values).
 * @throws ApplicationFailure `compaction_failed` (non-retryable): nothing to compact, or no acceptable answer;
 *   a provider failure typed by its code (send.ts); `provider_config`.
 */
export async function runCompaction(
  store: ProjectionStore,
  input: CompactInput,
  ctl: CompactControl,
): Promise<CompactResult> {
  const { meta, compactionId } = input;
  const sessionId = meta.sessionId;
  const settings = meta.compaction ?? COMPACTION_DEFAULTS;
  const done = await publishedSummary(store, sessionId, compactionId);
  if (done) return resultOf(done.data, true);
  await store.appendEvent({
    id: `${compactionId}:marker:${ctl.attempt}`,
    sessionId,
    type: EV.contextCompact,
    data: {
      compactionId,
      trigger: input.trigger,
      recovery: input.recovery,
      turn: input.at.turn,
      step: input.at.step,
      ...(input.usedTokens !== undefined ? { usedTokens: input.usedTokens } : {}),
      ...(input.limitTokens !== undefined ? { limitTokens: input.limitTokens } : {}),
      attempt: ctl.attempt,
    },
    atMs: Date.now(),
  });
  const previous = await currentSummary(store, sessionId);
  const plan = await planWindow(store, sessionId, input.at, previous, retainedTokensOf(meta)).catch((err: unknown) =>
    recordFinalFailure(store, input, ctl.attempt, err),
  );
  const request = await buildSummaryRequest(store, meta, previous, plan);
  const sent = await sendSummaryRequest(meta, settings, request, ctl).catch((err: unknown) =>
    recordFinalFailure(store, input, ctl.attempt, err),
  );
  if ('rejected' in sent) return fail(store, input, ctl.attempt, sent.rejected);
  const rejected = rejectAnswer(sent.response, settings);
  if (rejected) return fail(store, input, ctl.attempt, rejected);
  return publish(store, input, { previous, plan, request, response: sent.response });
}

/** Records the failed attempt (the earlier valid summary stays) and throws `compaction_failed`. */
async function fail(store: ProjectionStore, input: CompactInput, attempt: number, why: Rejection): Promise<never> {
  const { sessionId } = input.meta;
  await store.appendEvent({
    id: `${input.compactionId}:failed:${attempt}`,
    sessionId,
    type: EV.compactionFailed,
    data: { compactionId: input.compactionId, attempt, code: why.code, message: why.message },
    atMs: Date.now(),
  });
  throw ApplicationFailure.create({
    type: 'compaction_failed',
    message: `compaction ${input.compactionId} published no summary: ${why.message}`,
    nonRetryable: true,
    details: [{ code: why.code }],
  });
}

/**
 * A send that failed for good (a non-retryable ApplicationFailure) is
 * recorded as `session.compaction.failed` with its type; then rethrown.
 * Retryable failures and cancellation pass unrecorded (the next attempt decides).
 */
async function recordFinalFailure(
  store: ProjectionStore,
  input: CompactInput,
  attempt: number,
  err: unknown,
): Promise<never> {
  if (err instanceof ApplicationFailure && err.nonRetryable) {
    await store.appendEvent({
      id: `${input.compactionId}:failed:${attempt}`,
      sessionId: input.meta.sessionId,
      type: EV.compactionFailed,
      data: { compactionId: input.compactionId, attempt, code: err.type ?? 'compaction_failed', message: err.message },
      atMs: Date.now(),
    });
  }
  throw err;
}

/** What a successful attempt publishes from. */
interface Published {
  previous: ValidSummary | null;
  plan: WindowPlan;
  request: SummaryRequest;
  response: ModelResponse;
}

/** Publishes the summary and its prompt record in ONE batch; returns the stored summary's result. */
async function publish(store: ProjectionStore, input: CompactInput, p: Published): Promise<CompactResult> {
  const { meta, compactionId } = input;
  const sessionId = meta.sessionId;
  const summary = p.response.text.trim();
  const summaryHash = sha256Hex(summary).slice(0, 16);
  const anchorTokens = p.plan.anchor ? estimateTokens(anchorText(p.plan)) : 0;
  const previousTokens = p.previous ? estimateTokens(compactionSegmentText(p.previous)) + anchorTokens : 0;
  const data: EventData<typeof EV.compactionSummary> = {
    compactionId,
    trigger: input.trigger,
    boundary: p.plan.boundary,
    summary,
    summaryHash,
    previous: p.previous?.compactionId ?? null,
    summarizedSteps: p.plan.summarizedSteps,
    summarizedUserMessages: p.plan.summarizedUserMessages,
    anchor: p.plan.anchor,
    beforeTokens: previousTokens + p.plan.windowTokens,
    afterTokens: 0,
    estimator: ESTIMATOR,
    usage: p.response.usage ?? null,
  };
  data.afterTokens =
    estimateTokens(compactionSegmentText({ ...data, anchor: data.anchor ?? null, seq: 0 })) +
    anchorTokens +
    p.plan.retainedTokens;
  const settings = meta.compaction ?? COMPACTION_DEFAULTS;
  const now = Date.now();
  const writes: ProjectionWrite[] = [
    { kind: 'event', event: { id: `${compactionId}:summary`, sessionId, type: EV.compactionSummary, data, atMs: now } },
    {
      kind: 'event',
      event: {
        id: `${compactionId}:prompt`,
        sessionId,
        type: EV.compactionPrompt,
        data: {
          compactionId,
          segments: p.request.segments,
          requestHash: sha256Hex(JSON.stringify(p.request.messages)),
          timeoutSeconds: settings.timeoutSeconds,
          maxSummaryBytes: settings.maxSummaryBytes,
          provider: meta.provider.id,
          model: meta.model,
        },
        atMs: now,
      },
    },
  ];
  await store.writeBatch(sessionId, writes);
  // Insert-if-absent: an attempt that published first under this id stands.
  const stored = await publishedSummary(store, sessionId, compactionId);
  return stored ? resultOf(stored.data, stored.data.summaryHash !== summaryHash) : resultOf(data, false);
}

/** The anchor's text, when the window read it (a first compaction); '' otherwise (then counted from the summary). */
function anchorText(plan: WindowPlan): string {
  const a = plan.anchor;
  if (!a) return '';
  for (const s of plan.summarized)
    for (const part of s.rows.parts)
      if (part.turn === a.turn && part.step === a.step && part.position === a.position) return part.text ?? '';
  return '';
}
