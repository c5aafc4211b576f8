/**
 * Base class of every typed Zuno error. `code` is stable and machine-readable;
 * callers branch on `code` (or `instanceof`), never on `message`.
 * Deterministic: safe to import from workflow code.
 */
import type { ErrorCode } from './error-codes.js';

export class ZunoError extends Error {
  /** Stable error code, e.g. `config_invalid`, `rg_missing`, `temporal_unreachable`. */
  readonly code: ErrorCode;
  /** Optional structured details (kept small and free of secrets). */
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'ZunoError';
    this.code = code;
    if (details !== undefined) this.details = details;
  }
}

/**
 * `message` without a leading repeat of `code`, for surfaces that print
 * `<code>: <message>` and must say the code once. Provider errors recorded
 * before their message dropped the code read `<code> [<provider>]: <reason>`;
 * that form becomes `provider <provider>: <reason>` (today's wording). A
 * message that merely starts with the same word (`interrupted before the
 * session started`) is kept: only `<code>:` and `<code> [x]:` are repeats.
 * Pure.
 */
export function messageWithoutCode(message: string, code: string): string {
  const m = message.trimStart();
  if (code === '' || !m.startsWith(code)) return m;
  const rest = m.slice(code.length);
  const provider = /^ \[([^\]\n]*)\]:\s*/.exec(rest);
  if (provider) return `provider ${provider[1]}: ${rest.slice(provider[0].length)}`;
  const colon = /^:\s*/.exec(rest);
  return colon && rest.length > colon[0].length ? rest.slice(colon[0].length) : m;
}
