/**
 * Base class of every typed Zuno error. `code` is stable and machine-readable;
 * callers branch on `code` (or `instanceof`), never on `message`.
 * Deterministic: safe to import from workflow code.
 */
export class ZunoError extends Error {
  /** Stable error code, e.g. `config_invalid`, `rg_missing`, `temporal_unreachable`. */
  readonly code: string;
  /** Optional structured details (kept small and free of secrets). */
  readonly details?: Record<string, unknown>;

  constructor(code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'ZunoError';
    this.code = code;
    if (details !== undefined) this.details = details;
  }
}
