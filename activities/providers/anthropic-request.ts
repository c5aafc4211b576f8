/**
 * Anthropic Messages request mapping (pure): provider-neutral messages and
 * tools to the `POST /messages` JSON body, and the endpoint URL.
 */
import type { AssistantPart, ModelMessage, ToolSpec } from '../../core/messages.js';
import { endpointUrl } from './endpoint.js';
import type { ModelRequest, ProviderConfig } from './types.js';

/** `max_tokens` sent on every request (the API requires it); output tokens, not a context size. */
export const DEFAULT_MAX_TOKENS = 8192;

/** The `anthropic-version` header value this adapter speaks. */
export const ANTHROPIC_VERSION = '2023-06-01';

/** Characters of malformed stored tool arguments kept in the inert fallback input (PR10). */
export const MAX_FALLBACK_ARGS_CHARS = 2000;

/** Key of the inert object sent as `tool_use.input` when the stored arguments are not a JSON object. */
export const FALLBACK_ARGS_KEY = 'unparsed_arguments';

/** One content block this adapter sends. */
export type AnthropicWireBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content?: string };

/** One message of the wire format: roles alternate, content is always a block list. */
export interface AnthropicWireMessage {
  role: 'user' | 'assistant';
  content: AnthropicWireBlock[];
}

/** One tool of the wire format. */
export interface AnthropicWireTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** The JSON body this adapter POSTs. `system` and `tools` are omitted when empty. */
export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  system?: string;
  messages: AnthropicWireMessage[];
  tools?: AnthropicWireTool[];
  /** Extended thinking, when the provider config asks for it. */
  thinking?: { type: 'enabled'; budget_tokens: number };
  stream: boolean;
}

/** Output tokens left for the answer itself when extended thinking is on: `max_tokens` = budget + this. */
export const ANSWER_TOKENS_BESIDE_THINKING = 8192;

/**
 * A stored argument text as a `tool_use.input` object: `JSON.parse(argsJson)`
 * when that is a JSON object, `{}` for empty text, else the inert
 * `{ unparsed_arguments: <first 2000 chars of the raw text> }` (PR10:
 * malformed stored arguments degrade to bounded inert JSON, never a crash).
 */
export function toolInput(argsJson: string): Record<string, unknown> {
  if (argsJson.trim() === '') return {};
  try {
    const v = JSON.parse(argsJson) as unknown;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through to the inert form
  }
  return { [FALLBACK_ARGS_KEY]: argsJson.slice(0, MAX_FALLBACK_ARGS_CHARS) };
}

/**
 * One assistant part as a content block, or undefined when it is not sent:
 * a reasoning part goes out only with its capsule (PR8; the replay policy in
 * `reasoning-replay.ts` has already stripped the ones it withholds) — a
 * `signature` gives `thinking` with the stored text and signature unchanged,
 * else `redactedData` gives `redacted_thinking`; empty text is dropped.
 */
function assistantBlock(p: AssistantPart): AnthropicWireBlock | undefined {
  switch (p.kind) {
    case 'reasoning': {
      const c = p.providerReasoning;
      if (c?.signature !== undefined) return { type: 'thinking', thinking: p.text, signature: c.signature };
      if (c?.redactedData !== undefined) return { type: 'redacted_thinking', data: c.redactedData };
      return undefined;
    }
    case 'text':
      return p.text === '' ? undefined : { type: 'text', text: p.text };
    case 'tool_call':
      return { type: 'tool_use', id: p.callId, name: p.name, input: toolInput(p.argsJson) };
  }
}

/** The blocks of an assistant message: its `parts` in order, else its text then its calls. */
function assistantBlocks(m: Extract<ModelMessage, { role: 'assistant' }>): AnthropicWireBlock[] {
  const parts: AssistantPart[] = m.parts ?? [
    { kind: 'text', text: m.text },
    ...m.toolCalls.map((c): AssistantPart => ({ kind: 'tool_call', ...c })),
  ];
  return parts.map(assistantBlock).filter((b): b is AnthropicWireBlock => b !== undefined);
}

/**
 * Map provider-neutral messages to `system` and alternating `messages`.
 *
 * - system messages → `system` (several are joined with a blank line).
 * - user → `user` with a `text` block (empty text sends no block).
 * - assistant → `assistant` with its parts in provider order (PR9): thinking
 *   / redacted_thinking from capsules, text, `tool_use` with
 *   {@link toolInput} of the stored argument text.
 * - tool → `user` with `{type:'tool_result', tool_use_id, content}`
 *   (`content` omitted when empty).
 * - consecutive messages of the same role are merged into one (tool results
 *   of one step become one user message, followed by any user text);
 *   messages left without blocks are dropped.
 */
export function toAnthropicMessages(messages: readonly ModelMessage[]): {
  system?: string;
  messages: AnthropicWireMessage[];
} {
  const system: string[] = [];
  const out: AnthropicWireMessage[] = [];
  const push = (role: AnthropicWireMessage['role'], blocks: AnthropicWireBlock[]): void => {
    if (blocks.length === 0) return;
    const last = out.at(-1);
    if (last !== undefined && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: [...blocks] });
  };
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        if (m.text !== '') system.push(m.text);
        break;
      case 'user':
        push('user', m.text === '' ? [] : [{ type: 'text', text: m.text }]);
        break;
      case 'assistant':
        push('assistant', assistantBlocks(m));
        break;
      case 'tool':
        push('user', [
          m.content === ''
            ? { type: 'tool_result', tool_use_id: m.callId }
            : { type: 'tool_result', tool_use_id: m.callId, content: m.content },
        ]);
        break;
    }
  }
  return system.length > 0 ? { system: system.join('\n\n'), messages: out } : { messages: out };
}

/** Map tool specs to Messages `tools` entries (`parameters` → `input_schema`). */
export function toAnthropicTools(tools: readonly ToolSpec[]): AnthropicWireTool[] {
  return tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
}

/**
 * Build the full request body for `req` (pure): `model`, `max_tokens`,
 * `system`, `messages`, `tools` (omitted when empty), `stream` (default
 * true) and, with `thinkingBudgetTokens`, `thinking: {type: 'enabled',
 * budget_tokens}`. `max_tokens` is {@link DEFAULT_MAX_TOKENS}, or the
 * thinking budget plus {@link ANSWER_TOKENS_BESIDE_THINKING} (the API needs
 * `max_tokens` above the budget).
 */
export function buildAnthropicBody(
  req: ModelRequest,
  stream = true,
  thinkingBudgetTokens?: number,
): AnthropicRequestBody {
  const { system, messages } = toAnthropicMessages(req.messages);
  return {
    model: req.model,
    max_tokens: thinkingBudgetTokens ? thinkingBudgetTokens + ANSWER_TOKENS_BESIDE_THINKING : DEFAULT_MAX_TOKENS,
    ...(system !== undefined ? { system } : {}),
    messages,
    ...(req.tools.length > 0 ? { tools: toAnthropicTools(req.tools) } : {}),
    ...(thinkingBudgetTokens ? { thinking: { type: 'enabled' as const, budget_tokens: thinkingBudgetTokens } } : {}),
    stream,
  };
}

/**
 * `{baseUrl}/messages` (base URL up to the version segment, e.g.
 * `https://api.anthropic.com/v1`), keeping any query string.
 * @throws ProviderError `provider_bad_request` for an unparseable or non-HTTP(S) base URL.
 */
export function anthropicMessagesUrl(baseUrl: string, providerId?: string): URL {
  return endpointUrl(baseUrl, '/messages', providerId);
}

/**
 * The HTTP request of one Messages call (streaming or not): `{baseUrl}/messages`,
 * the body of {@link buildAnthropicBody} with the provider's thinking budget,
 * `anthropic-version` and `x-api-key` auth.
 */
export function anthropicHttpRequest(
  cfg: ProviderConfig,
  req: ModelRequest,
  stream: boolean,
): { url: URL; body: string; headers: Record<string, string>; auth: 'x-api-key' } {
  return {
    url: anthropicMessagesUrl(cfg.baseUrl, cfg.id),
    body: JSON.stringify(buildAnthropicBody(req, stream, cfg.thinkingBudgetTokens)),
    headers: { 'anthropic-version': ANTHROPIC_VERSION },
    auth: 'x-api-key',
  };
}
