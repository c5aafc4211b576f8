/**
 * OpenAI-style JSON error bodies (`{error:{message,type,param,code}}`) of the
 * local provider, and the credential and error members both OpenAI surfaces
 * (Chat Completions, Responses) share.
 */
import type { SurfaceCodec } from './surface.js';

const STATUS_DEFAULTS: Record<number, { type: string; code: string; message: string }> = {
  400: { type: 'invalid_request_error', code: 'invalid_request', message: 'Invalid request (scripted fault).' },
  401: {
    type: 'invalid_request_error',
    code: 'invalid_api_key',
    message: 'Incorrect API key provided (scripted fault).',
  },
  403: { type: 'invalid_request_error', code: 'forbidden', message: 'Forbidden (scripted fault).' },
  404: {
    type: 'invalid_request_error',
    code: 'model_not_found',
    message: 'The model does not exist (scripted fault).',
  },
  422: { type: 'invalid_request_error', code: 'unprocessable', message: 'Unprocessable request (scripted fault).' },
  429: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'Rate limit reached (scripted fault).' },
  500: { type: 'server_error', code: 'server_error', message: 'The server had an error (scripted fault).' },
  502: { type: 'server_error', code: 'bad_gateway', message: 'Bad gateway (scripted fault).' },
  503: { type: 'server_error', code: 'overloaded', message: 'The engine is overloaded (scripted fault).' },
};

/**
 * An OpenAI-style error body for `status`: per-status default type, code and
 * message (e.g. 429 `rate_limit_error`/`rate_limit_exceeded`), `message` and
 * `code` overriding them; `param` is always null.
 */
export function openAiErrorBody(status: number, message?: string, code?: string): string {
  const d = STATUS_DEFAULTS[status] ?? {
    type: status >= 500 ? 'server_error' : 'invalid_request_error',
    code: `http_${status}`,
    message: `HTTP ${status} (scripted fault).`,
  };
  return JSON.stringify({ error: { message: message ?? d.message, type: d.type, param: null, code: code ?? d.code } });
}

/** The credential of an `Authorization: Bearer …` header (`''` when absent), for comparison and echo. */
export function bearerOf(authorization: string | undefined): string {
  return (authorization ?? '').replace(/^Bearer\s+/i, '');
}

/**
 * The members the OpenAI surfaces (Chat Completions, Responses) share: the
 * `x-request-id` header, the `Authorization: Bearer` credential and OpenAI's
 * 401 message echoing it, {@link openAiErrorBody} bodies, and `stream: true`
 * asking for a stream.
 */
export const openAiSurfaceCommon: Pick<
  SurfaceCodec,
  'requestIdHeader' | 'wrongKey' | 'wrongKeyMessage' | 'errorBody' | 'wantsStream'
> = {
  requestIdHeader: 'x-request-id',
  wrongKey(headers, apiKey) {
    return headers.authorization === `Bearer ${apiKey}` ? undefined : bearerOf(headers.authorization);
  },
  wrongKeyMessage: (given) => `Incorrect API key provided: ${given === '' ? '(none)' : given}.`,
  errorBody: (status, _rid, message, code) => openAiErrorBody(status, message, code),
  wantsStream: (body) => body.stream === true,
};
