/**
 * Non-streaming Anthropic Messages request (`stream: false`): the same body,
 * headers, typed errors and assembly as the streaming adapter, for one-shot
 * calls and servers that answer with a whole `message` object.
 */
import { anthropicError } from './anthropic-errors.js';
import { anthropicHttpRequest } from './anthropic-request.js';
import { AnthropicStreamState } from './anthropic-stream.js';
import { urlSecrets } from './endpoint.js';
import type { ProviderErrorCode } from '../../core/provider-error-codes.js';
import { providerFailure, type FailureContext, type FailureExtra } from './failure.js';
import { requestJson } from './json-transport.js';
import type { ModelRequest, ModelResponse, ProviderConfig, StreamHandlers } from './types.js';

/**
 * Send one Messages request with `stream: false` and assemble the returned
 * `message` exactly as `streamAnthropicMessages` assembles a stream
 * (parts in block order with capsules, finish reason, PR11 usage,
 * `requestId` = `request-id` header ?? message id). `handlers.onTextDelta` /
 * `onReasoningDelta` get each block's whole text once.
 *
 * @throws ProviderError as `requestJson` (auth, HTTP status mapping, PR5
 *   deadlines, `provider_protocol` for a body that is not a JSON object); a
 *   200 body `{type:'error', error:{type, message}}` typed by its error type
 *   (`codeForAnthropicErrorType`); `provider_protocol` (`not_a_message`) for
 *   any other body that is not `{type:'message'}`; `content_filtered` for a
 *   refusal with no output.
 * @throws the abort reason of `handlers.signal` when it aborts.
 */
export async function completeAnthropicMessage(
  cfg: ProviderConfig,
  req: ModelRequest,
  handlers: StreamHandlers = {},
): Promise<ModelResponse> {
  const http = anthropicHttpRequest(cfg, req, false);
  const { url } = http;
  const res = await requestJson(cfg, http, handlers);
  const key = cfg.apiKeyEnv !== undefined && cfg.apiKeyEnv !== '' ? process.env[cfg.apiKeyEnv] : undefined;
  const ctx: FailureContext = {
    providerId: cfg.id,
    host: url.host,
    secrets: [...urlSecrets(url), ...(key !== undefined && key.trim() !== '' ? [key, key.trim()] : [])],
    status: res.status,
  };
  const id = res.headerRequestId ?? (typeof res.body.id === 'string' ? res.body.id : undefined);
  if (id !== undefined && id !== '') ctx.requestId = id;
  const fail = (code: ProviderErrorCode, reason: string, extra?: FailureExtra) =>
    providerFailure(code, ctx, reason, extra);

  if (res.body.type === 'error') throw anthropicError(res.body, fail, 'error body with a success status');
  if (res.body.type !== 'message') {
    throw fail('provider_protocol', 'response body is not an Anthropic message', { code: 'not_a_message' });
  }
  const state = new AnthropicStreamState({ provider: cfg.id, model: req.model }, handlers);
  state.foldMessage(res.body);
  const refusal = state.emptyRefusal();
  if (refusal !== undefined) throw fail('content_filtered', refusal.reason, { code: refusal.code });
  return state.response(res.headerRequestId);
}
