/**
 * What `zuno session show` says about one tool-call row's structured result:
 * the shell receipt and how it was confined, an uncertain record (GP9) and, when the workflow's
 * settlement met a result that had already committed, which result stands
 * and why. Parsed with zod from the stored JSON (never cast): a row with
 * other or older fields simply shows less.
 */
import { interruptVerdict } from '../../core/session/interrupt-verdict.js';
import { z } from 'zod';
import { workflowSawSchema } from '../../core/events.js';
import { timedOutWords } from '../../core/tools/shell.js';

const viewSchema = z.object({
  receipt: z
    .object({
      id: z.string(),
      verdict: z.string(),
      exitCode: z.number().optional(),
      signal: z.string().optional(),
      authority: z.string().optional(),
      sandbox: z.object({ backend: z.string(), mode: z.string(), network: z.string() }).optional().catch(undefined),
    })
    .optional()
    .catch(undefined),
  /**
   * GP9 record written by the workflow ({cause, paths}), apply_patch's own
   * ({cause, changedPaths}), or the tool's own report (SH5: `true` + `uncertainCause`).
   */
  uncertain: z
    .union([
      z.literal(true),
      z.object({
        cause: z.string(),
        paths: z.array(z.string()).optional(),
        changedPaths: z.array(z.string()).optional(),
      }),
    ])
    .optional()
    .catch(undefined),
  uncertainCause: z.string().optional().catch(undefined),
  /** Shell: the call's time limit, in ms, when the command hit it. */
  timeLimitMs: z.number().optional().catch(undefined),
  settlement: z.object({ stands: z.string(), workflowSaw: workflowSawSchema }).optional().catch(undefined),
});

/**
 * Lines (without indentation) describing a tool-call row's stored result, in
 * plain words and without internal ids: the receipt's verdict and sandbox (SH10), why the
 * outcome is uncertain and which paths it may have changed, which result
 * stands after a settlement.
 * @param result the row's `result` JSON (null/absent: no lines). Pure.
 */
export function toolRecordFacts(result: Record<string, unknown> | null | undefined): string[] {
  const parsed = viewSchema.safeParse(result ?? {});
  if (!parsed.success) return [];
  const { receipt, uncertain, uncertainCause, timeLimitMs, settlement } = parsed.data;
  const lines: string[] = [];
  if (receipt) {
    lines.push(
      `receipt: ${receipt.verdict}` +
        `${receipt.exitCode !== undefined ? `, exit ${receipt.exitCode}` : ''}` +
        `${receipt.signal ? `, signal ${receipt.signal}` : ''}, authority ${receipt.authority ?? 'unknown'}`,
    );
    // The signal was ours, sent at the limit: say so rather than leave "signal SIGTERM" to explain itself.
    if (timeLimitMs !== undefined) lines.push(`stopped: the command ${timedOutWords(timeLimitMs)}`);
    const box = receipt.sandbox;
    if (box)
      lines.push(
        box.backend === 'bubblewrap'
          ? `sandbox: bubblewrap ${box.mode}, network ${box.network === 'deny' ? 'denied' : 'allowed'}`
          : `sandbox: none, ran unconfined (${box.backend})`,
      );
  }
  if (uncertain === true)
    lines.push(
      uncertainCause
        ? interruptVerdict({ outcome: 'uncertain', cause: uncertainCause })
        : 'uncertain: the tool could not settle the outcome',
    );
  else if (uncertain) {
    const paths = uncertain.paths?.length ? uncertain.paths : (uncertain.changedPaths ?? []);
    lines.push(interruptVerdict({ outcome: 'uncertain', cause: uncertain.cause, paths }));
  }
  if (settlement) {
    const w = settlement.workflowSaw;
    lines.push(
      `result stands: the call's own ${settlement.stands} result had committed before the workflow settled it ` +
        `(the workflow saw ${w.failureType}, ${w.cause}: ${w.message}; it would have recorded ${w.outcome})`,
    );
  }
  return lines;
}

const factsSchema = z.object({
  facts: z.object({ failed: z.boolean().optional(), exitCode: z.number().optional() }).optional().catch(undefined),
});

/**
 * How a tool-call row's outcome reads for people: `failed (exit 1)` for a
 * call whose own result is `ok` but whose deciding facts say it did not do
 * what it was asked (a shell exit ≠ 0); otherwise the stored outcome. Pure.
 */
export function outcomeWord(outcome: string, result: Record<string, unknown> | null | undefined): string {
  const facts = factsSchema.safeParse(result ?? {}).data?.facts;
  return readsFailed(outcome, facts) && outcome === 'ok'
    ? `failed${facts?.exitCode !== undefined ? ` (exit ${facts.exitCode})` : ''}`
    : outcome;
}

/**
 * Whether a tool call reads as failed to people: its outcome is an error or
 * blocked, or it ran but its deciding facts say it did not do what it was
 * asked (`failed`, e.g. a shell exit ≠ 0). Used by `zuno run`'s marks and
 * `session show`. Pure.
 */
export function readsFailed(outcome: string, facts: { failed?: boolean } | undefined): boolean {
  return outcome === 'error' || outcome === 'blocked' || facts?.failed === true;
}
