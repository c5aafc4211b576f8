/**
 * Chat Completions stream assembly (pure, no I/O): folds parsed
 * `chat.completion.chunk` objects into ordered parts (PR9), finish reason and
 * usage (PR11). The transport and the HTTP side live in `sse-transport.ts`.
 */
import type { Usage } from '../../core/messages.js';
import { mapOpenAiUsage, type OpenAiUsageFields } from './wire-usage.js';
import { PartsAssembler, type AssembledParts } from './parts-assembler.js';
import type { DeltaHandlers } from './types.js';

const CHAT_USAGE_FIELDS: OpenAiUsageFields = {
  input: 'prompt_tokens',
  output: 'completion_tokens',
  inputDetails: 'prompt_tokens_details',
  outputDetails: 'completion_tokens_details',
};

/**
 * Map a wire `usage` object to {@link Usage} (PR11: a field not sent stays
 * undefined, never 0). `prompt_tokens` → inputTokens (OpenAI counts cached
 * tokens inside it), `completion_tokens` → outputTokens,
 * `prompt_tokens_details.cached_tokens` → cachedInputTokens,
 * `completion_tokens_details.reasoning_tokens` → reasoningTokens,
 * `total_tokens` → totalTokens. Returns undefined when no field is known.
 */
export function mapWireUsage(wire: unknown): Usage | undefined {
  return mapOpenAiUsage(wire, CHAT_USAGE_FIELDS);
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v !== '';

/**
 * State of one Chat Completions stream.
 *
 * - Text: `delta.content` (a string, or Mistral-style typed parts: `text`
 *   parts are text, `thinking` parts' nested text parts are reasoning).
 * - Reasoning: `delta.reasoning_content` (DeepSeek, vLLM, …) when non-empty,
 *   else `delta.reasoning` (OpenRouter, Ollama, newer vLLM) — one of the two,
 *   so a server sending both with the same text is not counted twice.
 * - Tool calls by `index` (parallel calls may interleave): id/name from the
 *   first delta carrying them, `arguments` concatenated raw. A delta without
 *   `index` is matched by `id`, else continues the previous call. A delta
 *   whose `index` is taken by a call with another id, and which carries a new
 *   id and a name, starts a new call (servers that send every call as index 0).
 * - Only choice 0 is read; `finish_reason` (last non-empty wins), usage
 *   (last non-null `usage` object), the first non-empty chunk `id`.
 */
export class ChatStreamState {
  /** Raw `finish_reason` once seen. */
  finishRaw: string | undefined;
  /** Whether `data: [DONE]` arrived. */
  sawDone = false;
  /** First non-empty chunk `id` (a fallback request id). */
  chunkId: string | undefined;
  private wireUsage: unknown;
  private readonly parts = new PartsAssembler();
  /** wire tool-call index → assembler key */
  private readonly keyOfIndex = new Map<number, string>();
  private lastKey: string | undefined;
  private calls = 0;

  constructor(private readonly handlers: DeltaHandlers = {}) {}

  /** PR4: a `finish_reason` or `[DONE]` is a proper end for Chat Completions. */
  get complete(): boolean {
    return this.finishRaw !== undefined || this.sawDone;
  }

  /** Usage from the last usage object seen, mapped; undefined when none. */
  get usage(): Usage | undefined {
    return mapWireUsage(this.wireUsage);
  }

  /** The assembled parts so far; calls without an id are named `call_<index>`. */
  result(): AssembledParts {
    return this.parts.result();
  }

  /**
   * PR3: the first sign that this is not a Chat Completions stream (a chunk
   * with neither `choices` nor `usage`, `choices` that is not an array,
   * `delta.content` of another type); the adapter fails the request with
   * `provider_protocol` instead of calling it an empty answer.
   */
  protocolProblem: string | undefined;

  /** Fold one parsed chunk (not `[DONE]`, not an error payload). */
  handle(c: Record<string, unknown>): void {
    if (this.chunkId === undefined && nonEmpty(c.id)) this.chunkId = c.id;
    if (c.usage !== undefined && c.usage !== null) this.wireUsage = c.usage;
    if (c.choices === undefined && (c.usage === undefined || c.usage === null)) {
      this.protocolProblem ??= `a chunk with neither choices nor usage (keys: ${Object.keys(c).slice(0, 6).join(', ') || 'none'})`;
      return;
    }
    if (c.choices !== undefined && !Array.isArray(c.choices)) {
      this.protocolProblem ??= '`choices` is not an array';
      return;
    }
    if (!Array.isArray(c.choices)) return;
    const choice = (c.choices as unknown[]).find(
      (ch): ch is Record<string, unknown> => isObject(ch) && (ch.index === 0 || ch.index === undefined),
    );
    if (choice === undefined) return;
    if (isObject(choice.delta)) this.delta(choice.delta);
    if (nonEmpty(choice.finish_reason)) this.finishRaw = choice.finish_reason;
  }

  private delta(d: Record<string, unknown>): void {
    if (nonEmpty(d.reasoning_content)) this.reasoning(d.reasoning_content);
    else if (nonEmpty(d.reasoning)) this.reasoning(d.reasoning);
    if (d.content !== undefined && d.content !== null && typeof d.content !== 'string' && !Array.isArray(d.content)) {
      this.protocolProblem ??= `delta.content is a ${typeof d.content}, not text`;
    }
    if (typeof d.content === 'string') this.text(d.content);
    else if (Array.isArray(d.content)) {
      for (const part of d.content as unknown[]) {
        if (!isObject(part)) continue;
        if (part.type === 'text' && typeof part.text === 'string') this.text(part.text);
        else if (part.type === 'thinking' && Array.isArray(part.thinking)) {
          for (const t of part.thinking as unknown[]) {
            if (isObject(t) && typeof t.text === 'string') this.reasoning(t.text);
          }
        }
      }
    }
    if (Array.isArray(d.tool_calls)) {
      (d.tool_calls as unknown[]).forEach((tc, position) => {
        if (!isObject(tc)) return;
        const fn = isObject(tc.function) ? tc.function : {};
        const key = this.keyFor(tc, fn, position);
        const patch: { callId?: string; name?: string; argsDelta?: string } = {};
        if (nonEmpty(tc.id)) patch.callId = tc.id;
        if (nonEmpty(fn.name)) patch.name = fn.name;
        if (typeof fn.arguments === 'string') patch.argsDelta = fn.arguments;
        else if (fn.arguments !== undefined && fn.arguments !== null) patch.argsDelta = JSON.stringify(fn.arguments);
        this.parts.toolCall(key, patch);
      });
    }
  }

  private text(t: string): void {
    if (t === '') return;
    this.parts.text(t);
    this.handlers.onTextDelta?.(t);
  }

  private reasoning(t: string): void {
    if (t === '') return;
    this.parts.reasoning(t);
    this.handlers.onReasoningDelta?.(t);
  }

  private keyFor(tc: Record<string, unknown>, fn: Record<string, unknown>, position: number): string {
    let index: number;
    if (typeof tc.index === 'number' && Number.isInteger(tc.index)) index = tc.index;
    else if (nonEmpty(tc.id)) {
      for (const k of this.keyOfIndex.values()) {
        if (this.parts.toolCallId(k) === tc.id) return (this.lastKey = k);
      }
      index = this.keyOfIndex.size === 0 ? 0 : Math.max(...this.keyOfIndex.keys()) + 1;
      while (this.keyOfIndex.has(index)) index += 1;
    } else if (this.lastKey !== undefined && position === 0) return this.lastKey;
    else index = position;

    let key = this.keyOfIndex.get(index);
    if (key !== undefined) {
      const known = this.parts.toolCallId(key);
      if (known !== undefined && nonEmpty(tc.id) && tc.id !== known && nonEmpty(fn.name)) key = undefined;
    }
    if (key === undefined) {
      key = this.keyOfIndex.has(index) ? `${index}_${this.calls}` : String(index);
      this.calls += 1;
      this.keyOfIndex.set(index, key);
    }
    return (this.lastKey = key);
  }
}
