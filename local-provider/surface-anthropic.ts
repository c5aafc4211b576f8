/**
 * Anthropic Messages on the local provider: `POST …/messages` (needs an
 * `anthropic-version` header and `max_tokens`, as the real API does), SSE
 * with an `event: <type>` line before each `data:` line: `message_start`,
 * `ping`, `content_block_start` / `content_block_delta` / `content_block_stop`
 * per block, `message_delta` (stop_reason + usage), `message_stop`.
 * Shapes follow the recorded streams in `peer-cases/provider-streams/anthropic-messages/`.
 */
import type { ScriptUsage } from './script.js';
import { jsonEvent, type RenderCtx, type RenderedStream, type SurfaceCodec, type WireEvent } from './surface.js';
import { splitDeltas, turnUsage, type ScriptedTurn } from './turn.js';

/** Error `type` per HTTP status (the Anthropic error body has a type, no code). */
const ERROR_TYPES: Record<number, { type: string; message: string }> = {
  400: { type: 'invalid_request_error', message: 'Invalid request (scripted fault).' },
  401: { type: 'authentication_error', message: 'invalid x-api-key (scripted fault)' },
  403: { type: 'permission_error', message: 'Forbidden (scripted fault).' },
  404: { type: 'not_found_error', message: 'Not found (scripted fault).' },
  413: { type: 'request_too_large', message: 'Request exceeds the maximum allowed size (scripted fault).' },
  429: { type: 'rate_limit_error', message: 'Rate limit reached (scripted fault).' },
  500: { type: 'api_error', message: 'Internal server error (scripted fault).' },
  529: { type: 'overloaded_error', message: 'Overloaded (scripted fault).' },
};

/** An Anthropic error body `{type:'error', error:{type, message}, request_id}`; `code` overrides the type. */
export function anthropicErrorBody(status: number, requestId: string, message?: string, code?: string): string {
  const d = ERROR_TYPES[status] ?? {
    type: status >= 500 ? 'api_error' : 'invalid_request_error',
    message: `HTTP ${status} (scripted fault).`,
  };
  return JSON.stringify({
    type: 'error',
    error: { type: code ?? d.type, message: message ?? d.message },
    request_id: requestId,
  });
}

/** `stop_reason` for a Chat-vocabulary finish reason; other strings pass unchanged. */
export function stopReason(finish: string | null): string | null {
  switch (finish) {
    case 'stop':
      return 'end_turn';
    case 'tool_calls':
      return 'tool_use';
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'refusal';
    default:
      return finish;
  }
}

/** Input-side usage fields (sent in `message_start` and again in `message_delta`). */
function inputUsage(u: ScriptUsage): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (u.inputTokens !== undefined) out.input_tokens = u.inputTokens;
  if (u.cacheWriteInputTokens !== undefined) out.cache_creation_input_tokens = u.cacheWriteInputTokens;
  if (u.cachedInputTokens !== undefined) out.cache_read_input_tokens = u.cachedInputTokens;
  return out;
}

/** The full usage object (non-streaming body, `message_delta`); `totalTokens` is not an Anthropic field. */
export function anthropicUsage(u: ScriptUsage): Record<string, unknown> {
  const out = inputUsage(u);
  if (u.outputTokens !== undefined) out.output_tokens = u.outputTokens;
  if (u.reasoningTokens !== undefined) out.output_tokens_details = { thinking_tokens: u.reasoningTokens };
  return out;
}

/** Characters of what the surface counts as input: messages, system text and the offered tools' schemas. */
function promptChars(body: Record<string, unknown>): number {
  return (
    JSON.stringify(body.tools ?? []).length +
    JSON.stringify(body.messages ?? '').length +
    JSON.stringify(body.system ?? '').length
  );
}

function defaultSignature(c: RenderCtx, i: number): string {
  return `sig_local_${c.n}_${i}_${Buffer.from(`zuno local thinking ${c.replyIndex}/${i}`).toString('base64')}`;
}

/** The finished content blocks of a turn, in order. */
function blocks(turn: ScriptedTurn, c: RenderCtx): Record<string, unknown>[] {
  return turn.items.map((item, i) => {
    switch (item.kind) {
      case 'reasoning':
        return { type: 'thinking', thinking: item.text, signature: item.capsule ?? defaultSignature(c, i) };
      case 'redacted_reasoning':
        return { type: 'redacted_thinking', data: item.data };
      case 'text':
        return { type: 'text', text: item.text };
      case 'tool_call': {
        let input: unknown = {};
        try {
          input = item.args === '' ? {} : (JSON.parse(item.args) as unknown);
        } catch {
          input = {};
        }
        return { type: 'tool_use', id: item.id, name: item.name, input };
      }
    }
  });
}

function message(c: RenderCtx, content: Record<string, unknown>[], stop: string | null): Record<string, unknown> {
  return {
    id: `msg_local_${c.n}`,
    type: 'message',
    role: 'assistant',
    model: c.model,
    content,
    stop_reason: stop,
    stop_sequence: null,
  };
}

function render(turn: ScriptedTurn, c: RenderCtx): RenderedStream {
  const ev = (obj: Record<string, unknown>): WireEvent => jsonEvent(obj, true);
  const usage = turnUsage(turn, promptChars(c.body));
  const start = message(c, [], null);
  if (usage !== null) start.usage = inputUsage(usage);
  const content: WireEvent[] = [ev({ type: 'message_start', message: start }), ev({ type: 'ping' })];
  turn.items.forEach((item, index) => {
    const delta = (d: Record<string, unknown>): WireEvent => ev({ type: 'content_block_delta', index, delta: d });
    if (item.kind === 'reasoning') {
      content.push(
        ev({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }),
      );
      for (const piece of splitDeltas(item.text)) content.push(delta({ type: 'thinking_delta', thinking: piece }));
      content.push(delta({ type: 'signature_delta', signature: item.capsule ?? defaultSignature(c, index) }));
    } else if (item.kind === 'redacted_reasoning') {
      content.push(
        ev({ type: 'content_block_start', index, content_block: { type: 'redacted_thinking', data: item.data } }),
      );
    } else if (item.kind === 'text') {
      content.push(ev({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
      for (const piece of splitDeltas(item.text)) content.push(delta({ type: 'text_delta', text: piece }));
    } else {
      content.push(
        ev({
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: item.id, name: item.name, input: {} },
        }),
      );
      // The real API opens every tool input with an empty partial_json.
      content.push(delta({ type: 'input_json_delta', partial_json: '' }));
      for (const piece of item.pieces) {
        if (piece !== '') content.push(delta({ type: 'input_json_delta', partial_json: piece }));
      }
    }
    content.push(ev({ type: 'content_block_stop', index }));
  });
  const messageDelta: Record<string, unknown> = {
    type: 'message_delta',
    delta: { stop_reason: stopReason(turn.finish), stop_sequence: null },
  };
  if (usage !== null) messageDelta.usage = anthropicUsage(usage);
  const terminal: WireEvent[] = [ev(messageDelta)];
  if (turn.done) terminal.push(ev({ type: 'message_stop' }));
  return { content, terminal };
}

/** The Anthropic Messages surface. */
export const anthropicSurface: SurfaceCodec = {
  surface: 'anthropic-messages',
  route: '/messages',
  requestIdHeader: 'request-id',
  validate(body, headers) {
    if (typeof headers['anthropic-version'] !== 'string' || headers['anthropic-version'] === '') {
      return { status: 400, message: 'anthropic-version: header is required', code: 'invalid_request_error' };
    }
    if (typeof body.model !== 'string' || !Array.isArray(body.messages)) {
      return {
        status: 400,
        message: "The request needs a string 'model' and an array 'messages'.",
        code: 'invalid_request_error',
      };
    }
    if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) {
      return { status: 400, message: 'max_tokens: Field required', code: 'invalid_request_error' };
    }
    return undefined;
  },
  wrongKey(headers, apiKey) {
    const given = headers['x-api-key'];
    const key = typeof given === 'string' ? given : '';
    return key === apiKey ? undefined : key;
  },
  wrongKeyMessage: (given) => `invalid x-api-key: ${given === '' ? '(none)' : given}`,
  errorBody: anthropicErrorBody,
  wantsStream: (body) => body.stream === true,
  promptChars,
  render,
  json(turn, c) {
    const out = message(c, blocks(turn, c), stopReason(turn.finish));
    const usage = turnUsage(turn, promptChars(c.body));
    if (usage !== null) out.usage = anthropicUsage(usage);
    return out;
  },
  replayEvent: (ev) => (ev.type !== undefined ? { event: ev.type, data: ev.data } : { data: ev.data }),
  replayClosing: () => [],
  streamError(_c, _sent, message, code) {
    return [
      jsonEvent(
        {
          type: 'error',
          error: { type: code ?? 'overloaded_error', message: message ?? 'Overloaded (scripted fault).' },
        },
        true,
      ),
    ];
  },
  malformed: () =>
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"\n\n',
};
