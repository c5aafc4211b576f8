import { ZunoError } from '../core/errors.js';

/**
 * Checks a goal id given on the command line before anything is opened or
 * contacted. Its own module (no Temporal imports) so `goal show` and
 * `goal list` start fast.
 * @throws ZunoError `usage_error` for an empty or malformed id (expected `goal_…`, as `zuno goal start` prints it).
 */
export function checkGoalId(id: string): string {
  if (!/^goal_[0-9A-Za-z_-]{1,100}$/.test(id)) {
    throw new ZunoError(
      'usage_error',
      `"${id.slice(0, 60)}" is not a goal id (expected goal_…, as zuno goal start prints it; zuno goal list shows them)`,
    );
  }
  return id;
}
