/**
 * Token estimates of requests (SPEC CP1, CP6, PR11; docs/compaction.md "How
 * request size is counted"): a BPE tokenizer per provider family instead of
 * 4 characters per token. Activity-side (the tokenizer's tables are large);
 * workflows receive the numbers.
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { ModelMessage, ToolSpec, WireSurface } from '../../../core/messages.js';

/** A tokenizer estimate: its id (recorded with every figure it produced) and how it counts a text. */
export interface TokenEstimator {
  /** `o200k_base` (OpenAI surfaces) or `o200k_base≈anthropic` (Anthropic Messages). */
  id: string;
  /** Tokens of `text`, before the estimator's factor. */
  count(text: string): number;
  /** Multiplier applied to a whole request's count (1 for an exact tokenizer). */
  factor: number;
}

/**
 * Tokens added per message for its role and delimiters: OpenAI's chat
 * format spends 3 (`<|start|>role<|message|>…<|end|>`); one more covers
 * the Responses item and Anthropic content-block wrappers.
 */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Tokens added per tool call or tool result for its call id and wrapper. */
export const CALL_OVERHEAD_TOKENS = 4;
/** Tokens added once per request (the reply's priming, `<|start|>assistant`). */
export const REQUEST_OVERHEAD_TOKENS = 3;
/**
 * Safety factor of the Anthropic estimate: Anthropic publishes no
 * tokenizer for current Claude models, and its count of English and code
 * runs above o200k_base's (about 10–30 % on Zuno's transcripts as reported
 * by the API); 1.2 errs towards compacting early, never late by much.
 */
export const ANTHROPIC_FACTOR = 1.2;

/** Special-token text (`<|endoftext|>`) in a transcript is ordinary text, never an error. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** o200k_base, exact for gpt-4o, gpt-4.1, gpt-5, o3, o4-mini. */
const O200K: TokenEstimator = { id: 'o200k_base', count: (t) => countTokens(t, AS_TEXT), factor: 1 };
/** o200k_base times {@link ANTHROPIC_FACTOR}, named so nobody mistakes it for Anthropic's count. */
const O200K_ANTHROPIC: TokenEstimator = { ...O200K, id: 'o200k_base≈anthropic', factor: ANTHROPIC_FACTOR };

/** The estimator of a wire surface: o200k_base for Chat Completions and Responses, its Anthropic variant for Messages. */
export function estimatorFor(surface: WireSurface): TokenEstimator {
  return surface === 'anthropic-messages' ? O200K_ANTHROPIC : O200K;
}

/** The estimator recorded as `id` (usage events name theirs); unknown ids get o200k_base. */
export function estimatorById(id: string): TokenEstimator {
  return id === O200K_ANTHROPIC.id ? O200K_ANTHROPIC : O200K;
}

/** Tokens of one text under `estimator` (default o200k_base), its factor applied, rounded up. */
export function estimateTextTokens(text: string, estimator: TokenEstimator = O200K): number {
  return Math.ceil(estimator.count(text) * estimator.factor);
}

/** Unscaled tokens of one message: its texts, tool calls (name + argument text), reasoning text (never capsules). */
function messageTokens(m: ModelMessage, count: (t: string) => number): number {
  switch (m.role) {
    case 'system':
    case 'user':
      return MESSAGE_OVERHEAD_TOKENS + count(m.text);
    case 'tool':
      return MESSAGE_OVERHEAD_TOKENS + CALL_OVERHEAD_TOKENS + count(m.name) + count(m.content);
    case 'assistant': {
      let n = MESSAGE_OVERHEAD_TOKENS;
      if (!m.parts) {
        n += count(m.text);
        for (const c of m.toolCalls) n += CALL_OVERHEAD_TOKENS + count(c.name) + count(c.argsJson);
        return n;
      }
      for (const p of m.parts) {
        // Reasoning text counts (a surface that drops it is over-estimated); its encrypted capsule cannot be counted.
        if (p.kind === 'tool_call') n += CALL_OVERHEAD_TOKENS + count(p.name) + count(p.argsJson);
        else n += count(p.text);
      }
      return n;
    }
  }
}

/**
 * The estimated size of a request, in tokens: per message its texts plus
 * {@link MESSAGE_OVERHEAD_TOKENS}, per tool call or result
 * {@link CALL_OVERHEAD_TOKENS} more, each tool schema as its JSON text
 * (providers render schemas more compactly: an over-estimate), plus
 * {@link REQUEST_OVERHEAD_TOKENS}; times the estimator's factor, rounded
 * up. Encrypted reasoning capsules are not counted (their size is the
 * provider's secret; its reported usage covers them). `estimator` defaults
 * to o200k_base.
 */
export function estimateRequestTokens(
  messages: readonly ModelMessage[],
  tools: readonly ToolSpec[],
  estimator: TokenEstimator = O200K,
): { tokens: number; estimator: string } {
  const count = estimator.count;
  let n = REQUEST_OVERHEAD_TOKENS;
  for (const m of messages) n += messageTokens(m, count);
  for (const t of tools) {
    n +=
      MESSAGE_OVERHEAD_TOKENS +
      count(JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters }));
  }
  return { tokens: Math.ceil(n * estimator.factor), estimator: estimator.id };
}

/**
 * {@link estimateRequestTokens} with the surface's estimator
 * ({@link estimatorFor}), shaped for `usageEvent`: `{requestTokens, estimator}`.
 */
export function requestEstimate(
  messages: readonly ModelMessage[],
  tools: readonly ToolSpec[],
  surface: WireSurface,
): { requestTokens: number; estimator: string } {
  const e = estimateRequestTokens(messages, tools, estimatorFor(surface));
  return { requestTokens: e.tokens, estimator: e.estimator };
}
