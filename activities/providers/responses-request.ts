/**
 * OpenAI Responses request mapping (pure): provider-neutral messages and
 * tools to the `POST /responses` JSON body (PR8, PR10), and the endpoint URL.
 */
import type { AssistantPart, ModelMessage, ToolSpec } from '../../core/messages.js';
import { endpointUrl } from './endpoint.js';
import type { ModelRequest, ProviderConfig } from './types.js';

/** The `include` value that asks for reasoning capsules (PR8). */
export const ENCRYPTED_REASONING_INCLUDE = 'reasoning.encrypted_content';

/** A summary entry of a replayed reasoning item. */
export interface ResponsesSummaryText {
  type: 'summary_text';
  text: string;
}

/** One `input` item of the Responses wire format, as this adapter sends it. */
export type ResponsesInputItem =
  | { type: 'message'; role: 'user' | 'developer'; content: Array<{ type: 'input_text'; text: string }> }
  | { type: 'message'; role: 'assistant'; content: Array<{ type: 'output_text'; text: string }> }
  | { type: 'reasoning'; id?: string; encrypted_content: string; summary: ResponsesSummaryText[] }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string };

/** One tool of the Responses wire format (function tools are flat, unlike Chat Completions). */
export interface ResponsesWireTool {
  type: 'function';
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  strict: false;
}

/**
 * The JSON body this adapter POSTs. `store: false`: the endpoint keeps no
 * state, every request carries the whole history. `instructions` and
 * `tools` are omitted when empty; `include` is present only with
 * `reasoningReplay: "encrypted"`.
 */
export interface ResponsesRequestBody {
  model: string;
  instructions?: string;
  input: ResponsesInputItem[];
  tools?: ResponsesWireTool[];
  include?: [typeof ENCRYPTED_REASONING_INCLUDE];
  stream: true;
  store: false;
}

type AssistantMessage = Extract<ModelMessage, { role: 'assistant' }>;

/**
 * Render one assistant message as Responses items, from its `parts` in
 * provider order (PR9): a reasoning part carrying a capsule with
 * `encryptedContent` (the PR8 replay policy already chose which may go out)
 * → `{type:'reasoning', id, encrypted_content, summary}` with the capsule and
 * item id byte-for-byte and the stored summary texts (else the part text as
 * one entry, or none); reasoning without a capsule is dropped (the endpoint
 * takes no bare summaries); non-empty text → an assistant `message` with one
 * `output_text`; a tool call → `function_call` with the original `call_id`
 * and the provider's own argument bytes (PR10). A message without `parts`
 * falls back to its text, then its calls.
 */
export function assistantItems(m: AssistantMessage): ResponsesInputItem[] {
  const parts: AssistantPart[] = m.parts ?? [
    ...(m.text !== '' ? [{ kind: 'text' as const, text: m.text }] : []),
    ...m.toolCalls.map((c) => ({ kind: 'tool_call' as const, ...c })),
  ];
  const out: ResponsesInputItem[] = [];
  for (const p of parts) {
    if (p.kind === 'reasoning') {
      const c = p.providerReasoning;
      if (c?.encryptedContent === undefined) continue;
      const summary = c.summary ?? (p.text !== '' ? [p.text] : []);
      out.push({
        type: 'reasoning',
        ...(c.itemId !== undefined ? { id: c.itemId } : {}),
        encrypted_content: c.encryptedContent,
        summary: summary.map((text) => ({ type: 'summary_text' as const, text })),
      });
    } else if (p.kind === 'text') {
      if (p.text !== '')
        out.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: p.text }] });
    } else {
      out.push({ type: 'function_call', call_id: p.callId, name: p.name, arguments: p.argsJson });
    }
  }
  return out;
}

/**
 * Map provider-neutral messages to `instructions` + `input` items, keeping
 * their order. The leading system messages become `instructions` (joined by
 * a blank line); a system message after the conversation started becomes a
 * `developer` message in place. User → `message` with `input_text`;
 * assistant → {@link assistantItems}; tool → `function_call_output` with
 * the call's `call_id` and the result text.
 */
export function toResponsesInput(messages: readonly ModelMessage[]): {
  instructions?: string;
  input: ResponsesInputItem[];
} {
  const leading: string[] = [];
  const input: ResponsesInputItem[] = [];
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        if (input.length === 0) leading.push(m.text);
        else input.push({ type: 'message', role: 'developer', content: [{ type: 'input_text', text: m.text }] });
        break;
      case 'user':
        input.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: m.text }] });
        break;
      case 'assistant':
        input.push(...assistantItems(m));
        break;
      case 'tool':
        input.push({ type: 'function_call_output', call_id: m.callId, output: m.content });
        break;
    }
  }
  return leading.length > 0 ? { instructions: leading.join('\n\n'), input } : { input };
}

/** Map tool specs to Responses function tools (`strict: false`: Zuno validates arguments itself, TD8). */
export function toResponsesTools(tools: readonly ToolSpec[]): ResponsesWireTool[] {
  return tools.map((t) => ({
    type: 'function',
    name: t.name,
    description: t.description,
    parameters: t.parameters,
    strict: false,
  }));
}

/**
 * Build the streaming request body for `req` (pure): `stream: true`,
 * `store: false`, and `include: ["reasoning.encrypted_content"]` exactly
 * when `cfg.reasoningReplay === 'encrypted'` (PR8; off sends neither the
 * include nor — by the replay policy — any capsule).
 */
export function buildResponsesBody(
  cfg: Pick<ProviderConfig, 'reasoningReplay'>,
  req: ModelRequest,
): ResponsesRequestBody {
  const { instructions, input } = toResponsesInput(req.messages);
  const include: ResponsesRequestBody['include'] = [ENCRYPTED_REASONING_INCLUDE];
  return {
    model: req.model,
    ...(instructions !== undefined ? { instructions } : {}),
    input,
    ...(req.tools.length > 0 ? { tools: toResponsesTools(req.tools) } : {}),
    ...(cfg.reasoningReplay === 'encrypted' ? { include } : {}),
    stream: true,
    store: false,
  };
}

/**
 * `{baseUrl}/responses`, keeping any query string of the base URL.
 * @throws ProviderError `provider_bad_request` for an unparseable or non-HTTP(S) base URL.
 */
export function responsesUrl(baseUrl: string, providerId?: string): URL {
  return endpointUrl(baseUrl, '/responses', providerId);
}
