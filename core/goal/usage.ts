import type { Usage } from '../messages.js';

/**
 * Tokens one provider request spent, as a Goal counts them (GL18, decided in
 * docs/goals.md): the sum of the four PR11 buckets — uncached input, cache
 * read, cache write, output — which is the request's input (at least what
 * the cache read and wrote) plus its output. null when the provider
 * reported neither input nor output (GL15: unmeasurable). Pure.
 */
export function requestTokens(u: Usage | undefined): number | null {
  if (!u || (u.inputTokens === undefined && u.outputTokens === undefined)) return null;
  const cached = (u.cachedInputTokens ?? 0) + (u.cacheWriteInputTokens ?? 0);
  return Math.max(u.inputTokens ?? 0, cached) + (u.outputTokens ?? 0);
}
