/**
 * Provider-neutral conversation shapes shared by the model adapters, the
 * projection store and the session workflow. Pure types: no I/O.
 */

/** One tool call as the model asked for it (arguments are the model's raw JSON text). */
export interface ToolCallRequest {
  /** The provider's call id (e.g. `call_abc`), echoed back with the result. */
  callId: string;
  /** Tool name as the model wrote it (may name an unknown tool). */
  name: string;
  /** Raw argument text as streamed by the provider; may be malformed JSON. */
  argsJson: string;
}

/** Wire surfaces Zuno speaks (PR7). */
export type WireSurface = 'chat-completions' | 'responses' | 'anthropic-messages';

/**
 * PR8: an opaque reasoning capsule exactly as a provider produced it, kept on
 * its reasoning part so it can be replayed byte-for-byte to the same
 * provider/model. Which fields are set depends on the surface: Responses
 * `encrypted_content` (+ item id), Anthropic `signature` (thinking) or
 * `redactedData` (redacted_thinking).
 */
export interface ProviderReasoning {
  /** Provider id as configured (e.g. `openai`). */
  provider: string;
  model: string;
  surface: WireSurface;
  /** Provider item id (Responses `rs_…`), when it has one. */
  itemId?: string;
  encryptedContent?: string;
  signature?: string;
  redactedData?: string;
  /**
   * Responses: the reasoning item's summary texts in `summary_index` order, as
   * the provider sent them, replayed with the capsule as `summary_text`
   * entries (the part's text is these joined for display). Absent elsewhere.
   */
  summary?: string[];
  /** Wall time the capsule was received, ms since epoch (PR8 `reasoningReplayMaxAge`). */
  producedAtMs: number;
}

/** One piece of assistant output, in the order the provider produced it (PR9). */
export type AssistantPart =
  | { kind: 'reasoning'; text: string; providerReasoning?: ProviderReasoning }
  | { kind: 'text'; text: string }
  | { kind: 'tool_call'; callId: string; name: string; argsJson: string };

/** A stable segment of the system prompt (SE28): its id (e.g. `system.base`, `instructions.rules`) and exact text. */
export interface SystemSegment {
  segment: string;
  text: string;
  /** Where the text came from (SE28 provenance), when the producer knows it. */
  source?: string;
}

/** A message of the provider-neutral transcript handed to an adapter. */
export type ModelMessage =
  | { role: 'system'; text: string; segment?: string }
  | { role: 'user'; text: string }
  | {
      role: 'assistant';
      /** All text parts joined (the Chat Completions view). */
      text: string;
      toolCalls: ToolCallRequest[];
      /**
       * Every part in provider order (PR9), reasoning capsules included where
       * the replay policy (PR8) lets them through; surfaces that keep order
       * (Responses, Anthropic Messages) render from this.
       */
      parts?: AssistantPart[];
    }
  | { role: 'tool'; callId: string; name: string; content: string };

/** A tool as offered to the model: name, description, JSON Schema of its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/**
 * Token usage as reported by the provider, normalized (PR11): `inputTokens`
 * is ALL input including cache reads and writes (OpenAI reports it so;
 * the Anthropic adapter sums uncached + cache read + cache write);
 * `cachedInputTokens` are cache reads, `cacheWriteInputTokens` cache
 * writes, `reasoningTokens` are part of `outputTokens`. A field the provider
 * did not report stays undefined (unknown ≠ 0).
 */
export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  cachedInputTokens?: number;
  cacheWriteInputTokens?: number;
  reasoningTokens?: number;
  totalTokens?: number;
}

/** Why the model stopped: normalized from the wire format's finish reason. */
export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';
