/**
 * OpenAI-compatible Chat Completions streaming adapter (PR4, PR5, PR6, PR9, PR11).
 *
 * One call = one HTTP request `POST {baseUrl}/chat/completions` with
 * `stream: true` and `stream_options.include_usage: true`, read through the
 * shared SSE transport (`sse-transport.ts`) and assembled by
 * {@link ChatStreamState} into a provider-neutral {@link ModelResponse}.
 * Every failure is a typed {@link ProviderError}; the caller decides retries.
 */
import type { FinishReason } from '../../core/messages.js';
import { buildChatCompletionBody, chatCompletionsUrl } from './chat-request.js';
import { ChatStreamState } from './chat-stream.js';
import { normalizeFinishReason } from './finish-reason.js';
import { openEventStream } from './sse-transport.js';
import type { ModelRequest, ModelResponse, ProviderConfig, StreamHandlers } from './types.js';

export {
  buildChatCompletionBody,
  chatCompletionsUrl,
  toChatMessages,
  toChatTools,
  type ChatCompletionRequestBody,
  type ChatWireMessage,
  type ChatWireTool,
} from './chat-request.js';
export { mapWireUsage } from './chat-stream.js';
export { normalizeFinishReason } from './finish-reason.js';
export { ERROR_BODY_LIMIT_BYTES } from './http-request.js';
export { MAX_EVENT_CHARS } from './sse-transport.js';

/** PR4 words for this surface's terminal marker, used in `upstream_stream_incomplete` reasons. */
const TERMINAL = 'finish_reason or [DONE]';

/**
 * Stream one Chat Completions request and assemble the answer.
 *
 * Wire: `POST {cfg.baseUrl}/chat/completions` (query string of the base URL
 * kept), JSON body from {@link buildChatCompletionBody}, `Accept:
 * text/event-stream`, `Authorization: Bearer <process.env[cfg.apiKeyEnv]>` when
 * `cfg.apiKeyEnv` is set. Timeouts (PR5), both in ms: `cfg.headerTimeoutMs`
 * (default 330 000) until the response headers arrive, `cfg.chunkTimeoutMs`
 * (default 120 000) of silence allowed between body chunks.
 *
 * Assembly ({@link ChatStreamState}): text deltas (`delta.content`) and
 * reasoning deltas (`delta.reasoning_content`, else `delta.reasoning`) are
 * forwarded in order to `handlers.onTextDelta` / `onReasoningDelta`;
 * `handlers.onChunk` runs for every body chunk (heartbeat). `parts` follow
 * the stream (PR9): a part starts where its first delta arrived (reasoning,
 * text, each tool call as it started), and `text` / `reasoning` /
 * `toolCalls` are views of it. Tool calls are accumulated by `index`
 * (parallel calls may interleave; arguments are the raw text the model
 * produced — malformed JSON kept verbatim); a call without an id gets
 * `call_<index>`. `finish_reason` is normalized ({@link normalizeFinishReason});
 * usage comes from the last `usage` object seen (the final chunk with
 * `include_usage`; mapped by `mapWireUsage`, unknown fields stay undefined);
 * `requestId` is the `x-request-id` header, else the first chunk `id`.
 *
 * PR4: the stream ended properly iff a `finish_reason` or `data: [DONE]`
 * arrived (with only `[DONE]`, finishReason is `tool_calls` if tool calls were
 * streamed, else `stop`). A stream that ends or breaks without either is
 * `upstream_stream_incomplete`; one that breaks after `finish_reason` is
 * returned as is (usage may then be missing).
 *
 * @throws ProviderError
 *   `provider_auth` (401/403, or `cfg.apiKeyEnv` set but the variable unset/empty),
 *   `provider_bad_request` (400/404/422/other 4xx, invalid base URL),
 *   `provider_rate_limited` (429, `retryAfterMs` from `Retry-After`/`retry-after-ms`),
 *   `provider_unavailable` (5xx/409, or an `error` object inside the stream),
 *   `provider_timeout` (header or chunk timeout, HTTP 408),
 *   `provider_connection` (refused/reset/DNS/connect timeout before a response),
 *   `upstream_stream_incomplete` (PR4), `provider_protocol` (non-SSE success body,
 *   unparseable chunk JSON, oversize event), `content_filtered`
 *   (`finish_reason: content_filter` with no text and no tool calls).
 *   Diagnostics are bounded and redacted (PR6).
 * @throws the abort reason of `handlers.signal` (not a ProviderError) when it aborts.
 * Errors thrown by a handler callback propagate unchanged.
 */
export async function streamChatCompletion(
  cfg: ProviderConfig,
  req: ModelRequest,
  handlers: StreamHandlers = {},
): Promise<ModelResponse> {
  const url = chatCompletionsUrl(cfg.baseUrl, cfg.id);
  const state = new ChatStreamState(handlers);
  const stream = await openEventStream(
    cfg,
    {
      url,
      body: JSON.stringify(buildChatCompletionBody(req)),
      auth: 'bearer',
      terminal: TERMINAL,
      isComplete: () => state.complete,
    },
    handlers,
  );

  for await (const ev of stream) {
    const data = ev.data.trim();
    if (data === '[DONE]') {
      state.sawDone = true;
      break;
    }
    if (data === '') continue;
    const chunk = stream.json(ev);
    if (ev.event === 'error' || (chunk.error !== undefined && chunk.error !== null)) {
      throw stream.streamError(ev.event === 'error' && chunk.error === undefined ? { error: chunk } : chunk);
    }
    state.handle(chunk);
    if (state.protocolProblem !== undefined) {
      throw stream.fail('provider_protocol', `not a Chat Completions stream: ${state.protocolProblem}`, {
        code: 'unexpected_chunk',
      });
    }
    stream.noteRequestId(state.chunkId);
  }

  const { parts, text, reasoning, toolCalls } = state.result();
  const nameless = toolCalls.find((c) => c.name === '');
  if (nameless !== undefined) {
    throw stream.fail('provider_protocol', `tool call ${nameless.callId} arrived without a function name`, {
      code: 'nameless_tool_call',
    });
  }
  const finishReason: FinishReason =
    state.finishRaw !== undefined
      ? normalizeFinishReason(state.finishRaw)
      : toolCalls.length > 0
        ? 'tool_calls'
        : 'stop';

  if (finishReason === 'content_filter' && text === '' && toolCalls.length === 0) {
    throw stream.fail(
      'content_filtered',
      'the provider filtered the answer (finish_reason content_filter, no output)',
      {
        code: 'content_filter',
      },
    );
  }

  const response: ModelResponse = { parts, text, reasoning, toolCalls, finishReason };
  const usage = state.usage;
  if (usage !== undefined) response.usage = usage;
  const requestId = stream.headerRequestId ?? state.chunkId;
  if (requestId !== undefined) response.requestId = requestId;
  return response;
}
