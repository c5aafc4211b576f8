/**
 * Sending the summary request and judging its answer (CP12): the session's
 * own provider adapter and model, no tools, aborted after
 * `compaction.timeoutSeconds`, heartbeating while it streams. Only a
 * normally finished (`stop`), non-empty answer with no tool operation and
 * within `compaction.maxSummaryBytes` becomes a summary.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { CompactionSettings } from '../../../core/compaction/contract.js';
import type { SessionMeta } from '../../../core/session/meta.js';
import { utf8ByteLength } from '../../../core/utf8.js';
import { isProviderError } from '../../providers/errors.js';
import type { ModelResponse } from '../../providers/types.js';
import { adapterFor } from '../provider-call.js';
import type { SummaryRequest } from './summary-request.js';

/** Interval between heartbeats while the summary streams, ms. */
const HEARTBEAT_EVERY_MS = 2_000;

/** What the activity hands the send: Temporal's attempt, cancellation and heartbeat (plain values in tests). */
export interface CompactControl {
  /** Temporal attempt of the activity, from 1. */
  attempt: number;
  /** The activity's cancellation (the owning turn's interrupt, CP12). */
  signal?: AbortSignal;
  heartbeat(): void;
}

/** Why an answer is not a summary (`session.compaction.failed` `code`). */
export type Rejection = { code: string; message: string };

/** The outcome of one send: an answer, or why it published nothing. */
export type SendOutcome = { response: ModelResponse } | { rejected: Rejection };

/**
 * A provider failure of the summary request as Temporal sees it: typed by
 * the ProviderError code; retryable ones retry (Retry-After honoured as
 * `nextRetryDelay`), the rest do not. A context-limit error of the summary
 * request itself is `compaction_failed` (compacting again would not help).
 * Other errors pass unchanged.
 */
export function summaryProviderFailure(err: unknown): unknown {
  if (!isProviderError(err)) return err;
  if (err.code === 'provider_context_limit') {
    // Not the main request's limit: compacting again would not shrink this request.
    return ApplicationFailure.create({
      type: 'compaction_failed',
      message: `the compaction summary request itself exceeds the model's context window: ${err.message}`,
      nonRetryable: true,
      details: [{ code: 'provider_context_limit', ...err.contextLimit }],
    });
  }
  return ApplicationFailure.create({
    type: err.code,
    message: `compaction summary request: ${err.message}`,
    nonRetryable: !err.retryable,
    details: [err.diagnostic],
    ...(err.retryable && err.retryAfterMs !== undefined ? { nextRetryDelay: err.retryAfterMs } : {}),
  });
}

/**
 * Sends `request` (see the module comment). Returns the answer, or a
 * rejection `timeout` when the deadline passed.
 * @throws ApplicationFailure `provider_config` for a surface this build cannot speak;
 *   a provider failure as {@link summaryProviderFailure}; the cancellation's reason.
 */
export async function sendSummaryRequest(
  meta: SessionMeta,
  settings: CompactionSettings,
  request: SummaryRequest,
  ctl: CompactControl,
): Promise<SendOutcome> {
  const stream = adapterFor(meta.provider.transport);
  if (!stream) {
    throw ApplicationFailure.nonRetryable(
      `provider ${meta.provider.id} resolves to the ${meta.provider.transport} surface, which this build cannot speak`,
      'provider_config',
    );
  }
  const abort = new AbortController();
  let timedOut = false;
  const onCancel = () => abort.abort(ctl.signal?.reason);
  ctl.signal?.addEventListener('abort', onCancel, { once: true });
  const deadline = setTimeout(() => {
    timedOut = true;
    abort.abort(new Error('compaction timeout'));
  }, settings.timeoutSeconds * 1000);
  const beat = setInterval(() => ctl.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    const response = await stream(
      meta.provider,
      { model: meta.model, messages: request.messages, tools: [] },
      { signal: abort.signal, onChunk: () => undefined },
    );
    return { response };
  } catch (err) {
    if (timedOut && !ctl.signal?.aborted) {
      return {
        rejected: {
          code: 'timeout',
          message: `no complete summary within zuno.json compaction.timeout_seconds (${settings.timeoutSeconds} s)`,
        },
      };
    }
    throw summaryProviderFailure(err);
  } finally {
    clearTimeout(deadline);
    clearInterval(beat);
    ctl.signal?.removeEventListener('abort', onCancel);
  }
}

/** Why `response` is not a summary, or undefined when it is one (CP12). */
export function rejectAnswer(response: ModelResponse, settings: CompactionSettings): Rejection | undefined {
  if (response.finishReason !== 'stop')
    return {
      code: `finish_${response.finishReason}`,
      message: `the summary answer ended with ${response.finishReason}, not stop`,
    };
  if (response.toolCalls.length > 0 || response.parts.some((p) => p.kind === 'tool_call'))
    return { code: 'tool_operation', message: 'the summary answer asked for a tool call' };
  if (response.text.trim() === '') return { code: 'empty', message: 'the summary answer has no text' };
  const bytes = utf8ByteLength(response.text);
  if (bytes > settings.maxSummaryBytes)
    return {
      code: 'too_large',
      message: `the summary is ${bytes} bytes, over zuno.json compaction.max_summary_bytes (${settings.maxSummaryBytes})`,
    };
  return undefined;
}
