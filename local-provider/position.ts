/**
 * The conversation position of a model request (which scripted reply it
 * gets, see `server.ts`): how many model steps the request's history already
 * holds, and how many user turns. A model step retried after a crash sends
 * the same history, so it has the same position and meets the same reply; the
 * next step carries one more assistant step, the next turn one more user
 * message. Read from the request body of each surface:
 *
 * | surface            | steps                                                                     | turns                                                       |
 * | ------------------ | ------------------------------------------------------------------------- | ----------------------------------------------------------- |
 * | Chat Completions   | `assistant` messages                                                      | `user` messages                                             |
 * | Responses          | runs of consecutive `reasoning` / `function_call` / assistant `message` items | `message` items with role `user` (a string `input` is one)  |
 * | Anthropic Messages | `assistant` messages                                                      | `user` messages with some block other than `tool_result`    |
 * | any, compacted     | + N when the system text says `This summary replaces N earlier model steps and M earlier user messages` | + M |
 *
 * A compacted request (docs/compaction.md) carries a summary in place of its
 * older steps and user messages, and its system text says how many it
 * replaces; they are counted as if they were still there, so the scripted
 * replies keep their order across a compaction. On Anthropic the kept first
 * user message absorbs a user message that follows it (the adapter merges
 * consecutive user messages), so in a compacted request each text block of
 * the first user message counts as a turn.
 */
import type { WireSurface } from '../core/messages.js';

/** Where a request stands in its conversation. */
export interface ConversationPosition {
  /** Model steps already answered in the request's history. */
  steps: number;
  /** User turns in the request's history (the current one included). */
  turns: number;
}

const list = (v: unknown): Array<Record<string, unknown>> =>
  Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null) : [];

function chatPosition(body: Record<string, unknown>): ConversationPosition {
  const messages = list(body.messages);
  return {
    steps: messages.filter((m) => m.role === 'assistant').length,
    turns: messages.filter((m) => m.role === 'user').length,
  };
}

function responsesPosition(body: Record<string, unknown>): ConversationPosition {
  if (typeof body.input === 'string') return { steps: 0, turns: 1 };
  let steps = 0;
  let turns = 0;
  let inStep = false;
  for (const item of list(body.input)) {
    const role = item.role;
    const output =
      item.type === 'reasoning' ||
      item.type === 'function_call' ||
      ((item.type === 'message' || item.type === undefined) && role === 'assistant');
    if (output && !inStep) steps++;
    inStep = output;
    if ((item.type === 'message' || item.type === undefined) && role === 'user') turns++;
  }
  return { steps, turns };
}

function anthropicPosition(body: Record<string, unknown>): ConversationPosition {
  const messages = list(body.messages);
  const spoken = (m: Record<string, unknown>) =>
    typeof m.content === 'string' || list(m.content).some((b) => b.type !== 'tool_result');
  return {
    steps: messages.filter((m) => m.role === 'assistant').length,
    turns: messages.filter((m) => m.role === 'user' && spoken(m)).length,
  };
}

/** The sentence a compacted request's system text carries (activities/session/compaction/compacted-head.ts). */
const SUMMARY_REPLACES = /This summary replaces (\d+) earlier model steps and (\d+) earlier user messages/;

/** The system text of a request on `surface`: Chat system/developer messages, Responses `instructions` and system items, Anthropic `system`. */
export function systemText(surface: WireSurface, body: Record<string, unknown>): string {
  const isSystem = (m: Record<string, unknown>) => m.role === 'system' || m.role === 'developer';
  if (surface === 'anthropic-messages') return contentText(body.system);
  if (surface === 'responses') {
    const items = typeof body.input === 'string' ? [] : list(body.input).filter(isSystem);
    return [contentText(body.instructions), ...items.map((i) => contentText(i.content))].join('\n');
  }
  return list(body.messages)
    .filter(isSystem)
    .map((m) => contentText(m.content))
    .join('\n');
}

/** Steps and user messages a compaction summary in the request's system text replaces (0, 0 when none). */
export function summarizedPosition(surface: WireSurface, body: Record<string, unknown>): ConversationPosition {
  const m = SUMMARY_REPLACES.exec(systemText(surface, body));
  return m ? { steps: Number(m[1]), turns: Number(m[2]) } : { steps: 0, turns: 0 };
}

/** Text blocks of an Anthropic request's first user message (a string content is one). */
function firstUserTextBlocks(body: Record<string, unknown>): number {
  const first = list(body.messages).find((m) => m.role === 'user');
  if (!first) return 0;
  return typeof first.content === 'string' ? 1 : list(first.content).filter((b) => b.type === 'text').length;
}

function surfacePosition(surface: WireSurface, body: Record<string, unknown>): ConversationPosition {
  switch (surface) {
    case 'chat-completions':
      return chatPosition(body);
    case 'responses':
      return responsesPosition(body);
    case 'anthropic-messages':
      return anthropicPosition(body);
  }
}

/**
 * The position of a (validated) request body on `surface`: what its
 * messages hold plus what a compaction summary in its system text replaces.
 *
 * @returns steps and turns as described above; malformed entries are skipped.
 */
export function conversationPosition(surface: WireSurface, body: Record<string, unknown>): ConversationPosition {
  const own = surfacePosition(surface, body);
  const replaced = summarizedPosition(surface, body);
  if (replaced.steps === 0 && replaced.turns === 0) return own;
  // Anthropic merges the kept first user message with a user message right after it: each text block was a turn.
  const merged = surface === 'anthropic-messages' ? Math.max(0, firstUserTextBlocks(body) - 1) : 0;
  return { steps: own.steps + replaced.steps, turns: own.turns + replaced.turns + merged };
}

/** A stable key of a position (`<steps>/<turns>`). */
export function positionKey(p: ConversationPosition): string {
  return `${p.steps}/${p.turns}`;
}

/** The text of a content value: a string, or the text blocks of a content array (any surface). */
function contentText(c: unknown): string {
  if (typeof c === 'string') return c;
  return list(c)
    .map((b) => (typeof b.text === 'string' ? b.text : ''))
    .join('');
}

/**
 * The text of the request's first user message on `surface` ('' when it
 * has none): which script thread the request belongs to (`ScriptSchema.threads`).
 */
export function firstUserText(surface: WireSurface, body: Record<string, unknown>): string {
  if (surface === 'responses') {
    if (typeof body.input === 'string') return body.input;
    const first = list(body.input).find((i) => (i.type === 'message' || i.type === undefined) && i.role === 'user');
    return first ? contentText(first.content) : '';
  }
  const first = list(body.messages).find((m) => m.role === 'user');
  return first ? contentText(first.content) : '';
}
