/**
 * OpenAI Chat Completions on the local provider: `POST …/chat/completions`,
 * SSE `chat.completion.chunk` objects (`data:` lines only) ending in
 * `data: [DONE]`.
 */
import { openAiSurfaceCommon } from './openai-errors.js';
import type { ScriptUsage } from './script.js';
import { jsonEvent, type RenderCtx, type RenderedStream, type SurfaceCodec, type WireEvent } from './surface.js';
import { splitDeltas, turnUsage, type ScriptedTurn, type TurnItem } from './turn.js';

/** Wire `usage` of a chat completion (only the given fields). */
export function chatUsage(u: ScriptUsage): Record<string, unknown> {
  const usage: Record<string, unknown> = {};
  if (u.inputTokens !== undefined) usage.prompt_tokens = u.inputTokens;
  if (u.outputTokens !== undefined) usage.completion_tokens = u.outputTokens;
  if (u.totalTokens !== undefined) usage.total_tokens = u.totalTokens;
  if (u.cachedInputTokens !== undefined) usage.prompt_tokens_details = { cached_tokens: u.cachedInputTokens };
  if (u.reasoningTokens !== undefined) usage.completion_tokens_details = { reasoning_tokens: u.reasoningTokens };
  return usage;
}

const DONE: WireEvent = { data: '[DONE]' };

/** Characters of what the surface counts as input: messages, system text and the offered tools' schemas. */
function promptChars(body: Record<string, unknown>): number {
  return JSON.stringify(body.tools ?? []).length + JSON.stringify(body.messages ?? '').length;
}

/** A `chat.completion.chunk` event of request `c`: id, object, created, model, then `fields`. */
function chunkEvent(c: RenderCtx, fields: Record<string, unknown>): WireEvent {
  return jsonEvent(
    { id: `chatcmpl-local-${c.n}`, object: 'chat.completion.chunk', created: c.created, model: c.model, ...fields },
    false,
  );
}

function render(turn: ScriptedTurn, c: RenderCtx): RenderedStream {
  const mk = (delta: Record<string, unknown>, finish: string | null = null): WireEvent =>
    chunkEvent(c, { choices: [{ index: 0, delta, finish_reason: finish }] });
  type Call = Extract<TurnItem, { kind: 'tool_call' }>;
  const header = (call: Call): WireEvent =>
    mk({
      tool_calls: [{ index: call.call, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
    });
  const argChunk = (call: Call, piece: string): WireEvent =>
    mk({ tool_calls: [{ index: call.call, function: { arguments: piece } }] });

  const content: WireEvent[] = [mk({ role: 'assistant', content: '' })];
  const calls = turn.items.filter((it): it is Call => it.kind === 'tool_call');
  let callsDone = false;
  for (const item of turn.items) {
    if (item.kind === 'reasoning') {
      for (const piece of splitDeltas(item.text)) content.push(mk({ reasoning_content: piece }));
    } else if (item.kind === 'text') {
      for (const piece of splitDeltas(item.text)) content.push(mk({ content: piece }));
    } else if (item.kind === 'tool_call') {
      if (!turn.interleaveToolCalls) {
        content.push(header(item));
        for (const piece of item.pieces) content.push(argChunk(item, piece));
      } else if (!callsDone) {
        // Interleaved: every call streams at the first call's place, headers first, then pieces round-robin.
        callsDone = true;
        for (const call of calls) content.push(header(call));
        const maxPieces = Math.max(0, ...calls.map((x) => x.pieces.length));
        for (let p = 0; p < maxPieces; p++) {
          for (const call of calls) {
            const piece = call.pieces[p];
            if (piece !== undefined) content.push(argChunk(call, piece));
          }
        }
      }
    }
    // redacted reasoning has no Chat Completions form: skipped.
  }

  const terminal: WireEvent[] = [];
  if (turn.finish !== null) terminal.push(mk({}, turn.finish));
  const streamOptions = c.body.stream_options as { include_usage?: unknown } | undefined;
  const usage = streamOptions?.include_usage === true ? turnUsage(turn, promptChars(c.body)) : null;
  if (usage !== null) terminal.push(chunkEvent(c, { choices: [], usage: chatUsage(usage) }));
  if (turn.done) terminal.push(DONE);
  return { content, terminal };
}

function json(turn: ScriptedTurn, c: RenderCtx): Record<string, unknown> {
  const text = turn.items.filter((it) => it.kind === 'text').map((it) => (it as { text: string }).text);
  const reasoning = turn.items.filter((it) => it.kind === 'reasoning').map((it) => (it as { text: string }).text);
  const calls = turn.items
    .filter((it): it is Extract<TurnItem, { kind: 'tool_call' }> => it.kind === 'tool_call')
    .map((it) => ({ id: it.id, type: 'function', function: { name: it.name, arguments: it.args } }));
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: text.length > 0 ? text.join('') : calls.length > 0 ? null : '',
  };
  if (reasoning.length > 0) message.reasoning_content = reasoning.join('');
  if (calls.length > 0) message.tool_calls = calls;
  const out: Record<string, unknown> = {
    id: `chatcmpl-local-${c.n}`,
    object: 'chat.completion',
    created: c.created,
    model: c.model,
    choices: [{ index: 0, message, finish_reason: turn.finish }],
  };
  const usage = turnUsage(turn, promptChars(c.body));
  if (usage !== null) out.usage = chatUsage(usage);
  return out;
}

/** The Chat Completions surface. */
export const chatSurface: SurfaceCodec = {
  surface: 'chat-completions',
  route: '/chat/completions',
  ...openAiSurfaceCommon,
  validate(body) {
    if (typeof body.model !== 'string' || !Array.isArray(body.messages)) {
      return {
        status: 400,
        message: "The request needs a string 'model' and an array 'messages'.",
        code: 'invalid_request',
      };
    }
    return undefined;
  },
  promptChars,
  render,
  json,
  replayEvent: (ev) => ({ data: ev.data }),
  replayClosing: (done) => (done ? [DONE] : []),
  streamError(c, _sent, message, code) {
    return [
      chunkEvent(c, {
        choices: [],
        error: {
          message: message ?? 'The server had an error while streaming (scripted fault).',
          type: 'server_error',
          code: code ?? 'server_error',
        },
      }),
    ];
  },
  malformed: (c) =>
    `data: {"id":"chatcmpl-local-${c.n}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"x"\n\n`,
};
