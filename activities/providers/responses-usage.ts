/** Usage of an OpenAI Responses answer (PR11), from its terminal `response.usage` object. Pure. */
import type { Usage } from '../../core/messages.js';
import { mapOpenAiUsage, type OpenAiUsageFields } from './wire-usage.js';

const RESPONSES_USAGE_FIELDS: OpenAiUsageFields = {
  input: 'input_tokens',
  output: 'output_tokens',
  inputDetails: 'input_tokens_details',
  outputDetails: 'output_tokens_details',
};

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
  return mapOpenAiUsage(wire, RESPONSES_USAGE_FIELDS);
}
