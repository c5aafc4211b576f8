/** Usage of an OpenAI Responses answer (PR11), from its terminal `response.usage` object. Pure. */
import type { Usage } from '../../core/messages.js';

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
const sub = (v: unknown, k: string): number | undefined =>
  v !== null && typeof v === 'object' ? num((v as Record<string, unknown>)[k]) : undefined;

/**
 * Map a Responses wire `usage` object to {@link Usage} (PR11: a field not
 * sent stays undefined, never 0). Tokens, all of them:
 * `input_tokens` → inputTokens (cached tokens are counted INSIDE it, as
 * OpenAI reports), `input_tokens_details.cached_tokens` → cachedInputTokens,
 * `output_tokens` → outputTokens, `output_tokens_details.reasoning_tokens` →
 * reasoningTokens (part of the output), `total_tokens` → totalTokens.
 * Negative, non-numeric or non-finite values count as not sent.
 * @returns undefined when the value is not an object or carries no known field.
 */
export function mapResponsesUsage(wire: unknown): Usage | undefined {
  if (wire === null || typeof wire !== 'object') return undefined;
  const w = wire as Record<string, unknown>;
  const u: Usage = {};
  const input = num(w.input_tokens);
  const output = num(w.output_tokens);
  const cached = sub(w.input_tokens_details, 'cached_tokens');
  const reasoning = sub(w.output_tokens_details, 'reasoning_tokens');
  const total = num(w.total_tokens);
  if (input !== undefined) u.inputTokens = input;
  if (output !== undefined) u.outputTokens = output;
  if (cached !== undefined) u.cachedInputTokens = cached;
  if (reasoning !== undefined) u.reasoningTokens = reasoning;
  if (total !== undefined) u.totalTokens = total;
  return Object.keys(u).length > 0 ? u : undefined;
}
