import { ApplicationFailure } from '@temporalio/workflow';
import type { SessionPhase } from '../core/session/state.js';

/** The fields a `resume` payload may carry. */
const RESUME_FIELDS = new Set(['route', 'provider', 'model', 'source']);

/**
 * Validator of the `resume` Update: only a paused session resumes, once per
 * pause; the payload is an object of known fields (`route` and `provider`
 * objects, `model` and `source` strings). Pure apart from the typed failure.
 * @throws ApplicationFailure `session_not_paused` (with the phase) or `input_invalid` (naming the field).
 */
export function validateResume(req: unknown, phase: SessionPhase, alreadyAsked: boolean): void {
  if (req !== undefined && (typeof req !== 'object' || req === null || Array.isArray(req))) {
    throw ApplicationFailure.nonRetryable(
      'resume request must be an object {route?, provider?, model?, source?}',
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
  if (phase !== 'paused' || alreadyAsked) {
    throw ApplicationFailure.nonRetryable(
      alreadyAsked
        ? 'the session is already resuming'
        : `the session is not paused (it is ${phase}); only a paused session resumes`,
      'session_not_paused',
    );
  }
}
