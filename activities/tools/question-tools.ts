/**
 * Bodies of `question` and `question_async` (issue 11 item 5; QU2, QU7,
 * QU8): publish the question to the session workflow (ctx.questions, the
 * `askQuestion` Update) and return a receipt at once. No session wait, no
 * Goal pause: there is no Plan mode yet, so `question` is deferred in every
 * session, like `question_async` (docs/questions.md).
 */
import type { QuestionArgs } from '../../core/tools/question.js';
import type { ToolResult } from '../../core/tools/types.js';
import type { ToolContext } from './context.js';
import type { ToolBody } from './tool-body.js';
import { asErrorCode } from '../../core/error-codes.js';

async function publish(args: QuestionArgs, ctx: ToolContext): Promise<ToolResult> {
  if (!ctx.questions)
    return {
      output: 'Questions cannot be published from here (no session workflow to hold them).',
      isError: true,
      errorCode: 'question_unavailable',
    };
  try {
    const r = await ctx.questions.ask({ ...(args.header ? { header: args.header } : {}), items: args.items });
    return {
      output:
        `Asked (question ${r.questionId}, items ${r.itemIds.join(', ')}). The answer will arrive later as a message; ` +
        'do not wait for it. Keep working with explicitly stated assumptions.',
      isError: false,
      data: { questionId: r.questionId, revision: r.revision, itemIds: r.itemIds },
    };
  } catch (err) {
    const cause = (err as { cause?: { type?: string; message?: string } }).cause;
    return {
      output: `The question could not be published: ${cause?.message ?? (err as Error).message}`,
      isError: true,
      errorCode: asErrorCode(cause?.type) ?? 'question_unavailable',
    };
  }
}

/** `question`: deferred in Work and Goal (QU8): a receipt at once. */
export const questionTool: ToolBody<QuestionArgs> = { needsQuestions: true, run: publish };

/** `question_async`: never blocks (QU2). */
export const questionAsyncTool: ToolBody<QuestionArgs> = { needsQuestions: true, run: publish };
