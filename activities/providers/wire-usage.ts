/**
 * Wire usage objects mapped to {@link Usage} (PR11). Pure. The OpenAI
 * surfaces (Chat Completions, Responses) carry the same five figures under
 * surface-specific names; {@link mapOpenAiUsage} maps either. Anthropic's
 * figures (`anthropic-usage.ts`) are read with the same {@link wireCount}.
 */
import type { Usage } from '../../core/messages.js';

/**
 * A token count as sent on the wire: a whole number ≥ 0 (`12.0` is 12),
 * else undefined — negative, fractional, non-numeric or non-finite values
 * count as not sent, never as a made-up figure.
 */
export const wireCount = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;

const sub = (v: unknown, k: string): number | undefined =>
  v !== null && typeof v === 'object' ? wireCount((v as Record<string, unknown>)[k]) : undefined;

/** Wire names of the figures of one surface's usage object. */
export interface OpenAiUsageFields {
  /** Input tokens (cached ones counted inside), e.g. `prompt_tokens`. */
  input: string;
  /** Output tokens, e.g. `completion_tokens`. */
  output: string;
  /** Object holding `cached_tokens`, e.g. `prompt_tokens_details`. */
  inputDetails: string;
  /** Object holding `reasoning_tokens`, e.g. `completion_tokens_details`. */
  outputDetails: string;
}

/**
 * Map a wire `usage` object to {@link Usage} (PR11: a field not sent stays
 * undefined, never 0): `fields.input` → inputTokens, `fields.output` →
 * outputTokens, `fields.inputDetails.cached_tokens` → cachedInputTokens,
 * `fields.outputDetails.reasoning_tokens` → reasoningTokens, `total_tokens`
 * → totalTokens. Values as {@link wireCount}.
 * @returns undefined when the value is not an object or carries no known field.
 */
export function mapOpenAiUsage(wire: unknown, fields: OpenAiUsageFields): Usage | undefined {
  if (wire === null || typeof wire !== 'object') return undefined;
  const w = wire as Record<string, unknown>;
  const u: Usage = {};
  const input = wireCount(w[fields.input]);
  const output = wireCount(w[fields.output]);
  const cached = sub(w[fields.inputDetails], 'cached_tokens');
  const reasoning = sub(w[fields.outputDetails], 'reasoning_tokens');
  const total = wireCount(w.total_tokens);
  if (input !== undefined) u.inputTokens = input;
  if (output !== undefined) u.outputTokens = output;
  if (cached !== undefined) u.cachedInputTokens = cached;
  if (reasoning !== undefined) u.reasoningTokens = reasoning;
  if (total !== undefined) u.totalTokens = total;
  return Object.keys(u).length > 0 ? u : undefined;
}
