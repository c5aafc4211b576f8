/**
 * A resolved model provider, frozen at session start and carried in the
 * session workflow input (PR1: "frozen with the resolved provider").
 * Never contains the key itself, only the name of the env var holding it.
 * Durations in ms. Deterministic: imported by workflows.
 */
import type { WireSurface } from './messages.js';

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

/** PR8 encrypted reasoning replay option of a provider endpoint. */
export type ReasoningReplay = 'off' | 'encrypted';

/** Default `reasoning_replay_max_age_ms`: capsules older than this are withheld (PR8), 24 h. */
export const DEFAULT_REASONING_REPLAY_MAX_AGE_MS = 86_400_000;

/** A resolved provider: where and how to reach one model endpoint. */
export interface ProviderConfig {
  /** Provider id as configured, e.g. `local`, `openai`, `openrouter`. */
  id: string;
  /** The resolved wire surface for this model (PR7, see {@link resolveSurface}). */
  transport: WireSurface;
  /** Base URL up to and including the API version segment, e.g. `http://127.0.0.1:4000/v1`. */
  baseUrl: string;
  /** Name of the environment variable holding the API key (may be unset for local servers). */
  apiKeyEnv?: string;
  retry: ProviderRetry;
  /** PR5: ms to wait for response headers (default 330000). */
  headerTimeoutMs: number;
  /** PR5: ms of silence allowed between stream chunks (default 120000). */
  chunkTimeoutMs: number;
  /** PR8: `encrypted` requests and replays reasoning capsules (Responses only); absent = `off`. */
  reasoningReplay?: ReasoningReplay;
  /** PR8: capsules older than this (ms) are withheld at request time; absent = {@link DEFAULT_REASONING_REPLAY_MAX_AGE_MS}. */
  reasoningReplayMaxAgeMs?: number;
  /** Anthropic extended thinking budget, in tokens (≥ 1024); absent = thinking off. */
  thinkingBudgetTokens?: number;
}

/** Wire family of a configured provider: OpenAI-style (Chat Completions or Responses) or Anthropic Messages. */
export type ProviderFamily = 'openai' | 'anthropic';
/** Surface a config may ask for on an OpenAI-style provider. */
export type OpenAiSurface = 'chat' | 'responses';

/**
 * Fixed profiles (PR7): catalog providers whose surface is known regardless
 * of a provider-level `surface` setting. Only an explicit per-model surface
 * overrides them.
 */
export const FIXED_PROFILE_SURFACES: Readonly<Record<string, WireSurface>> = Object.freeze({
  openai: 'responses',
  xai: 'responses',
  openrouter: 'chat-completions',
  anthropic: 'anthropic-messages',
});

/**
 * PR7 wire-surface precedence: explicit model surface > the provider's
 * fixed profile (the adapter's resolved default) > the provider-level
 * `surface` (spec) > Chat Completions for an OpenAI-style endpoint nobody
 * said more about. An Anthropic-family provider always speaks Messages.
 * Pure.
 */
export function resolveSurface(input: {
  providerId: string;
  family: ProviderFamily;
  specSurface?: OpenAiSurface;
  modelSurface?: OpenAiSurface;
}): WireSurface {
  if (input.family === 'anthropic') return 'anthropic-messages';
  const asWire = (s: OpenAiSurface): WireSurface => (s === 'responses' ? 'responses' : 'chat-completions');
  if (input.modelSurface) return asWire(input.modelSurface);
  const fixed = FIXED_PROFILE_SURFACES[input.providerId];
  if (fixed && fixed !== 'anthropic-messages') return fixed;
  if (input.specSurface) return asWire(input.specSurface);
  return 'chat-completions';
}
