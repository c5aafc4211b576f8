/**
 * The question routes of `zuno serve` (issue 29, SF6; QU10-QU12): list the
 * open questions (as `zuno questions list --json`) and answer items of one
 * with a command id and the revision the client saw (another revision is
 * refused `question_stale_revision`, 409).
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { ZunoError } from '../../../core/errors.js';
import { answerQuestion, findQuestion } from '../../questions.js';
import type { HttpDeps } from '../deps.js';
import { AnswerResultSchema, AnswerSchema, PendingQuery, QuestionParams, StoredSchema } from '../schemas.js';
import { failures, jsonBody, jsonContent } from './common.js';

/** Session statuses whose workflow has closed: a question there is answered as the next prompt. */
const CLOSED: ReadonlySet<string> = new Set(['completed', 'failed', 'blocked', 'interrupted', 'cancelled']);

const list = createRoute({
  method: 'get',
  path: '/questions',
  summary: 'The open questions and answers not delivered yet (as zuno questions list --json)',
  request: { query: PendingQuery },
  responses: { 200: jsonContent(StoredSchema.array(), 'the question rows'), ...failures(400) },
});

const answer = createRoute({
  method: 'post',
  path: '/questions/{id}/answer',
  summary: 'Answer items of a question',
  request: { params: QuestionParams, body: jsonBody(AnswerSchema) },
  responses: { 200: jsonContent(AnswerResultSchema, "the workflow's answer"), ...failures(400, 404, 409, 413, 503) },
});

/** Registers the question routes on `app`. */
export function questionRoutes(app: OpenAPIHono, deps: HttpDeps): void {
  const { store } = deps.host;
  app.openapi(list, async (c) => {
    const { session } = c.req.valid('query');
    const rows = (
      await store.listQuestions({ ...(session !== undefined ? { sessionId: session } : {}), limit: 1000 })
    ).filter((r) => r.delivery !== 'applied');
    const out: Record<string, unknown>[] = [];
    for (const r of rows) {
      const status = (await store.getSession(r.sessionId))?.status;
      out.push({ ...r, sessionClosed: status !== undefined && CLOSED.has(status) });
    }
    return c.json(out, 200);
  });
  app.openapi(answer, async (c) => {
    const { id } = c.req.valid('param');
    const b = c.req.valid('json');
    const row = await findQuestion(store, id, b.sessionId);
    if (row.revision !== b.expectedRevision)
      throw new ZunoError(
        'question_stale_revision',
        `question ${row.id} is at revision ${row.revision}, not ${b.expectedRevision}: list it again before answering`,
      );
    const result = await answerQuestion(deps.host.temporal.client, row, b.answers, b.commandId);
    return c.json(AnswerResultSchema.parse({ sessionId: row.sessionId, ...result }), 200);
  });
}
