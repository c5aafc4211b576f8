/**
 * OpenAI Responses on the local provider: `POST …/responses`, SSE with an
 * `event: <type>` line before each `data:` line, every payload carrying its
 * `type` and a `sequence_number`; no `[DONE]` — the stream ends after
 * `response.completed` (or `response.incomplete` / `response.failed`).
 * Shapes follow the recorded streams in `peer-cases/provider-streams/openai-responses/`.
 */
import { openAiSurfaceCommon } from './openai-errors.js';
import type { ScriptUsage } from './script.js';
import { jsonEvent, type RenderCtx, type RenderedStream, type SurfaceCodec, type WireEvent } from './surface.js';
import { splitDeltas, turnUsage, type ScriptedTurn, type TurnItem } from './turn.js';

/** Wire `usage` of a response (only the given fields; Anthropic-only fields dropped). */
export function responsesUsage(u: ScriptUsage): Record<string, unknown> {
  const usage: Record<string, unknown> = {};
  if (u.inputTokens !== undefined) usage.input_tokens = u.inputTokens;
  if (u.cachedInputTokens !== undefined) usage.input_tokens_details = { cached_tokens: u.cachedInputTokens };
  if (u.outputTokens !== undefined) usage.output_tokens = u.outputTokens;
  if (u.reasoningTokens !== undefined) usage.output_tokens_details = { reasoning_tokens: u.reasoningTokens };
  if (u.totalTokens !== undefined) usage.total_tokens = u.totalTokens;
  return usage;
}

/** Characters of what the surface counts as input: messages, system text and the offered tools' schemas. */
function promptChars(body: Record<string, unknown>): number {
  return (
    JSON.stringify(body.tools ?? []).length +
    (JSON.stringify(body.input ?? '').length + (typeof body.instructions === 'string' ? body.instructions.length : 0))
  );
}

/** Whether the request asked for `include: ["reasoning.encrypted_content"]` (PR8). */
function wantsCapsules(body: Record<string, unknown>): boolean {
  return Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content');
}

/** The default capsule of reasoning item `i` of request `n`. */
function defaultCapsule(c: RenderCtx, i: number): string {
  return `enc_local_${c.n}_${i}_${Buffer.from(`zuno local reasoning ${c.replyIndex}/${i}`).toString('base64')}`;
}

/** Terminal status of a turn: `completed`, or `incomplete` with a reason. */
function outcome(turn: ScriptedTurn): { status: 'completed' | 'incomplete'; reason?: string } {
  switch (turn.finish) {
    case null:
    case 'stop':
    case 'tool_calls':
      return { status: 'completed' };
    case 'length':
      return { status: 'incomplete', reason: 'max_output_tokens' };
    default:
      return { status: 'incomplete', reason: turn.finish };
  }
}

interface Built {
  /** The finished output items, in order (as in `response.completed`). */
  output: Record<string, unknown>[];
  /** Per item: the events between (and including) `output_item.added` and `output_item.done`. */
  events: Record<string, unknown>[][];
}

/** Build every output item and its events (without sequence numbers). */
function buildItems(turn: ScriptedTurn, c: RenderCtx): Built {
  const capsules = wantsCapsules(c.body);
  const output: Record<string, unknown>[] = [];
  const events: Record<string, unknown>[][] = [];
  turn.items.forEach((item: TurnItem, i) => {
    const at = { output_index: i };
    const evs: Record<string, unknown>[] = [];
    if (item.kind === 'reasoning' || item.kind === 'redacted_reasoning') {
      const id = `rs_local_${c.n}_${i}`;
      const text = item.kind === 'reasoning' ? item.text : '';
      const capsule = item.kind === 'redacted_reasoning' ? item.data : (item.capsule ?? defaultCapsule(c, i));
      const added: Record<string, unknown> = { id, type: 'reasoning', summary: [] };
      // As the real API does, `added` carries a different, partial capsule; the full one comes with `done`.
      if (capsules) added.encrypted_content = capsule.slice(0, Math.ceil(capsule.length / 2));
      evs.push({ type: 'response.output_item.added', ...at, item: added });
      const summary: Record<string, unknown>[] = [];
      if (text !== '') {
        const ref = { item_id: id, ...at, summary_index: 0 };
        evs.push({ type: 'response.reasoning_summary_part.added', ...ref, part: { type: 'summary_text', text: '' } });
        for (const delta of splitDeltas(text))
          evs.push({ type: 'response.reasoning_summary_text.delta', ...ref, delta });
        evs.push({ type: 'response.reasoning_summary_text.done', ...ref, text });
        evs.push({ type: 'response.reasoning_summary_part.done', ...ref, part: { type: 'summary_text', text } });
        summary.push({ type: 'summary_text', text });
      }
      const done: Record<string, unknown> = { id, type: 'reasoning', summary };
      if (capsules) done.encrypted_content = capsule;
      evs.push({ type: 'response.output_item.done', ...at, item: done });
      output.push(done);
    } else if (item.kind === 'text') {
      const id = `msg_local_${c.n}_${i}`;
      const ref = { item_id: id, ...at, content_index: 0 };
      const part = (text: string): Record<string, unknown> => ({ type: 'output_text', annotations: [], text });
      evs.push({
        type: 'response.output_item.added',
        ...at,
        item: { id, type: 'message', status: 'in_progress', content: [], role: 'assistant' },
      });
      evs.push({ type: 'response.content_part.added', ...ref, part: part('') });
      for (const delta of splitDeltas(item.text)) evs.push({ type: 'response.output_text.delta', ...ref, delta });
      evs.push({ type: 'response.output_text.done', ...ref, text: item.text });
      evs.push({ type: 'response.content_part.done', ...ref, part: part(item.text) });
      const done = { id, type: 'message', status: 'completed', content: [part(item.text)], role: 'assistant' };
      evs.push({ type: 'response.output_item.done', ...at, item: done });
      output.push(done);
    } else {
      const id = `fc_local_${c.n}_${i}`;
      const fields = { call_id: item.id, name: item.name };
      evs.push({
        type: 'response.output_item.added',
        ...at,
        item: { id, type: 'function_call', status: 'in_progress', arguments: '', ...fields },
      });
      for (const delta of item.pieces) {
        evs.push({ type: 'response.function_call_arguments.delta', item_id: id, ...at, delta });
      }
      evs.push({ type: 'response.function_call_arguments.done', item_id: id, ...at, arguments: item.args });
      const done = { id, type: 'function_call', status: 'completed', arguments: item.args, ...fields };
      evs.push({ type: 'response.output_item.done', ...at, item: done });
      output.push(done);
    }
    events.push(evs);
  });
  return { output, events };
}

/** The `response` object: in progress (no output, no usage), or final. */
function responseObject(
  c: RenderCtx,
  status: string,
  output: Record<string, unknown>[],
  usage: Record<string, unknown> | null,
  extra: { incompleteReason?: string; error?: Record<string, unknown> } = {},
): Record<string, unknown> {
  return {
    id: `resp_local_${c.n}`,
    object: 'response',
    created_at: c.created,
    status,
    error: extra.error ?? null,
    incomplete_details: extra.incompleteReason !== undefined ? { reason: extra.incompleteReason } : null,
    model: c.model,
    output,
    parallel_tool_calls: true,
    usage,
  };
}

function finalUsage(turn: ScriptedTurn, c: RenderCtx): Record<string, unknown> | null {
  const u = turnUsage(turn, promptChars(c.body));
  return u === null ? null : responsesUsage(u);
}

function render(turn: ScriptedTurn, c: RenderCtx): RenderedStream {
  const { output, events } = buildItems(turn, c);
  let seq = 0;
  const ev = ({ type, ...rest }: Record<string, unknown>): WireEvent =>
    jsonEvent({ type, sequence_number: seq++, ...rest }, true);
  const content: WireEvent[] = [
    ev({ type: 'response.created', response: responseObject(c, 'in_progress', [], null) }),
    ev({ type: 'response.in_progress', response: responseObject(c, 'in_progress', [], null) }),
  ];
  for (const evs of events) for (const e of evs) content.push(ev(e));
  const end = outcome(turn);
  const terminal: WireEvent[] = [];
  if (turn.done) {
    const extra = end.reason !== undefined ? { incompleteReason: end.reason } : {};
    terminal.push(
      ev({
        type: end.status === 'completed' ? 'response.completed' : 'response.incomplete',
        response: responseObject(c, end.status, output, finalUsage(turn, c), extra),
      }),
    );
  }
  return { content, terminal };
}

/** The Responses surface. */
export const responsesSurface: SurfaceCodec = {
  surface: 'responses',
  route: '/responses',
  ...openAiSurfaceCommon,
  validate(body) {
    if (typeof body.model !== 'string' || !(typeof body.input === 'string' || Array.isArray(body.input))) {
      return {
        status: 400,
        message: "The request needs a string 'model' and an 'input' (string or array).",
        code: 'invalid_request',
      };
    }
    return undefined;
  },
  promptChars,
  render,
  json(turn, c) {
    const { output } = buildItems(turn, c);
    const end = outcome(turn);
    return responseObject(
      c,
      end.status,
      output,
      finalUsage(turn, c),
      end.reason !== undefined ? { incompleteReason: end.reason } : {},
    );
  },
  replayEvent: (ev) => (ev.type !== undefined ? { event: ev.type, data: ev.data } : { data: ev.data }),
  replayClosing: () => [],
  streamError(c, sent, message, code) {
    const msg = message ?? 'The server had an error while processing your request (scripted fault).';
    const errCode = code ?? 'server_error';
    return [
      jsonEvent(
        {
          type: 'error',
          sequence_number: sent,
          error: { type: 'server_error', code: errCode, message: msg, param: null },
        },
        true,
      ),
      jsonEvent(
        {
          type: 'response.failed',
          sequence_number: sent + 1,
          response: responseObject(c, 'failed', [], null, { error: { code: errCode, message: msg } }),
        },
        true,
      ),
    ];
  },
  malformed: (c) =>
    `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"msg_local_${c.n}_0","delta":"x"\n\n`,
};
