/**
 * Chat Completions request mapping (pure): provider-neutral messages and
 * tools to the wire JSON body, and the endpoint URL.
 */
import type { ModelMessage, ToolSpec } from '../../core/messages.js';
import { endpointUrl } from './endpoint.js';
import type { ModelRequest } from './types.js';

/** One message of the Chat Completions wire format, as this adapter sends it. */
export type ChatWireMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
    }
  | { role: 'tool'; tool_call_id: string; content: string };

/** One tool of the Chat Completions wire format. */
export interface ChatWireTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The JSON body this adapter POSTs. `tools` is omitted when empty (some servers reject `[]`). */
export interface ChatCompletionRequestBody {
  model: string;
  messages: ChatWireMessage[];
  tools?: ChatWireTool[];
  stream: true;
  stream_options: { include_usage: true };
}

/**
 * Map provider-neutral messages to Chat Completions messages.
 *
 * - the leading system messages (the system-prompt segments, SE28) become
 *   one `system` message, joined by a blank line: many OpenAI-compatible
 *   servers' chat templates accept a single system message only; a later
 *   system message stays in place.
 *
 * - assistant tool calls → `tool_calls[{id, type:'function', function:{name, arguments}}]`,
 *   `arguments` = the model's raw `argsJson` bytes, never re-serialized (PR8/PR10 spirit);
 *   `content` is `null` when the assistant only called tools. Reasoning is not sent back.
 * - tool results → `{role:'tool', tool_call_id, content}`.
 */
export function toChatMessages(messages: readonly ModelMessage[]): ChatWireMessage[] {
  const leading: string[] = [];
  for (const m of messages) {
    if (m.role !== 'system') break;
    leading.push(m.text);
  }
  const rest = messages.slice(leading.length).map(toChatMessage);
  return leading.length > 0 ? [{ role: 'system', content: leading.join('\n\n') }, ...rest] : rest;
}

function toChatMessage(m: ModelMessage): ChatWireMessage {
  switch (m.role) {
    case 'system':
      return { role: 'system', content: m.text };
    case 'user':
      return { role: 'user', content: m.text };
    case 'assistant': {
      if (m.toolCalls.length === 0) return { role: 'assistant', content: m.text };
      return {
        role: 'assistant',
        content: m.text === '' ? null : m.text,
        tool_calls: m.toolCalls.map((c) => ({
          id: c.callId,
          type: 'function' as const,
          function: { name: c.name, arguments: c.argsJson },
        })),
      };
    }
    case 'tool':
      return { role: 'tool', tool_call_id: m.callId, content: m.content };
  }
}

/** Map tool specs to Chat Completions `tools` entries. */
export function toChatTools(tools: readonly ToolSpec[]): ChatWireTool[] {
  return tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/**
 * Build the full streaming request body for `req` (pure): `stream: true` and
 * `stream_options.include_usage: true`, so usage arrives in the final chunk (PR11).
 */
export function buildChatCompletionBody(req: ModelRequest): ChatCompletionRequestBody {
  const body: ChatCompletionRequestBody = {
    model: req.model,
    messages: toChatMessages(req.messages),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (req.tools.length > 0) body.tools = toChatTools(req.tools);
  return body;
}

/**
 * `{baseUrl}/chat/completions`, keeping any query string of the base URL
 * (e.g. Azure `?api-version=`) after the path.
 * @throws ProviderError `provider_bad_request` for an unparseable or non-HTTP(S) base URL.
 */
export function chatCompletionsUrl(baseUrl: string, providerId?: string): URL {
  return endpointUrl(baseUrl, '/chat/completions', providerId);
}
