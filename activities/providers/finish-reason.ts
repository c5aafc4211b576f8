/** Normalization of wire finish/stop reasons to the provider-neutral {@link FinishReason}. */
import type { FinishReason } from '../../core/messages.js';

/**
 * Normalize a wire finish reason (Chat Completions `finish_reason`,
 * Anthropic `stop_reason`, Responses `incomplete_details.reason`):
 * `stop`/`eos`/`end_turn`/`stop_sequence` → `stop`;
 * `tool_calls`/`function_call`/`tool_use` → `tool_calls`;
 * `length`/`max_tokens`/`max_output_tokens`/`model_length` → `length`;
 * `content_filter`/`safety`/`refusal` → `content_filter`; anything else → `other`.
 */
export function normalizeFinishReason(raw: string): FinishReason {
  switch (raw) {
    case 'stop':
    case 'eos':
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_calls':
    case 'function_call':
    case 'tool_use':
      return 'tool_calls';
    case 'length':
    case 'max_tokens':
    case 'max_output_tokens':
    case 'model_length':
      return 'length';
    case 'content_filter':
    case 'safety':
    case 'refusal':
      return 'content_filter';
    default:
      return 'other';
  }
}
