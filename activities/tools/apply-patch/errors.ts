/**
 * The typed syntax error of the patch parser (FT3: "patch syntax errors are
 * InvalidArgs"; TD8 category `invalid_arguments`).
 */
import { ZunoError } from '../../../core/errors.js';

/**
 * Thrown by `parsePatch` when the patch text is not in the patch format.
 * `code` is always `invalid_arguments`; `line` is the 1-based line of the
 * patch text (as given, before any trimming) where parsing failed, `found` the
 * offending line (or `''` at the end of the text) and `expected` what would
 * have been valid there. The message names all three, for the model.
 */
export class PatchSyntaxError extends ZunoError {
  /** 1-based line number in the patch text as given. */
  readonly line: number;
  /** What the parser expected at that line. */
  readonly expected: string;
  /** The line that was found (cut to 200 characters). */
  readonly found: string;

  constructor(line: number, found: string, expected: string, problem?: string) {
    const shown = found.length > 200 ? `${found.slice(0, 200)}…` : found;
    const what = problem ?? (found === '' ? 'the patch ends here' : `found ${JSON.stringify(shown)}`);
    super('invalid_arguments', `Invalid patch at line ${line}: ${what}; expected ${expected}.`, {
      line,
      expected,
      found: shown,
    });
    this.name = 'PatchSyntaxError';
    this.line = line;
    this.expected = expected;
    this.found = shown;
  }
}
