/**
 * Criteria that own their check (issue 26 item 6, GL31 "declared checks
 * keep their evidence, freshness, ownership"): a criterion may name the
 * shell command whose receipt alone satisfies it. How a receipt is judged
 * against such a criterion, and against any criterion that needs evidence
 * (GL32). Pure; the `goal` workflow runs it (workflows/goal-update.ts).
 */
import type { GoalCriterion, GoalReceiptFacts } from './contract.js';

/** Longest check command a criterion may own, in UTF-16 units. */
export const MAX_CHECK_CHARS = 1000;

/** Typed refusal codes of evidence (the `goal_update` result's `code` and the model's `errorCode`). */
export type EvidenceCode = 'update_refused' | 'evidence_ambiguous' | 'evidence_not_from_check' | 'evidence_stale';

/** One reason a settlement is refused, with its typed code. */
export interface EvidenceProblem {
  code: EvidenceCode;
  text: string;
}

/**
 * A command as checks compare it: trimmed, every run of white space one
 * space. Nothing else is rewritten — `bash ci.sh || true` and `echo CI
 * passed` stay different commands from `bash ci.sh`.
 */
export function normalizeCommand(command: string): string {
  return command.trim().replace(/\s+/g, ' ');
}

/** Control characters a check may not hold (a tab is white space and allowed). */
// eslint-disable-next-line no-control-regex
const CHECK_CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * Problems of a check command as given (empty: none): empty, too long, or
 * holding a control character — a check is one line of plain text, and a
 * line feed or an escape sequence in it could never match a receipt's
 * command as a person reads it (issue 26 review).
 */
export function checkProblems(check: string, name: string): string[] {
  const t = check.trim();
  if (t === '') return [`${name} is empty: give the command whose passing receipt satisfies the criterion`];
  const out: string[] = [];
  if (t.length > MAX_CHECK_CHARS) out.push(`${name} is ${t.length} characters long, more than ${MAX_CHECK_CHARS}`);
  if (CHECK_CONTROL.test(t))
    out.push(`${name} holds a control character (a line feed, an escape, NUL …): give the command as one line`);
  return out;
}

/**
 * Why receipt `receiptId` (as the `goal_update` activity found it, `r`)
 * does not satisfy criterion `c`, or null when it does. In order:
 * - no receipt cited / not a receipt of this session → `update_refused`;
 * - held by more than one call (ids given before receipts were unique per
 *   call) → `evidence_ambiguous`, never resolved to one of them;
 * - `c` owns a check and the receipt ran another command (normalized
 *   text, {@link normalizeCommand}), or ran it in another directory than
 *   the workspace root (`workdir`) → `evidence_not_from_check`;
 * - not `authoritative`, or not `passed` → `update_refused` (GL32);
 * - `c` owns a check and files were written after the receipt's call →
 *   `evidence_stale` (GL32 freshness).
 * A criterion without a check is judged exactly as before issue 26 (plus
 * the ambiguity refusal).
 */
export function evidenceProblem(
  c: Pick<GoalCriterion, 'id' | 'check'>,
  receiptId: string | undefined,
  r: GoalReceiptFacts | undefined,
): EvidenceProblem | null {
  const refused = (text: string): EvidenceProblem => ({ code: 'update_refused', text });
  if (!receiptId) {
    return refused(
      c.check
        ? `cite the [verification rcp_…] receipt of a passing run of its check \`${c.check}\``
        : 'cite the [verification rcp_…] receipt of a passing check',
    );
  }
  if (!r?.found) return refused(`${receiptId} is not a receipt of a shell call in this goal's session`);
  const ambiguous = ambiguity(receiptId, r);
  if (ambiguous) return ambiguous;
  if (c.check && normalizeCommand(r.command ?? '') !== normalizeCommand(c.check)) {
    return {
      code: 'evidence_not_from_check',
      text: `${c.id} is owned by the check \`${c.check}\`, but ${receiptId} is the receipt of \`${r.command ?? '(no command recorded)'}\`: only a passing receipt of that exact command counts — run it and cite its receipt`,
    };
  }
  if (c.check && r.workdir !== undefined) {
    return {
      code: 'evidence_not_from_check',
      text: `${c.id} is owned by the check \`${c.check}\`, which runs at the workspace root, but ${receiptId} ran in ${r.workdir}: run the check without workdir and cite its receipt`,
    };
  }
  if (r.authority !== 'authoritative')
    return refused(
      `${receiptId} is ${r.authority ?? 'without authority'}, not authoritative: it is recorded but is not evidence`,
    );
  if (r.verdict !== 'passed') return refused(`${receiptId} did not pass (verdict ${r.verdict ?? 'unknown'})`);
  if (c.check && r.writtenAfter && r.writtenAfter.length > 0) {
    return {
      code: 'evidence_stale',
      text: `${receiptId} is stale: files were written after \`${c.check}\` ran (${r.writtenAfter.join(', ')}); run the check again and cite its new receipt`,
    };
  }
  return null;
}

/** `evidence_ambiguous` when more than one call of the session holds the id, else null. */
export function ambiguity(receiptId: string, r: GoalReceiptFacts): EvidenceProblem | null {
  if ((r.matches ?? 1) <= 1) return null;
  return {
    code: 'evidence_ambiguous',
    text: `${receiptId} is held by ${r.matches} calls of this session (an id given before receipts were unique per call), so it does not say which call ran: run the check again and cite its new receipt`,
  };
}

/** The code a refusal reports: the first typed evidence code among `problems`, else `fallback`. */
export function refusalCode(problems: EvidenceProblem[], fallback: EvidenceCode): EvidenceCode {
  return problems.find((p) => p.code !== 'update_refused')?.code ?? fallback;
}
