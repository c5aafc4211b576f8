/**
 * Declarations of `question` and `question_async` (issue 11 item 5; QU2,
 * QU7, QU8, QU15 — the argument schema is a SEED-GAP decided in
 * docs/questions.md). Both publish a clarification and return a receipt at
 * once in Work and Goal sessions; there is no Plan mode yet, so no call
 * blocks. Deterministic: zod + pure code only. The bodies are
 * activities/tools/question-tools.ts; they reach the session workflow
 * through its `askQuestion` Update.
 */
import { z } from 'zod';
import { QUESTION_LIMITS } from '../question-contract.js';
import { printableText } from './printable.js';
import type { ToolDeclaration } from './types.js';
import { summaryLine } from './summary.js';

/** Arguments of `question` and `question_async`: one to ten items, each a question with optional suggested answers. */
export const questionArgs = z.strictObject({
  header: z
    .string()
    .trim()
    .min(1)
    .max(QUESTION_LIMITS.header)
    .optional()
    .describe('A short title for the whole form (what the questions are about).'),
  items: z
    .array(
      z.strictObject({
        question: printableText(QUESTION_LIMITS.text).describe('One question, asked plainly.'),
        options: z
          .array(z.string().trim().min(1).max(QUESTION_LIMITS.option))
          .max(QUESTION_LIMITS.options)
          .optional()
          .describe('Suggested answers; the user may still answer in their own words.'),
      }),
    )
    .min(1)
    .max(QUESTION_LIMITS.items)
    .describe('The questions; the host numbers them qi_1, qi_2, … in this order.'),
});

export type QuestionArgs = z.infer<typeof questionArgs>;

function summarize(name: string) {
  return (a: QuestionArgs) =>
    summaryLine(
      `${name}: ${a.header ?? a.items[0]?.question ?? ''}${a.items.length > 1 ? ` (+${a.items.length - 1})` : ''}`,
    );
}

/**
 * `question`: UserMediated (it asks the user; never an approval surface),
 * replay Safe (idempotent: its Update id comes from the call), ParallelSafe.
 * In Work and Goal it returns a receipt at once (QU8).
 */
export const questionDeclaration: ToolDeclaration<QuestionArgs> = {
  name: 'question',
  effect: 'UserMediated',
  replay: 'Safe',
  concurrency: 'ParallelSafe',
  args: questionArgs,
  summarize: summarize('question'),
};

/** `question_async`: the same facts; it never blocks, even in Plan (QU2, QU8). Governed by the `question` permission key (QU9). */
export const questionAsyncDeclaration: ToolDeclaration<QuestionArgs> = {
  name: 'question_async',
  effect: 'UserMediated',
  replay: 'Safe',
  concurrency: 'ParallelSafe',
  args: questionArgs,
  summarize: summarize('question_async'),
};
