/**
 * A resolved model provider, frozen at session start and carried in the
 * session workflow input (PR1: "frozen with the resolved provider").
 * Never contains the key itself, only the name of the env var holding it.
 * Durations in ms. Deterministic: imported by workflows.
 */

/** Retry block of a provider (PR1). Becomes the modelStep activity RetryPolicy. */
export interface ProviderRetry {
  /** Attempts including the first (default 3). */
  maxAttempts: number;
  /** First backoff delay (default 2000). */
  initialDelayMs: number;
  /** Backoff cap (default 30000). */
  maxDelayMs: number;
  /** Window from the first retryable failure (default 180000). */
  recoveryWindowMs: number;
}

/** PR1 defaults. */
export const DEFAULT_PROVIDER_RETRY: ProviderRetry = {
  maxAttempts: 3,
  initialDelayMs: 2_000,
  maxDelayMs: 30_000,
  recoveryWindowMs: 180_000,
};

/** A resolved provider: where and how to reach one model endpoint. */
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
