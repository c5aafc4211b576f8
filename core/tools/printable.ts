/**
 * A text argument a person will read (a title, a criterion, a question):
 * trimmed, not empty, at most `max` UTF-16 units, and with at least one
 * printable character — text made only of control characters is refused
 * `invalid_arguments` (issue 26 item 8). Deterministic: zod only.
 */
import { z } from 'zod';
import { hasPrintable } from '../terminal-text.js';

/** The message of a text with no printable character. */
export const NO_PRINTABLE = 'has no printable character (only control characters)';

/**
 * @param max longest text after trimming, in UTF-16 units.
 * @returns a zod string schema: trim, min 1, max `max`, at least one printable character.
 */
export function printableText(max: number) {
  return z.string().trim().min(1).max(max).refine(hasPrintable, NO_PRINTABLE);
}
