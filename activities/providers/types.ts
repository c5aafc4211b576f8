import type { FinishReason, ModelMessage, ToolCallRequest, ToolSpec, Usage } from '../../core/messages.js';

/** Retry block of a provider (PR1). Durations in ms. Becomes the modelStep activity RetryPolicy. */
export interface ProviderRetry {
  maxAttempts: number; // default 3, including the first
  initialDelayMs: number; // default 2000
  maxDelayMs: number; // default 30000
  recoveryWindowMs: number; // default 180000
}

/** A resolved provider: where and how to reach one model endpoint. Never contains the key itself. */
export interface ProviderConfig {
  /** Provider id as configured, e.g. `local`, `openai`, `openrouter`. */
  id: string;
  transport: 'chat-completions';
  /** Base URL up to and including the API version segment, e.g. `http://127.0.0.1:4000/v1`. */
  baseUrl: string;
  /** Name of the environment variable holding the API key (may be unset for local servers). */
  apiKeyEnv?: string;
  retry: ProviderRetry;
  /** PR5: ms to wait for response headers (default 330000). */
  headerTimeoutMs: number;
  /** PR5: ms of silence allowed between stream chunks (default 120000). */
  chunkTimeoutMs: number;
}

/** One model request, provider-neutral. */
export interface ModelRequest {
  model: string;
  messages: ModelMessage[];
  tools: ToolSpec[];
}

/** Streaming callbacks; all optional. */
export interface StreamHandlers {
  /** Called for each assistant text delta, in order. */
  onTextDelta?(text: string): void;
  /** Called for each reasoning delta (Chat Completions `reasoning_content`). */
  onReasoningDelta?(text: string): void;
  /** Called for every wire chunk received (used to heartbeat). */
  onChunk?(): void;
  signal?: AbortSignal;
}

/** The assembled answer of one streamed model request. */
export interface ModelResponse {
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
