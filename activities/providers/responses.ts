/**
 * OpenAI Responses streaming adapter (PR4, PR5, PR6, PR8, PR9, PR10, PR11).
 *
 * One call = one HTTP request `POST {baseUrl}/responses` with `stream: true`
 * and `store: false`, read through the shared SSE transport
 * (`sse-transport.ts`) and assembled by {@link ResponsesStreamState} into a
 * provider-neutral {@link ModelResponse}. Every failure is a typed
 * {@link ProviderError}; the caller decides retries.
 */
import type { FinishReason } from '../../core/messages.js';
import { STATUS_OF_ERROR_CODE } from './errors.js';
import { normalizeFinishReason } from './finish-reason.js';
import { buildResponsesBody, responsesUrl } from './responses-request.js';
import { ResponsesStreamState } from './responses-stream.js';
import { openEventStream } from './sse-transport.js';
import type { ModelRequest, ModelResponse, ProviderConfig, StreamHandlers } from './types.js';

export {
  assistantItems,
  buildResponsesBody,
  ENCRYPTED_REASONING_INCLUDE,
  responsesUrl,
  toResponsesInput,
  toResponsesTools,
  type ResponsesInputItem,
  type ResponsesRequestBody,
  type ResponsesWireTool,
} from './responses-request.js';
export { SUMMARY_SEPARATOR } from './responses-stream.js';
export { mapResponsesUsage } from './responses-usage.js';

/** PR4 words for this surface's terminal marker, used in `upstream_stream_incomplete` reasons. */
const TERMINAL = 'response.completed or response.incomplete';

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The `{error:{…}}` payload handed to the transport's `streamError` for an
 * `error` event (`{error:{code,message}}` or flat `{code,message}`) or a
 * `response.failed` (`response.error`), with the status of a known code added.
 */
function streamErrorPayload(type: string, ev: Obj): { error: Obj } {
  let err: Obj;
  if (type === 'response.failed') {
    const r = isObject(ev.response) ? ev.response : {};
    err = isObject(r.error) ? { ...r.error } : { message: 'the response failed (no error details)' };
  } else {
    err = isObject(ev.error) ? { ...ev.error } : { code: ev.code, message: ev.message };
  }
  const code = typeof err.code === 'string' ? err.code : typeof err.type === 'string' ? err.type : undefined;
  if (err.status === undefined && code !== undefined && STATUS_OF_ERROR_CODE[code] !== undefined) {
    err.status = STATUS_OF_ERROR_CODE[code];
  }
  return { error: err };
}

/**
 * Stream one Responses request and assemble the answer.
 *
 * Wire: `POST {cfg.baseUrl}/responses` (query string of the base URL kept),
 * JSON body from {@link buildResponsesBody} (`store: false`, the history as
 * `input` items in order with original call ids and argument bytes, PR10;
 * reasoning capsules the PR8 policy let through, byte-for-byte, right before
 * the output they explain; `include: ["reasoning.encrypted_content"]` only
 * with `cfg.reasoningReplay === 'encrypted'`), `Accept: text/event-stream`,
 * `Authorization: Bearer <process.env[cfg.apiKeyEnv]>` when set. Timeouts
 * (PR5), ms: `cfg.headerTimeoutMs` until the headers, `cfg.chunkTimeoutMs` of
 * silence between body chunks.
 *
 * Assembly ({@link ResponsesStreamState}): text deltas and reasoning-summary
 * deltas go in order to `handlers.onTextDelta` / `onReasoningDelta`;
 * `handlers.onChunk` runs for every body chunk. `parts` follow the provider's
 * item order (PR9); final `.done` values win over the deltas. Each reasoning
 * item's `encrypted_content` (from `output_item.done`) becomes the part's
 * `providerReasoning` `{provider: cfg.id, model: req.model, surface:
 * 'responses', itemId, encryptedContent, summary, producedAtMs: Date.now()}`.
 * Usage from the terminal `response.usage` (cached tokens inside input;
 * unknown fields stay undefined). `requestId`: the `x-request-id` header,
 * else the response id.
 *
 * Finish: `response.completed` → `tool_calls` when calls were made, else
 * `stop`; `response.incomplete` → its `incomplete_details.reason` normalized
 * (`max_output_tokens` → `length`, `content_filter` → `content_filter`,
 * anything else or none → `other`). The iteration stops at the terminal event.
 *
 * @throws ProviderError everything `openEventStream` throws (HTTP status
 *   mapping with Retry-After, auth, timeouts, connection, non-SSE body), plus
 *   `upstream_stream_incomplete` (the stream ended or broke before
 *   `response.completed` / `response.incomplete`, PR4; retryable),
 *   `provider_protocol` (an event that is not a JSON object), an `error`
 *   event or `response.failed` typed by the status its code stands for
 *   (`rate_limit_exceeded`/`insufficient_quota` → `provider_rate_limited`,
 *   unknown codes → `provider_unavailable`; provider code and message in the
 *   diagnostic), and `content_filtered` (incomplete for `content_filter` with
 *   no text and no tool call: a terminal refusal, PR3). Diagnostics are
 *   bounded and redacted (PR6).
 * @throws the abort reason of `handlers.signal` (not a ProviderError) when it aborts.
 * Errors thrown by a handler callback propagate unchanged.
 */
export async function streamResponses(
  cfg: ProviderConfig,
  req: ModelRequest,
  handlers: StreamHandlers = {},
): Promise<ModelResponse> {
  const url = responsesUrl(cfg.baseUrl, cfg.id);
  const state = new ResponsesStreamState({ provider: cfg.id, model: req.model, now: () => Date.now() }, handlers);
  const stream = await openEventStream(
    cfg,
    {
      url,
      body: JSON.stringify(buildResponsesBody(cfg, req)),
      auth: 'bearer',
      terminal: TERMINAL,
      isComplete: () => state.complete,
    },
    handlers,
  );

  for await (const ev of stream) {
    if (ev.data.trim() === '') continue;
    const payload = stream.json(ev);
    const type = typeof payload.type === 'string' ? payload.type : (ev.event ?? '');
    if (type === 'error' || type === 'response.failed') {
      stream.noteRequestId(state.responseId);
      throw stream.streamError(streamErrorPayload(type, payload));
    }
    state.handle(type, payload);
    stream.noteRequestId(state.responseId);
    if (state.complete) break;
  }

  const { parts, text, reasoning, toolCalls } = state.result();
  const nameless = toolCalls.find((c) => c.name === '');
  if (nameless !== undefined) {
    throw stream.fail('provider_protocol', `function call ${nameless.callId} arrived without a name`, {
      code: 'nameless_tool_call',
    });
  }
  let finishReason: FinishReason;
  if (state.status === 'incomplete') {
    finishReason = state.incompleteReason !== undefined ? normalizeFinishReason(state.incompleteReason) : 'other';
  } else {
    finishReason = toolCalls.length > 0 ? 'tool_calls' : 'stop';
  }

  if (finishReason === 'content_filter' && text === '' && toolCalls.length === 0) {
    throw stream.fail(
      'content_filtered',
      'the provider filtered the answer (response incomplete: content_filter, no output)',
      { code: 'content_filter' },
    );
  }

  const response: ModelResponse = { parts, text, reasoning, toolCalls, finishReason };
  const usage = state.usage;
  if (usage !== undefined) response.usage = usage;
  const requestId = stream.headerRequestId ?? state.responseId;
  if (requestId !== undefined) response.requestId = requestId;
  return response;
}
