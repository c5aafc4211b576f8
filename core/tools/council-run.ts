/**
 * Declaration of the `council_run` tool (DC5, DC23–DC27; issue 12 item 5;
 * DC27 SEED-GAP "the council_run arguments", decided in docs/council.md).
 * Runs a `council` child workflow in the foreground and returns its result.
 * Arguments: `question` (required), `diff` (a git range the seats review),
 * `preset` (only `balanced-review`). The preset is frozen (DC23): a call
 * that tries to set a budget, a seat or a quorum is rejected with a note
 * saying so, and nothing starts. Deterministic.
 */
import { z } from 'zod';
import type { DelegatingToolDeclaration } from './types.js';
import { summaryLine } from './summary.js';

/** Keys a model might use to override the frozen preset (answered with a note, DC23). */
const BUDGET_KEYS = [
  'deadline_ms',
  'total_ms',
  'timeout_ms',
  'synthesis_ms',
  'seat_deadline_ms',
  'seats',
  'quorum',
  'retries',
  'budget',
  'budgets',
];

/** A key as compared with {@link BUDGET_KEYS}: lower case, without `_` and `-`. */
const budgetKeyForm = (k: string): string => k.toLowerCase().replace(/[_-]/g, '');
const BUDGET_FORMS = new Set(BUDGET_KEYS.map(budgetKeyForm));

/** A git range such as `HEAD~1..HEAD` or `main...feature` (no options, no shell syntax). */
export const GIT_RANGE = /^[A-Za-z0-9_./~^@{}-]+(\.\.\.?[A-Za-z0-9_./~^@{}-]+)?$/;

export const councilRunArgs = z.strictObject({
  question: z
    .string()
    .refine((s) => s.trim().length > 0, 'question must not be empty')
    .refine((s) => s.length <= 4000, 'question is at most 4000 characters'),
  diff: z
    .string()
    .refine((s) => s.length <= 200, 'diff is at most 200 characters')
    .refine(
      (s) => GIT_RANGE.test(s) && !s.startsWith('-') && !/^\.+$/.test(s),
      'diff must be a git range such as HEAD~1..HEAD',
    )
    .optional(),
  preset: z.literal('balanced-review').optional(),
});
export type CouncilRunArgs = z.infer<typeof councilRunArgs>;

export const councilRunDeclaration: DelegatingToolDeclaration<CouncilRunArgs> = {
  name: 'council_run',
  effect: 'Delegating',
  replay: 'Never',
  concurrency: 'Exclusive',
  args: councilRunArgs,
  summarize: (a) => summaryLine(`council: ${a.diff ? `review ${a.diff}` : a.question}`),
  delegation: 'council',
  argumentNotes: (raw) => {
    // `deadlineMs`, `Quorum`, `seat-deadline-ms` are the same attempt as `deadline_ms`, `quorum`, `seat_deadline_ms`.
    const keys = raw !== null && typeof raw === 'object' ? Object.keys(raw).map(budgetKeyForm) : [];
    return keys.some((k) => BUDGET_FORMS.has(k))
      ? [
          'The balanced-review preset is frozen: 600000 ms in all, three seats sharing 540000 ms, 60000 ms for synthesis. Budgets, seats and quorum cannot be set by arguments.',
        ]
      : [];
  },
};
