/**
 * Model-facing rendering of apply_patch outcomes as a `ToolResult` (the shape
 * every tool activity returns). Pure; the tool wiring calls it.
 */
import type { ToolResult } from '../../../core/tools/types.js';
import type { PatchSyntaxError } from './errors.js';
import type { ApplyPatchResult, FileChange } from './result.js';

const LETTER: Record<FileChange['op'], string> = { add: 'A', update: 'M', delete: 'D', move: 'R' };
const FUZZ_NOTE = [
  '',
  ' (matched ignoring trailing whitespace)',
  ' (matched ignoring indentation)',
  ' (matched after normalizing punctuation)',
];

/**
 * Renders an `applyPatch` result.
 *
 * @returns `applied`: `isError: false`, one `A|M|D|R path` line per change,
 *   `data.changes` (with diffs and credentials); `conflict`: `errorCode` is the
 *   conflict kind (`ReadRequired` …), the output names the resource, the hunk
 *   and the required action, `data` is the conflict; `failed`: `errorCode` is
 *   the failure code; `uncertain`: `errorCode: 'uncertain'`, `data.uncertain`.
 */
export function renderApplyPatchResult(result: ApplyPatchResult): ToolResult {
  switch (result.status) {
    case 'applied': {
      const lines = result.changes.map(
        (c) => `${LETTER[c.op]} ${c.from !== undefined ? `${c.from} -> ${c.path}` : c.path}${FUZZ_NOTE[c.fuzz]}`,
      );
      return {
        output: `Success. Updated the following files:\n${lines.join('\n')}`,
        isError: false,
        data: { changes: result.changes },
      };
    }
    case 'conflict': {
      const more = result.others.map((o) => `\n- ${o.conflict} on ${o.resource}: ${o.requiredAction}`).join('');
      return {
        output: `${result.conflict}: ${result.message}\nRequired action: ${result.requiredAction}${more ? `\nAlso:${more}` : ''}`,
        isError: true,
        errorCode: result.conflict,
        data: { ...result },
      };
    }
    case 'failed':
      return { output: result.message, isError: true, errorCode: result.code, data: { ...result } };
    case 'uncertain':
      return { output: result.message, isError: true, errorCode: 'uncertain', data: { uncertain: result.uncertain } };
  }
}

/** Renders a patch syntax error as the `invalid_arguments` error result (TD8). */
export function renderPatchSyntaxError(err: PatchSyntaxError): ToolResult {
  return {
    output: `${err.message} Fix the patch and send it again.`,
    isError: true,
    errorCode: 'invalid_arguments',
    data: { line: err.line, expected: err.expected, found: err.found },
  };
}
