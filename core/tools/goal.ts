/**
 * Declarations of the Goal tools `goal_get`, `goal_update`,
 * `goal_request_input` (GL38–GL40; their schemas are a SEED-GAP decided in
 * docs/goals.md). Deterministic: zod + pure code only. The implementations
 * are activities/tools/goal-*.ts; they reach the session's Goal through the
 * `goal` workflow, which owns it.
 */
import { z } from 'zod';
import { printableText } from './printable.js';
import type { ToolDeclaration } from './types.js';
import { summaryLine } from './summary.js';

/** A receipt id as the model may cite it: `rcp_…` or `[verification rcp_…]`. */
const RECEIPT = /^(?:\[verification\s+)?(rcp_[0-9a-f]{16})\]?$/;

/** The bare `rcp_…` id of a cited receipt, or null when `text` is not one. */
export function receiptIdOf(text: string): string | null {
  return RECEIPT.exec(text.trim())?.[1] ?? null;
}

const revision = z
  .number()
  .int()
  .min(1)
  .describe('The goal revision goal_get returned just now, copied verbatim. A stale revision is refused.');

/** Arguments of `goal_get`: none. */
export const goalGetArgs = z.strictObject({});

/** Arguments of `goal_update` (one atomic change: GL30). */
export const goalUpdateArgs = z
  .strictObject({
    expected_revision: revision,
    add_criteria: z
      .array(
        z.strictObject({
          text: printableText(500).describe('What must be true for the goal to be done.'),
          needs_evidence: z
            .boolean()
            .optional()
            .describe('true: only a passing, authoritative shell receipt can satisfy it. Default false.'),
          check: printableText(1000)
            .optional()
            .describe(
              'The shell command that owns this criterion, e.g. "bash ci.sh": only a passing, authoritative receipt of exactly that command, with no file written after it, satisfies it (implies needs_evidence).',
            ),
        }),
      )
      .max(20)
      .optional()
      .describe('Completion criteria to add (the host gives them ids cr_<n>).'),
    settle: z
      .array(
        z.strictObject({
          id: z.string().regex(/^cr_\d+$/, 'a criterion id is cr_<n>, as goal_get lists it'),
          status: z.enum(['satisfied', 'dropped']),
          evidence: z
            .string()
            .refine(
              (v) => receiptIdOf(v) !== null,
              'evidence is a receipt id: rcp_ + 16 hex digits, as [verification rcp_…] shows it',
            )
            .optional()
            .describe(
              'The [verification rcp_…] receipt of the shell check that proves it (required when the criterion needs evidence).',
            ),
        }),
      )
      .max(50)
      .optional()
      .describe('Settle existing criteria: satisfied (with evidence when it needs some) or dropped.'),
    complete: z
      .boolean()
      .optional()
      .describe(
        'true: complete the goal in the same commit. Refused — with every change of this call rolled back — unless every criterion is settled.',
      ),
  })
  .refine((a) => (a.add_criteria?.length ?? 0) > 0 || (a.settle?.length ?? 0) > 0 || a.complete === true, {
    message: 'goal_update needs add_criteria, settle or complete: true',
  });

/** Arguments of `goal_request_input` (GL39). */
export const goalRequestInputArgs = z.strictObject({
  expected_revision: revision,
  question: z
    .string()
    .trim()
    .min(1)
    .max(2000)
    .describe('What only the user can tell or give you, asked plainly. The goal waits for their answer.'),
});

export type GoalGetArgs = z.infer<typeof goalGetArgs>;
export type GoalUpdateArgs = z.infer<typeof goalUpdateArgs>;
export type GoalRequestInputArgs = z.infer<typeof goalRequestInputArgs>;

/** `goal_get`: ReadOnly, Safe (GL38: goal status reads are replay Safe), ParallelSafe. */
export const goalGetDeclaration: ToolDeclaration<GoalGetArgs> = {
  name: 'goal_get',
  effect: 'ReadOnly',
  replay: 'Safe',
  concurrency: 'ParallelSafe',
  args: goalGetArgs,
  summarize() {
    return 'goal_get';
  },
};

/**
 * `goal_update`: a durable-state mutation (SideEffecting: strict mode asks,
 * GL38), replay Safe because it is idempotent — its Update id is derived
 * from the call id, so a second run returns the first result — Exclusive.
 */
export const goalUpdateDeclaration: ToolDeclaration<GoalUpdateArgs> = {
  name: 'goal_update',
  effect: 'SideEffecting',
  replay: 'Safe',
  concurrency: 'Exclusive',
  args: goalUpdateArgs,
  summarize(a) {
    const parts = [
      ...(a.add_criteria?.length ? [`+${a.add_criteria.length} criteria`] : []),
      ...(a.settle ?? []).map((s) => `${s.id} ${s.status}`),
      ...(a.complete ? ['complete'] : []),
    ];
    return summaryLine(`goal_update: ${parts.join(', ')}`);
  },
};

/** `goal_request_input`: UserMediated (it asks the user), replay Safe (idempotent by call id), Exclusive. */
export const goalRequestInputDeclaration: ToolDeclaration<GoalRequestInputArgs> = {
  name: 'goal_request_input',
  effect: 'UserMediated',
  replay: 'Safe',
  concurrency: 'Exclusive',
  args: goalRequestInputArgs,
  summarize(a) {
    return summaryLine(`goal_request_input: ${a.question}`);
  },
};
