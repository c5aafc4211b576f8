/**
 * Anthropic Messages usage, normalized to {@link Usage} (PR11). Pure.
 *
 * Anthropic's `input_tokens` counts only the UNCACHED input; cache reads
 * (`cache_read_input_tokens`) and cache writes (`cache_creation_input_tokens`)
 * come on top. Zuno's `inputTokens` is all input, so it is the sum of the
 * three. A field never reported stays undefined (unknown ≠ 0).
 */
import type { Usage } from '../../core/messages.js';
import { wireCount } from './wire-usage.js';

/**
 * Usage of one Messages response, folded from the wire `usage` objects in
 * arrival order (`message_start.message.usage`, then `message_delta.usage`;
 * or the `usage` of a non-streaming message). For each field the last value
 * reported wins (the final `message_delta` may correct the input figures).
 */
export class AnthropicUsage {
  private input: number | undefined;
  private cacheRead: number | undefined;
  private cacheWrite: number | undefined;
  private output: number | undefined;
  private thinking: number | undefined;

  /**
   * Fold one wire usage object; non-numeric or negative fields are ignored.
   * @param withOutput whether its `output_tokens` is a final count: false for
   *   `message_start` (a placeholder of 1–2 tokens), true for `message_delta`
   *   (cumulative) and non-streaming messages.
   */
  absorb(wire: unknown, withOutput: boolean): void {
    if (wire === null || typeof wire !== 'object' || Array.isArray(wire)) return;
    const w = wire as Record<string, unknown>;
    this.input = wireCount(w.input_tokens) ?? this.input;
    this.cacheRead = wireCount(w.cache_read_input_tokens) ?? this.cacheRead;
    this.cacheWrite = wireCount(w.cache_creation_input_tokens) ?? this.cacheWrite;
    if (!withOutput) return;
    this.output = wireCount(w.output_tokens) ?? this.output;
    const details = w.output_tokens_details;
    if (details !== null && typeof details === 'object') {
      this.thinking = wireCount((details as Record<string, unknown>).thinking_tokens) ?? this.thinking;
    }
  }

  /**
   * The normalized usage, or undefined when nothing was reported:
   * `inputTokens` = input_tokens + cache_read + cache_creation (only when
   * input_tokens is known; an unreported cache field adds nothing),
   * `cachedInputTokens` = cache_read_input_tokens, `cacheWriteInputTokens` =
   * cache_creation_input_tokens, `outputTokens` = the final output_tokens,
   * `reasoningTokens` = output_tokens_details.thinking_tokens. No
   * `totalTokens` (Anthropic reports none).
   */
  get usage(): Usage | undefined {
    const u: Usage = {};
    if (this.input !== undefined) u.inputTokens = this.input + (this.cacheRead ?? 0) + (this.cacheWrite ?? 0);
    if (this.cacheRead !== undefined) u.cachedInputTokens = this.cacheRead;
    if (this.cacheWrite !== undefined) u.cacheWriteInputTokens = this.cacheWrite;
    if (this.output !== undefined) u.outputTokens = this.output;
    if (this.thinking !== undefined) u.reasoningTokens = this.thinking;
    return Object.keys(u).length > 0 ? u : undefined;
  }
}
