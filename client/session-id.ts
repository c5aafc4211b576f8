import { ZunoError } from '../core/errors.js';

/**
 * Checks a session id given on the command line before anything is contacted.
 * Its own module (no Temporal imports) so `session show` starts fast.
 * @throws ZunoError `session_id_invalid` for an empty or malformed id (expected `ses_…`).
 */
export function checkSessionId(id: string): string {
  if (!/^ses_[0-9A-Za-z_-]{1,100}$/.test(id)) {
    throw new ZunoError(
      'session_id_invalid',
      `"${id.slice(0, 60)}" is not a session id (expected ses_…, as zuno run prints it)`,
    );
  }
  return id;
}
