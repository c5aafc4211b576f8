import type {
  AssistantPart,
  FinishReason,
  ModelMessage,
  ToolCallRequest,
  ToolSpec,
  Usage,
} from '../../core/messages.js';

export type { ProviderConfig, ProviderRetry } from '../../core/provider-config.js';

/** One model request, provider-neutral. */
export interface ModelRequest {
  model: string;
  messages: ModelMessage[];
  tools: ToolSpec[];
}

/**
 * Streaming callbacks; all optional. Structurally a superset of the
 * transport's `TransportHandlers` (`signal`, `onChunk`), so adapters pass it through.
 */
export interface StreamHandlers {
  /** Called for each assistant text delta, in order. */
  onTextDelta?(text: string): void;
  /** Called for each reasoning delta (Chat `reasoning_content`/`reasoning`, Responses summary text, Anthropic thinking). */
  onReasoningDelta?(text: string): void;
  /** Called for every wire chunk received (used to heartbeat). */
  onChunk?(): void;
  /** Aborts the request; the adapter then rejects with the signal's reason (not a ProviderError). */
  signal?: AbortSignal;
}

/** Delta callbacks of the stream assemblers: the text and reasoning members of {@link StreamHandlers}. */
export type DeltaHandlers = Pick<StreamHandlers, 'onTextDelta' | 'onReasoningDelta'>;

/** The assembled answer of one streamed model request. */
export interface ModelResponse {
  /**
   * Every output part in provider order (PR9): a part sits where its first
   * delta arrived (see `parts-assembler.ts`). `text` and `reasoning` are its
   * parts' texts joined; `toolCalls` its tool-call parts in start order.
   */
  parts: AssistantPart[];
  text: string;
  reasoning: string;
  toolCalls: ToolCallRequest[];
  finishReason: FinishReason;
  usage?: Usage;
  /** Provider request id (`x-request-id` header or response id), for diagnostics. */
  requestId?: string;
}

/** PR6: bounded, redacted diagnostics of a provider failure. Never a raw body, URL with credentials, or key. */
export interface ProviderDiagnostic {
  status?: number;
  code?: string;
  requestId?: string;
  reason: string;
}
