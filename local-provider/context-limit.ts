/**
 * Context windows on the local provider (docs/compaction.md "Scripted
 * models and compaction"): a script's `contextWindow` refuses a request
 * whose estimated size exceeds it, and the fault `contextLimit: true`
 * refuses one request, both with the surface's real context-limit error —
 * Chat Completions and Responses: HTTP 400 `{error:{message:"This model's
 * maximum context length is L tokens. However, your messages resulted in U
 * tokens…", type:"invalid_request_error", code:"context_length_exceeded"}}`;
 * Anthropic: HTTP 400 `{type:"error", error:{type:"invalid_request_error",
 * message:"prompt is too long: U tokens > L maximum"}}`.
 */
import type { SurfaceCodec } from './surface.js';

/**
 * Estimated tokens of a request: ⌈characters / 4⌉ of what the surface counts
 * as its prompt (Chat/Anthropic `messages` and `system`, Responses `input`
 * and `instructions`, and the `tools` of each).
 */
export function requestTokens(codec: SurfaceCodec, body: Record<string, unknown>): number {
  return Math.ceil(codec.promptChars(body) / 4);
}

/** The message and error code (Anthropic: error type) of a context-limit error on `codec`'s surface. */
export function contextLimitError(codec: SurfaceCodec, used: number, limit: number): { message: string; code: string } {
  if (codec.surface === 'anthropic-messages') {
    return { message: `prompt is too long: ${used} tokens > ${limit} maximum`, code: 'invalid_request_error' };
  }
  return {
    message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${used} tokens. Please reduce the length of the messages.`,
    code: 'context_length_exceeded',
  };
}
