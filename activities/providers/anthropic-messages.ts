/**
 * Anthropic Messages streaming adapter (PR3, PR4, PR5, PR6, PR8, PR9, PR11).
 *
 * One call = one HTTP request `POST {baseUrl}/messages` with `stream: true`,
 * read through the shared SSE transport (`sse-transport.ts`) and assembled
 * by {@link AnthropicStreamState} into a provider-neutral {@link ModelResponse}.
 * Every failure is a typed {@link ProviderError}; the caller decides retries.
 */
import { anthropicError } from './anthropic-errors.js';
import { anthropicHttpRequest } from './anthropic-request.js';
import { AnthropicStreamState } from './anthropic-stream.js';
import { openEventStream } from './sse-transport.js';
import type { ModelRequest, ModelResponse, ProviderConfig, StreamHandlers } from './types.js';

export {
  ANSWER_TOKENS_BESIDE_THINKING,
  ANTHROPIC_VERSION,
  DEFAULT_MAX_TOKENS,
  anthropicMessagesUrl,
  buildAnthropicBody,
  toAnthropicMessages,
  toAnthropicTools,
  toolInput,
  type AnthropicRequestBody,
  type AnthropicWireBlock,
  type AnthropicWireMessage,
  type AnthropicWireTool,
} from './anthropic-request.js';
export { codeForAnthropicErrorType } from './anthropic-errors.js';

/** PR4 words for this surface's terminal marker, used in `upstream_stream_incomplete` reasons. */
const TERMINAL = 'message_stop';

/**
 * Stream one Anthropic Messages request and assemble the answer.
 *
 * Wire: `POST {cfg.baseUrl}/messages` (query string of the base URL kept),
 * JSON body from `buildAnthropicBody` (`model`, `max_tokens` 8192, `system`,
 * alternating `messages` with thinking / redacted_thinking capsules replayed
 * unchanged and in order, `tools`, `stream: true`), headers `Accept:
 * text/event-stream`, `anthropic-version: 2023-06-01` and `x-api-key:
 * <process.env[cfg.apiKeyEnv]>` when `cfg.apiKeyEnv` is set. Timeouts (PR5,
 * ms): `cfg.headerTimeoutMs` until the response headers, `cfg.chunkTimeoutMs`
 * of silence between body chunks.
 *
 * Assembly ({@link AnthropicStreamState}): `text_delta` / `thinking_delta`
 * are forwarded in order to `handlers.onTextDelta` / `onReasoningDelta`;
 * `handlers.onChunk` runs for every body chunk (heartbeat). `parts` are the
 * content blocks in provider order (PR9): thinking → reasoning with
 * `providerReasoning` {provider: cfg.id, model: req.model (after a
 * `fallback` block: the model it names), surface 'anthropic-messages',
 * signature | redactedData, producedAtMs}; text; tool_use → a tool call whose
 * `argsJson` is the provider's `partial_json` bytes. `finishReason` from
 * `stop_reason` (end_turn/stop_sequence → stop, tool_use → tool_calls,
 * max_tokens → length, refusal → content_filter). Usage (PR11): `inputTokens`
 * = input_tokens + cache_read + cache_creation, `cachedInputTokens` = cache
 * read, `cacheWriteInputTokens` = cache creation, `outputTokens` = the final
 * `message_delta` count, `reasoningTokens` = thinking_tokens; unknown stays
 * undefined. `requestId`: the `request-id` header, else the message id.
 *
 * PR4: the stream ended properly iff `message_stop` arrived (events after it
 * are not read); a stream that ends or breaks before it is
 * `upstream_stream_incomplete`, even after `message_delta`.
 *
 * @throws ProviderError
 *   `provider_auth` (401/403, `authentication_error`/`permission_error` event, or
 *   `cfg.apiKeyEnv` set but the variable unset/empty),
 *   `provider_bad_request` (400/404/413/422 and other 4xx, an `invalid_request_error`
 *   event, invalid base URL; never retried),
 *   `provider_rate_limited` (429 with `retryAfterMs` from `Retry-After`, a `rate_limit_error` event),
 *   `provider_unavailable` (5xx incl. 529 overloaded, 409, an `overloaded_error` /
 *   `api_error` / unknown error event; retryable),
 *   `provider_timeout` (header or chunk deadline, 408, a `timeout_error` event),
 *   `provider_connection` (refused/reset/DNS before a response),
 *   `upstream_stream_incomplete` (PR4), `provider_protocol` (non-SSE success body,
 *   unparseable event JSON, oversize event),
 *   `content_filtered` (`stop_reason: refusal` with no text and no tool call; PR3
 *   terminal refusal, diagnostic code `refusal`, reason with `stop_details`).
 *   Diagnostics are bounded and redacted (PR6); the Anthropic error type is the diagnostic code.
 * @throws the abort reason of `handlers.signal` (not a ProviderError) when it aborts.
 * Errors thrown by a handler callback propagate unchanged.
 */
export async function streamAnthropicMessages(
  cfg: ProviderConfig,
  req: ModelRequest,
  handlers: StreamHandlers = {},
): Promise<ModelResponse> {
  const state = new AnthropicStreamState({ provider: cfg.id, model: req.model }, handlers);
  const stream = await openEventStream(
    cfg,
    {
      ...anthropicHttpRequest(cfg, req, true),
      terminal: TERMINAL,
      isComplete: () => state.complete,
    },
    handlers,
  );

  for await (const ev of stream) {
    if (ev.data.trim() === '') continue;
    const event = stream.json(ev);
    const type = typeof event.type === 'string' ? event.type : ev.event;
    if (type === 'error') throw anthropicError(event, stream.fail.bind(stream), 'error inside the stream');
    state.handle(type === event.type ? event : { ...event, type });
    stream.noteRequestId(state.messageId);
    if (state.complete) break;
  }

  const refusal = state.emptyRefusal();
  if (refusal !== undefined) throw stream.fail('content_filtered', refusal.reason, { code: refusal.code });
  return state.response(stream.headerRequestId);
}
