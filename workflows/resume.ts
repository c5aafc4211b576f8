import { ApplicationFailure } from '@temporalio/workflow';
import type { SessionPhase } from '../core/session/state.js';

/** The fields a `resume` payload may carry. */
const RESUME_FIELDS = new Set(['route', 'provider', 'model', 'context', 'source']);

/**
 * Validator of the `resume` Update: only a paused session resumes, once per
 * pause; the payload is an object of known fields (`route` and `provider`
 * objects, `model` and `source` strings, `context` a window or null). Pure
 * apart from the typed failure.
 * @throws ApplicationFailure `session_not_paused` (with the phase) or `input_invalid` (naming the field).
 */
export function validateResume(req: unknown, phase: SessionPhase, alreadyAsked: boolean): void {
  if (req !== undefined && (typeof req !== 'object' || req === null || Array.isArray(req))) {
    throw ApplicationFailure.nonRetryable(
      'resume request must be an object {route?, provider?, model?, context?, source?}',
      'input_invalid',
    );
  }
  const r = (req ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(r).find((k) => !RESUME_FIELDS.has(k));
  if (unknown !== undefined) {
    throw ApplicationFailure.nonRetryable(
      `resume.${unknown.slice(0, 60)} is not a field of a resume request`,
      'input_invalid',
    );
  }
  for (const k of ['route', 'provider'] as const) {
    if (r[k] !== undefined && (typeof r[k] !== 'object' || r[k] === null || Array.isArray(r[k]))) {
      throw ApplicationFailure.nonRetryable(`resume.${k} must be an object when given`, 'input_invalid');
    }
  }
  for (const k of ['model', 'source'] as const) {
    if (r[k] !== undefined && (typeof r[k] !== 'string' || r[k] === '')) {
      throw ApplicationFailure.nonRetryable(`resume.${k} must be a non-empty string when given`, 'input_invalid');
    }
  }
  if (r.context !== undefined && r.context !== null && !isWindow(r.context)) {
    throw ApplicationFailure.nonRetryable(
      'resume.context must be null or {windowTokens, outputReserveTokens, source} with whole token counts',
      'input_invalid',
    );
  }
  if (phase !== 'paused' || alreadyAsked) {
    throw ApplicationFailure.nonRetryable(
      alreadyAsked
        ? 'the session is already resuming'
        : `the session is not paused (it is ${phase}); only a paused session resumes`,
      'session_not_paused',
    );
  }
}

/** A context window as the session meta carries it (core/compaction/settings.ts ContextWindow). */
function isWindow(v: unknown): boolean {
  const w = v as Record<string, unknown>;
  const count = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n >= 0;
  return (
    typeof v === 'object' &&
    !Array.isArray(v) &&
    count(w.windowTokens) &&
    (w.windowTokens as number) > 0 &&
    count(w.outputReserveTokens) &&
    (w.source === 'config' || w.source === 'builtin')
  );
}
